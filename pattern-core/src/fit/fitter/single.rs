//! The single-parameter search: every hypothesis of the space (and, in
//! multi-term mode, every combination of up to `max_terms` of them) scored
//! by the engine, then the noise test and the resolution floor.

use super::alternatives::{self, Alternative, within_noise};
use super::extrapolation::{Curve, SetAside};
use super::result::{Fit, FitStats, FittedTerm, Resolution, model_of};
use super::settings::Fitter;
use crate::fit::error::FitError;
use crate::fit::hypothesis::{TermClass, TermEval};
use crate::fit::search::{self, Engine};
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
        let Search {
            mut best,
            mut best_terms,
            evaluated,
            scored,
        } = self.search(&mut engine, tss, &columns, &classes);
        let mut tested = None;
        if let (Some(alpha), Some(errors), false) =
            (self.significance, errors, best_terms.is_empty())
        {
            let noise = Noise {
                ys,
                errors: significance::pooled(ys, errors),
                columns: &columns,
                classes: &classes,
                hypotheses: evaluated - 1,
                alpha,
            };
            tested = noise.test(&best_terms, &scored);
            if tested.as_ref().is_some_and(|t| !t.significant) {
                best = engine.constant();
                best_terms.clear();
            }
        }
        let mut resolved = None;
        if let (Some(floor), false) = (self.resolution, best_terms.is_empty()) {
            let check = resolution(floor, &best_terms, &best.coefficients, &columns, &classes);
            if !check.resolved {
                best = engine.constant();
                best_terms.clear();
            }
            resolved = Some(check);
        }
        let mut set_aside = None;
        if self.prefer_nonnegative {
            let choice = Choice {
                var: param,
                classes: &classes,
                columns: &columns,
                scored: &scored,
                xs,
            };
            if let Some((scored, terms, aside)) =
                choice.nonnegative(&mut engine, &best, &best_terms)
            {
                best = scored;
                best_terms = terms;
                set_aside = Some(aside);
            }
        }
        let others = alternatives::alternatives(
            param,
            &alternatives::Scored {
                terms: best_terms.clone(),
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
            set_aside,
        })
    }
}

/// What the search scored: the best hypothesis and its terms, how many
/// were evaluated (the constant among them), and every valid one.
struct Search {
    best: search::Scored,
    best_terms: Vec<usize>,
    evaluated: usize,
    scored: Vec<alternatives::Scored>,
}

impl Fitter {
    /// Scores the constant and every combination of up to `max_terms` of
    /// the `classes` (their values `columns`), unless the values do not vary
    /// (`tss` zero).
    fn search(
        &self,
        engine: &mut Engine<'_>,
        tss: f64,
        columns: &[Vec<f64>],
        classes: &[TermClass],
    ) -> Search {
        let mut found = Search {
            best: engine.constant(),
            best_terms: Vec::new(),
            evaluated: 1,
            scored: Vec::new(),
        };
        if tss <= 0.0 {
            return found;
        }
        let mut combo: Vec<usize> = Vec::new();
        for k in 1..=self.max_terms.min(classes.len()) {
            combo.clear();
            combo.extend(0..k);
            loop {
                let cols: Vec<&[f64]> = combo.iter().map(|&h| columns[h].as_slice()).collect();
                found.evaluated += 1;
                if let Some(s) = engine.evaluate(&cols) {
                    found.scored.push(alternatives::Scored {
                        terms: combo.clone(),
                        classes: combo.iter().map(|&h| classes[h]).collect(),
                        coefficients: s.coefficients.clone(),
                        cv_rss: s.cv_rss,
                    });
                    if s.score < found.best.score {
                        found.best = s;
                        found.best_terms.clone_from(&combo);
                    }
                }
                if !next_combination(&mut combo, classes.len()) {
                    break;
                }
            }
        }
        found
    }
}

/// Whether the model of `terms` (columns `columns`, classes `classes`)
/// spans at least `floor` over the points: its terms' values, the constant
/// left out, from lowest to highest.
fn resolution(
    floor: f64,
    terms: &[usize],
    coefficients: &[f64],
    columns: &[Vec<f64>],
    classes: &[TermClass],
) -> Resolution {
    let n = columns.first().map_or(0, Vec::len);
    let (lo, hi) = (0..n)
        .map(|i| {
            terms
                .iter()
                .zip(&coefficients[1..])
                .map(|(&h, c)| c * columns[h][i])
                .sum::<f64>()
        })
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let span = hi - lo;
    Resolution {
        terms: terms.iter().map(|&h| classes[h]).collect(),
        span,
        resolution: floor,
        resolved: span >= floor,
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
    pub set_aside: Option<SetAside>,
}

impl Single {
    /// The model's value at `x`.
    pub(super) fn at(&self, x: f64) -> f64 {
        Curve::new(&self.classes, &self.coefficients).at(x)
    }

    pub(super) fn into_fit(self, var: &str, xs: Vec<f64>, ys: Vec<f64>) -> Fit {
        let fitted = fitted_terms(var, &self.classes, &self.coefficients);
        let largest = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let curve = Curve::new(&self.classes, &self.coefficients);
        let mut fit = Fit::new(
            vec![var.to_string()],
            self.coefficients[0],
            fitted,
            self.stats,
            self.evaluated,
            self.log_terms_dropped,
            xs.into_iter().map(|x| vec![x]).zip(ys).collect(),
        );
        fit.extrapolation = Some(curve.extrapolation(largest));
        fit.significance = self.significance;
        fit.alternatives = self.alternatives;
        fit.resolution = self.resolution;
        fit.set_aside = self.set_aside;
        fit
    }
}

/// The terms of `classes` in `var` with `coefficients` (the constant
/// first, left out).
fn fitted_terms(var: &str, classes: &[TermClass], coefficients: &[f64]) -> Vec<FittedTerm> {
    classes
        .iter()
        .zip(&coefficients[1..])
        .map(|(&class, &coefficient)| FittedTerm {
            coefficient,
            factors: vec![(var.to_string(), class)],
        })
        .collect()
}

/// What the noise test of a search's choice sees.
struct Noise<'a> {
    ys: &'a [f64],
    /// The standard errors of `ys`, pooled ([`significance::pooled`]).
    errors: Vec<f64>,
    columns: &'a [Vec<f64>],
    classes: &'a [TermClass],
    hypotheses: usize,
    alpha: f64,
}

impl Noise<'_> {
    /// The hypothesis of `terms` tested against the constant. The test is
    /// of the family: if it is not beyond the noise, the data are if any
    /// hypothesis of `scored` with as many terms is, at the same corrected
    /// level (cross-validation may have chosen one that fits the points
    /// less closely, a high power on 4 sizes, the weaker witness). If no
    /// hypothesis is, growth is asked alone: a [`significance::trend`], one
    /// test, not corrected for the search.
    fn test(&self, terms: &[usize], scored: &[alternatives::Scored]) -> Option<Significance> {
        let mut tested = self.family(terms, scored);
        if let Some(t) = tested.as_mut().filter(|t| !t.significant) {
            t.significant = significance::trend(self.ys, &self.errors, self.alpha);
        }
        tested
    }

    /// The test of the family of [`Noise::test`].
    fn family(&self, terms: &[usize], scored: &[alternatives::Scored]) -> Option<Significance> {
        let one = |terms: &[usize]| {
            let cols: Vec<&[f64]> = terms.iter().map(|&h| self.columns[h].as_slice()).collect();
            let classes: Vec<TermClass> = terms.iter().map(|&h| self.classes[h]).collect();
            significance::test(
                self.ys,
                &self.errors,
                &cols,
                &classes,
                self.hypotheses,
                self.alpha,
            )
        };
        let tested = one(terms);
        if tested.as_ref().is_none_or(|t| t.significant) {
            return tested;
        }
        let strongest = scored
            .iter()
            .filter(|s| s.terms.len() == terms.len())
            .filter_map(|s| one(&s.terms))
            .min_by(|a, b| a.p_value.total_cmp(&b.p_value));
        if strongest.as_ref().is_some_and(|t| t.significant) {
            strongest
        } else {
            tested
        }
    }
}

/// What the preference for a model that stays non-negative chooses from.
struct Choice<'a> {
    var: &'a str,
    classes: &'a [TermClass],
    columns: &'a [Vec<f64>],
    scored: &'a [alternatives::Scored],
    xs: &'a [f64],
}

impl Choice<'_> {
    /// If `best` (of `terms`) turns negative before 16 times the largest
    /// size, the model within the noise of it with the lowest leave-one-out
    /// RSS that does not (the constant among them), scored again, with its
    /// terms and what it set aside.
    fn nonnegative(
        &self,
        engine: &mut Engine<'_>,
        best: &search::Scored,
        terms: &[usize],
    ) -> Option<(search::Scored, Vec<usize>, SetAside)> {
        let largest = self.xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let classes: Vec<TermClass> = terms.iter().map(|&h| self.classes[h]).collect();
        let curve = Curve::new(&classes, &best.coefficients);
        if terms.is_empty() || !best.cv_rss.is_finite() || curve.positive_up_to_16x(largest) {
            return None;
        }
        let negative_from = curve.extrapolation(largest).negative_from?;
        let limit = best.cv_rss * within_noise(self.xs.len());
        let constant = engine.constant();
        let mut candidates: Vec<(f64, Vec<usize>)> = Vec::new();
        if constant.coefficients[0] > 0.0 && constant.cv_rss <= limit {
            candidates.push((constant.cv_rss, Vec::new()));
        }
        for s in self.scored {
            let stays = Curve::new(&s.classes, &s.coefficients).positive_up_to_16x(largest);
            if stays && s.cv_rss.is_finite() && s.cv_rss <= limit {
                candidates.push((s.cv_rss, s.terms.clone()));
            }
        }
        let (_, chosen) = candidates.into_iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
        let rescored = if chosen.is_empty() {
            constant
        } else {
            let cols: Vec<&[f64]> = chosen.iter().map(|&h| self.columns[h].as_slice()).collect();
            engine.evaluate(&cols)?
        };
        let aside = SetAside {
            model: model_of(
                best.coefficients[0],
                &fitted_terms(self.var, &classes, &best.coefficients),
            ),
            negative_from,
            cv_rss_ratio: rescored.cv_rss / best.cv_rss,
        };
        Some((rescored, chosen, aside))
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
