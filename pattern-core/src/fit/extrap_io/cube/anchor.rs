//! The anchor (`anchor.xml`): the metric tree, the regions, the call tree
//! (cnodes, in document order, which is pre-order) and the number of
//! locations, read with quick-xml's pull parser. The trees may be of any
//! depth: the open elements are an explicit stack, nothing recurses.

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use std::collections::{HashMap, HashSet};

/// The largest anchor read, inflated (a gzipped anchor is inflated no
/// further): 1 GiB, some ten times what a run of a million locations
/// writes.
pub(super) const ANCHOR_LIMIT: u64 = 1 << 30;

/// The parent of a root cnode.
pub(super) const NO_PARENT: u32 = u32::MAX;

/// What the data reading needs of an anchor.
#[derive(Debug, Default)]
pub(super) struct Anchor {
    /// Every metric of the metric tree, in document order.
    pub(super) metrics: Vec<MetricDef>,
    /// Region names, indexed by [`Cnode::region`].
    pub(super) regions: Vec<String>,
    /// The call tree in document order: a cnode's parent comes before it.
    pub(super) cnodes: Vec<Cnode>,
    /// The `<location>`s of the system tree: the values per cnode.
    pub(super) locations: u64,
}

/// A `<metric>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MetricDef {
    /// Its `id`: the data are `<id>.index` and `<id>.data`.
    pub(super) id: u64,
    /// Its `<uniq_name>`: the series' metric.
    pub(super) name: String,
    /// Its `type` (`INCLUSIVE`, `EXCLUSIVE`, a derived type; empty if none).
    pub(super) kind: String,
    /// Its `<dtype>` (empty if none).
    pub(super) dtype: String,
    /// The metric it is a sub-metric of (an index into the metrics).
    pub(super) parent: Option<usize>,
}

/// A `<cnode>`: a region called from its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cnode {
    /// Index into [`Anchor::regions`].
    pub(super) region: u32,
    /// Index of the parent cnode, or [`NO_PARENT`].
    pub(super) parent: u32,
}

/// What is wrong with an anchor, and the byte offset where.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct AnchorError {
    pub(super) offset: u64,
    pub(super) message: String,
}

fn err<T>(offset: u64, message: impl Into<String>) -> Result<T, AnchorError> {
    Err(AnchorError {
        offset,
        message: message.into(),
    })
}

/// 1-based line and column (in characters) of a byte offset.
pub(super) fn line_column(bytes: &[u8], offset: u64) -> (usize, usize) {
    let end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    let before = &bytes[..end];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    // Characters: every byte that does not continue a UTF-8 sequence.
    let column = 1 + before[line_start..]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count();
    (line, column)
}

/// An open element, as far as the anchor's structure is concerned.
#[derive(Clone, Copy, Debug)]
enum Open {
    Cube,
    Metrics,
    Metric(usize),
    Program,
    Region(usize),
    Cnode(u32),
    System,
    /// A text field whose content is kept.
    Field(Field),
    /// Anything else (its content is skipped).
    Other,
}

#[derive(Clone, Copy, Debug)]
enum Field {
    MetricName(usize),
    MetricDtype(usize),
    RegionName(usize),
}

struct RawMetric {
    id: u64,
    kind: String,
    name: Option<String>,
    dtype: Option<String>,
    parent: Option<usize>,
}

struct Region {
    id: u64,
    name: Option<String>,
}

struct RawCnode {
    callee: u64,
    parent: u32,
    offset: u64,
}

#[derive(Default)]
struct Builder {
    /// Open elements and the offsets of their start tags.
    stack: Vec<(Open, u64)>,
    root_done: bool,
    text: String,
    metrics: Vec<RawMetric>,
    metric_ids: HashSet<u64>,
    metric_names: HashSet<String>,
    regions: Vec<Region>,
    region_offsets: Vec<u64>,
    cnodes: Vec<RawCnode>,
    cnode_ids: HashSet<u64>,
    system_open: usize,
    locations: u64,
}

/// Parses an anchor.
pub(super) fn parse(bytes: &[u8]) -> Result<Anchor, AnchorError> {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut b = Builder::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let offset = reader.buffer_position();
        let event = match reader.read_event_into(&mut buf) {
            Ok(e) => e,
            Err(e) => return err(reader.error_position(), format!("malformed XML: {e}")),
        };
        match event {
            Event::Start(e) => b.start(&e, offset, false)?,
            Event::Empty(e) => b.start(&e, offset, true)?,
            Event::End(_) => b.end(offset)?,
            Event::Text(t) => b.text(&t.xml10_content()),
            Event::CData(t) => b.text(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match resolve_predefined_entity(&r) {
                        Some(s) => s.to_string(),
                        None => return err(offset, format!("unknown entity `&{};`", &*r)),
                    },
                    Err(e) => return err(offset, format!("bad character reference: {e}")),
                };
                b.text(&resolved);
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    let end = reader.buffer_position();
    b.finish(end)
}

fn attribute(e: &BytesStart, key: &str, offset: u64) -> Result<Option<String>, AnchorError> {
    match e.try_get_attribute(key) {
        Ok(None) => Ok(None),
        Ok(Some(a)) => match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => Ok(Some(v.into_owned())),
            Err(x) => err(offset, format!("attribute `{key}`: {x}")),
        },
        Err(x) => err(offset, format!("malformed attributes: {x}")),
    }
}

/// A required non-negative integer attribute (an id).
fn id_attribute(e: &BytesStart, key: &str, offset: u64) -> Result<u64, AnchorError> {
    let tag = e.name().as_ref().to_string();
    match attribute(e, key, offset)? {
        None => err(offset, format!("<{tag}> has no `{key}`")),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(id) => Ok(id),
            Err(_) => err(
                offset,
                format!("<{tag}> has `{key}=\"{v}\"`, not a non-negative integer"),
            ),
        },
    }
}

impl Builder {
    fn start(&mut self, e: &BytesStart, offset: u64, empty: bool) -> Result<(), AnchorError> {
        let name = e.name();
        let name = name.as_ref();
        let parent = self.stack.last().map(|&(o, _)| o);
        let open = match (parent, name) {
            (None, "cube") if !self.root_done => Open::Cube,
            (None, _) => {
                let tag = name;
                return if self.root_done {
                    err(offset, format!("<{tag}> after the end of <cube>"))
                } else {
                    err(offset, format!("the root element is <{tag}>, not <cube>"))
                };
            }
            (Some(Open::Cube), "metrics") => Open::Metrics,
            (Some(Open::Cube), "program") => Open::Program,
            (Some(Open::Cube), "system") => Open::System,
            (Some(Open::Metrics), "metric") => self.metric(e, offset, None)?,
            (Some(Open::Metric(m)), "metric") => self.metric(e, offset, Some(m))?,
            (Some(Open::Metric(m)), "uniq_name") => Open::Field(Field::MetricName(m)),
            (Some(Open::Metric(m)), "dtype") => Open::Field(Field::MetricDtype(m)),
            (Some(Open::Program), "region") => {
                let id = id_attribute(e, "id", offset)?;
                self.regions.push(Region { id, name: None });
                self.region_offsets.push(offset);
                Open::Region(self.regions.len() - 1)
            }
            (Some(Open::Region(r)), "name") => Open::Field(Field::RegionName(r)),
            (Some(Open::Program), "cnode") => self.cnode(e, offset, NO_PARENT)?,
            (Some(Open::Cnode(c)), "cnode") => self.cnode(e, offset, c)?,
            (Some(_), "location") if self.system_open > 0 => {
                self.locations = self.locations.saturating_add(1);
                Open::Other
            }
            _ => Open::Other,
        };
        if let Open::Field(_) = open {
            self.text.clear();
        }
        if let Open::System = open {
            self.system_open += 1;
        }
        self.stack.push((open, offset));
        if empty { self.end(offset) } else { Ok(()) }
    }

    fn metric(
        &mut self,
        e: &BytesStart,
        offset: u64,
        parent: Option<usize>,
    ) -> Result<Open, AnchorError> {
        let id = id_attribute(e, "id", offset)?;
        if !self.metric_ids.insert(id) {
            return err(offset, format!("a second <metric> with id {id}"));
        }
        let kind = attribute(e, "type", offset)?.unwrap_or_default();
        self.metrics.push(RawMetric {
            id,
            kind,
            name: None,
            dtype: None,
            parent,
        });
        Ok(Open::Metric(self.metrics.len() - 1))
    }

    fn cnode(&mut self, e: &BytesStart, offset: u64, parent: u32) -> Result<Open, AnchorError> {
        let id = id_attribute(e, "id", offset)?;
        if !self.cnode_ids.insert(id) {
            return err(offset, format!("a second <cnode> with id {id}"));
        }
        let callee = id_attribute(e, "calleeId", offset)?;
        let index = match u32::try_from(self.cnodes.len()) {
            Ok(i) if i != NO_PARENT => i,
            _ => return err(offset, "more than 2^32 - 1 cnodes"),
        };
        self.cnodes.push(RawCnode {
            callee,
            parent,
            offset,
        });
        Ok(Open::Cnode(index))
    }

    fn text(&mut self, s: &str) {
        if let Some((Open::Field(_), _)) = self.stack.last() {
            self.text.push_str(s);
        }
    }

    fn end(&mut self, offset: u64) -> Result<(), AnchorError> {
        let Some((open, start)) = self.stack.pop() else {
            return err(offset, "an end tag with no element open");
        };
        match open {
            Open::Cube => self.root_done = true,
            Open::System => self.system_open -= 1,
            Open::Field(f) => {
                let (slot, what) = match f {
                    Field::MetricName(m) => (&mut self.metrics[m].name, "<uniq_name>"),
                    Field::MetricDtype(m) => (&mut self.metrics[m].dtype, "<dtype>"),
                    Field::RegionName(r) => (&mut self.regions[r].name, "<name>"),
                };
                if slot.is_some() {
                    return err(start, format!("a second {what}"));
                }
                *slot = Some(std::mem::take(&mut self.text));
            }
            Open::Metric(m) => {
                let metric = &self.metrics[m];
                let Some(name) = metric.name.as_ref().filter(|n| !n.is_empty()) else {
                    let id = metric.id;
                    return err(start, format!("<metric> id {id} has no <uniq_name>"));
                };
                if !self.metric_names.insert(name.clone()) {
                    return err(start, format!("a second <metric> named `{name}`"));
                }
            }
            Open::Region(r) if self.regions[r].name.is_none() => {
                let id = self.regions[r].id;
                return err(start, format!("<region> id {id} has no <name>"));
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(self, end: u64) -> Result<Anchor, AnchorError> {
        if let Some(&(_, start)) = self.stack.last() {
            return err(start, "this element is not closed at the end of the anchor");
        }
        if !self.root_done {
            return err(end, "no <cube> element");
        }
        if self.locations == 0 {
            return err(end, "the <system> tree has no <location>");
        }
        let mut region_at = HashMap::with_capacity(self.regions.len());
        for (i, (r, &offset)) in self.regions.iter().zip(&self.region_offsets).enumerate() {
            if region_at.insert(r.id, i as u32).is_some() {
                return err(offset, format!("a second <region> with id {}", r.id));
            }
        }
        let mut cnodes = Vec::with_capacity(self.cnodes.len());
        for c in &self.cnodes {
            let Some(&region) = region_at.get(&c.callee) else {
                let callee = c.callee;
                return err(c.offset, format!("calleeId {callee} names no <region>"));
            };
            cnodes.push(Cnode {
                region,
                parent: c.parent,
            });
        }
        let metrics = self.metrics.into_iter().map(|m| MetricDef {
            id: m.id,
            name: m.name.unwrap_or_default(),
            kind: m.kind,
            dtype: m.dtype.unwrap_or_default(),
            parent: m.parent,
        });
        Ok(Anchor {
            metrics: metrics.collect(),
            regions: self
                .regions
                .into_iter()
                .map(|r| r.name.unwrap_or_default())
                .collect(),
            cnodes,
            locations: self.locations,
        })
    }
}

#[cfg(test)]
mod tests;
