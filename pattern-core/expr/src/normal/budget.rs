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

    /// `self · other` as one term, each side that is a sum kept whole as a
    /// factor, so that the result is a fixed point of the normal form.
    pub(super) fn product_of_wholes(&self, other: &Poly) -> Poly {
        let mut out = self.whole().product(&other.whole());
        out.lost |= self.lost || other.lost;
        out
    }

    /// The sum as one opaque factor, its content outside (as
    /// `power_rational` keeps a power of a sum); a single term as it is.
    pub(super) fn whole(&self) -> Poly {
        if self.terms.len() <= 1 {
            return self.clone();
        }
        let (c, rest) = self.split_content();
        let mut out = Poly::opaque(rest.to_expr()).scale(c);
        out.lost |= self.lost;
        out
    }

    /// Whether `self · Π sums` (`self` a single term, `sums` of two or
    /// more terms each) may be expanded: within [`MAX_EXPANDED_TERMS`]
    /// terms when sums multiply each other, and within
    /// [`MAX_COPIED_NODES`] nodes of opaque factors copied, each sum's
    /// terms into `T/t` terms of the `T` of the expansion and `self` into
    /// all of them.
    pub(super) fn expansion_fits(&self, sums: &[Poly]) -> bool {
        let terms: f64 = sums.iter().map(|s| s.terms.len() as f64).product();
        if sums.len() > 1 && terms > MAX_EXPANDED_TERMS as f64 {
            return false;
        }
        let copies: f64 = sums
            .iter()
            .map(|s| (terms / s.terms.len() as f64 - 1.0) * s.opaque_nodes() as f64)
            .sum::<f64>()
            + match sums {
                [] => 0.0,
                _ => (terms - 1.0) * self.opaque_nodes() as f64,
            };
        copies <= MAX_COPIED_NODES
    }
}
