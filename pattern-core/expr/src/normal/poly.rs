//! Polynomials: the sum-of-products normal form. A [`Poly`] is a sum of
//! terms `c · Π b^a` keyed by [`Monomial`]; this module has their
//! arithmetic (sums, scaling, products), their order by growth, the exact
//! rationals of exponents, and the way back to an [`Expr`].

use crate::flat::{divide, product_of, sum_of};
use crate::{Expr, Func};
use num_traits::{CheckedAdd, CheckedMul, One, Signed, Zero};
use std::collections::BTreeMap;

use super::domain::{has_no_value, is_nonnegative, is_zero_product, may_be_zero, may_lack_value};
pub(crate) use super::rational::Q;
use super::rational::{exact_rational, q_to_f64};

/// A base of a PMNF factor.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Base {
    Var(String),
    Log2(String),
    /// A factor PMNF cannot express, with its [`Degree`] (computed once:
    /// walking a deep factor at every comparison would be quadratic).
    Opaque(Expr, Degree),
    /// A piece of the input kept as written: its coefficients would
    /// overflow or underflow `f64` if they were folded (`x·1e308·1e308`,
    /// `(2·x)^1024`), and the written order evaluates it as the input does.
    /// Never expanded, so a normal form that holds one is a fixed point.
    Kept(Expr, Degree),
}

/// The growth of a factor in all variables together, for ordering terms:
/// (degree, log degree). See [`total_degree`].
pub(crate) type Degree = (Q, Q);

impl Base {
    /// An opaque factor, its degree computed by walking it.
    pub(super) fn opaque(e: Expr) -> Base {
        let degree = total_degree(&e);
        Base::Opaque(e, degree)
    }
}

/// A product of bases with non-zero rational exponents.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Monomial(pub(crate) BTreeMap<Base, Q>);

/// A coefficient with the size of what was added up to make it, so that
/// cancellation down to rounding noise is recognized as zero.
#[derive(Clone, Copy, Debug)]
pub(super) struct Coef {
    pub(super) value: f64,
    pub(super) magnitude: f64,
}

/// A sum of terms, keyed by monomial.
#[derive(Clone, Debug, Default)]
pub(crate) struct Poly {
    pub(super) terms: BTreeMap<Monomial, Coef>,
    /// Set when folding coefficients left the range where `f64` keeps
    /// their value (an overflow to infinity, an underflow to zero or a
    /// subnormal): the node that made this polynomial is then kept as
    /// written (see `to_poly`).
    pub(super) lost: bool,
}

/// Whether `r`, the product or sum of the finite non-zero `a` and `b`, left
/// the range where `f64` keeps a value: infinite, zero or subnormal.
pub(super) fn leaves_range(a: f64, b: f64, r: f64) -> bool {
    a.is_finite()
        && b.is_finite()
        && a != 0.0
        && b != 0.0
        && (!r.is_finite() || r.abs() < f64::MIN_POSITIVE)
}

thread_local! {
    /// How many `floor`/`ceil` arguments are being normalized on this thread.
    static EXACT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with coefficients printed unrounded: `floor` and `ceil` jump
/// at integers, so the 12-digit rounding of `1/3` would move
/// `floor(63/3)` from 21 to 20. Their arguments keep every bit.
pub(super) fn exactly<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            EXACT.with(|e| e.set(e.get() - 1));
        }
    }
    EXACT.with(|e| e.set(e.get() + 1));
    let _restore = Restore;
    f()
}

/// Products with more terms than this keep their factors unexpanded.
pub(super) const MAX_EXPANDED_TERMS: usize = 4096;
/// Integer powers of sums up to this exponent are expanded.
pub(super) const MAX_EXPANDED_POWER: i64 = 8;
/// A sum whose value is below this fraction of its parts' size is zero.
/// Above the relative error of the 12-digit rounding of coefficients (5e-12),
/// so that rounding residues of equal parts cancel.
pub(super) const CANCELLATION: f64 = 2e-11;

impl Monomial {
    pub(super) fn one() -> Monomial {
        Monomial(BTreeMap::new())
    }

    pub(super) fn single(base: Base, exponent: Q) -> Monomial {
        let mut m = BTreeMap::new();
        if !exponent.is_zero() {
            m.insert(base, exponent);
        }
        Monomial(m)
    }

    pub(super) fn mul(&self, other: &Monomial) -> Option<Monomial> {
        let mut out = self.0.clone();
        for (base, e) in &other.0 {
            let sum = match out.get(base) {
                Some(a) => a.checked_add(e)?,
                None => *e,
            };
            if sum.is_zero() {
                out.remove(base);
            } else {
                out.insert(base.clone(), sum);
            }
        }
        Some(Monomial(out))
    }

    /// `self · other` in place; `false` (and `self` untouched) when an
    /// exponent leaves the `i64` fractions.
    fn mul_assign(&mut self, other: &Monomial) -> bool {
        let mut sums = Vec::with_capacity(other.0.len());
        for (base, e) in &other.0 {
            match self.0.get(base) {
                Some(a) => match a.checked_add(e) {
                    Some(sum) => sums.push(sum),
                    None => return false,
                },
                None => sums.push(*e),
            }
        }
        for ((base, _), sum) in other.0.iter().zip(sums) {
            if sum.is_zero() {
                self.0.remove(base);
            } else {
                self.0.insert(base.clone(), sum);
            }
        }
        true
    }

    /// `self · other`, moving the bases of `other` in (a deep opaque
    /// factor is not copied); `Err` with both untouched when an exponent
    /// leaves the `i64` fractions.
    fn mul_moved(mut self, other: Monomial) -> Result<Monomial, (Monomial, Monomial)> {
        let fits = other.0.iter().all(|(base, e)| match self.0.get(base) {
            Some(a) => a.checked_add(e).is_some(),
            None => true,
        });
        if !fits {
            return Err((self, other));
        }
        for (base, e) in other.0 {
            match self.0.get_mut(&base) {
                Some(a) => {
                    *a += e;
                    if a.is_zero() {
                        self.0.remove(&base);
                    }
                }
                None => {
                    self.0.insert(base, e);
                }
            }
        }
        Ok(self)
    }

    pub(super) fn pow(&self, k: Q) -> Option<Monomial> {
        self.clone().into_pow(k)
    }

    /// Whether every exponent times `k` stays a fraction of `i64`s.
    pub(super) fn pow_fits(&self, k: &Q) -> bool {
        self.0.values().all(|e| e.checked_mul(k).is_some())
    }

    /// [`Monomial::pow`] with the bases moved, not copied: a kept power
    /// raised again at every level of a nest must not copy its base.
    pub(super) fn into_pow(mut self, k: Q) -> Option<Monomial> {
        for e in self.0.values_mut() {
            *e = e.checked_mul(&k)?;
        }
        Some(self)
    }

    /// Sum of the exponents of variables and of logarithms: the growth key.
    fn degrees(&self) -> (Q, Q, bool) {
        let mut degree = Q::zero();
        let mut log = Q::zero();
        let mut opaque = false;
        for (base, e) in &self.0 {
            match base {
                Base::Var(_) => degree += e,
                Base::Log2(_) => log += e,
                Base::Opaque(_, (d, l)) | Base::Kept(_, (d, l)) => {
                    opaque = true;
                    degree += d * e;
                    log += l * e;
                }
            }
        }
        (degree, log, opaque)
    }
}

impl Poly {
    pub(crate) fn constant(value: f64) -> Poly {
        let mut p = Poly::default();
        if value != 0.0 {
            p.terms.insert(
                Monomial::one(),
                Coef {
                    value,
                    magnitude: value.abs(),
                },
            );
        }
        p
    }

    pub(super) fn base(base: Base, exponent: Q) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(
            Monomial::single(base, exponent),
            Coef {
                value: 1.0,
                magnitude: 1.0,
            },
        );
        p
    }

    /// An opaque factor whose degree is known.
    pub(super) fn opaque_with(e: Expr, degree: Degree) -> Poly {
        match e {
            Expr::Num(v) => Poly::constant(v),
            e => Poly::base(Base::Opaque(e, degree), Q::one()),
        }
    }

    /// The degree of the sum: that of its fastest-growing term (as
    /// [`total_degree`] has it for the sum written out).
    pub(super) fn degree(&self) -> Degree {
        self.terms
            .keys()
            .map(|m| {
                let (d, l, _) = m.degrees();
                (d, l)
            })
            .max()
            .unwrap_or((Q::zero(), Q::zero()))
    }

    pub(super) fn opaque(e: Expr) -> Poly {
        match e {
            Expr::Num(v) => Poly::constant(v),
            e => Poly::base(Base::opaque(e), Q::one()),
        }
    }

    pub(super) fn insert(&mut self, monomial: Monomial, coef: Coef) {
        let entry = self.terms.entry(monomial).or_insert(Coef {
            value: 0.0,
            magnitude: 0.0,
        });
        let sum = entry.value + coef.value;
        // A zero entry is new: only a sum of two values can overflow.
        self.lost |= leaves_range(entry.value, coef.value, sum) && !sum.is_finite();
        entry.value = sum;
        entry.magnitude += coef.magnitude;
    }

    /// Drops the terms that cancelled: zero, or rounding noise of parts
    /// that were added up. A non-finite coefficient (an overflow, `inf -
    /// inf`) is never taken as cancelled: its value is not known.
    fn drop_cancelled(&mut self) {
        self.terms.retain(|_, c| {
            !(c.value == 0.0
                || (c.magnitude.is_finite() && c.value.abs() <= CANCELLATION * c.magnitude))
        });
    }

    /// Whether a factor calls a machine function ([`Expr::Apply`]).
    pub(super) fn has_application(&self) -> bool {
        self.terms.keys().any(|m| {
            m.0.keys().any(|b| match b {
                Base::Opaque(e, _) | Base::Kept(e, _) => !e.applied_functions().is_empty(),
                _ => false,
            })
        })
    }

    /// Whether a factor may have no value somewhere in the domain
    /// ([`may_lack_value`]).
    fn may_lack_value(&self) -> bool {
        self.terms.keys().any(|m| {
            m.0.keys().any(|b| match b {
                Base::Opaque(e, _) | Base::Kept(e, _) => may_lack_value(e),
                _ => false,
            })
        })
    }

    /// Whether the polynomial holds a value that is not finite wherever it
    /// is evaluated: a non-finite coefficient, or a constant factor that
    /// does not evaluate (`1/0`, `log2(0)`). Such a value poisons what it
    /// is multiplied by, so a product with zero stays non-finite.
    pub(super) fn has_non_finite(&self) -> bool {
        self.terms.iter().any(|(m, c)| {
            !c.value.is_finite()
                || m.0.iter().any(|(b, k)| match b {
                    Base::Opaque(e, _) | Base::Kept(e, _) => {
                        has_no_value(e) || (k.is_negative() && is_zero_product(e))
                    }
                    _ => false,
                })
        })
    }

    /// Zero times `self`: zero, or NaN when `self` is not finite (as
    /// `0 · inf` is in floating point). A product with a machine function
    /// (`0·send(m, p)`) is kept: such a call has a value only once a
    /// profile defines it, and zero must not give it one before; so is a
    /// product with a factor that may have no value (`0·ln(x - y)`).
    pub(super) fn times_zero(&self) -> Poly {
        if self.has_application() || self.may_lack_value() {
            let kept = Expr::Mul(vec![Expr::Num(0.0), self.to_expr()]);
            return Poly {
                lost: self.lost,
                ..Poly::opaque(kept)
            };
        }
        let zero = if self.has_non_finite() {
            Poly::constant(f64::NAN)
        } else {
            Poly::default()
        };
        Poly {
            lost: self.lost,
            ..zero
        }
    }

    /// Adds the terms of `other` without looking for cancellation: the sum
    /// of many parts calls [`Poly::finish_sum`] once, after the last.
    pub(super) fn extend(&mut self, other: Poly) {
        self.lost |= other.lost;
        for (m, c) in other.terms {
            self.insert(m, c);
        }
    }

    /// Drops what cancelled in the parts [`Poly::extend`] added.
    pub(super) fn finish_sum(&mut self) {
        self.drop_cancelled();
    }

    /// `self · c·m`: every monomial multiplied in place, in one pass (a
    /// long product of factors stays linear).
    pub(super) fn times_term(self, c: f64, m: &Monomial) -> Poly {
        let mut out = Poly {
            lost: self.lost,
            ..Poly::default()
        };
        for (mut ma, ca) in self.terms {
            let coef = Coef {
                value: ca.value * c,
                magnitude: ca.magnitude * c.abs(),
            };
            out.lost |= leaves_range(ca.value, c, coef.value);
            if ma.mul_assign(m) {
                out.insert(ma, coef);
            } else {
                // Exponents beyond i64 fractions: keep the product opaque.
                out.insert(
                    Monomial::single(
                        Base::opaque(product_of(vec![monomial_expr(&ma), monomial_expr(m)])),
                        Q::one(),
                    ),
                    coef,
                );
            }
        }
        out.drop_cancelled();
        out
    }

    /// `self · other` for a single-term `self`: the monomials are merged
    /// by moving, so a product of deep factors copies none of them.
    pub(super) fn single_times(self, other: Poly) -> Poly {
        let lost = self.lost || other.lost;
        let Some((ma, ca)) = self.terms.into_iter().next() else {
            return Poly::default();
        };
        let mut out = Poly {
            lost,
            ..Poly::default()
        };
        let last = other.terms.len().saturating_sub(1);
        let mut ma = Some(ma);
        for (i, (mb, cb)) in other.terms.into_iter().enumerate() {
            let coef = Coef {
                value: ca.value * cb.value,
                magnitude: ca.magnitude * cb.magnitude,
            };
            out.lost |= leaves_range(ca.value, cb.value, coef.value);
            // The last term takes the monomial itself: a long chain of
            // single-term factors copies nothing.
            let own = if i == last {
                ma.take().unwrap_or_default()
            } else {
                ma.clone().unwrap_or_default()
            };
            match own.mul_moved(mb) {
                Ok(m) => out.insert(m, coef),
                Err((ma, mb)) => out.insert(
                    Monomial::single(
                        Base::opaque(product_of(vec![monomial_expr(&ma), monomial_expr(&mb)])),
                        Q::one(),
                    ),
                    coef,
                ),
            }
        }
        out.drop_cancelled();
        out
    }

    /// Whether a term has a sum as a factor (which a product may bring to
    /// a power that is expanded).
    pub(super) fn has_sum_factor(&self) -> bool {
        self.terms.keys().any(|m| {
            m.0.keys()
                .any(|b| matches!(b, Base::Opaque(Expr::Add(_), _)))
        })
    }

    pub(super) fn add(mut self, other: Poly) -> Poly {
        self.lost |= other.lost;
        for (m, c) in other.terms {
            self.insert(m, c);
        }
        self.drop_cancelled();
        self
    }

    pub(super) fn scale(mut self, k: f64) -> Poly {
        if k == 0.0 {
            return self.times_zero();
        }
        for c in self.terms.values_mut() {
            let value = c.value * k;
            self.lost |= leaves_range(c.value, k, value);
            c.value = value;
            c.magnitude *= k.abs();
        }
        self
    }

    /// The product of two polynomials, expanded up to
    /// [`MAX_EXPANDED_TERMS`] terms and [`MAX_COPIED_NODES`](super::budget::MAX_COPIED_NODES) copied nodes
    /// (beyond, the two factors are kept whole); sums brought to an integer
    /// power stay factors (see `Poly::mul`).
    pub(super) fn product(&self, other: &Poly) -> Poly {
        if self.terms.is_empty() || other.terms.is_empty() {
            let (zero, rest) = if self.terms.is_empty() {
                (self, other)
            } else {
                (other, self)
            };
            let mut out = rest.times_zero();
            out.lost |= zero.lost;
            return out;
        }
        if self.keeps_whole(other) {
            return self.clone().product_of_wholes(other.clone());
        }
        if self.terms.len().saturating_mul(other.terms.len()) > MAX_EXPANDED_TERMS {
            // Contents outside, as `power_rational` keeps a power of a sum,
            // so that the result is a fixed point of the normal form.
            let (ca, a) = self.split_content();
            let (cb, b) = other.split_content();
            return Poly::opaque(a.to_expr())
                .product(&Poly::opaque(b.to_expr()))
                .scale(ca * cb);
        }
        let mut out = Poly {
            lost: self.lost || other.lost,
            ..Poly::default()
        };
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let coef = Coef {
                    value: ca.value * cb.value,
                    magnitude: ca.magnitude * cb.magnitude,
                };
                out.lost |= leaves_range(ca.value, cb.value, coef.value);
                match ma.mul(mb) {
                    Some(m) => out.insert(m, coef),
                    // Exponents beyond i64 fractions: keep the product opaque.
                    None => out.insert(
                        Monomial::single(
                            Base::opaque(product_of(vec![monomial_expr(ma), monomial_expr(mb)])),
                            Q::one(),
                        ),
                        coef,
                    ),
                }
            }
        }
        out.drop_cancelled();
        out
    }

    pub(crate) fn as_constant(&self) -> Option<f64> {
        match self.terms.len() {
            0 => Some(0.0),
            1 => {
                let (m, c) = self.terms.iter().next()?;
                m.0.is_empty().then_some(c.value)
            }
            _ => None,
        }
    }

    pub(super) fn single_term(&self) -> Option<(f64, &Monomial)> {
        if self.terms.len() != 1 {
            return None;
        }
        self.terms.iter().next().map(|(m, c)| (c.value, m))
    }

    /// Splits a sum into its first coefficient and the sum divided by it, so
    /// that `(2a + 2b)^k` and `2^k (a + b)^k` meet in one normal form.
    pub(super) fn split_content(&self) -> (f64, Poly) {
        self.clone().into_split_content()
    }

    /// [`Poly::split_content`], taking the sum.
    pub(super) fn into_split_content(self) -> (f64, Poly) {
        let Some(first) = self.sorted_terms().first().map(|(_, c)| c.value) else {
            return (1.0, self);
        };
        // Dividing by a subnormal or huge content would overflow or
        // underflow the others: such a sum keeps its content.
        if !(1e-300..=1e300).contains(&first.abs()) {
            return (1.0, self);
        }
        // Each term divided once (not times a rounded `1/first`), and the
        // first exactly 1: the content of the result is 1, a fixed point.
        let mut rest = self;
        for c in rest.terms.values_mut() {
            c.value /= first;
            c.magnitude /= first.abs();
        }
        // Found by address: cloning or comparing the lead monomial would
        // copy or walk its opaque factors (a sum nested thousands deep).
        let lead = rest
            .sorted_terms()
            .first()
            .map(|(m, _)| *m as *const Monomial);
        if let Some((_, c)) = rest
            .terms
            .iter_mut()
            .find(|(m, _)| lead.is_some_and(|l| std::ptr::eq(*m, l)))
        {
            c.value = 1.0;
        }
        (first, rest)
    }

    /// Terms in display order: by growth, descending; the constant last.
    fn sorted_terms(&self) -> Vec<(&Monomial, Coef)> {
        let mut keyed: Vec<((Q, Q, bool), &Monomial, Coef)> = self
            .terms
            .iter()
            .map(|(m, c)| (m.degrees(), m, *c))
            .collect();
        keyed.sort_by(|(ka, a, _), (kb, b, _)| display_order((ka, a), (kb, b)));
        keyed.into_iter().map(|(_, m, c)| (m, c)).collect()
    }

    /// The canonical expression of this normal form.
    pub(crate) fn to_expr(&self) -> Expr {
        self.clone().into_expr()
    }

    /// [`Poly::to_expr`], moving the factors out instead of copying them
    /// (a nested factor is moved once, not copied at every level).
    pub(crate) fn into_expr(self) -> Expr {
        let mut keyed: Vec<((Q, Q, bool), Monomial, Coef)> = self
            .terms
            .into_iter()
            .map(|(m, c)| (m.degrees(), m, c))
            .collect();
        keyed.sort_by(|(ka, a, _), (kb, b, _)| display_order((ka, a), (kb, b)));
        let terms: Vec<Expr> = keyed
            .into_iter()
            .map(|(_, m, c)| term_expr(round_significant(c.value), m))
            .collect();
        sum_of(terms)
    }
}

/// The order of terms: by growth, descending; the constant last among
/// terms of equal degree; then by monomial.
fn display_order(
    (ka, a): (&(Q, Q, bool), &Monomial),
    (kb, b): (&(Q, Q, bool), &Monomial),
) -> std::cmp::Ordering {
    kb.0.cmp(&ka.0)
        .then(kb.1.cmp(&ka.1))
        .then(kb.2.cmp(&ka.2))
        .then(a.0.is_empty().cmp(&b.0.is_empty()))
        .then_with(|| a.cmp(b))
}

/// The growth of an opaque factor in all variables together, for ordering
/// terms: (degree, log degree).
pub(super) fn total_degree(e: &Expr) -> (Q, Q) {
    crate::deep(|| {
        let zero = (Q::zero(), Q::zero());
        match e {
            Expr::Apply(..) => zero,
            Expr::Num(_) => zero,
            Expr::Var(_) => (Q::one(), Q::zero()),
            Expr::Add(items) | Expr::Call(Func::Max, items) => {
                items.iter().map(total_degree).max().unwrap_or(zero)
            }
            Expr::Call(Func::Min, items) => items.iter().map(total_degree).min().unwrap_or(zero),
            Expr::Mul(items) => items
                .iter()
                .map(total_degree)
                .fold(zero, |(d, l), (a, b)| (d + a, l + b)),
            // As the normal form has it: `x^(2/3)` is written `x^(2/3)`.
            Expr::Pow(base, exponent) => match exact_rational(exponent) {
                Some(k) => {
                    let (d, l) = total_degree(base);
                    (
                        d.checked_mul(&k).unwrap_or_else(Q::zero),
                        l.checked_mul(&k).unwrap_or_else(Q::zero),
                    )
                }
                None => zero,
            },
            Expr::Call(func, args) if !func.accepts(args.len()) => zero,
            Expr::Call(Func::Log2 | Func::Ln | Func::Log, _) => (Q::zero(), Q::one()),
            Expr::Call(Func::Sqrt, args) => {
                let (d, l) = total_degree(&args[0]);
                (d / Q::from_integer(2), l / Q::from_integer(2))
            }
            Expr::Call(Func::Ceil | Func::Floor, args) => total_degree(&args[0]),
        }
    })
}

/// Rounds to 12 significant digits in the strong form of
/// [`Expr::canonical`] (which decides equality, so that equal functions
/// computed along different roundings meet); [`Expr::simplify`] keeps
/// every digit.
pub(super) fn round_significant(v: f64) -> f64 {
    if !super::strength::is_strong() || !v.is_finite() || v == 0.0 || EXACT.with(|e| e.get() > 0) {
        return if v == 0.0 { 0.0 } else { v };
    }
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// The exponent as an expression: integers and terminating decimals as a
/// number (`2`, `0.5`), other fractions as `p/q` (`2/3`).
pub(super) fn exponent_expr(q: &Q) -> Expr {
    if q.is_integer() || 1000 % q.denom() == 0 {
        Expr::Num(q_to_f64(q))
    } else {
        divide(Expr::Num(*q.numer() as f64), Expr::Num(*q.denom() as f64))
    }
}

pub(super) fn owned_base_expr(base: Base) -> Expr {
    match base {
        Base::Var(v) => Expr::Var(v),
        Base::Log2(v) => Expr::Call(Func::Log2, vec![Expr::Var(v)]),
        Base::Opaque(e, _) | Base::Kept(e, _) => e,
    }
}

fn factor_expr(base: Base, e: &Q) -> Expr {
    // A power kept as written (`0.5^2048`) keeps its own exponent: folded
    // (`0.5^4096`), it would read back as another factor, and like terms
    // would meet only a pass later (a normal form not a fixed point).
    let kept = matches!(base, Base::Kept(..));
    let b = owned_base_expr(base);
    if e.is_one() {
        return b;
    }
    // A power that could not be folded (a negative base under a fractional
    // exponent) takes the exponent in: `1/c^k` reads back as `c^(-k)`;
    // not where that would give a root of a negative base a value
    // (`((-p)^0.5)^2` is not `(-p)^1`).
    if let (Expr::Pow(inner, k), true, false) = (&b, e.is_integer(), kept) {
        // Nor where it would cancel a divisor that may be 0
        // (`(floor(3/m)^-1)^-1` is not `floor(3/m)`).
        if let Expr::Num(k) = **k
            && (k.fract() == 0.0 || (k * q_to_f64(e)).fract() != 0.0 || is_nonnegative(inner))
            && !(k < 0.0 && k * q_to_f64(e) >= 0.0 && may_be_zero(inner))
        {
            return Expr::Pow(inner.clone(), Box::new(Expr::Num(k * q_to_f64(e))));
        }
    }
    if e.is_negative() && !e.is_integer() && 1000 % e.denom() != 0 {
        // `/x^(1/3)`: the printer writes divisors as positive powers.
        return b.pow(exponent_expr(&-*e)).recip();
    }
    b.pow(exponent_expr(e))
}

fn monomial_factors(m: Monomial) -> Vec<Expr> {
    let (up, down): (Vec<_>, Vec<_>) = m.0.into_iter().partition(|(_, e)| e.is_positive());
    up.into_iter()
        .chain(down)
        .map(|(b, e)| factor_expr(b, &e))
        .collect()
}

fn monomial_expr(m: &Monomial) -> Expr {
    product_of(monomial_factors(m.clone()))
}

fn term_expr(c: f64, m: Monomial) -> Expr {
    let mut factors = monomial_factors(m);
    if factors.is_empty() {
        return Expr::Num(c);
    }
    if c != 1.0 {
        factors.insert(0, Expr::Num(c));
    }
    product_of(factors)
}

impl Poly {
    pub(super) fn leading_coefficient(&self) -> f64 {
        self.sorted_terms().first().map_or(0.0, |(_, c)| c.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normal::tests::{s, same};

    #[test]
    fn like_terms_and_order() {
        assert_eq!(
            s("x*log2(x)*1034.17 + 5422.97"),
            "1034.17·x·log₂(x) + 5422.97"
        );
        assert_eq!(
            s("5422.97 + 1034.17*log2(x)*x"),
            "1034.17·x·log₂(x) + 5422.97"
        );
        assert_eq!(s("x^(1)*log2(x)^(1)"), "x·log₂(x)");
        assert_eq!(s("536.185*x + 536.185*x"), "1072.37·x");
        assert_eq!(s("3 + x - 3"), "x");
        assert_eq!(s("x - x"), "0");
        assert_eq!(s("2*3 + 4"), "10");
        assert_eq!(
            s("5 + x^2 + x*log2(x) + x + log2(x)^2 + sqrt(x)"),
            "x^2 + x·log₂(x) + x + x^0.5 + log₂(x)^2 + 5"
        );
    }

    #[test]
    fn simplify_keeps_every_digit_and_canonical_rounds_to_meet() {
        assert_eq!(s("0.1*x + 0.2*x"), "0.30000000000000004·x");
        assert_eq!(s("1234567.891234567*x"), "1234567.891234567·x");
        let canonical = |t: &str| Expr::parse(t).unwrap().canonical();
        assert_eq!(canonical("0.1*x + 0.2*x"), canonical("0.3*x"));
        assert_eq!(canonical("0.1*x + 0.2*x").to_string(), "0.3·x");
        same("x/3 + x/3 + x/3", "x");
        assert!(
            Expr::parse("1e-20*x + 1").unwrap().simplify() != Expr::parse("1").unwrap().simplify()
        );
    }
}
