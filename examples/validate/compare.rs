//! The comparison of one configuration: its runs against the models
//! composed from its atoms, pointwise and by the leading coefficients of
//! the monolithic model fitted from the whole runs ([`Row`]).

use crate::error::ValidationError;
use crate::refinements::{HANDOFF, refine};
use crate::report::{AtomReport, ErrorSummary, Predictions, Row, SizeResult};
use crate::settings::Settings;
use crate::suite::{Case, Suite, machine_cores};
use pattern_core::accuracy::{AccuracyError, leading_coefficient_error, relative_error};
use pattern_core::exec::Metrics;
use pattern_core::fit::{HypothesisSpace, Rational64, TermClass, stats};
use pattern_core::semantics::Throughput;
use pattern_core::{Atom, Expr};
use std::collections::BTreeMap;

impl<E: Send + 'static> Suite<E> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn row(
        &self,
        case: &Case,
        atoms: &[AtomReport],
        raw_samples: &[BTreeMap<usize, Vec<f64>>],
        handoff: Option<&AtomReport>,
        warm: &[AtomReport],
        collected: CaseRuns,
        settings: &Settings,
    ) -> Result<Row, ValidationError> {
        let cores = machine_cores();
        let CaseRuns {
            metrics: runs,
            factors,
            repeats,
            warnings,
            predicted: round_predictions,
            ..
        } = collected;
        let named: Vec<(String, Expr)> = atoms
            .iter()
            .map(|a| (a.name.clone(), a.model.clone()))
            .collect();
        let design = self.design(case, &named)?;
        let term = design.term();
        let modular = design.model();
        let asymptotic = design.model_asymptotic();
        let refined_term = (handoff.is_some() || !warm.is_empty()).then(|| {
            let warm: Vec<Atom> = warm
                .iter()
                .map(|a| Atom {
                    name: a.name.clone(),
                    model: a.model.clone(),
                })
                .collect();
            let handoff = handoff.map(|h| Atom {
                name: HANDOFF.to_string(),
                model: h.model.clone(),
            });
            refine(term, handoff.as_ref(), &warm, cores)
        });
        let refined_model = refined_term
            .as_ref()
            .map(|t| Throughput::new().expr(t).simplify());
        let refined_asymptotic = refined_term
            .as_ref()
            .map(|t| Throughput::new().asymptotic().expr(t).simplify());

        let mut points = Vec::new();
        let mut sizes = Vec::new();
        for (&x, all) in &runs {
            // Runs disturbed by other load do not count where undisturbed
            // ones exist (a design with more threads than cores disturbs
            // itself: then all count).
            let calm: Vec<usize> = (0..all.len())
                .filter(|&i| settings.disturbance(&all[i]) <= 1.0)
                .collect();
            let counted: Vec<usize> = if calm.is_empty() {
                (0..all.len()).collect()
            } else {
                calm
            };
            let metrics: Vec<&Metrics> = counted.iter().map(|&i| &all[i]).collect();
            let run_factors = factors.get(&x).cloned().unwrap_or_default();
            let factor = |i: usize| run_factors.get(i).copied().unwrap_or(1.0);
            // Each run's time per element at the reference speed.
            let per_element: Vec<f64> = counted
                .iter()
                .filter_map(|&i| Some(all[i].inter_departure_ns? * factor(i)))
                .collect();
            points.extend(per_element.iter().map(|&t| (x as f64, t)));
            let med = |f: &dyn Fn(&Metrics) -> Option<f64>| {
                let v: Vec<f64> = metrics.iter().copied().filter_map(f).collect();
                (!v.is_empty()).then(|| stats::median(&v))
            };
            let measured = (!per_element.is_empty()).then(|| stats::median(&per_element));
            let measured_raw = med(&|m| m.inter_departure_ns);
            let at = [("x", x as f64)];
            let model_predicted = modular.eval(&at).ok();
            let model_predicted_refined = refined_model.as_ref().and_then(|m| m.eval(&at).ok());
            // The operators applied to the atoms' measured medians at x
            // (atoms measured at other sizes, such as the map of a
            // mapReduce, by their fitted model).
            let at_x = |a: &AtomReport| {
                a.samples
                    .iter()
                    .find(|s| s.x == x)
                    .map_or_else(|| a.model.clone(), |s| Expr::num(s.median_ns))
            };
            let local: Vec<(String, Expr)> =
                atoms.iter().map(|a| (a.name.clone(), at_x(a))).collect();
            let local_design = self.design(case, &local)?;
            let predicted = local_design.model().eval(&at).ok();
            let predicted_refined = refined_term.is_some().then(|| {
                let warm: Vec<Atom> = warm
                    .iter()
                    .map(|a| Atom {
                        name: a.name.clone(),
                        model: at_x(a),
                    })
                    .collect();
                let handoff = handoff.map(|h| Atom {
                    name: HANDOFF.to_string(),
                    model: at_x(h),
                });
                Throughput::new()
                    .expr(&refine(local_design.term(), handoff.as_ref(), &warm, cores))
                    .eval(&at)
                    .ok()
            });
            let predicted_refined = predicted_refined.flatten();
            // The same from the timings as measured.
            let raw_at_x = |i: usize, a: &AtomReport| {
                raw_samples
                    .get(i)
                    .and_then(|r| r.get(&x))
                    .filter(|t| !t.is_empty())
                    .map_or_else(|| at_x(a), |t| Expr::num(stats::median(t)))
            };
            let raw_local: Vec<(String, Expr)> = atoms
                .iter()
                .enumerate()
                .map(|(i, a)| (a.name.clone(), raw_at_x(i, a)))
                .collect();
            let predicted_raw = self.design(case, &raw_local)?.model().eval(&at).ok();
            let error_against = |p: Option<f64>, m: Option<f64>| match (p, m) {
                (Some(p), Some(m)) if m > 0.0 => Some(relative_error(p, m)),
                _ => None,
            };
            let error = |p: Option<f64>| error_against(p, measured);
            // Each counted round against the atoms of that round.
            let rounds = round_predictions.get(&x).cloned().unwrap_or_default();
            let paired = |pick: fn(&Predictions) -> Option<f64>| {
                let errors: Vec<f64> = counted
                    .iter()
                    .filter_map(|&i| {
                        let m = all[i].inter_departure_ns? * factor(i);
                        let p = pick(rounds.get(i)?)?;
                        (m > 0.0 && p.is_finite()).then(|| relative_error(p, m))
                    })
                    .collect();
                (!errors.is_empty()).then(|| stats::median(&errors))
            };
            // The machine-aware predictions: the median over the counted
            // rounds, against the median run.
            let over_rounds = |pick: fn(&Predictions) -> Option<f64>| {
                let v: Vec<f64> = counted
                    .iter()
                    .filter_map(|&i| pick(rounds.get(i)?))
                    .filter(|t| t.is_finite())
                    .collect();
                (!v.is_empty()).then(|| stats::median(&v))
            };
            let queueing = over_rounds(|p| p.queueing);
            let simulated = over_rounds(|p| p.simulated);
            let direct = over_rounds(|p| p.direct);
            sizes.push(SizeResult {
                x,
                elements: metrics.first().map_or(0, |m| m.elements),
                measured_ns: measured,
                measured_raw_ns: measured_raw,
                latency_ns: med(&|m| m.latency_ns),
                makespan_ns: med(&|m| Some(m.makespan_ns)),
                max_in_flight: metrics.iter().map(|m| m.max_in_flight).max().unwrap_or(0),
                wait_share: med(&|m| m.wait_share()),
                steal_share: med(&|m| m.steal_share),
                repeated: repeats.get(&x).copied().unwrap_or(0),
                counted: metrics.len(),
                predicted_ns: predicted,
                error: error(predicted),
                predicted_raw_ns: predicted_raw,
                error_raw: error_against(predicted_raw, measured_raw),
                speed_factors: run_factors.clone(),
                predicted_refined_ns: predicted_refined,
                error_refined: error(predicted_refined),
                paired_error: paired(|p| p.plain),
                paired_error_refined: paired(|p| p.refined),
                predicted_queueing_ns: queueing,
                error_queueing: error(queueing),
                predicted_simulated_ns: simulated,
                error_simulated: error(simulated),
                predicted_direct_ns: direct,
                error_direct: error(direct),
                round_predictions: rounds.clone(),
                model_predicted_ns: model_predicted,
                model_error: error(model_predicted),
                model_predicted_refined_ns: model_predicted_refined,
                model_error_refined: error(model_predicted_refined),
                runs: all.clone(),
            });
        }
        let (monolithic, monolithic_note) = match settings.fitter.fit(&points) {
            Ok(fit) => (Some(fit.into_model()), None),
            Err(e) => (None, Some(e.to_string())),
        };
        // As the paper did when Extra-P chose another class than the
        // composed model (§4.2.5: "we forced Extra-P to generate a linear
        // model"): the whole runs fitted again within the composed model's
        // leading class, and the coefficients compared.
        let forced = |model: &Expr| -> Option<Expr> {
            let g = model.growth("x")?;
            let class = TermClass::new(
                Rational64::approximate_float(g.power())?,
                Rational64::approximate_float(g.log_power())?,
            );
            let fitter = settings.fitter.clone().space(HypothesisSpace::new([class]));
            fitter.fit(&points).ok().map(|f| f.into_model())
        };
        let lead = |model: &Expr| match &monolithic {
            Some(mono) => match leading_coefficient_error(model, mono, "x") {
                Ok(e) => (Some(e), None),
                Err(e @ AccuracyError::DifferentClasses { .. }) => {
                    match forced(model).map(|f| (leading_coefficient_error(model, &f, "x"), f)) {
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
            },
            None => (None, monolithic_note.clone()),
        };
        let (lead_error, lead_note) = lead(&asymptotic);
        let (lead_error_refined, lead_note_refined) = match &refined_asymptotic {
            Some(m) => lead(m),
            None => (None, None),
        };
        let accepted = |f: fn(&SizeResult) -> Option<f64>| -> Vec<f64> {
            sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(f)
                .collect()
        };
        let summary = |v: Vec<f64>| ErrorSummary::of(&v);
        Ok(Row {
            group: case.group.clone(),
            design: case.structure.clone(),
            acceptance: case.acceptance,
            threads: runs
                .values()
                .flatten()
                .map(|m| m.threads)
                .max()
                .unwrap_or(0),
            warnings,
            monolithic: monolithic.map(|m| m.to_string()),
            monolithic_note,
            modular: modular.to_string(),
            modular_asymptotic: asymptotic.to_string(),
            lead_error,
            lead_note,
            refined_design: refined_term.map(|t| t.to_string()),
            refined_model: refined_model.map(|m| m.to_string()),
            lead_error_refined,
            lead_note_refined,
            errors_from: summary(accepted(|s| s.error)),
            errors_from_refined: summary(accepted(|s| s.error_refined)),
            errors_from_queueing: summary(accepted(|s| s.error_queueing)),
            errors_from_simulated: summary(accepted(|s| s.error_simulated)),
            errors_from_direct: summary(accepted(|s| s.error_direct)),
            errors_all: summary(sizes.iter().filter_map(|s| s.error).collect()),
            model_errors_from: summary(accepted(|s| s.model_error)),
            wait_share_max: sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(|s| s.wait_share)
                .reduce(f64::max),
            steal_share_max: sizes
                .iter()
                .filter(|s| s.x >= settings.acceptance_from)
                .filter_map(|s| s.steal_share)
                .reduce(f64::max),
            sizes,
        })
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
