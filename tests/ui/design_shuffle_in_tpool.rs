// A task pool must not wrap a shuffle phase (seed 001 §3.2).
use pattern_core::paper::{MapHadoop, ReduceHadoop, ShuffleHadoop};
use pattern_core::design;

fn main() {
    let _ = design!(tpool[2](mapreduce[m = 4, n = 12, d = x, k = 768](MapHadoop, ShuffleHadoop, ReduceHadoop)));
}
