//! The composition operators: `M[T]`, the model of a design, built from the
//! models of its atoms (seed 001 §3.4, eqs. 2–5).
//!
//! | pattern | throughput model `M` |
//! | --- | --- |
//! | atom `f` | `M[f]`, given |
//! | `seq(a, b)` | `M[a] + M[b]` |
//! | `pipe(a, b)` | `max(M[a], M[b])`, pointwise; or the faster-growing one ([`Mode::Asymptotic`]) |
//! | `tpool[n](t)` | `M[t] / n` |
//! | `mapreduce[m, n, d, k](map, shuffle, reduce)` | `x·M[map](1)/(m·n) + M[shuffle](x := d(x), o := k(x)) + k(x)·M[reduce](d(x))/(m·n)` |
//!
//! Invariants: every operator is monotone in the models of its parts, and the
//! variables of the result are those of the atoms plus the symbolic counts.
//! The throughput model is the average time one element spends in the
//! program (inverse throughput), in the atoms' unit.

use crate::comm::{CommError, Context, MachineProfile};
use crate::term::{Count, Term};
use crate::{Expr, Func};
use std::cmp::Ordering;

/// How `pipe` is lowered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// `max(M[a], M[b])`, exact for every `x`.
    #[default]
    Pointwise,
    /// The stage whose model grows faster in `x`, as the paper does; stages
    /// of one class are told apart by their leading coefficients, and a pair
    /// that cannot be told apart (symbolic coefficients) stays a `max`.
    Asymptotic,
}

/// The threads and nodes a design occupies.
#[derive(Clone, Debug, PartialEq)]
pub struct Resources {
    /// Threads running at once: a pipeline adds its stages' threads, a task
    /// pool multiplies its body's by the pool size, a mapReduce occupies
    /// `m·n`.
    pub threads: Expr,
    /// Compute nodes: `m` for a mapReduce, 1 otherwise.
    pub nodes: Expr,
}

/// Picks the stage that dominates as `x` grows.
fn slower_stage(a: Expr, b: Expr) -> Expr {
    match a.cmp_growth(&b, "x") {
        Some(Ordering::Greater) => a,
        Some(Ordering::Less) => b,
        Some(Ordering::Equal) => match (a.leading_coefficient("x"), b.leading_coefficient("x")) {
            (Some(ca), Some(cb)) if same_monomial(&a, &b) => {
                if ca >= cb {
                    a
                } else {
                    b
                }
            }
            _ => Expr::max([a, b]),
        },
        None => Expr::max([a, b]),
    }
}

/// Whether the dominant terms differ only in their numeric coefficient.
fn same_monomial(a: &Expr, b: &Expr) -> bool {
    let strip = |e: &Expr| match e.dominant("x") {
        Expr::Mul(items) if matches!(items.first(), Some(Expr::Num(_))) => {
            Expr::Mul(items[1..].to_vec())
        }
        Expr::Num(_) => Expr::num(1.0),
        other => other,
    };
    strip(a) == strip(b)
}

/// `M[shuffle_{m,n}^{k(x)}](d(x))`: the shuffle's model with `x := d`,
/// `o := k` and its own `m`, `n` bound to the pattern's.
fn shuffle_model(shuffle: &Expr, m: &Count, n: &Count, d: &Expr, k: &Expr) -> Expr {
    shuffle.subs_all(&[
        ("x", d.clone()),
        ("o", k.clone()),
        ("m", m.to_expr()),
        ("n", n.to_expr()),
    ])
}

impl Term {
    /// The throughput model `M[T]` with `pipe` as a pointwise `max`.
    pub fn model(&self) -> Expr {
        self.model_with(Mode::Pointwise)
    }

    /// The throughput model with `pipe` resolved as the paper does: the
    /// stage with the worse asymptotic growth in `x`.
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("qsort = 1034.17*x*log2(x); nop = 5422.97; pipe(qsort, nop)").unwrap();
    /// assert_eq!(d.term().model_asymptotic().to_string(), "1034.17·x·log₂(x)");
    /// assert_eq!(d.model().to_string(), "max(1034.17·x·log₂(x), 5422.97)");
    /// ```
    pub fn model_asymptotic(&self) -> Expr {
        self.model_with(Mode::Asymptotic)
    }

    /// The throughput model in the given mode.
    pub fn model_with(&self, mode: Mode) -> Expr {
        let mut keep =
            |model: &Expr, _: &Scope| Ok::<Expr, std::convert::Infallible>(model.clone());
        match self.lower(mode, &Scope::default(), &mut keep) {
            Ok(e) => e.subs(ALL_PROCESSORS, &Expr::var("p")),
            Err(never) => match never {},
        }
    }

    /// The model with every machine function (`allgather(p, b)`, ...)
    /// resolved against `profile`: communications inside concurrent groups
    /// (`par`, `groups`) pay the profile's contention factor, with the
    /// processors of the whole program (the outermost `on[p]`, else `p`).
    ///
    /// ```
    /// use pattern_core::{Design, comm::MachineProfile};
    ///
    /// let d = Design::parse(
    ///     "stage = 1000 / p + allgather(p, 8000 / p);
    ///      on[64](par[16, 48](stage, stage))",
    /// )
    /// .unwrap();
    /// let us = d.term().model_on(&MachineProfile::t3e()).unwrap();
    /// // The 16-processor group decides; its allgather runs under contention.
    /// assert!(us.eval(&[]).unwrap() > 1000.0 / 16.0);
    /// ```
    pub fn model_on(&self, profile: &MachineProfile) -> Result<Expr, CommError> {
        self.model_on_with(profile, Mode::Pointwise)
    }

    /// [`Term::model_on`] in the given mode.
    pub fn model_on_with(&self, profile: &MachineProfile, mode: Mode) -> Result<Expr, CommError> {
        let mut resolve = |model: &Expr, scope: &Scope| {
            let context = Context {
                concurrent: scope.concurrent,
                processors: scope.processors(),
            };
            profile.resolve(model, &context)
        };
        Ok(self
            .lower(mode, &Scope::default(), &mut resolve)?
            .subs(ALL_PROCESSORS, &Expr::var("p")))
    }

    /// The lowering, with `atom` applied to every atom's model (and every
    /// cost written in the design) in its scope.
    fn lower<E>(
        &self,
        mode: Mode,
        scope: &Scope,
        atom: &mut impl FnMut(&Expr, &Scope) -> Result<Expr, E>,
    ) -> Result<Expr, E> {
        Ok(match self {
            Term::Atom(a) => atom(&a.model, scope)?,
            Term::Seq(..) => {
                // A chain of seqs becomes one flat sum, built once.
                let mut terms = Vec::new();
                self.chain(&mut terms, mode, scope, atom)?;
                terms.into_iter().sum()
            }
            Term::Pipe(a, b) if mode == Mode::Asymptotic => {
                slower_stage(a.lower(mode, scope, atom)?, b.lower(mode, scope, atom)?)
            }
            Term::Pipe(..) => {
                let mut stages = Vec::new();
                self.chain(&mut stages, mode, scope, atom)?;
                flat_max_of(stages)
            }
            Term::Tpool(n, t) => t.lower(mode, scope, atom)? / n.to_expr(),
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => {
                let shuffle = atom(&shuffle.model, scope)?;
                eq5(MapReducePhases {
                    map_one: map.lower(mode, scope, atom)?.subs("x", &Expr::num(1.0)),
                    shuffle: shuffle_model(&shuffle, &params.m, &params.n, &params.d, &params.k),
                    reduce_d: reduce.lower(mode, scope, atom)?.subs("x", &params.d),
                    keys: params.k.clone(),
                    workers: params.m.to_expr() * params.n.to_expr(),
                })
            }
            Term::On(p, t) => {
                let inner = Scope {
                    all: scope.all.clone().or_else(|| Some(p.to_expr())),
                    ..scope.clone()
                };
                t.lower(mode, &inner, atom)?.subs("p", &p.to_expr())
            }
            Term::Par(sizes, parts) => {
                let inner = scope.concurrent_if(parts.len() > 1);
                let mut times = Vec::with_capacity(parts.len());
                for (size, part) in sizes.iter().zip(parts) {
                    times.push(part.lower(mode, &inner, atom)?.subs("p", &size.to_expr()));
                }
                flat_max_of(times)
            }
            Term::Groups(s, t) => {
                let inner = scope.concurrent_if(*s != Count::Fixed(1));
                t.lower(mode, &inner, atom)?.subs("p", &group_size(s))
            }
            Term::Redist(cost, a, b) => {
                a.lower(mode, scope, atom)? + b.lower(mode, scope, atom)? + atom(cost, scope)?
            }
        })
    }

    /// The latency: time for one element to pass through the design. A
    /// pipeline adds its stages (the element visits each in turn), a task
    /// pool is as slow as its body, a mapReduce takes one map, the shuffle
    /// and one reduce.
    pub fn latency(&self) -> Expr {
        match self {
            Term::Atom(a) => a.model.clone(),
            Term::Seq(a, b) | Term::Pipe(a, b) => a.latency() + b.latency(),
            Term::Tpool(_, t) => t.latency(),
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => {
                map.latency().subs("x", &Expr::num(1.0))
                    + shuffle_model(&shuffle.model, &params.m, &params.n, &params.d, &params.k)
                    + reduce.latency().subs("x", &params.d)
            }
            // A multi-processor program's latency is its run time.
            Term::On(..) | Term::Par(..) | Term::Groups(..) | Term::Redist(..) => self.model(),
        }
    }

    /// The threads and nodes the design occupies.
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("a = x; b = x; pipe(tpool[4](a), tpool[n](b))").unwrap();
    /// assert_eq!(d.term().resources().threads.simplify().to_string(), "n + 4");
    /// ```
    pub fn resources(&self) -> Resources {
        match self {
            Term::Atom(_) => Resources {
                threads: Expr::num(1.0),
                nodes: Expr::num(1.0),
            },
            Term::Seq(a, b) | Term::Pipe(a, b) => {
                let (ra, rb) = (a.resources(), b.resources());
                Resources {
                    threads: if matches!(self, Term::Seq(..)) {
                        flat_max(ra.threads, rb.threads)
                    } else {
                        ra.threads + rb.threads
                    },
                    nodes: flat_max(ra.nodes, rb.nodes),
                }
            }
            Term::Tpool(n, t) => {
                let r = t.resources();
                Resources {
                    threads: n.to_expr() * r.threads,
                    nodes: r.nodes,
                }
            }
            Term::MapReduce {
                params,
                map,
                reduce,
                ..
            } => {
                let per_worker = flat_max(map.resources().threads, reduce.resources().threads);
                Resources {
                    threads: params.m.to_expr() * params.n.to_expr() * per_worker,
                    nodes: params.m.to_expr(),
                }
            }
            // Multi-processor tasks occupy the processors of their groups.
            Term::On(p, _) => Resources {
                threads: p.to_expr(),
                nodes: Expr::num(1.0),
            },
            Term::Par(sizes, _) => Resources {
                threads: sizes.iter().map(Count::to_expr).sum(),
                nodes: Expr::num(1.0),
            },
            Term::Groups(s, _) => Resources {
                threads: s.to_expr() * group_size(s),
                nodes: Expr::num(1.0),
            },
            Term::Redist(_, a, b) => {
                let (ra, rb) = (a.resources(), b.resources());
                Resources {
                    threads: flat_max(ra.threads, rb.threads),
                    nodes: flat_max(ra.nodes, rb.nodes),
                }
            }
        }
    }
}

/// The composition operators as values, to lower a design with one of them
/// changed ([`Term::model_by`]).
///
/// [`Operators::POINTWISE`] holds the operators of [`Term::model`]. Swapping
/// one answers "what if": a per-hop transfer cost between pipeline stages,
/// an emitter/collector overhead in a task pool, and it is how the law suite
/// is shown to catch a wrong operator (see [`crate::laws`]).
///
/// ```
/// use pattern_core::lower::Operators;
/// use pattern_core::{Design, Expr};
///
/// // A pipeline whose stages hand each element over at a cost of 100 ns.
/// let hop = Operators {
///     pipe: |a, b| Expr::max([a, b]) + 100.0,
///     ..Operators::POINTWISE
/// };
/// let d = Design::parse("a = 3*x; b = 5; pipe(a, b)").unwrap();
/// let at = [("x", 10.0)];
/// assert_eq!(d.term().model().eval(&at).unwrap(), 30.0);
/// assert_eq!(d.term().model_by(&hop).eval(&at).unwrap(), 130.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Operators {
    /// `M[seq(a, b)]` from `M[a]` and `M[b]`.
    pub seq: fn(Expr, Expr) -> Expr,
    /// `M[pipe(a, b)]` from `M[a]` and `M[b]`.
    pub pipe: fn(Expr, Expr) -> Expr,
    /// `M[tpool_n(t)]` from `M[t]` and the count `n`.
    pub tpool: fn(Expr, Expr) -> Expr,
    /// `M[mapReduce]` from its phases.
    pub map_reduce: fn(MapReducePhases) -> Expr,
}

/// The parts eq. (5) combines into the model of a mapReduce.
#[derive(Clone, Debug, PartialEq)]
pub struct MapReducePhases {
    /// `M[map](1)`: one map call.
    pub map_one: Expr,
    /// `M[shuffle_{m,n}^{k(x)}](d(x))`: the shuffle, its variables bound.
    pub shuffle: Expr,
    /// `M[reduce](d(x))`: one reduce call on the elements of a key.
    pub reduce_d: Expr,
    /// `k(x)`: the number of keys (reduce calls).
    pub keys: Expr,
    /// `m·n`: the workers.
    pub workers: Expr,
}

impl Operators {
    /// The operators of [`Term::model`] (seed 001 eqs. 2–5, `pipe` as a
    /// pointwise `max`).
    pub const POINTWISE: Operators = Operators {
        seq: |a, b| a + b,
        pipe: flat_max,
        tpool: |t, n| t / n,
        map_reduce: eq5,
    };
}

/// Eq. (5): `x·M[map](1)/(m·n) + M[shuffle] + k(x)·M[reduce](d(x))/(m·n)`.
fn eq5(p: MapReducePhases) -> Expr {
    Expr::var("x") * p.map_one / p.workers.clone() + p.shuffle + p.keys * p.reduce_d / p.workers
}

impl Term {
    /// The throughput model with the given operators. With
    /// [`Operators::POINTWISE`] it is the same function as [`Term::model`]
    /// (equal normal forms), built one binary node at a time.
    pub fn model_by(&self, ops: &Operators) -> Expr {
        match self {
            Term::Atom(a) => a.model.clone(),
            Term::Seq(a, b) => (ops.seq)(a.model_by(ops), b.model_by(ops)),
            Term::Pipe(a, b) => (ops.pipe)(a.model_by(ops), b.model_by(ops)),
            Term::Tpool(n, t) => (ops.tpool)(t.model_by(ops), n.to_expr()),
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => (ops.map_reduce)(MapReducePhases {
                map_one: map.model_by(ops).subs("x", &Expr::num(1.0)),
                shuffle: shuffle_model(&shuffle.model, &params.m, &params.n, &params.d, &params.k),
                reduce_d: reduce.model_by(ops).subs("x", &params.d),
                keys: params.k.clone(),
                workers: params.m.to_expr() * params.n.to_expr(),
            }),
            Term::On(p, t) => t.model_by(ops).subs("p", &p.to_expr()),
            Term::Par(sizes, parts) => flat_max_of(
                sizes
                    .iter()
                    .zip(parts)
                    .map(|(size, part)| part.model_by(ops).subs("p", &size.to_expr()))
                    .collect(),
            ),
            Term::Groups(s, t) => t.model_by(ops).subs("p", &group_size(s)),
            Term::Redist(cost, a, b) => {
                (ops.seq)((ops.seq)(a.model_by(ops), b.model_by(ops)), cost.clone())
            }
        }
    }
}

impl Term {
    /// The models of a chain of the same binary pattern (`seq(a, seq(b, c))`
    /// or `pipe(pipe(a, b), c)`), in order, into `out`.
    fn chain<E>(
        &self,
        out: &mut Vec<Expr>,
        mode: Mode,
        scope: &Scope,
        atom: &mut impl FnMut(&Expr, &Scope) -> Result<Expr, E>,
    ) -> Result<(), E> {
        let (a, b) = match self {
            Term::Seq(a, b) | Term::Pipe(a, b) => (a, b),
            _ => {
                out.push(self.lower(mode, scope, atom)?);
                return Ok(());
            }
        };
        for part in [a, b] {
            let same = matches!(
                (self, &**part),
                (Term::Seq(..), Term::Seq(..)) | (Term::Pipe(..), Term::Pipe(..))
            );
            if same {
                part.chain(out, mode, scope, atom)?;
            } else {
                out.push(part.lower(mode, scope, atom)?);
            }
        }
        Ok(())
    }
}

/// The variable standing for all processors of the program while lowering,
/// until the outermost `on[p]` is known (then `p` itself).
const ALL_PROCESSORS: &str = "__all_processors";

/// Where a sub-term runs: under concurrent groups or not, on how many
/// processors in all.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    concurrent: bool,
    all: Option<Expr>,
}

impl Scope {
    fn concurrent_if(&self, concurrent: bool) -> Scope {
        Scope {
            concurrent: self.concurrent || concurrent,
            all: self.all.clone(),
        }
    }

    /// All processors of the program (the contention factor's `p`).
    fn processors(&self) -> Expr {
        self.all
            .clone()
            .unwrap_or_else(|| Expr::var(ALL_PROCESSORS))
    }
}

/// `floor(p/s)`: the smallest of `s` equal groups out of `p` processors.
fn group_size(s: &Count) -> Expr {
    match s {
        Count::Fixed(1) => Expr::var("p"),
        s => (Expr::var("p") / s.to_expr()).floor(),
    }
}

/// `max` of the stages with nested maxima flattened, so an n-stage pipeline
/// lowers to one n-ary `max` instead of a deep tree.
fn flat_max_of(stages: Vec<Expr>) -> Expr {
    let mut args = Vec::with_capacity(stages.len());
    for e in stages {
        match e {
            Expr::Call(Func::Max, inner) => args.extend(inner),
            other => args.push(other),
        }
    }
    Expr::max(args)
}

/// `max(a, b)`, flat.
fn flat_max(a: Expr, b: Expr) -> Expr {
    flat_max_of(vec![a, b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{Atom, MapReduceParams};

    fn atom(name: &str, model: &str) -> Term {
        Term::atom(name, Expr::parse(model).unwrap())
    }

    fn s(e: Expr) -> String {
        e.simplify().to_string()
    }

    #[test]
    fn seq_adds() {
        let t = Term::seq(atom("qsort", "1034.17*x*log2(x)"), atom("nop", "5422.97"));
        assert_eq!(s(t.model()), "1034.17·x·log₂(x) + 5422.97");
        assert_eq!(t.model(), t.latency());
    }

    #[test]
    fn tpool_divides() {
        let t = Term::tpool(4, atom("qsort", "1034.17*x*log2(x)"));
        assert_eq!(s(t.model()), "258.5425·x·log₂(x)");
        let sym = Term::tpool("n", atom("qsort", "1034.17*x*log2(x)"));
        assert_eq!(s(sym.model()), "1034.17·x·log₂(x)/n");
        assert_eq!(s(sym.latency()), "1034.17·x·log₂(x)");
        assert_eq!(s(sym.resources().threads), "n");
    }

    #[test]
    fn pipe_takes_the_max_pointwise_or_the_slower_stage() {
        let t = Term::pipe(atom("inc", "536.185*x"), atom("nop", "5422.97"));
        assert_eq!(s(t.model()), "max(536.185·x, 5422.97)");
        assert_eq!(t.model_asymptotic().to_string(), "536.185·x");
        assert_eq!(s(t.latency()), "536.185·x + 5422.97");
        assert_eq!(s(t.resources().threads), "2");
        // Same class: the larger coefficient.
        let t = Term::pipe(atom("a", "2*x"), atom("b", "3*x + 1"));
        assert_eq!(t.model_asymptotic().to_string(), "3·x + 1");
        // Symbolic coefficients cannot be ordered: the max stays.
        let t = Term::pipe(atom("a", "a*x"), atom("b", "b*x"));
        assert_eq!(s(t.model_asymptotic()), "max(a·x, b·x)");
    }

    #[test]
    fn n_stage_pipelines_lower_to_one_flat_max() {
        let p = Term::pipe_all((0..5).map(|i| atom("s", &format!("{}*x", i + 1)))).unwrap();
        assert_eq!(p.model().to_string(), "max(1·x, 2·x, 3·x, 4·x, 5·x)");
        assert_eq!(s(p.resources().threads), "5");
    }

    #[test]
    fn map_reduce_eq5() {
        let t = Term::map_reduce(
            MapReduceParams {
                m: "m".into(),
                n: "n".into(),
                d: Expr::parse("x").unwrap(),
                k: Expr::num(768.0),
            },
            atom("map", "3.529e7"),
            Atom {
                name: "shuffle".into(),
                model: Expr::parse("(m*n - 1)/(m*n) * 12288 * x / 0.125").unwrap(),
            },
            atom("reduce", "9376*x"),
        );
        let m = t.model();
        let by_hand = |x: f64, mm: f64, n: f64| {
            x * 3.529e7 / (mm * n)
                + (mm * n - 1.0) / (mm * n) * 12288.0 * x / 0.125
                + 768.0 * 9376.0 * x / (mm * n)
        };
        for (x, mm, n) in [(4.0, 4.0, 12.0), (24.0, 24.0, 1.0), (1.0, 1.0, 1.0)] {
            let got = m.eval(&[("x", x), ("m", mm), ("n", n)]).unwrap();
            assert!(
                (got - by_hand(x, mm, n)).abs() <= 1e-9 * got.abs(),
                "{x} {mm} {n}"
            );
        }
        assert_eq!(s(t.resources().threads), "m·n");
        assert_eq!(s(t.resources().nodes), "m");
    }
}
