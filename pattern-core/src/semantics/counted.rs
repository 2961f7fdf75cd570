//! The footprint of a design at a point in whole numbers: the threads and
//! nodes it occupies counted with checked integer arithmetic from its
//! counts, never through a floating-point model, so that
//! `tpool[123456789012345](a)` has 123456789012345 threads in every report.
//! The same rules as [`super::Footprint`], which stays the symbolic one.

use super::footprint::{ResourceCounts, ResourceError};
use crate::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, fold};
use crate::{Expr, Term};

/// The largest whole number a float holds exactly: a count bound at a
/// point (an `f64`) is exact up to it.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// [`ResourceCounts`] of `term` with its named counts (and `p`, the
/// processors of `groups`) bound by `at`: exact, each at most `u64::MAX`.
pub fn count_resources(term: &Term, at: &[(&str, f64)]) -> Result<ResourceCounts, ResourceError> {
    let c = fold(term, &mut Counted { at })?;
    Ok(ResourceCounts {
        threads: c.threads,
        nodes: c.nodes,
        threads_per_node: c.per_node,
    })
}

/// The footprint semantics in whole numbers.
struct Counted<'a> {
    at: &'a [(&'a str, f64)],
}

#[derive(Clone, Copy)]
struct Usage {
    threads: u64,
    nodes: u64,
    per_node: u64,
}

const ONE: Usage = Usage {
    threads: 1,
    nodes: 1,
    per_node: 1,
};

/// `what` past `u64::MAX`.
fn overflow(what: &'static str) -> ResourceError {
    ResourceError::NotACount {
        what,
        value: f64::INFINITY,
    }
}

fn add(a: u64, b: u64, what: &'static str) -> Result<u64, ResourceError> {
    a.checked_add(b).ok_or_else(|| overflow(what))
}

fn mul(a: u64, b: u64, what: &'static str) -> Result<u64, ResourceError> {
    a.checked_mul(b).ok_or_else(|| overflow(what))
}

impl Counted<'_> {
    /// The value of a bound name: a whole number from 1 to 2^53.
    fn bound(&self, name: &str) -> Result<u64, ResourceError> {
        let value = Expr::var(name).eval(self.at)?;
        if (1.0..=MAX_EXACT).contains(&value) && value.fract() == 0.0 {
            // A whole number in range: exact.
            Ok(value as u64)
        } else {
            Err(ResourceError::NotACount {
                what: "threads",
                value,
            })
        }
    }

    fn count(&self, c: &Count) -> Result<u64, ResourceError> {
        match c {
            Count::Fixed(k) => Ok(*k),
            Count::Symbol(name) => self.bound(name),
        }
    }

    /// One thread on each of `processors` nodes.
    fn processors(processors: u64) -> Usage {
        Usage {
            threads: processors,
            nodes: processors,
            per_node: 1,
        }
    }

    /// Parts one after the other (`sum == false`: the widest) or at once
    /// (their threads add up); the nodes of the widest.
    fn combine(parts: &[Usage], sum: bool) -> Result<Usage, ResourceError> {
        let mut out = Usage {
            threads: 0,
            nodes: 0,
            per_node: 0,
        };
        for p in parts {
            out.nodes = out.nodes.max(p.nodes);
            if sum {
                out.threads = add(out.threads, p.threads, "threads")?;
                out.per_node = add(out.per_node, p.per_node, "threads per node")?;
            } else {
                out.threads = out.threads.max(p.threads);
                out.per_node = out.per_node.max(p.per_node);
            }
        }
        Ok(out)
    }
}

impl Semantics for Counted<'_> {
    type Value = Usage;
    type Error = ResourceError;

    fn atom(&mut self, _: &Atom, _: &Scope) -> Result<Usage, ResourceError> {
        Ok(ONE)
    }

    fn seq(&mut self, parts: Vec<Usage>, _: &Scope) -> Result<Usage, ResourceError> {
        Counted::combine(&parts, false)
    }

    fn pipe(&mut self, stages: Vec<Usage>, _: &Scope) -> Result<Usage, ResourceError> {
        Counted::combine(&stages, true)
    }

    fn tpool(&mut self, n: &Count, body: Usage, _: &Scope) -> Result<Usage, ResourceError> {
        let n = self.count(n)?;
        Ok(Usage {
            threads: mul(n, body.threads, "threads")?,
            nodes: body.nodes,
            per_node: mul(n, body.per_node, "threads per node")?,
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Usage,
        _: &Atom,
        reduce: Usage,
        _: &Scope,
    ) -> Result<Usage, ResourceError> {
        let (m, n) = (self.count(&params.m)?, self.count(&params.n)?);
        let per_worker = map.threads.max(reduce.threads);
        Ok(Usage {
            threads: mul(mul(m, n, "threads")?, per_worker, "threads")?,
            nodes: m,
            per_node: mul(n, per_worker, "threads per node")?,
        })
    }

    fn on(&mut self, p: &Count, _: Usage, _: &Scope) -> Result<Usage, ResourceError> {
        Ok(Counted::processors(self.count(p)?))
    }

    fn par(&mut self, sizes: &[Count], _: Vec<Usage>, _: &Scope) -> Result<Usage, ResourceError> {
        let mut total = 0u64;
        for size in sizes {
            total = add(total, self.count(size)?, "threads")?;
        }
        Ok(Counted::processors(total))
    }

    fn groups(&mut self, s: &Count, _: Usage, _: &Scope) -> Result<Usage, ResourceError> {
        // `s` groups of floor(p/s) processors.
        let s = self.count(s)?;
        let p = self.bound("p")?;
        Ok(Counted::processors(mul(s, p / s, "threads")?))
    }

    fn redist(&mut self, _: &Expr, a: Usage, b: Usage, _: &Scope) -> Result<Usage, ResourceError> {
        Counted::combine(&[a, b], false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Design;
    use proptest::prelude::*;

    fn counts(text: &str, at: &[(&str, f64)]) -> (u64, u64, u64) {
        let d = Design::parse(text).unwrap();
        let r = count_resources(d.term(), at).unwrap();
        (r.threads, r.nodes, r.threads_per_node)
    }

    #[test]
    fn counts_are_exact() {
        assert_eq!(
            counts("a = x; tpool[123456789012345](a)", &[]),
            (123456789012345, 1, 123456789012345)
        );
        assert_eq!(
            counts("a = x; pipe(tpool[9007199254740991](a), a)", &[]),
            (9007199254740992, 1, 9007199254740992)
        );
        assert_eq!(
            counts(
                "a = x; mapreduce[m = m, n = n, d = x, k = 1](a, a, a)",
                &[("m", 4.0), ("n", 8.0)]
            ),
            (32, 4, 8)
        );
        assert_eq!(counts("a = x; groups[3](a)", &[("p", 10.0)]), (9, 9, 1));
        assert_eq!(counts("a = x; on[8](par[2, 5](a, a))", &[]), (8, 8, 1));
    }

    #[test]
    fn unbound_and_bad_counts_are_errors() {
        let d = Design::parse("a = x; tpool[n](a)").unwrap();
        assert!(matches!(
            count_resources(d.term(), &[]),
            Err(ResourceError::Eval(_))
        ));
        for bad in [0.0, -1.0, 2.5, 1e17] {
            assert!(
                matches!(
                    count_resources(d.term(), &[("n", bad)]),
                    Err(ResourceError::NotACount { .. })
                ),
                "{bad}"
            );
        }
    }

    proptest! {
        /// Up to 2^53 the exact counts agree with the symbolic footprint.
        #[test]
        fn agree_with_the_footprint(a in 1u64..1000, b in 1u64..1000, n in 1u64..1 << 20) {
            let d = Design::parse(&format!(
                "s = x; pipe(tpool[{a}](s), seq(tpool[n](s), tpool[{b}](pipe(s, s))))"
            )).unwrap();
            let at = [("n", n as f64)];
            let exact = count_resources(d.term(), &at).unwrap();
            prop_assert_eq!(exact, d.resources().at(&at).unwrap());
            prop_assert_eq!(exact.threads, a + n.max(2 * b));
        }
    }
}
