// The bytes are evaluated at compile time, as the model: they cannot call a
// machine function (resolved at run time by a MachineProfile).
use pattern_core::cost;

#[cost("1000 / p", bytes = "allgather(p, 8)")]
fn exchange() {}

fn main() {
    exchange();
}
