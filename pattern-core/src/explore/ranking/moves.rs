//! The moves of the ranking's search (the laws' rules and the moves that
//! add threads), applied at every sub-term without recursion, and the key
//! under which designs equal up to the laws' associativity and
//! commutativity are one.

use crate::grammar::{Scope, Semantics, fold};
use crate::laws::Rule;
use crate::{Atom, Count, Expr, MapReduceParams, Term};
use std::convert::Infallible;
use std::fmt;

/// One step of the ranking's search from a design to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A law as a rewrite rule: the threads stay, the time never grows
    /// ([`crate::laws::rewrite`]).
    Law(Rule),
    /// `seq(a, b) → pipe(a, b)`: the second part on threads of its own.
    SeqToPipe,
    /// `t → tpool[2](t)`, for a `t` that is no task pool.
    Pool,
    /// `tpool[k](t) → tpool[2k](t)`, for a fixed `k`.
    DoublePool,
    /// `tpool[k](t) → tpool[k+1](t)`, for a fixed `k`.
    GrowPool,
}

impl Move {
    /// The moves that add threads, in the order the search tries them.
    pub const PARALLELIZE: [Move; 4] = [
        Move::SeqToPipe,
        Move::Pool,
        Move::DoublePool,
        Move::GrowPool,
    ];

    /// The move applied at the root of `t`, if it matches.
    pub fn apply(self, t: &Term) -> Option<Term> {
        // One node rebuilt from its own parts: no walk.
        let parts = t.children();
        match (self, t, &parts[..]) {
            (Move::Law(rule), _, _) => rule.apply(t),
            (Move::SeqToPipe, Term::Seq(..), [a, b]) => {
                Some(Term::pipe((*a).clone(), (*b).clone()))
            }
            (Move::Pool, Term::Tpool(..), _) => None,
            (Move::Pool, _, _) => Some(Term::tpool(2u64, t.clone())),
            (Move::DoublePool, Term::Tpool(Count::Fixed(k), _), [body]) => {
                Some(Term::tpool(k.checked_mul(2)?, (*body).clone()))
            }
            (Move::GrowPool, Term::Tpool(Count::Fixed(k), _), [body]) => {
                Some(Term::tpool(k.checked_add(1)?, (*body).clone()))
            }
            _ => None,
        }
    }

    /// The move applied at every sub-term of `t` where it matches, one
    /// result per match, in pre-order ([`Term::rewrites`]; any depth).
    pub fn apply_everywhere(self, t: &Term) -> Vec<Term> {
        t.rewrites(|s| self.apply(s))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Law(rule) => write!(f, "{rule}"),
            Move::SeqToPipe => f.write_str("seq(a, b) → pipe(a, b)"),
            Move::Pool => f.write_str("t → tpool_2(t)"),
            Move::DoublePool => f.write_str("tpool_k(t) → tpool_{2k}(t)"),
            Move::GrowPool => f.write_str("tpool_k(t) → tpool_{k+1}(t)"),
        }
    }
}

/// `t` with its nested pools of fixed counts fused and its pools of one
/// dropped (the laws [`Rule::PoolFuse`] and [`Rule::PoolIdentity`], until
/// neither applies): the same time and threads, a smaller design.
pub fn fuse_pools(mut t: Term) -> Term {
    loop {
        let next = [Rule::PoolFuse, Rule::PoolIdentity]
            .into_iter()
            .find_map(|rule| rule.apply_everywhere(&t).into_iter().next());
        match next {
            Some(next) => t = next,
            None => return t,
        }
    }
}

/// The text of `t` with every chain of `seq` and of `pipe` flattened and
/// its stages sorted, and nested pools of fixed counts fused: equal for
/// designs equal up to the laws' associativity and commutativity (law (i),
/// law (ii), and the order of a sequence, which the time does not see) and
/// `tpool_n(tpool_k(t)) = tpool_{nk}(t)`, `tpool_1(t) = t`.
pub fn canonical_key(t: &Term) -> String {
    canonical_key_at(t, &[])
}

/// [`canonical_key`] with the symbolic counts in `counts` taken at their
/// values: `tpool[n](tpool[7](a))` at `n = 1` has the key of
/// `tpool[7](a)`, so that designs that differ only before their counts
/// are chosen rank once.
pub fn canonical_key_at(t: &Term, counts: &[(String, u64)]) -> String {
    fold(t, &mut CanonicalKey { counts })
        .unwrap_or_else(|never| match never {})
        .key
}

/// The semantics of [`canonical_key_at`]: the fold hands every chain of
/// one pattern over at once, so sorting its parts is all there is to do.
struct CanonicalKey<'a> {
    counts: &'a [(String, u64)],
}

impl CanonicalKey<'_> {
    /// A count with its value where `counts` gives one.
    fn count(&self, n: &Count) -> Count {
        match n {
            Count::Symbol(name) => self
                .counts
                .iter()
                .find(|(c, _)| c == name)
                .map_or_else(|| n.clone(), |&(_, k)| Count::Fixed(k)),
            Count::Fixed(_) => n.clone(),
        }
    }
}

/// A node's key, and for a pool of fixed count its count and its body's
/// key (to fuse it with a pool around it).
struct Key {
    key: String,
    pool: Option<(u64, String)>,
}

fn plain(key: String) -> Result<Key, Infallible> {
    Ok(Key { key, pool: None })
}

fn sorted(head: &str, parts: Vec<Key>) -> Result<Key, Infallible> {
    let mut parts: Vec<String> = parts.into_iter().map(|p| p.key).collect();
    parts.sort_unstable();
    plain(format!("{head}({})", parts.join(", ")))
}

impl Semantics for CanonicalKey<'_> {
    type Value = Key;
    type Error = Infallible;
    fn atom(&mut self, atom: &Atom, _: &Scope) -> Result<Key, Infallible> {
        plain(atom.name.clone())
    }
    fn seq(&mut self, parts: Vec<Key>, _: &Scope) -> Result<Key, Infallible> {
        sorted("seq", parts)
    }
    fn pipe(&mut self, stages: Vec<Key>, _: &Scope) -> Result<Key, Infallible> {
        sorted("pipe", stages)
    }
    fn tpool(&mut self, n: &Count, body: Key, _: &Scope) -> Result<Key, Infallible> {
        let n = &self.count(n);
        let Count::Fixed(k) = n else {
            return plain(format!("tpool[{n}]({})", body.key));
        };
        let (count, inner) = match body.pool {
            Some((j, inner)) if k.checked_mul(j).is_some() => (k * j, inner),
            Some((j, inner)) => return plain(format!("tpool[{k}](tpool[{j}]({inner}))")),
            None => (*k, body.key),
        };
        if count == 1 {
            return plain(inner);
        }
        Ok(Key {
            key: format!("tpool[{count}]({inner})"),
            pool: Some((count, inner)),
        })
    }
    fn map_reduce(
        &mut self,
        p: &MapReduceParams,
        map: Key,
        shuffle: &Atom,
        reduce: Key,
        _: &Scope,
    ) -> Result<Key, Infallible> {
        plain(format!(
            "mapreduce[{}, {}, {}, {}]({}, {}, {})",
            self.count(&p.m),
            self.count(&p.n),
            p.d,
            p.k,
            map.key,
            shuffle.name,
            reduce.key
        ))
    }
    fn on(&mut self, p: &Count, body: Key, _: &Scope) -> Result<Key, Infallible> {
        plain(format!("on[{}]({})", self.count(p), body.key))
    }
    fn par(&mut self, sizes: &[Count], parts: Vec<Key>, _: &Scope) -> Result<Key, Infallible> {
        let sizes: Vec<String> = sizes.iter().map(|s| self.count(s).to_string()).collect();
        let parts: Vec<String> = parts.into_iter().map(|p| p.key).collect();
        plain(format!("par[{}]({})", sizes.join(", "), parts.join(", ")))
    }
    fn groups(&mut self, s: &Count, body: Key, _: &Scope) -> Result<Key, Infallible> {
        plain(format!("groups[{}]({})", self.count(s), body.key))
    }
    fn redist(&mut self, cost: &Expr, a: Key, b: Key, _: &Scope) -> Result<Key, Infallible> {
        plain(format!("seq[redist = {cost}]({}, {})", a.key, b.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Design;

    fn term(text: &str) -> Term {
        Design::parse(text).unwrap().term().clone()
    }

    #[test]
    fn the_key_forgets_association_and_order_of_chains() {
        let defs = "a = x; b = 2*x; c = 3;";
        let one = term(&format!("{defs} pipe(a, pipe(seq(b, c), tpool[2](a)))"));
        let two = term(&format!("{defs} pipe(pipe(tpool[2](a), seq(c, b)), a)"));
        assert_eq!(canonical_key(&one), canonical_key(&two));
        let other = term(&format!("{defs} pipe(a, pipe(seq(b, c), tpool[3](a)))"));
        assert_ne!(canonical_key(&one), canonical_key(&other));
        // Nested pools of fixed counts are one pool; a pool of one is none.
        let nested = term(&format!("{defs} tpool[2](tpool[3](seq(a, tpool[1](b))))"));
        let fused = term(&format!("{defs} tpool[6](seq(b, a))"));
        assert_eq!(canonical_key(&nested), canonical_key(&fused));
        let symbolic = term(&format!("{defs} tpool[2](tpool[n](a))"));
        assert_eq!(canonical_key(&symbolic), "tpool[2](tpool[n](a))");
        // With its count chosen, it is the pool it then is.
        let at = [("n".to_string(), 3)];
        assert_eq!(canonical_key_at(&symbolic, &at), "tpool[6](a)");
        let once = term(&format!("{defs} tpool[n](tpool[6](seq(a, b)))"));
        assert_eq!(
            canonical_key_at(&once, &[("n".to_string(), 1)]),
            canonical_key(&fused)
        );
        // A pipe of seqs is not a seq of pipes.
        let mixed = term(&format!("{defs} seq(pipe(a, b), c)"));
        let swapped = term(&format!("{defs} pipe(seq(a, c), b)"));
        assert_ne!(canonical_key(&mixed), canonical_key(&swapped));
    }

    #[test]
    fn pools_fuse_until_none_nests() {
        let t = term("a = x; b = 1; seq(tpool[2](tpool[3](tpool[1](a))), tpool[1](b))");
        assert_eq!(fuse_pools(t).to_string(), "seq(tpool[6](a), b)");
        let symbolic = term("a = x; tpool[2](tpool[n](tpool[3](a)))");
        assert_eq!(
            fuse_pools(symbolic).to_string(),
            "tpool[2](tpool[n](tpool[3](a)))"
        );
    }

    #[test]
    fn moves_apply_at_every_matching_sub_term() {
        let t = term("a = x; b = 1; seq(a, seq(b, tpool[3](a)))");
        let pools: Vec<String> = Move::Pool
            .apply_everywhere(&t)
            .iter()
            .map(Term::to_string)
            .collect();
        // Every node but the pool itself; the text prints chains flat.
        assert_eq!(pools.len(), t.size() - 1);
        assert_eq!(pools[0], "tpool[2](seq(a, b, tpool[3](a)))");
        assert!(pools.contains(&"seq(a, b, tpool[3](tpool[2](a)))".to_string()));
        let grown: Vec<String> = Move::GrowPool
            .apply_everywhere(&t)
            .iter()
            .map(Term::to_string)
            .collect();
        assert_eq!(grown, ["seq(a, b, tpool[4](a))"]);
        let piped = Move::SeqToPipe.apply_everywhere(&t);
        assert_eq!(piped.len(), 2);
        assert_eq!(piped[0].to_string(), "pipe(a, seq(b, tpool[3](a)))");
        assert_eq!(piped[1].to_string(), "seq(a, pipe(b, tpool[3](a)))");
        let huge = Term::tpool(u64::MAX, Term::atom("a", Expr::var("x")));
        assert!(Move::DoublePool.apply(&huge).is_none());
        assert!(Move::GrowPool.apply(&huge).is_none());
    }
}
