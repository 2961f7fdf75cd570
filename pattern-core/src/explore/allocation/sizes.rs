//! The best allocation over a range of sizes: at each size of a grid, the
//! intervals of sizes over which one allocation stays optimal, and the one
//! allocation that loses least over the grid.

use super::evaluation::{BOUND_SLACK, operators_time};
use super::model::model_time;
use super::search::{Pruning, search_with_ties};
use super::space::Space;
use super::steps::StepMeter;
use super::{
    Allocation, AllocationError, Allocator, OperatorsTime, Pricing, QueueingTime, SimulationTime,
    TimeModel,
};

/// Bisections [`Allocator::over_sizes`] makes at most, all brackets
/// together, before it stops with an error: each change point takes about
/// `log2(1 / tolerance)` of them.
pub const MAX_BISECTIONS: usize = 100_000;

/// The best allocations of a design over a range of sizes
/// ([`Allocator::over_sizes`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SizePlan {
    /// The variable swept (`x`).
    pub variable: String,
    /// The best allocation at each size of the grid.
    pub best: Vec<(f64, Allocation)>,
    /// The sizes over which one allocation stays optimal, in order, from
    /// the first size of the grid to the last; two neighbors differ.
    pub intervals: Vec<SizeInterval>,
    /// The allocation whose worst relative loss over the grid is smallest.
    pub robust: Robust,
    /// Calls of the semantics, all searches together.
    pub evaluations: u64,
}

impl SizePlan {
    /// The sizes at which the best allocation changes.
    pub fn change_points(&self) -> Vec<f64> {
        self.intervals.iter().skip(1).map(|i| i.from).collect()
    }
}

/// Sizes over which one allocation is optimal: `from..=to` (an end between
/// two grid sizes is a change point, to the tolerance).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeInterval {
    /// The first size.
    pub from: f64,
    /// The last size.
    pub to: f64,
    /// The allocation's counts.
    pub counts: Vec<(String, u64)>,
}

/// The robust choice: one allocation for the whole grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Robust {
    /// Its counts.
    pub counts: Vec<(String, u64)>,
    /// Its threads.
    pub threads: u64,
    /// Its worst relative loss over the grid: `time / best time - 1` at the
    /// size where that is largest (0 when it is optimal at every size).
    pub worst_loss: f64,
    /// The size of the worst loss.
    pub worst_at: f64,
}

/// A semantics at one size.
enum AtSize<'d> {
    Operators(OperatorsTime),
    Queueing(QueueingTime<'d>, Option<OperatorsTime>),
    Simulation(SimulationTime<'d>),
}

impl AtSize<'_> {
    fn time(
        &self,
        space: &Space,
        counts: &[u64],
        meter: &StepMeter<'_>,
    ) -> Result<f64, AllocationError> {
        match self {
            AtSize::Operators(ops) => operators_time(ops, space, counts),
            AtSize::Queueing(q, _) => model_time(q, space, counts, meter),
            AtSize::Simulation(s) => model_time(s, space, counts, meter),
        }
    }
}

/// `time / best`, with `0 / 0` as 1 (both free).
fn ratio(time: f64, best: f64) -> f64 {
    if best > 0.0 {
        time / best
    } else if time <= 0.0 {
        1.0
    } else {
        f64::INFINITY
    }
}

impl<'d> Allocator<'d> {
    /// The best allocations over the sizes `sizes` of the variable
    /// `variable` (the other variables at the allocator's point), under the
    /// chosen semantics:
    ///
    /// - the best allocation at each size of the grid (each exact);
    /// - the intervals over which one allocation stays optimal: between two
    ///   neighboring grid sizes with different optima, the change is found
    ///   by bisection on the size until its bracket is narrower than the
    ///   tolerance times the size ([`Allocator::tolerance`], 1e-6 relative
    ///   unless set); a third optimum met inside is bracketed the same way.
    ///   An allocation optimal only strictly between two grid sizes whose
    ///   optima agree is not seen: refine the grid to find it;
    /// - the robust allocation: of all feasible allocations, the one whose
    ///   worst relative loss `time(s)/best(s) - 1` over the grid sizes is
    ///   smallest (exact, by the same search: the loss is a maximum of
    ///   models monotone in the pools' counts).
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::explore::allocation::Allocator;
    ///
    /// // A pool whose time grows with x beside one of fixed time, 6 threads:
    /// // max(100x/a, 2000/b) with a + b <= 6.
    /// let d = Design::parse("f = 100*x; g = 2000; pipe(tpool[a](f), tpool[b](g))")?;
    /// let plan = Allocator::new(&d, 6).over_sizes("x", &[10.0, 20.0, 40.0])?;
    /// let counts = |i: usize| (plan.best[i].1.count("a"), plan.best[i].1.count("b"));
    /// assert_eq!(counts(0), (Some(2), Some(4)));
    /// assert_eq!(counts(1), (Some(3), Some(3)));
    /// assert_eq!(counts(2), (Some(4), Some(2)));
    /// // (2, 4) and (3, 3) tie where 50x = 2000/3, (3, 3) and (4, 2) where
    /// // 100x/3 = 1000.
    /// let changes = plan.change_points();
    /// assert!((changes[0] / (40.0 / 3.0) - 1.0).abs() < 1e-6, "{changes:?}");
    /// assert!((changes[1] / 30.0 - 1.0).abs() < 1e-6, "{changes:?}");
    /// // One allocation for all three sizes: (3, 3) loses 1/3 at x = 10
    /// // (667 against 500) and at x = 40 (1333 against 1000).
    /// assert_eq!(plan.robust.counts, [("a".to_string(), 3), ("b".to_string(), 3)]);
    /// assert!((plan.robust.worst_loss - 1.0 / 3.0).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn over_sizes(&self, variable: &str, sizes: &[f64]) -> Result<SizePlan, AllocationError> {
        if sizes.is_empty() {
            return Err(AllocationError::Sizes("no size given".into()));
        }
        if sizes.iter().any(|s| !s.is_finite()) || sizes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(AllocationError::Sizes(format!(
                "the sizes of `{variable}` must be finite and strictly increasing, got {sizes:?}"
            )));
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(AllocationError::Sizes(format!(
                "the tolerance must be a positive number, got {}",
                self.tolerance
            )));
        }
        let mut evaluations = 0;
        let meter = self.meter();
        let mut solve = |size: f64| -> Result<Allocation, AllocationError> {
            let at = self.point_with(variable, size);
            let space = self.space(&at)?;
            let s = self.solve_at(&space, &at, &meter)?;
            evaluations += s.evaluations;
            Ok(s.allocation)
        };
        let mut bisections = 0usize;
        let mut best = Vec::with_capacity(sizes.len());
        for &s in sizes {
            best.push((s, solve(s)?));
        }
        // The change points, left to right: a stack of brackets whose ends
        // have different optima.
        let mut intervals = vec![SizeInterval {
            from: sizes[0],
            to: sizes[0],
            counts: best[0].1.counts.clone(),
        }];
        for pair in best.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let mut stack = vec![(a.0, a.1.counts.clone(), b.0, b.1.counts.clone())];
            while let Some((lo, lo_counts, hi, hi_counts)) = stack.pop() {
                if lo_counts == hi_counts {
                    continue;
                }
                let mid = lo + (hi - lo) / 2.0;
                if hi - lo <= self.tolerance * lo.abs().max(hi.abs()) || mid <= lo || mid >= hi {
                    let last = intervals.len() - 1;
                    intervals[last].to = mid;
                    intervals.push(SizeInterval {
                        from: mid,
                        to: mid,
                        counts: hi_counts,
                    });
                    continue;
                }
                bisections += 1;
                if bisections > MAX_BISECTIONS {
                    return Err(AllocationError::Sizes(format!(
                        "the best allocation changes more often than {MAX_BISECTIONS} bisections can locate between `{variable}` = {} and {}: use a coarser tolerance or fewer sizes",
                        a.0, b.0
                    )));
                }
                let mid_counts = solve(mid)?.counts;
                stack.push((mid, mid_counts.clone(), hi, hi_counts));
                stack.push((lo, lo_counts, mid, mid_counts));
            }
            let last = intervals.len() - 1;
            intervals[last].to = b.0;
        }
        let robust = self.robust(variable, &best, &mut evaluations, &meter)?;
        Ok(SizePlan {
            variable: variable.to_string(),
            best,
            intervals,
            robust,
            evaluations,
        })
    }

    /// The allocator's point with `variable` at `size`.
    fn point_with<'p>(&'p self, variable: &'p str, size: f64) -> Vec<(&'p str, f64)> {
        let mut at: Vec<(&str, f64)> = self
            .point()
            .into_iter()
            .filter(|(n, _)| *n != variable)
            .collect();
        at.push((variable, size));
        at
    }

    /// The allocation that minimizes the worst ratio to the best time over
    /// the grid.
    fn robust(
        &self,
        variable: &str,
        best: &[(f64, Allocation)],
        evaluations: &mut u64,
        meter: &StepMeter<'_>,
    ) -> Result<Robust, AllocationError> {
        let mut space: Option<Space> = None;
        let mut models = Vec::with_capacity(best.len());
        for (size, _) in best {
            let at = self.point_with(variable, *size);
            let here = self.space(&at)?;
            let ops = || self.operators_at(&here, &at);
            models.push(match &self.choice {
                Pricing::Operators => AtSize::Operators(ops()?),
                Pricing::Queueing(m) => {
                    let q = QueueingTime::new(self.design, m, &at);
                    // The operators bound it only on a machine no faster than the models'.
                    let bound = q
                        .bounded_below_by_operators()
                        .then(ops)
                        .and_then(Result::ok);
                    AtSize::Queueing(q, bound)
                }
                Pricing::Simulation(s) => AtSize::Simulation(
                    SimulationTime::new(self.design, &s.machine, &at).elements(s.elements),
                ),
            });
            // Monotone in a count only if it is at every size.
            match &mut space {
                None => space = Some(here),
                Some(sp) => {
                    for (m, h) in sp.monotone.iter_mut().zip(&here.monotone) {
                        *m &= *h;
                    }
                }
            }
        }
        let space = space.ok_or_else(|| AllocationError::Sizes("no size given".into()))?;
        let times: Vec<f64> = best.iter().map(|(_, a)| a.time_per_element).collect();
        let worst = |c: &[u64]| -> Result<(f64, usize), AllocationError> {
            let mut w = (f64::NEG_INFINITY, 0);
            for (i, (m, t)) in models.iter().zip(&times).enumerate() {
                let r = ratio(m.time(&space, c, meter)?, *t);
                if r > w.0 {
                    w = (r, i);
                }
            }
            Ok(w)
        };
        let objective = |c: &[u64]| worst(c).map(|w| w.0);
        let found = match models.first() {
            Some(AtSize::Operators(_)) => search_with_ties(
                &space,
                objective,
                Pruning::<fn(&[u64]) -> Result<f64, AllocationError>>::Itself,
                meter,
            )?,
            Some(AtSize::Queueing(..))
                if models
                    .iter()
                    .all(|m| matches!(m, AtSize::Queueing(_, Some(_)))) =>
            {
                let bound = |c: &[u64]| -> Result<f64, AllocationError> {
                    let mut w = f64::NEG_INFINITY;
                    for (m, t) in models.iter().zip(&times) {
                        if let AtSize::Queueing(_, Some(ops)) = m {
                            w = w.max(ratio(operators_time(ops, &space, c)?, *t));
                        }
                    }
                    Ok(w)
                };
                search_with_ties(
                    &space,
                    objective,
                    Pruning::By {
                        bound,
                        slack: BOUND_SLACK,
                    },
                    meter,
                )?
            }
            _ => search_with_ties(
                &space,
                objective,
                Pruning::<fn(&[u64]) -> Result<f64, AllocationError>>::Threads,
                meter,
            )?,
        };
        *evaluations += found.evaluations;
        let (ratio_worst, at) = worst(&found.counts)?;
        Ok(Robust {
            counts: space.named(&found.counts),
            threads: found.threads,
            worst_loss: ratio_worst - 1.0,
            worst_at: best[at].0,
        })
    }
}
