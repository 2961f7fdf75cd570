// The bytes are a function of the model's variables: a variable the model
// does not name is a mistake (here `n`, but the size is `x`).
use pattern_core::cost;

#[cost("536.185 * x", bytes = "8 * n")]
fn stream(v: &mut [u64]) {
    v.iter_mut().for_each(|e| *e += 1)
}

fn main() {
    stream(&mut [1]);
}
