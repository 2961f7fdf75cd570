//! The size a design's model can reach, bounded before it is built.
//!
//! The throughput model substitutes into its parts: a mapReduce puts `d(x)`
//! for every `x` of its reduce and shuffle and `k(x)` for every `o`, `on[q]`
//! puts `q` for `p`, `groups[s]` puts `floor(p/s)`. Each substitution copies
//! the replacement into every occurrence, so nesting multiplies sizes: ten
//! nested mapReduces whose `d(x)` mentions `x` twice give a model of 2^10
//! copies, from a design of a few lines. The checker ([`crate::check`])
//! computes, in one linear [`fold`], an upper bound of the model's nodes
//! (the sizes of substituted expressions follow from the occurrence counts
//! of the substituted variables), and reports a design whose model would
//! pass
//! [`MAX_MODEL_NODES`] (or eight times the design's own size, whichever is
//! larger) before anything is built.

use crate::error::{DesignErrorKind, Problem, Site};
use crate::fold::{Scope, Semantics, fold};
use crate::term::{Atom, Count, MapReduceParams, Term};
use pattern_expr::Expr;
use std::convert::Infallible;

/// The nodes a design's model may have (`2^20`, about 7 MB printed) when
/// the design itself is smaller than an eighth of that.
pub const MAX_MODEL_NODES: u128 = 1 << 20;

/// The variables the model's semantics substitute, in this order.
const SUBSTITUTED: [&str; 5] = ["x", "o", "m", "n", "p"];
const X: usize = 0;
const O: usize = 1;
const M: usize = 2;
const N: usize = 3;
const P: usize = 4;

/// An upper bound of an expression's nodes, and how often each substituted
/// variable occurs in it (saturating: past `u128::MAX` it is too large
/// anyway).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Size {
    nodes: u128,
    occurs: [u128; SUBSTITUTED.len()],
}

impl Size {
    fn of(e: &Expr) -> Size {
        let mut size = Size::default();
        e.visit(&mut |node| {
            size.nodes = size.nodes.saturating_add(1);
            if let Expr::Var(name) = node {
                size.add_occurrence(name);
            }
        });
        size
    }

    fn count(c: &Count) -> Size {
        let mut size = Size {
            nodes: 1,
            ..Size::default()
        };
        if let Count::Symbol(name) = c {
            size.add_occurrence(name);
        }
        size
    }

    fn nodes(nodes: u128) -> Size {
        Size {
            nodes,
            ..Size::default()
        }
    }

    fn add_occurrence(&mut self, name: &str) {
        if let Some(i) = SUBSTITUTED.iter().position(|v| *v == name) {
            self.occurs[i] = self.occurs[i].saturating_add(1);
        }
    }

    /// The sum of sizes: a node built of `parts` and `extra` nodes of its own.
    fn join(parts: impl IntoIterator<Item = Size>, extra: u128) -> Size {
        parts.into_iter().fold(Size::nodes(extra), |a, b| Size {
            nodes: a.nodes.saturating_add(b.nodes),
            occurs: std::array::from_fn(|i| a.occurs[i].saturating_add(b.occurs[i])),
        })
    }

    /// The size after substituting, simultaneously, each `(variable, with)`.
    fn subs(self, map: &[(usize, Size)]) -> Size {
        let mut out = self;
        for &(var, _) in map {
            out.occurs[var] = 0;
        }
        for &(var, with) in map {
            let k = self.occurs[var];
            // Each of the k occurrences (one node) becomes `with.nodes` nodes.
            out.nodes = out
                .nodes
                .saturating_add(k.saturating_mul(with.nodes.saturating_sub(1)));
            for (o, w) in out.occurs.iter_mut().zip(with.occurs) {
                *o = o.saturating_add(k.saturating_mul(w));
            }
        }
        out
    }
}

/// The fold of [`Size`]s, mirroring what the throughput semantics build.
struct ModelSize;

impl Semantics for ModelSize {
    type Value = Size;
    type Error = Infallible;

    fn atom(&mut self, atom: &Atom, _: &Scope) -> Result<Size, Infallible> {
        Ok(Size::of(&atom.model))
    }

    fn seq(&mut self, parts: Vec<Size>, _: &Scope) -> Result<Size, Infallible> {
        Ok(Size::join(parts, 1))
    }

    fn pipe(&mut self, stages: Vec<Size>, _: &Scope) -> Result<Size, Infallible> {
        Ok(Size::join(stages, 1))
    }

    fn tpool(&mut self, n: &Count, body: Size, _: &Scope) -> Result<Size, Infallible> {
        // body · n^(-1)
        Ok(Size::join([body, Size::count(n)], 3))
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Size,
        shuffle: &Atom,
        reduce: Size,
        _: &Scope,
    ) -> Result<Size, Infallible> {
        let (d, k) = (Size::of(&params.d), Size::of(&params.k));
        let (m, n) = (Size::count(&params.m), Size::count(&params.n));
        let shuffle = Size::of(&shuffle.model).subs(&[(X, d), (O, k), (M, m), (N, n)]);
        let map_one = map.subs(&[(X, Size::nodes(1))]);
        let reduce_d = reduce.subs(&[(X, d)]);
        let workers = Size::join([m, n], 1);
        // x·map_one/workers + shuffle + k·reduce_d/workers: ten nodes of
        // its own, one of them the variable x.
        let mut model = Size::join([map_one, shuffle, k, reduce_d, workers, workers], 10);
        model.occurs[X] = model.occurs[X].saturating_add(1);
        Ok(model)
    }

    fn on(&mut self, p: &Count, body: Size, _: &Scope) -> Result<Size, Infallible> {
        Ok(body.subs(&[(P, Size::count(p))]))
    }

    fn par(&mut self, sizes: &[Count], parts: Vec<Size>, _: &Scope) -> Result<Size, Infallible> {
        let parts = parts.into_iter().enumerate().map(|(i, part)| {
            let size = sizes.get(i).map_or(Size::nodes(1), Size::count);
            part.subs(&[(P, size)])
        });
        Ok(Size::join(parts.collect::<Vec<_>>(), 1))
    }

    fn groups(&mut self, s: &Count, body: Size, _: &Scope) -> Result<Size, Infallible> {
        // floor(p · s^(-1))
        let mut group = Size::join([Size::count(s)], 5);
        group.occurs[P] = group.occurs[P].saturating_add(1);
        Ok(body.subs(&[(P, group)]))
    }

    fn redist(&mut self, cost: &Expr, a: Size, b: Size, _: &Scope) -> Result<Size, Infallible> {
        Ok(Size::join([a, b, Size::of(cost)], 1))
    }
}

/// The design's own size: its nodes and the nodes of every expression in it.
fn design_size(term: &Term) -> u128 {
    term.preorder()
        .map(|node| {
            let exprs: u128 = match node {
                Term::Atom(a) => Size::of(&a.model).nodes,
                Term::MapReduce {
                    params, shuffle, ..
                } => [&params.d, &params.k, &shuffle.model]
                    .into_iter()
                    .map(|e| Size::of(e).nodes)
                    .fold(0, u128::saturating_add),
                Term::Redist(cost, ..) => Size::of(cost).nodes,
                _ => 0,
            };
            exprs.saturating_add(1)
        })
        .fold(0u128, u128::saturating_add)
}

/// An upper bound of the nodes of the design's throughput model.
///
/// ```
/// use pattern_core::Design;
/// use pattern_core::grammar::model_size::model_nodes;
///
/// let d = Design::parse("a = 2*x; b = x + 1; pipe(a, b)").unwrap();
/// assert!(model_nodes(d.term()) >= d.model().size() as u128);
/// ```
pub fn model_nodes(term: &Term) -> u128 {
    let Ok(size) = fold(term, &mut ModelSize);
    size.nodes
}

/// `ModelTooLarge`, about the whole design, when its model would pass the
/// limit.
pub(crate) fn check(term: &Term) -> Option<Problem> {
    let nodes = model_nodes(term);
    let limit = MAX_MODEL_NODES.max(design_size(term).saturating_mul(8));
    (nodes > limit).then_some(Problem {
        kind: DesignErrorKind::ModelTooLarge { nodes, limit },
        node: 0,
        site: Site::Head,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    /// `levels` mapReduces nested in each other's reduce, `d(x) = x·x·x·x`.
    fn nested(levels: usize) -> String {
        let mut design = String::from("a");
        for _ in 0..levels {
            design = format!("mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, {design})");
        }
        format!("a = x + 1; {design}")
    }

    #[test]
    fn nested_substitutions_multiply_and_are_reported_before_building() {
        let sizes: Vec<u128> = (1..=4)
            .map(|levels| model_nodes(&parse(&nested(levels)).unwrap().term))
            .collect();
        // Each level puts d (7 nodes) for the 4^level occurrences of x below.
        assert!(sizes.windows(2).all(|w| w[1] > 2 * w[0]), "{sizes:?}");
        let err = parse(&nested(12)).unwrap_err();
        let DesignErrorKind::ModelTooLarge { nodes, limit } = err.kind() else {
            panic!("{err}");
        };
        assert_eq!(*limit, MAX_MODEL_NODES);
        assert!(*nodes > 10 * MAX_MODEL_NODES, "{nodes}");
        assert!(
            err.to_string().contains("substitutes d(x) for every x"),
            "{err}"
        );
    }

    #[test]
    fn a_large_flat_design_is_within_its_own_limit() {
        // 300,000 stages: a model of about 300,000 nodes, more than 2^20
        // only through the design's own size.
        let stages = vec!["a"; 300_000].join(", ");
        let d = parse(&format!("a = 2*x + 1; pipe({stages})")).unwrap();
        let nodes = model_nodes(&d.term);
        assert!(nodes > MAX_MODEL_NODES, "{nodes}");
        assert!(check(&d.term).is_none());
    }

    #[test]
    fn saturating_sizes_do_not_wrap() {
        let huge = Size {
            nodes: u128::MAX - 1,
            occurs: [u128::MAX; 5],
        };
        let big = huge.subs(&[(X, huge)]);
        assert_eq!(big.nodes, u128::MAX);
        assert_eq!(Size::join([huge, huge], 1).occurs[P], u128::MAX);
    }
}
