//! Sensitivities: the dual-number derivatives against central finite
//! differences on random designs, the speed-up ranking on designs whose
//! answer is known by hand, and the bottleneck stages of pipelines with
//! crossing points derived independently.
mod common;

use pattern_core::explore::crossover::{PointKind, Span};
use pattern_core::explore::sensitivity::{
    SensitivityError, bottleneck_stages, design_sensitivity, sensitivity, speed_up_ranking,
};
use pattern_core::paper::table1_definitions;
use pattern_core::semantics::Throughput;
use pattern_core::strategies::shuffle_free_term;
use pattern_core::{Design, EvalError, Expr};
use proptest::prelude::*;

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs())
}

/// The model of `design` with one atom coefficient changed: the design
/// rebuilt from its text with the coefficient's number replaced, its model
/// as built by the operators (the normal form would round the sums of
/// coefficients to 12 digits, more than a finite difference can bear).
fn with_coefficient(design: &Design, atom: &str, index: usize, value: f64) -> Expr {
    let (model, _) = design
        .atoms()
        .iter()
        .find(|(name, _)| name == atom)
        .map(|(_, m)| (m.simplify(), ()))
        .unwrap();
    let replaced = replace_coefficient(&model, index, value);
    let text = design
        .atoms()
        .iter()
        .map(|(name, m)| {
            let m = if name == atom {
                replaced.clone()
            } else {
                m.clone()
            };
            format!("{name} = {m:#};\n")
        })
        .collect::<String>()
        + &design.term().to_string();
    raw_model(&Design::parse(&text).unwrap())
}

/// The throughput model as the operators build it, not in normal form.
fn raw_model(design: &Design) -> Expr {
    Throughput::new().expr(design.term())
}

/// Whether a term of a normal form has a number among its factors (`3·x`,
/// `x/768`); one without has the coefficient 1, left out when printed.
fn has_number(term: &Expr) -> bool {
    let numeric = |f: &Expr| match f {
        Expr::Num(_) => true,
        Expr::Pow(base, _) => matches!(**base, Expr::Num(_)),
        _ => false,
    };
    match term {
        Expr::Mul(factors) => factors.iter().any(numeric),
        t => numeric(t),
    }
}

/// The normal form `model` with its `index`-th coefficient set to `value`:
/// the numbers outside exponents counted in pre-order, a term without a
/// number counting a coefficient 1 in front of it.
fn replace_coefficient(model: &Expr, index: usize, value: f64) -> Expr {
    let terms = match model {
        Expr::Add(terms) => terms.clone(),
        term => vec![term.clone()],
    };
    let mut seen = 0;
    let mut replaced = Vec::with_capacity(terms.len());
    for term in &terms {
        if !has_number(term) {
            seen += 1;
            if seen - 1 == index {
                replaced.push(Expr::Mul(vec![Expr::Num(value), term.clone()]));
                continue;
            }
        }
        replaced.push(replace_number(term, index, value, &mut seen, false));
    }
    match model {
        Expr::Add(_) => Expr::Add(replaced),
        _ => replaced.remove(0),
    }
}

/// A recursive walk is fine here: atom models from the strategies are a
/// few levels deep.
fn replace_number(e: &Expr, index: usize, value: f64, seen: &mut usize, exponent: bool) -> Expr {
    match e {
        Expr::Num(v) if !exponent => {
            *seen += 1;
            Expr::Num(if *seen - 1 == index { value } else { *v })
        }
        Expr::Num(_) | Expr::Var(_) => e.clone(),
        Expr::Pow(b, k) => {
            let b = replace_number(b, index, value, seen, false);
            let k2 = replace_number(k, index, value, seen, matches!(**k, Expr::Num(_)));
            Expr::Pow(Box::new(b), Box::new(k2))
        }
        Expr::Add(items) => Expr::Add(
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Mul(items) => Expr::Mul(
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Call(f, items) => Expr::Call(
            *f,
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
        Expr::Apply(n, items) => Expr::Apply(
            n.clone(),
            items
                .iter()
                .map(|i| replace_number(i, index, value, seen, false))
                .collect(),
        ),
    }
}

/// Central, forward and backward differences of `f` at `v` with step `h`.
fn differences(f: impl Fn(f64) -> f64, v: f64, h: f64) -> (f64, f64, f64) {
    let (lo, mid, hi) = (f(v - h), f(v), f(v + h));
    ((hi - lo) / (2.0 * h), (hi - mid) / h, (mid - lo) / h)
}

/// Whether a dual derivative `d` agrees with the central difference `c`:
/// to 1e-6 relative, or, for a derivative negligible at this point, to
/// 1e-9 in elasticity (`d·v/T`).
fn agrees(d: f64, c: f64, v: f64, time: f64) -> bool {
    (d - c).abs() <= 1e-6 * d.abs().max(c.abs()) || (d - c).abs() * v.abs() <= 1e-9 * time
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    #[test]
    fn derivatives_agree_with_finite_differences(
        term in shuffle_free_term(3),
        log_x in 1.0f64..20.0,
        n in 1.0f64..64.0,
        p in 1.0f64..64.0,
    ) {
        let design = Design::from_term(term).unwrap();
        let x = log_x.exp2();
        let at = [("x", x), ("n", n), ("p", p)];
        let s = design_sensitivity(&design, &at).unwrap();
        let rounded = design.model().eval(&at).unwrap();
        prop_assert!(relative(s.time, rounded) < 1e-10, "{} vs {rounded}", s.time);
        let model = raw_model(&design);
        let time = model.eval(&at).unwrap();
        let h_rel = 1e-5;
        for v in &s.variables {
            let eval = |value: f64| {
                let mut point = at.to_vec();
                point.iter_mut().filter(|(n, _)| *n == v.name).for_each(|(_, w)| *w = value);
                model.eval(&point).unwrap()
            };
            let (central, forward, backward) = differences(eval, v.value, h_rel * v.value);
            // A kink of a max within the step: no derivative to compare.
            prop_assume!((forward - backward).abs() <= 1e-3 * forward.abs().max(backward.abs()) + 1e-9 * time / v.value);
            prop_assert!(agrees(v.derivative, central, v.value, time), "{}: {} vs {central}", v.name, v.derivative);
        }
        for c in &s.coefficients {
            let eval = |value: f64| with_coefficient(&design, &c.atom, c.index, value).eval(&at).unwrap();
            let (central, forward, backward) = differences(eval, c.value, h_rel * c.value.abs());
            prop_assume!((forward - backward).abs() <= 1e-3 * forward.abs().max(backward.abs()) + 1e-9 * time / c.value.abs());
            prop_assert!(agrees(c.derivative, central, c.value, time), "{}: {} vs {central}", c.name, c.derivative);
        }
    }

    #[test]
    fn elasticities_of_the_atoms_sum_to_one(
        term in shuffle_free_term(3),
        log_x in 1.0f64..20.0,
        n in 1.0f64..64.0,
        p in 1.0f64..64.0,
    ) {
        // Every model is homogeneous of degree 1 in the atoms' times
        // (seq adds, pipe takes a max, tpool divides): scaling all atoms
        // by s scales T by s, so the elasticities sum to 1 (Euler) where
        // stages of different atoms do not tie, as at random points.
        let design = Design::from_term(term).unwrap();
        let at = [("x", log_x.exp2()), ("n", n), ("p", p)];
        let ranking = speed_up_ranking(&design, &at).unwrap();
        let sum: f64 = ranking.iter().map(|r| r.elasticity.unwrap()).sum();
        prop_assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        prop_assert!(ranking.windows(2).all(|w| w[0].elasticity >= w[1].elasticity));
        for r in &ranking {
            prop_assert!(r.gain >= -1e-9 * r.time_if_twice_as_fast);
        }
    }
}

/// A pipeline of 2 to 4 pools `tpool[n_i](s_i)`, `s_i = c_i·x`, at `x =
/// 2^j`: stages 0 and 1 (and any other marked tied) take `t·x` ns, the
/// others half of that. Counts are powers of two and coefficients
/// integers or halves, so every stage's time is exact and the tie too.
/// The design's text, the point, and which stages tie.
fn tied_pipeline() -> impl Strategy<Value = (String, Vec<(String, f64)>, Vec<bool>)> {
    (
        1u32..=20,
        1u32..=1000,
        prop::collection::vec((0u32..4, any::<bool>()), 2..=4),
    )
        .prop_map(|(j, t, stages)| {
            let t = f64::from(t);
            let mut atoms = String::new();
            let mut pools = Vec::new();
            let mut at = vec![("x".to_string(), f64::from(j).exp2())];
            let mut tied = Vec::new();
            for (i, &(log_n, faster)) in stages.iter().enumerate() {
                let n = f64::from(1u32 << log_n);
                let is_tied = i < 2 || !faster;
                let c = if is_tied { t * n } else { t * n / 2.0 };
                atoms.push_str(&format!("s{i} = {c}*x; "));
                pools.push(format!("tpool[n{i}](s{i})"));
                at.push((format!("n{i}"), n));
                tied.push(is_tied);
            }
            (format!("{atoms}pipe({})", pools.join(", ")), at, tied)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(300)))]

    /// At random points of random designs, each coefficient's derivative
    /// is the one of increasing it: the forward difference, the design
    /// rebuilt with the coefficient grown (where two steps agree, i.e. no
    /// kink lies within the step).
    #[test]
    fn coefficient_derivatives_are_forward_differences(
        term in shuffle_free_term(3),
        log_x in 1.0f64..20.0,
        n in 1.0f64..64.0,
        p in 1.0f64..64.0,
    ) {
        let design = Design::from_term(term).unwrap();
        let at = [("x", log_x.exp2()), ("n", n), ("p", p)];
        let s = design_sensitivity(&design, &at).unwrap();
        let time = raw_model(&design).eval(&at).unwrap();
        for c in &s.coefficients {
            let eval = |value: f64| with_coefficient(&design, &c.atom, c.index, value).eval(&at).unwrap();
            let h = 1e-7 * c.value.abs();
            let forward = (eval(c.value + h) - time) / h;
            let half = (eval(c.value + h / 2.0) - time) / (h / 2.0);
            prop_assume!((forward - half).abs() <= 1e-3 * forward.abs().max(half.abs()) + 1e-8 * time / c.value.abs());
            let close = (c.derivative - forward).abs() <= 1e-4 * c.derivative.abs().max(forward.abs())
                || (c.derivative - forward).abs() * c.value.abs() <= 1e-7 * time;
            prop_assert!(close, "{}: {} vs {forward}", c.name, c.derivative);
        }
    }

    /// At an exact tie of two or more stages: every tied stage's
    /// coefficient has the derivative of growing it (the forward
    /// difference, x/n), the others 0; each tied atom has the elasticity 1
    /// and halved gains nothing; one worker fewer in a tied pool slows the
    /// pipeline (to c·x/(n − 1), or without end from one worker), one more
    /// changes nothing.
    #[test]
    fn at_a_tie_the_derivatives_are_those_of_growing((text, at, tied) in tied_pipeline()) {
        let design = Design::parse(&text).unwrap();
        let at: Vec<(&str, f64)> = at.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let x = at[0].1;
        let s = design_sensitivity(&design, &at).unwrap();
        let time = raw_model(&design).eval(&at).unwrap();
        prop_assert_eq!(s.time, time);
        prop_assert_eq!(s.coefficients.len(), tied.len());
        for (i, (c, &is_tied)) in s.coefficients.iter().zip(&tied).enumerate() {
            let n = at[i + 1].1;
            let h = 1e-6 * c.value;
            let grown = with_coefficient(&design, &c.atom, c.index, c.value + h).eval(&at).unwrap();
            let forward = (grown - time) / h;
            let want = if is_tied { x / n } else { 0.0 };
            prop_assert_eq!(c.derivative, want, "{}", c.name);
            prop_assert!((forward - want).abs() <= 1e-6 * want, "{}: {forward} vs {want}", c.name);
            let count = variable(&s, &format!("n{i}"));
            let fewer = count.one_fewer.unwrap();
            if n == 1.0 {
                prop_assert_eq!(fewer, f64::INFINITY);
            } else if is_tied {
                prop_assert!(relative(fewer, c.value * x / (n - 1.0) - time) < 1e-12, "{fewer}");
            } else {
                // Half the time on one worker fewer is still at most the tie.
                prop_assert_eq!(fewer, 0.0);
            }
            prop_assert_eq!(count.one_more, Some(0.0));
        }
        let ranking = speed_up_ranking(&design, &at).unwrap();
        let sum: f64 = ranking.iter().map(|r| r.elasticity.unwrap()).sum();
        prop_assert_eq!(sum, tied.iter().filter(|t| **t).count() as f64);
        for r in &ranking {
            prop_assert_eq!(r.gain, 0.0, "{}", r.atom);
        }
    }
}

#[test]
fn shares_of_a_sequence_and_the_bottleneck_of_a_pipe() {
    // seq(a, b), a = 3x, b = x: T = 4x, the shares 3/4 and 1/4; halving a
    // gives 2.5x, halving b 3.5x.
    let d = Design::parse("a = 3*x; b = x; seq(a, b)").unwrap();
    let r = speed_up_ranking(&d, &[("x", 10.0)]).unwrap();
    assert_eq!(r[0].atom, "a");
    assert!((r[0].elasticity.unwrap() - 0.75).abs() < 1e-15);
    assert!((r[0].time_if_twice_as_fast - 25.0).abs() < 1e-12);
    assert!((r[0].gain - 15.0).abs() < 1e-12);
    assert_eq!(r[1].atom, "b");
    assert!((r[1].elasticity.unwrap() - 0.25).abs() < 1e-15);
    assert!((r[1].gain - 5.0).abs() < 1e-12);

    // pipe(tpool[2](qsort), inc, nop) at x = 2^20: the sort stage,
    // 1034.17/2·20·x, is far above inc (536.185·x) and nop: all of the
    // elasticity is the sort's, none the others'. Halved (1034.17/4·20·x)
    // the sort is still the slowest stage: T halves.
    let d = Design::parse(&format!(
        "{}pipe(tpool[2](qsort), inc, nop)",
        table1_definitions()
    ))
    .unwrap();
    let x = 2f64.powi(20);
    let r = speed_up_ranking(&d, &[("x", x)]).unwrap();
    let time = 1034.17 / 2.0 * x * 20.0;
    assert_eq!(r[0].atom, "qsort");
    assert_eq!(r[0].elasticity, Some(1.0));
    assert!(relative(r[0].gain, time / 2.0) < 1e-12);
    for other in &r[1..] {
        assert_eq!(other.elasticity, Some(0.0), "{other:?}");
        assert_eq!(other.gain, 0.0);
    }
    // Atoms of the Table 1 definitions that the term does not use rank
    // last with nothing to gain.
    assert!(r.iter().any(|s| s.atom == "map_grppi" && s.gain == 0.0));
}

#[test]
fn derivatives_by_hand() {
    // T = max(c0·x·log2(x)/n, c1·x) with c0 = 1034.17, c1 = 536.185, at
    // x = 1024 and n = 2: the sort is the bottleneck (1034.17·5120 > 536.185·1024).
    let d = Design::parse("qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(tpool[n](qsort), inc)")
        .unwrap();
    let s = design_sensitivity(&d, &[("x", 1024.0), ("n", 2.0)]).unwrap();
    let time = 1034.17 * 1024.0 * 10.0 / 2.0;
    assert!(relative(s.time, time) < 1e-15);
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["qsort.c0", "inc.c0"]);
    assert!(relative(s.coefficients[0].derivative, 1024.0 * 10.0 / 2.0) < 1e-15);
    assert_eq!(s.coefficients[1].derivative, 0.0);
    assert!((s.coefficients[0].elasticity.unwrap() - 1.0).abs() < 1e-15);
    let by_name = |name: &str| s.variables.iter().find(|v| v.name == name).unwrap();
    // ∂T/∂n = -T/n; ∂T/∂x = c0·(log2(x) + 1/ln 2)/n.
    assert!(relative(by_name("n").derivative, -time / 2.0) < 1e-15);
    assert!(by_name("n").count && !by_name("x").count);
    let dx = 1034.17 * (10.0 + 1.0 / std::f64::consts::LN_2) / 2.0;
    assert!(relative(by_name("x").derivative, dx) < 1e-14);

    // A plain model: its own numbers.
    let s = sensitivity(&Expr::parse("2*x^3 + 7").unwrap(), &[("x", 3.0)]).unwrap();
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["model.c0", "model.c1"]);
    assert_eq!(s.coefficients[0].derivative, 27.0);
    assert_eq!(s.variables[0].derivative, 54.0);
}

#[test]
fn kinks_take_the_right_derivative() {
    // Two equal stages: at the tie, growing x makes the steeper one the
    // bottleneck, so ∂T/∂x is its slope (3), and the elasticity of its
    // coefficient is 1 (growing it makes it the maximum).
    let d = Design::parse("a = 3*x; b = x + 20; pipe(a, b)").unwrap();
    let s = design_sensitivity(&d, &[("x", 10.0)]).unwrap();
    assert_eq!(s.time, 30.0);
    assert_eq!(s.variables[0].derivative, 3.0);
    // Either stage growing slows the pipeline: b's x has the coefficient 1.
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a.c0", "b.c0", "b.c1"]);
    let slopes: Vec<f64> = s.coefficients.iter().map(|c| c.derivative).collect();
    assert_eq!(slopes, [10.0, 10.0, 1.0]);
    // ceil has slope 0.
    let s = sensitivity(&Expr::parse("ceil(x/4)*100").unwrap(), &[("x", 5.0)]).unwrap();
    assert_eq!(s.variables[0].derivative, 0.0);
}

/// The value of `name` among the variables of `s`.
fn variable<'s>(
    s: &'s pattern_core::explore::sensitivity::Sensitivity,
    name: &str,
) -> &'s pattern_core::explore::sensitivity::VariableSensitivity {
    s.variables.iter().find(|v| v.name == name).unwrap()
}

/// examples/data/pipeline.design.
const PIPELINE: &str = "s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))";

/// T of the pipeline at x = 1024 with `s1` and `s2` scaled, re-evaluated
/// from a design written with the scaled models.
fn pipeline_time(s1: f64, s2: f64, a: f64, b: f64) -> f64 {
    let text = format!(
        "s1 = {}*x; s2 = {s2}*x; pipe(tpool[a](s1), tpool[b](s2))",
        2.0 * s1
    );
    let at = [("x", 1024.0), ("a", a), ("b", b)];
    Design::parse(&text).unwrap().model().eval(&at).unwrap()
}

#[test]
fn a_tie_of_two_stages_by_hand() {
    // T = max(c0·x/a, c1·x/b) with c0 = 2, c1 = 1 (s2 = x), x = 1024:
    // at a = 2, b = 1 both stages take 1024 ns.
    let d = Design::parse(PIPELINE).unwrap();
    let at = [("x", 1024.0), ("a", 2.0), ("b", 1.0)];
    let s = design_sensitivity(&d, &at).unwrap();
    assert_eq!(s.time, 1024.0);
    // Increasing either coefficient makes its stage the bottleneck:
    // ∂T/∂c0 = x/a, ∂T/∂c1 = x/b, each with elasticity 1.
    let names: Vec<&str> = s.coefficients.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["s1.c0", "s2.c0"]);
    assert_eq!(s.coefficients[0].derivative, 512.0);
    assert_eq!(s.coefficients[1].derivative, 1024.0);
    assert_eq!(s.coefficients[1].value, 1.0);
    assert_eq!(s.coefficients[0].elasticity, Some(1.0));
    assert_eq!(s.coefficients[1].elasticity, Some(1.0));
    // x grows both stages alike: slope 2/a = 1/b = 1.
    assert_eq!(variable(&s, "x").derivative, 1.0);
    // One worker fewer in a: 2·1024/1 = 2048; none left in b; one more in
    // either leaves the other stage at 1024. The relaxed derivative of a
    // count, increasing: 0 (the other stage holds T).
    let (a, b) = (variable(&s, "a"), variable(&s, "b"));
    assert_eq!(pipeline_time(1.0, 1.0, 1.0, 1.0), 2048.0);
    assert_eq!(a.one_fewer, Some(2048.0 - 1024.0));
    assert_eq!(a.one_more, Some(pipeline_time(1.0, 1.0, 3.0, 1.0) - 1024.0));
    assert_eq!(a.one_more, Some(0.0));
    assert_eq!(b.one_fewer, Some(f64::INFINITY));
    assert_eq!(b.one_more, Some(0.0));
    assert_eq!((a.derivative, b.derivative), (0.0, 0.0));
    assert!(a.count && b.count && !variable(&s, "x").count);
    // Either atom twice as fast gains nothing (the other stage still takes
    // 1024 ns); the elasticities, one-sided, sum to 2.
    let r = speed_up_ranking(&d, &at).unwrap();
    for (atom, halved) in [
        ("s1", pipeline_time(0.5, 1.0, 2.0, 1.0)),
        ("s2", pipeline_time(1.0, 0.5, 2.0, 1.0)),
    ] {
        let up = r.iter().find(|u| u.atom == atom).unwrap();
        assert_eq!(halved, 1024.0);
        assert_eq!(up.time_if_twice_as_fast, halved, "{atom}");
        assert_eq!(up.gain, 0.0, "{atom}");
        assert_eq!(up.elasticity, Some(1.0), "{atom}");
    }
    // Both twice as fast: T halves.
    assert_eq!(pipeline_time(0.5, 0.5, 2.0, 1.0), 512.0);
}

#[test]
fn no_tie_by_hand() {
    // b = 2: s2's stage takes 512 ns, s1's 1024: s1 is the sole bottleneck.
    let d = Design::parse(PIPELINE).unwrap();
    let at = [("x", 1024.0), ("a", 2.0), ("b", 2.0)];
    let s = design_sensitivity(&d, &at).unwrap();
    assert_eq!(s.time, 1024.0);
    let slopes: Vec<f64> = s.coefficients.iter().map(|c| c.derivative).collect();
    assert_eq!(slopes, [512.0, 0.0]);
    let (a, b) = (variable(&s, "a"), variable(&s, "b"));
    // a: 2048 with one worker, 2·1024/3 with three.
    assert_eq!(a.one_fewer, Some(1024.0));
    let three = pipeline_time(1.0, 1.0, 3.0, 2.0);
    assert!((three - 2048.0 / 3.0).abs() < 1e-12);
    assert!(relative(a.one_more.unwrap(), three - 1024.0) < 1e-12);
    // b: one worker takes 1024 ns too, a tie; three change nothing.
    assert_eq!((b.one_fewer, b.one_more), (Some(0.0), Some(0.0)));
    assert!(relative(a.derivative, -1024.0 / 2.0) < 1e-15);
    let r = speed_up_ranking(&d, &at).unwrap();
    assert_eq!(r[0].atom, "s1");
    assert_eq!(r[0].elasticity, Some(1.0));
    // Halved, s1's stage takes 512 ns, as s2's does.
    assert_eq!(
        r[0].time_if_twice_as_fast,
        pipeline_time(0.5, 1.0, 2.0, 2.0)
    );
    assert_eq!(r[0].gain, 512.0);
    assert_eq!(
        (r[1].atom.as_str(), r[1].elasticity, r[1].gain),
        ("s2", Some(0.0), 0.0)
    );
}

#[test]
fn bottleneck_of_a_three_stage_pipeline() {
    // nop = 5422.97, inc = 536.185·x, tpool[64](qsort) = 1034.17/64·x·log2(x):
    // nop is slowest below x = 5422.97/536.185, inc up to where
    // log2(x) = 64·536.185/1034.17, the sort above.
    let first = 5422.97 / 536.185;
    let second = (64.0 * 536.185 / 1034.17f64).exp2();
    let d = Design::parse(&format!(
        "{}pipe(nop, inc, tpool[64](qsort))",
        table1_definitions()
    ))
    .unwrap();
    let found = bottleneck_stages(&d, Span::new("x", 1.0, 1e12), &[]).unwrap();
    assert_eq!(found.stages, ["nop", "inc", "tpool[64](qsort)"]);
    let slowest: Vec<usize> = found.ranges.intervals.iter().map(|i| i.best).collect();
    assert_eq!(slowest, [0, 1, 2]);
    let at: Vec<f64> = found.ranges.points.iter().map(|p| p.at).collect();
    assert_eq!(at.len(), 2);
    assert!(relative(at[0], first) < 1e-9, "{} vs {first}", at[0]);
    assert!(relative(at[1], second) < 1e-9, "{} vs {second}", at[1]);
    assert!(
        found
            .ranges
            .points
            .iter()
            .all(|p| p.kind == PointKind::Crossing)
    );

    // A symbolic count bound, and a nested pipe flattened: the same.
    let d = Design::parse(&format!(
        "{}pipe(pipe(nop, inc), tpool[n](qsort))",
        table1_definitions()
    ))
    .unwrap();
    let found = bottleneck_stages(&d, Span::new("x", 1.0, 1e12), &[("n", 64.0)]).unwrap();
    assert_eq!(found.stages.len(), 3);
    assert!(relative(found.ranges.points[1].at, second) < 1e-9);
}

#[test]
fn errors() {
    let d = Design::parse("a = x; tpool[n](a)").unwrap();
    assert!(matches!(
        design_sensitivity(&d, &[("x", 2.0)]),
        Err(SensitivityError::Eval(EvalError::Unbound { ref name, .. })) if name == "n"
    ));
    assert!(matches!(
        bottleneck_stages(&d, Span::new("x", 1.0, 2.0), &[("n", 2.0)]),
        Err(SensitivityError::NotAPipeline { .. })
    ));
    let d = Design::parse("a = sqrt(x); b = 1; seq(a, b)").unwrap();
    let err = design_sensitivity(&d, &[("x", 0.0)]).unwrap_err();
    assert!(
        matches!(&err, SensitivityError::NonFiniteDerivative { parameter, .. } if parameter == "x"),
        "{err}"
    );
    let d = Design::parse("a = x; b = 2*x*k; pipe(a, b)").unwrap();
    assert!(matches!(
        bottleneck_stages(&d, Span::new("x", 1.0, 2.0), &[]),
        Err(SensitivityError::Crossover(_))
    ));
}

/// A mapReduce's counts, its shuffle's coefficients and the atoms inside
/// it: the derivatives agree with central differences, as on the random
/// designs above (which leave the shuffle out).
#[test]
fn map_reduce_derivatives_agree_with_finite_differences() {
    let text = "map = 3*x + 40; reduce = 2*x*log2(x); shuffle = 0.5*x + 7*o + 900;
                mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, tpool[2](reduce))";
    let design = Design::parse(text).unwrap();
    let model = raw_model(&design);
    for (x, m, n) in [(1e3, 2.0, 4.0), (5e4, 8.0, 3.0), (2e6, 1.0, 16.0)] {
        let at = [("x", x), ("m", m), ("n", n)];
        let s = design_sensitivity(&design, &at).unwrap();
        let time = model.eval(&at).unwrap();
        assert!(relative(s.time, time) < 1e-10, "{} vs {time}", s.time);
        let names: Vec<&str> = s.variables.iter().map(|v| v.name.as_str()).collect();
        assert!(names.contains(&"m") && names.contains(&"n"), "{names:?}");
        for v in &s.variables {
            let eval = |value: f64| {
                let mut point = at.to_vec();
                point
                    .iter_mut()
                    .filter(|(n, _)| *n == v.name)
                    .for_each(|(_, w)| *w = value);
                model.eval(&point).unwrap()
            };
            let (central, _, _) = differences(eval, v.value, 1e-5 * v.value);
            assert!(
                agrees(v.derivative, central, v.value, time),
                "{}: {} vs {central}",
                v.name,
                v.derivative
            );
        }
        let atoms: Vec<&str> = s.coefficients.iter().map(|c| c.atom.as_str()).collect();
        assert!(
            atoms.contains(&"shuffle") && atoms.contains(&"reduce"),
            "{atoms:?}"
        );
        for c in &s.coefficients {
            let eval = |value: f64| {
                with_coefficient(&design, &c.atom, c.index, value)
                    .eval(&at)
                    .unwrap()
            };
            let (central, _, _) = differences(eval, c.value, 1e-5 * c.value.abs());
            assert!(
                agrees(c.derivative, central, c.value, time),
                "{}: {} vs {central}",
                c.name,
                c.derivative
            );
        }
    }
}
