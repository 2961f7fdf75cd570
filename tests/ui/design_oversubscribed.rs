// Processor groups must fit in the enclosing group: the same checker as
// Design::parse, at the user's tokens.
use pattern_core::design;

fn main() {
    let _ = design!(stage = 1000 / p; on[64](par[32, 48](stage, stage)));
}
