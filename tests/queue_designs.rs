//! The queueing semantics of designs: the plain operators as the limit
//! when cores are plenty, the cores' bound when they are not, text and
//! type-level designs alike, and clear errors.

mod common;

use pattern_core::dsl::{Pattern, Pipe, Tpool, design_of};
use pattern_core::machine::Machine;
use pattern_core::paper::{Inc, Qsort};
use pattern_core::semantics::{Footprint, Queueing, QueueingError, QueueingPrediction};
use pattern_core::{Design, Term, strategies};
use proptest::prelude::*;

fn at() -> Vec<(&'static str, f64)> {
    vec![("x", 1024.0), ("n", 3.0), ("p", 5.0)]
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

/// The plain operators' time per element at the point.
fn plain(term: &Term) -> f64 {
    Design::from_term(term.clone())
        .unwrap()
        .model()
        .eval(&at())
        .unwrap()
}

/// The CPU work per element, in core·ns: every atom's time once per element.
fn work(term: &Term) -> f64 {
    let mut total = 0.0;
    let mut todo = vec![term];
    while let Some(t) = todo.pop() {
        match t {
            Term::Atom(a) => total += a.model.eval(&at()).unwrap(),
            other => todo.extend(other.children()),
        }
    }
    total
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// Cores to spare, free hand-overs and long channels: the prediction is
    /// the operators' (to the finite-population gap of MVA, here < 2 %).
    #[test]
    fn the_operators_are_the_limit_with_cores_to_spare(t in strategies::shuffle_free_term(3)) {
        let threads = Footprint::of(&t).threads.eval(&at()).unwrap();
        let machine = Machine::new(1, threads as usize + 1);
        let q = Queueing::new(&machine).buffer(400).at(&at()).of(&t).unwrap();
        let want = plain(&t);
        prop_assert!(q.time_per_element >= want * (1.0 - 1e-9), "{t}: {} < {want}", q.time_per_element);
        prop_assert!(close(q.time_per_element, want, 0.02), "{t}: {} vs {want}", q.time_per_element);
        prop_assert_eq!(q.slowdown, 1.0);
    }

    /// Whatever the cores: never faster than the operators, nor than the
    /// cores can do the work; more cores never slower.
    #[test]
    fn bounded_by_the_operators_and_the_cores(t in strategies::shuffle_free_term(3), cores in 1usize..6) {
        let q = |c: usize| Queueing::new(&Machine::new(1, c)).at(&at()).of(&t).unwrap().time_per_element;
        let (few, more) = (q(cores), q(cores + 1));
        prop_assert!(few >= plain(&t) * (1.0 - 1e-9), "{t}");
        prop_assert!(few >= work(&t) / cores as f64 * (1.0 - 1e-9), "{t}: {few} < {}", work(&t) / cores as f64);
        prop_assert!(more <= few * (1.0 + 1e-9), "{t}: {more} > {few}");
    }
}

/// The queueing prediction with channels of 1000 places.
fn buffered(d: &Design, m: &Machine, at: &[(&str, f64)]) -> QueueingPrediction {
    Queueing::new(m).buffer(1000).at(at).of(d.term()).unwrap()
}

#[test]
fn threads_beyond_the_cores_share_them() {
    let d = Design::parse("a = 1000; tpool[n](a)").unwrap();
    let two = Machine::new(1, 2);
    let time = |n: f64| d.queueing(&two, &[("n", n)]).unwrap().time_per_element;
    assert!(close(time(1.0), 1000.0, 1e-12));
    assert!(close(time(2.0), 500.0, 1e-12));
    // Beyond 2 workers the cores are the limit: 500 ns per element.
    for n in [3.0, 4.0, 8.0, 64.0] {
        assert!(close(time(n), 500.0, 1e-9), "n = {n}: {}", time(n));
    }
    let p = d.queueing(&two, &[("n", 8.0)]).unwrap();
    assert!(close(p.slowdown, 4.0, 1e-9), "{}", p.slowdown);
    assert_eq!(p.population, 8 + 4);

    // Three equal stages on two cores: each runs at 2/3 speed.
    let d = Design::parse("a = 300; pipe(a, a, a)").unwrap();
    let p = buffered(&d, &Machine::new(1, 2), &[]);
    assert!(
        close(p.time_per_element, 450.0, 1e-6),
        "{}",
        p.time_per_element
    );
    // A slow stage and a fast one on one core: the core does both.
    let d = Design::parse("a = 3; b = 1; pipe(a, b)").unwrap();
    let p = buffered(&d, &Machine::new(1, 1), &[]);
    assert!(close(p.time_per_element, 4.0, 1e-6));
}

#[test]
fn the_shared_queue_and_the_hand_overs_are_stations() {
    // Taking from the pool's queue, 100 ns under its lock, caps the pool
    // at one element per 100 ns however many workers.
    let d = Design::parse("a = 1000; tpool[n](a)").unwrap();
    let m = Machine::new(1, 64).with_waiting(|w| w.take_ns(100.0));
    let time = |n: f64| buffered(&d, &m, &[("n", n)]).time_per_element;
    // Four workers of 1000 ns: the queue is busy 40 % of the time, and the
    // elements buffered in front of the pool hide its wait.
    assert!(close(time(4.0), 250.0, 1e-9), "{}", time(4.0));
    assert!(close(time(32.0), 100.0, 0.01), "{}", time(32.0));
    // A hand-over of 50 ns between two stages of 20 ns: the hand-over is
    // the bottleneck.
    let d = Design::parse("a = 20; pipe(a, a)").unwrap();
    let m = Machine::new(1, 8).with_waiting(|w| w.handoff_ns(50.0));
    assert!(close(buffered(&d, &m, &[]).time_per_element, 50.0, 1e-3));
}

#[test]
fn type_level_and_text_designs_agree() {
    type Typed = Pipe<Tpool<4, Qsort>, Inc>;
    let typed = design_of::<Typed>();
    let text = Design::from_term(<Typed as Pattern>::term()).unwrap();
    let two = Machine::new(1, 2).with_waiting(|w| w.handoff_ns(400.0).take_ns(150.0));
    let at = [("x", 16384.0)];
    let a = typed.queueing(&two, &at).unwrap();
    let b = text.queueing(&two, &at).unwrap();
    assert_eq!(a.time_per_element, b.time_per_element);
    // Four qsort workers on two cores: half the operators' speed-up.
    let plain = typed.model().eval(&at).unwrap();
    assert!(
        a.time_per_element > 1.9 * plain,
        "{} vs {plain}",
        a.time_per_element
    );
}

#[test]
fn bad_input_is_an_error() {
    let m = Machine::new(1, 2);
    let d = Design::parse("a = x; tpool[n](a)").unwrap();
    assert_eq!(
        d.queueing(&m, &[("x", 1.0)]).unwrap_err().to_string(),
        "the count `n` needs a value: bind it to a positive integer with `at`"
    );
    assert!(matches!(
        d.queueing(&m, &[("x", 1.0), ("n", 2.5)]),
        Err(QueueingError::Count { .. })
    ));
    assert!(matches!(
        d.queueing(&m, &[("n", 2.0)]),
        Err(QueueingError::Eval { .. })
    ));
    let d = Design::parse("a = x - 5; a").unwrap();
    assert_eq!(
        d.queueing(&m, &[("x", 1.0)]).unwrap_err().to_string(),
        "the model of `a` gives -4 ns at x = 1: a time is a finite number >= 0"
    );
    // A task group of more processors than the machine has nodes.
    let d = Design::parse("a = x; on[4](a)").unwrap();
    assert_eq!(
        d.queueing(&m, &[("x", 1.0)]).unwrap_err().to_string(),
        "the design asks for 4 nodes (`on[4](a)`), the machine has 1"
    );
    let d = Design::parse("a = x; a").unwrap();
    assert!(matches!(
        d.queueing(&Machine::new(1, 0), &[("x", 1.0)]),
        Err(QueueingError::Machine(_))
    ));
    assert!(matches!(
        d.queueing(
            &Machine::new(1, 1).with_waiting(|w| w.take_ns(f64::NAN)),
            &[("x", 1.0)]
        ),
        Err(QueueingError::Machine(_))
    ));
    // A design of no cost has no throughput to speak of.
    let d = Design::parse("a = 0; a").unwrap();
    assert!(d.queueing(&m, &[]).is_err());
}

#[test]
fn huge_pools_are_solved_approximately_and_quickly() {
    // 10^9 workers (10^9 elements in flight): beyond exact MVA's reach,
    // Schweitzer-Bard with Seidmann's multi-server stations answers.
    let d = Design::parse("a = 1000; pipe(tpool[1000000000](a), a)").unwrap();
    // One core for 2000 ns of work per element.
    let p = d.queueing(&Machine::new(1, 1), &[]).unwrap();
    assert!(
        close(p.time_per_element, 2000.0, 1e-9),
        "{}",
        p.time_per_element
    );
    // More cores: the second stage's one thread is the bottleneck.
    let p = d.queueing(&Machine::new(1, 8), &[]).unwrap();
    assert!(
        close(p.time_per_element, 1000.0, 1e-9),
        "{}",
        p.time_per_element
    );
    // The pool alone: its cores are the limit, 10^9 workers or not.
    let d = Design::parse("a = 1000; tpool[1000000000](a)").unwrap();
    let p = d.queueing(&Machine::new(1, 8), &[]).unwrap();
    assert!(
        close(p.time_per_element, 125.0, 1e-9),
        "{}",
        p.time_per_element
    );
}
