//! What can go wrong with the input of a command: every library error, kept
//! whole so that its message (with the caret under the position, for a
//! design or an expression) reaches the user. All exit with code 1; usage
//! errors are clap's (code 2).

use super::output::Report;
use pattern_core::compare::CompareError;
use pattern_core::explore::allocation::AllocationError;
use pattern_core::explore::crossover::CrossoverError;
use pattern_core::explore::plot::PlotError;
use pattern_core::explore::ranking::RankError;
use pattern_core::explore::sensitivity::SensitivityError;
use pattern_core::explore::sweep::{RangeError, SweepError};
use pattern_core::fit::extrap_io::ExtrapError;
use pattern_core::machine::MachineError;
use pattern_core::queue::QueueError;
use pattern_core::semantics::QueueingError;
use pattern_core::sim::SimError;
use pattern_core::{DesignError, EvalError, ParseError};
use std::io;

/// An input the command could not use, or an output it could not write.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file (or standard input) could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file, as given.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file, as given.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A design text that does not parse or check; shows the caret.
    #[error("{path}: {source}")]
    Design {
        /// The file it came from.
        path: String,
        /// The parser's error, with its position.
        source: DesignError,
    },
    /// A cost expression that does not parse; shows the caret.
    #[error("the expression does not parse: {0}")]
    Expr(#[from] ParseError),
    /// A model without a value at a point.
    #[error("{what} at {at}: {source}")]
    Eval {
        /// Which model.
        what: String,
        /// The point.
        at: String,
        /// Why.
        source: EvalError,
    },
    /// Two designs that could not be compared.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// An Extra-P file that could not be read; shows the line with a caret
    /// where the error has a position.
    #[error("{path}: {source}{excerpt}")]
    Extrap {
        /// The file.
        path: String,
        /// Why.
        source: ExtrapError,
        /// The line at fault with a caret under the column ([`excerpt`]),
        /// or empty.
        excerpt: String,
    },
    /// A region or metric the experiment does not have.
    #[error("{path} has no series of {what} (it has: {known})")]
    NoSeries {
        /// The file.
        path: String,
        /// What was asked for.
        what: String,
        /// The series it has, `region/metric`.
        known: String,
    },
    /// Series whose model could not be fitted (each is in the report).
    #[error("{failed} of {total} series could not be fitted (see the report)")]
    FitFailed {
        /// How many failed.
        failed: usize,
        /// How many series.
        total: usize,
        /// The report of all series, printed before the error.
        report: Box<Report>,
    },
    /// A machine file that is not a machine, or a machine out of range.
    #[error("the machine: {0}")]
    Machine(#[from] MachineError),
    /// A simulation that could not run.
    #[error("the simulation: {0}")]
    Sim(#[from] SimError),
    /// A design the queueing semantics cannot predict.
    #[error("the queueing model: {0}")]
    Queueing(#[from] QueueingError),
    /// A queueing network that could not be solved.
    #[error("the queueing network: {0}")]
    Queue(#[from] QueueError),
    /// A network file that is not a network; shows the line with a caret
    /// where the error has a position.
    #[error("{path}: {message}{excerpt}")]
    Network {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
        /// The line at fault with a caret under the column ([`excerpt`]),
        /// or empty.
        excerpt: String,
    },
    /// No allocation under the constraints (a budget below the design's
    /// fewest threads, an unknown count, ...).
    #[error("the allocation: {0}")]
    Allocation(#[from] AllocationError),
    /// An allocation's search that reached the step limit: the message
    /// names the command's options.
    #[error(
        "the allocation: the search stopped after {limit} steps (the limit of --max-steps): narrow the counts with --range or raise --max-steps"
    )]
    StepLimit {
        /// The limit.
        limit: u64,
    },
    /// Crossovers that could not be found.
    #[error("the crossovers: {0}")]
    Crossover(#[from] CrossoverError),
    /// Derivatives that could not be taken.
    #[error("the sensitivity: {0}")]
    Sensitivity(#[from] SensitivityError),
    /// A ranking that could not be made.
    #[error("the ranking: {0}")]
    Rank(#[from] RankError),
    /// An axis whose text does not read; shows the caret.
    #[error("{option}: {source}")]
    Axis {
        /// The option (`--x`, `--axis n`, ...).
        option: String,
        /// The reader's error, with its position.
        source: RangeError,
    },
    /// A sweep that could not be evaluated.
    #[error("the sweep: {0}")]
    Sweep(#[from] SweepError),
    /// A plot that could not be drawn or written.
    #[error("the plot: {0}")]
    Plot(#[from] PlotError),
    /// A model that gives no time (a negative one) where the command
    /// predicts: the atom, the point and the value.
    #[error(transparent)]
    Time(#[from] pattern_core::semantics::BadTime),
    /// An option whose value the command cannot use (found after parsing:
    /// it depends on the input).
    #[error("{0}")]
    Invalid(String),
}

/// Line `line` of `text` with a caret under column `column` (both 1-based,
/// the column in characters), as the library's parsers show theirs:
/// `"\n  {line}\n  {spaces}^"`; empty if the text has no such line.
pub fn excerpt(text: &str, line: usize, column: usize) -> String {
    match line.checked_sub(1).and_then(|i| text.lines().nth(i)) {
        Some(shown) => {
            let width = shown.chars().count();
            let before = column.clamp(1, width + 1) - 1;
            format!("\n  {shown}\n  {}^", " ".repeat(before))
        }
        None => String::new(),
    }
}

/// The elements of a simulated stream unless `--elements` says otherwise
/// (a value other than it with no simulation to run is refused).
pub const DEFAULT_ELEMENTS: usize = 1000;

impl CliError {
    /// An error for `option`, given where the command would ignore it:
    /// it is for `only_for`.
    pub fn unused(option: &str, only_for: &str) -> CliError {
        CliError::Invalid(format!(
            "{option} is only for {only_for}: here it would be ignored"
        ))
    }

    /// [`CliError::unused`] if `given`.
    pub fn refuse_unused(given: bool, option: &str, only_for: &str) -> Result<(), CliError> {
        if given {
            Err(CliError::unused(option, only_for))
        } else {
            Ok(())
        }
    }

    /// An allocation's error, its step limit spoken of as `--max-steps`.
    pub fn from_allocation(e: AllocationError) -> CliError {
        match e {
            AllocationError::TooManySteps { limit } => CliError::StepLimit { limit },
            other => CliError::Allocation(other),
        }
    }

    /// The report to print before the error, when the command got far
    /// enough to have one.
    pub fn partial_report(&self) -> Option<&Report> {
        match self {
            CliError::FitFailed { report, .. } => Some(report),
            _ => None,
        }
    }
}
