//! What runs a design's threads. A machine's waiting part belongs to a
//! runtime: how a thread waits for an element and hands one over is the
//! runtime's doing (its channels, its pools, how long its idle threads look
//! for work before they sleep), measured on the machine for each runtime.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A runtime that runs a design's threads.
///
/// ```
/// use pattern_core::machine::Runtime;
///
/// let r: Runtime = "rayon".parse()?;
/// assert_eq!(r, Runtime::Rayon);
/// assert_eq!(Runtime::default(), Runtime::Executor);
/// assert!("tokio".parse::<Runtime>().unwrap_err().contains("executor, rayon, threads"));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Runtime {
    /// This project's executor (`exec::Executor`): its own threads,
    /// crossbeam channels, a stage spinning before it blocks.
    #[default]
    Executor,
    /// rayon: a task pool as a rayon pool of its count, a mapReduce as a
    /// parallel map and reduce; a pipeline's stages as std threads joined
    /// by crossbeam channels (rayon has no pipeline).
    Rayon,
    /// std threads with crossbeam channels: a stage a thread, a task pool
    /// as threads sharing one channel, every wait blocking.
    Threads,
}

impl Runtime {
    /// Every runtime, in the order of their names.
    pub const ALL: [Runtime; 3] = [Runtime::Executor, Runtime::Rayon, Runtime::Threads];

    /// The names of every runtime.
    const NAMES: [&'static str; 3] = ["executor", "rayon", "threads"];

    /// Its name in files and on the command line.
    pub fn name(self) -> &'static str {
        Runtime::NAMES[self as usize]
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Runtime {
    type Err = String;

    fn from_str(s: &str) -> Result<Runtime, String> {
        Runtime::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown runtime `{s}`: one of {}",
                    Runtime::NAMES.join(", ")
                )
            })
    }
}

impl Serialize for Runtime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

// By hand, as a string, so that a machine file's errors name the runtime
// in their path (`waiting.rayon.take_ns`), as a map's string keys are.
impl<'de> Deserialize<'de> for Runtime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Runtime, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Runtime;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a runtime's name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Runtime, E> {
                Runtime::ALL
                    .into_iter()
                    .find(|r| r.name() == v)
                    .ok_or_else(|| E::unknown_variant(v, &Runtime::NAMES))
            }
        }
        d.deserialize_str(Name)
    }
}
