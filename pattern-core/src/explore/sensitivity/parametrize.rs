//! The model of a design with every atom's coefficients and a speed-up
//! scale of every atom as fresh variables, so that one evaluation with dual
//! numbers gives the derivative along any of them.

use crate::Design;
use crate::expr::Expr;
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, fold};
use crate::semantics::Throughput;
use std::collections::HashMap;
use std::convert::Infallible;

/// A coefficient turned into a variable: its variable's name and value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Parameter {
    pub atom: String,
    pub index: usize,
    pub name: String,
    pub value: f64,
}

/// The variable scaling the atom `atom`'s time (1 as given).
pub(crate) fn scale_variable(atom: &str) -> String {
    format!("{atom}.scale")
}

/// `model` with a coefficient 1 written in front of each of its terms (the
/// summands, or the model itself if it is no sum) that has no number (or
/// power of a number, as `x/768` has) as a factor: `x + 20` becomes
/// `1·x + 20`, so that the term's coefficient has a row like any other
/// (the normal form leaves a coefficient of 1 out).
fn with_implicit_coefficients(model: &Expr) -> Expr {
    let numeric = |f: &Expr| match f {
        Expr::Num(_) => true,
        Expr::Pow(base, _) => matches!(**base, Expr::Num(_)),
        _ => false,
    };
    let coefficient = |term: &Expr| match term {
        t if numeric(t) => term.clone(),
        Expr::Mul(factors) if factors.iter().any(numeric) => term.clone(),
        Expr::Mul(factors) => Expr::Mul(
            std::iter::once(Expr::Num(1.0))
                .chain(factors.iter().cloned())
                .collect(),
        ),
        _ => Expr::Mul(vec![Expr::Num(1.0), term.clone()]),
    };
    match model {
        Expr::Add(terms) => Expr::Add(terms.iter().map(coefficient).collect()),
        term => coefficient(term),
    }
}

/// `model` with each numeric constant outside an exponent replaced by the
/// variable `{atom}.c{i}`, `i` counting in pre-order (as printed, left to
/// right), a term without a number counting a coefficient 1 in front of it
/// ([`with_implicit_coefficients`]). Without recursion: atom models can be
/// any depth.
pub(crate) fn parametrize(model: &Expr, atom: &str) -> (Expr, Vec<Parameter>) {
    let model = &with_implicit_coefficients(model);
    let mut parameters = Vec::new();
    // (node, children built, whether it is a literal exponent)
    let mut pending: Vec<(&Expr, bool, bool)> = vec![(model, false, false)];
    let mut built: Vec<Expr> = Vec::new();
    while let Some((node, ready, exponent)) = pending.pop() {
        match node {
            Expr::Num(v) => {
                if exponent {
                    built.push(Expr::Num(*v));
                } else {
                    let name = format!("{atom}.c{}", parameters.len());
                    built.push(Expr::var(&name));
                    parameters.push(Parameter {
                        atom: atom.to_string(),
                        index: parameters.len(),
                        name,
                        value: *v,
                    });
                }
                continue;
            }
            Expr::Var(_) => {
                built.push(node.clone());
                continue;
            }
            _ => {}
        }
        if !ready {
            pending.push((node, true, exponent));
            match node {
                Expr::Pow(base, power) => {
                    pending.push((power, false, matches!(**power, Expr::Num(_))));
                    pending.push((base, false, false));
                }
                _ => {
                    for child in node.children().into_iter().rev() {
                        pending.push((child, false, false));
                    }
                }
            }
            continue;
        }
        let n = node.children().len();
        let mut parts = built.split_off(built.len() - n);
        let rebuilt = match node {
            Expr::Add(_) => Expr::Add(parts),
            Expr::Mul(_) => Expr::Mul(parts),
            Expr::Pow(..) => {
                let power = parts.pop().unwrap_or(Expr::Num(1.0));
                let base = parts.pop().unwrap_or(Expr::Num(1.0));
                Expr::Pow(Box::new(base), Box::new(power))
            }
            Expr::Call(func, _) => Expr::Call(*func, parts),
            Expr::Apply(name, _) => Expr::Apply(name.clone(), parts),
            Expr::Num(_) | Expr::Var(_) => unreachable!("leaves are built above"),
        };
        built.push(rebuilt);
    }
    let out = built.pop().unwrap_or(Expr::Num(0.0));
    (out, parameters)
}

/// The throughput semantics with each atom's model replaced.
struct Replaced<'a> {
    inner: Throughput,
    models: &'a HashMap<String, Expr>,
}

impl Replaced<'_> {
    fn replace(&self, atom: &Atom) -> Atom {
        match self.models.get(&atom.name) {
            Some(model) => Atom::new(atom.name.clone(), model.clone()),
            None => atom.clone(),
        }
    }
}

impl Semantics for Replaced<'_> {
    type Value = Expr;
    type Error = Infallible;
    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Expr, Infallible> {
        let atom = self.replace(atom);
        self.inner.atom(&atom, scope)
    }
    fn seq(&mut self, parts: Vec<Expr>, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.seq(parts, scope)
    }
    fn pipe(&mut self, stages: Vec<Expr>, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.pipe(stages, scope)
    }
    fn tpool(&mut self, n: &Count, body: Expr, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.tpool(n, body, scope)
    }
    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Expr,
        shuffle: &Atom,
        reduce: Expr,
        scope: &Scope,
    ) -> Result<Expr, Infallible> {
        let shuffle = self.replace(shuffle);
        self.inner.map_reduce(params, map, &shuffle, reduce, scope)
    }
    fn on(&mut self, p: &Count, body: Expr, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.on(p, body, scope)
    }
    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Expr>,
        scope: &Scope,
    ) -> Result<Expr, Infallible> {
        self.inner.par(sizes, parts, scope)
    }
    fn groups(&mut self, s: &Count, body: Expr, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.groups(s, body, scope)
    }
    fn redist(&mut self, cost: &Expr, a: Expr, b: Expr, scope: &Scope) -> Result<Expr, Infallible> {
        self.inner.redist(cost, a, b, scope)
    }
    fn program(&mut self, value: Expr) -> Result<Expr, Infallible> {
        self.inner.program(value)
    }
}

/// A design's throughput model (as built, not in normal form) with atom
/// `a`'s model replaced by `a.scale · M_a(a.c0, a.c1, ..)`, `M_a` the
/// atom's normal form with its coefficients as variables; the atoms in
/// the order of [`Design::atoms`].
pub(crate) fn parametrized_model(design: &Design) -> (Expr, Vec<Parameter>, Vec<String>) {
    let mut models = HashMap::new();
    let mut parameters = Vec::new();
    let mut atoms = Vec::new();
    for (name, model) in design.atoms() {
        if models.contains_key(name) {
            continue;
        }
        let (with_variables, mut own) = parametrize(&model.simplify(), name);
        parameters.append(&mut own);
        atoms.push(name.clone());
        models.insert(
            name.clone(),
            Expr::var(&scale_variable(name)) * with_variables,
        );
    }
    let mut semantics = Replaced {
        inner: Throughput::new(),
        models: &models,
    };
    let model = fold(design.term(), &mut semantics).unwrap_or_else(|never| match never {});
    (model, parameters, atoms)
}

/// The names of the symbolic counts of a design, in order of appearance.
pub(crate) fn symbolic_counts(design: &Design) -> Vec<String> {
    let names = design.term().symbolic_counts();
    names.into_iter().map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_become_variables_in_pre_order() {
        let model = Expr::parse("5422.97 + 1034.17*x*log2(x)^2 + x^3/768").unwrap();
        let (e, p) = parametrize(&model, "a");
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a.c0", "a.c1", "a.c2"]);
        let values: Vec<f64> = p.iter().map(|p| p.value).collect();
        assert_eq!(values, [5422.97, 1034.17, 768.0]);
        let at = [
            ("x", 3.0),
            ("a.c0", 5422.97),
            ("a.c1", 1034.17),
            ("a.c2", 768.0),
        ];
        assert_eq!(e.eval(&at).unwrap(), model.eval(&[("x", 3.0)]).unwrap());
    }

    #[test]
    fn a_term_without_a_number_has_the_coefficient_1() {
        // The normal form of `x + 20` and of `x` leave the 1 out.
        for (text, values) in [
            ("x + 20", vec![1.0, 20.0]),
            ("x", vec![1.0]),
            ("x*log2(x) + 3*x", vec![1.0, 3.0]),
            ("5", vec![5.0]),
        ] {
            let model = Expr::parse(text).unwrap().simplify();
            let (e, p) = parametrize(&model, "a");
            assert_eq!(
                p.iter().map(|p| p.value).collect::<Vec<_>>(),
                values,
                "{text}"
            );
            let mut at: Vec<(&str, f64)> = p.iter().map(|p| (p.name.as_str(), p.value)).collect();
            at.push(("x", 8.0));
            assert_eq!(
                e.eval(&at).unwrap(),
                model.eval(&[("x", 8.0)]).unwrap(),
                "{text}"
            );
            // Doubling the coefficient doubles its term.
            at[0].1 *= 2.0;
            let first = match &model {
                Expr::Add(terms) => terms[0].clone(),
                term => term.clone(),
            };
            let doubled = model.eval(&[("x", 8.0)]).unwrap() + first.eval(&[("x", 8.0)]).unwrap();
            assert_eq!(e.eval(&at).unwrap(), doubled, "{text}");
        }
    }

    #[test]
    fn the_parametrized_model_is_the_model() {
        let d = Design::parse("a = 2*x + 5; b = 3*x; pipe(tpool[n](seq(a, b)), tpool[2](b), a)")
            .unwrap();
        let (model, parameters, atoms) = parametrized_model(&d);
        assert_eq!(atoms, ["a", "b"]);
        let mut at: Vec<(&str, f64)> =
            vec![("x", 7.0), ("n", 3.0), ("a.scale", 1.0), ("b.scale", 1.0)];
        at.extend(parameters.iter().map(|p| (p.name.as_str(), p.value)));
        let want = d.model().eval(&[("x", 7.0), ("n", 3.0)]).unwrap();
        assert!((model.eval(&at).unwrap() - want).abs() < 1e-12 * want);
        assert_eq!(symbolic_counts(&d), ["n"]);
    }
}
