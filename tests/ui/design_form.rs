// A pattern written without the parameters it needs, or with ones it has
// not: each named with its form.
use pattern_core::design;

fn main() {
    let _ = design!(a = x; pipe[2](tpool(a), mapreduce[n = 2, d = x, z = 1](a, a, a)));
}
