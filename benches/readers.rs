//! Benchmarks of the Extra-P readers at 10^4, 10^5 and 10^6 points: the
//! text format, JSON Lines and the legacy JSON format (with a call path per
//! ten points). Linear readers take about 10x the time for 10x the points.
//! Run with `cargo bench --bench readers`.
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pattern_core::fit::extrap_io::Experiment;
use std::fmt::Write as _;
use std::hint::black_box;

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// `n` points of one parameter, one repetition each.
fn text(n: usize) -> String {
    let mut out = String::from("PARAMETER x\nPOINTS");
    for i in 0..n {
        let _ = write!(out, " ({})", i + 1);
    }
    out.push_str("\nREGION main\nMETRIC time\n");
    for i in 0..n {
        let _ = writeln!(out, "DATA {}", 3.5 * (i + 1) as f64);
    }
    out
}

fn json_lines(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let _ = writeln!(
            out,
            r#"{{"params": {{"x": {}}}, "value": {}}}"#,
            i + 1,
            3.5 * (i + 1) as f64
        );
    }
    out
}

/// The legacy format: `n` measurements over `n / 10` call paths.
fn legacy_json(n: usize) -> String {
    let paths = (n / 10).max(1);
    let callpaths: Vec<String> = (0..paths)
        .map(|i| format!(r#"{{"id": {i}, "name": "f{i}"}}"#))
        .collect();
    let coordinates: Vec<String> = (0..10)
        .map(|c| format!(r#"{{"id": {c}, "parameter_value_pairs": [{{"parameter_id": 0, "parameter_value": {}}}]}}"#, c + 1))
        .collect();
    let measurements: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"coordinate_id": {}, "callpath_id": {}, "metric_id": 0, "value": {}}}"#,
                i % 10,
                (i / 10) % paths,
                i
            )
        })
        .collect();
    format!(
        r#"{{"parameters": [{{"id": 0, "name": "x"}}], "callpaths": [{}], "metrics": [{{"id": 0, "name": "time"}}], "coordinates": [{}], "measurements": [{}]}}"#,
        callpaths.join(", "),
        coordinates.join(", "),
        measurements.join(", ")
    )
}

fn readers(c: &mut Criterion) {
    let mut group = c.benchmark_group("read");
    group.sample_size(10);
    for n in SIZES {
        group.throughput(Throughput::Elements(n as u64));
        let (t, l, j) = (text(n), json_lines(n), legacy_json(n));
        assert_eq!(Experiment::read_text(&t).unwrap().series[0].points.len(), n);
        assert_eq!(Experiment::read_json(&l).unwrap().series[0].points.len(), n);
        assert_eq!(
            Experiment::read_json(&j).unwrap().series.len(),
            (n / 10).max(1)
        );
        group.bench_with_input(BenchmarkId::new("text", n), &t, |b, t| {
            b.iter(|| Experiment::read_text(black_box(t)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("json_lines", n), &l, |b, l| {
            b.iter(|| Experiment::read_json(black_box(l)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("legacy_json", n), &j, |b, j| {
            b.iter(|| Experiment::read_json(black_box(j)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, readers);
criterion_main!(benches);
