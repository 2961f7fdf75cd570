use super::*;
use crate::fit::extrap_io::cube::testutil::{
    anchor, f64s, index, metric, plain, tar, temp_dir, write,
};

/// A profile of `time` (exclusive doubles, one location; `main` = `t`,
/// the others 1) and `bytes` (no data), and the metrics given.
fn profile(t: f64, more_metrics: &str) -> Vec<u8> {
    let metrics = metric(0, "time", "EXCLUSIVE", "DOUBLE")
        + &metric(1, "bytes", "EXCLUSIVE", "UINT64")
        + more_metrics;
    let xml = anchor(&metrics, 1);
    let d = plain(&f64s(&[t, 1.0, 1.0, 1.0], false));
    tar(&[
        ("0.index", &index(&[0, 1, 2, 3], false)),
        ("0.data", &d),
        ("anchor.xml", xml.as_bytes()),
    ])
}

#[test]
fn runs_are_found_as_extrap_globs_them() {
    let dir = temp_dir("find");
    write(&dir, "app.p1/profile.cubex", &profile(1.0, ""));
    write(&dir, "app.p2/profile.cubex", &profile(2.0, ""));
    write(&dir, "app.p2/.hidden.cubex", b"not read");
    write(&dir, "app.p2/notes.txt", b"not read");
    write(&dir, "app.p2/x.CUBEX", b"not read");
    write(&dir, "top.cubex", b"not read");
    std::fs::create_dir_all(dir.join("_empty")).unwrap();
    let runs = find_runs(&dir).unwrap();
    let names: Vec<(&str, String)> = runs
        .iter()
        .map(|r| {
            (
                r.dir.as_str(),
                r.file.file_name().unwrap().to_string_lossy().into_owned(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("app.p1", "profile.cubex".to_string()),
            ("app.p2", "profile.cubex".to_string())
        ]
    );
    let read = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap();
    assert_eq!(read.experiment.parameters, ["p"]);
    let main = read.experiment.series("main", "time").unwrap();
    assert_eq!(
        main.points
            .iter()
            .map(|p| (p.coordinate[0], p.values.clone()))
            .collect::<Vec<_>>(),
        [(1.0, vec![1.0]), (2.0, vec![2.0])]
    );
    assert_eq!(read.experiment.series.len(), 4);
    assert_eq!(
        read.skipped,
        [
            "metric `bytes`: no data members (1.index, 1.data) (in 2 of 2 profiles, the first app.p1/profile.cubex)"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn directory_errors() {
    let dir = temp_dir("direrr");
    let e = Experiment::read_cube(dir.join("absent"), &CubeOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("is not a directory")),
        "{e}"
    );
    let e = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("no `*/*.cubex`")),
        "{e}"
    );
    write(&dir, "app.p1/profile.cubex", &profile(1.0, ""));
    let e = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("no parameter varies")),
        "{e}"
    );
    write(&dir, "app.q2/profile.cubex", &profile(1.0, ""));
    let e = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("same parameters")),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selected_metrics_must_exist_and_be_readable() {
    let dir = temp_dir("select");
    let derived = "<metric id=\"2\" type=\"POSTDERIVED\"><uniq_name>ratio</uniq_name><dtype>DOUBLE</dtype></metric>";
    let atomic = metric(3, "tau", "EXCLUSIVE", "TAU_ATOMIC");
    let more = format!("{derived}{atomic}");
    write(&dir, "a.p1/profile.cubex", &profile(1.0, &more));
    write(&dir, "a.p2/profile.cubex", &profile(2.0, &more));
    let read = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap();
    assert_eq!(read.skipped.len(), 3, "{:?}", read.skipped);
    assert!(
        read.skipped[1].starts_with("metric `ratio`: type POSTDERIVED: a derived metric"),
        "{}",
        read.skipped[1]
    );
    assert!(
        read.skipped[2].starts_with("metric `tau`: dtype TAU_ATOMIC holds five numbers"),
        "{}",
        read.skipped[2]
    );
    let named = |names: &[&str]| CubeOptions {
        metrics: names.iter().map(|n| n.to_string()).collect(),
        ..CubeOptions::default()
    };
    let read = Experiment::read_cube(&dir, &named(&["time"])).unwrap();
    assert!(read.skipped.is_empty() && read.experiment.series.iter().all(|s| s.metric == "time"));
    let e = Experiment::read_cube(&dir, &named(&["time", "tau"])).unwrap_err();
    match &e {
        ExtrapError::Archive {
            file,
            part,
            message,
        } => {
            assert!(
                file.ends_with("a.p1/profile.cubex") && part == "anchor.xml",
                "{e}"
            );
            assert!(
                message.contains("metric `tau` cannot be read: dtype TAU_ATOMIC"),
                "{e}"
            );
        }
        _ => panic!("{e}"),
    }
    let e = Experiment::read_cube(&dir, &named(&["time", "nope", "also"])).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains(r#"no run has the metrics ["also", "nope"]"#)),
        "{e}"
    );
    // A metric with data in only one of its two members.
    let xml = anchor(&metric(0, "time", "EXCLUSIVE", "DOUBLE"), 1);
    write(
        &dir,
        "a.p2/profile.cubex",
        &tar(&[
            ("0.index", &index(&[0], false)),
            ("anchor.xml", xml.as_bytes()),
        ]),
    );
    let e = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Archive { part, message, .. } if part == "0.index" && message == "no 0.data beside it"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn index_positions_must_name_cnodes_once() {
    let dir = temp_dir("positions");
    let xml = anchor(&metric(0, "time", "INCLUSIVE", "DOUBLE"), 1);
    for (positions, expected) in [
        (
            &[0, 4][..],
            "byte 26: position 4, but the call tree has 4 cnodes",
        ),
        (&[1, 1][..], "byte 26: position 1 is listed twice"),
    ] {
        let d = plain(&f64s(&[1.0, 2.0], false));
        write(
            &dir,
            "a.p1/profile.cubex",
            &tar(&[
                ("0.index", &index(positions, false)),
                ("0.data", &d),
                ("anchor.xml", xml.as_bytes()),
            ]),
        );
        write(&dir, "a.p2/profile.cubex", &profile(1.0, ""));
        let e = Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err();
        match &e {
            ExtrapError::Archive { part, message, .. } => {
                assert_eq!((part.as_str(), message.as_str()), ("0.index", expected))
            }
            _ => panic!("{e}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
