//! The footprint semantics: the threads and nodes a design occupies, and
//! the most threads it puts on one node, where a machine's cores must hold
//! them for the operators' assumption of a core per thread. The threads
//! follow the grammar's one definition of them ([`crate::grammar::threads`],
//! which its check counts in whole numbers), here as expressions; the
//! executor and exploration evaluate these.

use crate::grammar::threads::{self, ThreadCount};
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Site, Term, fold};
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

/// Threads as an expression, counted by the grammar's rules of a design's
/// threads ([`crate::grammar::threads`]): counts stay symbols, nothing
/// overflows.
struct Symbolic(Expr);

impl ThreadCount for Symbolic {
    type Error = Infallible;

    fn one() -> Symbolic {
        Symbolic(one())
    }

    fn count(c: &Count) -> Symbolic {
        Symbolic(c.to_expr())
    }

    fn widest(parts: Vec<Symbolic>) -> Symbolic {
        Symbolic(flat::max(parts.into_iter().map(|t| t.0).collect()))
    }

    fn sum(parts: Vec<Symbolic>, _: &'static str, _: Site) -> Result<Symbolic, Infallible> {
        Ok(Symbolic(flat::sum(
            parts.into_iter().map(|t| t.0).collect(),
        )))
    }

    fn product(factors: Vec<Symbolic>, _: &[&'static str]) -> Result<Symbolic, Infallible> {
        Ok(Symbolic(flat::product(
            factors.into_iter().map(|t| t.0).collect(),
        )))
    }

    fn groups(s: &Count) -> Symbolic {
        Symbolic(s.to_expr() * group_size(s))
    }
}

/// The threads of each part, counted as expressions.
fn threads_of(parts: &[Resources]) -> Vec<Symbolic> {
    parts.iter().map(|r| Symbolic(r.threads.clone())).collect()
}

/// Parts one after the other (`flat::max`) or at once (`flat::sum`) with
/// `threads` between them: their threads on a node combined alike; the
/// nodes of the widest.
fn combined(parts: Vec<Resources>, threads: Symbolic, combine: fn(Vec<Expr>) -> Expr) -> Resources {
    let mut nodes = Vec::with_capacity(parts.len());
    let mut per_node = Vec::with_capacity(parts.len());
    for r in parts {
        nodes.push(r.nodes);
        per_node.push(r.threads_per_node);
    }
    Resources {
        threads: threads.0,
        nodes: flat::max(nodes),
        threads_per_node: combine(per_node),
    }
}

/// Processor groups: a thread on each of their processors, each a node.
fn processors(threads: Symbolic) -> Resources {
    Resources {
        nodes: threads.0.clone(),
        threads: threads.0,
        threads_per_node: one(),
    }
}

/// What cannot happen: counting in expressions never overflows.
fn counted(threads: Result<Symbolic, Infallible>) -> Symbolic {
    threads.unwrap_or_else(|never| match never {})
}

impl Semantics for Footprint {
    type Value = Resources;
    type Error = Infallible;

    fn atom(&mut self, _: &Atom, _: &Scope) -> Result<Resources, Infallible> {
        Ok(Resources {
            threads: threads::atom::<Symbolic>().0,
            nodes: one(),
            threads_per_node: one(),
        })
    }

    fn seq(&mut self, parts: Vec<Resources>, _: &Scope) -> Result<Resources, Infallible> {
        // One after the other: the widest part.
        let threads = threads::seq(threads_of(&parts));
        Ok(combined(parts, threads, flat::max))
    }

    fn pipe(&mut self, stages: Vec<Resources>, _: &Scope) -> Result<Resources, Infallible> {
        // At once: the stages' threads add up.
        let threads = counted(threads::pipe(threads_of(&stages)));
        Ok(combined(stages, threads, flat::sum))
    }

    fn tpool(&mut self, n: &Count, body: Resources, _: &Scope) -> Result<Resources, Infallible> {
        let threads = counted(threads::tpool(n, Symbolic(body.threads)));
        Ok(Resources {
            threads: threads.0,
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
        let per_worker = flat::max(vec![map.threads.clone(), reduce.threads.clone()]);
        let threads = threads::map_reduce(params, Symbolic(map.threads), Symbolic(reduce.threads));
        Ok(Resources {
            threads: counted(threads).0,
            nodes: params.m.to_expr(),
            threads_per_node: flat::product(vec![params.n.to_expr(), per_worker]),
        })
    }

    fn on(&mut self, p: &Count, _: Resources, _: &Scope) -> Result<Resources, Infallible> {
        Ok(processors(threads::on(p)))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        _: Vec<Resources>,
        _: &Scope,
    ) -> Result<Resources, Infallible> {
        Ok(processors(counted(threads::par(sizes))))
    }

    fn groups(&mut self, s: &Count, _: Resources, _: &Scope) -> Result<Resources, Infallible> {
        Ok(processors(threads::groups(s)))
    }

    fn redist(
        &mut self,
        _: &Expr,
        a: Resources,
        b: Resources,
        _: &Scope,
    ) -> Result<Resources, Infallible> {
        let threads = threads::redist(Symbolic(a.threads.clone()), Symbolic(b.threads.clone()));
        Ok(combined(vec![a, b], threads, flat::max))
    }
}
