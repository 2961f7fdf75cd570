//! Seed 001's Tables 4, 6 and 7 against the laws: for each pair of
//! configurations a law relates, the ratio of their models the law predicts
//! (from the Table 1 atoms) next to the ratio of the measured models, and the
//! deviation.
//!
//! Ratios are of leading coefficients, as the paper compares models ("the
//! relative error of the dominating scaling terms", §4); for Table 7 the
//! pointwise ratio at `x` = 262,144, the largest size measured (§4.1.1), is
//! given too.

use crate::Term;
use crate::paper::{TABLE_4, TABLE_6, TABLE_7, table1_definitions};
use crate::{Design, Expr};

/// The largest input size of the paper's measurements (§4.1.1).
pub const X_MAX_MEASURED: f64 = 262_144.0;

/// A pair of configurations related by a law: what the law predicts for
/// `M[left]/M[right]`, and what was measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// The law, as text.
    pub law: &'static str,
    /// The left design.
    pub left: String,
    /// The right design.
    pub right: String,
    /// Whether the law holds for the designs over the Table 1 atoms (it
    /// should, always).
    pub law_holds: bool,
    /// `M[left]/M[right]` predicted: the ratio of the leading coefficients
    /// of the composed models (1 for an equality).
    pub predicted: f64,
    /// The predicted ratio of the pointwise models at `x` = 262,144.
    pub predicted_at_max: f64,
    /// The paper's measured model of the left design.
    pub measured_left: Expr,
    /// The paper's measured model of the right design.
    pub measured_right: Expr,
    /// The ratio of the measured models' leading coefficients.
    pub measured: f64,
    /// `measured/predicted − 1`.
    pub deviation: f64,
}

fn design(term: &str) -> Design {
    Design::parse(&format!("{}{term}", table1_definitions()))
        .expect("the paper's configurations parse")
}

fn lead(e: &Expr) -> f64 {
    e.leading_coefficient("x").unwrap_or(f64::NAN)
}

fn measured(text: &str) -> Expr {
    Expr::parse(text).expect("the paper's measured models parse")
}

fn prediction(
    law: &'static str,
    left: &str,
    right: &str,
    law_holds: bool,
    measured_left: &Expr,
    measured_right: &Expr,
) -> Prediction {
    let (l, r) = (design(left), design(right));
    let predicted = lead(&l.model_asymptotic()) / lead(&r.model_asymptotic());
    let at = [("x", X_MAX_MEASURED)];
    let predicted_at_max = match (l.model().eval(&at), r.model().eval(&at)) {
        (Ok(a), Ok(b)) => a / b,
        _ => f64::NAN,
    };
    let measured = lead(measured_left) / lead(measured_right);
    Prediction {
        law,
        left: left.to_string(),
        right: right.to_string(),
        law_holds,
        predicted,
        predicted_at_max,
        measured_left: measured_left.clone(),
        measured_right: measured_right.clone(),
        measured,
        deviation: measured / predicted - 1.0,
    }
}

/// The two stages of the first `pipe` or `seq` under any task pools; the
/// term twice when there is none.
fn stages(mut t: &Term) -> (Term, Term) {
    while matches!(t, Term::Tpool(..)) {
        t = t.children()[0];
    }
    match (t, &t.children()[..]) {
        (Term::Pipe(..) | Term::Seq(..), [a, b]) => ((*a).clone(), (*b).clone()),
        _ => (t.clone(), t.clone()),
    }
}

/// Table 4: the pairs of configurations one law relates in one step —
/// associativity (i) for rows 1–2, 3–4, 5–6, 7–8, commutativity (ii) inside
/// for rows 1–5, 2–4, 6–8. Every prediction is 1.
///
/// ```
/// let rows = pattern_core::laws::paper::table4();
/// assert_eq!(rows.len(), 7);
/// assert!(rows.iter().all(|r| r.law_holds && r.predicted == 1.0));
/// // pipe(inc, pipe(nop, qsort)) was measured 4.8 % above pipe(pipe(inc, nop), qsort)
/// assert!((rows[3].measured - 1068.17 / 1129.66).abs() < 1e-12);
/// ```
pub fn table4() -> Vec<Prediction> {
    let pairs = [
        (0, 1, "(i) pipe associativity"),
        (2, 3, "(i) pipe associativity"),
        (4, 5, "(i) pipe associativity"),
        (6, 7, "(i) pipe associativity"),
        (0, 4, "(ii) pipe commutativity"),
        (1, 3, "(ii) pipe commutativity"),
        (5, 7, "(ii) pipe commutativity"),
    ];
    pairs
        .iter()
        .map(|&(i, j, law)| {
            let (left, right) = (TABLE_4[i].0, TABLE_4[j].0);
            let holds = super::check::equal(&design(left).model(), &design(right).model());
            prediction(
                law,
                left,
                right,
                holds,
                &measured(TABLE_4[i].1),
                &measured(TABLE_4[j].1),
            )
        })
        .collect()
}

/// The spread of Table 4's measured coefficients, which laws (i) and (ii)
/// say are all equal: `(max − min)/mean`.
///
/// ```
/// let spread = pattern_core::laws::paper::table4_spread();
/// assert!((spread - 0.0670).abs() < 1e-3); // 6.7 %
/// ```
pub fn table4_spread() -> f64 {
    let c: Vec<f64> = TABLE_4.iter().map(|(_, m)| lead(&measured(m))).collect();
    let mean = c.iter().sum::<f64>() / c.len() as f64;
    let (min, max) = c.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    (max - min) / mean
}

/// Table 6: layering (iii), `pipe(tpool_n(qsort), tpool_n(inc))` against
/// `tpool_n(pipe(qsort, inc))` for n = 1, 2, 4, 8. Every prediction is 1.
///
/// ```
/// let rows = pattern_core::laws::paper::table6();
/// assert_eq!(rows.len(), 4);
/// assert!((rows[3].deviation - (165.51 / 181.19 - 1.0)).abs() < 1e-12);
/// ```
pub fn table6() -> Vec<Prediction> {
    TABLE_6
        .iter()
        .map(|&(n, pipe_of_pools, pool_of_pipe)| {
            let left = format!("pipe(tpool[{n}](qsort), tpool[{n}](inc))");
            let right = format!("tpool[{n}](pipe(qsort, inc))");
            let (a, b) = stages(design("pipe(qsort, inc)").term());
            prediction(
                "(iii) layering",
                &left,
                &right,
                super::Laws::POINTWISE.layering(n, &a, &b),
                &measured(pipe_of_pools),
                &measured(pool_of_pipe),
            )
        })
        .collect()
}

/// Table 7: law (iv), `pipe(a, b)` against `tpool_2(seq(a, b))`: the
/// predicted ratio is `max(a, b)/((a + b)/2)`, 2 where one stage dominates,
/// 1 for two equal stages. The measured pipelines are Table 2's.
///
/// ```
/// let rows = pattern_core::laws::paper::table7();
/// let inc_inc = &rows[3];
/// assert_eq!(inc_inc.left, "pipe(inc, inc)");
/// assert_eq!(inc_inc.predicted, 1.0);
/// assert!((inc_inc.deviation - (677.05 / 607.06 - 1.0)).abs() < 1e-12); // 11.5 %
/// ```
pub fn table7() -> Vec<Prediction> {
    TABLE_7
        .iter()
        .map(|&(pool, measured_pool, measured_pipe)| {
            let (a, b) = stages(design(pool).term());
            let left = Term::pipe(a.clone(), b.clone()).to_string();
            prediction(
                "(iv) pipe ≥ tpool_2(seq)",
                &left,
                pool,
                super::Laws::POINTWISE.pipe_at_least_tpool2_seq(&a, &b),
                &measured(measured_pipe),
                &measured(measured_pool),
            )
        })
        .collect()
}
