//! A design as the simulator runs it: stages of threads connected by
//! queues. Built by a fold of the design ([`Semantics`]), one meaning of a
//! design among the others.

use super::SimError;
use crate::grammar::fold::{Scope, Semantics};
use crate::{Atom, Count, Expr, MapReduceParams};

/// The most threads a simulated design may have.
pub const MAX_THREADS: u64 = 1 << 20;

/// What the simulator runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Plan {
    /// One thread running these steps (atom, ns) on each element, in order.
    Stage(Vec<(String, f64)>),
    /// Stages connected by bounded buffers.
    Pipe(Vec<Plan>),
    /// `n` workers taking elements from one shared queue.
    Pool(u64, Box<Plan>),
}

/// The fold that builds a [`Plan`]: atoms' durations from their models at
/// the bindings, symbolic counts from the bindings.
pub(crate) struct Planner<'a> {
    pub(crate) at: &'a [(&'a str, f64)],
}

impl Planner<'_> {
    fn count(&self, c: &Count) -> Result<u64, SimError> {
        let value = match c {
            Count::Fixed(k) => return Ok(*k),
            Count::Symbol(name) => self.at.iter().find(|(n, _)| n == name).map(|(_, v)| *v),
        };
        match value {
            Some(v) if v >= 1.0 && v.fract() == 0.0 && v <= MAX_THREADS as f64 => Ok(v as u64),
            _ => Err(SimError::Count {
                count: c.to_string(),
                value,
            }),
        }
    }

    fn unsupported(pattern: &'static str) -> SimError {
        SimError::Unsupported { pattern }
    }
}

impl Semantics for Planner<'_> {
    type Value = Plan;
    type Error = SimError;

    fn atom(&mut self, atom: &Atom, _: &Scope) -> Result<Plan, SimError> {
        let duration = atom.model.eval(self.at).map_err(|e| SimError::Model {
            atom: atom.name.clone(),
            message: e.to_string(),
        })?;
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(SimError::Model {
                atom: atom.name.clone(),
                message: format!(
                    "its model gives {duration} ns: a duration is a finite number >= 0"
                ),
            });
        }
        Ok(Plan::Stage(vec![(atom.name.clone(), duration)]))
    }

    fn seq(&mut self, parts: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        let mut steps = Vec::new();
        for part in parts {
            match part {
                Plan::Stage(s) => steps.extend(s),
                _ => return Err(Self::unsupported("seq of a pipe or a task pool")),
            }
        }
        Ok(Plan::Stage(steps))
    }

    fn pipe(&mut self, stages: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        let mut flat = Vec::with_capacity(stages.len());
        for stage in stages {
            match stage {
                Plan::Pipe(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        Ok(Plan::Pipe(flat))
    }

    fn tpool(&mut self, n: &Count, body: Plan, _: &Scope) -> Result<Plan, SimError> {
        let n = self.count(n)?;
        Ok(match body {
            // n workers each running a pool of m: n·m workers on one queue.
            Plan::Pool(m, inner) => Plan::Pool(n.saturating_mul(m), inner),
            body => Plan::Pool(n, Box::new(body)),
        })
    }

    fn map_reduce(
        &mut self,
        _: &MapReduceParams,
        _: Plan,
        _: &Atom,
        _: Plan,
        _: &Scope,
    ) -> Result<Plan, SimError> {
        Err(Self::unsupported("mapreduce"))
    }

    fn on(&mut self, _: &Count, _: Plan, _: &Scope) -> Result<Plan, SimError> {
        Err(Self::unsupported("on"))
    }

    fn par(&mut self, _: &[Count], _: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        Err(Self::unsupported("par"))
    }

    fn groups(&mut self, _: &Count, _: Plan, _: &Scope) -> Result<Plan, SimError> {
        Err(Self::unsupported("groups"))
    }

    fn redist(&mut self, _: &Expr, _: Plan, _: Plan, _: &Scope) -> Result<Plan, SimError> {
        Err(Self::unsupported("seq[redist]"))
    }
}
