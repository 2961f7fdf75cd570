//! What can be wrong with a design, said once for every front end: the text
//! parser ([`DesignError`], with a position), a term built in code
//! ([`TermError`], naming the sub-term) and the `design!` macro (a compile
//! error at the user's tokens).

use crate::position::{Locator, Position};
use crate::term::Term;
use pattern_expr::ParseError;
use std::fmt;

/// What is wrong with a design.
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
        "unknown pattern `{name}`: the patterns are {}",
        crate::term::PATTERN_LIST
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
    /// Parameters in brackets where a pattern has none, or none where it
    /// needs them.
    #[error("`{pattern}` is written {form}")]
    Form {
        /// The pattern.
        pattern: String,
        /// How it is written.
        form: &'static str,
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
    /// A count above [`crate::MAX_COUNT`].
    #[error(
        "a count of {count} is more than {} = 2^53, the largest count a model holds exactly",
        crate::MAX_COUNT
    )]
    CountTooLarge {
        /// The count.
        count: u64,
    },
    /// Counts whose sum or product (group sizes, the threads of a pool, a
    /// pipeline or a mapReduce) passes [`crate::MAX_COUNT`].
    #[error(
        "{what}, come to {total}, more than {} = 2^53, the largest count a model holds exactly",
        crate::MAX_COUNT
    )]
    CountOverflow {
        /// What adds or multiplies up, with the counts.
        what: String,
        /// What they come to.
        total: u128,
    },
    /// A design whose throughput model would have more nodes than
    /// [`crate::model_size::MAX_MODEL_NODES`] (or eight times the design's
    /// own size): nested substitutions multiply its size.
    #[error(
        "the model of this design would be built with up to {nodes} nodes (before simplification), more than the limit of {limit}: a mapReduce substitutes d(x) for every x below it (and k(x), m, n; `on` and `groups` substitute p), so nesting multiplies the model's size; give a nested part its own atom with a measured or fitted model instead"
    )]
    ModelTooLarge {
        /// An upper bound of the model's nodes.
        nodes: u128,
        /// The most nodes allowed for this design.
        limit: u128,
    },
    /// `par` with a different number of group sizes and components.
    #[error("`par` has {sizes} group sizes but {parts} components: one size per component")]
    ParSizes {
        /// The group sizes.
        sizes: usize,
        /// The components.
        parts: usize,
    },
    /// A mapReduce (so a shuffle phase) inside a task pool.
    #[error(
        "a task pool cannot wrap a mapReduce: a shuffle phase must never be inside a task pool (seed 001 §3.2); put the task pool around the map or the reduce phase instead"
    )]
    ShuffleInTpool,
    /// An atom defined twice, or a parameter given twice.
    #[error("`{name}` is given twice")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// Two different atoms with the same name.
    #[error("two atoms are named `{name}` but have different models or bytes")]
    ConflictingAtom {
        /// The name.
        name: String,
    },
    /// A required parameter is missing.
    #[error("{pattern} needs `{name}` ({what})")]
    MissingParam {
        /// The pattern.
        pattern: &'static str,
        /// The parameter.
        name: &'static str,
        /// What it is.
        what: &'static str,
    },
    /// A parameter the pattern does not have.
    #[error("unknown {pattern} parameter `{name}`: the parameters are {known}")]
    UnknownParam {
        /// The pattern.
        pattern: &'static str,
        /// The name.
        name: String,
        /// The parameters it has.
        known: &'static str,
    },
    /// A pattern name used as an atom name.
    #[error("`{name}` is a pattern and cannot name an atom")]
    ReservedName {
        /// The name.
        name: String,
    },
}

/// One problem found in a design: what, in which node (its index in
/// [`Term::preorder`]), and where in that node.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// What is wrong.
    pub kind: DesignErrorKind,
    /// The node, by its pre-order index.
    pub node: usize,
    /// Where in the node.
    pub site: Site,
}

/// The part of a node a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The pattern's name (or the atom's).
    Head,
    /// Its `i`-th count, in the order written (`mapreduce`: `m` then `n`).
    Count(usize),
    /// Its parameters as a whole (the `[`).
    Params,
}

/// A design text that could not be read: what went wrong and where.
/// `Display` shows the line with a caret under the position (at most 60
/// characters on each side of it).
#[derive(Clone, Debug, PartialEq)]
pub struct DesignError {
    kind: Box<DesignErrorKind>,
    at: Box<Position>,
}

impl DesignError {
    /// An error at byte `offset` of `input`.
    pub fn new(kind: DesignErrorKind, input: &str, offset: usize) -> DesignError {
        DesignError::located(kind, Locator::new(input).locate(offset))
    }

    /// An error at a position already located.
    pub(crate) fn located(kind: DesignErrorKind, at: Position) -> DesignError {
        DesignError {
            kind: Box::new(kind),
            at: Box::new(at),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &DesignErrorKind {
        &self.kind
    }

    /// The byte offset in the design text.
    pub fn offset(&self) -> usize {
        self.at.offset
    }

    /// The line (1-based) and column (1-based, in characters).
    pub fn line_col(&self) -> (usize, usize) {
        (self.at.line, self.at.column)
    }
}

impl fmt::Display for DesignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = &self.at;
        write!(f, "{} at line {}, column {}", self.kind, at.line, at.column)?;
        write!(f, "\n  {}\n  {}^", at.excerpt, " ".repeat(at.caret))
    }
}

impl std::error::Error for DesignError {}

/// Why a term built in code is not a well-formed design: what, and the
/// sub-term it is about (as design text).
#[derive(Clone, Debug, PartialEq)]
pub struct TermError {
    kind: Box<DesignErrorKind>,
    pattern: String,
}

impl TermError {
    /// The error of `problem` in `term`.
    pub(crate) fn new(term: &Term, problem: Problem) -> TermError {
        let pattern = term
            .preorder()
            .nth(problem.node)
            .map_or_else(String::new, Term::to_string);
        TermError {
            kind: Box::new(problem.kind),
            pattern,
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &DesignErrorKind {
        &self.kind
    }

    /// The sub-term it is about, as design text.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }
}

impl fmt::Display for TermError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.pattern, self.kind)
    }
}

impl std::error::Error for TermError {}
