//! Fast leave-one-out scores of hypotheses that add one column to a fixed
//! set, for the monomial search of several parameters.

use super::{Engine, Selection, smape_term};
use crate::fit::lsq::Basis;

impl Engine<'_> {
    /// A [`Scorer`] of hypotheses that add columns to `c0 + Σ c_k·columns[k]`;
    /// `None` without cross-validation or if those columns are dependent.
    pub(crate) fn scorer(&self, columns: &[&[f64]]) -> Option<Scorer<'_>> {
        let n = self.n();
        if !self.opts.cross_validation {
            return None;
        }
        let sw = &self.sqrt_w;
        let mut basis = Basis::new(self.ys.iter().zip(sw).map(|(y, w)| y * w).collect());
        let weighted = |c: &[f64]| -> Vec<f64> { c.iter().zip(sw).map(|(v, w)| v * w).collect() };
        let ones = vec![1.0; n];
        for c in std::iter::once(ones.as_slice()).chain(columns.iter().copied()) {
            if !basis.push(&weighted(c)) {
                return None;
            }
        }
        Some(Scorer {
            engine: self,
            basis,
            weighted: Vec::with_capacity(n),
            q: Vec::with_capacity(n),
        })
    }
}

/// Scores hypotheses `c0 + Σ c_k·t_k + c·t` that add one column `t` to a
/// fixed set, by leave-one-out cross-validation from the leverages of one
/// fit, in `O(n·k)` each: as [`Engine::evaluate`] without Extra-P's
/// cleaning of each fold's constant and without the rejections of
/// coefficients (the structure chosen is scored by [`Engine::evaluate`]).
pub(crate) struct Scorer<'e> {
    engine: &'e Engine<'e>,
    basis: Basis,
    /// Scratch: the weighted column and its orthonormal part.
    weighted: Vec<f64>,
    q: Vec<f64>,
}

/// A hypothesis scored by a [`Scorer`].
#[derive(Clone, Debug)]
pub(crate) struct Quick {
    /// As [`Scored::score`].
    pub score: f64,
    /// Each point's share of the score (its SMAPE term or squared
    /// leave-one-out residual).
    pub losses: Vec<f64>,
}

impl Scorer<'_> {
    /// The fixed set with `column` added; `None` if it is in their span or
    /// a point would decide its own fit.
    pub(crate) fn with(&mut self, column: &[f64]) -> Option<Quick> {
        let d = self.add(column)?;
        let mut losses = Vec::with_capacity(self.engine.n());
        let score = self.losses(d, Some(&mut losses))?;
        Some(Quick { score, losses })
    }

    /// The largest change, relative to the value, that adding `column`
    /// makes to the fitted values at a point: below Extra-P's minimum
    /// term contribution the column is no term.
    pub(crate) fn change(&mut self, column: &[f64]) -> Option<f64> {
        let d = self.add(column)?;
        let e = self.engine;
        let largest = (0..e.n())
            .map(|i| (d * self.q[i] / e.sqrt_w[i] / e.ys[i]).abs())
            .fold(0.0, f64::max);
        Some(largest)
    }

    /// Whether adding `column` changes the fit by at least the minimum
    /// term contribution somewhere ([`Scorer::change`]).
    pub(crate) fn contributes(&mut self, column: &[f64]) -> bool {
        let floor = self.engine.opts.min_term_contribution;
        self.change(column).is_some_and(|c| c >= floor)
    }

    /// The score of [`Scorer::with`] alone.
    pub(crate) fn score(&mut self, column: &[f64]) -> Option<f64> {
        let d = self.add(column)?;
        self.losses(d, None)
    }

    /// The fixed set alone.
    pub(crate) fn alone(&mut self) -> Option<Quick> {
        self.q.clear();
        let mut losses = Vec::with_capacity(self.engine.n());
        let score = self.losses(0.0, Some(&mut losses))?;
        Some(Quick { score, losses })
    }

    /// Orthonormalizes the weighted `column` into `q`; its coefficient.
    fn add(&mut self, column: &[f64]) -> Option<f64> {
        let sw = &self.engine.sqrt_w;
        self.weighted.clear();
        self.weighted
            .extend(column.iter().zip(sw).map(|(v, w)| v * w));
        if !self.basis.orthonormal(&self.weighted, &mut self.q) {
            return None;
        }
        Some(self.basis.along(&self.q))
    }

    /// The score with the unit vector `q` (none if empty) of coefficient
    /// `d` added, and each point's loss into `losses`.
    fn losses(&self, d: f64, mut losses: Option<&mut Vec<f64>>) -> Option<f64> {
        let e = self.engine;
        let b = &self.basis;
        let n = e.n();
        let mut total = 0.0;
        for i in 0..n {
            let (q, residual) = match self.q.get(i) {
                Some(&q) => (q, b.residuals[i] - d * q),
                None => (0.0, b.residuals[i]),
            };
            let free = 1.0 - (b.leverages[i] + q * q);
            if free <= 1e-12 {
                return None;
            }
            let off = residual / e.sqrt_w[i] / free;
            let loss = match e.opts.selection {
                Selection::Smape => smape_term(e.ys[i], e.ys[i] - off),
                Selection::Rss => off * off,
            };
            total += loss;
            if let Some(l) = losses.as_deref_mut() {
                l.push(loss);
            }
        }
        let score = match e.opts.selection {
            Selection::Smape => 100.0 * total / n as f64,
            Selection::Rss => total,
        };
        score.is_finite().then_some(score)
    }
}
