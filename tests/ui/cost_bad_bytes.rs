// A syntax error in the bytes points into their string, with a caret, as in
// the model.
use pattern_core::cost;

#[cost("536.185 * x", bytes = "8 * (x + ")]
fn stream(v: &mut [u64]) {
    v.iter_mut().for_each(|e| *e += 1)
}

fn main() {
    stream(&mut [1]);
}
