//! Values of the command line that clap cannot read by itself: a point
//! (`x=1024,n=4`) and the range of a variable (`x=1..1e6`). A bad value is a
//! usage error (exit code 2), reported by clap with the option it was given to.

use std::fmt;

/// A point: a value for each of some variables, in the order written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point(pub Vec<(String, f64)>);

impl Point {
    /// The bindings, as the library's evaluations take them.
    pub fn bindings(&self) -> Vec<(&str, f64)> {
        self.0.iter().map(|(n, v)| (n.as_str(), *v)).collect()
    }

    /// Whether no variable is bound.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Whether `name` is a variable name as the model texts write them.
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits `name=value` and checks the name.
fn assignment(part: &str) -> Result<(&str, &str), String> {
    let (name, value) = part
        .split_once('=')
        .ok_or_else(|| format!("`{part}` is not `name=value`"))?;
    let name = name.trim();
    if !is_name(name) {
        return Err(format!("`{name}` is not a variable name"));
    }
    Ok((name, value.trim()))
}

/// A finite number.
fn number(name: &str, text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!(
            "the value of `{name}`, `{text}`, is not a finite number"
        )),
    }
}

/// Reads a point, `x=1024,n=4`: each variable once, each value a finite
/// number.
pub fn point(text: &str) -> Result<Point, String> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for part in text.split(',') {
        let (name, value) = assignment(part)?;
        if out.iter().any(|(n, _)| n == name) {
            return Err(format!("`{name}` is given twice"));
        }
        out.push((name.to_string(), number(name, value)?));
    }
    Ok(Point(out))
}

/// The range of one variable over which designs are compared: whole
/// numbers from `lo` to `hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// The variable.
    pub var: String,
    /// Smallest value.
    pub lo: u64,
    /// Largest value.
    pub hi: u64,
}

/// The largest whole number a range may reach: beyond it integers stop
/// being exact in floating point.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// A whole number from 1 to 2^53, written as an integer or in scientific
/// notation (`1e6`).
fn whole(name: &str, text: &str) -> Result<u64, String> {
    let v = number(name, text)?;
    if v.fract() != 0.0 || !(1.0..=MAX_EXACT).contains(&v) {
        return Err(format!(
            "the bound `{text}` of `{name}` is not a whole number from 1 to 2^53"
        ));
    }
    // Exact: a whole number in range.
    Ok(v as u64)
}

/// Reads ranges, `x=1..1e6` or `x=1..1e6,n=1..16`.
pub fn ranges(text: &str) -> Result<Vec<Range>, String> {
    let mut out: Vec<Range> = Vec::new();
    for part in text.split(',') {
        let (name, value) = assignment(part)?;
        let (lo, hi) = value
            .split_once("..")
            .ok_or_else(|| format!("the range of `{name}`, `{value}`, is not `lo..hi`"))?;
        let (lo, hi) = (whole(name, lo.trim())?, whole(name, hi.trim())?);
        if lo > hi {
            return Err(format!("the range of `{name}` is empty: {lo} > {hi}"));
        }
        if out.iter().any(|r| r.var == name) {
            return Err(format!("`{name}` is given twice"));
        }
        out.push(Range {
            var: name.to_string(),
            lo,
            hi,
        });
    }
    Ok(out)
}

/// Reads a span of a real variable, `1..1e7` or `0.5..2`: finite ends,
/// the first below the second.
pub fn span(text: &str) -> Result<(f64, f64), String> {
    let (lo, hi) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not `lo..hi`"))?;
    let (lo, hi) = (number("lo", lo.trim())?, number("hi", hi.trim())?);
    if lo >= hi {
        return Err(format!(
            "the span {lo}..{hi} is empty: its start is not below its end"
        ));
    }
    Ok((lo, hi))
}

/// Splits a named axis, `n=1..16:16`, into the name and the axis' text
/// (read by `pattern_core::explore::sweep::Axis::parse`, which points at
/// its errors).
pub fn named_axis(text: &str) -> Result<(String, String), String> {
    let (name, axis) = assignment(text)?;
    Ok((name.to_string(), axis.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A point prints as it reads: `x = 1024, n = 4` reads back.
        #[test]
        fn points_read_back(values in prop::collection::vec(-1e300f64..1e300, 1..6)) {
            let p = Point(values.iter().enumerate().map(|(i, v)| (format!("v{i}"), *v)).collect());
            prop_assert_eq!(point(&p.to_string()), Ok(p));
        }

        /// Every range written `lo..hi` with 1 <= lo <= hi <= 2^53 reads.
        #[test]
        fn ranges_read(lo in 1u64..=1 << 53, span in 0u64..=1 << 53) {
            let hi = lo.saturating_add(span).min(1 << 53);
            let r = ranges(&format!("x={lo}..{hi}")).unwrap();
            prop_assert_eq!(r, vec![Range { var: "x".into(), lo, hi }]);
        }
    }

    #[test]
    fn points() {
        let p = point("x=1024, n = 4").unwrap();
        assert_eq!(p.bindings(), [("x", 1024.0), ("n", 4.0)]);
        assert_eq!(p.to_string(), "x = 1024, n = 4");
        assert_eq!(point("x=1e3").unwrap().bindings(), [("x", 1000.0)]);
        for bad in [
            "x", "x=", "x=abc", "x=inf", "1x=2", "x=1,x=2", "", "x=1,,n=2",
        ] {
            assert!(point(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn spans_and_axes() {
        assert_eq!(span("1..1e7"), Ok((1.0, 1e7)));
        assert_eq!(span(" 0.5 .. 2"), Ok((0.5, 2.0)));
        for bad in ["1", "2..1", "1..1", "a..2", "1..inf"] {
            assert!(span(bad).is_err(), "{bad}");
        }
        assert_eq!(
            named_axis("n=1..16:16"),
            Ok(("n".to_string(), "1..16:16".to_string()))
        );
        assert!(named_axis("1..16").is_err());
    }

    #[test]
    fn domains() {
        let r = ranges("x=1..1e6,n=2..16").unwrap();
        assert_eq!(
            r,
            [
                Range {
                    var: "x".into(),
                    lo: 1,
                    hi: 1_000_000
                },
                Range {
                    var: "n".into(),
                    lo: 2,
                    hi: 16
                }
            ]
        );
        for bad in [
            "x=0..4",
            "x=5..4",
            "x=1.5..4",
            "x=1..1e20",
            "x=1-4",
            "x=1..4,x=1..5",
        ] {
            assert!(ranges(bad).is_err(), "{bad}");
        }
    }
}
