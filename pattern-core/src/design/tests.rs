use super::*;
use crate::DesignError;
use crate::grammar::{Count, DesignErrorKind, MapReduceParams};

const TABLE1: &str = "qsort = 1034.17 * x * log2(x);
inc   = 536.185 * x;
nop   = 5422.97;
";

fn parse(term: &str) -> Result<Design, DesignError> {
    Design::parse(&format!("{TABLE1}{term}"))
}

fn err(term: &str) -> DesignError {
    parse(term).expect_err(term)
}

#[test]
fn the_paper_designs_parse_and_print_back() {
    for term in [
        "qsort",
        "seq(qsort, nop)",
        "pipe(tpool[4](qsort), inc, nop)",
        "pipe(pipe(qsort, inc), nop)",
        "tpool[n](pipe(qsort, inc))",
        "tpool[2](seq(inc, qsort))",
        "seq(inc, pipe(qsort, tpool[threads](nop)))",
    ] {
        let d = parse(term).unwrap();
        assert_eq!(d.term().to_string(), term);
        let again = Design::parse(&d.to_string()).unwrap();
        assert_eq!(again.term(), d.term(), "{d}");
        assert_eq!(again.to_string(), d.to_string());
        let built = Design::from_term(d.term().clone()).unwrap();
        assert_eq!(built.term(), d.term());
    }
}

#[test]
fn mapreduce_of_hadoop() {
    let d = Design::parse(
        "map     = 3.529e7;
         shuffle = (m*n - 1)/(m*n) * 12288 * x / 0.125;
         reduce  = 9376 * x;
         mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)",
    )
    .unwrap();
    assert_eq!(
        d.term().to_string(),
        "mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)"
    );
    let x = 48.0;
    let by_hand =
        x * 3.529e7 / 48.0 + 47.0 / 48.0 * 12288.0 * x / 0.125 + 768.0 * 9376.0 * x / 48.0;
    let got = d.model().eval(&[("x", x)]).unwrap();
    assert!((got - by_hand).abs() < 1e-9 * by_hand);
    assert_eq!(d.resources().threads, Expr::num(48.0));
    assert_eq!(Design::parse(&d.to_string()).unwrap(), d);
}

#[test]
fn mapreduce_defaults_m_and_accepts_expressions() {
    let d = Design::parse(
        "f = 1.241e7; s = 0; r = 9.449e6; mapreduce[n = n, k = x, d = max(768, x/2)](f, s, r)",
    )
    .unwrap();
    let MapReduceParams { m, d: per_key, .. } = match d.term() {
        Term::MapReduce { params, .. } => params.clone(),
        _ => unreachable!(),
    };
    assert_eq!(m, Count::Fixed(1));
    assert_eq!(per_key.to_string(), "max(768, x/2)");
}

#[test]
fn comments_and_trailing_semicolon() {
    let d =
        Design::parse("// the paper's qsort\nqsort = 1034.17*x*log2(x); // ns\ntpool[2](qsort);")
            .unwrap();
    assert_eq!(d.term().to_string(), "tpool[2](qsort)");
}

#[test]
fn error_unknown_atom_with_position() {
    let e = err("pipe(qsort, sort)");
    assert_eq!(
        e.kind(),
        &DesignErrorKind::UnknownAtom {
            name: "sort".into(),
            defined: "qsort, inc, nop".into()
        }
    );
    assert_eq!(e.line_col(), (4, 13));
    assert_eq!(
        e.to_string(),
        "unknown atom `sort` (defined: qsort, inc, nop) at line 4, column 13\n  pipe(qsort, sort)\n              ^"
    );
}

#[test]
fn error_unknown_pattern() {
    let e = err("farm[4](qsort)");
    assert_eq!(
        e.kind(),
        &DesignErrorKind::UnknownPattern {
            name: "farm".into()
        }
    );
    assert_eq!(e.line_col(), (4, 1));
}

#[test]
fn error_wrong_number_of_components() {
    let e = err("pipe(qsort)");
    assert!(matches!(
        e.kind(),
        DesignErrorKind::WrongArity { found: 1, .. }
    ));
    let e = err("tpool[2](qsort, inc)");
    assert_eq!(
        e.to_string().lines().next().unwrap(),
        "`tpool` takes one component, found 2 at line 4, column 1"
    );
    let e = Design::parse("a = 1; mapreduce[n = 2, d = x, k = 768](a, a)").unwrap_err();
    assert!(matches!(
        e.kind(),
        DesignErrorKind::WrongArity { found: 2, .. }
    ));
}

#[test]
fn error_zero_count() {
    let e = err("tpool[0](qsort)");
    assert_eq!(e.kind(), &DesignErrorKind::ZeroCount);
    assert_eq!(e.line_col(), (4, 7));
    let e = Design::parse("a = 1; mapreduce[m = 0, n = 2, d = x, k = 768](a, a, a)").unwrap_err();
    assert_eq!(e.kind(), &DesignErrorKind::ZeroCount);
    assert_eq!(e.offset(), 21);
}

#[test]
fn error_shuffle_inside_tpool() {
    let e =
        Design::parse("a = 1; s = x; tpool[4](seq(a, mapreduce[n = 2, d = x, k = 768](a, s, a)))")
            .unwrap_err();
    assert_eq!(e.kind(), &DesignErrorKind::ShuffleInTpool);
    assert_eq!(e.offset(), 14);
}

#[test]
fn error_in_an_atom_model_points_into_it() {
    let e = Design::parse("qsort = 1034.17 * x * log2(x;\nqsort").unwrap_err();
    assert!(matches!(e.kind(), DesignErrorKind::Expr(_)));
    assert_eq!(e.offset(), 28);
    assert!(
        e.to_string()
            .starts_with("in a cost expression: expected `)` to close the `(` at byte 26"),
        "{e}"
    );
}

#[test]
fn error_syntax() {
    let e = err("pipe(qsort inc)");
    assert_eq!(
        e.kind(),
        &DesignErrorKind::Syntax {
            expected: "`,` or `)` in pipe(...)".into(),
            found: "`inc`".into()
        }
    );
    let e = err("tpool(qsort)");
    assert_eq!(
        e.to_string().lines().next().unwrap(),
        "`tpool` is written with its thread count: tpool[n](task) at line 4, column 1"
    );
    let e = err("tpool[2.5](qsort)");
    assert!(matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "`2.5`"));
    assert_eq!(e.line_col(), (4, 7));
    let e = err("qsort inc");
    assert!(matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "`inc`"));
    let e = Design::parse("").unwrap_err();
    assert!(
        matches!(e.kind(), DesignErrorKind::Syntax { found, .. } if found == "the end of the design")
    );
}

#[test]
fn error_parameters() {
    let base = "a = 1; ";
    let e = Design::parse(&format!("{base}mapreduce[n = 2, d = x](a, a, a)")).unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::MissingParam {
            pattern: "mapreduce",
            name: "k",
            what: "number of keys, a function of x"
        }
    );
    let e = Design::parse(&format!(
        "{base}mapreduce[n = 2, n = 3, d = x, k = 1](a, a, a)"
    ))
    .unwrap_err();
    assert_eq!(e.kind(), &DesignErrorKind::Duplicate { name: "n".into() });
    let e = Design::parse(&format!(
        "{base}mapreduce[n = 2, z = 3, d = x, k = 1](a, a, a)"
    ))
    .unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::UnknownParam {
            pattern: "mapreduce",
            name: "z".into(),
            known: "m, n, d, k"
        }
    );
    let e = Design::parse(&format!(
        "{base}mapreduce[n = 2, d = x, k = 1](a, pipe(a, a), a)"
    ))
    .unwrap_err();
    assert!(
        matches!(e.kind(), DesignErrorKind::Syntax { expected, .. } if expected.starts_with("the shuffle phase"))
    );
}

#[test]
fn error_definitions() {
    let e = Design::parse("a = 1; a = 2; a").unwrap_err();
    assert_eq!(e.kind(), &DesignErrorKind::Duplicate { name: "a".into() });
    let e = Design::parse("pipe = 1; pipe").unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::ReservedName {
            name: "pipe".into()
        }
    );
}

#[test]
fn from_term_checks() {
    use crate::grammar::Atom;
    let a = Term::atom("a", Expr::num(1.0));
    let b = Term::atom("a", Expr::num(2.0));
    assert!(matches!(
        Design::from_term(Term::seq(a.clone(), b)),
        Err(e) if e.kind() == &DesignErrorKind::ConflictingAtom { name: "a".into() }
    ));
    let mr = Term::map_reduce(
        MapReduceParams {
            m: 1u64.into(),
            n: 2u64.into(),
            d: Expr::var("x"),
            k: Expr::num(1.0),
        },
        a.clone(),
        Atom {
            name: "s".into(),
            model: Expr::num(0.0),
            bytes: None,
        },
        a.clone(),
    );
    assert!(matches!(
        Design::from_term(Term::tpool(2u64, mr)),
        Err(e) if e.kind() == &DesignErrorKind::ShuffleInTpool
    ));
}

#[test]
fn every_error_is_found_and_the_first_is_reported() {
    use crate::grammar::parse::{Defined, parse_with};
    let text = "a = 1; pipe(tpool[0](a), farm(b), seq(a), tpool[2](mapreduce[n = 2, d = x, k = 1](a, a, a)))";
    let all = parse_with(text, &mut Defined).unwrap_err();
    let kinds: Vec<String> = all.iter().map(|e| e.kind().to_string()).collect();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    assert!(kinds[0].starts_with("a count of 0"), "{kinds:?}");
    assert!(kinds[1].starts_with("unknown pattern `farm`"), "{kinds:?}");
    assert!(kinds[2].starts_with("unknown atom `b`"), "{kinds:?}");
    assert!(
        kinds[3].starts_with("`seq` takes two or more components, found 1"),
        "{kinds:?}"
    );
    assert!(kinds[4].starts_with("a task pool cannot wrap"), "{kinds:?}");
    let offsets: Vec<usize> = all.iter().map(DesignError::offset).collect();
    assert_eq!(offsets, [18, 25, 30, 34, 42]);
    assert_eq!(Design::parse(text).unwrap_err(), all[0]);
}

#[test]
fn task_groups_parse_print_back_and_check() {
    let text = "stage = 1000 / p + 50 * log2(p); on[64](par[16, 48](stage, groups[4](stage)))";
    let d = Design::parse(text).unwrap();
    assert_eq!(
        d.term().to_string(),
        "on[64](par[16, 48](stage, groups[4](stage)))"
    );
    assert_eq!(Design::parse(&d.to_string()).unwrap(), d);
    let r = Design::parse("a = 1; on[8](seq[redist = 3 * p](a, a))").unwrap();
    assert_eq!(r.model().to_string(), "26");
    let e = Design::parse("a = 1; on[8](par[4, 5](a, a))").unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::OverSubscribed {
            needed: 9,
            available: 8
        }
    );
    assert_eq!(e.offset(), 16);
    let e = Design::parse("a = 1; par[18446744073709551615, 1](a, a)").unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::CountTooLarge { count: u64::MAX }
    );
    assert_eq!(e.offset(), 11);
}

#[test]
fn paths_and_quoted_models() {
    let e = Design::parse("Type::f").unwrap_err();
    assert!(matches!(e.kind(), DesignErrorKind::UnknownAtom { name, .. } if name == "Type::f"));
    let d = Design::parse("a = \"x / 2\"; mapreduce[n = 2, d = \"max(1, x)\", k = 4](a, a, a)")
        .unwrap();
    assert_eq!(d.atoms()[0].1.to_string(), "x/2");
}

#[test]
fn an_unknown_atom_lists_ten_definitions_and_how_many_more() {
    let defs: String = (0..12).map(|i| format!("a{i} = {i};")).collect();
    let e = Design::parse(&format!("{defs} pipe(a0, b)")).unwrap_err();
    assert_eq!(
        e.kind(),
        &DesignErrorKind::UnknownAtom {
            name: "b".into(),
            defined: "a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 and 2 more".into()
        }
    );
}

#[test]
fn many_atoms_and_many_unknown_names_are_read_in_linear_time() {
    // 10^4 definitions and 10^4 unknown names: each error once copied the
    // list of every definition (10^8 names in all).
    let n = 10_000;
    let mut text: String = (0..n).map(|i| format!("a{i} = {i}*x;\n")).collect();
    let uses: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
    text.push_str(&format!("pipe({})", uses.join(", ")));
    let all =
        crate::grammar::parse::parse_with(&text, &mut crate::grammar::parse::Defined).unwrap_err();
    assert_eq!(all.len(), n);
    assert!(all.iter().all(|e| e.to_string().len() < 400), "{}", all[0]);
    // The same atoms, defined and used: every one is read, checked and
    // modeled.
    let uses: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let mut text: String = (0..n).map(|i| format!("a{i} = {i}*x;\n")).collect();
    text.push_str(&format!("seq({})", uses.join(", ")));
    let d = Design::parse(&text).unwrap();
    assert_eq!(d.atoms().len(), n);
    let sum = (n * (n - 1) / 2) as f64;
    assert_eq!(d.model().eval(&[("x", 2.0)]).unwrap(), 2.0 * sum);
    assert_eq!(Design::parse(&d.to_string()).unwrap(), d);
}

mod properties {
    use super::*;
    use crate::grammar::Term;
    use crate::strategies::shuffle_free_term;
    use proptest::prelude::*;

    /// The derived `Debug` form, written recursively: what the iterative
    /// `Debug` must print.
    fn derived_debug(t: &Term) -> String {
        match t {
            Term::Atom(a) => format!("Atom({a:?})"),
            Term::Seq(a, b) => format!("Seq({}, {})", derived_debug(a), derived_debug(b)),
            Term::Pipe(a, b) => format!("Pipe({}, {})", derived_debug(a), derived_debug(b)),
            Term::Tpool(n, b) => format!("Tpool({n:?}, {})", derived_debug(b)),
            other => panic!("not generated: {other}"),
        }
    }

    proptest! {
        #[test]
        fn clone_eq_debug_and_display_agree(
            t in shuffle_free_term(5),
            u in shuffle_free_term(5),
        ) {
            let copy = t.clone();
            prop_assert!(copy == t);
            prop_assert_eq!(format!("{copy:?}"), derived_debug(&t));
            prop_assert_eq!(copy.to_string(), t.to_string());
            // Structural equality is equality of the derived form.
            prop_assert_eq!(t == u, derived_debug(&t) == derived_debug(&u));
            prop_assert_eq!(t.map_children(Term::clone), t.clone());
        }

        #[test]
        fn a_design_prints_back_to_itself(t in shuffle_free_term(5)) {
            let d = Design::from_term(t).unwrap();
            let back = Design::parse(&d.to_string()).unwrap();
            prop_assert!(back.term() == d.term());
            prop_assert_eq!(back.model(), d.model());
            prop_assert_eq!(back.resources(), d.resources());
        }
    }
}

#[test]
fn an_atoms_bytes_parse_and_print_back() {
    let d =
        Design::parse("inc = 536.185*x [bytes = 8*x]; nop = 5; pipe(tpool[2](inc), nop)").unwrap();
    let atoms = d.term().atoms();
    let bytes = |i: usize| {
        atoms[i]
            .bytes
            .as_ref()
            .map(|b| b.eval(&[("x", 10.0)]).unwrap())
    };
    assert_eq!((bytes(0), bytes(1)), (Some(80.0), None));
    let text = d.to_string();
    assert_eq!(
        text,
        "inc = 536.185*x [bytes = 8*x];\nnop = 5;\npipe(tpool[2](inc), nop)"
    );
    assert_eq!(Design::parse(&text).unwrap(), d);
}

#[test]
fn an_atoms_parameters_are_checked_where_written() {
    let cases = [
        (
            "a = 1 [bites = 8]; a",
            "unknown atom parameter `bites`: the parameters are `bytes`",
            8,
        ),
        (
            "a = 1 [8]; a",
            "`a` is written `name = model [bytes = expression];`",
            8,
        ),
        (
            "a = 1 [bytes = 8, bytes = 9]; a",
            "`bytes` is given twice",
            19,
        ),
        ("a = 1 [bytes = 8 +]; a", "", 19),
        (
            "a = 1 [bytes = 8; a",
            "expected `,` or `]` after a parameter, found `;`",
            17,
        ),
    ];
    for (text, message, column) in cases {
        let e = Design::parse(text).unwrap_err();
        if !message.is_empty() {
            assert_eq!(e.kind().to_string(), message, "{text}");
        }
        assert_eq!(e.line_col(), (1, column), "{text}: {e}");
    }
    // Two atoms of one name with other bytes conflict.
    let a = Term::Atom(Atom::new("a", Expr::num(1.0)).moving(Expr::num(8.0)));
    let b = Term::atom("a", Expr::num(1.0));
    assert!(matches!(
        Design::from_term(Term::seq(a, b)),
        Err(e) if e.kind() == &DesignErrorKind::ConflictingAtom { name: "a".into() }
    ));
}
