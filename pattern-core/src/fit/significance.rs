//! The noise test of [`Fitter::significance`](super::Fitter::significance):
//! is the term the search chose larger than the measurement noise, or would
//! the constant model do as well?
//!
//! The repetitions at each size give the standard error `s_i` of the
//! aggregated value `y_i` there. If the truth were a constant, then with
//! (approximately) normal errors the improvement in
//! `χ² = Σ ((y_i − model(x_i)) / s_i)²` that a hypothesis with `m` terms
//! gains over the constant — both fitted by least squares with weights
//! `1/s_i²` — follows a χ² distribution with `m` degrees of freedom (the
//! likelihood-ratio test of nested linear models; for one term it is the
//! squared `z` of the term's coefficient, `(ĉ1 / SE(ĉ1))²`). The search
//! picked the best of `H` hypotheses, so the p-value is compared with
//! `α / M` (Bonferroni over `M` tests). The hypotheses are strongly
//! correlated, and with `n` points their term columns, less the constant,
//! span at most `n − 1` dimensions: Li and Ji's effective number of tests
//! (the eigenvalues `λ` of the columns' correlation matrix, each counted
//! as 1 plus its fraction when `λ ≥ 1`, as `λ` below) is then below
//! `2·(n − 1)`, so `M = min(H, 2·(n − 1))`. With 42 hypotheses and 4 sizes
//! `α / 42` kept a constant for data that grew 6x (Extra-P's
//! `gpr_test_data_1`, p = 0.00029); `α / 6` keeps the term. Above that
//! level the terms are not distinguishable from noise and the constant
//! model is chosen instead — unless the repetitions reject the constant
//! (its `χ²` over `n − 1` degrees of freedom beyond `α`) and accept the
//! term model (its `χ²` over `n − m − 1` within `α`): then the term
//! explains the growth within the noise and the constant does not. On
//! Extra-P's 234 oracle functions with ±5 % noise (twice, 5 repetitions at
//! p = 2..32) the test alone returned a constant for 27 growing series of
//! 468, Extra-P (no test) for 9.
//!
//! The repetitions only see the noise *within* a size. Timings also scatter
//! *between* sizes (a short kernel's time depends on where its input landed
//! in the caches and pages): then even the best hypothesis leaves a residual
//! `χ²` per degree of freedom `r = χ²_h / (n − m − 1)` well above 1, and the
//! plain test would read that scatter as a term. When `r > 1` the errors are
//! scaled by `√r` (the Birge ratio) and the improvement is tested with the
//! F distribution `F(m, n − m − 1)` of `(Δχ²/m)/r` — the standard test of
//! nested least-squares models with the noise level estimated from the
//! residuals. On a kernel of a few ns per call, whose medians scatter from
//! size to size by more than its repetitions spread (the `nop` kernel of
//! `examples/calibrate`), the plain test keeps a spurious rising term in
//! many runs.
//!
//! Few repetitions estimate each `s_i` poorly: from 5 normal values the
//! MAD's error is below a fifth of the truth at one size in 20, and the
//! `χ²` of the *true* model over 5 sizes exceeds its 1 % quantile in 44 %
//! of data sets. The search's
//! test therefore sees the errors [`pooled`]: the repetitions' relative
//! variances averaged over the sizes (timings scatter in proportion to
//! their value), `n` times the degrees of freedom of one size's. The family
//! test guards flat data against the best of many hypotheses; growth
//! itself is asked by one test more, not corrected for the search: a
//! [`trend`] over the sizes' order beyond `α`, on a line the repetitions
//! accept (so scatter between sizes is not read as one). On 1,000 flat
//! series of 5 sizes by 5 repetitions (±5 % uniform noise) a term was kept
//! in 86 before, 30 after; of 1,000 growing by 19 % (`200 + 10·log₂ p`), 214
//! were given a constant before, 35 after.

use super::hypothesis::TermClass;
use super::lsq::Solver;

/// The outcome of the noise test of
/// [`Fitter::significance`](super::Fitter::significance) for one fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Significance {
    /// The term classes of the hypothesis the search chose.
    pub terms: Vec<TermClass>,
    /// How much that hypothesis lowers `χ² = Σ ((y_i − model(x_i))/s_i)²`
    /// below the constant model's, both fitted with weights `1/s_i²`
    /// (`s_i`: standard error of the aggregated value at `x_i`).
    pub chi2: f64,
    /// Degrees of freedom of the test: the number of terms.
    pub dof: usize,
    /// The residual `χ²` of the chosen hypothesis per degree of freedom,
    /// `χ²_h / (n − dof − 1)`: about 1 when the repetitions' spread explains
    /// the scatter of the points around the model; above 1 when the points
    /// scatter more (then the test uses the F distribution).
    pub reduced_chi2: f64,
    /// The probability of an improvement at least this large if the truth
    /// were constant: `P(χ²_dof ≥ chi2)` when `reduced_chi2 ≤ 1`, else
    /// `P(F(dof, n − dof − 1) ≥ (chi2/dof)/reduced_chi2)`.
    pub p_value: f64,
    /// The level the p-value is compared with: the fitter's `α` divided by
    /// the effective number of tests among the hypotheses the search
    /// compared (Bonferroni; at most `2·(n − 1)` for `n` points).
    pub threshold: f64,
    /// Whether the terms were kept: `p_value ≤ threshold`, or the
    /// repetitions reject the constant and accept the hypothesis, or the
    /// data follow a trend over the sizes beyond the fitter's `α`. If not, the fit is
    /// the constant model.
    pub significant: bool,
}

/// Tests the hypothesis `c0 + Σ c_k·columns[k]` against the constant model
/// on values `ys` with standard errors `errors` (all positive and finite,
/// or the test does not apply: `None`). `hypotheses` is the number of
/// hypotheses the search compared, `alpha` the fitter's level.
pub(crate) fn test(
    ys: &[f64],
    errors: &[f64],
    columns: &[&[f64]],
    terms: &[TermClass],
    hypotheses: usize,
    alpha: f64,
) -> Option<Significance> {
    let n = ys.len();
    let m = columns.len();
    if m == 0
        || m > 3
        || errors.len() != n
        || n < m + 2
        || errors.iter().any(|&s| !(s.is_finite() && s > 0.0))
    {
        return None;
    }
    let w: Vec<f64> = errors.iter().map(|s| 1.0 / (s * s)).collect();
    let total: f64 = w.iter().sum();
    let mean = ys.iter().zip(&w).map(|(y, w)| w * y).sum::<f64>() / total;
    let chi2_constant: f64 = ys
        .iter()
        .zip(&w)
        .map(|(y, w)| w * (y - mean) * (y - mean))
        .sum();
    let mut solver = Solver::default();
    let c = solver.solve(
        n,
        m + 1,
        |r, j| {
            let a = if j == 0 { 1.0 } else { columns[j - 1][r] };
            a / errors[r]
        },
        |r| ys[r] / errors[r],
    )?;
    let chi2_hypothesis: f64 = (0..n)
        .map(|i| {
            let p = c[0]
                + columns
                    .iter()
                    .zip(&c[1..])
                    .map(|(col, c)| c * col[i])
                    .sum::<f64>();
            w[i] * (ys[i] - p) * (ys[i] - p)
        })
        .sum();
    let chi2 = (chi2_constant - chi2_hypothesis).max(0.0);
    let residual_dof = n - m - 1;
    let reduced_chi2 = chi2_hypothesis / residual_dof as f64;
    let p_value = if reduced_chi2 > 1.0 {
        f_survival(chi2 / m as f64 / reduced_chi2, m, residual_dof)
    } else {
        chi2_survival(chi2, m)
    };
    let effective = hypotheses.min(2 * (n - 1)).max(1);
    let threshold = alpha / effective as f64;
    // A constant that the repetitions reject, beside a term model they
    // accept: the term explains the growth within the noise, the constant
    // leaves it unexplained, whatever the correction for the search says.
    let explains = chi2_survival(chi2_constant, n - 1) < alpha
        && chi2_survival(chi2_hypothesis, residual_dof) >= alpha;
    Some(Significance {
        terms: terms.to_vec(),
        chi2,
        dof: m,
        reduced_chi2,
        p_value,
        threshold,
        significant: p_value <= threshold || explains,
    })
}

/// The standard errors `errors` of `ys` pooled over the sizes:
/// `|y_i|·√(mean_j (s_j/y_j)²)`. Unchanged where pooling is not defined (a
/// value 0) or the test does not apply (an error not positive and finite).
pub(crate) fn pooled(ys: &[f64], errors: &[f64]) -> Vec<f64> {
    let usable = |s: f64| s.is_finite() && s > 0.0;
    if ys.is_empty()
        || ys.len() != errors.len()
        || ys.iter().any(|&y| !(y.is_finite() && y != 0.0))
        || !errors.iter().all(|&s| usable(s))
    {
        return errors.to_vec();
    }
    let relative: f64 = ys
        .iter()
        .zip(errors)
        .map(|(y, s)| (s / y) * (s / y))
        .sum::<f64>()
        / ys.len() as f64;
    ys.iter().map(|y| y.abs() * relative.sqrt()).collect()
}

/// Whether `ys` (errors `errors`, in the order of their sizes) follow a
/// trend over that order beyond the level `alpha`: a straight line in the
/// sizes' rank (their logarithm when the sizes double) whose slope the
/// repetitions see (`χ²` of one degree of freedom, one test: no search to
/// correct for) and whose residuals they accept (within `alpha`).
pub(crate) fn trend(ys: &[f64], errors: &[f64], alpha: f64) -> bool {
    let n = ys.len();
    let ranks: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let line = [TermClass::extrap(1, 1, 0)];
    test(ys, errors, &[&ranks], &line, 1, alpha).is_some_and(|t| {
        let residual = t.reduced_chi2 * (n - 2) as f64;
        t.p_value <= alpha && chi2_survival(residual, n - 2) >= alpha
    })
}

/// `P(F(d1, d2) ≥ x)`, the survival function of the F distribution.
pub(crate) fn f_survival(x: f64, d1: usize, d2: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, FisherSnedecor};
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    match FisherSnedecor::new(d1 as f64, d2 as f64) {
        Ok(f) => f.sf(x),
        Err(_) => f64::NAN,
    }
}

/// `P(χ²_k ≥ x)`: closed forms for `k` = 1, 2 or 3 degrees of freedom,
/// statrs' regularized gamma function above.
pub(crate) fn chi2_survival(x: f64, k: usize) -> f64 {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    match k {
        1 => erfc((x / 2.0).sqrt()),
        2 => (-x / 2.0).exp(),
        3 => erfc((x / 2.0).sqrt()) + (2.0 * x / std::f64::consts::PI).sqrt() * (-x / 2.0).exp(),
        _ if k > 3 => ChiSquared::new(k as f64).map_or(f64::NAN, |c| c.sf(x)),
        _ => f64::NAN,
    }
}

/// The complementary error function, with a fractional error below
/// `1.2·10⁻⁷` everywhere (the Chebyshev fit of Numerical Recipes, `erfcc`).
pub(crate) fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_and_chi2_tails() {
        // Reference values: scipy.special.erfc, scipy.stats.chi2.sf.
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_266),
            (-1.0, 1.842_700_792_949_715),
        ] {
            let got = erfc(x);
            assert!((got - want).abs() <= 2e-7 * want, "erfc({x}) = {got}");
        }
        for (x, k, want) in [
            (3.841_458_820_694_124, 1, 0.05),
            (10.827_566_170_662_733, 1, 0.001),
            (5.991_464_547_107_979, 2, 0.05),
            (7.814_727_903_251_178, 3, 0.05),
            (16.266_236_196_238_13, 3, 0.001),
        ] {
            let got = chi2_survival(x, k);
            assert!((got - want).abs() <= 1e-6 * want, "χ²_{k}({x}) = {got}");
        }
        assert_eq!(chi2_survival(0.0, 1), 1.0);
        // Four degrees of freedom: e^(−x/2)·(1 + x/2).
        for x in [1.0, 9.4877, 30.0] {
            let exact = (-x / 2.0_f64).exp() * (1.0 + x / 2.0);
            assert!(
                (chi2_survival(x, 4) - exact).abs() < 1e-12 * exact.max(1e-300),
                "{x}"
            );
        }
        assert!(chi2_survival(1.0, 0).is_nan());
    }

    #[test]
    fn f_tails() {
        // Reference values: scipy.stats.f.sf (the 95 % and 99 % quantiles).
        for (x, d1, d2, want) in [
            (4.170_876_785_766_691, 1, 30, 0.05),
            (3.315_829_501_527_972, 2, 30, 0.05),
            (6.552_312_646_577_66, 3, 10, 0.01),
        ] {
            let got = f_survival(x, d1, d2);
            assert!(
                (got - want).abs() <= 1e-6 * want,
                "F({d1}, {d2}) at {x}: {got}"
            );
        }
        assert_eq!(f_survival(0.0, 1, 30), 1.0);
        // Many residual degrees of freedom: the F test becomes the χ² test.
        let (f, c) = (f_survival(9.0, 1, 1_000_000), chi2_survival(9.0, 1));
        assert!((f - c).abs() < 1e-4 * c, "{f} vs {c}");
    }

    /// 32 sizes, a constant of 2.5 with a ±15 % scatter between sizes that
    /// happens to rise (the third of it that a straight line explains), and
    /// repetitions that see only a 1 % spread: the between-size scatter is
    /// not a term.
    #[test]
    fn scatter_between_sizes_is_not_a_term() {
        let t: Vec<f64> = (1..=32).map(f64::from).collect();
        let scatter = |i: usize| 0.15 * ((i * 7919 % 13) as f64 / 6.0 - 1.0);
        let ys: Vec<f64> = (0..32)
            .map(|i| 2.5 * (1.0 + scatter(i) + 0.004 * i as f64))
            .collect();
        let errors = vec![0.025; 32];
        let class = [TermClass::extrap(1, 1, 0)];
        let sig = test(&ys, &errors, &[&t], &class, 42, 0.01).unwrap();
        assert!(sig.reduced_chi2 > 50.0, "{sig:?}");
        // The plain χ² test would keep the term...
        assert!(chi2_survival(sig.chi2, 1) < sig.threshold, "{sig:?}");
        // ...the scaled one does not.
        assert!(!sig.significant && sig.p_value > sig.threshold, "{sig:?}");

        // The same scatter around a real linear rise of 5x is a term.
        let rising: Vec<f64> = ys.iter().zip(&t).map(|(y, t)| y + 0.4 * t).collect();
        let sig = test(&rising, &errors, &[&t], &class, 42, 0.01).unwrap();
        assert!(sig.reduced_chi2 > 50.0 && sig.significant, "{sig:?}");
    }

    #[test]
    fn pooled_errors_share_one_relative_variance() {
        // Relative errors 1 % and 7 %: pooled, 5 % of each value.
        let p = pooled(&[100.0, -200.0], &[1.0, 14.0]);
        assert!(
            (p[0] - 5.0).abs() < 1e-12 && (p[1] - 10.0).abs() < 1e-12,
            "{p:?}"
        );
        // No pooling over a value 0, nor where the test does not apply.
        assert_eq!(pooled(&[0.0, 1.0], &[1.0, 2.0]), [1.0, 2.0]);
        assert_eq!(pooled(&[1.0, 1.0], &[0.0, 2.0]), [0.0, 2.0]);
    }

    #[test]
    fn a_trend_is_one_line_the_repetitions_accept() {
        let ranks: Vec<f64> = (0..5).map(f64::from).collect();
        let rising: Vec<f64> = ranks.iter().map(|r| 100.0 + r + 0.3 * (r % 2.0)).collect();
        // Beyond errors of 0.5 (χ² of the slope 40), the line accepted.
        assert!(trend(&rising, &[0.5; 5], 0.01));
        // Within errors of 2: no trend (χ² 2.5).
        assert!(!trend(&rising, &[2.0; 5], 0.01));
        // Errors of 0.05: the scatter about the line is beyond them (χ²
        // 43 over 3 degrees of freedom), the slope is not asked alone.
        assert!(!trend(&rising, &[0.05; 5], 0.01));
        // Between-size scatter that happens to rise (the unit test below).
        let scatter = |i: usize| 0.15 * ((i * 7919 % 13) as f64 / 6.0 - 1.0);
        let ys: Vec<f64> = (0..32)
            .map(|i| 2.5 * (1.0 + scatter(i) + 0.004 * i as f64))
            .collect();
        assert!(!trend(&ys, &[0.025; 32], 0.01));
    }

    #[test]
    fn one_term_statistic_is_the_squared_z_of_its_coefficient() {
        // Equal errors: χ² improvement = ĉ1² · Σ (t − t̄)² / s².
        let t = [1.0, 2.0, 3.0, 4.0, 5.0];
        let ys = [10.1, 10.9, 12.2, 12.8, 14.0];
        let s = 0.5;
        let sig = test(&ys, &[s; 5], &[&t], &[TermClass::extrap(1, 1, 0)], 1, 0.01).unwrap();
        let c1 = {
            let tm = 3.0;
            let ym = ys.iter().sum::<f64>() / 5.0;
            let sty: f64 = t.iter().zip(&ys).map(|(t, y)| (t - tm) * (y - ym)).sum();
            sty / 10.0
        };
        let z2 = c1 * c1 * 10.0 / (s * s);
        assert!((sig.chi2 - z2).abs() < 1e-9 * z2, "{} vs {z2}", sig.chi2);
        assert_eq!(sig.dof, 1);
        assert!(sig.significant);
    }

    #[test]
    fn no_test_without_usable_errors() {
        let t = [1.0, 2.0, 3.0, 4.0];
        let ys = [1.0, 2.0, 3.0, 4.0];
        let class = [TermClass::extrap(1, 1, 0)];
        assert!(test(&ys, &[1.0, 0.0, 1.0, 1.0], &[&t], &class, 1, 0.01).is_none());
        assert!(test(&ys, &[1.0, f64::NAN, 1.0, 1.0], &[&t], &class, 1, 0.01).is_none());
        assert!(test(&ys, &[1.0; 3], &[&t], &class, 1, 0.01).is_none());
        assert!(test(&ys, &[1.0; 4], &[], &[], 1, 0.01).is_none());
    }
}
