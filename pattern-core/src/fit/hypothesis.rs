//! The hypothesis space: PMNF term classes `x^i · log2(x)^j` with exact
//! rational exponents, Extra-P's default set of 42, and user-defined sets.

use crate::{Expr, Growth};
use num_rational::Rational64;
use num_traits::{ToPrimitive, Zero};
use std::fmt;

/// One PMNF term class, `x^power · log2(x)^log`, without its coefficient.
///
/// Exponents are exact rationals, so the fitted [`Expr`] carries `x^(2/3)`,
/// not `x^0.6666666666666666`. Ordered by growth (`power` first, then `log`).
///
/// ```
/// use pattern_core::fit::{Rational64, TermClass};
///
/// let t = TermClass::new(Rational64::new(2, 3), Rational64::from_integer(1));
/// assert_eq!(t.to_string(), "O(x^(2/3)·log₂x)");
/// assert!((t.eval(8.0) - 4.0 * 3.0).abs() < 1e-12);
/// assert!(TermClass::extrap(1, 1, 1) > TermClass::extrap(1, 1, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermClass {
    power: Rational64,
    log: Rational64,
}

impl TermClass {
    /// The constant class `O(1)` (`x^0 · log2(x)^0`).
    pub const CONSTANT: TermClass = TermClass {
        power: Rational64::new_raw(0, 1),
        log: Rational64::new_raw(0, 1),
    };

    /// `x^power · log2(x)^log`.
    pub fn new(power: Rational64, log: Rational64) -> TermClass {
        TermClass { power, log }
    }

    /// Extra-P's notation `(a, b, c)`: `x^(a/b) · log2(x)^c`.
    ///
    /// # Panics
    /// If `b` is zero.
    pub fn extrap(a: i64, b: i64, c: i64) -> TermClass {
        TermClass::new(Rational64::new(a, b), Rational64::from_integer(c))
    }

    /// The exponent of the variable.
    pub fn power(&self) -> Rational64 {
        self.power
    }

    /// The exponent of `log2` of the variable.
    pub fn log(&self) -> Rational64 {
        self.log
    }

    /// Whether this is the constant class.
    pub fn is_constant(&self) -> bool {
        self.power.is_zero() && self.log.is_zero()
    }

    /// Whether the class has a `log2` factor (and so needs `x ≥ 1`).
    pub fn has_log(&self) -> bool {
        !self.log.is_zero()
    }

    /// The term's value at `x` with coefficient 1.
    pub fn eval(&self, x: f64) -> f64 {
        TermEval::new(*self).eval(x)
    }

    /// The term as an expression in `var`, with exact exponents:
    /// `x`, `x^(1/4)·log₂(x)^2`, `log₂(x)`; `1` for the constant class.
    pub fn expr(&self, var: &str) -> Expr {
        let v = Expr::var(var);
        let mut factors = Vec::with_capacity(2);
        if !self.power.is_zero() {
            factors.push(power_of(v.clone(), self.power));
        }
        if !self.log.is_zero() {
            factors.push(power_of(v.log2(), self.log));
        }
        factors.into_iter().product()
    }

    /// The growth class of the term in `var`.
    pub fn growth(&self, var: &str) -> Growth {
        self.expr(var)
            .growth(var)
            .expect("a PMNF term always has a growth class")
    }

    /// Extra-P's text for the term: `x^(1/4) * log2(x)^(2)`, empty for the
    /// constant class.
    pub fn to_extrap(&self, var: &str) -> String {
        let mut parts = Vec::new();
        if !self.power.is_zero() {
            parts.push(format!("{var}^({})", self.power));
        }
        if !self.log.is_zero() {
            parts.push(format!("log2({var})^({})", self.log));
        }
        parts.join(" * ")
    }
}

/// `base ^ q` with `q` built so that [`Expr::simplify`] keeps it exact.
fn power_of(base: Expr, q: Rational64) -> Expr {
    if q == Rational64::from_integer(1) {
        return base;
    }
    let exponent = if q.is_integer() {
        Expr::num(*q.numer() as f64)
    } else {
        Expr::num(*q.numer() as f64) / Expr::num(*q.denom() as f64)
    };
    base.pow(exponent)
}

impl fmt::Display for TermClass {
    /// The growth class in `x`: `O(x^(2/3)·log₂x)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.growth("x").fmt(f)
    }
}

/// A term class with its exponents as floats, for evaluation in loops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TermEval {
    power: f64,
    log: f64,
    log_int: Option<i32>,
}

impl TermEval {
    pub(crate) fn new(class: TermClass) -> TermEval {
        let log_int = if class.log.is_integer() {
            class.log.numer().to_i32()
        } else {
            None
        };
        TermEval {
            power: class.power.to_f64().unwrap_or(f64::NAN),
            log: class.log.to_f64().unwrap_or(f64::NAN),
            log_int,
        }
    }

    pub(crate) fn eval(&self, x: f64) -> f64 {
        let p = if self.power == 0.0 {
            1.0
        } else if self.power == 1.0 {
            x
        } else {
            x.powf(self.power)
        };
        let l = match self.log_int {
            Some(0) => 1.0,
            Some(1) => x.log2(),
            Some(k) => x.log2().powi(k),
            None => x.log2().powf(self.log),
        };
        p * l
    }
}

/// The set of term classes the fitter searches, in search order (on equal
/// scores the earlier class wins, as in Extra-P).
///
/// ```
/// use pattern_core::fit::{HypothesisSpace, Rational64};
///
/// // Extra-P's default: 42 term classes (43 hypotheses with the constant model).
/// assert_eq!(HypothesisSpace::extrap().len(), 42);
/// // User-defined: x^1, x^2, log2(x), and their products with log2(x).
/// let r = Rational64::from_integer;
/// let space = HypothesisSpace::from_exponents(&[r(1), r(2)], &[r(1)], false);
/// assert_eq!(space.len(), 5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HypothesisSpace {
    terms: Vec<TermClass>,
}

/// Extra-P 4's default building blocks (`SingleParameterModeler.
/// create_default_building_blocks` with log terms), `(a, b, c)` meaning
/// `x^(a/b) · log2(x)^c`, in Extra-P's order.
const EXTRAP_DEFAULT: [(i64, i64, i64); 42] = [
    (0, 1, 1),
    (0, 1, 2),
    (1, 4, 0),
    (1, 3, 0),
    (1, 4, 1),
    (1, 3, 1),
    (1, 4, 2),
    (1, 3, 2),
    (1, 2, 0),
    (1, 2, 1),
    (1, 2, 2),
    (2, 3, 0),
    (3, 4, 0),
    (2, 3, 1),
    (3, 4, 1),
    (4, 5, 0),
    (2, 3, 2),
    (3, 4, 2),
    (1, 1, 0),
    (1, 1, 1),
    (1, 1, 2),
    (5, 4, 0),
    (5, 4, 1),
    (4, 3, 0),
    (4, 3, 1),
    (3, 2, 0),
    (3, 2, 1),
    (3, 2, 2),
    (5, 3, 0),
    (7, 4, 0),
    (2, 1, 0),
    (2, 1, 1),
    (2, 1, 2),
    (9, 4, 0),
    (7, 3, 0),
    (5, 2, 0),
    (5, 2, 1),
    (5, 2, 2),
    (8, 3, 0),
    (11, 4, 0),
    (3, 1, 0),
    (3, 1, 1),
];

impl HypothesisSpace {
    /// Extra-P's default search space: the 42 term classes of its basic
    /// single-parameter modeler, in its order. With the constant model that
    /// makes 43 hypotheses `c0 + c1·x^i·log2(x)^j`. Note that Extra-P does
    /// not take the full product of the exponent sets of SPEC §6 (which would
    /// give 59 classes): it leaves out, e.g., `x^(4/5)·log2(x)` and `x^3·log2(x)^2`.
    pub fn extrap() -> HypothesisSpace {
        HypothesisSpace {
            terms: EXTRAP_DEFAULT
                .iter()
                .map(|&(a, b, c)| TermClass::extrap(a, b, c))
                .collect(),
        }
    }

    /// Extra-P's space without log terms (its `allow_log_terms = false`):
    /// the 19 polynomial exponents from 1/4 to 3.
    pub fn extrap_polynomial() -> HypothesisSpace {
        HypothesisSpace::extrap().without_log()
    }

    /// A space from user-defined exponent sets, as Extra-P builds it from its
    /// `poly_exponents` and `log_exponents` options: every `x^i`, every
    /// `log2(x)^j` and every `x^i·log2(x)^j` — or, with `force_combination`,
    /// only the products. The constant class and duplicates are left out.
    pub fn from_exponents(
        poly: &[Rational64],
        log: &[Rational64],
        force_combination: bool,
    ) -> HypothesisSpace {
        let zero = Rational64::zero();
        let mut terms = Vec::new();
        if !force_combination {
            terms.extend(poly.iter().map(|&p| TermClass::new(p, zero)));
            terms.extend(log.iter().map(|&l| TermClass::new(zero, l)));
        }
        for &p in poly {
            for &l in log {
                terms.push(TermClass::new(p, l));
            }
        }
        HypothesisSpace::new(terms)
    }

    /// A space from explicit term classes, in the given order; the constant
    /// class and repeated classes are dropped.
    pub fn new(terms: impl IntoIterator<Item = TermClass>) -> HypothesisSpace {
        let mut out: Vec<TermClass> = Vec::new();
        for t in terms {
            if !t.is_constant() && !out.contains(&t) {
                out.push(t);
            }
        }
        HypothesisSpace { terms: out }
    }

    /// The term classes, in search order.
    pub fn terms(&self) -> &[TermClass] {
        &self.terms
    }

    /// The number of term classes (the constant model not counted).
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether the space has no term class (only the constant model is left).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The space followed by the mirror image `x^(-i)·log2(x)^(-j)` of each of
    /// its classes, for strong scaling (`t ∝ 1/n`): Extra-P's
    /// `allow_negative_exponents`, which for the default space adds exactly
    /// these 42 classes. A class with a negative log exponent is infinite at
    /// `x = 1` and is then skipped.
    pub fn with_negative_exponents(&self) -> HypothesisSpace {
        let mirrored = self.terms.iter().map(|t| TermClass::new(-t.power, -t.log));
        HypothesisSpace::new(self.terms.iter().copied().chain(mirrored))
    }

    /// The same space without the classes that have a `log2` factor.
    pub fn without_log(&self) -> HypothesisSpace {
        HypothesisSpace {
            terms: self
                .terms
                .iter()
                .copied()
                .filter(|t| !t.has_log())
                .collect(),
        }
    }
}

impl Default for HypothesisSpace {
    /// [`HypothesisSpace::extrap`].
    fn default() -> HypothesisSpace {
        HypothesisSpace::extrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Rational64 {
        Rational64::new(n, d)
    }

    #[test]
    fn extrap_default_space_has_42_distinct_classes_within_spec_sets() {
        let space = HypothesisSpace::extrap();
        assert_eq!(space.len(), 42);
        let powers = [
            r(0, 1),
            r(1, 4),
            r(1, 3),
            r(1, 2),
            r(2, 3),
            r(3, 4),
            r(4, 5),
            r(1, 1),
            r(5, 4),
            r(4, 3),
            r(3, 2),
            r(5, 3),
            r(7, 4),
            r(2, 1),
            r(9, 4),
            r(7, 3),
            r(5, 2),
            r(8, 3),
            r(11, 4),
            r(3, 1),
        ];
        for t in space.terms() {
            assert!(powers.contains(&t.power()), "{t:?}");
            assert!(t.log() >= r(0, 1) && t.log() <= r(2, 1));
            assert!(!t.is_constant());
        }
        // Every polynomial exponent appears alone.
        assert_eq!(space.without_log().len(), 19);
        assert_eq!(HypothesisSpace::extrap_polynomial().len(), 19);
        // Classes Extra-P leaves out.
        assert!(!space.terms().contains(&TermClass::extrap(4, 5, 1)));
        assert!(!space.terms().contains(&TermClass::extrap(3, 1, 2)));
        assert!(space.terms().contains(&TermClass::extrap(1, 1, 1)));
    }

    #[test]
    fn user_defined_spaces_follow_extrap_generation() {
        let space =
            HypothesisSpace::from_exponents(&[r(0, 1), r(1, 1), r(2, 1)], &[r(1, 1)], false);
        // x^0 alone is the constant and dropped; log2(x) appears once.
        let expected = [
            TermClass::extrap(1, 1, 0),
            TermClass::extrap(2, 1, 0),
            TermClass::extrap(0, 1, 1),
            TermClass::extrap(1, 1, 1),
            TermClass::extrap(2, 1, 1),
        ];
        assert_eq!(space.terms(), expected);
        let forced = HypothesisSpace::from_exponents(&[r(1, 1), r(2, 1)], &[r(1, 1)], true);
        assert_eq!(
            forced.terms(),
            [TermClass::extrap(1, 1, 1), TermClass::extrap(2, 1, 1)]
        );
    }

    #[test]
    fn expressions_have_exact_exponents() {
        let t = TermClass::extrap(2, 3, 2);
        let e = (3.5 * t.expr("x")).simplify();
        assert_eq!(e.to_string(), "3.5·x^(2/3)·log₂(x)^2");
        assert_eq!(
            TermClass::extrap(1, 4, 0).expr("n").simplify().to_string(),
            "n^0.25"
        );
        assert_eq!(
            TermClass::extrap(1, 1, 1).expr("x").to_string(),
            "x·log₂(x)"
        );
        assert_eq!(TermClass::CONSTANT.expr("x"), Expr::num(1.0));
        let g = t.growth("x");
        assert_eq!(g.power(), 2.0 / 3.0);
        assert_eq!(g.log_power(), 2.0);
        assert_eq!(t.to_extrap("x"), "x^(2/3) * log2(x)^(2)");
        assert_eq!(TermClass::extrap(0, 1, 1).to_extrap("p"), "log2(p)^(1)");
    }

    #[test]
    fn evaluation_matches_the_expression() {
        for t in HypothesisSpace::extrap().terms() {
            for x in [1.0, 2.0, 37.0, 1024.0, 262_144.0] {
                let by_expr = t.expr("x").eval(&[("x", x)]).unwrap();
                let fast = t.eval(x);
                assert!(
                    (by_expr - fast).abs() <= 1e-12 * by_expr.abs().max(1.0),
                    "{t:?} at {x}: {by_expr} vs {fast}"
                );
            }
        }
        let half_log = TermClass::new(r(0, 1), r(1, 2));
        assert!((half_log.eval(16.0) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn negative_exponents_mirror_the_space() {
        let space = HypothesisSpace::extrap().with_negative_exponents();
        assert_eq!(space.len(), 84);
        assert!(space.terms().contains(&TermClass::extrap(-1, 1, 0)));
        assert!(space.terms().contains(&TermClass::extrap(-3, 1, -1)));
        assert_eq!(
            TermClass::extrap(-1, 4, 0).expr("n").simplify().to_string(),
            "1/n^0.25"
        );
        assert!(TermClass::extrap(0, 1, -1).eval(1.0).is_infinite());
    }

    #[test]
    fn order_is_by_growth() {
        let mut terms = HypothesisSpace::extrap().terms().to_vec();
        terms.sort();
        assert_eq!(terms.first(), Some(&TermClass::extrap(0, 1, 1)));
        assert_eq!(terms.last(), Some(&TermClass::extrap(3, 1, 1)));
        assert!(TermClass::extrap(3, 2, 0) > TermClass::extrap(1, 1, 2));
    }
}
