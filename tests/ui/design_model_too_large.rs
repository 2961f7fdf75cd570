// A model that nesting would make too large to build (4^10 copies of d(x)).
use pattern_core::design;

fn main() {
    let _ = design!(a = x + 1; mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, a)))))))))));
}
