//! One way to give a design a meaning: a [`Semantics`] says what each
//! pattern does with the meanings of its parts, and [`fold`] walks the term
//! once, bottom-up, without recursion. Throughput, latency, resources,
//! machine profiles, per-hop costs, queueing and simulation are all
//! semantics; none of them walks a term itself.

use crate::term::{Atom, Count, MapReduceParams, Term};
use pattern_expr::Expr;

/// Where a node runs, known from the patterns around it (computed by
/// [`fold`] top-down and handed to every method).
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Whether other processor groups run at the same time (inside a `par`
    /// of two or more parts, or `groups[s]` with `s` other than 1).
    pub concurrent: bool,
    /// The processors of the whole program: the count of the outermost
    /// `on[p]`, `None` when there is none.
    pub processors: Option<Count>,
    /// How deep in task pools the node is (0 outside every pool).
    pub pools: usize,
    /// Whether the element the node works on was just handed over by the
    /// pipeline stage before it, which ran on another thread: a stage of a
    /// `pipe` after its first, and every part of such a stage, outside
    /// processor groups (`on`, `par`, `groups`), whose elements come over
    /// the network. The caches may still hold what that stage wrote; a
    /// machine's memory says at what bandwidth such an element moves.
    pub handed: bool,
    /// The node's index in [`Term::preorder`], known only to the grammar's
    /// own checks, which fold chains as the term nests them
    /// ([`fold_nested`]).
    pub(crate) node: usize,
}

/// Scopes are equal where their nodes run alike, wherever the nodes are.
impl PartialEq for Scope {
    fn eq(&self, other: &Scope) -> bool {
        (self.concurrent, &self.processors, self.pools, self.handed)
            == (
                other.concurrent,
                &other.processors,
                other.pools,
                other.handed,
            )
    }
}

/// A meaning of designs: one method per pattern, each combining the
/// meanings of the parts (already computed) into the meaning of the whole.
///
/// Invariants, which every implementation may rely on and must keep:
/// - **Compositional.** A node's value depends only on its parameters, its
///   [`Scope`] and its parts' values; `fold` calls each method once per node,
///   parts first, left to right.
/// - **n-ary chains.** `seq` and `pipe` receive all stages of a chain of the
///   same pattern at once (two or more, in order): `pipe(pipe(a, b), c)` and
///   `pipe(a, pipe(b, c))` are the same call `pipe([a, b, c])`, as they are the
///   same design `pipe(a, b, c)`.
/// - **Raw parameters.** Counts and cost expressions arrive as written
///   (symbols stay symbols); the shuffle of a mapReduce and the cost of a
///   redistribution are not folded, so that a semantics decides what they
///   mean (a model, a machine's communication, nothing).
/// - **Errors stop the fold** at the first method that returns `Err`.
/// - [`Semantics::program`] is called once, on the value of the root.
///
/// ```
/// use pattern_core::grammar::fold::{fold, Scope, Semantics};
/// use pattern_core::{Atom, Count, Design, Expr, MapReduceParams};
///
/// /// How many atoms a design calls per element (a toy semantics).
/// struct Calls;
/// impl Semantics for Calls {
///     type Value = usize;
///     type Error = std::convert::Infallible;
///     fn atom(&mut self, _: &Atom, _: &Scope) -> Result<usize, Self::Error> { Ok(1) }
///     fn seq(&mut self, parts: Vec<usize>, _: &Scope) -> Result<usize, Self::Error> { Ok(parts.iter().sum()) }
///     fn pipe(&mut self, parts: Vec<usize>, _: &Scope) -> Result<usize, Self::Error> { Ok(parts.iter().sum()) }
///     fn tpool(&mut self, _: &Count, body: usize, _: &Scope) -> Result<usize, Self::Error> { Ok(body) }
///     fn map_reduce(&mut self, _: &MapReduceParams, map: usize, _: &Atom, reduce: usize, _: &Scope) -> Result<usize, Self::Error> { Ok(map + 1 + reduce) }
///     fn on(&mut self, _: &Count, body: usize, _: &Scope) -> Result<usize, Self::Error> { Ok(body) }
///     fn par(&mut self, _: &[Count], parts: Vec<usize>, _: &Scope) -> Result<usize, Self::Error> { Ok(parts.iter().sum()) }
///     fn groups(&mut self, _: &Count, body: usize, _: &Scope) -> Result<usize, Self::Error> { Ok(body) }
///     fn redist(&mut self, _: &Expr, a: usize, b: usize, _: &Scope) -> Result<usize, Self::Error> { Ok(a + b) }
/// }
///
/// let d = Design::parse("a = x; b = 1; pipe(tpool[4](seq(a, b)), b, a)").unwrap();
/// assert_eq!(fold(d.term(), &mut Calls), Ok(4));
/// ```
pub trait Semantics {
    /// The meaning of a design (an expression, a number, a resource count).
    type Value;
    /// Why a meaning could not be given.
    type Error;

    /// A sequential block.
    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Self::Value, Self::Error>;
    /// `seq(t1, .., tk)`: the stages one after the other on one thread.
    fn seq(&mut self, parts: Vec<Self::Value>, scope: &Scope) -> Result<Self::Value, Self::Error>;
    /// `pipe(t1, .., tk)`: each stage on its own threads, connected by queues.
    fn pipe(&mut self, stages: Vec<Self::Value>, scope: &Scope)
    -> Result<Self::Value, Self::Error>;
    /// `tpool[n](t)`: `n` workers, each running `t` on the next element.
    fn tpool(
        &mut self,
        n: &Count,
        body: Self::Value,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;
    /// `mapreduce[m, n, d, k](map, shuffle, reduce)`.
    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Self::Value,
        shuffle: &Atom,
        reduce: Self::Value,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;
    /// `on[p](t)`: `t` as a task on `p` processors.
    fn on(
        &mut self,
        p: &Count,
        body: Self::Value,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;
    /// `par[p1, .., pk](t1, .., tk)`: the tasks at once on disjoint groups.
    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Self::Value>,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;
    /// `groups[s](t)`: `s` equal groups each running `t` at once.
    fn groups(
        &mut self,
        s: &Count,
        body: Self::Value,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;
    /// `seq[redist = cost](a, b)`: `a` then `b` with the data redistributed
    /// in between at `cost`.
    fn redist(
        &mut self,
        cost: &Expr,
        a: Self::Value,
        b: Self::Value,
        scope: &Scope,
    ) -> Result<Self::Value, Self::Error>;

    /// The value of the whole program, from the root's value (the default
    /// keeps it): where a semantics finishes what needs the whole design.
    fn program(&mut self, value: Self::Value) -> Result<Self::Value, Self::Error> {
        Ok(value)
    }
}

/// A step of the walk.
enum Step<'t> {
    /// Visit a node: push its exit, then its parts.
    Enter(&'t Term, Scope),
    /// Combine the values of a node's `parts` parts.
    Exit(&'t Term, Scope, usize),
}

/// The meaning of `term` under `semantics`: every node's method applied to
/// its parts' values, bottom-up, with an explicit stack (a design of any
/// depth folds on any thread's stack).
pub fn fold<S: Semantics + ?Sized>(term: &Term, semantics: &mut S) -> Result<S::Value, S::Error> {
    walk(term, semantics, true)
}

/// [`fold`] with each `seq` and `pipe` given its two parts as the term
/// nests them, not its flat chain, and [`Scope::node`] set: for the
/// grammar's checks, which report problems at the node where they arise.
pub(crate) fn fold_nested<S: Semantics + ?Sized>(
    term: &Term,
    semantics: &mut S,
) -> Result<S::Value, S::Error> {
    walk(term, semantics, false)
}

/// The one walk of [`fold`] and [`fold_nested`]: chains `flat` or not.
fn walk<S: Semantics + ?Sized>(
    term: &Term,
    semantics: &mut S,
    flat: bool,
) -> Result<S::Value, S::Error> {
    let mut steps = vec![Step::Enter(term, Scope::default())];
    let mut values: Vec<S::Value> = Vec::new();
    let mut entered = 0;
    while let Some(step) = steps.pop() {
        match step {
            Step::Enter(node, mut scope) => {
                // Nested, every node is entered, in pre-order.
                scope.node = entered;
                entered += 1;
                let parts = if flat {
                    parts_of(node)
                } else {
                    node.children()
                };
                steps.push(Step::Exit(node, scope.clone(), parts.len()));
                let inner = inner_scope(node, &scope);
                for (i, part) in parts.into_iter().enumerate().rev() {
                    let mut scope = inner.clone();
                    // A pipe's later stages take what the stage before
                    // wrote, in shared memory (not inside an `on`).
                    scope.handed |=
                        i > 0 && matches!(node, Term::Pipe(..)) && inner.processors.is_none();
                    steps.push(Step::Enter(part, scope));
                }
            }
            Step::Exit(node, scope, n) => {
                let parts = values.split_off(values.len() - n);
                values.push(combine(semantics, node, parts, &scope)?);
            }
        }
    }
    let root = values.pop().expect("the fold leaves the root's value");
    semantics.program(root)
}

/// The parts whose values a node combines: the flattened chain for `seq`
/// and `pipe`, the children otherwise.
fn parts_of(node: &Term) -> Vec<&Term> {
    match node {
        Term::Seq(..) | Term::Pipe(..) => node.chain(),
        other => other.children(),
    }
}

/// The scope of a node's parts.
fn inner_scope(node: &Term, scope: &Scope) -> Scope {
    let mut inner = scope.clone();
    // Processor groups take their elements over the network.
    inner.handed &= !matches!(node, Term::On(..) | Term::Par(..) | Term::Groups(..));
    match node {
        Term::Tpool(..) => inner.pools += 1,
        Term::On(p, _) if inner.processors.is_none() => inner.processors = Some(p.clone()),
        Term::Par(_, parts) => inner.concurrent |= parts.len() > 1,
        Term::Groups(s, _) => inner.concurrent |= *s != Count::Fixed(1),
        _ => {}
    }
    inner
}

fn combine<S: Semantics + ?Sized>(
    s: &mut S,
    node: &Term,
    mut parts: Vec<S::Value>,
    scope: &Scope,
) -> Result<S::Value, S::Error> {
    let mut one = || parts.pop().expect("the fold gives every part a value");
    match node {
        Term::Atom(a) => s.atom(a, scope),
        Term::Seq(..) => s.seq(parts, scope),
        Term::Pipe(..) => s.pipe(parts, scope),
        Term::Tpool(n, _) => {
            let body = one();
            s.tpool(n, body, scope)
        }
        Term::MapReduce {
            params, shuffle, ..
        } => {
            let reduce = one();
            let map = one();
            s.map_reduce(params, map, shuffle, reduce, scope)
        }
        Term::On(p, _) => {
            let body = one();
            s.on(p, body, scope)
        }
        Term::Groups(g, _) => {
            let body = one();
            s.groups(g, body, scope)
        }
        Term::Par(sizes, _) => s.par(sizes, parts, scope),
        Term::Redist(cost, ..) => {
            let b = one();
            let a = one();
            s.redist(cost, a, b, scope)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design text back from the fold: shows the order of the calls
    /// and the flattening of chains.
    struct Text;

    impl Semantics for Text {
        type Value = String;
        type Error = String;
        fn atom(&mut self, a: &Atom, s: &Scope) -> Result<String, String> {
            let mark = if s.concurrent { "*" } else { "" };
            let handed = if s.handed { "^" } else { "" };
            Ok(format!("{}{mark}{}{handed}", a.name, "'".repeat(s.pools)))
        }
        fn seq(&mut self, p: Vec<String>, _: &Scope) -> Result<String, String> {
            Ok(format!("seq{}", p.len())).map(|h| format!("{h}({})", p.join(" ")))
        }
        fn pipe(&mut self, p: Vec<String>, _: &Scope) -> Result<String, String> {
            Ok(format!("pipe{}({})", p.len(), p.join(" ")))
        }
        fn tpool(&mut self, n: &Count, b: String, _: &Scope) -> Result<String, String> {
            Ok(format!("tpool{n}({b})"))
        }
        fn map_reduce(
            &mut self,
            _: &MapReduceParams,
            m: String,
            sh: &Atom,
            r: String,
            _: &Scope,
        ) -> Result<String, String> {
            Ok(format!("mr({m} {} {r})", sh.name))
        }
        fn on(&mut self, p: &Count, b: String, s: &Scope) -> Result<String, String> {
            let all = s.processors.as_ref().map_or("-".into(), Count::to_string);
            Ok(format!("on{p}/{all}({b})"))
        }
        fn par(&mut self, sz: &[Count], p: Vec<String>, _: &Scope) -> Result<String, String> {
            Ok(format!("par{}({})", sz.len(), p.join(" ")))
        }
        fn groups(&mut self, g: &Count, b: String, _: &Scope) -> Result<String, String> {
            if *g == Count::Fixed(13) {
                return Err("thirteen".into());
            }
            Ok(format!("groups{g}({b})"))
        }
        fn redist(&mut self, c: &Expr, a: String, b: String, _: &Scope) -> Result<String, String> {
            Ok(format!("redist[{c}]({a} {b})"))
        }
        fn program(&mut self, v: String) -> Result<String, String> {
            Ok(format!("<{v}>"))
        }
    }

    fn atom(name: &str) -> Term {
        Term::atom(name, Expr::var("x"))
    }

    #[test]
    fn chains_are_flat_and_parts_come_in_order() {
        let left = Term::pipe(Term::pipe(atom("a"), atom("b")), atom("c"));
        let right = Term::pipe(atom("a"), Term::pipe(atom("b"), atom("c")));
        assert_eq!(fold(&left, &mut Text).unwrap(), "<pipe3(a b^ c^)>");
        assert_eq!(fold(&right, &mut Text).unwrap(), "<pipe3(a b^ c^)>");
        let mixed = Term::seq(
            atom("a"),
            Term::pipe(atom("b"), Term::seq(atom("c"), atom("d"))),
        );
        assert_eq!(
            fold(&mixed, &mut Text).unwrap(),
            "<seq2(a pipe2(b seq2(c^ d^)))>"
        );
    }

    #[test]
    fn a_pipes_later_stages_are_handed_their_elements() {
        // Every part of a later stage is handed, at any depth; the first
        // stage takes what its own scope says.
        let t = Term::pipe(
            Term::seq(atom("a"), atom("b")),
            Term::tpool(2u64, Term::pipe(atom("c"), atom("d"))),
        );
        assert_eq!(
            fold(&t, &mut Text).unwrap(),
            "<pipe2(seq2(a b) tpool2(pipe2(c'^ d'^)))>"
        );
        // Not inside processor groups.
        let on = Term::pipe(atom("a"), Term::On(2u64.into(), Box::new(atom("b"))));
        assert_eq!(fold(&on, &mut Text).unwrap(), "<pipe2(a on2/-(b))>");
        let inside = Term::On(2u64.into(), Box::new(Term::pipe(atom("a"), atom("b"))));
        assert_eq!(fold(&inside, &mut Text).unwrap(), "<on2/-(pipe2(a b))>");
        // Nested as written, the same atoms are handed.
        let nested = Term::pipe(atom("a"), Term::pipe(atom("b"), atom("c")));
        assert_eq!(
            fold_nested(&nested, &mut Text).unwrap(),
            "<pipe2(a pipe2(b^ c^))>"
        );
    }

    #[test]
    fn scopes_flow_down() {
        let t = Term::On(
            8u64.into(),
            Box::new(Term::Par(
                vec![4u64.into(), 4u64.into()],
                vec![
                    Term::On(2u64.into(), Box::new(atom("a"))),
                    Term::tpool(2u64, Term::tpool("n", atom("b"))),
                ],
            )),
        );
        assert_eq!(
            fold(&t, &mut Text).unwrap(),
            "<on8/-(par2(on2/8(a*) tpool2(tpooln(b*''))))>"
        );
        let g = Term::Groups(1u64.into(), Box::new(atom("a")));
        assert_eq!(fold(&g, &mut Text).unwrap(), "<groups1(a)>");
        let g = Term::Groups(13u64.into(), Box::new(atom("a")));
        assert_eq!(fold(&g, &mut Text), Err("thirteen".into()));
    }

    #[test]
    fn every_pattern_is_visited() {
        let t = Term::Redist(
            Expr::var("r"),
            Box::new(Term::map_reduce(
                MapReduceParams::new(1u64, 2u64, Expr::var("x"), Expr::num(3.0)),
                atom("m"),
                Atom::new("s", Expr::num(0.0)),
                atom("r"),
            )),
            Box::new(Term::Groups(2u64.into(), Box::new(atom("g")))),
        );
        assert_eq!(
            fold(&t, &mut Text).unwrap(),
            "<redist[r](mr(m s r) groups2(g*))>"
        );
    }

    /// The number of nodes, counted by the fold.
    struct Nodes;

    impl Semantics for Nodes {
        type Value = usize;
        type Error = ();
        fn atom(&mut self, _: &Atom, _: &Scope) -> Result<usize, ()> {
            Ok(1)
        }
        fn seq(&mut self, p: Vec<usize>, _: &Scope) -> Result<usize, ()> {
            Ok(p.iter().sum::<usize>() + p.len() - 1)
        }
        fn pipe(&mut self, p: Vec<usize>, _: &Scope) -> Result<usize, ()> {
            Ok(p.iter().sum::<usize>() + p.len() - 1)
        }
        fn tpool(&mut self, _: &Count, b: usize, _: &Scope) -> Result<usize, ()> {
            Ok(b + 1)
        }
        fn map_reduce(
            &mut self,
            _: &MapReduceParams,
            m: usize,
            _: &Atom,
            r: usize,
            _: &Scope,
        ) -> Result<usize, ()> {
            Ok(m + r + 2)
        }
        fn on(&mut self, _: &Count, b: usize, _: &Scope) -> Result<usize, ()> {
            Ok(b + 1)
        }
        fn par(&mut self, _: &[Count], p: Vec<usize>, _: &Scope) -> Result<usize, ()> {
            Ok(p.iter().sum::<usize>() + 1)
        }
        fn groups(&mut self, _: &Count, b: usize, _: &Scope) -> Result<usize, ()> {
            Ok(b + 1)
        }
        fn redist(&mut self, _: &Expr, a: usize, b: usize, _: &Scope) -> Result<usize, ()> {
            Ok(a + b + 1)
        }
    }

    #[test]
    fn a_deep_design_folds_on_a_small_stack() {
        let mut t = atom("a");
        for i in 0..100_000 {
            t = if i % 2 == 0 {
                Term::tpool(2u64, t)
            } else {
                Term::seq(atom("b"), t)
            };
        }
        let (size, nodes) = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let nodes = fold(&t, &mut Nodes);
                let size = t.size();
                std::mem::forget(t);
                (size, nodes)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(size, 150_001);
        assert_eq!(nodes, Ok(size));
    }
}
