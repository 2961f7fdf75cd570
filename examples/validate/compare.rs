//! The comparison of one configuration: its runs against the models
//! composed from its atoms, pointwise and by the leading coefficients of
//! the monolithic model fitted from the whole runs ([`Row`]).

use crate::cases::Case;
use crate::error::ValidationError;
use crate::refinements::{HANDOFF, refine};
use crate::report::{AtomReport, ErrorSummary, Predictions, Row, SizeResult};
use crate::rounds::{BySize, Run};
use crate::settings::Settings;
use crate::suite::{Suite, machine_cores};
use pattern_core::accuracy::{AccuracyError, leading_coefficient_error, relative_error};
use pattern_core::exec::Metrics;
use pattern_core::fit::{HypothesisSpace, Rational64, TermClass, stats};
use pattern_core::semantics::Throughput;
use pattern_core::{Atom, Design, Expr, Term};
use std::collections::BTreeMap;

/// What the suite fitted after its rounds, which every configuration is
/// compared with.
pub(crate) struct Fits<'a> {
    /// The atoms.
    pub(crate) atoms: &'a [AtomReport],
    /// Each atom's timings as measured, by size.
    pub(crate) raw: &'a [BySize],
    /// The hand-over between pipeline stages.
    pub(crate) handoff: Option<&'a AtomReport>,
    /// The variants and co-run probes that refine the models.
    pub(crate) variants: &'a [AtomReport],
}

impl Fits<'_> {
    /// Whether the models are refined at all.
    fn refining(&self) -> bool {
        self.handoff.is_some() || !self.variants.is_empty()
    }

    /// `term` refined with the variants and the hand-over, each atom's
    /// model given by `model`.
    fn refine(&self, term: &Term, model: impl Fn(&AtomReport) -> Expr) -> Term {
        let variants: Vec<Atom> = (self.variants.iter())
            .map(|a| Atom {
                name: a.name.clone(),
                model: model(a),
                bytes: None,
            })
            .collect();
        let handoff = self.handoff.map(|h| Atom {
            name: HANDOFF.to_string(),
            model: model(h),
            bytes: None,
        });
        refine(term, handoff.as_ref(), &variants, machine_cores())
    }
}

/// The models of a configuration composed from the fitted atoms.
struct Models {
    /// The modular model: the plain operators.
    modular: Expr,
    /// Its leading terms.
    asymptotic: Expr,
    /// The refined design, where refined.
    refined_term: Option<Term>,
    /// Its model.
    refined: Option<Expr>,
    /// Its leading terms.
    refined_asymptotic: Option<Expr>,
}

/// A configuration's runs at one size that count: those undisturbed by
/// other load where there are some (a design with more threads than cores
/// disturbs itself: then all count), each at the reference speed.
struct Counted<'r> {
    /// Every run at the size.
    all: &'r [Metrics],
    /// The runs that count, by index.
    counted: Vec<usize>,
    /// The speed factor of each run.
    factors: Vec<f64>,
}

impl Counted<'_> {
    fn factor(&self, i: usize) -> f64 {
        self.factors.get(i).copied().unwrap_or(1.0)
    }

    /// Each counted run's time per element at the reference speed.
    fn per_element(&self) -> Vec<f64> {
        (self.counted.iter())
            .filter_map(|&i| Some(self.all[i].inter_departure_ns? * self.factor(i)))
            .collect()
    }

    /// The median of `f` over the counted runs.
    fn median(&self, f: impl Fn(&Metrics) -> Option<f64>) -> Option<f64> {
        let v: Vec<f64> = self
            .counted
            .iter()
            .filter_map(|&i| f(&self.all[i]))
            .collect();
        (!v.is_empty()).then(|| stats::median(&v))
    }

    /// The median over the counted rounds of each round's error of
    /// `pick` against its own run.
    fn paired(&self, rounds: &[Predictions], pick: fn(&Predictions) -> Option<f64>) -> Option<f64> {
        let errors: Vec<f64> = (self.counted.iter())
            .filter_map(|&i| {
                let m = self.all[i].inter_departure_ns? * self.factor(i);
                let p = pick(rounds.get(i)?)?;
                (m > 0.0 && p.is_finite()).then(|| relative_error(p, m))
            })
            .collect();
        (!errors.is_empty()).then(|| stats::median(&errors))
    }

    /// The median over the counted rounds of the prediction `pick`.
    fn over_rounds(
        &self,
        rounds: &[Predictions],
        pick: fn(&Predictions) -> Option<f64>,
    ) -> Option<f64> {
        let v: Vec<f64> = (self.counted.iter())
            .filter_map(|&i| pick(rounds.get(i)?))
            .filter(|t| t.is_finite())
            .collect();
        (!v.is_empty()).then(|| stats::median(&v))
    }
}

/// The relative error of `p` against `m`, where both are known and `m > 0`.
fn error_against(p: Option<f64>, m: Option<f64>) -> Option<f64> {
    match (p, m) {
        (Some(p), Some(m)) if m > 0.0 => Some(relative_error(p, m)),
        _ => None,
    }
}

impl<E: Send + 'static> Suite<E> {
    /// The comparison of `case`'s runs with the models composed from `fits`.
    pub(crate) fn row(
        &self,
        case: &Case,
        fits: &Fits,
        runs: CaseRuns,
        settings: &Settings,
    ) -> Result<Row, ValidationError> {
        let named: Vec<(String, Expr)> = (fits.atoms.iter())
            .map(|a| (a.name.clone(), a.model.clone()))
            .collect();
        let design = self.design(case, &named)?;
        let models = models(&design, fits);
        let mut points = Vec::new();
        let mut sizes = Vec::new();
        for (&x, all) in &runs.metrics {
            let counted = Counted {
                all,
                counted: counted(all, settings),
                factors: runs.factors.get(&x).cloned().unwrap_or_default(),
            };
            points.extend(counted.per_element().iter().map(|&t| (x as f64, t)));
            sizes.push(self.size_result(case, fits, &models, x, &counted, &runs)?);
        }
        let monolithic = settings.fitter.fit(&points).map(|f| f.into_model());
        let lead = |model: &Expr| lead_error(model, &monolithic, &points, settings);
        let (lead_error, lead_note) = lead(&models.asymptotic);
        let (lead_error_refined, lead_note_refined) = match &models.refined_asymptotic {
            Some(m) => lead(m),
            None => (None, None),
        };
        let from = |f: fn(&SizeResult) -> Option<f64>| -> Vec<f64> {
            (sizes.iter())
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(f)
                .collect()
        };
        let summary = |v: Vec<f64>| ErrorSummary::of(&v);
        Ok(Row {
            group: case.group.clone(),
            design: case.structure.clone(),
            acceptance: case.acceptance,
            threads: (runs.metrics.values().flatten())
                .map(|m| m.threads)
                .max()
                .unwrap_or(0),
            warnings: runs.warnings,
            monolithic: monolithic.as_ref().ok().map(|m| m.to_string()),
            monolithic_note: monolithic.as_ref().err().map(|e| e.to_string()),
            modular: models.modular.to_string(),
            modular_asymptotic: models.asymptotic.to_string(),
            lead_error,
            lead_note,
            refined_design: models.refined_term.map(|t| t.to_string()),
            refined_model: models.refined.map(|m| m.to_string()),
            lead_error_refined,
            lead_note_refined,
            errors_from: summary(from(|s| s.error)),
            errors_from_refined: summary(from(|s| s.error_refined)),
            errors_from_queueing: summary(from(|s| s.error_queueing)),
            errors_from_simulated: summary(from(|s| s.error_simulated)),
            errors_from_direct: summary(from(|s| s.error_direct)),
            errors_all: summary(sizes.iter().filter_map(|s| s.error).collect()),
            model_errors_from: summary(from(|s| s.model_error)),
            wait_share_max: from(|s| s.wait_share).into_iter().reduce(f64::max),
            steal_share_max: from(|s| s.steal_share).into_iter().reduce(f64::max),
            sizes,
        })
    }

    /// The runs of `case` at `x` against every prediction of them.
    fn size_result(
        &self,
        case: &Case,
        fits: &Fits,
        models: &Models,
        x: usize,
        counted: &Counted,
        runs: &CaseRuns,
    ) -> Result<SizeResult, ValidationError> {
        let per_element = counted.per_element();
        let measured = (!per_element.is_empty()).then(|| stats::median(&per_element));
        let measured_raw = counted.median(|m| m.inter_departure_ns);
        let at = [("x", x as f64)];
        let model_predicted = models.modular.eval(&at).ok();
        let model_predicted_refined = models.refined.as_ref().and_then(|m| m.eval(&at).ok());
        // The operators applied to the atoms' measured medians at x (atoms
        // measured at other sizes, such as the map of a mapReduce, by
        // their fitted model).
        let at_x = |a: &AtomReport| {
            (a.samples.iter())
                .find(|s| s.x == x)
                .map_or_else(|| a.model.clone(), |s| Expr::num(s.median_ns))
        };
        let local: Vec<(String, Expr)> = (fits.atoms.iter())
            .map(|a| (a.name.clone(), at_x(a)))
            .collect();
        let local_design = self.design(case, &local)?;
        let predicted = local_design.model().eval(&at).ok();
        let predicted_refined = (models.refined_term.is_some())
            .then(|| {
                let term = fits.refine(local_design.term(), at_x);
                Throughput::new().expr(&term).eval(&at).ok()
            })
            .flatten();
        // The same from the timings as measured.
        let raw_at_x = |i: usize, a: &AtomReport| {
            (fits.raw.get(i))
                .and_then(|r| r.get(&x))
                .filter(|t| !t.is_empty())
                .map_or_else(|| at_x(a), |t| Expr::num(stats::median(t)))
        };
        let raw_local: Vec<(String, Expr)> = (fits.atoms.iter().enumerate())
            .map(|(i, a)| (a.name.clone(), raw_at_x(i, a)))
            .collect();
        let predicted_raw = self.design(case, &raw_local)?.model().eval(&at).ok();
        let error = |p: Option<f64>| error_against(p, measured);
        // Each counted round against the atoms of that round; the
        // machine-aware predictions by their median over the counted
        // rounds, against the median run.
        let rounds = runs.predicted.get(&x).cloned().unwrap_or_default();
        let queueing = counted.over_rounds(&rounds, |p| p.queueing);
        let simulated = counted.over_rounds(&rounds, |p| p.simulated);
        let direct = counted.over_rounds(&rounds, |p| p.direct);
        let metrics: Vec<&Metrics> = counted.counted.iter().map(|&i| &counted.all[i]).collect();
        Ok(SizeResult {
            x,
            elements: metrics.first().map_or(0, |m| m.elements),
            measured_ns: measured,
            measured_raw_ns: measured_raw,
            latency_ns: counted.median(|m| m.latency_ns),
            makespan_ns: counted.median(|m| Some(m.makespan_ns)),
            max_in_flight: metrics.iter().map(|m| m.max_in_flight).max().unwrap_or(0),
            wait_share: counted.median(|m| m.wait_share()),
            steal_share: counted.median(|m| m.steal_share),
            repeated: runs.repeats.get(&x).copied().unwrap_or(0),
            counted: metrics.len(),
            predicted_ns: predicted,
            error: error(predicted),
            predicted_raw_ns: predicted_raw,
            error_raw: error_against(predicted_raw, measured_raw),
            speed_factors: counted.factors.clone(),
            predicted_refined_ns: predicted_refined,
            error_refined: error(predicted_refined),
            paired_error: counted.paired(&rounds, |p| p.plain),
            paired_error_refined: counted.paired(&rounds, |p| p.refined),
            predicted_queueing_ns: queueing,
            error_queueing: error(queueing),
            predicted_simulated_ns: simulated,
            error_simulated: error(simulated),
            predicted_direct_ns: direct,
            error_direct: error(direct),
            round_predictions: rounds,
            model_predicted_ns: model_predicted,
            model_error: error(model_predicted),
            model_predicted_refined_ns: model_predicted_refined,
            model_error_refined: error(model_predicted_refined),
            runs: counted.all.to_vec(),
        })
    }
}

/// The models of `design` (over the fitted atoms), plain and refined.
fn models(design: &Design, fits: &Fits) -> Models {
    let refined_term = fits
        .refining()
        .then(|| fits.refine(design.term(), |a| a.model.clone()));
    Models {
        modular: design.model(),
        asymptotic: design.model_asymptotic(),
        refined: (refined_term.as_ref()).map(|t| Throughput::new().expr(t).simplify()),
        refined_asymptotic: (refined_term.as_ref())
            .map(|t| Throughput::new().asymptotic().expr(t).simplify()),
        refined_term,
    }
}

/// The runs in `all` that count: the undisturbed ones, or all where every
/// one was disturbed.
fn counted(all: &[Metrics], settings: &Settings) -> Vec<usize> {
    let calm: Vec<usize> = (0..all.len())
        .filter(|&i| settings.disturbance(&all[i]) <= 1.0)
        .collect();
    if calm.is_empty() {
        (0..all.len()).collect()
    } else {
        calm
    }
}

/// The relative error of the leading coefficient of `model` against the
/// monolithic model fitted from `points`, and a note on how it was found.
/// As the paper did when Extra-P chose another class than the composed
/// model (§4.2.5: "we forced Extra-P to generate a linear model"): the
/// whole runs fitted again within the composed model's leading class, and
/// the coefficients compared.
fn lead_error<F: std::fmt::Display>(
    model: &Expr,
    monolithic: &Result<Expr, F>,
    points: &[(f64, f64)],
    settings: &Settings,
) -> (Option<f64>, Option<String>) {
    let forced = || -> Option<Expr> {
        let g = model.growth("x")?;
        let class = TermClass::new(
            Rational64::approximate_float(g.power())?,
            Rational64::approximate_float(g.log_power())?,
        );
        let fitter = settings.fitter.clone().space(HypothesisSpace::new([class]));
        fitter.fit(points).ok().map(|f| f.into_model())
    };
    let mono = match monolithic {
        Ok(mono) => mono,
        Err(e) => return (None, Some(e.to_string())),
    };
    match leading_coefficient_error(model, mono, "x") {
        Ok(e) => (Some(e), None),
        Err(e @ AccuracyError::DifferentClasses { .. }) => {
            match forced().map(|f| (leading_coefficient_error(model, &f, "x"), f)) {
                Some((Ok(err), f)) => (
                    Some(err),
                    Some(format!(
                        "{e}; the whole runs refitted within the composed model's class: {f:.4}"
                    )),
                ),
                _ => (None, Some(e.to_string())),
            }
        }
        Err(e) => (None, Some(e.to_string())),
    }
}

/// What the rounds collected for one configuration.
#[derive(Default)]
pub(crate) struct CaseRuns {
    /// Elements per run, by size (chosen in the first round).
    pub(crate) elements: BTreeMap<usize, usize>,
    /// The metrics of each round, by size.
    pub(crate) metrics: BTreeMap<usize, Vec<Metrics>>,
    /// The speed factor of each round's run ([`SpeedProbe::factor`](crate::probe::SpeedProbe::factor)), by
    /// size.
    pub(crate) factors: BTreeMap<usize, Vec<f64>>,
    /// Disturbed runs repeated, by size.
    pub(crate) repeats: BTreeMap<usize, usize>,
    /// The plain and the refined prediction of each round's run, composed
    /// from the atoms measured in the same round at the same size.
    pub(crate) predicted: BTreeMap<usize, Vec<Predictions>>,
    /// The executor's warnings, each once.
    pub(crate) warnings: Vec<String>,
}

impl CaseRuns {
    /// Adds the run at `x` and its round's predictions.
    pub(crate) fn add(&mut self, x: usize, run: Run, predicted: Predictions) {
        for w in run.warnings {
            let w = w.to_string();
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
        *self.repeats.entry(x).or_default() += run.repeated;
        self.metrics.entry(x).or_default().push(run.metrics);
        self.factors.entry(x).or_default().push(run.factor);
        self.predicted.entry(x).or_default().push(predicted);
    }
}
