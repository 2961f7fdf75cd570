//! A quantity of a probe: how it came out ([`Outcome`], [`Quantity`]) and
//! how an experiment is run into one ([`Bench`]): unless the options leave
//! it out or something stands in the way, the median of its samples.

use super::options::{Options, Part};
use super::threads::Sampled;
use crate::exec::Cores;
use std::fmt;
use std::time::Duration;

/// How a quantity came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Measured: the median of `samples` samples, ns.
    Measured {
        /// The median, ns (finite, `>= 0`).
        median_ns: f64,
        /// How many samples.
        samples: usize,
    },
    /// Not measured, and why: the machine keeps the free default.
    Unmeasured(String),
}

/// One quantity of a probe: what a sample of it is and how it came out.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Which.
    pub part: Part,
    /// What one sample is.
    pub sample: String,
    /// Its median, or why there is none.
    pub outcome: Outcome,
}

impl Quantity {
    /// Its median, ns, if measured.
    pub fn median_ns(&self) -> Option<f64> {
        match self.outcome {
            Outcome::Measured { median_ns, .. } => Some(median_ns),
            Outcome::Unmeasured(_) => None,
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Measured { median_ns, samples } => write!(
                f,
                "{}: {median_ns:.1} ns, the median of {samples} sample{} (a sample: {})",
                self.part,
                if *samples == 1 { "" } else { "s" },
                self.sample
            ),
            Outcome::Unmeasured(why) => write!(
                f,
                "{}: not measured ({why}); left at {}",
                self.part,
                self.part.free()
            ),
        }
    }
}

/// `d` in ms, to a tenth.
pub(super) fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// An experiment: its samples summed up, or why there are none.
pub(super) type Measuring<'a> = dyn Fn() -> Result<Sampled, String> + 'a;

/// Where a probe's experiments run and what stands in their way: the
/// options, the cores, and why the waits (two pinned cores) or the CPU
/// times (a per-thread CPU clock as well) cannot be measured, if so.
pub(super) struct Bench<'a> {
    pub(super) options: &'a Options,
    pub(super) cores: &'a Cores,
    /// Whether threads can be pinned to each core.
    pub(super) can_pin: bool,
    /// The samples asked for.
    pub(super) n: usize,
    /// What stands in the way of a wait: one core, or no pinning.
    pub(super) for_waits: Vec<Option<String>>,
    /// What stands in the way of a CPU time: that, or no CPU clock.
    pub(super) for_cpu: Vec<Option<String>>,
}

impl Bench<'_> {
    /// `part`, measured by `f` unless the options leave it out or one of
    /// `obstacles` stands in the way.
    pub(super) fn take(
        &self,
        part: Part,
        obstacles: &[Option<String>],
        sample: String,
        f: &Measuring,
    ) -> Quantity {
        let outcome = if !self.options.measures(part) {
            Outcome::Unmeasured("not asked for".into())
        } else if let Some(why) = obstacles.iter().flatten().next() {
            Outcome::Unmeasured(why.clone())
        } else {
            match f() {
                Ok(s) => Outcome::Measured {
                    median_ns: s.median,
                    samples: s.samples,
                },
                Err(why) => Outcome::Unmeasured(why),
            }
        };
        Quantity {
            part,
            sample,
            outcome,
        }
    }

    /// `part`, not measured for `why` (unless the options leave it out).
    #[cfg(all(feature = "rayon", not(target_os = "linux")))]
    pub(super) fn unmeasured(&self, part: Part, sample: String, why: &str) -> Quantity {
        self.take(part, &[Some(why.to_string())], sample, &|| {
            Err(why.to_string())
        })
    }
}
