// Counts are positive.
use pattern_core::paper::Qsort;
use pattern_core::design;

fn main() {
    let _ = design!(tpool[0](Qsort));
}
