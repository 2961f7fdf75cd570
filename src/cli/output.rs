//! What a command prints: a text report for people and the same figures as
//! JSON (`--json`) for programs; numbers in the text rounded for reading,
//! exact in the JSON.

use serde_json::Value;
use std::fmt::Write as _;
use std::io::{self, Write};

/// A command's result, in both forms.
#[derive(Debug)]
pub struct Report {
    /// For people.
    pub text: String,
    /// For programs.
    pub json: Value,
}

/// Lines of text with aligned labels.
#[derive(Debug, Default)]
pub struct Text(pub String);

impl Text {
    /// A line, `label` padded to `width` then `value`, indented by `indent`.
    pub fn row(&mut self, indent: usize, width: usize, label: &str, value: impl std::fmt::Display) {
        // Writing to a String cannot fail.
        let _ = writeln!(self.0, "{:indent$}{label:<width$}  {value}", "");
    }

    /// A line as given.
    pub fn line(&mut self, line: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{line}");
    }
}

/// `v` to 6 significant digits, positional unless very large or small.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let rounded: f64 = format!("{v:.5e}").parse().unwrap_or(v);
    let magnitude = rounded.abs();
    if (1e-4..1e9).contains(&magnitude) {
        rounded.to_string()
    } else {
        format!("{rounded:e}")
    }
}

/// At most this many characters of a design's text in a report.
const SHOWN: usize = 160;

/// A design's text for a report: cut after 160 characters (a design may
/// have 10^5 atoms; the JSON keeps it whole).
pub fn shown(design: impl std::fmt::Display) -> String {
    let text = design.to_string();
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A JSON number, or `null` for a value that is not finite.
pub fn json_num(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// Counts as text: `a = 5, b = 3` (`none` for no count).
pub fn counts_text(counts: &[(String, u64)]) -> String {
    if counts.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = counts.iter().map(|(n, c)| format!("{n} = {c}")).collect();
    parts.join(", ")
}

/// Counts as a JSON object, `{"a": 5, "b": 3}`, in order.
pub fn counts_json(counts: &[(String, u64)]) -> Value {
    Value::Object(
        counts
            .iter()
            .map(|(n, c)| (n.clone(), Value::from(*c)))
            .collect(),
    )
}

/// A point's bindings as a JSON object.
pub fn point_json(point: &[(&str, f64)]) -> Value {
    Value::Object(
        point
            .iter()
            .map(|(n, v)| (n.to_string(), json_num(*v)))
            .collect(),
    )
}

/// Writes `text` to `out` (standard output). A reader that went away (a
/// closed pipe, `| head`) is not an error: the rest is simply not wanted.
pub fn print_to(out: &mut dyn Write, text: &str) -> io::Result<()> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts print as the integers they are, up to 2^64 - 1, in the text
    /// and in the JSON.
    #[test]
    fn counts_are_exact_up_to_u64_max() {
        let counts = vec![
            ("a".to_string(), u64::MAX),
            ("b".to_string(), 123456789012345),
        ];
        assert_eq!(
            counts_text(&counts),
            "a = 18446744073709551615, b = 123456789012345"
        );
        let json = counts_json(&counts);
        assert_eq!(json["a"].as_u64(), Some(u64::MAX));
        assert_eq!(
            serde_json::to_string(&json).unwrap(),
            r#"{"a":18446744073709551615,"b":123456789012345}"#
        );
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(num(258542.7), "258543");
        assert_eq!(num(1.0 / 3.0), "0.333333");
        assert_eq!(num(1234567890123.0), "1.23457e12");
        assert_eq!(num(-2.5e-7), "-2.5e-7");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(json_num(f64::NAN), Value::Null);
        assert_eq!(shown("pipe(a, b)"), "pipe(a, b)");
        let long = format!("pipe({})", vec!["a"; 1000].join(", "));
        assert_eq!(shown(&long).chars().count(), SHOWN + 1);
        assert!(shown(&long).ends_with('…'));
    }
}
