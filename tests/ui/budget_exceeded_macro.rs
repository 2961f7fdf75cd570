// cost_budget! names the design, the point, the budget and the cost.
use pattern_core::{cost, cost_budget, design};

#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable()
}

#[cost("536.185 * x")]
fn inc(v: &mut [i32]) {
    v.iter_mut().for_each(|e| *e += 1)
}

design!(type Sorter = pipe(tpool[4](qsort), inc));

cost_budget!(Sorter, x = 1e6, max = 2.5e9);

fn main() {
    qsort(&mut vec![1]);
    inc(&mut [1]);
}
