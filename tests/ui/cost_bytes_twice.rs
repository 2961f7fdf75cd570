// Each option is given once.
use pattern_core::cost;

#[cost("536.185 * x", bytes = "8 * x", bytes = "16 * x")]
fn stream(v: &mut [u64]) {
    v.iter_mut().for_each(|e| *e += 1)
}

fn main() {
    stream(&mut [1]);
}
