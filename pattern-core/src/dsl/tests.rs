//! Unit tests of the type-level algebra: each pattern's const model equals
//! the runtime model of its term, of the design's text read back, and of
//! its normal form.

use super::*;
use crate::paper::{
    Inc, Keys768, MapGrppi, MapHadoop, NoShuffle, Nop, PerKeyX, Qsort, ReduceGrppi, ReduceHadoop,
    ShuffleHadoop, Thread768, XKeys,
};

fn agree<P: Pattern>(xs: &[f64]) {
    // As built: the normal form rounds differently.
    let model = Throughput::new().expr(&P::term());
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

/// Test atoms over the seed 004 variables, with `ConstExpr` trees built
/// from these leaves.
const P: ConstExpr = ConstExpr::Var("p");
const X: ConstExpr = ConstExpr::Var("x");
/// `ceil(n/p)`: elements of a processor.
const LOCAL: ConstExpr = ConstExpr::Ceil(&ConstExpr::Div(&ConstExpr::Var("n"), &P));
/// A multi-broadcast of `8·ceil(n/p)` bytes: `log2(p)·(20 + 8·ceil(n/p)/0.5)`.
const BROADCAST: ConstExpr = ConstExpr::Mul(
    &ConstExpr::Log2(&P),
    &ConstExpr::Add(
        &ConstExpr::Num(20.0),
        &ConstExpr::Div(
            &ConstExpr::Mul(&ConstExpr::Num(8.0), &LOCAL),
            &ConstExpr::Num(0.5),
        ),
    ),
);
/// `ceil(n/p)·(2·s + 1)·t_op`.
const STEP: ConstExpr = ConstExpr::Mul(
    &ConstExpr::Mul(
        &LOCAL,
        &ConstExpr::Add(
            &ConstExpr::Mul(&ConstExpr::Num(2.0), &ConstExpr::Var("s")),
            &ConstExpr::Num(1.0),
        ),
    ),
    &ConstExpr::Var("t_op"),
);

macro_rules! atom {
    ($ty:ident, $name:literal, $model:expr) => {
        struct $ty;
        impl CostModel for $ty {
            const NAME: &'static str = $name;
            const MODEL: ConstExpr = $model;
        }
        impl ShuffleFree for $ty {}
    };
}

// 1000 / p + 50·log2(p)
atom!(
    Stage,
    "stage",
    ConstExpr::Add(
        &ConstExpr::Div(&ConstExpr::Num(1000.0), &P),
        &ConstExpr::Mul(&ConstExpr::Num(50.0), &ConstExpr::Log2(&P)),
    )
);
// x / p + 3·x
atom!(
    Work,
    "work",
    ConstExpr::Add(
        &ConstExpr::Div(&X, &P),
        &ConstExpr::Mul(&ConstExpr::Num(3.0), &X)
    )
);
// 12·x·log2(p) + 7
atom!(
    Shift,
    "shift",
    ConstExpr::Add(
        &ConstExpr::Mul(
            &ConstExpr::Mul(&ConstExpr::Num(12.0), &X),
            &ConstExpr::Log2(&P)
        ),
        &ConstExpr::Num(7.0),
    )
);
// rk_group's stage: m·STEP + 2·m·BROADCAST
atom!(
    RkStage,
    "rk_stage",
    ConstExpr::Add(
        &ConstExpr::Mul(&ConstExpr::Var("m"), &STEP),
        &ConstExpr::Mul(
            &ConstExpr::Mul(&ConstExpr::Num(2.0), &ConstExpr::Var("m")),
            &BROADCAST,
        ),
    )
);
// rk_group's combine: STEP + BROADCAST
atom!(RkCombine, "rk_combine", ConstExpr::Add(&STEP, &BROADCAST));
// rk_consecutive: (s·m + 1)·(STEP + BROADCAST)
atom!(
    RkConsecutive,
    "rk",
    ConstExpr::Mul(
        &ConstExpr::Add(
            &ConstExpr::Mul(&ConstExpr::Var("s"), &ConstExpr::Var("m")),
            &ConstExpr::Num(1.0),
        ),
        &ConstExpr::Add(&STEP, &BROADCAST),
    )
);

/// The number of stages `s`, and of processors `q`, as named counts.
struct Stages;
impl CountName for Stages {
    const NAME: &'static str = "s";
}
struct Procs;
impl CountName for Procs {
    const NAME: &'static str = "q";
}

/// `cost_with` equals the runtime model of `term()` and of the design's
/// text read back (to 1e-13), and its normal form (whose coefficients
/// are rounded to 12 significant digits) to 1e-11, at every point;
/// returns the values.
fn agree_at<T: Pattern>(points: &[&[(&str, f64)]]) -> Vec<f64> {
    let runtime = Throughput::new().expr(&T::term());
    let design = T::design().expect("a well-formed design");
    let text = design.to_string();
    let parsed = Design::parse(&text).unwrap();
    let (read, normal) = (Throughput::new().expr(parsed.term()), parsed.model());
    points
        .iter()
        .map(|&at| {
            let c = cost_with::<T>(at);
            for (what, model, rel) in [
                ("runtime", &runtime, 1e-13),
                ("text", &read, 1e-13),
                ("normal form", &normal, 1e-11),
            ] {
                let r = model.eval(at).unwrap();
                assert!(
                    (c - r).abs() <= rel * r.abs(),
                    "{text}: const {c} vs {what} {r} at {at:?}"
                );
            }
            c
        })
        .collect()
}

type Two<S1, T1, S2, T2> = Par<(Part<S1, T1>, (Part<S2, T2>, ()))>;

#[test]
fn on_binds_p_to_its_count() {
    type D = On<Fixed<64>, Two<Fixed<16>, Stage, Fixed<48>, Stage>>;
    assert_eq!(D::term().to_string(), "on[64](par[16, 48](stage, stage))");
    let v = agree_at::<D>(&[&[], &[("p", 3.0)]]);
    // The outer p is bound: the value does not depend on it.
    assert_eq!(v[0], v[1]);
    let by_hand = (1000.0 / 16.0 + 200.0f64).max(1000.0 / 48.0 + 50.0 * 48f64.log2());
    assert!((v[0] - by_hand).abs() <= 1e-13 * by_hand);
    // A named count stays a variable of the model.
    type Named = On<Procs, Seq<Work, Shift>>;
    assert_eq!(Named::term().to_string(), "on[q](seq(work, shift))");
    let v = agree_at::<Named>(&[
        &[("q", 4.0), ("x", 1000.0)],
        &[("q", 64.0), ("x", 1e6)],
        &[("q", 1.0), ("x", 2.0), ("p", 99.0)],
    ]);
    assert_eq!(v[0], 1000.0 / 4.0 + 3000.0 + 12.0 * 1000.0 * 2.0 + 7.0);
    assert_eq!(v[2], 2.0 + 6.0 + 7.0);
}

#[test]
fn par_is_the_slowest_part_on_its_group() {
    type D = Two<Fixed<4>, Work, Fixed<12>, Tpool<2, Shift>>;
    assert_eq!(D::term().to_string(), "par[4, 12](work, tpool[2](shift))");
    let v = agree_at::<D>(&[&[("x", 10.0)], &[("x", 1e5)], &[("x", 1.0), ("p", 7.0)]]);
    let at = |x: f64| (x / 4.0 + 3.0 * x).max((12.0 * x * 12f64.log2() + 7.0) / 2.0);
    for (got, x) in v.iter().zip([10.0, 1e5, 1.0]) {
        assert!((got - at(x)).abs() <= 1e-13 * got, "{got} at {x}");
    }
    // Three parts, one of them on a named count, inside on[p].
    type Three = On<
        Fixed<100>,
        Par<(
            Part<Fixed<10>, Stage>,
            (Part<Procs, Work>, (Part<Fixed<30>, Seq<Stage, Shift>>, ())),
        )>,
    >;
    assert_eq!(
        Three::term().to_string(),
        "on[100](par[10, q, 30](stage, work, seq(stage, shift)))"
    );
    agree_at::<Three>(&[
        &[("x", 100.0), ("q", 60.0)],
        &[("x", 1.0), ("q", 1.0)],
        &[("x", 1e7), ("q", 2.0)],
    ]);
    assert_eq!(
        <(Part<Fixed<1>, Stage>, (Part<Procs, Stage>, ())) as PartList>::LEN,
        2
    );
}

#[test]
fn groups_bind_p_to_the_smallest_group() {
    type D = On<Fixed<64>, Groups<Fixed<3>, Stage>>;
    assert_eq!(D::term().to_string(), "on[64](groups[3](stage))");
    let v = agree_at::<D>(&[&[]]);
    assert_eq!(v[0], 1000.0 / 21.0 + 50.0 * 21f64.log2());
    // Without on[..] the model stays in p; one group is all of p, not
    // floor(p) (the same at integers, told apart at p = 10.5).
    type One = Groups<Fixed<1>, Work>;
    let v = agree_at::<One>(&[&[("x", 3.0), ("p", 10.5)], &[("x", 3.0), ("p", 8.0)]]);
    assert_eq!(v[0], 3.0 / 10.5 + 9.0);
    type Named = Groups<Stages, Seq<Stage, Work>>;
    assert_eq!(Named::term().to_string(), "groups[s](seq(stage, work))");
    agree_at::<Named>(&[
        &[("x", 3.0), ("p", 100.0), ("s", 7.0)],
        &[("x", 1e4), ("p", 16.0), ("s", 4.0)],
        &[("x", 1e4), ("p", 17.0), ("s", 1.0)],
    ]);
}

#[test]
fn redist_adds_its_cost() {
    type D = On<Fixed<8>, Redist<Shift, Work, Groups<Fixed<2>, Stage>>>;
    assert_eq!(
        D::term().to_string(),
        "on[8](seq[redist = 12*x*log2(p) + 7](work, groups[2](stage)))"
    );
    let v = agree_at::<D>(&[&[("x", 5.0)], &[("x", 1e6)]]);
    let at = |x: f64| x / 8.0 + 3.0 * x + (1000.0 / 4.0 + 100.0) + 12.0 * x * 3.0 + 7.0;
    assert!((v[0] - at(5.0)).abs() <= 1e-13 * v[0]);
    assert!((v[1] - at(1e6)).abs() <= 1e-13 * v[1]);
}

#[test]
fn the_runge_kutta_designs_of_seed_004() {
    // rk_consecutive on all p processors, and rk_group: s groups
    // compute the stage vectors at once, then all p combine them.
    type Consecutive = RkConsecutive;
    type Group = Seq<Groups<Stages, RkStage>, RkCombine>;
    type Fixed64 = On<Fixed<64>, Group>;
    assert_eq!(
        Group::term().to_string(),
        "seq(groups[s](rk_stage), rk_combine)"
    );
    let points: [&[(&str, f64)]; 4] = [
        &[
            ("n", 1e4),
            ("p", 64.0),
            ("s", 4.0),
            ("m", 3.0),
            ("t_op", 1.3),
        ],
        &[
            ("n", 1e6),
            ("p", 256.0),
            ("s", 7.0),
            ("m", 5.0),
            ("t_op", 0.9),
        ],
        &[
            ("n", 7e5),
            ("p", 16.0),
            ("s", 1.0),
            ("m", 1.0),
            ("t_op", 2.0),
        ],
        &[
            ("n", 333.0),
            ("p", 48.0),
            ("s", 5.0),
            ("m", 2.0),
            ("t_op", 1.0),
        ],
    ];
    let consecutive = agree_at::<Consecutive>(&points);
    let group = agree_at::<Group>(&points);
    let fixed = agree_at::<Fixed64>(&points);
    assert_eq!(group[0], fixed[0]);
    // By hand at the first point: groups of 16 processors hold 625
    // elements each, all 64 hold 157 each in the combine step.
    let stage = 3.0 * (625.0 * 9.0 * 1.3) + 6.0 * (4.0 * (20.0 + 8.0 * 625.0 / 0.5));
    let combine = 157.0 * 9.0 * 1.3 + 6.0 * (20.0 + 8.0 * 157.0 / 0.5);
    assert!((group[0] - (stage + combine)).abs() <= 1e-13 * group[0]);
    assert!((consecutive[0] - 13.0 * combine).abs() <= 1e-13 * consecutive[0]);
}

#[test]
fn task_groups_in_task_pools_and_budgets() {
    type D = Tpool<2, On<Fixed<4>, Two<Fixed<2>, Stage, Fixed<2>, Redist<Shift, Work, Stage>>>>;
    assert_eq!(
        D::term().to_string(),
        "tpool[2](on[4](par[2, 2](stage, seq[redist = 12*x*log2(p) + 7](work, stage))))"
    );
    agree_at::<D>(&[&[("x", 1.0)], &[("x", 1e3)]]);
    const COST: f64 = cost_with::<On<Fixed<64>, Two<Fixed<16>, Stage, Fixed<48>, Stage>>>(&[]);
    const _: () = assert!(COST < 301.0);
    assert!(D::model_asymptotic().eval(&[("x", 1.0)]).is_ok());
}

/// A named count called `m`, for `n = m`.
struct CalledM;
impl CountName for CalledM {
    const NAME: &'static str = "m";
}
// d(x) = x / n + 1: reads a variable the shuffle's binding rebinds.
atom!(
    PerKeyOverN,
    "d",
    ConstExpr::Add(
        &ConstExpr::Div(&X, &ConstExpr::Var("n")),
        &ConstExpr::Num(1.0)
    )
);
// x·o + m·100 + n: a shuffle that reads all its variables.
atom!(
    ShuffleAll,
    "shuffle_all",
    ConstExpr::Add(
        &ConstExpr::Add(
            &ConstExpr::Mul(&X, &ConstExpr::Var("o")),
            &ConstExpr::Mul(&ConstExpr::Var("m"), &ConstExpr::Num(100.0)),
        ),
        &ConstExpr::Var("n"),
    )
);

#[test]
fn the_shuffle_binds_its_variables_at_once() {
    // As the runtime substitution: `n := m` reads the outer `m`, and
    // d(x), k(x) read the outer `n`, not the counts being bound.
    type D = MapReduceOver<Fixed<3>, CalledM, PerKeyOverN, Work, Shift, ShuffleAll, Stage>;
    let v = agree_at::<D>(&[
        &[("x", 64.0), ("m", 5.0), ("n", 2.0), ("p", 4.0)],
        &[("x", 1e4), ("m", 1.0), ("n", 7.0), ("p", 32.0)],
    ]);
    let (x, m, n, p) = (64.0, 5.0, 2.0, 4.0f64);
    let (d, k, workers) = (x / n + 1.0, x / p + 3.0 * x, 3.0 * m);
    let shuffle = d * k + 3.0 * 100.0 + m;
    let map = 12.0 * 1.0 * p.log2() + 7.0;
    let reduce = 1000.0 / p + 50.0 * p.log2();
    let by_hand = x * map / workers + shuffle + k * reduce / workers;
    assert!(
        (v[0] - by_hand).abs() <= 1e-13 * by_hand,
        "{} vs {by_hand}",
        v[0]
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
