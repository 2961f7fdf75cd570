//! Fitted models as Extra-P saves them: a model set (Extra-P's "modeler")
//! holding, per call path and metric, a hypothesis (its function and the
//! costs Extra-P shows beside it).

use crate::fit::{Aggregate, Fit, FittedTerm, TermClass, stats};
use serde_json::{Map, Value, json};

/// Models to save with an experiment: what Extra-P calls a model set.
#[derive(Clone, Debug)]
pub struct ModelSet<'a> {
    /// The name Extra-P's GUI lists the set under.
    pub name: String,
    /// What the models were fitted to at each point: the median or the mean
    /// of the repetitions (the file records it, and the costs use it).
    pub measure: Aggregate,
    /// `(region, metric, fit)`: one model per series.
    pub models: Vec<(&'a str, &'a str, &'a Fit)>,
}

/// Extra-P's name of a measure.
pub(super) fn measure_name(measure: Aggregate) -> &'static str {
    match measure {
        Aggregate::Median => "MEDIAN",
        Aggregate::Mean => "MEAN",
    }
}

/// The model set as Extra-P's JSON; `actual(region, metric)` gives the
/// series' points as `(coordinate, measured value)` for the costs.
pub(super) fn model_set_json(
    set: &ModelSet<'_>,
    parameters: &[String],
    actual: impl Fn(&str, &str) -> Vec<(Vec<f64>, f64)>,
) -> Result<Value, String> {
    let measure = measure_name(set.measure);
    let mut models = Map::new();
    for (region, metric, fit) in &set.models {
        let function = function_json(fit, parameters)?;
        let kind = if fit.terms().is_empty() {
            "ConstantHypothesis"
        } else if parameters.len() == 1 {
            "SingleParameterHypothesis"
        } else {
            "MultiParameterHypothesis"
        };
        let mut hypothesis = costs(fit, parameters, &actual(region, metric));
        hypothesis.insert("function".into(), function);
        hypothesis.insert(
            "_use_median".into(),
            json!(set.measure == Aggregate::Median),
        );
        hypothesis.insert("_use_measure".into(), json!(measure));
        hypothesis.insert("_costs_are_calculated".into(), json!(true));
        hypothesis.insert("$type".into(), json!(kind));
        let by_metric = models
            .entry(region.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(by_metric) = by_metric {
            by_metric.insert(
                metric.to_string(),
                json!({"hypothesis": hypothesis, "annotations": []}),
            );
        }
    }
    let modeler = if parameters.len() == 1 {
        "SingleParameterModeler"
    } else {
        "MultiParameterModeler"
    };
    Ok(json!({
        "name": set.name,
        "modeler": {
            "use_median": set.measure == Aggregate::Median,
            "use_measure": measure,
            "$type": modeler,
        },
        "models": models,
    }))
}

/// A fit's function: its constant and terms, each a product of simple
/// terms (`x^(a/b)` as a fraction, `log2(x)^c` as a float).
fn function_json(fit: &Fit, parameters: &[String]) -> Result<Value, String> {
    if fit.terms().is_empty() {
        return Ok(json!({"constant_coefficient": fit.constant(), "$type": "ConstantFunction"}));
    }
    let single = parameters.len() == 1;
    let mut terms = Vec::new();
    for term in fit.terms() {
        if single {
            let [(_, class)] = term.factors.as_slice() else {
                return Err(format!(
                    "a term of {} factors in one parameter",
                    term.factors.len()
                ));
            };
            terms.push(
                json!({"coefficient": term.coefficient, "simple_terms": simple_terms(*class)}),
            );
            continue;
        }
        let mut pairs = Map::new();
        for (name, class) in &term.factors {
            let index = parameters
                .iter()
                .position(|p| p == name)
                .ok_or_else(|| format!("the model's parameter `{name}` is not the experiment's"))?;
            pairs.insert(
                index.to_string(),
                json!({"coefficient": 1.0, "simple_terms": simple_terms(*class)}),
            );
        }
        terms.push(json!({"coefficient": term.coefficient, "parameter_term_pairs": pairs}));
    }
    let kind = if single {
        "SingleParameterFunction"
    } else {
        "MultiParameterFunction"
    };
    Ok(json!({
        "constant_coefficient": fit.constant(),
        "compound_terms": terms,
        "$type": kind,
    }))
}

fn simple_terms(class: TermClass) -> Vec<Value> {
    let mut simple = Vec::new();
    let power = class.power();
    if *power.numer() != 0 {
        let exponent = if *power.denom() == 1 {
            power.numer().to_string()
        } else {
            format!("{}/{}", power.numer(), power.denom())
        };
        simple.push(json!({"term_type": "polynomial", "exponent": exponent}));
    }
    let log = class.log();
    if *log.numer() != 0 {
        let exponent = *log.numer() as f64 / *log.denom() as f64;
        simple.push(json!({"term_type": "logarithm", "exponent": exponent}));
    }
    simple
}

/// The model's value at a coordinate (parameters in the experiment's order).
fn evaluate(fit: &Fit, parameters: &[String], coordinate: &[f64]) -> f64 {
    let term = |t: &FittedTerm| {
        t.factors
            .iter()
            .fold(t.coefficient, |product, (name, class)| {
                let x = parameters
                    .iter()
                    .position(|p| p == name)
                    .and_then(|i| coordinate.get(i))
                    .copied()
                    .unwrap_or(f64::NAN);
                product * class.eval(x)
            })
    };
    fit.constant() + fit.terms().iter().map(term).sum::<f64>()
}

/// Extra-P's costs of a hypothesis over the measured values: RSS, rRSS,
/// nRSS, SMAPE (%), adjusted R² and the mean relative error, as its
/// `compute_cost`. A cost that is not finite (adjusted R² with no degree
/// of freedom left) is left out: JSON has no NaN, and Extra-P reads a
/// missing cost as not computed.
fn costs(fit: &Fit, parameters: &[String], points: &[(Vec<f64>, f64)]) -> Map<String, Value> {
    let actual: Vec<f64> = points.iter().map(|(_, y)| *y).collect();
    let predicted: Vec<f64> = points
        .iter()
        .map(|(c, _)| evaluate(fit, parameters, c))
        .collect();
    let pairs = || predicted.iter().zip(&actual);
    let rss: f64 = pairs().map(|(p, a)| (p - a).powi(2)).sum();
    let mean = stats::mean(&actual);
    let relative: Vec<f64> = pairs().map(|(p, a)| (p - a) / a).collect();
    let smape: Vec<f64> = pairs()
        .filter(|(p, a)| p.abs() + a.abs() != 0.0)
        .map(|(p, a)| 2.0 * (p - a).abs() / (p.abs() + a.abs()))
        .collect();
    let tss: f64 = actual.iter().map(|a| (a - mean).powi(2)).sum();
    let n = actual.len() as f64;
    let freedom = n - fit.terms().len() as f64 - 1.0;
    let ar2 = if fit.terms().is_empty() {
        1.0
    } else {
        1.0 - (rss / tss) * (n - 1.0) / freedom
    };
    let mut costs = Map::new();
    for (name, value) in [
        ("RSS", rss),
        ("rRSS", relative.iter().map(|r| r * r).sum()),
        ("nRSS", rss.sqrt() / mean),
        ("SMAPE", 100.0 * stats::mean(&smape)),
        ("AR2", ar2),
        (
            "RE",
            stats::mean(&relative.iter().map(|r| r.abs()).collect::<Vec<_>>()),
        ),
    ] {
        if value.is_finite() {
            costs.insert(name.into(), json!(value));
        }
    }
    costs
}
