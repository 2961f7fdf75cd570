//! The footprint semantics: the threads and nodes a design occupies — the
//! one definition of a design's threads, which the executor evaluates too.

use crate::Expr;
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::semantics::flat;
use crate::semantics::throughput::group_size;
use std::convert::Infallible;

/// The threads and nodes a design occupies.
#[derive(Clone, Debug, PartialEq)]
pub struct Resources {
    /// Threads running at once: a pipeline adds its stages' threads, a task
    /// pool multiplies its body's by the pool size, a mapReduce occupies
    /// `m·n` workers each as wide as its widest phase, a multi-processor
    /// task its processors.
    pub threads: Expr,
    /// Compute nodes: `m` for a mapReduce, 1 otherwise.
    pub nodes: Expr,
}

/// The footprint semantics ([`Resources`]).
///
/// ```
/// use pattern_core::Design;
///
/// let d = Design::parse("a = x; b = x; pipe(tpool[4](a), tpool[n](b))").unwrap();
/// assert_eq!(d.resources().threads.to_string(), "n + 4");
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

fn widest(parts: Vec<Resources>, threads: fn(Vec<Expr>) -> Expr) -> Resources {
    let (t, n): (Vec<Expr>, Vec<Expr>) = parts.into_iter().map(|r| (r.threads, r.nodes)).unzip();
    Resources {
        threads: threads(t),
        nodes: flat::max(n),
    }
}

/// Processor groups: their processors, on one node.
fn processors(threads: Expr) -> Resources {
    Resources {
        threads,
        nodes: one(),
    }
}

impl Semantics for Footprint {
    type Value = Resources;
    type Error = Infallible;

    fn atom(&mut self, _: &Atom, _: &Scope) -> Result<Resources, Infallible> {
        Ok(processors(one()))
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
            threads: flat::product(vec![params.m.to_expr(), params.n.to_expr(), per_worker]),
            nodes: params.m.to_expr(),
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
