//! CUBE 4 profiles written from data the tests choose (tests/extrap_cube.rs):
//! the anchor's XML, the metrics' index and data members (plain or
//! zlib-compressed, little- or big-endian), a tar archive per profile and
//! a directory of runs. Compression uses stored deflate blocks, written
//! here, so that the tests need no compressor.
// Each test crate uses its own part of these.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A `<metric>`; `parent` is the index of the metric it is under.
#[derive(Clone, Debug)]
pub struct Metric {
    pub id: u32,
    pub name: String,
    /// `INCLUSIVE`, `EXCLUSIVE` or another type.
    pub kind: String,
    pub dtype: String,
    pub parent: Option<usize>,
}

impl Metric {
    pub fn new(id: u32, name: &str, kind: &str, dtype: &str) -> Metric {
        Metric {
            id,
            name: name.into(),
            kind: kind.into(),
            dtype: dtype.into(),
            parent: None,
        }
    }
}

/// A metric's stored values: `rows[k] = (cnode, values per location)`, in
/// any order (the writer orders them by the metric's enumeration).
#[derive(Clone, Debug, Default)]
pub struct Values {
    pub metric: u32,
    pub rows: Vec<(usize, Vec<f64>)>,
}

/// One profile: call tree in pre-order (`cnodes[i] = (parent, region)`,
/// each parent before its children), metrics, values, and how to write
/// them.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    pub regions: Vec<String>,
    pub cnodes: Vec<(Option<usize>, usize)>,
    pub metrics: Vec<Metric>,
    pub locations: usize,
    pub values: Vec<Values>,
    pub compressed: bool,
    pub big_endian: bool,
    pub gzip_anchor: bool,
    /// The anchor as the first member (Score-P writes it last).
    pub anchor_first: bool,
}

impl Profile {
    /// A profile of the call tree `cnodes` (`(parent, index into
    /// regions)`, in pre-order) with `locations` locations, no metric yet.
    pub fn new(regions: &[&str], cnodes: &[(Option<usize>, usize)], locations: usize) -> Profile {
        Profile {
            regions: regions.iter().map(|r| r.to_string()).collect(),
            cnodes: cnodes.to_vec(),
            locations,
            ..Profile::default()
        }
    }

    /// Adds a metric and its stored values: `(cnode, one per location)`.
    pub fn metric(mut self, metric: Metric, rows: &[(usize, &[f64])]) -> Profile {
        self.values.push(Values {
            metric: metric.id,
            rows: rows.iter().map(|&(c, v)| (c, v.to_vec())).collect(),
        });
        self.metrics.push(metric);
        self
    }

    /// The anchor's text (written without recursion: the tree may be deep).
    pub fn anchor_xml(&self) -> String {
        let mut x =
            String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n");
        x.push_str("  <attr key=\"Creator\" value=\"pattern tests\"/>\n  <metrics>\n");
        // Metrics nest like cnodes: close those that are not ancestors.
        let mut open: Vec<usize> = Vec::new();
        for (i, m) in self.metrics.iter().enumerate() {
            while open.last().is_some_and(|&o| Some(o) != m.parent) {
                open.pop();
                x.push_str("</metric>\n");
            }
            write!(
                x,
                "<metric id=\"{}\" type=\"{}\"><disp_name>{}</disp_name><uniq_name>{}</uniq_name><dtype>{}</dtype><uom>sec</uom><url></url><descr>d</descr>",
                m.id, m.kind, m.name, m.name, m.dtype
            )
            .unwrap();
            open.push(i);
        }
        for _ in open {
            x.push_str("</metric>\n");
        }
        x.push_str("  </metrics>\n  <program>\n");
        for (i, r) in self.regions.iter().enumerate() {
            writeln!(x, "    <region id=\"{i}\" mod=\"m.c\" begin=\"1\" end=\"2\"><name>{r}</name><paradigm>compiler</paradigm></region>").unwrap();
        }
        let mut open: Vec<usize> = Vec::new();
        for (i, &(parent, region)) in self.cnodes.iter().enumerate() {
            while open.last().is_some_and(|&o| Some(o) != parent) {
                open.pop();
                x.push_str("</cnode>");
            }
            write!(x, "<cnode id=\"{}\" calleeId=\"{region}\">", i + 100).unwrap();
            open.push(i);
        }
        for _ in open {
            x.push_str("</cnode>");
        }
        x.push_str("\n  </program>\n  <system>\n    <systemtreenode Id=\"0\"><name>machine</name><class>machine</class>\n      <locationgroup Id=\"0\"><name>p</name><rank>0</rank><type>process</type>\n");
        for l in 0..self.locations {
            writeln!(x, "        <location Id=\"{l}\"><name>t{l}</name><rank>{l}</rank><type>thread</type></location>").unwrap();
        }
        x.push_str("      </locationgroup>\n    </systemtreenode>\n  </system>\n</cube>\n");
        x
    }

    /// Each cnode's children, in order.
    fn children(&self) -> Vec<Vec<usize>> {
        let mut children = vec![Vec::new(); self.cnodes.len()];
        for (i, &(parent, _)) in self.cnodes.iter().enumerate() {
            if let Some(p) = parent {
                children[p].push(i);
            }
        }
        children
    }

    /// CubeLib's "wide" numbering (INCLUSIVE metrics): position → cnode.
    pub fn wide_order(&self) -> Vec<usize> {
        let children = self.children();
        let mut order = Vec::new();
        for root in (0..self.cnodes.len()).filter(|&i| self.cnodes[i].0.is_none()) {
            order.push(root);
            let mut stack = vec![root];
            while let Some(c) = stack.pop() {
                order.extend(&children[c]);
                stack.extend(children[c].iter().rev());
            }
        }
        order
    }

    /// The index and data members of a metric's values: rows in the
    /// metric's enumeration (pre-order, which is the cnodes' order here,
    /// for EXCLUSIVE metrics; CubeLib's "wide" one for INCLUSIVE).
    pub fn members(&self, values: &Values) -> (Vec<u8>, Vec<u8>) {
        let metric = self
            .metrics
            .iter()
            .find(|m| m.id == values.metric)
            .expect("a metric of the profile");
        let position_of: Vec<usize> = if metric.kind == "INCLUSIVE" {
            let order = self.wide_order();
            let mut pos = vec![0; order.len()];
            for (p, &c) in order.iter().enumerate() {
                pos[c] = p;
            }
            pos
        } else {
            (0..self.cnodes.len()).collect()
        };
        let mut rows: Vec<(usize, &Vec<f64>)> = values
            .rows
            .iter()
            .map(|(c, v)| (position_of[*c], v))
            .collect();
        rows.sort_by_key(|r| r.0);
        let big = self.big_endian;
        let positions: Vec<i32> = rows.iter().map(|r| r.0 as i32).collect();
        let index = index(&positions, big);
        let mut raw = Vec::new();
        for (_, v) in &rows {
            assert_eq!(v.len(), self.locations, "one value per location");
            for &x in v.iter() {
                raw.extend(encode(x, &metric.dtype, big));
            }
        }
        let data = if self.compressed {
            let per_row = raw.len() / rows.len().max(1);
            zdata(&raw, per_row.max(1), big)
        } else {
            [b"CUBEX.DATA".as_slice(), &raw].concat()
        };
        (index, data)
    }

    /// The members of the profile, in writing order.
    pub fn member_list(&self) -> Vec<(String, Vec<u8>)> {
        let mut members = Vec::new();
        for v in &self.values {
            let (index, data) = self.members(v);
            members.push((format!("{}.data", v.metric), data));
            members.push((format!("{}.index", v.metric), index));
        }
        let xml = self.anchor_xml().into_bytes();
        let anchor = if self.gzip_anchor { gzip(&xml) } else { xml };
        let anchor = ("anchor.xml".to_string(), anchor);
        if self.anchor_first {
            members.insert(0, anchor);
        } else {
            members.push(anchor);
        }
        members
    }

    /// The `.cubex` bytes.
    pub fn cubex(&self) -> Vec<u8> {
        tar(&self.member_list())
    }

    /// Writes `dir/run/file` (run directory created), returns its path.
    pub fn write(&self, dir: &Path, run: &str, file: &str) -> PathBuf {
        write_file(dir, run, file, &self.cubex())
    }
}

/// Writes raw bytes as `dir/run/file`.
pub fn write_file(dir: &Path, run: &str, file: &str, bytes: &[u8]) -> PathBuf {
    let run = dir.join(run);
    std::fs::create_dir_all(&run).unwrap();
    let path = run.join(file);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A tar archive of `(name, bytes)` members.
pub fn tar(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o600);
        h.set_cksum();
        b.append_data(&mut h, name, bytes.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

/// An index member: the mark 1 in the byte order, version 0, sparse
/// format, the positions.
pub fn index(positions: &[i32], big: bool) -> Vec<u8> {
    let i32b = |v: i32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = b"CUBEX.INDEX".to_vec();
    b.extend(i32b(1));
    b.extend([0, 0, 1]);
    b.extend(i32b(positions.len() as i32));
    for &p in positions {
        b.extend(i32b(p));
    }
    b
}

/// One value as a dtype stores it.
pub fn encode(x: f64, dtype: &str, big: bool) -> Vec<u8> {
    macro_rules! e {
        ($v:expr) => {
            if big {
                $v.to_be_bytes().to_vec()
            } else {
                $v.to_le_bytes().to_vec()
            }
        };
    }
    match dtype {
        "DOUBLE" | "FLOAT" | "MINDOUBLE" | "MAXDOUBLE" => e!(x),
        "UINT64" | "UNSIGNED INTEGER" => e!(x as u64),
        "INT64" | "INTEGER" => e!(x as i64),
        "UINT32" => e!(x as u32),
        "INT32" | "INT" => e!(x as i32),
        "UINT16" => e!(x as u16),
        "INT16" => e!(x as i16),
        "UINT8" | "CHAR" => vec![x as u8],
        "INT8" => vec![x as i8 as u8],
        // Unreadable types: some bytes, their content irrelevant.
        _ => vec![0; 8],
    }
}

/// A ZCUBEX.DATA member: `raw` cut into segments of `segment` bytes, each
/// a zlib stream.
pub fn zdata(raw: &[u8], segment: usize, big: bool) -> Vec<u8> {
    let i64b = |v: i64| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let segments: Vec<Vec<u8>> = raw.chunks(segment).map(zlib).collect();
    let mut b = b"ZCUBEX.DATA".to_vec();
    b.extend(i64b(segments.len() as i64));
    let (mut at, mut zat) = (0i64, 0i64);
    for (s, chunk) in segments.iter().zip(raw.chunks(segment)) {
        b.extend(i64b(at));
        b.extend(i64b(zat));
        b.extend(i64b(s.len() as i64));
        at += chunk.len() as i64;
        zat += s.len() as i64;
    }
    for s in segments {
        b.extend(s);
    }
    b
}

/// Deflate stored blocks (no compression) of `raw`.
fn deflate_stored(raw: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    let chunks: Vec<&[u8]> = if raw.is_empty() {
        vec![&[]]
    } else {
        raw.chunks(65535).collect()
    };
    for (i, chunk) in chunks.iter().enumerate() {
        b.push(u8::from(i + 1 == chunks.len()));
        let n = chunk.len() as u16;
        b.extend(n.to_le_bytes());
        b.extend((!n).to_le_bytes());
        b.extend_from_slice(chunk);
    }
    b
}

/// A zlib stream of `raw`.
pub fn zlib(raw: &[u8]) -> Vec<u8> {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in raw {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    let mut out = vec![0x78, 0x01];
    out.extend(deflate_stored(raw));
    out.extend(((b << 16) | a).to_be_bytes());
    out
}

/// A gzip file of `raw`.
pub fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut crc = !0u32;
    for &x in raw {
        crc ^= u32::from(x);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(deflate_stored(raw));
    out.extend((!crc).to_le_bytes());
    out.extend((raw.len() as u32).to_le_bytes());
    out
}

/// A fresh directory under the system's temporary one.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pattern-cube-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
