//! Series from the runs' values: call paths named alike across runs, the
//! values gathered per point and run, the call paths measured at only some
//! points merged into their nearest caller measured at all (exclusive
//! values) or left out (inclusive values), the locations aggregated as the
//! scaling says.

use super::Scaling;
use super::anchor::{Anchor, NO_PARENT};
use super::data::Combine;
use crate::fit::extrap_io::{ExtrapError, Point, Series};
use std::collections::HashMap;

/// The most bytes the series' call-path names may take together: 64 MiB.
/// A call tree `d` deep has names of `O(d²)` bytes in all.
pub const NAMES_LIMIT: u64 = 64 << 20;
/// The call paths named in a message of `skipped` (the others counted).
const EXAMPLES: usize = 3;

/// Call paths interned as `(caller, region name)`: a caller's id is always
/// smaller than its callees'.
#[derive(Default)]
struct Paths {
    /// `(caller or NO_PARENT, name)` of each path.
    nodes: Vec<(u32, u32)>,
    /// Each path's depth (0 for a root) and its first three components
    /// (paths), so that messages name a deep path in constant time.
    depth: Vec<u32>,
    head: Vec<[u32; 3]>,
    at: HashMap<(u32, u32), u32>,
    names: Vec<String>,
    name_at: HashMap<String, u32>,
}

impl Paths {
    fn intern(&mut self, parent: u32, name: u32) -> Result<u32, ExtrapError> {
        if let Some(&p) = self.at.get(&(parent, name)) {
            return Ok(p);
        }
        let id = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i != NO_PARENT)
            .ok_or_else(|| ExtrapError::Invalid("more than 2^32 - 1 call paths".into()))?;
        let (depth, mut head) = match parent {
            NO_PARENT => (0, [NO_PARENT; 3]),
            _ => (self.depth[parent as usize] + 1, self.head[parent as usize]),
        };
        if let Some(slot) = head.get_mut(depth as usize) {
            *slot = id;
        }
        self.nodes.push((parent, name));
        self.depth.push(depth);
        self.head.push(head);
        self.at.insert((parent, name), id);
        Ok(id)
    }

    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.name_at.get(name) {
            return n;
        }
        let n = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_at.insert(name.to_string(), n);
        n
    }

    /// The components of a path, root first.
    fn components(&self, mut p: u32) -> Vec<&str> {
        let mut parts = Vec::new();
        while p != NO_PARENT {
            let (parent, name) = self.nodes[p as usize];
            parts.push(self.names[name as usize].as_str());
            p = parent;
        }
        parts.reverse();
        parts
    }

    fn name(&self, p: u32) -> String {
        self.components(p).join("->")
    }

    /// The name, its middle left out past 8 levels (for messages; in
    /// constant time whatever the depth).
    fn short_name(&self, p: u32) -> String {
        let levels = self.depth[p as usize] as usize + 1;
        if levels <= 8 {
            return self.name(p);
        }
        let part = |q: u32| self.names[self.nodes[q as usize].1 as usize].as_str();
        let head: Vec<&str> = self.head[p as usize].iter().map(|&q| part(q)).collect();
        let mut tail = vec![part(p)];
        let mut q = p;
        for _ in 0..2 {
            q = self.nodes[q as usize].0;
            tail.push(part(q));
        }
        tail.reverse();
        format!(
            "{}->…->{} ({levels} levels)",
            head.join("->"),
            tail.join("->")
        )
    }

    /// Byte lengths of every path's name (callers first, so one pass).
    fn lengths(&self) -> Vec<u64> {
        let mut len = Vec::with_capacity(self.nodes.len());
        for &(parent, name) in &self.nodes {
            let own = self.names[name as usize].len() as u64;
            let l = if parent == NO_PARENT {
                own
            } else {
                len[parent as usize] + 2 + own
            };
            len.push(l);
        }
        len
    }
}

/// One run's values of a call path and metric: per location (weak
/// scalings), or one total (strong).
struct Run {
    file: u32,
    values: Vec<f64>,
}

/// The runs of a call path and metric, per point (in point order).
#[derive(Default)]
struct Cell {
    points: Vec<(u32, Vec<Run>)>,
}

/// Gathers the runs' values into series.
pub(super) struct Builder {
    scaling: Scaling,
    inclusive: bool,
    paths: Paths,
    metrics: Vec<String>,
    metric_at: HashMap<String, u32>,
    cells: HashMap<(u32, u32), Cell>,
    coordinates: Vec<Vec<f64>>,
}

impl Builder {
    pub(super) fn new(scaling: Scaling, inclusive: bool) -> Builder {
        Builder {
            scaling,
            inclusive,
            paths: Paths::default(),
            metrics: Vec::new(),
            metric_at: HashMap::new(),
            cells: HashMap::new(),
            coordinates: Vec::new(),
        }
    }

    /// Starts the next point (the runs come grouped by point).
    pub(super) fn add_point(&mut self, coordinate: Vec<f64>) -> u32 {
        self.coordinates.push(coordinate);
        self.coordinates.len() as u32 - 1
    }

    /// The call path of each cnode of a profile.
    pub(super) fn paths_of(&mut self, anchor: &Anchor) -> Result<Vec<u32>, ExtrapError> {
        let names: Vec<u32> = anchor
            .regions
            .iter()
            .map(|r| self.paths.name_id(r))
            .collect();
        let mut path = Vec::with_capacity(anchor.cnodes.len());
        for c in &anchor.cnodes {
            let parent = if c.parent == NO_PARENT {
                NO_PARENT
            } else {
                path[c.parent as usize]
            };
            path.push(self.paths.intern(parent, names[c.region as usize])?);
        }
        Ok(path)
    }

    /// Adds one run's values of a metric: `values` holds `l` per cnode of
    /// `cnodes`; cnodes of one call path (a region called twice from one
    /// place) are combined as the metric combines values.
    #[allow(clippy::too_many_arguments)] // (one run's metric, as read)
    pub(super) fn add_run(
        &mut self,
        point: u32,
        file: u32,
        metric: &str,
        cnodes: &[u32],
        values: &[f64],
        l: usize,
        combine: Combine,
        cnode_paths: &[u32],
    ) {
        let m = match self.metric_at.get(metric) {
            Some(&m) => m,
            None => {
                self.metrics.push(metric.to_string());
                let m = self.metrics.len() as u32 - 1;
                self.metric_at.insert(metric.to_string(), m);
                m
            }
        };
        let mut runs: Vec<(u32, Vec<f64>)> = Vec::with_capacity(cnodes.len());
        let mut run_at: HashMap<u32, usize> = HashMap::with_capacity(cnodes.len());
        for (k, &c) in cnodes.iter().enumerate() {
            let row = &values[k * l..(k + 1) * l];
            let p = cnode_paths[c as usize];
            match run_at.get(&p) {
                Some(&i) => combine_into(&mut runs[i].1, row, combine),
                None => {
                    run_at.insert(p, runs.len());
                    runs.push((p, row.to_vec()));
                }
            }
        }
        for (p, values) in runs {
            let values = match self.scaling {
                Scaling::Strong => vec![total(&values, combine)],
                Scaling::Weak | Scaling::WeakThreaded => values,
            };
            let cell = self.cells.entry((m, p)).or_default();
            match cell.points.last_mut() {
                Some((q, runs)) if *q == point => runs.push(Run { file, values }),
                _ => cell.points.push((point, vec![Run { file, values }])),
            }
        }
    }

    /// The series, and the call paths left out or merged (why).
    pub(super) fn finish(mut self) -> Result<(Vec<Series>, Vec<String>), ExtrapError> {
        let n_points = self.coordinates.len();
        let mut keys: Vec<(u32, u32)> = self.cells.keys().copied().collect();
        keys.sort_unstable();
        let full = |cells: &HashMap<(u32, u32), Cell>, k: &(u32, u32)| {
            cells.get(k).is_some_and(|c| c.points.len() == n_points)
        };
        let partial: Vec<(u32, u32)> = keys
            .iter()
            .copied()
            .filter(|k| !full(&self.cells, k))
            .collect();
        let mut notes = Notes::default();
        let mut memo: (u32, HashMap<u32, u32>) = (u32::MAX, HashMap::new());
        for &(m, p) in &partial {
            let Some(cell) = self.cells.remove(&(m, p)) else {
                continue;
            };
            let seen = cell.points.len();
            let fate = if self.inclusive {
                Fate::Inclusive
            } else {
                if memo.0 != m {
                    memo = (m, HashMap::new());
                }
                let full = |q: u32| {
                    self.cells.contains_key(&(m, q)) && partial.binary_search(&(m, q)).is_err()
                };
                let target = nearest_full(&self.paths, &full, &mut memo.1, p);
                match self.cells.get_mut(&(m, target)) {
                    Some(into) if target != NO_PARENT => {
                        merge(into, cell);
                        Fate::Merged(target)
                    }
                    _ => Fate::NoCaller,
                }
            };
            notes.add(&self.paths, m, fate, p, seen);
        }
        let messages = notes.messages(&self.paths, &self.metrics, n_points);
        let series = self.series(&keys)?;
        Ok((series, messages))
    }

    fn series(&self, keys: &[(u32, u32)]) -> Result<Vec<Series>, ExtrapError> {
        let kept: Vec<(u32, u32)> = keys
            .iter()
            .copied()
            .filter(|k| self.cells.contains_key(k))
            .collect();
        let lengths = self.paths.lengths();
        let total = kept
            .iter()
            .fold(0u64, |t, &(_, p)| t.saturating_add(lengths[p as usize]));
        if total > NAMES_LIMIT {
            return Err(ExtrapError::Invalid(format!(
                "the call-path names of the {} series would take {total} bytes, past the limit of {NAMES_LIMIT} bytes (64 MiB; a call tree this deep has names quadratic in its depth)",
                kept.len()
            )));
        }
        let mut series = Vec::with_capacity(kept.len());
        for key in kept {
            let cell = &self.cells[&key];
            let points = cell.points.iter().map(|(q, runs)| Point {
                coordinate: self.coordinates[*q as usize].clone(),
                values: self.aggregate(runs),
            });
            series.push(Series {
                region: self.paths.name(key.1),
                metric: self.metrics[key.0 as usize].clone(),
                points: points.collect(),
            });
        }
        Ok(series)
    }

    /// A point's values: every location of every run (weak), only the
    /// locations that measured something, unless none did (weak threaded),
    /// each run's total (strong).
    fn aggregate(&self, runs: &[Run]) -> Vec<f64> {
        let mut out = Vec::new();
        for run in runs {
            let nonzero = run.values.iter().filter(|&&v| v != 0.0);
            match self.scaling {
                Scaling::WeakThreaded if nonzero.clone().next().is_some() => out.extend(nonzero),
                _ => out.extend_from_slice(&run.values),
            }
        }
        out
    }
}

/// The nearest caller of `p` measured at every point for metric `m`
/// (NO_PARENT if none), remembered in `memo` for the paths walked: the
/// walks of all call paths of a metric take time linear in the paths.
fn nearest_full(
    paths: &Paths,
    full: &impl Fn(u32) -> bool,
    memo: &mut HashMap<u32, u32>,
    p: u32,
) -> u32 {
    let mut walked = Vec::new();
    let mut at = p;
    let found = loop {
        let parent = paths.nodes[at as usize].0;
        if parent == NO_PARENT {
            break NO_PARENT;
        }
        if full(parent) {
            break parent;
        }
        if let Some(&known) = memo.get(&parent) {
            break known;
        }
        walked.push(parent);
        at = parent;
    };
    memo.insert(p, found);
    for w in walked {
        memo.insert(w, found);
    }
    found
}

/// Elementwise: the sum, or the minimum or maximum for those dtypes.
fn combine_into(into: &mut [f64], from: &[f64], combine: Combine) {
    let f: fn(f64, f64) -> f64 = match combine {
        Combine::Sum { .. } => |a, b| a + b,
        Combine::Min => f64::min,
        Combine::Max => f64::max,
    };
    into.iter_mut().zip(from).for_each(|(a, &b)| *a = f(*a, b));
}

/// A run's total over its locations (strong scaling): the sum, or (as
/// Extra-P's reader) the minimum or maximum for those dtypes.
fn total(values: &[f64], combine: Combine) -> f64 {
    match combine {
        Combine::Sum { .. } => values.iter().sum(),
        Combine::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        Combine::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// Adds a partial call path's runs to its caller's (which has every
/// point): run by run, location by location, so the mean is the sum of
/// the means, as Extra-P's `Measurement.merge` makes it.
fn merge(into: &mut Cell, from: Cell) {
    for (q, runs) in from.points {
        // Points and runs are in increasing order (of point, of file).
        let Ok(i) = into.points.binary_search_by_key(&q, |(t, _)| *t) else {
            continue; // (not reached: `into` has every point)
        };
        let target = &mut into.points[i].1;
        for run in runs {
            match target.binary_search_by_key(&run.file, |t| t.file) {
                Ok(j) if target[j].values.len() == run.values.len() => {
                    let t = &mut target[j].values;
                    t.iter_mut().zip(&run.values).for_each(|(a, b)| *a += b);
                }
                Ok(j) | Err(j) => target.insert(j, run),
            }
        }
    }
}

/// What became of a call path measured at only some points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Fate {
    /// Added to this caller.
    Merged(u32),
    /// Left out: no caller is measured at every point.
    NoCaller,
    /// Left out: inclusive values.
    Inclusive,
}

/// Such call paths, grouped by metric and fate.
struct Group {
    metric: u32,
    fate: Fate,
    count: usize,
    /// A few of them (shortened name, points measured).
    examples: Vec<(String, usize)>,
}

#[derive(Default)]
struct Notes {
    groups: Vec<Group>,
    at: HashMap<(u32, Fate), usize>,
}

impl Notes {
    fn add(&mut self, paths: &Paths, metric: u32, fate: Fate, p: u32, seen: usize) {
        let groups = &mut self.groups;
        let i = *self.at.entry((metric, fate)).or_insert_with(|| {
            groups.push(Group {
                metric,
                fate,
                count: 0,
                examples: Vec::new(),
            });
            groups.len() - 1
        });
        let g = &mut self.groups[i];
        g.count += 1;
        // Named only while listed: a name is as long as its path is deep.
        if g.examples.len() < EXAMPLES {
            g.examples.push((paths.short_name(p), seen));
        }
    }

    /// One message per group: the metric, how many, what became of them,
    /// a few names.
    fn messages(&self, paths: &Paths, metrics: &[String], n_points: usize) -> Vec<String> {
        let mut messages = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let metric = &metrics[g.metric as usize];
            let n = g.count;
            let noun = if n == 1 { "call path" } else { "call paths" };
            let what = match g.fate {
                Fate::Merged(target) => format!(
                    "merged into `{}` (their values added to its own, as Extra-P means to)",
                    paths.short_name(target)
                ),
                Fate::NoCaller => "left out: no caller of them is measured at all points".into(),
                Fate::Inclusive => {
                    "left out (inclusive values are not merged, as in Extra-P)".into()
                }
            };
            let examples: Vec<String> = (g.examples.iter())
                .map(|(name, at)| format!("`{name}` ({at} of {n_points} points)"))
                .collect();
            let more = if n > g.examples.len() { ", …" } else { "" };
            messages.push(format!(
                "metric `{metric}`: {n} {noun} measured at only some points {what}: {}{more}",
                examples.join(", ")
            ));
        }
        messages
    }
}

#[cfg(test)]
mod tests;
