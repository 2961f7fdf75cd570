//! The measurement harness: run a function at a list of sizes, several
//! repetitions each, and keep every timing, so that a model can be fitted and
//! the spread reported like seed 001 Table 1.

use super::error::FitError;
use super::fitter::{Fit, Fitter};
use super::stats::{self, FiveNumber};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::hint::black_box;
use std::io::IsTerminal;
use std::time::Instant;

/// Runs a function at a list of sizes and times it.
///
/// For each size `x`: `warmup` untimed runs, then up to `repetitions` timed
/// runs; by default the sizes take turns ([`Harness::interleave`]). Before every run the *generator* builds a fresh input of size `x`,
/// outside the timed region; the timed region is the call of the function on
/// that input, and dropping its output happens after the clock stops. Times
/// are in nanoseconds (the unit of seed 001's models).
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
}

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

    /// Show a progress bar (default on). It is drawn on standard error and
    /// only when standard error is a terminal.
    pub fn progress(mut self, on: bool) -> Harness {
        self.progress = on;
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
        let per_size = (self.warmup + self.repetitions) as u64;
        let bar = self.bar(per_size * sizes.len() as u64);
        let mut states: Vec<State> = sizes.iter().map(|_| State::default()).collect();
        // Interleaved: every round visits every size, so a burst of load
        // from elsewhere hits a few repetitions of all sizes (and the median
        // discards it) instead of all repetitions of a few neighbouring
        // sizes (which would bend the model). Sequential: size after size.
        let rounds: Vec<Vec<usize>> = if self.interleave {
            (0..self.warmup + self.repetitions)
                .map(|_| (0..sizes.len()).collect())
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
                    drop(black_box(f(black_box(input(x)))));
                    continue;
                }
                let data = black_box(input(x));
                // Building a large input can evict the clock's code and data
                // from the caches; a first read brings them back, so the
                // timed region does not pay for it (seen as a drift of
                // ~15 ns over 1 KiB..1 MiB inputs in nop's timings).
                black_box(Instant::now());
                let start = Instant::now();
                let result = f(black_box(data));
                let elapsed = start.elapsed();
                drop(black_box(result));
                state.times.push(elapsed.as_nanos() as f64);
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
        }
    }
}

/// Progress of one size during a run.
#[derive(Default)]
struct State {
    warmups: usize,
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

/// The timings of one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    /// The size.
    pub x: usize,
    /// Every timed repetition, in nanoseconds, in the order measured.
    pub times_ns: Vec<f64>,
    /// Whether [`Harness::stop_when_stable`] ended the repetitions early.
    pub stopped_early: bool,
}

impl Samples {
    /// The median time.
    pub fn median(&self) -> f64 {
        stats::median(&self.times_ns)
    }

    /// The coefficient of variation in percent (`NaN` for one repetition).
    pub fn cv(&self) -> f64 {
        stats::coefficient_of_variation(&self.times_ns)
    }
}

/// The timings of a [`Harness::run`].
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The harness's label.
    pub label: String,
    sizes: Vec<Samples>,
}

impl Measurement {
    /// A measurement from timings taken elsewhere.
    pub fn from_samples(label: &str, sizes: Vec<Samples>) -> Measurement {
        Measurement {
            label: label.to_string(),
            sizes,
        }
    }

    /// The timings per size.
    pub fn sizes(&self) -> &[Samples] {
        &self.sizes
    }

    /// Every repetition as an `(x, ns)` point, as [`Fitter::fit`] takes them.
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.sizes
            .iter()
            .flat_map(|s| s.times_ns.iter().map(move |&t| (s.x as f64, t)))
            .collect()
    }

    /// The median per size, `(x, ns)`.
    pub fn medians(&self) -> Vec<(f64, f64)> {
        self.sizes
            .iter()
            .map(|s| (s.x as f64, s.median()))
            .collect()
    }

    /// The coefficient of variation per size, in percent.
    pub fn cv(&self) -> Vec<f64> {
        self.sizes.iter().map(Samples::cv).collect()
    }

    /// Minimum, quartiles and maximum of the per-size coefficients of
    /// variation, as in seed 001 Table 1; `None` without a size of two or
    /// more repetitions.
    pub fn cv_summary(&self) -> Option<FiveNumber> {
        FiveNumber::of(&self.cv())
    }

    /// Fits a model to all repetitions (the fitter takes the median per
    /// size by default).
    pub fn fit(&self, fitter: &Fitter) -> Result<Fit, FitError> {
        fitter.fit(&self.points())
    }
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
        // A function whose "time" is dominated by a sleep is steady enough
        // for a 50 % tolerance; the cap is never reached.
        let m = Harness::new()
            .warmup(0)
            .repetitions(100)
            .stop_when_stable(0.5, 2)
            .progress(false)
            .run(
                &[1],
                |_| (),
                |_| std::thread::sleep(std::time::Duration::from_micros(200)),
            );
        let s = &m.sizes()[0];
        assert!(s.stopped_early);
        assert!(
            s.times_ns.len() >= 4 && s.times_ns.len() < 100,
            "{}",
            s.times_ns.len()
        );
    }

    #[test]
    fn statistics_of_given_samples() {
        let m = Measurement::from_samples(
            "t",
            vec![
                Samples {
                    x: 1,
                    times_ns: vec![9.0, 10.0, 11.0],
                    stopped_early: false,
                },
                Samples {
                    x: 2,
                    times_ns: vec![18.0, 20.0, 22.0],
                    stopped_early: false,
                },
                Samples {
                    x: 4,
                    times_ns: vec![40.0, 40.0, 40.0],
                    stopped_early: false,
                },
            ],
        );
        let cv = m.cv();
        assert!((cv[0] - 10.0).abs() < 1e-12 && (cv[1] - 10.0).abs() < 1e-12);
        assert_eq!(cv[2], 0.0);
        let s = m.cv_summary().unwrap();
        assert_eq!((s.min, s.max), (0.0, 10.0));
        assert_eq!(m.medians(), [(1.0, 10.0), (2.0, 20.0), (4.0, 40.0)]);
        let fit = m.fit(&Fitter::default()).unwrap();
        assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x)");
    }
}
