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
}
