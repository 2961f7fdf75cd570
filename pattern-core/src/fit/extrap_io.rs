//! Extra-P's input formats: read its text and JSON files (new JSON, legacy
//! JSON and JSON Lines), and write text and JSON that Extra-P reads, so a
//! model can be cross-checked in Extra-P. Extra-P's printed models
//! (`-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)`) parse with
//! [`crate::Expr::parse`].
//!
//! ```
//! use pattern_core::fit::{Fitter, extrap_io::Experiment};
//!
//! let text = "\
//! PARAMETER x
//! POINTS (1024) (2048) (4096) (8192) (16384)
//! REGION inc
//! METRIC time
//! DATA 548000 549000 551000
//! DATA 1098000 1097000 1101000
//! DATA 2195000 2196000 2200000
//! DATA 4392000 4390000 4400000
//! DATA 8785000 8784000 8790000
//! ";
//! let experiment = Experiment::read_text(text).unwrap();
//! let series = experiment.series("inc", "time").unwrap();
//! let fit = series.fit(&Fitter::default(), &experiment.parameters).unwrap();
//! assert_eq!(fit.model().growth("x").unwrap().to_string(), "O(x)");
//! // Write it back for Extra-P: `extrap --text inc.txt --median`.
//! assert_eq!(Experiment::read_text(&experiment.to_text().unwrap()).unwrap(), experiment);
//! ```

use super::error::FitError;
use super::fitter::{Fit, Fitter};
use super::measure::Measurement;
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// Region name used when a file names none (as Extra-P's JSON Lines reader).
pub const DEFAULT_REGION: &str = "<root>";
/// Metric name used when a file names none (as Extra-P's JSON Lines reader).
pub const DEFAULT_METRIC: &str = "<default>";

/// Why an Extra-P file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ExtrapError {
    /// A line of a text or JSON Lines file is malformed.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A JSON document is malformed or does not have Extra-P's structure.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line number.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file is well-formed but not a usable experiment.
    #[error("invalid experiment: {0}")]
    Invalid(String),
    /// The experiment cannot be written in Extra-P's format.
    #[error("cannot write in Extra-P's format: {0}")]
    Unwritable(String),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl ExtrapError {
    fn syntax(line: usize, message: impl Into<String>) -> ExtrapError {
        ExtrapError::Syntax {
            line,
            message: message.into(),
        }
    }

    fn json(e: &serde_json::Error, line_offset: usize) -> ExtrapError {
        ExtrapError::Json {
            line: e.line() + line_offset,
            column: e.column(),
            message: e.to_string(),
        }
    }
}

/// One point of a series: its coordinate and the repeated values.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// One value per parameter.
    pub coordinate: Vec<f64>,
    /// The repetitions measured there.
    pub values: Vec<f64>,
}

/// The measurements of one region (Extra-P's call path) and one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Region (call path) name.
    pub region: String,
    /// Metric name.
    pub metric: String,
    /// Points in file order.
    pub points: Vec<Point>,
}

impl Series {
    /// Every repetition as `(coordinate, value)`.
    pub fn points_multi(&self) -> Vec<(Vec<f64>, f64)> {
        self.points
            .iter()
            .flat_map(|p| p.values.iter().map(|&v| (p.coordinate.clone(), v)))
            .collect()
    }

    /// Every repetition as `(x, value)`, the first coordinate as `x`.
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .flat_map(|p| {
                let x = p.coordinate.first().copied().unwrap_or(f64::NAN);
                p.values.iter().map(move |&v| (x, v))
            })
            .collect()
    }

    /// Fits a model in the experiment's `parameters` (one or several).
    pub fn fit(&self, fitter: &Fitter, parameters: &[String]) -> Result<Fit, FitError> {
        let names: Vec<&str> = parameters.iter().map(String::as_str).collect();
        fitter.fit_multi(&names, &self.points_multi())
    }

    fn point_mut(&mut self, coordinate: &[f64]) -> &mut Point {
        let found = self
            .points
            .iter()
            .position(|p| same_coordinate(&p.coordinate, coordinate));
        let i = found.unwrap_or_else(|| {
            self.points.push(Point {
                coordinate: coordinate.to_vec(),
                values: Vec::new(),
            });
            self.points.len() - 1
        });
        &mut self.points[i]
    }
}

fn same_coordinate(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Measurements in Extra-P's data model: named parameters, and series of
/// points with repeated values, one per region and metric.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Experiment {
    /// Parameter names, in coordinate order.
    pub parameters: Vec<String>,
    /// Series in order of first appearance.
    pub series: Vec<Series>,
}

impl Experiment {
    /// An empty experiment over the given parameters.
    pub fn new(parameters: &[&str]) -> Experiment {
        Experiment {
            parameters: parameters.iter().map(|p| p.to_string()).collect(),
            series: Vec::new(),
        }
    }

    /// The series of a region and metric, if present.
    pub fn series(&self, region: &str, metric: &str) -> Option<&Series> {
        self.series
            .iter()
            .find(|s| s.region == region && s.metric == metric)
    }

    fn series_mut(&mut self, region: &str, metric: &str) -> &mut Series {
        let found = self
            .series
            .iter()
            .position(|s| s.region == region && s.metric == metric);
        let i = found.unwrap_or_else(|| {
            self.series.push(Series {
                region: region.to_string(),
                metric: metric.to_string(),
                points: Vec::new(),
            });
            self.series.len() - 1
        });
        &mut self.series[i]
    }

    /// Adds repetitions at a coordinate (appended to the values already
    /// there).
    pub fn add(&mut self, region: &str, metric: &str, coordinate: &[f64], values: &[f64]) {
        self.series_mut(region, metric)
            .point_mut(coordinate)
            .values
            .extend_from_slice(values);
    }

    /// Adds the timings of a [`Measurement`] (one parameter) as the series
    /// `(measurement.label, metric)`, values in nanoseconds.
    pub fn add_measurement(&mut self, measurement: &Measurement, metric: &str) {
        let region = if measurement.label.is_empty() {
            DEFAULT_REGION
        } else {
            &measurement.label
        };
        for s in measurement.sizes() {
            self.add(region, metric, &[s.x as f64], &s.times_ns);
        }
    }

    /// Fits every series; `(region, metric, result)` in series order.
    pub fn fit_all(&self, fitter: &Fitter) -> Vec<(String, String, Result<Fit, FitError>)> {
        self.series
            .iter()
            .map(|s| {
                (
                    s.region.clone(),
                    s.metric.clone(),
                    s.fit(fitter, &self.parameters),
                )
            })
            .collect()
    }

    /// Reads a file: JSON (`.json`, `.jsonl`) or text (anything else).
    pub fn read_file(path: impl AsRef<Path>) -> Result<Experiment, ExtrapError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ExtrapError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        match path.extension().and_then(|e| e.to_str()) {
            Some("json" | "jsonl") => Experiment::read_json(&text),
            _ => Experiment::read_text(&text),
        }
    }

    /// Reads Extra-P's text format: `PARAMETER`, `POINTS`, `REGION`,
    /// `METRIC` and `DATA` lines, `#` comments. `DATA` lines give the
    /// repetitions of the points in `POINTS` order; `REGION` and `METRIC`
    /// start over at the first point.
    pub fn read_text(text: &str) -> Result<Experiment, ExtrapError> {
        let mut ex = Experiment::default();
        let mut coordinates: Vec<Vec<f64>> = Vec::new();
        let mut region = DEFAULT_REGION.to_string();
        let mut metric = DEFAULT_METRIC.to_string();
        let mut next_point = 0;
        let mut any_data = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (field, value) = match line.split_once(char::is_whitespace) {
                Some((f, v)) => (f, v.trim()),
                None => (line, ""),
            };
            match field {
                "PARAMETER" => {
                    if !coordinates.is_empty() {
                        return Err(ExtrapError::syntax(line_no, "PARAMETER after POINTS"));
                    }
                    if value.is_empty() {
                        return Err(ExtrapError::syntax(line_no, "PARAMETER without a name"));
                    }
                    ex.parameters
                        .extend(value.split_whitespace().map(str::to_string));
                }
                "POINTS" => {
                    let dims = ex.parameters.len();
                    if dims == 0 {
                        return Err(ExtrapError::syntax(line_no, "POINTS before any PARAMETER"));
                    }
                    for c in
                        parse_points(value, dims).map_err(|m| ExtrapError::syntax(line_no, m))?
                    {
                        coordinates.push(c);
                    }
                }
                "REGION" | "METRIC" => {
                    if value.is_empty() {
                        return Err(ExtrapError::syntax(
                            line_no,
                            format!("{field} without a name"),
                        ));
                    }
                    if field == "REGION" {
                        region = value.to_string();
                    } else {
                        metric = value.to_string();
                    }
                    next_point = 0;
                }
                "DATA" => {
                    let values = value
                        .split_whitespace()
                        .map(|v| {
                            v.parse::<f64>().map_err(|_| {
                                ExtrapError::syntax(line_no, format!("`{v}` is not a number"))
                            })
                        })
                        .collect::<Result<Vec<f64>, _>>()?;
                    if values.is_empty() {
                        return Err(ExtrapError::syntax(line_no, "DATA without values"));
                    }
                    let Some(c) = coordinates.get(next_point) else {
                        return Err(ExtrapError::syntax(
                            line_no,
                            format!(
                                "more DATA lines than POINTS ({}) for region `{region}`, metric `{metric}`",
                                coordinates.len()
                            ),
                        ));
                    };
                    ex.add(&region, &metric, &c.clone(), &values);
                    next_point += 1;
                    any_data = true;
                }
                other => {
                    return Err(ExtrapError::syntax(
                        line_no,
                        format!(
                            "unknown field `{other}` (expected PARAMETER, POINTS, REGION, METRIC or DATA)"
                        ),
                    ));
                }
            }
        }
        if ex.parameters.is_empty() {
            return Err(ExtrapError::Invalid("no PARAMETER line".into()));
        }
        if !any_data {
            return Err(ExtrapError::Invalid("no DATA line".into()));
        }
        Ok(ex)
    }

    /// Reads Extra-P's JSON input: the current format (`parameters`,
    /// `measurements: {region: {metric: [{point, values}]}}`), the legacy
    /// format (`parameters`, `callpaths`, `metrics`, `coordinates`,
    /// `measurements` with ids) or JSON Lines (`{"params": {...}, "value":
    /// ..., "callpath": ..., "metric": ...}` per line).
    pub fn read_json(text: &str) -> Result<Experiment, ExtrapError> {
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
                let is_lines = lines.clone().next().is_some() && lines.all(|l| l.starts_with('{'));
                if is_lines {
                    return read_json_lines(text);
                }
                return Err(ExtrapError::json(&e, 0));
            }
        };
        let ex = if value.get("callpaths").is_some() {
            let legacy: LegacyJson =
                serde_json::from_str(text).map_err(|e| ExtrapError::json(&e, 0))?;
            legacy.into_experiment()?
        } else {
            let new: NewJson = serde_json::from_str(text).map_err(|e| ExtrapError::json(&e, 0))?;
            new.into_experiment()?
        };
        if ex.parameters.is_empty() {
            return Err(ExtrapError::Invalid("no parameters".into()));
        }
        Ok(ex)
    }

    fn check_writable(&self) -> Result<Vec<Vec<f64>>, ExtrapError> {
        let bad_name = |n: &str| n.trim().is_empty() || n.contains(['\n', '\r']) || n.trim() != n;
        if self.parameters.is_empty() {
            return Err(ExtrapError::Unwritable("no parameters".into()));
        }
        for p in &self.parameters {
            if bad_name(p) || p.contains(char::is_whitespace) {
                return Err(ExtrapError::Unwritable(format!("parameter name `{p}`")));
            }
        }
        let Some(first) = self.series.first() else {
            return Err(ExtrapError::Unwritable("no series".into()));
        };
        let coordinates: Vec<Vec<f64>> =
            first.points.iter().map(|p| p.coordinate.clone()).collect();
        for s in &self.series {
            if bad_name(&s.region) || bad_name(&s.metric) {
                return Err(ExtrapError::Unwritable(format!(
                    "region `{}` / metric `{}`: names must be one non-empty line without surrounding spaces",
                    s.region, s.metric
                )));
            }
            let same_set = s.points.len() == coordinates.len()
                && coordinates
                    .iter()
                    .all(|c| s.points.iter().any(|p| same_coordinate(&p.coordinate, c)));
            if !same_set {
                return Err(ExtrapError::Unwritable(format!(
                    "series `{}`/`{}` does not have the same points as `{}`/`{}` (Extra-P needs every series measured at every point)",
                    s.region, s.metric, first.region, first.metric
                )));
            }
            for p in &s.points {
                if p.coordinate.len() != self.parameters.len() {
                    return Err(ExtrapError::Unwritable(format!(
                        "point {:?} does not have {} coordinates",
                        p.coordinate,
                        self.parameters.len()
                    )));
                }
                if p.values.is_empty()
                    || p.values.iter().chain(&p.coordinate).any(|v| !v.is_finite())
                {
                    return Err(ExtrapError::Unwritable(format!(
                        "point {:?} of `{}`: no values or a non-finite number",
                        p.coordinate, s.region
                    )));
                }
            }
        }
        Ok(coordinates)
    }

    /// Writes Extra-P's text format (read it with `extrap --text FILE`).
    /// Every series must have the same points; names must be single lines.
    pub fn to_text(&self) -> Result<String, ExtrapError> {
        let coordinates = self.check_writable()?;
        let mut out = String::new();
        let _ = writeln!(out, "PARAMETER {}", self.parameters.join(" "));
        out.push_str("POINTS");
        for c in &coordinates {
            let parts: Vec<String> = c.iter().map(|v| format!("{v}")).collect();
            let _ = write!(out, " ({})", parts.join(" "));
        }
        out.push('\n');
        // Extra-P adds a region for every REGION line, so each region is
        // written once, with its metrics under it; a METRIC line starts over
        // at the first point.
        let mut regions: Vec<&str> = Vec::new();
        for s in &self.series {
            if !regions.contains(&s.region.as_str()) {
                regions.push(&s.region);
            }
        }
        for region in regions {
            let _ = writeln!(out, "REGION {region}");
            for s in self.series.iter().filter(|s| s.region == region) {
                let _ = writeln!(out, "METRIC {}", s.metric);
                for c in &coordinates {
                    let p = s
                        .points
                        .iter()
                        .find(|p| same_coordinate(&p.coordinate, c))
                        .expect("checked: same points");
                    let values: Vec<String> = p.values.iter().map(|v| format!("{v}")).collect();
                    let _ = writeln!(out, "DATA {}", values.join(" "));
                }
            }
        }
        Ok(out)
    }

    /// Writes Extra-P's JSON format (read it with `extrap --json FILE`).
    pub fn to_json(&self) -> Result<String, ExtrapError> {
        self.check_writable()?;
        let mut measurements = serde_json::Map::new();
        for s in &self.series {
            let entry = measurements
                .entry(s.region.clone())
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            let points: Vec<serde_json::Value> = s
                .points
                .iter()
                .map(|p| serde_json::json!({"point": p.coordinate, "values": p.values}))
                .collect();
            if let serde_json::Value::Object(metrics) = entry {
                metrics.insert(s.metric.clone(), serde_json::Value::Array(points));
            }
        }
        let doc = serde_json::json!({
            "parameters": self.parameters,
            "measurements": measurements,
        });
        serde_json::to_string_pretty(&doc).map_err(|e| ExtrapError::Unwritable(e.to_string()))
    }
}

/// The coordinates of a `POINTS` value: `(a b) (c d)` groups, or bare
/// numbers for one parameter.
fn parse_points(value: &str, dims: usize) -> Result<Vec<Vec<f64>>, String> {
    let number = |s: &str| {
        s.parse::<f64>()
            .map_err(|_| format!("`{s}` is not a number"))
    };
    if !value.contains('(') {
        if dims != 1 {
            return Err(format!(
                "with {dims} parameters, POINTS must be parenthesized groups like `(1 2)`"
            ));
        }
        return value
            .split_whitespace()
            .map(|s| number(s).map(|v| vec![v]))
            .collect();
    }
    let mut out = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        let Some(after_open) = rest.strip_prefix('(') else {
            return Err(format!("expected `(` at `{rest}`"));
        };
        let Some(close) = after_open.find(')') else {
            return Err("unclosed `(`".into());
        };
        let coordinate = after_open[..close]
            .split_whitespace()
            .map(number)
            .collect::<Result<Vec<f64>, _>>()?;
        if coordinate.len() != dims {
            return Err(format!(
                "point ({}) has {} coordinates, but there are {dims} parameters",
                after_open[..close].trim(),
                coordinate.len()
            ));
        }
        out.push(coordinate);
        rest = after_open[close + 1..].trim_start();
    }
    if out.is_empty() {
        return Err("POINTS without points".into());
    }
    Ok(out)
}

/// A JSON number or a list of numbers.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(f64),
    Many(Vec<f64>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<f64> {
        match self {
            OneOrMany::One(v) => vec![v],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
struct NewJson {
    parameters: Vec<String>,
    measurements: BTreeMap<String, BTreeMap<String, Vec<NewPoint>>>,
}

#[derive(Deserialize)]
struct NewPoint {
    point: OneOrMany,
    values: OneOrMany,
}

impl NewJson {
    fn into_experiment(self) -> Result<Experiment, ExtrapError> {
        let mut ex = Experiment {
            parameters: self.parameters,
            series: Vec::new(),
        };
        for (region, metrics) in self.measurements {
            for (metric, points) in metrics {
                for p in points {
                    let c = p.point.into_vec();
                    if c.len() != ex.parameters.len() {
                        return Err(ExtrapError::Invalid(format!(
                            "point {c:?} of `{region}`/`{metric}` does not have {} coordinates",
                            ex.parameters.len()
                        )));
                    }
                    ex.add(&region, &metric, &c, &p.values.into_vec());
                }
            }
        }
        Ok(ex)
    }
}

#[derive(Deserialize)]
struct Named {
    id: i64,
    name: String,
}

#[derive(Deserialize)]
struct LegacyCoordinate {
    id: i64,
    parameter_value_pairs: Vec<LegacyPair>,
}

#[derive(Deserialize)]
struct LegacyPair {
    parameter_id: i64,
    parameter_value: f64,
}

#[derive(Deserialize)]
struct LegacyMeasurement {
    coordinate_id: i64,
    callpath_id: i64,
    metric_id: i64,
    value: f64,
}

#[derive(Deserialize)]
struct LegacyJson {
    parameters: Vec<Named>,
    callpaths: Vec<Named>,
    metrics: Vec<Named>,
    coordinates: Vec<LegacyCoordinate>,
    measurements: Vec<LegacyMeasurement>,
}

impl LegacyJson {
    fn into_experiment(mut self) -> Result<Experiment, ExtrapError> {
        self.parameters.sort_by_key(|p| p.id);
        let name_of = |list: &[Named], id: i64, what: &str| {
            list.iter()
                .find(|n| n.id == id)
                .map(|n| n.name.clone())
                .ok_or_else(|| ExtrapError::Invalid(format!("unknown {what} id {id}")))
        };
        let mut ex = Experiment {
            parameters: self.parameters.iter().map(|p| p.name.clone()).collect(),
            series: Vec::new(),
        };
        let mut coordinates = BTreeMap::new();
        for c in &self.coordinates {
            let mut pairs: Vec<&LegacyPair> = c.parameter_value_pairs.iter().collect();
            pairs.sort_by_key(|p| p.parameter_id);
            if pairs.len() != ex.parameters.len() {
                return Err(ExtrapError::Invalid(format!(
                    "coordinate {} does not have {} values",
                    c.id,
                    ex.parameters.len()
                )));
            }
            coordinates.insert(
                c.id,
                pairs
                    .iter()
                    .map(|p| p.parameter_value)
                    .collect::<Vec<f64>>(),
            );
        }
        for m in &self.measurements {
            let region = name_of(&self.callpaths, m.callpath_id, "callpath")?;
            let metric = name_of(&self.metrics, m.metric_id, "metric")?;
            let c = coordinates.get(&m.coordinate_id).ok_or_else(|| {
                ExtrapError::Invalid(format!("unknown coordinate id {}", m.coordinate_id))
            })?;
            ex.add(&region, &metric, c, &[m.value]);
        }
        Ok(ex)
    }
}

/// A JSON object read as `(key, number)` pairs in document order (parameter
/// order matters, and serde_json's map would sort the keys).
struct OrderedParams(Vec<(String, f64)>);

impl<'de> Deserialize<'de> for OrderedParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OrderedParams, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedParams;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of parameter values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedParams, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, f64>()? {
                    out.push((k, v));
                }
                Ok(OrderedParams(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct JsonLine {
    params: OrderedParams,
    value: OneOrMany,
    callpath: Option<String>,
    metric: Option<String>,
}

fn read_json_lines(text: &str) -> Result<Experiment, ExtrapError> {
    let mut ex = Experiment::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: JsonLine = serde_json::from_str(line).map_err(|e| ExtrapError::json(&e, i))?;
        if ex.parameters.is_empty() {
            ex.parameters = record.params.0.iter().map(|(k, _)| k.clone()).collect();
            if ex.parameters.is_empty() {
                return Err(ExtrapError::syntax(i + 1, "no parameters in `params`"));
            }
        }
        let mut coordinate = Vec::with_capacity(ex.parameters.len());
        for p in &ex.parameters {
            let v = record
                .params
                .0
                .iter()
                .find(|(k, _)| k == p)
                .map(|(_, v)| *v);
            coordinate.push(
                v.ok_or_else(|| ExtrapError::syntax(i + 1, format!("missing parameter `{p}`")))?,
            );
        }
        let region = record.callpath.as_deref().unwrap_or(DEFAULT_REGION);
        let metric = record.metric.as_deref().unwrap_or(DEFAULT_METRIC);
        ex.add(region, metric, &coordinate, &record.value.into_vec());
    }
    if ex.series.is_empty() {
        return Err(ExtrapError::Invalid("no measurements".into()));
    }
    Ok(ex)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_PARAMS: &str = "\
# comment
PARAMETER p
PARAMETER n
POINTS ( 2 1000 ) ( 4 1000 ) (8 1000)
POINTS (2 2000) (4 2000)
REGION main
METRIC time
DATA 1 1.5
DATA 2
DATA 3
DATA 4
DATA 5 5.5 6
METRIC visits
DATA 10
";

    #[test]
    fn reads_text_with_several_parameters() {
        let ex = Experiment::read_text(TWO_PARAMS).unwrap();
        assert_eq!(ex.parameters, ["p", "n"]);
        assert_eq!(ex.series.len(), 2);
        let time = ex.series("main", "time").unwrap();
        assert_eq!(time.points.len(), 5);
        assert_eq!(time.points[0].coordinate, [2.0, 1000.0]);
        assert_eq!(time.points[0].values, [1.0, 1.5]);
        assert_eq!(time.points[4].coordinate, [4.0, 2000.0]);
        assert_eq!(time.points[4].values, [5.0, 5.5, 6.0]);
        let visits = ex.series("main", "visits").unwrap();
        assert_eq!(visits.points.len(), 1);
        assert_eq!(time.points_multi().len(), 8);
    }

    #[test]
    fn text_errors_have_line_numbers() {
        let err = |t: &str| Experiment::read_text(t).unwrap_err().to_string();
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n"),
            "line 5: more DATA lines than POINTS (2) for region `<root>`, metric `<default>`"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2\nDATA 1 x\n"),
            "line 3: `x` is not a number"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\nFOO 1\n"),
            "line 3: unknown field `FOO` (expected PARAMETER, POINTS, REGION, METRIC or DATA)"
        );
        assert_eq!(err("POINTS 1\n"), "line 1: POINTS before any PARAMETER");
        assert_eq!(
            err("PARAMETER a b\nPOINTS (1 2) (3)\n"),
            "line 2: point (3) has 1 coordinates, but there are 2 parameters"
        );
        assert_eq!(
            err("PARAMETER a b\nPOINTS 1 2\n"),
            "line 2: with 2 parameters, POINTS must be parenthesized groups like `(1 2)`"
        );
        assert_eq!(
            err("PARAMETER a\nPOINTS (1 (2)\n"),
            "line 2: `(2` is not a number"
        );
        assert_eq!(err("PARAMETER a\nPOINTS (1\n"), "line 2: unclosed `(`");
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\nDATA\n"),
            "line 3: DATA without values"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\n"),
            "invalid experiment: no DATA line"
        );
        assert_eq!(err(""), "invalid experiment: no PARAMETER line");
    }

    #[test]
    fn text_and_json_round_trip() {
        let ex = Experiment::read_text(TWO_PARAMS).unwrap();
        // Not writable: the metrics cover different points.
        assert!(matches!(ex.to_text(), Err(ExtrapError::Unwritable(_))));
        let mut ex = Experiment::new(&["x", "n"]);
        for (x, n, v) in [(1.0, 2.0, 3.5), (2.0, 2.0, 1e-7), (4.0, 2.0, 123456789.0)] {
            ex.add("solve step", "time", &[x, n], &[v, v * 1.01]);
            ex.add("io", "bytes", &[x, n], &[v * 8.0]);
        }
        let text = ex.to_text().unwrap();
        assert!(text.starts_with("PARAMETER x n\nPOINTS (1 2) (2 2) (4 2)\nREGION solve step\n"));
        assert_eq!(Experiment::read_text(&text).unwrap(), ex);
        let json = ex.to_json().unwrap();
        let back = Experiment::read_json(&json).unwrap();
        // JSON regions come back sorted by name.
        assert_eq!(back.parameters, ex.parameters);
        for s in &ex.series {
            assert_eq!(back.series(&s.region, &s.metric), Some(s));
        }
    }

    #[test]
    fn same_region_two_metrics_resets_the_point_index() {
        let mut ex = Experiment::new(&["x"]);
        for x in [1.0, 2.0] {
            ex.add("r", "time", &[x], &[x]);
            ex.add("r", "energy", &[x], &[10.0 * x]);
        }
        let text = ex.to_text().unwrap();
        assert_eq!(
            text,
            "PARAMETER x\nPOINTS (1) (2)\nREGION r\nMETRIC time\nDATA 1\nDATA 2\nMETRIC energy\nDATA 10\nDATA 20\n"
        );
        assert_eq!(Experiment::read_text(&text).unwrap(), ex);
    }

    #[test]
    fn reads_the_three_json_formats() {
        let new = r#"{"parameters": ["x"], "measurements": {"qsort": {"time": [
            {"point": [1024], "values": [1.0, 2.0]}, {"point": 2048, "values": 3.0}]}}}"#;
        let ex = Experiment::read_json(new).unwrap();
        let s = ex.series("qsort", "time").unwrap();
        assert_eq!(s.points(), [(1024.0, 1.0), (1024.0, 2.0), (2048.0, 3.0)]);

        let legacy = r#"{
          "parameters": [{"id": 2, "name": "n"}, {"id": 1, "name": "p"}],
          "callpaths": [{"id": 1, "name": "main"}],
          "metrics": [{"id": 1, "name": "time"}],
          "coordinates": [{"id": 1, "parameter_value_pairs": [
              {"parameter_id": 2, "parameter_value": 10}, {"parameter_id": 1, "parameter_value": 4}]}],
          "measurements": [
              {"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 7.5},
              {"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 8.5}]}"#;
        let ex = Experiment::read_json(legacy).unwrap();
        assert_eq!(ex.parameters, ["p", "n"]);
        let s = ex.series("main", "time").unwrap();
        assert_eq!(s.points[0].coordinate, [4.0, 10.0]);
        assert_eq!(s.points[0].values, [7.5, 8.5]);

        let lines = "{\"params\": {\"x\": 1, \"a\": 5}, \"value\": 2.0}\n\n\
                     {\"params\": {\"x\": 2, \"a\": 5}, \"value\": [3.0, 4.0], \"callpath\": \"f\"}\n";
        let ex = Experiment::read_json(lines).unwrap();
        assert_eq!(ex.parameters, ["x", "a"]);
        assert_eq!(
            ex.series(DEFAULT_REGION, DEFAULT_METRIC).unwrap().points[0].coordinate,
            [1.0, 5.0]
        );
        assert_eq!(
            ex.series("f", DEFAULT_METRIC).unwrap().points[0].values,
            [3.0, 4.0]
        );
    }

    #[test]
    fn json_errors_have_positions() {
        let e =
            Experiment::read_json("{\"parameters\": [\"x\"],\n \"measurements\": 3}").unwrap_err();
        assert!(matches!(e, ExtrapError::Json { line: 2, .. }), "{e}");
        let e = Experiment::read_json(
            "{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": {\"y\": 1}, \"value\": 1}\n",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "line 2: missing parameter `x`");
        let e = Experiment::read_json("{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": 3}\n")
            .unwrap_err();
        assert!(matches!(e, ExtrapError::Json { line: 2, .. }), "{e}");
        let e = Experiment::read_json("[1, 2").unwrap_err();
        assert!(matches!(e, ExtrapError::Json { line: 1, .. }), "{e}");
        let e = Experiment::read_json(r#"{"parameters": ["x", "y"], "measurements": {"r": {"m": [{"point": [1], "values": [1]}]}}}"#).unwrap_err();
        assert!(e.to_string().contains("does not have 2 coordinates"), "{e}");
    }
}
