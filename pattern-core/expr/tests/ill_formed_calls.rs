//! Hand-built calls with the wrong number of arguments (the parser never
//! builds them): every operation gives an error or keeps the call, never a
//! panic.

use pattern_expr::{EvalError, Expr, Func};

fn x() -> Expr {
    Expr::var("x")
}

/// Every function with a number of arguments it does not take, alone and
/// inside a larger model.
fn ill_formed() -> Vec<Expr> {
    let mut out = Vec::new();
    for func in [
        Func::Log2,
        Func::Ln,
        Func::Log,
        Func::Sqrt,
        Func::Ceil,
        Func::Floor,
        Func::Max,
        Func::Min,
    ] {
        for n in 0..4 {
            if func.accepts(n) {
                continue;
            }
            let call = Expr::Call(func, vec![x(); n]);
            out.push(call.clone());
            out.push(Expr::Add(vec![
                Expr::Mul(vec![Expr::num(3.0), x()]),
                Expr::Mul(vec![Expr::num(2.0), call]),
            ]));
        }
    }
    out
}

#[test]
fn every_function_has_ill_formed_calls_to_test() {
    // Five functions of one argument (0, 2, 3 wrong), log of two (0, 1, 3),
    // max and min of at least one (0); each alone and inside a sum.
    assert_eq!(ill_formed().len(), 2 * (5 * 3 + 3 + 2));
}

#[test]
fn evaluation_names_the_call() {
    for e in ill_formed() {
        let err = e.eval(&[("x", 8.0)]).unwrap_err();
        assert!(matches!(err, EvalError::Arity { .. }), "{e}: {err}");
        let message = err.to_string();
        assert!(message.contains("cannot take"), "{message}");
        let compiled = e.compile(&["x"]).unwrap_err();
        assert_eq!(compiled, err, "{e}");
    }
    let err = Expr::Call(Func::Log, vec![x()]).eval(&[("x", 8.0)]);
    assert_eq!(
        err.unwrap_err().to_string(),
        "`log` cannot take 1 argument(s) (in `log(x)`)"
    );
}

#[test]
fn simplification_keeps_the_error_and_other_operations_answer() {
    for e in ill_formed() {
        let simple = e.simplify();
        assert!(
            matches!(simple.eval(&[("x", 8.0)]), Err(EvalError::Arity { .. })),
            "{e} simplified to {simple}"
        );
        assert_eq!(e.growth("x"), None, "{e}");
        assert!(!e.to_string().is_empty());
        assert!(e.latex().to_string().contains(r"\operatorname"), "{e}");
    }
}
