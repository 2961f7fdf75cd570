//! What a run reports: the paper's metric (the average time between two
//! elements leaving the program, in steady state), latency, makespan, and
//! the parallelism actually reached.

use serde::{Deserialize, Serialize};
use std::fmt;

/// When one element entered and left the program, in nanoseconds since the
/// run started.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Departure {
    /// The element's position in the input.
    pub index: usize,
    /// When the program took it from its input queue.
    pub enter_ns: f64,
    /// When the program handed it to its output.
    pub leave_ns: f64,
}

/// The measured performance of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Elements that left the program.
    pub elements: usize,
    /// Departures inside the steady-state window (the first and last
    /// `trim` fraction dropped).
    pub steady_elements: usize,
    /// The paper's metric, `M[T]` measured: the average time between two
    /// consecutive departures in the steady-state window, in ns, as the
    /// least-squares slope of the departure times over their ranks. With
    /// regular departures it is `(last − first) / (count − 1)`; with
    /// departures in bursts (a stage that shares a core runs only when the
    /// scheduler gives it one, at the scheduler's tick) it does not
    /// depend on where the window's two ends fall in a burst. `None` with
    /// fewer than two departures in the window.
    pub inter_departure_ns: Option<f64>,
    /// Median time from entering to leaving, in ns. `None` without
    /// departures.
    pub latency_ns: Option<f64>,
    /// Largest time from entering to leaving, in ns.
    pub latency_max_ns: Option<f64>,
    /// From the start of the run (before the threads are started) to the
    /// last departure, in ns.
    pub makespan_ns: f64,
    /// The largest number of kernel calls running at the same time: the
    /// parallelism the run reached (at most [`Metrics::threads`]).
    pub max_in_flight: usize,
    /// Threads the design's structure runs at once.
    pub threads: usize,
    /// CPU time of the run's threads, summed, in ns (Linux: the thread CPU
    /// clock, [`thread_cpu_ns`](crate::fit::measure::thread_cpu_ns); `None`
    /// elsewhere).
    pub cpu_ns: Option<f64>,
    /// Time the run's threads were ready to run but waited for a core
    /// (run-queue delay), summed, in ns: the mark of other load on the
    /// machine, or of more threads than cores. `None` where not known.
    pub wait_ns: Option<f64>,
    /// The share of the threads' runnable time (neither blocked nor
    /// waiting for a core) during which the hypervisor ran something else
    /// on their cores: `Σ stolen / Σ runnable` over
    /// [`Metrics::thread_times`]. On a shared virtual machine a core is
    /// taken away for milliseconds at a time without the guest's
    /// scheduler seeing a wait. `None` where not known.
    pub steal_share: Option<f64>,
    /// How each of the run's threads spent its time (Linux; empty
    /// elsewhere).
    #[serde(default)]
    pub thread_times: Vec<ThreadTimes>,
}

/// How one thread of a run spent its life: on a core, waiting for one (the
/// guest's run queue), blocked (asleep on a channel or a join), or stolen:
/// the rest, when the hypervisor ran something else on the core (the
/// guest's CPU clock leaves stolen time out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadTimes {
    /// The design's number of the thread (text order; see
    /// [`Executor::pin_threads`](super::Executor::pin_threads)).
    pub thread: usize,
    /// The position of the core it was pinned to (`None` unpinned).
    pub core: Option<usize>,
    /// From its start to its end, ns.
    pub wall_ns: f64,
    /// On a core, ns.
    pub cpu_ns: f64,
    /// Ready but waiting for a core, ns (`run_delay` of
    /// `/proc/thread-self/schedstat`).
    pub wait_ns: f64,
    /// Asleep on a channel or a join, ns. A wait for a core right after
    /// waking up counts here and in `wait_ns` (telling them apart would cost
    /// two reads of the scheduler's counters at every hand-over), so on a
    /// loaded machine [`ThreadTimes::stolen_ns`] can come out low.
    pub blocked_ns: f64,
}

impl ThreadTimes {
    /// Time it could have run: `wall − blocked`, ns.
    pub fn runnable_ns(&self) -> f64 {
        (self.wall_ns - self.blocked_ns).max(0.0)
    }

    /// Time lost to the hypervisor: `wall − cpu − wait − blocked` (at
    /// least 0), ns.
    ///
    /// ```
    /// use pattern_core::exec::ThreadTimes;
    ///
    /// let t = ThreadTimes {
    ///     thread: 0,
    ///     core: Some(0),
    ///     wall_ns: 100.0,
    ///     cpu_ns: 70.0,
    ///     wait_ns: 5.0,
    ///     blocked_ns: 10.0,
    /// };
    /// assert_eq!(t.stolen_ns(), 15.0);
    /// assert_eq!(t.runnable_ns(), 90.0);
    /// ```
    pub fn stolen_ns(&self) -> f64 {
        (self.wall_ns - self.cpu_ns - self.wait_ns - self.blocked_ns).max(0.0)
    }
}

impl Metrics {
    /// Computes the metrics of a run from its departures (any order),
    /// dropping the first and last `trim` fraction of departures (fill and
    /// drain) for the steady state.
    ///
    /// ```
    /// use pattern_core::exec::{Departure, Metrics};
    ///
    /// // A pipeline that fills for 100 ns and then emits an element every 10 ns.
    /// let departures: Vec<Departure> = (0..20)
    ///     .map(|i| Departure { index: i, enter_ns: 0.0, leave_ns: 100.0 + 10.0 * i as f64 })
    ///     .collect();
    /// let m = Metrics::from_departures(&departures, 0.1, 400.0, 2, 2);
    /// assert_eq!(m.inter_departure_ns, Some(10.0));
    /// assert_eq!(m.steady_elements, 16);
    /// assert_eq!(m.makespan_ns, 400.0);
    /// ```
    pub fn from_departures(
        departures: &[Departure],
        trim: f64,
        makespan_ns: f64,
        max_in_flight: usize,
        threads: usize,
    ) -> Metrics {
        let mut leaves: Vec<f64> = departures.iter().map(|d| d.leave_ns).collect();
        leaves.sort_by(f64::total_cmp);
        let mut latencies: Vec<f64> = departures.iter().map(|d| d.leave_ns - d.enter_ns).collect();
        latencies.sort_by(f64::total_cmp);
        let (steady_elements, inter_departure_ns) = match steady_window(leaves.len(), trim) {
            Some((lo, hi)) => (hi - lo + 1, Some(slope(&leaves[lo..=hi]))),
            None => (0, None),
        };
        Metrics {
            elements: departures.len(),
            steady_elements,
            inter_departure_ns,
            latency_ns: median_sorted(&latencies),
            latency_max_ns: latencies.last().copied(),
            makespan_ns,
            max_in_flight,
            threads,
            cpu_ns: None,
            wait_ns: None,
            steal_share: None,
            thread_times: Vec::new(),
        }
    }

    /// Sets the threads' times and what follows from them: the summed CPU
    /// time and wait, and the stolen share. `None` (not known) clears them.
    pub fn set_thread_times(&mut self, times: Option<Vec<ThreadTimes>>) {
        let times = times.unwrap_or_default();
        let known = !times.is_empty();
        let sum = |f: fn(&ThreadTimes) -> f64| times.iter().map(f).sum::<f64>();
        self.cpu_ns = known.then(|| sum(|t| t.cpu_ns));
        self.wait_ns = known.then(|| sum(|t| t.wait_ns));
        let runnable = sum(ThreadTimes::runnable_ns);
        self.steal_share =
            (known && runnable > 0.0).then(|| sum(ThreadTimes::stolen_ns) / runnable);
        self.thread_times = times;
    }

    /// The stolen share of the threads pinned to the core at `position`
    /// (as [`Metrics::steal_share`]); `None` if none ran there.
    pub fn steal_share_on(&self, position: usize) -> Option<f64> {
        let on: Vec<&ThreadTimes> = self
            .thread_times
            .iter()
            .filter(|t| t.core == Some(position))
            .collect();
        let runnable: f64 = on.iter().map(|t| t.runnable_ns()).sum();
        (runnable > 0.0).then(|| on.iter().map(|t| t.stolen_ns()).sum::<f64>() / runnable)
    }

    /// The share of the threads' runnable time spent waiting for a core:
    /// `wait / (cpu + wait)`; near 0 on a machine with a core for every
    /// thread and nothing else to do.
    pub fn wait_share(&self) -> Option<f64> {
        match (self.cpu_ns, self.wait_ns) {
            (Some(cpu), Some(wait)) if cpu + wait > 0.0 => Some(wait / (cpu + wait)),
            _ => None,
        }
    }
}

/// The first and last index of the departures kept for the steady state:
/// `floor(n·trim)` dropped at each end; `None` if fewer than two remain.
pub fn steady_window(n: usize, trim: f64) -> Option<(usize, usize)> {
    let trim = if trim.is_finite() {
        trim.clamp(0.0, 0.5)
    } else {
        0.0
    };
    let cut = (n as f64 * trim).floor() as usize;
    let lo = cut;
    let hi = n.checked_sub(1 + cut)?;
    (hi > lo).then_some((lo, hi))
}

/// The least-squares slope of `values` over their positions 0, 1, …
/// (at least two values).
fn slope(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mid = (n - 1.0) / 2.0;
    let mean = values.iter().sum::<f64>() / n;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (i, v) in values.iter().enumerate() {
        let d = i as f64 - mid;
        covariance += d * (v - mean);
        variance += d * d;
    }
    covariance / variance
}

fn median_sorted(values: &[f64]) -> Option<f64> {
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Something about a run the reader should know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Warning {
    /// The design runs more threads at once than the machine has cores: the
    /// threads take turns, which the operators (one core per thread) do not
    /// model.
    Oversubscribed {
        /// Threads the design runs.
        threads: usize,
        /// Cores the machine offers (`std::thread::available_parallelism`).
        cores: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Oversubscribed { threads, cores } => write!(
                f,
                "the design runs {threads} threads but the machine has {cores} cores: \
                 threads will share cores, which the model does not account for"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(leaves: &[f64]) -> Vec<Departure> {
        leaves
            .iter()
            .enumerate()
            .map(|(i, &l)| Departure {
                index: i,
                enter_ns: l - 5.0 - i as f64,
                leave_ns: l,
            })
            .collect()
    }

    #[test]
    fn window_drops_a_tenth_at_each_end() {
        assert_eq!(steady_window(10, 0.1), Some((1, 8)));
        assert_eq!(steady_window(20, 0.1), Some((2, 17)));
        assert_eq!(steady_window(9, 0.1), Some((0, 8)));
        assert_eq!(steady_window(2, 0.1), Some((0, 1)));
        assert_eq!(steady_window(1, 0.1), None);
        assert_eq!(steady_window(0, 0.1), None);
        assert_eq!(steady_window(4, 0.5), None);
        assert_eq!(steady_window(5, f64::NAN), Some((0, 4)));
    }

    #[test]
    fn departures_in_bursts_give_their_average_rate() {
        // Four departures at once every 4,000 ns (a stage that runs on the
        // scheduler's tick): 1,000 ns per element. The window (2..=17)
        // starts and ends inside bursts; its two ends alone would say
        // (16,000 − 0) / 15 = 1,066.7, the slope says 1,035.3.
        let leaves: Vec<f64> = (0..20).map(|i| 4000.0 * (i / 4) as f64).collect();
        let m = Metrics::from_departures(&deps(&leaves), 0.1, 20_000.0, 1, 3);
        let t = m.inter_departure_ns.unwrap();
        assert!((t - 1035.294).abs() < 1e-3, "{t}");
        // Regular departures: the slope is the mean gap exactly.
        let regular: Vec<f64> = (0..20).map(|i| 7.0 + 3.0 * i as f64).collect();
        let m = Metrics::from_departures(&deps(&regular), 0.1, 70.0, 1, 1);
        assert_eq!(m.inter_departure_ns, Some(3.0));
    }

    #[test]
    fn fill_and_drain_do_not_count() {
        // Fill: the first departure after 1000 ns; drain: the last one late.
        let mut leaves = vec![1000.0];
        leaves.extend((1..19).map(|i| 1000.0 + 50.0 * i as f64));
        leaves.push(5000.0);
        let m = Metrics::from_departures(&deps(&leaves), 0.1, 6000.0, 3, 4);
        assert_eq!(m.elements, 20);
        assert_eq!(m.steady_elements, 16);
        assert_eq!(m.inter_departure_ns, Some(50.0));
        // Latencies are 5 + i: median of 5..=24 is 14.5.
        assert_eq!(m.latency_ns, Some(14.5));
        assert_eq!(m.latency_max_ns, Some(24.0));
        assert_eq!((m.max_in_flight, m.threads), (3, 4));
    }

    #[test]
    fn order_of_departures_does_not_matter() {
        let mut d = deps(&[10.0, 20.0, 30.0, 40.0]);
        d.reverse();
        let m = Metrics::from_departures(&d, 0.0, 40.0, 1, 1);
        assert_eq!(m.inter_departure_ns, Some(10.0));
    }

    #[test]
    fn too_few_departures() {
        let m = Metrics::from_departures(&deps(&[10.0]), 0.1, 10.0, 1, 1);
        assert_eq!(m.inter_departure_ns, None);
        assert_eq!(m.latency_ns, Some(5.0));
        let m = Metrics::from_departures(&[], 0.1, 0.0, 0, 1);
        assert_eq!((m.inter_departure_ns, m.latency_ns), (None, None));
    }

    #[test]
    fn stolen_time_is_what_no_other_state_explains() {
        let t = |thread, core, wall, cpu, wait, blocked| ThreadTimes {
            thread,
            core: Some(core),
            wall_ns: wall,
            cpu_ns: cpu,
            wait_ns: wait,
            blocked_ns: blocked,
        };
        let mut m = Metrics::from_departures(&deps(&[10.0, 20.0]), 0.0, 20.0, 1, 3);
        m.set_thread_times(Some(vec![
            t(0, 0, 100.0, 80.0, 0.0, 0.0),
            t(1, 1, 100.0, 40.0, 10.0, 50.0),
            t(2, 0, 50.0, 50.0, 0.0, 0.0),
        ]));
        assert_eq!(m.cpu_ns, Some(170.0));
        assert_eq!(m.wait_ns, Some(10.0));
        // Stolen 20 + 0 + 0 of runnable 100 + 50 + 50.
        assert_eq!(m.steal_share, Some(0.1));
        assert_eq!(m.steal_share_on(0), Some(20.0 / 150.0));
        assert_eq!(m.steal_share_on(1), Some(0.0));
        assert_eq!(m.steal_share_on(2), None);
        // A clock that runs backwards does not give negative theft.
        assert_eq!(t(0, 0, 10.0, 12.0, 0.0, 0.0).stolen_ns(), 0.0);
        m.set_thread_times(None);
        assert_eq!((m.cpu_ns, m.steal_share), (None, None));
    }

    #[test]
    fn warning_text() {
        let w = Warning::Oversubscribed {
            threads: 8,
            cores: 2,
        };
        assert!(
            w.to_string()
                .starts_with("the design runs 8 threads but the machine has 2 cores")
        );
    }
}
