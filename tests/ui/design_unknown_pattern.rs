// The patterns are seq, pipe, tpool and mapreduce.
use pattern_core::paper::Qsort;
use pattern_core::design;

fn main() {
    let _ = design!(farm[4](Qsort));
}
