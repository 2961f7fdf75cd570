// With var = "n", the size is n; a model that also uses x is ambiguous.
use pattern_core::cost;

#[cost("2 * n + x", var = "n")]
fn scale(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e *= 2)
}

fn main() {
    scale(&mut [1]);
}
