//! CUBE 4 experiments read as Extra-P's `--cube` reads them
//! (`Experiment::read_cube`), from directories of runs written by
//! tests/common/cube.rs: exclusive and inclusive values, the three
//! scalings, repetitions, call paths measured at only some points, metric
//! selection, storage variants, a deep call tree, errors, and a fit.

mod common;

use common::cube::{Metric, Profile, temp_dir, write_file};
use pattern_core::fit::Fitter;
use pattern_core::fit::extrap_io::{CubeOptions, CubeRead, Experiment, ExtrapError, Scaling};
use std::path::Path;

/// main(0) → a(1) → c(2); main → b(3).
const TREE: [(Option<usize>, usize); 4] = [(None, 0), (Some(0), 1), (Some(1), 3), (Some(0), 2)];
const REGIONS: [&str; 4] = ["main", "a", "b", "c"];

fn read(dir: &Path, scaling: Scaling, inclusive: bool) -> CubeRead {
    let options = CubeOptions {
        scaling,
        inclusive,
        ..CubeOptions::default()
    };
    Experiment::read_cube(dir, &options).unwrap()
}

/// `(coordinate, values)` of each point of a series.
fn points(read: &CubeRead, region: &str, metric: &str) -> Vec<(Vec<f64>, Vec<f64>)> {
    let s = read.experiment.series(region, metric);
    let s = s.unwrap_or_else(|| panic!("no series {region}/{metric}"));
    s.points
        .iter()
        .map(|p| (p.coordinate.clone(), p.values.clone()))
        .collect()
}

/// One point's values of a one-point-per-coordinate series.
fn at(read: &CubeRead, region: &str, metric: &str, x: f64) -> Vec<f64> {
    let all = points(read, region, metric);
    let found = all.into_iter().find(|(c, _)| c[0] == x);
    found
        .unwrap_or_else(|| panic!("no point {x} in {region}/{metric}"))
        .1
}

#[test]
fn exclusive_and_inclusive_values_whatever_the_metric_stores() {
    let dir = temp_dir("incl");
    for p in [1.0, 2.0] {
        // `time` is stored inclusive (exclusive: main 1 2, a 3 4, c 5 6,
        // b 7 8, times p), `visits` exclusive.
        let t = |a: f64, b: f64| [a * p, b * p];
        let profile = Profile::new(&REGIONS, &TREE, 2)
            .metric(
                Metric::new(1, "time", "INCLUSIVE", "DOUBLE"),
                &[
                    (0, &t(16., 20.)),
                    (1, &t(8., 10.)),
                    (2, &t(5., 6.)),
                    (3, &t(7., 8.)),
                ],
            )
            .metric(
                Metric::new(0, "visits", "EXCLUSIVE", "UINT64"),
                &[
                    (0, &[1., 1.]),
                    (1, &[2., 2.]),
                    (2, &[4., 4.]),
                    (3, &[8., 8.]),
                ],
            );
        profile.write(&dir, &format!("run.p{p}.r1"), "profile.cubex");
    }
    let ex = read(&dir, Scaling::Weak, false);
    assert_eq!(ex.experiment.parameters, ["p"]);
    assert!(ex.skipped.is_empty(), "{:?}", ex.skipped);
    assert_eq!(
        points(&ex, "main", "time"),
        [(vec![1.], vec![1., 2.]), (vec![2.], vec![2., 4.])]
    );
    assert_eq!(at(&ex, "main->a", "time", 1.), [3., 4.]);
    assert_eq!(at(&ex, "main->a->c", "time", 2.), [10., 12.]);
    assert_eq!(at(&ex, "main->b", "time", 1.), [7., 8.]);
    assert_eq!(at(&ex, "main", "visits", 1.), [1., 1.]);
    assert_eq!(at(&ex, "main->a->c", "visits", 1.), [4., 4.]);
    assert_eq!(ex.experiment.series.len(), 8);
    let ex = read(&dir, Scaling::Weak, true);
    assert_eq!(at(&ex, "main", "time", 2.), [32., 40.]);
    assert_eq!(at(&ex, "main->a", "time", 1.), [8., 10.]);
    assert_eq!(at(&ex, "main", "visits", 1.), [15., 15.]);
    assert_eq!(at(&ex, "main->a", "visits", 2.), [6., 6.]);
    assert_eq!(at(&ex, "main->b", "visits", 2.), [8., 8.]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn weak_weak_threaded_and_strong_aggregate_the_locations() {
    let dir = temp_dir("scaling");
    for p in [1.0, 2.0] {
        let profile = Profile::new(&REGIONS, &TREE, 4)
            .metric(
                Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"),
                &[
                    (0, &[p, 0., 3. * p, 0.]),
                    (1, &[0.; 4]),
                    (2, &[5., 0., 0., 0.]),
                    (3, &[2.; 4]),
                ],
            )
            .metric(
                Metric::new(1, "max_time", "EXCLUSIVE", "MAXDOUBLE"),
                &[(0, &[4., 9. * p, 1., 0.])],
            );
        profile.write(&dir, &format!("run.p{p}"), "profile.cubex");
    }
    let weak = read(&dir, Scaling::Weak, false);
    assert_eq!(at(&weak, "main", "time", 2.), [2., 0., 6., 0.]);
    assert_eq!(at(&weak, "main->a", "time", 1.), [0.; 4]);
    assert_eq!(at(&weak, "main", "max_time", 2.), [4., 18., 1., 0.]);
    let threaded = read(&dir, Scaling::WeakThreaded, false);
    assert_eq!(at(&threaded, "main", "time", 2.), [2., 6.]);
    assert_eq!(at(&threaded, "main->a->c", "time", 1.), [5.]);
    // All zero: kept.
    assert_eq!(at(&threaded, "main->a", "time", 1.), [0.; 4]);
    let strong = read(&dir, Scaling::Strong, false);
    assert_eq!(
        points(&strong, "main", "time"),
        [(vec![1.], vec![4.]), (vec![2.], vec![8.])]
    );
    assert_eq!(at(&strong, "main->b", "time", 1.), [8.]);
    // A MAXDOUBLE metric's total is the maximum, as Extra-P's.
    assert_eq!(at(&strong, "main", "max_time", 2.), [18.]);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn one_metric(locations: usize, main: f64) -> Profile {
    let v = vec![main; locations];
    Profile::new(&REGIONS, &TREE, locations).metric(
        Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"),
        &[
            (0, &v),
            (1, &[1.; 2][..locations]),
            (2, &[1.; 2][..locations]),
            (3, &[1.; 2][..locations]),
        ],
    )
}

#[test]
fn repetitions_from_directories_and_from_files() {
    let dir = temp_dir("reps");
    // p = 1: two directories; p = 2: one directory of two profiles. The
    // constant `n` is dropped.
    one_metric(2, 10.).write(&dir, "app.p1.n5.r1", "profile.cubex");
    one_metric(2, 11.).write(&dir, "app.p1.n5.r2", "profile.cubex");
    one_metric(2, 20.).write(&dir, "app.p2.n5.r1", "profile.cubex");
    one_metric(2, 21.).write(&dir, "app.p2.n5.r1", "second.cubex");
    one_metric(2, 99.).write(&dir, "app.p2.n5.r1", ".hidden.cubex");
    let weak = read(&dir, Scaling::Weak, false);
    assert_eq!(weak.experiment.parameters, ["p"]);
    let expected = [
        (vec![1.], vec![10., 10., 11., 11.]),
        (vec![2.], vec![20., 20., 21., 21.]),
    ];
    assert_eq!(points(&weak, "main", "time"), expected);
    let strong = read(&dir, Scaling::Strong, false);
    let expected = [(vec![1.], vec![20., 22.]), (vec![2.], vec![40., 42.])];
    assert_eq!(points(&strong, "main", "time"), expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extrap_directory_name_formats() {
    let dir = temp_dir("names");
    let runs = [
        ("mm.x1.1y1.1z1.1", "profile1.cubex"),
        ("mm.x1.1y1.1z1.1", "profile2.cubex"),
        ("mm.x10y1z1.r1", "profile.cubex"),
        ("mm.x1y1z1", "profile1.cubex"),
        ("mm.x20,5.y20,5.z1,5.r1", "profile.cubex"),
        ("mm.x21.5,y21,5,z1.15.r1", "profile.cubex"),
        ("mm.x22.5.y22.5.z1.25.r1", "profile.cubex"),
        ("mm.x25.y25.z1.r1", "profile.cubex"),
        ("x10y1z1", "profile.cubex"),
    ];
    for (i, (run, file)) in runs.iter().enumerate() {
        one_metric(1, i as f64).write(&dir, run, file);
    }
    let ex = read(&dir, Scaling::Weak, false);
    assert_eq!(ex.experiment.parameters, ["x", "y", "z"]);
    let expected = [
        (vec![1., 1., 1.], vec![3.]),
        (vec![1.1, 1.1, 1.1], vec![0., 1.]),
        (vec![10., 1., 1.], vec![2., 8.]),
        (vec![20.5, 20.5, 1.5], vec![4.]),
        (vec![21.5, 21.5, 1.15], vec![5.]),
        (vec![22.5, 22.5, 1.25], vec![6.]),
        (vec![25., 25., 1.], vec![7.]),
    ];
    assert_eq!(points(&ex, "main", "time"), expected);
    // Extra-P's negative examples: other names, or another order.
    for other in ["mm.x1y1wrong1", "mm.y1x1z1"] {
        let bad = temp_dir("names-bad");
        one_metric(1, 1.).write(&bad, "x10y1z1", "profile.cubex");
        one_metric(1, 1.).write(&bad, other, "profile.cubex");
        let e = Experiment::read_cube(&bad, &CubeOptions::default()).unwrap_err();
        assert!(
            matches!(&e, ExtrapError::Invalid(m) if m.contains("same parameters in the same order")),
            "{e}"
        );
        std::fs::remove_dir_all(&bad).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// p = 1: main → a → c, main → b; p = 2: main → a, main → b, main → d.
fn partial_tree(dir: &Path) {
    let time = || Metric::new(0, "time", "EXCLUSIVE", "DOUBLE");
    let p1 = Profile::new(&REGIONS, &TREE, 2).metric(
        time(),
        &[(0, &[1.; 2]), (1, &[2.; 2]), (2, &[3.; 2]), (3, &[4.; 2])],
    );
    p1.write(dir, "run.p1", "profile.cubex");
    let tree2 = [(None, 0), (Some(0), 1), (Some(0), 2), (Some(0), 4)];
    let p2 = Profile::new(&["main", "a", "b", "c", "d"], &tree2, 2).metric(
        time(),
        &[
            (0, &[10.; 2]),
            (1, &[20.; 2]),
            (2, &[40.; 2]),
            (3, &[50.; 2]),
        ],
    );
    p2.write(dir, "run.p2", "profile.cubex");
}

#[test]
fn call_paths_at_only_some_points_merge_into_their_nearest_caller() {
    let dir = temp_dir("merge");
    partial_tree(&dir);
    let ex = read(&dir, Scaling::Weak, false);
    assert_eq!(
        points(&ex, "main", "time"),
        [(vec![1.], vec![1., 1.]), (vec![2.], vec![60., 60.])]
    );
    assert_eq!(
        points(&ex, "main->a", "time"),
        [(vec![1.], vec![5., 5.]), (vec![2.], vec![20., 20.])]
    );
    assert_eq!(at(&ex, "main->b", "time", 2.), [40., 40.]);
    assert_eq!(ex.experiment.series.len(), 3);
    assert_eq!(
        ex.skipped,
        [
            "metric `time`: 1 call path measured at only some points merged into `main->a` (their values added to its own, as Extra-P means to): `main->a->c` (1 of 2 points)",
            "metric `time`: 1 call path measured at only some points merged into `main` (their values added to its own, as Extra-P means to): `main->d` (1 of 2 points)",
        ]
    );
    let strong = read(&dir, Scaling::Strong, false);
    assert_eq!(
        points(&strong, "main", "time"),
        [(vec![1.], vec![2.]), (vec![2.], vec![120.])]
    );
    // Inclusive values: left out, not merged.
    let incl = read(&dir, Scaling::Weak, true);
    assert_eq!(
        points(&incl, "main", "time"),
        [(vec![1.], vec![10., 10.]), (vec![2.], vec![120., 120.])]
    );
    assert_eq!(at(&incl, "main->a", "time", 1.), [5., 5.]);
    assert_eq!(
        incl.skipped,
        [
            "metric `time`: 2 call paths measured at only some points left out (inclusive values are not merged, as in Extra-P): `main->a->c` (1 of 2 points), `main->d` (1 of 2 points)"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn metric_selection_and_what_is_skipped() {
    let dir = temp_dir("metrics");
    for p in [1.0, 2.0] {
        let mut mpi = Metric::new(1, "mpi", "EXCLUSIVE", "DOUBLE");
        mpi.parent = Some(0);
        let profile = Profile::new(&REGIONS, &TREE, 1)
            .metric(Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"), &[(0, &[p])])
            .metric(mpi, &[(0, &[p / 10.])])
            .metric(
                Metric::new(3, "atomic", "EXCLUSIVE", "TAU_ATOMIC"),
                &[(0, &[0.])],
            )
            .metric(Metric::new(4, "ratio", "POSTDERIVED", "DOUBLE"), &[]);
        let mut profile = profile;
        profile
            .metrics
            .push(Metric::new(2, "visits", "EXCLUSIVE", "UINT64"));
        profile.values.retain(|v| v.metric != 4);
        profile.write(&dir, &format!("run.p{p}"), "profile.cubex");
    }
    let all = read(&dir, Scaling::Weak, false);
    let names: Vec<(&str, &str)> = all
        .experiment
        .series
        .iter()
        .map(|s| (s.region.as_str(), s.metric.as_str()))
        .collect();
    assert_eq!(names, [("main", "time")]);
    assert_eq!(
        all.skipped,
        [
            "metric `mpi`: a sub-metric of `time`: Extra-P reads only the roots of the metric tree (name it in the options to read it) (in 2 of 2 profiles, the first run.p1/profile.cubex)",
            "metric `atomic`: dtype TAU_ATOMIC holds five numbers (n, min, max, sum, sum2) per location (in 2 of 2 profiles, the first run.p1/profile.cubex)",
            "metric `ratio`: type POSTDERIVED: a derived metric, computed by Cube from others, has no data (in 2 of 2 profiles, the first run.p1/profile.cubex)",
            "metric `visits`: no data members (2.index, 2.data) (in 2 of 2 profiles, the first run.p1/profile.cubex)",
        ]
    );
    let named = |names: &[&str]| CubeOptions {
        metrics: names.iter().map(|n| n.to_string()).collect(),
        ..CubeOptions::default()
    };
    let mpi = Experiment::read_cube(&dir, &named(&["mpi"])).unwrap();
    assert_eq!(
        points(&mpi, "main", "mpi"),
        [(vec![1.], vec![0.1]), (vec![2.], vec![0.2])]
    );
    assert_eq!(mpi.experiment.series.len(), 1);
    assert!(mpi.skipped.is_empty());
    let e = Experiment::read_cube(&dir, &named(&["time", "atomic"])).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Archive { part, message, .. } if part == "anchor.xml" && message.contains("metric `atomic` cannot be read")),
        "{e}"
    );
    let e = Experiment::read_cube(&dir, &named(&["visits"])).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("no call path and metric is measured at every point") && m.contains("visits")),
        "{e}"
    );
    let e = Experiment::read_cube(&dir, &named(&["time", "bytes"])).unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains(r#"no run has the metrics ["bytes"]"#)),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compressed_big_endian_gzipped_and_reordered_profiles_read_alike() {
    let mut reads = Vec::new();
    for (i, variant) in [
        (false, false, false, false),
        (true, true, true, true),
        (true, false, false, true),
        (false, true, true, false),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = temp_dir(&format!("variant{i}"));
        for p in [1.0, 2.0, 4.0] {
            let mut profile = Profile::new(&REGIONS, &TREE, 2)
                .metric(
                    Metric::new(5, "time", "INCLUSIVE", "DOUBLE"),
                    &[
                        (0, &[9. * p, 8.]),
                        (1, &[4., 4. * p]),
                        (2, &[1., 1.]),
                        (3, &[2., 0.5]),
                    ],
                )
                .metric(
                    Metric::new(7, "cycles", "INCLUSIVE", "UINT64"),
                    &[(0, &[100., 90.]), (1, &[60., 95.]), (3, &[10., 10.])],
                )
                .metric(
                    Metric::new(8, "calls", "EXCLUSIVE", "INT32"),
                    &[(0, &[-1., 2.]), (2, &[3. * p, 4.])],
                );
            (
                profile.compressed,
                profile.big_endian,
                profile.gzip_anchor,
                profile.anchor_first,
            ) = variant;
            profile.write(&dir, &format!("run.p{p}"), "profile.cubex");
        }
        reads.push(read(&dir, Scaling::Weak, false));
        reads.push(read(&dir, Scaling::Strong, true));
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let (exclusive, inclusive) = (&reads[0], &reads[1]);
    // main's exclusive: its inclusive less a's and b's.
    assert_eq!(
        at(exclusive, "main", "time", 4.),
        [36. - 4. - 2., 8. - 16. - 0.5]
    );
    // Unsigned values are clamped at 0 (95 - 10 > 90).
    assert_eq!(at(exclusive, "main", "cycles", 1.), [100. - 60. - 10., 0.]);
    assert_eq!(at(exclusive, "main->a", "cycles", 1.), [60., 95.]);
    assert_eq!(at(exclusive, "main->a->c", "calls", 2.), [6., 4.]);
    assert_eq!(at(inclusive, "main", "calls", 2.), [-1. + 2. + 6. + 4.]);
    assert_eq!(at(inclusive, "main", "time", 2.), [26.]);
    for pair in reads.chunks(2).skip(1) {
        assert_eq!(&pair[0], exclusive);
        assert_eq!(&pair[1], inclusive);
    }
}

#[test]
fn a_call_tree_a_hundred_thousand_deep_reads_on_a_small_stack() {
    let n: usize = 100_000;
    let (leaf, root, inclusive_root, refused) = common::on_small_stack(move || {
        let dir = temp_dir("deep");
        let chain: Vec<(Option<usize>, usize)> = (0..n).map(|i| (i.checked_sub(1), 0)).collect();
        for p in [1.0, 2.0] {
            // Only the root and the leaf have values (a sparse index).
            let profile = Profile::new(&["f"], &chain, 1)
                .metric(
                    Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"),
                    &[(0, &[p]), (n - 1, &[2. * p])],
                )
                .metric(
                    Metric::new(1, "cycles", "INCLUSIVE", "UINT64"),
                    &[(0, &[10. * p]), (n - 1, &[4.])],
                );
            profile.write(&dir, &format!("deep.p{p}"), "profile.cubex");
        }
        let ex = read(&dir, Scaling::Weak, false);
        let leaf = ex
            .experiment
            .series
            .iter()
            .find(|s| s.metric == "time" && s.region.len() > 1)
            .unwrap();
        let leaf = (leaf.region.len(), leaf.points[1].values.clone());
        let root = (at(&ex, "f", "time", 2.), at(&ex, "f", "cycles", 2.));
        let inclusive_root = at(&read(&dir, Scaling::Weak, true), "f", "time", 2.);
        // Every cnode with values: names of 15 GB in all, refused.
        let dense: Vec<(usize, Vec<f64>)> = (0..n).map(|c| (c, vec![1.0])).collect();
        let mut profile = Profile::new(&["f"], &chain, 1);
        profile
            .metrics
            .push(Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"));
        profile.values.push(common::cube::Values {
            metric: 0,
            rows: dense,
        });
        profile.write(&dir, "deep.p1", "profile.cubex");
        profile.write(&dir, "deep.p2", "profile.cubex");
        let refused = Experiment::read_cube(&dir, &CubeOptions::default())
            .unwrap_err()
            .to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        (leaf, root, inclusive_root, refused)
    });
    assert_eq!(leaf, (3 * n - 2, vec![4.0]));
    // The root's exclusive cycles: its inclusive 20 less the listed child's
    // (none: the leaf is not its child) = 20.
    assert_eq!(root, (vec![2.0], vec![20.0]));
    assert_eq!(inclusive_root, [6.0]);
    assert!(
        refused.contains("past the limit of 67108864 bytes"),
        "{refused}"
    );
}

/// Writes `members` as run p2 beside a good run p1 and checks the error.
fn check_error(dir: &Path, members: &[(String, Vec<u8>)], part: &str, expected: &str) {
    one_metric(1, 1.).write(dir, "run.p1", "profile.cubex");
    let path = write_file(dir, "run.p2", "profile.cubex", &common::cube::tar(members));
    match Experiment::read_cube(dir, &CubeOptions::default()).unwrap_err() {
        ExtrapError::Archive {
            file,
            part: p,
            message,
        } => {
            assert_eq!(file, path);
            assert_eq!(p, part);
            assert!(message.contains(expected), "{message}");
        }
        e => panic!("{e}"),
    }
}

/// A good profile's members, the one named `name` changed by `f`.
fn edited(profile: &Profile, name: &str, f: &dyn Fn(&mut Vec<u8>)) -> Vec<(String, Vec<u8>)> {
    let mut members = profile.member_list();
    for (n, bytes) in &mut members {
        if n == name {
            f(bytes);
        }
    }
    members
}

#[test]
fn errors_in_binary_members_name_the_member_and_the_byte() {
    let dir = temp_dir("errors-bin");
    let good = one_metric(1, 2.);
    let short = edited(&good, "0.data", &|b| b.truncate(b.len() - 8));
    let expected = "byte 10: 24 bytes of values, but 4 rows × 1 locations × 8 bytes = 32";
    check_error(&dir, &short, "0.data", expected);
    let endian = edited(&good, "0.index", &|b| b[11] = 7);
    check_error(&dir, &endian, "0.index", "byte 11: the byte-order mark");
    let position = edited(&good, "0.index", &|b| b[22] = 9);
    check_error(
        &dir,
        &position,
        "0.index",
        "byte 22: position 9, but the call tree has 4 cnodes",
    );
    // A compressed segment inflating past what the index says.
    let mut zipped = good.clone();
    zipped.compressed = true;
    let oversized = edited(&zipped, "0.data", &|b| {
        *b = common::cube::zdata(&[0; 40], 40, false)
    });
    check_error(&dir, &oversized, "0.data", "inflates past the 32 bytes");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_in_the_anchor_and_the_archive_name_the_position() {
    let dir = temp_dir("errors-xml");
    let good = one_metric(1, 2.);
    let text = |f: fn(&str) -> String| {
        move |b: &mut Vec<u8>| *b = f(&String::from_utf8(b.clone()).unwrap()).into_bytes()
    };
    let mismatched = edited(
        &good,
        "anchor.xml",
        &text(|x| x.replace("</dtype>", "</dtyp>")),
    );
    check_error(&dir, &mismatched, "anchor.xml", "line 5, column");
    let callee = edited(
        &good,
        "anchor.xml",
        &text(|x| x.replace("calleeId=\"3\"", "calleeId=\"30\"")),
    );
    check_error(&dir, &callee, "anchor.xml", "calleeId 30 names no <region>");
    let no_anchor: Vec<(String, Vec<u8>)> = good
        .member_list()
        .into_iter()
        .filter(|(n, _)| n != "anchor.xml")
        .collect();
    check_error(
        &dir,
        &no_anchor,
        "anchor.xml",
        "no anchor.xml in the archive",
    );
    // A truncated archive: cut inside the first member's data.
    let path = write_file(&dir, "run.p2", "profile.cubex", &good.cubex()[..530]);
    match Experiment::read_cube(&dir, &CubeOptions::default()).unwrap_err() {
        ExtrapError::Archive {
            file,
            part,
            message,
        } => {
            assert_eq!((file, part.as_str()), (path, "0.data"));
            assert_eq!(message, "truncated: 18 of its 42 bytes");
        }
        e => panic!("{e}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fit_of_a_series_recovers_the_generating_class() {
    let dir = temp_dir("fit");
    for p in [2.0f64, 4.0, 8.0, 16.0, 32.0, 64.0] {
        // 5·p·log2(p) at every location, ±1 %.
        let t = 5.0 * p * p.log2();
        let solve = [t * 0.99, t, t * 1.01, t];
        let profile = Profile::new(&REGIONS, &TREE, 4).metric(
            Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"),
            &[(0, &[1.0; 4]), (1, &solve), (2, &[0.5; 4]), (3, &[2.0; 4])],
        );
        profile.write(&dir, &format!("solver.p{p}.r1"), "profile.cubex");
    }
    let ex = read(&dir, Scaling::Weak, false).experiment;
    let series = ex.series("main->a", "time").unwrap();
    assert_eq!(series.points.len(), 6);
    let fit = series.fit(&Fitter::default(), &ex.parameters).unwrap();
    assert_eq!(fit.model().growth("p").unwrap().to_string(), "O(p·log₂p)");
    std::fs::remove_dir_all(&dir).unwrap();
}
