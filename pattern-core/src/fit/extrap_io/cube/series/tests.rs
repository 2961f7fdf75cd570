use super::*;
use crate::fit::extrap_io::cube::anchor::Cnode;

const SUM: Combine = Combine::Sum { unsigned: false };

/// An anchor of `(parent, region name)` cnodes.
fn anchor(cnodes: &[(u32, &str)]) -> Anchor {
    let mut regions: Vec<String> = Vec::new();
    let mut tree = Vec::new();
    for &(parent, name) in cnodes {
        let region = regions.iter().position(|r| r == name).unwrap_or_else(|| {
            regions.push(name.to_string());
            regions.len() - 1
        });
        tree.push(Cnode {
            region: region as u32,
            parent,
        });
    }
    Anchor {
        metrics: Vec::new(),
        regions,
        cnodes: tree,
        locations: 1,
    }
}

fn values<'a>(series: &'a [Series], region: &str, metric: &str) -> Vec<&'a [f64]> {
    let s = series
        .iter()
        .find(|s| s.region == region && s.metric == metric);
    s.unwrap_or_else(|| panic!("no {region}/{metric}"))
        .points
        .iter()
        .map(|p| p.values.as_slice())
        .collect()
}

#[test]
fn scalings_aggregate_locations_and_cnodes_of_one_path_combine() {
    // main → f, main → f again (same call path), 3 locations.
    let a = anchor(&[(NO_PARENT, "main"), (0, "f"), (0, "f")]);
    let run = [1., 0., 3., 2., 0., 0., 4., 0., 0.];
    for (scaling, main, f) in [
        (Scaling::Weak, vec![1., 0., 3.], vec![6., 0., 0.]),
        (Scaling::WeakThreaded, vec![1., 3.], vec![6.]),
        (Scaling::Strong, vec![4.], vec![6.]),
    ] {
        let mut b = Builder::new(scaling, false);
        let paths = b.paths_of(&a).unwrap();
        let q = b.add_point(vec![1.0]);
        b.add_run(q, 0, "time", &[0, 1, 2], &run, 3, SUM, &paths);
        let (series, skipped) = b.finish().unwrap();
        assert!(skipped.is_empty());
        assert_eq!(
            values(&series, "main", "time"),
            [main.as_slice()],
            "{scaling:?}"
        );
        assert_eq!(
            values(&series, "main->f", "time"),
            [f.as_slice()],
            "{scaling:?}"
        );
    }
    // All zeros: weak threaded keeps them.
    let mut b = Builder::new(Scaling::WeakThreaded, false);
    let paths = b.paths_of(&a).unwrap();
    let q = b.add_point(vec![1.0]);
    b.add_run(q, 0, "time", &[0], &[0., 0., 0.], 3, SUM, &paths);
    assert_eq!(
        values(&b.finish().unwrap().0, "main", "time"),
        [[0., 0., 0.].as_slice()]
    );
    // Minimum and maximum: the strong total, and the combination of cnodes.
    for (combine, total) in [(Combine::Min, 0.0), (Combine::Max, 4.0)] {
        let mut b = Builder::new(Scaling::Strong, false);
        let paths = b.paths_of(&a).unwrap();
        let q = b.add_point(vec![1.0]);
        b.add_run(q, 0, "m", &[0, 1, 2], &run, 3, combine, &paths);
        let series = b.finish().unwrap().0;
        assert_eq!(
            values(&series, "main", "m"),
            [[if total == 0.0 { 0.0 } else { 3.0 }].as_slice()]
        );
        assert_eq!(values(&series, "main->f", "m"), [[total].as_slice()]);
    }
}

#[test]
fn partial_call_paths_merge_into_the_nearest_caller_measured_everywhere() {
    // main → g → h: g is measured at point 0 only, main and h at both.
    let a = anchor(&[(NO_PARENT, "main"), (0, "g"), (1, "h")]);
    let mut b = Builder::new(Scaling::Weak, false);
    let paths = b.paths_of(&a).unwrap();
    for (q, coordinate) in [(0, 1.0), (1, 2.0)] {
        let p = b.add_point(vec![coordinate]);
        assert_eq!(p, q);
        // Two runs per point (files 2q, 2q + 1).
        for f in 0..2u32 {
            let base = 10.0 * f64::from(f);
            if q == 0 {
                let v = [base + 1., base + 2., base + 4.];
                b.add_run(p, 2 * q + f, "t", &[0, 1, 2], &v, 1, SUM, &paths);
            } else {
                b.add_run(
                    p,
                    2 * q + f,
                    "t",
                    &[0, 2],
                    &[base + 3., base + 5.],
                    1,
                    SUM,
                    &paths,
                );
            }
        }
    }
    let (series, skipped) = b.finish().unwrap();
    // `main->g` only at point 0: added to `main` run by run.
    assert_eq!(
        values(&series, "main", "t"),
        [[3., 23.].as_slice(), &[3., 13.]]
    );
    assert_eq!(
        values(&series, "main->g->h", "t"),
        [[4., 14.].as_slice(), &[5., 15.]]
    );
    assert!(series.iter().all(|s| s.region != "main->g"));
    assert_eq!(
        skipped,
        [
            "metric `t`: 1 call path measured at only some points merged into `main` (their values added to its own, as Extra-P means to): `main->g` (1 of 2 points)"
        ]
    );
}

#[test]
fn a_partial_path_skips_partial_callers_and_without_one_is_left_out() {
    // main(0) → a(1) → b(2) → c(3); at point 0: main, a, b, c; at point 1:
    // main, c only (a and b partial). Metric `u` has only c at both (no
    // caller measured everywhere).
    let a = anchor(&[(NO_PARENT, "main"), (0, "a"), (1, "b"), (2, "c")]);
    for inclusive in [false, true] {
        let mut b = Builder::new(Scaling::Strong, inclusive);
        let paths = b.paths_of(&a).unwrap();
        let q0 = b.add_point(vec![1.0]);
        b.add_run(q0, 0, "t", &[0, 1, 2, 3], &[1., 2., 4., 8.], 1, SUM, &paths);
        b.add_run(q0, 0, "u", &[1, 3], &[2., 8.], 1, SUM, &paths);
        let q1 = b.add_point(vec![2.0]);
        b.add_run(q1, 1, "t", &[0, 3], &[16., 32.], 1, SUM, &paths);
        b.add_run(q1, 1, "u", &[3], &[64.], 1, SUM, &paths);
        let (series, skipped) = b.finish().unwrap();
        let main = if inclusive {
            [[1.].as_slice(), &[16.]]
        } else {
            [[7.].as_slice(), &[16.]]
        };
        assert_eq!(values(&series, "main", "t"), main);
        assert_eq!(
            values(&series, "main->a->b->c", "t"),
            [[8.].as_slice(), &[32.]]
        );
        assert_eq!(
            values(&series, "main->a->b->c", "u"),
            [[8.].as_slice(), &[64.]]
        );
        assert_eq!(series.len(), 3, "{inclusive}");
        let expected = if inclusive {
            vec![
                "metric `t`: 2 call paths measured at only some points left out (inclusive values are not merged, as in Extra-P): `main->a` (1 of 2 points), `main->a->b` (1 of 2 points)",
                "metric `u`: 1 call path measured at only some points left out (inclusive values are not merged, as in Extra-P): `main->a` (1 of 2 points)",
            ]
        } else {
            vec![
                "metric `t`: 2 call paths measured at only some points merged into `main` (their values added to its own, as Extra-P means to): `main->a` (1 of 2 points), `main->a->b` (1 of 2 points)",
                "metric `u`: 1 call path measured at only some points left out: no caller of them is measured at all points: `main->a` (1 of 2 points)",
            ]
        };
        assert_eq!(skipped, expected);
    }
}

#[test]
fn names_past_the_limit_are_refused_and_notes_are_grouped() {
    let depth = 7000u32;
    let cnodes: Vec<(u32, &str)> = (0..depth)
        .map(|i| (if i == 0 { NO_PARENT } else { i - 1 }, "f"))
        .collect();
    let a = anchor(&cnodes);
    let all: Vec<u32> = (0..depth).collect();
    let mut b = Builder::new(Scaling::Weak, false);
    let paths = b.paths_of(&a).unwrap();
    let q = b.add_point(vec![1.0]);
    b.add_run(q, 0, "t", &all, &vec![1.0; depth as usize], 1, SUM, &paths);
    let e = b.finish().unwrap_err();
    assert!(
        matches!(&e, ExtrapError::Invalid(m) if m.contains("past the limit of 67108864 bytes")),
        "{e}"
    );
    // The same tree measured at the root only at a second point: 6999
    // merges, in one message naming three.
    let mut b = Builder::new(Scaling::Weak, false);
    let paths = b.paths_of(&a).unwrap();
    let q = b.add_point(vec![1.0]);
    b.add_run(q, 0, "t", &all, &vec![1.0; depth as usize], 1, SUM, &paths);
    let q = b.add_point(vec![2.0]);
    b.add_run(q, 1, "t", &[0], &[5.0], 1, SUM, &paths);
    let (series, skipped) = b.finish().unwrap();
    assert_eq!(values(&series, "f", "t"), [[7000.].as_slice(), &[5.]]);
    assert_eq!(
        skipped,
        [
            "metric `t`: 6999 call paths measured at only some points merged into `f` (their values added to its own, as Extra-P means to): `f->f` (1 of 2 points), `f->f->f` (1 of 2 points), `f->f->f->f` (1 of 2 points), …"
        ]
    );
    // Past 8 levels, names are shortened in messages.
    let mut deep = Paths::default();
    let mut parent = NO_PARENT;
    for i in 0..20 {
        let name = deep.name_id(&format!("r{i}"));
        parent = deep.intern(parent, name).unwrap();
    }
    assert_eq!(
        deep.short_name(19),
        "r0->r1->r2->…->r17->r18->r19 (20 levels)"
    );
    assert_eq!(deep.short_name(2), "r0->r1->r2");
}
