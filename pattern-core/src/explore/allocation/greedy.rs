//! RPL-shell's greedy allocation rules, on the inputs of an [`Allocator`],
//! and their gap to the optimum (the rules are stated in the
//! [module overview](super)).

use super::{Allocation, AllocationError, Allocator};
use crate::grammar::{Count, Term};
use crate::semantics::Throughput;

/// A greedy rule of RPL-shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GreedyRule {
    /// [`pipebalance`].
    PipeBalance,
    /// [`maxresources`].
    MaxResources,
}

/// How far a greedy rule is from the optimum on one case.
#[derive(Clone, Debug, PartialEq)]
pub struct GreedyGap {
    /// The rule.
    pub rule: GreedyRule,
    /// The rule's allocation, timed by the allocator's semantics.
    pub greedy: Allocation,
    /// The optimum under the same constraints.
    pub optimum: Allocation,
    /// The greedy time over the optimal time: 1 when the rule is optimal,
    /// never less for an allocation within the budget (pipebalance, which
    /// ignores the budget, may exceed it and then be faster).
    pub gap: f64,
    /// Whether the greedy allocation fits the budget.
    pub within_budget: bool,
}

/// A stage of the pipeline.
enum Stage {
    /// A sequential stage of this time.
    Fixed(f64),
    /// A pool of the count at this index of the allocator's counts, with
    /// this worker time.
    Pool(usize, f64),
}

/// The stages of the allocator's design, with their times at its point.
fn stages(allocator: &Allocator, names: &[String]) -> Result<Vec<Stage>, AllocationError> {
    let at = allocator.point();
    let time = |t: &Term| {
        Throughput::new()
            .expr(t)
            .eval(&at)
            .map_err(|source| AllocationError::Model {
                what: format!("the stage `{t}`"),
                source,
            })
    };
    let symbolic = |t: &Term| {
        t.preorder()
            .any(|n| n.counts().iter().any(|c| matches!(c, Count::Symbol(_))))
    };
    let mut out = Vec::new();
    let mut seen = vec![false; names.len()];
    // A pipeline's stages; any other design is one stage.
    let term = allocator.design.term();
    let stages = match term {
        Term::Pipe(..) => term.chain(),
        _ => vec![term],
    };
    for t in stages {
        match (t, &t.children()[..]) {
            (Term::Tpool(Count::Symbol(name), _), [body]) if !symbolic(body) => {
                let i = names.iter().position(|n| n == name).unwrap_or(0);
                if seen[i] {
                    return Err(AllocationError::NotAPipelineOfPools(format!(
                        "the count `{name}` sizes two stages"
                    )));
                }
                seen[i] = true;
                out.push(Stage::Pool(i, time(body)?));
            }
            (t, _) if !symbolic(t) => out.push(Stage::Fixed(time(t)?)),
            (t, _) => {
                return Err(AllocationError::NotAPipelineOfPools(format!(
                    "the stage `{t}` is neither"
                )));
            }
        }
    }
    Ok(out)
}

/// Counts in the allocator's order, and each pool's count index and
/// worker time.
type Balanced = (Vec<u64>, Vec<(usize, f64)>);

/// The counts of pipebalance, with the pools.
fn balanced(allocator: &Allocator) -> Result<Balanced, AllocationError> {
    let space = allocator.space(&allocator.point())?;
    let stages = stages(allocator, &space.names)?;
    let pools: Vec<(usize, f64)> = stages
        .iter()
        .filter_map(|s| match s {
            Stage::Pool(i, t) => Some((*i, *t)),
            Stage::Fixed(_) => None,
        })
        .collect();
    let slowest_fixed = stages
        .iter()
        .filter_map(|s| match s {
            Stage::Fixed(t) => Some(*t),
            Stage::Pool(..) => None,
        })
        .reduce(f64::max);
    let reference = slowest_fixed.unwrap_or_else(|| {
        pools
            .iter()
            .map(|(_, t)| *t)
            .reduce(f64::min)
            .unwrap_or(0.0)
    });
    let mut counts = space.lo.clone();
    for &(i, t) in &pools {
        let (lo, hi) = (space.lo[i] as f64, space.hi[i] as f64);
        let workers = if reference > 0.0 {
            (t / reference).ceil()
        } else if t > 0.0 {
            hi
        } else {
            lo
        };
        // Clamped in floating point first: the ratio may be huge.
        counts[i] = workers.clamp(lo, hi) as u64;
    }
    Ok((counts, pools))
}

fn timed(allocator: &Allocator, counts: &[u64]) -> Result<Allocation, AllocationError> {
    let names = allocator.counts()?;
    let pairs: Vec<(&str, u64)> = names
        .iter()
        .map(String::as_str)
        .zip(counts.iter().copied())
        .collect();
    allocator.evaluate(&pairs)
}

/// RPL-shell's pipebalance: each pool `nw = ceil(T_w / ts_max)` workers
/// (see the [module overview](super)), in the counts' ranges; the budget is not
/// looked at. Timed by the allocator's semantics.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::allocation::{Allocator, pipebalance};
///
/// // The sequential stage takes 100 ns: pools of 250 and 1000 ns get 3 and 10.
/// let d = Design::parse("read = 100; f = 250; g = 1000; pipe(read, tpool[a](f), tpool[b](g))")?;
/// let p = pipebalance(&Allocator::new(&d, 64))?;
/// assert_eq!((p.count("a"), p.count("b")), (Some(3), Some(10)));
/// assert_eq!((p.threads, p.time_per_element), (14, 100.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pipebalance(allocator: &Allocator) -> Result<Allocation, AllocationError> {
    let (counts, _) = balanced(allocator)?;
    timed(allocator, &counts)
}

/// RPL-shell's maxresources: pipebalance's counts, then one worker less for
/// the fastest pool (smallest `T_w / nw`) at a time until the threads fit
/// the budget. Timed by the allocator's semantics.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::allocation::{Allocator, maxresources};
///
/// let d = Design::parse("read = 100; f = 250; g = 1000; pipe(read, tpool[a](f), tpool[b](g))")?;
/// let m = maxresources(&Allocator::new(&d, 8))?;
/// // From a = 3, b = 10 (14 threads) down to 8, the fastest pool first:
/// // a = 2, b = 9, b = 8, then a and b tie at 125 ns and a goes to 1.
/// assert_eq!((m.count("a"), m.count("b")), (Some(1), Some(6)));
/// assert_eq!(m.time_per_element, 250.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn maxresources(allocator: &Allocator) -> Result<Allocation, AllocationError> {
    let (mut counts, pools) = balanced(allocator)?;
    let space = allocator.space(&allocator.point())?;
    while space.feasible(&counts)?.is_none() {
        let fastest = pools
            .iter()
            .filter(|(i, _)| counts[*i] > space.lo[*i])
            .map(|&(i, t)| (i, t / counts[i] as f64))
            .reduce(|best, next| if next.1 < best.1 { next } else { best });
        match fastest {
            Some((i, _)) => counts[i] -= 1,
            None => {
                return Err(AllocationError::BudgetTooSmall {
                    budget: space.cap,
                    minimum: space.threads(&counts)?.unwrap_or(u64::MAX),
                });
            }
        }
    }
    timed(allocator, &counts)
}

/// A greedy rule's allocation against the optimum on the same inputs
/// (semantics, point, ranges, budget).
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::explore::allocation::{Allocator, GreedyRule, greedy_gap};
///
/// let d = Design::parse("read = 100; f = 250; g = 1000; pipe(read, tpool[a](f), tpool[b](g))")?;
/// let g = greedy_gap(&Allocator::new(&d, 8), GreedyRule::MaxResources)?;
/// // The optimum: a = 2, b = 5 (max(100, 125, 200) = 200 ns) against 250 ns.
/// assert_eq!(g.optimum.time_per_element, 200.0);
/// assert_eq!(g.gap, 1.25);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn greedy_gap(allocator: &Allocator, rule: GreedyRule) -> Result<GreedyGap, AllocationError> {
    let greedy = match rule {
        GreedyRule::PipeBalance => pipebalance(allocator)?,
        GreedyRule::MaxResources => maxresources(allocator)?,
    };
    let within_budget = greedy.threads <= allocator.cap();
    let optimum = allocator.solve()?.allocation;
    let gap = if optimum.time_per_element > 0.0 {
        greedy.time_per_element / optimum.time_per_element
    } else if greedy.time_per_element <= 0.0 {
        1.0
    } else {
        f64::INFINITY
    };
    Ok(GreedyGap {
        rule,
        greedy,
        optimum,
        gap,
        within_budget,
    })
}
