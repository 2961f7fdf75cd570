//! Regression tests for the inputs that once crashed the process, hung it or
//! silently changed a value (issue: reliability). A reproducer that once
//! aborted (a stack overflow, a huge allocation) runs in a child process on
//! a 2 MiB thread, so that an abort fails one test and not the whole run.

#[macro_use]
#[path = "reproducers/child.rs"]
mod child;

#[path = "reproducers/design.rs"]
mod design;
#[path = "reproducers/exec.rs"]
mod exec;
#[path = "reproducers/expr.rs"]
mod expr;
#[path = "reproducers/fit.rs"]
mod fit;
