//! Allocation under a thread budget: the exact search against brute force
//! (every feasible count vector), under the plain operators, queueing and
//! the simulator; the best allocation over sizes; ties; the errors.
//! RPL-shell's greedy rules are in `explore_greedy.rs`.

mod common;

use common::allocation::{atom_model, brute_force, counts_of, pairs, pools, size};
use common::cases;
use pattern_core::explore::allocation::{
    AllocationError, Allocator, GreedyRule, OperatorsTime, QueueingTime, TimeModel, greedy_gap,
    pipebalance,
};
use pattern_core::machine::Machine;
use pattern_core::paper::hadoop_design;
use pattern_core::{Design, Term};
use proptest::prelude::*;

/// The counts of `allocator`'s optimum at size `x`.
fn optimum_at(allocator: &Allocator, x: f64) -> Vec<(String, u64)> {
    allocator
        .clone()
        .at(&[("x", x)])
        .solve()
        .unwrap()
        .allocation
        .counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(96)))]

    /// Pipelines of 2 to 6 pools: the search finds brute force's optimum.
    #[test]
    fn operators_match_brute_force(
        models in prop::collection::vec(atom_model(), 2..=6),
        extra in 0u64..=8,
        x in size(),
    ) {
        let k = models.len();
        let budget = k as u64 + extra;
        let d = pools(&models);
        let at = [("x", x)];
        let names: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
        let ops = OperatorsTime::new(&d, &names, &at).unwrap();
        let expected = brute_force(
            k,
            budget,
            |c| c.iter().sum(),
            |c| ops.time_per_element(&pairs(&names, c)).unwrap(),
        )
        .unwrap();
        let found = Allocator::new(&d, budget).at(&at).solve().unwrap();
        prop_assert_eq!(counts_of(&found.allocation), expected.2);
        prop_assert_eq!(found.allocation.threads, expected.1);
        prop_assert_eq!(found.allocation.time_per_element, expected.0);
        // Pruning pays: fewer calls of the model than two passes of brute
        // force (the search's second pass breaks ties) for the larger
        // cases.
        if k >= 4 && extra >= 6 {
            let feasible = (0..k).fold(1u64, |acc, i| acc * (extra + k as u64 - i as u64) / (i as u64 + 1));
            prop_assert!(found.evaluations < 2 * feasible, "{} >= 2 * {}", found.evaluations, feasible);
        }
    }

    /// Sequential stages, pools of fixed size and pools around a `seq`
    /// mixed in: still brute force's optimum (threads counted by hand).
    #[test]
    fn mixed_pipelines_match_brute_force(
        kinds in prop::collection::vec(0u8..4, 2..=5),
        models in prop::collection::vec(atom_model(), 5),
        extra in 0u64..=6,
        x in size(),
    ) {
        let mut defs = String::new();
        let mut stages = Vec::new();
        let mut names = Vec::new();
        let mut fixed_threads = 0u64;
        for (i, kind) in kinds.iter().enumerate() {
            defs.push_str(&format!("s{i} = {};\n", models[i]));
            match kind {
                0 => { stages.push(format!("s{i}")); fixed_threads += 1; }
                1 => { stages.push(format!("tpool[2](s{i})")); fixed_threads += 2; }
                2 => { stages.push(format!("tpool[c{i}](s{i})")); names.push(format!("c{i}")); }
                _ => {
                    stages.push(format!("tpool[c{i}](seq(s{i}, s{}))", (i + 1) % kinds.len()));
                    names.push(format!("c{i}"));
                }
            }
        }
        prop_assume!(!names.is_empty());
        let d = Design::parse(&format!("{defs}pipe({})", stages.join(", "))).unwrap();
        let budget = fixed_threads + names.len() as u64 + extra;
        let at = [("x", x)];
        let ops = OperatorsTime::new(&d, &names, &at).unwrap();
        let expected = brute_force(
            names.len(),
            budget,
            |c| fixed_threads + c.iter().sum::<u64>(),
            |c| ops.time_per_element(&pairs(&names, c)).unwrap(),
        )
        .unwrap();
        let found = Allocator::new(&d, budget).at(&at).solve().unwrap();
        prop_assert_eq!(counts_of(&found.allocation), expected.2);
        prop_assert_eq!(found.allocation.time_per_element, expected.0);
    }

    /// The compiled operators agree with the model's own evaluation.
    #[test]
    fn compiled_operators_agree_with_the_model(
        models in prop::collection::vec(atom_model(), 2..=6),
        counts in prop::collection::vec(1u64..=16, 6),
        x in size(),
    ) {
        let d = pools(&models);
        let names: Vec<String> = (0..models.len()).map(|i| format!("c{i}")).collect();
        let ops = OperatorsTime::new(&d, &names, &[("x", x)]).unwrap();
        let p = pairs(&names, &counts);
        let mut at: Vec<(&str, f64)> = p.iter().map(|(n, c)| (*n, *c as f64)).collect();
        at.push(("x", x));
        let tree = d.model().eval(&at).unwrap();
        let compiled = ops.time_per_element(&p).unwrap();
        prop_assert!((compiled - tree).abs() <= 1e-12 * tree.abs(), "{compiled} vs {tree}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(32)))]

    /// Queueing on a small machine: the search, pruned by the operators'
    /// bound, finds brute force's optimum.
    #[test]
    fn queueing_matches_brute_force(
        models in prop::collection::vec(atom_model(), 2..=4),
        extra in 0u64..=5,
        cores in 1usize..=4,
        take in prop::sample::select(vec![0.0, 50.0]),
        handoff in prop::sample::select(vec![0.0, 20.0]),
        x in prop::sample::select(vec![16.0, 1000.0]),
    ) {
        let k = models.len();
        let budget = k as u64 + extra;
        let d = pools(&models);
        let machine = Machine::new(1, cores).with_waiting(|w| w.take_ns(take).handoff_ns(handoff));
        let at = [("x", x)];
        let names: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
        let queue = QueueingTime::new(&d, &machine, &at);
        let expected = brute_force(
            k,
            budget,
            |c| c.iter().sum(),
            |c| queue.time_per_element(&pairs(&names, c)).unwrap(),
        )
        .unwrap();
        let found = Allocator::new(&d, budget).at(&at).queueing(&machine).solve().unwrap();
        prop_assert_eq!(counts_of(&found.allocation), expected.2);
        prop_assert_eq!(found.allocation.time_per_element, expected.0);
    }

    /// What the queueing search prunes by: queueing is never below the
    /// operators.
    #[test]
    fn queueing_is_never_below_the_operators(
        models in prop::collection::vec(atom_model(), 2..=4),
        counts in prop::collection::vec(1u64..=12, 4),
        cores in 1usize..=8,
        x in size(),
    ) {
        let d = pools(&models);
        let names: Vec<String> = (0..models.len()).map(|i| format!("c{i}")).collect();
        let at = [("x", x)];
        let p = pairs(&names, &counts);
        let ops = OperatorsTime::new(&d, &names, &at).unwrap().time_per_element(&p).unwrap();
        let machine = Machine::new(1, cores);
        let q = QueueingTime::new(&d, &machine, &at).time_per_element(&p).unwrap();
        // Up to the slack the search allows for it: the normal form rounds
        // coefficients to 12 digits (1.7e-12 relative seen).
        prop_assert!(q >= ops * (1.0 - 1e-9), "queueing {q} < operators {ops}");
    }

    /// Greedy rules are never better than the optimum within the budget.
    #[test]
    fn greedy_gaps_are_at_least_one(
        models in prop::collection::vec(atom_model(), 2..=6),
        sequential in proptest::option::of(atom_model()),
        extra in 0u64..=30,
        x in size(),
    ) {
        let k = models.len();
        let mut d = pools(&models).to_string();
        let mut budget = k as u64 + extra;
        if let Some(m) = sequential {
            d = d.replacen("pipe(", "pipe(read, ", 1);
            d = format!("read = {m};\n{d}");
            budget += 1;
        }
        let d = Design::parse(&d).unwrap();
        let allocator = Allocator::new(&d, budget).at(&[("x", x)]);
        for rule in [GreedyRule::PipeBalance, GreedyRule::MaxResources] {
            let g = greedy_gap(&allocator, rule).unwrap();
            if g.within_budget {
                prop_assert!(g.gap >= 1.0, "{rule:?}: {}", g.gap);
            }
            prop_assert!(rule == GreedyRule::PipeBalance || g.within_budget);
        }
    }

    /// Between grid sizes with different optima, the change point found
    /// separates them: just before it the first is optimal, just after it
    /// the second.
    #[test]
    fn change_points_separate_the_optima(
        models in prop::collection::vec(atom_model(), 2..=3),
        extra in 1u64..=6,
    ) {
        let k = models.len();
        let d = pools(&models);
        let allocator = Allocator::new(&d, k as u64 + extra).tolerance(1e-9);
        let sizes = [2.0, 10.0, 100.0, 1000.0, 1e4];
        let plan = allocator.over_sizes("x", &sizes).unwrap();
        let best = |x: f64| optimum_at(&allocator, x);
        // The plan's optimum at each grid size is the solver's there. (Not
        // checked at every interval's middle: an allocation optimal only
        // strictly between two grid sizes whose optima agree is not seen,
        // as `over_sizes` documents; CI's seed found one, (6, 2) at x = 6
        // between sizes 2 and 10 optimal at (5, 3), for 536.185·x beside
        // 21.4·x^1.5·log2(x) + 374.)
        for (s, a) in &plan.best {
            prop_assert_eq!(best(*s), a.counts.clone(), "at {}", s);
        }
        for pair in plan.intervals.windows(2) {
            prop_assert!(pair[0].counts != pair[1].counts && pair[0].to == pair[1].from);
            // The change is located to the tolerance (where both sides are
            // wider than the probe).
            let p = pair[1].from;
            let wide = |i: &pattern_core::explore::allocation::SizeInterval| i.to > i.from * (1.0 + 1e-8);
            if wide(&pair[0]) && wide(&pair[1]) {
                prop_assert_eq!(best(p * (1.0 - 4e-9)), pair[0].counts.clone());
                prop_assert_eq!(best(p * (1.0 + 4e-9)), pair[1].counts.clone());
            }
        }
        // Each grid size lies in the interval of its optimum.
        for (s, a) in &plan.best {
            let i = plan.intervals.iter().find(|i| i.from <= *s && *s <= i.to).unwrap();
            prop_assert_eq!(&i.counts, &a.counts);
        }
    }

    /// The robust allocation against brute force: of all feasible
    /// allocations, the smallest worst ratio to the best time over the grid.
    #[test]
    fn robust_choice_matches_brute_force(
        models in prop::collection::vec(atom_model(), 2..=3),
        extra in 0u64..=5,
    ) {
        let k = models.len();
        let budget = k as u64 + extra;
        let d = pools(&models);
        let sizes = [2.0, 100.0, 1e4];
        let plan = Allocator::new(&d, budget).over_sizes("x", &sizes).unwrap();
        let names: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
        let ops: Vec<OperatorsTime> = sizes
            .iter()
            .map(|&x| OperatorsTime::new(&d, &names, &[("x", x)]).unwrap())
            .collect();
        let best: Vec<f64> = plan.best.iter().map(|(_, a)| a.time_per_element).collect();
        let expected = brute_force(
            k,
            budget,
            |c| c.iter().sum(),
            |c| {
                ops.iter()
                    .zip(&best)
                    .map(|(o, b)| o.time_per_element(&pairs(&names, c)).unwrap() / b)
                    .fold(f64::NEG_INFINITY, f64::max)
            },
        )
        .unwrap();
        let robust: Vec<u64> = plan.robust.counts.iter().map(|(_, c)| *c).collect();
        prop_assert_eq!(robust, expected.2);
        prop_assert!((plan.robust.worst_loss - (expected.0 - 1.0)).abs() <= 1e-12);
        prop_assert!(plan.robust.worst_loss >= 0.0);
    }
}

/// A mapReduce's counts are not monotone (the shuffle grows with `m·n`):
/// enumerated in full, still brute force's optimum.
#[test]
fn map_reduce_counts_match_brute_force() {
    let d = Design::parse(&hadoop_design("m", "n")).unwrap();
    let names = vec!["m".to_string(), "n".to_string()];
    for x in [1e3, 1e5, 1e7] {
        for budget in [1, 4, 12, 30] {
            let at = [("x", x)];
            let ops = OperatorsTime::new(&d, &names, &at).unwrap();
            let expected = brute_force(
                2,
                budget,
                |c| c[0] * c[1],
                |c| ops.time_per_element(&pairs(&names, c)).unwrap(),
            )
            .unwrap();
            let found = Allocator::new(&d, budget).at(&at).solve().unwrap();
            assert_eq!(
                counts_of(&found.allocation),
                expected.2,
                "x = {x}, budget {budget}"
            );
            assert_eq!(found.allocation.time_per_element, expected.0);
        }
    }
}

/// Threads <= cores: the cap is the smaller of the two, and the ranges
/// hold.
#[test]
fn cores_and_ranges_constrain() {
    let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))").unwrap();
    let at = [("x", 1000.0)];
    let best = Allocator::new(&d, 64).cores(8).at(&at).solve().unwrap();
    assert_eq!(best.allocation.threads, 8);
    assert_eq!(best.allocation.time_per_element, 400.0);
    // b at most 2: a = 6 gives max(333.3, 500).
    let best = Allocator::new(&d, 8)
        .at(&at)
        .range("b", 1..=2)
        .solve()
        .unwrap();
    assert_eq!(best.allocation.count("b"), Some(2));
    assert_eq!(best.allocation.time_per_element, 500.0);
    // ... and the fewest threads that reach it: a = 4.
    assert_eq!(best.allocation.count("a"), Some(4));
    // a at least 7: only b = 1 is left.
    let best = Allocator::new(&d, 8)
        .at(&at)
        .range("a", 7..=20)
        .solve()
        .unwrap();
    assert_eq!(best.allocation.counts, [("a".into(), 7), ("b".into(), 1)]);
}

#[test]
fn errors_are_clear() {
    let err = |r: Result<_, AllocationError>| {
        r.map(|_: pattern_core::explore::allocation::Solution| ())
            .unwrap_err()
    };
    let d = Design::parse("a = x; tpool[4](a)").unwrap();
    assert!(matches!(
        err(Allocator::new(&d, 8).solve()),
        AllocationError::NoSymbolicCount
    ));

    let d = Design::parse("s = x; pipe(tpool[a](s), tpool[b](s), tpool[c](s))").unwrap();
    let e = err(Allocator::new(&d, 8).range("z", 1..=3).solve());
    assert!(
        matches!(&e, AllocationError::UnknownCount { name, .. } if name == "z"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "`z` is not a symbolic count of the design (its counts: a, b, c)"
    );
    #[allow(clippy::reversed_empty_ranges)]
    let e = err(Allocator::new(&d, 8).range("a", 5..=2).solve());
    assert!(matches!(
        e,
        AllocationError::EmptyRange { from: 5, to: 2, .. }
    ));
    let e = err(Allocator::new(&d, 8).range("a", 0..=2).solve());
    assert!(matches!(e, AllocationError::EmptyRange { from: 0, .. }));
    let e = err(Allocator::new(&d, 2).solve());
    assert!(
        matches!(
            e,
            AllocationError::BudgetTooSmall {
                budget: 2,
                minimum: 3
            }
        ),
        "{e}"
    );
    let e = err(Allocator::new(&d, 8).at(&[("x", 1.0), ("b", 2.0)]).solve());
    assert!(matches!(&e, AllocationError::CountInPoint { name } if name == "b"));
    // No x: the model cannot be evaluated.
    let e = err(Allocator::new(&d, 8).solve());
    assert!(matches!(e, AllocationError::Model { .. }), "{e}");
    assert!(e.to_string().contains("unbound variable `x`"), "{e}");
    // A search that would take longer than allowed stops.
    let e = err(Allocator::new(&d, 8).at(&[("x", 1.0)]).max_steps(5).solve());
    assert!(matches!(e, AllocationError::TooManySteps { limit: 5 }));
    // Spoken of neutrally: the library's method and a command line's
    // option name the limit differently.
    assert_eq!(
        e.to_string(),
        "the search stopped after 5 steps (the step limit): narrow the counts' ranges or raise the limit"
    );
    // A model with no value at the point.
    let d2 = Design::parse("s = 1/(x - 2); tpool[a](s)").unwrap();
    let e = err(Allocator::new(&d2, 8).at(&[("x", 2.0)]).solve());
    assert!(matches!(e, AllocationError::Model { .. }), "{e}");
    // A semantics that fails: a machine without cores.
    let e = err(Allocator::new(&d, 8)
        .at(&[("x", 1.0)])
        .queueing(&Machine::new(1, 0))
        .solve());
    assert!(matches!(e, AllocationError::Semantics { .. }), "{e}");
    // A semantics of one's own that gives no number.
    struct Nan;
    impl TimeModel for Nan {
        type Error = std::convert::Infallible;
        fn time_per_element(&self, _: &[(&str, u64)]) -> Result<f64, Self::Error> {
            Ok(f64::NAN)
        }
    }
    let e = err(Allocator::new(&d, 8).solve_with(&Nan));
    assert!(matches!(e, AllocationError::NotFinite { .. }), "{e}");
    // Counts whose threads overflow 2^53: no allocation, no panic.
    let d3 = Design::parse("s = x; tpool[a](tpool[b](s))").unwrap();
    let e = err(Allocator::new(&d3, u64::MAX)
        .at(&[("x", 1.0)])
        .range("a", (1 << 40)..=(1 << 40))
        .range("b", (1 << 40)..=(1 << 40))
        .solve());
    assert!(matches!(e, AllocationError::BudgetTooSmall { .. }), "{e}");
    let e = err(Allocator::new(&d3, 8).range("a", 1..=(1 << 54)).solve());
    assert!(matches!(e, AllocationError::EmptyRange { .. }), "{e}");
    // Sizes.
    let a = Allocator::new(&d, 8);
    assert!(matches!(
        a.over_sizes("x", &[]),
        Err(AllocationError::Sizes(_))
    ));
    assert!(matches!(
        a.over_sizes("x", &[2.0, 1.0]),
        Err(AllocationError::Sizes(_))
    ));
    assert!(matches!(
        a.over_sizes("x", &[f64::NAN]),
        Err(AllocationError::Sizes(_))
    ));
    assert!(matches!(
        a.over_sizes("a", &[1.0]),
        Err(AllocationError::CountInPoint { .. })
    ));
    // Greedy rules on what is not a pipeline of pools.
    let d4 = Design::parse(&hadoop_design("m", "n")).unwrap();
    let e = pipebalance(&Allocator::new(&d4, 8).at(&[("x", 10.0)])).unwrap_err();
    assert!(matches!(e, AllocationError::NotAPipelineOfPools(_)), "{e}");
}

/// A design 100 000 levels deep, solved on a 2 MiB thread.
#[test]
fn deep_designs_on_a_small_stack() {
    let result = common::on_small_stack(|| {
        let atom = || Term::atom("s", "x".parse().unwrap());
        let mut t = Term::tpool("c", atom());
        for _ in 0..100_000 {
            t = Term::seq(atom(), t);
        }
        let d = Design::from_term(t).unwrap();
        let best = Allocator::new(&d, 4).at(&[("x", 1.0)]).solve().unwrap();
        (best.allocation.count("c"), best.allocation.time_per_element)
    });
    let (c, t) = result;
    assert_eq!(c, Some(4));
    assert!((t - 100_000.25).abs() < 1e-6, "{t}");
}

/// The benchmark's case: six pools of Table 1 atoms, 64 threads. The
/// pruning evaluates a few thousand of the 75 million feasible vectors.
#[test]
fn six_pools_budget_64_evaluate_few_points() {
    let models = [
        "1034.17 * x * log2(x)",
        "536.185 * x",
        "5422.97",
        "9376 * x",
        "0.353395 * x",
        "38316",
    ];
    let d = pools(&models.map(String::from));
    let s = Allocator::new(&d, 64).at(&[("x", 1000.0)]).solve().unwrap();
    println!(
        "evaluations: {}, allocation {:?}",
        s.evaluations, s.allocation
    );
    assert!(s.evaluations < 100_000, "{}", s.evaluations);
    assert_eq!(s.allocation.threads, 64);
}

/// The simulator as the semantics: every feasible allocation evaluated,
/// brute force's optimum; on 2 cores, more threads than cores do not pay.
#[test]
fn simulation_matches_brute_force() {
    use pattern_core::explore::allocation::SimulationTime;
    use pattern_core::machine::Machine;
    let d = Design::parse("f = 300; g = 100; pipe(tpool[a](f), tpool[b](g))").unwrap();
    let platform = Machine::new(1, 2);
    let names = vec!["a".to_string(), "b".to_string()];
    let sim = SimulationTime::new(&d, &platform, &[]).elements(200);
    let expected = brute_force(
        2,
        6,
        |c| c.iter().sum(),
        |c| sim.time_per_element(&pairs(&names, c)).unwrap(),
    )
    .unwrap();
    let found = Allocator::new(&d, 6)
        .simulation(&platform, 200)
        .solve()
        .unwrap();
    assert_eq!(counts_of(&found.allocation), expected.2);
    assert_eq!(found.allocation.time_per_element, expected.0);
    // Two cores do 400 ns of work per element in 200 ns at best.
    assert!(
        (found.allocation.time_per_element - 200.0).abs() < 1.0,
        "{:?}",
        found.allocation
    );
    // Every one of the 15 allocations within 6 threads was simulated.
    assert_eq!(found.evaluations, 15);
}

/// On nodes faster than the models' speed, queueing may beat the
/// operators: the search then prunes by nothing but the threads, and
/// still finds brute force's optimum.
#[test]
fn queueing_on_fast_nodes_matches_brute_force() {
    use pattern_core::explore::allocation::{QueueingTime, TimeModel};
    let d = Design::parse("s0 = 4000; s1 = 1000; pipe(tpool[c0](s0), tpool[c1](s1))").unwrap();
    let fast = Machine::from_json(r#"{"nodes": [{"cores": 4, "speed": 2.0}]}"#).unwrap();
    let queue = QueueingTime::new(&d, &fast, &[]);
    assert!(!queue.bounded_below_by_operators());
    assert!(QueueingTime::new(&d, &Machine::new(1, 4), &[]).bounded_below_by_operators());
    let names = vec!["c0".to_string(), "c1".to_string()];
    let expected = brute_force(
        2,
        6,
        |c| c.iter().sum(),
        |c| queue.time_per_element(&pairs(&names, c)).unwrap(),
    )
    .unwrap();
    let found = Allocator::new(&d, 6).queueing(&fast).solve().unwrap();
    assert_eq!(counts_of(&found.allocation), expected.2);
    assert_eq!(found.allocation.time_per_element, expected.0);
    // 5000 ns of work per element on 4 cores twice as fast: 625 ns, below
    // the operators' best within 6 threads (4000/4 = 1000 ns).
    assert!(
        (found.allocation.time_per_element - 625.0).abs() < 1e-6,
        "{:?}",
        found.allocation
    );
}

/// A mapReduce's `m` and `n` under the queueing model and the simulation,
/// both on 2 nodes of 2 cores: the search finds brute force's optimum,
/// with every count's vector within the budget considered.
#[test]
fn map_reduce_counts_under_queueing_and_simulation_match_brute_force() {
    use pattern_core::explore::allocation::{QueueingTime, SimulationTime};
    let d = Design::parse(
        "map = 3*x + 40; reduce = 2*x + 500; shuffle = 0.5*x + 7*o + 900;
         mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, reduce)",
    )
    .unwrap();
    let names = vec!["m".to_string(), "n".to_string()];
    let machine = Machine::new(2, 2);
    let platform = Machine::new(2, 2);
    for x in [1e3, 1e5] {
        let at = [("x", x)];
        for budget in [2, 4, 6] {
            let queue = QueueingTime::new(&d, &machine, &at);
            let expected = brute_force(
                2,
                budget,
                |c| c[0] * c[1],
                // More maps than nodes cannot be placed: not a candidate.
                |c| {
                    queue
                        .time_per_element(&pairs(&names, c))
                        .unwrap_or(f64::INFINITY)
                },
            )
            .unwrap();
            let found = Allocator::new(&d, budget)
                .at(&at)
                .queueing(&machine)
                .solve()
                .unwrap();
            assert_eq!(
                counts_of(&found.allocation),
                expected.2,
                "queueing, x = {x}, budget {budget}"
            );
            assert_eq!(found.allocation.time_per_element, expected.0);

            let sim = SimulationTime::new(&d, &platform, &at).elements(40);
            let expected = brute_force(
                2,
                budget,
                |c| c[0] * c[1],
                // More maps than nodes cannot be placed: not a candidate.
                |c| {
                    sim.time_per_element(&pairs(&names, c))
                        .unwrap_or(f64::INFINITY)
                },
            )
            .unwrap();
            let found = Allocator::new(&d, budget)
                .at(&at)
                .simulation(&platform, 40)
                .solve()
                .unwrap();
            assert_eq!(
                counts_of(&found.allocation),
                expected.2,
                "simulation, x = {x}, budget {budget}"
            );
            assert_eq!(found.allocation.time_per_element, expected.0);
        }
    }
}

/// Over sizes under the queueing model of 2 cores: the best allocation at
/// each size is brute force's at that size, and each change point
/// separates the optima on its two sides.
#[test]
fn over_sizes_under_queueing_match_brute_force() {
    use pattern_core::explore::allocation::QueueingTime;
    let d = Design::parse("s0 = 40*x + 3000; s1 = 4*x*log2(x); pipe(tpool[a](s0), tpool[b](s1))")
        .unwrap();
    let machine = Machine::new(1, 2).with_waiting(|w| w.take_ns(50.0));
    let names = vec!["a".to_string(), "b".to_string()];
    let allocator = Allocator::new(&d, 6).queueing(&machine).tolerance(1e-9);
    let sizes = [2.0, 16.0, 128.0, 1024.0, 8192.0, 65536.0];
    let plan = allocator.over_sizes("x", &sizes).unwrap();
    assert_eq!(plan.best.len(), sizes.len());
    for (x, found) in &plan.best {
        let at = [("x", *x)];
        let queue = QueueingTime::new(&d, &machine, &at);
        let expected = brute_force(
            2,
            6,
            |c| c.iter().sum(),
            |c| queue.time_per_element(&pairs(&names, c)).unwrap(),
        )
        .unwrap();
        assert_eq!(counts_of(found), expected.2, "x = {x}");
        assert_eq!(found.time_per_element, expected.0, "x = {x}");
    }
    let changes = plan.change_points();
    assert!(!changes.is_empty(), "{:?}", plan.intervals);
    let best = |x: f64| optimum_at(&allocator, x);
    for i in &plan.intervals {
        assert_eq!(
            best((i.from * i.to).sqrt()),
            i.counts,
            "{:?}",
            plan.intervals
        );
    }
    for pair in plan.intervals.windows(2) {
        assert!(pair[0].counts != pair[1].counts && pair[0].to == pair[1].from);
    }
}

/// On a plateau of the queueing model (two cores saturated by any pools of
/// two or more workers before the sorting stage), the allocations' times
/// differ only by rounding: the fewest threads win, not the last bits.
#[test]
fn ties_within_rounding_go_to_the_fewest_threads() {
    let d = Design::parse("s0 = 40*x + 3000; s1 = 2*x*log2(x); pipe(tpool[a](s0), tpool[b](s1))")
        .unwrap();
    let machine = Machine::new(1, 2).with_waiting(|w| w.take_ns(50.0));
    for x in [15.9, 15.99999, 16.0, 16.1] {
        let at = [("x", x)];
        let found = Allocator::new(&d, 6)
            .at(&at)
            .queueing(&machine)
            .solve()
            .unwrap();
        let queue = QueueingTime::new(&d, &machine, &at);
        let time = |a: u64, b: u64| queue.time_per_element(&[("a", a), ("b", b)]).unwrap();
        // (2, 1) ties (2, 2) and (3, 1) to rounding, on fewer threads.
        for (a, b) in [(2, 2), (3, 1), (2, 4)] {
            assert!((time(a, b) - time(2, 1)).abs() <= 1e-12 * time(2, 1));
        }
        assert_eq!(counts_of(&found.allocation), [2, 1], "x = {x}");
        assert_eq!(found.allocation.threads, 3);
        assert_eq!(found.allocation.time_per_element, time(2, 1));
    }
}

/// The case CI's proptest seed found: an allocation optimal only between
/// two grid sizes whose optima agree is not seen (as `over_sizes`
/// documents), and a finer grid finds it.
#[test]
fn an_optimum_between_agreeing_grid_sizes_needs_a_finer_grid() {
    let models = [
        "536.185 * x".to_string(),
        "21.375293100322068*x^1.5*log2(x)^1 + 374.2378321053287".to_string(),
    ];
    let d = pools(&models);
    let allocator = Allocator::new(&d, 8).tolerance(1e-9);
    let counts = |x: f64| optimum_at(&allocator, x);
    let pair = |a: u64, b: u64| vec![("c0".to_string(), a), ("c1".to_string(), b)];
    assert_eq!(counts(2.0), pair(5, 3));
    assert_eq!(counts(10.0), pair(5, 3));
    assert_eq!(counts(6.0), pair(6, 2));
    let coarse = allocator.over_sizes("x", &[2.0, 10.0]).unwrap();
    assert!(coarse.intervals.iter().all(|i| i.counts == pair(5, 3)));
    let fine = allocator.over_sizes("x", &[2.0, 6.0, 10.0]).unwrap();
    assert!(fine.intervals.iter().any(|i| i.counts == pair(6, 2)));
}

/// The fewest workers of a pool of one-worker time `time` to reach `target`.
fn workers_for(time: f64, target: f64) -> u64 {
    let mut c = (time / target).ceil().max(1.0) as u64;
    while c > 1 && time / (c - 1) as f64 <= target {
        c -= 1;
    }
    while time / c as f64 > target {
        c += 1;
    }
    c
}

/// A pipeline of pools under the plain operators, solved without a search:
/// its time is the slowest pool's `time / count`, so the least time is the
/// least `times[i] / c` whose pools' fewest workers fit the budget; the
/// answer's threads are the fewest reaching that time within the tie
/// tolerance, each pool's fewest. As (time, counts).
fn pipe_of_pools_optimum(times: &[f64], budget: u64) -> (f64, Vec<u64>) {
    let fewest = |target: f64| times.iter().map(|&t| workers_for(t, target)).sum::<u64>();
    let best = times
        .iter()
        .flat_map(|&t| (1..=budget).map(move |c| t / c as f64))
        .filter(|&target| fewest(target) <= budget)
        .fold(f64::INFINITY, f64::min);
    let counts = times
        .iter()
        .map(|&t| workers_for(t, best * (1.0 + 1e-9)))
        .collect();
    (best, counts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Budgets above 2048 threads are searched by doubling (the best at
    /// half the budget, scaled up, is the first incumbent): the same
    /// optimum as a pipeline of pools' own solution.
    #[test]
    fn large_budgets_match_the_pipelines_solution(
        times in prop::collection::vec(1.0f64..1e6, 2..=4),
        budget in 2049u64..2600,
    ) {
        let models: Vec<String> = times.iter().map(|t| format!("{t:e}")).collect();
        let d = pools(&models);
        let found = Allocator::new(&d, budget).solve().unwrap();
        let (time, counts) = pipe_of_pools_optimum(&times, budget);
        let got = found.allocation.time_per_element;
        // The model's own rounding (its expression's normal form) may
        // differ from `time / count` in the last dozen bits.
        prop_assert!((got - time).abs() <= 1e-9 * time, "{got} vs {time}");
        prop_assert_eq!(counts_of(&found.allocation), counts);
    }
}

/// A budget of 200,000 threads over three pools (Table 1's atoms): the
/// doubling search's answer is the pipeline's own (the search took
/// `O(budget²)` steps before; the release build answers 10^6 in seconds).
#[test]
fn two_hundred_thousand_threads_over_three_pools() {
    let times = [1034.17 * 10.0 * 10f64.log2(), 536.185 * 10.0, 5422.97];
    let d = Design::parse(
        "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97; \
         pipe(tpool[a](qsort), tpool[b](inc), tpool[c](nop))",
    )
    .unwrap();
    let found = Allocator::new(&d, 200_000)
        .at(&[("x", 10.0)])
        .solve()
        .unwrap();
    let (time, counts) = pipe_of_pools_optimum(&times, 200_000);
    let got = found.allocation.time_per_element;
    assert!((got - time).abs() <= 1e-9 * time, "{got} vs {time}");
    assert_eq!(counts_of(&found.allocation), counts);
    assert_eq!(found.allocation.threads, 200_000);
}
