//! A case ([`Case`]): one configuration of a suite, and what its design
//! runs, found from its structure: its shape, the atoms it uses and where
//! (pooled, at the head of a later pipeline stage: [`Timing`]), its
//! threads and its pools' hand-over; and its design with the atoms'
//! measured models.

use crate::error::ValidationError;
use crate::refinements::{handed_atoms, pool_handoff_name, pool_sizes, pooled_atoms};
use crate::suite::{Probe, Suite, atom_ns};
use crate::variants::Variant;
use pattern_core::{Atom, Design, Expr, Term};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One configuration: a design structure over the suite's atoms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    /// The family it belongs to (`seq`, `tpool`, `pipe`, `mapreduce`).
    pub group: String,
    /// The structure, in the design syntax: `pipe(qsort, inc)`.
    pub structure: String,
    /// Whether it counts for the acceptance figure.
    pub acceptance: bool,
}

/// The probes (by index) timed around a case's run, and how.
pub(crate) struct Timing {
    /// The atoms it uses, timed cold.
    pub(crate) uses: Vec<usize>,
    /// Those it runs in a pool of two or more workers, also timed co-run
    /// ([`Suite::with_contention`]).
    pub(crate) contended: Vec<usize>,
    /// Those at the head of a later pipeline stage after the same atom,
    /// also timed handed and handing ([`Suite::with_cache_reuse`]).
    pub(crate) handed: Vec<usize>,
}

impl<E: Send + 'static> Suite<E> {
    /// The case's structure with every atom's model set to 1: its shape,
    /// for finding where the atoms run.
    pub(crate) fn shape(&self, case: &Case) -> Result<Design, ValidationError> {
        let names: Vec<(String, Expr)> = self
            .probes
            .iter()
            .map(|p| (p.name().to_string(), Expr::num(1.0)))
            .collect();
        self.design(case, &names)
    }

    /// The indices of the element probes named in `names`.
    pub(crate) fn element_probes(&self, names: &[String]) -> Vec<usize> {
        self.probes
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Probe::Element(_)) && names.iter().any(|u| u == p.name()))
            .map(|(i, _)| i)
            .collect()
    }

    /// The probes (by index) of the element atoms `design` runs.
    fn element_atoms(&self, design: &Design) -> Vec<usize> {
        let names: Vec<String> = design
            .term()
            .atoms()
            .iter()
            .map(|a| a.name.clone())
            .collect();
        self.element_probes(&names)
    }

    /// The probes (by index) a case uses: the element atoms of its design,
    /// and every custom probe (they measure the suite's one program as it
    /// runs, its variants among them: the histogram's co-run map).
    pub(crate) fn atoms_of(&self, case: &Case) -> Result<Vec<usize>, ValidationError> {
        let mut uses = self.element_atoms(&self.shape(case)?);
        uses.extend(
            (0..self.probes.len()).filter(|&i| matches!(self.probes[i], Probe::Custom(..))),
        );
        Ok(uses)
    }

    /// The threads a case runs (its design's fixed counts).
    pub(crate) fn threads_of(&self, case: &Case) -> Result<usize, ValidationError> {
        let threads = self.shape(case)?.resources().threads.eval(&[]);
        match threads {
            Ok(t) if t.is_finite() && t >= 1.0 => Ok(t as usize),
            other => Err(ValidationError::Design {
                design: case.structure.clone(),
                message: format!("its threads are not a count: {other:?}"),
            }),
        }
    }

    /// What each element costs a worker to take from its pool's queue and
    /// hand on in `case` (its largest pool's hand-over, measured for as
    /// many busy workers), ns; 0 without pools.
    pub(crate) fn pool_take(
        &self,
        case: &Case,
        measured: &[Atom],
        cores: usize,
    ) -> Result<f64, ValidationError> {
        let mut sizes = Vec::new();
        pool_sizes(self.shape(case)?.term(), cores, &mut sizes);
        let largest = sizes.into_iter().max();
        Ok(atom_ns(largest.and_then(|w| {
            measured.iter().find(|a| a.name == pool_handoff_name(w))
        })))
    }

    /// The probes (by index) of the element atoms at the head of a later
    /// pipeline stage of a case ([`with_handed`](crate::refinements::with_handed)).
    pub(crate) fn handed_atoms_of(&self, case: &Case) -> Result<Vec<usize>, ValidationError> {
        let mut heads = Vec::new();
        handed_atoms(self.shape(case)?.term(), &mut heads);
        Ok(self.element_probes(&heads))
    }

    /// The probes (by index) of the element atoms of a case that runs a
    /// pipeline within `cores` cores: its stages may sleep between
    /// elements, and its atoms are timed waking them
    /// ([`Suite::measure_waking`]).
    pub(crate) fn waking_atoms_of(
        &self,
        case: &Case,
        cores: usize,
    ) -> Result<Vec<usize>, ValidationError> {
        let shape = self.shape(case)?;
        if self.threads_of(case)? > cores || !has_pipe(shape.term()) {
            return Ok(Vec::new());
        }
        Ok(self.element_atoms(&shape))
    }

    /// Whether `name` is a probe timing another probe's atom co-run.
    pub(crate) fn is_corun_probe(&self, name: &str) -> bool {
        self.probes
            .iter()
            .any(|p| Variant::Corun.name(p.name()) == name)
    }

    /// What is timed around a run of `case` on `cores` cores.
    pub(crate) fn timing_of(&self, case: &Case, cores: usize) -> Result<Timing, ValidationError> {
        Ok(Timing {
            uses: self.atoms_of(case)?,
            contended: if self.contention && cores > 1 {
                self.pooled_atoms_of(case)?
            } else {
                Vec::new()
            },
            handed: if self.warm {
                self.handed_atoms_of(case)?
            } else {
                Vec::new()
            },
        })
    }

    /// The probes (by index) of the element atoms a case runs in a task
    /// pool of two or more workers.
    pub(crate) fn pooled_atoms_of(&self, case: &Case) -> Result<Vec<usize>, ValidationError> {
        let mut pooled = Vec::new();
        pooled_atoms(self.shape(case)?.term(), false, &mut pooled);
        Ok(self.element_probes(&pooled))
    }

    pub(crate) fn design(
        &self,
        case: &Case,
        atoms: &[(String, Expr)],
    ) -> Result<Design, ValidationError> {
        let mut all = atoms.to_vec();
        for (name, formula) in &self.derived {
            let formula = Expr::parse(formula).map_err(|e| ValidationError::Design {
                design: case.structure.clone(),
                message: format!("the formula of `{name}`: {e}"),
            })?;
            let named: Vec<(&str, Expr)> =
                atoms.iter().map(|(n, m)| (n.as_str(), m.clone())).collect();
            all.push((name.clone(), formula.subs_all(&named)));
        }
        let text = design_text(&case.structure, &all);
        Design::parse(&text).map_err(|e| ValidationError::Design {
            design: case.structure.clone(),
            message: e.to_string(),
        })
    }
}

/// Whether `term` has a pipeline.
fn has_pipe(term: &Term) -> bool {
    matches!(term, Term::Pipe(..)) || term.children().into_iter().any(has_pipe)
}

/// The design text of `structure` with the atoms' fitted models as
/// definitions.
pub(crate) fn design_text(structure: &str, atoms: &[(String, Expr)]) -> String {
    let mut text = String::new();
    for (name, model) in atoms {
        let _ = writeln!(text, "{name} = {model:#};");
    }
    text.push_str(structure);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_text_defines_every_atom() {
        let atoms = vec![("q".to_string(), Expr::parse("2*x*log2(x) + 5").unwrap())];
        let text = design_text("tpool[2](q)", &atoms);
        // Written in the parser's ASCII syntax.
        assert_eq!(text, "q = 2*x*log2(x) + 5;\ntpool[2](q)");
        let d = Design::parse(&text).unwrap();
        assert_eq!(d.model().eval(&[("x", 4.0)]).unwrap(), 10.5);
    }
}
