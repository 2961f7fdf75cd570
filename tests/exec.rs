//! The executor runs designs for real: parallel where the pattern says so
//! (tasks in flight reach the pool size), every element out exactly once and
//! correct, in order where the pattern promises order; bad input gives clear
//! errors. Small sizes, no timing assertions.
use pattern_core::exec::{Cores, ExecError, Executor, Job, Kernels, MAX_SPIN, Warning};
use pattern_core::fit::measure::thread_cpu_ns;
use pattern_core::{Design, Term, cost, design};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

mod common;
use common::runs::*;

#[test]
fn a_task_pool_runs_as_many_tasks_at_once_as_it_has_workers() {
    for workers in [1, 2, 4] {
        let kernels = Kernels::new().add("meet", rendezvous(workers));
        let d = design(&format!("tpool[{workers}](meet)"));
        let run = Executor::new(&kernels).run(d.term(), numbers(24)).unwrap();
        assert_eq!(run.metrics.max_in_flight, workers, "tpool[{workers}]");
        assert_eq!(run.metrics.threads, workers);
        assert_eq!(run.metrics.elements, 24);
    }
}

#[test]
fn pipeline_stages_work_on_different_elements_at_once() {
    // Stage a's second call waits until stage b runs; stage b's first call
    // waits until a's second one runs: both in flight together.
    let a_second = Arc::new(AtomicBool::new(false));
    let b_running = Arc::new(AtomicBool::new(false));
    let a_calls = Arc::new(AtomicUsize::new(0));
    let (a2, b1) = (a_second.clone(), b_running.clone());
    let (a3, b3) = (a_second.clone(), b_running.clone());
    let kernels = Kernels::new()
        .add("a", move |_: &mut i64| {
            if a_calls.fetch_add(1, Ordering::SeqCst) == 1 {
                a2.store(true, Ordering::SeqCst);
                wait_until(|| b1.load(Ordering::SeqCst));
            }
        })
        .add("b", move |_: &mut i64| {
            if !b3.swap(true, Ordering::SeqCst) {
                wait_until(|| a3.load(Ordering::SeqCst));
            }
        });
    let run = Executor::new(&kernels)
        .run(design("pipe(a, b)").term(), numbers(10))
        .unwrap();
    assert_eq!(run.metrics.max_in_flight, 2);
    assert_eq!(run.metrics.threads, 2);
    assert!(run.kept_order());
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
    // Threads by the text: a's two workers are 0 and 1, b is 2, c is 3.
    let d = design("pipe(tpool[2](a), pipe(b, c))");
    let run = Executor::new(&kernels)
        .pin_threads(true)
        .run(d.term(), vec![vec![0; 3]; 40])
        .unwrap();
    let core = |thread: usize| ids[cores.core_of_thread(thread)];
    let mut seen_a: Vec<usize> = run.outputs.iter().map(|(_, v)| v[0]).collect();
    seen_a.sort_unstable();
    seen_a.dedup();
    for got in &seen_a {
        assert!(*got == core(0) || *got == core(1), "a ran on {got}");
    }
    assert!(
        run.outputs
            .iter()
            .all(|(_, v)| v[1] == core(2) && v[2] == core(3))
    );
    // Unpinned, the threads keep the caller's cores.
    let run = Executor::new(&kernels)
        .run(d.term(), vec![vec![0; 3]; 4])
        .unwrap();
    let expect = if ids.len() == 1 { ids[0] } else { usize::MAX };
    assert!(
        run.outputs
            .iter()
            .all(|(_, v)| v.iter().all(|&c| c == expect))
    );
}

#[test]
fn a_sequence_runs_one_task_at_a_time() {
    let kernels = Kernels::new()
        .add("add1", |v: &mut i64| *v += 1)
        .add("double", |v: &mut i64| *v *= 2);
    let run = Executor::new(&kernels)
        .run(design("seq(add1, double, add1)").term(), numbers(50))
        .unwrap();
    assert_eq!(run.metrics.max_in_flight, 1);
    assert_eq!(run.metrics.threads, 1);
    assert!(run.kept_order());
    assert_eq!(
        run.into_input_order(),
        (0..50).map(|v| (v + 1) * 2 + 1).collect::<Vec<_>>()
    );
}

#[test]
fn every_element_comes_out_exactly_once_and_correct() {
    let kernels = arithmetic();
    for structure in [
        "tpool[3](seq(add1, slow, double))",
        "pipe(tpool[2](seq(slow, add1)), double)",
        "tpool[2](pipe(add1, slow, double))",
        "pipe(add1, tpool[3](slow), double)",
        "seq(tpool[2](seq(slow, add1)), double)",
        "seq(add1, pipe(slow, double))",
        "pipe(seq(add1, tpool[2](slow)), double)",
    ] {
        let run = Executor::new(&kernels)
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
    }
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
        let run = Executor::new(&kernels)
            .capacity(1)
            .run(design(structure).term(), numbers(200))
            .unwrap();
        assert!(run.kept_order(), "{structure}");
        let times = &run.departures;
        assert!(times.windows(2).all(|w| w[0].leave_ns <= w[1].leave_ns));
        assert!(times.iter().all(|d| d.enter_ns <= d.leave_ns));
    }
}

/// The least-squares slope of `values` over their ranks: `Σ (i − mid)·v_i`
/// over `Σ (i − mid)² = n(n² − 1)/12` (the metrics centre the values
/// first; the two agree to rounding).
fn slope_over_ranks(values: &[f64]) -> f64 {
    let (n, mid) = (values.len() as f64, (values.len() as f64 - 1.0) / 2.0);
    let weighted: f64 = values
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64 - mid) * v)
        .sum();
    weighted / (n * (n * n - 1.0) / 12.0)
}

#[test]
fn metrics_are_consistent() {
    // Only what follows from the departures holds under any load: the
    // metrics are recomputed from them, not compared with durations.
    let kernels = arithmetic();
    let run = Executor::new(&kernels)
        .run(design("pipe(slow, add1)").term(), numbers(100))
        .unwrap();
    let m = &run.metrics;
    assert_eq!(m.elements, 100);
    assert_eq!(m.steady_elements, 80);
    assert_eq!(run.departures.len(), 100);
    // The steady window: the departures of ranks 10..=89, in time order.
    let leaves: Vec<f64> = run.departures.iter().map(|d| d.leave_ns).collect();
    assert!(leaves.windows(2).all(|w| w[0] <= w[1]), "{leaves:?}");
    let t = m.inter_departure_ns.unwrap();
    let want = slope_over_ranks(&leaves[10..90]);
    assert!(t.is_finite() && t >= 0.0, "{t}");
    assert!((t - want).abs() <= 1e-9 * want.max(1.0), "{t} vs {want}");
    // Latencies: the median and the largest of leave − enter.
    let mut latencies: Vec<f64> = run
        .departures
        .iter()
        .map(|d| d.leave_ns - d.enter_ns)
        .collect();
    assert!(latencies.iter().all(|l| l.is_finite() && *l >= 0.0));
    latencies.sort_by(f64::total_cmp);
    assert_eq!(m.latency_ns, Some((latencies[49] + latencies[50]) / 2.0));
    assert_eq!(m.latency_max_ns, Some(latencies[99]));
    assert_eq!(m.makespan_ns, run.departures.last().unwrap().leave_ns);
    // An empty stream is fine.
    let empty = Executor::new(&kernels)
        .run(design("pipe(slow, add1)").term(), Vec::new())
        .unwrap();
    assert_eq!(empty.metrics.elements, 0);
    assert_eq!(empty.metrics.inter_departure_ns, None);
}

/// How far a thread's CPU time may run ahead of its wall time: the CPU
/// clock is read last, after the wall clock stopped.
const READ_NS: f64 = 100e3;

#[test]
fn every_thread_accounts_for_its_time() {
    // Stage a sleeps 3 ms per element: the guest sees it asleep, not
    // running, not waiting for a core, and not blocked on a channel, so the
    // accounting counts it as stolen (a kernel should compute, not sleep).
    // Stage b waits on its channel (blocking at once: no spin); stage a
    // starts on element k only once b is done with element k − 1, so b
    // finds its channel empty. What is asserted holds however loaded the
    // machine is: the identities of the accounting and where the sleep
    // goes, not shares of the time.
    const SLEEP_NS: f64 = 10.0 * 3e6;
    let b_done = Arc::new(AtomicUsize::new(0));
    let done = Arc::clone(&b_done);
    let kernels = Kernels::new()
        .add("a", move |v: &mut i64| {
            let k = *v as usize;
            wait_until(|| done.load(Ordering::SeqCst) >= k);
            std::thread::sleep(Duration::from_millis(3))
        })
        .add("b", move |v: &mut i64| {
            *v += 1;
            b_done.fetch_add(1, Ordering::SeqCst);
        });
    let run = Executor::new(&kernels)
        .spin(Duration::ZERO)
        .pin_threads(true)
        .run(design("pipe(a, b)").term(), numbers(10))
        .unwrap();
    let m = &run.metrics.clone();
    assert_eq!(run.into_input_order(), (1..=10).collect::<Vec<_>>());
    if m.thread_times.is_empty() {
        eprintln!(
            "every_thread_accounts_for_its_time: skipped the thread accounting \
             (no /proc/thread-self/schedstat here); checked only that it reports nothing"
        );
        assert_eq!((m.cpu_ns, m.wait_ns, m.steal_share), (None, None, None));
        return;
    }
    let cores = Cores::of_current_thread();
    if cores.ids().is_empty() {
        eprintln!(
            "every_thread_accounts_for_its_time: the system does not support CPU \
             affinity; the threads ran unpinned (their cores are the rule's numbers)"
        );
    }
    assert_eq!(m.thread_times.len(), 2);
    for t in &m.thread_times {
        let parts = [t.wall_ns, t.cpu_ns, t.wait_ns, t.blocked_ns];
        assert!(parts.iter().all(|p| p.is_finite() && *p >= 0.0), "{t:?}");
        // Blocked spans lie inside the thread's life; CPU time too, up to
        // the reading of the clock.
        assert!(t.blocked_ns <= t.wall_ns, "{t:?}");
        assert!(t.cpu_ns <= t.wall_ns + READ_NS, "{t:?}");
        // Runnable is what is not blocked; stolen is the rest of the wall
        // time once CPU, wait and blocked are taken out.
        assert_eq!(t.runnable_ns(), t.wall_ns - t.blocked_ns);
        let rest = t.wall_ns - t.cpu_ns - t.wait_ns - t.blocked_ns;
        assert_eq!(t.stolen_ns(), rest.max(0.0), "{t:?}");
    }
    let stage = |k: usize| m.thread_times.iter().find(|t| t.thread == k).unwrap();
    let (a, b) = (stage(0), stage(1));
    // The sleep is neither CPU nor blocked: it shows as stolen, or as a
    // wait for a core where the guest's scheduler delayed the thread's
    // wake-up (a wait after waking from a channel counts twice, in blocked
    // and in wait, so only this bound holds whatever the load).
    assert!(a.wall_ns >= SLEEP_NS, "{a:?}");
    assert!(a.stolen_ns() + a.wait_ns >= SLEEP_NS, "{a:?}");
    assert!(
        a.cpu_ns + a.blocked_ns <= a.wall_ns - SLEEP_NS + READ_NS,
        "{a:?}"
    );
    // Stage b waits for every element with its channel empty and does not
    // spin: it blocks.
    assert!(b.blocked_ns > 0.0, "{b:?}");
    // Pinned by the rule: thread i on core i mod cores.
    assert_eq!(a.core, Some(0));
    assert_eq!(b.core, Some(cores.core_of_thread(1)));
    // The run's sums are the threads' sums, and the shares are shares.
    let sum =
        |f: fn(&pattern_core::exec::ThreadTimes) -> f64| m.thread_times.iter().map(f).sum::<f64>();
    assert_eq!(m.cpu_ns, Some(sum(|t| t.cpu_ns)));
    assert_eq!(m.wait_ns, Some(sum(|t| t.wait_ns)));
    let runnable = sum(|t| t.runnable_ns());
    let share = m.steal_share.unwrap();
    assert_eq!(share, sum(|t| t.stolen_ns()) / runnable);
    assert!((0.0..=1.0).contains(&share), "{share}");
    for core in [a.core.unwrap(), b.core.unwrap()] {
        let on = m.steal_share_on(core).unwrap();
        assert!((0.0..=1.0).contains(&on), "{on}");
    }
    let wait = m.wait_share().unwrap();
    assert!((0.0..=1.0).contains(&wait), "{wait}");
}

#[test]
fn a_short_lived_busy_thread_is_not_counted_as_stolen() {
    // A stage busy for 1 ms of its own CPU time on each of 3 elements
    // lives about 3 ms. The scheduler's counter of a running thread lags by
    // up to a tick: read there, about half of such a life showed as
    // stolen. The kernel spins on the thread's CPU clock, the one the
    // accounting reads, so the thread's CPU time is at least its kernels'
    // and its stolen time at most the rest of its life, under any load.
    const BUSY_NS: u64 = 1_000_000;
    let kernels = Kernels::new()
        .add("slow", |v: &mut i64| {
            let Some(start) = thread_cpu_ns() else {
                return;
            };
            while thread_cpu_ns().is_some_and(|now| now.saturating_sub(start) < BUSY_NS) {
                *v = std::hint::black_box(v.wrapping_add(1));
            }
        })
        .add("b", |v: &mut i64| *v += 1);
    let run = Executor::new(&kernels)
        .run(design("pipe(slow, b)").term(), numbers(3))
        .unwrap();
    let Some(slow) = run.metrics.thread_times.iter().find(|t| t.thread == 0) else {
        assert!(run.metrics.thread_times.is_empty());
        return;
    };
    let busy = 3.0 * BUSY_NS as f64;
    assert!(slow.cpu_ns >= busy, "{slow:?}");
    assert!(slow.cpu_ns <= slow.wall_ns + READ_NS, "{slow:?}");
    assert!(slow.stolen_ns() <= slow.wall_ns - busy, "{slow:?}");
}

#[test]
fn more_threads_than_cores_are_warned_about() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let kernels = arithmetic();
    let d = design(&format!("tpool[{}](add1)", cores + 1));
    let run = Executor::new(&kernels).run(d.term(), numbers(10)).unwrap();
    assert_eq!(
        run.warnings,
        [Warning::Oversubscribed {
            threads: cores + 1,
            cores
        }]
    );
    let fine = Executor::new(&kernels)
        .run(design("tpool[1](add1)").term(), numbers(10))
        .unwrap();
    assert!(fine.warnings.is_empty());
}

/// Runs `pipe(slow, pass, .., last)`, whose first stage starts on element
/// k only once the last is done with element k − 1 (then sleeps 2 ms):
/// every waiting stage finds its channel empty at every element.
fn hand_over_one_at_a_time(spin: Duration, stages: &Design) -> pattern_core::exec::Run<i64> {
    let done = Arc::new(AtomicUsize::new(0));
    let finished = Arc::clone(&done);
    let kernels = Kernels::<i64>::new()
        .add("slow", move |v| {
            let k = *v as usize;
            wait_until(|| done.load(Ordering::SeqCst) >= k);
            std::thread::sleep(Duration::from_millis(2));
        })
        .add("pass", |_| {})
        .add("last", move |_| {
            finished.fetch_add(1, Ordering::SeqCst);
        });
    Executor::new(&kernels)
        .spin(spin)
        .run(stages.term(), numbers(40))
        .unwrap()
}

/// Waiting stages of a design with more threads than cores block at once
/// instead of spinning on a core the stage they wait for needs. With the
/// longest spin (1 s) and elements a few ms apart, a stage that spins never
/// blocks and one that does not spin blocks at every element: which of the
/// two a stage did shows in whether it blocked at all, whatever the load.
#[test]
fn waiting_stages_do_not_spin_beyond_the_cores() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let passes = vec!["pass"; cores].join(", ");
    let d = Design::parse(&format!(
        "slow = 1; pass = 1; last = 1; pipe(slow, {passes}, last)"
    ))
    .unwrap();
    let oversubscribed = hand_over_one_at_a_time(MAX_SPIN, &d);
    assert_eq!(oversubscribed.metrics.threads, cores + 2);
    let times = &oversubscribed.metrics.thread_times;
    if times.is_empty() {
        return; // no scheduler statistics on this system
    }
    for t in times.iter().filter(|t| t.thread > 0) {
        assert!(
            t.blocked_ns > 0.0,
            "thread {} never blocked: {t:?}",
            t.thread
        );
    }
    // Within the cores the waiting stage spins as asked: never asleep.
    if cores >= 2 {
        let fits = Design::parse("slow = 1; last = 1; pipe(slow, last)").unwrap();
        let spun = hand_over_one_at_a_time(MAX_SPIN, &fits);
        let waiting = spun.metrics.thread_times.iter().find(|t| t.thread == 1);
        let waiting = waiting.expect("the second stage's times");
        assert_eq!(waiting.blocked_ns, 0.0, "{waiting:?}");
    }
}

#[test]
fn map_reduce_maps_and_reduces_on_n_threads_and_counts_right() {
    let text = "hmap = 1e4; hshuffle = 10*x; hreduce = x;
                mapreduce[m = 1, n = 3, d = x, k = 97](hmap, hshuffle, hreduce)";
    let d = Design::parse(text).unwrap();
    let kernels = histogram_kernels(3);
    let input = jobs(4, 20);
    let expected: Vec<Vec<(usize, u64)>> = input
        .iter()
        .map(|job| {
            let mut h = vec![0u64; 256];
            job.images
                .iter()
                .flatten()
                .for_each(|&b| h[b as usize] += 1);
            h.into_iter().enumerate().filter(|(_, c)| *c > 0).collect()
        })
        .collect();
    let run = Executor::new(&kernels).run(d.term(), input).unwrap();
    assert_eq!(run.metrics.max_in_flight, 3);
    assert_eq!(run.metrics.threads, 3);
    assert!(run.kept_order());
    let out = run.into_input_order();
    for (job, want) in out.iter().zip(&expected) {
        assert_eq!(&job.counts, want);
        assert_eq!(job.counts.iter().map(|(_, c)| c).sum::<u64>(), 20 * 100);
    }
}

/// The reduce phase runs on all `n` threads at once, each on its partition
/// of the keys: a reduce kernel that waits for `n` calls in flight sees
/// them (one at a time, it would wait 20 s and fail the count).
#[test]
fn map_reduce_groups_and_reduces_on_n_threads() {
    let text = "hmap = 1e4; hshuffle = 10*x; hreduce = x;
                mapreduce[m = 1, n = 3, d = x, k = 97](hmap, hshuffle, hreduce)";
    let d = Design::parse(text).unwrap();
    let arrived = Arc::new(AtomicUsize::new(0));
    let met = Arc::new(AtomicUsize::new(0));
    let (a, m) = (Arc::clone(&arrived), Arc::clone(&met));
    let kernels = Kernels::new()
        .add_map("hmap", |img: &Vec<u8>| {
            img.iter().map(|&b| (b as usize, 1u64)).collect()
        })
        .add_reduce("hreduce", move |_key, counts: &[u64]| {
            let me = a.fetch_add(1, Ordering::SeqCst) + 1;
            if me <= 3 {
                wait_until(|| a.load(Ordering::SeqCst) >= 3);
                if a.load(Ordering::SeqCst) >= 3 {
                    m.fetch_add(1, Ordering::SeqCst);
                }
            }
            counts.iter().sum()
        });
    let run = Executor::new(&kernels).run(d.term(), jobs(1, 20)).unwrap();
    assert_eq!(met.load(Ordering::SeqCst), 3);
    let job = &run.outputs[0].1;
    assert_eq!(job.counts.iter().map(|(_, c)| c).sum::<u64>(), 20 * 100);
}

/// A job whose reduce keeps its values in the order it gets them.
struct Ordered {
    inputs: Vec<u32>,
    out: Vec<(usize, Vec<u32>)>,
}

impl Job for Ordered {
    type Input = u32;
    type Value = u32;
    type Output = Vec<u32>;
    fn inputs(&self) -> &[u32] {
        &self.inputs
    }
    fn set_output(&mut self, output: Vec<(usize, Vec<u32>)>) {
        self.out = output;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Dealt to partitions and grouped on the workers, a job's pairs reach
    /// the reduce exactly as `group_by_key` groups them on one thread: keys
    /// increasing, each key's values in input order (repeated keys within
    /// one input included).
    #[test]
    fn the_shuffle_on_the_workers_groups_as_one_thread_does(
        inputs in proptest::collection::vec(0u32..1000, 0..80),
        n in 1u64..5,
    ) {
        let emit = |i: &u32| -> Vec<(usize, u32)> {
            (0..i % 4).map(|j| (((i * 7 + j * 3) % 11) as usize, i * 10 + j)).collect()
        };
        let want = pattern_core::exec::group_by_key(inputs.iter().map(emit).collect(), 11).unwrap();
        let kernels = Kernels::new()
            .add_map("emit", emit)
            .add_reduce("keep", |_k, values: &[u32]| values.to_vec());
        let d = Design::parse(&format!(
            "emit = 1; s = 1; keep = 1; mapreduce[n = {n}, d = x, k = 11](emit, s, keep)"
        )).unwrap();
        let run = Executor::new(&kernels)
            .run(d.term(), vec![Ordered { inputs, out: Vec::new() }])
            .unwrap();
        proptest::prop_assert_eq!(&run.outputs[0].1.out, &want);
    }
}

#[test]
fn map_reduce_inside_a_pipeline() {
    let text = "hmap = 1e4; hshuffle = 10*x; hreduce = x; clear = 1;
                pipe(mapreduce[n = 2, d = x, k = 97](hmap, hshuffle, hreduce), clear)";
    let d = Design::parse(text).unwrap();
    let kernels = histogram_kernels(0);
    let run = Executor::new(&kernels).run(d.term(), jobs(5, 8)).unwrap();
    assert_eq!(run.metrics.threads, 3);
    for job in run.into_input_order() {
        assert!(job.images.is_empty());
        assert_eq!(job.counts.iter().map(|(_, c)| c).sum::<u64>(), 800);
    }
}

#[test]
fn bad_input_gives_clear_errors() {
    let kernels = Kernels::new().add("add1", |v: &mut i64| *v += 1);
    let ex = Executor::new(&kernels);
    let err = ex
        .run(design("pipe(add1, double)").term(), numbers(3))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no kernel is registered for the atom `double` (registered: add1)"
    );

    let d = design("tpool[n](add1)");
    let err = ex.run(d.term(), numbers(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the count `n` in `tpool[n](add1)` is symbolic: bind it with `Executor::bind(\"n\", value)`"
    );
    let run = Executor::new(&kernels)
        .bind("n", 3)
        .run(d.term(), numbers(9))
        .unwrap();
    assert_eq!(run.metrics.threads, 3);
    assert_eq!(
        Executor::new(&kernels)
            .bind("n", 3)
            .threads(d.term())
            .unwrap(),
        3
    );

    let err = Executor::new(&kernels)
        .run(design("tpool[5000](add1)").term(), numbers(3))
        .unwrap_err();
    assert!(matches!(err, ExecError::Unsupported { .. }), "{err}");

    let hk = histogram_kernels(0);
    let two_nodes = Design::parse(
        "hmap = 1; s = 1; hreduce = 1; mapreduce[m = 2, n = 2, d = x, k = 97](hmap, s, hreduce)",
    )
    .unwrap();
    let err = Executor::new(&hk)
        .run(two_nodes.term(), jobs(1, 2))
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("it runs on m = 2 nodes; the executor runs on one node (m = 1)"),
        "{err}"
    );
    let swapped = Design::parse(
        "hmap = 1; s = 1; hreduce = 1; mapreduce[n = 2, d = x, k = 97](hreduce, s, hmap)",
    )
    .unwrap();
    let err = Executor::new(&hk)
        .run(swapped.term(), jobs(1, 2))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`hreduce` stands where a map kernel (Kernels::add_map) is needed, but its kernel is a reduce kernel"
    );
    let as_stage = Design::parse("hmap = 1; tpool[2](hmap)").unwrap();
    let err = Executor::new(&hk)
        .run(as_stage.term(), jobs(1, 2))
        .unwrap_err();
    assert!(matches!(err, ExecError::WrongKernel { .. }), "{err}");
}

#[test]
fn a_panicking_kernel_stops_the_run_with_an_error() {
    let kernels = Kernels::new()
        .add("add1", |v: &mut i64| *v += 1)
        .add("double", |v: &mut i64| {
            if *v == 41 {
                panic!("no 41s here");
            }
            *v *= 2;
        });
    for structure in [
        "pipe(add1, double)",
        "tpool[3](seq(add1, double))",
        "pipe(tpool[2](add1), double, add1)",
        "seq(tpool[2](double), add1)",
    ] {
        let err = Executor::new(&kernels)
            .capacity(1)
            .run(design(structure).term(), numbers(500))
            .unwrap_err();
        assert_eq!(
            err,
            ExecError::KernelPanicked {
                atom: "double".into(),
                message: "no 41s here".into()
            },
            "{structure}"
        );
    }
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
    let run = Executor::new(&kernels)
        .run(&<Sorter as pattern_core::dsl::Pattern>::term(), inputs)
        .unwrap();
    assert_eq!(run.metrics.threads, 3);
    for (i, v) in run.into_input_order().into_iter().enumerate() {
        let i = i as i32;
        let mut want = vec![i + 1, -i + 1, 8, 1];
        want.sort_unstable();
        assert_eq!(v, want);
    }
    let value = design!(tpool[2](seq(sort, bump)));
    let run = Executor::new(&kernels)
        .run(value.term(), vec![vec![3, 2, 1]; 4])
        .unwrap();
    assert_eq!(run.into_input_order(), vec![vec![2, 3, 4]; 4]);
}

#[test]
fn a_term_built_in_code_runs() {
    let kernels = arithmetic();
    let t = Term::pipe(
        Term::tpool(2, Term::atom("add1", pattern_core::Expr::num(1.0))),
        Term::atom("double", pattern_core::Expr::num(1.0)),
    );
    let run = Executor::new(&kernels).run(&t, numbers(20)).unwrap();
    assert_eq!(
        run.into_input_order(),
        (0..20).map(|v| (v + 1) * 2).collect::<Vec<_>>()
    );
}
