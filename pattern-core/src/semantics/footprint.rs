//! The footprint semantics: the threads and nodes a design occupies — the
//! one definition of a design's threads, which the executor evaluates too —
//! and the most threads it puts on one node, where a machine's cores must
//! hold them for the operators' assumption of a core per thread.

use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::semantics::flat;
use crate::semantics::throughput::group_size;
use crate::{EvalError, Expr};
use std::convert::Infallible;

/// The threads and nodes a design occupies.
#[derive(Clone, Debug, PartialEq)]
pub struct Resources {
    /// Threads running at once: a pipeline adds its stages' threads, a task
    /// pool multiplies its body's by the pool size, a mapReduce occupies
    /// `m·n` workers each as wide as its widest phase, a multi-processor
    /// task its processors.
    pub threads: Expr,
    /// Compute nodes: `m` for a mapReduce, a processor group's processors
    /// (each a node, as the simulator places them), 1 otherwise.
    pub nodes: Expr,
    /// The most threads on one node: a design's stages share node 0, a
    /// mapReduce puts `n` workers on each of its nodes, a processor group
    /// one thread on each of its processors.
    pub threads_per_node: Expr,
}

/// A design's [`Resources`] at a point: whole numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceCounts {
    /// The threads.
    pub threads: u64,
    /// The nodes.
    pub nodes: u64,
    /// The most threads on one node.
    pub threads_per_node: u64,
}

impl Resources {
    /// The resources with the counts (and any variable they name) bound:
    /// each a whole number up to 2^53, or an error naming it.
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("a = x; mapreduce[m = m, n = n, d = x, k = 1](a, a, a)")?;
    /// let r = d.resources().at(&[("m", 4.0), ("n", 8.0)])?;
    /// assert_eq!((r.threads, r.nodes, r.threads_per_node), (32, 4, 8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at(&self, at: &[(&str, f64)]) -> Result<ResourceCounts, ResourceError> {
        let count = |what: &'static str, e: &Expr| -> Result<u64, ResourceError> {
            let v = e.eval(at)?;
            if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= MAX_EXACT {
                Ok(v as u64)
            } else {
                Err(ResourceError::NotACount { what, value: v })
            }
        };
        Ok(ResourceCounts {
            threads: count("threads", &self.threads)?,
            nodes: count("nodes", &self.nodes)?,
            threads_per_node: count("threads per node", &self.threads_per_node)?,
        })
    }
}

/// Why a design's resources have no whole value at a point.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ResourceError {
    /// A count or a variable has no value.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A value that is not a whole number from 0 to 2^53.
    #[error("the design's {what} come to {value}: bind every count to a whole number >= 1")]
    NotACount {
        /// `threads`, `nodes` or `threads per node`.
        what: &'static str,
        /// The value.
        value: f64,
    },
}

/// The largest whole number a float holds exactly.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// The footprint semantics ([`Resources`]).
///
/// ```
/// use pattern_core::Design;
///
/// let d = Design::parse("a = x; b = x; pipe(tpool[4](a), tpool[n](b))").unwrap();
/// assert_eq!(d.resources().threads.to_string(), "n + 4");
/// let m = Design::parse("a = x; mapreduce[m = m, n = n, d = x, k = 1](a, a, a)").unwrap();
/// assert_eq!(m.resources().threads.to_string(), "m·n");
/// assert_eq!(m.resources().threads_per_node.to_string(), "n");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Footprint;

impl Footprint {
    /// The resources of `term`, as built (not simplified).
    pub fn of(term: &Term) -> Resources {
        fold(term, &mut Footprint).unwrap_or_else(|never| match never {})
    }
}

fn one() -> Expr {
    Expr::num(1.0)
}

/// Parts one after the other (`flat::max`) or at once (`flat::sum`): their
/// threads, and their threads on a node, combined alike; the nodes of the
/// widest.
fn widest(parts: Vec<Resources>, combine: fn(Vec<Expr>) -> Expr) -> Resources {
    let mut threads = Vec::with_capacity(parts.len());
    let mut nodes = Vec::with_capacity(parts.len());
    let mut per_node = Vec::with_capacity(parts.len());
    for r in parts {
        threads.push(r.threads);
        nodes.push(r.nodes);
        per_node.push(r.threads_per_node);
    }
    Resources {
        threads: combine(threads),
        nodes: flat::max(nodes),
        threads_per_node: combine(per_node),
    }
}

/// Processor groups: a thread on each of their processors, each a node.
fn processors(processors: Expr) -> Resources {
    Resources {
        threads: processors.clone(),
        nodes: processors,
        threads_per_node: one(),
    }
}

impl Semantics for Footprint {
    type Value = Resources;
    type Error = Infallible;

    fn atom(&mut self, _: &Atom, _: &Scope) -> Result<Resources, Infallible> {
        Ok(Resources {
            threads: one(),
            nodes: one(),
            threads_per_node: one(),
        })
    }

    fn seq(&mut self, parts: Vec<Resources>, _: &Scope) -> Result<Resources, Infallible> {
        // One after the other: the widest part.
        Ok(widest(parts, flat::max))
    }

    fn pipe(&mut self, stages: Vec<Resources>, _: &Scope) -> Result<Resources, Infallible> {
        // At once: the stages' threads add up.
        Ok(widest(stages, flat::sum))
    }

    fn tpool(&mut self, n: &Count, body: Resources, _: &Scope) -> Result<Resources, Infallible> {
        Ok(Resources {
            threads: flat::product(vec![n.to_expr(), body.threads]),
            nodes: body.nodes,
            threads_per_node: flat::product(vec![n.to_expr(), body.threads_per_node]),
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Resources,
        _: &Atom,
        reduce: Resources,
        _: &Scope,
    ) -> Result<Resources, Infallible> {
        let per_worker = flat::max(vec![map.threads, reduce.threads]);
        Ok(Resources {
            threads: flat::product(vec![
                params.m.to_expr(),
                params.n.to_expr(),
                per_worker.clone(),
            ]),
            nodes: params.m.to_expr(),
            threads_per_node: flat::product(vec![params.n.to_expr(), per_worker]),
        })
    }

    fn on(&mut self, p: &Count, _: Resources, _: &Scope) -> Result<Resources, Infallible> {
        Ok(processors(p.to_expr()))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        _: Vec<Resources>,
        _: &Scope,
    ) -> Result<Resources, Infallible> {
        Ok(processors(flat::sum(
            sizes.iter().map(Count::to_expr).collect(),
        )))
    }

    fn groups(&mut self, s: &Count, _: Resources, _: &Scope) -> Result<Resources, Infallible> {
        Ok(processors(s.to_expr() * group_size(s)))
    }

    fn redist(
        &mut self,
        _: &Expr,
        a: Resources,
        b: Resources,
        _: &Scope,
    ) -> Result<Resources, Infallible> {
        Ok(widest(vec![a, b], flat::max))
    }
}
