//! One run's profile (a `.cubex`): which metrics it has, and for each one
//! read, the values of the cnodes its index lists, inclusive or
//! exclusive as asked.

use super::anchor::{Anchor, MetricDef};
use super::archive::{self, error};
use super::data::{self, Combine, Dtype};
use super::tree::{CallTree, Conversion};
use crate::fit::extrap_io::ExtrapError;
use std::collections::HashSet;
use std::path::Path;

/// Which metrics are read.
#[derive(Debug)]
pub(super) enum Selection {
    /// The roots of the metric tree (Extra-P reads only those).
    Roots,
    /// The metrics of these unique names.
    Named(HashSet<String>),
}

impl Selection {
    fn wants(&self, m: &MetricDef) -> bool {
        match self {
            Selection::Roots => m.parent.is_none(),
            Selection::Named(names) => names.contains(&m.name),
        }
    }
}

/// One metric of a profile.
#[derive(Debug)]
pub(super) enum Metric {
    /// Read: `values[k·l..(k+1)·l]` belong to the cnode `cnodes[k]`.
    Values {
        cnodes: Vec<u32>,
        values: Vec<f64>,
        locations: usize,
        combine: Combine,
    },
    /// Wanted, but the archive has no members for it.
    Missing,
    /// Not a number per location (why), or a derived metric.
    Unreadable(String),
    /// A sub-metric, not asked for by name: the metric it is under.
    Under(String),
    /// Not among the metrics asked for by name.
    NotSelected,
}

/// A profile: its anchor and its metrics, one per anchor metric.
#[derive(Debug)]
pub(super) struct Profile {
    pub(super) anchor: Anchor,
    pub(super) metrics: Vec<Metric>,
}

/// Why a metric cannot be read, if it cannot.
fn unreadable(m: &MetricDef) -> Option<String> {
    match m.kind.as_str() {
        "INCLUSIVE" | "EXCLUSIVE" => Dtype::parse(&m.dtype).err(),
        "" => Some("no `type` (INCLUSIVE or EXCLUSIVE)".into()),
        k if k.contains("DERIVED") => Some(format!(
            "type {k}: a derived metric, computed by Cube from others, has no data"
        )),
        k => Some(format!("type {k}, neither INCLUSIVE nor EXCLUSIVE")),
    }
}

/// Reads a profile: the wanted metrics' values, exclusive (Extra-P's
/// default) or `inclusive`. A metric asked for by name that cannot be read
/// is an error.
pub(super) fn read(
    path: &Path,
    selection: &Selection,
    inclusive: bool,
) -> Result<Profile, ExtrapError> {
    let wanted = |m: &MetricDef| selection.wants(m) && unreadable(m).is_none();
    let mut archive = archive::read(path, &wanted)?;
    let anchor = std::mem::take(&mut archive.anchor);
    let tree = CallTree::new(&anchor.cnodes);
    let mut wide = None;
    let mut metrics = Vec::with_capacity(anchor.metrics.len());
    for m in &anchor.metrics {
        if !selection.wants(m) {
            metrics.push(match (selection, m.parent) {
                (Selection::Roots, Some(p)) => Metric::Under(anchor.metrics[p].name.clone()),
                _ => Metric::NotSelected,
            });
            continue;
        }
        if let Some(why) = unreadable(m) {
            if let Selection::Named(_) = selection {
                let message = format!("metric `{}` cannot be read: {why}", m.name);
                return Err(error(path, "anchor.xml", message));
            }
            metrics.push(Metric::Unreadable(why));
            continue;
        }
        let members = archive.members.remove(&m.id).unwrap_or_default();
        let (index, values) = match (members.index, members.data) {
            (None, None) => {
                metrics.push(Metric::Missing);
                continue;
            }
            (Some(index), Some(data)) => (index, data),
            (Some(_), None) => {
                let part = format!("{}.index", m.id);
                return Err(error(path, &part, format!("no {}.data beside it", m.id)));
            }
            (None, Some(_)) => {
                let part = format!("{}.data", m.id);
                return Err(error(path, &part, format!("no {}.index beside it", m.id)));
            }
        };
        let wide = if m.kind == "INCLUSIVE" {
            Some(wide.get_or_insert_with(|| tree.wide_order()).as_slice())
        } else {
            None
        };
        let read = MetricMembers {
            path,
            metric: m,
            index: &index,
            data: &values,
            locations: anchor.locations,
        };
        metrics.push(read.values(&tree, wide, inclusive)?);
    }
    Ok(Profile { anchor, metrics })
}

/// A readable metric's members.
struct MetricMembers<'a> {
    path: &'a Path,
    metric: &'a MetricDef,
    index: &'a [u8],
    data: &'a [u8],
    locations: u64,
}

impl MetricMembers<'_> {
    /// Decodes and converts the values; `wide` is the position order of an
    /// INCLUSIVE metric (pre-order, the identity, otherwise).
    fn values(
        &self,
        tree: &CallTree,
        wide: Option<&[u32]>,
        inclusive: bool,
    ) -> Result<Metric, ExtrapError> {
        let id = self.metric.id;
        let index_part = format!("{id}.index");
        let index = data::parse_index(self.index).map_err(|m| error(self.path, &index_part, m))?;
        let mut cnodes = Vec::with_capacity(index.positions.len());
        let mut seen = vec![false; tree.len()];
        for (k, &p) in index.positions.iter().enumerate() {
            let c = match wide {
                Some(order) => order.get(p as usize).copied(),
                None => ((p as usize) < tree.len()).then_some(p),
            };
            let at = 22 + 4 * k;
            let Some(c) = c else {
                let message = format!(
                    "byte {at}: position {p}, but the call tree has {} cnodes",
                    tree.len()
                );
                return Err(error(self.path, &index_part, message));
            };
            if std::mem::replace(&mut seen[c as usize], true) {
                let message = format!("byte {at}: position {p} is listed twice");
                return Err(error(self.path, &index_part, message));
            }
            cnodes.push(c);
        }
        // The anchor's parser and `unreadable` accepted the dtype.
        let dtype =
            Dtype::parse(&self.metric.dtype).map_err(|m| error(self.path, "anchor.xml", m))?;
        let data_part = format!("{id}.data");
        let values = data::parse_data(self.data, index.endian, cnodes.len(), self.locations, dtype)
            .map_err(|m| error(self.path, &data_part, m))?;
        // `parse_data` checked rows × locations against the member.
        let l = usize::try_from(self.locations).unwrap_or(usize::MAX);
        let stored_inclusive = self.metric.kind == "INCLUSIVE";
        let conversion = match (stored_inclusive, inclusive) {
            (true, false) => Conversion::ToExclusive,
            (false, true) => Conversion::ToInclusive,
            _ => Conversion::Keep,
        };
        let values = tree.convert(&cnodes, values, l, dtype.combine, conversion);
        Ok(Metric::Values {
            cnodes,
            values,
            locations: l,
            combine: dtype.combine,
        })
    }
}
