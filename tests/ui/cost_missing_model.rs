// The model is required.
use pattern_core::cost;

#[cost]
fn nop() {}

fn main() {
    nop();
}
