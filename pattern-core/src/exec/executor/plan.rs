//! Compiling a term into a plan: every atom resolved to its kernel, every
//! count bound and checked, `seq`s of steps fused into one step per element
//! and `seq`s over parallel parts turned into phases.

use crate::exec::error::ExecError;
use crate::exec::kernels::{ElementKernel, Kernel, Kernels, MapPhase, ReducePhase};
use crate::{Count, Expr, Term};

/// The most threads a design may ask for; more is refused (a typo such as
/// `tpool[100000]` should not bring the machine down).
pub const MAX_THREADS: usize = 1024;

/// Compiles terms against a kernel registry and the bound counts of an
/// [`Executor`](super::Executor).
pub(super) struct Compiler<'a, E> {
    pub(super) kernels: &'a Kernels<E>,
    pub(super) bindings: &'a [(String, u64)],
}

impl<E> Compiler<'_, E> {
    fn count(&self, count: &Count, pattern: &Term) -> Result<usize, ExecError> {
        let value = match count {
            Count::Fixed(k) => *k,
            Count::Symbol(name) => self
                .bindings
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| ExecError::UnboundCount {
                    name: name.clone(),
                    pattern: pattern.to_string(),
                })?,
        };
        match usize::try_from(value) {
            Ok(v) if (1..=MAX_THREADS).contains(&v) => Ok(v),
            _ => Err(ExecError::Unsupported {
                pattern: pattern.to_string(),
                reason: format!("a count of {value}: counts run from 1 to {MAX_THREADS}"),
            }),
        }
    }

    pub(super) fn compile(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        let plan = self.compile_node(term)?;
        let threads = plan.threads();
        if threads > MAX_THREADS {
            return Err(ExecError::Unsupported {
                pattern: term.to_string(),
                reason: format!("it runs {threads} threads, more than {MAX_THREADS}"),
            });
        }
        Ok(plan)
    }

    fn kernel(&self, name: &str) -> Result<&Kernel<E>, ExecError> {
        self.kernels
            .get(name)
            .ok_or_else(|| ExecError::MissingKernel {
                name: name.to_string(),
                registered: self.kernels.names().join(", "),
            })
    }

    fn compile_node(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        Ok(match term {
            Term::On(..) | Term::Par(..) | Term::Groups(..) | Term::Redist(..) => {
                return Err(ExecError::Unsupported {
                    pattern: term.to_string(),
                    reason: "it places tasks on processor groups, which need a distributed machine, not threads".into(),
                });
            }
            Term::Atom(a) => match self.kernel(&a.name)? {
                Kernel::Element(f) => Plan::Step(Step::Atom {
                    name: a.name.clone(),
                    f: f.clone(),
                }),
                other => {
                    return Err(ExecError::WrongKernel {
                        name: a.name.clone(),
                        expected: "an element kernel",
                        found: other.kind(),
                    });
                }
            },
            Term::Seq(a, b) => {
                let parts = [self.compile_node(a)?, self.compile_node(b)?];
                match parts {
                    [Plan::Step(x), Plan::Step(y)] => Plan::Step(Step::seq(x, y)),
                    parts => Plan::phases(parts),
                }
            }
            Term::Pipe(a, b) => Plan::Pipe(
                Box::new(self.compile_node(a)?),
                Box::new(self.compile_node(b)?),
            ),
            Term::Tpool(n, t) => Plan::Pool(self.count(n, term)?, Box::new(self.compile_node(t)?)),
            Term::MapReduce {
                params,
                map,
                reduce,
                ..
            } => {
                let m = self.count(&params.m, term)?;
                if m != 1 {
                    return Err(ExecError::Unsupported {
                        pattern: term.to_string(),
                        reason: format!(
                            "it runs on m = {m} nodes; the executor runs on one node (m = 1)"
                        ),
                    });
                }
                let n = self.count(&params.n, term)?;
                let (map_name, map) = match &**map {
                    Term::Atom(a) => match self.kernel(&a.name)? {
                        Kernel::Map(f) => (a.name.clone(), f.clone()),
                        other => {
                            return Err(ExecError::WrongKernel {
                                name: a.name.clone(),
                                expected: "a map kernel (Kernels::add_map)",
                                found: other.kind(),
                            });
                        }
                    },
                    other => {
                        return Err(ExecError::Unsupported {
                            pattern: term.to_string(),
                            reason: format!(
                                "its map phase `{other}` is not an atom with a map kernel"
                            ),
                        });
                    }
                };
                let (reduce_name, reduce) = match &**reduce {
                    Term::Atom(a) => match self.kernel(&a.name)? {
                        Kernel::Reduce(f) => (a.name.clone(), f.clone()),
                        other => {
                            return Err(ExecError::WrongKernel {
                                name: a.name.clone(),
                                expected: "a reduce kernel (Kernels::add_reduce)",
                                found: other.kind(),
                            });
                        }
                    },
                    other => {
                        return Err(ExecError::Unsupported {
                            pattern: term.to_string(),
                            reason: format!(
                                "its reduce phase `{other}` is not an atom with a reduce kernel"
                            ),
                        });
                    }
                };
                // The keys declared, `k(x)`, with the bound counts in.
                let bound: Vec<(&str, Expr)> = self
                    .bindings
                    .iter()
                    .map(|(name, v)| (name.as_str(), Expr::num(*v as f64)))
                    .collect();
                let keys = params.k.subs_all(&bound);
                Plan::Step(Step::MapReduce {
                    n,
                    keys,
                    map_name,
                    map,
                    reduce_name,
                    reduce,
                })
            }
        })
    }
}

/// What runs on one thread per element.
pub(super) enum Step<E> {
    Atom {
        name: String,
        f: ElementKernel<E>,
    },
    Seq(Vec<Step<E>>),
    MapReduce {
        n: usize,
        /// The keys declared, `k(x)`: a map's keys run below its value.
        keys: Expr,
        map_name: String,
        map: MapPhase<E>,
        reduce_name: String,
        reduce: ReducePhase<E>,
    },
}

impl<E> Step<E> {
    fn seq(a: Step<E>, b: Step<E>) -> Step<E> {
        let mut steps = Vec::new();
        for s in [a, b] {
            match s {
                Step::Seq(inner) => steps.extend(inner),
                other => steps.push(other),
            }
        }
        Step::Seq(steps)
    }

    pub(super) fn threads(&self) -> usize {
        match self {
            Step::Atom { .. } => 1,
            Step::Seq(steps) => steps.iter().map(Step::threads).max().unwrap_or(1),
            Step::MapReduce { n, .. } => *n,
        }
    }
}

/// The runnable form of a term.
pub(super) enum Plan<E> {
    /// Per element on one thread.
    Step(Step<E>),
    /// Two parts on their own threads, connected by a bounded channel.
    Pipe(Box<Plan<E>>, Box<Plan<E>>),
    /// `n` instances of a part sharing the input and the output.
    Pool(usize, Box<Plan<E>>),
    /// A `seq` over parallel parts: window by window, part after part.
    Phases(Vec<Plan<E>>),
}

impl<E> Plan<E> {
    /// Flattens nested phases and fuses neighbouring steps.
    fn phases(parts: impl IntoIterator<Item = Plan<E>>) -> Plan<E> {
        let mut out: Vec<Plan<E>> = Vec::new();
        for part in parts {
            let inner = match part {
                Plan::Phases(inner) => inner,
                other => vec![other],
            };
            for p in inner {
                match (out.pop(), p) {
                    (Some(Plan::Step(a)), Plan::Step(b)) => out.push(Plan::Step(Step::seq(a, b))),
                    (last, p) => {
                        out.extend(last);
                        out.push(p);
                    }
                }
            }
        }
        Plan::Phases(out)
    }

    pub(super) fn threads(&self) -> usize {
        match self {
            Plan::Step(s) => s.threads(),
            Plan::Pipe(a, b) => a.threads().saturating_add(b.threads()),
            Plan::Pool(n, p) => n.saturating_mul(p.threads()),
            Plan::Phases(parts) => parts.iter().map(Plan::threads).max().unwrap_or(1),
        }
    }
}
