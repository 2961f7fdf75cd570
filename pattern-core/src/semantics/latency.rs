//! The latency semantics: the time one element takes through the design.

use crate::Expr;
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::semantics::flat;
use crate::semantics::{MapReducePhases, Throughput};
use std::convert::Infallible;

/// The latency of one element: a pipeline adds its stages (the element
/// visits each in turn), a task pool is as slow as its body, a mapReduce
/// takes one map, the shuffle and one reduce. A multi-processor task's
/// latency is its run time, its [`Throughput`] model.
///
/// ```
/// use pattern_core::Design;
///
/// let d = Design::parse("a = 3*x; b = 5; pipe(tpool[2](a), b)").unwrap();
/// assert_eq!(d.latency().to_string(), "3·x + 5");
/// assert_eq!(d.model().to_string(), "max(1.5·x, 5)");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Latency {
    throughput: Throughput,
}

/// The latency of a part, with its throughput model (what the processor
/// group patterns take as their latency).
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    latency: Expr,
    time: Expr,
}

impl Latency {
    /// The latency semantics.
    pub fn new() -> Latency {
        Latency::default()
    }

    /// The latency of `term`, as built (not simplified).
    pub fn of(term: &Term) -> Expr {
        fold(term, &mut Latency::new())
            .map(Expr::from)
            .unwrap_or_else(|never| match never {})
    }
}

/// Runs the throughput semantics alongside.
fn time(f: impl FnOnce(&mut Throughput) -> Result<Expr, Infallible>, t: &mut Throughput) -> Expr {
    f(t).unwrap_or_else(|never| match never {})
}

fn split(parts: Vec<Timed>) -> (Vec<Expr>, Vec<Expr>) {
    parts.into_iter().map(|p| (p.latency, p.time)).unzip()
}

impl Semantics for Latency {
    type Value = Timed;
    type Error = Infallible;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Timed, Infallible> {
        Ok(Timed {
            latency: atom.model.clone(),
            time: time(|t| t.atom(atom, scope), &mut self.throughput),
        })
    }

    fn seq(&mut self, parts: Vec<Timed>, scope: &Scope) -> Result<Timed, Infallible> {
        let (latency, times) = split(parts);
        Ok(Timed {
            latency: flat::sum(latency),
            time: time(|t| t.seq(times, scope), &mut self.throughput),
        })
    }

    fn pipe(&mut self, stages: Vec<Timed>, scope: &Scope) -> Result<Timed, Infallible> {
        let (latency, times) = split(stages);
        Ok(Timed {
            latency: flat::sum(latency),
            time: time(|t| t.pipe(times, scope), &mut self.throughput),
        })
    }

    fn tpool(&mut self, n: &Count, body: Timed, scope: &Scope) -> Result<Timed, Infallible> {
        Ok(Timed {
            time: time(|t| t.tpool(n, body.time, scope), &mut self.throughput),
            latency: body.latency,
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Timed,
        shuffle: &Atom,
        reduce: Timed,
        scope: &Scope,
    ) -> Result<Timed, Infallible> {
        let phases = MapReducePhases::new(params, map.latency, &shuffle.model, reduce.latency);
        Ok(Timed {
            latency: flat::sum(vec![phases.map_one, phases.shuffle, phases.reduce_d]),
            time: time(
                |t| t.map_reduce(params, map.time, shuffle, reduce.time, scope),
                &mut self.throughput,
            ),
        })
    }

    fn on(&mut self, p: &Count, body: Timed, scope: &Scope) -> Result<Timed, Infallible> {
        Ok(run_time(time(
            |t| t.on(p, body.time, scope),
            &mut self.throughput,
        )))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Timed>,
        scope: &Scope,
    ) -> Result<Timed, Infallible> {
        let (_, times) = split(parts);
        Ok(run_time(time(
            |t| t.par(sizes, times, scope),
            &mut self.throughput,
        )))
    }

    fn groups(&mut self, s: &Count, body: Timed, scope: &Scope) -> Result<Timed, Infallible> {
        Ok(run_time(time(
            |t| t.groups(s, body.time, scope),
            &mut self.throughput,
        )))
    }

    fn redist(
        &mut self,
        cost: &Expr,
        a: Timed,
        b: Timed,
        scope: &Scope,
    ) -> Result<Timed, Infallible> {
        Ok(run_time(time(
            |t| t.redist(cost, a.time, b.time, scope),
            &mut self.throughput,
        )))
    }

    fn program(&mut self, value: Timed) -> Result<Timed, Infallible> {
        Ok(Timed {
            latency: time(|t| t.program(value.latency), &mut self.throughput),
            time: time(|t| t.program(value.time), &mut self.throughput),
        })
    }
}

/// A multi-processor task: its latency is its run time.
fn run_time(time: Expr) -> Timed {
    Timed {
        latency: time.clone(),
        time,
    }
}

impl From<Timed> for Expr {
    fn from(t: Timed) -> Expr {
        t.latency
    }
}

impl Timed {
    /// The latency.
    pub fn latency(&self) -> &Expr {
        &self.latency
    }

    /// The throughput model of the same part.
    pub fn time(&self) -> &Expr {
        &self.time
    }
}
