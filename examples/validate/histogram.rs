//! The histogram mapReduce of seed 001 §4.1.2 on a generated image, and how
//! its atoms are measured: as the executor runs them.
//!
//! The executor's map workers group their pairs by key right after each map
//! call ([`WorkerGroups`]), and the reduce of a key gathers the key's values
//! from the workers that hold some ([`KeyValues::into_values`]). So the
//! design's atoms are:
//!
//! - `hist_map`: one image mapped *and its 768 pairs grouped* into the
//!   worker's buckets, per image, timed on one worker over a job's `x`
//!   images (buckets as large as a run's);
//! - `hist_map_corun`: the map where two or more of its workers are busy
//!   (the co-run variant the refined model gives it): the executor's map
//!   phase of two workers on two cores, per image and busy core;
//! - `hist_reduce`: one key reduced on the bucket of the one worker that
//!   holds all its values (as with `n = 1`), cold as after a map phase;
//! - `hist_reduce_corun`: the same where two workers reduce a job's keys at
//!   once on two cores, per key and busy core; the refined model's reduce
//!   where two or more workers are busy. The reduce reads every value once
//!   and is bound by the memory's bandwidth;
//! - `hist_gather`: what the reduce of a key costs more when its values are
//!   spread over workers (`n ≥ 2`): the gathering of its runs in input
//!   order, and the reduce on the gathered copy instead of the bucket,
//!   per key and busy core; timed as the executor runs `n = 2`, two
//!   workers mapping on two cores and then reducing on them, so that the
//!   values of the other core's worker are read from where it left them;
//! - `hist_shuffle`, the shuffle of eq. (5), is what is left between the
//!   map and the reduce: `min(1, m·n − 1) · o · hist_gather / min(m·n,
//!   cores)`, the gatherings shared by the reduce's busy cores (none with
//!   one worker).
//!
//! The reduce's co-run atom and the gathering time the executor's reduce
//! phase on two cores (worker 0 on the calling thread, the others on
//! threads of their own, [`phases::on_workers`], each taking the next key): timed
//! beside a partner reducing a job of its own, over and over, they gave
//! 1.6 ms of each core per job of 4,096 images where the runs of two
//! workers took 2.7 (run 9). The map's co-run atom is timed the same way,
//! the executor's map phase on two cores: the runs' two workers map at
//! 9.5–10.3 µs per image and core at 2,048 images in eight runs, where
//! every one-core probe moved by ±20 % from run to run (a core's share
//! timed alone, runs 12–13; the whole job beside a partner core mapping
//! one too, runs 9–11). The phase probes came out 12–35 % too slow until
//! their helpers were spawned as the executor's are ([`phases::on_workers`]).
//!
//! Every probe runs its jobs as a run does: the jobs of one size one after
//! the other, each grouping into the buckets the one before emptied
//! ([`phases::Spare`], [`job_after_job`]); the map probes reduce each job,
//! untimed, before mapping the next ([`map_between_reduces`]).
//!
//! The grouping is in the map's atom rather than the shuffle's because that
//! is where the program runs it, on the map's threads: the operators divide
//! it by `m·n` like the map, and the simulator puts it on the workers'
//! cores (it runs a shuffle as a delay on no core).

use crate::sort::splitmix;
use crate::suite::Suite;
use pattern_core::exec::{Cores, Job, Kernels, merge_groups};
use pattern_core::fit::measure::{Harness, Measurement, Samples};
use pattern_core::{cost, cost_of};
use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

mod phases;
use phases::{
    Spare, map_phase, map_phase_across, reduce_across, reduce_all, spare_at, with_room_at,
};

/// Width and height of the generated image.
const WIDTH: usize = 64;
const HEIGHT: usize = 64;
/// Keys: the 256 values of each of the three channels.
pub(crate) const KEYS: usize = 768;

/// An RGB image, 8 bits per channel, interleaved.
pub(crate) struct Image {
    rgb: Vec<u8>,
}

/// The one image every job replicates ("we decided to use only one picture
/// and replicate it as often as needed", §4.1.2): a colour gradient with
/// seeded noise, so that every channel value occurs.
pub(crate) fn image() -> Arc<Image> {
    static IMAGE: OnceLock<Arc<Image>> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let mut s = 15; // the paper used picture 15
            let mut rgb = Vec::with_capacity(WIDTH * HEIGHT * 3);
            for y in 0..HEIGHT {
                for x in 0..WIDTH {
                    let noise = splitmix(&mut s);
                    rgb.push((x * 4 + (noise & 0x3f) as usize) as u8);
                    rgb.push((y * 4 + ((noise >> 8) & 0x3f) as usize) as u8);
                    rgb.push(((x + y) * 2 + ((noise >> 16) & 0xff) as usize) as u8);
                }
            }
            Arc::new(Image { rgb })
        })
        .clone()
}

/// The map: the histogram of one image's channel values, as `(key, count)`
/// pairs for all 768 keys (key = channel · 256 + value).
#[cost("1.274e6")]
pub(crate) fn hist_map(image: &Image) -> Vec<(usize, u64)> {
    let mut counts = [0u64; KEYS];
    for px in image.rgb.chunks_exact(3) {
        counts[px[0] as usize] += 1;
        counts[256 + px[1] as usize] += 1;
        counts[512 + px[2] as usize] += 1;
    }
    counts.iter().copied().enumerate().collect()
}

/// The reduce: adds a key's counts (Table 1 row 8, per key).
#[cost("0.353395 * x")]
pub(crate) fn hist_reduce(_key: usize, counts: &[u64]) -> u64 {
    counts.iter().sum()
}

/// One job: `x` images in, the histogram of all of them out.
pub(crate) struct HistogramJob {
    images: Vec<Arc<Image>>,
    pub(crate) histogram: Vec<(usize, u64)>,
}

impl Job for HistogramJob {
    type Input = Arc<Image>;
    type Value = u64;
    type Output = u64;
    fn inputs(&self) -> &[Arc<Image>] {
        &self.images
    }
    fn set_output(&mut self, output: Vec<(usize, u64)>) {
        self.histogram = output;
    }
}

/// A job of `x` images.
pub(crate) fn job(x: usize) -> HistogramJob {
    HistogramJob {
        images: vec![image(); x],
        histogram: Vec::new(),
    }
}

/// The harness `harness` with its sizes in turn, each size's jobs one
/// after the other, as a run's jobs come: the next job maps into the
/// buckets the one before emptied and finds in the caches what that one
/// left. (Interleaved with other sizes, a job of 2,048 images mapped
/// 20 % slower than in a run: the jobs of 4,096 and 8,192 between took
/// its buckets out of the caches.)
fn job_after_job(harness: &Harness) -> Harness {
    harness.clone().interleave(false)
}
/// The map phase of `workers` map workers on `cores` (grouping included),
/// per image and busy core, timed job after job with the job before
/// reduced in between, untimed, on as many workers: as in a run, the map
/// fills the buckets the reduce has just read and emptied. (Without the
/// reduce between, the buckets came back unread and the map of 1,024 and
/// 2,048 images on one worker took 19–35 % longer than in the runs, run
/// 12.)
fn map_between_reduces(
    harness: &Harness,
    sizes: &[usize],
    label: &str,
    workers: usize,
    cores: &Cores,
) -> Measurement {
    let busy = workers.min(cores.len()).max(1);
    let spare = Spare::default();
    let mapped = RefCell::new(None);
    let m = job_after_job(harness).run(
        sizes,
        |x| {
            if let Some(keyed) = mapped.take() {
                reduce_across(keyed, busy, cores, &spare);
            }
            x
        },
        |x| {
            let keyed = merge_groups(map_phase_across(x, workers, cores, &spare));
            mapped.replace(Some(keyed));
        },
    );
    divided(label, &m, |x| x as f64 / busy as f64)
}

/// `m`'s timings divided by `per` (per image, per key).
fn divided(label: &str, m: &Measurement, per: impl Fn(usize) -> f64) -> Measurement {
    let sizes = m
        .sizes()
        .iter()
        .map(|s| Samples {
            x: s.x,
            times_ns: s.times_ns.iter().map(|t| t / per(s.x)).collect(),
            stopped_early: s.stopped_early,
        })
        .collect();
    Measurement::from_samples(label, sizes)
}

/// The median of `m` at `x`, 0 if not measured there.
fn median_at(m: &Measurement, x: usize) -> f64 {
    m.sizes()
        .iter()
        .find(|s| s.x == x)
        .map_or(0.0, Samples::median)
}

/// One key reduced where two workers reduce a job's keys at once on two
/// cores, every key in one bucket (as after a one-worker map): the reduce
/// phase's time per key and busy core.
fn reduce_corun(harness: &Harness, sizes: &[usize], cores: &Cores) -> Measurement {
    let spare = Spare::default();
    let busy = cores.len().clamp(1, 2);
    let m = job_after_job(harness).run(
        sizes,
        |x| merge_groups(map_phase(x, 1, &spare)),
        |keyed| reduce_across(keyed, busy, cores, &spare),
    );
    divided("hist_reduce_corun", &m, |_| KEYS as f64 / busy as f64)
}

/// What a key's reduce costs more with its values spread over two workers,
/// per key and busy core: the reduce phase of two workers on two cores
/// after a map by two workers on two cores, less the same after a
/// one-worker map (every key reduced in place).
fn gather_cost(harness: &Harness, sizes: &[usize], cores: &Cores) -> Measurement {
    let busy = cores.len().clamp(1, 2);
    let spare = Spare::default();
    let one = job_after_job(harness).run(
        sizes,
        |x| merge_groups(map_phase(x, 1, &spare)),
        |keyed| reduce_across(keyed, busy, cores, &spare),
    );
    let spares = with_room_at(sizes, 3 * KEYS);
    let two = job_after_job(harness).run(
        sizes,
        |x| {
            let spare = spare_at(&spares, x);
            (merge_groups(map_phase_across(x, 2, cores, spare)), spare)
        },
        |(keyed, spare)| reduce_across(keyed, busy, cores, spare),
    );
    let per_key = KEYS as f64 / busy as f64;
    let extra = two
        .sizes()
        .iter()
        .map(|s| Samples {
            x: s.x,
            times_ns: s
                .times_ns
                .iter()
                .map(|t| ((t - median_at(&one, s.x)) / per_key).max(0.0))
                .collect(),
            stopped_early: s.stopped_early,
        })
        .collect();
    Measurement::from_samples("hist_gather", extra)
}

/// The histogram suite: the mapReduce for n = 1, 2, 4 at 512 to 8,192
/// images per job.
pub(crate) fn histogram_suite() -> Suite<HistogramJob> {
    let kernels = Kernels::<HistogramJob>::new()
        .add_map(cost_of!(hist_map).name, |img: &Arc<Image>| hist_map(img))
        .add_reduce(cost_of!(hist_reduce).name, hist_reduce);
    // x = images per job.
    let sizes = [512, 1024, 2048, 4096, 8192];
    // The machine's cores, from the unpinned main thread.
    let cores = Cores::of_current_thread();
    let busy_cores = cores.len().max(1);
    let map_cores = cores.clone();
    let corun_cores = cores.clone();
    let reduce_cores = cores.clone();
    let gather_cores = cores;
    let mut suite = Suite::new("histogram mapReduce", kernels, &sizes, |x, _seed| job(x))
        // The map and the grouping of its pairs on one worker, per image,
        // over a job's x images (eq. (5) uses M[map](1): at x it is the
        // constant measured at x).
        .probe("hist_map", move |harness: &Harness, sizes: &[usize]| {
            map_between_reduces(harness, sizes, "hist_map", 1, &map_cores)
        })
        // The map phase of two workers on two cores, per image and busy
        // core: the co-run variant the refined model uses where two or
        // more workers are busy.
        .probe(
            "hist_map_corun",
            move |harness: &Harness, sizes: &[usize]| {
                map_between_reduces(harness, sizes, "hist_map_corun", 2, &corun_cores)
            },
        )
        // One key reduced on its one worker's bucket, right after the map
        // phase (cold), per key.
        .probe("hist_reduce", move |harness: &Harness, sizes: &[usize]| {
            let spare = Spare::default();
            let m = job_after_job(harness).run(
                sizes,
                |x| merge_groups(map_phase(x, 1, &spare)),
                |keyed| reduce_all(keyed, &spare),
            );
            divided("hist_reduce", &m, |_| KEYS as f64)
        })
        // The same where two workers reduce a job's keys at once on two
        // cores, every key in one bucket (as after a one-worker map): the
        // reduce workers of n >= 2 share the memory's bandwidth. The phase's
        // time per key and busy core.
        .probe(
            "hist_reduce_corun",
            move |harness: &Harness, sizes: &[usize]| reduce_corun(harness, sizes, &reduce_cores),
        )
        // What a key's reduce costs more with its values spread over two
        // workers, per key and busy core: the reduce phase of two workers
        // on two cores after a map by two workers on two cores, as the
        // executor runs n = 2, less the same after a one-worker map (every
        // key reduced in place).
        .probe("hist_gather", move |harness: &Harness, sizes: &[usize]| {
            gather_cost(harness, sizes, &gather_cores)
        })
        // Refined: the map at its co-run cost where two or more workers
        // are busy.
        .with_contention(true)
        // The shuffle of eq. (5) as the program runs it: o = k keys
        // gathered on the m·n reduce workers where there are several, at
        // most one at a time per core (the simulator runs a shuffle as a
        // delay on no core).
        .derived(
            "hist_shuffle",
            &format!("min(1, m*n - 1) * o * hist_gather / min(m*n, {busy_cores})"),
        );
    for (n, accept) in [(1, true), (2, true), (4, true)] {
        suite = suite.case(
            "mapreduce",
            &format!(
                "mapreduce[m = 1, n = {n}, d = x, k = {KEYS}](hist_map, hist_shuffle, hist_reduce)"
            ),
            accept,
        );
    }
    suite
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::Design;
    use pattern_core::exec::Executor;

    /// The probes' map phase groups exactly as the executor's run: the
    /// histogram of x images is x times the image's.
    #[test]
    fn the_probes_map_phase_is_the_executors() {
        let one: Vec<(usize, u64)> = hist_map(&image())
            .into_iter()
            .filter(|(_, c)| *c > 0)
            .collect();
        for workers in [1, 2] {
            let reduced: Vec<(usize, u64)> =
                merge_groups(map_phase(100, workers, &Spare::default()))
                    .into_iter()
                    .map(|k| (k.key(), k.into_values().iter().sum()))
                    .collect();
            let want: Vec<(usize, u64)> = one.iter().map(|&(k, c)| (k, 100 * c)).collect();
            assert_eq!(reduced, want);
        }
        let suite = histogram_suite();
        let d = Design::parse(
            "hist_map = 1; hist_shuffle = 1; hist_reduce = 1;
             mapreduce[m = 1, n = 2, d = x, k = 768](hist_map, hist_shuffle, hist_reduce)",
        )
        .unwrap();
        let run = Executor::new(&suite.kernels)
            .run(d.term(), vec![job(100)])
            .unwrap();
        let want: Vec<(usize, u64)> = one.iter().map(|&(k, c)| (k, 100 * c)).collect();
        assert_eq!(run.outputs[0].1.histogram, want);
    }

    /// The shuffle's model: no gathering with one worker, the gatherings of
    /// the 768 keys shared by the n workers otherwise.
    #[test]
    fn the_shuffle_gathers_only_with_several_workers() {
        let suite = histogram_suite();
        let atoms: Vec<(String, pattern_core::Expr)> = [
            ("hist_map", "0"),
            ("hist_reduce", "0"),
            ("hist_gather", "2*x"),
        ]
        .iter()
        .map(|(n, m)| (n.to_string(), pattern_core::Expr::parse(m).unwrap()))
        .collect();
        for (case, n) in suite.cases.iter().zip([1.0f64, 2.0, 4.0]) {
            let model = suite.design(case, &atoms).unwrap().model();
            let at_100 = model.eval(&[("x", 100.0)]).unwrap();
            // (at most one gathering at a time per core)
            let busy = n.min(Cores::of_current_thread().len().max(1) as f64);
            let want = if n == 1.0 { 0.0 } else { 768.0 * 200.0 / busy };
            assert!((at_100 - want).abs() < 1e-6, "n = {n}: {at_100}");
        }
    }

    /// The machine-aware prediction of the histogram: n = 2 workers on two
    /// cores halve the map, n = 4 share the two cores.
    #[test]
    fn the_simulated_map_reduce_shares_the_cores_among_its_workers() {
        let settings = crate::settings::Settings::default();
        assert!(settings.pin_threads);
        for (n, speedup) in [(1, 1.0), (2, 2.0), (4, 2.0)] {
            let d = Design::parse(&format!(
                "a = 1000; s = 0; r = 1; mapreduce[m = 1, n = {n}, d = x, k = 768](a, s, r)"
            ))
            .unwrap();
            let (_, simulated) =
                crate::machine_aware::predict(d.term(), 2, &settings, &[("x", 1000.0)], 0.0, None);
            // 1000 maps of 1000 ns and 768 reduces of 1 ns.
            let want = (1000.0 * 1000.0 + 768.0) / speedup;
            let got = simulated.unwrap();
            assert!(
                (got - want).abs() < 1e-6 * want,
                "n = {n}: {got} against {want}"
            );
        }
    }

    /// Where two or more map workers are busy, the refined model maps with
    /// the co-run atom; with one worker, with the atom timed alone.
    #[test]
    fn busy_map_workers_map_at_the_co_run_cost() {
        let corun = pattern_core::Atom {
            name: "hist_map_corun".into(),
            model: pattern_core::Expr::num(15.0),
            bytes: None,
        };
        for (n, want) in [(1, 10.0), (2, 15.0 / 2.0), (4, 15.0 / 4.0)] {
            let d = Design::parse(&format!(
                "hist_map = 10; s = 0; r = 0; mapreduce[m = 1, n = {n}, d = x, k = 768](hist_map, s, r)"
            ))
            .unwrap();
            let refined =
                crate::refinements::refine(d.term(), None, std::slice::from_ref(&corun), 2);
            let per_image = pattern_core::semantics::Throughput::new()
                .expr(&refined)
                .eval(&[("x", 1.0)])
                .unwrap();
            assert!((per_image - want).abs() < 1e-9, "n = {n}: {per_image}");
            // Simulated on two cores: the busy workers share them.
            let settings = crate::settings::Settings::default();
            let (_, simulated) =
                crate::machine_aware::predict(&refined, 2, &settings, &[("x", 1000.0)], 0.0, None);
            let cores_busy = n.min(2) as f64;
            let want = 1000.0 * want * n as f64 / cores_busy;
            let got = simulated.unwrap();
            assert!(
                (got - want).abs() < 1e-6 * want,
                "n = {n}: simulated {got}, not {want}"
            );
        }
    }
}
