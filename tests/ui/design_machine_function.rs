// The models of design! are evaluated at compile time: a machine function
// (resolved at run time by a MachineProfile) cannot be called there.
use pattern_core::design;

fn main() {
    let _ = design!(stage = 1000 / p + allgather(p, 8000); on[64](stage));
}
