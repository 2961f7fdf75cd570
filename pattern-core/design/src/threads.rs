//! A design's threads, defined once: the rule of each pattern over a
//! [`ThreadCount`], the number they are counted in. The footprint semantics
//! counts them as expressions (symbolic counts stay symbols); the grammar's
//! check counts them as whole numbers, so that every count and every node's
//! threads stay at most [`MAX_COUNT`]: a model holds counts as `f64`, exact
//! up to 2^53, and past that a count, or a product of counts, would change
//! silently.
//!
//! The rules: an atom 1, `seq` its widest part, `pipe` the sum of its
//! stages, `tpool[n]` `n` times its body, a mapReduce `m·n` times its
//! widest phase, `on[p]` `p`, `par` the sum of its sizes, `groups[s]`
//! `s·floor(p/s)`, `seq[redist]` its wider side. The check takes a named
//! count as 1 (counts are positive) and `groups[s]` as at least 1, so a
//! design is rejected only when it overflows whatever its names stand for.
//!
//! The check is a [`Semantics`] of the one fold, folded with `seq` and
//! `pipe` nested as the term writes them, so that an
//! overflow is reported at the node where it arises.

use crate::error::{DesignErrorKind, Problem, Site};
use crate::fold::{Scope, Semantics, fold_nested};
use crate::term::{Atom, Count, MapReduceParams, Term};
use pattern_expr::Expr;
use std::convert::Infallible;

/// The largest count (and thread total) a design may have: 2^53, the
/// largest integer up to which every integer is an `f64`.
pub const MAX_COUNT: u64 = 1 << 53;

/// A number of threads: what [`pipe`], [`tpool`] and the other rules of
/// this module count in.
pub trait ThreadCount: Sized {
    /// Why a total cannot be counted (an overflow).
    type Error;
    /// One thread.
    fn one() -> Self;
    /// A pattern's count as a number of threads.
    fn count(c: &Count) -> Self;
    /// Parts one after the other: the widest.
    fn widest(parts: Vec<Self>) -> Self;
    /// Parts at once: their sum, `what` naming them at `site` in an
    /// overflow.
    fn sum(parts: Vec<Self>, what: &'static str, site: Site) -> Result<Self, Self::Error>;
    /// The product of `factors`, the `i+1`-th named `what[i]` in an
    /// overflow.
    fn product(factors: Vec<Self>, what: &[&'static str]) -> Result<Self, Self::Error>;
    /// The processors of `groups[s]` inside `on[p]`: `s·floor(p/s)`.
    fn groups(s: &Count) -> Self;
}

/// An atom's threads: one.
pub fn atom<N: ThreadCount>() -> N {
    N::one()
}

/// `seq`'s threads: its widest part (the parts run one after the other).
pub fn seq<N: ThreadCount>(parts: Vec<N>) -> N {
    N::widest(parts)
}

/// `pipe`'s threads: its stages' threads together.
pub fn pipe<N: ThreadCount>(stages: Vec<N>) -> Result<N, N::Error> {
    N::sum(stages, "the threads of the stages", Site::Head)
}

/// `tpool[n]`'s threads: `n` times its body's.
pub fn tpool<N: ThreadCount>(n: &Count, body: N) -> Result<N, N::Error> {
    N::product(vec![N::count(n), body], &["the threads of the pool"])
}

/// A mapReduce's threads: `m·n` workers, each as wide as its wider phase.
pub fn map_reduce<N: ThreadCount>(
    params: &MapReduceParams,
    map: N,
    reduce: N,
) -> Result<N, N::Error> {
    let factors = vec![
        N::count(&params.m),
        N::count(&params.n),
        N::widest(vec![map, reduce]),
    ];
    N::product(factors, &["the workers", "the threads of the workers"])
}

/// `on[p]`'s threads: one on each of its `p` processors.
pub fn on<N: ThreadCount>(p: &Count) -> N {
    N::count(p)
}

/// `par`'s threads: one on each processor of its groups.
pub fn par<N: ThreadCount>(sizes: &[Count]) -> Result<N, N::Error> {
    N::sum(
        sizes.iter().map(N::count).collect(),
        "the group sizes",
        Site::Params,
    )
}

/// `groups[s]`'s threads: one on each processor of its groups.
pub fn groups<N: ThreadCount>(s: &Count) -> N {
    N::groups(s)
}

/// `seq[redist]`'s threads: its wider side (the sides run one after the
/// other).
pub fn redist<N: ThreadCount>(a: N, b: N) -> N {
    N::widest(vec![a, b])
}

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
    let mut checks = Checks::default();
    let Ok(_) = fold_nested(term, &mut checks);
    let mut problems = checks.problems;
    problems.sort_by_key(|p| p.node);
    problems
}

/// The threads of each node as a semantics (`None`: unknown, already
/// reported), with the problems found on the way.
#[derive(Default)]
struct Checks {
    problems: Vec<Problem>,
}

impl Checks {
    /// Reports each of a node's counts above [`MAX_COUNT`].
    fn counts<'c>(&mut self, counts: impl IntoIterator<Item = &'c Count>, scope: &Scope) {
        for (i, c) in counts.into_iter().enumerate() {
            if let Count::Fixed(k) = c
                && *k > MAX_COUNT
            {
                self.problems.push(Problem {
                    kind: DesignErrorKind::CountTooLarge { count: *k },
                    node: scope.node,
                    site: Site::Count(i),
                });
            }
        }
    }

    /// The node's threads, or `None` with its overflow reported.
    fn total(
        &mut self,
        threads: Result<Option<Threads>, (DesignErrorKind, Site)>,
        scope: &Scope,
    ) -> Option<Threads> {
        threads.unwrap_or_else(|(kind, site)| {
            self.problems.push(Problem {
                kind,
                node: scope.node,
                site,
            });
            None
        })
    }
}

type Checked = Result<Option<Threads>, Infallible>;

impl Semantics for Checks {
    type Value = Option<Threads>;
    type Error = Infallible;

    fn atom(&mut self, _: &Atom, _: &Scope) -> Checked {
        Ok(atom())
    }

    fn seq(&mut self, parts: Vec<Option<Threads>>, _: &Scope) -> Checked {
        Ok(seq(parts))
    }

    fn pipe(&mut self, stages: Vec<Option<Threads>>, scope: &Scope) -> Checked {
        Ok(self.total(pipe(stages), scope))
    }

    fn tpool(&mut self, n: &Count, body: Option<Threads>, scope: &Scope) -> Checked {
        self.counts([n], scope);
        Ok(self.total(tpool(n, body), scope))
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Option<Threads>,
        _: &Atom,
        reduce: Option<Threads>,
        scope: &Scope,
    ) -> Checked {
        self.counts([&params.m, &params.n], scope);
        Ok(self.total(map_reduce(params, map, reduce), scope))
    }

    fn on(&mut self, p: &Count, _: Option<Threads>, scope: &Scope) -> Checked {
        self.counts([p], scope);
        Ok(on(p))
    }

    fn par(&mut self, sizes: &[Count], _: Vec<Option<Threads>>, scope: &Scope) -> Checked {
        self.counts(sizes, scope);
        Ok(self.total(par(sizes), scope))
    }

    fn groups(&mut self, s: &Count, _: Option<Threads>, scope: &Scope) -> Checked {
        self.counts([s], scope);
        Ok(groups(s))
    }

    fn redist(&mut self, _: &Expr, a: Option<Threads>, b: Option<Threads>, _: &Scope) -> Checked {
        Ok(redist(a, b))
    }
}

/// Whole threads, checked: `None` where a count or a total is unknown
/// (too large, reported on its own).
impl ThreadCount for Option<Threads> {
    type Error = (DesignErrorKind, Site);

    fn one() -> Self {
        Some(Threads::ONE)
    }

    fn count(c: &Count) -> Self {
        count(c)
    }

    fn widest(parts: Vec<Self>) -> Self {
        widest(&parts)
    }

    fn sum(parts: Vec<Self>, what: &'static str, site: Site) -> Result<Self, Self::Error> {
        added(&parts, what, site)
    }

    fn product(factors: Vec<Self>, what: &[&'static str]) -> Result<Self, Self::Error> {
        multiplied(&factors, what)
    }

    /// At least 1, whatever `p` stands for.
    fn groups(_: &Count) -> Self {
        Some(Threads {
            value: 1,
            exact: false,
        })
    }
}

/// The widest of parts one after the other; `None` if one is unknown.
fn widest(parts: &[Option<Threads>]) -> Option<Threads> {
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
}

/// The sum of parts at once (`what` names them in an overflow at `site`);
/// `None` if one is unknown or there is none.
fn added(
    parts: &[Option<Threads>],
    what: &str,
    site: Site,
) -> Result<Option<Threads>, (DesignErrorKind, Site)> {
    let parts: Option<Vec<Threads>> = parts.iter().copied().collect();
    let Some((first, rest)) = parts.as_deref().and_then(|p| p.split_first()) else {
        return Ok(None);
    };
    let mut total = Total::start("+", *first);
    for part in rest {
        total.with(*part, what).map_err(|kind| (kind, site))?;
    }
    Ok(Some(total.acc))
}

/// The product of `factors`, the product with the `i+1`-th named `what[i]`
/// in an overflow; `None` if one is unknown.
fn multiplied(
    factors: &[Option<Threads>],
    what: &[&str],
) -> Result<Option<Threads>, (DesignErrorKind, Site)> {
    let factors: Option<Vec<Threads>> = factors.iter().copied().collect();
    let Some((first, rest)) = factors.as_deref().and_then(|f| f.split_first()) else {
        return Ok(None);
    };
    let mut total = Total::start("·", *first);
    for (factor, what) in rest.iter().zip(what) {
        total
            .with(*factor, what)
            .map_err(|kind| (kind, Site::Head))?;
    }
    Ok(Some(total.acc))
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

    #[test]
    fn totals_deep_in_a_term_are_found_through_the_fold_on_a_small_stack() {
        // seq(a, seq(a, .. pools)): the pools at pre-order index 2·depth.
        let depth = 100_000;
        let mut t = Term::tpool(1u64 << 30, Term::tpool(1u64 << 24, atom("a")));
        for _ in 0..depth {
            t = Term::seq(atom("a"), t);
        }
        let found = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let found = kinds(&t);
                std::mem::forget(t);
                found
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].1, found[0].2), (2 * depth, Site::Head));
    }
}
