//! The macros as users write them: `#[cost]` on every supported function
//! shape, `design!` in both forms, budgets and summaries at compile time.
use pattern_core::dsl::Pattern;
use pattern_core::paper::{Nop, Qsort};
use pattern_core::{Design, Expr, cost, cost_budget, cost_of, cost_summary, design};

#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable()
}

/// Ten increments of every element.
#[cost("536.185 * x")]
pub fn inc(v: &mut [i32]) {
    for _ in 0..10 {
        v.iter_mut().for_each(|e| *e += 1);
    }
}

#[cost("5422.97")]
fn nop(_: &mut [i32]) {}

/// A generic function, with the model in `n` and in microseconds.
#[cost("0.5 * n", var = "n", unit = "us")]
fn scale<T: Copy + std::ops::Mul<Output = T>>(v: &mut [T], by: T) {
    v.iter_mut().for_each(|e| *e = *e * by);
}

#[cost("-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)", name = "fitted_sort")]
async fn fitted(v: Vec<i32>) -> Vec<i32> {
    let mut v = v;
    v.sort();
    v
}

/// Reads and writes every element once: 8 bytes of memory per element.
#[cost("536.185 * x", bytes = "8*x")]
fn stream(v: &mut [u64]) {
    v.iter_mut().for_each(|e| *e += 1);
}

/// The same in `n` and microseconds: `var` renames the bytes' size too, and
/// `unit` leaves the bytes alone.
#[cost("0.536185 * n", var = "n", unit = "us", bytes = "8*n")]
fn stream_n(v: &mut [u64]) {
    v.iter_mut().for_each(|e| *e += 1);
}

design!(type Streams = tpool[4](stream));

struct Histogram;

impl Histogram {
    #[cost("3.529e7")]
    pub fn map(&self, image: &[u8]) -> [u64; 768] {
        let mut h = [0u64; 768];
        for (i, b) in image.iter().enumerate() {
            h[(i % 3) * 256 + *b as usize] += 1;
        }
        h
    }

    #[cost("9376 * x")]
    fn reduce(values: &[u64]) -> u64 {
        values.iter().sum()
    }

    #[cost("(m*n - 1)/(m*n) * 12288 * x / 0.125")]
    fn shuffle() {}
}

mod kernels {
    use pattern_core::cost;

    #[cost("2 * x")]
    pub fn double(v: &mut [i32]) {
        v.iter_mut().for_each(|e| *e *= 2);
    }
}

design!(
    /// qsort on four threads feeding inc.
    pub type Sorter = pipe(tpool[4](qsort), inc)
);

design!(type Pool = tpool[n](seq(qsort, inc, nop)));

const THREADS: u64 = 3;
design!(type Fixed3 = tpool[THREADS](kernels::double));

design!(
    type Hadoop = map = "3.529e7";
    mapreduce[m = 4, n = 12, d = x, k = 768](map, Histogram::shuffle, Histogram::reduce)
);

cost_budget!(Sorter, x = 1e6, max = 6e9);
cost_budget!(Pool, x = 1e6, n = 8, max = 3e9);

cost_summary! {
    /// The designs of this test at two sizes.
    pub const SUMMARY = [Sorter, Qsort, Nop] at x = [1024, 1e6];
}

#[test]
fn annotated_functions_are_unchanged() {
    let mut v = vec![3, 1, 2];
    qsort(&mut v);
    inc(&mut v);
    nop(&mut v);
    assert_eq!(v, [11, 12, 13]);
    let mut w = [1.5f64, 2.0];
    scale(&mut w, 2.0);
    assert_eq!(w, [3.0, 4.0]);
    kernels::double(&mut v);
    assert_eq!(v, [22, 24, 26]);
    let h = Histogram.map(&[0, 1, 2]);
    assert_eq!(h[0] + h[257] + h[514], 3);
    assert_eq!(Histogram::reduce(&[1, 2, 3]), 6);
    Histogram::shuffle();
    let future = fitted(vec![2, 1]);
    drop(future);
}

#[test]
fn annotations_carry_the_models() {
    assert_eq!(
        cost_of!(qsort).expr(),
        Expr::parse("1034.17*x*log2(x)").unwrap()
    );
    assert_eq!(cost_of!(qsort).name, "qsort");
    // var = "n" renames the size to x, unit = "us" converts to ns.
    assert_eq!(cost_of!(scale).text, "500*x");
    assert_eq!(cost_of!(fitted).name, "fitted_sort");
    assert_eq!(
        cost_of!(fitted).expr().to_string(),
        "1039.05·x·log₂(x) - 1487600.12"
    );
    assert_eq!(cost_of!(Histogram::reduce).text, "9376*x");
    assert_eq!(cost_of!(kernels::double).term().to_string(), "double");
    const AT_1024: f64 = cost_of!(qsort).model.eval(&[("x", 1024.0)]);
    assert_eq!(AT_1024, 1034.17 * 1024.0 * 10.0);
}

#[test]
fn design_values_give_terms_and_models() {
    let d = design!(pipe(tpool[4](qsort), inc, nop));
    assert_eq!(d.term().to_string(), "pipe(tpool[4](qsort), inc, nop)");
    assert_eq!(
        d.model().simplify().to_string(),
        "max(258.5425·x·log₂(x), 536.185·x, 5422.97)"
    );
    assert_eq!(
        d.model_asymptotic().simplify().to_string(),
        "258.5425·x·log₂(x)"
    );
    assert_eq!(d.resources().threads.simplify(), Expr::num(6.0));
    // The same design in the textual syntax has the same model.
    let text = Design::parse(
        "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97; pipe(tpool[4](qsort), inc, nop)",
    )
    .unwrap();
    assert_eq!(text.model(), d.model().simplify());
    // Atoms defined inside the macro, and types mixed with functions.
    let local = design!(half = "x / 2"; seq(half, Qsort));
    assert_eq!(
        local.model().simplify().to_string(),
        "1034.17·x·log₂(x) + 0.5·x"
    );
    assert_eq!(
        local.model().eval(&[("x", 2.0)]).unwrap(),
        1034.17 * 2.0 + 1.0
    );
}

#[test]
fn design_types() {
    assert_eq!(Sorter::term().to_string(), "pipe(tpool[4](qsort), inc)");
    assert_eq!(
        Sorter::model().simplify().to_string(),
        "max(258.5425·x·log₂(x), 536.185·x)"
    );
    assert_eq!(
        Pool::model().simplify().to_string(),
        "1034.17·x·log₂(x)/n + 536.185·x/n + 5422.97/n"
    );
    assert_eq!(Pool::term().to_string(), "tpool[n](seq(qsort, inc, nop))");
    assert_eq!(
        Fixed3::model().simplify().to_string(),
        "0.6666666666666666·x"
    );
    // Design types compose.
    let bigger = design!(pipe(Sorter, Fixed3));
    assert_eq!(
        bigger.term().to_string(),
        "pipe(pipe(tpool[4](qsort), inc), tpool[3](double))"
    );
    // The const value agrees with the runtime model.
    let runtime = Sorter::model().eval(&[("x", 1e6)]).unwrap();
    assert!((Sorter::cost_at(1e6) - runtime).abs() <= 1e-13 * runtime);
    assert_eq!(
        <Sorter as Pattern>::MODEL.eval(&[("x", 1e6)]),
        Sorter::cost_at(1e6)
    );
}

#[test]
fn hadoop_from_annotated_methods() {
    let want = Design::parse(&pattern_core::paper::hadoop_design("4", "12"))
        .unwrap()
        .model();
    assert_eq!(Hadoop::model().simplify(), want);
    assert_eq!(
        Hadoop::term().to_string(),
        "mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)"
    );
    let runtime = Hadoop::model().eval(&[("x", 48.0)]).unwrap();
    assert!((Hadoop::cost_at(48.0) - runtime).abs() <= 1e-12 * runtime);
}

#[test]
fn the_summary_is_built_at_compile_time() {
    assert_eq!(
        SUMMARY,
        "| design | model | class in x | x = 1024 | x = 1e6 |\n\
         | --- | --- | --- | ---: | ---: |\n\
         | `Sorter` | max(1034.17·x·log₂(x)/4, 536.185·x) | O(x·log₂x) | 2.647e6 | 5.153e9 |\n\
         | `Qsort` | 1034.17·x·log₂(x) | O(x·log₂x) | 1.059e7 | 2.061e10 |\n\
         | `Nop` | 5422.97 | O(1) | 5423 | 5423 |\n"
    );
}

// Task groups are type-level patterns too: a distributed design held to a
// budget at compile time (the 48-processor part, in two groups of 24,
// decides: 1000/24 + 50·log2(24) ≈ 270.9).
design!(pub type Solver = stage = 1000 / p + 50 * log2(p); on[64](par[16, 48](stage, groups[2](stage))));
cost_budget!(Solver, max = 300);

#[test]
fn task_groups_as_types_agree_with_the_runtime_model() {
    const BY_TYPE: f64 = pattern_core::dsl::cost_with::<Solver>(&[]);
    let runtime = Solver::model().eval(&[]).unwrap();
    let by_hand = 1000.0 / 24.0 + 50.0 * 24f64.log2();
    assert!((BY_TYPE - by_hand).abs() < 1e-9, "{BY_TYPE}");
    assert!((runtime - by_hand).abs() < 1e-9, "{runtime}");
    assert_eq!(
        Solver::term().to_string(),
        "on[64](par[16, 48](stage, groups[2](stage)))"
    );
    let d = design!(a = 2 * p; b = 7; on[8](seq[redist = 3 * p](a, b)));
    assert_eq!(d.model().eval(&[]).unwrap(), 16.0 + 7.0 + 24.0);
}

#[test]
fn annotated_bytes_reach_the_design() {
    let eight_x = Expr::parse("8*x").unwrap();
    let close = |a: &Expr, b: &Expr| {
        [1.0, 1024.0, 1e6].iter().all(|&x| {
            let (a, b) = (a.eval(&[("x", x)]).unwrap(), b.eval(&[("x", x)]).unwrap());
            (a - b).abs() <= 1e-12 * b.abs()
        })
    };
    let mut v = [1u64, 2];
    stream(&mut v);
    stream_n(&mut v);
    assert_eq!(v, [3, 4]);
    for annotation in [cost_of!(stream), cost_of!(stream_n)] {
        let bytes = annotation.bytes.expect("bytes").to_expr();
        assert!(close(&bytes, &eight_x), "{bytes}");
        assert!(close(
            &annotation.expr(),
            &Expr::parse("536.185*x").unwrap()
        ));
    }
    assert_eq!(cost_of!(qsort).bytes, None);

    let design = Streams::design();
    let atoms = design.term().atoms();
    let [atom] = atoms.as_slice() else {
        panic!("one atom: {atoms:?}")
    };
    assert_eq!(atom.name, "stream");
    assert!(
        close(atom.bytes.as_ref().expect("bytes"), &eight_x),
        "{atom:?}"
    );
    // The design text carries the bytes and parses back to the same design.
    let text = design.to_string();
    assert!(text.contains("stream = 536.185*x [bytes = 8*x];"), "{text}");
    assert_eq!(Design::parse(&text).unwrap(), design, "{text}");
    // Without `bytes`, the atom has none.
    let plain = design!(tpool[2](inc)).term().atoms()[0].bytes.clone();
    assert_eq!(plain, None);
}
