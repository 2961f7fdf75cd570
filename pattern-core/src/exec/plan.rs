//! Compiling a term into a plan: every atom resolved to its kernel, every
//! count bound and checked, `seq`s of steps fused into one step per element
//! and `seq`s over parallel parts turned into phases. Both runners (the
//! [`Executor`](super::Executor), the rayon runner) run this plan: one
//! grammar, one checker, one fold.

use crate::exec::context::Ctx;
use crate::exec::error::ExecError;
use crate::exec::kernels::{ElementKernel, Kernel, Kernels, MapPhase, ReducePhase};
use crate::exec::phase::{PhaseThreads, Workers};
use crate::grammar::{Atom, MapReduceParams, Scope, Semantics, fold};
use crate::semantics::Footprint;
use crate::{Count, Expr, Term};

/// The most threads a design may ask for; more is refused (a typo such as
/// `tpool[100000]` should not bring the machine down).
pub const MAX_THREADS: usize = 1024;

/// The deepest the runners nest pipelines and task pools (a pipeline of
/// `k` stages nests `k − 1` deep): they run a plan by recursion, and this
/// much runs on a 2 MiB thread; deeper is refused before a plan is built.
pub const MAX_NESTING: usize = 512;

/// Why `on`, `par`, `groups` and `seq[redist]` do not run here.
const PROCESSOR_GROUPS: &str =
    "it places tasks on processor groups, which need a distributed machine, not threads";

/// Compiles terms against a kernel registry and the bound counts of a
/// runner.
pub(crate) struct Compiler<'a, E> {
    pub(crate) kernels: &'a Kernels<E>,
    pub(crate) bindings: &'a [(String, u64)],
}

impl<E> Compiler<'_, E> {
    /// A count bound and checked; `pattern` names the node in an error.
    fn count(&self, count: &Count, pattern: impl Fn() -> String) -> Result<usize, ExecError> {
        let value = match count {
            Count::Fixed(k) => *k,
            Count::Symbol(name) => self
                .bindings
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| ExecError::UnboundCount {
                    name: name.clone(),
                    pattern: pattern(),
                })?,
        };
        match usize::try_from(value) {
            Ok(v) if (1..=MAX_THREADS).contains(&v) => Ok(v),
            _ => Err(ExecError::Unsupported {
                pattern: pattern(),
                reason: format!("a count of {value}: counts run from 1 to {MAX_THREADS}"),
            }),
        }
    }

    /// The plan of `term`: each node checked in pre-order (so that the
    /// first error is the one nearest the root, left first), then the plan
    /// built bottom-up through the fold, so that a term of any depth
    /// compiles on any thread's stack.
    pub(crate) fn compile(&self, term: &Term) -> Result<Plan<E>, ExecError> {
        // Each node with the pipelines and task pools around it.
        let mut todo = vec![(term, 0usize)];
        while let Some((node, nesting)) = todo.pop() {
            self.check_node(node)?;
            let nesting = nesting + usize::from(matches!(node, Term::Tpool(..) | Term::Pipe(..)));
            if nesting > MAX_NESTING {
                return Err(ExecError::Unsupported {
                    pattern: format!("the pipeline or task pool at depth {nesting}"),
                    reason: format!("pipelines and task pools nest more than {MAX_NESTING} deep"),
                });
            }
            // A mapReduce's phases are its kernels, checked with it.
            if !matches!(node, Term::MapReduce { .. }) {
                todo.extend(node.children().into_iter().rev().map(|c| (c, nesting)));
            }
        }
        // The design's threads (its one definition, the footprint), before
        // a plan is built: so many pipeline stages and pools are refused
        // before they nest.
        let threads = self.threads(term)?;
        if threads > MAX_THREADS as f64 {
            return Err(ExecError::Unsupported {
                pattern: term.to_string(),
                reason: format!("it runs {threads} threads, more than {MAX_THREADS}"),
            });
        }
        fold(term, &mut Plans { compiler: self })?.plan()
    }

    /// The threads `term` runs at once, checked and compiled as a run
    /// would be: its footprint with the counts bound, a whole number.
    pub(crate) fn thread_count(&self, term: &Term) -> Result<usize, ExecError> {
        term.check()?;
        self.compile(term)?;
        Ok(self.threads(term)?.round().max(1.0) as usize)
    }

    /// The threads of `term` with the counts bound: its footprint.
    pub(crate) fn threads(&self, term: &Term) -> Result<f64, ExecError> {
        let env: Vec<(&str, f64)> = self
            .bindings
            .iter()
            .map(|(name, value)| (name.as_str(), *value as f64))
            .collect();
        Footprint::of(term)
            .threads
            .eval(&env)
            .map_err(|e| ExecError::InvalidOption(format!("the thread count of `{term}`: {e}")))
    }

    fn kernel(&self, name: &str) -> Result<&Kernel<E>, ExecError> {
        self.kernels
            .get(name)
            .ok_or_else(|| ExecError::MissingKernel {
                name: name.to_string(),
                registered: self.kernels.names().join(", "),
            })
    }

    /// What a node alone asks of the executor: its kernels and counts; the
    /// errors in the order a node's parts are written.
    fn check_node(&self, node: &Term) -> Result<(), ExecError> {
        match (node, &node.children()[..]) {
            (Term::On(..) | Term::Par(..) | Term::Groups(..) | Term::Redist(..), _) => {
                Err(ExecError::Unsupported {
                    pattern: node.to_string(),
                    reason: PROCESSOR_GROUPS.into(),
                })
            }
            (Term::Atom(a), _) => self.element(a).map(drop),
            (Term::Tpool(n, _), _) => self.count(n, || node.to_string()).map(drop),
            (Term::MapReduce { params, .. }, [map, reduce]) => {
                let m = self.count(&params.m, || node.to_string())?;
                if m != 1 {
                    return Err(ExecError::Unsupported {
                        pattern: node.to_string(),
                        reason: format!(
                            "it runs on m = {m} nodes; the executor runs on one node (m = 1)"
                        ),
                    });
                }
                self.count(&params.n, || node.to_string())?;
                self.phase(node, map, "map")?;
                self.phase(node, reduce, "reduce")?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The element kernel of atom `a`.
    fn element(&self, a: &Atom) -> Result<ElementKernel<E>, ExecError> {
        match self.kernel(&a.name)? {
            Kernel::Element(f) => Ok(f.clone()),
            other => Err(ExecError::WrongKernel {
                name: a.name.clone(),
                expected: "an element kernel",
                found: other.kind(),
            }),
        }
    }

    /// Checks that a mapReduce's `phase` (`"map"` or `"reduce"`) is an atom
    /// with a kernel of its kind.
    fn phase(&self, node: &Term, phase: &Term, which: &str) -> Result<(), ExecError> {
        let Term::Atom(a) = phase else {
            return Err(ExecError::Unsupported {
                pattern: node.to_string(),
                reason: format!("its {which} phase `{phase}` is not an atom with a {which} kernel"),
            });
        };
        match (which, self.kernel(&a.name)?) {
            ("map", Kernel::Map(_)) | ("reduce", Kernel::Reduce(_)) => Ok(()),
            ("map", other) => Err(ExecError::WrongKernel {
                name: a.name.clone(),
                expected: "a map kernel (Kernels::add_map)",
                found: other.kind(),
            }),
            (_, other) => Err(ExecError::WrongKernel {
                name: a.name.clone(),
                expected: "a reduce kernel (Kernels::add_reduce)",
                found: other.kind(),
            }),
        }
    }
}

/// A part of the plan as the fold builds it: a plan, or an atom whose
/// kernel is a mapReduce's map or reduce phase (checked by
/// [`Compiler::check_node`] to stand only there).
enum Part<E> {
    Plan(Plan<E>),
    Phase(String),
}

impl<E> Part<E> {
    fn plan(self) -> Result<Plan<E>, ExecError> {
        match self {
            Part::Plan(plan) => Ok(plan),
            Part::Phase(name) => Err(ExecError::Unsupported {
                pattern: name,
                reason: "a map or reduce kernel runs only as a mapReduce's phase".into(),
            }),
        }
    }

    fn plans(parts: Vec<Part<E>>) -> Result<Vec<Plan<E>>, ExecError> {
        parts.into_iter().map(Part::plan).collect()
    }
}

/// The executor's plan as a semantics, after every node's kernels and
/// counts were checked by [`Compiler::check_node`]: what fails here
/// regardless names the pattern only.
struct Plans<'c, 'a, E> {
    compiler: &'c Compiler<'a, E>,
}

/// A pattern the executor cannot run, named by its name.
fn unsupported(pattern: &str) -> ExecError {
    ExecError::Unsupported {
        pattern: pattern.to_string(),
        reason: PROCESSOR_GROUPS.into(),
    }
}

impl<E> Semantics for Plans<'_, '_, E> {
    type Value = Part<E>;
    type Error = ExecError;

    fn atom(&mut self, a: &Atom, _: &Scope) -> Result<Part<E>, ExecError> {
        Ok(match self.compiler.kernel(&a.name)? {
            Kernel::Element(f) => Part::Plan(Plan::Step(Step::Atom {
                name: a.name.clone(),
                f: f.clone(),
            })),
            _ => Part::Phase(a.name.clone()),
        })
    }

    fn seq(&mut self, parts: Vec<Part<E>>, _: &Scope) -> Result<Part<E>, ExecError> {
        let parts = Part::plans(parts)?;
        // Steps fuse into one step; parallel parts make phases.
        if !parts.iter().all(|p| matches!(p, Plan::Step(_))) {
            return Ok(Part::Plan(Plan::phases(parts)));
        }
        let steps = parts.into_iter().filter_map(|p| match p {
            Plan::Step(s) => Some(s),
            _ => None,
        });
        let fused = steps
            .reduce(Step::seq)
            .ok_or_else(|| unsupported("seq()"))?;
        Ok(Part::Plan(Plan::Step(fused)))
    }

    fn pipe(&mut self, stages: Vec<Part<E>>, _: &Scope) -> Result<Part<E>, ExecError> {
        // `pipe(a, b, c)` as `pipe(a, pipe(b, c))`: the same threads, in the
        // same order, whichever way the term nested them.
        let mut stages = Part::plans(stages)?;
        let mut acc = stages.pop().ok_or_else(|| unsupported("pipe()"))?;
        while let Some(stage) = stages.pop() {
            acc = Plan::Pipe(Box::new(stage), Box::new(acc));
        }
        Ok(Part::Plan(acc))
    }

    fn tpool(&mut self, n: &Count, body: Part<E>, _: &Scope) -> Result<Part<E>, ExecError> {
        let n = self.compiler.count(n, || format!("tpool[{n}]"))?;
        Ok(Part::Plan(Plan::Pool(n, Box::new(body.plan()?))))
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Part<E>,
        _: &Atom,
        reduce: Part<E>,
        _: &Scope,
    ) -> Result<Part<E>, ExecError> {
        let compiler = self.compiler;
        let n = compiler.count(&params.n, || "mapreduce".into())?;
        let (Part::Phase(map_name), Part::Phase(reduce_name)) = (map, reduce) else {
            return Err(unsupported("mapreduce"));
        };
        let phases = (compiler.kernel(&map_name)?, compiler.kernel(&reduce_name)?);
        let (Kernel::Map(map), Kernel::Reduce(reduce)) = phases else {
            return Err(unsupported("mapreduce"));
        };
        // The keys declared, `k(x)`, with the bound counts in.
        let bound: Vec<(&str, Expr)> = compiler
            .bindings
            .iter()
            .map(|(name, v)| (name.as_str(), Expr::num(*v as f64)))
            .collect();
        Ok(Part::Plan(Plan::Step(Step::MapReduce {
            n,
            keys: params.k.subs_all(&bound),
            map_name,
            map: map.clone(),
            reduce_name,
            reduce: reduce.clone(),
        })))
    }

    fn on(&mut self, _: &Count, _: Part<E>, _: &Scope) -> Result<Part<E>, ExecError> {
        Err(unsupported("on"))
    }

    fn par(&mut self, _: &[Count], _: Vec<Part<E>>, _: &Scope) -> Result<Part<E>, ExecError> {
        Err(unsupported("par"))
    }

    fn groups(&mut self, _: &Count, _: Part<E>, _: &Scope) -> Result<Part<E>, ExecError> {
        Err(unsupported("groups"))
    }

    fn redist(
        &mut self,
        _: &Expr,
        _: Part<E>,
        _: Part<E>,
        _: &Scope,
    ) -> Result<Part<E>, ExecError> {
        Err(unsupported("seq[redist]"))
    }
}

/// What runs on one thread per element.
pub(crate) enum Step<E> {
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
    /// `a` then `b`, flat; `a`'s steps kept in place, so that a chain
    /// fused step by step takes linear time.
    fn seq(a: Step<E>, b: Step<E>) -> Step<E> {
        let mut steps = match a {
            Step::Seq(inner) => inner,
            other => vec![other],
        };
        match b {
            Step::Seq(inner) => steps.extend(inner),
            other => steps.push(other),
        }
        Step::Seq(steps)
    }

    /// Runs the step on one element on the design's thread number
    /// `thread`, a mapReduce's phases on the threads the runner gives
    /// (`threads`); `false` if a kernel failed.
    pub(crate) fn run<T: PhaseThreads>(
        &self,
        value: &mut E,
        ctx: &Ctx,
        thread: usize,
        threads: &T,
    ) -> bool {
        match self {
            Step::Atom { name, f } => ctx.call(name, || f(value)).is_some(),
            Step::Seq(steps) => steps.iter().all(|s| s.run(value, ctx, thread, threads)),
            Step::MapReduce {
                n,
                keys,
                map_name,
                map,
                reduce_name,
                reduce,
            } => {
                let id = std::ptr::from_ref(self).addr();
                let job = |parallel: &dyn crate::exec::phase::Parallel| {
                    let workers = Workers {
                        n: *n,
                        keys,
                        ctx,
                        parallel,
                    };
                    let grouped = map(value, &workers)?;
                    Some(reduce(value, grouped, &workers))
                };
                match threads.phase(id, *n, thread, job).flatten() {
                    None => false,
                    Some(true) => true,
                    Some(false) => {
                        if !ctx.stopped() {
                            ctx.fail(ExecError::Unsupported {
                                pattern: format!("{map_name} / {reduce_name}"),
                                reason: "the map and reduce kernels disagree on the value type"
                                    .into(),
                            });
                        }
                        false
                    }
                }
            }
        }
    }

    pub(crate) fn threads(&self) -> usize {
        match self {
            Step::Atom { .. } => 1,
            Step::Seq(steps) => steps.iter().map(Step::threads).max().unwrap_or(1),
            Step::MapReduce { n, .. } => *n,
        }
    }
}

/// The runnable form of a term.
pub(crate) enum Plan<E> {
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

    pub(crate) fn threads(&self) -> usize {
        match self {
            Plan::Step(s) => s.threads(),
            Plan::Pipe(a, b) => a.threads().saturating_add(b.threads()),
            Plan::Pool(n, p) => n.saturating_mul(p.threads()),
            Plan::Phases(parts) => parts.iter().map(Plan::threads).max().unwrap_or(1),
        }
    }
}
