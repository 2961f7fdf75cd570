//! The subcommands of the `pattern` command line, one module each, and what
//! they share: reading inputs, the values of options, the error type, the
//! report and the progress bars.
//!
//! Describing: `model`, `compare`, `fit`, `simulate`, `mva`, `machine`. Deciding (on
//! `pattern_core::explore`): `best` (the counts under a budget), `rank`
//! (the best designs reachable by the laws), `crossovers` (which design
//! wins where), `sensitivity` (which block to speed up), `sweep` (models
//! over a grid, CSV or JSON) and `plot` (SVG or PNG).

pub mod args;
pub mod best;
pub mod classes;
pub mod compare;
pub mod crossovers;
pub mod error;
pub mod files;
pub mod fit;
pub mod jmva;
pub mod machine;
pub mod model;
pub mod mva;
pub mod names;
pub mod network;
pub mod output;
pub mod plot;
pub mod progress;
pub mod rank;
pub mod rate;
pub mod sensitivity;
pub mod shared;
pub mod simulate;
pub mod sweep;
pub mod times;
