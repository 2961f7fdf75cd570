//! The ranking's counts from the exact allocation: each candidate's
//! symbolic counts are the ones that minimize its time per element under
//! the budget.

use super::counts::{CountChooser, symbolic_counts};
use crate::Design;
use crate::explore::allocation::{AllocationError, Allocator, DEFAULT_MAX_STEPS, Pricing};
use crate::machine::Machine;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`CountChooser`] that solves an [`Allocator`] for each candidate
/// (under the plain operators unless [`AllocationCounts::pricing`] says
/// otherwise): its symbolic counts are the best under `budget` threads (and
/// `cores`, if set; on a machine, if set) at the ranking's point. A count the point binds to
/// a positive integer is fixed to that value; a design without symbolic
/// counts gets none.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::ranking::{AllocationCounts, CountChooser};
///
/// // max(2000/a, 1000/b) with a + b <= 8: a = 5, b = 3.
/// let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))")?;
/// let counts = AllocationCounts::new(8).choose(&d, &[("x", 1000.0)])?;
/// assert_eq!(counts, [("a".to_string(), 5), ("b".to_string(), 3)]);
/// // `b` fixed to 2 by the point: its stage takes 500 ns, which a = 4
/// // reaches; more workers would not be faster (ties: fewest threads).
/// let counts = AllocationCounts::new(8).choose(&d, &[("x", 1000.0), ("b", 2.0)])?;
/// assert_eq!(counts, [("a".to_string(), 4), ("b".to_string(), 2)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationCounts {
    budget: u64,
    cores: Option<u64>,
    machine: Option<Machine>,
    pricing: Pricing,
    steps: SharedSteps,
}

/// The steps every search of a chooser's clones takes together, and
/// their limit.
#[derive(Clone, Debug)]
struct SharedSteps {
    max: u64,
    taken: Arc<AtomicU64>,
}

impl PartialEq for SharedSteps {
    fn eq(&self, other: &Self) -> bool {
        self.max == other.max && Arc::ptr_eq(&self.taken, &other.taken)
    }
}

impl AllocationCounts {
    /// Counts within `budget` threads.
    pub fn new(budget: u64) -> AllocationCounts {
        AllocationCounts {
            budget,
            cores: None,
            machine: None,
            pricing: Pricing::Operators,
            steps: SharedSteps {
                max: DEFAULT_MAX_STEPS,
                taken: Arc::new(AtomicU64::new(0)),
            },
        }
    }

    /// At most `steps` steps of the allocations' searches over all the
    /// candidates together ([`Allocator::max_steps`]; [`DEFAULT_MAX_STEPS`]
    /// unless set): past them every candidate's choice fails with
    /// [`AllocationError::TooManySteps`], so that a ranking's time is
    /// bounded whatever its budget and semantics.
    pub fn max_steps(mut self, steps: u64) -> AllocationCounts {
        self.steps.max = steps;
        self
    }

    /// Adds the searches' steps to `counter` (shared by the clones of this
    /// chooser, and counted against [`AllocationCounts::max_steps`]), for a
    /// progress bar or a report.
    pub fn count_steps(mut self, counter: Arc<AtomicU64>) -> AllocationCounts {
        self.steps.taken = counter;
        self
    }

    /// Whether the searches have taken every step allowed.
    pub fn steps_exhausted(&self) -> bool {
        self.steps.taken.load(Ordering::Relaxed) >= self.steps.max
    }

    /// The machine the operators' counts must fit ([`Allocator::machine`]).
    pub fn machine(mut self, machine: &Machine) -> AllocationCounts {
        self.machine = Some(machine.clone());
        self
    }

    /// The semantics the counts minimize ([`Allocator::pricing`]).
    pub fn pricing(mut self, pricing: Pricing) -> AllocationCounts {
        self.pricing = pricing;
        self
    }

    /// Counts within `cores` threads as well.
    pub fn cores(mut self, cores: u64) -> AllocationCounts {
        self.cores = Some(cores);
        self
    }
}

/// Whether `v` is a count: a positive integer exact in floating point.
fn as_count(v: f64) -> Option<u64> {
    // Exact integers up to 2^53 only.
    (v.fract() == 0.0 && (1.0..=9.007_199_254_740_992e15).contains(&v)).then_some(v as u64)
}

impl CountChooser for AllocationCounts {
    type Error = AllocationError;

    fn choose(
        &self,
        design: &Design,
        at: &[(&str, f64)],
    ) -> Result<Vec<(String, u64)>, AllocationError> {
        let names = symbolic_counts(design.term());
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut point = Vec::with_capacity(at.len());
        let mut fixed = Vec::new();
        for &(name, value) in at {
            match (names.iter().any(|n| n == name), as_count(value)) {
                (true, Some(count)) => fixed.push((name, count)),
                // A count bound to no count: the allocator names it.
                _ => point.push((name, value)),
            }
        }
        let left = self
            .steps
            .max
            .saturating_sub(self.steps.taken.load(Ordering::Relaxed));
        let mut allocator = Allocator::new(design, self.budget)
            .at(&point)
            .pricing(self.pricing.clone())
            .max_steps(left)
            .count_steps(self.steps.taken.clone());
        if let Some(m) = &self.machine {
            allocator = allocator.machine(m);
        }
        if let Some(cores) = self.cores {
            allocator = allocator.cores(cores);
        }
        for (name, count) in fixed {
            allocator = allocator.range(name, count..=count);
        }
        Ok(allocator.solve()?.allocation.counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::ranking::Ranking;

    /// The chosen counts are the brute-force optimum of
    /// max(3x/a, x/b, 2x/c) under a + b + c <= budget, for every budget.
    #[test]
    fn counts_are_the_brute_force_optimum() {
        let d =
            Design::parse("f = 3*x; g = x; h = 2*x; pipe(tpool[a](f), tpool[b](g), tpool[c](h))")
                .unwrap();
        for budget in 3..=14u64 {
            let mut best = (f64::INFINITY, u64::MAX);
            for a in 1..=budget {
                for b in 1..=budget - a {
                    for c in 1..=budget - a - b {
                        let t = (3.0 / a as f64).max(1.0 / b as f64).max(2.0 / c as f64) * 100.0;
                        if (t, a + b + c) < best {
                            best = (t, a + b + c);
                        }
                    }
                }
            }
            let counts = AllocationCounts::new(budget)
                .choose(&d, &[("x", 100.0)])
                .unwrap();
            let bound: Vec<(&str, f64)> = counts
                .iter()
                .map(|(n, c)| (n.as_str(), *c as f64))
                .collect();
            let mut at = bound.clone();
            at.push(("x", 100.0));
            let t = d.model().eval(&at).unwrap();
            assert!(
                (t - best.0).abs() <= 1e-12 * best.0,
                "budget {budget}: {counts:?}"
            );
            let threads: u64 = counts.iter().map(|(_, c)| c).sum();
            assert_eq!(threads, best.1, "budget {budget}");
        }
    }

    #[test]
    fn fixed_counts_none_and_errors() {
        let d = Design::parse("s = x; tpool[4](s)").unwrap();
        assert_eq!(AllocationCounts::new(4).choose(&d, &[]).unwrap(), []);
        let d = Design::parse("s = x; pipe(tpool[a](s), tpool[b](s))").unwrap();
        let err = AllocationCounts::new(1)
            .choose(&d, &[("x", 1.0)])
            .unwrap_err();
        assert!(
            matches!(err, AllocationError::BudgetTooSmall { minimum: 2, .. }),
            "{err}"
        );
        // Four cores cap a budget of 16.
        let counts = AllocationCounts::new(16)
            .cores(4)
            .choose(&d, &[("x", 1.0)])
            .unwrap();
        assert_eq!(counts, [("a".to_string(), 2), ("b".to_string(), 2)]);
    }

    /// In a ranking, the original's counts are the allocation's.
    #[test]
    fn ranks_with_allocated_counts() {
        let d = Design::parse("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))").unwrap();
        let ranked = Ranking::new(6)
            .top(50)
            .rank(&d, &[("x", 600.0)], &AllocationCounts::new(6))
            .unwrap();
        let original = ranked
            .ranked
            .iter()
            .find(|r| r.steps.is_empty())
            .expect("the original is ranked");
        // max(1200/a, 600/b), a + b <= 6: a = 4, b = 2, 300 ns.
        assert_eq!(
            original.counts,
            [("a".to_string(), 4), ("b".to_string(), 2)]
        );
        assert_eq!(original.time, 300.0);
        assert!(ranked.ranked.iter().all(|r| r.threads <= 6));
        assert!(ranked.ranked[0].time <= 300.0);
    }
}
