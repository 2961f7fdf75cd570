//! Linear least squares for small dense systems: Householder QR with column
//! equilibration. The hypotheses have at most a handful of columns, so a
//! ~60-line solver is simpler than a linear-algebra dependency; QR is used
//! instead of the normal equations because PMNF columns (`1`, `x^3`,
//! `x^(11/4)`, ...) differ by many orders of magnitude and are nearly
//! collinear, which squares the condition number in `AᵀA`.

/// Relative size below which a diagonal entry of `R` counts as zero (the
/// columns are then linearly dependent on the data and the hypothesis is
/// rejected).
const RANK_TOLERANCE: f64 = 1e-11;

/// Reusable workspace for [`Solver::solve`].
#[derive(Debug, Default)]
pub(crate) struct Solver {
    a: Vec<f64>,
    b: Vec<f64>,
    scale: Vec<f64>,
    v: Vec<f64>,
    coefficients: Vec<f64>,
}

impl Solver {
    /// Minimizes `‖A·c − b‖₂` for the `rows × cols` matrix whose entry
    /// `(i, j)` is `entry(i, j)`; the right-hand side is `rhs(i)`. Returns
    /// `None` if `A` is rank deficient (or has non-finite entries) or there
    /// are fewer rows than columns.
    pub(crate) fn solve(
        &mut self,
        rows: usize,
        cols: usize,
        entry: impl Fn(usize, usize) -> f64,
        rhs: impl Fn(usize) -> f64,
    ) -> Option<&[f64]> {
        if rows < cols || cols == 0 {
            return None;
        }
        self.a.clear();
        self.scale.clear();
        for j in 0..cols {
            let start = self.a.len();
            self.a.extend((0..rows).map(|i| entry(i, j)));
            let column = &mut self.a[start..];
            let s = column.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if !(s.is_finite() && s > 0.0) {
                return None;
            }
            column.iter_mut().for_each(|v| *v /= s);
            self.scale.push(s);
        }
        self.b.clear();
        self.b.extend((0..rows).map(rhs));
        if self.b.iter().any(|v| !v.is_finite()) {
            return None;
        }

        let a = &mut self.a;
        let mut max_diag = 0.0f64;
        for j in 0..cols {
            let col = j * rows;
            let norm = a[col + j..col + rows]
                .iter()
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt();
            if norm == 0.0 {
                return None;
            }
            let alpha = if a[col + j] > 0.0 { -norm } else { norm };
            self.v.clear();
            self.v.extend_from_slice(&a[col + j..col + rows]);
            self.v[0] -= alpha;
            let vv: f64 = self.v.iter().map(|x| x * x).sum();
            if vv > 0.0 {
                for k in j + 1..cols {
                    let ck = k * rows;
                    let dot: f64 = self
                        .v
                        .iter()
                        .zip(&a[ck + j..ck + rows])
                        .map(|(x, y)| x * y)
                        .sum();
                    let f = 2.0 * dot / vv;
                    for (x, y) in self.v.iter().zip(&mut a[ck + j..ck + rows]) {
                        *y -= f * x;
                    }
                }
                let dot: f64 = self.v.iter().zip(&self.b[j..]).map(|(x, y)| x * y).sum();
                let f = 2.0 * dot / vv;
                for (x, y) in self.v.iter().zip(&mut self.b[j..]) {
                    *y -= f * x;
                }
            }
            a[col + j] = alpha;
            max_diag = max_diag.max(alpha.abs());
        }
        if (0..cols).any(|j| a[j * rows + j].abs() <= RANK_TOLERANCE * max_diag) {
            return None;
        }

        self.coefficients.clear();
        self.coefficients.resize(cols, 0.0);
        for j in (0..cols).rev() {
            let mut s = self.b[j];
            for k in j + 1..cols {
                s -= a[k * rows + j] * self.coefficients[k];
            }
            self.coefficients[j] = s / a[j * rows + j];
        }
        for (c, s) in self.coefficients.iter_mut().zip(&self.scale) {
            *c /= s;
        }
        if self.coefficients.iter().any(|c| !c.is_finite()) {
            return None;
        }
        Some(&self.coefficients)
    }
}

/// An orthonormal basis of some columns (Gram-Schmidt, applied twice where
/// the first pass cancels most of a column, which is orthogonal to working
/// precision for the few columns of a hypothesis), with the least-squares residuals of a right-hand side and
/// the leverages of the rows (the diagonal of the hat matrix): every
/// leave-one-out residual follows without refitting (`e_i / (1 − h_i)`),
/// and one more column costs `O(rows·columns)`.
#[derive(Clone, Debug)]
pub(crate) struct Basis {
    /// The orthonormal columns, one after the other.
    q: Vec<f64>,
    /// The residuals of the right-hand side on the columns.
    pub residuals: Vec<f64>,
    pub leverages: Vec<f64>,
}

impl Basis {
    /// The empty basis for the right-hand side `b`.
    pub(crate) fn new(b: Vec<f64>) -> Basis {
        let rows = b.len();
        Basis {
            q: Vec::new(),
            residuals: b,
            leverages: vec![0.0; rows],
        }
    }

    fn rows(&self) -> usize {
        self.residuals.len()
    }

    /// `column` orthogonalized against the basis and normalized, in `out`;
    /// `false` if it is (nearly) in its span or not finite.
    pub(crate) fn orthonormal(&self, column: &[f64], out: &mut Vec<f64>) -> bool {
        let rows = self.rows();
        let s = column.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if column.len() != rows || !(s.is_finite() && s > 0.0) {
            return false;
        }
        out.clear();
        out.extend(column.iter().map(|c| c / s));
        let before = out.iter().map(|x| x * x).sum::<f64>().sqrt();
        let mut norm = before;
        // Once more only when the first pass cancelled most of the column
        // ("twice is enough"): then its rounding is no longer orthogonal.
        for _ in 0..2 {
            let start = norm;
            for qk in self.q.chunks_exact(rows) {
                let d: f64 = qk.iter().zip(out.iter()).map(|(a, b)| a * b).sum();
                out.iter_mut().zip(qk).for_each(|(x, a)| *x -= d * a);
            }
            norm = out.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm >= std::f64::consts::FRAC_1_SQRT_2 * start {
                break;
            }
        }
        // NaN norms fail too.
        if norm.is_nan() || norm <= RANK_TOLERANCE * before {
            return false;
        }
        out.iter_mut().for_each(|x| *x /= norm);
        true
    }

    /// The part of the residuals along the unit vector `q` (orthogonal to
    /// the basis), which adding it removes.
    pub(crate) fn along(&self, q: &[f64]) -> f64 {
        q.iter().zip(&self.residuals).map(|(a, b)| a * b).sum()
    }

    /// Adds `column`; `false` (and unchanged) if it is in the span.
    pub(crate) fn push(&mut self, column: &[f64]) -> bool {
        let mut q = Vec::with_capacity(self.rows());
        if !self.orthonormal(column, &mut q) {
            return false;
        }
        let d = self.along(&q);
        for ((e, h), a) in self.residuals.iter_mut().zip(&mut self.leverages).zip(&q) {
            *e -= d * a;
            *h += a * a;
        }
        self.q.extend(q);
        true
    }
}

/// How close to one a row's leverage may come for [`leave_one_out`]: the
/// downdate divides by `1 − h`, which closer to one loses the digits that a
/// refit keeps.
const LEVERAGE_LIMIT: f64 = 1e-6;

/// The least-squares coefficients of the `rows × cols` system without each
/// row in turn, from one fit (`c₋ᵢ = c − R⁻¹·qᵢᵀ·eᵢ/(1 − hᵢ)`, with `A = QR`,
/// `eᵢ` the residual and `hᵢ` the leverage of row `i`), row after row:
/// `O(rows·cols²)` where refitting each fold costs `rows` times more. `None`
/// as for [`Solver::solve`], or if a row nearly decides its own fit
/// ([`LEVERAGE_LIMIT`]; its fold is then refitted by the caller).
pub(crate) fn leave_one_out(
    rows: usize,
    cols: usize,
    entry: impl Fn(usize, usize) -> f64,
    rhs: impl Fn(usize) -> f64,
) -> Option<Vec<f64>> {
    if rows <= cols || cols == 0 {
        return None;
    }
    let mut basis = Basis::new((0..rows).map(&rhs).collect());
    let mut scale = vec![0.0; cols];
    let mut r = vec![0.0; cols * cols];
    let mut column = Vec::with_capacity(rows);
    let mut q = Vec::with_capacity(rows);
    for (j, s) in scale.iter_mut().enumerate() {
        column.clear();
        column.extend((0..rows).map(|i| entry(i, j)));
        if !basis.orthonormal(&column, &mut q) {
            return None;
        }
        // R's column j: the projections of the (scaled) column.
        *s = column.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        column.iter_mut().for_each(|v| *v /= *s);
        for (k, qk) in basis.q.chunks_exact(rows).enumerate() {
            r[k * cols + j] = qk.iter().zip(&column).map(|(a, b)| a * b).sum();
        }
        r[j * cols + j] = q.iter().zip(&column).map(|(a, b)| a * b).sum();
        basis.push(&column);
    }
    if !basis.residuals.iter().all(|v| v.is_finite()) {
        return None;
    }
    // c = R⁻¹·Qᵀ·b, with Qᵀ·b the projections removed from b.
    let b: Vec<f64> = (0..rows).map(rhs).collect();
    let qb: Vec<f64> = basis
        .q
        .chunks_exact(rows)
        .map(|qk| qk.iter().zip(&b).map(|(a, b)| a * b).sum())
        .collect();
    let back = |v: &[f64], out: &mut [f64]| {
        for j in (0..cols).rev() {
            let s = v[j] - (j + 1..cols).map(|k| r[j * cols + k] * out[k]).sum::<f64>();
            out[j] = s / r[j * cols + j];
        }
    };
    let mut c = vec![0.0; cols];
    back(&qb, &mut c);
    let mut folds = vec![0.0; rows * cols];
    let mut qi = vec![0.0; cols];
    let mut t = vec![0.0; cols];
    for i in 0..rows {
        let free = 1.0 - basis.leverages[i];
        if free <= LEVERAGE_LIMIT {
            return None;
        }
        qi.iter_mut()
            .zip(basis.q.chunks_exact(rows))
            .for_each(|(v, qk)| *v = qk[i]);
        back(&qi, &mut t);
        let f = basis.residuals[i] / free;
        for j in 0..cols {
            folds[i * cols + j] = (c[j] - t[j] * f) / scale[j];
        }
    }
    folds.iter().all(|v| v.is_finite()).then_some(folds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fit_recovers_coefficients() {
        let xs: Vec<f64> = (1..=8).map(|k| f64::from(1 << (2 * k))).collect();
        let truth = [5422.97, 536.185, 0.002];
        let col = |i: usize, j: usize| match j {
            0 => 1.0,
            1 => xs[i],
            _ => xs[i] * xs[i],
        };
        let y = |i: usize| truth[0] + truth[1] * xs[i] + truth[2] * xs[i] * xs[i];
        let mut solver = Solver::default();
        let c = solver.solve(xs.len(), 3, col, y).unwrap().to_vec();
        for (got, want) in c.iter().zip(truth) {
            assert!((got - want).abs() <= 1e-6 * want.abs(), "{c:?}");
        }
    }

    #[test]
    fn overdetermined_fit_is_the_least_squares_solution() {
        // y = 1, 2, 2, 4 at x = 0..3: the regression line is 0.9 + 0.9·x.
        let ys = [1.0, 2.0, 2.0, 4.0];
        let mut solver = Solver::default();
        let c = solver
            .solve(4, 2, |i, j| if j == 0 { 1.0 } else { i as f64 }, |i| ys[i])
            .unwrap();
        assert!(
            (c[0] - 0.9).abs() < 1e-12 && (c[1] - 0.9).abs() < 1e-12,
            "{c:?}"
        );
    }

    #[test]
    fn rank_deficiency_and_bad_input_are_rejected() {
        let mut solver = Solver::default();
        // Two equal columns.
        assert!(
            solver
                .solve(4, 2, |i, _| i as f64 + 1.0, |i| i as f64)
                .is_none()
        );
        // A zero column.
        assert!(
            solver
                .solve(
                    3,
                    2,
                    |i, j| if j == 0 { 1.0 } else { 0.0 * i as f64 },
                    |_| 1.0
                )
                .is_none()
        );
        // Too few rows.
        assert!(solver.solve(1, 2, |_, _| 1.0, |_| 1.0).is_none());
        // Non-finite entries.
        assert!(solver.solve(3, 1, |_, _| f64::INFINITY, |_| 1.0).is_none());
        assert!(solver.solve(3, 1, |_, _| 1.0, |_| f64::NAN).is_none());
    }

    /// The basis gives the leave-one-out residuals of refitting.
    #[test]
    fn leverages_give_the_leave_one_out_residuals() {
        let xs: [f64; 6] = [1.0, 2.0, 3.0, 5.0, 8.0, 13.0];
        let ys = [2.1, 3.9, 6.2, 9.8, 16.5, 25.7];
        let col = |i: usize, j: usize| [1.0, xs[i], xs[i] * xs[i].log2().max(0.0)][j];
        let mut basis = Basis::new(ys.to_vec());
        for j in 0..3 {
            let column: Vec<f64> = (0..6).map(|i| col(i, j)).collect();
            assert!(basis.push(&column));
        }
        let mut solver = Solver::default();
        for i in 0..6 {
            let skip = |r: usize| if r < i { r } else { r + 1 };
            let c = solver
                .solve(5, 3, |r, j| col(skip(r), j), |r| ys[skip(r)])
                .unwrap();
            let predicted: f64 = (0..3).map(|j| c[j] * col(i, j)).sum();
            let loo = basis.residuals[i] / (1.0 - basis.leverages[i]);
            assert!((ys[i] - predicted - loo).abs() < 1e-9, "row {i}");
        }
        // A column in the span is refused.
        assert!(!basis.push(&xs.iter().map(|x| 2.0 * x + 1.0).collect::<Vec<_>>()));
    }

    /// The downdated folds are the folds refitted.
    #[test]
    fn folds_from_one_fit() {
        let xs = [1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0];
        let ys = [2.1, 3.9, 6.2, 9.8, 16.5, 25.7, 47.0];
        let col = |i: usize, j: usize| [1.0, xs[i], xs[i] * xs[i] * 1e3][j];
        let folds = leave_one_out(7, 3, col, |i| ys[i]).unwrap();
        let mut solver = Solver::default();
        for i in 0..7 {
            let skip = |r: usize| if r < i { r } else { r + 1 };
            let c = solver
                .solve(6, 3, |r, j| col(skip(r), j), |r| ys[skip(r)])
                .unwrap();
            for j in 0..3 {
                let got = folds[i * 3 + j];
                assert!(
                    (got - c[j]).abs() <= 1e-9 * c[j].abs().max(1e-6),
                    "{i} {j}: {got} vs {}",
                    c[j]
                );
            }
        }
        // Three rows, three columns: no fold has enough rows.
        assert!(leave_one_out(3, 3, col, |i| ys[i]).is_none());
    }
}
