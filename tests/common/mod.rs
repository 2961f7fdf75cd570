//! What the property tests share.

/// Cases per property: `PROPTEST_CASES` when set (to run the suites longer
/// or shorter), else the test's own number.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub mod cli;
