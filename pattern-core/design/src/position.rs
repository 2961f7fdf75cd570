//! Where a byte offset of a design text is, for an error: its line and
//! column, and an excerpt of its line with the column marked. An error keeps
//! only the excerpt, never the text, and the offsets of many errors are
//! located in one pass: a design of 10^5 atoms with an error at each stays
//! linear in time and memory.

/// At most this many characters of the line are shown on each side of the
/// position.
const CONTEXT: usize = 60;

/// A position in a design text, with the excerpt of its line an error shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    /// Byte offset in the text.
    pub offset: usize,
    /// Line, 1-based.
    pub line: usize,
    /// Column, 1-based, in characters.
    pub column: usize,
    /// The line, or the part of it around the position (`...` where cut).
    pub excerpt: String,
    /// Characters of the excerpt before the position.
    pub caret: usize,
}

/// Locates offsets of one text, moving forward from the last one located
/// (so increasing offsets cost one pass over the text in all).
pub(crate) struct Locator<'a> {
    text: &'a str,
    /// Where the scan is, on a character boundary.
    at: usize,
    /// The line of `at` (1-based), the byte where it starts and the
    /// characters from there to `at`.
    line: usize,
    line_start: usize,
    chars: usize,
}

impl<'a> Locator<'a> {
    /// A locator at the start of `text`.
    pub fn new(text: &'a str) -> Locator<'a> {
        Locator {
            text,
            at: 0,
            line: 1,
            line_start: 0,
            chars: 0,
        }
    }

    /// The position of `offset` (moved back to a character boundary inside
    /// the text).
    pub fn locate(&mut self, offset: usize) -> Position {
        let mut target = offset.min(self.text.len());
        while !self.text.is_char_boundary(target) {
            target -= 1;
        }
        if target < self.at {
            *self = Locator::new(self.text);
        }
        for (i, c) in self.text[self.at..target].char_indices() {
            if c == '\n' {
                self.line += 1;
                self.line_start = self.at + i + 1;
                self.chars = 0;
            } else {
                self.chars += 1;
            }
        }
        self.at = target;
        let (excerpt, caret) = self.excerpt(target);
        Position {
            offset,
            line: self.line,
            column: self.chars + 1,
            excerpt,
            caret,
        }
    }

    /// At most [`CONTEXT`] characters of the line on each side of `at`.
    fn excerpt(&self, at: usize) -> (String, usize) {
        let before = &self.text[self.line_start..at];
        let mut start = at;
        let mut caret = 0;
        for (i, _) in before.char_indices().rev().take(CONTEXT) {
            start = self.line_start + i;
            caret += 1;
        }
        let after = &self.text[at..];
        let line_end = after.find('\n').map_or(self.text.len(), |i| at + i);
        let mut end = at;
        for (i, c) in self.text[at..line_end].char_indices().take(CONTEXT) {
            end = at + i + c.len_utf8();
        }
        let mut excerpt = String::new();
        if start > self.line_start {
            excerpt.push_str("...");
            caret += 3;
        }
        excerpt.push_str(&self.text[start..end]);
        if end < line_end {
            excerpt.push_str("...");
        }
        (excerpt, caret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_columns_and_excerpts() {
        let text = "a = 1;\nb = é;\npipe(a, b)";
        let mut at = Locator::new(text);
        let p = at.locate(11);
        assert_eq!((p.line, p.column), (2, 5));
        assert_eq!((p.excerpt.as_str(), p.caret), ("b = é;", 4));
        // Inside `é`: moved back to its start.
        let p = at.locate(12);
        assert_eq!((p.offset, p.line, p.column), (12, 2, 5));
        let p = at.locate(text.len() + 5);
        assert_eq!((p.line, p.column, p.caret), (3, 11, 10));
        // Backwards: scanned again from the start.
        let p = at.locate(0);
        assert_eq!((p.line, p.column, p.excerpt.as_str()), (1, 1, "a = 1;"));
    }

    #[test]
    fn a_long_line_is_cut_around_the_position() {
        let text = format!("{}^{}", "x".repeat(100), "y".repeat(100));
        let p = Locator::new(&text).locate(100);
        assert_eq!(p.column, 101);
        assert_eq!(
            p.excerpt,
            format!("...{}^{}...", "x".repeat(60), "y".repeat(59))
        );
        assert_eq!(p.caret, 63);
        let short = Locator::new("pipe(a, b)").locate(8);
        assert_eq!((short.excerpt.as_str(), short.caret), ("pipe(a, b)", 8));
    }
}
