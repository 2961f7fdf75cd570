//! What most users need, in one import: `use pattern_core::prelude::*;`.
//!
//! ```
//! use pattern_core::prelude::*;
//!
//! let d = Design::parse("qsort = 1034.17*x*log2(x); tpool[4](qsort)")?;
//! assert_eq!(d.model().to_string(), "258.5425·x·log₂(x)");
//! let e: Expr = "2*x".parse()?;
//! assert_eq!(e.eval(&[("x", 3.0)])?, 6.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::dsl::Pattern;
pub use crate::semantics::{Footprint, Latency, Throughput};
pub use crate::{Atom, Count, Design, Expr, MapReduceParams, Term};
#[cfg(feature = "macros")]
pub use crate::{cost, cost_budget, cost_of, cost_summary, design};
