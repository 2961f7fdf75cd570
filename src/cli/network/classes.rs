//! A network file that lists `classes`: its classes and stations as a
//! [`ClassesModel`], solved and reported as every file of classes is
//! (module `classes`): closed ones alone by multi-class MVA (exact, or
//! `--approx`), open ones alone as an open network, both by the mixed
//! networks' reduction.

use super::{ClassFile, DemandFile, KindFile, StationFile};
use crate::cli::classes::{self, ClassesModel, ModelClass, ModelStation, StationKind};
use crate::cli::error::CliError;
use crate::cli::mva::MvaArgs;
use crate::cli::output::Report;

/// The classes and stations of a file that lists classes.
#[derive(Debug)]
pub struct ClassesSpec {
    /// The classes, in the file's order.
    pub classes: Vec<ClassFile>,
    /// The stations, each demand by class.
    pub stations: Vec<StationFile>,
}

impl ClassesSpec {
    /// The network of classes the file describes.
    pub fn model(&self) -> ClassesModel {
        let classes = (self.classes.iter())
            .map(|c| ModelClass {
                name: c.name.clone(),
                workload: c.workload,
            })
            .collect();
        let stations = (self.stations.iter())
            .map(|s| ModelStation {
                name: s.name.clone(),
                kind: match s.kind {
                    KindFile::Queue => StationKind::Queue,
                    KindFile::MultiServer => StationKind::MultiServer(s.servers),
                    KindFile::Delay => StationKind::Delay,
                    KindFile::LoadDependent => StationKind::LoadDependent(s.rates.clone()),
                },
                demands: (self.classes.iter())
                    .map(|c| match &s.demand {
                        DemandFile::ByClass(d) => {
                            (d.iter().find(|(class, _)| *class == c.name)).map_or(0.0, |v| v.1)
                        }
                        DemandFile::One(d) => *d,
                    })
                    .collect(),
            })
            .collect();
        ClassesModel { classes, stations }
    }
}

/// Solves and reports a file of classes (`path` names it, `name` is the
/// file's own).
pub fn report(
    args: &MvaArgs,
    path: &str,
    name: Option<&str>,
    spec: &ClassesSpec,
) -> Result<Report, CliError> {
    for (flag, given) in [
        ("--population", args.population.is_some()),
        ("--sweep", args.sweep),
    ] {
        if given {
            return Err(CliError::Invalid(format!(
                "{flag} is for a network of one class: {path} lists classes, each closed one with its population"
            )));
        }
    }
    let model = spec.model();
    let solved = classes::solve(&model, args.approx, args.max_steps)?;
    let header: Vec<(&str, String)> = name
        .map(|n| ("network", n.to_string()))
        .into_iter()
        .collect();
    let mut report = classes::report(&header, &model, &solved);
    report.json["name"] = serde_json::json!(name);
    Ok(report)
}
