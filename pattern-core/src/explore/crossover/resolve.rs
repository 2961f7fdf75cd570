//! Maxima and minima resolved on a box. Where one argument of a `max`
//! dominates the others over a whole box, the model there *is* the
//! expression with the `max` replaced by that argument. Substituted
//! symbolically, the difference of two models that share their slowest
//! stage cancels exactly (a tie the enclosures could never prove: the
//! enclosure of `max(p, q) - q` is as wide as `q`'s), and what does not
//! cancel is searched on a tape without the kink, whose enclosures are
//! tight.
//!
//! The work is bounded: expressions larger than [`MAX_NODES`] are not
//! resolved, and a search resolves at most [`MAX_VARIANTS`] distinct
//! choices of arguments; past either the search goes on with the
//! enclosures alone.

use super::closed_form;
use super::tape::Tape;
use crate::expr::{Expr, Func};
use std::collections::HashMap;

/// Expressions with more nodes than this are not resolved.
const MAX_NODES: usize = 10_000;
/// Distinct resolutions one search may build.
const MAX_VARIANTS: usize = 256;

/// What a box resolves to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// The function is identically zero on the box.
    Zero,
    /// The function equals the variant of this index on the box.
    Variant(usize),
}

/// A version of the function with some extrema replaced by an argument.
struct Variant {
    /// `None` for the original (not cloned: it may be large).
    expr: Option<Expr>,
    tape: Tape,
    extrema: bool,
}

/// The variants of one function found so far, index 0 the original.
pub(crate) struct Resolver<'a> {
    original: Option<&'a Expr>,
    var: &'a str,
    variants: Vec<Variant>,
    known: HashMap<(usize, Vec<Option<usize>>), Option<Outcome>>,
}

impl<'a> Resolver<'a> {
    /// The resolver of `tape`, compiled from `expr` in `var` (`None`:
    /// nothing to resolve).
    pub fn new(tape: &Tape, expr: Option<&'a Expr>, var: &'a str) -> Resolver<'a> {
        let extrema = tape.has_extrema();
        let original = expr.filter(|e| extrema && e.size() <= MAX_NODES);
        Resolver {
            original,
            var,
            variants: vec![Variant {
                expr: None,
                tape: tape.clone(),
                extrema,
            }],
            known: HashMap::new(),
        }
    }

    /// The tape of a variant.
    pub fn tape(&self, variant: usize) -> &Tape {
        &self.variants[variant].tape
    }

    /// What `variant` is on `[lo, hi]` once the extrema with an argument
    /// dominating there are replaced by it: `None` if none is (or past
    /// the limits).
    pub fn resolve(&mut self, variant: usize, lo: f64, hi: f64) -> Option<Outcome> {
        let current = &self.variants[variant];
        let expr = match &current.expr {
            Some(e) => e,
            None => self.original?,
        };
        if !current.extrema {
            return None;
        }
        let choices = current.tape.dominant(lo, hi);
        if choices.iter().all(Option::is_none) {
            return None;
        }
        let key = (variant, choices);
        if let Some(known) = self.known.get(&key) {
            return *known;
        }
        if self.known.len() >= MAX_VARIANTS {
            return None;
        }
        let resolved = substitute(expr, &key.1);
        let outcome = self.classify(resolved);
        self.known.insert(key, outcome);
        outcome
    }

    /// Zero if the resolved expression cancels exactly, else a new
    /// variant compiled from it (from its PMNF terms where it is a sum of
    /// them: like terms combined, no cancellation left to the enclosures).
    fn classify(&mut self, resolved: Expr) -> Option<Outcome> {
        let expr = match closed_form::terms(&resolved, self.var) {
            Some(terms) if terms.is_empty() => return Some(Outcome::Zero),
            Some(terms) => closed_form::sum_of_terms(&terms, self.var),
            None => resolved,
        };
        // Compiles: it is made of the original's nodes.
        let tape = Tape::compile(&expr, self.var).ok()?;
        let extrema = tape.has_extrema();
        self.variants.push(Variant {
            expr: Some(expr),
            tape,
            extrema,
        });
        Some(Outcome::Variant(self.variants.len() - 1))
    }
}

/// `expr` with its `k`-th `max` or `min` (in post-order, children left to
/// right: the order of the tape's instructions) replaced by its argument
/// `choices[k]` where that is given. Iterative: any depth.
fn substitute(expr: &Expr, choices: &[Option<usize>]) -> Expr {
    let mut extremum = 0usize;
    let mut results: Vec<Expr> = Vec::new();
    let mut pending: Vec<(&Expr, bool)> = vec![(expr, false)];
    while let Some((node, ready)) = pending.pop() {
        let children = node.children();
        if !ready {
            pending.push((node, true));
            pending.extend(children.into_iter().rev().map(|c| (c, false)));
            continue;
        }
        let mut args = results.split_off(results.len() - children.len());
        let rebuilt = match node {
            Expr::Call(func @ (Func::Max | Func::Min), _) => {
                let choice = choices.get(extremum).copied().flatten();
                extremum += 1;
                match choice {
                    Some(k) if k < args.len() => args.swap_remove(k),
                    _ => Expr::Call(*func, args),
                }
            }
            Expr::Num(_) | Expr::Var(_) => node.clone(),
            Expr::Add(_) => Expr::Add(args),
            Expr::Mul(_) => Expr::Mul(args),
            Expr::Call(func, _) => Expr::Call(*func, args),
            Expr::Apply(name, _) => Expr::Apply(name.clone(), args),
            Expr::Pow(..) => {
                let exponent = args.pop();
                let base = args.pop();
                match (base, exponent) {
                    (Some(b), Some(e)) => Expr::Pow(Box::new(b), Box::new(e)),
                    _ => node.clone(),
                }
            }
        };
        results.push(rebuilt);
    }
    results.pop().unwrap_or_else(|| expr.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver_of(expr: &Expr) -> (Tape, Resolver<'_>) {
        let tape = Tape::compile(expr, "x").unwrap();
        let resolver = Resolver::new(&tape, Some(expr), "x");
        (tape, resolver)
    }

    #[test]
    fn substitution_follows_the_tape_order() {
        let e = Expr::parse("max(min(x, 2), 3) + max(x, 5)").unwrap();
        let got = substitute(&e, &[Some(1), None, Some(0)]);
        // min(x, 2) -> 2, the outer max kept, max(x, 5) -> x.
        assert_eq!(got, Expr::parse("max(2, 3) + x").unwrap());
    }

    #[test]
    fn a_shared_slowest_stage_cancels() {
        let e = Expr::parse("max(x, 2*x + 1) - (2*x + 1)").unwrap();
        let (_, mut resolver) = resolver_of(&e);
        // On [1, 2.5], 2x + 1 >= 3 >= x: the difference is 0.
        assert_eq!(resolver.resolve(0, 1.0, 2.5), Some(Outcome::Zero));
        // On [1, 10], x reaches 10, above 2x + 1's lower bound 3.
        assert_eq!(resolver.resolve(0, 1.0, 10.0), None);
    }

    #[test]
    fn a_resolved_difference_becomes_a_variant_without_kinks() {
        // On [2.5, 3], 3x ≥ 7.5 > x + 3 ≤ 6: max(3x, x + 3) - 2x = x.
        let e = Expr::parse("max(3*x, x + 3) - 2*x").unwrap();
        let (_, mut resolver) = resolver_of(&e);
        let Some(Outcome::Variant(v)) = resolver.resolve(0, 2.5, 3.0) else {
            panic!("not resolved");
        };
        assert!(!resolver.variants[v].extrema);
        assert_eq!(resolver.tape(v).at(2.5).v, 2.5);
        // Around the kink at 1.5 nothing dominates.
        assert_eq!(resolver.resolve(0, 1.0, 2.0), None);
        // The same choice again is the same variant.
        assert_eq!(resolver.resolve(0, 3.0, 4.0), Some(Outcome::Variant(v)));
    }
}
