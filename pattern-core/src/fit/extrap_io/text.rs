//! Extra-P's text format: `PARAMETER`, `POINTS`, `REGION`, `METRIC` and
//! `DATA` lines.

use super::experiment::{
    DEFAULT_METRIC, DEFAULT_REGION, Experiment, ExtrapError, SeriesFiller, same_coordinate,
};
use std::fmt::Write as _;

impl Experiment {
    /// Reads Extra-P's text format: `PARAMETER`, `POINTS`, `REGION`,
    /// `METRIC` and `DATA` lines, `#` comments. `DATA` lines give the
    /// repetitions of the points in `POINTS` order; `REGION` and `METRIC`
    /// start over at the first point.
    pub fn read_text(text: &str) -> Result<Experiment, ExtrapError> {
        let mut ex = Experiment::default();
        let mut coordinates: Vec<Vec<f64>> = Vec::new();
        let mut region = DEFAULT_REGION.to_string();
        let mut metric = DEFAULT_METRIC.to_string();
        let mut any_data = false;
        let mut filler = SeriesFiller::default();
        let mut block = Block::default();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // An error at `part`, a piece of this line.
            let at = |part: &str, message: String| {
                ExtrapError::syntax(line_no, column_of(raw, part), message)
            };
            let (field, value) = match line.split_once(char::is_whitespace) {
                Some((f, v)) => (f, v.trim()),
                None => (line, ""),
            };
            match field {
                "PARAMETER" => {
                    if !coordinates.is_empty() {
                        return Err(at(field, "PARAMETER after POINTS".into()));
                    }
                    if value.is_empty() {
                        return Err(at(field, "PARAMETER without a name".into()));
                    }
                    ex.parameters
                        .extend(value.split_whitespace().map(str::to_string));
                }
                "POINTS" => {
                    let dims = ex.parameters.len();
                    if dims == 0 {
                        return Err(at(field, "POINTS before any PARAMETER".into()));
                    }
                    for c in parse_points(value, dims).map_err(|(m, part)| at(part, m))? {
                        coordinates.push(c);
                    }
                }
                "REGION" | "METRIC" => {
                    if value.is_empty() {
                        return Err(at(field, format!("{field} without a name")));
                    }
                    block.close(coordinates.len(), &region, &metric)?;
                    if field == "REGION" {
                        region = value.to_string();
                    } else {
                        metric = value.to_string();
                    }
                    block = Block::default();
                }
                "DATA" => {
                    let values = value
                        .split_whitespace()
                        .map(|v| {
                            v.parse::<f64>()
                                .map_err(|_| at(v, format!("`{v}` is not a number")))
                        })
                        .collect::<Result<Vec<f64>, _>>()?;
                    if values.is_empty() {
                        return Err(at(field, "DATA without values".into()));
                    }
                    let Some(c) = coordinates.get(block.lines) else {
                        return Err(at(
                            field,
                            format!(
                                "more DATA lines than POINTS ({}) for region `{region}`, metric `{metric}`",
                                coordinates.len()
                            ),
                        ));
                    };
                    filler.add(&region, &metric, c, &values);
                    block
                        .first_data
                        .get_or_insert((line_no, column_of(raw, field)));
                    block.lines += 1;
                    any_data = true;
                }
                other => {
                    return Err(at(
                        field,
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
        block.close(coordinates.len(), &region, &metric)?;
        if !any_data {
            return Err(ExtrapError::Invalid("no DATA line".into()));
        }
        ex.series = filler.into_series();
        Ok(ex)
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
}

/// The `DATA` lines since the last `REGION` or `METRIC` line: one for each
/// point of `POINTS`, or none.
#[derive(Default)]
struct Block {
    /// How many.
    lines: usize,
    /// Line and column of the first.
    first_data: Option<(usize, usize)>,
}

impl Block {
    /// An error unless the block has a line for each of the `points`, or
    /// none (a `REGION` line followed by its first `METRIC`): fewer would
    /// put the values on the wrong points.
    fn close(&self, points: usize, region: &str, metric: &str) -> Result<(), ExtrapError> {
        match self.first_data {
            Some((line, column)) if self.lines != points => Err(ExtrapError::syntax(
                line,
                column,
                format!(
                    "region `{region}`, metric `{metric}` has {} DATA lines from here, but POINTS has {points} points (one DATA line for each point, in order)",
                    self.lines
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The coordinates of a `POINTS` value: `(a b) (c d)` groups, or bare
/// numbers for one parameter.
fn parse_points(value: &str, dims: usize) -> Result<Vec<Vec<f64>>, (String, &str)> {
    fn number(s: &str) -> Result<f64, (String, &str)> {
        s.parse::<f64>()
            .map_err(|_| (format!("`{s}` is not a number"), s))
    }
    if !value.contains('(') {
        if dims != 1 {
            return Err((
                format!("with {dims} parameters, POINTS must be parenthesized groups like `(1 2)`"),
                value,
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
            return Err((format!("expected `(` at `{rest}`"), rest));
        };
        let Some(close) = after_open.find(')') else {
            return Err(("unclosed `(`".into(), rest));
        };
        let coordinate = after_open[..close]
            .split_whitespace()
            .map(number)
            .collect::<Result<Vec<f64>, _>>()?;
        if coordinate.len() != dims {
            return Err((
                format!(
                    "point ({}) has {} coordinates, but there are {dims} parameters",
                    after_open[..close].trim(),
                    coordinate.len()
                ),
                rest,
            ));
        }
        out.push(coordinate);
        rest = after_open[close + 1..].trim_start();
    }
    if out.is_empty() {
        return Err(("POINTS without points".into(), value));
    }
    Ok(out)
}

/// The 1-based column, in characters, where `part` (a slice of `line`)
/// starts; 1 if it is not a slice of it.
fn column_of(line: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    line.get(..offset)
        .map_or(1, |before| before.chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::super::tests::TWO_PARAMS;
    use super::*;

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
        assert_eq!(visits.points.len(), 5);
        assert_eq!(visits.points[4].values, [50.0]);
        assert_eq!(time.points_multi().len(), 8);
    }

    #[test]
    fn text_errors_have_line_numbers() {
        let err = |t: &str| Experiment::read_text(t).unwrap_err().to_string();
        // Fewer DATA lines than points: refused, not put on the first points.
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2 3 4 5\nDATA 1\nDATA 2\nDATA 3\nDATA 4\n"),
            "line 3, column 1: region `<root>`, metric `<default>` has 4 DATA lines from here, but POINTS has 5 points (one DATA line for each point, in order)"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2\nREGION r\nMETRIC a\nDATA 1\nMETRIC b\nDATA 1\nDATA 2\n"),
            "line 5, column 1: region `r`, metric `a` has 1 DATA lines from here, but POINTS has 2 points (one DATA line for each point, in order)"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n"),
            "line 5, column 1: more DATA lines than POINTS (2) for region `<root>`, metric `<default>`"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1 2\nDATA 1 x\n"),
            "line 3, column 8: `x` is not a number"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\nFOO 1\n"),
            "line 3, column 1: unknown field `FOO` (expected PARAMETER, POINTS, REGION, METRIC or DATA)"
        );
        assert_eq!(
            err("POINTS 1\n"),
            "line 1, column 1: POINTS before any PARAMETER"
        );
        assert_eq!(
            err("PARAMETER a b\nPOINTS (1 2) (3)\n"),
            "line 2, column 14: point (3) has 1 coordinates, but there are 2 parameters"
        );
        assert_eq!(
            err("PARAMETER a b\nPOINTS 1 2\n"),
            "line 2, column 8: with 2 parameters, POINTS must be parenthesized groups like `(1 2)`"
        );
        assert_eq!(
            err("PARAMETER a\nPOINTS (1 (2)\n"),
            "line 2, column 11: `(2` is not a number"
        );
        assert_eq!(
            err("PARAMETER a\nPOINTS (1\n"),
            "line 2, column 8: unclosed `(`"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\nDATA\n"),
            "line 3, column 1: DATA without values"
        );
        assert_eq!(
            err("PARAMETER x\nPOINTS 1\n"),
            "invalid experiment: no DATA line"
        );
        assert_eq!(err(""), "invalid experiment: no PARAMETER line");
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
}
