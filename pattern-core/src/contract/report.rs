//! The report of a check: what was measured, fitted and compared, as text
//! (`Display`), JSON ([`Report::to_json`]) and SVG (`Report::svg`, feature
//! `plots`).

use super::verdict::{ClassOrder, Ratios, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One size of a check: the timings' median and spread, the annotated and
/// the fitted time, and their ratio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The size.
    pub x: usize,
    /// The median of the repetitions, ns per call.
    pub median_ns: f64,
    /// The fastest repetition.
    pub min_ns: f64,
    /// The slowest repetition.
    pub max_ns: f64,
    /// How many repetitions.
    pub repetitions: usize,
    /// The annotation's value.
    pub annotated_ns: f64,
    /// The fitted model's value.
    pub fitted_ns: f64,
    /// `median_ns / annotated_ns`.
    pub ratio: f64,
}

/// What a [`Contract`](super::Contract) found: the annotated and the
/// fitted model, their growth classes, the ratio measured / annotated over
/// the sizes, the fitted model as an annotation to paste, every size's
/// timings, and the verdict. Print it for the text; [`Report::to_json`]
/// for the exact numbers; `Report::svg` (feature `plots`) for the curves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The function's name, as its annotation records it.
    pub function: String,
    /// The annotated model, ns per call; for a design, the machine its
    /// time per element is predicted on and its operators' model.
    pub annotated: String,
    /// The annotated model's growth class.
    pub annotated_class: String,
    /// The model fitted to the timings, coefficients to 4 significant
    /// digits (each point's `fitted_ns` is the exact model's).
    pub fitted: String,
    /// The fitted model's growth class.
    pub fitted_class: String,
    /// The fitted class against the annotated one.
    pub class: ClassOrder,
    /// With a higher fitted class: whether a model of the annotated class
    /// fits the timings within their noise (then the class is no breach).
    pub class_within_noise: bool,
    /// The fitted model, coefficients to 4 digits, as an annotation ready
    /// to paste: `#[cost("1.21 * x * log2(x) + 1650")]`.
    pub suggestion: String,
    /// The tolerance: measured within a factor `1 + tolerance` of the
    /// annotation, either way.
    pub tolerance: f64,
    /// The ratio measured / annotated over the sizes.
    pub ratios: Ratios,
    /// Every size, ascending.
    pub points: Vec<Point>,
    /// Whether the annotation holds, and if not why.
    pub verdict: Verdict,
    /// How many times the function was measured: after a failed verdict
    /// it is measured again ([`Contract::attempts`](super::Contract::attempts));
    /// the report is of the last measurement.
    pub attempts: usize,
}

impl Report {
    /// Whether the annotation holds ([`Verdict::holds`]).
    pub fn holds(&self) -> bool {
        self.verdict.holds
    }

    /// The report as JSON; the numbers are exact (they read back
    /// bit for bit).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report is plain data")
    }

    /// A report read back from [`Report::to_json`].
    pub fn from_json(text: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl fmt::Display for Report {
    /// The verdict with its breaches, one a line, the two models and their
    /// classes, the ratios, the annotation to paste, and a table of the
    /// sizes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.holds() { "holds" } else { "FAILS" };
        let measured = match self.attempts {
            1 => String::new(),
            n => format!(" (measured {n} times)"),
        };
        writeln!(
            f,
            "cost contract of `{}`, tolerance ±{} %: {verdict}{measured}",
            self.function,
            self.tolerance * 100.0
        )?;
        for breach in &self.verdict.breaches {
            writeln!(f, "  - {breach}")?;
        }
        writeln!(
            f,
            "  annotated  {}   {}",
            self.annotated, self.annotated_class
        )?;
        let noise = if self.class == ClassOrder::Higher && self.class_within_noise {
            ", but the annotated class fits within the noise"
        } else {
            ""
        };
        writeln!(
            f,
            "  measured   {}   {}: {} class{noise}",
            self.fitted, self.fitted_class, self.class
        )?;
        let (first, last) = match (self.points.first(), self.points.last()) {
            (Some(a), Some(b)) => (a.x, b.x),
            _ => (0, 0),
        };
        let r = &self.ratios;
        writeln!(
            f,
            "  measured / annotated: min {:.3}, median {:.3}, max {:.3}; {:.3} at x = {first}, {:.3} at x = {last}",
            r.min, r.median, r.max, r.first, r.last
        )?;
        writeln!(f, "  to paste: {}", self.suggestion)?;
        writeln!(
            f,
            "  {:>10} {:>14} {:>25} {:>14} {:>14} {:>7}",
            "x", "measured ns", "(min – max)", "annotated ns", "fitted ns", "ratio"
        )?;
        for p in &self.points {
            let spread = format!("({} – {})", short(p.min_ns), short(p.max_ns));
            writeln!(
                f,
                "  {:>10} {:>14} {:>25} {:>14} {:>14} {:>7.3}",
                p.x,
                short(p.median_ns),
                spread,
                short(p.annotated_ns),
                short(p.fitted_ns),
                p.ratio
            )?;
        }
        Ok(())
    }
}

/// `v` to 4 significant digits, in exponent form when large.
fn short(v: f64) -> String {
    if v != 0.0 && !(1e-2..1e6).contains(&v.abs()) {
        format!("{v:.3e}")
    } else {
        format!("{}", round_significant(v, 4))
    }
}

/// `v` rounded to `digits` significant digits.
pub(super) fn round_significant(v: f64, digits: usize) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    format!("{v:.*e}", digits.saturating_sub(1))
        .parse()
        .unwrap_or(v)
}
