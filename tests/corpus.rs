//! One corpus of designs through both front ends, `Design::parse` and
//! `design!`: the same models for every well-formed design (every pattern,
//! task groups included), and the same first error for every ill-formed one
//! (`tests/corpus/invalid.txt`; the macro's side of it is a unit test of
//! `pattern-macros`, which reads the same file).
use pattern_core::{Design, design};

/// The design through both front ends: the text of the tokens, and the
/// macro on the same tokens.
macro_rules! both {
    ($($design:tt)*) => {
        (stringify!($($design)*), Design::parse(stringify!($($design)*)), design!($($design)*))
    };
}

fn agree(text: &str, parsed: Result<Design, pattern_core::DesignError>, by_macro: Design) {
    let parsed = parsed.unwrap_or_else(|e| panic!("{text}: {e}"));
    // The macro keeps its atoms' models in normal form (its const trees):
    // the same functions, the same design.
    assert_eq!(
        parsed.term().to_string(),
        by_macro.term().to_string(),
        "{text}"
    );
    for (a, b) in parsed.atoms().iter().zip(by_macro.atoms()) {
        assert_eq!(a.0, b.0, "{text}");
        assert_eq!(a.1.simplify(), b.1, "{text}");
    }
    assert_eq!(parsed.model(), by_macro.model(), "{text}");
    assert_eq!(parsed.latency(), by_macro.latency(), "{text}");
    assert_eq!(parsed.resources(), by_macro.resources(), "{text}");
}

#[test]
fn every_pattern_gives_the_same_design_and_model() {
    let corpus = [
        both!(a = 3 * x; a),
        both!(a = 3 * x; b = 5; seq(a, b, a)),
        both!(a = 3 * x; b = 5; pipe(tpool[4](a), b, seq(a, b))),
        both!(a = 3 * x; b = x * log2(x); pipe(pipe(a, b), tpool[n](b))),
        both!(q = "1034.17 * x * log2(x)"; tpool[threads](seq(q, q))),
        both!(
            map = 3.529e7; shuffle = (m * n - 1) / (m * n) * 12288 * x / 0.125; reduce = 9376 * x;
            mapreduce[m = 4, n = 12, d = x, k = 768](map, shuffle, reduce)
        ),
        both!(f = 1.241e7; s = 0; r = 9.449e6; mapreduce[n = n, k = x, d = max(768, x / 2)](tpool[2](f), s, r)),
        both!(stage = 1000 / p + 50 * log2(p); on[64](par[16, 48](stage, stage))),
        both!(stage = 1000 / p + 50 * log2(p); on[64](groups[4](stage))),
        both!(stage = 1000 / p; on[q](par[g, g](stage, groups[2](stage)))),
        both!(a = 2 * p; b = 7; on[8](seq[redist = 3 * p](a, b))),
        both!(a = x / p; on[16](seq(groups[1](a), par[4, 4, 8](a, a, tpool[2](a))))),
    ];
    assert_eq!(corpus.len(), 12);
    for (text, parsed, by_macro) in corpus {
        agree(text, parsed, by_macro);
    }
}

#[test]
fn every_ill_formed_design_gives_the_same_first_error() {
    let corpus = include_str!("corpus/invalid.txt");
    let mut cases = 0;
    for line in corpus
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (text, want) = line.split_once(" => ").expect("design => error");
        let err = Design::parse(text).expect_err(text);
        assert_eq!(err.kind().to_string(), want, "{text}");
        cases += 1;
    }
    assert_eq!(cases, 25);
}
