// Each pattern has its number of components; every mistake is reported.
use pattern_core::paper::{Inc, Qsort};
use pattern_core::design;

fn main() {
    let _ = design!(seq(tpool[2](Qsort, Inc), pipe(Inc)));
}
