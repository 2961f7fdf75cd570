use super::*;
use crate::fit::extrap_io::cube::testutil::{anchor, metric};

fn parse_str(s: &str) -> Result<Anchor, AnchorError> {
    parse(s.as_bytes())
}

/// The error's message with its line and column.
fn error_at(s: &str) -> (usize, usize, String) {
    let e = parse_str(s).unwrap_err();
    let (line, column) = line_column(s.as_bytes(), e.offset);
    (line, column, e.message)
}

#[test]
fn metrics_tree_regions_cnodes_and_locations() {
    let metrics = format!(
        "{}<metric id=\"4\" type=\"EXCLUSIVE\" viztype=\"PLAIN\"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>{}{}</metric>",
        metric(0, "visits", "EXCLUSIVE", "UINT64"),
        metric(5, "execution", "INCLUSIVE", "DOUBLE"),
        metric(6, "mpi", "EXCLUSIVE", "DOUBLE"),
    );
    let a = parse_str(&anchor(&metrics, 3)).unwrap();
    let names: Vec<(&str, Option<usize>)> = a
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), m.parent))
        .collect();
    assert_eq!(
        names,
        [
            ("visits", None),
            ("time", None),
            ("execution", Some(1)),
            ("mpi", Some(1))
        ]
    );
    assert_eq!(a.metrics[2].id, 5);
    assert_eq!(a.metrics[2].kind, "INCLUSIVE");
    assert_eq!(a.metrics[0].dtype, "UINT64");
    assert_eq!(a.regions, ["main", "a", "b", "c"]);
    let tree: Vec<(u32, u32)> = a.cnodes.iter().map(|c| (c.parent, c.region)).collect();
    assert_eq!(tree, [(NO_PARENT, 0), (0, 1), (1, 3), (0, 2)]);
    assert_eq!(a.locations, 3);
}

#[test]
fn locations_nest_in_groups_and_system_nodes_and_several_roots() {
    let xml = r#"<cube><metrics/><program>
      <region id="1" mod="" begin="0" end="0"><name>x &amp; y&#33;</name></region>
      <cnode id="5" calleeId="1"/><cnode id="6" calleeId="1"><cnode id="7" calleeId="1"/></cnode>
    </program><system>
      <systemtreenode Id="0"><systemtreenode Id="1">
        <locationgroup Id="0"><location Id="0"/><locationgroup Id="2"><location Id="1"/></locationgroup></locationgroup>
      </systemtreenode><locationgroup Id="1"><location Id="2"/></locationgroup></systemtreenode>
      <systemtreenode Id="9"><locationgroup Id="3"><location Id="3"/></locationgroup></systemtreenode>
      <topologies><cart><coord locId="0">0</coord></cart></topologies>
    </system></cube>"#;
    let a = parse_str(xml).unwrap();
    assert_eq!(a.locations, 4);
    assert_eq!(a.regions, ["x & y!"]);
    let parents: Vec<u32> = a.cnodes.iter().map(|c| c.parent).collect();
    assert_eq!(parents, [NO_PARENT, NO_PARENT, 1]);
}

#[test]
fn deep_cnode_and_metric_trees_parse_on_a_small_stack() {
    let depth = 100_000;
    let text = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut x = String::from("<cube><metrics>");
            for i in 0..depth {
                x.push_str(&format!("<metric id=\"{i}\" type=\"EXCLUSIVE\"><uniq_name>m{i}</uniq_name>"));
            }
            x.push_str(&"</metric>".repeat(depth));
            x.push_str("</metrics><program><region id=\"0\" mod=\"\" begin=\"0\" end=\"0\"><name>f</name></region>");
            for i in 0..depth {
                x.push_str(&format!("<cnode id=\"{i}\" calleeId=\"0\">"));
            }
            x.push_str(&"</cnode>".repeat(depth));
            x.push_str("</program><system><location Id=\"0\"/></system></cube>");
            let a = parse_str(&x).unwrap();
            (a.cnodes.len(), a.cnodes[depth - 1].parent, a.metrics[depth - 1].parent)
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(text, (depth, depth as u32 - 2, Some(depth - 2)));
}

#[test]
fn malformed_xml_is_an_error_at_its_line_and_column() {
    let (line, column, m) = error_at("<cube>\n  <metrics>\n  </metricz>\n</cube>");
    assert_eq!((line, column), (3, 3), "{m}");
    assert!(m.contains("malformed XML"), "{m}");
    let (line, _, m) =
        error_at("<cube>\n<program>\n<cnode id=\"1\" calleeId=\"2\">\n</program></cube>");
    assert_eq!(line, 4, "{m}");
    let (line, column, m) = error_at("<cube>\n<program>\n  <cnode id=\"1\" calleeId=\"2\"\n");
    assert_eq!((line, column), (3, 3), "{m}");
    // Columns count characters, not bytes.
    let (line, column, m) = error_at("<cube><metrics><metric id=\"é\" type=\"x\"/>");
    assert_eq!((line, column), (1, 16), "{m}");
    assert!(m.contains("not a non-negative integer"), "{m}");
    let (_, _, m) =
        error_at("<cube><program><region id=\"1\"><name>&nope;</name></region></program></cube>");
    assert!(m.contains("unknown entity `&nope;`"), "{m}");
}

#[test]
fn structure_errors_name_the_element() {
    let cases = [
        ("<cubex/>", "the root element is <cubex>"),
        ("<cube/><cube/>", "after the end of <cube>"),
        ("", "no <cube> element"),
        (
            "<cube><metrics><metric type=\"INCLUSIVE\"/></metrics></cube>",
            "<metric> has no `id`",
        ),
        (
            "<cube><metrics><metric id=\"-1\"/></metrics></cube>",
            "not a non-negative integer",
        ),
        (
            "<cube><metrics><metric id=\"1\"/></metrics></cube>",
            "<metric> id 1 has no <uniq_name>",
        ),
        (
            "<cube><metrics><metric id=\"1\"><uniq_name>a</uniq_name></metric><metric id=\"1\"/></metrics></cube>",
            "a second <metric> with id 1",
        ),
        (
            "<cube><metrics><metric id=\"1\"><uniq_name>a</uniq_name></metric><metric id=\"2\"><uniq_name>a</uniq_name></metric></metrics></cube>",
            "a second <metric> named `a`",
        ),
        (
            "<cube><metrics><metric id=\"1\"><uniq_name>a</uniq_name><uniq_name>b</uniq_name></metric></metrics></cube>",
            "a second <uniq_name>",
        ),
        (
            "<cube><program><region id=\"3\"/></program></cube>",
            "<region> id 3 has no <name>",
        ),
        (
            "<cube><program><region id=\"3\"><name>a</name></region><region id=\"3\"><name>b</name></region></program><system><location/></system></cube>",
            "a second <region> with id 3",
        ),
        (
            "<cube><program><cnode calleeId=\"1\"/></program></cube>",
            "<cnode> has no `id`",
        ),
        (
            "<cube><program><cnode id=\"1\"/></program></cube>",
            "<cnode> has no `calleeId`",
        ),
        (
            "<cube><program><cnode id=\"1\" calleeId=\"1\"/><cnode id=\"1\" calleeId=\"1\"/></program></cube>",
            "a second <cnode> with id 1",
        ),
        (
            "<cube><program><cnode id=\"1\" calleeId=\"4\"/></program><system><location/></system></cube>",
            "calleeId 4 names no <region>",
        ),
        (
            "<cube><program></program><system></system></cube>",
            "no <location>",
        ),
        ("<cube><program>", "not closed"),
    ];
    for (xml, expected) in cases {
        let e = parse_str(xml).unwrap_err();
        assert!(e.message.contains(expected), "{xml}: {}", e.message);
    }
}

#[test]
fn line_column_counts_characters() {
    let s = "ab\ncdé\nf".as_bytes();
    assert_eq!(line_column(s, 0), (1, 1));
    assert_eq!(line_column(s, 3), (2, 1));
    assert_eq!(line_column(s, 7), (2, 4));
    assert_eq!(line_column(s, 8), (3, 1));
    assert_eq!(line_column(s, 9), (3, 2));
    assert_eq!(line_column(s, 1000), (3, 2));
}
