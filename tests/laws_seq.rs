//! The sequence laws: associativity and commutativity over random designs
//! and atom models, 1,000 cases each.
mod common;

use pattern_core::laws::Laws;
use pattern_core::strategies::term;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1000)))]

    #[test]
    fn seq_is_associative(a in term(2), b in term(2), c in term(2)) {
        prop_assert!(Laws::POINTWISE.seq_associative(&a, &b, &c), "{a} | {b} | {c}");
    }

    #[test]
    fn seq_is_commutative(a in term(3), b in term(3)) {
        prop_assert!(Laws::POINTWISE.seq_commutative(&a, &b), "{a} | {b}");
    }
}
