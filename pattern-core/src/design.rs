//! [`Design`]: the one type of a design a user holds — a well-formed term
//! with the definitions of its atoms, whatever made it (the text, the
//! `design!` macro, a design type, a term built in code). Its meanings are
//! the semantics of [`crate::semantics`].

use crate::grammar::parse::{self, Definition};
use crate::grammar::{DesignError, Semantics, Term, TermError, fold};
use crate::machine::Machine;
use crate::semantics::{
    Footprint, Latency, Resolver, ResourceCounts, ResourceError, Resources, Throughput,
};
#[cfg(feature = "queueing")]
use crate::semantics::{Queueing, QueueingError, QueueingPrediction};
use crate::{Atom, Expr};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// A design: a well-formed term of parallel patterns over atoms, with the
/// atoms' definitions. Read one with [`Design::parse`] (the syntax is in
/// [`crate::grammar::parse`]), write one with `design!(..)`, or build a
/// [`Term`] and check it with [`Design::from_term`].
///
/// ```
/// use pattern_core::Design;
///
/// let design = Design::parse(
///     "qsort = 1034.17 * x * log2(x);
///      inc   = 536.185 * x;
///      nop   = 5422.97;
///      pipe(tpool[4](qsort), inc, nop)",
/// )
/// .unwrap();
/// assert_eq!(design.term().to_string(), "pipe(tpool[4](qsort), inc, nop)");
/// // The paper's choice: the stage that grows fastest.
/// assert_eq!(design.model_asymptotic().to_string(), "258.5425·x·log₂(x)");
/// // Pointwise, every stage counts: at x = 2 the constant nop is the bottleneck.
/// let at = [("x", 2.0)];
/// assert_eq!(design.model().eval(&at).unwrap(), 5422.97);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    atoms: Vec<(String, Expr)>,
    term: Term,
}

impl Design {
    /// Parses a design text; errors carry the position (the first error in
    /// the text's order).
    ///
    /// ```
    /// use pattern_core::{Design, DesignErrorKind};
    ///
    /// let err = Design::parse("qsort = 1034.17*x*log2(x);\npipe(qsort, inc)").unwrap_err();
    /// assert!(matches!(err.kind(), DesignErrorKind::UnknownAtom { name, .. } if name == "inc"));
    /// assert_eq!(err.line_col(), (2, 13));
    /// ```
    pub fn parse(text: &str) -> Result<Design, DesignError> {
        let parsed = parse::parse(text)?;
        Ok(Design {
            atoms: parsed
                .definitions
                .into_iter()
                .map(|Definition { name, model, .. }| (name, model))
                .collect(),
            term: parsed.term,
        })
    }

    /// A design from a term built in code, checked for well-formedness
    /// ([`crate::grammar::check`]).
    ///
    /// ```
    /// use pattern_core::{Design, DesignErrorKind, Expr, Term};
    ///
    /// let a = Term::atom("a", Expr::var("x"));
    /// let d = Design::from_term(Term::pipe(Term::tpool(4u64, a.clone()), a.clone())).unwrap();
    /// // Sizes are positive: the slower stage is `x` at every size.
    /// assert_eq!(d.model().to_string(), "x");
    /// let err = Design::from_term(Term::tpool(0u64, a)).unwrap_err();
    /// assert_eq!(err.kind(), &DesignErrorKind::ZeroCount);
    /// ```
    pub fn from_term(term: Term) -> Result<Design, TermError> {
        term.check()?;
        Ok(Design::from_checked_term(term))
    }

    /// A design from a term whose well-formedness is known (a design type);
    /// atoms that share a name keep the first model in the definitions.
    pub(crate) fn from_checked_term(term: Term) -> Design {
        let mut seen = HashSet::new();
        let atoms = term
            .atoms()
            .into_iter()
            .filter(|a| seen.insert(a.name.as_str()))
            .map(|a| (a.name.clone(), a.model.clone()))
            .collect();
        Design { atoms, term }
    }

    /// The term.
    pub fn term(&self) -> &Term {
        &self.term
    }

    /// The atom definitions, in the order they were given.
    pub fn atoms(&self) -> &[(String, Expr)] {
        &self.atoms
    }

    /// The meaning of the design under any semantics.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::semantics::Footprint;
    ///
    /// let d = Design::parse("a = x; pipe(a, tpool[3](a))").unwrap();
    /// let r = d.fold(&mut Footprint).unwrap();
    /// assert_eq!(r.threads.simplify().to_string(), "4");
    /// ```
    pub fn fold<S: Semantics + ?Sized>(&self, semantics: &mut S) -> Result<S::Value, S::Error> {
        fold(&self.term, semantics)
    }

    /// The throughput model (average time per element), `pipe` as a
    /// pointwise `max`, in normal form.
    pub fn model(&self) -> Expr {
        self.model_by(&Throughput::new())
            .unwrap_or_else(|never| match never {})
    }

    /// The throughput model with the paper's asymptotic choice for `pipe`,
    /// in normal form.
    pub fn model_asymptotic(&self) -> Expr {
        self.model_by(&Throughput::new().asymptotic())
            .unwrap_or_else(|never| match never {})
    }

    /// The throughput model under a configured [`Throughput`] (a mode, a
    /// machine profile, a per-hop cost, other operators), in normal form.
    pub fn model_by<R: Resolver + Clone>(
        &self,
        throughput: &Throughput<R>,
    ) -> Result<Expr, R::Error> {
        Ok(throughput.of(&self.term)?.simplify())
    }

    /// The time per element on `machine` at the point `at` (the models'
    /// variables and the symbolic counts), from the [`Queueing`] semantics
    /// (feature `queueing`):
    /// the design's threads on the machine's nodes at their speeds, each
    /// node's cores shared by the threads beyond them, a task pool's shared
    /// queue and the hand-overs of a pipeline included.
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    ///
    /// let d = Design::parse("a = 3; b = 1; pipe(a, b)").unwrap();
    /// let one_core = Machine::new(1, 1);
    /// let p = d.queueing(&one_core, &[]).unwrap();
    /// // Both stages share the core: 3 + 1 per element, not max(3, 1).
    /// assert!((p.time_per_element - 4.0).abs() < 1e-6);
    /// ```
    #[cfg(feature = "queueing")]
    pub fn queueing(
        &self,
        machine: &Machine,
        at: &[(&str, f64)],
    ) -> Result<QueueingPrediction, QueueingError> {
        Queueing::new(machine).at(at).of(&self.term)
    }

    /// The latency (time of one element through the design), in normal form.
    pub fn latency(&self) -> Expr {
        Latency::of(&self.term).simplify()
    }

    /// Where the plain operators' assumption fails for this design on
    /// `machine` at the point `at` (threads beyond a node's cores, nodes the
    /// machine lacks): one line each, empty when it holds
    /// ([`Machine::assumptions`]).
    ///
    /// ```
    /// use pattern_core::Design;
    /// use pattern_core::machine::Machine;
    ///
    /// let d = Design::parse("a = x; tpool[n](a)")?;
    /// assert!(d.assumptions(&Machine::new(1, 8), &[("n", 8.0)])?.is_empty());
    /// assert_eq!(d.assumptions(&Machine::new(1, 8), &[("n", 9.0)])?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assumptions(
        &self,
        machine: &Machine,
        at: &[(&str, f64)],
    ) -> Result<Vec<String>, ResourceError> {
        let r = self.resource_counts(at)?;
        Ok(machine.assumptions(r.nodes, r.threads_per_node))
    }

    /// The machine the plain operators assume for this design at the point
    /// `at`: a core for every thread, on the nodes the design asks for.
    pub fn machine_assumed(&self, at: &[(&str, f64)]) -> Result<Machine, ResourceError> {
        let r = self.resource_counts(at)?;
        let whole = |v: u64| usize::try_from(v.max(1)).unwrap_or(usize::MAX);
        Ok(Machine::new(whole(r.nodes), whole(r.threads_per_node)))
    }

    /// The threads and nodes the design occupies at the point `at` (its
    /// named counts bound), counted exactly in integers.
    ///
    /// ```
    /// use pattern_core::Design;
    ///
    /// let d = Design::parse("a = x; pipe(tpool[123456789012345](a), tpool[n](a))")?;
    /// assert_eq!(d.resource_counts(&[("n", 2.0)])?.threads, 123456789012347);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resource_counts(&self, at: &[(&str, f64)]) -> Result<ResourceCounts, ResourceError> {
        crate::semantics::count_resources(&self.term, at)
    }

    /// The threads and nodes the design occupies, in normal form.
    pub fn resources(&self) -> Resources {
        let r = Footprint::of(&self.term);
        Resources {
            threads: r.threads.simplify(),
            nodes: r.nodes.simplify(),
            threads_per_node: r.threads_per_node.simplify(),
        }
    }
}

impl fmt::Display for Design {
    /// The design text: the definitions of the atoms the term uses, then the
    /// term. It parses back to the same design.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let used: HashMap<&str, &Atom> = (self.term.atoms().into_iter())
            .map(|a| (a.name.as_str(), a))
            .collect();
        for (name, model) in &self.atoms {
            if let Some(atom) = used.get(name.as_str()) {
                write!(f, "{name} = {model:#}")?;
                if let Some(bytes) = &atom.bytes {
                    write!(f, " [bytes = {bytes:#}]")?;
                }
                writeln!(f, ";")?;
            }
        }
        write!(f, "{}", self.term)
    }
}

impl std::str::FromStr for Design {
    type Err = DesignError;
    fn from_str(text: &str) -> Result<Design, DesignError> {
        Design::parse(text)
    }
}

impl TryFrom<Term> for Design {
    type Error = TermError;
    fn try_from(term: Term) -> Result<Design, TermError> {
        Design::from_term(term)
    }
}

#[cfg(test)]
mod tests;
