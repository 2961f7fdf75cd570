// A token out of place: what was expected, at the token.
use pattern_core::design;

fn main() {
    let _ = design!(a = x; pipe(a a));
}
