//! The type-level pattern algebra: each operator is a small generic struct,
//! a design is a type, well-formedness is a trait bound, and the cost of a
//! design is a constant.
//!
//! ```
//! use pattern_core::pattern::{cost_at, Pattern, Pipe, Tpool};
//! use pattern_core::paper::{Inc, Qsort};
//!
//! type Design = Pipe<Tpool<4, Qsort>, Inc>;
//!
//! // The budget is checked by the compiler: 6 s per element at x = 10^6.
//! const COST: f64 = cost_at::<Design>(1e6);
//! const _: () = assert!(COST < 6e9);
//!
//! assert_eq!(Design::term().to_string(), "pipe(tpool[4](qsort), inc)");
//! let runtime = Design::model().eval(&[("x", 1e6)]).unwrap();
//! assert!((COST - runtime).abs() <= 1e-12 * runtime);
//! ```
//!
//! A task pool over a design that contains a shuffle phase does not compile:
//!
//! ```compile_fail
//! use pattern_core::pattern::{MapReduce, Pattern, Tpool};
//! use pattern_core::paper::{Keys768, MapHadoop, PerKeyX, ReduceHadoop, ShuffleHadoop};
//!
//! type Hadoop = MapReduce<4, 12, PerKeyX, Keys768, MapHadoop, ShuffleHadoop, ReduceHadoop>;
//! let _ = <Tpool<2, Hadoop> as Pattern>::term(); // error: a task pool cannot wrap ...
//! ```

use crate::semantics::{Resources, Throughput};
use crate::{Atom, ConstExpr, Count, Design, Expr, MapReduceParams, Term, TermError};
use std::marker::PhantomData;

/// A design as a type: an atom ([`CostModel`]) or a pattern over designs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a design",
    label = "not an atom or a pattern",
    note = "atoms are types implementing `CostModel` (what `#[cost(..)]` writes); patterns are `Seq`, `Pipe`, `Tpool` and `MapReduce` over designs"
)]
pub trait Pattern {
    /// The throughput model (`pipe` as a pointwise `max`), evaluable in
    /// `const` context.
    const MODEL: ConstExpr;

    /// The design as a runtime term.
    fn term() -> Term;

    /// The symbolic throughput model, in normal form.
    fn model() -> Expr {
        Throughput::new()
            .of(&Self::term())
            .unwrap_or_else(|never| match never {})
            .simplify()
    }

    /// The throughput model with the paper's asymptotic choice for `pipe`,
    /// in normal form.
    fn model_asymptotic() -> Expr {
        design_of::<Self>().model_asymptotic()
    }

    /// The latency of one element, in normal form.
    fn latency() -> Expr {
        design_of::<Self>().latency()
    }

    /// The threads and nodes the design occupies, in normal form.
    fn resources() -> Resources {
        design_of::<Self>().resources()
    }

    /// The design as a value, checked. Fails if a count is 0 or two
    /// different atoms share a name.
    fn design() -> Result<Design, TermError> {
        Design::from_term(Self::term())
    }
}

/// The design of a type whose well-formedness the compiler checked (what
/// `design!` gives in expression position): the counts are positive (its
/// const model was evaluated) and a task pool never wraps a shuffle (the
/// `ShuffleFree` bound). Atoms that share a name keep the first model in the
/// definitions.
pub fn design_of<P: Pattern + ?Sized>() -> Design {
    Design::from_checked_term(P::term())
}

/// Stands for a design that `design!` rejected, so that its uses add no
/// errors of their own.
pub enum InvalidDesign {}

impl Pattern for InvalidDesign {
    const MODEL: ConstExpr = ConstExpr::Num(0.0);
    fn term() -> Term {
        Term::atom("invalid_design", Expr::num(0.0))
    }
}

impl ShuffleFree for InvalidDesign {}

/// A sequential block with a cost model: what `#[cost(..)]` implements for
/// an annotated function. Also the form of a shuffle phase (a model in `x`,
/// `o`, `m`, `n`) and of a mapReduce's `d(x)` and `k(x)`. An atom used as a
/// stage also implements [`ShuffleFree`] (an empty impl), so that task
/// pools may wrap it.
pub trait CostModel {
    /// The name used in designs.
    const NAME: &'static str;
    /// The model, in nanoseconds per call.
    const MODEL: ConstExpr;
}

impl<A: CostModel> Pattern for A {
    const MODEL: ConstExpr = A::MODEL;
    fn term() -> Term {
        Term::Atom(atom::<A>())
    }
}

fn atom<A: CostModel>() -> Atom {
    Atom {
        name: A::NAME.to_string(),
        model: A::MODEL.to_expr(),
    }
}

/// Designs without a shuffle phase: the ones a task pool may wrap.
///
/// Atoms implement it one by one (`#[cost(..)]` writes the empty impl), not
/// through a blanket impl over [`CostModel`]: with a blanket impl, the
/// compiler would explain a mapReduce in a task pool as "`MapReduce` is not
/// a `CostModel`" instead of stating the rule below.
#[diagnostic::on_unimplemented(
    message = "a task pool cannot wrap `{Self}`: it contains a shuffle phase",
    label = "this design contains a mapReduce, and so a shuffle phase",
    note = "a shuffle phase must never be wrapped inside a task pool (seed 001 §3.2): put the task pool around the map or the reduce phase instead"
)]
pub trait ShuffleFree: Pattern {}

/// `seq(A, B)`: `A` then `B` on one thread; `M = M[A] + M[B]`.
pub struct Seq<A, B>(PhantomData<(A, B)>);

/// `pipe(A, B)`: two stages on their own threads; `M = max(M[A], M[B])`.
pub struct Pipe<A, B>(PhantomData<(A, B)>);

/// A count of a pattern as a type: [`Fixed`] for a number, or a named
/// symbol ([`CountName`]) that stays a variable of the model.
pub trait CountParam {
    /// The count in a const model: a number or a variable.
    const EXPR: ConstExpr;
    /// The count of the runtime term.
    fn count() -> Count;
}

/// A fixed count `K` (must be positive: checked when the model is evaluated).
pub struct Fixed<const K: u64>;

impl<const K: u64> CountParam for Fixed<K> {
    const EXPR: ConstExpr = {
        assert!(
            K > 0,
            "a count of a pattern (tpool[N], mapreduce[m, n]) must be positive"
        );
        ConstExpr::Num(K as f64)
    };
    fn count() -> Count {
        Count::Fixed(K)
    }
}

/// A named count: implement it for a marker type (`design!` writes these for
/// `tpool[n](..)`) to keep the count a variable of the model.
pub trait CountName {
    /// The variable's name.
    const NAME: &'static str;
}

impl<S: CountName> CountParam for S {
    const EXPR: ConstExpr = ConstExpr::Var(S::NAME);
    fn count() -> Count {
        Count::Symbol(S::NAME.to_string())
    }
}

/// `tpool[N](T)` with the count as a type: [`Fixed`] or a [`CountName`].
pub struct TpoolOver<N: CountParam, T: ShuffleFree>(PhantomData<(N, T)>);

/// `tpool[N](T)`: `N` workers running `T`; `M = M[T] / N`. `N` must be
/// positive and `T` free of shuffle phases.
pub type Tpool<const N: u64, T> = TpoolOver<Fixed<N>, T>;

/// `mapreduce[m = M, n = N, d = D, k = K](Map, Shuffle, Reduce)` (eq. 5) with
/// the counts as types. `D` and `K` are cost models used as functions of
/// `x`; `Shuffle`'s model is in `x` (elements per key), `o` (keys), `m` and
/// `n`.
pub struct MapReduceOver<M, N, D, K, Map, Shuffle, Reduce>(
    PhantomData<(M, N, D, K, Map, Shuffle, Reduce)>,
);

/// `mapreduce[m = M, n = N, d = D, k = K](Map, Shuffle, Reduce)` with fixed
/// counts.
pub type MapReduce<const M: u64, const N: u64, D, K, Map, Shuffle, Reduce> =
    MapReduceOver<Fixed<M>, Fixed<N>, D, K, Map, Shuffle, Reduce>;

impl<A: Pattern, B: Pattern> Pattern for Seq<A, B> {
    const MODEL: ConstExpr = ConstExpr::Add(&A::MODEL, &B::MODEL);
    fn term() -> Term {
        Term::seq(A::term(), B::term())
    }
}

impl<A: ShuffleFree, B: ShuffleFree> ShuffleFree for Seq<A, B> {}

impl<A: Pattern, B: Pattern> Pattern for Pipe<A, B> {
    const MODEL: ConstExpr = ConstExpr::Max(&A::MODEL, &B::MODEL);
    fn term() -> Term {
        Term::pipe(A::term(), B::term())
    }
}

impl<A: ShuffleFree, B: ShuffleFree> ShuffleFree for Pipe<A, B> {}

impl<N: CountParam, T: ShuffleFree> Pattern for TpoolOver<N, T> {
    const MODEL: ConstExpr = ConstExpr::Div(&T::MODEL, &N::EXPR);
    fn term() -> Term {
        Term::tpool(N::count(), T::term())
    }
}

impl<N: CountParam, T: ShuffleFree> ShuffleFree for TpoolOver<N, T> {}

impl<M, N, D, K, Map, Shuffle, Reduce> Pattern for MapReduceOver<M, N, D, K, Map, Shuffle, Reduce>
where
    M: CountParam,
    N: CountParam,
    D: CostModel,
    K: CostModel,
    Map: Pattern,
    Shuffle: CostModel,
    Reduce: Pattern,
{
    // x·M[map](1)/(m·n) + M[shuffle](x := d, o := k) + k·M[reduce](d)/(m·n),
    // one expression: only the tail's temporaries live for 'static. `o` is
    // bound before `x` is rebound, so k(x) reads the input size.
    const MODEL: ConstExpr = ConstExpr::Add(
        &ConstExpr::Add(
            &ConstExpr::Div(
                &ConstExpr::Mul(
                    &ConstExpr::Var("x"),
                    &ConstExpr::Let("x", &ConstExpr::Num(1.0), &Map::MODEL),
                ),
                &ConstExpr::Mul(&M::EXPR, &N::EXPR),
            ),
            &ConstExpr::Let(
                "o",
                &K::MODEL,
                &ConstExpr::Let(
                    "m",
                    &M::EXPR,
                    &ConstExpr::Let(
                        "n",
                        &N::EXPR,
                        &ConstExpr::Let("x", &D::MODEL, &Shuffle::MODEL),
                    ),
                ),
            ),
        ),
        &ConstExpr::Div(
            &ConstExpr::Mul(&K::MODEL, &ConstExpr::Let("x", &D::MODEL, &Reduce::MODEL)),
            &ConstExpr::Mul(&M::EXPR, &N::EXPR),
        ),
    );
    fn term() -> Term {
        Term::map_reduce(
            MapReduceParams {
                m: M::count(),
                n: N::count(),
                d: D::MODEL.to_expr(),
                k: K::MODEL.to_expr(),
            },
            Map::term(),
            atom::<Shuffle>(),
            Reduce::term(),
        )
    }
}

/// What `#[cost(..)]` records about an annotated function: its name, its
/// model (normal form, in nanoseconds per call) and the model's text. Read
/// it with `cost_of!(function)`.
///
/// ```
/// use pattern_core::{cost, cost_of};
///
/// #[cost("1034.17 * x * log2(x)")]
/// fn qsort(v: &mut [i32]) {
///     v.sort_unstable()
/// }
///
/// const AT_1024: f64 = cost_of!(qsort).model.eval(&[("x", 1024.0)]);
/// assert_eq!(AT_1024, 1034.17 * 1024.0 * 10.0);
/// assert_eq!(cost_of!(qsort).expr().to_string(), "1034.17·x·log₂(x)");
/// assert_eq!(cost_of!(qsort).name, "qsort");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostAnnotation {
    /// The function's name, as designs use it.
    pub name: &'static str,
    /// The model in nanoseconds per call, evaluable in `const` context.
    pub model: ConstExpr,
    /// The model's text (ASCII, normal form).
    pub text: &'static str,
}

impl CostAnnotation {
    /// The model as a runtime expression.
    pub fn expr(&self) -> Expr {
        self.model.to_expr()
    }

    /// The function as an atom of a runtime term.
    pub fn term(&self) -> Term {
        Term::atom(self.name, self.expr())
    }
}

/// The cost of a design per element at input size `x`, in `const` context.
pub const fn cost_at<P: Pattern>(x: f64) -> f64 {
    P::MODEL.eval(&[("x", x)])
}

/// The cost of a design with every variable bound, in `const` context (NaN
/// if one is unbound, which fails any budget assertion).
pub const fn cost_with<P: Pattern>(bindings: &[(&str, f64)]) -> f64 {
    P::MODEL.eval(bindings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{
        Inc, Keys768, MapGrppi, MapHadoop, NoShuffle, Nop, PerKeyX, Qsort, ReduceGrppi,
        ReduceHadoop, ShuffleHadoop, Thread768, XKeys,
    };

    fn agree<P: Pattern>(xs: &[f64]) {
        // As built: the normal form rounds differently.
        let model = Throughput::new().model(&P::term());
        for &x in xs {
            let c = cost_at::<P>(x);
            let r = model.eval(&[("x", x)]).unwrap();
            assert!(
                (c - r).abs() <= 1e-13 * r.abs(),
                "{}: {c} vs {r} at {x}",
                P::term()
            );
        }
    }

    #[test]
    fn const_models_agree_with_the_runtime_models() {
        let xs = [1024.0, 4096.0, 100_000.0, 262_144.0, 1e6];
        agree::<Qsort>(&xs);
        agree::<Seq<Qsort, Nop>>(&xs);
        agree::<Pipe<Tpool<4, Qsort>, Inc>>(&xs);
        agree::<Tpool<2, Seq<Inc, Qsort>>>(&xs);
        agree::<Pipe<Pipe<Qsort, Inc>, Nop>>(&xs);
        agree::<MapReduce<1, 4, Thread768, XKeys, MapGrppi, NoShuffle, ReduceGrppi>>(&xs);
        agree::<MapReduce<4, 12, PerKeyX, Keys768, MapHadoop, ShuffleHadoop, ReduceHadoop>>(&xs);
    }

    #[test]
    fn terms_from_types() {
        assert_eq!(
            Pipe::<Tpool<4, Qsort>, Seq<Inc, Nop>>::term().to_string(),
            "pipe(tpool[4](qsort), seq(inc, nop))"
        );
        type Hadoop = MapReduce<4, 12, PerKeyX, Keys768, MapHadoop, ShuffleHadoop, ReduceHadoop>;
        assert_eq!(
            Hadoop::term().to_string(),
            "mapreduce[m = 4, n = 12, d = x, k = 768](map_hadoop, shuffle_hadoop, reduce_hadoop)"
        );
        assert_eq!(Hadoop::resources().threads.simplify(), Expr::num(48.0));
        assert_eq!(
            Pipe::<Qsort, Inc>::design().unwrap().term(),
            &Pipe::<Qsort, Inc>::term()
        );
        assert_eq!(
            Pipe::<Qsort, Nop>::model_asymptotic().to_string(),
            "1034.17·x·log₂(x)"
        );
    }

    #[test]
    fn budgets_in_const_context() {
        const PIPE: f64 = cost_at::<Pipe<Tpool<4, Qsort>, Inc>>(1e6);
        const _: () = assert!(PIPE < 6e9);
        const SYMBOLIC: f64 = cost_with::<Qsort>(&[("y", 1.0)]);
        assert!(SYMBOLIC.is_nan());
        assert_eq!(
            cost_at::<Tpool<4, Qsort>>(1024.0),
            1034.17 * 1024.0 * 10.0 / 4.0
        );
    }
}
