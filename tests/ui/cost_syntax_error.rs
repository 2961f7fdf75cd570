// A syntax error in a model points into the string, with a caret.
use pattern_core::cost;

#[cost("1034.17 * x * log2(x")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable()
}

fn main() {
    qsort(&mut vec![2, 1]);
}
