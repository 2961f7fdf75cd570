//! Which form of the normal form is being computed: the plain one of
//! [`crate::Expr::simplify`] (every digit kept) or the strong one of
//! [`crate::Expr::canonical`] (extrema factored, coefficients rounded to 12 digits
//! so that equal functions computed along different roundings meet). Its
//! own module, so that the polynomials and the extrema both read it
//! without importing each other.

use std::cell::Cell;

thread_local! {
    /// Whether the strong form is being computed on this thread.
    static STRONG: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` in the strong form (for [`crate::Expr::canonical`]).
pub(super) fn strongly<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRONG.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(STRONG.with(|s| s.replace(true)));
    f()
}

/// Whether the strong form of [`crate::Expr::canonical`] is being computed.
pub(super) fn is_strong() -> bool {
    STRONG.with(Cell::get)
}
