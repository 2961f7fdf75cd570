//! The textual design syntax: zero or more atom definitions `name = EXPR;`
//! followed by one term. Square brackets carry a pattern's parameters (the
//! paper's sub- and superscripts), parentheses its components:
//!
//! ```text
//! qsort = 1034.17 * x * log2(x);
//! inc   = 536.185 * x;
//! nop   = 5422.97;
//! pipe(tpool[4](qsort), inc, nop)
//! ```
//!
//! ```text
//! design    := (name '=' EXPR ';')* term ';'?
//! term      := name                                        an atom
//!            | ('seq' | 'pipe') '(' term (',' term)+ ')'    n-ary: nested to the right
//!            | 'tpool' '[' count ']' '(' term ')'
//!            | 'mapreduce' '[' param (',' param)* ']' '(' term ',' name ',' term ')'
//! count     := positive integer | name
//! param     := ('m' | 'n') '=' count | ('d' | 'k') '=' EXPR  m defaults to 1
//! ```
//!
//! The same syntax is what the `design!` macro accepts.

use crate::term::{Atom, Count, MapReduceParams, Term, TermError};
use crate::{Expr, ParseError};
use std::fmt;

/// A design parsed from text or built from a term: the term plus the
/// definitions of its atoms. Always well-formed.
///
/// ```
/// use pattern_core::Design;
///
/// let design = Design::parse(
///     "qsort = 1034.17 * x * log2(x);
///      inc   = 536.185 * x;
///      nop   = 5422.97;
///      pipe(tpool[4](qsort), inc, nop)",
/// )
/// .unwrap();
/// assert_eq!(design.term().to_string(), "pipe(tpool[4](qsort), inc, nop)");
/// // The paper's choice: the stage that grows fastest.
/// assert_eq!(design.model_asymptotic().to_string(), "258.5425·x·log₂(x)");
/// // Pointwise, every stage counts: at x = 2 the constant nop is the bottleneck.
/// let at = [("x", 2.0)];
/// assert_eq!(design.model().eval(&at).unwrap(), 5422.97);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    atoms: Vec<(String, Expr)>,
    term: Term,
}

/// What is wrong with a design text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DesignErrorKind {
    /// A cost expression did not parse.
    #[error("in a cost expression: expected {}, found {}", .0.expected(), .0.found())]
    Expr(ParseError),
    /// The text does not follow the grammar.
    #[error("expected {expected}, found {found}")]
    Syntax {
        /// What the parser expected.
        expected: String,
        /// What it found.
        found: String,
    },
    /// A name that is neither a defined atom nor a pattern.
    #[error("unknown atom `{name}` (defined: {defined})")]
    UnknownAtom {
        /// The name.
        name: String,
        /// The atoms that are defined.
        defined: String,
    },
    /// A pattern name that does not exist.
    #[error(
        "unknown pattern `{name}`: the patterns are seq, pipe, tpool, mapreduce, on, par and groups"
    )]
    UnknownPattern {
        /// The name.
        name: String,
    },
    /// A pattern with the wrong number of components.
    #[error("`{pattern}` takes {expected}, found {found}")]
    WrongArity {
        /// The pattern.
        pattern: String,
        /// How many it takes.
        expected: String,
        /// How many were given.
        found: usize,
    },
    /// A count of zero.
    #[error("a count of 0: counts are positive integers or names")]
    ZeroCount,
    /// Groups that need more processors than the enclosing group has.
    #[error(
        "these groups need {needed} processors but there are {available}: group sizes must add up to at most the processors of the enclosing group"
    )]
    OverSubscribed {
        /// The processors the groups need.
        needed: u64,
        /// The processors there are.
        available: u64,
    },
    /// A mapReduce (so a shuffle phase) inside a task pool.
    #[error(
        "a task pool cannot wrap a mapReduce: a shuffle phase must never be inside a task pool (seed 001 §3.2)"
    )]
    ShuffleInTpool,
    /// An atom defined twice, or a parameter given twice.
    #[error("`{name}` is given twice")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// A required mapReduce parameter is missing.
    #[error("mapreduce needs `{name}` ({what})")]
    MissingParam {
        /// The parameter.
        name: &'static str,
        /// What it is.
        what: &'static str,
    },
    /// A parameter mapreduce does not have.
    #[error("unknown mapreduce parameter `{name}`: the parameters are m, n, d, k")]
    UnknownParam {
        /// The name.
        name: String,
    },
    /// A pattern name used as an atom name.
    #[error("`{name}` is a pattern and cannot name an atom")]
    ReservedName {
        /// The name.
        name: String,
    },
}

/// A design text that could not be read: what went wrong and where.
/// `Display` shows the line with a caret under the position.
#[derive(Clone, Debug, PartialEq)]
pub struct DesignError {
    kind: Box<DesignErrorKind>,
    input: String,
    offset: usize,
}

impl DesignError {
    /// What went wrong.
    pub fn kind(&self) -> &DesignErrorKind {
        &self.kind
    }

    /// The byte offset in the design text.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The line (1-based) and column (1-based, in characters).
    pub fn line_col(&self) -> (usize, usize) {
        let before = &self.input[..self.offset.min(self.input.len())];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }
}

impl fmt::Display for DesignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (line, col) = self.line_col();
        write!(f, "{} at line {line}, column {col}", self.kind)?;
        let offset = self.offset.min(self.input.len());
        let start = self.input[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = self.input[offset..]
            .find('\n')
            .map_or(self.input.len(), |i| offset + i);
        write!(
            f,
            "\n  {}\n  {}^",
            &self.input[start..end],
            " ".repeat(col - 1)
        )
    }
}

impl std::error::Error for DesignError {}

const PATTERNS: [&str; 7] = ["seq", "pipe", "tpool", "mapreduce", "on", "par", "groups"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Int(&'a str),
    Punct(char),
    End,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) | Tok::Int(s) => format!("`{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::End => "the end of the design".to_string(),
        }
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    atoms: Vec<(String, Expr)>,
    depth: usize,
    /// The processors of the enclosing groups, where known (`on`, `par`,
    /// `groups`), to check that groups fit.
    processors: Vec<Option<u64>>,
}

const MAX_DEPTH: usize = 200;

impl<'a> Parser<'a> {
    fn err(&self, offset: usize, kind: DesignErrorKind) -> DesignError {
        DesignError {
            kind: Box::new(kind),
            input: self.input.to_string(),
            offset,
        }
    }

    fn skip_space(&mut self) {
        loop {
            let rest = &self.input[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            // `//` comments run to the end of the line.
            if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// The next token and its offset, without consuming it.
    fn peek(&mut self) -> (Tok<'a>, usize) {
        self.skip_space();
        let rest = &self.input[self.pos..];
        let Some(c) = rest.chars().next() else {
            return (Tok::End, self.pos);
        };
        let tok = if c.is_alphabetic() || c == '_' {
            let len = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            Tok::Ident(&rest[..len])
        } else if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
                .unwrap_or(rest.len());
            Tok::Int(&rest[..len])
        } else {
            Tok::Punct(c)
        };
        (tok, self.pos)
    }

    fn bump(&mut self) -> (Tok<'a>, usize) {
        let (tok, at) = self.peek();
        self.pos += match tok {
            Tok::Ident(s) | Tok::Int(s) => s.len(),
            Tok::Punct(c) => c.len_utf8(),
            Tok::End => 0,
        };
        (tok, at)
    }

    fn expect(&mut self, c: char, what: &str) -> Result<usize, DesignError> {
        let (tok, at) = self.peek();
        if tok == Tok::Punct(c) {
            self.bump();
            Ok(at)
        } else {
            Err(self.err(
                at,
                DesignErrorKind::Syntax {
                    expected: what.to_string(),
                    found: tok.describe(),
                },
            ))
        }
    }

    /// The raw text of an expression that ends at one of `stops` outside
    /// parentheses, parsed.
    fn expr_until(&mut self, stops: &[char]) -> Result<Expr, DesignError> {
        self.skip_space();
        let start = self.pos;
        let mut depth = 0i32;
        let mut end = self.input.len();
        for (i, c) in self.input[start..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                // `;` and `]` never occur in an expression: they end it at any depth.
                c if stops.contains(&c) && (depth == 0 || c == ';' || c == ']') => {
                    end = start + i;
                    break;
                }
                _ => {}
            }
        }
        let text = &self.input[start..end];
        let e = Expr::parse(text).map_err(|e| {
            let shifted = e.shifted(self.input, start);
            self.err(shifted.offset(), DesignErrorKind::Expr(shifted))
        })?;
        self.pos = end;
        Ok(e)
    }

    fn design(mut self) -> Result<Design, DesignError> {
        // Definitions: `name =` ahead means one more.
        loop {
            let save = self.pos;
            let (tok, at) = self.bump();
            let (next, _) = self.peek();
            match (tok, next) {
                (Tok::Ident(name), Tok::Punct('=')) => {
                    if PATTERNS.contains(&name) {
                        return Err(
                            self.err(at, DesignErrorKind::ReservedName { name: name.into() })
                        );
                    }
                    if self.atoms.iter().any(|(n, _)| n == name) {
                        return Err(self.err(at, DesignErrorKind::Duplicate { name: name.into() }));
                    }
                    self.bump();
                    let model = self.expr_until(&[';'])?;
                    self.expect(';', "`;` after the atom's model")?;
                    self.atoms.push((name.to_string(), model));
                }
                _ => {
                    self.pos = save;
                    break;
                }
            }
        }
        let term = self.term()?;
        if self.peek().0 == Tok::Punct(';') {
            self.bump();
        }
        let (tok, at) = self.peek();
        if tok != Tok::End {
            return Err(self.err(
                at,
                DesignErrorKind::Syntax {
                    expected: "the end of the design (one term after the definitions)".into(),
                    found: tok.describe(),
                },
            ));
        }
        Ok(Design {
            atoms: self.atoms,
            term,
        })
    }

    fn term(&mut self) -> Result<Term, DesignError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.peek().1;
            return Err(self.err(
                at,
                DesignErrorKind::Syntax {
                    expected: format!("at most {MAX_DEPTH} levels of nesting"),
                    found: "more".into(),
                },
            ));
        }
        let result = self.term_inner();
        self.depth -= 1;
        result
    }

    fn term_inner(&mut self) -> Result<Term, DesignError> {
        let (tok, at) = self.bump();
        let Tok::Ident(name) = tok else {
            return Err(self.err(
                at,
                DesignErrorKind::Syntax {
                    expected: "an atom or a pattern (seq, pipe, tpool, mapreduce)".into(),
                    found: tok.describe(),
                },
            ));
        };
        let next = self.peek().0;
        let is_call = matches!(next, Tok::Punct('(') | Tok::Punct('['));
        match name {
            "seq" if next == Tok::Punct('[') => self.redistribution(at),
            "on" | "groups" => self.group(name, at),
            "par" => self.par(at),
            "seq" | "pipe" => {
                if next == Tok::Punct('[') {
                    let at = self.peek().1;
                    return Err(self.err(
                        at,
                        DesignErrorKind::Syntax {
                            expected: format!("`(`: {name} has no parameters"),
                            found: "`[`".into(),
                        },
                    ));
                }
                let parts = self.components(name)?;
                if parts.len() < 2 {
                    return Err(self.err(
                        at,
                        DesignErrorKind::WrongArity {
                            pattern: name.into(),
                            expected: "two or more components".into(),
                            found: parts.len(),
                        },
                    ));
                }
                let join = if name == "seq" {
                    Term::seq_all
                } else {
                    Term::pipe_all
                };
                Ok(join(parts.into_iter().map(|(t, _)| t)).expect("two or more"))
            }
            "tpool" => {
                let (tok, bracket) = self.peek();
                if tok != Tok::Punct('[') {
                    return Err(self.err(
                        bracket,
                        DesignErrorKind::Syntax {
                            expected: "`[` and the thread count: tpool[n](task)".into(),
                            found: tok.describe(),
                        },
                    ));
                }
                self.bump();
                let n = self.count()?;
                self.expect(']', "`]` after the thread count")?;
                let mut parts = self.components(name)?;
                if parts.len() != 1 {
                    return Err(self.err(
                        at,
                        DesignErrorKind::WrongArity {
                            pattern: "tpool".into(),
                            expected: "one component".into(),
                            found: parts.len(),
                        },
                    ));
                }
                let (body, _) = parts.pop().expect("one");
                if body.has_shuffle() {
                    return Err(self.err(at, DesignErrorKind::ShuffleInTpool));
                }
                Ok(Term::tpool(n, body))
            }
            "mapreduce" | "mapReduce" => self.map_reduce(at),
            _ if is_call => {
                Err(self.err(at, DesignErrorKind::UnknownPattern { name: name.into() }))
            }
            _ => self.atom_ref(name, at).map(Term::Atom),
        }
    }

    fn atom_ref(&self, name: &str, at: usize) -> Result<Atom, DesignError> {
        match self.atoms.iter().find(|(n, _)| n == name) {
            Some((_, model)) => Ok(Atom {
                name: name.to_string(),
                model: model.clone(),
            }),
            None => {
                let defined: Vec<&str> = self.atoms.iter().map(|(n, _)| n.as_str()).collect();
                Err(self.err(
                    at,
                    DesignErrorKind::UnknownAtom {
                        name: name.into(),
                        defined: if defined.is_empty() {
                            "none".into()
                        } else {
                            defined.join(", ")
                        },
                    },
                ))
            }
        }
    }

    fn enclosing(&self) -> Option<u64> {
        self.processors.last().copied().flatten()
    }

    fn fits(&self, needed: u64, at: usize) -> Result<(), DesignError> {
        match self.enclosing() {
            Some(available) if needed > available => {
                Err(self.err(at, DesignErrorKind::OverSubscribed { needed, available }))
            }
            _ => Ok(()),
        }
    }

    /// `on[p](t)` and `groups[s](t)`.
    fn group(&mut self, name: &str, at: usize) -> Result<Term, DesignError> {
        let (tok, bracket) = self.peek();
        if tok != Tok::Punct('[') {
            let what = if name == "on" {
                "processors: on[p](task)"
            } else {
                "number of groups: groups[s](task)"
            };
            return Err(self.err(
                bracket,
                DesignErrorKind::Syntax {
                    expected: format!("`[` and the {what}"),
                    found: tok.describe(),
                },
            ));
        }
        self.bump();
        let count_at = self.peek().1;
        let count = self.count()?;
        self.expect(']', "`]` after the count")?;
        let fixed = match count {
            Count::Fixed(k) => Some(k),
            Count::Symbol(_) => None,
        };
        if let Some(k) = fixed {
            self.fits(k, count_at)?;
        }
        let inside = match (name, fixed) {
            ("on", k) => k.or(self.enclosing()),
            (_, Some(s)) => self.enclosing().map(|p| p / s),
            _ => None,
        };
        self.processors.push(inside);
        let parts = self.components(name);
        self.processors.pop();
        let mut parts = parts?;
        if parts.len() != 1 {
            return Err(self.err(
                at,
                DesignErrorKind::WrongArity {
                    pattern: name.into(),
                    expected: "one component".into(),
                    found: parts.len(),
                },
            ));
        }
        let (body, _) = parts.pop().expect("one");
        Ok(if name == "on" {
            Term::On(count, Box::new(body))
        } else {
            Term::Groups(count, Box::new(body))
        })
    }

    /// `par[p1, p2, ..](t1, t2, ..)`.
    fn par(&mut self, at: usize) -> Result<Term, DesignError> {
        let (tok, bracket) = self.peek();
        if tok != Tok::Punct('[') {
            return Err(self.err(
                bracket,
                DesignErrorKind::Syntax {
                    expected: "`[` and the group sizes: par[p1, p2](task1, task2)".into(),
                    found: tok.describe(),
                },
            ));
        }
        self.bump();
        let mut sizes = vec![self.count()?];
        while self.peek().0 == Tok::Punct(',') {
            self.bump();
            sizes.push(self.count()?);
        }
        self.expect(']', "`,` or `]` after a group size")?;
        let known: Option<u64> = sizes
            .iter()
            .map(|c| match c {
                Count::Fixed(k) => Some(*k),
                Count::Symbol(_) => None,
            })
            .sum();
        if let Some(needed) = known {
            self.fits(needed, bracket)?;
        }
        self.expect('(', "`(` and the components of par")?;
        let mut parts = Vec::new();
        loop {
            let size = match sizes.get(parts.len()) {
                Some(Count::Fixed(k)) => Some(*k),
                _ => None,
            };
            self.processors.push(size);
            let part = self.term();
            self.processors.pop();
            parts.push(part?);
            match self.bump() {
                (Tok::Punct(','), _) => continue,
                (Tok::Punct(')'), _) => break,
                (tok, at) => {
                    return Err(self.err(
                        at,
                        DesignErrorKind::Syntax {
                            expected: "`,` or `)` in par(...)".into(),
                            found: tok.describe(),
                        },
                    ));
                }
            }
        }
        if parts.len() != sizes.len() {
            return Err(self.err(
                at,
                DesignErrorKind::WrongArity {
                    pattern: "par".into(),
                    expected: format!("one component per group size ({})", sizes.len()),
                    found: parts.len(),
                },
            ));
        }
        Ok(Term::Par(sizes, parts))
    }

    /// `seq[redist = EXPR](a, b)`.
    fn redistribution(&mut self, at: usize) -> Result<Term, DesignError> {
        self.expect('[', "`[`")?;
        let (tok, name_at) = self.bump();
        if tok != Tok::Ident("redist") {
            return Err(self.err(
                name_at,
                DesignErrorKind::Syntax {
                    expected: "`redist = <cost>`: seq[redist = ..](a, b)".into(),
                    found: tok.describe(),
                },
            ));
        }
        self.expect('=', "`=` after `redist`")?;
        let cost = self.expr_until(&[']'])?;
        self.expect(']', "`]` after the redistribution cost")?;
        let parts = self.components("seq")?;
        if parts.len() != 2 {
            return Err(self.err(
                at,
                DesignErrorKind::WrongArity {
                    pattern: "seq[redist]".into(),
                    expected: "two components".into(),
                    found: parts.len(),
                },
            ));
        }
        let mut parts = parts.into_iter().map(|(t, _)| Box::new(t));
        let (a, b) = (parts.next().expect("two"), parts.next().expect("two"));
        Ok(Term::Redist(cost, a, b))
    }

    /// `( term, term, ... )` with the offset of each component.
    fn components(&mut self, pattern: &str) -> Result<Vec<(Term, usize)>, DesignError> {
        self.expect('(', &format!("`(` and the components of {pattern}"))?;
        let mut parts = Vec::new();
        if self.peek().0 == Tok::Punct(')') {
            self.bump();
            return Ok(parts);
        }
        loop {
            let at = self.peek().1;
            parts.push((self.term()?, at));
            match self.bump() {
                (Tok::Punct(','), _) => continue,
                (Tok::Punct(')'), _) => return Ok(parts),
                (tok, at) => {
                    return Err(self.err(
                        at,
                        DesignErrorKind::Syntax {
                            expected: format!("`,` or `)` in {pattern}(...)"),
                            found: tok.describe(),
                        },
                    ));
                }
            }
        }
    }

    fn count(&mut self) -> Result<Count, DesignError> {
        let (tok, at) = self.bump();
        match tok {
            Tok::Int(text) => match text.parse::<u64>() {
                Ok(0) => Err(self.err(at, DesignErrorKind::ZeroCount)),
                Ok(k) => Ok(Count::Fixed(k)),
                Err(_) => Err(self.err(
                    at,
                    DesignErrorKind::Syntax {
                        expected: "a positive integer or a name".into(),
                        found: tok.describe(),
                    },
                )),
            },
            Tok::Ident(name) => Ok(Count::Symbol(name.to_string())),
            _ => Err(self.err(
                at,
                DesignErrorKind::Syntax {
                    expected: "a count: a positive integer or a name".into(),
                    found: tok.describe(),
                },
            )),
        }
    }

    fn map_reduce(&mut self, at: usize) -> Result<Term, DesignError> {
        let (tok, bracket) = self.peek();
        if tok != Tok::Punct('[') {
            return Err(self.err(
                bracket,
                DesignErrorKind::Syntax {
                    expected: "`[` and the parameters: mapreduce[m = .., n = .., d = .., k = ..](map, shuffle, reduce)".into(),
                    found: tok.describe(),
                },
            ));
        }
        self.bump();
        let (mut m, mut n, mut d, mut k) = (None, None, None, None);
        loop {
            let (tok, name_at) = self.bump();
            let Tok::Ident(name) = tok else {
                return Err(self.err(
                    name_at,
                    DesignErrorKind::Syntax {
                        expected: "a parameter: m, n, d or k".into(),
                        found: tok.describe(),
                    },
                ));
            };
            self.expect('=', &format!("`=` after `{name}`"))?;
            let duplicate =
                |p: &Parser| p.err(name_at, DesignErrorKind::Duplicate { name: name.into() });
            match name {
                "m" | "n" => {
                    let slot = if name == "m" { &mut m } else { &mut n };
                    if slot.is_some() {
                        return Err(duplicate(self));
                    }
                    *slot = Some(self.count()?);
                }
                "d" | "k" => {
                    if (if name == "d" { &d } else { &k }).is_some() {
                        return Err(duplicate(self));
                    }
                    let e = self.expr_until(&[',', ']'])?;
                    *(if name == "d" { &mut d } else { &mut k }) = Some(e);
                }
                _ => {
                    return Err(
                        self.err(name_at, DesignErrorKind::UnknownParam { name: name.into() })
                    );
                }
            }
            match self.bump() {
                (Tok::Punct(','), _) => continue,
                (Tok::Punct(']'), _) => break,
                (tok, at) => {
                    return Err(self.err(
                        at,
                        DesignErrorKind::Syntax {
                            expected: "`,` or `]` after a parameter".into(),
                            found: tok.describe(),
                        },
                    ));
                }
            }
        }
        let missing =
            |p: &Parser, name, what| p.err(bracket, DesignErrorKind::MissingParam { name, what });
        let n = n.ok_or_else(|| missing(self, "n", "threads per node"))?;
        let d = d.ok_or_else(|| missing(self, "d", "elements per key, a function of x"))?;
        let k = k.ok_or_else(|| missing(self, "k", "number of keys, a function of x"))?;
        let m = m.unwrap_or(Count::Fixed(1));
        let parts = self.components("mapreduce")?;
        if parts.len() != 3 {
            return Err(self.err(
                at,
                DesignErrorKind::WrongArity {
                    pattern: "mapreduce".into(),
                    expected: "three components: map, shuffle, reduce".into(),
                    found: parts.len(),
                },
            ));
        }
        let mut parts = parts.into_iter();
        let (map, _) = parts.next().expect("three");
        let (shuffle, shuffle_at) = parts.next().expect("three");
        let (reduce, _) = parts.next().expect("three");
        let Term::Atom(shuffle) = shuffle else {
            return Err(self.err(
                shuffle_at,
                DesignErrorKind::Syntax {
                    expected: "the shuffle phase: an atom whose model is in x, o, m, n".into(),
                    found: format!("`{shuffle}`"),
                },
            ));
        };
        Ok(Term::map_reduce(
            MapReduceParams { m, n, d, k },
            map,
            shuffle,
            reduce,
        ))
    }
}

impl Design {
    /// Parses a design text; errors carry the position.
    ///
    /// ```
    /// use pattern_core::{Design, DesignErrorKind};
    ///
    /// let err = Design::parse("qsort = 1034.17*x*log2(x);\npipe(qsort, inc)").unwrap_err();
    /// assert!(matches!(err.kind(), DesignErrorKind::UnknownAtom { name, .. } if name == "inc"));
    /// assert_eq!(err.line_col(), (2, 13));
    /// ```
    pub fn parse(text: &str) -> Result<Design, DesignError> {
        Parser {
            input: text,
            pos: 0,
            atoms: Vec::new(),
            depth: 0,
            processors: Vec::new(),
        }
        .design()
    }

    /// A design from a term built in code, checked for well-formedness.
    pub fn from_term(term: Term) -> Result<Design, TermError> {
        term.check()?;
        let mut atoms: Vec<(String, Expr)> = Vec::new();
        for atom in term.atoms() {
            match atoms.iter().find(|(n, _)| *n == atom.name) {
                Some((_, model)) if *model != atom.model => {
                    return Err(TermError::ConflictingAtom {
                        name: atom.name.clone(),
                    });
                }
                Some(_) => {}
                None => atoms.push((atom.name.clone(), atom.model.clone())),
            }
        }
        Ok(Design { atoms, term })
    }

    /// The term.
    pub fn term(&self) -> &Term {
        &self.term
    }

    /// The atom definitions, in the order they were given.
    pub fn atoms(&self) -> &[(String, Expr)] {
        &self.atoms
    }

    /// The throughput model (average time per element), `pipe` as a
    /// pointwise `max`, in normal form.
    pub fn model(&self) -> Expr {
        self.term.model().simplify()
    }

    /// The throughput model with the paper's asymptotic choice for `pipe`,
    /// in normal form.
    pub fn model_asymptotic(&self) -> Expr {
        self.term.model_asymptotic().simplify()
    }

    /// The latency (time of one element through the design), in normal form.
    pub fn latency(&self) -> Expr {
        self.term.latency().simplify()
    }

    /// The threads and nodes the design occupies, in normal form.
    pub fn resources(&self) -> crate::lower::Resources {
        let r = self.term.resources();
        crate::lower::Resources {
            threads: r.threads.simplify(),
            nodes: r.nodes.simplify(),
        }
    }
}

impl fmt::Display for Design {
    /// The design text: the definitions of the atoms the term uses, then the
    /// term. It parses back to the same design.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let used = self.term.atoms();
        for (name, model) in &self.atoms {
            if used.iter().any(|a| a.name == *name) {
                writeln!(f, "{name} = {model:#};")?;
            }
        }
        write!(f, "{}", self.term)
    }
}

impl std::str::FromStr for Design {
    type Err = DesignError;
    fn from_str(text: &str) -> Result<Design, DesignError> {
        Design::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE1: &str = "qsort = 1034.17 * x * log2(x);
inc   = 536.185 * x;
nop   = 5422.97;
";

    fn parse(term: &str) -> Result<Design, DesignError> {
        Design::parse(&format!("{TABLE1}{term}"))
    }

    fn err(term: &str) -> DesignError {
        parse(term).expect_err(term)
    }

    #[test]
    fn the_paper_designs_parse_and_print_back() {
        for term in [
            "qsort",
            "seq(qsort, nop)",
            "pipe(tpool[4](qsort), inc, nop)",
            "pipe(pipe(qsort, inc), nop)",
            "tpool[n](pipe(qsort, inc))",
            "tpool[2](seq(inc, qsort))",
            "seq(inc, pipe(qsort, tpool[threads](nop)))",
        ] {
            let d = parse(term).unwrap();
            assert_eq!(d.term().to_string(), term);
            let again = Design::parse(&d.to_string()).unwrap();
            assert_eq!(again.term(), d.term(), "{d}");
            assert_eq!(again.to_string(), d.to_string());
            let built = Design::from_term(d.term().clone()).unwrap();
            assert_eq!(built.term(), d.term());
        }
    }

    #[test]
    fn mapreduce_of_hadoop() {
        let d = Design::parse(
            "map     = 3.529e7;
             shuffle = (m*n - 1)/(m*n) * 12288 * x / 0.125;
             reduce  = 9376 * x;
             mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)",
        )
        .unwrap();
        assert_eq!(
            d.term().to_string(),
            "mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)"
        );
        let x = 48.0;
        let by_hand =
            x * 3.529e7 / 48.0 + 47.0 / 48.0 * 12288.0 * x / 0.125 + 768.0 * 9376.0 * x / 48.0;
        let got = d.model().eval(&[("x", x)]).unwrap();
        assert!((got - by_hand).abs() < 1e-9 * by_hand);
        assert_eq!(d.resources().threads, Expr::num(48.0));
        assert_eq!(Design::parse(&d.to_string()).unwrap(), d);
    }

    #[test]
    fn mapreduce_defaults_m_and_accepts_expressions() {
        let d = Design::parse(
            "f = 1.241e7; s = 0; r = 9.449e6; mapreduce[n = n, k = x, d = max(768, x/2)](f, s, r)",
        )
        .unwrap();
        let MapReduceParams { m, d: per_key, .. } = match d.term() {
            Term::MapReduce { params, .. } => params.clone(),
            _ => unreachable!(),
        };
        assert_eq!(m, Count::Fixed(1));
        assert_eq!(per_key.to_string(), "max(768, x/2)");
    }

    #[test]
    fn comments_and_trailing_semicolon() {
        let d = Design::parse(
            "// the paper's qsort\nqsort = 1034.17*x*log2(x); // ns\ntpool[2](qsort);",
        )
        .unwrap();
        assert_eq!(d.term().to_string(), "tpool[2](qsort)");
    }

    #[test]
    fn error_unknown_atom_with_position() {
        let e = err("pipe(qsort, sort)");
        assert_eq!(
            e.kind(),
            &DesignErrorKind::UnknownAtom {
                name: "sort".into(),
                defined: "qsort, inc, nop".into()
            }
        );
        assert_eq!(e.line_col(), (4, 13));
        assert_eq!(
            e.to_string(),
            "unknown atom `sort` (defined: qsort, inc, nop) at line 4, column 13\n  pipe(qsort, sort)\n              ^"
        );
    }

    #[test]
    fn error_unknown_pattern() {
        let e = err("farm[4](qsort)");
        assert_eq!(
            e.kind(),
            &DesignErrorKind::UnknownPattern {
                name: "farm".into()
            }
        );
        assert_eq!(e.line_col(), (4, 1));
    }

    #[test]
    fn error_wrong_number_of_components() {
        let e = err("pipe(qsort)");
        assert!(matches!(
            e.kind(),
            DesignErrorKind::WrongArity { found: 1, .. }
        ));
        let e = err("tpool[2](qsort, inc)");
        assert_eq!(
            e.to_string().lines().next().unwrap(),
            "`tpool` takes one component, found 2 at line 4, column 1"
        );
        let e = Design::parse("a = 1; mapreduce[n = 2, d = x, k = 768](a, a)").unwrap_err();
        assert!(matches!(
            e.kind(),
            DesignErrorKind::WrongArity { found: 2, .. }
        ));
    }

    #[test]
    fn error_zero_count() {
        let e = err("tpool[0](qsort)");
        assert_eq!(e.kind(), &DesignErrorKind::ZeroCount);
        assert_eq!(e.line_col(), (4, 7));
        let e =
            Design::parse("a = 1; mapreduce[m = 0, n = 2, d = x, k = 768](a, a, a)").unwrap_err();
        assert_eq!(e.kind(), &DesignErrorKind::ZeroCount);
        assert_eq!(e.offset(), 21);
    }

    #[test]
    fn error_shuffle_inside_tpool() {
        let e = Design::parse(
            "a = 1; s = x; tpool[4](seq(a, mapreduce[n = 2, d = x, k = 768](a, s, a)))",
        )
        .unwrap_err();
        assert_eq!(e.kind(), &DesignErrorKind::ShuffleInTpool);
        assert_eq!(e.offset(), 14);
    }

    #[test]
    fn error_in_an_atom_model_points_into_it() {
        let e = Design::parse("qsort = 1034.17 * x * log2(x;\nqsort").unwrap_err();
        assert!(matches!(e.kind(), DesignErrorKind::Expr(_)));
        assert_eq!(e.offset(), 28);
        assert!(
            e.to_string()
                .starts_with("in a cost expression: expected `)` to close the `(` at byte 26"),
            "{e}"
        );
    }

    #[test]
    fn error_syntax() {
        let e = err("pipe(qsort inc)");
        assert_eq!(
            e.kind(),
            &DesignErrorKind::Syntax {
                expected: "`,` or `)` in pipe(...)".into(),
                found: "`inc`".into()
            }
        );
        let e = err("tpool(qsort)");
        assert!(
            matches!(e.kind(), DesignErrorKind::Syntax { expected, .. } if expected.starts_with("`[`"))
        );
        let e = err("tpool[2.5](qsort)");
        assert!(matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "`2.5`"));
        let e = err("qsort inc");
        assert!(matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "`inc`"));
        let e = Design::parse("").unwrap_err();
        assert!(
            matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "the end of the design")
        );
    }

    #[test]
    fn error_parameters() {
        let base = "a = 1; ";
        let e = Design::parse(&format!("{base}mapreduce[n = 2, d = x](a, a, a)")).unwrap_err();
        assert_eq!(
            e.kind(),
            &DesignErrorKind::MissingParam {
                name: "k",
                what: "number of keys, a function of x"
            }
        );
        let e = Design::parse(&format!(
            "{base}mapreduce[n = 2, n = 3, d = x, k = 1](a, a, a)"
        ))
        .unwrap_err();
        assert_eq!(e.kind(), &DesignErrorKind::Duplicate { name: "n".into() });
        let e = Design::parse(&format!(
            "{base}mapreduce[n = 2, z = 3, d = x, k = 1](a, a, a)"
        ))
        .unwrap_err();
        assert_eq!(
            e.kind(),
            &DesignErrorKind::UnknownParam { name: "z".into() }
        );
        let e = Design::parse(&format!(
            "{base}mapreduce[n = 2, d = x, k = 1](a, pipe(a, a), a)"
        ))
        .unwrap_err();
        assert!(
            matches!(e.kind(), DesignErrorKind::Syntax { expected, .. } if expected.starts_with("the shuffle phase"))
        );
    }

    #[test]
    fn error_definitions() {
        let e = Design::parse("a = 1; a = 2; a").unwrap_err();
        assert_eq!(e.kind(), &DesignErrorKind::Duplicate { name: "a".into() });
        let e = Design::parse("pipe = 1; pipe").unwrap_err();
        assert_eq!(
            e.kind(),
            &DesignErrorKind::ReservedName {
                name: "pipe".into()
            }
        );
    }

    #[test]
    fn from_term_checks() {
        use crate::term::Atom;
        let a = Term::atom("a", Expr::num(1.0));
        let b = Term::atom("a", Expr::num(2.0));
        assert!(matches!(
            Design::from_term(Term::seq(a.clone(), b)),
            Err(TermError::ConflictingAtom { .. })
        ));
        let mr = Term::map_reduce(
            MapReduceParams {
                m: 1u32.into(),
                n: 2u32.into(),
                d: Expr::var("x"),
                k: Expr::num(1.0),
            },
            a.clone(),
            Atom {
                name: "s".into(),
                model: Expr::num(0.0),
            },
            a.clone(),
        );
        assert!(matches!(
            Design::from_term(Term::tpool(2, mr)),
            Err(TermError::ShuffleInTpool { .. })
        ));
    }
}
