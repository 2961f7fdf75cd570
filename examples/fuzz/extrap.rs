//! The targets of Extra-P's binary inputs (experiment files, Extra-P 3's
//! experiment files, CUBE runs: each written from a generated experiment,
//! read back, then read again damaged), and the fit of what any Extra-P
//! reader read.

use crate::cube_profiles::{Metric, Profile};
use pattern_core::fit::extrap_io::{CubeOptions, Experiment, ModelSet, Scaling};
use pattern_core::fit::{Aggregate, Fitter};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An experiment file written from a text experiment reads back equal; a
/// damaged copy reads as an error or as some experiment, never a panic.
pub(crate) fn run_extrap_experiment(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(experiment) = Experiment::read_text(text) else {
        return Ok(());
    };
    let fits: Vec<_> = experiment
        .fit_all(&Fitter::new())
        .into_iter()
        .filter_map(|(region, metric, fit)| Some((region, metric, fit.ok()?)))
        .collect();
    let set = ModelSet {
        name: "fuzz".into(),
        measure: Aggregate::Median,
        models: fits
            .iter()
            .map(|(r, m, f)| (r.as_str(), m.as_str(), f))
            .collect(),
    };
    let Ok(bytes) = experiment.to_extrap_bytes(Some(&set)) else {
        return Ok(());
    };
    let back = Experiment::read_extrap_bytes(&bytes, Aggregate::Median)
        .map_err(|e| format!("a file just written does not read: {e}"))?;
    if back != experiment {
        return Err("the experiment read back differs from the one written".into());
    }
    let damaged = damage(rng, bytes);
    experiment_read(Experiment::read_extrap_bytes(&damaged, Aggregate::Mean))
}

/// `experiment` as an Extra-P 3 file: its records, a point's median as
/// its mean and median.
fn extrap3_bytes(experiment: &Experiment, big: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut put = |bytes: &[u8]| {
        let mut b = bytes.to_vec();
        if big {
            b.reverse();
        }
        out.extend(b);
    };
    let text = |put: &mut dyn FnMut(&[u8]), s: &str| {
        put(&(s.len() as u32).to_le_bytes());
        // Bytes of a string are not in an order: undo the reversal.
        let mut b = s.as_bytes().to_vec();
        if big {
            b.reverse();
        }
        put(&b);
    };
    put(&1i16.to_le_bytes());
    text(&mut put, "EXTRAP_EXPERIMENT");
    text(&mut put, "3.0");
    for (i, p) in experiment.parameters.iter().enumerate() {
        text(&mut put, "Parameter");
        put(&(i as i64).to_le_bytes());
        text(&mut put, p);
    }
    let mut coordinates: Vec<Vec<f64>> = Vec::new();
    for (i, s) in experiment.series.iter().enumerate() {
        let id = (i as i64).to_le_bytes();
        text(&mut put, "Metric");
        put(&id);
        text(&mut put, &s.metric);
        text(&mut put, "s");
        text(&mut put, "Region");
        put(&id);
        text(&mut put, &s.region);
        text(&mut put, "f.c");
        put(&0i64.to_le_bytes());
        text(&mut put, "Callpath");
        put(&id);
        put(&id);
        put(&(-1i64).to_le_bytes());
        for p in &s.points {
            let same = |c: &Vec<f64>| {
                c.iter()
                    .zip(&p.coordinate)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            };
            let c = match coordinates.iter().position(same) {
                Some(c) => c,
                None => {
                    text(&mut put, "Coordinate");
                    put(&(coordinates.len() as i64).to_le_bytes());
                    put(&(p.coordinate.len() as i64).to_le_bytes());
                    for (name, v) in experiment.parameters.iter().zip(&p.coordinate) {
                        text(&mut put, name);
                        put(&v.to_le_bytes());
                    }
                    coordinates.push(p.coordinate.clone());
                    coordinates.len() - 1
                }
            };
            let median = pattern_core::fit::stats::median(&p.values);
            text(&mut put, "ExperimentPoint");
            put(&(c as i64).to_le_bytes());
            put(&(p.values.len() as i64).to_le_bytes());
            for _ in 0..9 {
                put(&median.to_le_bytes());
            }
            put(&id);
            put(&id);
        }
    }
    out
}

/// A text experiment written as an Extra-P 3 file reads back with each
/// point's median; a damaged copy reads as an error or an experiment.
pub(crate) fn run_extrap3(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(experiment) = Experiment::read_text(text) else {
        return Ok(());
    };
    // Series of one region share a call path in Extra-P 3; keep them apart.
    let unique = experiment.series.iter().enumerate().all(|(i, s)| {
        experiment.series[..i]
            .iter()
            .all(|t| t.region != s.region && t.metric != s.metric)
    });
    let bytes = extrap3_bytes(&experiment, rng.random_bool(0.5));
    let back = Experiment::read_extrap3_bytes(&bytes, Aggregate::Median);
    if unique {
        let back = back.map_err(|e| format!("a file just written does not read: {e}"))?;
        for (s, b) in experiment.series.iter().zip(&back.series) {
            let medians: Vec<f64> = s
                .points
                .iter()
                .map(|p| pattern_core::fit::stats::median(&p.values))
                .collect();
            let read: Vec<f64> = b.points.iter().flat_map(|p| p.values.clone()).collect();
            let same = medians
                .iter()
                .zip(&read)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
            if medians.len() != read.len() || !same || s.region != b.region {
                return Err(format!(
                    "`{}` reads back as {read:?}, not {medians:?}",
                    s.region
                ));
            }
        }
    }
    let damaged = damage(rng, bytes);
    experiment_read(Experiment::read_extrap3_bytes(&damaged, Aggregate::Mean))
}

/// A random profile of `p`: a call tree of up to 6 nodes, up to 3 metrics
/// of random kinds and types (some unreadable), 1–3 locations.
fn cube_profile(rng: &mut ChaCha8Rng, p: f64) -> Profile {
    let regions = ["main", "solve", "mpi", "io", "main"];
    let n = rng.random_range(1..=6);
    let cnodes: Vec<(Option<usize>, usize)> = (0..n)
        .map(|i| {
            let parent = (i > 0).then(|| rng.random_range(0..i));
            (parent, rng.random_range(0..regions.len()))
        })
        .collect();
    let locations = rng.random_range(1..=3);
    let mut profile = Profile::new(&regions, &cnodes, locations);
    let dtypes = [
        "DOUBLE",
        "UINT64",
        "INT32",
        "FLOAT",
        "MAXDOUBLE",
        "TAU_ATOMIC",
        "UINT8",
    ];
    for id in 0..rng.random_range(1..=3u32) {
        let kind = if rng.random_bool(0.5) {
            "EXCLUSIVE"
        } else {
            "INCLUSIVE"
        };
        let dtype = dtypes[rng.random_range(0..dtypes.len())];
        let mut rows: Vec<(usize, Vec<f64>)> = Vec::new();
        for c in 0..n {
            if rng.random_bool(0.8) {
                let values = (0..locations).map(|_| (p * rng.random_range(0..100) as f64).floor());
                rows.push((c, values.collect()));
            }
        }
        let rows: Vec<(usize, &[f64])> = rows.iter().map(|(c, v)| (*c, v.as_slice())).collect();
        profile = profile.metric(Metric::new(id, &format!("m{id}"), kind, dtype), &rows);
    }
    profile.compressed = rng.random_bool(0.3);
    profile.big_endian = rng.random_bool(0.3);
    profile.gzip_anchor = rng.random_bool(0.2);
    profile.anchor_first = rng.random_bool(0.5);
    profile
}

/// Random runs of a CUBE experiment read as one: an error or series, never
/// a panic; a profile with bytes flipped or cut likewise.
pub(crate) fn run_extrap_cube(_: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("pattern-fuzz-cube-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shape = rng.random::<u64>();
    let mut files = Vec::new();
    for p in [1.0, 2.0, 4.0, 8.0] {
        // The same tree and metrics at every point, values of their own.
        let mut same = ChaCha8Rng::seed_from_u64(shape);
        let mut profile = cube_profile(&mut same, p);
        for v in &mut profile.values {
            for (_, row) in &mut v.rows {
                row.iter_mut()
                    .for_each(|x| *x += rng.random_range(0..3) as f64);
            }
        }
        files.push(profile.write(&dir, &format!("app.p{p}.r1"), "profile.cubex"));
    }
    let options = CubeOptions {
        scaling: [Scaling::Weak, Scaling::WeakThreaded, Scaling::Strong][rng.random_range(0..3)],
        inclusive: rng.random_bool(0.3),
        ..CubeOptions::default()
    };
    let whole = Experiment::read_cube(&dir, &options).map(|r| r.experiment);
    experiment_read(whole)?;
    let file = &files[rng.random_range(0..files.len())];
    let bytes = damage(rng, std::fs::read(file).map_err(|e| e.to_string())?);
    std::fs::write(file, &bytes).map_err(|e| e.to_string())?;
    let damaged = Experiment::read_cube(&dir, &options).map(|r| r.experiment);
    let _ = std::fs::remove_dir_all(&dir);
    experiment_read(damaged)
}

/// `bytes` with 1–7 bits flipped, and cut short in 3 cases of 10.
fn damage(rng: &mut ChaCha8Rng, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.random_range(1..8) {
        let at = rng.random_range(0..bytes.len());
        bytes[at] ^= 1 << rng.random_range(0..8);
    }
    if rng.random_bool(0.3) {
        bytes.truncate(rng.random_range(0..bytes.len()));
    }
    bytes
}

/// A fit of what was read, when it is small.
pub(crate) fn experiment_read<E>(read: Result<Experiment, E>) -> Result<(), String> {
    let Ok(experiment) = read else {
        return Ok(());
    };
    let fitter = Fitter::new();
    for (_, _, fit) in experiment.fit_all(&fitter) {
        if let Ok(fit) = fit {
            let _ = fit.to_string();
        }
    }
    Ok(())
}
