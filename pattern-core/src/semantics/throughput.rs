//! The throughput semantics: `M[T]`, the average time one element spends in
//! the program in steady state (inverse throughput), built from the models
//! of its atoms by the composition operators (seed 001 §3.4, eqs. 2–5, and
//! seed 004 for processor groups).
//!
//! | pattern | `M` |
//! | --- | --- |
//! | atom `f` | `M[f]`, given (machine functions resolved by a profile, if any) |
//! | `seq(a, b, ..)` | `M[a] + M[b] + ..` |
//! | `pipe(a, b, ..)` | `max(M[a], M[b], ..)` pointwise, or the fastest-growing stage ([`Mode::Asymptotic`]); plus the per-hop cost, if any |
//! | `tpool[n](t)` | `M[t] / n` |
//! | `mapreduce[m, n, d, k](map, shuffle, reduce)` | `x·M[map](1)/(m·n) + M[shuffle](x := d(x), o := k(x)) + k(x)·M[reduce](d(x))/(m·n)` |
//! | `on[p](t)` | `M[t]` with `p` bound to the count |
//! | `par[p1, ..](t1, ..)` | `max(M[t1](p := p1), ..)`, communications under contention |
//! | `groups[s](t)` | `M[t](p := floor(p/s))`, under contention when `s ≠ 1` |
//! | `seq[redist = e](a, b)` | `M[a] + M[b] + e` |
//!
//! Invariants: every operator is monotone in the models of its parts, and the
//! variables of the result are those of the atoms plus the symbolic counts.

use crate::Expr;
use crate::comm::{CommError, Context, MachineProfile};
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, Term, fold};
use crate::semantics::{asymptotic, flat};
use std::convert::Infallible;

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

/// What an atom's model means on a machine: kept symbolic ([`Symbolic`]) or
/// with its machine functions resolved against a [`MachineProfile`].
pub trait Resolver {
    /// Why a model could not be resolved.
    type Error;
    /// The model `e` of an atom (or a shuffle, a redistribution, a hop) that
    /// runs in `scope`; `processors` stands for all processors of the
    /// program.
    fn resolve(&self, e: &Expr, scope: &Scope, processors: Expr) -> Result<Expr, Self::Error>;
}

/// Models as written: machine functions stay symbolic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Symbolic;

impl Resolver for Symbolic {
    type Error = Infallible;
    fn resolve(&self, e: &Expr, _: &Scope, _: Expr) -> Result<Expr, Infallible> {
        Ok(e.clone())
    }
}

impl Resolver for &MachineProfile {
    type Error = CommError;
    /// Communications inside concurrent groups pay the profile's contention
    /// factor, with the processors of the whole program.
    fn resolve(&self, e: &Expr, scope: &Scope, processors: Expr) -> Result<Expr, CommError> {
        let context = Context {
            concurrent: scope.concurrent,
            processors,
        };
        MachineProfile::resolve(self, e, &context)
    }
}

/// The throughput semantics, configured by combining: the `pipe` mode, the
/// operators, a machine profile and a per-hop cost.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::semantics::Throughput;
///
/// let d = Design::parse("qsort = 1034.17*x*log2(x); nop = 5422.97; pipe(qsort, nop)").unwrap();
/// assert_eq!(d.model().to_string(), "max(1034.17·x·log₂(x), 5422.97)");
/// let paper = Throughput::new().asymptotic();
/// assert_eq!(d.model_by(&paper).unwrap().to_string(), "1034.17·x·log₂(x)");
/// let hop = Throughput::new().per_hop(100.0.into());
/// assert_eq!(d.model_by(&hop).unwrap().eval(&[("x", 2.0)]).unwrap(), 5522.97);
/// ```
#[derive(Clone, Debug)]
pub struct Throughput<R = Symbolic> {
    operators: Operators,
    resolver: R,
    hop: Option<Expr>,
}

impl Default for Throughput {
    fn default() -> Self {
        Throughput::new()
    }
}

impl Throughput {
    /// The operators of seed 001 with `pipe` as a pointwise `max`, models
    /// kept symbolic, no hop cost.
    pub fn new() -> Throughput {
        Throughput {
            operators: Operators::POINTWISE,
            resolver: Symbolic,
            hop: None,
        }
    }
}

impl Throughput<Symbolic> {
    /// The expression of `term`, as built (not simplified, unlike every
    /// `model()`): with models kept symbolic, nothing can fail.
    pub fn expr(&self, term: &Term) -> Expr {
        self.of(term).unwrap_or_else(|never| match never {})
    }
}

impl<R: Resolver> Throughput<R> {
    /// `pipe` as the paper takes it: the stage that grows fastest in `x`.
    pub fn asymptotic(self) -> Self {
        self.mode(Mode::Asymptotic)
    }

    /// `pipe` in the given mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.operators.pipe = match mode {
            Mode::Pointwise => Operators::POINTWISE.pipe,
            Mode::Asymptotic => asymptotic::slowest_stage,
        };
        self
    }

    /// Other composition operators (to ask "what if", or to show that the
    /// laws catch a wrong one).
    pub fn operators(mut self, operators: Operators) -> Self {
        self.operators = operators;
        self
    }

    /// Every element crossing between two pipeline stages costs `hop` on the
    /// pipeline's critical path: `M[pipe(a, b, ..)] = max(..) + hop`. The hop
    /// may call machine functions (`send(b)`), resolved like any model.
    pub fn per_hop(mut self, hop: Expr) -> Self {
        self.hop = Some(hop);
        self
    }

    /// The machine functions of the models resolved against `profile`.
    pub fn machine(self, profile: &MachineProfile) -> Throughput<&MachineProfile> {
        Throughput {
            operators: self.operators,
            resolver: profile,
            hop: self.hop,
        }
    }

    /// The model of `term` under this semantics, as built (not simplified).
    pub fn of(&self, term: &Term) -> Result<Expr, R::Error>
    where
        R: Clone,
    {
        fold(term, &mut self.clone())
    }

    fn resolve(&self, e: &Expr, scope: &Scope) -> Result<Expr, R::Error> {
        let all = scope
            .processors
            .as_ref()
            .map_or_else(|| Expr::var(ALL_PROCESSORS), Count::to_expr);
        self.resolver.resolve(e, scope, all)
    }
}

/// The variable standing for all processors of the program while folding,
/// until the outermost `on[p]` is known (then `p` itself).
pub(crate) const ALL_PROCESSORS: &str = "__all_processors";

impl<R: Resolver> Semantics for Throughput<R> {
    type Value = Expr;
    type Error = R::Error;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Expr, R::Error> {
        self.resolve(&atom.model, scope)
    }

    fn seq(&mut self, parts: Vec<Expr>, _: &Scope) -> Result<Expr, R::Error> {
        Ok((self.operators.seq)(parts))
    }

    fn pipe(&mut self, stages: Vec<Expr>, scope: &Scope) -> Result<Expr, R::Error> {
        let slowest = (self.operators.pipe)(stages);
        Ok(match &self.hop {
            Some(hop) => slowest + self.resolve(hop, scope)?,
            None => slowest,
        })
    }

    fn tpool(&mut self, n: &Count, body: Expr, _: &Scope) -> Result<Expr, R::Error> {
        Ok((self.operators.tpool)(body, n.to_expr()))
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Expr,
        shuffle: &Atom,
        reduce: Expr,
        scope: &Scope,
    ) -> Result<Expr, R::Error> {
        let shuffle = self.resolve(&shuffle.model, scope)?;
        Ok((self.operators.map_reduce)(MapReducePhases::new(
            params, map, &shuffle, reduce,
        )))
    }

    fn on(&mut self, p: &Count, body: Expr, _: &Scope) -> Result<Expr, R::Error> {
        Ok(body.subs("p", &p.to_expr()))
    }

    fn par(&mut self, sizes: &[Count], parts: Vec<Expr>, _: &Scope) -> Result<Expr, R::Error> {
        Ok(flat::max(
            sizes
                .iter()
                .zip(parts)
                .map(|(size, part)| part.subs("p", &size.to_expr()))
                .collect(),
        ))
    }

    fn groups(&mut self, s: &Count, body: Expr, _: &Scope) -> Result<Expr, R::Error> {
        Ok(body.subs("p", &group_size(s)))
    }

    fn redist(&mut self, cost: &Expr, a: Expr, b: Expr, scope: &Scope) -> Result<Expr, R::Error> {
        let cost = self.resolve(cost, scope)?;
        Ok((self.operators.seq)(vec![a, b, cost]))
    }

    fn program(&mut self, value: Expr) -> Result<Expr, R::Error> {
        Ok(value.subs(ALL_PROCESSORS, &Expr::var("p")))
    }
}

/// The composition operators of [`Throughput`] as values, to fold a design
/// with one of them changed: an emitter/collector overhead in a task pool,
/// and how the law suite is shown to catch a wrong operator (see
/// [`crate::laws`]). `seq` and `pipe` take all stages of a chain.
///
/// ```
/// use pattern_core::semantics::{Operators, Throughput};
/// use pattern_core::{Design, Expr};
///
/// // A task pool whose emitter costs 50 ns per element.
/// let emitter = Operators {
///     tpool: |t, n| t / n + 50.0,
///     ..Operators::POINTWISE
/// };
/// let d = Design::parse("a = 3*x; tpool[3](a)").unwrap();
/// let at = [("x", 10.0)];
/// assert_eq!(d.model().eval(&at).unwrap(), 10.0);
/// let what_if = Throughput::new().operators(emitter);
/// assert_eq!(d.model_by(&what_if).unwrap().eval(&at).unwrap(), 60.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Operators {
    /// `M[seq(a, b, ..)]` from the parts' models.
    pub seq: fn(Vec<Expr>) -> Expr,
    /// `M[pipe(a, b, ..)]` from the stages' models.
    pub pipe: fn(Vec<Expr>) -> Expr,
    /// `M[tpool_n(t)]` from `M[t]` and the count `n`.
    pub tpool: fn(Expr, Expr) -> Expr,
    /// `M[mapReduce]` from its phases.
    pub map_reduce: fn(MapReducePhases) -> Expr,
}

impl Operators {
    /// The operators of seed 001 (eqs. 2–5), `pipe` as a pointwise `max`.
    pub const POINTWISE: Operators = Operators {
        seq: flat::sum,
        pipe: flat::max,
        tpool: flat::divide,
        map_reduce: eq5,
    };
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

impl MapReducePhases {
    /// The phases of a mapReduce from the models of its map, shuffle and
    /// reduce: `x := 1` in the map, `x := d`, `o := k` and the counts in the
    /// shuffle, `x := d` in the reduce.
    pub fn new(params: &MapReduceParams, map: Expr, shuffle: &Expr, reduce: Expr) -> Self {
        let (m, n) = (params.m.to_expr(), params.n.to_expr());
        MapReducePhases {
            map_one: map.subs("x", &Expr::num(1.0)),
            shuffle: shuffle.subs_all(&[
                ("x", params.d.clone()),
                ("o", params.k.clone()),
                ("m", m.clone()),
                ("n", n.clone()),
            ]),
            reduce_d: reduce.subs("x", &params.d),
            keys: params.k.clone(),
            workers: m * n,
        }
    }
}

/// Eq. (5): `x·M[map](1)/(m·n) + M[shuffle] + k(x)·M[reduce](d(x))/(m·n)`.
fn eq5(p: MapReducePhases) -> Expr {
    Expr::var("x") * p.map_one / p.workers.clone() + p.shuffle + p.keys * p.reduce_d / p.workers
}

/// `floor(p/s)`: the smallest of `s` equal groups out of `p` processors.
pub(crate) fn group_size(s: &Count) -> Expr {
    match s {
        Count::Fixed(1) => Expr::var("p"),
        s => (Expr::var("p") / s.to_expr()).floor(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::{Footprint, Latency};

    fn atom(name: &str, model: &str) -> Term {
        Term::atom(name, Expr::parse(model).unwrap())
    }

    fn model(t: &Term) -> Expr {
        Throughput::new().expr(t)
    }

    fn asymptotic(t: &Term) -> Expr {
        Throughput::new().asymptotic().expr(t)
    }

    fn latency(t: &Term) -> Expr {
        Latency::of(t)
    }

    fn threads(t: &Term) -> String {
        s(Footprint::of(t).threads)
    }

    fn s(e: Expr) -> String {
        e.simplify().to_string()
    }

    #[test]
    fn seq_adds() {
        let t = Term::seq(atom("qsort", "1034.17*x*log2(x)"), atom("nop", "5422.97"));
        assert_eq!(s(model(&t)), "1034.17·x·log₂(x) + 5422.97");
        assert_eq!(model(&t), latency(&t));
    }

    #[test]
    fn tpool_divides() {
        let t = Term::tpool(4u64, atom("qsort", "1034.17*x*log2(x)"));
        assert_eq!(s(model(&t)), "258.5425·x·log₂(x)");
        let sym = Term::tpool("n", atom("qsort", "1034.17*x*log2(x)"));
        assert_eq!(s(model(&sym)), "1034.17·x·log₂(x)/n");
        assert_eq!(s(latency(&sym)), "1034.17·x·log₂(x)");
        assert_eq!(threads(&sym), "n");
    }

    #[test]
    fn pipe_takes_the_max_pointwise_or_the_slower_stage() {
        let t = Term::pipe(atom("inc", "536.185*x"), atom("nop", "5422.97"));
        assert_eq!(s(model(&t)), "max(536.185·x, 5422.97)");
        assert_eq!(asymptotic(&t).to_string(), "536.185·x");
        assert_eq!(s(latency(&t)), "536.185·x + 5422.97");
        assert_eq!(threads(&t), "2");
        // Same class: the larger coefficient.
        let t = Term::pipe(atom("a", "2*x"), atom("b", "3*x + 1"));
        assert_eq!(asymptotic(&t).to_string(), "3·x + 1");
        // Symbolic coefficients cannot be ordered: the max stays.
        let t = Term::pipe(atom("a", "a*x"), atom("b", "b*x"));
        assert_eq!(s(asymptotic(&t)), "max(a·x, b·x)");
        // Three stages, either nesting.
        let t = Term::pipe(
            Term::pipe(atom("a", "x"), atom("b", "x*log2(x)")),
            atom("c", "7"),
        );
        assert_eq!(asymptotic(&t).to_string(), "x·log₂(x)");
    }

    #[test]
    fn n_stage_pipelines_lower_to_one_flat_max() {
        let p = Term::pipe_all((0..5).map(|i| atom("s", &format!("{}*x", i + 1)))).unwrap();
        assert_eq!(model(&p).to_string(), "max(1·x, 2·x, 3·x, 4·x, 5·x)");
        assert_eq!(threads(&p), "5");
    }

    #[test]
    fn a_hop_is_paid_once_per_pipeline() {
        let p = Term::pipe_all([atom("a", "3*x"), atom("b", "5"), atom("c", "x")]).unwrap();
        let hop = Throughput::new().per_hop(Expr::num(100.0));
        let at = [("x", 10.0)];
        assert_eq!(hop.of(&p).unwrap().eval(&at).unwrap(), 130.0);
        let nested = Term::seq(p.clone(), Term::pipe(atom("d", "1"), atom("e", "2")));
        assert_eq!(hop.of(&nested).unwrap().eval(&at).unwrap(), 130.0 + 102.0);
    }

    #[test]
    fn map_reduce_eq5() {
        let t = Term::map_reduce(
            MapReduceParams::new("m", "n", Expr::parse("x").unwrap(), Expr::num(768.0)),
            atom("map", "3.529e7"),
            Atom::new(
                "shuffle",
                Expr::parse("(m*n - 1)/(m*n) * 12288 * x / 0.125").unwrap(),
            ),
            atom("reduce", "9376*x"),
        );
        let m = model(&t);
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
        assert_eq!(threads(&t), "m·n");
        assert_eq!(s(Footprint::of(&t).nodes), "m");
    }

    #[test]
    fn a_profile_resolves_communications_with_contention_in_groups() {
        let stage = atom("stage", "1000 / p + allgather(p, 8000 / p)");
        let t = Term::On(
            64u64.into(),
            Box::new(Term::Par(
                vec![16u64.into(), 48u64.into()],
                vec![stage.clone(), stage.clone()],
            )),
        );
        let t3e = MachineProfile::t3e();
        let us = Throughput::new().machine(&t3e).of(&t).unwrap();
        let alone = Throughput::new()
            .machine(&t3e)
            .of(&Term::On(16u64.into(), Box::new(stage)))
            .unwrap();
        let (us, alone) = (us.eval(&[]).unwrap(), alone.eval(&[]).unwrap());
        // The 16-processor group decides; under contention it is slower.
        assert!(us > alone, "{us} vs {alone}");
        assert!(Throughput::new().of(&t).unwrap().eval(&[]).is_err());
    }
}
