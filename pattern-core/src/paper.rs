//! Reference data from seed 001 (Czappa et al., 2021): the atomic models of
//! Table 1, as text and as [`CostModel`] types, and the *measured*
//! (monolithic) models of Tables 2, 3, 4, 6 and 7; and the two
//! implementations of the iterated Runge–Kutta method of seed 004 §4 as
//! designs of multi-processor tasks ([`rk_consecutive`], [`rk_group`]). The *modular* models are
//! not here: they are what the operators compute from the atoms (see the
//! `paper_tables` example and the tests), and the paper's printed modular
//! column is kept only to check that computation against.

use crate::dsl::ConstExpr;
use crate::dsl::{CostModel, ShuffleFree};

/// Table 1: the atomic models, in nanoseconds per call (`x` = elements; for
/// `transfer`, bytes).
pub const TABLE_1: [(&str, &str); 10] = [
    ("nop", "5422.97"),
    ("inc", "536.185 * x"),
    ("qsort", "1034.17 * x * log2(x)"),
    ("map_grppi", "1.241e7"),
    ("reduce_grppi", "9.449e6"),
    ("map_hadoop", "3.529e7"),
    ("reduce_hadoop", "9376 * x"),
    ("reduce_p", "38316"),
    ("reduce_v", "0.353395 * x"),
    ("transfer", "0.125 * x"),
];

/// The Table 1 atoms as design-text definitions (`nop = 5422.97;` ...), to
/// put in front of a term.
pub fn table1_definitions() -> String {
    TABLE_1
        .iter()
        .map(|(name, model)| format!("{name} = {model};\n"))
        .collect()
}

/// A row of Table 2: a configuration, its measured model, and the modular
/// model and relative error (%) as the paper prints them.
#[derive(Clone, Copy, Debug)]
pub struct Table2Row {
    /// The design, in the design syntax over the Table 1 atoms.
    pub configuration: &'static str,
    /// Extra-P's model of the measured whole program.
    pub monolithic: &'static str,
    /// The modular model as printed (coefficients rounded to 2 decimals).
    pub printed_modular: &'static str,
    /// The relative error as printed, in percent.
    pub printed_error: f64,
}

const fn row2(
    configuration: &'static str,
    monolithic: &'static str,
    printed_modular: &'static str,
    printed_error: f64,
) -> Table2Row {
    Table2Row {
        configuration,
        monolithic,
        printed_modular,
        printed_error,
    }
}

/// Table 2: sequential concatenation, task pool and pipeline.
pub const TABLE_2: [Table2Row; 16] = [
    row2(
        "seq(qsort, nop)",
        "1037.42 * x * log2(x)",
        "1034.17 * x * log2(x) + 5422.97",
        0.31,
    ),
    row2(
        "seq(qsort, inc)",
        "1063.25 * x * log2(x)",
        "1034.17 * x * log2(x) + 536.185 * x",
        2.74,
    ),
    row2(
        "seq(inc, qsort)",
        "1070.71 * x * log2(x)",
        "1034.17 * x * log2(x) + 536.185 * x",
        3.41,
    ),
    row2("seq(inc, inc)", "1030.44 * x", "1072.37 * x", 4.07),
    row2(
        "seq(inc, nop)",
        "540.897 * x",
        "536.185 * x + 5422.97",
        0.87,
    ),
    row2(
        "tpool[1](qsort)",
        "1072.01 * x * log2(x)",
        "1034.17 * x * log2(x)",
        3.53,
    ),
    row2(
        "tpool[2](qsort)",
        "553.72 * x * log2(x)",
        "517.09 * x * log2(x)",
        6.62,
    ),
    row2(
        "tpool[4](qsort)",
        "291.46 * x * log2(x)",
        "258.54 * x * log2(x)",
        11.29,
    ),
    row2(
        "tpool[8](qsort)",
        "151.31 * x * log2(x)",
        "129.27 * x * log2(x)",
        14.56,
    ),
    row2(
        "tpool[12](qsort)",
        "108.34 * x * log2(x)",
        "86.18 * x * log2(x)",
        25.71,
    ),
    row2(
        "tpool[24](qsort)",
        "70.25 * x * log2(x)",
        "43.09 * x * log2(x)",
        63.03,
    ),
    row2(
        "pipe(qsort, nop)",
        "1086.11 * x * log2(x)",
        "1034.17 * x * log2(x)",
        4.78,
    ),
    row2(
        "pipe(qsort, inc)",
        "1105.29 * x * log2(x)",
        "1034.17 * x * log2(x)",
        6.43,
    ),
    row2(
        "pipe(inc, qsort)",
        "1076.89 * x * log2(x)",
        "1034.17 * x * log2(x)",
        3.97,
    ),
    row2("pipe(inc, inc)", "677.05 * x", "536.185 * x", 20.81),
    row2("pipe(inc, nop)", "670.32 * x", "536.185 * x", 20.01),
];

/// A row of Table 3: GrPPi's mapReduce with `n` threads.
#[derive(Clone, Copy, Debug)]
pub struct Table3Row {
    /// Threads.
    pub n: u64,
    /// The measured model.
    pub monolithic: &'static str,
    /// The modular model as printed (4 significant digits).
    pub printed_modular: &'static str,
    /// The relative error as printed, in percent.
    pub printed_error: f64,
}

const fn row3(
    n: u64,
    monolithic: &'static str,
    printed_modular: &'static str,
    printed_error: f64,
) -> Table3Row {
    Table3Row {
        n,
        monolithic,
        printed_modular,
        printed_error,
    }
}

/// Table 3: GrPPi's mapReduce (eq. 6).
pub const TABLE_3: [Table3Row; 6] = [
    row3(1, "2.177e7 * x", "2.186e7 * x", 0.41),
    row3(2, "1.108e7 * x", "1.093e7 * x", 1.35),
    row3(4, "5.705e6 * x", "5.465e6 * x", 4.21),
    row3(8, "3.067e6 * x", "2.733e6 * x", 10.89),
    row3(12, "2.066e6 * x", "1.822e6 * x", 11.81),
    row3(24, "1.065e6 * x", "0.911e6 * x", 14.46),
];

/// GrPPi's mapReduce (eq. 6) with `n` threads, in the design syntax over the
/// Table 1 atoms: one node, no shuffle, `d = 768`, `k(x) = x`.
pub fn grppi_design(n: &str) -> String {
    format!(
        "{}no_shuffle = 0;\nmapreduce[m = 1, n = {n}, d = 768, k = x](map_grppi, no_shuffle, reduce_grppi)",
        table1_definitions()
    )
}

/// Hadoop's mapReduce (eqs. 5 and 7) on `m` nodes with `n` threads each:
/// `k = 768` keys, `d(x) = x`, and a shuffle moving `(m·n-1)/(m·n)·12288·x`
/// bytes at `transfer`'s 0.125 bytes per ns.
pub fn hadoop_design(m: &str, n: &str) -> String {
    format!(
        "{}shuffle_hadoop = (m*n - 1)/(m*n) * 12288 * x / 0.125;\nmapreduce[m = {m}, n = {n}, d = x, k = 768](map_hadoop, shuffle_hadoop, reduce_hadoop)",
        table1_definitions()
    )
}

/// The consecutive (pure data parallel) implementation of one time step of
/// the iterated RK method, `T_dp + C_dp` (seed 004 §4.2), as a design in `n`
/// (system size), `p` (processors), `s` (stages), `m` (iterations), `t_op`
/// (one arithmetic operation) and `T_f` (one component of f);
/// `multibroadcast` names the machine's multi-broadcast (messages are
/// `ceil(n/p)` doubles, 8 bytes each).
pub fn rk_consecutive(multibroadcast: &str) -> String {
    format!(
        "rk = (m*s*ceil(n/p) + ceil(n/p)) * (2*s + 1) * t_op
            + (m*s*ceil(n/p) + s*ceil(n/p)) * T_f
            + n*s*t_op
            + (s*m + 1) * {multibroadcast}(p, 8*ceil(n/p));
         rk"
    )
}

/// The group (mixed task and data parallel) implementation, `T_gp + C_gp`
/// (seed 004 §4.3): `s` groups of `floor(p/s)` processors compute the stage
/// vectors at once, their multi-broadcasts under contention, then all `p`
/// processors combine them.
pub fn rk_group(multibroadcast: &str) -> String {
    format!(
        "stage   = m*ceil(n/p) * (2*s + 1) * t_op + (m + 1)*ceil(n/p) * T_f + ceil(n/p)*s*t_op
                 + 2*m * {multibroadcast}(p, 8*ceil(n/p));
         combine = ceil(n/p) * (2*s + 1) * t_op + {multibroadcast}(p, 8*ceil(n/p));
         seq(groups[s](stage), combine)"
    )
}

/// Table 4: measured models of pipelines of qsort, inc and nop in different
/// associations and orders (all the same per the laws).
pub const TABLE_4: [(&str, &str); 8] = [
    ("pipe(pipe(qsort, inc), nop)", "1057.54 * x * log2(x)"),
    ("pipe(qsort, pipe(inc, nop))", "1092.77 * x * log2(x)"),
    ("pipe(pipe(qsort, nop), inc)", "1068.45 * x * log2(x)"),
    ("pipe(qsort, pipe(nop, inc))", "1098.45 * x * log2(x)"),
    ("pipe(pipe(inc, qsort), nop)", "1060.94 * x * log2(x)"),
    ("pipe(inc, pipe(qsort, nop))", "1078.37 * x * log2(x)"),
    ("pipe(pipe(inc, nop), qsort)", "1068.17 * x * log2(x)"),
    ("pipe(inc, pipe(nop, qsort))", "1129.66 * x * log2(x)"),
];

/// Table 6: layering. `(n, pipe(tpool[n](qsort), tpool[n](inc)) measured,
/// tpool[n](pipe(qsort, inc)) measured)`.
pub const TABLE_6: [(u64, &str, &str); 4] = [
    (1, "1101.71 * x * log2(x)", "1072.10 * x * log2(x)"),
    (2, "578.47 * x * log2(x)", "602.41 * x * log2(x)"),
    (4, "298.89 * x * log2(x)", "315.89 * x * log2(x)"),
    (8, "165.51 * x * log2(x)", "181.19 * x * log2(x)"),
];

/// Table 7: a pipeline replaced by a task pool of two over the sequence.
/// `(tpool[2](seq(a, b)), its measured model, the measured model of
/// pipe(a, b))`.
pub const TABLE_7: [(&str, &str, &str); 5] = [
    (
        "tpool[2](seq(qsort, nop))",
        "546.40 * x * log2(x)",
        "1086.11 * x * log2(x)",
    ),
    (
        "tpool[2](seq(qsort, inc))",
        "561.84 * x * log2(x)",
        "1105.29 * x * log2(x)",
    ),
    (
        "tpool[2](seq(inc, qsort))",
        "564.59 * x * log2(x)",
        "1076.89 * x * log2(x)",
    ),
    ("tpool[2](seq(inc, inc))", "607.06 * x", "677.05 * x"),
    ("tpool[2](seq(inc, nop))", "355.67 * x", "670.32 * x"),
];

macro_rules! cost_model {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $model:expr) => {
        $(#[$doc])*
        pub struct $ty;
        impl CostModel for $ty {
            const NAME: &'static str = $name;
            const MODEL: ConstExpr = $model;
        }
        impl ShuffleFree for $ty {}
    };
}

const X: ConstExpr = ConstExpr::Var("x");

cost_model!(
    /// `nop = 5422.97` (Table 1, row 1).
    Nop, "nop", ConstExpr::Num(5422.97)
);
cost_model!(
    /// `inc = 536.185·x`, ten increments (Table 1, row 2).
    Inc, "inc", ConstExpr::Mul(&ConstExpr::Num(536.185), &X)
);
cost_model!(
    /// `qsort = 1034.17·x·log₂x` (Table 1, row 3).
    Qsort, "qsort", ConstExpr::Mul(&ConstExpr::Mul(&ConstExpr::Num(1034.17), &X), &ConstExpr::Log2(&X))
);
cost_model!(
    /// `map_grppi = 1.241e7` (Table 1, row 9).
    MapGrppi, "map_grppi", ConstExpr::Num(1.241e7)
);
cost_model!(
    /// `reduce_grppi = 9.449e6` (Table 1, row 10).
    ReduceGrppi, "reduce_grppi", ConstExpr::Num(9.449e6)
);
cost_model!(
    /// `map_hadoop = 3.529e7` (Table 1, row 11).
    MapHadoop, "map_hadoop", ConstExpr::Num(3.529e7)
);
cost_model!(
    /// `reduce_hadoop = 9376·x` (Table 1, row 12).
    ReduceHadoop, "reduce_hadoop", ConstExpr::Mul(&ConstExpr::Num(9376.0), &X)
);
cost_model!(
    /// `reduce_p = 38316` (Table 1, row 7).
    ReduceP, "reduce_p", ConstExpr::Num(38316.0)
);
cost_model!(
    /// `reduce_v = 0.353395·x` (Table 1, row 8).
    ReduceV, "reduce_v", ConstExpr::Mul(&ConstExpr::Num(0.353395), &X)
);
cost_model!(
    /// `transfer = 0.125·x` bytes per ns (Table 1, row 13).
    Transfer, "transfer", ConstExpr::Mul(&ConstExpr::Num(0.125), &X)
);
cost_model!(
    /// Hadoop's shuffle (eq. 7) as time: `(m·n-1)/(m·n)·12288·x / 0.125`.
    ShuffleHadoop,
    "shuffle_hadoop",
    ConstExpr::Div(
        &ConstExpr::Mul(
            &ConstExpr::Mul(
                &ConstExpr::Div(
                    &ConstExpr::Sub(&ConstExpr::Mul(&ConstExpr::Var("m"), &ConstExpr::Var("n")), &ConstExpr::Num(1.0)),
                    &ConstExpr::Mul(&ConstExpr::Var("m"), &ConstExpr::Var("n")),
                ),
                &ConstExpr::Num(12288.0),
            ),
            &X,
        ),
        &ConstExpr::Num(0.125),
    )
);
cost_model!(
    /// No shuffle (a single node): 0.
    NoShuffle, "no_shuffle", ConstExpr::Num(0.0)
);
cost_model!(
    /// `k(x) = 768` keys (Hadoop: one per pixel-channel value).
    Keys768, "k", ConstExpr::Num(768.0)
);
cost_model!(
    /// `d(x) = x` elements per key (Hadoop).
    PerKeyX, "d", X
);
cost_model!(
    /// `d(x) = 768` elements per key (GrPPi's pairwise reduction).
    Thread768, "d", ConstExpr::Num(768.0)
);
cost_model!(
    /// `k(x) = x` reductions (GrPPi).
    XKeys, "k", X
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Expr;

    #[test]
    fn the_types_carry_the_table1_models() {
        fn check<A: CostModel>() {
            let text = TABLE_1
                .iter()
                .find(|(n, _)| *n == A::NAME)
                .expect(A::NAME)
                .1;
            assert_eq!(
                A::MODEL.to_expr(),
                Expr::parse(text).unwrap(),
                "{}",
                A::NAME
            );
        }
        check::<Nop>();
        check::<Inc>();
        check::<Qsort>();
        check::<MapGrppi>();
        check::<ReduceGrppi>();
        check::<MapHadoop>();
        check::<ReduceHadoop>();
        check::<ReduceP>();
        check::<ReduceV>();
        check::<Transfer>();
    }

    #[test]
    fn every_configuration_parses() {
        let defs = table1_definitions();
        for row in TABLE_2 {
            crate::Design::parse(&format!("{defs}{}", row.configuration)).unwrap();
        }
        for (c, _) in TABLE_4 {
            crate::Design::parse(&format!("{defs}{c}")).unwrap();
        }
        for (c, ..) in TABLE_7 {
            crate::Design::parse(&format!("{defs}{c}")).unwrap();
        }
        crate::Design::parse(&grppi_design("n")).unwrap();
        crate::Design::parse(&hadoop_design("m", "n")).unwrap();
    }
}
