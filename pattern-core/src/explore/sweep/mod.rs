//! Models over grids of variables, as tables: CSV (a header of the
//! variables then one column per model) and JSON (serde). Evaluation is
//! the compiled models' [`crate::expr::Grid`]; this module names the
//! axes, checks the values and writes the table. [`ThreadSweep`] adds a
//! design's time per element against a count with the queueing and
//! simulation predictions beside the operators'.
//!
//! ```
//! use pattern_core::{Design, Expr};
//! use pattern_core::explore::sweep::{Axis, Sweep};
//!
//! let pool = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)")?;
//! let table = Sweep::new(vec![Axis::parse("x", "1024,4096")?, Axis::parse("n", "1..2")?])
//!     .design("pool", &pool)
//!     .model("bound", Expr::parse("x")?)
//!     .run()?;
//! assert_eq!(table.to_csv(), "x,n,pool,bound\n\
//!     1024,1,10589900.8,1024\n\
//!     1024,2,5294950.4,1024\n\
//!     4096,1,50831523.84,4096\n\
//!     4096,2,25415761.92,4096\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod range;
mod threads;

pub use range::{Axis, MAX_AXIS_POINTS, RangeError, RangeErrorKind, Spacing};
pub use threads::{ThreadCurve, ThreadPoint, ThreadSweep};

use crate::semantics::QueueingError;
use crate::sim::SimError;
use crate::{Design, EvalError, Expr};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Why a sweep could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// A sweep without axes.
    #[error("the sweep has no axis")]
    NoAxis,
    /// A sweep without models.
    #[error("the sweep has no model")]
    NoModel,
    /// Two columns of one name (two axes, two models, or a model named as
    /// a variable).
    #[error("two columns are named `{0}`")]
    Duplicate(String),
    /// A model that cannot be compiled over the axes (a variable without
    /// an axis, an unresolved function).
    #[error("the model `{name}` cannot be swept: {source}")]
    Model {
        /// The model's name.
        name: String,
        /// Why.
        source: EvalError,
    },
    /// The grid of a model could not be made or is not finite somewhere.
    #[error("the model `{name}`: {source}")]
    Grid {
        /// The model's name.
        name: String,
        /// The grid's error (the first point where the model is not finite,
        /// with the sub-expression at fault).
        source: crate::expr::SweepError,
    },
    /// An axis' text.
    #[error(transparent)]
    Range(#[from] RangeError),
    /// A count of a threads sweep that is no symbolic count of the design.
    #[error("`{name}` is no symbolic count of the design (its counts: {counts})")]
    NotACount {
        /// The name given.
        name: String,
        /// The design's symbolic counts.
        counts: String,
    },
    /// A threads sweep with no count, or a count of 0.
    #[error("a threads sweep needs counts of at least 1, found {0:?}")]
    Counts(Vec<u64>),
    /// A value of the fixed point that is not finite.
    #[error("the point binds `{name}` to {value}, not a finite number")]
    Binding {
        /// The variable.
        name: String,
        /// The value.
        value: f64,
    },
    /// The operators' model cannot be evaluated at a count.
    #[error("at {count}: {source}")]
    Eval {
        /// The count.
        count: u64,
        /// Why.
        source: EvalError,
    },
    /// The queueing prediction failed at a count.
    #[error("the queueing prediction at {count}: {source}")]
    Queueing {
        /// The count.
        count: u64,
        /// Why.
        source: QueueingError,
    },
    /// The simulation failed at a count.
    #[error("the simulation at {count}: {source}")]
    Simulation {
        /// The count.
        count: u64,
        /// Why.
        source: SimError,
    },
    /// A prediction that is not finite.
    #[error("the {what} at {count} is {value}, not finite")]
    NotFinite {
        /// Which prediction: `operators`, `queueing`, `simulation`.
        what: &'static str,
        /// The count.
        count: u64,
        /// The value.
        value: f64,
    },
}

/// A table of a sweep: the columns (the variables first, then the
/// models) and one row per point, in the grid's row-major order (the last
/// axis varies fastest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The columns' names.
    pub columns: Vec<String>,
    /// How many of the columns, from the first, are variables.
    pub variables: usize,
    /// The rows, each with one value per column.
    pub rows: Vec<Vec<f64>>,
}

impl Table {
    /// The table as CSV (RFC 4180): a header, then a row per point; each
    /// number in its shortest form that reads back to the same `f64`.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let header: Vec<String> = self.columns.iter().map(|c| csv_field(c)).collect();
        out.push_str(&header.join(","));
        out.push('\n');
        for row in &self.rows {
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_number(&mut out, *v);
            }
            out.push('\n');
        }
        out
    }

    /// The table as JSON: `{"columns": [..], "variables": k, "rows": [[..], ..]}`.
    pub fn to_json(&self) -> String {
        // Only finite numbers reach a table, and serde_json writes them all.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The values of the column `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }
}

/// A field of CSV, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number in its shortest round-trip form: plain between 1e-5 and 1e16,
/// else with an exponent (`1e300`, not 301 digits).
fn write_number(out: &mut String, v: f64) {
    let a = v.abs();
    let _ = if a == 0.0 || (1e-5..1e16).contains(&a) {
        write!(out, "{v}")
    } else {
        write!(out, "{v:e}")
    };
}

/// Models over the grid of several axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    axes: Vec<Axis>,
    models: Vec<(String, Expr)>,
}

impl Sweep {
    /// A sweep over the grid of `axes` (one per variable of the models).
    pub fn new(axes: Vec<Axis>) -> Sweep {
        Sweep {
            axes,
            models: Vec::new(),
        }
    }

    /// Adds a column: `model`, named `name`.
    pub fn model(mut self, name: &str, model: Expr) -> Sweep {
        self.models.push((name.to_string(), model));
        self
    }

    /// Adds a column: the throughput model of `design` ([`Design::model`]).
    pub fn design(self, name: &str, design: &Design) -> Sweep {
        self.model(name, design.model())
    }

    /// The table: every model at every point of the grid, all finite.
    pub fn run(&self) -> Result<Table, SweepError> {
        if self.axes.is_empty() {
            return Err(SweepError::NoAxis);
        }
        if self.models.is_empty() {
            return Err(SweepError::NoModel);
        }
        let columns: Vec<String> = self
            .axes
            .iter()
            .map(|a| a.name().to_string())
            .chain(self.models.iter().map(|(n, _)| n.clone()))
            .collect();
        if let Some(i) = (1..columns.len()).find(|&i| columns[..i].contains(&columns[i])) {
            return Err(SweepError::Duplicate(columns[i].clone()));
        }
        let names: Vec<&str> = self.axes.iter().map(Axis::name).collect();
        let axes: Vec<(&str, &[f64])> = self.axes.iter().map(|a| (a.name(), a.values())).collect();
        let mut grids = Vec::with_capacity(self.models.len());
        for (name, model) in &self.models {
            let compiled = model.compile(&names).map_err(|source| SweepError::Model {
                name: name.clone(),
                source,
            })?;
            let grid = compiled
                .grid_checked(&axes)
                .map_err(|source| SweepError::Grid {
                    name: name.clone(),
                    source,
                })?;
            grids.push(grid);
        }
        let rows = grids[0]
            .points()
            .enumerate()
            .map(|(i, (mut point, _))| {
                point.extend(grids.iter().map(|g| g.values()[i]));
                point
            })
            .collect();
        Ok(Table {
            columns,
            variables: self.axes.len(),
            rows,
        })
    }
}
