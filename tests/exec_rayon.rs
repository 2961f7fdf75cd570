//! The rayon runner (feature `rayon`) runs designs as the executor does:
//! every element out exactly once and correct for each pattern, in order
//! where the pattern promises order, the same outputs as the executor on
//! random designs, the same errors on bad input. Small sizes, no timing
//! assertions.
use pattern_core::exec::{Cores, ExecError, Executor, Kernels, MAX_BUFFER, Rayon};
use pattern_core::{Design, Expr, Term, cost, design};
use proptest::prelude::*;

mod common;
use common::runs::*;

#[test]
fn every_element_comes_out_exactly_once_and_correct() {
    let kernels = arithmetic();
    for structure in [
        "seq(add1, slow, double)",
        "tpool[3](seq(add1, slow, double))",
        "pipe(add1, double)",
        "pipe(add1, slow, double)",
        "pipe(add1, slow, slow, double)",
        "pipe(tpool[2](seq(slow, add1)), double)",
        "pipe(add1, tpool[3](slow), double)",
        "tpool[2](pipe(add1, slow, double))",
        "tpool[2](tpool[2](seq(add1, double)))",
        "tpool[2](seq(tpool[2](add1), slow, double))",
        "seq(tpool[2](seq(slow, add1)), double)",
        "seq(add1, pipe(slow, double))",
        "pipe(seq(add1, tpool[2](slow)), double)",
        "seq(pipe(add1, slow), tpool[2](double))",
    ] {
        let run = Rayon::new(&kernels)
            .window(7)
            .run(design(structure).term(), numbers(300))
            .unwrap();
        let mut indices: Vec<usize> = run.outputs.iter().map(|(i, _)| *i).collect();
        indices.sort_unstable();
        assert_eq!(indices, (0..300).collect::<Vec<_>>(), "{structure}");
        assert_eq!(run.departures.len(), 300);
        for (i, v) in &run.outputs {
            assert_eq!(*v, (*i as i64 + 1) * 2, "{structure}: element {i}");
        }
        assert_eq!(run.metrics.elements, 300);
        assert!(
            run.metrics.max_in_flight <= run.metrics.threads,
            "{structure}"
        );
        assert_eq!(
            run.metrics.threads as f64,
            design(structure).resources().threads.eval(&[]).unwrap(),
            "{structure}: threads as the model counts them"
        );
        let times = &run.departures;
        assert!(times.windows(2).all(|w| w[0].leave_ns <= w[1].leave_ns));
        assert!(times.iter().all(|d| d.enter_ns <= d.leave_ns));
    }
}

#[test]
fn a_single_atom_runs_on_every_element() {
    let kernels = arithmetic();
    let run = Rayon::new(&kernels)
        .run(design("add1").term(), numbers(10))
        .unwrap();
    assert!(run.kept_order());
    assert_eq!(run.metrics.max_in_flight, 1);
    assert_eq!(run.into_input_order(), (1..11).collect::<Vec<_>>());
    let empty = Rayon::new(&kernels)
        .run(design("pipe(add1, double)").term(), Vec::new())
        .unwrap();
    assert!(empty.outputs.is_empty());
}

#[test]
fn order_is_kept_where_the_pattern_promises_it() {
    let kernels = arithmetic();
    for structure in [
        "seq(slow, add1)",
        "pipe(slow, add1)",
        "pipe(add1, slow, double)",
        "pipe(pipe(slow, add1), pipe(slow, double))",
        "tpool[1](pipe(slow, add1))",
        "seq(tpool[1](slow), pipe(add1, slow))",
    ] {
        let run = Rayon::new(&kernels)
            .capacity(1)
            .run(design(structure).term(), numbers(200))
            .unwrap();
        assert!(run.kept_order(), "{structure}");
    }
}

#[test]
fn a_task_pool_runs_as_many_tasks_at_once_as_it_has_workers() {
    for (workers, structure) in [
        (2, "tpool[2](meet)"),
        (3, "tpool[3](meet)"),
        (2, "pipe(add1, tpool[2](meet))"),
    ] {
        let kernels = arithmetic().add("meet", rendezvous(workers));
        let run = Rayon::new(&kernels)
            .run(design(structure).term(), numbers(24))
            .unwrap();
        assert!(run.metrics.max_in_flight >= workers, "{structure}");
        assert_eq!(run.metrics.elements, 24);
    }
}

#[test]
fn pinned_threads_run_on_the_cores_the_rule_gives() {
    let cores = Cores::of_current_thread();
    let ids = cores.ids();
    if ids.is_empty() {
        return; // the system does not support affinity
    }
    let kernels = Kernels::new()
        .add("a", record_core(0))
        .add("b", record_core(1))
        .add("c", record_core(2));
    let core = |thread: usize| ids[cores.core_of_thread(thread)];
    // Threads by the text: a's two workers are 0 and 1, b is 2, c is 3.
    let run = Rayon::new(&kernels)
        .pin_threads(true)
        .run(
            design("pipe(tpool[2](a), pipe(b, c))").term(),
            vec![vec![0; 3]; 40],
        )
        .unwrap();
    for (_, v) in &run.outputs {
        assert!(v[0] == core(0) || v[0] == core(1), "a ran on {}", v[0]);
        assert_eq!((v[1], v[2]), (core(2), core(3)));
    }
    // At the top: a pool over the input, then a step on thread 0.
    let run = Rayon::new(&kernels)
        .pin_threads(true)
        .run(design("seq(tpool[2](a), b)").term(), vec![vec![0; 3]; 40])
        .unwrap();
    for (_, v) in &run.outputs {
        assert!(v[0] == core(0) || v[0] == core(1), "a ran on {}", v[0]);
        assert_eq!(v[1], core(0));
    }
}

fn expected(job: &Histogram) -> Vec<(usize, u64)> {
    let mut h = vec![0u64; 256];
    job.images
        .iter()
        .flatten()
        .for_each(|&b| h[b as usize] += 1);
    h.into_iter().enumerate().filter(|(_, c)| *c > 0).collect()
}

#[test]
fn map_reduce_maps_on_n_threads_and_counts_right() {
    let text = "hmap = 1e4; hshuffle = 10*x; hreduce = x;
                mapreduce[m = 1, n = 3, d = x, k = 97](hmap, hshuffle, hreduce)";
    let d = Design::parse(text).unwrap();
    let kernels = histogram_kernels(3);
    let input = jobs(4, 20);
    let want: Vec<_> = input.iter().map(expected).collect();
    let run = Rayon::new(&kernels).run(d.term(), input).unwrap();
    assert_eq!(run.metrics.max_in_flight, 3);
    assert_eq!(run.metrics.threads, 3);
    assert!(run.kept_order());
    for (job, want) in run.into_input_order().iter().zip(&want) {
        assert_eq!(&job.counts, want);
    }
}

#[test]
fn map_reduce_runs_inside_pipelines_and_phases() {
    // (structure, whether the images are cleared before the mapReduce)
    let mr = "mapreduce[n = 2, d = x, k = 97](hmap, s, hreduce)";
    for (structure, cleared_first) in [
        (format!("pipe({mr}, clear)"), false),
        (format!("seq({mr}, clear)"), false),
        (format!("pipe(clear, {mr})"), true),
        (format!("seq(pipe({mr}, clear), tpool[2](clear))"), false),
        (format!("pipe(tpool[2](clear), {mr})"), true),
    ] {
        let d = Design::parse(&format!(
            "hmap = 1; s = 1; hreduce = 1; clear = 1; {structure}"
        ))
        .unwrap();
        let kernels = histogram_kernels(0);
        let input = jobs(6, 8);
        let want: Vec<_> = input
            .iter()
            .map(|j| {
                if cleared_first {
                    Vec::new()
                } else {
                    expected(j)
                }
            })
            .collect();
        let run = Rayon::new(&kernels).window(4).run(d.term(), input).unwrap();
        assert_eq!(run.outputs.len(), 6, "{structure}");
        for (job, want) in run.into_input_order().iter().zip(&want) {
            assert_eq!(&job.counts, want, "{structure}");
        }
    }
}

#[test]
fn bad_input_gives_the_executors_errors() {
    let kernels = Kernels::new().add("add1", |v: &mut i64| *v += 1);
    for structure in [
        "pipe(add1, double)",
        "tpool[n](add1)",
        "tpool[5000](add1)",
        "on[2](add1)",
        "on[64](par[16, 48](add1, add1))",
        "on[8](seq[redist = 2](add1, add1))",
    ] {
        let d = Design::parse(&format!("add1 = x; double = x; {structure}")).unwrap();
        let ours = Rayon::new(&kernels).run(d.term(), numbers(3)).unwrap_err();
        let theirs = Executor::new(&kernels)
            .run(d.term(), numbers(3))
            .unwrap_err();
        assert_eq!(ours, theirs, "{structure}");
        assert_eq!(Rayon::new(&kernels).threads(d.term()).unwrap_err(), theirs);
    }
    let d = design("tpool[n](add1)");
    let run = Rayon::new(&kernels)
        .bind("n", 3)
        .run(d.term(), numbers(9))
        .unwrap();
    assert_eq!(run.metrics.threads, 3);
    assert_eq!(Rayon::new(&kernels).bind("n", 3).threads(d.term()), Ok(3));

    let hk = histogram_kernels(0);
    for text in [
        "mapreduce[m = 2, n = 2, d = x, k = 97](hmap, s, hreduce)",
        "mapreduce[n = 2, d = x, k = 97](hreduce, s, hmap)",
        "tpool[2](hmap)",
    ] {
        let d = Design::parse(&format!("hmap = 1; s = 1; hreduce = 1; {text}")).unwrap();
        let ours = Rayon::new(&hk).run(d.term(), jobs(1, 2)).unwrap_err();
        let theirs = Executor::new(&hk).run(d.term(), jobs(1, 2)).unwrap_err();
        assert_eq!(ours, theirs, "{text}");
    }
}

#[test]
fn options_out_of_range_are_invalid() {
    let kernels = arithmetic();
    let d = design("pipe(add1, double)");
    let runs = [
        Rayon::new(&kernels).capacity(0),
        Rayon::new(&kernels).capacity(MAX_BUFFER + 1),
        Rayon::new(&kernels).window(0),
        Rayon::new(&kernels).window(MAX_BUFFER + 1),
        Rayon::new(&kernels).steady_state_trim(0.6),
        Rayon::new(&kernels).steady_state_trim(f64::NAN),
    ];
    for runner in runs {
        let err = runner.run(d.term(), numbers(3)).unwrap_err();
        assert!(matches!(err, ExecError::InvalidOption(_)), "{err}");
    }
    assert!(
        Rayon::new(&kernels)
            .capacity(MAX_BUFFER)
            .run(d.term(), numbers(3))
            .is_ok()
    );
}

#[test]
fn a_panicking_kernel_stops_the_run_with_an_error() {
    let kernels = arithmetic().add("boom", |v: &mut i64| {
        if *v == 41 {
            panic!("no 41s here");
        }
    });
    for structure in [
        "boom",
        "seq(add1, boom)",
        "pipe(add1, boom)",
        "tpool[3](seq(add1, boom))",
        "pipe(tpool[2](boom), double, add1)",
        "seq(tpool[2](boom), add1)",
        "tpool[2](pipe(boom, add1))",
        "pipe(add1, tpool[2](pipe(slow, boom)))",
    ] {
        let d = Design::parse(&format!(
            "add1 = x; double = x; slow = x; boom = x; {structure}"
        ))
        .unwrap();
        let err = Rayon::new(&kernels)
            .capacity(1)
            .run(d.term(), numbers(500))
            .unwrap_err();
        assert_eq!(
            err,
            ExecError::KernelPanicked {
                atom: "boom".into(),
                message: "no 41s here".into()
            },
            "{structure}"
        );
    }
    let hk = histogram_kernels(0).add_reduce("bad", |key, _: &[u64]| {
        assert!(key != 5, "key 5");
        0
    });
    let d =
        Design::parse("hmap = 1; s = 1; bad = 1; mapreduce[n = 2, d = x, k = 97](hmap, s, bad)")
            .unwrap();
    let err = Rayon::new(&hk).run(d.term(), jobs(3, 4)).unwrap_err();
    assert!(
        matches!(&err, ExecError::KernelPanicked { atom, .. } if atom == "bad"),
        "{err}"
    );
}

#[test]
fn a_deep_chain_runs_on_a_small_stack() {
    const DEPTH: usize = 100_000;
    let outputs = common::on_small_stack(|| {
        let inc = || Term::atom("inc", Expr::var("x"));
        let mut t = inc();
        for _ in 0..DEPTH {
            t = Term::seq(inc(), t);
        }
        let kernels = Kernels::<u64>::new().add("inc", |v| *v += 1);
        Rayon::new(&kernels)
            .run(&t, vec![0, 10])
            .unwrap()
            .into_input_order()
    });
    let steps = DEPTH as u64 + 1;
    assert_eq!(outputs, [steps, 10 + steps]);
}

// Annotated functions and designs written with the macros run as they are.
#[cost("1034.17 * x * log2(x)")]
fn sort(v: &mut [i32]) {
    v.sort_unstable();
}

#[cost("536.185 * x")]
fn bump(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e += 1);
}

design!(type Sorter = pipe(tpool[2](sort), bump));

#[test]
fn designs_written_with_the_macros_run() {
    let kernels = Kernels::<Vec<i32>>::new()
        .add("sort", |v| sort(v))
        .add("bump", |v| bump(v));
    let inputs: Vec<Vec<i32>> = (0..30).map(|i| vec![i, -i, 7, 0]).collect();
    let run = Rayon::new(&kernels).run_design::<Sorter>(inputs).unwrap();
    assert_eq!(run.metrics.threads, 3);
    for (i, v) in run.into_input_order().into_iter().enumerate() {
        let i = i as i32;
        let mut want = vec![i + 1, -i + 1, 8, 1];
        want.sort_unstable();
        assert_eq!(v, want);
    }
    let value = design!(tpool[2](seq(sort, bump)));
    let run = Rayon::new(&kernels)
        .run(value.term(), vec![vec![3, 2, 1]; 4])
        .unwrap();
    assert_eq!(run.into_input_order(), vec![vec![2, 3, 4]; 4]);
}

/// Small designs of element kernels: `seq`, `pipe` and `tpool[1..=3]` at
/// most three deep over a few atoms.
fn small_design() -> impl Strategy<Value = Term> {
    let atom = prop::sample::select(vec!["add1", "double", "slow", "square"])
        .prop_map(|name| Term::atom(name, Expr::var("x")));
    atom.prop_recursive(3, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(|parts| parts.into_iter().reduce(Term::seq).unwrap()),
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(|parts| parts.into_iter().reduce(Term::pipe).unwrap()),
            (1u64..=3, inner).prop_map(|(n, t)| Term::tpool(n, t)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(32)))]

    /// On random small designs, the rayon runner and the executor give
    /// every element the same value.
    #[test]
    fn the_rayon_runner_and_the_executor_agree(
        term in small_design(),
        count in 0i64..60,
        window in 1usize..9,
    ) {
        let kernels = arithmetic().add("square", |v: &mut i64| *v = v.wrapping_mul(*v).rem_euclid(1_000_003));
        let inputs = numbers(count);
        let ours = Rayon::new(&kernels).window(window).run(&term, inputs.clone()).unwrap();
        let theirs = Executor::new(&kernels).window(window).run(&term, inputs).unwrap();
        prop_assert_eq!(ours.metrics.threads, theirs.metrics.threads);
        prop_assert_eq!(ours.into_input_order(), theirs.into_input_order());
    }
}
