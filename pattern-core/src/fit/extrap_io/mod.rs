//! Extra-P's input formats: read its text and JSON files (new JSON, legacy
//! JSON, JSON Lines and Talpas) and Extra-P 3's binary experiment files,
//! and write text and JSON that Extra-P reads, so a model can be
//! cross-checked in Extra-P. With the feature
//! `extrap-archives`, its experiment files (`.extra-p`) too, read and
//! written with models that open in its GUI, and CUBE 4 experiments (a
//! directory of Score-P runs, as its `--cube`: `Experiment::read_cube`).
//! Extra-P's printed models
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

#[cfg(feature = "extrap-archives")]
mod cube;
mod experiment;
#[cfg(feature = "extrap-archives")]
mod experiment_file;
mod extrap3;
mod json;
mod text;

use std::path::Path;

#[cfg(feature = "extrap-archives")]
pub use cube::{CubeOptions, CubeRead, Scaling};
pub use experiment::{DEFAULT_METRIC, DEFAULT_REGION, Experiment, ExtrapError, Point, Series};
#[cfg(feature = "extrap-archives")]
pub use experiment_file::{MEMBER_LIMIT, ModelSet};
pub use extrap3::is_extrap3;

impl Experiment {
    /// Reads a file: JSON (`.json`, `.jsonl`, in any case: Extra-P's own
    /// test files end in `.JSON`; or any file that starts with `{`, as
    /// Talpas files, which end in `.txt`), Extra-P's text format otherwise.
    pub fn read_file(path: impl AsRef<Path>) -> Result<Experiment, ExtrapError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ExtrapError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if is_json_path(path) {
            Experiment::read_json(&text)
        } else {
            Experiment::read_any(&text)
        }
    }

    /// Reads a text by its content: JSON (any of [`Experiment::read_json`]'s
    /// formats) if it starts with `{`, Extra-P's text format otherwise (whose
    /// first word is a keyword or a comment).
    pub fn read_any(text: &str) -> Result<Experiment, ExtrapError> {
        if text.trim_start().starts_with('{') {
            Experiment::read_json(text)
        } else {
            Experiment::read_text(text)
        }
    }
}

/// Whether `path` names a JSON file: `.json` or `.jsonl`, in any case.
pub fn is_json_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonl"))
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
DATA 20
DATA 30
DATA 40
DATA 50
";

    #[test]
    fn json_is_told_by_extension_in_any_case_or_by_its_first_character() {
        for (name, json) in [
            ("a.json", true),
            ("a.JSON", true),
            ("a.JsonL", true),
            ("a.txt", false),
            ("json", false),
        ] {
            assert_eq!(is_json_path(Path::new(name)), json, "{name}");
        }
        let dir = std::env::temp_dir().join(format!("extrap-case-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("input.JSON");
        let doc = r#"{"parameters": ["x"], "measurements": {"r": {"m": [{"point": [1], "values": [2]}]}}}"#;
        std::fs::write(&path, doc).unwrap();
        let ex = Experiment::read_file(&path).unwrap();
        assert_eq!(ex.series("r", "m").unwrap().points[0].values, [2.0]);
        // A Talpas file ends in `.txt`: read by its first character.
        let talpas = dir.join("talpas.txt");
        let line = r#"{"parameters":{"x":1};"metric":"m";"callpath":"r";"value":2}"#;
        std::fs::write(&talpas, format!("{line}\n")).unwrap();
        assert_eq!(Experiment::read_file(&talpas).unwrap(), ex);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(Experiment::read_any(&format!("  {doc}")).unwrap(), ex);
        let text = Experiment::read_any("PARAMETER x\nPOINTS 1\nREGION r\nMETRIC m\nDATA 2\n");
        assert_eq!(text.unwrap(), ex);
    }

    #[test]
    fn text_and_json_round_trip() {
        let mut ex = Experiment::read_text(TWO_PARAMS).unwrap();
        assert!(ex.to_text().is_ok());
        // Not writable: the metrics cover different points.
        ex.add("main", "visits", &[16.0, 1000.0], &[60.0]);
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
