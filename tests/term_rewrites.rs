//! `Term::rewrites` and `Term::replace_at`, which the laws' rewriting and
//! the rankings' moves walk terms with: the same results as the naive
//! recursion on small terms, and any depth on a small stack.
mod common;

use pattern_core::laws::Rule;
use pattern_core::strategies;
use pattern_core::{Expr, Term};
use proptest::prelude::*;

/// The naive definition: the rule at the root, then at every sub-term of
/// each child in turn, rebuilding the parent around each result.
fn reference(rule: Rule, t: &Term) -> Vec<Term> {
    let mut out: Vec<Term> = rule.apply(t).into_iter().collect();
    for (i, child) in t.children().into_iter().enumerate() {
        for inner in reference(rule, child) {
            let mut k = 0;
            out.push(t.map_children(|c| {
                k += 1;
                if k - 1 == i { inner.clone() } else { c.clone() }
            }));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    /// Every law's rule, applied everywhere, gives what the naive
    /// recursion gives, in the same order.
    #[test]
    fn the_walk_agrees_with_the_recursion(t in strategies::term(4)) {
        for rule in Rule::ALL {
            prop_assert_eq!(rule.apply_everywhere(&t), reference(rule, &t), "{}", rule);
        }
    }

    /// Replacing a sub-term by itself gives the term back, at every path.
    #[test]
    fn replacing_a_sub_term_by_itself_changes_nothing(t in strategies::term(4)) {
        let mut stack = vec![(&t, Vec::new())];
        while let Some((node, path)) = stack.pop() {
            prop_assert_eq!(t.replace_at(&path, node.clone()), Some(t.clone()));
            for (i, child) in node.children().into_iter().enumerate() {
                let mut p = path.clone();
                p.push(i);
                stack.push((child, p));
            }
        }
    }
}

/// A pipeline 10^5 stages deep, its one match at the bottom: found and
/// rebuilt on a 2 MiB stack.
#[test]
fn a_match_at_the_bottom_of_a_deep_term() {
    common::on_small_stack(|| {
        let n = 100_000;
        let stages = (0..n).map(|i| Term::atom(if i + 1 == n { "z" } else { "a" }, Expr::var("x")));
        let deep = Term::pipe_all(stages).unwrap();
        let found = deep.rewrites(|s| match s {
            Term::Atom(a) if a.name == "z" => Some(Term::tpool(2u64, s.clone())),
            _ => None,
        });
        assert_eq!(found.len(), 1);
        let pools = found[0]
            .preorder()
            .filter(|s| matches!(s, Term::Tpool(..)))
            .count();
        assert_eq!(pools, 1);
        assert_eq!(found[0].size(), deep.size() + 1);
        assert!(deep.replace_at(&vec![1; n], deep.clone()).is_none());
    });
}
