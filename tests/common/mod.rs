//! What the property tests share.

/// Cases per property: `PROPTEST_CASES` when set (to run the suites longer
/// or shorter), else the test's own number.
#[allow(dead_code)] // (each test binary compiles `common`; some never call it)
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `f` on a thread of 2 MiB of stack (where deep inputs must work)
/// and returns what it returns; a panic in `f` fails the test.
#[allow(dead_code)] // (each test binary compiles `common`; some never call it)
pub fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread of 2 MiB")
        .join()
        .expect("no panic on a small stack")
}

/// Extra-P's `assertApprox(places=6)` (its `tests/modelling_testcase.py`):
/// equal to 6 digits after scaling both by the order of magnitude of the
/// smaller.
#[allow(dead_code)] // (each test binary compiles `common`; some never call it)
pub fn extrap_approx(expected: f64, got: f64) -> bool {
    let diff = (got - expected).abs();
    let reference = expected.abs().min(got.abs());
    let scaled = if reference != 0.0 {
        diff / 10f64.powi(reference.log10() as i32 + 1)
    } else {
        diff
    };
    (scaled * 1e6).round() == 0.0
}

pub mod allocation;
pub mod cli;
pub mod cube;
pub mod runs;
