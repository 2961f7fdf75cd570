// #[cost] annotates functions.
use pattern_core::cost;

#[cost("5422.97")]
struct Nop;

fn main() {
    let _ = Nop;
}
