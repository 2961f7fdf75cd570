//! The file of a queueing network for `pattern mva`: JSON, its stations in
//! the order a job visits them, and an optional population.
//!
//! ```json
//! {
//!   "population": 10,
//!   "stations": [
//!     { "name": "cpu",   "kind": "queue",        "demand": 0.2 },
//!     { "name": "disks", "kind": "multi_server", "demand": 0.5, "servers": 2 },
//!     { "name": "net",   "kind": "load_dependent", "demand": 0.1, "rates": [1, 1.8, 2.4] },
//!     { "name": "think", "kind": "delay",        "demand": 3.0 }
//!   ]
//! }
//! ```
//!
//! A load-dependent station serves at `rates[n-1]/demand` with `n` jobs
//! present; beyond the list, at its last rate.
//!
//! A file may instead list `classes`, each with a `population` (closed) or
//! a `rate` (open, jobs per unit of time), and give each station's
//! `demands` by class (module [`classes`] solves it):
//!
//! ```json
//! {
//!   "classes": [{ "name": "batch", "population": 4 }, { "name": "web", "rate": 2.5 }],
//!   "stations": [
//!     { "name": "cpu", "kind": "queue", "demands": { "batch": 0.5, "web": 0.05 } }
//!   ]
//! }
//! ```

pub mod classes;

use super::classes::rate_curve;
use super::error::{CliError, excerpt};
use pattern_core::queue::{Network, Workload};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;

/// What kind a station is, as the file writes it.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum KindFile {
    /// One server.
    Queue,
    /// `servers` servers.
    MultiServer,
    /// A rate per number of jobs present (`rates`).
    LoadDependent,
    /// No queueing.
    Delay,
}

/// A station as the file writes it, before its fields are checked
/// against its kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStation {
    name: String,
    kind: KindFile,
    #[serde(default)]
    demand: Option<f64>,
    #[serde(default)]
    demands: Option<Demands>,
    #[serde(default)]
    servers: Option<usize>,
    #[serde(default)]
    rates: Option<Vec<f64>>,
}

/// A station of the file, its fields checked against its kind (a wrong
/// field is an error at the end of the station, its line and column).
#[derive(Debug, Deserialize)]
#[serde(try_from = "RawStation")]
pub struct StationFile {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: KindFile,
    /// Its one demand (a file of one class) or its demands by class.
    pub demand: DemandFile,
    /// The servers of a multi-server station (else 1).
    pub servers: usize,
    /// A load-dependent station's rates (else empty).
    pub rates: Vec<f64>,
}

/// A station's demand: one, or one per class.
#[derive(Debug)]
pub enum DemandFile {
    /// The file's only class's.
    One(f64),
    /// By class name, in the file's order.
    ByClass(Vec<(String, f64)>),
}

impl TryFrom<RawStation> for StationFile {
    type Error = String;

    fn try_from(raw: RawStation) -> Result<Self, String> {
        let name = &raw.name;
        let kind = match raw.kind {
            KindFile::Queue => "queue",
            KindFile::MultiServer => "multi_server",
            KindFile::LoadDependent => "load_dependent",
            KindFile::Delay => "delay",
        };
        let demand = match (raw.demand, raw.demands) {
            (Some(_), None) if matches!(known(), Known::Classes(_)) => {
                return Err(format!(
                    "the file lists `classes`: the station `{name}` gives its `demands` by class, as {{\"{}\": 0.5}}",
                    match known() {
                        Known::Classes(names) => names[0].clone(),
                        _ => String::new(),
                    }
                ));
            }
            (Some(d), None) => DemandFile::One(d),
            (None, Some(d)) => DemandFile::ByClass(d.0),
            (Some(_), Some(_)) => {
                return Err(format!(
                    "the station `{name}` gives both `demand` and `demands`: one demand in a file of one class, `demands` by class with `classes`"
                ));
            }
            (None, None) => return Err(format!("the station `{name}` gives no `demand`")),
        };
        let servers = match (raw.kind, raw.servers) {
            (KindFile::MultiServer, Some(c)) => c,
            (KindFile::MultiServer, None) => {
                return Err(format!(
                    "the multi_server station `{name}` gives no `servers`"
                ));
            }
            (_, Some(_)) => {
                return Err(format!(
                    "`servers` is for a multi_server station, not the {kind} `{name}`"
                ));
            }
            (_, None) => 1,
        };
        let rates = match (raw.kind, raw.rates) {
            (KindFile::LoadDependent, Some(r)) if !r.is_empty() => r,
            (KindFile::LoadDependent, _) => {
                return Err(format!("the load-dependent station `{name}` has no rates"));
            }
            (_, Some(_)) => {
                return Err(format!(
                    "`rates` is for a load_dependent station, not the {kind} `{name}`"
                ));
            }
            (_, None) => Vec::new(),
        };
        Ok(StationFile {
            name: raw.name,
            kind: raw.kind,
            demand,
            servers,
            rates,
        })
    }
}

/// What the reader knows of the file's classes. The file is read twice:
/// first to learn them (a station's `demands` may come before the
/// `classes` they name), then with them known, so that a wrong name or
/// field is an error at its line and column.
#[derive(Clone, Debug)]
enum Known {
    /// The first reading.
    Unread,
    /// A file of one class.
    One,
    /// A file of these classes.
    Classes(Vec<String>),
}

thread_local! {
    static KNOWN: RefCell<Known> = const { RefCell::new(Known::Unread) };
}

fn known() -> Known {
    KNOWN.with(|k| k.borrow().clone())
}

/// The file's `population`: none in a file of classes.
fn population<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    let n = Option::<usize>::deserialize(d)?;
    if n.is_some() && matches!(known(), Known::Classes(_)) {
        return Err(de::Error::custom(
            "the file lists `classes`: each closed class gives its own `population`, the file none",
        ));
    }
    Ok(n)
}

/// A station's demands by class, each checked as it is read.
#[derive(Debug)]
struct Demands(Vec<(String, f64)>);

impl<'de> Deserialize<'de> for Demands {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if let Known::One = known() {
            return Err(de::Error::custom(
                "`demands` by class need the file's `classes`: list them, or give one `demand`",
            ));
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Demands;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("demands by class, as {\"batch\": 0.5, \"web\": 0.05}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Demands, A::Error> {
                let mut out: Vec<(String, f64)> = Vec::new();
                while let Some(class) = map.next_key::<String>()? {
                    if let Known::Classes(names) = known()
                        && !names.contains(&class)
                    {
                        return Err(de::Error::custom(format!(
                            "no class is named `{class}` (classes: {})",
                            names.join(", ")
                        )));
                    }
                    if out.iter().any(|(c, _)| *c == class) {
                        return Err(de::Error::custom(format!(
                            "the demand of `{class}` is given twice"
                        )));
                    }
                    let d: f64 = map.next_value()?;
                    if !(d.is_finite() && d >= 0.0) {
                        return Err(de::Error::custom(format!(
                            "the demand of `{class}` is {d}: a demand is a number >= 0"
                        )));
                    }
                    out.push((class, d));
                }
                Ok(Demands(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A class of the file: closed (a population) or open (a rate). Read
/// field by field, so that a population beside a rate is an error at the
/// second of them.
#[derive(Clone, Debug)]
pub struct ClassFile {
    /// Its name.
    pub name: String,
    /// Its population or its rate.
    pub workload: Workload,
}

impl<'de> Deserialize<'de> for ClassFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const FIELDS: &[&str] = &["name", "population", "rate"];
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ClassFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a class, as {\"name\": \"web\", \"rate\": 2.5} or {\"name\": \"batch\", \"population\": 4}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClassFile, A::Error> {
                let (mut name, mut workload) = (None::<String>, None);
                let both = "a class has a population (closed) or a rate (open), not both";
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "name" if name.is_none() => name = Some(map.next_value()?),
                        "population" | "rate" if workload.is_some() => {
                            return Err(de::Error::custom(both));
                        }
                        "population" => workload = Some(Workload::Closed(map.next_value()?)),
                        "rate" => {
                            let r: f64 = map.next_value()?;
                            if !(r.is_finite() && r >= 0.0) {
                                return Err(de::Error::custom(format!(
                                    "the rate is {r}: a rate is a number >= 0 (jobs per unit of time)"
                                )));
                            }
                            workload = Some(Workload::Open(r));
                        }
                        "name" => return Err(de::Error::duplicate_field("name")),
                        other => return Err(de::Error::unknown_field(other, FIELDS)),
                    }
                }
                let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
                let workload = workload.ok_or_else(|| {
                    de::Error::custom(format!(
                        "the class `{name}` gives neither a population (closed) nor a rate (open)"
                    ))
                })?;
                Ok(ClassFile { name, workload })
            }
        }
        d.deserialize_struct("class", FIELDS, V)
    }
}

/// The classes, each name checked against those before it.
#[derive(Debug)]
struct Classes(Vec<ClassFile>);

impl<'de> Deserialize<'de> for Classes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Classes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of classes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Classes, A::Error> {
                let mut out: Vec<ClassFile> = Vec::new();
                while let Some(class) = seq.next_element::<ClassFile>()? {
                    if out.iter().any(|c| c.name == class.name) {
                        return Err(de::Error::custom(format!(
                            "two classes are named `{}`",
                            class.name
                        )));
                    }
                    out.push(class);
                }
                if out.is_empty() {
                    return Err(de::Error::custom(
                        "`classes` is empty: give at least one class, or leave it out for one class",
                    ));
                }
                Ok(Classes(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The stations, each name checked against those before it.
#[derive(Debug)]
struct Stations(Vec<StationFile>);

impl<'de> Deserialize<'de> for Stations {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Stations;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of stations")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Stations, A::Error> {
                let mut out: Vec<StationFile> = Vec::new();
                while let Some(station) = seq.next_element::<StationFile>()? {
                    if out.iter().any(|s| s.name == station.name) {
                        return Err(de::Error::custom(format!(
                            "two stations are named `{}`",
                            station.name
                        )));
                    }
                    out.push(station);
                }
                Ok(Stations(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "population")]
    population: Option<usize>,
    #[serde(default)]
    classes: Option<Classes>,
    stations: Stations,
}

/// A network read from a file, with what the file says besides.
#[derive(Debug)]
pub struct NetworkSpec {
    /// Its name, if the file gives one.
    pub name: Option<String>,
    /// The population the file gives, if any.
    pub population: Option<usize>,
    /// The network of one class (checked when solved); without stations
    /// when the file lists classes.
    pub network: Network,
    /// The file's classes and stations, when it lists classes.
    pub classes: Option<classes::ClassesSpec>,
}

/// The file's JSON read with `known` classes; `path` names it in errors.
fn read(path: &str, text: &str, known: Known) -> Result<NetworkFile, CliError> {
    KNOWN.with(|k| *k.borrow_mut() = known);
    let file = serde_json::from_str(text);
    KNOWN.with(|k| *k.borrow_mut() = Known::Unread);
    file.map_err(|e: serde_json::Error| CliError::Network {
        path: path.to_string(),
        message: e.to_string(),
        excerpt: excerpt(text, e.line(), e.column()),
    })
}

/// Reads a network from its JSON text; `path` names it in errors.
pub fn parse(path: &str, text: &str) -> Result<NetworkSpec, CliError> {
    let first = read(path, text, Known::Unread)?;
    let known = match &first.classes {
        Some(classes) => Known::Classes(classes.0.iter().map(|c| c.name.clone()).collect()),
        None => Known::One,
    };
    let file = read(path, text, known)?;
    if let Some(classes) = file.classes {
        return Ok(NetworkSpec {
            name: file.name,
            population: None,
            network: Network::new(),
            classes: Some(classes::ClassesSpec {
                classes: classes.0,
                stations: file.stations.0,
            }),
        });
    }
    let mut network = Network::new();
    for station in file.stations.0 {
        let name = station.name;
        let DemandFile::One(demand) = station.demand else {
            // (Refused when read: `demands` without `classes`.)
            return Err(CliError::Invalid(format!(
                "the station `{name}` gives `demands`"
            )));
        };
        network = match station.kind {
            KindFile::Queue => network.queue(name, demand),
            KindFile::MultiServer => network.multi_server(name, station.servers, demand),
            KindFile::Delay => network.delay(name, demand),
            KindFile::LoadDependent => {
                network.load_dependent(name, demand, rate_curve(station.rates))
            }
        };
    }
    Ok(NetworkSpec {
        name: file.name,
        population: file.population,
        network,
        classes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::queue::StationKind;

    #[test]
    fn reads_every_kind() {
        let spec = parse(
            "net.json",
            r#"{"population": 3, "stations": [
                {"name": "a", "kind": "queue", "demand": 1},
                {"name": "b", "kind": "multi_server", "demand": 2, "servers": 2},
                {"name": "c", "kind": "load_dependent", "demand": 1, "rates": [1, 1.5]},
                {"name": "d", "kind": "delay", "demand": 4}]}"#,
        )
        .unwrap();
        assert_eq!(spec.population, Some(3));
        let s = spec.network.stations();
        assert_eq!(s[1].kind(), StationKind::MultiServer { servers: 2 });
        assert_eq!(s[2].kind(), StationKind::LoadDependent);
        // The last rate repeats beyond the list.
        assert_eq!((s[2].rate(1), s[2].rate(2), s[2].rate(9)), (1.0, 1.5, 1.5));
        assert_eq!(s[3].kind(), StationKind::Delay);
    }

    #[test]
    fn reads_classes_named_before_or_after_the_stations() {
        let stations = r#""stations": [
                {"name": "cpu", "kind": "queue", "demands": {"web": 0.05, "batch": 0.5}},
                {"name": "net", "kind": "load_dependent", "rates": [1, 2], "demands": {"batch": 1}}]"#;
        let classes =
            r#""classes": [{"name": "batch", "population": 4}, {"name": "web", "rate": 2.5}]"#;
        for text in [
            format!("{{{stations}, {classes}}}"),
            format!("{{{classes}, {stations}}}"),
        ] {
            let spec = parse("f.json", &text).unwrap();
            let c = spec.classes.unwrap();
            assert_eq!(c.classes[0].workload, Workload::Closed(4));
            assert_eq!(c.classes[1].workload, Workload::Open(2.5));
            assert!(
                matches!(&c.stations[0].demand, DemandFile::ByClass(d) if d[0] == ("web".into(), 0.05))
            );
            assert_eq!(
                (c.stations[1].kind, c.stations[1].rates.len()),
                (KindFile::LoadDependent, 2)
            );
            // The thread's reader is left as it was.
            assert!(matches!(known(), Known::Unread));
        }
    }

    #[test]
    fn class_errors_say_where() {
        for (bad, want) in [
            (
                r#"{"stations": [{"name": "cpu", "kind": "queue", "demands": {"bach": 1}}], "classes": [{"name": "batch", "rate": 1}]}"#,
                "no class is named `bach` (classes: batch) at line 1 column 65",
            ),
            (
                r#"{"classes": [{"name": "a", "rate": 1, "population": 2}], "stations": []}"#,
                "not both at line 1 column 50",
            ),
            (
                r#"{"classes": [{"name": "a", "rate": 1}], "population": 2, "stations": []}"#,
                "each closed class gives its own `population`, the file none at line 1 column 55",
            ),
            (
                r#"{"stations": [{"name": "cpu", "kind": "queue", "demands": {"a": 1}}]}"#,
                "`demands` by class need the file's `classes`",
            ),
            (
                r#"{"stations": [{"name": "a", "kind": "queue", "demand": 1}, {"name": "a", "kind": "delay", "demand": 1}]}"#,
                "two stations are named `a` at line 1 column 103",
            ),
            (
                r#"{"classes": [{"name": "a", "rate": 1}], "stations": [{"name": "cpu", "kind": "queue", "demand": 1}]}"#,
                "the station `cpu` gives its `demands` by class",
            ),
        ] {
            let e = parse("f.json", bad).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
            assert!(e.contains('^'), "{e}");
        }
    }

    #[test]
    fn bad_files_are_errors() {
        for bad in [
            r#"{"stations": [{"name": "a", "kind": "queue"}]}"#,
            r#"{"stations": [{"name": "a", "kind": "pool", "demand": 1}]}"#,
            r#"{"stations": [{"name": "a", "kind": "queue", "demand": 1, "servers": 2}]}"#,
            r#"{"stations": [{"name": "a", "kind": "load_dependent", "demand": 1, "rates": []}]}"#,
            r#"{"station": []}"#,
            "not json",
        ] {
            assert!(parse("f", bad).is_err(), "{bad}");
        }
    }
}
