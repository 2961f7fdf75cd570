//! The best designs reachable from a design under a thread budget: the
//! laws' rewrites ([`crate::laws::Rule`]) and the moves that add threads
//! ([`Move`]), searched breadth-first within bounds (nested pools of fixed
//! counts fused after each move, [`fuse_pools`]), each candidate's
//! symbolic counts chosen by a [`CountChooser`], ranked by the time per
//! element at a point.
//!
//! ```
//! use pattern_core::Design;
//! use pattern_core::explore::ranking::{PointCounts, Ranking};
//!
//! let d = Design::parse("a = 2*x; b = x; seq(a, b)")?;
//! let best = Ranking::new(2).top(3).rank(&d, &[("x", 10.0)], &PointCounts)?;
//! // A pool of two runs both parts on each element: 3x/2 = 15 ns.
//! assert_eq!(best.ranked[0].design.term().to_string(), "tpool[2](seq(a, b))");
//! assert_eq!(best.ranked[0].time, 15.0);
//! assert_eq!(best.ranked[0].threads, 2);
//! // Then the pool distributed over the parts (as fast: margin 1), then
//! // pipe(a, b) at max(2x, x) = 20 ns.
//! assert_eq!(best.ranked[0].margin, Some(1.0));
//! assert_eq!(best.ranked[1].design.term().to_string(), "seq(tpool[2](a), tpool[2](b))");
//! assert_eq!(best.ranked[2].design.term().to_string(), "pipe(a, b)");
//! assert_eq!(best.ranked[1].margin, Some(20.0 / 15.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod allocation_counts;
mod counts;
mod moves;
mod order;

pub use allocation_counts::AllocationCounts;
pub use counts::{CountChooser, PointCountError, PointCounts, symbolic_counts};
pub use moves::{Move, canonical_key, canonical_key_at, fuse_pools};

use crate::explore::allocation::Pricing;
use crate::laws::Rule;
use crate::semantics::ResourceError;
use crate::{Design, EvalError, Expr, Growth, Term};
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest design (in nodes, [`Term::size`]) the ranking searches
/// from: each step rebuilds a candidate per sub-term, so the work grows
/// with the square of the size.
pub const MAX_RANKED_SIZE: usize = 256;

/// The search and the ranking: a thread budget, how many designs to keep,
/// the variable of the growth classes, the moves and the bounds of the
/// search.
///
/// The order: fastest first, times within 1e-9 (relative)
/// of the fastest of their group counting as equal; equal times ranked by
/// fewer threads, then the smaller design ([`Term::size`]), then fewer
/// steps from the original (the original first), then the canonical text
/// ([`canonical_key`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    budget: u64,
    top: usize,
    var: String,
    moves: Vec<Move>,
    max_steps: usize,
    max_designs: usize,
    pricing: Pricing,
}

/// A design of a ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedDesign {
    /// The design (its counts as found; see [`RankedDesign::counts`]).
    pub design: Design,
    /// The moves from the original design to this one.
    pub steps: Vec<Move>,
    /// The counts chosen for its symbolic counts.
    pub counts: Vec<(String, u64)>,
    /// Its model, [`Design::model`] (counts left symbolic).
    pub model: Expr,
    /// The growth class of the model, counts bound, in the ranking's
    /// variable (`None` when it cannot be told).
    pub class: Option<Growth>,
    /// Its time per element at the point, counts bound.
    pub time: f64,
    /// Its threads, counts bound.
    pub threads: u64,
    /// The next design's time over this one's: exactly 1 when the next
    /// ties with it (both in one group of times within
    /// 1e-9 (relative) of the group's fastest), more than 1 otherwise;
    /// `None` for the last design found.
    pub margin: Option<f64>,
}

/// Why a candidate was left out of the ranking.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Rejection {
    /// The chooser gave no counts.
    #[error("no counts: {0}")]
    Counts(String),
    /// The model or the threads cannot be evaluated at the point.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The threads are no positive integer at the point.
    #[error("the design occupies {0} threads, not a positive integer")]
    Threads(f64),
    /// The semantics that times the candidates failed.
    #[error("{0}")]
    Pricing(String),
}

/// A candidate left out, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The design.
    pub design: Design,
    /// Why.
    pub reason: Rejection,
}

/// What [`Ranking::rank`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// The best designs, fastest first. Times within 1e-9 (relative)
    /// (relative) of the fastest of a group count as equal (the normal
    /// form rounds coefficients to 12 digits); such ties go to fewer
    /// threads, then the smaller design ([`Term::size`]), then fewer steps
    /// (the original first), then the canonical text ([`canonical_key`]).
    pub ranked: Vec<RankedDesign>,
    /// The candidates left out (not searched from).
    pub rejected: Vec<Rejected>,
    /// Candidates over the budget (not searched from: no move frees a
    /// thread).
    pub over_budget: usize,
    /// Distinct candidates evaluated, the original included.
    pub explored: usize,
    /// Candidates left out as the same design as one ranked before them
    /// once their counts are chosen ([`canonical_key_at`]):
    /// `tpool[n](tpool[7](a))` at `n = 1` beside `tpool[m](a)` at `m = 7`.
    pub merged: usize,
}

/// Why a ranking could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RankError {
    /// A budget of no thread.
    #[error("the thread budget must be at least 1")]
    ZeroBudget,
    /// A ranking of no design.
    #[error("the ranking must keep at least one design (top 0)")]
    ZeroTop,
    /// A design too large to search from.
    #[error("the design has {size} nodes, more than the {max} the ranking searches from")]
    TooLarge {
        /// Its size.
        size: usize,
        /// [`MAX_RANKED_SIZE`].
        max: usize,
    },
    /// A value of the point that is not finite.
    #[error("the point binds `{name}` to {value}, not a finite number")]
    Binding {
        /// The variable.
        name: String,
        /// Its value.
        value: f64,
    },
    /// The original design itself cannot be evaluated.
    #[error("the design `{design}` cannot be ranked: {reason}")]
    Original {
        /// The design's term, as text.
        design: String,
        /// Why.
        reason: Rejection,
    },
    /// The original design is over the budget, and so is every design
    /// reachable from it.
    #[error("the design occupies {threads} threads, over the budget of {budget}")]
    OverBudget {
        /// Its threads.
        threads: u64,
        /// The budget.
        budget: u64,
    },
}

impl Ranking {
    /// A ranking under a budget of `budget` threads: the top 10 designs,
    /// classes in `x`, every law and every move that adds threads, up to 4
    /// steps from the original and 500 candidates.
    pub fn new(budget: u64) -> Ranking {
        let mut moves: Vec<Move> = Rule::ALL.iter().map(|&r| Move::Law(r)).collect();
        moves.extend(Move::PARALLELIZE);
        Ranking {
            budget,
            top: 10,
            var: "x".to_string(),
            moves,
            max_steps: 4,
            max_designs: 500,
            pricing: Pricing::Operators,
        }
    }

    /// Time the candidates by `pricing` (the plain operators unless set):
    /// the queueing or simulated semantics on a machine. Pair it with a
    /// chooser that minimizes the same ([`AllocationCounts::pricing`]).
    pub fn pricing(mut self, pricing: Pricing) -> Ranking {
        self.pricing = pricing;
        self
    }

    /// Keep the best `k` designs.
    pub fn top(mut self, k: usize) -> Ranking {
        self.top = k;
        self
    }

    /// The variable of the growth classes.
    pub fn var(mut self, var: &str) -> Ranking {
        self.var = var.to_string();
        self
    }

    /// Only these moves (`Move::Law` for the laws alone: the threads then
    /// never change).
    pub fn moves(mut self, moves: &[Move]) -> Ranking {
        self.moves = moves.to_vec();
        self
    }

    /// At most this many moves from the original.
    pub fn max_steps(mut self, steps: usize) -> Ranking {
        self.max_steps = steps;
        self
    }

    /// Evaluate at most this many distinct candidates, the original
    /// included.
    pub fn max_designs(mut self, designs: usize) -> Ranking {
        self.max_designs = designs;
        self
    }

    /// The best designs reachable from `design` within the budget, at the
    /// point `at` (the models' variables; [`PointCounts`] also takes the
    /// symbolic counts from it), with the counts `chooser` gives.
    pub fn rank<C: CountChooser + ?Sized>(
        &self,
        design: &Design,
        at: &[(&str, f64)],
        chooser: &C,
    ) -> Result<Ranked, RankError> {
        self.rank_counting(design, at, chooser, &AtomicU64::new(0))
    }

    /// [`Ranking::rank`], storing in `explored` the candidates explored so
    /// far as it goes (up to [`Ranking::max_designs`]), so that another
    /// thread can show its progress.
    pub fn rank_counting<C: CountChooser + ?Sized>(
        &self,
        design: &Design,
        at: &[(&str, f64)],
        chooser: &C,
        explored: &AtomicU64,
    ) -> Result<Ranked, RankError> {
        self.check(design, at)?;
        let mut out = Ranked {
            ranked: Vec::new(),
            rejected: Vec::new(),
            over_budget: 0,
            explored: 1,
            merged: 0,
        };
        match self.evaluate(design, Vec::new(), at, chooser) {
            Err(reason) => {
                return Err(RankError::Original {
                    design: design.term().to_string(),
                    reason,
                });
            }
            Ok(first) if first.threads > self.budget => {
                return Err(RankError::OverBudget {
                    threads: first.threads,
                    budget: self.budget,
                });
            }
            Ok(first) => out.ranked.push(first),
        }
        let mut seen = HashSet::from([canonical_key(design.term())]);
        let mut queue: VecDeque<(Term, Vec<Move>)> =
            VecDeque::from([(design.term().clone(), Vec::new())]);
        'search: while let Some((term, steps)) = queue.pop_front() {
            if steps.len() >= self.max_steps {
                continue;
            }
            for &m in &self.moves {
                for next in m.apply_everywhere(&term) {
                    if out.explored >= self.max_designs {
                        break 'search;
                    }
                    // A move may build what the checker rejects (a pool
                    // around a mapReduce): no design, no candidate.
                    let Ok(candidate) = Design::from_term(fuse_pools(next)) else {
                        continue;
                    };
                    if !seen.insert(canonical_key(candidate.term())) {
                        continue;
                    }
                    out.explored += 1;
                    explored.store(out.explored as u64, Ordering::Relaxed);
                    let mut path = steps.clone();
                    path.push(m);
                    match self.evaluate(&candidate, path.clone(), at, chooser) {
                        Err(reason) => out.rejected.push(Rejected {
                            design: candidate,
                            reason,
                        }),
                        Ok(found) if found.threads > self.budget => out.over_budget += 1,
                        Ok(found) => {
                            queue.push_back((candidate.term().clone(), path));
                            out.ranked.push(found);
                        }
                    }
                }
            }
        }
        order::sort_ranked(&mut out.ranked);
        // The first of each design as its counts make it, in the order:
        // the fastest, then the fewest threads, the smallest, the nearest.
        let mut keys = HashSet::new();
        let before = out.ranked.len();
        out.ranked
            .retain(|r| keys.insert(canonical_key_at(r.design.term(), &r.counts)));
        out.merged = before - out.ranked.len();
        order::sort_ranked(&mut out.ranked);
        out.ranked.truncate(self.top);
        Ok(out)
    }

    fn check(&self, design: &Design, at: &[(&str, f64)]) -> Result<(), RankError> {
        if self.budget == 0 {
            return Err(RankError::ZeroBudget);
        }
        if self.top == 0 {
            return Err(RankError::ZeroTop);
        }
        let size = design.term().size();
        if size > MAX_RANKED_SIZE {
            return Err(RankError::TooLarge {
                size,
                max: MAX_RANKED_SIZE,
            });
        }
        if let Some(&(name, value)) = at.iter().find(|(_, v)| !v.is_finite()) {
            return Err(RankError::Binding {
                name: name.to_string(),
                value,
            });
        }
        Ok(())
    }

    /// A candidate's counts, threads, model, class and time (no margin).
    fn evaluate<C: CountChooser + ?Sized>(
        &self,
        design: &Design,
        steps: Vec<Move>,
        at: &[(&str, f64)],
        chooser: &C,
    ) -> Result<RankedDesign, Rejection> {
        let counts = chooser
            .choose(design, at)
            .map_err(|e| Rejection::Counts(e.to_string()))?;
        // The counts first: they win over the point's values of the same name.
        let mut bindings: Vec<(&str, f64)> = counts
            .iter()
            .map(|(n, k)| (n.as_str(), *k as f64))
            .collect();
        bindings.extend(
            at.iter()
                .filter(|(n, _)| counts.iter().all(|(c, _)| c != n)),
        );
        // Counted in integers: exact, never a rounded model's.
        let threads = match design.resource_counts(&bindings) {
            Ok(r) => r.threads,
            Err(ResourceError::Eval(e)) => return Err(e.into()),
            Err(ResourceError::NotACount { value, .. }) => return Err(Rejection::Threads(value)),
        };
        let model = design.model();
        let time = match &self.pricing {
            Pricing::Operators => model.eval(&bindings)?,
            other => (other.time_per_element(design, &bindings))
                .map_err(|e| Rejection::Pricing(e.to_string()))?,
        };
        let fixed: Vec<(&str, Expr)> = counts
            .iter()
            .map(|(n, k)| (n.as_str(), Expr::num(*k as f64)))
            .collect();
        let class = model.subs_all(&fixed).growth(&self.var);
        Ok(RankedDesign {
            design: design.clone(),
            steps,
            counts,
            model,
            class,
            time,
            threads,
            margin: None,
        })
    }
}
