//! Benchmarks of the crossover search and the sensitivities: a crossing in
//! closed form, crossings found numerically (Lambert's W, a cubic's three
//! roots, six pipelines with kinks, a partial tie), the derivatives and the speed-up
//! ranking of a six-stage pipeline, and the bottleneck stages of it.
//! Run with `cargo bench --bench explore_crossover`.
use criterion::{Criterion, criterion_group, criterion_main};
use pattern_core::explore::crossover::{Span, crossovers, design_crossovers};
use pattern_core::explore::sensitivity::{bottleneck_stages, design_sensitivity, speed_up_ranking};
use pattern_core::paper::table1_definitions;
use pattern_core::{Design, Expr};
use std::hint::black_box;

fn design(term: &str) -> Design {
    Design::parse(&format!("{}{term}", table1_definitions())).unwrap()
}

const SIX_STAGES: &str = "pipe(tpool[n](qsort), tpool[2](inc), nop, tpool[4](seq(inc, inc)), \
                          tpool[8](qsort), tpool[3](seq(qsort, inc)))";

fn crossover(c: &mut Criterion) {
    let mut group = c.benchmark_group("crossover");
    let span = Span::new("x", 1.0, 1e12);
    let pair = [design("tpool[4](qsort)"), design("tpool[2](seq(inc, inc))")];
    group.bench_function("closed form, Table 1 pools, 1..1e12", |b| {
        b.iter(|| black_box(design_crossovers(black_box(&pair), span, &[]).unwrap()))
    });
    let lambert = [design("tpool[4](qsort)"), design("nop")];
    group.bench_function("numeric, x·log2(x) against a constant, 1..1e12", |b| {
        b.iter(|| black_box(design_crossovers(black_box(&lambert), span, &[]).unwrap()))
    });
    let cubic = [
        Expr::parse("x^3 + 290*x").unwrap(),
        Expr::parse("47*x^2 + 400").unwrap(),
    ];
    group.bench_function("numeric, cubic with three crossings, 1..1e6", |b| {
        b.iter(|| black_box(crossovers(black_box(&cubic), Span::new("x", 1.0, 1e6), &[]).unwrap()))
    });
    let six: Vec<Design> = (1..=6)
        .map(|k| {
            design(&format!(
                "pipe(tpool[{k}](qsort), tpool[{}](inc), nop)",
                7 - k
            ))
        })
        .collect();
    group.bench_function("numeric, six 3-stage pipelines (max), 1..1e12", |b| {
        b.iter(|| black_box(design_crossovers(black_box(&six), span, &[]).unwrap()))
    });
    // Equal from x = 4.21 on, where their shared stage dominates.
    let partial_tie = [
        design("pipe(tpool[4](qsort), inc)"),
        design("tpool[4](qsort)"),
    ];
    group.bench_function(
        "numeric, partial tie of a pipeline and its stage, 1..1e12",
        |b| b.iter(|| black_box(design_crossovers(black_box(&partial_tie), span, &[]).unwrap())),
    );
    group.finish();
}

fn sensitivity(c: &mut Criterion) {
    let mut group = c.benchmark_group("sensitivity");
    let d = design(SIX_STAGES);
    let at = [("x", 1e6), ("n", 4.0)];
    group.bench_function("derivatives, six-stage pipeline (10 atoms)", |b| {
        b.iter(|| black_box(design_sensitivity(black_box(&d), &at).unwrap()))
    });
    group.bench_function("speed-up ranking, six-stage pipeline", |b| {
        b.iter(|| black_box(speed_up_ranking(black_box(&d), &at).unwrap()))
    });
    group.bench_function("bottleneck stages, six-stage pipeline, 1..1e12", |b| {
        b.iter(|| {
            black_box(
                bottleneck_stages(black_box(&d), Span::new("x", 1.0, 1e12), &[("n", 4.0)]).unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, crossover, sensitivity);
criterion_main!(benches);
