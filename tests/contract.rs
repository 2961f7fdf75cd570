//! The checker's verdicts on recorded timings (issue 38): synthetic
//! measurements of known functions with seeded noise, so every verdict is
//! exact and no test depends on the clock.

use pattern_core::contract::{
    Breach, ClassOrder, Contract, ContractError, Recorded, Report, Source,
};
use pattern_core::fit::measure::Measurement;
use pattern_core::{Expr, cost, cost_of};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Sorts; the annotation this machine's qsort has (about).
#[cost("1.2 * x * log2(x)")]
fn qsort(mut v: Vec<i32>) -> Vec<i32> {
    v.sort_unstable();
    v
}

/// The same sort, annotated with the coefficient 2x too high.
#[cost("2.4 * x * log2(x)")]
fn qsort_twice(v: Vec<i32>) -> Vec<i32> {
    qsort(v)
}

/// The same sort, annotated linear: the class too low.
#[cost("18 * x")]
fn qsort_linear(v: Vec<i32>) -> Vec<i32> {
    qsort(v)
}

/// A linear pass, annotated `x·log₂x`: the class too high.
#[cost("1.2 * x * log2(x)")]
fn inc_as_sort(v: Vec<i32>) -> Vec<i32> {
    v.into_iter().map(|e| e + 1).collect()
}

/// 2^10 to 2^20, one size per doubling.
fn sizes() -> Vec<usize> {
    (10..=20).map(|k| 1usize << k).collect()
}

/// `reps` timings of `f` at every size, each off by a seeded factor
/// uniform in `1 ± noise`.
fn recorded(f: impl Fn(f64) -> f64, noise: f64, reps: usize, seed: u64) -> Recorded {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let times: Vec<(usize, Vec<f64>)> = sizes()
        .into_iter()
        .map(|x| {
            let t = f(x as f64);
            let reps = (0..reps)
                .map(|_| t * (1.0 + rng.random_range(-noise..=noise)))
                .collect();
            (x, reps)
        })
        .collect();
    Recorded::from_times("recorded", &times)
}

fn sort_time(x: f64) -> f64 {
    1.2 * x * x.log2()
}

fn check(contract: Contract, source: &mut Recorded) -> Report {
    contract
        .sizes(sizes())
        .tolerance(0.25)
        .check(source)
        .unwrap()
}

#[test]
fn a_right_annotation_holds() {
    let r = check(
        Contract::new(cost_of!(qsort)),
        &mut recorded(sort_time, 0.02, 5, 1),
    );
    assert!(r.holds(), "{r}");
    assert!(r.verdict.breaches.is_empty());
    assert_eq!(r.class, ClassOrder::Same);
    assert_eq!(r.annotated_class, "O(x·log₂x)");
    assert_eq!(r.fitted_class, "O(x·log₂x)");
    assert!(
        (r.ratios.min - 1.0).abs() < 0.02 && (r.ratios.max - 1.0).abs() < 0.02,
        "{r}"
    );
    assert_eq!(r.points.len(), 11);
    assert_eq!(r.points[0].x, 1024);
    assert_eq!(r.points[0].repetitions, 5);
    // The suggestion is an annotation `#[cost]` reads: its model is within
    // the noise of the truth.
    let pasted = r
        .suggestion
        .strip_prefix("#[cost(\"")
        .unwrap()
        .strip_suffix("\")]")
        .unwrap();
    let model = Expr::parse(pasted).unwrap();
    let at = model.eval(&[("x", 65536.0)]).unwrap();
    assert!((at / sort_time(65536.0) - 1.0).abs() < 0.02, "{pasted}");
}

#[test]
fn a_coefficient_twice_too_high_fails_at_every_size() {
    let r = check(
        Contract::new(cost_of!(qsort_twice)),
        &mut recorded(sort_time, 0.02, 5, 2),
    );
    assert!(!r.holds());
    assert_eq!(r.class, ClassOrder::Same);
    match r.verdict.breaches.as_slice() {
        [Breach::Faster { ratio, sizes, .. }] => {
            assert_eq!(*sizes, 11);
            assert!((ratio - 0.5).abs() < 0.02, "{r}");
        }
        other => panic!("{other:?}"),
    }
    assert!((r.ratios.median - 0.5).abs() < 0.01, "{r}");
}

#[test]
fn a_class_too_low_fails_on_the_class_and_the_ratio() {
    let r = check(
        Contract::new(cost_of!(qsort_linear)),
        &mut recorded(sort_time, 0.02, 5, 3),
    );
    assert!(!r.holds());
    assert_eq!(r.class, ClassOrder::Higher);
    assert!(!r.class_within_noise);
    // 18·x is 1.2·x·log₂x at x = 2^15: 1024 and 2048 too fast, 2^19
    // and 2^20 too slow.
    let [class, slower, faster] = r.verdict.breaches.as_slice() else {
        panic!("{r}");
    };
    assert_eq!(
        *class,
        Breach::ClassHigher {
            annotated: "O(x)".into(),
            measured: "O(x·log₂x)".into()
        }
    );
    assert!(
        matches!(
            slower,
            Breach::Slower {
                x: 1_048_576,
                sizes: 2,
                ..
            }
        ),
        "{r}"
    );
    assert!(
        matches!(
            faster,
            Breach::Faster {
                x: 1024,
                sizes: 2,
                ..
            }
        ),
        "{r}"
    );
    assert!((r.ratios.first - 10.0 / 15.0).abs() < 0.02, "{r}");
    assert!((r.ratios.last - 20.0 / 15.0).abs() < 0.03, "{r}");
    assert!(
        r.to_string()
            .contains("grows as O(x·log₂x), faster than the annotated O(x)"),
        "{r}"
    );
}

#[test]
fn a_class_too_high_is_pessimistic_and_fails_on_the_ratio() {
    // 14·x against 1.2·x·log₂x: 1.17 at 2^10, 0.58 at 2^20.
    let r = check(
        Contract::new(cost_of!(inc_as_sort)),
        &mut recorded(|x| 14.0 * x, 0.02, 5, 4),
    );
    assert!(!r.holds());
    assert_eq!(r.class, ClassOrder::Lower);
    assert_eq!(r.fitted_class, "O(x)");
    match r.verdict.breaches.as_slice() {
        [Breach::Faster { x, sizes, ratio }] => {
            assert_eq!((*x, *sizes), (1 << 20, 6));
            assert!((ratio - 14.0 / 24.0).abs() < 0.02, "{r}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn noisy_timings_within_the_tolerance_hold() {
    // ±20 % per repetition, 9 repetitions: the medians stay within 25 %.
    for seed in 0..20 {
        let r = check(
            Contract::new(cost_of!(qsort)),
            &mut recorded(sort_time, 0.2, 9, 100 + seed),
        );
        assert!(r.holds(), "seed {seed}: {r}");
        assert!(r.ratios.max <= 1.25 && r.ratios.min >= 0.8, "{r}");
        assert!(
            r.points.iter().any(|p| p.max_ns / p.annotated_ns > 1.1),
            "{r}"
        );
    }
}

#[test]
fn the_report_reads_back_exactly_and_draws() {
    let r = check(
        Contract::new(cost_of!(qsort_linear)),
        &mut recorded(sort_time, 0.05, 5, 5),
    );
    let json = r.to_json();
    assert_eq!(Report::from_json(&json).unwrap(), r);
    assert!(json.contains("\"breach\": \"class_higher\""), "{json}");
    let text = r.to_string();
    assert!(
        text.starts_with(
            "cost contract of `qsort_linear`, tolerance ±25 %: FAILS\n  - grows as O(x·log₂x), faster than the annotated O(x)\n"
        ),
        "{text}"
    );
    assert!(text.contains("to paste: #[cost(\""), "{text}");
    assert_eq!(text.lines().count(), 6 + 3 + 11);
    let svg = r.svg().unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(
        svg.contains("annotated: 18·x") && svg.contains("measured: median"),
        "{svg}"
    );
}

#[test]
fn bad_input_is_an_error() {
    let contract = || Contract::new(cost_of!(qsort));
    let mut source = recorded(sort_time, 0.02, 3, 6);
    let err = |c: Contract, s: &mut Recorded| c.check(s).unwrap_err();
    assert_eq!(err(contract(), &mut source), ContractError::TooFewSizes(0));
    assert_eq!(
        err(contract().sizes([1024, 2048, 2048]), &mut source),
        ContractError::TooFewSizes(2)
    );
    assert_eq!(
        err(contract().sizes([0, 1024, 2048]), &mut source),
        ContractError::ZeroSize
    );
    for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = err(contract().sizes(sizes()).tolerance(t), &mut source);
        assert!(matches!(e, ContractError::Tolerance(_)), "{e}");
    }
    assert_eq!(
        err(contract().sizes([1024, 2048, 3000]), &mut source),
        ContractError::MissingSize(3000)
    );
    let e = err(
        Contract::of_model("pool", Expr::parse("x / n").unwrap()).sizes(sizes()),
        &mut source,
    );
    assert_eq!(
        e.to_string(),
        "the annotation of `pool` depends on `n` besides x: a check measures one size; annotate the function in x alone"
    );
    let e = err(
        Contract::of_model("neg", Expr::parse("1000 - x").unwrap()).sizes(sizes()),
        &mut source,
    );
    assert_eq!(
        e.to_string(),
        "the annotation of `neg` is -24 ns at x = 1024: it must be positive"
    );
    let mut nan = Recorded::from_times(
        "t",
        &[
            (2, vec![1.0]),
            (3, vec![f64::NAN]),
            (4, vec![]),
            (5, vec![2.0]),
        ],
    );
    assert_eq!(
        err(contract().sizes([2, 3, 4]), &mut nan).to_string(),
        "a timing of NaN ns at x = 3: timings are finite and non-negative"
    );
    assert_eq!(
        err(contract().sizes([2, 4, 5]), &mut nan),
        ContractError::NoTimings(4)
    );
}

/// A source that records what it was asked: the sizes reach it distinct
/// and ascending, whatever order they were given in.
#[test]
fn a_source_gets_the_sizes_sorted() {
    struct Asked(Vec<usize>);
    impl Source for Asked {
        fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError> {
            self.0 = sizes.to_vec();
            recorded(sort_time, 0.0, 1, 7).measure(sizes)
        }
    }
    let mut asked = Asked(Vec::new());
    let r = Contract::new(cost_of!(qsort))
        .sizes([1 << 12, 1 << 10, 1 << 11, 1 << 10])
        .check(&mut asked)
        .unwrap();
    assert_eq!(asked.0, [1024, 2048, 4096]);
    assert!(r.holds(), "{r}");
    assert_eq!(r.tolerance, pattern_core::contract::DEFAULT_TOLERANCE);
}

/// The annotated functions are real ones (the checks above read only their
/// annotations).
#[test]
fn the_annotated_functions_run() {
    let v = vec![3, 1, 2];
    assert_eq!(qsort(v.clone()), [1, 2, 3]);
    assert_eq!(qsort_twice(v.clone()), [1, 2, 3]);
    assert_eq!(qsort_linear(v.clone()), [1, 2, 3]);
    assert_eq!(inc_as_sort(v), [4, 2, 3]);
}

/// A source whose n-th measurement is `factors[n]` times the right time
/// (load that comes and goes), counting its measurements.
struct Loaded {
    factors: Vec<f64>,
    calls: usize,
}

impl Source for Loaded {
    fn measure(&mut self, sizes: &[usize]) -> Result<Measurement, ContractError> {
        let factor = self.factors[self.calls.min(self.factors.len() - 1)];
        self.calls += 1;
        recorded(|x| factor * sort_time(x), 0.02, 5, 8).measure(sizes)
    }
}

#[test]
fn a_failed_verdict_is_measured_again() {
    let contract = || Contract::new(cost_of!(qsort)).sizes(sizes());
    // Slowed down 1.6x the first time, calm the second: holds at the second.
    let mut source = Loaded {
        factors: vec![1.6, 1.0],
        calls: 0,
    };
    let r = contract().check(&mut source).unwrap();
    assert!(r.holds(), "{r}");
    assert_eq!((r.attempts, source.calls), (2, 2));
    assert!(
        r.to_string().contains(": holds (measured 2 times)\n"),
        "{r}"
    );
    // One attempt only: the load fails it.
    let mut source = Loaded {
        factors: vec![1.6, 1.0],
        calls: 0,
    };
    let r = contract().attempts(0).check(&mut source).unwrap();
    assert!(!r.holds());
    assert_eq!((r.attempts, source.calls), (1, 1));
    // Always wrong: measured 3 times, fails.
    let mut source = Loaded {
        factors: vec![2.0],
        calls: 0,
    };
    let r = contract().check(&mut source).unwrap();
    assert!(!r.holds());
    assert_eq!((r.attempts, source.calls), (3, 3));
    // Recorded timings replay: judged once.
    let r = check(
        Contract::new(cost_of!(qsort_twice)),
        &mut recorded(sort_time, 0.02, 5, 2),
    );
    assert_eq!(r.attempts, 1);
}

/// A higher class that the timings cannot tell from the annotated one (a
/// model of the annotated class fits within their noise) is no breach.
#[test]
fn a_higher_class_within_the_noise_is_no_breach() {
    // x·log₂x measured over 1.3 doublings with ±5 % noise, annotated
    // linear at its level: the fits scatter over the classes (in 40 seeds,
    // 18 higher within the noise, 7 higher beyond it, 13 lower, 2 same).
    let narrow = [8192, 10240, 12288, 14336, 16384, 18432, 20480];
    let mut within = 0;
    for seed in 0..40 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let times: Vec<(usize, Vec<f64>)> = narrow
            .iter()
            .map(|&x| {
                let t = sort_time(x as f64);
                let reps = (0..5).map(|_| t * (1.0 + rng.random_range(-0.05..=0.05)));
                (x, reps.collect())
            })
            .collect();
        let r = Contract::of_model("sort", Expr::parse("18 * x").unwrap())
            .sizes(narrow)
            .check(&mut Recorded::from_times("sort", &times))
            .unwrap();
        let class_breach = r
            .verdict
            .breaches
            .iter()
            .any(|b| matches!(b, Breach::ClassHigher { .. }));
        assert_eq!(
            class_breach,
            r.class == ClassOrder::Higher && !r.class_within_noise,
            "{r}"
        );
        within += usize::from(r.class == ClassOrder::Higher && r.class_within_noise);
    }
    assert_eq!(within, 18);
}
