// A task pool must not wrap a shuffle phase (seed 001 §3.2).
use pattern_core::paper::{Keys768, MapHadoop, PerKeyX, ReduceHadoop, ShuffleHadoop};
use pattern_core::dsl::{MapReduce, Pattern, Tpool};

type Hadoop = MapReduce<4, 12, PerKeyX, Keys768, MapHadoop, ShuffleHadoop, ReduceHadoop>;

fn main() {
    let _ = <Tpool<2, Hadoop> as Pattern>::term();
}
