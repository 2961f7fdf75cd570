//! Writing a JMVA model back, with its solution laid out as JMVA saves a
//! solved model: `<solutions ok solutionMethod algCount>` holding one
//! `<algorithm name iterations>`, and for every station and class the
//! four measures JMVA shows — the number of customers (queue length), the
//! throughput at the station (the class's throughput times its visits),
//! the residence time (over all visits) and the utilization. JMT opens it
//! with the results in place.
//!
//! Numbers are written in full (the shortest text that reads back to the
//! same double), so a file read back gives the same model.

use super::report::visits_throughput;
use super::solve::{Solved, Solver, jmt_name};
use super::{ClassKind, JmvaModel, JmvaStation, StationType};
use quick_xml::escape::escape;
use std::fmt::Write as _;

/// JMVA's default tolerance and samples of the iterative algorithms, as
/// its `<algType>` carries them (JMT reads both).
const TOLERANCE: &str = "1.0E-7";
const MAX_SAMPLES: &str = "10000";

/// The most service times written for the load-dependent stations
/// together: JMT reads one per population (a shorter list it reads as
/// zeros), so lists are padded to the total population up to this.
const MAX_PADDED: usize = 1_000_000;

/// An attribute's value, escaped so that it reads back as it is: XML
/// reads a raw tab or line break in an attribute as a space.
fn attr(value: &str) -> String {
    escape(value)
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
}

/// A double as Java's `Double.parseDouble` reads it back exactly.
fn number(v: f64) -> String {
    format!("{v:?}")
}

/// `model` as a JMVA file, with `solved`'s figures if given.
pub fn write(model: &JmvaModel, solved: Option<&Solved>) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    out.push_str("<model xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"JMTmodel.xsd\">\n");
    if let Some(d) = model.description.as_deref().filter(|d| !d.is_empty()) {
        // CDATA as JMT writes it; a `]]>` inside is split across two.
        let d = d.replace("]]>", "]]]]><![CDATA[>");
        let _ = writeln!(out, "    <description><![CDATA[{d}]]></description>");
    }
    out.push_str("    <parameters>\n");
    classes(&mut out, model);
    let _ = writeln!(
        out,
        "        <stations number=\"{}\">",
        model.stations.len()
    );
    let pad = padding(model);
    for s in &model.stations {
        station(&mut out, model, s, pad);
    }
    out.push_str("        </stations>\n");
    let _ = writeln!(
        out,
        "        <ReferenceStation number=\"{}\">",
        model.classes.len()
    );
    for c in &model.classes {
        let _ = writeln!(
            out,
            "            <Class name=\"{}\" refStation=\"{}\"/>",
            attr(&c.name),
            attr(&c.reference)
        );
    }
    out.push_str("        </ReferenceStation>\n    </parameters>\n");
    let algorithm = jmt_name(solved.map_or(Solver::Exact, |s| s.solver));
    let _ = writeln!(
        out,
        "    <algParams>\n        <algType name=\"{algorithm}\" tolerance=\"{TOLERANCE}\" maxSamples=\"{MAX_SAMPLES}\"/>\n        <compareAlgs value=\"false\"/>\n    </algParams>"
    );
    if let Some(solved) = solved {
        solutions(&mut out, model, solved);
    }
    out.push_str("</model>\n");
    out
}

fn classes(out: &mut String, model: &JmvaModel) {
    let _ = writeln!(out, "        <classes number=\"{}\">", model.classes.len());
    for c in &model.classes {
        let (tag, value) = match c.kind {
            ClassKind::Closed(n) => ("closedclass", format!("population=\"{n}\"")),
            ClassKind::Open(rate) => ("openclass", format!("rate=\"{}\"", number(rate))),
        };
        let priority = c
            .priority
            .map_or(String::new(), |p| format!(" priority=\"{p}\""));
        let _ = writeln!(
            out,
            "            <{tag} name=\"{}\" {value}{priority}/>",
            attr(&c.name)
        );
    }
    out.push_str("        </classes>\n");
}

/// The length JMT wants of a load-dependent list: the total population,
/// if every list together stays within [`MAX_PADDED`] times.
fn padding(model: &JmvaModel) -> Option<usize> {
    let total = (model.classes.iter())
        .map(|c| match c.kind {
            ClassKind::Closed(n) => n,
            ClassKind::Open(_) => 0,
        })
        .fold(0usize, usize::saturating_add);
    let lists = (model.stations.iter())
        .filter(|s| matches!(s.kind, StationType::LoadDependent { .. }))
        .count()
        .saturating_mul(model.classes.len());
    (total > 0 && total.saturating_mul(lists) <= MAX_PADDED).then_some(total)
}

fn station(out: &mut String, model: &JmvaModel, s: &JmvaStation, pad: Option<usize>) {
    let (tag, servers) = match s.kind {
        StationType::Queue { servers } => ("listation", format!(" servers=\"{servers}\"")),
        StationType::Delay => ("delaystation", String::new()),
        StationType::LoadDependent { servers } => ("ldstation", format!(" servers=\"{servers}\"")),
    };
    let _ = writeln!(
        out,
        "            <{tag} name=\"{}\"{servers}>\n                <servicetimes>",
        attr(&s.name)
    );
    let inner = if tag == "ldstation" {
        "servicetimes"
    } else {
        "servicetime"
    };
    for (class, times) in model.classes.iter().zip(&s.service) {
        let times: Vec<String> = match (inner, pad) {
            ("servicetimes", Some(n)) => (0..n)
                .map(|i| number(times[i.min(times.len() - 1)]))
                .collect(),
            _ => times.iter().map(|&t| number(t)).collect(),
        };
        let _ = writeln!(
            out,
            "                    <{inner} customerclass=\"{}\">{}</{inner}>",
            attr(&class.name),
            times.join(";")
        );
    }
    out.push_str("                </servicetimes>\n                <visits>\n");
    for (class, &v) in model.classes.iter().zip(&s.visits) {
        let _ = writeln!(
            out,
            "                    <visit customerclass=\"{}\">{}</visit>",
            attr(&class.name),
            number(v)
        );
    }
    let _ = writeln!(out, "                </visits>\n            </{tag}>");
}

/// The `<solutions>` section: per station, per class, JMVA's four measures.
fn solutions(out: &mut String, model: &JmvaModel, solved: &Solved) {
    let _ = writeln!(
        out,
        "    <solutions ok=\"true\" solutionMethod=\"analytical\" algCount=\"1\">\n        <algorithm name=\"{}\" iterations=\"0\">",
        jmt_name(solved.solver)
    );
    for (k, (s, row)) in model.stations.iter().zip(&solved.figures).enumerate() {
        let _ = writeln!(
            out,
            "            <stationresults station=\"{}\">",
            attr(&s.name)
        );
        for (c, (class, f)) in model.classes.iter().zip(row).enumerate() {
            let _ = writeln!(
                out,
                "                <classresults customerclass=\"{}\">",
                attr(&class.name)
            );
            for (measure, value) in [
                ("Number of Customers", f.queue_length),
                ("Throughput", visits_throughput(model, solved, k, c)),
                ("Residence time", f.residence_time),
                ("Utilization", f.utilization),
            ] {
                let _ = writeln!(
                    out,
                    "                    <measure measureType=\"{measure}\" successful=\"true\" meanValue=\"{}\"/>",
                    number(value)
                );
            }
            out.push_str("                </classresults>\n");
        }
        out.push_str("            </stationresults>\n");
    }
    out.push_str("        </algorithm>\n    </solutions>\n");
}
