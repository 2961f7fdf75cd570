//! The one definition of a time a model may give — a finite number `>= 0`
//! ([`check_time`]) — which the simulator, the queueing semantics and the
//! operators' predictions all apply; and the times of a design's atoms at a
//! point ([`AtomTimes`], [`check_atom_times`]), so that a model that turns
//! negative (a fitted `1033.89·x·log₂(x) − 21815.2` below x ≈ 21) is
//! reported with its atom, the point and the value, whatever semantics
//! would have priced it.

use crate::Expr;
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, fold};
use crate::semantics::throughput::group_size;
use std::convert::Infallible;

/// A time that a model gives and that is no time: negative, NaN or
/// infinite.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the model of `{atom}` gives {value} ns{}: a time is a finite number >= 0", at_text(.at))]
pub struct BadTime {
    /// The atom (or `shuffle`, `redistribution`).
    pub atom: String,
    /// The point, `x = 2, n = 4` (empty where the caller does not know it).
    pub at: String,
    /// The value.
    pub value: f64,
}

impl BadTime {
    /// The error with the point where the model was evaluated.
    pub fn at(self, at: &[(&str, f64)]) -> BadTime {
        BadTime {
            at: point_text(at),
            ..self
        }
    }
}

fn at_text(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    }
}

/// `value`, the time the model of `atom` gives, if it is a time: a finite
/// number `>= 0`.
pub fn check_time(atom: &str, value: f64) -> Result<f64, BadTime> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(BadTime {
            atom: atom.to_string(),
            at: String::new(),
            value,
        })
    }
}

/// The first atom of `term` whose time at the point `at` is no time, with
/// the point; times that cannot be evaluated there (an unbound variable, a
/// communication function) are left to the semantics that price them.
pub fn check_atom_times(term: &crate::Term, at: &[(&str, f64)]) -> Result<(), BadTime> {
    for (atom, time) in AtomTimes::of(term) {
        if let Ok(value) = time.eval(at) {
            check_time(&atom, value).map_err(|e| e.at(at))?;
        }
    }
    Ok(())
}

/// A point as the reports write it, `x = 2, n = 4`.
fn point_text(at: &[(&str, f64)]) -> String {
    let parts: Vec<String> = at.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    parts.join(", ")
}

/// The time of each atom of a design (its model, with what the patterns
/// above it substitute: `x := 1` in a map, `x := d(x)` in a reduce, `p` a
/// group's processors), in the design's variables; the shuffle of a
/// mapReduce and a redistribution's cost as atoms of their own.
#[derive(Clone, Copy, Debug, Default)]
pub struct AtomTimes;

impl AtomTimes {
    /// The atoms' times of `term`, in pre-order.
    pub fn of(term: &crate::Term) -> Vec<(String, Expr)> {
        fold(term, &mut AtomTimes).unwrap_or_else(|never| match never {})
    }
}

type Times = Vec<(String, Expr)>;

fn substituted(parts: Times, var: &str, by: &Expr) -> Times {
    parts
        .into_iter()
        .map(|(name, e)| (name, e.subs(var, by)))
        .collect()
}

impl Semantics for AtomTimes {
    type Value = Times;
    type Error = Infallible;

    fn atom(&mut self, atom: &Atom, _: &Scope) -> Result<Times, Infallible> {
        Ok(vec![(atom.name.clone(), atom.model.clone())])
    }

    fn seq(&mut self, parts: Vec<Times>, _: &Scope) -> Result<Times, Infallible> {
        Ok(parts.concat())
    }

    fn pipe(&mut self, stages: Vec<Times>, _: &Scope) -> Result<Times, Infallible> {
        Ok(stages.concat())
    }

    fn tpool(&mut self, _: &Count, body: Times, _: &Scope) -> Result<Times, Infallible> {
        Ok(body)
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Times,
        shuffle: &Atom,
        reduce: Times,
        _: &Scope,
    ) -> Result<Times, Infallible> {
        let (m, n) = (params.m.to_expr(), params.n.to_expr());
        let mut out = substituted(map, "x", &Expr::num(1.0));
        let shuffled = shuffle.model.subs_all(&[
            ("x", params.d.clone()),
            ("o", params.k.clone()),
            ("m", m),
            ("n", n),
        ]);
        out.push((shuffle.name.clone(), shuffled));
        out.extend(substituted(reduce, "x", &params.d));
        Ok(out)
    }

    fn on(&mut self, p: &Count, body: Times, _: &Scope) -> Result<Times, Infallible> {
        Ok(substituted(body, "p", &p.to_expr()))
    }

    fn par(&mut self, sizes: &[Count], parts: Vec<Times>, _: &Scope) -> Result<Times, Infallible> {
        Ok(sizes
            .iter()
            .zip(parts)
            .flat_map(|(size, part)| substituted(part, "p", &size.to_expr()))
            .collect())
    }

    fn groups(&mut self, s: &Count, body: Times, _: &Scope) -> Result<Times, Infallible> {
        Ok(substituted(body, "p", &group_size(s)))
    }

    fn redist(&mut self, cost: &Expr, a: Times, b: Times, _: &Scope) -> Result<Times, Infallible> {
        let mut out = a;
        out.extend(b);
        out.push(("redistribution".to_string(), cost.clone()));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Design;

    #[test]
    fn the_definition_of_a_time() {
        assert_eq!(check_time("a", 0.0), Ok(0.0));
        assert_eq!(check_time("a", 2.5), Ok(2.5));
        for bad in [-1e-9, -5.0, f64::NAN, f64::INFINITY] {
            let e = check_time("a", bad).unwrap_err();
            assert_eq!(e.atom, "a");
            assert!(
                e.to_string().contains("a time is a finite number >= 0"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_fitted_model_negative_below_21_is_reported_with_the_point() {
        let d = Design::parse("q = 1033.89*x*log2(x) - 21815.2; tpool[2](q)").unwrap();
        let e = check_atom_times(d.term(), &[("x", 2.0)]).unwrap_err();
        assert_eq!(e.atom, "q");
        assert_eq!(e.at, "x = 2");
        assert!(
            (e.value - (1033.89 * 2.0 - 21815.2)).abs() < 1e-9,
            "{}",
            e.value
        );
        assert_eq!(
            e.to_string(),
            format!(
                "the model of `q` gives {} ns at x = 2: a time is a finite number >= 0",
                e.value
            )
        );
        assert!(check_atom_times(d.term(), &[("x", 64.0)]).is_ok());
        // Not evaluable there: left to the semantics.
        assert!(check_atom_times(d.term(), &[]).is_ok());
    }

    #[test]
    fn a_negative_stage_is_found_whatever_the_max() {
        // max(x, -5x) hides `a`'s negative time from the model.
        let d = Design::parse("a = -5*x; b = x; pipe(a, b)").unwrap();
        let e = check_atom_times(d.term(), &[("x", 8.0)]).unwrap_err();
        assert_eq!((e.atom.as_str(), e.value), ("a", -40.0));
    }

    #[test]
    fn patterns_substitute_what_their_semantics_do() {
        // The map at x = 1, the reduce at d(x), the shuffle at d, k, m, n.
        let d = Design::parse(
            "map = x - 2; s = o - 3; red = x - 10; \
             mapreduce[m = 2, n = 2, d = x / 4, k = 2](map, s, red)",
        )
        .unwrap();
        let times = AtomTimes::of(d.term());
        let at = [("x", 100.0)];
        let values: Vec<(String, f64)> = times
            .iter()
            .map(|(n, e)| (n.clone(), e.eval(&at).unwrap()))
            .collect();
        assert_eq!(
            values,
            [
                ("map".into(), -1.0),
                ("s".into(), -1.0),
                ("red".into(), 15.0)
            ]
        );
        let g = Design::parse("a = p - 3; on[8](groups[4](a))").unwrap();
        let times = AtomTimes::of(g.term());
        // floor(8 / 4) - 3 = -1.
        assert_eq!(times[0].1.eval(&[]).unwrap(), -1.0);
    }
}
