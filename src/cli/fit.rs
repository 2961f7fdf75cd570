//! `pattern fit DATA`: Extra-P's modeler on the command line. Reads an
//! Extra-P text or JSON file and prints, for each region and metric, what
//! Extra-P's command line prints (the measurements' means and medians, the
//! model, its RSS and adjusted R²) and more: the growth class, SMAPE, the
//! cross-validated errors, and the models of other classes that fit within
//! the noise.

use super::args::{self, Point};
use super::error::{CliError, excerpt};
use super::files::read_text;
use super::output::{Report, Text, json_num, num};
use pattern_core::fit::extrap_io::{
    CubeOptions, Experiment, ModelSet, Scaling, Series, is_extrap3, is_json_path,
};
use pattern_core::fit::{Aggregate, Fit, FitError, Fitter, HypothesisSpace, Segmentation, stats};
use serde_json::{Value, json};
use std::path::Path;
use std::path::PathBuf;

/// The options of `pattern fit`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Files ending in .json or .jsonl (in any case), and any input that starts with `{` \
    (Talpas files, standard input `-`), are read as Extra-P's JSON formats (JSON, legacy JSON, \
    JSON Lines, Talpas); zip files as Extra-P's experiment files (`.extra-p`), Extra-P 3's \
    binary experiment files by their first bytes; a directory as a \
    CUBE experiment (as Extra-P's --cube: the parameters in the runs' directory names, every \
    metric or --metric's, every call path or --region's); others as its text format.\n\nExample:\n  pattern fit examples/data/kernels.txt"
)]
pub struct FitArgs {
    /// The measurements: an Extra-P text, JSON, JSON Lines, Talpas or
    /// experiment (`.extra-p`, or Extra-P 3's) file, or a CUBE experiment (a directory of
    /// Score-P runs named by their parameters, `run.p64.n1000.r1`, each
    /// with its `profile.cubex`).
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
    /// Evaluate each fitted model at this point (`p=65536`; every
    /// parameter of the file, comma-separated), with how far beyond the
    /// sizes measured it lies. Repeatable.
    #[arg(long, value_name = "POINT", value_parser = args::point)]
    pub at: Vec<Point>,
    /// Save the series fitted and their models as an Extra-P experiment
    /// file, which Extra-P's GUI opens (`.extra-p` is added when the name
    /// has no extension, as Extra-P does).
    #[arg(long, value_name = "PATH")]
    pub save_experiment: Option<PathBuf>,
    /// How a CUBE run's locations (processes, threads) make the point's
    /// values: each a value (weak, Extra-P's default), those not 0
    /// (weak-threaded), or their sum (strong). CUBE directories only.
    #[arg(long, value_enum)]
    pub scaling: Option<CubeScaling>,
    /// Inclusive values of a CUBE experiment's call paths (with their
    /// callees) instead of exclusive ones. CUBE directories only.
    #[arg(long)]
    pub inclusive: bool,
}

/// Extra-P's scaling types of CUBE runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CubeScaling {
    /// Every location's value is a value at the point.
    Weak,
    /// As weak, without the locations of value 0.
    WeakThreaded,
    /// A run's values summed over its locations.
    Strong,
}

/// The first bytes of `path` (fewer if it is shorter; none for `-`), to
/// tell binary formats by.
fn first_bytes(path: &Path) -> Vec<u8> {
    let mut head = Vec::new();
    if path.as_os_str() != "-"
        && let Ok(f) = std::fs::File::open(path)
    {
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(f, 32), &mut head);
    }
    head
}

/// A CUBE experiment in the directory `path`, with what it left out.
fn read_cube(path: &Path, args: &FitArgs) -> Result<(Experiment, Vec<String>), CliError> {
    let options = CubeOptions {
        metrics: args.metric.iter().cloned().collect(),
        scaling: match args.scaling.unwrap_or(CubeScaling::Weak) {
            CubeScaling::Weak => Scaling::Weak,
            CubeScaling::WeakThreaded => Scaling::WeakThreaded,
            CubeScaling::Strong => Scaling::Strong,
        },
        inclusive: args.inclusive,
    };
    let read = Experiment::read_cube(path, &options).map_err(|source| CliError::Extrap {
        path: path.display().to_string(),
        source,
        excerpt: String::new(),
    })?;
    Ok((read.experiment, read.skipped))
}

/// The experiment in `path` (`-`: standard input), its errors with the
/// line at fault, and notes on what was left out; `measure` stands for
/// the repetitions of an experiment file that kept only their mean and
/// median.
fn read_experiment(
    path: &Path,
    args: &FitArgs,
    measure: Aggregate,
) -> Result<(Experiment, Vec<String>), CliError> {
    if path.is_dir() {
        return read_cube(path, args);
    }
    if args.scaling.is_some() || args.inclusive {
        return Err(CliError::Invalid(format!(
            "--scaling and --inclusive are for CUBE experiments (a directory of runs); `{}` is not a directory",
            path.display()
        )));
    }
    let head = first_bytes(path);
    let binary = if head.starts_with(b"PK\x03\x04") {
        Some(Experiment::read_extrap_file(path, measure))
    } else if is_extrap3(&head) {
        Some(Experiment::read_extrap3_file(path, measure))
    } else {
        None
    };
    if let Some(read) = binary {
        return read
            .map(|e| (e, Vec::new()))
            .map_err(|source| CliError::Extrap {
                path: path.display().to_string(),
                source,
                excerpt: String::new(),
            });
    }
    let text = read_text(path)?;
    let read = if is_json_path(path) {
        Experiment::read_json(&text)
    } else {
        Experiment::read_any(&text)
    };
    read.map(|e| (e, Vec::new())).map_err(|source| {
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
    let measure = if args.mean || args.extrap_compatible {
        Aggregate::Mean
    } else {
        Aggregate::Median
    };
    let (experiment, notes) = read_experiment(&args.data, args, measure)?;
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
    check_points(&args.at, &experiment.parameters)?;
    let fitter = if args.extrap_compatible {
        Fitter::extrap_compatible()
    } else {
        Fitter::default().aggregate(measure)
    }
    .allow_negative_values(args.allow_negative);
    let fitter = if args.negative_exponents {
        fitter.space(HypothesisSpace::extrap().with_negative_exponents())
    } else {
        fitter
    };
    let mut text = Text::default();
    for note in &notes {
        text.line(format!("note: {note}"));
    }
    let mut series_json = Vec::new();
    let mut failed = 0;
    let mut fits = Vec::new();
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
                let mut json = fit_json(fit);
                json["at"] = at_points(&mut text, fit, &args.at)?;
                json["segments"] = segments(&mut text, &fitter, series, fit)?;
                fits.push((*series, fit.clone()));
                json
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
        "aggregate": if measure == Aggregate::Mean { "mean" } else { "median" },
        "negative_exponents": args.negative_exponents,
        "notes": notes,
        "series": series_json,
    });
    if let Some(out) = &args.save_experiment {
        let saved = save_experiment(out, &experiment.parameters, &chosen, &fits, measure)?;
        text.line(format!("saved: {saved} (open it in Extra-P's GUI)"));
    }
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

/// Writes the series chosen and the models fitted to them as an Extra-P
/// experiment file; the path written (`.extra-p` added to a name without
/// extension).
fn save_experiment(
    out: &Path,
    parameters: &[String],
    chosen: &[&Series],
    fits: &[(&Series, Fit)],
    measure: Aggregate,
) -> Result<String, CliError> {
    let out = if out.extension().is_none() {
        out.with_extension("extra-p")
    } else {
        out.to_path_buf()
    };
    let experiment = Experiment {
        parameters: parameters.to_vec(),
        series: chosen.iter().map(|s| (*s).clone()).collect(),
    };
    let set = ModelSet {
        name: "pattern fit".into(),
        measure,
        models: fits
            .iter()
            .map(|(s, fit)| (s.region.as_str(), s.metric.as_str(), fit))
            .collect(),
    };
    let shown = out.display().to_string();
    experiment
        .write_extrap_file(&out, Some(&set))
        .map_err(|source| CliError::Extrap {
            path: shown.clone(),
            source,
            excerpt: String::new(),
        })?;
    Ok(shown)
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
    for o in fit.outliers() {
        let at: Vec<String> = parameters
            .iter()
            .zip(&o.coordinate)
            .map(|(name, v)| format!("{name} = {}", num(*v)))
            .collect();
        text.line(format!(
            "    left out: {}, value {} where the other points' model gives {} ({}x; they fit it within {} %)",
            at.join(", "),
            num(o.value),
            num(o.expected),
            num(o.ratio()),
            num(100.0 * o.others_scatter)
        ));
    }
    if let Some(a) = fit.set_aside() {
        text.line(format!(
            "    set aside: {:.6}, which scored better but is negative from {} = {} ({}x the largest measured); this model fits within the noise of it (cross-validated RSS ×{:.2})",
            a.model,
            parameters[0],
            num(a.negative_from),
            num(a.negative_from / fit.extrapolation().map_or(f64::NAN, |e| e.largest)),
            a.cv_rss_ratio
        ));
    }
    if let Some(e) = fit.extrapolation() {
        let beyond = |x: f64| {
            format!(
                "{} = {} ({}x the largest measured)",
                parameters[0],
                num(x),
                num(x / e.largest)
            )
        };
        if let Some(x) = e.negative_from {
            text.row(4, 20, "negative from", beyond(x));
        }
        if let Some(x) = e.growth_turns_at {
            text.row(4, 20, "growth turns at", beyond(x));
        }
    }
}

/// The relative residual beyond which a fit is searched for a change of
/// function: a model that fits every point within 5 % leaves none to find.
const SEGMENT_GATE: f64 = 0.05;

/// Two models and the change between them, where one model leaves a point
/// more than [`SEGMENT_GATE`] off and the criterion of
/// [`Fitter::fit_segmented`] prefers two; `null` otherwise.
fn segments(
    text: &mut Text,
    fitter: &Fitter,
    series: &Series,
    fit: &Fit,
) -> Result<Value, CliError> {
    let [param] = fit.params() else {
        return Ok(Value::Null);
    };
    let off = fit.points().iter().any(|(c, y)| {
        let m = fit
            .model()
            .eval(&[(param.as_str(), c[0])])
            .unwrap_or(f64::NAN);
        // A model that cannot be evaluated there (NaN) leaves it off too.
        (y - m).abs() > SEGMENT_GATE * y.abs() || m.is_nan()
    });
    if !off {
        return Ok(Value::Null);
    }
    let found = fitter.clone().var(param).fit_segmented(&series.points());
    let Ok(Segmentation::Two(s)) = found else {
        return Ok(Value::Null);
    };
    text.line(format!(
        "    segmented: {param} ≤ {}: {:.6}; {param} ≥ {}: {:.6} (BIC {} against {} for one model)",
        num(s.last_of_first),
        s.first.model(),
        num(s.first_of_second),
        s.second.model(),
        num(s.bic.1),
        num(s.bic.0)
    ));
    text.row(4, 20, "as one model", format!("{:.6}", s.model()));
    Ok(json!({
        "last_of_first": json_num(s.last_of_first),
        "first_of_second": json_num(s.first_of_second),
        "first": format!("{:#}", s.first.model()),
        "second": format!("{:#}", s.second.model()),
        "model": format!("{:#}", s.model()),
        "bic": [json_num(s.bic.0), json_num(s.bic.1)],
    }))
}

/// Refuses points that bind a name the file has no parameter for, or
/// leave one of its parameters unbound.
fn check_points(points: &[Point], parameters: &[String]) -> Result<(), CliError> {
    for point in points {
        for (name, _) in &point.0 {
            if !parameters.contains(name) {
                return Err(CliError::Invalid(format!(
                    "--at {point}: the file has no parameter `{name}` (its parameters: {})",
                    parameters.join(", ")
                )));
            }
        }
        if let Some(missing) = parameters
            .iter()
            .find(|p| !point.0.iter().any(|(n, _)| n == *p))
        {
            return Err(CliError::Invalid(format!(
                "--at {point}: give a value for every parameter; `{missing}` has none"
            )));
        }
    }
    Ok(())
}

/// The model at each point, with how far beyond the measured range each
/// parameter lies (its value over the largest measured; below 1 within or
/// under the range).
fn at_points(text: &mut Text, fit: &Fit, points: &[Point]) -> Result<Value, CliError> {
    let mut out = Vec::new();
    for point in points {
        let value = fit
            .model()
            .eval(&point.bindings())
            .map_err(|source| CliError::Eval {
                what: "the fitted model".into(),
                at: point.to_string(),
                source,
            })?;
        let mut beyond = serde_json::Map::new();
        let mut notes = Vec::new();
        for (i, name) in fit.params().iter().enumerate() {
            let largest = fit
                .points()
                .iter()
                .map(|(c, _)| c[i])
                .fold(f64::NEG_INFINITY, f64::max);
            let x = point
                .0
                .iter()
                .find(|(n, _)| n == name)
                .map_or(f64::NAN, |(_, v)| *v);
            let ratio = x / largest;
            if ratio > 1.0 {
                notes.push(format!("{}x the largest {name} measured", num(ratio)));
            }
            beyond.insert(name.clone(), json_num(ratio));
        }
        let note = if notes.is_empty() {
            "within the sizes measured".to_string()
        } else {
            notes.join(", ")
        };
        text.row(
            4,
            20,
            &format!("at {point}"),
            format!("{} ({note})", num(value)),
        );
        out.push(json!({
            "point": point.0.iter().map(|(n, v)| (n.clone(), json_num(*v))).collect::<serde_json::Map<_, _>>(),
            "value": json_num(value),
            "beyond_largest": beyond,
        }));
    }
    Ok(Value::Array(out))
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
        "extrapolation": fit.extrapolation().map(|e| json!({
            "largest": json_num(e.largest),
            "negative_from": e.negative_from.map(json_num),
            "growth_turns_at": e.growth_turns_at.map(json_num),
        })),
        "outliers": fit.outliers().iter().map(|o| json!({
            "point": o.coordinate.iter().map(|v| json_num(*v)).collect::<Vec<_>>(),
            "value": json_num(o.value),
            "expected": json_num(o.expected),
            "others_scatter": json_num(o.others_scatter),
        })).collect::<Vec<_>>(),
        "set_aside": fit.set_aside().map(|a| json!({
            "model": format!("{:#}", a.model),
            "negative_from": json_num(a.negative_from),
            "cv_rss_ratio": json_num(a.cv_rss_ratio),
        })),
        "alternatives": fit.alternatives().iter().map(|a| json!({
            "model": format!("{:#}", a.model),
            "cv_rss_ratio": json_num(a.cv_rss_ratio),
            "divergence_at_4x": json_num(a.divergence_at_4x),
            "divergence_at_16x": json_num(a.divergence_at_16x),
        })).collect::<Vec<_>>(),
    })
}
