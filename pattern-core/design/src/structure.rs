//! `Clone`, `PartialEq` and `Drop` of [`Term`] without recursion: a term
//! built in code may be any number of levels deep (a pipeline of 10^5
//! stages is a chain 10^5 deep), and the derived implementations would use
//! one stack frame per level.

use crate::term::{Atom, Term};
use pattern_expr::Expr;

/// A term with no parts and no allocation: what stands in a node whose
/// part has been taken out.
fn hole() -> Term {
    Term::Atom(Atom {
        name: String::new(),
        model: Expr::Num(0.0),
        bytes: None,
    })
}

impl Term {
    /// This node with `parts` as its parts (in the order of
    /// [`Term::children`], as many as it has).
    pub(crate) fn with_parts(&self, parts: Vec<Term>) -> Term {
        let mut parts = parts.into_iter();
        let mut next = || Box::new(parts.next().unwrap_or_else(hole));
        match self {
            Term::Atom(a) => Term::Atom(a.clone()),
            Term::Seq(..) => Term::Seq(next(), next()),
            Term::Pipe(..) => Term::Pipe(next(), next()),
            Term::Tpool(n, _) => Term::Tpool(n.clone(), next()),
            Term::MapReduce {
                params, shuffle, ..
            } => Term::MapReduce {
                params: params.clone(),
                map: next(),
                shuffle: shuffle.clone(),
                reduce: next(),
            },
            Term::On(p, _) => Term::On(p.clone(), next()),
            Term::Groups(s, _) => Term::Groups(s.clone(), next()),
            Term::Par(sizes, _) => Term::Par(sizes.clone(), parts.collect()),
            Term::Redist(cost, ..) => Term::Redist(cost.clone(), next(), next()),
        }
    }

    /// Whether two nodes are equal apart from their parts (and have as many
    /// parts).
    fn same_node(&self, other: &Term) -> bool {
        match (self, other) {
            (Term::Atom(a), Term::Atom(b)) => a == b,
            (Term::Seq(..), Term::Seq(..)) | (Term::Pipe(..), Term::Pipe(..)) => true,
            (Term::Tpool(n, _), Term::Tpool(m, _))
            | (Term::On(n, _), Term::On(m, _))
            | (Term::Groups(n, _), Term::Groups(m, _)) => n == m,
            (
                Term::MapReduce {
                    params: p,
                    shuffle: s,
                    ..
                },
                Term::MapReduce {
                    params: q,
                    shuffle: t,
                    ..
                },
            ) => p == q && s == t,
            (Term::Par(s, a), Term::Par(t, b)) => s == t && a.len() == b.len(),
            (Term::Redist(c, ..), Term::Redist(d, ..)) => c == d,
            _ => false,
        }
    }

    /// Moves the parts that have parts of their own out to `out`, leaving
    /// holes: what [`Drop`] unlinks, one level at a time.
    fn detach(&mut self, out: &mut Vec<Term>) {
        let mut take = |part: &mut Box<Term>| {
            if !matches!(**part, Term::Atom(_)) {
                out.push(std::mem::replace(&mut **part, hole()));
            }
        };
        match self {
            Term::Atom(_) => {}
            Term::Seq(a, b) | Term::Pipe(a, b) | Term::Redist(_, a, b) => {
                take(a);
                take(b);
            }
            Term::MapReduce { map, reduce, .. } => {
                take(map);
                take(reduce);
            }
            Term::Tpool(_, t) | Term::On(_, t) | Term::Groups(_, t) => take(t),
            Term::Par(_, parts) => {
                if parts.iter().any(|p| !matches!(p, Term::Atom(_))) {
                    out.append(parts);
                }
            }
        }
    }
}

impl Clone for Term {
    /// A deep copy, built bottom-up with an explicit stack.
    fn clone(&self) -> Term {
        enum Step<'t> {
            Enter(&'t Term),
            Exit(&'t Term, usize),
        }
        let mut steps = vec![Step::Enter(self)];
        let mut done: Vec<Term> = Vec::new();
        while let Some(step) = steps.pop() {
            match step {
                Step::Enter(Term::Atom(a)) => done.push(Term::Atom(a.clone())),
                Step::Enter(node) => {
                    let parts = node.children();
                    steps.push(Step::Exit(node, parts.len()));
                    steps.extend(parts.into_iter().rev().map(Step::Enter));
                }
                Step::Exit(node, n) => {
                    let parts = done.split_off(done.len() - n);
                    done.push(node.with_parts(parts));
                }
            }
        }
        done.pop().unwrap_or_else(hole)
    }
}

impl PartialEq for Term {
    /// Structural equality, node by node with an explicit stack.
    fn eq(&self, other: &Term) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            if !a.same_node(b) {
                return false;
            }
            pairs.extend(a.children().into_iter().zip(b.children()));
        }
        true
    }
}

impl Drop for Term {
    /// Unlinks the parts one level at a time onto a heap stack, so that no
    /// drop recurses more than one level.
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.detach(&mut pending);
        while let Some(mut part) = pending.pop() {
            part.detach(&mut pending);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::term::tests::{atom, hist};
    use crate::term::{Count, Term};
    use pattern_expr::Expr;

    /// One term of every pattern.
    fn every_pattern() -> Term {
        Term::Redist(
            Expr::var("r"),
            Box::new(Term::seq(
                Term::pipe(atom("a"), Term::tpool(3u64, atom("b"))),
                hist(),
            )),
            Box::new(Term::On(
                8u64.into(),
                Box::new(Term::Par(
                    vec![4u64.into(), "q".into()],
                    vec![Term::Groups(2u64.into(), Box::new(atom("c"))), atom("d")],
                )),
            )),
        )
    }

    #[test]
    fn a_clone_is_equal_and_independent() {
        let t = every_pattern();
        let copy = t.clone();
        assert!(copy == t);
        assert_eq!(copy.to_string(), t.to_string());
        assert_eq!(copy.size(), 15);
        assert_eq!(atom("a").clone(), atom("a"));
    }

    #[test]
    fn every_difference_is_seen() {
        let t = every_pattern();
        // Each node changed in turn: another count, model or pattern.
        let changed: Vec<Term> = vec![
            Term::seq(atom("a"), atom("b")),
            Term::pipe(atom("a"), atom("b")),
            Term::tpool(2u64, atom("a")),
            Term::tpool(3u64, atom("a")),
            Term::On(2u64.into(), Box::new(atom("a"))),
            Term::Groups(2u64.into(), Box::new(atom("a"))),
            Term::Par(vec![1u64.into()], vec![atom("a")]),
            Term::Par(vec![1u64.into(), 1u64.into()], vec![atom("a")]),
            Term::Redist(Expr::num(1.0), Box::new(atom("a")), Box::new(atom("a"))),
            Term::atom("a", Expr::num(1.0)),
            atom("b"),
            hist(),
        ];
        for (i, x) in changed.iter().enumerate() {
            for (j, y) in changed.iter().enumerate() {
                assert_eq!(x == y, i == j, "{x} vs {y}");
            }
            assert!(*x != t);
        }
        let mut other = hist();
        if let Term::MapReduce { params, .. } = &mut other {
            params.n = Count::Fixed(5);
        }
        assert!(other != hist());
        let deeper = Term::seq(atom("a"), Term::seq(atom("b"), atom("c")));
        let shallower = Term::seq(atom("a"), Term::seq(atom("b"), atom("d")));
        assert!(deeper != shallower);
    }

    #[test]
    fn deep_terms_clone_compare_and_drop_on_a_small_stack() {
        let ok = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(|| {
                let mut t = atom("a");
                for i in 0..200_000u64 {
                    t = match i % 4 {
                        0 => Term::pipe(t, atom("b")),
                        1 => Term::tpool(2u64, t),
                        2 => Term::Par(vec![1u64.into(), 1u64.into()], vec![atom("c"), t]),
                        _ => Term::seq(atom("d"), t),
                    };
                }
                let copy = t.clone();
                let same = copy == t;
                let mut other = atom("a");
                for _ in 0..200_000 {
                    other = Term::pipe(other, atom("b"));
                }
                let differ = other != t;
                same && differ
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(ok);
    }
}
