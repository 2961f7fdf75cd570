//! Compile-time guarantees, shown by programs that must not compile: each
//! `tests/ui/*.rs` with the compiler's message in the `.stderr` beside it.
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
