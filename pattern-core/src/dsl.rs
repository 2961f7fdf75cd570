//! The type-level pattern algebra: each operator is a small generic struct,
//! a design is a type, well-formedness is a trait bound, and the cost of a
//! design is a constant.
//!
//! ```
//! use pattern_core::dsl::{cost_at, Pattern, Pipe, Tpool};
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
//! // The normal form rounds coefficients to 12 digits.
//! assert!((COST - runtime).abs() <= 1e-11 * runtime);
//! ```
//!
//! A task pool over a design that contains a shuffle phase does not compile:
//!
//! ```compile_fail
//! use pattern_core::dsl::{MapReduce, Pattern, Tpool};
//! use pattern_core::paper::{Keys768, MapHadoop, PerKeyX, ReduceHadoop, ShuffleHadoop};
//!
//! type Hadoop = MapReduce<4, 12, PerKeyX, Keys768, MapHadoop, ShuffleHadoop, ReduceHadoop>;
//! let _ = <Tpool<2, Hadoop> as Pattern>::term(); // error: a task pool cannot wrap ...
//! ```
//!
//! The task groups of multi-processor tasks (seed 004) are patterns too, so a
//! budget can hold a distributed design: [`On`] (`on[p](t)`), [`Par`] over
//! [`Part`]s (`par[p1, p2](t1, t2)`), [`Groups`] (`groups[s](t)`) and
//! [`Redist`] (`seq[redist = e](a, b)`). Their const models bind the models'
//! `p` as the runtime models do:
//!
//! ```
//! use pattern_core::dsl::{cost_at, Fixed, On, Par, Part, Pattern, Tpool};
//! use pattern_core::paper::{Inc, Qsort};
//!
//! // Two task pools at once on 8 processors: 6 sort, 2 increment.
//! type Design = On<Fixed<8>, Par<(Part<Fixed<6>, Tpool<6, Qsort>>, (Part<Fixed<2>, Tpool<2, Inc>>, ()))>>;
//! const COST: f64 = cost_at::<Design>(1e6);
//! const _: () = assert!(COST < 4e9);
//! assert_eq!(
//!     Design::term().to_string(),
//!     "on[8](par[6, 2](tpool[6](qsort), tpool[2](inc)))"
//! );
//! let runtime = Design::model().eval(&[("x", 1e6)]).unwrap();
//! // The normal form rounds coefficients to 12 digits.
//! assert!((COST - runtime).abs() <= 1e-11 * runtime);
//! ```

mod const_expr;
mod summary;

pub use const_expr::ConstExpr;
#[doc(hidden)]
pub use summary::ConstText;

use crate::semantics::{Resources, Throughput};
use crate::{Atom, Count, Design, Expr, MapReduceParams, Term, TermError};
use std::marker::PhantomData;

/// A design as a type: an atom ([`CostModel`]) or a pattern over designs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a design",
    label = "not an atom or a pattern",
    note = "atoms are types implementing `CostModel` (what `#[cost(..)]` writes); patterns are `Seq`, `Pipe`, `Tpool`, `MapReduce`, and the task groups `On`, `Par`, `Groups` and `Redist`, over designs"
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
#[doc(hidden)]
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
    /// The bytes a call moves to and from memory ([`Atom::bytes`](crate::Atom#structfield.bytes)),
    /// if known.
    const BYTES: Option<ConstExpr> = None;
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
        bytes: A::BYTES.map(|b| b.to_expr()),
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
    /// The count if it is a number (`Some(K)` for [`Fixed<K>`]), `None` for
    /// a named count.
    const FIXED: Option<u64> = None;
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
    const FIXED: Option<u64> = Some(K);
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

/// The temporaries of the shuffle's simultaneous binding: reserved names (a
/// model that named one would read the temporary).
const SHUFFLE_X: &str = "__shuffle_x";
const SHUFFLE_O: &str = "__shuffle_o";
const SHUFFLE_M: &str = "__shuffle_m";
const SHUFFLE_N: &str = "__shuffle_n";

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
    // x·M[map](1)/(m·n) + M[shuffle](x := d, o := k, m, n) + k·M[reduce](d)/(m·n),
    // one expression: only the tail's temporaries live for 'static. The
    // shuffle's four variables are bound at once, as the runtime
    // substitution does: d(x), k(x) and the counts are first evaluated into
    // temporaries that no model names, so that none of them reads a
    // variable another one rebinds (`n = m`, `d = x/n`).
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
                SHUFFLE_X,
                &D::MODEL,
                &ConstExpr::Let(
                    SHUFFLE_O,
                    &K::MODEL,
                    &ConstExpr::Let(
                        SHUFFLE_M,
                        &M::EXPR,
                        &ConstExpr::Let(
                            SHUFFLE_N,
                            &N::EXPR,
                            &ConstExpr::Let(
                                "x",
                                &ConstExpr::Var(SHUFFLE_X),
                                &ConstExpr::Let(
                                    "o",
                                    &ConstExpr::Var(SHUFFLE_O),
                                    &ConstExpr::Let(
                                        "m",
                                        &ConstExpr::Var(SHUFFLE_M),
                                        &ConstExpr::Let(
                                            "n",
                                            &ConstExpr::Var(SHUFFLE_N),
                                            &Shuffle::MODEL,
                                        ),
                                    ),
                                ),
                            ),
                        ),
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

/// `on[P](T)`: `T` as a multi-processor task on a group of `P` processors,
/// the whole program when outermost (seed 004); `M = M[T]` with its `p`
/// bound to `P`.
///
/// ```
/// use pattern_core::dsl::{cost_with, CostModel, Fixed, On, Pattern};
/// use pattern_core::dsl::ConstExpr;
///
/// /// 1000 / p + 50 · log2(p): a step that shares the work and pays a
/// /// logarithmic collective.
/// struct Stage;
/// impl CostModel for Stage {
///     const NAME: &'static str = "stage";
///     const MODEL: ConstExpr = ConstExpr::Add(
///         &ConstExpr::Div(&ConstExpr::Num(1000.0), &ConstExpr::Var("p")),
///         &ConstExpr::Mul(&ConstExpr::Num(50.0), &ConstExpr::Log2(&ConstExpr::Var("p"))),
///     );
/// }
///
/// type Design = On<Fixed<16>, Stage>;
/// const COST: f64 = cost_with::<Design>(&[]);
/// const _: () = assert!(COST < 300.0);
/// assert_eq!(COST, 1000.0 / 16.0 + 50.0 * 4.0);
/// assert_eq!(Design::term().to_string(), "on[16](stage)");
/// assert_eq!(Design::model().eval(&[]).unwrap(), COST);
/// ```
pub struct On<P, T>(PhantomData<(P, T)>);

/// `groups[S](T)`: `S` equal groups of `floor(p/S)` processors, each running
/// `T` at once; the smallest group decides. `M = M[T]` with its `p` bound to
/// `floor(p/S)` (to `p` itself when `S` is 1).
///
/// ```
/// use pattern_core::dsl::{cost_with, CostModel, CountName, Fixed, Groups, On, Pattern};
/// use pattern_core::dsl::ConstExpr;
///
/// /// 1200 / p: a stage vector computed by a group.
/// struct Stage;
/// impl CostModel for Stage {
///     const NAME: &'static str = "stage";
///     const MODEL: ConstExpr = ConstExpr::Div(&ConstExpr::Num(1200.0), &ConstExpr::Var("p"));
/// }
/// /// The number of stages, a variable of the model.
/// struct S;
/// impl CountName for S {
///     const NAME: &'static str = "s";
/// }
///
/// type Design = On<Fixed<64>, Groups<S, Stage>>;
/// // 64 processors in 3 groups: groups of 21 processors.
/// const COST: f64 = cost_with::<Design>(&[("s", 3.0)]);
/// assert_eq!(COST, 1200.0 / 21.0);
/// assert_eq!(Design::term().to_string(), "on[64](groups[s](stage))");
/// let runtime = Design::model().eval(&[("s", 3.0)]).unwrap();
/// assert!((COST - runtime).abs() <= 1e-11 * runtime); // the normal form rounds to 12 digits
/// ```
pub struct Groups<S, T>(PhantomData<(S, T)>);

/// `seq[redist = C](A, B)`: `A` then `B` on the same group, with the cost
/// `C` of redistributing the data between them; `M = M[A] + M[B] + M[C]`.
/// `C` is a cost model, written into the design as its expression.
///
/// ```
/// use pattern_core::dsl::{cost_with, CostModel, Fixed, On, Pattern, Redist};
/// use pattern_core::dsl::ConstExpr;
///
/// struct Solve;
/// impl CostModel for Solve {
///     const NAME: &'static str = "solve";
///     const MODEL: ConstExpr = ConstExpr::Div(&ConstExpr::Var("x"), &ConstExpr::Var("p"));
/// }
/// /// 8·x bytes at 0.5 bytes per ns.
/// struct Transpose;
/// impl CostModel for Transpose {
///     const NAME: &'static str = "transpose";
///     const MODEL: ConstExpr = ConstExpr::Div(
///         &ConstExpr::Mul(&ConstExpr::Num(8.0), &ConstExpr::Var("x")),
///         &ConstExpr::Num(0.5),
///     );
/// }
///
/// type Design = On<Fixed<8>, Redist<Transpose, Solve, Solve>>;
/// const COST: f64 = cost_with::<Design>(&[("x", 1024.0)]);
/// assert_eq!(COST, 128.0 + 128.0 + 16384.0);
/// assert_eq!(Design::term().to_string(), "on[8](seq[redist = 8*x/0.5](solve, solve))");
/// assert_eq!(Design::model().eval(&[("x", 1024.0)]).unwrap(), COST);
/// ```
pub struct Redist<C, A, B>(PhantomData<(C, A, B)>);

/// One part of a [`Par`]: the task `T` on a group of `S` processors.
pub struct Part<S, T>(PhantomData<(S, T)>);

/// `par[S1, S2, ..](T1, T2, ..)`: the tasks at once on disjoint groups of
/// the given sizes; `M = max(M[T1](p := S1), M[T2](p := S2), ..)`. The parts
/// are a list of [`Part`]s written as nested pairs ending in `()`, with two
/// parts or more ([`TwoOrMoreParts`]).
///
/// ```
/// use pattern_core::dsl::{cost_with, CostModel, Fixed, On, Par, Part, Pattern};
/// use pattern_core::dsl::ConstExpr;
///
/// /// 1000 / p + 50 · log2(p) (seed 004's shape: shared work, a collective).
/// struct Stage;
/// impl CostModel for Stage {
///     const NAME: &'static str = "stage";
///     const MODEL: ConstExpr = ConstExpr::Add(
///         &ConstExpr::Div(&ConstExpr::Num(1000.0), &ConstExpr::Var("p")),
///         &ConstExpr::Mul(&ConstExpr::Num(50.0), &ConstExpr::Log2(&ConstExpr::Var("p"))),
///     );
/// }
///
/// // on[64](par[16, 48](stage, stage))
/// type Design = On<Fixed<64>, Par<(Part<Fixed<16>, Stage>, (Part<Fixed<48>, Stage>, ()))>>;
/// const COST: f64 = cost_with::<Design>(&[]);
/// // The larger group decides: its collective costs more than the work it saves.
/// const _: () = assert!(COST > 1000.0 / 16.0 + 50.0 * 4.0);
/// assert_eq!(Design::term().to_string(), "on[64](par[16, 48](stage, stage))");
/// let runtime = Design::model().eval(&[]).unwrap();
/// assert!((COST - runtime).abs() <= 1e-11 * runtime); // the normal form rounds to 12 digits
/// assert!((COST - (1000.0 / 48.0 + 50.0 * 48f64.log2())).abs() < 1e-12);
/// ```
///
/// A `par` of one part is not a design (that is `on[p](t)`):
///
/// ```compile_fail
/// use pattern_core::dsl::{Fixed, Par, Part, Pattern};
/// use pattern_core::paper::Qsort;
///
/// let _ = Par::<(Part<Fixed<4>, Qsort>, ())>::term(); // error: `par` runs two tasks or more
/// ```
pub struct Par<L: TwoOrMoreParts>(PhantomData<L>);

/// The parts of a [`Par`]: `()`, or a [`Part`] followed by more parts.
pub trait PartList {
    /// The number of parts.
    const LEN: usize;
    /// `max` of the parts' models, each with `p` bound to its group size
    /// (unused for `()`).
    const MODEL: ConstExpr;
    /// Appends the group sizes and the runtime terms of the parts.
    fn push_parts(sizes: &mut Vec<Count>, parts: &mut Vec<Term>);
}

impl PartList for () {
    const LEN: usize = 0;
    const MODEL: ConstExpr = ConstExpr::Num(f64::NEG_INFINITY);
    fn push_parts(_: &mut Vec<Count>, _: &mut Vec<Term>) {}
}

impl<S: CountParam, T: Pattern, Rest: PartList> PartList for (Part<S, T>, Rest) {
    const LEN: usize = 1 + Rest::LEN;
    const MODEL: ConstExpr = if Rest::LEN == 0 {
        ConstExpr::Let("p", &S::EXPR, &T::MODEL)
    } else {
        ConstExpr::Max(&ConstExpr::Let("p", &S::EXPR, &T::MODEL), &Rest::MODEL)
    };
    fn push_parts(sizes: &mut Vec<Count>, parts: &mut Vec<Term>) {
        sizes.push(S::count());
        parts.push(T::term());
        Rest::push_parts(sizes, parts);
    }
}

/// The parts of a `par`: two or more. A list of fewer is not a design.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of two or more parts: `par` runs two tasks or more at once",
    label = "par needs two or more parts",
    note = "write the parts as nested pairs ending in `()`: `Par<(Part<Fixed<16>, A>, (Part<Fixed<48>, B>, ()))>` is `par[16, 48](a, b)`; one task on a group of processors is `On<P, T>`"
)]
pub trait TwoOrMoreParts: PartList {}

impl<S1, T1, S2, T2, Rest> TwoOrMoreParts for (Part<S1, T1>, (Part<S2, T2>, Rest)) where
    (Part<S1, T1>, (Part<S2, T2>, Rest)): PartList
{
}

/// Parts free of shuffle phases: a `par` of them may be wrapped in a task
/// pool.
pub trait ShuffleFreeParts: PartList {}

impl ShuffleFreeParts for () {}

impl<S: CountParam, T: ShuffleFree, Rest: ShuffleFreeParts> ShuffleFreeParts
    for (Part<S, T>, Rest)
{
}

impl<P: CountParam, T: Pattern> Pattern for On<P, T> {
    const MODEL: ConstExpr = ConstExpr::Let("p", &P::EXPR, &T::MODEL);
    fn term() -> Term {
        Term::On(P::count(), Box::new(T::term()))
    }
}

impl<P: CountParam, T: ShuffleFree> ShuffleFree for On<P, T> {}

impl<S: CountParam, T: Pattern> Pattern for Groups<S, T> {
    // One group (`S` = 1) is all of `p`: no floor, as the runtime model.
    const MODEL: ConstExpr = if matches!(S::FIXED, Some(1)) {
        T::MODEL
    } else {
        ConstExpr::Let(
            "p",
            &ConstExpr::Floor(&ConstExpr::Div(&ConstExpr::Var("p"), &S::EXPR)),
            &T::MODEL,
        )
    };
    fn term() -> Term {
        Term::Groups(S::count(), Box::new(T::term()))
    }
}

impl<S: CountParam, T: ShuffleFree> ShuffleFree for Groups<S, T> {}

impl<C: CostModel, A: Pattern, B: Pattern> Pattern for Redist<C, A, B> {
    const MODEL: ConstExpr = ConstExpr::Add(&ConstExpr::Add(&A::MODEL, &B::MODEL), &C::MODEL);
    fn term() -> Term {
        Term::Redist(C::MODEL.to_expr(), Box::new(A::term()), Box::new(B::term()))
    }
}

impl<C: CostModel, A: ShuffleFree, B: ShuffleFree> ShuffleFree for Redist<C, A, B> {}

impl<L: TwoOrMoreParts> Pattern for Par<L> {
    const MODEL: ConstExpr = L::MODEL;
    fn term() -> Term {
        let (mut sizes, mut parts) = (Vec::with_capacity(L::LEN), Vec::with_capacity(L::LEN));
        L::push_parts(&mut sizes, &mut parts);
        Term::Par(sizes, parts)
    }
}

impl<L: TwoOrMoreParts + ShuffleFreeParts> ShuffleFree for Par<L> {}

/// What `#[cost(..)]` records about an annotated function: its name, its
/// model (normal form, in nanoseconds per call), the model's text and the
/// bytes a call moves, if given. Read it with `cost_of!(function)`.
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
    /// The bytes a call moves to and from memory (`bytes = ".."`), in the
    /// model's variables, if given.
    pub bytes: Option<ConstExpr>,
}

impl CostAnnotation {
    /// The model as a runtime expression.
    pub fn expr(&self) -> Expr {
        self.model.to_expr()
    }

    /// The function as an atom of a runtime term, with its bytes.
    pub fn term(&self) -> Term {
        Term::Atom(Atom {
            name: self.name.to_string(),
            model: self.expr(),
            bytes: self.bytes.map(|b| b.to_expr()),
        })
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
mod tests;
