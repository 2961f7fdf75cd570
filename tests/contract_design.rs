//! A design's contract (issue 38, point 3): the time per element predicted
//! on a machine against recorded times, so the verdicts are exact; and the
//! executor as a source of times, checked for its shape, not its speed.

use pattern_core::contract::{Breach, Contract, ContractError, DesignRuns, Recorded, Source};
use pattern_core::exec::Kernels;
use pattern_core::machine::Machine;
use pattern_core::{Design, cost, design};

#[cost("3 * x")]
fn slow(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e = e.wrapping_mul(3));
}

#[cost("x")]
fn fast(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e = e.wrapping_add(1));
}

design!(type Stages = pipe(slow, fast));

fn sizes() -> Vec<usize> {
    (10..=16).map(|k| 1 << k).collect()
}

/// Times per element of `per_x · x`, 3 repetitions 1 % apart.
fn recorded(per_x: f64) -> Recorded {
    let times: Vec<(usize, Vec<f64>)> = sizes()
        .into_iter()
        .map(|x| {
            let t = per_x * x as f64;
            (x, vec![0.99 * t, t, 1.01 * t])
        })
        .collect();
    Recorded::from_times("runs", &times)
}

fn stages() -> Design {
    Stages::design()
}

#[test]
fn the_prediction_is_the_machines() {
    // On two cores the stages overlap: max(3x, x) = 3x per element (and
    // the hand-over between them); on one core they share it: 4x.
    let two = Contract::of_design("Stages", &stages(), &Machine::new(1, 2)).sizes(sizes());
    let one = Contract::of_design("Stages", &stages(), &Machine::new(1, 1)).sizes(sizes());
    let r = two.check(&mut recorded(3.0)).unwrap();
    assert!(r.holds(), "{r}");
    assert_eq!(
        r.annotated,
        "queueing on 1 node of 2 cores (operators' model 3·x)"
    );
    assert_eq!(r.annotated_class, "O(x)");
    assert!((r.ratios.median - 1.0).abs() < 0.01, "{r}");
    let r = one.check(&mut recorded(4.0)).unwrap();
    assert!(r.holds(), "{r}");
    assert!((r.ratios.median - 1.0).abs() < 0.01, "{r}");
    // Times of two cores judged against one core's prediction: 3/4.
    let r = one.check(&mut recorded(3.0)).unwrap();
    assert!(!r.holds());
    match r.verdict.breaches.as_slice() {
        [Breach::Faster { sizes, ratio, .. }] => {
            assert_eq!(*sizes, 7);
            assert!((ratio - 0.75).abs() < 0.01, "{r}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_count_left_symbolic_is_an_error() {
    let d = Design::parse("a = x; tpool[n](a)").unwrap();
    let e = Contract::of_design("pool", &d, &Machine::new(1, 2))
        .sizes(sizes())
        .check(&mut recorded(1.0))
        .unwrap_err();
    assert_eq!(
        e,
        ContractError::OtherVariable {
            function: "pool".into(),
            var: "n".into()
        }
    );
}

#[test]
fn the_executor_gives_a_time_per_element_per_run() {
    let kernels = Kernels::<Vec<i32>>::new()
        .add("slow", |v| slow(v))
        .add("fast", |v| fast(v));
    let mut built = Vec::new();
    let mut runs = DesignRuns::new(&stages(), &kernels, |x| {
        built.push(x);
        vec![1i32; x]
    })
    .runs(2)
    .elements(8);
    let m = runs.measure(&[4, 8, 16]).unwrap();
    let times: Vec<usize> = m.sizes().iter().map(|s| s.times_ns.len()).collect();
    assert_eq!(times, [2, 2, 2]);
    assert!(m.points().iter().all(|&(_, t)| t.is_finite() && t >= 0.0));
    // The sizes take turns, each run's elements built before it.
    let expected: Vec<usize> = [4, 8, 16, 4, 8, 16].iter().flat_map(|&x| [x; 8]).collect();
    drop(runs);
    assert_eq!(built, expected);
}
