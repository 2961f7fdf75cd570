//! Extra-P's JSON formats: reading the current format, the legacy format
//! and JSON Lines; writing the current format.

use super::experiment::{DEFAULT_METRIC, DEFAULT_REGION, Experiment, ExtrapError, SeriesFiller};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;

impl Experiment {
    /// Reads Extra-P's JSON input: the current format (`parameters`,
    /// `measurements: {region: {metric: [{point, values}]}}`), the legacy
    /// format (`parameters`, `callpaths`, `metrics`, `coordinates`,
    /// `measurements` with ids), JSON Lines (`{"params": {...}, "value":
    /// ..., "callpath": ..., "metric": ...}` per line) or Talpas (JSON Lines
    /// with `parameters` for `params` and `;` between the fields).
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
        let mut filler = SeriesFiller::default();
        for (region, metrics) in self.measurements {
            for (metric, points) in metrics {
                for p in points {
                    let c = p.point.into_vec();
                    if c.len() != ex.parameters.len() {
                        return Err(ExtrapError::Invalid(format!(
                            "point {} of `{region}`/`{metric}` does not have {} coordinates",
                            coordinate_text(&c),
                            ex.parameters.len()
                        )));
                    }
                    let values = p.values.into_vec();
                    if values.is_empty() {
                        return Err(ExtrapError::Invalid(format!(
                            "point {} of `{region}`/`{metric}` has no values",
                            coordinate_text(&c)
                        )));
                    }
                    filler.add(&region, &metric, &c, &values);
                }
            }
        }
        ex.series = filler.into_series();
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
        let name_of = |names: &std::collections::HashMap<i64, &Named>, id: i64, what: &str| {
            names
                .get(&id)
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
        // Names by id, looked up once per measurement.
        let callpaths: std::collections::HashMap<_, _> =
            self.callpaths.iter().rev().map(|n| (n.id, n)).collect();
        let metrics: std::collections::HashMap<_, _> =
            self.metrics.iter().rev().map(|n| (n.id, n)).collect();
        let mut filler = SeriesFiller::default();
        let mut measured = std::collections::HashSet::new();
        for m in &self.measurements {
            let region = name_of(&callpaths, m.callpath_id, "callpath")?;
            let metric = name_of(&metrics, m.metric_id, "metric")?;
            let c = coordinates.get(&m.coordinate_id).ok_or_else(|| {
                ExtrapError::Invalid(format!("unknown coordinate id {}", m.coordinate_id))
            })?;
            filler.add(&region, &metric, c, &[m.value]);
            measured.insert(m.coordinate_id);
        }
        // A coordinate no measurement names would vanish from the fit.
        if let Some(id) = coordinates.keys().find(|id| !measured.contains(*id)) {
            return Err(ExtrapError::Invalid(format!(
                "coordinate {id} has no measurements"
            )));
        }
        ex.series = filler.into_series();
        Ok(ex)
    }
}

/// A coordinate as the files write it, `[1024, 4]`.
fn coordinate_text(c: &[f64]) -> String {
    let parts: Vec<String> = c.iter().map(f64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// A JSON object read as `(key, value)` pairs in document order (parameter
/// and call-path order matter, and serde_json's map would sort the keys).
/// Written, the pairs make an object in their order.
pub(super) struct Ordered<T>(pub(super) Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Ordered<T> {
        Ordered(Vec::new())
    }
}

impl<T: serde::Serialize> serde::Serialize for Ordered<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ordered<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, T>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A line of JSON Lines, or of Talpas (`parameters`).
#[derive(Deserialize)]
struct JsonLine {
    #[serde(alias = "parameters")]
    params: Ordered<f64>,
    value: OneOrMany,
    callpath: Option<String>,
    metric: Option<String>,
}

fn read_json_lines(text: &str) -> Result<Experiment, ExtrapError> {
    let mut ex = Experiment::default();
    let mut filler = SeriesFiller::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: JsonLine = match serde_json::from_str(line) {
            Ok(record) => record,
            Err(e) => match talpas_as_json(line) {
                Some(json) => serde_json::from_str(&json).map_err(|e| ExtrapError::json(&e, i))?,
                None => return Err(ExtrapError::json(&e, i)),
            },
        };
        if ex.parameters.is_empty() {
            ex.parameters = record.params.0.iter().map(|(k, _)| k.clone()).collect();
            if ex.parameters.is_empty() {
                return Err(ExtrapError::syntax(i + 1, 1, "no parameters in `params`"));
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
            coordinate.push(v.ok_or_else(|| {
                ExtrapError::syntax(i + 1, 1, format!("missing parameter `{p}`"))
            })?);
        }
        let region = record.callpath.as_deref().unwrap_or(DEFAULT_REGION);
        let metric = record.metric.as_deref().unwrap_or(DEFAULT_METRIC);
        filler.add(region, metric, &coordinate, &record.value.into_vec());
    }
    ex.series = filler.into_series();
    if ex.series.is_empty() {
        return Err(ExtrapError::Invalid("no measurements".into()));
    }
    Ok(ex)
}

/// A Talpas line as JSON: each `;` between fields becomes `,`, one byte
/// for one so that an error's column is the line's; a `;` inside a string
/// stays (Extra-P replaces those too, changing a call path's name). `None`
/// if the line has no `;`.
fn talpas_as_json(line: &str) -> Option<String> {
    if !line.contains(';') {
        return None;
    }
    let mut json = String::with_capacity(line.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in line.chars() {
        let c = match c {
            _ if escaped => {
                escaped = false;
                c
            }
            '\\' if in_string => {
                escaped = true;
                c
            }
            '"' => {
                in_string = !in_string;
                c
            }
            ';' if !in_string => ',',
            _ => c,
        };
        json.push(c);
    }
    Some(json)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn reads_talpas() {
        let talpas = "{\"parameters\":{\"p\":4;\"n\":10};\"metric\":\"time\";\"callpath\":\"main;solve\";\"value\":7.5}\n\
                      {\"parameters\":{\"p\":4;\"n\":10};\"metric\":\"time\";\"callpath\":\"main;solve\";\"value\":8.5}\n\n\
                      {\"parameters\":{\"n\":20;\"p\":8};\"metric\":\"time\";\"callpath\":\"main;solve\";\"value\":9}\n";
        let ex = Experiment::read_json(talpas).unwrap();
        assert_eq!(ex.parameters, ["p", "n"]);
        let s = ex.series("main;solve", "time").unwrap();
        assert_eq!(s.points[0].coordinate, [4.0, 10.0]);
        assert_eq!(s.points[0].values, [7.5, 8.5]);
        assert_eq!(s.points[1].coordinate, [8.0, 20.0]);
        // The error's column is the line's own.
        let e = Experiment::read_json(
            "{\"parameters\":{\"p\":4};\"value\":1}\n{\"parameters\":{\"p\":4};\"value\":x}\n",
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                ExtrapError::Json {
                    line: 2,
                    column: 31,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            talpas_as_json(r#"{"a":"x\\";"b":"y;z"}"#).unwrap(),
            r#"{"a":"x\\","b":"y;z"}"#
        );
        assert_eq!(talpas_as_json(r#"{"a":1}"#), None);
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
        assert_eq!(e.to_string(), "line 2, column 1: missing parameter `x`");
        let e = Experiment::read_json("{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": 3}\n")
            .unwrap_err();
        assert!(matches!(e, ExtrapError::Json { line: 2, .. }), "{e}");
        let e = Experiment::read_json("[1, 2").unwrap_err();
        assert!(matches!(e, ExtrapError::Json { line: 1, .. }), "{e}");
        let e = Experiment::read_json(r#"{"parameters": ["x", "y"], "measurements": {"r": {"m": [{"point": [1], "values": [1]}]}}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid experiment: point [1] of `r`/`m` does not have 2 coordinates"
        );
    }

    /// A coordinate without measurements is refused, not dropped.
    #[test]
    fn coordinates_without_values_are_refused() {
        let e = Experiment::read_json(
            r#"{"parameters": ["x"], "measurements": {"r": {"m": [
            {"point": [1], "values": [1]}, {"point": [2], "values": []}]}}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid experiment: point [2] of `r`/`m` has no values"
        );
        let legacy = r#"{
          "parameters": [{"id": 1, "name": "p"}],
          "callpaths": [{"id": 1, "name": "main"}],
          "metrics": [{"id": 1, "name": "time"}],
          "coordinates": [
              {"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 4}]},
              {"id": 2, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 8}]}],
          "measurements": [{"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 7.5}]}"#;
        let e = Experiment::read_json(legacy).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid experiment: coordinate 2 has no measurements"
        );
    }
}
