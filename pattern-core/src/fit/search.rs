//! Scoring one hypothesis `c0 + Σ c_k·t_k` on aggregated data, with Extra-P's
//! semantics: coefficients by least squares, leave-one-out cross-validation
//! with the constant coefficient cleaned in each fold, the term-contribution
//! check, and SMAPE or RSS as the score.

use super::lsq::{self, Solver};
use super::stats::smape_term;

mod scorer;
pub(crate) use scorer::{Quick, Scorer};

/// How hypotheses are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Symmetric mean absolute percentage error (Extra-P's default).
    #[default]
    Smape,
    /// Residual sum of squares (Extra-P's `compare_with_RSS`).
    Rss,
}

/// How the least-squares fit weighs the points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Weighting {
    /// Minimize the relative residuals, `Σ ((f(x) − y)/y)²` (default). Timing
    /// noise is roughly proportional to the time (seed 001 Table 1 reports
    /// it as a coefficient of variation), and with sizes over several orders
    /// of magnitude plain least squares lets the largest point decide alone
    /// and gives the small ones a large relative error — which SMAPE, the
    /// selection criterion, then punishes. Falls back to
    /// [`Weighting::Absolute`] if a value is zero or negative.
    #[default]
    Relative,
    /// Plain least squares, `Σ (f(x) − y)²`: Extra-P's choice.
    Absolute,
}

/// The options of a search, copied from the [`super::Fitter`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub selection: Selection,
    pub weighting: Weighting,
    pub cross_validation: bool,
    pub nonnegative_terms: bool,
    pub min_term_contribution: f64,
    /// Reproduce numpy's `lstsq` rank decision for single-term hypotheses
    /// (see [`numpy_rank_one`]).
    pub numpy_rank_truncation: bool,
    /// Clean the final fit's constant as Extra-P does (only without
    /// cross-validation, below a fraction of the smallest value) rather
    /// than keep every constant the data resolve ([`rounding_residue`]).
    pub extrap_final_constant: bool,
}

/// Extra-P's `epsilon`: in each cross-validation fold a constant coefficient
/// smaller than this fraction of the smallest value is set to zero.
const CLEAN_EPSILON_CV: f64 = 0.0005;
/// Extra-P's `CLEAN_CONSTANT_EPSILON`, the same without cross-validation.
const CLEAN_EPSILON_PLAIN: f64 = 1e-3;
/// Below this fraction of the full-data spread, a downdated fold spread is
/// recomputed from scratch (cancellation guard).
const DOWNDATE_GUARD: f64 = 1e-9;

/// A hypothesis with its coefficients and scores.
#[derive(Clone, Debug)]
pub(crate) struct Scored {
    /// `[c0, c1, ..., ck]`, fitted on all points.
    pub coefficients: Vec<f64>,
    /// The value the selection compares (lower is better).
    pub score: f64,
    /// Leave-one-out RSS (`NaN` without cross-validation).
    pub cv_rss: f64,
    /// Leave-one-out SMAPE in percent (`NaN` without cross-validation).
    pub cv_smape: f64,
}

/// Scores hypotheses on one data set.
pub(crate) struct Engine<'a> {
    ys: &'a [f64],
    /// Least-squares weight of each point.
    w: Vec<f64>,
    /// `√w`, the row scale of the QR path.
    sqrt_w: Vec<f64>,
    opts: Options,
    /// Index of the smallest value and the two smallest values (for the
    /// per-fold minimum of the constant cleaning).
    argmin: usize,
    min: f64,
    second_min: f64,
    solver: Solver,
}

/// Units in the last place of the largest value, per point, below which a
/// final constant is rounding residue ([`rounding_residue`]).
const RESIDUE_ULPS_PER_POINT: f64 = 1024.0;

/// Whether a fitted constant is rounding residue rather than a constant the
/// data resolve: no larger than 1024·n units in the last place of the
/// largest value. A least-squares solve loses a few units in the last place
/// per point; the residue seen in exact data (`3·x + 1.4e-13`) is a
/// fraction of one. A constant above it changes the fitted values by more
/// than the arithmetic can, so the data put it there: Extra-P's noise-free
/// oracle (`200 + 500000·x³·log₂²x` at x = 2..32) keeps its 200, which
/// Extra-P's 0.05 % of the smallest value would clear.
fn rounding_residue(c0: f64, ys: &[f64]) -> bool {
    let largest = ys.iter().fold(0.0_f64, |m, y| m.max(y.abs()));
    c0.abs() <= RESIDUE_ULPS_PER_POINT * ys.len() as f64 * f64::EPSILON * largest
}

/// Extra-P's `clean_constant_coefficient`.
fn clean(c0: f64, min: f64, eps: f64) -> f64 {
    let small = if min == 0.0 {
        c0.abs() < eps
    } else {
        (c0 / min).abs() < eps
    };
    if small { 0.0 } else { c0 }
}

impl<'a> Engine<'a> {
    /// An engine for the values `ys` (at least three).
    pub(crate) fn new(ys: &'a [f64], opts: Options) -> Engine<'a> {
        let mut argmin = 0;
        for (i, y) in ys.iter().enumerate() {
            if *y < ys[argmin] {
                argmin = i;
            }
        }
        let second_min = ys
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != argmin)
            .map(|(_, y)| *y)
            .fold(f64::INFINITY, f64::min);
        let relative = opts.weighting == Weighting::Relative && ys.iter().all(|&y| y > 0.0);
        let w: Vec<f64> = ys
            .iter()
            .map(|&y| if relative { 1.0 / (y * y) } else { 1.0 })
            .collect();
        let sqrt_w = w.iter().map(|w| w.sqrt()).collect();
        Engine {
            ys,
            w,
            sqrt_w,
            opts,
            argmin,
            min: ys[argmin],
            second_min,
            solver: Solver::default(),
        }
    }

    fn n(&self) -> usize {
        self.ys.len()
    }

    /// Whether to emulate numpy's rank truncation (only meaningful with unit
    /// weights, which is what Extra-P uses).
    fn truncation(&self) -> bool {
        self.opts.numpy_rank_truncation && self.w.iter().all(|&w| w == 1.0)
    }

    fn fold_min(&self, left_out: usize) -> f64 {
        if left_out == self.argmin {
            self.second_min
        } else {
            self.min
        }
    }

    /// The constant model: the mean of the values, whatever the weighting
    /// (as in Extra-P). Its score is the in-sample cost, also with
    /// cross-validation, as in Extra-P; the leave-one-out figures are
    /// computed for the report only.
    pub(crate) fn constant(&self) -> Scored {
        let n = self.n() as f64;
        let mean = self.ys.iter().sum::<f64>() / n;
        let (mut rss, mut smape, mut cv_rss, mut cv_smape) = (0.0, 0.0, 0.0, 0.0);
        for &y in self.ys {
            rss += (mean - y) * (mean - y);
            smape += smape_term(y, mean);
            let loo = (n * mean - y) / (n - 1.0);
            cv_rss += (loo - y) * (loo - y);
            cv_smape += smape_term(y, loo);
        }
        let score = match self.opts.selection {
            Selection::Smape => 100.0 * smape / n,
            Selection::Rss => rss,
        };
        Scored {
            coefficients: vec![mean],
            score,
            cv_rss,
            cv_smape: 100.0 * cv_smape / n,
        }
    }

    /// The in-sample RSS of the constant model (Extra-P's `constant_cost`).
    pub(crate) fn total_sum_of_squares(&self) -> f64 {
        let mean = self.ys.iter().sum::<f64>() / self.n() as f64;
        self.ys.iter().map(|y| (y - mean) * (y - mean)).sum()
    }

    /// Scores `c0 + Σ c_k·columns[k]`. `None` if the hypothesis is invalid
    /// (singular or non-finite) or rejected (a term coefficient of zero, a
    /// term contributing less than the minimum, or a negative term
    /// coefficient when those are not allowed).
    pub(crate) fn evaluate(&mut self, columns: &[&[f64]]) -> Option<Scored> {
        let n = self.n();
        let k = columns.len();
        if columns
            .iter()
            .any(|c| c.len() != n || c.iter().any(|v| !v.is_finite()))
        {
            return None;
        }
        let needed = if self.opts.cross_validation {
            k + 2
        } else {
            k + 1
        };
        if n < needed {
            return None;
        }
        let (cv_rss, cv_smape) = if self.opts.cross_validation {
            self.cross_validate(columns)?
        } else {
            (f64::NAN, f64::NAN)
        };

        let mut coefficients = self.fit_all(columns)?;
        // Extra-P cleans the constant of the final fit only without
        // cross-validation. By default the final constant is kept unless it
        // is rounding residue, with or without cross-validation.
        if !self.opts.extrap_final_constant {
            if rounding_residue(coefficients[0], self.ys) {
                coefficients[0] = 0.0;
            }
        } else if !self.opts.cross_validation {
            coefficients[0] = clean(coefficients[0], self.min, CLEAN_EPSILON_PLAIN);
        }
        let (rss, smape) = self.in_sample(columns, &coefficients);
        let check = if self.opts.cross_validation {
            cv_rss
        } else {
            rss
        };
        if !check.is_finite() {
            return None;
        }
        for (col, &c) in columns.iter().zip(&coefficients[1..]) {
            if c == 0.0 || (self.opts.nonnegative_terms && c < 0.0) {
                return None;
            }
            if contribution(c, col, self.ys) < self.opts.min_term_contribution {
                return None;
            }
        }
        let score = match (self.opts.selection, self.opts.cross_validation) {
            (Selection::Smape, true) => cv_smape,
            (Selection::Rss, true) => cv_rss,
            (Selection::Smape, false) => smape,
            (Selection::Rss, false) => rss,
        };
        Some(Scored {
            coefficients,
            score,
            cv_rss,
            cv_smape,
        })
    }

    /// The leave-one-out RSS and SMAPE (percent) of `c0 + Σ c_k·columns[k]`,
    /// each fold's constant cleaned as Extra-P does.
    fn cross_validate(&mut self, columns: &[&[f64]]) -> Option<(f64, f64)> {
        let (n, k) = (self.n(), columns.len());
        let (mut cv_rss, mut cv_smape) = (0.0, 0.0);
        let full = if k == 1 {
            Some(Simple::fit(columns[0], self.ys, &self.w)?)
        } else {
            None
        };
        // Extra-P-compatible mode refits each fold, as Extra-P does, so
        // that near ties fall its way; the default downdates one fit.
        let downdated = if k > 1 && !self.opts.extrap_final_constant {
            let (ys, sw) = (self.ys, &self.sqrt_w);
            // Where it cannot (a point of leverage near one), each fold is
            // refitted.
            lsq::leave_one_out(
                n,
                k + 1,
                |r, j| sw[r] * if j == 0 { 1.0 } else { columns[j - 1][r] },
                |r| sw[r] * ys[r],
            )
        } else {
            None
        };
        let mut fold = vec![0.0; k + 1];
        for i in 0..n {
            match (&full, &downdated) {
                (_, Some(all)) => {
                    fold.copy_from_slice(&all[i * (k + 1)..(i + 1) * (k + 1)]);
                }
                (Some(s), None) => {
                    let (c0, c1) = s.without(i, columns[0], self.ys, &self.w, self.truncation())?;
                    fold[0] = c0;
                    fold[1] = c1;
                }
                (None, None) => {
                    let skip = |r: usize| if r < i { r } else { r + 1 };
                    let (ys, sw) = (self.ys, &self.sqrt_w);
                    let c = self.solver.solve(
                        n - 1,
                        k + 1,
                        |r, j| {
                            let r = skip(r);
                            sw[r] * if j == 0 { 1.0 } else { columns[j - 1][r] }
                        },
                        |r| sw[skip(r)] * ys[skip(r)],
                    )?;
                    fold.copy_from_slice(c);
                }
            }
            fold[0] = clean(fold[0], self.fold_min(i), CLEAN_EPSILON_CV);
            let predicted = fold[0]
                + columns
                    .iter()
                    .zip(&fold[1..])
                    .map(|(col, c)| c * col[i])
                    .sum::<f64>();
            let d = predicted - self.ys[i];
            cv_rss += d * d;
            cv_smape += smape_term(self.ys[i], predicted);
        }
        Some((cv_rss, 100.0 * cv_smape / n as f64))
    }

    /// Least-squares coefficients `[c0, c1, ...]` on all points.
    pub(crate) fn fit_all(&mut self, columns: &[&[f64]]) -> Option<Vec<f64>> {
        if columns.len() == 1 {
            let s = Simple::fit(columns[0], self.ys, &self.w)?;
            let (c0, c1) = s.solve(self.truncation());
            return Some(vec![c0, c1]);
        }
        let (ys, sw) = (self.ys, &self.sqrt_w);
        self.solver
            .solve(
                self.n(),
                columns.len() + 1,
                |r, j| sw[r] * if j == 0 { 1.0 } else { columns[j - 1][r] },
                |r| sw[r] * ys[r],
            )
            .map(<[f64]>::to_vec)
    }

    /// In-sample RSS and SMAPE (percent) of given coefficients.
    pub(crate) fn in_sample(&self, columns: &[&[f64]], coefficients: &[f64]) -> (f64, f64) {
        let (mut rss, mut smape) = (0.0, 0.0);
        for (i, &y) in self.ys.iter().enumerate() {
            let p = predict(columns, coefficients, i);
            rss += (p - y) * (p - y);
            smape += smape_term(y, p);
        }
        (rss, 100.0 * smape / self.n() as f64)
    }
}

/// `c0 + Σ c_k·columns[k][i]`.
pub(crate) fn predict(columns: &[&[f64]], coefficients: &[f64], i: usize) -> f64 {
    coefficients[0]
        + columns
            .iter()
            .zip(&coefficients[1..])
            .map(|(col, c)| c * col[i])
            .sum::<f64>()
}

/// Extra-P's term contribution: the largest `|c·t(x) / y|` over the points
/// (a zero value counts as an infinite contribution).
fn contribution(c: f64, column: &[f64], ys: &[f64]) -> f64 {
    let mut max = 0.0f64;
    for (t, y) in column.iter().zip(ys) {
        let r = (c * t / y).abs();
        if r.is_nan() || r > max {
            max = if r.is_nan() { f64::INFINITY } else { r };
        }
    }
    max
}

/// Weighted simple linear regression `y ≈ c0 + c1·t` in centered form, with
/// exact leave-one-out downdates.
#[derive(Clone, Copy, Debug)]
struct Simple {
    total_w: f64,
    t_mean: f64,
    y_mean: f64,
    stt: f64,
    sty: f64,
}

impl Simple {
    fn fit(t: &[f64], y: &[f64], w: &[f64]) -> Option<Simple> {
        let total_w: f64 = w.iter().sum();
        let t_mean = t.iter().zip(w).map(|(t, w)| w * t).sum::<f64>() / total_w;
        let y_mean = y.iter().zip(w).map(|(y, w)| w * y).sum::<f64>() / total_w;
        let (mut stt, mut sty) = (0.0, 0.0);
        for ((ti, yi), wi) in t.iter().zip(y).zip(w) {
            let dt = ti - t_mean;
            stt += wi * dt * dt;
            sty += wi * dt * (yi - y_mean);
        }
        (stt > 0.0 && stt.is_finite()).then_some(Simple {
            total_w,
            t_mean,
            y_mean,
            stt,
            sty,
        })
    }

    /// `(c0, c1)`, optionally with numpy's rank truncation.
    fn solve(&self, truncate: bool) -> (f64, f64) {
        let rank_one = truncate
            .then(|| numpy_rank_one(self.total_w, self.t_mean, self.y_mean, self.stt, self.sty))
            .flatten();
        rank_one.unwrap_or_else(|| {
            let c1 = self.sty / self.stt;
            (self.y_mean - c1 * self.t_mean, c1)
        })
    }

    /// `(c0, c1)` fitted without point `i`.
    fn without(
        &self,
        i: usize,
        t: &[f64],
        y: &[f64],
        w: &[f64],
        truncate: bool,
    ) -> Option<(f64, f64)> {
        let rest_w = self.total_w - w[i];
        let dt = t[i] - self.t_mean;
        let dy = y[i] - self.y_mean;
        let t_mean = self.t_mean - w[i] * dt / rest_w;
        let y_mean = self.y_mean - w[i] * dy / rest_w;
        let factor = w[i] * self.total_w / rest_w;
        let mut stt = self.stt - factor * dt * dt;
        let mut sty = self.sty - factor * dt * dy;
        if stt <= DOWNDATE_GUARD * self.stt {
            // The left-out point carried nearly all the spread: recompute.
            (stt, sty) = (0.0, 0.0);
            for (j, ((tj, yj), wj)) in t.iter().zip(y).zip(w).enumerate() {
                if j != i {
                    let d = tj - t_mean;
                    stt += wj * d * d;
                    sty += wj * d * (yj - y_mean);
                }
            }
            if stt <= 0.0 {
                return None;
            }
        }
        let fold = Simple {
            total_w: rest_w,
            t_mean,
            y_mean,
            stt,
            sty,
        };
        Some(fold.solve(truncate))
    }
}

/// numpy's `linalg.lstsq` with its default `rcond` (machine epsilon times
/// the larger dimension) treats the design `[1, t]` as rank one when its
/// smaller singular value is that small relative to the larger — which
/// happens when `t` reaches ~10^15, e.g. `x^(5/2)·log2(x)` at `x = 2^20` —
/// and returns the minimum-norm solution, whose constant is practically
/// zero. Extra-P inherits this; `Fitter::extrap_compatible` reproduces it.
/// Returns that solution when numpy would truncate, `None` otherwise. The
/// design is given by its centered statistics (unit weights, `n` rows).
fn numpy_rank_one(n: f64, t_mean: f64, y_mean: f64, stt: f64, sty: f64) -> Option<(f64, f64)> {
    // AᵀA = [[a, b], [b, d]]; its eigenvalues are the squared singular values.
    let a = n;
    let b = n * t_mean;
    let d = stt + n * t_mean * t_mean;
    let trace = a + d;
    let det = n * stt;
    let s1_sq = trace / 2.0 + (trace * trace / 4.0 - det).max(0.0).sqrt();
    let s2_sq = det / s1_sq;
    let rcond = f64::EPSILON * n.max(2.0);
    if (s2_sq / s1_sq).sqrt() > rcond {
        return None;
    }
    // Top right singular vector v ∝ (b, s1² − a); solution v·(vᵀAᵀy)/s1².
    let (v0, v1) = (b, s1_sq - a);
    let norm = v0.hypot(v1);
    let (v0, v1) = (v0 / norm, v1 / norm);
    let aty0 = n * y_mean;
    let aty1 = sty + n * t_mean * y_mean;
    let k = (v0 * aty0 + v1 * aty1) / s1_sq;
    Some((v0 * k, v1 * k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            selection: Selection::Smape,
            weighting: Weighting::Absolute,
            cross_validation: true,
            nonnegative_terms: false,
            min_term_contribution: 0.0005,
            numpy_rank_truncation: false,
            extrap_final_constant: false,
        }
    }

    /// The same hypothesis scored by the fast path and by QR must agree,
    /// with unit and with relative weights.
    #[test]
    fn simple_regression_agrees_with_qr_fold_by_fold() {
        let xs = [16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0];
        let t: Vec<f64> = xs.iter().map(|x: &f64| x.powf(1.5)).collect();
        let ys: Vec<f64> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| 3.0 * x.powf(1.5) + 40.0 + if i % 2 == 0 { 7.0 } else { -5.0 })
            .collect();
        let unit = vec![1.0; xs.len()];
        let relative: Vec<f64> = ys.iter().map(|y| 1.0 / (y * y)).collect();
        for w in [unit, relative] {
            let full = Simple::fit(&t, &ys, &w).unwrap();
            let mut solver = Solver::default();
            for i in 0..xs.len() {
                let (c0, c1) = full.without(i, &t, &ys, &w, false).unwrap();
                let skip = |r: usize| if r < i { r } else { r + 1 };
                let qr = solver
                    .solve(
                        xs.len() - 1,
                        2,
                        |r, j| w[skip(r)].sqrt() * if j == 0 { 1.0 } else { t[skip(r)] },
                        |r| w[skip(r)].sqrt() * ys[skip(r)],
                    )
                    .unwrap();
                assert!(
                    (c0 - qr[0]).abs() <= 1e-8 * qr[0].abs().max(1.0),
                    "fold {i}: {c0} vs {}",
                    qr[0]
                );
                assert!(
                    (c1 - qr[1]).abs() <= 1e-10 * qr[1].abs(),
                    "fold {i}: {c1} vs {}",
                    qr[1]
                );
            }
        }
    }

    /// Relative weighting fits the small points better when the values span
    /// orders of magnitude.
    #[test]
    fn relative_weighting_balances_small_and_large_values() {
        let t = [1.0, 10.0, 100.0, 1000.0, 10000.0];
        // 2·t + 1 with +3 % on the largest point only.
        let ys = [3.0, 21.0, 201.0, 2001.0, 20001.0 * 1.03];
        let mut absolute = Engine::new(&ys, opts());
        let a = absolute.fit_all(&[&t]).unwrap();
        let mut rel_opts = opts();
        rel_opts.weighting = Weighting::Relative;
        let mut relative = Engine::new(&ys, rel_opts);
        let r = relative.fit_all(&[&t]).unwrap();
        let rel_err = |c: &[f64]| ((c[0] + c[1]) - 3.0).abs() / 3.0;
        assert!(rel_err(&r) < 0.01, "{r:?}");
        assert!(rel_err(&a) > 0.5, "{a:?}");
    }

    /// Hand-computed leave-one-out scores for y = 1, 2, 4 at t = 1, 2, 3.
    #[test]
    fn leave_one_out_scores_by_hand() {
        let ys = [1.0, 2.0, 4.0];
        let t = [1.0, 2.0, 3.0];
        let mut engine = Engine::new(&ys, opts());
        let s = engine.evaluate(&[&t]).unwrap();
        // Folds: without t=1 → line through (2,2),(3,4): predicts 0 at 1.
        // Without t=2 → through (1,1),(3,4): 2.5 at 2. Without t=3 → through
        // (1,1),(2,2): 3 at 3.
        let predicted = [0.0, 2.5, 3.0];
        let rss: f64 = predicted
            .iter()
            .zip(ys)
            .map(|(p, y)| (p - y) * (p - y))
            .sum();
        let smape: f64 = predicted
            .iter()
            .zip(ys)
            .map(|(p, y)| smape_term(y, *p))
            .sum::<f64>()
            * 100.0
            / 3.0;
        assert!((s.cv_rss - rss).abs() < 1e-12, "{} vs {rss}", s.cv_rss);
        assert!((s.cv_smape - smape).abs() < 1e-9);
        assert_eq!(s.score, s.cv_smape);
        // Full fit: y = -2/3 + 1.5·t.
        assert!((s.coefficients[0] + 2.0 / 3.0).abs() < 1e-12);
        assert!((s.coefficients[1] - 1.5).abs() < 1e-12);
    }

    /// numpy.linalg.lstsq([[1, t] for t in (2^20)^2.5·log2(2^20)·k], y)
    /// truncates to rank one; well-scaled designs are left alone.
    #[test]
    fn numpy_rank_truncation() {
        // Small t: no truncation.
        let t = [1.0, 2.0, 3.0];
        let full = Simple::fit(&t, &[2.0, 4.1, 6.0], &[1.0; 3]).unwrap();
        assert_eq!(full.solve(true), full.solve(false));
        // t ~ 1e16: numpy gives c0 ≈ 1e-17 (rank one) and c1 ≈ Σty/Σt².
        let t = [1e15, 4e15, 1.6e16, 6.4e16];
        let y = [1.0e15 + 5e9, 4.0e15, 1.6e16, 6.4e16 - 3e9];
        let full = Simple::fit(&t, &y, &[1.0; 4]).unwrap();
        let (c0, c1) = full.solve(true);
        let ty: f64 = t.iter().zip(&y).map(|(a, b)| a * b).sum();
        let tt: f64 = t.iter().map(|a| a * a).sum();
        assert!(c0.abs() < 1e-10, "{c0}");
        assert!((c1 - ty / tt).abs() < 1e-12 * c1, "{c1}");
        let (plain_c0, _) = full.solve(false);
        assert!(plain_c0.abs() > 1e6, "{plain_c0}");
    }

    #[test]
    fn constant_cleaning_in_folds() {
        assert_eq!(clean(0.0004, 1.0, CLEAN_EPSILON_CV), 0.0);
        assert_eq!(clean(0.0006, 1.0, CLEAN_EPSILON_CV), 0.0006);
        assert_eq!(clean(-0.0004, 0.0, CLEAN_EPSILON_CV), 0.0);
        // y = 2·t exactly: every fold gives c0 ≈ 0, cleaned to exactly 0, so
        // the leave-one-out error is exactly zero.
        let t = [1.0, 2.0, 3.0, 5.0];
        let ys = [2.0, 4.0, 6.0, 10.0];
        let s = Engine::new(&ys, opts()).evaluate(&[&t]).unwrap();
        assert_eq!(s.cv_rss, 0.0);
    }

    #[test]
    fn rejections() {
        let t = [1.0, 2.0, 3.0, 4.0];
        // Decreasing data: the term coefficient is negative.
        let ys = [10.0, 8.0, 6.0, 4.0];
        assert!(Engine::new(&ys, opts()).evaluate(&[&t]).is_some());
        let mut nonneg = opts();
        nonneg.nonnegative_terms = true;
        assert!(Engine::new(&ys, nonneg).evaluate(&[&t]).is_none());
        // A term that contributes less than 0.05 % of the values.
        let ys = [1e6, 1e6 + 1.0, 1e6 + 2.0, 1e6 + 3.0];
        assert!(Engine::new(&ys, opts()).evaluate(&[&t]).is_none());
        // Non-finite column, too few points for two terms with CV.
        assert!(
            Engine::new(&ys, opts())
                .evaluate(&[&[1.0, f64::NAN, 2.0, 3.0]])
                .is_none()
        );
        let u = [1.0, 4.0, 9.0, 16.0];
        let ys = [1.0, 3.0, 7.0, 12.0];
        assert!(
            Engine::new(&ys[..3], opts())
                .evaluate(&[&t[..3], &u[..3]])
                .is_none()
        );
        assert!(Engine::new(&ys, opts()).evaluate(&[&t, &u]).is_some());
    }

    #[test]
    fn constant_model_scores_in_sample() {
        let ys = [1.0, 2.0, 3.0];
        let c = Engine::new(&ys, opts()).constant();
        assert_eq!(c.coefficients, [2.0]);
        let smape = 100.0 * (smape_term(1.0, 2.0) + smape_term(3.0, 2.0)) / 3.0;
        assert!((c.score - smape).abs() < 1e-12);
        // Leave-one-out means: 2.5, 2, 1.5.
        assert!((c.cv_rss - (1.5f64.powi(2) * 2.0)).abs() < 1e-12);
    }
}
