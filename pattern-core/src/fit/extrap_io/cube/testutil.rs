//! Members, anchors and archives for the unit tests (the integration
//! tests have a fuller writer, tests/common/cube.rs).

use std::io::Write;
use std::path::{Path, PathBuf};

/// An index member: mark, 1 in the byte order, version 0, format
/// `format`, the positions.
pub(super) fn index_with(positions: &[i32], big: bool, format: u8) -> Vec<u8> {
    let i32b = |v: i32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = b"CUBEX.INDEX".to_vec();
    b.extend(i32b(1));
    b.extend([0, 0, format]);
    b.extend(i32b(positions.len() as i32));
    for &p in positions {
        b.extend(i32b(p));
    }
    b
}

/// A sparse index.
pub(super) fn index(positions: &[i32], big: bool) -> Vec<u8> {
    index_with(positions, big, 1)
}

/// Doubles, in the byte order.
pub(super) fn f64s(values: &[f64], big: bool) -> Vec<u8> {
    let b = values.iter().map(|v| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    });
    b.flatten().collect()
}

/// A CUBEX.DATA member.
pub(super) fn plain(raw: &[u8]) -> Vec<u8> {
    [b"CUBEX.DATA".as_slice(), raw].concat()
}

/// A zlib stream (compressed for real).
pub(super) fn zlib(raw: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(raw).unwrap();
    z.finish().unwrap()
}

/// A gzip file.
pub(super) fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(raw).unwrap();
    z.finish().unwrap()
}

/// A ZCUBEX.DATA member of the given (already compressed) segments, each
/// header's compressed size taken from the segment.
pub(super) fn zdata(segments: &[Vec<u8>], big: bool) -> Vec<u8> {
    let i64b = |v: i64| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = b"ZCUBEX.DATA".to_vec();
    b.extend(i64b(segments.len() as i64));
    for s in segments {
        b.extend(i64b(0));
        b.extend(i64b(0));
        b.extend(i64b(s.len() as i64));
    }
    for s in segments {
        b.extend(s);
    }
    b
}

/// A tar archive of the members.
pub(super) fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o600);
        h.set_cksum();
        b.append_data(&mut h, name, *bytes).unwrap();
    }
    b.into_inner().unwrap()
}

/// An anchor of `main` calling `a` and `b` (`a` calling `c`), cnodes 0..4
/// in document order, with the metrics given as XML and `locations`
/// locations in two groups.
pub(super) fn anchor(metrics: &str, locations: usize) -> String {
    let mut system = String::new();
    for l in 0..locations {
        let group = l % 2;
        system.push_str(&format!(
            "<locationgroup Id=\"{l}\"><name>g{group}</name><location Id=\"{l}\"><name>t</name></location></locationgroup>"
        ));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.4">
  <metrics>{metrics}</metrics>
  <program>
    <region id="7" mod="m.c" begin="1" end="2"><name>main</name></region>
    <region id="8" mod="m.c" begin="1" end="2"><name>a</name></region>
    <region id="9" mod="m.c" begin="1" end="2"><name>b</name></region>
    <region id="10" mod="m.c" begin="1" end="2"><name>c</name></region>
    <cnode id="0" calleeId="7">
      <cnode id="1" calleeId="8"><cnode id="2" calleeId="10"/></cnode>
      <cnode id="3" calleeId="9"></cnode>
    </cnode>
  </program>
  <system><systemtreenode Id="0"><name>m</name>{system}</systemtreenode></system>
</cube>
"#
    )
}

/// A `<metric>` element.
pub(super) fn metric(id: u32, name: &str, kind: &str, dtype: &str) -> String {
    format!(
        "<metric id=\"{id}\" type=\"{kind}\"><disp_name>{name}</disp_name><uniq_name>{name}</uniq_name><dtype>{dtype}</dtype></metric>"
    )
}

/// A fresh directory for a test.
pub(super) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pattern-cube-unit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` as `dir/name`.
pub(super) fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    path
}
