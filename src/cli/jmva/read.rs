//! Reading a JMVA file with quick-xml's pull parser, in one pass: the open
//! elements are an explicit stack (nothing recurses), and every error names
//! the element at fault with its line and column.
//!
//! Stricter than JMT where JMT would read garbage: classes come before the
//! stations, every station gives every class a service time (matched by
//! `customerclass`, not by position), numbers are finite and not negative,
//! populations are whole numbers. Lenient where nothing is lost: a station
//! without `<visits>` is visited once a cycle (its service times are the
//! demands); `<algParams>`, `<whatIf>`, `<solutions>` and anything else
//! JMT may add beside `<parameters>` are skipped (the solution is
//! recomputed).

mod values;

use super::{ARRIVALS, ClassKind, JmvaClass, JmvaModel, JmvaStation, StationType};
use crate::cli::error::{CliError, excerpt};
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use values::{
    attribute, canonical_times, check_number, count, label, non_negative, one_curve, population,
    required,
};

/// What is wrong, the element at fault and where it starts (a byte offset).
#[derive(Debug)]
struct Fault {
    offset: usize,
    element: String,
    message: String,
}

type Read<T> = Result<T, Fault>;

fn fault<T>(offset: usize, element: &str, message: impl Into<String>) -> Read<T> {
    Err(Fault {
        offset,
        element: element.to_string(),
        message: message.into(),
    })
}

/// Reads a JMVA model from its text; `path` names it in errors.
pub fn parse(path: &str, text: &str) -> Result<JmvaModel, CliError> {
    read(text).map_err(|f| {
        let (line, column) = line_column(text, f.offset);
        CliError::Network {
            path: path.to_string(),
            message: format!(
                "{} at line {line}, column {column}: {}",
                f.element, f.message
            ),
            excerpt: excerpt(text, line, column),
        }
    })
}

/// Whether the first element of `text` is a `<model>` (and the XML up to
/// it reads).
pub fn root_is_model(text: &str) -> bool {
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => return e.name().as_ref() == "model",
            Ok(Event::Eof) | Err(_) => return false,
            Ok(_) => {}
        }
    }
}

/// Line and column (1-based, the column in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[start..].chars().count() + 1,
    )
}

fn read(text: &str) -> Read<JmvaModel> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut b = Builder::default();
    loop {
        let offset = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => return fault(reader.error_position() as usize, "the XML", e.to_string()),
        };
        match event {
            Event::Start(e) => b.start(&e, offset, false)?,
            Event::Empty(e) => b.start(&e, offset, true)?,
            Event::End(_) => b.end()?,
            Event::Text(t) => b.text(&t.xml10_content(), offset)?,
            Event::CData(t) => b.text(&t.xml10_content(), offset)?,
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => match resolve_predefined_entity(&r) {
                        Some(s) => s.to_string(),
                        None => {
                            return fault(offset, "the XML", format!("unknown entity `&{};`", &*r));
                        }
                    },
                    Err(e) => {
                        return fault(offset, "the XML", format!("bad character reference: {e}"));
                    }
                };
                b.text(&resolved, offset)?;
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    b.finish()
}

/// An element the reader is in.
#[derive(Debug)]
enum Open {
    Model,
    Description,
    Parameters,
    Classes,
    Class,
    Stations,
    Station,
    Times,
    Visits,
    /// A number (or a list of them) for class `.1`; `.2` names the element.
    Value(Value, usize, String),
    References,
    Reference,
    /// Something this reader does not need, and all inside it.
    Skip,
}

#[derive(Debug, Clone, Copy)]
enum Value {
    Time,
    Times,
    Visit,
}

/// A station being read.
#[derive(Debug)]
struct StationBuild {
    offset: usize,
    label: String,
    name: String,
    kind: StationType,
    service: Vec<Option<Vec<f64>>>,
    visits: Option<Vec<Option<f64>>>,
}

#[derive(Debug, Default)]
struct Builder {
    /// The open elements, each with its offset.
    stack: Vec<(Open, usize)>,
    model_at: Option<usize>,
    model_done: bool,
    description: Option<String>,
    classes: Vec<JmvaClass>,
    class_index: HashMap<String, usize>,
    /// Where `<classes>`, `<stations>` and `<ReferenceStation>` were, and
    /// the `number` each declares.
    classes_at: Option<(usize, Option<usize>)>,
    stations_at: Option<(usize, Option<usize>)>,
    references_at: Option<(usize, Option<usize>)>,
    classes_done: bool,
    stations: Vec<JmvaStation>,
    station_index: HashMap<String, usize>,
    station: Option<StationBuild>,
    references: Vec<Option<String>>,
    referenced: usize,
    text: String,
}

impl Builder {
    fn start(&mut self, e: &BytesStart, offset: usize, empty: bool) -> Read<()> {
        let name = e.name();
        let tag: &str = name.as_ref();
        if tag.is_empty() {
            return fault(
                offset,
                "the XML",
                "has an element without a name (a `<` alone?)",
            );
        }
        let parent = self.stack.last().map(|(o, _)| o);
        let open = match (parent, tag) {
            (None, "model") if !self.model_done => {
                self.model_at = Some(offset);
                Open::Model
            }
            (None, _) if self.model_done => {
                return fault(
                    offset,
                    &label(tag, "", None),
                    "comes after the end of <model>",
                );
            }
            (None, _) => {
                return fault(
                    offset,
                    &label(tag, "", None),
                    "is the root element: a JMVA model's is <model>",
                );
            }
            (Some(Open::Model), "description") => Open::Description,
            (Some(Open::Model), "parameters") => Open::Parameters,
            (Some(Open::Model), _) | (Some(Open::Skip), _) => Open::Skip,
            (Some(Open::Parameters), "classes") => self.open_classes(e, offset)?,
            (Some(Open::Parameters), "stations") => self.open_stations(e, offset)?,
            (Some(Open::Parameters), "ReferenceStation") => self.open_references(e, offset)?,
            (Some(Open::Parameters), _) => Open::Skip,
            (Some(Open::Classes), "closedclass" | "openclass") => self.class(e, tag, offset)?,
            (Some(Open::Stations), "listation" | "delaystation" | "ldstation") => {
                self.open_station(e, tag, offset)?
            }
            (Some(Open::Station), "servicetimes") => Open::Times,
            (Some(Open::Station), "visits") => self.open_visits(offset)?,
            (Some(Open::Times), "servicetime" | "servicetimes") => self.value(e, tag, offset)?,
            (Some(Open::Visits), "visit") => self.value(e, tag, offset)?,
            (Some(Open::References), "Class") => self.reference(e, offset)?,
            (Some(Open::Stations), "prsstation" | "holstation") => {
                return fault(
                    offset,
                    &label(tag, "", None),
                    "priority stations are not solved here (queues, delays and load-dependent stations are)",
                );
            }
            (Some(parent), _) => {
                return fault(
                    offset,
                    &label(tag, "", None),
                    format!("is not expected inside {}", parent.tag()),
                );
            }
        };
        if matches!(open, Open::Value(..) | Open::Description) {
            self.text.clear();
        }
        self.stack.push((open, offset));
        if empty { self.end() } else { Ok(()) }
    }

    fn text(&mut self, text: &str, offset: usize) -> Read<()> {
        match self.stack.last() {
            Some((Open::Value(..) | Open::Description, _)) => {
                self.text.push_str(text);
                Ok(())
            }
            Some((Open::Skip, _)) => Ok(()),
            _ if text.trim().is_empty() => Ok(()),
            Some((open, _)) => fault(
                offset,
                &open.tag(),
                format!("holds the text `{}`", text.trim()),
            ),
            None => fault(
                offset,
                "the XML",
                format!("has the text `{}` outside <model>", text.trim()),
            ),
        }
    }

    fn end(&mut self) -> Read<()> {
        let Some((open, offset)) = self.stack.pop() else {
            return Ok(()); // (quick-xml refuses an end tag without a start)
        };
        match open {
            Open::Model => self.model_done = true,
            Open::Description => {
                // An empty one is none (JMT's reader fails on an empty
                // <description>, so none is written back).
                let d = self.text.trim();
                self.description = (!d.is_empty()).then(|| d.to_string());
            }
            Open::Classes => {
                check_number(self.classes_at, self.classes.len(), "<classes>", "classes")?;
                if self.classes.is_empty() {
                    return fault(offset, "<classes>", "holds no class");
                }
                self.classes_done = true;
                self.references = vec![None; self.classes.len()];
            }
            Open::Stations => check_number(
                self.stations_at,
                self.stations.len(),
                "<stations>",
                "stations",
            )?,
            Open::References => check_number(
                self.references_at,
                self.referenced,
                "<ReferenceStation>",
                "classes",
            )?,
            Open::Station => self.finish_station()?,
            Open::Value(kind, class, label) => self.set_value(kind, class, &label, offset)?,
            _ => {}
        }
        Ok(())
    }

    fn open_classes(&mut self, e: &BytesStart, offset: usize) -> Read<Open> {
        if self.classes_at.is_some() {
            return fault(offset, "<classes>", "is given twice");
        }
        self.classes_at = Some((offset, count(e, "number", offset, "<classes>")?));
        Ok(Open::Classes)
    }

    fn open_stations(&mut self, e: &BytesStart, offset: usize) -> Read<Open> {
        if self.stations_at.is_some() {
            return fault(offset, "<stations>", "is given twice");
        }
        if !self.classes_done {
            return fault(
                offset,
                "<stations>",
                "comes before <classes>: the stations' times name the classes",
            );
        }
        self.stations_at = Some((offset, count(e, "number", offset, "<stations>")?));
        Ok(Open::Stations)
    }

    fn open_references(&mut self, e: &BytesStart, offset: usize) -> Read<Open> {
        if self.references_at.is_some() || self.stations_at.is_none() {
            return fault(
                offset,
                "<ReferenceStation>",
                "must come once, after <stations>",
            );
        }
        self.references_at = Some((offset, count(e, "number", offset, "<ReferenceStation>")?));
        Ok(Open::References)
    }

    fn class(&mut self, e: &BytesStart, tag: &str, offset: usize) -> Read<Open> {
        let name = required(e, "name", offset)?;
        let what = label(tag, "name", Some(&name));
        if self.class_index.contains_key(&name) {
            return fault(offset, &what, "names a class a second time");
        }
        let kind = if tag == "closedclass" {
            let Some(v) = attribute(e, "population", offset)? else {
                return fault(offset, &what, "has no `population` attribute");
            };
            ClassKind::Closed(population(&v, offset, &what)?)
        } else {
            let Some(v) = attribute(e, "rate", offset)? else {
                return fault(offset, &what, "has no `rate` attribute");
            };
            ClassKind::Open(non_negative(&v, "arrival rate", offset, &what)?)
        };
        let priority = match attribute(e, "priority", offset)? {
            None => None,
            Some(p) => match p.trim().parse::<i64>() {
                Ok(p) => Some(p),
                Err(_) => {
                    return fault(
                        offset,
                        &what,
                        format!("the priority `{p}` is not a whole number"),
                    );
                }
            },
        };
        self.class_index.insert(name.clone(), self.classes.len());
        self.classes.push(JmvaClass {
            name,
            kind,
            priority,
            reference: String::new(),
        });
        Ok(Open::Class)
    }

    fn open_station(&mut self, e: &BytesStart, tag: &str, offset: usize) -> Read<Open> {
        let name = required(e, "name", offset)?;
        let what = label(tag, "name", Some(&name));
        if self.station_index.contains_key(&name) {
            return fault(offset, &what, "names a station a second time");
        }
        let servers = if tag == "delaystation" {
            1 // (JMT ignores a delay's servers)
        } else {
            match count(e, "servers", offset, &what)? {
                Some(0) => {
                    return fault(offset, &what, "has 0 servers: a station needs at least 1");
                }
                Some(n) => n,
                None => 1,
            }
        };
        let kind = match tag {
            "listation" => StationType::Queue { servers },
            "ldstation" => StationType::LoadDependent { servers },
            _ => StationType::Delay,
        };
        self.station = Some(StationBuild {
            offset,
            label: what,
            name,
            kind,
            service: vec![None; self.classes.len()],
            visits: None,
        });
        Ok(Open::Station)
    }

    fn open_visits(&mut self, offset: usize) -> Read<Open> {
        let classes = self.classes.len();
        let Some(station) = self.station.as_mut() else {
            return fault(offset, "<visits>", "is outside a station");
        };
        if station.visits.is_some() {
            return fault(
                offset,
                "<visits>",
                format!("is given twice in {}", station.label),
            );
        }
        station.visits = Some(vec![None; classes]);
        Ok(Open::Visits)
    }

    /// A `<servicetime>`, `<servicetimes>` or `<visit>` of a class.
    fn value(&mut self, e: &BytesStart, tag: &str, offset: usize) -> Read<Open> {
        let class = required(e, "customerclass", offset)?;
        let what = label(tag, "customerclass", Some(&class));
        let Some(&c) = self.class_index.get(&class) else {
            let known: Vec<&str> = self.classes.iter().map(|c| c.name.as_str()).collect();
            return fault(
                offset,
                &what,
                format!(
                    "`{class}` is not a class of the model (classes: {})",
                    known.join(", ")
                ),
            );
        };
        let load_dependent = matches!(
            self.station.as_ref().map(|s| s.kind),
            Some(StationType::LoadDependent { .. })
        );
        let kind = match (tag, load_dependent) {
            ("visit", _) => Value::Visit,
            ("servicetime", false) => Value::Time,
            ("servicetimes", true) => Value::Times,
            ("servicetime", true) => {
                return fault(
                    offset,
                    &what,
                    "an <ldstation> gives each class a <servicetimes> list, one time per population",
                );
            }
            _ => {
                return fault(
                    offset,
                    &what,
                    "a list of service times is for an <ldstation>: this station takes one <servicetime> per class",
                );
            }
        };
        Ok(Open::Value(kind, c, what))
    }

    fn set_value(&mut self, kind: Value, c: usize, what: &str, offset: usize) -> Read<()> {
        let value = match kind {
            Value::Visit => vec![non_negative(&self.text, "number of visits", offset, what)?],
            Value::Time => vec![non_negative(&self.text, "service time", offset, what)?],
            Value::Times => {
                let times: Read<Vec<f64>> = self
                    .text
                    .split(';')
                    .map(|t| non_negative(t, "service time", offset, what))
                    .collect();
                times?
            }
        };
        let Some(station) = self.station.as_mut() else {
            return fault(offset, what, "is outside a station");
        };
        let slot_taken = match kind {
            Value::Visit => match station.visits.as_mut() {
                Some(visits) => visits[c].replace(value[0]).is_some(),
                None => return fault(offset, what, "is outside <visits>"),
            },
            Value::Time | Value::Times => station.service[c].replace(value).is_some(),
        };
        if slot_taken {
            return fault(offset, what, format!("is given twice in {}", station.label));
        }
        Ok(())
    }
}

impl Open {
    fn tag(&self) -> String {
        let tag = match self {
            Open::Model => "model",
            Open::Description => "description",
            Open::Parameters => "parameters",
            Open::Classes => "classes",
            Open::Class => "the class",
            Open::Stations => "stations",
            Open::Station => "the station",
            Open::Times => "servicetimes",
            Open::Visits => "visits",
            Open::Value(_, _, what) => return what.clone(),
            Open::References => "ReferenceStation",
            Open::Reference => "Class",
            Open::Skip => "an element skipped",
        };
        format!("<{tag}>")
    }
}

impl Builder {
    /// A `<Class name refStation>` of `<ReferenceStation>`.
    fn reference(&mut self, e: &BytesStart, offset: usize) -> Read<Open> {
        let name = required(e, "name", offset)?;
        let what = label("Class", "name", Some(&name));
        let Some(&c) = self.class_index.get(&name) else {
            return fault(
                offset,
                &what,
                format!("`{name}` is not a class of the model"),
            );
        };
        let station = required(e, "refStation", offset)?;
        let open = matches!(self.classes[c].kind, ClassKind::Open(_));
        if !(self.station_index.contains_key(&station) || open && station == ARRIVALS) {
            let known: Vec<&str> = self.stations.iter().map(|s| s.name.as_str()).collect();
            return fault(
                offset,
                &what,
                format!(
                    "its reference station `{station}` is not a station of the model (stations: {})",
                    known.join(", ")
                ),
            );
        }
        if self.references[c].replace(station).is_some() {
            return fault(
                offset,
                &what,
                "gives the class a reference station a second time",
            );
        }
        self.referenced += 1;
        Ok(Open::Reference)
    }

    /// The end of a station: every class has its service time (and its
    /// visits, where the station lists them).
    fn finish_station(&mut self) -> Read<()> {
        let Some(s) = self.station.take() else {
            return Ok(());
        };
        let mut service = Vec::with_capacity(s.service.len());
        for (c, times) in s.service.into_iter().enumerate() {
            match times {
                Some(t) => service.push(t),
                None => {
                    let class = &self.classes[c].name;
                    return fault(
                        s.offset,
                        &s.label,
                        format!("gives no service time for the class `{class}`"),
                    );
                }
            }
        }
        let visits = match s.visits {
            None => vec![1.0; service.len()],
            Some(v) => {
                if let Some(c) = v.iter().position(Option::is_none) {
                    let class = &self.classes[c].name;
                    return fault(
                        s.offset,
                        &s.label,
                        format!("lists visits but none for the class `{class}`"),
                    );
                }
                v.into_iter().flatten().collect()
            }
        };
        if let StationType::LoadDependent { .. } = s.kind {
            let total = self.total_population();
            for times in &mut service {
                canonical_times(times, total);
            }
        }
        let station = JmvaStation {
            name: s.name,
            kind: s.kind,
            service,
            visits,
        };
        if let StationType::LoadDependent { .. } = station.kind {
            one_curve(&station, &self.classes).or_else(|m| fault(s.offset, &s.label, m))?;
        }
        self.station_index
            .insert(station.name.clone(), self.stations.len());
        self.stations.push(station);
        Ok(())
    }

    /// The model, once the whole text is read.
    fn finish(mut self) -> Read<JmvaModel> {
        if let Some((open, offset)) = self.stack.pop() {
            return fault(offset, &open.tag(), "is not closed");
        }
        let Some(model) = self.model_at else {
            return fault(0, "the XML", "holds no <model>: not a JMVA model");
        };
        if !self.classes_done {
            return fault(model, "<model>", "has no <classes> in its <parameters>");
        }
        if self.stations.is_empty() {
            return fault(
                self.stations_at.map_or(model, |s| s.0),
                "<model>",
                "has no stations",
            );
        }
        for (c, reference) in std::mem::take(&mut self.references).into_iter().enumerate() {
            let class = &self.classes[c];
            self.classes[c].reference = reference.unwrap_or_else(|| match class.kind {
                ClassKind::Open(_) => ARRIVALS.to_string(),
                // JMT's default is the first station; the first one the
                // class visits gives its throughput where it has one.
                ClassKind::Closed(_) => {
                    let visited = self.stations.iter().find(|s| s.demand(c) > 0.0);
                    visited.unwrap_or(&self.stations[0]).name.clone()
                }
            });
        }
        Ok(JmvaModel {
            description: self.description,
            classes: self.classes,
            stations: self.stations,
        })
    }
}

impl Builder {
    /// The closed classes' jobs together (saturating: beyond `usize` no
    /// list is that long).
    fn total_population(&self) -> usize {
        (self.classes.iter())
            .map(|c| match c.kind {
                ClassKind::Closed(n) => n,
                ClassKind::Open(_) => 0,
            })
            .fold(0, usize::saturating_add)
    }
}
