use super::*;
use crate::fit::extrap_io::cube::testutil::{
    anchor as anchor_xml, f64s, gzip, index, metric, plain, tar, temp_dir, write,
};

fn xml() -> String {
    let metrics =
        metric(0, "time", "EXCLUSIVE", "DOUBLE") + &metric(3, "visits", "EXCLUSIVE", "UINT64");
    anchor_xml(&metrics, 1)
}

fn all(_: &MetricDef) -> bool {
    true
}

fn time_only(m: &MetricDef) -> bool {
    m.name == "time"
}

/// Writes a `.cubex` of the members and reads it.
fn read_members(
    name: &str,
    members: &[(&str, &[u8])],
    wanted: &dyn Fn(&MetricDef) -> bool,
) -> Result<Archive, ExtrapError> {
    let dir = temp_dir(&format!("archive-{name}"));
    let path = write(&dir, "profile.cubex", &tar(members));
    let got = read(&path, wanted);
    std::fs::remove_dir_all(&dir).unwrap();
    got
}

fn message(e: ExtrapError) -> (String, String) {
    match e {
        ExtrapError::Archive { part, message, .. } => (part, message),
        other => panic!("not an archive error: {other}"),
    }
}

#[test]
fn anchor_before_or_after_the_data() {
    let (x, i, d) = (xml(), index(&[0], false), plain(&f64s(&[1.5], false)));
    let data = [
        ("0.index", &i[..]),
        ("0.data", &d[..]),
        ("3.index", &i[..]),
        ("3.data", &d[..]),
    ];
    let mut first = vec![("anchor.xml", x.as_bytes())];
    first.extend(data);
    let a = read_members("first", &first, &time_only).unwrap();
    assert_eq!(a.anchor.regions, ["main", "a", "b", "c"]);
    // Known before the data, an unwanted metric's members are not kept.
    assert_eq!(a.members.keys().collect::<Vec<_>>(), [&0]);
    assert_eq!(a.members[&0].data.as_deref(), Some(&d[..]));
    let mut last = data.to_vec();
    last.push(("./anchor.xml", x.as_bytes()));
    let a = read_members("last", &last, &time_only).unwrap();
    assert_eq!(a.members.len(), 2);
    assert_eq!(a.members[&3].index.as_deref(), Some(&i[..]));
    assert_eq!(a.anchor.locations, 1);
}

#[test]
fn gzipped_anchor_and_gzipped_archive() {
    let gz = gzip(xml().as_bytes());
    let a = read_members(
        "gzanchor",
        &[("anchor.xml", &gz), ("notes.txt", b"x")],
        &all,
    )
    .unwrap();
    assert_eq!(a.anchor.metrics.len(), 2);
    let dir = temp_dir("gztar");
    let path = write(
        &dir,
        "p.cubex",
        &gzip(&tar(&[("anchor.xml", xml().as_bytes())])),
    );
    assert_eq!(read(&path, &all).unwrap().anchor.cnodes.len(), 4);
    let path = write(&dir, "b.cubex", b"BZh91AY&SY");
    let (part, m) = message(read(&path, &all).unwrap_err());
    assert!(part == "tar" && m.contains("bzip2"), "{m}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn member_errors_name_the_member() {
    let (x, i) = (xml(), index(&[0], false));
    let (part, m) = message(read_members("none", &[("0.index", &i)], &all).unwrap_err());
    assert_eq!(
        (part.as_str(), m.as_str()),
        ("anchor.xml", "no anchor.xml in the archive")
    );
    let twice = [("anchor.xml", x.as_bytes()), ("anchor.xml", x.as_bytes())];
    let (part, m) = message(read_members("twice", &twice, &all).unwrap_err());
    assert!(
        part == "anchor.xml" && m.contains("a second anchor.xml"),
        "{m}"
    );
    let dup = [
        ("anchor.xml", x.as_bytes()),
        ("0.index", &i[..]),
        ("0.index", &i[..]),
    ];
    let (part, m) = message(read_members("dup", &dup, &all).unwrap_err());
    assert!(part == "0.index" && m.contains("a second member"), "{m}");
    // Members of a metric the anchor does not have, seen before or after it.
    let unknown = [("anchor.xml", x.as_bytes()), ("7.data", &i[..])];
    let (part, m) = message(read_members("unknown1", &unknown, &all).unwrap_err());
    assert!(part == "7.data" && m.contains("no metric with id 7"), "{m}");
    let unknown = [("7.index", &i[..]), ("anchor.xml", x.as_bytes())];
    let (_, m) = message(read_members("unknown2", &unknown, &all).unwrap_err());
    assert!(m.contains("no metric with id 7"), "{m}");
    // Names that are not Extra-P's `<id>.index` are other members.
    assert_eq!(metric_member("03.index"), None);
    assert_eq!(metric_member("3.index"), Some((3, true)));
    assert_eq!(metric_member("12.data"), Some((12, false)));
    assert_eq!(metric_member("a.data"), None);
}

#[test]
fn anchor_errors_give_line_and_column() {
    let bad = xml().replace("calleeId=\"9\"", "calleeId=\"99\"");
    let (part, m) =
        message(read_members("badxml", &[("anchor.xml", bad.as_bytes())], &all).unwrap_err());
    assert_eq!(part, "anchor.xml");
    assert!(
        m.starts_with("line 11, column 7: calleeId 99 names no <region>"),
        "{m}"
    );
    let mut gz = gzip(xml().as_bytes());
    let n = gz.len();
    gz.truncate(n - 20);
    let (_, m) = message(read_members("badgz", &[("anchor.xml", &gz)], &all).unwrap_err());
    assert!(m.contains("corrupt gzip"), "{m}");
}

#[test]
fn truncated_and_corrupt_archives_are_errors() {
    let x = xml();
    let big = vec![7u8; 3000];
    let whole = tar(&[("0.data", &big), ("anchor.xml", x.as_bytes())]);
    let dir = temp_dir("trunc");
    // Cut inside a member's data (the tar reader would stop quietly),
    // inside a header, and garbage.
    let path = write(&dir, "p.cubex", &whole[..1200]);
    let (part, m) = message(read(&path, &all).unwrap_err());
    assert_eq!(
        (part.as_str(), m.as_str()),
        ("0.data", "truncated: 688 of its 3000 bytes")
    );
    for cut in [3600, 100] {
        let path = write(&dir, "p.cubex", &whole[..cut]);
        let (part, m) = message(read(&path, &all).unwrap_err());
        assert!(
            part == "tar" && m.contains("corrupt or truncated tar"),
            "{cut}: {m}"
        );
    }
    let path = write(&dir, "p.cubex", &[b'x'; 1024]);
    let (part, m) = message(read(&path, &all).unwrap_err());
    assert!(
        part == "tar" && m.starts_with("corrupt or truncated tar near byte 512"),
        "{m}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sets every header's stored checksum `by` lower, as CubeWriter 4.8 did
/// (by 32).
fn lower_checksums(mut t: Vec<u8>, by: u32) -> Vec<u8> {
    let mut at = 0;
    while at + 512 <= t.len() && t[at..at + 512].iter().any(|&b| b != 0) {
        let h = tar::Header::from_byte_slice(&t[at..at + 512]);
        let (sum, size) = (h.cksum().unwrap(), h.entry_size().unwrap());
        t[at + 148..at + 156].copy_from_slice(format!("{:06o}\0 ", sum - by).as_bytes());
        at += 512 + size.div_ceil(512) as usize * 512;
    }
    t
}

#[test]
fn cubewriter_4_8_checksums_are_put_right_and_others_are_not() {
    let x = xml();
    let d = plain(&f64s(&[2.0], false));
    let t = tar(&[
        ("0.data", &d),
        ("0.index", &index(&[0], false)),
        ("anchor.xml", x.as_bytes()),
    ]);
    let dir = temp_dir("cksum");
    let path = write(&dir, "p.cubex", &lower_checksums(t.clone(), 32));
    let a = read(&path, &all).unwrap();
    assert_eq!(a.members[&0].data.as_deref(), Some(&d[..]));
    let path = write(&dir, "p.cubex", &lower_checksums(t, 31));
    let (part, m) = message(read(&path, &all).unwrap_err());
    assert!(
        part == "tar" && m.contains("checksum mismatch") && m.contains("near byte 512"),
        "{m}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_gzipped_archive_is_inflated_only_so_far() {
    let mut capped = Capped {
        inner: &b"abcdef"[..],
        left: 4,
    };
    let mut out = Vec::new();
    let e = capped.read_to_end(&mut out).unwrap_err();
    assert!(
        e.to_string().contains("inflates past 4294967296 bytes"),
        "{e}"
    );
    let mut within = Capped {
        inner: &b"abcdef"[..],
        left: 6,
    };
    out.clear();
    assert_eq!(within.read_to_end(&mut out).unwrap(), 6);
}
