//! The ranking's search, a sweep to CSV and the plots' rendering.

use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::explore::plot::{CostCurves, Plot};
use pattern_core::explore::ranking::{PointCounts, Ranking};
use pattern_core::explore::sweep::{Axis, Sweep};
use pattern_core::{Design, Expr};
use std::hint::black_box;

const ATOMS: &str = "qsort = 1034.17 * x * log2(x); inc = 536.185 * x; nop = 5422.97;";

fn bench(c: &mut Criterion) {
    let pipeline = Design::parse(&format!("{ATOMS} pipe(tpool[4](qsort), inc, nop)")).unwrap();
    c.bench_function(
        "rank pipe(tpool[4](qsort), inc, nop), budget 16, 500 designs",
        |b| {
            b.iter(|| {
                Ranking::new(16)
                    .rank(black_box(&pipeline), &[("x", 1e5)], &PointCounts)
                    .unwrap()
            })
        },
    );
    let pool = Expr::parse("1034.17*x*log2(x)/n").unwrap();
    let pair = Expr::parse("536.185*x").unwrap();
    let axes = vec![
        Axis::parse("x", "1e3..1e7:1000:log").unwrap(),
        Axis::parse("n", "1..10").unwrap(),
    ];
    c.bench_function("sweep 2 models over 10^4 points to CSV", |b| {
        b.iter(|| {
            Sweep::new(axes.clone())
                .model("pool", pool.clone())
                .model("pair", pair.clone())
                .run()
                .unwrap()
                .to_csv()
        })
    });
    let x = Axis::parse("x", "2..1e7:200:log").unwrap();
    let pool4 = Expr::parse("1034.17*x*log2(x)/4").unwrap();
    let curves = CostCurves::of_models(&[("pool", &pool4), ("pair", &pair)], &x, &[])
        .unwrap()
        .crossovers(&[4.21]);
    c.bench_function("cost curves of 2 x 200 points to SVG", |b| {
        b.iter(|| curves.svg().unwrap())
    });
    c.bench_function("cost curves of 2 x 200 points to PNG", |b| {
        b.iter(|| curves.png().unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
