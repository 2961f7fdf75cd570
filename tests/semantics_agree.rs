//! Where their assumptions meet, the meanings of a design agree: the
//! operators, the queueing semantics and the simulator on one node with a
//! core per thread; queueing and the simulator with threads beyond the
//! cores (measured, figures in docs/queueing.md); and the queueing time
//! never below the machine's capacity nor the slowest stage, on random
//! designs and random machines.
//!
//! Run with `--nocapture` to see the measured differences.

mod common;

use pattern_core::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, fold};
use pattern_core::machine::{Machine, Node};
use pattern_core::semantics::{Footprint, MapReducePhases, Queueing, QueueingError};
use pattern_core::sim::{SimError, Simulation};
use pattern_core::{Design, Expr, Term, strategies};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use rand::Rng;

fn at() -> Vec<(&'static str, f64)> {
    vec![("x", 1024.0), ("n", 3.0), ("p", 5.0), ("m", 2.0)]
}

/// The core·ns per element a design asks for at speed 1 (a pool's take
/// and a pipeline's hand-overs included) and the nodes it places work on,
/// as a semantics of its own: what the bounds are checked against.
struct Work {
    take: f64,
    handoff: f64,
}

type W = (Expr, usize);

impl Semantics for Work {
    type Value = W;
    type Error = std::convert::Infallible;
    fn atom(&mut self, a: &Atom, _: &Scope) -> Result<W, Self::Error> {
        Ok((a.model.clone(), 1))
    }
    fn seq(&mut self, parts: Vec<W>, _: &Scope) -> Result<W, Self::Error> {
        let nodes = parts.iter().map(|p| p.1).max().unwrap_or(1);
        Ok((parts.into_iter().map(|p| p.0).sum(), nodes))
    }
    fn pipe(&mut self, parts: Vec<W>, s: &Scope) -> Result<W, Self::Error> {
        let hops = (parts.len() - 1) as f64 * self.handoff;
        let (w, nodes) = self.seq(parts, s)?;
        Ok((w + hops, nodes))
    }
    fn tpool(&mut self, _: &Count, body: W, _: &Scope) -> Result<W, Self::Error> {
        Ok((body.0 + self.take, body.1))
    }
    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: W,
        shuffle: &Atom,
        reduce: W,
        _: &Scope,
    ) -> Result<W, Self::Error> {
        let p = MapReducePhases::new(params, map.0, &shuffle.model, reduce.0);
        let m = params.m.to_expr().eval(&at()).unwrap() as usize;
        Ok((Expr::var("x") * p.map_one + p.keys * p.reduce_d, m))
    }
    fn on(&mut self, _: &Count, b: W, _: &Scope) -> Result<W, Self::Error> {
        Ok(b)
    }
    fn par(&mut self, _: &[Count], parts: Vec<W>, s: &Scope) -> Result<W, Self::Error> {
        self.seq(parts, s)
    }
    fn groups(&mut self, _: &Count, b: W, _: &Scope) -> Result<W, Self::Error> {
        Ok(b)
    }
    fn redist(&mut self, _: &Expr, a: W, b: W, s: &Scope) -> Result<W, Self::Error> {
        self.seq(vec![a, b], s)
    }
}

/// Work per element at speed 1 and the nodes used.
fn work(t: &Term, take: f64, handoff: f64) -> (f64, usize) {
    let Ok((w, nodes)) = fold(t, &mut Work { take, handoff });
    (w.eval(&at()).unwrap(), nodes)
}

fn threads(t: &Term) -> usize {
    Footprint::of(t).threads.eval(&at()).unwrap() as usize
}

/// A machine of 1–4 nodes of 1–8 cores at speeds 0.5–2.
fn machines() -> impl Strategy<Value = Machine> {
    prop::collection::vec((1usize..=8, 0usize..4), 1..=4).prop_map(|nodes| {
        let speed = |i: usize| [0.5, 1.0, 1.5, 2.0][i];
        let first = format!(
            r#"{{"nodes": [{{"cores": {}, "speed": {}}}]}}"#,
            nodes[0].0,
            speed(nodes[0].1)
        );
        let mut m = Machine::from_json(&first).unwrap();
        for &(c, s) in &nodes[1..] {
            m = m.node(Node::new(c).speed(speed(s)));
        }
        m
    })
}

/// Atoms and `seq`s of atoms under pipelines and pools of `count`
/// workers, at most 3 patterns deep: no `seq` of parallel parts.
fn pipes_and_pools(count: BoxedStrategy<Count>) -> BoxedStrategy<Term> {
    let leaf = prop_oneof![
        2 => strategies::atom(),
        1 => (strategies::atom(), strategies::atom()).prop_map(|(a, b)| Term::seq(a, b)),
    ];
    leaf.prop_recursive(3, 8, 2, move |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Term::pipe(a, b)),
            (count.clone(), inner).prop_map(|(n, t)| Term::tpool(n, t)),
        ]
    })
    .boxed()
}

/// Designs without a `seq` of parallel parts, their counts
/// [`strategies::count`]. (A `seq` of parallel parts solves each part
/// alone on the machine's cores, which a machine of more cores changes.)
fn no_phases() -> BoxedStrategy<Term> {
    pipes_and_pools(strategies::count().boxed())
}

/// Pipelines and pools of 1–4 workers, or two of them one after the
/// other (a `seq` of parallel parts, at the top: inside a pipeline the
/// simulator's phases hold the stages after them until the whole stream
/// has passed the first phase, which the operators do not say).
fn small_designs() -> BoxedStrategy<Term> {
    let part = || pipes_and_pools((1u64..=4).prop_map(Count::Fixed).boxed());
    prop_oneof![
        3 => part(),
        1 => (part(), part()).prop_map(|(a, b)| Term::seq(a, b)),
    ]
    .boxed()
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs())
}

/// The simulator's steady state: `None` where it does not run the design
/// (a pool of a seq with parallel parts).
fn simulated(d: &Design, m: &Machine) -> Option<f64> {
    let t = threads(d.term());
    match Simulation::new(d, m)
        .at(&at())
        .elements(100 * t.max(4))
        .run()
    {
        Ok(r) => Some(r.time_per_element()),
        Err(SimError::Unsupported { .. }) => None,
        Err(e) => panic!("{d}: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// Never below the capacity of the nodes the design uses (its work
    /// over their cores × speeds), the busiest node's work over its
    /// cores, nor the slowest stage (the operators' time, at the fastest
    /// speed where it is above 1).
    #[test]
    fn never_below_the_bounds(
        t in strategies::term(3),
        m in machines(),
        take in prop::sample::select(vec![0.0, 40.0]),
        handoff in prop::sample::select(vec![0.0, 25.0]),
    ) {
        let m = m.with_waiting(|w| w.take_ns(take).handoff_ns(handoff));
        let (w, nodes) = work(&t, take, handoff);
        let q = match Queueing::new(&m).at(&at()).of(&t) {
            Ok(q) => q,
            Err(QueueingError::Nodes { asked, available, .. }) => {
                // A mapReduce of more nodes than the machine has.
                prop_assert!(asked > available && available == m.nodes() && nodes > available, "{t}");
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(format!("{t}: {e}"))),
        };
        let slack = 1.0 - 1e-9;
        prop_assert!(q.nodes.len() == nodes, "{t}: {} nodes, not {nodes}", q.nodes.len());
        let capacity = m.capacity(nodes);
        prop_assert!(q.time_per_element >= w / capacity * slack, "{t}: {} < {}", q.time_per_element, w / capacity);
        for (j, n) in q.nodes.iter().enumerate() {
            prop_assert!(q.time_per_element >= n.work / n.cores as f64 * slack, "{t}: node {j}");
            prop_assert!(n.utilization <= 1.0 + 1e-12 && n.slowdown >= 1.0);
            // Only a saturated node slows its threads.
            prop_assert!(n.slowdown == 1.0 || n.utilization > 1.0 - 1e-6, "{t}: node {j} {n:?}");
        }
        let fastest = m.each_node().take(nodes).map(|(_, s)| s).fold(0.0, f64::max);
        let operators = Design::from_term(t.clone()).unwrap().model().eval(&at()).unwrap();
        let slowest = operators * (1.0 / fastest).min(1.0);
        prop_assert!(q.time_per_element >= slowest * slack, "{t}: {} < {slowest}", q.time_per_element);
    }

    /// One node of speed 1: the time is what the closed form said before
    /// the nodes had slowdowns of their own, `max(1/X(1), W/c)` with
    /// `X(1)` the network's throughput where every thread has a core.
    #[test]
    fn one_node_is_the_closed_form(
        t in no_phases(),
        cores in 1usize..=8,
        take in prop::sample::select(vec![0.0, 40.0]),
        handoff in prop::sample::select(vec![0.0, 25.0]),
    ) {
        let waits = |m: Machine| m.with_waiting(|w| w.take_ns(take).handoff_ns(handoff));
        let one = waits(Machine::new(1, cores));
        // (a core for every thread and every take and hand-over station)
        let plenty = waits(Machine::new(1, 2 * threads(&t) + 8));
        let q = Queueing::new(&one).at(&at()).of(&t).unwrap();
        let free = Queueing::new(&plenty).at(&at()).of(&t).unwrap();
        prop_assert_eq!(free.slowdown, 1.0);
        let (w, _) = work(&t, take, handoff);
        let closed = free.time_per_element.max(w / cores as f64);
        prop_assert!(relative(q.time_per_element, closed) <= 1e-9, "{t}: {} vs {closed}", q.time_per_element);
        // The slowdown likewise: X(1)·W/c where above 1.
        let s = (w / cores as f64 / free.time_per_element).max(1.0);
        prop_assert!(relative(q.slowdown, s) <= 1e-9, "{t}: {} vs {s}", q.slowdown);
    }
}

/// The channels of the queueing semantics where it meets the operators:
/// long enough that MVA's finite population is within 1 % of the
/// bottleneck's rate.
const LONG: usize = 1000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(200)))]

    /// The operators, queueing (channels of [`LONG`]) and the simulation
    /// (channels of 4) on one node with a core per thread, free waiting:
    /// within 1 % (measured: the simulation within 0.07 %, a finite run's
    /// fill; queueing within 1e-9).
    #[test]
    fn with_a_core_per_thread_all_three_agree(t in small_designs()) {
        let d = Design::from_term(t.clone()).unwrap();
        let m = Machine::core_per_thread(threads(&t));
        let operators = d.model().eval(&at()).unwrap();
        let q = Queueing::new(&m).buffer(LONG).at(&at()).of(&t).unwrap();
        prop_assert_eq!(q.slowdown, 1.0);
        prop_assert!(relative(q.time_per_element, operators) <= 0.01, "{t}: {} vs {operators}", q.time_per_element);
        if let Some(s) = simulated(&d, &m) {
            prop_assert!(relative(s, operators) <= 0.01, "{t}: simulated {s} vs {operators}");
        }
    }
}

/// A stage of 100–1000 ns, alone or in a pool of 2–4 workers.
fn stage() -> impl Strategy<Value = Term> {
    (100u32..=1000, 2u64..=4, prop::bool::ANY).prop_map(|(ns, n, pool)| {
        let a = Term::atom(&format!("s{ns}"), Expr::num(ns as f64));
        if pool { Term::tpool(n, a) } else { a }
    })
}

/// Pipelines of 2–6 stages of comparable costs, pools of such pipelines,
/// and pools: where the stages compete for the cores.
fn pipelines_and_pools() -> BoxedStrategy<Term> {
    let pipe = |k| prop::collection::vec(stage(), 2..=k).prop_map(|s| Term::pipe_all(s).unwrap());
    prop_oneof![
        3 => pipe(6),
        1 => (2u64..=4, pipe(4)).prop_map(|(n, p)| Term::tpool(n, p)),
        1 => (2u64..=8, 100u32..=1000).prop_map(|(n, ns)| Term::tpool(n, Term::atom("a", Expr::num(ns as f64)))),
    ]
    .boxed()
}

/// Queueing and the simulation, both with channels of 4, on one node of
/// fewer cores than threads: 300 cases, their relative differences'
/// median, 90th percentile and maximum, as docs/queueing.md states them
/// (the bounds: the measured figures with a margin).
#[test]
fn beyond_the_cores_queueing_and_simulation_mostly_agree() {
    let mut runner = TestRunner::deterministic();
    let mut diffs = Vec::new();
    for _ in 0..300 {
        let t = pipelines_and_pools()
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let n = threads(&t);
        let cores = 1 + runner.rng().random_range(0..n - 1);
        let d = Design::from_term(t.clone()).unwrap();
        let m = Machine::new(1, cores);
        let q = Queueing::new(&m).at(&at()).of(&t).unwrap().time_per_element;
        let r = Simulation::new(&d, &m).elements(200 * n).run().unwrap();
        let s = r.time_per_element();
        diffs.push(((q - s) / s, t, cores));
    }
    diffs.sort_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
    let k = diffs.len();
    let at = |q: f64| diffs[((k as f64 * q) as usize).min(k - 1)].0.abs();
    let within = diffs.iter().filter(|d| d.0.abs() <= 0.05).count();
    let slower = diffs.iter().filter(|d| d.0 < -0.05).count();
    println!(
        "beyond the cores: {k} cases, median {:.2} %, 90th percentile {:.2} %, max {:.2} %; {within} within 5 %, {slower} of the others simulated slower",
        100.0 * at(0.5),
        100.0 * at(0.9),
        100.0 * at(1.0)
    );
    for (diff, t, cores) in diffs.iter().rev().take(5) {
        println!("  {:+.1} % on {cores} cores: {t}", 100.0 * diff);
    }
    assert!(at(0.5) <= 0.005, "median {}", at(0.5));
    assert!(within >= 255, "{within} of {k} within 5 %");
    assert!(at(1.0) <= 0.25, "max {}", at(1.0));
}
