//! The copy budget of expansion: a product distributed over a sum copies
//! each term of one side into every term of the other, opaque factors (a
//! `max`, a kept power) whole. Past [`MAX_COPIED_NODES`] copied nodes the
//! product keeps its factors whole, and the same count decides in
//! `expand_integer_powers_of_sums`, so that a product kept whole is a fixed
//! point of the normal form.

use super::poly::{Base, MAX_EXPANDED_TERMS, Monomial, Poly};

/// A product whose expansion would copy more nodes of opaque factors than
/// this (a 20,000-node `max` into each of 900 terms) keeps its factors
/// whole: the expanded form would be that many times larger than the
/// expression it came from.
pub(crate) const MAX_COPIED_NODES: f64 = 65536.0;

/// A sum of more terms than this is not distributed over a factor that is
/// not a number (`x·(a_1 + … + a_65)` keeps the sum whole): distributing a
/// term copies every term of the sum, and a product that grows a sum a
/// term at a time (`((x + y)·y + y)·y …`) would copy its terms at every
/// step, quadratic in the depth. A number still scales every term, so
/// that a difference of equal sums cancels.
pub(crate) const MAX_DISTRIBUTED_TERMS: usize = 64;
impl Monomial {
    /// The nodes of its opaque and kept factors: what a product copies
    /// along with the monomial into every term of the other side.
    pub(super) fn opaque_nodes(&self) -> usize {
        self.0
            .keys()
            .map(|b| match b {
                Base::Opaque(e, _) | Base::Kept(e, _) => e.size(),
                Base::Var(_) | Base::Log2(_) => 0,
            })
            .sum()
    }
}

impl Poly {
    /// Whether expanding `self · other` would copy more than
    /// [`MAX_COPIED_NODES`] nodes of opaque factors: each term of one side
    /// is copied into every term of the other.
    pub(super) fn copies_too_much(&self, other: &Poly) -> bool {
        let copies = |from: &Poly, times: usize| match times {
            0 | 1 => 0.0,
            // Walk the opaque factors only when they would be copied.
            _ => (times - 1) as f64 * from.opaque_nodes() as f64,
        };
        copies(self, other.terms.len()) + copies(other, self.terms.len()) > MAX_COPIED_NODES
    }

    fn opaque_nodes(&self) -> usize {
        self.terms.keys().map(Monomial::opaque_nodes).sum()
    }

    /// Whether `self · other` keeps its sides whole instead of expanding:
    /// it would copy too much ([`Poly::copies_too_much`]), or it would
    /// distribute a term that is not a number over a sum of more than
    /// [`MAX_DISTRIBUTED_TERMS`] terms.
    pub(super) fn keeps_whole(&self, other: &Poly) -> bool {
        let too_long = |sum: &Poly, by: &Poly| {
            sum.terms.len() > MAX_DISTRIBUTED_TERMS && !by.is_constant_poly()
        };
        too_long(self, other) || too_long(other, self) || self.copies_too_much(other)
    }

    /// Whether every term is a number (at most one term, the constant).
    fn is_constant_poly(&self) -> bool {
        self.terms.keys().all(|m| m.0.is_empty())
    }

    /// `self · other` as one term, each side that is a sum kept whole as a
    /// factor, so that the result is a fixed point of the normal form.
    pub(super) fn product_of_wholes(self, other: Poly) -> Poly {
        let lost = self.lost || other.lost;
        let mut out = self.into_whole().product(&other.into_whole());
        out.lost |= lost;
        out
    }

    /// The sum as one opaque factor, its content outside (as
    /// `power_rational` keeps a power of a sum); a single term as it is.
    /// The sum is moved into the factor, and its degree is that of its
    /// terms: a factor holding a deep factor is neither copied nor walked.
    pub(super) fn into_whole(self) -> Poly {
        if self.terms.len() <= 1 {
            return self;
        }
        let lost = self.lost;
        let (c, rest) = self.into_split_content();
        let degree = rest.degree();
        let mut out = Poly::opaque_with(rest.into_expr(), degree).scale(c);
        out.lost |= lost;
        out
    }

    /// Whether `self · Π sums` (`self` a single term, `sums` of two or
    /// more terms each) may be expanded: within [`MAX_EXPANDED_TERMS`]
    /// terms when sums multiply each other, and within
    /// [`MAX_COPIED_NODES`] nodes of opaque factors copied, each sum's
    /// terms into `T/t` terms of the `T` of the expansion and `self` into
    /// all of them.
    pub(super) fn expansion_fits(&self, sums: &[Poly]) -> bool {
        let distributed = !self.is_constant_poly() || sums.len() > 1;
        if distributed && sums.iter().any(|s| s.terms.len() > MAX_DISTRIBUTED_TERMS) {
            return false;
        }
        let terms: f64 = sums.iter().map(|s| s.terms.len() as f64).product();
        if sums.len() > 1 && terms > MAX_EXPANDED_TERMS as f64 {
            return false;
        }
        // Walk the opaque factors only of a side that is copied.
        let copied = |times: f64, p: &Poly| match times {
            0.0 => 0.0,
            _ => times * p.opaque_nodes() as f64,
        };
        let copies: f64 = sums
            .iter()
            .map(|s| copied(terms / s.terms.len() as f64 - 1.0, s))
            .sum::<f64>()
            + match sums {
                [] => 0.0,
                _ => copied(terms - 1.0, self),
            };
        copies <= MAX_COPIED_NODES
    }
}
