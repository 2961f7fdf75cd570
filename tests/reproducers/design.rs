//! Reproducers in the design area: designs of 10^5 stages and terms 10^5
//! deep through every public entry point, on a 2 MiB thread; counts that
//! overflow.

use pattern_core::grammar::MAX_COUNT;
use pattern_core::laws::Laws;
use pattern_core::semantics::{Footprint, Latency, Throughput};
use pattern_core::{Count, Design, DesignErrorKind, Expr, Term};

/// The stages of the wide designs and the depth of the deep terms.
const N: usize = 100_000;

/// `a = x; b = 2; pipe(a, b, a, b, ..)` with `n` stages.
fn wide_text(pattern: &str, n: usize) -> String {
    let stages: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "a" } else { "b" }).collect();
    format!("a = x; b = 2; {pattern}({})", stages.join(", "))
}

fn a() -> Term {
    Term::atom("a", Expr::var("x"))
}

fn b() -> Term {
    Term::atom("b", Expr::num(2.0))
}

/// `pipe(a, pipe(b, pipe(a, ..)))` of `n` stages through the public
/// variants.
fn right_pipe(n: usize) -> Term {
    let mut t = b();
    for i in 1..n {
        let stage = if i % 2 == 0 { b() } else { a() };
        t = Term::Pipe(Box::new(stage), Box::new(t));
    }
    t
}

/// `pipe(pipe(pipe(a, b), a), ..)` of `n` stages.
fn left_pipe(n: usize) -> Term {
    let mut t = a();
    for i in 1..n {
        let stage = if i % 2 == 0 { a() } else { b() };
        t = Term::Pipe(Box::new(t), Box::new(stage));
    }
    t
}

/// `tpool[k](tpool[k](..(a)))`, `n` pools deep (a named size: 2^n threads
/// would be more than a model holds exactly).
fn pool_tower(n: usize) -> Term {
    let mut t = a();
    for _ in 0..n {
        t = Term::Tpool(Count::from("k"), Box::new(t));
    }
    t
}

/// `seq(a, pipe(b, seq(a, pipe(b, ..))))`: chains of one stage each, so the
/// fold meets every level.
fn alternating(n: usize) -> Term {
    let mut t = a();
    for i in 0..n {
        t = if i % 2 == 0 {
            Term::seq(b(), t)
        } else {
            Term::pipe(a(), t)
        };
    }
    t
}

/// A term built by `build`, checked, printed, cloned, compared and dropped.
fn term_entry_points(t: Term, text_len: usize) {
    assert!(t.check().is_ok());
    let text = t.to_string();
    assert_eq!(text.len(), text_len);
    let copy = t.clone();
    assert!(copy == t);
    let debug = format!("{t:?}");
    assert!(debug.len() > text_len, "{}", debug.len());
    assert_eq!(t.size(), copy.size());
    drop(copy);
    let design = Design::from_term(t).unwrap();
    assert_eq!(design.term().to_string().len(), text_len);
    drop(design);
}

child_test!(a_pipe_of_100k_stages_parses_and_checks, || {
    let d = Design::parse(&wide_text("pipe", N)).unwrap();
    assert_eq!(d.term().size(), 2 * N - 1);
    assert!(d.term().check().is_ok());
    assert_eq!(d.atoms().len(), 2);
    let printed = d.to_string();
    assert_eq!(Design::parse(&printed).unwrap(), d);
    let copy = d.clone();
    assert!(copy == d);
    drop(copy);
    drop(d);
});

child_test!(a_pipe_of_100k_stages_models, || {
    let d = Design::parse(&wide_text("pipe", N)).unwrap();
    let at = [("x", 3.0)];
    assert_eq!(d.model().eval(&at).unwrap(), 3.0);
    assert_eq!(d.model().eval(&[("x", 1.0)]).unwrap(), 2.0);
    assert_eq!(d.model_asymptotic().to_string(), "x");
});

child_test!(a_pipe_of_100k_stages_has_a_latency_and_resources, || {
    let d = Design::parse(&wide_text("pipe", N)).unwrap();
    let half = (N / 2) as f64;
    assert_eq!(
        d.latency().eval(&[("x", 3.0)]).unwrap(),
        half * 3.0 + half * 2.0
    );
    let r = d.resources();
    assert_eq!(r.threads, Expr::num(N as f64));
    assert_eq!(r.nodes, Expr::num(1.0));
});

child_test!(a_seq_of_100k_stages_models, || {
    let d = Design::parse(&wide_text("seq", N)).unwrap();
    let half = (N / 2) as f64;
    assert_eq!(
        d.model().eval(&[("x", 3.0)]).unwrap(),
        half * 3.0 + half * 2.0
    );
    assert_eq!(d.resources().threads, Expr::num(1.0));
    assert_eq!(d.latency(), d.model());
});

child_test!(
    a_right_nested_pipe_100k_deep_through_every_entry_point,
    || {
        let t = right_pipe(N);
        // `pipe(` + stages + `, ` between + `)`.
        term_entry_points(t, 5 + N + 2 * (N - 1) + 1);
        let d = Design::from_term(right_pipe(N)).unwrap();
        assert_eq!(d.model().eval(&[("x", 3.0)]).unwrap(), 3.0);
        assert_eq!(d.model_asymptotic().to_string(), "x");
        assert_eq!(d.resources().threads, Expr::num(N as f64));
        let half = (N / 2) as f64;
        assert_eq!(d.latency().eval(&[("x", 1.0)]).unwrap(), half + half * 2.0);
    }
);

child_test!(
    a_left_nested_pipe_100k_deep_through_every_entry_point,
    || {
        let t = left_pipe(N);
        // `pipe(` per level, `, stage)` per level but the first, `a`.
        term_entry_points(t, 5 * (N - 1) + 1 + 4 * (N - 1));
        let d = Design::from_term(left_pipe(N)).unwrap();
        assert_eq!(d.model().eval(&[("x", 3.0)]).unwrap(), 3.0);
        assert_eq!(d.model_asymptotic().to_string(), "x");
        assert_eq!(d.resources().threads, Expr::num(N as f64));
    }
);

child_test!(a_tower_of_100k_task_pools_through_every_entry_point, || {
    // `tpool[k](` and `)` per level, then `a`.
    term_entry_points(pool_tower(N), 10 * N + 1);
    let d = Design::from_term(pool_tower(N)).unwrap();
    assert_eq!(d.latency(), Expr::var("x"));
    let fixed = Term::tpool(1u64 << 30, Term::tpool(1u64 << 30, pool_tower(N)));
    let e = fixed.check().unwrap_err();
    assert!(e.to_string().len() > 10 * N, "the error names the sub-term");
    let m = Throughput::new().expr(d.term());
    assert!(matches!(&m, Expr::Mul(items) if items.len() == N + 1));
    let threads = Footprint::of(d.term()).threads;
    assert!(matches!(&threads, Expr::Mul(items) if items.len() == N + 1));
});

child_test!(an_alternating_term_100k_deep_folds_prints_and_drops, || {
    let t = alternating(N);
    assert!(t.check().is_ok());
    assert_eq!(t.size(), 2 * N + 1);
    let text = t.to_string();
    let expected = format!("{}a{}", "pipe(a, seq(b, ".repeat(N / 2), "))".repeat(N / 2));
    assert!(text == expected, "{}", &text[..40]);
    let copy = t.clone();
    assert!(copy == t);
    drop(copy);
    let d = Design::from_term(t).unwrap();
    assert_eq!(
        Design::parse(&d.to_string())
            .map(|_| ())
            .unwrap_err()
            .kind(),
        &DesignErrorKind::Syntax {
            expected: "at most 200 levels of nesting".into(),
            found: "more".into(),
        }
    );
    drop(d);
});

child_test!(an_error_about_a_100k_deep_term_prints, || {
    let mut t = a();
    for _ in 0..N {
        t = Term::pipe(b(), t);
    }
    let bad = Term::tpool(0u64, t);
    let err = bad.check().unwrap_err();
    assert_eq!(err.kind(), &DesignErrorKind::ZeroCount);
    let expected = format!("tpool[0](pipe({}a))", "b, ".repeat(N));
    assert!(err.pattern() == expected);
    let message = format!("`{expected}`: a count of 0: counts are positive integers or names");
    assert!(err.to_string() == message);
});

child_test!(laws_take_wide_terms, || {
    let p = right_pipe(N);
    assert!(Laws::POINTWISE.pipe_idempotent(&p));
    assert!(Laws::POINTWISE.pipe_associative(&p, &a(), &b()));
    let l = Latency::of(&p);
    assert!(matches!(&l, Expr::Add(items) if items.len() == N));
});

#[test]
fn par_sizes_that_overflow_are_an_error_naming_the_counts() {
    // Once "attempt to add with overflow" (debug) or a wrapped sum (release).
    let e = Design::parse("a = 1; par[18446744073709551615, 1](a, a)").unwrap_err();
    let too_large = DesignErrorKind::CountTooLarge { count: u64::MAX };
    assert_eq!(e.kind(), &too_large);
    assert_eq!(e.offset(), 11);
    assert!(
        e.to_string()
            .starts_with("a count of 18446744073709551615 is more than 9007199254740992 = 2^53"),
        "{e}"
    );
    let t = Term::Par(vec![u64::MAX.into(), 1u64.into()], vec![a(), a()]);
    let e = t.check().unwrap_err();
    assert_eq!(e.kind(), &too_large);
    assert!(Design::from_term(t).is_err());
    // Each size fits, their sum does not.
    let half = MAX_COUNT / 2 + 1;
    let e = Design::parse(&format!("a = 1; par[{half}, {half}](a, a)")).unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::CountOverflow {
            what: format!("the group sizes, {half} + {half}"),
            total: 2 * u128::from(half),
        }
    );
    let t = Term::Par(vec![half.into(), half.into()], vec![a(), a()]);
    assert_eq!(t.check().unwrap_err().kind(), e.kind());
}

#[test]
fn pool_sizes_whose_product_overflows_are_an_error_naming_the_counts() {
    let e = Design::parse("a = 1; tpool[4294967296](tpool[4294967296](a))").unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::CountOverflow {
            what: "the threads of the pool, 4294967296 · 4294967296".into(),
            total: 1 << 64,
        }
    );
    assert_eq!(e.offset(), 7);
    let t = Term::tpool(1u64 << 32, Term::tpool(1u64 << 32, a()));
    assert_eq!(t.check().unwrap_err().kind(), e.kind());
    let sizes =
        pattern_core::MapReduceParams::new(1u64 << 40, 1u64 << 40, Expr::var("x"), Expr::num(1.0));
    let mr = Term::map_reduce(
        sizes,
        a(),
        pattern_core::Atom::new("s", Expr::num(0.0)),
        a(),
    );
    assert!(
        matches!(mr.check().unwrap_err().kind(), DesignErrorKind::CountOverflow { total, .. } if *total == 1 << 80)
    );
}

child_test!(a_design_of_100k_atoms_with_an_error_at_each_use, || {
    // Every error once copied the whole text (and listed every definition):
    // 10^5 errors of a 2 MB text ran out of memory.
    let mut text: String = (0..N).map(|i| format!("a{i} = {i}*x;\n")).collect();
    let uses: Vec<String> = (0..N).map(|i| format!("b{i}")).collect();
    text.push_str(&format!("seq({})", uses.join(", ")));
    let mut defined = pattern_core::grammar::parse::Defined;
    let all = pattern_core::grammar::parse::parse_with(&text, &mut defined).unwrap_err();
    assert_eq!(all.len(), N);
    let last = all.last().unwrap();
    let before: usize = uses[..N - 1].iter().map(|u| u.len() + 2).sum();
    assert_eq!(last.line_col(), (N + 1, 4 + before + 1));
    assert!(last.to_string().contains("and 99990 more"), "{last}");
    assert_eq!(Design::parse(&text).unwrap_err(), all[0]);
});
