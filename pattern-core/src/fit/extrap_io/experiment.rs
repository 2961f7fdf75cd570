//! Extra-P's data model: an experiment's parameters and its series of
//! repeated measurements, one per region and metric; the errors of reading
//! and writing it.

use crate::fit::error::FitError;
use crate::fit::fitter::{Fit, Fitter};
use crate::fit::measure::Measurement;
use std::path::PathBuf;

/// Region name used when a file names none (as Extra-P's JSON Lines reader).
pub const DEFAULT_REGION: &str = "<root>";
/// Metric name used when a file names none (as Extra-P's JSON Lines reader).
pub const DEFAULT_METRIC: &str = "<default>";

/// Why an Extra-P file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ExtrapError {
    /// A line of a text or JSON Lines file is malformed.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// 1-based column (in characters) of what is wrong: the field, the
        /// value or the number at fault.
        column: usize,
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
    /// An archive (an Extra-P experiment file, a CUBE profile) or a part
    /// of it is malformed: `part` names the member (`anchor.xml`,
    /// `3.data`), `message` what is wrong and where (line and column in XML
    /// and JSON, the byte offset in binary data).
    #[error("{} ({part}): {message}", .file.display())]
    Archive {
        /// The archive, or the directory of a CUBE experiment.
        file: PathBuf,
        /// The member of the archive at fault.
        part: String,
        /// What is wrong, and where.
        message: String,
    },
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
    pub(super) fn syntax(line: usize, column: usize, message: impl Into<String>) -> ExtrapError {
        ExtrapError::Syntax {
            line,
            column,
            message: message.into(),
        }
    }

    /// Where in the file the error is, `(line, column)`, both 1-based, for
    /// an error of syntax or structure (to show the line with a caret).
    pub fn position(&self) -> Option<(usize, usize)> {
        match *self {
            ExtrapError::Syntax { line, column, .. } | ExtrapError::Json { line, column, .. } => {
                Some((line, column))
            }
            _ => None,
        }
    }

    pub(super) fn json(e: &serde_json::Error, line_offset: usize) -> ExtrapError {
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

/// Series filled point by point in time linear in the points: the readers'
/// way to build an experiment ([`Experiment::add`] searches the series and
/// points it already has, which is quadratic over a whole file).
#[derive(Default)]
pub(super) struct SeriesFiller {
    series: Vec<Series>,
    series_at: std::collections::HashMap<(String, String), usize>,
    /// Per series, its points by the bits of their coordinates.
    points_at: Vec<std::collections::HashMap<Vec<u64>, usize>>,
}

impl SeriesFiller {
    /// Appends repetitions at a coordinate, as [`Experiment::add`] does.
    pub(super) fn add(&mut self, region: &str, metric: &str, coordinate: &[f64], values: &[f64]) {
        let key = (region.to_string(), metric.to_string());
        let s = *self.series_at.entry(key).or_insert_with(|| {
            self.series.push(Series {
                region: region.to_string(),
                metric: metric.to_string(),
                points: Vec::new(),
            });
            self.points_at.push(std::collections::HashMap::new());
            self.series.len() - 1
        });
        let series = &mut self.series[s];
        let bits: Vec<u64> = coordinate.iter().map(|v| v.to_bits()).collect();
        let p = *self.points_at[s].entry(bits).or_insert_with(|| {
            series.points.push(Point {
                coordinate: coordinate.to_vec(),
                values: Vec::new(),
            });
            series.points.len() - 1
        });
        series.points[p].values.extend_from_slice(values);
    }

    /// The series, in order of first appearance.
    pub(super) fn into_series(self) -> Vec<Series> {
        self.series
    }
}

pub(super) fn same_coordinate(a: &[f64], b: &[f64]) -> bool {
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

    /// The points every series shares (in the first series' order), or why
    /// the experiment cannot be written in Extra-P's formats.
    pub(super) fn check_writable(&self) -> Result<Vec<Vec<f64>>, ExtrapError> {
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
}
