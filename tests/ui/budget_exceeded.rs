// A cost budget as a const assertion: qsort on a pool of 4 threads, then inc,
// costs about 5.2e9 ns per element at x = 10^6, over a budget of 1e9.
use pattern_core::paper::{Inc, Qsort};
use pattern_core::dsl::{cost_at, Pipe, Tpool};

type Design = Pipe<Tpool<4, Qsort>, Inc>;

const _: () = assert!(cost_at::<Design>(1e6) < 1e9, "Design exceeds 1e9 ns at x = 1e6");

fn main() {}
