//! Procedural macros of `pattern`: `#[cost(..)]` on functions and `design!`.
//!
//! Users depend on `pattern-core`, which re-exports these macros behind its
//! default `macros` feature. The macros themselves arrive with the proc-macro
//! issue; the crate exists now so the workspace layout is final.
