//! The bound on the size of a design's model (`grammar::model_size`): an
//! upper bound of every model the semantics build, so that a design whose
//! model nesting would blow up is refused at `Design::parse` with a clear
//! error, in time linear in the design, and every design below the limit
//! models.

use pattern_core::grammar::model_size::{MAX_MODEL_NODES, model_nodes};
use pattern_core::semantics::{Latency, Throughput};
use pattern_core::{Atom, Count, Design, DesignErrorKind, Expr, MapReduceParams, Term, strategies};
use proptest::prelude::*;

fn expr(text: &str) -> Expr {
    Expr::parse(text).unwrap()
}

/// A symbolic count, named after a variable the semantics substitute or not.
fn symbol() -> impl Strategy<Value = Count> + Clone {
    prop::sample::select(vec!["q", "m", "n", "p", "x", "o"]).prop_map(Count::from)
}

/// Terms that nest every substituting pattern: mapReduces (with `d(x)` and
/// `k(x)` mentioning `x` more than once), `on`, `groups` and `par` with
/// symbolic counts (so that they always fit), over [`strategies::term`].
fn nesting(depth: u32) -> BoxedStrategy<Term> {
    let exprs =
        |texts: &[&str]| prop::sample::select(texts.iter().map(|t| expr(t)).collect::<Vec<_>>());
    strategies::term(2)
        .prop_recursive(depth, 64, 2, move |inner| {
            let params = (
                symbol(),
                prop_oneof![Just(Count::Fixed(2)), symbol()],
                exprs(&["x", "x*x", "x*log2(x) + x", "x/768"]),
                exprs(&["1", "x", "o*x + m", "p"]),
            )
                .prop_map(|(m, n, d, k)| MapReduceParams { m, n, d, k });
            prop_oneof![
                (params, inner.clone(), strategies::shuffle(), inner.clone()).prop_map(
                    |(params, map, shuffle, reduce)| Term::map_reduce(params, map, shuffle, reduce)
                ),
                (symbol(), inner.clone()).prop_map(|(p, t)| Term::On(p, Box::new(t))),
                (symbol(), inner.clone()).prop_map(|(s, t)| Term::Groups(s, Box::new(t))),
                (symbol(), symbol(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, s, t)| Term::Par(vec![a, b], vec![s, t])),
                (inner.clone(), inner).prop_map(|(a, b)| Term::Redist(
                    expr("x*p + o"),
                    Box::new(a),
                    Box::new(b)
                )),
            ]
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `model_nodes` bounds the models as built: throughput (both `pipe`
    /// operators) and latency.
    #[test]
    fn the_bound_holds_for_every_semantics(t in nesting(4)) {
        prop_assume!(t.check().is_ok());
        let bound = model_nodes(&t);
        let built = [
            Throughput::new().of(&t).unwrap().size(),
            Throughput::new().asymptotic().of(&t).unwrap().size(),
            Latency::of(&t).size(),
        ];
        for nodes in built {
            prop_assert!(nodes as u128 <= bound, "{nodes} > {bound}: {t}");
        }
    }
}

/// `levels` mapReduces nested in each other's reduce, `d(x) = x·x·x·x`.
fn nested(levels: usize) -> String {
    let mut design = String::from("a");
    for _ in 0..levels {
        design = format!("mapreduce[m = 2, n = 2, d = x*x*x*x, k = 1](a, a, {design})");
    }
    format!("a = x + 1; {design}")
}

#[test]
fn below_the_limit_a_nested_design_models_above_it_is_refused() {
    let below = Design::parse(&nested(9)).unwrap();
    let bound = model_nodes(below.term());
    assert!(bound <= MAX_MODEL_NODES, "{bound}");
    let built = Throughput::new().of(below.term()).unwrap().size() as u128;
    assert!(built <= bound && built > bound / 2, "{built} of {bound}");
    // x ↦ x^4 nine times over: 1 + 1 + 1 + .. collapses to a few terms.
    let at = [("x", 1.0)];
    assert!(below.model().eval(&at).unwrap().is_finite());

    let err = Design::parse(&nested(10)).unwrap_err();
    assert!(matches!(
        err.kind(),
        DesignErrorKind::ModelTooLarge { limit, .. } if *limit == MAX_MODEL_NODES
    ));
    // The same check for a term built in code.
    let term = Design::parse(&nested(9)).unwrap().term().clone();
    let deeper = Term::map_reduce(
        MapReduceParams {
            m: 2u64.into(),
            n: 2u64.into(),
            d: expr("x*x*x*x"),
            k: expr("1"),
        },
        Term::atom("a", expr("x + 1")),
        Atom {
            name: "a".into(),
            model: expr("x + 1"),
            bytes: None,
        },
        term,
    );
    let err = deeper.check().unwrap_err();
    assert!(
        matches!(err.kind(), DesignErrorKind::ModelTooLarge { .. }),
        "{err}"
    );
    assert!(Design::from_term(deeper).is_err());
}

/// The fuzz input whose model printed to 58 MB from 4.5 KB of design
/// (docs/reliability.md). Its model as built is small (26,604 nodes, within
/// the bound); simplification distributed a product over a 942-term sum,
/// copying a 20,000-node factor into every term (18.7 million nodes).
/// Expansion now keeps such a product whole: 199,280 nodes, 7.5 times the
/// model as built (the sums it does expand stay within the term cap).
#[test]
fn the_fuzz_design_whose_model_printed_to_58_mb_stays_small() {
    // Its literals beyond f64 (`1e400`, `1e999`) are refused when parsed
    // now; at f64's largest the model is as large.
    let text = include_str!("corpus/fuzz_design_28125.txt")
        .replace("1e999", "1.7976931348623157e308")
        .replace("1e400", "1.7976931348623157e308");
    let d = Design::parse(&text).unwrap();
    let built = Throughput::new().of(d.term()).unwrap();
    assert!(built.size() as u128 <= model_nodes(d.term()));
    for model in [d.model(), d.model_asymptotic(), d.latency()] {
        assert!(model.size() < 10 * built.size(), "{}", model.size());
    }
    let (simplified, raw) = (d.model(), built);
    let at = [
        ("x", 3.0),
        ("y", 2.0),
        ("z", 5.0),
        ("g", 64.0),
        ("p", 64.0),
        ("m", 4.0),
        ("n", 2.0),
        ("o", 7.0),
    ];
    // Neither has a value (its coefficients overflow, and `threads` is
    // unbound; which of the two is met first depends on the terms' order).
    let (s, r) = (simplified.eval(&at), raw.eval(&at));
    assert!(s.is_err() && r.is_err(), "{s:?} {r:?}");
}
