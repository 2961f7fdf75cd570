//! Atom timing: every element atom timed the way a run calls it — cold, as
//! the mean over a stream of elements ([`Settings::atom_stream`]); warm,
//! on elements fresh in the cache ([`Suite::with_cache_reuse`]); co-run,
//! while every other core runs it too ([`Suite::with_contention`]), handed
//! from and handing on to another core. (The hand-overs between threads
//! are timed as atoms of their own in `handoffs.rs`.) Each timing is a
//! [`Measurement`] that the suite states at the reference speed
//! ([`scaled`]), collects ([`merge`]) and fits ([`fit_atom`]).

use crate::cases::Timing;
use crate::error::ValidationError;
use crate::probe::Speed;
use crate::report::{AtomReport, AtomSamples};
use crate::settings::Settings;
use crate::suite::{Probe, Suite};
use crate::variants::Variant;
use pattern_core::exec::{Cores, ElementKernel};
use pattern_core::fit::measure::{Harness, Measurement, Samples, timed};
use pattern_core::{Atom, Expr};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

impl<E: Send + 'static> Suite<E> {
    pub(crate) fn measure_probe(
        &self,
        probe: &Probe,
        settings: &Settings,
        sizes: &[usize],
    ) -> Result<Measurement, ValidationError> {
        match probe {
            Probe::Custom(_, f) => Ok(f(
                &Harness::new()
                    .warmup(1)
                    .repetitions(settings.atom_repetitions)
                    .progress(false)
                    .label(probe.name()),
                sizes,
            )),
            Probe::Element(name) => {
                let kernel = self
                    .kernels
                    .element(name)
                    .ok_or_else(|| ValidationError::NoKernel(name.clone()))?;
                let reps = settings.atom_repetitions.max(1);
                let lengths: Vec<usize> = sizes
                    .iter()
                    .map(|&x| self.stream_length(name, &kernel, x, settings))
                    .collect();
                // Every stream is built before the timings start, one
                // element after the other like a run's, and followed by
                // `cold_bytes` of other writes, so that each element is as
                // cold as a run's when its turn comes. The first element
                // of each size warms the code up, untimed.
                let mut seed = u64::MAX;
                let mut streams: Vec<Vec<E>> = sizes
                    .iter()
                    .zip(&lengths)
                    .map(|(&x, &k)| {
                        (0..1 + reps * k)
                            .map(|_| {
                                seed -= 1;
                                (self.make)(x, seed)
                            })
                            .collect()
                    })
                    .collect();
                self.evict(sizes, settings);
                let mut samples = Vec::with_capacity(sizes.len());
                for ((&x, &k), stream) in sizes.iter().zip(&lengths).zip(&mut streams) {
                    let (first, rest) = stream.split_at_mut(1);
                    kernel(&mut first[0]);
                    let times_ns = stream_means(&kernel, rest, k);
                    samples.push(Samples {
                        x,
                        times_ns,
                        stopped_early: false,
                    });
                }
                std::hint::black_box(&mut streams);
                Ok(Measurement::from_samples(name, samples))
            }
        }
    }

    /// The element kernel `name`, or the error that there is none.
    pub(crate) fn element_kernel(&self, name: &str) -> Result<ElementKernel<E>, ValidationError> {
        self.kernels
            .element(name)
            .ok_or_else(|| ValidationError::NoKernel(name.to_string()))
    }

    /// Writes [`Settings::cold_bytes`] of scratch memory (when elements at
    /// `sizes` take memory at all), so that what was built before comes
    /// from memory.
    pub(crate) fn evict(&self, sizes: &[usize], settings: &Settings) {
        if settings.cold_bytes > 0 && sizes.iter().any(|&x| (self.bytes)(x) > 0) {
            let mut scratch = self
                .scratch
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            scratch.resize(settings.cold_bytes, 0);
            let stamp = scratch.first().map_or(1, |b| b.wrapping_add(1));
            scratch.fill(stamp);
            std::hint::black_box(&mut *scratch);
        }
    }

    /// Elements per timing of the element atom `name` at `x`
    /// ([`Settings::atom_stream`]): enough for the target time by a pilot
    /// call at the first request, then fixed, so that every timing of the
    /// atom at `x` is taken the same way.
    pub(crate) fn stream_length(
        &self,
        name: &str,
        kernel: &ElementKernel<E>,
        x: usize,
        settings: &Settings,
    ) -> usize {
        if settings.atom_stream.is_zero() {
            return 1;
        }
        let mut lengths = self
            .stream_lengths
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *lengths.entry((name.to_string(), x)).or_insert_with(|| {
            let mut pilot = [(self.make)(x, 1), (self.make)(x, 2)];
            kernel(&mut pilot[0]);
            let once = timed(|| kernel(&mut pilot[1])).1.max(1.0);
            let by_time = (settings.atom_stream.as_nanos() as f64 / once).ceil() as usize;
            let by_memory = match (self.bytes)(x) {
                0 => usize::MAX,
                b => settings.max_bytes / 4 / b,
            };
            by_time.min(by_memory).min(settings.max_elements).max(1)
        })
    }

    /// Times the element atoms `uses` at `x` (cold; warm with
    /// [`Suite::with_cache_reuse`]; co-run for those in `contended`), each
    /// between two readings of the speed probe, and adds the timings to
    /// `timed`.
    pub(crate) fn time_atoms(
        &self,
        timing: &Timing,
        settings: &Settings,
        x: usize,
        timed: &mut [Option<AtomTimings>],
        speed: &mut Speed,
    ) -> Result<(), ValidationError> {
        for &i in &timing.uses {
            let probe = &self.probes[i];
            let (cold_raw, factor) = speed.atom(|| self.measure_probe(probe, settings, &[x]));
            let cold_raw = cold_raw?;
            let cold = scaled(&cold_raw, factor);
            let mut variants = BTreeMap::new();
            // A custom probe has no variants of its own (a co-run variant
            // is a probe of its own).
            if self.warm && matches!(probe, Probe::Element(_)) {
                let (warm, factor) = speed.atom(|| self.measure_warm(probe.name(), settings, x));
                variants.insert(Variant::Warm, scaled(&warm?, factor));
            }
            if timing.contended.contains(&i) {
                let cores = speed.cores.clone();
                let (corun, factor) =
                    speed.atom(|| self.measure_corun(probe.name(), settings, x, cores.as_ref()));
                variants.insert(Variant::Corun, scaled(&corun?, factor));
            }
            if timing.handed.contains(&i) {
                let cores = speed.cores.clone();
                let (m, factor) =
                    speed.atom(|| self.measure_handed(probe.name(), settings, x, cores.as_ref()));
                if let Some((handed, handing)) = m? {
                    variants.insert(Variant::Handed, scaled(&handed, factor));
                    variants.insert(Variant::Handing, scaled(&handing, factor));
                }
            }
            let now = AtomTimings {
                cold,
                variants,
                cold_raw,
            };
            timed[i] = Some(match timed[i].take() {
                None => now,
                Some(before) => before.joined(now),
            });
        }
        Ok(())
    }

    /// The atoms as timed around a run (the median at `x`), those not
    /// timed from their fit, and the variants (warm, co-run, handed,
    /// handing).
    pub(crate) fn local_atoms(
        &self,
        timed: &[Option<AtomTimings>],
        atom_samples: &[BTreeMap<usize, Vec<f64>>],
        x: usize,
        settings: &Settings,
    ) -> (Vec<(String, Expr)>, Vec<Atom>) {
        let mut local = Vec::new();
        let mut variants = Vec::new();
        for (i, probe) in self.probes.iter().enumerate() {
            let model = match (probe, &timed[i]) {
                (Probe::Element(name), Some(t)) => {
                    variants.extend(t.variants.iter().map(|(variant, m)| Atom {
                        name: variant.name(name),
                        model: Expr::num(median_at(m, x)),
                        bytes: None,
                    }));
                    Expr::num(median_at(&t.cold, x))
                }
                (Probe::Custom(..), Some(t)) => Expr::num(median_at(&t.cold, x)),
                _ => fit_atom(probe.name(), &atom_samples[i], settings)
                    .map_or(Expr::num(1e3), |a| a.model),
            };
            local.push((probe.name().to_string(), model));
        }
        (local, variants)
    }

    /// Times the element kernel `name` at `x` on inputs fresh from the
    /// generator (in the cache, as after another atom on the same thread):
    /// as many calls per timing as a cold timing makes, each on an element
    /// built right before it, their mean.
    pub(crate) fn measure_warm(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
    ) -> Result<Measurement, ValidationError> {
        let kernel = self.element_kernel(name)?;
        let k = self.stream_length(name, &kernel, x, settings);
        let mut seed = 0u64;
        let mut fresh = || {
            seed += 1;
            (self.make)(x, seed)
        };
        kernel(&mut fresh());
        let times_ns = (0..settings.atom_repetitions.max(1))
            .map(|_| {
                let mut total = 0.0;
                for _ in 0..k {
                    let mut e = fresh();
                    total += timed(|| kernel(&mut e)).1;
                    std::hint::black_box(&mut e);
                }
                total / k as f64
            })
            .collect();
        Ok(Measurement::from_samples(
            &Variant::Warm.name(name),
            vec![Samples {
                x,
                times_ns,
                stopped_early: false,
            }],
        ))
    }

    /// Times the element kernel `name` at `x` on both sides of a pipeline
    /// boundary between two of its stages, as the two stages find it: the
    /// cold elements go through the kernel on the second core (the stage
    /// before, running ahead through a channel of the executor's capacity)
    /// and then through it again on the first, as they arrive. Returns the
    /// first core's timings (elements another core has just worked on: the
    /// handed variant) and the second core's (elements the next stage
    /// takes from this core's cache: the handing variant); a stream as
    /// long as a cold timing's, its mean, with one element ahead of it,
    /// untimed, that warms the code up. On one core, `None`.
    pub(crate) fn measure_handed(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
        cores: Option<&Cores>,
    ) -> Result<Option<(Measurement, Measurement)>, ValidationError> {
        let kernel = self.element_kernel(name)?;
        let Some(cores) = cores.filter(|c| c.len() > 1) else {
            return Ok(None);
        };
        let k = self.stream_length(name, &kernel, x, settings);
        let reps = settings.atom_repetitions.max(1);
        let mut seed = u64::MAX / 4;
        let elements: Vec<E> = (0..1 + reps * k)
            .map(|_| {
                seed -= 1;
                (self.make)(x, seed)
            })
            .collect();
        self.evict(&[x], settings);
        // The stage before streams ahead as far as the executor's channel
        // lets it, as it does in a pipeline: a ping-pong that waited for
        // each element to come back timed elements fresh from an idle
        // core, 30–45 % slower than cold ones at 32,768–262,144 elements
        // (2026-11-24), where the second stage of `pipe(inc, inc)` ran at
        // the cold time.
        let (to_stage, from_before) = std::sync::mpsc::sync_channel::<E>(settings.capacity.max(1));
        let (handed, handing) = thread::scope(|s| {
            let kernel_before = &kernel;
            // Spawned as the executor spawns, free to start on its own core.
            let before = cores.spawning(0, || {
                s.spawn(move || {
                    cores.pin_current(1);
                    let mut elements = elements.into_iter();
                    let mut times = Vec::with_capacity(reps);
                    if let Some(mut first) = elements.next() {
                        kernel_before(&mut first);
                        if to_stage.send(first).is_err() {
                            return times;
                        }
                    }
                    for _ in 0..reps {
                        let mut total = 0.0;
                        let mut count = 0usize;
                        for mut e in elements.by_ref().take(k) {
                            total += timed(|| kernel_before(&mut e)).1;
                            count += 1;
                            if to_stage.send(e).is_err() {
                                return times;
                            }
                        }
                        times.push(total / count.max(1) as f64);
                    }
                    times
                })
            });
            cores.pin_current(0);
            let mut times = Vec::with_capacity(reps);
            if let Ok(mut first) = from_before.recv() {
                kernel(&mut first);
                std::hint::black_box(&mut first);
            }
            for _ in 0..reps {
                let mut total = 0.0;
                let mut count = 0usize;
                for _ in 0..k {
                    let Ok(mut e) = from_before.recv() else { break };
                    total += timed(|| kernel(&mut e)).1;
                    std::hint::black_box(&mut e);
                    count += 1;
                }
                times.push(total / count.max(1) as f64);
            }
            drop(from_before);
            (times, before.join().unwrap_or_default())
        });
        let measurement = |label: &str, times_ns: Vec<f64>| {
            Measurement::from_samples(
                label,
                vec![Samples {
                    x,
                    times_ns,
                    stopped_early: false,
                }],
            )
        };
        Ok(Some((
            measurement(&Variant::Handed.name(name), handed),
            measurement(&Variant::Handing.name(name), handing),
        )))
    }

    /// Times the element kernel `name` at `x` like a cold timing
    /// ([`Settings::atom_stream`]) while every other core (one other thread
    /// when unpinned) runs it too, each on a cold stream of its own, from
    /// the first timed call to the last.
    pub(crate) fn measure_corun(
        &self,
        name: &str,
        settings: &Settings,
        x: usize,
        cores: Option<&Cores>,
    ) -> Result<Measurement, ValidationError> {
        let kernel = self.element_kernel(name)?;
        let k = self.stream_length(name, &kernel, x, settings);
        let reps = settings.atom_repetitions.max(1);
        let partners = cores.map_or(1, |c| c.len() - 1).max(1);
        let mut seed = u64::MAX / 2;
        let mut build = || -> Vec<E> {
            (0..1 + reps * k)
                .map(|_| {
                    seed -= 1;
                    (self.make)(x, seed)
                })
                .collect()
        };
        let mut timed = build();
        let mut others: Vec<Vec<E>> = (0..partners).map(|_| build()).collect();
        self.evict(&[x], settings);
        let ready = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let times_ns = thread::scope(|s| {
            for (p, stream) in others.iter_mut().enumerate() {
                let (kernel, ready, done) = (&kernel, &ready, &done);
                s.spawn(move || {
                    if let Some(cores) = cores {
                        cores.pin_current(p + 1);
                    }
                    let (first, rest) = stream.split_at_mut(1);
                    kernel(&mut first[0]);
                    ready.fetch_add(1, Ordering::AcqRel);
                    // Round and round its stream until the timing ends: the
                    // stream is larger than a core's cache, so elements
                    // worked on before come from memory again.
                    'work: loop {
                        for e in rest.iter_mut() {
                            if done.load(Ordering::Acquire) {
                                break 'work;
                            }
                            kernel(e);
                        }
                    }
                });
            }
            let (first, rest) = timed.split_at_mut(1);
            kernel(&mut first[0]);
            while ready.load(Ordering::Acquire) < partners {
                std::hint::spin_loop();
            }
            let times = stream_means(&kernel, rest, k);
            done.store(true, Ordering::Release);
            times
        });
        Ok(Measurement::from_samples(
            &Variant::Corun.name(name),
            vec![Samples {
                x,
                times_ns,
                stopped_early: false,
            }],
        ))
    }

    pub(crate) fn fit_atoms(
        &self,
        samples: &[BTreeMap<usize, Vec<f64>>],
        settings: &Settings,
    ) -> Result<Vec<AtomReport>, ValidationError> {
        self.probes
            .iter()
            .zip(samples)
            .map(|(p, s)| fit_atom(p.name(), s, settings))
            .collect()
    }
}

/// An atom's timings around one run: at the reference speed and as
/// measured.
#[derive(Clone)]
pub(crate) struct AtomTimings {
    /// Cold, at the reference speed.
    pub(crate) cold: Measurement,
    /// Its variants timed ([`Suite::with_cache_reuse`],
    /// [`Suite::with_contention`], [`Suite::measure_handed`]), at the
    /// reference speed.
    pub(crate) variants: BTreeMap<Variant, Measurement>,
    /// Cold, as measured.
    pub(crate) cold_raw: Measurement,
}

impl AtomTimings {
    /// These timings and `later`'s together (a variant timed in one of
    /// them only, as it is).
    fn joined(mut self, later: AtomTimings) -> AtomTimings {
        for (variant, m) in later.variants {
            let joined = match self.variants.remove(&variant) {
                Some(before) => join_measurements(&before, &m),
                None => m,
            };
            self.variants.insert(variant, joined);
        }
        AtomTimings {
            cold: join_measurements(&self.cold, &later.cold),
            variants: self.variants,
            cold_raw: join_measurements(&self.cold_raw, &later.cold_raw),
        }
    }
}

/// `m` with every timing multiplied by `factor`.
pub(crate) fn scaled(m: &Measurement, factor: f64) -> Measurement {
    if factor == 1.0 {
        return m.clone();
    }
    Measurement::from_samples(
        &m.label,
        m.sizes()
            .iter()
            .map(|s| Samples {
                x: s.x,
                times_ns: s.times_ns.iter().map(|t| t * factor).collect(),
                stopped_early: s.stopped_early,
            })
            .collect(),
    )
}

/// The timings of two measurements together.
fn join_measurements(a: &Measurement, b: &Measurement) -> Measurement {
    let mut samples: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    merge(&mut samples, a);
    merge(&mut samples, b);
    Measurement::from_samples(
        &a.label,
        samples
            .into_iter()
            .map(|(x, times_ns)| Samples {
                x,
                times_ns,
                stopped_early: false,
            })
            .collect(),
    )
}

/// The median timing of a measurement at `x` (NaN if it has none).
fn median_at(m: &Measurement, x: usize) -> f64 {
    m.sizes()
        .iter()
        .find(|s| s.x == x)
        .map_or(f64::NAN, |s| s.median())
}

/// The refined term: cache reuse, contention, the pools' hand-over, then
/// Adds a measurement's timings to the samples collected so far.
pub(crate) fn merge(samples: &mut BTreeMap<usize, Vec<f64>>, m: &Measurement) {
    for s in m.sizes() {
        samples.entry(s.x).or_default().extend(&s.times_ns);
    }
}

pub(crate) fn fit_atom(
    name: &str,
    samples: &BTreeMap<usize, Vec<f64>>,
    settings: &Settings,
) -> Result<AtomReport, ValidationError> {
    let measurement = Measurement::from_samples(
        name,
        samples
            .iter()
            .map(|(&x, t)| Samples {
                x,
                times_ns: t.clone(),
                stopped_early: false,
            })
            .collect(),
    );
    let fit = measurement
        .fit(&settings.fitter)
        .map_err(|source| ValidationError::Fit {
            what: format!("the atom `{name}`"),
            source,
        })?;
    Ok(AtomReport {
        name: name.to_string(),
        model: fit.model().clone(),
        cv_smape: fit.stats().cv_smape,
        samples: measurement
            .sizes()
            .iter()
            .map(|s| AtomSamples {
                x: s.x,
                median_ns: s.median(),
                times_ns: s.times_ns.clone(),
                raw_times_ns: Vec::new(),
            })
            .collect(),
    })
}
/// Calls `kernel` on every element of `stream`, timing each run of `k`
/// consecutive calls: their mean times, ns.
fn stream_means<E>(kernel: &ElementKernel<E>, stream: &mut [E], k: usize) -> Vec<f64> {
    stream
        .chunks_mut(k.max(1))
        .map(|chunk| {
            let ((), ns) = timed(|| chunk.iter_mut().for_each(|e| kernel(e)));
            ns / chunk.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::exec::Kernels;
    use std::time::Duration;

    #[test]
    fn stream_length_is_fixed_and_bounded() {
        let kernels = Kernels::<Vec<u8>>::new().add("touch", |v| v[0] = v[0].wrapping_add(1));
        let suite = Suite::new("s", kernels, &[16], |x, _| vec![0u8; x]).element_bytes(|x| x);
        let kernel = suite.kernels.element("touch").unwrap();
        // A stream of 2^30 s: whatever the pilot call takes on a loaded
        // machine, the element bound.
        let long = Settings {
            atom_stream: Duration::from_secs(1 << 30),
            max_elements: 50,
            ..Settings::default()
        };
        assert_eq!(suite.stream_length("touch", &kernel, 16, &long), 50);
        // Fixed at the first request, whatever the settings say later.
        let fewer = Settings {
            max_elements: 7,
            ..long.clone()
        };
        assert_eq!(suite.stream_length("touch", &kernel, 16, &fewer), 50);
        // A quarter of the run's memory bound: 1,000 bytes of 100-byte
        // elements.
        let small = Settings {
            max_bytes: 4_000,
            ..long.clone()
        };
        assert_eq!(suite.stream_length("touch", &kernel, 100, &small), 10);
        let single = Settings {
            atom_stream: Duration::ZERO,
            ..long
        };
        assert_eq!(suite.stream_length("touch", &kernel, 200, &single), 1);
    }

    #[test]
    fn stream_means_time_every_element_once() {
        let kernel: ElementKernel<u32> = std::sync::Arc::new(|e: &mut u32| *e += 1);
        let mut stream = vec![0u32; 7];
        let means = stream_means(&kernel, &mut stream, 3);
        // Chunks of 3, 3 and 1.
        assert_eq!(means.len(), 3);
        assert!(means.iter().all(|t| t.is_finite() && *t >= 0.0));
        assert_eq!(stream, [1; 7]);
    }

    #[test]
    fn measurements_are_scaled_joined_and_fitted() {
        let m = |times: Vec<f64>| {
            Measurement::from_samples(
                "a",
                vec![Samples {
                    x: 4,
                    times_ns: times,
                    stopped_early: false,
                }],
            )
        };
        let s = scaled(&m(vec![10.0, 20.0]), 0.5);
        assert_eq!(s.sizes()[0].times_ns, [5.0, 10.0]);
        let j = join_measurements(&s, &m(vec![30.0]));
        assert_eq!(j.sizes()[0].times_ns, [5.0, 10.0, 30.0]);
        assert_eq!(median_at(&j, 4), 10.0);
        assert!(median_at(&j, 5).is_nan());
        let mut samples = BTreeMap::new();
        for x in [8, 16, 32] {
            samples.insert(x, vec![2.0 * x as f64; 3]);
        }
        merge(&mut samples, &m(vec![8.0, 8.0, 8.0]));
        let atom = fit_atom("a", &samples, &Settings::quick()).unwrap();
        assert_eq!(atom.model.to_string(), "2·x");
        assert_eq!(atom.samples.len(), 4);
        assert_eq!(atom.samples[0].median_ns, 8.0);
    }
}
