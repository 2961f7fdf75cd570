// An atom must be an annotated function, a CostModel type or defined in the
// macro: the error names the function that has no cost model.
use pattern_core::{cost, design};

#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable()
}

fn plain(v: &mut [i32]) {
    v.reverse()
}

fn main() {
    qsort(&mut vec![1]);
    plain(&mut [1]);
    let _ = design!(pipe(qsort, plain));
}
