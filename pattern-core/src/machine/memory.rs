//! A node's memory: the bandwidth its cores share. A call that moves `b`
//! bytes to and from memory (an atom's [`bytes`](crate::Atom#structfield.bytes))
//! spends, alone, `b / core` ns of its time waiting on memory; `k` such
//! calls at once on a node share its bandwidth, each moving
//! `min(core, node / k)` bytes per ns (a core alone cannot take more than
//! `core`, all together not more than `node`). The rest of a call's time is
//! its cores' work, shared as cores are. `pattern machine --probe`
//! measures both bandwidths by streaming arrays far larger than the caches
//! from one core, then from all.

use serde::{Deserialize, Serialize};

/// A memory as written, its values checked where they are read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryFile {
    #[serde(deserialize_with = "super::values::positive")]
    bandwidth_bytes_per_ns: f64,
    #[serde(deserialize_with = "super::values::positive")]
    core_bandwidth_bytes_per_ns: f64,
}

impl TryFrom<MemoryFile> for Memory {
    type Error = String;

    fn try_from(f: MemoryFile) -> Result<Memory, String> {
        let m = Memory::new(f.bandwidth_bytes_per_ns, f.core_bandwidth_bytes_per_ns);
        match m.invalid() {
            Some((key, value, expected)) => Err(format!("`{key}` is {value}: {expected}")),
            None => Ok(m),
        }
    }
}

/// A node's memory bandwidth, for all its cores and for one alone, in
/// bytes per ns (GB/s).
///
/// ```
/// use pattern_core::machine::Memory;
///
/// // 30 GB/s for the node, 20 GB/s for one core alone.
/// let m = Memory::new(30.0, 20.0);
/// // A call of 100 µs moving 1 MB waits on memory for 50 µs of it.
/// assert_eq!(m.memory_ns(100_000.0, 1e6), 50_000.0);
/// // Of the cores' 1.5 "lanes" of bandwidth, two calls at once get 0.75 each.
/// assert_eq!(m.lanes(), 1.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "MemoryFile")]
pub struct Memory {
    /// Bytes per ns the node's memory moves for all its cores together.
    pub bandwidth_bytes_per_ns: f64,
    /// Bytes per ns one core moves alone (at most the node's).
    pub core_bandwidth_bytes_per_ns: f64,
}

impl Memory {
    /// A memory of `node` bytes per ns in all, `core` for one core alone.
    pub fn new(node: f64, core: f64) -> Memory {
        Memory {
            bandwidth_bytes_per_ns: node,
            core_bandwidth_bytes_per_ns: core,
        }
    }

    /// The part of a call of `ns` (alone) that moving `bytes` takes: the
    /// bytes at one core's bandwidth, at most the whole call.
    pub fn memory_ns(&self, ns: f64, bytes: f64) -> f64 {
        (bytes / self.core_bandwidth_bytes_per_ns).min(ns).max(0.0)
    }

    /// How many cores' worth of bandwidth the node has: the node's over
    /// one core's. Calls waiting on memory at once, up to this many, each
    /// move at a core's full bandwidth.
    pub fn lanes(&self) -> f64 {
        self.bandwidth_bytes_per_ns / self.core_bandwidth_bytes_per_ns
    }

    /// The first value out of its range: (key, value, the range).
    pub(crate) fn invalid(&self) -> Option<(&'static str, f64, &'static str)> {
        let ok = |v: f64| v.is_finite() && v > 0.0;
        if !ok(self.bandwidth_bytes_per_ns) {
            return Some((
                "bandwidth_bytes_per_ns",
                self.bandwidth_bytes_per_ns,
                "a finite number of bytes per ns > 0",
            ));
        }
        let core = self.core_bandwidth_bytes_per_ns;
        if !ok(core) || core > self.bandwidth_bytes_per_ns {
            return Some((
                "core_bandwidth_bytes_per_ns",
                core,
                "a finite number of bytes per ns > 0, at most the node's bandwidth",
            ));
        }
        None
    }
}
