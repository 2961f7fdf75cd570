//! What the parser says when a text is not a cost expression.

use std::fmt;

/// A syntax error: what was expected, what was found, and where.
///
/// `Display` shows the message, then the input with a caret under the offending
/// position:
///
/// ```
/// use pattern_core::Expr;
///
/// let err = Expr::parse("2 * (x + 1").unwrap_err();
/// assert_eq!(err.offset(), 10);
/// assert_eq!(
///     err.to_string(),
///     "expected `)` to close the `(` at byte 4, found the end of the input at byte 10\n  2 * (x + 1\n            ^"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    input: String,
    offset: usize,
    expected: String,
    found: String,
    /// The `(` an unclosed parenthesis error refers to.
    pub(crate) open: Option<usize>,
}

impl ParseError {
    pub(crate) fn new(
        input: &str,
        offset: usize,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        ParseError {
            input: input.to_string(),
            offset,
            expected: expected.into(),
            found: found.into(),
            open: None,
        }
    }

    /// The byte offset of the error in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the parser expected at that position.
    pub fn expected(&self) -> String {
        match self.open {
            Some(open) => format!("{} at byte {open}", self.expected),
            None => self.expected.clone(),
        }
    }

    /// What it found there instead.
    pub fn found(&self) -> &str {
        &self.found
    }

    /// The text that was parsed.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Moves the error into a larger text that contains the parsed one at
    /// byte `base` (used by the design parser for atom definitions).
    pub fn shifted(self, whole_input: &str, base: usize) -> ParseError {
        ParseError {
            input: whole_input.to_string(),
            offset: self.offset + base,
            open: self.open.map(|open| open + base),
            ..self
        }
    }

    /// The line (1-based) and column (1-based, in characters) of the error.
    pub fn line_col(&self) -> (usize, usize) {
        let before = &self.input[..self.offset.min(self.input.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected {}, found {} at byte {}",
            self.expected(),
            self.found,
            self.offset
        )?;
        let offset = self.offset.min(self.input.len());
        let line_start = self.input[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.input[offset..]
            .find('\n')
            .map_or(self.input.len(), |i| offset + i);
        let column = self.input[line_start..offset].chars().count();
        write!(
            f,
            "\n  {}\n  {}^",
            &self.input[line_start..line_end],
            " ".repeat(column)
        )
    }
}

impl std::error::Error for ParseError {}
