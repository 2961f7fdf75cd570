//! The counts of a design, checked to stay exact: every count at most
//! [`MAX_COUNT`], and the threads each node occupies (what the footprint
//! semantics and the executor compute from the counts) too. A model holds
//! counts as `f64`, exact up to 2^53; past that a count, or a product of
//! counts, would change silently.
//!
//! The threads follow the footprint: an atom 1, `seq` its widest part, `pipe`
//! the sum of its stages, `tpool[n]` `n` times its body, a mapReduce `m·n`
//! times its widest phase, `on[p]` `p`, `par` the sum of its sizes. A named
//! count is taken as 1 (counts are positive), so a design is rejected only
//! when it overflows whatever its names stand for.

use crate::error::{DesignErrorKind, Problem, Site};
use crate::term::{Count, Term};

/// The largest count (and thread total) a design may have: 2^53, the
/// largest integer up to which every integer is an `f64`.
pub const MAX_COUNT: u64 = 1 << 53;

/// The threads of a node: at least `value`; `exact` unless a named count
/// was taken as 1.
#[derive(Clone, Copy)]
struct Threads {
    value: u64,
    exact: bool,
}

impl Threads {
    const ONE: Threads = Threads {
        value: 1,
        exact: true,
    };
}

/// A count as threads: `None` for a count too large (reported on its own).
fn count(c: &Count) -> Option<Threads> {
    match c {
        Count::Fixed(k) if *k > MAX_COUNT => None,
        Count::Fixed(k) => Some(Threads {
            value: *k,
            exact: true,
        }),
        Count::Symbol(_) => Some(Threads {
            value: 1,
            exact: false,
        }),
    }
}

/// Combines threads with `op` (checked), or says what overflowed.
struct Total {
    op: &'static str,
    acc: Threads,
}

impl Total {
    fn start(op: &'static str, first: Threads) -> Total {
        Total { op, acc: first }
    }

    /// Adds (`+`) or multiplies (`·`) `next` in; the overflow if the total
    /// passes [`MAX_COUNT`].
    fn with(&mut self, next: Threads, what: &str) -> Result<(), DesignErrorKind> {
        let (a, b) = (u128::from(self.acc.value), u128::from(next.value));
        let total = if self.op == "+" { a + b } else { a * b };
        let exact = self.acc.exact && next.exact;
        if total > u128::from(MAX_COUNT) {
            let guess = if exact {
                ""
            } else {
                " (a named count taken as 1)"
            };
            return Err(DesignErrorKind::CountOverflow {
                what: format!("{what}{guess}, {} {} {}", a, self.op, b),
                total,
            });
        }
        self.acc = Threads {
            value: u64::try_from(total).unwrap_or(MAX_COUNT),
            exact,
        };
        Ok(())
    }
}

/// The counts above [`MAX_COUNT`] and the nodes whose threads pass it, in
/// pre-order of the nodes (each count and node at most once: a node over
/// a count or a total already reported is not reported again).
pub(crate) fn check(term: &Term) -> Vec<Problem> {
    enum Step<'t> {
        Enter(&'t Term),
        Exit(&'t Term, usize, usize),
    }
    let mut problems = Vec::new();
    let mut steps = vec![Step::Enter(term)];
    let mut values: Vec<Option<Threads>> = Vec::new();
    let mut index = 0usize;
    while let Some(step) = steps.pop() {
        match step {
            Step::Enter(node) => {
                let here = index;
                index += 1;
                for (i, c) in node.counts().into_iter().enumerate() {
                    match c {
                        Count::Fixed(k) if *k > MAX_COUNT => problems.push(Problem {
                            kind: DesignErrorKind::CountTooLarge { count: *k },
                            node: here,
                            site: Site::Count(i),
                        }),
                        _ => {}
                    }
                }
                let parts = node.children();
                steps.push(Step::Exit(node, here, parts.len()));
                steps.extend(parts.into_iter().rev().map(Step::Enter));
            }
            Step::Exit(node, here, n) => {
                let parts = values.split_off(values.len() - n);
                let (value, problem) = match threads(node, parts) {
                    Ok(value) => (value, None),
                    Err((kind, site)) => (
                        None,
                        Some(Problem {
                            kind,
                            node: here,
                            site,
                        }),
                    ),
                };
                problems.extend(problem);
                values.push(value);
            }
        }
    }
    problems.sort_by_key(|p| p.node);
    problems
}

/// The threads of `node` from its parts' (`None`: unknown, already
/// reported); the overflow and where, if they pass [`MAX_COUNT`].
fn threads(
    node: &Term,
    parts: Vec<Option<Threads>>,
) -> Result<Option<Threads>, (DesignErrorKind, Site)> {
    let head = |kind| (kind, Site::Head);
    let widest = |parts: &[Option<Threads>]| -> Option<Threads> {
        let mut out = Threads {
            value: 0,
            exact: true,
        };
        for t in parts {
            let t = (*t)?;
            out.value = out.value.max(t.value);
            out.exact &= t.exact;
        }
        Some(out)
    };
    Ok(match node {
        Term::Atom(_) => Some(Threads::ONE),
        Term::Seq(..) | Term::Redist(..) => widest(&parts),
        Term::Pipe(..) => {
            let (Some(a), Some(b)) = (parts[0], parts[1]) else {
                return Ok(None);
            };
            let mut total = Total::start("+", a);
            total.with(b, "the threads of the stages").map_err(head)?;
            Some(total.acc)
        }
        Term::Tpool(n, _) => {
            let (Some(n), Some(body)) = (count(n), parts[0]) else {
                return Ok(None);
            };
            let mut total = Total::start("·", n);
            total.with(body, "the threads of the pool").map_err(head)?;
            Some(total.acc)
        }
        Term::MapReduce { params, .. } => {
            let (Some(m), Some(n), Some(phase)) =
                (count(&params.m), count(&params.n), widest(&parts))
            else {
                return Ok(None);
            };
            let mut total = Total::start("·", m);
            total.with(n, "the workers").map_err(head)?;
            total
                .with(phase, "the threads of the workers")
                .map_err(head)?;
            Some(total.acc)
        }
        Term::On(p, _) => count(p),
        Term::Groups(..) => Some(Threads {
            value: 1,
            exact: false,
        }),
        Term::Par(sizes, _) => {
            let sizes: Option<Vec<Threads>> = sizes.iter().map(count).collect();
            let Some((first, rest)) = sizes.as_deref().and_then(|s| s.split_first()) else {
                return Ok(None);
            };
            let mut total = Total::start("+", *first);
            for size in rest {
                total
                    .with(*size, "the group sizes")
                    .map_err(|kind| (kind, Site::Params))?;
            }
            Some(total.acc)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::MapReduceParams;
    use crate::term::tests::{atom, hist};
    use pattern_expr::Expr;

    fn kinds(t: &Term) -> Vec<(String, usize, Site)> {
        check(t)
            .into_iter()
            .map(|p| (p.kind.to_string(), p.node, p.site))
            .collect()
    }

    const LIMIT: &str =
        "more than 9007199254740992 = 2^53, the largest count a model holds exactly";

    #[test]
    fn counts_up_to_two_to_the_53_are_exact() {
        let ok = Term::pipe(
            Term::tpool(MAX_COUNT / 2, atom("a")),
            Term::tpool(MAX_COUNT / 4, Term::tpool(2u64, atom("a"))),
        );
        assert!(check(&ok).is_empty());
        assert!(check(&Term::tpool(MAX_COUNT, atom("a"))).is_empty());
        assert!(check(&Term::tpool(MAX_COUNT, hist())).is_empty());
        let named = Term::pipe(
            Term::tpool("n", atom("a")),
            Term::tpool(MAX_COUNT - 1, atom("a")),
        );
        assert!(check(&named).is_empty());
    }

    #[test]
    fn a_count_too_large_is_named() {
        let t = Term::seq(atom("a"), Term::tpool(MAX_COUNT + 1, atom("a")));
        assert_eq!(
            kinds(&t),
            vec![(
                format!("a count of 9007199254740993 is {LIMIT}"),
                2,
                Site::Count(0)
            )]
        );
        let par = Term::Par(
            vec![u64::MAX.into(), 1u64.into()],
            vec![atom("a"), atom("a")],
        );
        assert_eq!(
            kinds(&par),
            vec![(
                format!("a count of 18446744073709551615 is {LIMIT}"),
                0,
                Site::Count(0)
            )]
        );
    }

    #[test]
    fn totals_too_large_are_named_with_their_counts() {
        let half = MAX_COUNT / 2 + 1;
        let par = Term::Par(vec![half.into(), half.into()], vec![atom("a"), atom("a")]);
        assert_eq!(
            kinds(&par),
            vec![(
                format!(
                    "the group sizes, 4503599627370497 + 4503599627370497, come to 9007199254740994, {LIMIT}"
                ),
                0,
                Site::Params
            )]
        );
        let pools = Term::tpool(1u64 << 30, Term::tpool(1u64 << 24, atom("a")));
        assert_eq!(
            kinds(&pools),
            vec![(
                format!(
                    "the threads of the pool, 1073741824 · 16777216, come to 18014398509481984, {LIMIT}"
                ),
                0,
                Site::Head
            )]
        );
        // Reported once, where it first overflows.
        let outer = Term::tpool(2u64, Term::pipe(pools.clone(), atom("b")));
        assert_eq!(kinds(&outer).len(), 1);
        assert_eq!(kinds(&outer)[0].1, 2);
        let stages = Term::pipe(
            Term::tpool(MAX_COUNT, atom("a")),
            Term::tpool("n", atom("a")),
        );
        assert_eq!(
            kinds(&stages),
            vec![(
                format!(
                    "the threads of the stages (a named count taken as 1), 9007199254740992 + 1, come to 9007199254740993, {LIMIT}"
                ),
                0,
                Site::Head
            )]
        );
        let mr = Term::map_reduce(
            MapReduceParams::new(1u64 << 27, 1u64 << 27, Expr::var("x"), Expr::num(1.0)),
            atom("m"),
            crate::term::Atom::new("s", Expr::num(0.0)),
            atom("r"),
        );
        assert_eq!(
            kinds(&mr),
            vec![(
                format!("the workers, 134217728 · 134217728, come to 18014398509481984, {LIMIT}"),
                0,
                Site::Head
            )]
        );
    }
}
