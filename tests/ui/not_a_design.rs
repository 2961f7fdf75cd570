// Only atoms (CostModel types) and patterns compose.
use pattern_core::paper::Qsort;
use pattern_core::dsl::{Pattern, Pipe};

struct Untimed;

fn main() {
    let _ = <Pipe<Qsort, Untimed> as Pattern>::term();
}
