//! The latency semantics: the time one element takes through the design.

use crate::Expr;
use crate::comm::MachineProfile;
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::semantics::flat;
use crate::semantics::{Resolver, Symbolic, Throughput};

/// The latency of one element: a pipeline adds its stages (the element
/// visits each in turn), a task pool is as slow as its body. An element of
/// a mapReduce is a whole job (its `x` inputs mapped by the `m·n` workers,
/// shuffled, its `k(x)` keys reduced), so its latency is the job's time,
/// eq. (5): its [`Throughput`] model. A multi-processor task's latency is
/// likewise its run time, its throughput model.
///
/// ```
/// use pattern_core::Design;
///
/// let d = Design::parse("a = 3*x; b = 5; pipe(tpool[2](a), b)").unwrap();
/// assert_eq!(d.latency().to_string(), "3·x + 5");
/// assert_eq!(d.model().to_string(), "max(1.5·x, 5)");
///
/// // One job of x inputs: x maps, the shuffle, 4 reduces, on 2 workers.
/// let mr = Design::parse(
///     "map = 10; shuffle = 100; reduce = 3*x;
///      mapreduce[m = 1, n = 2, d = x/4, k = 4](map, shuffle, reduce)",
/// )
/// .unwrap();
/// assert_eq!(mr.latency(), mr.model());
/// // 1000·10/2 + 100 + 4·(3·250)/2
/// assert_eq!(mr.latency().eval(&[("x", 1000.0)]).unwrap(), 6600.0);
/// ```
///
/// With a machine profile ([`Latency::machine`]) the machine functions of
/// the models are resolved against it, as [`Throughput::machine`] does.
#[derive(Clone, Debug)]
pub struct Latency<R = Symbolic> {
    throughput: Throughput<R>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            throughput: Throughput::new(),
        }
    }
}

/// The latency of a part, with its throughput model (what the processor
/// group patterns and a mapReduce take as their latency).
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

    /// The latency with the models' machine functions resolved against
    /// `profile`.
    pub fn machine(self, profile: &MachineProfile) -> Latency<&MachineProfile> {
        Latency {
            throughput: self.throughput.machine(profile),
        }
    }
}

impl<R: Resolver + Clone> Latency<R> {
    /// The latency of `term` under this semantics, as built (not
    /// simplified).
    pub fn latency_of(&self, term: &Term) -> Result<Expr, R::Error> {
        fold(term, &mut self.clone()).map(Expr::from)
    }
}

fn split(parts: Vec<Timed>) -> (Vec<Expr>, Vec<Expr>) {
    parts.into_iter().map(|p| (p.latency, p.time)).unzip()
}

impl<R: Resolver> Semantics for Latency<R> {
    type Value = Timed;
    type Error = R::Error;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Timed, R::Error> {
        // An atom's latency is its time, its model resolved.
        Ok(run_time(self.throughput.atom(atom, scope)?))
    }

    fn seq(&mut self, parts: Vec<Timed>, scope: &Scope) -> Result<Timed, R::Error> {
        let (latency, times) = split(parts);
        Ok(Timed {
            latency: flat::sum(latency),
            time: self.throughput.seq(times, scope)?,
        })
    }

    fn pipe(&mut self, stages: Vec<Timed>, scope: &Scope) -> Result<Timed, R::Error> {
        let (latency, times) = split(stages);
        Ok(Timed {
            latency: flat::sum(latency),
            time: self.throughput.pipe(times, scope)?,
        })
    }

    fn tpool(&mut self, n: &Count, body: Timed, scope: &Scope) -> Result<Timed, R::Error> {
        Ok(Timed {
            time: self.throughput.tpool(n, body.time, scope)?,
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
    ) -> Result<Timed, R::Error> {
        // The element is the whole job: its latency is the job's time.
        Ok(run_time(self.throughput.map_reduce(
            params,
            map.time,
            shuffle,
            reduce.time,
            scope,
        )?))
    }

    fn on(&mut self, p: &Count, body: Timed, scope: &Scope) -> Result<Timed, R::Error> {
        Ok(run_time(self.throughput.on(p, body.time, scope)?))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Timed>,
        scope: &Scope,
    ) -> Result<Timed, R::Error> {
        let (_, times) = split(parts);
        Ok(run_time(self.throughput.par(sizes, times, scope)?))
    }

    fn groups(&mut self, s: &Count, body: Timed, scope: &Scope) -> Result<Timed, R::Error> {
        Ok(run_time(self.throughput.groups(s, body.time, scope)?))
    }

    fn redist(
        &mut self,
        cost: &Expr,
        a: Timed,
        b: Timed,
        scope: &Scope,
    ) -> Result<Timed, R::Error> {
        Ok(run_time(
            self.throughput.redist(cost, a.time, b.time, scope)?,
        ))
    }

    fn program(&mut self, value: Timed) -> Result<Timed, R::Error> {
        Ok(Timed {
            latency: self.throughput.program(value.latency)?,
            time: self.throughput.program(value.time)?,
        })
    }
}

/// A multi-processor task or a mapReduce's job: its latency is its run time.
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
