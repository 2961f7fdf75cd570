// Options are var, unit and name.
use pattern_core::cost;

#[cost("536.185 * x", units = "us")]
fn inc(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e += 1)
}

fn main() {
    inc(&mut [1]);
}
