//! An axis of a sweep and its text: `1e3..1e7`, `1..64:lin`,
//! `1e3..1e7:9:log`, `1,2,4,8`, `4096`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// At most this many values on one axis.
pub const MAX_AXIS_POINTS: usize = 1 << 20;

/// How the values of a range are spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Spacing {
    /// Evenly.
    Linear,
    /// Evenly on a log scale (a constant ratio between neighbours).
    Log,
}

/// The values of one variable in a sweep.
///
/// The text of an axis ([`Axis::parse`]) is a range, a list or one value:
/// - `lo..hi` with options after colons: a count (`:9`, at least 2) and a
///   spacing (`:log` or `:lin`), in any order. Without a spacing, a range
///   whose ends are positive and two decades apart or more is log-spaced,
///   any other linear. Without a count, a log range has 5 values per
///   decade and its ends; a linear range of integers at most 64 apart has
///   every integer, any other linear range 11 values.
/// - `v1,v2,...`: those values, in that order.
/// - `v`: one value.
///
/// ```
/// use pattern_core::explore::sweep::Axis;
///
/// let x = Axis::parse("x", "1e3..1e5")?;
/// assert_eq!(x.values().len(), 11);
/// assert_eq!((x.values()[0], x.values()[5], x.values()[10]), (1e3, 1e4, 1e5));
/// assert_eq!(Axis::parse("n", "1..4")?.values(), [1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(Axis::parse("n", "1..8:4:log")?.values(), [1.0, 2.0, 4.0, 8.0]);
/// assert_eq!(Axis::parse("n", "0..1:3")?.values(), [0.0, 0.5, 1.0]);
/// let err = Axis::parse("x", "1e3..1e7:9:lgo").unwrap_err();
/// assert_eq!(err.to_string(), "unknown option `lgo`: a count, `log` or `lin` at column 12\n  1e3..1e7:9:lgo\n             ^");
/// # Ok::<(), pattern_core::explore::sweep::RangeError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    name: String,
    values: Vec<f64>,
}

/// What is wrong with an axis' text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RangeErrorKind {
    /// Nothing to read.
    #[error("an empty axis: give `lo..hi`, a list `a,b,c` or a value")]
    Empty,
    /// Text that is no number.
    #[error("`{0}` is not a number")]
    Number(String),
    /// A number that is not finite.
    #[error("`{0}` is not finite")]
    NotFinite(String),
    /// A count that is no integer of at least 2.
    #[error("`{0}` is no count of values (an integer, at least 2)")]
    Count(String),
    /// A count over [`MAX_AXIS_POINTS`].
    #[error("{count} values, more than the {max} an axis takes")]
    TooMany {
        /// The count asked for.
        count: String,
        /// The limit.
        max: usize,
    },
    /// A range whose end is below its start.
    #[error("the range ends at {hi}, below its start {lo}")]
    Reversed {
        /// The start.
        lo: f64,
        /// The end.
        hi: f64,
    },
    /// A log-spaced range that reaches 0 or below.
    #[error("a log-spaced range needs positive ends, found {0}")]
    LogNotPositive(f64),
    /// An option after a colon that is no count, `log` or `lin`.
    #[error("unknown option `{0}`: a count, `log` or `lin`")]
    Option(String),
    /// An option given twice (two counts, two spacings).
    #[error("`{0}` repeats an option already given")]
    Repeated(String),
    /// Options after a list or a single value.
    #[error("options (`:..`) only follow a range `lo..hi`")]
    OptionsWithoutRange,
}

/// An axis' text that cannot be read: what, and where (a byte offset).
/// `Display` shows the text with a caret under the place.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeError {
    kind: RangeErrorKind,
    text: String,
    offset: usize,
}

impl RangeError {
    fn new(kind: RangeErrorKind, text: &str, offset: usize) -> RangeError {
        RangeError {
            kind,
            text: text.to_string(),
            offset,
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &RangeErrorKind {
        &self.kind
    }

    /// Where, as a byte offset into the text.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Where, as a column (1-based, in characters).
    pub fn column(&self) -> usize {
        self.text[..self.offset].chars().count() + 1
    }
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let column = self.column();
        write!(f, "{} at column {column}", self.kind)?;
        write!(f, "\n  {}\n  {}^", self.text, " ".repeat(column - 1))
    }
}

impl std::error::Error for RangeError {}

/// A piece of the text and its byte offset, spaces trimmed.
fn trimmed(text: &str, start: usize, end: usize) -> (&str, usize) {
    let piece = &text[start..end];
    let lead = piece.len() - piece.trim_start().len();
    (piece.trim(), start + lead)
}

fn number(text: &str, piece: (&str, usize)) -> Result<f64, RangeError> {
    let (s, at) = piece;
    if s.is_empty() {
        return Err(RangeError::new(RangeErrorKind::Empty, text, at));
    }
    let v: f64 = s
        .parse()
        .map_err(|_| RangeError::new(RangeErrorKind::Number(s.to_string()), text, at))?;
    if !v.is_finite() {
        return Err(RangeError::new(
            RangeErrorKind::NotFinite(s.to_string()),
            text,
            at,
        ));
    }
    Ok(v)
}

impl Axis {
    /// The axis of `name` from its text (syntax in [`Axis`]).
    pub fn parse(name: &str, text: &str) -> Result<Axis, RangeError> {
        let mut pieces = text.split(':');
        let head = pieces.next().unwrap_or_default();
        let Some(dots) = head.find("..") else {
            if head.len() < text.len() {
                return Err(RangeError::new(
                    RangeErrorKind::OptionsWithoutRange,
                    text,
                    head.len(),
                ));
            }
            return Self::list(name, text);
        };
        let lo_at = trimmed(text, 0, dots);
        let hi_at = trimmed(text, dots + 2, head.len());
        let (lo, hi) = (number(text, lo_at)?, number(text, hi_at)?);
        if hi < lo {
            return Err(RangeError::new(
                RangeErrorKind::Reversed { lo, hi },
                text,
                hi_at.1,
            ));
        }
        let (mut count, mut spacing) = (None, None);
        let mut offset = head.len() + 1;
        for option in pieces {
            let (s, at) = trimmed(text, offset, offset + option.len());
            offset += option.len() + 1;
            let repeated = || RangeError::new(RangeErrorKind::Repeated(s.to_string()), text, at);
            match s {
                "log" | "lin" if spacing.is_some() => return Err(repeated()),
                "log" => spacing = Some((Spacing::Log, at)),
                "lin" => spacing = Some((Spacing::Linear, at)),
                _ if s.starts_with(|c: char| c.is_ascii_digit()) => {
                    if count.is_some() {
                        return Err(repeated());
                    }
                    count = Some(Self::count(text, s, at)?);
                }
                _ => {
                    return Err(RangeError::new(
                        RangeErrorKind::Option(s.to_string()),
                        text,
                        at,
                    ));
                }
            }
        }
        let decades = lo > 0.0 && hi / lo >= 100.0;
        let (spacing, spacing_at) = spacing.unwrap_or((
            if decades {
                Spacing::Log
            } else {
                Spacing::Linear
            },
            lo_at.1,
        ));
        if spacing == Spacing::Log && lo <= 0.0 {
            return Err(RangeError::new(
                RangeErrorKind::LogNotPositive(lo),
                text,
                spacing_at,
            ));
        }
        let count = match count {
            Some(count) => count,
            None if lo == hi => 1,
            None => match spacing {
                // In logarithms: `hi / lo` may pass `f64` (1e-320..1e308).
                Spacing::Log => {
                    let decades = hi.log10() - lo.log10();
                    (5.0 * decades).ceil().min(MAX_AXIS_POINTS as f64) as usize + 1
                }
                Spacing::Linear if lo.fract() == 0.0 && hi.fract() == 0.0 && hi - lo <= 64.0 => {
                    (hi - lo) as usize + 1
                }
                Spacing::Linear => 11,
            },
        };
        let count = count.min(MAX_AXIS_POINTS);
        Ok(Axis {
            name: name.to_string(),
            values: spread(lo, hi, count, spacing),
        })
    }

    fn count(text: &str, s: &str, at: usize) -> Result<usize, RangeError> {
        let error = || RangeError::new(RangeErrorKind::Count(s.to_string()), text, at);
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(error());
        }
        match s.parse::<usize>() {
            Ok(n) if n > MAX_AXIS_POINTS => Err(RangeError::new(
                RangeErrorKind::TooMany {
                    count: s.to_string(),
                    max: MAX_AXIS_POINTS,
                },
                text,
                at,
            )),
            Ok(n) if n >= 2 => Ok(n),
            Ok(_) => Err(error()),
            Err(_) => Err(RangeError::new(
                RangeErrorKind::TooMany {
                    count: s.to_string(),
                    max: MAX_AXIS_POINTS,
                },
                text,
                at,
            )),
        }
    }

    fn list(name: &str, text: &str) -> Result<Axis, RangeError> {
        if text.trim().is_empty() {
            return Err(RangeError::new(RangeErrorKind::Empty, text, 0));
        }
        let mut values = Vec::new();
        let mut offset = 0;
        for piece in text.split(',') {
            if values.len() == MAX_AXIS_POINTS {
                return Err(RangeError::new(
                    RangeErrorKind::TooMany {
                        count: "more".into(),
                        max: MAX_AXIS_POINTS,
                    },
                    text,
                    offset,
                ));
            }
            values.push(number(text, trimmed(text, offset, offset + piece.len()))?);
            offset += piece.len() + 1;
        }
        Ok(Axis {
            name: name.to_string(),
            values,
        })
    }

    /// `count` values from `lo` to `hi` (both included), spread as asked;
    /// the ends are exact.
    ///
    /// ```
    /// use pattern_core::explore::sweep::{Axis, Spacing};
    ///
    /// let a = Axis::range("x", 1.0, 1000.0, 4, Spacing::Log).unwrap();
    /// assert_eq!(a.values(), [1.0, 10.0, 100.0, 1000.0]);
    /// assert!(Axis::range("x", 0.0, 10.0, 4, Spacing::Log).is_err());
    /// ```
    pub fn range(
        name: &str,
        lo: f64,
        hi: f64,
        count: usize,
        spacing: Spacing,
    ) -> Result<Axis, RangeError> {
        let text = format!(
            "{lo}..{hi}:{count}:{}",
            match spacing {
                Spacing::Linear => "lin",
                Spacing::Log => "log",
            }
        );
        Axis::parse(name, &text)
    }

    /// An axis of the given values (finite, at least one).
    pub fn from_values(name: &str, values: &[f64]) -> Result<Axis, RangeError> {
        let text: Vec<String> = values.iter().map(f64::to_string).collect();
        Axis::list(name, &text.join(","))
    }

    /// The variable.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The values, in order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

/// `ratio^(i/last)` when `ratio` is an integer power of 10 or of 2 and
/// the exponent comes out an integer: exact, so that `1e3..1e7` meets
/// every power of ten and `1..64` every power of two.
fn exact_power(ratio: f64, i: usize, last: usize) -> Option<f64> {
    [10.0f64, 2.0].into_iter().find_map(|base| {
        let e = ratio.log(base).round();
        if !(1.0..=1100.0).contains(&e) || base.powi(e as i32) != ratio {
            return None;
        }
        let scaled = i.checked_mul(e as usize)?;
        (scaled % last == 0).then(|| base.powi((scaled / last) as i32))
    })
}

/// `count` values from `lo` to `hi`, the ends exact.
fn spread(lo: f64, hi: f64, count: usize, spacing: Spacing) -> Vec<f64> {
    if count == 1 || lo == hi {
        return vec![lo; count.max(1)];
    }
    let last = (count - 1) as f64;
    let mut values: Vec<f64> = match spacing {
        Spacing::Linear => (0..count)
            .map(|i| lo + (i as f64 * (hi - lo)) / last)
            .collect(),
        Spacing::Log => (0..count)
            .map(|i| match exact_power(hi / lo, i, count - 1) {
                Some(p) => lo * p,
                None if (hi / lo).is_finite() => lo * (hi / lo).powf(i as f64 / last),
                // In logarithms, where `hi / lo` passes `f64`.
                None => (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / last).exp(),
            })
            .collect(),
    };
    values[0] = lo;
    values[count - 1] = hi;
    values
}
