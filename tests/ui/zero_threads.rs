// A task pool of zero threads is refused when its model is evaluated.
use pattern_core::paper::Qsort;
use pattern_core::dsl::{cost_at, Tpool};

const COST: f64 = cost_at::<Tpool<0, Qsort>>(1024.0);

fn main() {
    println!("{COST}");
}
