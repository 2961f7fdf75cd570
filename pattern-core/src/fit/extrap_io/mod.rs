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

mod experiment;
mod json;
mod text;

use std::path::Path;

pub use experiment::{DEFAULT_METRIC, DEFAULT_REGION, Experiment, ExtrapError, Point, Series};

impl Experiment {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const TWO_PARAMS: &str = "\
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
}
