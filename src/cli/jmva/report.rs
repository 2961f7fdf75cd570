//! The report of a solved JMVA model: the report of every network of
//! classes (module `classes`) under the model's file and description,
//! its JSON with what JMVA gives besides, each class's service times and
//! visits at a station and its throughput there (visits included, as JMVA
//! counts it).

use super::JmvaModel;
use super::solve::{Solved, network};
use crate::cli::classes;
use crate::cli::output::{Report, json_num};
use serde_json::json;

/// The report of `model` solved as `solved`; `path` names the file.
pub fn report(path: &str, model: &JmvaModel, solved: &Solved) -> Report {
    let mut header = vec![("model", path.to_string())];
    if let Some(d) = model.description.as_deref().filter(|d| !d.is_empty()) {
        // One line of it: a description may run to paragraphs.
        let first = d.lines().next().unwrap_or_default();
        let more = if d.lines().nth(1).is_some() {
            " …"
        } else {
            ""
        };
        header.push(("description", format!("{first}{more}")));
    }
    let mut report = classes::report(&header, &network(model), solved);
    let json = &mut report.json;
    json["model"] = json!(path);
    json["format"] = json!("jmva");
    json["description"] = json!(model.description);
    for (k, s) in model.stations.iter().enumerate() {
        for c in 0..model.classes.len() {
            let entry = &mut json["stations"][k]["classes"][c];
            entry["service_times"] = json!(
                s.service[c]
                    .iter()
                    .map(|&t| json_num(t))
                    .collect::<Vec<_>>()
            );
            entry["visits"] = json_num(s.visits[c]);
            entry["throughput"] = json_num(visits_throughput(model, solved, k, c));
        }
    }
    report
}

/// Class `c`'s completions at station `s` per unit of time: its
/// throughput times its visits there (JMVA's station throughput).
pub fn visits_throughput(model: &JmvaModel, solved: &Solved, s: usize, c: usize) -> f64 {
    solved.classes[c].throughput * model.stations[s].visits[c]
}
