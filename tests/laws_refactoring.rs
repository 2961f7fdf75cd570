//! The user's side of the laws: the exported strategies generate what they
//! promise, `compare` judges refactorings (equivalent, never worse with its
//! margin, or worse with the smallest failing point), `rewrite` lists only
//! equivalent or better designs, and ill-formed input is an error, not a
//! panic.
mod common;

use pattern_core::compare::{CompareError, Domain, Evidence, Verdict, compare};
use pattern_core::laws::{Relation, RewriteError, Rewriter, Rule, rewrite};
use pattern_core::paper::table1_definitions;
use pattern_core::semantics::{Footprint, Throughput};
use pattern_core::strategies::{POLY_EXPONENTS, atom_model, ill_formed_term, term};
use pattern_core::{Design, Expr, Term};
use proptest::prelude::*;

fn design(term: &str) -> Design {
    Design::parse(&format!("{}{term}", table1_definitions())).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1000)))]

    #[test]
    fn generated_terms_are_well_formed_and_nameable(t in term(4)) {
        prop_assert_eq!(t.check(), Ok(()));
        prop_assert!(Design::from_term(t.clone()).is_ok(), "{}", t);
        // Their models evaluate to a finite, non-negative time.
        let model = Throughput::new().expr(&t);
        let vars: Vec<String> = model.vars().into_iter().collect();
        let at: Vec<(&str, f64)> = vars.iter().map(|v| (v.as_str(), 3.0)).collect();
        let v = model.eval(&at).unwrap();
        prop_assert!(v.is_finite() && v >= 0.0, "{} at 3: {}", model, v);
    }

    #[test]
    fn atom_models_are_positive_pmnf(m in atom_model()) {
        prop_assert_eq!(m.vars().into_iter().collect::<Vec<_>>(), ["x"]);
        for x in [1.0, 2.0, 1e6] {
            let v = m.eval(&[("x", x)]).unwrap();
            prop_assert!(v >= 0.0 && v.is_finite(), "{} at {}: {}", m, x, v);
        }
        prop_assert!(m.eval(&[("x", 2.0)]).unwrap() > 0.0);
        // The leading class is one of SPEC §6's.
        let g = m.growth("x").unwrap();
        let power_ok = POLY_EXPONENTS
            .iter()
            .any(|&(a, b)| (g.power() - a as f64 / b as f64).abs() < 1e-12);
        prop_assert!(power_ok && [0.0, 1.0, 2.0].contains(&g.log_power()), "{}", g);
    }

    #[test]
    fn ill_formed_terms_are_errors_everywhere(bad in ill_formed_term(), good in term(1)) {
        // compare takes Designs, which cannot be ill-formed.
        prop_assert!(Design::from_term(bad.clone()).is_err());
        prop_assert!(Design::from_term(good).is_ok());
        prop_assert!(matches!(rewrite(&bad, &Rewriter::new()), Err(RewriteError::IllFormed(_))));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(64)))]

    /// The rewrite rules are laws: what they find is well-formed, does the
    /// same work (the same atoms), is never slower than the original and
    /// never uses more threads.
    #[test]
    fn rewriting_finds_only_equivalent_or_better_designs(t in term(2)) {
        let found = rewrite(&t, &Rewriter::new().max_steps(2).max_designs(40)).unwrap();
        let threads = Footprint::of(&t).threads;
        let work = |t: &Term| {
            let mut names: Vec<String> = t.atoms().iter().map(|a| a.name.clone()).collect();
            names.sort();
            names
        };
        for f in &found {
            prop_assert!(f.term.check().is_ok(), "{}", f.term);
            prop_assert_eq!(work(&f.term), work(&t), "{} → {}", t, f.term);
            prop_assert!(!matches!(f.relation, Relation::Worse { .. }), "{} → {}: {:?}", t, f.term, f.relation);
            for n in [1.0, 7.0, 64.0] {
                let at = [("n", n), ("p", n), ("m", n)];
                let (before, after) = (threads.eval(&at).unwrap(), f.threads.eval(&at).unwrap());
                prop_assert!(after <= before, "{} → {}: {} threads against {}", t, f.term, after, before);
            }
        }
    }
}

/// The speedup of `tpool[2](seq(qsort, inc))` over `pipe(qsort, inc)`:
/// `max(q, i)/((q + i)/2) = 2q/(q + i)` for x ≥ 2.
fn speedup(x: f64) -> f64 {
    let q = 1034.17 * x * x.log2();
    2.0 * q / (q + 536.185 * x)
}

#[test]
fn a_pool_over_the_sequence_never_loses_to_the_pipeline() {
    let a = design("pipe(qsort, inc)");
    let b = design("tpool[2](seq(qsort, inc))");
    let c = compare(&a, &b, &Domain::new()).unwrap();
    let Verdict::NeverWorse(m) = &c.verdict else {
        panic!("{c}")
    };
    // 2·qsort/(qsort + inc): 1.317 at x = 2, 1.949 at x = 2^20.
    assert_eq!(m.least_at.get("x"), Some(2));
    assert!((m.least - speedup(2.0)).abs() < 1e-12);
    assert_eq!(m.most_at.get("x"), Some(1 << 20));
    assert!((m.most - speedup(1048576.0)).abs() < 1e-12);
    assert!(m.proved, "law (iv) by dominance");
    assert!(c.never_worse());
    assert!(
        c.to_string()
            .starts_with("B never loses: 1.317x to 1.949x as fast as A"),
        "{c}"
    );
}

#[test]
fn balancing_the_threads_loses_from_x_5_on() {
    // 4 threads either way; the qsort stage loses a thread.
    let a = design("pipe(tpool[3](qsort), nop)");
    let b = design("pipe(tpool[2](qsort), tpool[2](nop))");
    let c = compare(&a, &b, &Domain::new()).unwrap();
    let Verdict::Worse(cex) = &c.verdict else {
        panic!("{c}")
    };
    // At x = 4 B still wins (qsort/2 = 4137 < nop = 5423); from x = 5 on
    // qsort/2 is the bottleneck: 6003 against 5423.
    assert_eq!(cex.at.get("x"), Some(5));
    let q5 = 1034.17 * 5.0 * 5f64.log2();
    assert!((cex.a - 5422.97).abs() < 1e-9);
    assert!((cex.b - q5 / 2.0).abs() < 1e-9);
    assert!((cex.ratio - q5 / 2.0 / 5422.97).abs() < 1e-12);
    // From x = 7 on, qsort/3 is A's bottleneck too: B takes 1.5 times as long.
    assert!(
        (cex.worst_ratio - 1.5).abs() < 1e-9,
        "qsort/2 against qsort/3"
    );
    assert!(cex.worst_at.get("x").unwrap() >= 7);
    assert!(
        c.to_string()
            .starts_with("B loses to A: smallest failing point x = 5"),
        "{c}"
    );
}

#[test]
fn shrinking_works_in_every_variable() {
    // B = max(qsort/n, nop) against A = max(qsort, nop)/n: B loses where
    // nop is the bottleneck and n > 1. The smallest failing point has n = 2.
    let a = design("tpool[n](pipe(qsort, nop))");
    let b = design("pipe(tpool[n](qsort), nop)");
    let c = compare(&a, &b, &Domain::new().with("n", 1, 24).unwrap()).unwrap();
    let Verdict::Worse(cex) = &c.verdict else {
        panic!("{c}")
    };
    assert_eq!(cex.at.to_string(), "n = 2, x = 2");
    assert!((cex.ratio - 2.0).abs() < 1e-12);
    assert!((cex.worst_ratio - 24.0).abs() < 1e-9);
}

#[test]
fn equivalence_by_normal_form_or_by_values() {
    let pools = design("pipe(tpool[4](qsort), tpool[4](inc))");
    let pool = design("tpool[4](pipe(qsort, inc))");
    let c = compare(&pools, &pool, &Domain::new()).unwrap();
    assert_eq!(c.verdict, Verdict::Equivalent(Evidence::Symbolic));
    // max(q, q + i) = q + i, but the normal form keeps max(0, i).
    let seq = design("seq(qsort, inc)");
    let odd = design("pipe(qsort, seq(qsort, inc))");
    let c = compare(&seq, &odd, &Domain::new()).unwrap();
    assert!(matches!(c.verdict, Verdict::Equivalent(Evidence::Sampled { points }) if points > 24));
}

#[test]
fn compare_reports_bad_domains_and_models_that_cannot_be_evaluated() {
    assert!(Domain::new().with("x", 0, 10).is_err());
    let a = Design::from_term(Term::atom("f", Expr::parse("x*log2(x - 3)").unwrap())).unwrap();
    let b = design("inc");
    let err = compare(&a, &b, &Domain::new()).unwrap_err();
    assert!(
        matches!(&err, CompareError::Eval { side: "A", point, .. } if point.get("x") == Some(2)),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("the model of design A cannot be evaluated at x = 2"),
        "{err}"
    );
    let ok = compare(&a, &b, &Domain::new().with("x", 4, 1000).unwrap());
    assert!(ok.is_ok());
}

#[test]
fn rewriting_the_paper_pipeline() {
    let found = rewrite(design("pipe(qsort, inc)").term(), &Rewriter::new()).unwrap();
    let texts: Vec<String> = found.iter().map(|f| f.term.to_string()).collect();
    assert_eq!(
        texts,
        [
            "tpool[2](seq(qsort, inc))",
            "tpool[2](seq(inc, qsort))",
            "seq(tpool[2](qsort), tpool[2](inc))",
            "seq(tpool[2](inc), tpool[2](qsort))",
            "pipe(inc, qsort)"
        ]
    );
    assert_eq!(found[0].steps, [Rule::PipeToPool]);
    assert_eq!(found[2].steps, [Rule::PipeToPool, Rule::PoolDistribute]);
    let Relation::Better { least, most, .. } = &found[0].relation else {
        panic!("{:?}", found[0].relation)
    };
    assert!((least - speedup(2.0)).abs() < 1e-12, "{least}");
    assert!((most - speedup(1048576.0)).abs() < 1e-12, "{most}");
    assert_eq!(found[4].relation, Relation::Equivalent);
    assert_eq!(found[0].threads, Expr::num(2.0));
}

#[test]
fn a_design_that_grows_faster_is_flagged_even_where_it_never_loses() {
    // qsort (x·log x) against a linear block of 1e6·x: B wins on the whole
    // domain (up to 2^20 qsort costs at most 20,683·x), but overtakes A once
    // log2(x) > 967, far beyond it; the comparison says so.
    let a = Design::from_term(Term::atom("slow_linear", Expr::parse("1e6*x").unwrap())).unwrap();
    let b = design("qsort");
    let c = compare(&a, &b, &Domain::new()).unwrap();
    assert!(matches!(c.verdict, Verdict::NeverWorse(_)), "{c}");
    assert_eq!(c.growth, Some(std::cmp::Ordering::Greater));
    assert!(
        c.to_string()
            .ends_with("(but B grows faster in x: it loses beyond the domain for large enough x)"),
        "{c}"
    );
}
