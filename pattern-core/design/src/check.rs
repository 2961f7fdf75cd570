//! The well-formedness rules of a design, checked in one place for every
//! front end (the text parser, `design!`, terms built in code):
//!
//! - every count is positive;
//! - no shuffle phase inside a task pool (seed 001 §3.2): a `tpool` never
//!   wraps a `mapreduce`, however deep;
//! - processor groups fit: `on[p]` and `groups[s]` ask for at most the
//!   processors of the enclosing group, the sizes of `par` add up to at most
//!   them, and `par` has one size per component;
//! - counts stay exact ([`crate::MAX_COUNT`]): every count, and the threads
//!   every node occupies (products of pool sizes, sums of stages and group
//!   sizes), at most 2^53, computed without overflow;
//! - one model per atom name;
//! - the model stays of a size that can be built: nested substitutions
//!   (a mapReduce's `d(x)`, group sizes) multiply it, and
//!   [`crate::model_size`] bounds it before it is built.
//!
//! The check walks the term without recursion, so a design of any depth is
//! checked on any stack.

use crate::error::{DesignErrorKind, Problem, Site};
use crate::term::{Atom, Count, Term};
use std::collections::{HashMap, HashSet};

/// Where a node sits: the processors of the enclosing group where known,
/// and the innermost task pool around it.
#[derive(Clone, Copy)]
struct Context {
    processors: Option<u64>,
    pool: Option<usize>,
}

impl Term {
    /// Checks the well-formedness rules ([`crate::check`]): no shuffle
    /// inside a task pool, no zero count, groups that fit in the processors
    /// they split, one model per atom name.
    ///
    /// ```
    /// use pattern_core::{Design, DesignErrorKind, Term, Expr};
    ///
    /// let d = Design::parse("m = 1; s = 0; r = 2; pipe(m, r)").unwrap();
    /// assert!(d.term().check().is_ok());
    /// let zero = Term::tpool(0u64, Term::atom("a", Expr::var("x")));
    /// let err = zero.check().unwrap_err();
    /// assert_eq!(err.kind(), &DesignErrorKind::ZeroCount);
    /// assert_eq!(err.to_string(), "`tpool[0](a)`: a count of 0: counts are positive integers or names");
    /// ```
    pub fn check(&self) -> Result<(), crate::TermError> {
        match check(self).into_iter().next() {
            None => Ok(()),
            Some(problem) => Err(crate::TermError::new(self, problem)),
        }
    }
}

/// Every problem of `term`, in pre-order of the nodes they are about
/// ([`Term::preorder`]); empty when the design is well-formed.
///
/// ```
/// use pattern_core::{Design, DesignErrorKind};
/// use pattern_core::grammar::check::check;
///
/// let d = Design::parse("a = x; pipe(tpool[4](a), a)").unwrap();
/// assert!(check(d.term()).is_empty());
/// ```
pub fn check(term: &Term) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut models: HashMap<&str, &Atom> = HashMap::new();
    let mut reported_pools: HashSet<usize> = HashSet::new();
    let mut stack = vec![(
        term,
        Context {
            processors: None,
            pool: None,
        },
    )];
    let mut index = 0;
    while let Some((node, ctx)) = stack.pop() {
        let here = index;
        index += 1;
        let mut found: Vec<(DesignErrorKind, Site)> = Vec::new();
        let mut report = |kind, site| found.push((kind, site));
        let mut inner = ctx;
        let mut per_child: Option<Vec<Option<u64>>> = None;
        match node {
            Term::Atom(a) => {
                if let Some(kind) = conflict(&mut models, a) {
                    report(kind, Site::Head);
                }
            }
            Term::Seq(..) | Term::Pipe(..) | Term::Redist(..) => {}
            Term::Tpool(n, _) => {
                if is_zero(n) {
                    report(DesignErrorKind::ZeroCount, Site::Count(0));
                }
                inner.pool = Some(here);
            }
            Term::MapReduce {
                params, shuffle, ..
            } => {
                for (i, c) in [&params.m, &params.n].into_iter().enumerate() {
                    if is_zero(c) {
                        report(DesignErrorKind::ZeroCount, Site::Count(i));
                    }
                }
                if let Some(kind) = conflict(&mut models, shuffle) {
                    report(kind, Site::Head);
                }
                if let Some(pool) = ctx.pool.filter(|&p| reported_pools.insert(p)) {
                    problems.push(Problem {
                        kind: DesignErrorKind::ShuffleInTpool,
                        node: pool,
                        site: Site::Head,
                    });
                }
            }
            Term::On(p, _) => {
                if is_zero(p) {
                    report(DesignErrorKind::ZeroCount, Site::Count(0));
                }
                if let Some(kind) = over(fixed(p), ctx.processors) {
                    report(kind, Site::Count(0));
                }
                inner.processors = fixed(p).or(ctx.processors);
            }
            Term::Groups(s, _) => {
                if is_zero(s) {
                    report(DesignErrorKind::ZeroCount, Site::Count(0));
                }
                if let Some(kind) = over(fixed(s), ctx.processors) {
                    report(kind, Site::Count(0));
                }
                inner.processors = match (fixed(s), ctx.processors) {
                    (Some(groups), Some(available)) if groups > 0 => Some(available / groups),
                    _ => None,
                };
            }
            Term::Par(sizes, parts) => {
                if sizes.len() != parts.len() {
                    report(
                        DesignErrorKind::ParSizes {
                            sizes: sizes.len(),
                            parts: parts.len(),
                        },
                        Site::Head,
                    );
                }
                for (i, size) in sizes.iter().enumerate() {
                    if is_zero(size) {
                        report(DesignErrorKind::ZeroCount, Site::Count(i));
                    }
                }
                // A sum that overflows is reported by the count check.
                let needed = sizes
                    .iter()
                    .try_fold(0u64, |sum, size| sum.checked_add(fixed(size)?));
                if let Some(kind) = over(needed, ctx.processors) {
                    report(kind, Site::Params);
                }
                per_child = Some(
                    (0..parts.len())
                        .map(|i| sizes.get(i).and_then(fixed))
                        .collect(),
                );
            }
        }
        problems.extend(found.into_iter().map(|(kind, site)| Problem {
            kind,
            node: here,
            site,
        }));
        let children = node.children();
        for (i, child) in children.into_iter().enumerate().rev() {
            let mut ctx = inner;
            if let Some(sizes) = &per_child {
                ctx.processors = sizes[i];
            }
            stack.push((child, ctx));
        }
    }
    problems.extend(crate::threads::check(term));
    if problems.is_empty() {
        problems.extend(crate::model_size::check(term));
    }
    problems.sort_by_key(|p| p.node);
    problems
}

fn fixed(c: &Count) -> Option<u64> {
    match c {
        Count::Fixed(k) => Some(*k),
        Count::Symbol(_) => None,
    }
}

fn is_zero(c: &Count) -> bool {
    *c == Count::Fixed(0)
}

/// `OverSubscribed` when `needed` processors are more than `available`.
fn over(needed: Option<u64>, available: Option<u64>) -> Option<DesignErrorKind> {
    match (needed, available) {
        (Some(needed), Some(available)) if needed > available => {
            Some(DesignErrorKind::OverSubscribed { needed, available })
        }
        _ => None,
    }
}

/// `ConflictingAtom` when an atom of that name was seen with another model
/// or other bytes.
fn conflict<'t>(
    models: &mut HashMap<&'t str, &'t Atom>,
    atom: &'t Atom,
) -> Option<DesignErrorKind> {
    match models.get(atom.name.as_str()) {
        Some(seen) if *seen != atom => Some(DesignErrorKind::ConflictingAtom {
            name: atom.name.clone(),
        }),
        Some(_) => None,
        None => {
            models.insert(&atom.name, atom);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::tests::{atom, hist};
    use pattern_expr::Expr;

    fn kinds(t: &Term) -> Vec<(DesignErrorKind, usize, Site)> {
        check(t)
            .into_iter()
            .map(|p| (p.kind, p.node, p.site))
            .collect()
    }

    #[test]
    fn well_formed_designs_pass() {
        assert!(check(&Term::pipe(Term::tpool(4u64, atom("q")), hist())).is_empty());
        let groups = Term::On(
            64u64.into(),
            Box::new(Term::Par(
                vec![16u64.into(), 48u64.into()],
                vec![atom("a"), Term::Groups(4u64.into(), Box::new(atom("a")))],
            )),
        );
        assert!(check(&groups).is_empty());
    }

    #[test]
    fn a_shuffle_inside_a_pool_is_reported_once_at_the_pool() {
        let bad = Term::tpool(2u64, Term::seq(atom("a"), Term::seq(hist(), hist())));
        assert_eq!(
            kinds(&bad),
            vec![(DesignErrorKind::ShuffleInTpool, 0, Site::Head)]
        );
        let err = bad.check().unwrap_err();
        assert!(
            err.to_string().starts_with("`tpool[2](seq(a, mapreduce[m = 1, n = n, d = 768, k = x](map, shuffle, reduce), mapreduce"),
            "{err}"
        );
    }

    #[test]
    fn every_zero_count_is_reported_at_its_count() {
        let zero = Term::seq(atom("a"), Term::tpool(0u64, atom("b")));
        assert_eq!(
            kinds(&zero),
            vec![(DesignErrorKind::ZeroCount, 2, Site::Count(0))]
        );
        assert_eq!(
            zero.check().unwrap_err().to_string(),
            "`tpool[0](b)`: a count of 0: counts are positive integers or names"
        );
        let par = Term::Par(vec![0u64.into(), 0u64.into()], vec![atom("a"), atom("a")]);
        assert_eq!(
            kinds(&par),
            vec![
                (DesignErrorKind::ZeroCount, 0, Site::Count(0)),
                (DesignErrorKind::ZeroCount, 0, Site::Count(1))
            ]
        );
    }

    #[test]
    fn groups_must_fit_and_sizes_must_not_overflow() {
        let over = Term::On(
            8u64.into(),
            Box::new(Term::Par(
                vec![4u64.into(), 5u64.into()],
                vec![atom("a"), atom("a")],
            )),
        );
        assert_eq!(
            kinds(&over),
            vec![(
                DesignErrorKind::OverSubscribed {
                    needed: 9,
                    available: 8
                },
                1,
                Site::Params
            )]
        );
        let huge = Term::Par(
            vec![u64::MAX.into(), 1u64.into()],
            vec![atom("a"), atom("a")],
        );
        assert_eq!(
            kinds(&huge),
            vec![(
                DesignErrorKind::CountTooLarge { count: u64::MAX },
                0,
                Site::Count(0)
            )]
        );
        let half = crate::MAX_COUNT / 2 + 1;
        let over = Term::On(
            8u64.into(),
            Box::new(Term::Par(
                vec![half.into(), half.into()],
                vec![atom("a"), atom("a")],
            )),
        );
        assert_eq!(
            kinds(&over),
            vec![
                (
                    DesignErrorKind::OverSubscribed {
                        needed: 2 * half,
                        available: 8
                    },
                    1,
                    Site::Params
                ),
                (
                    DesignErrorKind::CountOverflow {
                        what: "the group sizes, 4503599627370497 + 4503599627370497".into(),
                        total: 2 * u128::from(half)
                    },
                    1,
                    Site::Params
                )
            ]
        );
        let uneven = Term::Par(vec![2u64.into()], vec![atom("a"), atom("a")]);
        assert_eq!(
            kinds(&uneven),
            vec![(
                DesignErrorKind::ParSizes {
                    sizes: 2 - 1,
                    parts: 2
                },
                0,
                Site::Head
            )]
        );
        let groups = Term::On(
            4u64.into(),
            Box::new(Term::Groups(
                2u64.into(),
                Box::new(Term::On(3u64.into(), Box::new(atom("a")))),
            )),
        );
        assert_eq!(
            kinds(&groups),
            vec![(
                DesignErrorKind::OverSubscribed {
                    needed: 3,
                    available: 2
                },
                2,
                Site::Count(0)
            )]
        );
    }

    #[test]
    fn one_model_per_name() {
        let t = Term::seq(atom("a"), Term::atom("a", Expr::num(2.0)));
        assert_eq!(
            kinds(&t),
            vec![(
                DesignErrorKind::ConflictingAtom { name: "a".into() },
                2,
                Site::Head
            )]
        );
    }

    #[test]
    fn a_deep_design_is_checked_on_a_small_stack() {
        let mut t = atom("a");
        for _ in 0..100_000 {
            t = Term::pipe(atom("a"), t);
        }
        let problems = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let n = check(&t).len();
                std::mem::forget(t);
                n
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(problems, 0);
    }
}
