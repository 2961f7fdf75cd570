//! `pattern fit DATA`: Extra-P's modeler on the command line. Reads an
//! Extra-P text or JSON file and prints, for each region and metric, what
//! Extra-P's command line prints (the measurements' means and medians, the
//! model, its RSS and adjusted R²) and more: the growth class, SMAPE, the
//! cross-validated errors, and the models of other classes that fit within
//! the noise.

use super::error::{CliError, excerpt};
use super::files::read_text;
use super::output::{Report, Text, json_num, num};
use pattern_core::fit::extrap_io::{Experiment, Series, is_json_path};
use pattern_core::fit::{Aggregate, Fit, FitError, Fitter, HypothesisSpace, stats};
use serde_json::{Value, json};
use std::path::Path;
use std::path::PathBuf;

/// The options of `pattern fit`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Files ending in .json or .jsonl (in any case), and any input that starts with `{` \
    (Talpas files, standard input `-`), are read as Extra-P's JSON formats (JSON, legacy JSON, \
    JSON Lines, Talpas); others as its text format.\n\nExample:\n  pattern fit examples/data/kernels.txt"
)]
pub struct FitArgs {
    /// The measurements: an Extra-P text, JSON, JSON Lines or Talpas file.
    pub data: PathBuf,
    /// Only the series of this region (Extra-P's call path).
    #[arg(long)]
    pub region: Option<String>,
    /// Only the series of this metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// Combine repetitions by their mean (Extra-P's default) instead of the
    /// median.
    #[arg(long)]
    pub mean: bool,
    /// Extra-P's own choices where they change results: absolute least
    /// squares, the mean, no noise test.
    #[arg(long, conflicts_with = "mean")]
    pub extrap_compatible: bool,
    /// Fit series with negative values (differences, offsets); times and
    /// counts cannot be negative, so they are refused by default.
    #[arg(long)]
    pub allow_negative: bool,
    /// Search decaying models too: every class mirrored to negative
    /// exponents (`x^(-1/2)`, `log2(x)^(-1)`), as Extra-P's
    /// `allow_negative_exponents`.
    #[arg(long)]
    pub negative_exponents: bool,
}

/// The experiment in `path` (`-`: standard input), its errors with the
/// line at fault.
fn read_experiment(path: &Path) -> Result<Experiment, CliError> {
    let text = read_text(path)?;
    let read = if is_json_path(path) {
        Experiment::read_json(&text)
    } else {
        Experiment::read_any(&text)
    };
    read.map_err(|source| {
        let shown = source
            .position()
            .map(|(line, column)| excerpt(&text, line, column))
            .unwrap_or_default();
        CliError::Extrap {
            path: path.display().to_string(),
            source,
            excerpt: shown,
        }
    })
}

/// A series' fit error as the command line says it: the flag that allows
/// negative values named.
fn fit_error(e: &FitError) -> String {
    match e {
        FitError::NegativeValue { .. } => format!("{e}; give --allow-negative to fit them"),
        other => other.to_string(),
    }
}

/// Runs `pattern fit`.
pub fn run(args: &FitArgs) -> Result<Report, CliError> {
    let path = args.data.display().to_string();
    let experiment = read_experiment(&args.data)?;
    let chosen: Vec<&Series> = experiment
        .series
        .iter()
        .filter(|s| args.region.as_ref().is_none_or(|r| *r == s.region))
        .filter(|s| args.metric.as_ref().is_none_or(|m| *m == s.metric))
        .collect();
    if chosen.is_empty() {
        let known: Vec<String> = experiment
            .series
            .iter()
            .map(|s| format!("{}/{}", s.region, s.metric))
            .collect();
        let what = match (&args.region, &args.metric) {
            (Some(r), Some(m)) => format!("region `{r}` and metric `{m}`"),
            (Some(r), None) => format!("region `{r}`"),
            (None, Some(m)) => format!("metric `{m}`"),
            (None, None) => "any region".to_string(),
        };
        return Err(CliError::NoSeries {
            path,
            what,
            known: known.join(", "),
        });
    }
    let fitter = if args.extrap_compatible {
        Fitter::extrap_compatible()
    } else if args.mean {
        Fitter::default().aggregate(Aggregate::Mean)
    } else {
        Fitter::default()
    }
    .allow_negative_values(args.allow_negative);
    let fitter = if args.negative_exponents {
        fitter.space(HypothesisSpace::extrap().with_negative_exponents())
    } else {
        fitter
    };
    let mut text = Text::default();
    let mut series_json = Vec::new();
    let mut failed = 0;
    let mut region: Option<&str> = None;
    for series in &chosen {
        if region != Some(series.region.as_str()) {
            text.line(format!("region: {}", series.region));
            region = Some(series.region.as_str());
        }
        text.line(format!("  metric: {}", series.metric));
        let points = measurements(&mut text, &experiment.parameters, series);
        let result = series.fit(&fitter, &experiment.parameters);
        let fitted = match &result {
            Ok(fit) => {
                report_fit(&mut text, fit, &experiment.parameters);
                fit_json(fit)
            }
            Err(e) => {
                failed += 1;
                let message = fit_error(e);
                text.line(format!("    no model: {message}"));
                json!({"error": message})
            }
        };
        series_json.push(json!({
            "region": series.region,
            "metric": series.metric,
            "measurements": points,
            "fit": fitted,
        }));
    }
    let json = json!({
        "file": path,
        "parameters": experiment.parameters,
        "aggregate": if args.mean || args.extrap_compatible { "mean" } else { "median" },
        "negative_exponents": args.negative_exponents,
        "series": series_json,
    });
    let report = Report { text: text.0, json };
    if failed > 0 {
        // The error carries the report: what could be fitted is shown.
        return Err(CliError::FitFailed {
            failed,
            total: chosen.len(),
            report: Box::new(report),
        });
    }
    Ok(report)
}

/// Each measurement point with the mean and median of its repetitions, as
/// Extra-P prints them; the points as JSON.
fn measurements(text: &mut Text, parameters: &[String], series: &Series) -> Vec<Value> {
    let mut out = Vec::new();
    for p in &series.points {
        let coordinate: Vec<String> = parameters
            .iter()
            .zip(&p.coordinate)
            .map(|(name, v)| format!("{name} = {}", num(*v)))
            .collect();
        let (mean, median) = (stats::mean(&p.values), stats::median(&p.values));
        text.line(format!(
            "    ({}): mean {}, median {} ({} values)",
            coordinate.join(", "),
            num(mean),
            num(median),
            p.values.len()
        ));
        out.push(json!({
            "point": p.coordinate.iter().map(|v| json_num(*v)).collect::<Vec<_>>(),
            "mean": json_num(mean),
            "median": json_num(median),
            "values": p.values.len(),
        }));
    }
    out
}

fn class(fit: &Fit, parameters: &[String]) -> String {
    match (fit.class(), parameters) {
        (Some(c), [name]) => c.growth(name).to_string(),
        _ => {
            let classes: Vec<String> = parameters
                .iter()
                .filter_map(|p| fit.model().growth(p).map(|g| format!("{g} in {p}")))
                .collect();
            classes.join(", ")
        }
    }
}

fn report_fit(text: &mut Text, fit: &Fit, parameters: &[String]) {
    let s = fit.stats();
    text.row(4, 20, "model", format!("{:.6}", fit.model()));
    text.row(4, 20, "growth", class(fit, parameters));
    text.row(4, 20, "RSS", num(s.rss));
    text.row(4, 20, "adjusted R²", num(s.adjusted_r2));
    text.row(4, 20, "SMAPE", format!("{} %", num(s.smape)));
    text.row(4, 20, "LOO SMAPE", format!("{} %", num(s.cv_smape)));
    text.row(4, 20, "hypotheses", fit.hypotheses_evaluated());
    for a in fit.alternatives() {
        text.line(format!("    also fits: {a}"));
    }
}

fn fit_json(fit: &Fit) -> Value {
    let s = fit.stats();
    json!({
        "model": format!("{:#}", fit.model()),
        "class": class(fit, fit.params()),
        "constant": json_num(fit.constant()),
        "leading_coefficient": fit.leading_coefficient().map(json_num),
        "points": s.points,
        "rss": json_num(s.rss),
        "adjusted_r2": json_num(s.adjusted_r2),
        "smape": json_num(s.smape),
        "cv_rss": json_num(s.cv_rss),
        "cv_smape": json_num(s.cv_smape),
        "hypotheses": fit.hypotheses_evaluated(),
        "alternatives": fit.alternatives().iter().map(|a| json!({
            "model": format!("{:#}", a.model),
            "cv_rss_ratio": json_num(a.cv_rss_ratio),
            "divergence_at_4x": json_num(a.divergence_at_4x),
            "divergence_at_16x": json_num(a.divergence_at_16x),
        })).collect::<Vec<_>>(),
    })
}
