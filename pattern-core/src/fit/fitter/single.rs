//! The single-parameter search: every hypothesis of the space (and, in
//! multi-term mode, every combination of up to `max_terms` of them) scored
//! by the engine, then the noise test and the resolution floor.

use super::alternatives::{self, Alternative};
use super::result::{Fit, FitStats, FittedTerm, Resolution};
use super::settings::Fitter;
use crate::fit::error::FitError;
use crate::fit::hypothesis::{TermClass, TermEval};
use crate::fit::search::Engine;
use crate::fit::significance::{self, Significance};

impl Fitter {
    /// The single-parameter search on aggregated, distinct, sorted `xs`;
    /// `errors`, the standard errors of `ys`, enable the noise test.
    pub(crate) fn fit_line(
        &self,
        param: &str,
        xs: &[f64],
        ys: &[f64],
        errors: Option<&[f64]>,
    ) -> Result<Single, FitError> {
        if xs.len() < 3 {
            return Err(FitError::TooFewPoints {
                param: param.to_string(),
                needed: 3,
                got: xs.len(),
            });
        }
        let log_ok = xs.iter().all(|&x| x >= 1.0);
        let log_terms_dropped = !log_ok && self.space.terms().iter().any(TermClass::has_log);
        let classes: Vec<TermClass> = self
            .space
            .terms()
            .iter()
            .copied()
            .filter(|t| log_ok || !t.has_log())
            .collect();
        let columns: Vec<Vec<f64>> = classes
            .iter()
            .map(|&t| {
                let e = TermEval::new(t);
                xs.iter().map(|&x| e.eval(x)).collect()
            })
            .collect();

        let mut engine = Engine::new(ys, self.options());
        let tss = engine.total_sum_of_squares();
        let mut best = engine.constant();
        let mut best_terms: Vec<usize> = Vec::new();
        let mut evaluated = 1;
        let mut scored: Vec<alternatives::Scored> = Vec::new();
        if tss > 0.0 {
            let mut combo: Vec<usize> = Vec::new();
            for k in 1..=self.max_terms.min(classes.len()) {
                combo.clear();
                combo.extend(0..k);
                loop {
                    let cols: Vec<&[f64]> = combo.iter().map(|&h| columns[h].as_slice()).collect();
                    evaluated += 1;
                    if let Some(s) = engine.evaluate(&cols) {
                        scored.push(alternatives::Scored {
                            classes: combo.iter().map(|&h| classes[h]).collect(),
                            coefficients: s.coefficients.clone(),
                            cv_rss: s.cv_rss,
                        });
                        if s.score < best.score {
                            best = s;
                            best_terms.clone_from(&combo);
                        }
                    }
                    if !next_combination(&mut combo, classes.len()) {
                        break;
                    }
                }
            }
        }
        let mut tested = None;
        if let (Some(alpha), Some(errors), false) =
            (self.significance, errors, best_terms.is_empty())
        {
            let cols: Vec<&[f64]> = best_terms.iter().map(|&h| columns[h].as_slice()).collect();
            let terms: Vec<TermClass> = best_terms.iter().map(|&h| classes[h]).collect();
            tested = significance::test(ys, errors, &cols, &terms, evaluated - 1, alpha);
            if tested.as_ref().is_some_and(|t| !t.significant) {
                best = engine.constant();
                best_terms.clear();
            }
        }
        let mut resolved = None;
        if let (Some(floor), false) = (self.resolution, best_terms.is_empty()) {
            let model: Vec<f64> = (0..xs.len())
                .map(|i| {
                    best_terms
                        .iter()
                        .zip(&best.coefficients[1..])
                        .map(|(&h, c)| c * columns[h][i])
                        .sum()
                })
                .collect();
            let (lo, hi) = model
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                });
            let span = hi - lo;
            let check = Resolution {
                terms: best_terms.iter().map(|&h| classes[h]).collect(),
                span,
                resolution: floor,
                resolved: span >= floor,
            };
            if !check.resolved {
                best = engine.constant();
                best_terms.clear();
            }
            resolved = Some(check);
        }
        let others = alternatives::alternatives(
            &self.var,
            &alternatives::Scored {
                classes: best_terms.iter().map(|&h| classes[h]).collect(),
                coefficients: best.coefficients.clone(),
                cv_rss: best.cv_rss,
            },
            &scored,
            xs,
        );
        let cols: Vec<&[f64]> = best_terms.iter().map(|&h| columns[h].as_slice()).collect();
        let (rss, smape) = engine.in_sample(&cols, &best.coefficients);
        let stats = FitStats::new(xs.len(), best_terms.len(), rss, smape, tss, &best);
        Ok(Single {
            classes: best_terms.iter().map(|&h| classes[h]).collect(),
            coefficients: best.coefficients,
            stats,
            evaluated,
            log_terms_dropped,
            significance: tested,
            resolution: resolved,
            alternatives: others,
        })
    }
}

/// Advances `combo` (strictly increasing indices below `n`) to the next
/// combination in lexicographic order; `false` after the last.
fn next_combination(combo: &mut [usize], n: usize) -> bool {
    let k = combo.len();
    for i in (0..k).rev() {
        if combo[i] < n - k + i {
            combo[i] += 1;
            for j in i + 1..k {
                combo[j] = combo[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The result of a single-parameter search.
#[derive(Clone, Debug)]
pub(crate) struct Single {
    pub classes: Vec<TermClass>,
    pub coefficients: Vec<f64>,
    pub stats: FitStats,
    pub evaluated: usize,
    pub log_terms_dropped: bool,
    pub significance: Option<Significance>,
    pub resolution: Option<Resolution>,
    pub alternatives: Vec<Alternative>,
}

impl Single {
    pub(super) fn into_fit(self, var: &str, xs: Vec<f64>, ys: Vec<f64>) -> Fit {
        let terms = self
            .classes
            .iter()
            .zip(&self.coefficients[1..])
            .map(|(&class, &coefficient)| FittedTerm {
                coefficient,
                factors: vec![(var.to_string(), class)],
            })
            .collect();
        let mut fit = Fit::new(
            vec![var.to_string()],
            self.coefficients[0],
            terms,
            self.stats,
            self.evaluated,
            self.log_terms_dropped,
            xs.into_iter().map(|x| vec![x]).zip(ys).collect(),
        );
        fit.significance = self.significance;
        fit.alternatives = self.alternatives;
        fit.resolution = self.resolution;
        fit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_in_lexicographic_order() {
        let mut c = vec![0, 1];
        let mut all = vec![c.clone()];
        while next_combination(&mut c, 4) {
            all.push(c.clone());
        }
        assert_eq!(
            all,
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(|a| a.to_vec())
        );
        let mut c = vec![0];
        let mut n = 1;
        while next_combination(&mut c, 42) {
            n += 1;
        }
        assert_eq!(n, 42);
    }
}
