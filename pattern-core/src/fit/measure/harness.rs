//! The harness: a function run at a list of sizes, timed.

use super::clock::{net_of_waiting, timed, timer_overhead_ns, waited_ns};
use super::stats;
use super::{Measurement, Samples};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::hint::black_box;
use std::io::IsTerminal;
use std::mem::MaybeUninit;
use std::time::Duration;

/// Runs a function at a list of sizes and times it.
///
/// For each size `x`: `warmup` untimed runs, then up to `repetitions` timed
/// runs; by default the sizes take turns ([`Harness::interleave`]). Before every run the *generator* builds a fresh input of size `x`,
/// outside the timed region; the timed region is the call of the function on
/// that input, and dropping its output happens after the clock stops. Times
/// are in nanoseconds (the unit of seed 001's models).
///
/// A kernel that takes about as long as reading the clock (a few tens of
/// nanoseconds) is mostly a measurement of the clock: use a batch
/// ([`Harness::batch`], [`Harness::auto_batch`]) — `k` calls per timed run,
/// every input built before the clock starts, every output dropped after it
/// stops, the time divided by `k` — and possibly
/// [`Harness::subtract_timer_overhead`].
///
/// ```
/// use pattern_core::fit::measure::Harness;
/// use pattern_core::fit::Fitter;
///
/// let sizes = [1_000, 2_000, 4_000, 8_000, 16_000];
/// let m = Harness::new()
///     .warmup(1)
///     .repetitions(5)
///     .progress(false)
///     .run(&sizes, |x| vec![1u64; x], |v| v.iter().sum::<u64>());
/// assert_eq!(m.sizes().len(), 5);
/// assert!(m.sizes().iter().all(|s| s.times_ns.len() == 5));
/// let spread = m.cv_summary().unwrap(); // Table 1's (min, q1, median, q3, max)
/// assert!(spread.min <= spread.max);
/// let fit = m.fit(&Fitter::default()).unwrap();
/// println!("sum: {fit}, {}, CV {spread:.2}", fit.model().growth("x").unwrap());
/// ```
#[derive(Clone, Debug)]
pub struct Harness {
    warmup: usize,
    repetitions: usize,
    stable: Option<Stability>,
    progress: bool,
    interleave: bool,
    label: String,
    batch: Batch,
    subtract_overhead: bool,
    exclude_waiting: bool,
    random_order: bool,
}

/// How many calls one timed run makes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Batch {
    /// A fixed number of calls.
    Fixed(usize),
    /// Chosen by a pilot run at the smallest size: enough calls for a timed
    /// run of `target`, at most `max`.
    Auto { target: Duration, max: usize },
}

/// Timed single calls of the pilot of [`Harness::auto_batch`].
const PILOT_RUNS: usize = 5;
/// Repeats of a batched run during which the thread waited for a CPU
/// ([`Harness::exclude_waiting`]).
const WAIT_RETRIES: usize = 3;

/// The early-stop rule of [`Harness::stop_when_stable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stability {
    /// Relative change of the running median that counts as stable.
    pub tolerance: f64,
    /// Over how many repetitions the change is measured.
    pub window: usize,
    /// Repetitions always taken before the rule applies.
    pub min_repetitions: usize,
}

impl Default for Harness {
    fn default() -> Harness {
        Harness {
            warmup: 1,
            repetitions: 5,
            stable: None,
            progress: true,
            interleave: true,
            label: String::new(),
            batch: Batch::Fixed(1),
            subtract_overhead: false,
            exclude_waiting: false,
            random_order: false,
        }
    }
}

impl Harness {
    /// One warm-up run and 5 repetitions per size (seed 001's count), a
    /// progress bar on a terminal.
    pub fn new() -> Harness {
        Harness::default()
    }

    /// Untimed runs before the repetitions of each size (default 1).
    pub fn warmup(mut self, runs: usize) -> Harness {
        self.warmup = runs;
        self
    }

    /// Timed runs per size (default 5; at least 1 is taken). With
    /// [`Harness::stop_when_stable`] this is the maximum.
    pub fn repetitions(mut self, runs: usize) -> Harness {
        self.repetitions = runs.max(1);
        self
    }

    /// Stop the repetitions of a size early once the running median is
    /// stable: after at least `window + 2` repetitions, as soon as the median
    /// of all timings so far differs from the median `window` repetitions
    /// earlier by at most `tolerance` (relative, e.g. `0.01`).
    pub fn stop_when_stable(mut self, tolerance: f64, window: usize) -> Harness {
        let window = window.max(1);
        self.stable = Some(Stability {
            tolerance,
            window,
            min_repetitions: window + 2,
        });
        self
    }

    /// Measure round-robin over the sizes (default on): round `r` takes the
    /// `r`-th run of every size, so load from other processes spreads over
    /// all sizes instead of bending the curve. Off, each size is finished
    /// (warm-up and repetitions) before the next.
    pub fn interleave(mut self, on: bool) -> Harness {
        self.interleave = on;
        self
    }

    /// With [`Harness::interleave`], visit the sizes of each round in a
    /// random order (default off: ascending). Then no size always follows
    /// the same one: what a run leaves behind (freed memory, evicted
    /// caches, a descheduled thread) and any change of the machine's load
    /// within a round reach every size alike, as noise, instead of bending
    /// the curve. The order is a fixed pseudo-random sequence, the same in
    /// every run of the program.
    pub fn random_order(mut self, on: bool) -> Harness {
        self.random_order = on;
        self
    }

    /// Show a progress bar (default on). It is drawn on standard error and
    /// only when standard error is a terminal.
    pub fn progress(mut self, on: bool) -> Harness {
        self.progress = on;
        self
    }

    /// Time `k` calls per timed run (default 1) and record the time divided
    /// by `k`, for kernels too short to time one call at a time.
    ///
    /// With `k ≥ 2`, each run (warm-up runs too) first builds `2k` inputs —
    /// the generator is called `2k` times — outside the timed region; then
    /// the timing loop runs untimed on the first `k` and timed on the other
    /// `k`; all `2k` outputs are kept and dropped after the clock stops.
    /// The untimed half puts the loop, the clock, the function and the
    /// machine in the state of running them: building large inputs evicts
    /// them from the caches, and the longer it takes the likelier the
    /// thread is descheduled in between, so that a single untimed call
    /// before the timed ones leaves an empty function's time rising with
    /// the inputs' size; with the untimed half it stays within the noise.
    ///
    /// The price: `2k` inputs of the largest size are alive at once, and a
    /// timed call no longer finds its input as fresh in the caches as the
    /// one input built right before it (a memory-bound call on large
    /// inputs can take several times as long per call as with `k = 1`). Batch the
    /// kernels the clock cannot time, not the others —
    /// [`Harness::auto_batch`] decides by their time. `k = 0` counts as 1;
    /// with `k = 1` a run is a single timed call, as by default.
    pub fn batch(mut self, k: usize) -> Harness {
        self.batch = Batch::Fixed(k.max(1));
        self
    }

    /// Choose the batch size ([`Harness::batch`]) automatically, like
    /// criterion: before measuring, the function runs once untimed and
    /// then 5 times timed, one call each, at the
    /// smallest size (6 more generator and function calls); the median
    /// minus the clock's overhead ([`timer_overhead_ns`]) estimates one
    /// call, and the batch is the number of calls that takes `target`
    /// (rounded up, between 1 and `max_batch`). One batch size serves all
    /// sizes of the run, so that the timing method does not change along
    /// the curve being fitted; [`Measurement::batch`] tells which.
    pub fn auto_batch(mut self, target: Duration, max_batch: usize) -> Harness {
        self.batch = Batch::Auto {
            target,
            max: max_batch.max(1),
        };
        self
    }

    /// Subtract the clock's overhead ([`timer_overhead_ns`], measured at
    /// the start of each [`Harness::run`]) from every timed run before
    /// dividing by the batch size (default off; results below zero become
    /// zero). The recorded time is then that of the calls alone.
    pub fn subtract_timer_overhead(mut self, on: bool) -> Harness {
        self.subtract_overhead = on;
        self
    }

    /// Leave out the time the thread spent waiting for a CPU (default off;
    /// Linux only, elsewhere it does nothing). On a loaded machine the
    /// scheduler suspends the measuring thread for whole time slices
    /// (milliseconds), and a timed run that contains one measures the other
    /// processes (the longer a run, the likelier), giving coefficients of
    /// variation of several hundred percent and medians that bend the
    /// model. The time waited is the growth of
    /// `run_delay` in `/proc/thread-self/schedstat` (the scheduler's own
    /// count, in nanoseconds) across the timed region; it is subtracted
    /// from a single timed call. In a batch it is read across both halves,
    /// so it cannot be told apart: such a run is built and timed again (at
    /// most 3 times; then it is kept). [`Measurement::waited`] counts the
    /// runs concerned.
    pub fn exclude_waiting(mut self, on: bool) -> Harness {
        self.exclude_waiting = on;
        self
    }

    /// A name for the progress bar and the [`Measurement`].
    pub fn label(mut self, label: &str) -> Harness {
        self.label = label.to_string();
        self
    }

    fn bar(&self, total: u64) -> ProgressBar {
        if !self.progress || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} runs, x = {msg} (eta {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(self.label.clone());
        bar
    }

    /// Measures `f` at each size; `input(x)` builds the input of size `x`
    /// before each run, outside the timed region.
    pub fn run<I, O>(
        &self,
        sizes: &[usize],
        mut input: impl FnMut(usize) -> I,
        mut f: impl FnMut(I) -> O,
    ) -> Measurement {
        let overhead = timer_overhead_ns();
        let batch = match self.batch {
            Batch::Fixed(k) => k,
            Batch::Auto { target, max } => match sizes.iter().min() {
                Some(&x) => pilot(x, &mut input, &mut f, overhead, target, max),
                None => 1,
            },
        };
        let per_size = (self.warmup + self.repetitions) as u64;
        let bar = self.bar(per_size * sizes.len() as u64);
        let wait = self.exclude_waiting;
        let mut states: Vec<State> = sizes.iter().map(|_| State::default()).collect();
        // Interleaved: every round visits every size, so a burst of load
        // from elsewhere hits a few repetitions of all sizes (and the median
        // discards it) instead of all repetitions of a few neighbouring
        // sizes (which would bend the model). Sequential: size after size.
        let rounds: Vec<Vec<usize>> = if self.interleave {
            let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
            (0..self.warmup + self.repetitions)
                .map(|_| {
                    let mut order: Vec<usize> = (0..sizes.len()).collect();
                    if self.random_order {
                        rng.shuffle(&mut order);
                    }
                    order
                })
                .collect()
        } else {
            (0..sizes.len())
                .map(|i| vec![i; self.warmup + self.repetitions])
                .collect()
        };
        for round in rounds {
            for i in round {
                let (x, state) = (sizes[i], &mut states[i]);
                if state.done {
                    continue;
                }
                bar.set_message(x.to_string());
                bar.inc(1);
                if state.warmups < self.warmup {
                    state.warmups += 1;
                    if batch == 1 {
                        drop(black_box(f(black_box(input(x)))));
                    } else {
                        black_box(time_batch(x, batch, &mut input, &mut f, false));
                    }
                    continue;
                }
                let mut ns = if batch == 1 {
                    let (ns, waited) = time_one(x, &mut input, &mut f, wait);
                    state.waited += usize::from(waited);
                    ns
                } else {
                    let mut tries = 0;
                    loop {
                        let (ns, waited) = time_batch(x, batch, &mut input, &mut f, wait);
                        state.waited += usize::from(waited);
                        tries += 1;
                        if !waited || tries > WAIT_RETRIES {
                            break ns;
                        }
                    }
                };
                if self.subtract_overhead {
                    ns = (ns - overhead).max(0.0);
                }
                state.times.push(ns / batch as f64);
                if state.times.len() == self.repetitions {
                    state.done = true;
                } else if let Some(rule) = self.stable {
                    state.medians.push(stats::median(&state.times));
                    if is_stable(&state.medians, rule) {
                        state.done = true;
                        state.stopped_early = true;
                        bar.inc((self.repetitions - state.times.len()) as u64);
                    }
                }
            }
        }
        bar.finish_and_clear();
        let waited = states.iter().map(|s| s.waited).collect();
        Measurement {
            label: self.label.clone(),
            sizes: sizes
                .iter()
                .zip(states)
                .map(|(&x, s)| Samples {
                    x,
                    times_ns: s.times,
                    stopped_early: s.stopped_early,
                })
                .collect(),
            waited,
            batch,
            timer_overhead_ns: Some(overhead),
            overhead_subtracted: self.subtract_overhead,
        }
    }
}

/// One timed call on a fresh input, in nanoseconds, and whether the thread
/// waited for a CPU during it (then, with `exclude_waiting`, the wait is
/// subtracted).
fn time_one<I, O>(
    x: usize,
    input: &mut impl FnMut(usize) -> I,
    f: &mut impl FnMut(I) -> O,
    exclude_waiting: bool,
) -> (f64, bool) {
    let data = black_box(input(x));
    let before = if exclude_waiting { waited_ns() } else { None };
    // Building a large input can evict the clock's code and data from the
    // caches; `timed` reads the clock once first, so the timed region does
    // not pay for it (without it nop's time rose by ~20 ns from 1 Ki to
    // 256 Ki elements, with it by ~1 ns).
    let (result, elapsed) = timed(|| f(black_box(data)));
    let waited = before.and_then(|b| Some(waited_ns()?.saturating_sub(b)));
    drop(black_box(result));
    net_of_waiting(elapsed, waited)
}

/// `k` timed calls in one stretch (see [`Harness::batch`]), in nanoseconds
/// for all `k`, and whether the thread waited for a CPU during the two
/// halves (only looked at with `exclude_waiting`).
fn time_batch<I, O, F: FnMut(I) -> O>(
    x: usize,
    k: usize,
    input: &mut impl FnMut(usize) -> I,
    f: &mut F,
    exclude_waiting: bool,
) -> (f64, bool) {
    let mut warm: Vec<I> = Vec::with_capacity(k);
    warm.extend((0..k).map(|_| input(x)));
    let mut inputs: Vec<I> = Vec::with_capacity(k);
    inputs.extend((0..k).map(|_| input(x)));
    // Building the inputs evicted the slots written first: reading and
    // writing every slot brings them back (two reversals restore the order;
    // `black_box` keeps the pair from being folded away).
    for slots in [&mut warm, &mut inputs] {
        slots.reverse();
        black_box(&mut *slots);
        slots.reverse();
    }
    let mut outputs: Vec<O> = Vec::with_capacity(2 * k);
    // Touch the outputs' memory now, so that no page fault or cache miss on
    // it falls in the timed region.
    for slot in outputs.spare_capacity_mut() {
        *slot = MaybeUninit::zeroed();
    }
    black_box(&mut outputs);
    let before = if exclude_waiting { waited_ns() } else { None };
    // The same loop, untimed, on the first k inputs: the timed loop starts
    // in the state of running it (see `Harness::batch`).
    black_box(timed_loop(&mut warm, &mut outputs, f));
    let elapsed = timed_loop(&mut inputs, &mut outputs, f);
    let waited = before.and_then(|b| Some(waited_ns()? > b));
    drop(black_box(outputs));
    (elapsed, waited == Some(true))
}

/// Calls `f` on every input, keeping the outputs, and returns the time,
/// ns. Never inlined, so that the untimed and the timed half of
/// [`time_batch`] run the same code.
#[inline(never)]
fn timed_loop<I, O, F: FnMut(I) -> O>(inputs: &mut Vec<I>, outputs: &mut Vec<O>, f: &mut F) -> f64 {
    timed(|| {
        for input in inputs.drain(..) {
            outputs.push(f(black_box(input)));
        }
    })
    .1
}

/// The batch size of [`Harness::auto_batch`] at size `x`.
fn pilot<I, O, F: FnMut(I) -> O>(
    x: usize,
    input: &mut impl FnMut(usize) -> I,
    f: &mut F,
    overhead: f64,
    target: Duration,
    max: usize,
) -> usize {
    drop(black_box(f(black_box(input(x)))));
    let times: Vec<f64> = (0..PILOT_RUNS)
        .map(|_| time_one(x, input, f, false).0)
        .collect();
    let one = (stats::median(&times) - overhead).max(0.0);
    batch_for(one, target.as_nanos() as f64, max)
}

/// Calls of `one` ns needed to fill `target` ns, between 1 and `max`.
fn batch_for(one: f64, target: f64, max: usize) -> usize {
    if one <= 0.0 {
        return max;
    }
    let k = (target / one).ceil();
    if k >= max as f64 {
        max
    } else {
        (k as usize).max(1)
    }
}

/// A small deterministic generator (Marsaglia's xorshift64) for the order
/// of [`Harness::random_order`].
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Fisher–Yates.
    fn shuffle(&mut self, items: &mut [usize]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// Progress of one size during a run.
#[derive(Default)]
struct State {
    warmups: usize,
    waited: usize,
    times: Vec<f64>,
    medians: Vec<f64>,
    done: bool,
    stopped_early: bool,
}

/// Whether the running medians (one per repetition so far) meet the rule.
fn is_stable(medians: &[f64], rule: Stability) -> bool {
    let k = medians.len();
    if k < rule.min_repetitions || k <= rule.window {
        return false;
    }
    let now = medians[k - 1];
    let before = medians[k - 1 - rule.window];
    (now - before).abs() <= rule.tolerance * now.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_runs_outside_the_timed_region_once_per_run() {
        let mut built = Vec::new();
        let mut called = 0;
        let m = Harness::new().warmup(2).repetitions(3).progress(false).run(
            &[3, 5],
            |x| {
                built.push(x);
                vec![0u8; x]
            },
            |v| {
                called += 1;
                v.len()
            },
        );
        assert_eq!(built, [3, 5, 3, 5, 3, 5, 3, 5, 3, 5]);
        assert_eq!(called, 10);
        assert_eq!(m.sizes().len(), 2);
        assert_eq!(m.points().len(), 6);
        assert!(m.points().iter().all(|&(_, t)| t >= 0.0));
        assert_eq!(
            m.medians().iter().map(|p| p.0).collect::<Vec<_>>(),
            [3.0, 5.0]
        );
    }

    /// What the generator, the function and the outputs did, in order.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Event {
        Build(usize),
        Call(usize),
        Drop,
    }

    /// An output that logs its drop.
    struct Logged(std::rc::Rc<std::cell::RefCell<Vec<Event>>>);

    impl Drop for Logged {
        fn drop(&mut self) {
            self.0.borrow_mut().push(Event::Drop);
        }
    }

    #[test]
    fn batch_builds_all_inputs_first_and_drops_all_outputs_last() {
        use Event::{Build, Call, Drop};
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let (built, called) = (log.clone(), log.clone());
        let m = Harness::new()
            .warmup(1)
            .repetitions(2)
            .batch(3)
            .progress(false)
            .run(
                &[7],
                |x| {
                    built.borrow_mut().push(Build(x));
                    x
                },
                |x| {
                    called.borrow_mut().push(Call(x));
                    Logged(called.clone())
                },
            );
        // Every run (the warm-up too): 2k = 6 inputs built, then k untimed
        // and k timed calls, then the 6 outputs dropped.
        let run = [[Build(7); 6], [Call(7); 6], [Drop; 6]].concat();
        assert_eq!(*log.borrow(), [&run[..], &run, &run].concat());
        assert_eq!(m.batch(), 3);
        assert_eq!(m.sizes()[0].times_ns.len(), 2);
        assert!(m.points().iter().all(|&(_, t)| t >= 0.0));
        assert!(m.timer_overhead_ns().is_some_and(|t| t > 0.0));
        assert!(!m.overhead_subtracted());
    }

    #[test]
    fn batch_of_one_is_one_call_per_run() {
        for k in [0, 1] {
            let mut calls = 0;
            let m = Harness::new()
                .warmup(2)
                .repetitions(3)
                .batch(k)
                .progress(false)
                .run(&[1, 2], |x| x, |x| calls += x);
            assert_eq!(calls, 5 * (1 + 2));
            assert_eq!(m.batch(), 1);
        }
    }

    #[test]
    fn batch_size_for_a_target() {
        // Nothing left after the overhead: as many calls as allowed.
        assert_eq!(batch_for(0.0, 1000.0, 64), 64);
        assert_eq!(batch_for(10.0, 1000.0, 64), 64);
        assert_eq!(batch_for(300.0, 1000.0, 64), 4);
        assert_eq!(batch_for(1000.0, 1000.0, 64), 1);
        assert_eq!(batch_for(5000.0, 1000.0, 64), 1);
    }

    #[test]
    fn auto_batch_fills_the_target_up_to_the_cap() {
        // A call that returns at once is far below an hour's target,
        // however loaded the machine: the cap.
        let mut built = 0;
        let m = Harness::new()
            .warmup(0)
            .repetitions(2)
            .auto_batch(Duration::from_secs(3600), 8)
            .progress(false)
            .run(
                &[3, 1, 2],
                |x| {
                    built += 1;
                    x
                },
                |x| x,
            );
        assert_eq!(m.batch(), 8);
        // Pilot (1 + 5 single calls), then 2 runs of 2 · 8 per size.
        assert_eq!(built, 6 + 3 * 2 * 16);
        // A call that sleeps 200 µs already fills a 1 µs target.
        let m = Harness::new()
            .warmup(0)
            .repetitions(1)
            .auto_batch(Duration::from_micros(1), 8)
            .progress(false)
            .run(
                &[1],
                |_| (),
                |_| std::thread::sleep(Duration::from_micros(200)),
            );
        assert_eq!(m.batch(), 1);
    }

    #[test]
    fn overhead_subtraction_keeps_times_nonnegative() {
        let overhead = timer_overhead_ns();
        assert!(overhead.is_finite() && overhead > 0.0, "{overhead}");
        let m = Harness::new()
            .warmup(0)
            .repetitions(5)
            .subtract_timer_overhead(true)
            .progress(false)
            .run(&[1, 2, 3], |x| x, |x| x);
        assert!(m.overhead_subtracted());
        assert!(m.points().iter().all(|&(_, t)| t >= 0.0));
        let given = Measurement::from_samples("t", Vec::new());
        assert_eq!(
            (
                given.batch(),
                given.timer_overhead_ns(),
                given.overhead_subtracted()
            ),
            (1, None, false)
        );
    }

    #[test]
    fn waiting_is_counted() {
        // The subtraction itself is the clock's (clock::tests).
        for k in [1, 4] {
            let m = Harness::new()
                .warmup(0)
                .repetitions(5)
                .batch(k)
                .exclude_waiting(true)
                .progress(false)
                .run(&[1, 2], |x| x, |x| x);
            assert_eq!(m.waited().len(), 2);
            // At most every run, each with all its repeats.
            assert!(m.waited().iter().all(|&w| w <= 5 * (1 + WAIT_RETRIES)));
            assert!(m.points().iter().all(|&(_, t)| t >= 0.0));
        }
        assert!(
            Measurement::from_samples("t", Vec::new())
                .waited()
                .is_empty()
        );
    }

    #[test]
    fn random_order_visits_every_size_once_per_round() {
        let mut built = Vec::new();
        let m = Harness::new()
            .warmup(1)
            .repetitions(7)
            .random_order(true)
            .progress(false)
            .run(&[1, 2, 3, 4, 5], |x| built.push(x), |()| ());
        assert_eq!(built.len(), 8 * 5);
        let rounds: Vec<Vec<usize>> = built.chunks(5).map(<[usize]>::to_vec).collect();
        for round in &rounds {
            let mut sorted = round.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [1, 2, 3, 4, 5]);
        }
        assert!(rounds.iter().any(|r| *r != [1, 2, 3, 4, 5]), "{rounds:?}");
        assert!(m.sizes().iter().all(|s| s.times_ns.len() == 7));
        // The same order in every run.
        let mut again = Vec::new();
        Harness::new()
            .warmup(1)
            .repetitions(7)
            .random_order(true)
            .progress(false)
            .run(&[1, 2, 3, 4, 5], |x| again.push(x), |()| ());
        assert_eq!(again, built);
    }

    #[test]
    fn sequential_order() {
        let mut built = Vec::new();
        let m = Harness::new()
            .warmup(1)
            .repetitions(2)
            .interleave(false)
            .progress(false)
            .run(&[3, 5], |x| built.push(x), |()| ());
        assert_eq!(built, [3, 3, 3, 5, 5, 5]);
        assert_eq!(m.sizes()[1].times_ns.len(), 2);
    }

    #[test]
    fn stability_rule() {
        let rule = Stability {
            tolerance: 0.01,
            window: 2,
            min_repetitions: 4,
        };
        assert!(!is_stable(&[10.0, 10.0, 10.0], rule));
        assert!(is_stable(&[10.0, 10.0, 10.0, 10.05], rule));
        assert!(!is_stable(&[10.0, 10.0, 10.0, 11.0], rule));
    }

    #[test]
    fn stop_early_takes_fewer_repetitions_of_a_steady_function() {
        // A tolerance no change of the running median reaches (a factor
        // of 10^12; every run sleeps, so the median is above 0): stable at
        // the first repetition the rule looks at, window + 2, whatever the
        // load does to the timings.
        let m = Harness::new()
            .warmup(0)
            .repetitions(100)
            .stop_when_stable(1e12, 2)
            .progress(false)
            .run(
                &[1],
                |_| (),
                |_| std::thread::sleep(std::time::Duration::from_micros(200)),
            );
        let s = &m.sizes()[0];
        assert!(s.stopped_early);
        assert_eq!(s.times_ns.len(), 4);
        assert!(
            s.times_ns.iter().all(|&t| t >= 200_000.0),
            "{:?}",
            s.times_ns
        );
    }
}
