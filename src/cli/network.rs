//! The file of a closed queueing network for `pattern mva`: JSON, its
//! stations in the order a job visits them, and an optional population.
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

use super::error::{CliError, excerpt};
use pattern_core::queue::Network;
use serde::Deserialize;

/// A station as the file writes it.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum StationFile {
    Queue {
        name: String,
        demand: f64,
    },
    MultiServer {
        name: String,
        demand: f64,
        servers: usize,
    },
    LoadDependent {
        name: String,
        demand: f64,
        rates: Vec<f64>,
    },
    Delay {
        name: String,
        demand: f64,
    },
}

/// The file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    population: Option<usize>,
    stations: Vec<StationFile>,
}

/// A network read from a file, with what the file says besides.
#[derive(Debug)]
pub struct NetworkSpec {
    /// Its name, if the file gives one.
    pub name: Option<String>,
    /// The population the file gives, if any.
    pub population: Option<usize>,
    /// The network (checked when solved).
    pub network: Network,
}

/// Reads a network from its JSON text; `path` names it in errors.
pub fn parse(path: &str, text: &str) -> Result<NetworkSpec, CliError> {
    let file: NetworkFile = serde_json::from_str(text).map_err(|e| CliError::Network {
        path: path.to_string(),
        message: e.to_string(),
        excerpt: excerpt(text, e.line(), e.column()),
    })?;
    let mut network = Network::new();
    for station in file.stations {
        network = match station {
            StationFile::Queue { name, demand } => network.queue(name, demand),
            StationFile::MultiServer {
                name,
                demand,
                servers,
            } => network.multi_server(name, servers, demand),
            StationFile::Delay { name, demand } => network.delay(name, demand),
            StationFile::LoadDependent {
                name,
                demand,
                rates,
            } => {
                // The solver checks each rate it uses (finite, > 0).
                let Some(&last) = rates.last() else {
                    return Err(CliError::Network {
                        path: path.to_string(),
                        message: format!("the load-dependent station `{name}` has no rates"),
                        excerpt: String::new(),
                    });
                };
                network.load_dependent(name, demand, move |n: usize| {
                    n.checked_sub(1)
                        .and_then(|i| rates.get(i))
                        .copied()
                        .unwrap_or(last)
                })
            }
        };
    }
    Ok(NetworkSpec {
        name: file.name,
        population: file.population,
        network,
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
