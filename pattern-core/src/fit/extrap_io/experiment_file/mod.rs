//! Extra-P's experiment files (`.extra-p`, what its GUI opens and
//! `--save-experiment` writes): a zip holding `experiment.json` (the
//! parameters, each call path's and metric's measurements with their mean,
//! median and spread, and model sets) and, when the repetitions were kept,
//! their values as NumPy arrays under `values/`.
//!
//! Read, the measurements become an [`Experiment`]: a point's repetitions
//! when the file keeps them, else the one value Extra-P fits there (the
//! median or the mean, as asked). The models in the file are not read: the
//! fitter fits them again. Written, an experiment and a [`ModelSet`] of
//! fits open in Extra-P's GUI with our models beside its own.

mod model;
mod values;

use super::experiment::{Experiment, ExtrapError, SeriesFiller};
use super::json::Ordered;
use crate::fit::Aggregate;
use crate::fit::stats;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::Path;

pub use model::ModelSet;

/// The member holding the experiment.
const EXPERIMENT_JSON: &str = "experiment.json";
/// The Extra-P version our files say they were written for.
const EXTRAP_VERSION: &str = "4.2.5";
/// The largest member read from an experiment file (Extra-P writes values
/// in chunks of 1 GiB): a member announcing more is refused before it is
/// inflated.
pub const MEMBER_LIMIT: u64 = 1 << 30;

#[derive(Deserialize)]
struct FileExperiment {
    parameters: Vec<String>,
    #[serde(default)]
    measurements: Ordered<Ordered<Vec<FileMeasurement>>>,
}

/// The experiment as written: call paths and metrics in the experiment's
/// order (a JSON map would sort them).
#[derive(Serialize)]
struct FileOut<'a> {
    #[serde(rename = "Extra-P")]
    version: &'a str,
    parameters: &'a [String],
    measurements: Ordered<Ordered<Vec<Value>>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    modelers: Vec<Value>,
}

#[derive(Deserialize)]
struct FileMeasurement {
    coordinate: Vec<f64>,
    #[serde(default)]
    median: Option<f64>,
    #[serde(default)]
    mean: Option<f64>,
    /// `[chunk, index]` of the repetitions, when kept.
    #[serde(default)]
    values: Option<(u64, u64)>,
}

impl Experiment {
    /// Reads an Extra-P experiment file; `measure` is the value a point
    /// gets when the file keeps only its mean and median, not its
    /// repetitions (the fitter's aggregate, so it fits what Extra-P would).
    ///
    /// ```
    /// use pattern_core::fit::{Aggregate, Fitter};
    /// use pattern_core::fit::extrap_io::{Experiment, ModelSet};
    ///
    /// let mut experiment = Experiment::new(&["p"]);
    /// for p in [2.0, 4.0, 8.0, 16.0, 32.0] {
    ///     experiment.add("solve", "time", &[p], &[3.0 * p, 3.1 * p]);
    /// }
    /// let fit = experiment.series("solve", "time").unwrap()
    ///     .fit(&Fitter::default(), &experiment.parameters).unwrap();
    /// let set = ModelSet {
    ///     name: "pattern".into(),
    ///     measure: Aggregate::Median,
    ///     models: vec![("solve", "time", &fit)],
    /// };
    /// // Open `solve.extra-p` in Extra-P's GUI to see the model.
    /// let bytes = experiment.to_extrap_bytes(Some(&set)).unwrap();
    /// let back = Experiment::read_extrap_bytes(&bytes, Aggregate::Median).unwrap();
    /// assert_eq!(back, experiment);
    /// ```
    pub fn read_extrap_file(
        path: impl AsRef<Path>,
        measure: Aggregate,
    ) -> Result<Experiment, ExtrapError> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|source| ExtrapError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        read_archive(std::io::BufReader::new(file), path, measure)
    }

    /// [`Experiment::read_extrap_file`] of a file's bytes.
    pub fn read_extrap_bytes(bytes: &[u8], measure: Aggregate) -> Result<Experiment, ExtrapError> {
        read_archive(std::io::Cursor::new(bytes), Path::new("<bytes>"), measure)
    }

    /// The experiment as an Extra-P experiment file, with a model set if
    /// given: every repetition kept (Extra-P's `--keep-values`), a point's
    /// mean, median, extremes and standard deviation beside them.
    pub fn to_extrap_bytes(&self, models: Option<&ModelSet<'_>>) -> Result<Vec<u8>, ExtrapError> {
        let unwritable = |e: String| ExtrapError::Unwritable(e);
        if self.parameters.is_empty() {
            return Err(unwritable("no parameters".into()));
        }
        let mut arrays: Vec<&[f64]> = Vec::new();
        let mut measurements: Ordered<Ordered<Vec<Value>>> = Ordered::default();
        let mut region_at = std::collections::HashMap::new();
        let mut metrics_seen = std::collections::HashSet::new();
        for s in &self.series {
            let mut points = Vec::new();
            for p in &s.points {
                if p.coordinate.len() != self.parameters.len() {
                    return Err(unwritable(format!(
                        "`{}`/`{}`: point {:?} does not have {} coordinates",
                        s.region,
                        s.metric,
                        p.coordinate,
                        self.parameters.len()
                    )));
                }
                let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
                let point = measurement_json(&p.coordinate, &p.values, arrays.len());
                // JSON has no infinity: the statistics too must be finite.
                if p.values.is_empty()
                    || !finite(&p.coordinate)
                    || !finite(&p.values)
                    || point.is_none()
                {
                    return Err(unwritable(format!(
                        "`{}`/`{}`: point {:?} needs finite coordinates and values, and statistics within f64's range",
                        s.region, s.metric, p.coordinate
                    )));
                }
                points.push(point.unwrap_or_default());
                arrays.push(&p.values);
            }
            // Series of one region may be apart; a map keeps this linear.
            let at = *region_at.entry(s.region.as_str()).or_insert_with(|| {
                measurements.0.push((s.region.clone(), Ordered::default()));
                measurements.0.len() - 1
            });
            let region = &mut measurements.0[at].1;
            if !metrics_seen.insert((s.region.as_str(), s.metric.as_str())) {
                return Err(unwritable(format!("`{}`/`{}` twice", s.region, s.metric)));
            }
            region.0.push((s.metric.clone(), points));
        }
        let modelers = match models {
            Some(set) => {
                let actual =
                    |region: &str, metric: &str| self.measured(region, metric, set.measure);
                vec![model::model_set_json(set, &self.parameters, actual).map_err(unwritable)?]
            }
            None => Vec::new(),
        };
        let doc = FileOut {
            version: EXTRAP_VERSION,
            parameters: &self.parameters,
            measurements,
            modelers,
        };
        let text = serde_json::to_string(&doc).map_err(|e| unwritable(e.to_string()))?;
        let (chunk, index) = values::write_chunk(&arrays);
        zip_members(&[
            ("values/0.vals", &chunk, false),
            ("values/0.indx", &index, false),
            (EXPERIMENT_JSON, text.as_bytes(), true),
        ])
        .map_err(|e| unwritable(e.to_string()))
    }

    /// Writes [`Experiment::to_extrap_bytes`] to `path`.
    pub fn write_extrap_file(
        &self,
        path: impl AsRef<Path>,
        models: Option<&ModelSet<'_>>,
    ) -> Result<(), ExtrapError> {
        let bytes = self.to_extrap_bytes(models)?;
        let path = path.as_ref();
        std::fs::write(path, bytes).map_err(|source| ExtrapError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// A series' points as `(coordinate, the measure of its repetitions)`.
    fn measured(&self, region: &str, metric: &str, measure: Aggregate) -> Vec<(Vec<f64>, f64)> {
        self.series(region, metric)
            .map(|s| {
                s.points
                    .iter()
                    .map(|p| (p.coordinate.clone(), measure.apply(&mut p.values.clone())))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One measurement as Extra-P's JSON: its statistics and where its values are.
/// `None` when a statistic overflows.
fn measurement_json(coordinate: &[f64], values: &[f64], index: usize) -> Option<Value> {
    let mean = stats::mean(values);
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
    let median = stats::median(values);
    let fold = |f: fn(f64, f64) -> f64, start: f64| values.iter().copied().fold(start, f);
    [mean, variance, median]
        .iter()
        .all(|v| v.is_finite())
        .then(|| {
            json!({
                "coordinate": coordinate,
                "median": median,
                "mean": mean,
                "minimum": fold(f64::min, f64::INFINITY),
                "maximum": fold(f64::max, f64::NEG_INFINITY),
                "std": variance.sqrt(),
                "repetitions": values.len(),
                "values": [0, index],
            })
        })
}

/// A zip of `(name, bytes, deflated)` members.
fn zip_members(members: &[(&str, &[u8], bool)]) -> zip::result::ZipResult<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, deflated) in members {
        let method = if *deflated {
            zip::CompressionMethod::Deflated
        } else {
            zip::CompressionMethod::Stored
        };
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(method)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(*name, options)?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// Reads a member whole, refusing one that announces more than
/// [`MEMBER_LIMIT`].
fn read_member<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
    file: &Path,
) -> Result<Vec<u8>, ExtrapError> {
    let fail = |message: String| ExtrapError::Archive {
        file: file.to_path_buf(),
        part: name.to_string(),
        message,
    };
    let member = zip.by_name(name).map_err(|e| fail(e.to_string()))?;
    if member.size() > MEMBER_LIMIT {
        return Err(fail(format!(
            "{} bytes, more than the limit of {MEMBER_LIMIT}",
            member.size()
        )));
    }
    let mut bytes = Vec::with_capacity(member.size() as usize);
    member
        .take(MEMBER_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    Ok(bytes)
}

fn read_archive<R: Read + Seek>(
    reader: R,
    file: &Path,
    measure: Aggregate,
) -> Result<Experiment, ExtrapError> {
    let fail = |part: &str, message: String| ExtrapError::Archive {
        file: file.to_path_buf(),
        part: part.to_string(),
        message,
    };
    let mut zip = zip::ZipArchive::new(reader)
        .map_err(|e| fail("zip", format!("not an Extra-P experiment file: {e}")))?;
    let text = read_member(&mut zip, EXPERIMENT_JSON, file)?;
    let parsed: FileExperiment =
        serde_json::from_slice(&text).map_err(|e| fail(EXPERIMENT_JSON, e.to_string()))?;
    if parsed.parameters.is_empty() {
        return Err(fail(EXPERIMENT_JSON, "no parameters".into()));
    }
    let mut chunks = Chunks::default();
    let mut filler = SeriesFiller::default();
    for (region, by_metric) in &parsed.measurements.0 {
        for (metric, points) in &by_metric.0 {
            for (i, m) in points.iter().enumerate() {
                let at = || format!("measurement {i} of `{region}`/`{metric}`");
                if m.coordinate.len() != parsed.parameters.len() {
                    let message = format!(
                        "{}: {} coordinates for {} parameters",
                        at(),
                        m.coordinate.len(),
                        parsed.parameters.len()
                    );
                    return Err(fail(EXPERIMENT_JSON, message));
                }
                let values = match (m.values, measure) {
                    (Some((chunk, index)), _) => chunks
                        .array(&mut zip, file, chunk, index)
                        .map_err(|e| fail(EXPERIMENT_JSON, format!("{}: {e}", at())))?,
                    (None, Aggregate::Median) => m.median.into_iter().collect(),
                    (None, Aggregate::Mean) => m.mean.into_iter().collect(),
                };
                if values.is_empty() {
                    let message = format!("{}: no values, and no {:?}", at(), measure);
                    return Err(fail(EXPERIMENT_JSON, message.to_lowercase()));
                }
                filler.add(region, metric, &m.coordinate, &values);
            }
        }
    }
    Ok(Experiment {
        parameters: parsed.parameters,
        series: filler.into_series(),
    })
}

/// The value chunks read so far, each read once, with its index.
#[derive(Default)]
struct Chunks {
    read: BTreeMap<u64, (Vec<u8>, Vec<u64>)>,
}

impl Chunks {
    fn array<R: Read + Seek>(
        &mut self,
        zip: &mut zip::ZipArchive<R>,
        file: &Path,
        chunk: u64,
        index: u64,
    ) -> Result<Vec<f64>, ExtrapError> {
        if let std::collections::btree_map::Entry::Vacant(e) = self.read.entry(chunk) {
            let vals = format!("values/{chunk}.vals");
            let indx = format!("values/{chunk}.indx");
            let bytes = read_member(zip, &vals, file)?;
            let offsets =
                values::read_index(&read_member(zip, &indx, file)?).map_err(|message| {
                    ExtrapError::Archive {
                        file: file.to_path_buf(),
                        part: indx,
                        message,
                    }
                })?;
            e.insert((bytes, offsets));
        }
        let (bytes, offsets) = &self.read[&chunk];
        let part = || format!("values/{chunk}.vals");
        let offset = usize::try_from(index)
            .ok()
            .and_then(|i| offsets.get(i))
            .ok_or_else(|| ExtrapError::Archive {
                file: file.to_path_buf(),
                part: part(),
                message: format!("array {index} of {} in the chunk", offsets.len()),
            })?;
        values::read_array(bytes, *offset).map_err(|message| ExtrapError::Archive {
            file: file.to_path_buf(),
            part: part(),
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::Fitter;

    fn member(bytes: &[u8], name: &str) -> Vec<u8> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        read_member(&mut zip, name, Path::new("t")).unwrap()
    }

    fn two_parameters() -> Experiment {
        let mut ex = Experiment::new(&["p", "n"]);
        for p in [2.0, 4.0, 8.0, 16.0, 32.0] {
            for n in [10.0, 20.0, 40.0, 80.0, 160.0] {
                let y = 3.0 + 2.0 * p * n + 0.5 * n;
                ex.add("main->solve", "time", &[p, n], &[y, y * 1.001]);
                ex.add("main", "visits", &[p, n], &[1.0]);
            }
        }
        ex
    }

    #[test]
    fn an_experiment_and_its_models_round_trip_in_extrap_terms() {
        let ex = two_parameters();
        let fitter = Fitter::default();
        let fit = ex
            .series("main->solve", "time")
            .unwrap()
            .fit(&fitter, &ex.parameters)
            .unwrap();
        let visits = ex
            .series("main", "visits")
            .unwrap()
            .fit(&fitter, &ex.parameters)
            .unwrap();
        let set = ModelSet {
            name: "mine".into(),
            measure: Aggregate::Median,
            models: vec![("main->solve", "time", &fit), ("main", "visits", &visits)],
        };
        let bytes = ex.to_extrap_bytes(Some(&set)).unwrap();
        // The repetitions come back exactly, in the same order.
        let back = Experiment::read_extrap_bytes(&bytes, Aggregate::Mean).unwrap();
        assert_eq!(back, ex);
        let doc: Value = serde_json::from_slice(&member(&bytes, EXPERIMENT_JSON)).unwrap();
        let point = &doc["measurements"]["main->solve"]["time"][0];
        assert_eq!(point["coordinate"], json!([2.0, 10.0]));
        assert_eq!(point["repetitions"], json!(2));
        assert_eq!(point["median"], json!(stats::median(&[48.0, 48.0 * 1.001])));
        assert_eq!(point["values"], json!([0, 0]));
        let modeler = &doc["modelers"][0];
        assert_eq!(modeler["name"], json!("mine"));
        assert_eq!(modeler["modeler"]["$type"], json!("MultiParameterModeler"));
        assert_eq!(modeler["modeler"]["use_measure"], json!("MEDIAN"));
        let hypothesis = &modeler["models"]["main->solve"]["time"]["hypothesis"];
        assert_eq!(hypothesis["$type"], json!("MultiParameterHypothesis"));
        let function = &hypothesis["function"];
        assert_eq!(function["$type"], json!("MultiParameterFunction"));
        // 2·p·n + 0.5·n + 3: one term in n alone, one in both parameters.
        let terms = function["compound_terms"].as_array().unwrap();
        let mut pairs: Vec<Vec<&str>> = terms
            .iter()
            .map(|t| {
                t["parameter_term_pairs"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect()
            })
            .collect();
        pairs.sort();
        assert_eq!(pairs, [vec!["0", "1"], vec!["1"]]);
        let linear = json!([{"term_type": "polynomial", "exponent": "1"}]);
        assert!(
            terms
                .iter()
                .all(|t| t["parameter_term_pairs"]["1"]["simple_terms"] == linear)
        );
        assert!(hypothesis["AR2"].as_f64().unwrap() > 0.999);
        let constant = &modeler["models"]["main"]["visits"]["hypothesis"];
        assert_eq!(constant["$type"], json!("ConstantHypothesis"));
        assert_eq!(
            constant["function"],
            json!({"constant_coefficient": 1.0, "$type": "ConstantFunction"})
        );
        assert_eq!(constant["RSS"], json!(0.0));
    }

    #[test]
    fn a_single_parameter_model_writes_fractions_and_logarithms() {
        let mut ex = Experiment::new(&["x"]);
        for x in [4.0f64, 8.0, 16.0, 32.0, 64.0, 128.0] {
            ex.add("r", "m", &[x], &[5.0 + 3.0 * x.sqrt() * x.log2()]);
        }
        let fit = ex
            .series("r", "m")
            .unwrap()
            .fit(&Fitter::default(), &ex.parameters)
            .unwrap();
        let set = ModelSet {
            name: "s".into(),
            measure: Aggregate::Mean,
            models: vec![("r", "m", &fit)],
        };
        let doc: Value = serde_json::from_slice(&member(
            &ex.to_extrap_bytes(Some(&set)).unwrap(),
            EXPERIMENT_JSON,
        ))
        .unwrap();
        let hypothesis = &doc["modelers"][0]["models"]["r"]["m"]["hypothesis"];
        assert_eq!(hypothesis["$type"], json!("SingleParameterHypothesis"));
        assert_eq!(hypothesis["_use_measure"], json!("MEAN"));
        let term = &hypothesis["function"]["compound_terms"][0];
        assert_eq!(
            term["simple_terms"],
            json!([{"term_type": "polynomial", "exponent": "1/2"}, {"term_type": "logarithm", "exponent": 1.0}])
        );
        assert!((term["coefficient"].as_f64().unwrap() - 3.0).abs() < 1e-9);
        // Four costs of an exact fit are zero; SMAPE in percent.
        for cost in ["RSS", "rRSS", "SMAPE", "RE"] {
            assert!(hypothesis[cost].as_f64().unwrap() < 1e-12, "{cost}");
        }
    }

    /// An experiment file as Extra-P writes it without `--keep-values`.
    fn summarized(doc: &str) -> Vec<u8> {
        zip_members(&[(EXPERIMENT_JSON, doc.as_bytes(), true)]).unwrap()
    }

    #[test]
    fn a_file_without_repetitions_gives_each_point_its_median_or_mean() {
        let doc = r#"{"Extra-P": "4.2.5", "parameters": ["x"], "measurements": {"r": {"m": [
            {"coordinate": [2.0], "median": 4.0, "mean": 4.5, "repetitions": 3, "values": null},
            {"coordinate": [4.0], "median": 8.0, "mean": 8.5, "repetitions": 3}]}}}"#;
        let bytes = summarized(doc);
        let values = |measure| {
            let ex = Experiment::read_extrap_bytes(&bytes, measure).unwrap();
            ex.series("r", "m")
                .unwrap()
                .points
                .iter()
                .map(|p| p.values.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(values(Aggregate::Median), [[4.0], [8.0]]);
        assert_eq!(values(Aggregate::Mean), [[4.5], [8.5]]);
    }

    #[test]
    fn malformed_files_are_errors_naming_the_member_and_the_place() {
        let error = |bytes: &[u8]| {
            Experiment::read_extrap_bytes(bytes, Aggregate::Median)
                .unwrap_err()
                .to_string()
        };
        assert!(error(b"PARAMETER x").contains("not an Extra-P experiment file"));
        let no_json = zip_members(&[("other.json", b"{}", true)]).unwrap();
        assert!(error(&no_json).contains("(experiment.json)"));
        let e = error(&summarized(
            "{\"parameters\": [\"x\"],\n \"measurements\": {\"r\": 3}}",
        ));
        assert!(
            e.contains("(experiment.json)") && e.contains("line 2"),
            "{e}"
        );
        for (doc, wanted) in [
            (r#"{"parameters": []}"#, "no parameters"),
            (
                r#"{"parameters": ["x"], "measurements": {"r": {"m": [{"coordinate": [1, 2], "mean": 1}]}}}"#,
                "2 coordinates for 1 parameters",
            ),
            (
                r#"{"parameters": ["x"], "measurements": {"r": {"m": [{"coordinate": [1], "mean": 1}]}}}"#,
                "no values, and no median",
            ),
            (
                r#"{"parameters": ["x"], "measurements": {"r": {"m": [{"coordinate": [1], "values": [0, 0]}]}}}"#,
                "(values/0.vals)",
            ),
        ] {
            let e = error(&summarized(doc));
            assert!(e.contains(wanted), "{doc}: {e}");
        }
        // The index names three arrays; the measurement asks for the fifth.
        let (chunk, index) = values::write_chunk(&[&[1.0], &[2.0], &[3.0]]);
        let doc = r#"{"parameters": ["x"], "measurements": {"r": {"m": [{"coordinate": [1], "values": [0, 4]}]}}}"#;
        let bytes = zip_members(&[
            ("values/0.vals", &chunk, false),
            ("values/0.indx", &index, false),
            (EXPERIMENT_JSON, doc.as_bytes(), true),
        ])
        .unwrap();
        assert!(error(&bytes).contains("array 4 of 3"));
        // A truncated archive is refused, never read in part.
        let whole = two_parameters().to_extrap_bytes(None).unwrap();
        for cut in [10, whole.len() / 2, whole.len() - 1] {
            assert!(
                Experiment::read_extrap_bytes(&whole[..cut], Aggregate::Median).is_err(),
                "{cut}"
            );
        }
    }

    #[test]
    fn what_extrap_cannot_hold_is_refused_when_written() {
        let mut ex = Experiment::new(&["x"]);
        ex.add("r", "m", &[1.0], &[f64::NAN]);
        assert!(matches!(
            ex.to_extrap_bytes(None),
            Err(ExtrapError::Unwritable(_))
        ));
        for (coordinate, values) in [(f64::INFINITY, [1.0, 1.0]), (1.0, [f64::MAX, f64::MAX])] {
            let mut ex = Experiment::new(&["x"]);
            ex.add("r", "m", &[coordinate], &values);
            assert!(matches!(
                ex.to_extrap_bytes(None),
                Err(ExtrapError::Unwritable(_))
            ));
        }
        let mut ex = Experiment::new(&["x"]);
        ex.add("r", "m", &[1.0, 2.0], &[1.0]);
        assert!(matches!(
            ex.to_extrap_bytes(None),
            Err(ExtrapError::Unwritable(_))
        ));
        assert!(Experiment::new(&[]).to_extrap_bytes(None).is_err());
    }
}
