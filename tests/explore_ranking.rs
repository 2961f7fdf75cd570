//! Rankings of the designs reachable from a design under a thread budget:
//! cases derived by hand, the budget, the chooser of counts, the errors,
//! and the invariants of any ranking (proptest).

mod common;

use pattern_core::explore::ranking::{
    AllocationCounts, Move, PointCountError, PointCounts, RankError, RankedDesign, Ranking,
    Rejection, canonical_key_at,
};
use pattern_core::laws::Rule;
use pattern_core::{Design, Term};
use proptest::prelude::*;
use std::collections::HashSet;

/// Times within this of each other rank as equal (docs/explore.md).
const TIME_TOLERANCE: f64 = 1e-9;

fn texts(r: &pattern_core::explore::ranking::Ranked) -> Vec<String> {
    r.ranked
        .iter()
        .map(|d| d.design.term().to_string())
        .collect()
}

/// `a = 2x`, `b = x` at x = 10: seq costs 30; a pool of two 15 (each worker
/// runs both); the pool on the parts as much; pipe(a, b) max(20, 10) = 20;
/// a pool of two on `a` alone 10 + 10 = 20; on `b` alone 20 + 5 = 25.
#[test]
fn seq_of_two_under_a_budget_of_two() {
    let d = Design::parse("a = 2*x; b = x; seq(a, b)").unwrap();
    let r = Ranking::new(2)
        .rank(&d, &[("x", 10.0)], &PointCounts)
        .unwrap();
    assert_eq!(
        texts(&r),
        [
            "tpool[2](seq(a, b))",
            "seq(tpool[2](a), tpool[2](b))",
            "pipe(a, b)",
            "seq(tpool[2](a), b)",
            "seq(a, tpool[2](b))",
            "seq(a, b)",
        ]
    );
    let times: Vec<f64> = r.ranked.iter().map(|d| d.time).collect();
    assert_eq!(times, [15.0, 15.0, 20.0, 20.0, 25.0, 30.0]);
    let margins: Vec<Option<f64>> = r.ranked.iter().map(|d| d.margin).collect();
    assert_eq!(
        margins,
        [
            Some(1.0),
            Some(20.0 / 15.0),
            Some(1.0),
            Some(25.0 / 20.0),
            Some(30.0 / 25.0),
            None
        ]
    );
    let threads: Vec<u64> = r.ranked.iter().map(|d| d.threads).collect();
    assert_eq!(threads, [2, 2, 2, 2, 2, 1]);
    assert_eq!(r.ranked[0].model.to_string(), "1.5·x");
    // pipe: the slower stage, pointwise (sizes are positive, so max(x, 2·x)
    // is 2·x).
    assert_eq!(r.ranked[2].model.to_string(), "2·x");
    assert!(
        r.ranked
            .iter()
            .all(|d| d.class.as_ref().unwrap().to_string() == "O(x)")
    );
    assert_eq!(r.ranked[0].steps, [Move::Pool]);
    assert_eq!(r.ranked[2].steps, [Move::SeqToPipe]);
    // seq(b, a) is seq(a, b) up to the order of a sequence: not listed.
    assert!(!texts(&r).contains(&"seq(b, a)".to_string()));
    // Top 2 keeps the first two, margins unchanged.
    let top = Ranking::new(2)
        .top(2)
        .rank(&d, &[("x", 10.0)], &PointCounts)
        .unwrap();
    assert_eq!(top.ranked, r.ranked[..2]);
}

/// Whatever the design, `budget` threads cannot do the 3x of work in less
/// than 3x / budget; a pool of `budget` around the sequence does.
#[test]
fn the_budget_bounds_the_best_time_and_the_threads() {
    let d = Design::parse("a = 2*x; b = x; seq(a, b)").unwrap();
    for budget in 1..=4u64 {
        let r = Ranking::new(budget)
            .top(100)
            .rank(&d, &[("x", 10.0)], &PointCounts)
            .unwrap();
        assert_eq!(r.ranked[0].time, 30.0 / budget as f64, "budget {budget}");
        assert_eq!(r.ranked[0].threads, budget);
        assert!(r.ranked.iter().all(|d| d.threads <= budget));
        if budget == 1 {
            assert_eq!(texts(&r), ["seq(a, b)"]);
        } else {
            assert!(r.over_budget > 0);
        }
    }
    // The laws alone keep the threads: the pipeline becomes a pool of two.
    let p = Design::parse("a = 2*x; b = x; pipe(a, b)").unwrap();
    let laws: Vec<Move> = Rule::ALL.iter().map(|&r| Move::Law(r)).collect();
    let r = Ranking::new(2)
        .moves(&laws)
        .rank(&p, &[("x", 10.0)], &PointCounts)
        .unwrap();
    assert_eq!(texts(&r)[0], "tpool[2](seq(a, b))");
    assert_eq!(r.ranked[0].steps, [Move::Law(Rule::PipeToPool)]);
    assert_eq!(r.over_budget, 0);
}

#[test]
fn counts_come_from_the_chooser() {
    let d = Design::parse("a = 2*x; b = x; tpool[n](seq(a, b))").unwrap();
    // The point's count.
    let r = Ranking::new(4)
        .top(100)
        .rank(&d, &[("x", 10.0), ("n", 3.0)], &PointCounts)
        .unwrap();
    let original = r.ranked.iter().find(|d| d.steps.is_empty()).unwrap();
    assert_eq!((original.time, original.threads), (10.0, 3));
    assert_eq!(original.counts, [("n".to_string(), 3)]);
    // A closure's count, winning over the point's.
    let two = |_: &Design| Ok::<_, String>(vec![("n".to_string(), 2)]);
    let r = Ranking::new(4)
        .top(100)
        .rank(&d, &[("x", 10.0), ("n", 3.0)], &two)
        .unwrap();
    let original = r.ranked.iter().find(|d| d.steps.is_empty()).unwrap();
    assert_eq!((original.time, original.threads), (15.0, 2));
    // A pool of two around it: 4 threads, 7.5 ns, the best.
    assert_eq!((r.ranked[0].time, r.ranked[0].threads), (7.5, 4));
    // A chooser that refuses pipelines: they are rejected with its reason.
    let no_pipes = |d: &Design| {
        if d.term().preorder().any(|t| matches!(t, Term::Pipe(..))) {
            Err("no pipelines here".to_string())
        } else {
            Ok(vec![("n".to_string(), 1)])
        }
    };
    let r = Ranking::new(4).rank(&d, &[("x", 10.0)], &no_pipes).unwrap();
    assert!(!r.rejected.is_empty());
    assert!(r.rejected.iter().all(
        |x| x.reason == Rejection::Counts("no pipelines here".into())
            && x.design.term().to_string().contains("pipe")
    ));
    assert!(texts(&r).iter().all(|t| !t.contains("pipe")));
}

#[test]
fn bad_input_is_an_error() {
    let d = Design::parse("a = x; tpool[n](a)").unwrap();
    let at = [("x", 8.0)];
    assert_eq!(
        Ranking::new(0).rank(&d, &at, &PointCounts),
        Err(RankError::ZeroBudget)
    );
    assert_eq!(
        Ranking::new(4).top(0).rank(&d, &at, &PointCounts),
        Err(RankError::ZeroTop)
    );
    let err = Ranking::new(4).rank(&d, &at, &PointCounts).unwrap_err();
    assert_eq!(
        err,
        RankError::Original {
            design: "tpool[n](a)".into(),
            reason: Rejection::Counts(PointCountError::Unbound { name: "n".into() }.to_string()),
        }
    );
    assert_eq!(
        err.to_string(),
        "the design `tpool[n](a)` cannot be ranked: no counts: the count `n` is not bound in the point"
    );
    let half = Ranking::new(4).rank(&d, &[("x", 8.0), ("n", 2.5)], &PointCounts);
    assert!(matches!(half, Err(RankError::Original { .. })));
    assert!(matches!(
        Ranking::new(4).rank(&d, &[("x", f64::NAN), ("n", 2.0)], &PointCounts),
        Err(RankError::Binding { name, value }) if name == "x" && value.is_nan()
    ));
    let over = Ranking::new(3).rank(&d, &[("x", 8.0), ("n", 4.0)], &PointCounts);
    assert_eq!(
        over,
        Err(RankError::OverBudget {
            threads: 4,
            budget: 3
        })
    );
    let free = Design::parse("a = x * y; a").unwrap();
    assert!(matches!(
        Ranking::new(2).rank(&free, &at, &PointCounts),
        Err(RankError::Original {
            reason: Rejection::Eval(_),
            ..
        })
    ));
    let atoms = (0..300).map(|i| Term::atom(&format!("a{i}"), pattern_core::Expr::var("x")));
    let big = Design::from_term(Term::seq_all(atoms).unwrap()).unwrap();
    assert!(matches!(
        Ranking::new(2).rank(&big, &at, &PointCounts),
        Err(RankError::TooLarge { size: 599, .. })
    ));
}

/// `pipe(tpool[n](qsort), inc)` at n = 3 and its fusion
/// `pipe(tpool[n](tpool[3](qsort)), inc)` at n = 1 are one design once
/// counted, and take 1034.17·x·log2(x)/3 per element on 4 threads; the
/// fused model's coefficient is rounded to 12 digits (344.723333333),
/// which must not decide which one stays: the smaller original ranks, the
/// fusion is merged into it.
#[test]
fn a_design_equal_to_another_once_counted_ranks_once_as_the_smaller() {
    let d = Design::parse("qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(tpool[n](qsort), inc)")
        .unwrap();
    let x = 1000.0f64;
    let r = Ranking::new(4)
        .top(50)
        .rank(&d, &[("x", x)], &AllocationCounts::new(4))
        .unwrap();
    let first = &r.ranked[0];
    assert_eq!(
        first.design.term().to_string(),
        "pipe(tpool[n](qsort), inc)"
    );
    assert_eq!(first.counts, [("n".to_string(), 3)]);
    let want = 1034.17 * x * x.log2() / 3.0;
    assert!((first.time - want).abs() <= 1e-11 * want, "{}", first.time);
    assert_eq!(first.threads, 4);
    let listed: Vec<String> = r
        .ranked
        .iter()
        .map(|d| d.design.term().to_string())
        .collect();
    assert!(
        !listed.contains(&"pipe(tpool[n](tpool[3](qsort)), inc)".to_string()),
        "{listed:?}"
    );
    assert!(r.merged >= 1, "{}", r.merged);
    // No two designs listed are one design once counted.
    assert!(once_each(&r.ranked));
    // The second is slower by more than rounding.
    assert!(r.ranked[1].time > want * (1.0 + 1e-6));
}

/// Whether no two designs of a ranking are one design once counted.
fn once_each(ranked: &[RankedDesign]) -> bool {
    let keys: HashSet<String> = ranked
        .iter()
        .map(|d| canonical_key_at(d.design.term(), &d.counts))
        .collect();
    keys.len() == ranked.len()
}

fn point(n: u64, p: u64, x: f64) -> Vec<(&'static str, f64)> {
    vec![("n", n as f64), ("p", p as f64), ("x", x)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(48)))]

    /// Any ranking is sorted into groups of times within the tolerance of
    /// the group's fastest, ties by threads then size; margins are 1 within
    /// a group and the ratio of neighbours (more than 1) across groups.
    /// Every design is within the budget, and its model,
    /// threads and time are what the design gives.
    #[test]
    fn rankings_keep_their_invariants(
        term in pattern_core::strategies::shuffle_free_term(3),
        n in 1u64..=6,
        p in 1u64..=6,
        x in 2.0f64..1e6,
        budget in 1u64..=48,
    ) {
        let design = Design::from_term(term).unwrap();
        let at = point(n, p, x);
        let ranking = Ranking::new(budget).top(8).max_designs(80);
        let r = match ranking.rank(&design, &at, &PointCounts) {
            Err(RankError::OverBudget { threads, budget: b }) => {
                prop_assert_eq!(b, budget);
                prop_assert!(threads > budget);
                let own = design.resources().threads.eval(&at).unwrap();
                prop_assert_eq!(own, threads as f64);
                return Ok(());
            }
            other => other.unwrap(),
        };
        prop_assert!(!r.ranked.is_empty() && r.ranked.len() <= 8);
        prop_assert!(r.explored <= 80);
        // No design twice once counted.
        prop_assert!(once_each(&r.ranked));
        // A margin of 1 joins the next design to this one's group of ties;
        // a group's times are within the tolerance of its fastest, and the
        // next group starts beyond it.
        let within = |lo: f64, t: f64| t - lo <= TIME_TOLERANCE * t.abs().max(lo.abs());
        let (mut lo, mut hi) = (r.ranked[0].time, r.ranked[0].time);
        for (i, d) in r.ranked.iter().enumerate() {
            prop_assert!(d.threads <= budget);
            prop_assert_eq!(&d.model, &d.design.model());
            let mut bindings: Vec<(&str, f64)> =
                d.counts.iter().map(|(c, k)| (c.as_str(), *k as f64)).collect();
            bindings.push(("x", x));
            prop_assert_eq!(d.model.eval(&bindings).unwrap(), d.time);
            prop_assert_eq!(d.design.resources().threads.eval(&bindings).unwrap(), d.threads as f64);
            if let Some(next) = r.ranked.get(i + 1) {
                let m = d.margin.unwrap();
                if m == 1.0 {
                    // A tie: fewer threads, then the smaller design.
                    let key = |r: &RankedDesign| {
                        (r.threads, r.design.term().size())
                    };
                    prop_assert!(key(d) <= key(next), "{:?} before {:?}", key(d), key(next));
                    lo = lo.min(next.time);
                    hi = hi.max(next.time);
                    prop_assert!(within(lo, hi), "a group from {} to {}", lo, hi);
                } else {
                    prop_assert!(m > 1.0);
                    prop_assert_eq!(m, next.time / d.time);
                    prop_assert!(next.time > hi && !within(lo, next.time));
                    (lo, hi) = (next.time, next.time);
                }
            }
        }
        // The original is never lost from a full ranking but may fall below
        // the top; a design reachable by laws alone is never slower than it.
        let laws: Vec<Move> = Rule::ALL.iter().map(|&r| Move::Law(r)).collect();
        let by_laws = Ranking::new(budget).top(1).moves(&laws).max_designs(40)
            .rank(&design, &at, &PointCounts).unwrap();
        let own = design.model().eval(&at).unwrap();
        prop_assert!(by_laws.ranked[0].time <= own * (1.0 + 1e-9));
        prop_assert!(r.ranked[0].time <= own * (1.0 + 1e-9));
    }
}

/// A design 10^5 patterns deep is refused, not searched, on a small stack.
#[test]
fn deep_designs_are_refused_on_a_small_stack() {
    common::on_small_stack(|| {
        let atoms =
            (0..100_000).map(|i| Term::atom(&format!("a{}", i % 7), pattern_core::Expr::var("x")));
        let deep = Design::from_term(Term::seq_all(atoms).unwrap()).unwrap();
        let r = Ranking::new(4).rank(&deep, &[("x", 2.0)], &PointCounts);
        assert!(matches!(
            r,
            Err(RankError::TooLarge {
                size: 199_999,
                max: 256
            })
        ));
    });
}
