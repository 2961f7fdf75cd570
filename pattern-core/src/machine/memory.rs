//! A node's memory: the bandwidth its cores share. A call that moves `b`
//! bytes to and from memory (an atom's [`bytes`](crate::Atom#structfield.bytes))
//! spends, alone, `b / core` ns of its time waiting on memory; `k` such
//! calls at once on a node share its bandwidth, each moving
//! `min(core, node / k)` bytes per ns (a core alone cannot take more than
//! `core`, all together not more than `node`). The rest of a call's time is
//! its cores' work, shared as cores are. `pattern machine --probe`
//! measures both bandwidths by streaming arrays far larger than the caches
//! from one core, then from all.
//!
//! An element a pipeline stage hands to the next (on another thread) may
//! still be in the caches: a memory may say, by the element's bytes, how
//! fast such a handed element moves ([`Handed`]). A handed call then moves
//! its bytes at that bandwidth on its core, and waits on the memory for
//! none of them.

use serde::{Deserialize, Serialize};

/// A memory as written, its values checked where they are read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryFile {
    #[serde(deserialize_with = "super::values::positive")]
    bandwidth_bytes_per_ns: f64,
    #[serde(deserialize_with = "super::values::positive")]
    core_bandwidth_bytes_per_ns: f64,
    #[serde(default)]
    handed: Option<Handed>,
}

impl TryFrom<MemoryFile> for Memory {
    type Error = String;

    fn try_from(f: MemoryFile) -> Result<Memory, String> {
        let mut m = Memory::new(f.bandwidth_bytes_per_ns, f.core_bandwidth_bytes_per_ns);
        m.handed = f.handed;
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
    /// How fast an element handed over by the stage before moves, by its
    /// bytes (`None`: as from memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handed: Option<Handed>,
}

impl Memory {
    /// A memory of `node` bytes per ns in all, `core` for one core alone.
    pub fn new(node: f64, core: f64) -> Memory {
        Memory {
            bandwidth_bytes_per_ns: node,
            core_bandwidth_bytes_per_ns: core,
            handed: None,
        }
    }

    /// This memory with `handed` elements moving as it says.
    pub fn with_handed(mut self, handed: Handed) -> Memory {
        self.handed = Some(handed);
        self
    }

    /// The part of a call of `ns` (alone) that moving `bytes` takes: the
    /// bytes at one core's bandwidth, at most the whole call.
    pub fn memory_ns(&self, ns: f64, bytes: f64) -> f64 {
        (bytes / self.core_bandwidth_bytes_per_ns).min(ns).max(0.0)
    }

    /// A call of `ns` (alone, its element from memory) moving `bytes`,
    /// split into its core's part and its wait on memory. An element
    /// `handed` over by the stage before, of a size the [`Handed`] curve
    /// covers, moves at the handed bandwidth on the core instead (never
    /// slower than from memory) and waits on memory for nothing.
    ///
    /// ```
    /// use pattern_core::machine::{Handed, Memory};
    ///
    /// let m = Memory::new(30.0, 20.0).with_handed(Handed::new(&[(1e6, 50.0)]).unwrap());
    /// // 1 MB: 50 µs from memory, 20 µs handed over; 30 µs of work besides.
    /// assert_eq!(m.split(80_000.0, 1e6, false), (30_000.0, 50_000.0));
    /// assert_eq!(m.split(80_000.0, 1e6, true), (50_000.0, 0.0));
    /// // 2 MB is beyond the curve: from memory, handed or not.
    /// assert_eq!(m.split(200_000.0, 2e6, true), (100_000.0, 100_000.0));
    /// ```
    pub fn split(&self, ns: f64, bytes: f64, handed: bool) -> (f64, f64) {
        let m = self.memory_ns(ns, bytes);
        let cached = (self.handed)
            .filter(|_| handed && m > 0.0)
            .and_then(|h| h.bandwidth(bytes));
        match cached {
            Some(bandwidth) => (ns - m + (bytes / bandwidth).min(m), 0.0),
            None => (ns - m, m),
        }
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
        // A curve is checked where it is made (`Handed::new`, a file).
        None
    }
}

/// The most points a [`Handed`] curve holds.
pub const MAX_HANDED_POINTS: usize = 16;

/// How fast an element handed over between pipeline stages moves, by its
/// size: points `(bytes, bytes per ns)` with the bytes rising, measured by
/// a thread that reads and writes back arrays another thread has just
/// written (`pattern machine --probe`). Between points the bandwidth is
/// interpolated on log-log scales; below the first it is the first's;
/// beyond the last the element is taken to come from memory.
///
/// ```
/// use pattern_core::machine::Handed;
///
/// let h = Handed::new(&[(1024.0, 100.0), (4096.0, 25.0)]).unwrap();
/// assert_eq!(h.bandwidth(512.0), Some(100.0));
/// assert_eq!(h.bandwidth(2048.0), Some(50.0));
/// assert_eq!(h.bandwidth(8192.0), None);
/// assert!(Handed::new(&[(4096.0, 1.0), (1024.0, 1.0)]).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<HandedPoint>", into = "Vec<HandedPoint>")]
pub struct Handed {
    points: [HandedPoint; MAX_HANDED_POINTS],
    len: usize,
}

/// A point of a [`Handed`] curve as a machine file writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandedPoint {
    /// The bytes a call moves.
    pub bytes: f64,
    /// The bytes per ns it moves them at.
    pub bytes_per_ns: f64,
}

impl Handed {
    /// The curve through `points` (`(bytes, bytes per ns)`, the bytes
    /// rising); an error saying what is wrong otherwise.
    pub fn new(points: &[(f64, f64)]) -> Result<Handed, String> {
        let points: Vec<HandedPoint> = (points.iter())
            .map(|&(bytes, bytes_per_ns)| HandedPoint {
                bytes,
                bytes_per_ns,
            })
            .collect();
        Handed::try_from(points)
    }

    /// Its points.
    pub fn points(&self) -> &[HandedPoint] {
        &self.points[..self.len]
    }

    /// The bandwidth of a handed element of `bytes`; `None` beyond the
    /// last point.
    pub fn bandwidth(&self, bytes: f64) -> Option<f64> {
        let points = self.points();
        let after = points.iter().position(|p| p.bytes >= bytes)?;
        let hi = points[after];
        if after == 0 || hi.bytes == bytes {
            return Some(hi.bytes_per_ns);
        }
        let lo = points[after - 1];
        let t = (bytes / lo.bytes).ln() / (hi.bytes / lo.bytes).ln();
        Some(lo.bytes_per_ns * (hi.bytes_per_ns / lo.bytes_per_ns).powf(t))
    }

    /// The first value out of its range: (key, value, the range).
    fn invalid(&self) -> Option<(&'static str, f64, &'static str)> {
        let ok = |v: f64| v.is_finite() && v > 0.0;
        let mut last = 0.0;
        for p in self.points() {
            if !ok(p.bytes) || p.bytes <= last {
                return Some((
                    "handed[].bytes",
                    p.bytes,
                    "a finite number of bytes > 0, rising from point to point",
                ));
            }
            if !ok(p.bytes_per_ns) {
                return Some((
                    "handed[].bytes_per_ns",
                    p.bytes_per_ns,
                    "a finite number of bytes per ns > 0",
                ));
            }
            last = p.bytes;
        }
        None
    }
}

impl TryFrom<Vec<HandedPoint>> for Handed {
    type Error = String;

    fn try_from(points: Vec<HandedPoint>) -> Result<Handed, String> {
        if points.is_empty() || points.len() > MAX_HANDED_POINTS {
            return Err(format!(
                "`handed` has {} points: from 1 to {MAX_HANDED_POINTS}",
                points.len()
            ));
        }
        let mut h = Handed {
            points: [HandedPoint::default(); MAX_HANDED_POINTS],
            len: points.len(),
        };
        h.points[..points.len()].copy_from_slice(&points);
        match h.invalid() {
            Some((key, value, expected)) => Err(format!("`{key}` is {value}: {expected}")),
            None => Ok(h),
        }
    }
}

impl From<Handed> for Vec<HandedPoint> {
    fn from(h: Handed) -> Vec<HandedPoint> {
        h.points().to_vec()
    }
}
