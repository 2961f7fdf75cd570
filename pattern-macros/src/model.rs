//! Cost models at compile time: parsed and simplified with the same engine
//! as at run time (`pattern-expr`), and written out as `ConstExpr` trees.

use pattern_expr::{Expr, Func};
use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

/// Parses model text; errors carry `span`.
pub fn parse_text(text: &str, span: Span) -> syn::Result<Expr> {
    parse_named(text, span, "cost model")
}

/// Parses the text of an expression of a macro, called `what` in errors
/// ("cost model", "bytes expression"); errors carry `span`.
pub fn parse_named(text: &str, span: Span, what: &str) -> syn::Result<Expr> {
    let e = Expr::parse(text).map_err(|e| syn::Error::new(span, format!("invalid {what}: {e}")))?;
    if let Some(name) = e.applied_functions().into_iter().next() {
        return Err(syn::Error::new(span, machine_function_message(&name)));
    }
    Ok(e)
}

/// Why a model of a macro cannot call `name`.
pub fn machine_function_message(name: &str) -> String {
    format!(
        "`{name}` is not a built-in function: the models of the macros are evaluated at compile time, so they cannot call machine functions (resolve those at run time with a MachineProfile)"
    )
}

fn num(v: f64) -> TokenStream {
    if v.is_finite() {
        let lit = Literal::f64_suffixed(v);
        quote!(::pattern_core::__private::ConstExpr::Num(#lit))
    } else {
        quote!(::pattern_core::__private::ConstExpr::Num(f64::NAN))
    }
}

fn binary(variant: &str, a: TokenStream, b: TokenStream) -> TokenStream {
    let variant = syn::Ident::new(variant, Span::call_site());
    quote!(::pattern_core::__private::ConstExpr::#variant(&#a, &#b))
}

fn unary(variant: &str, a: TokenStream) -> TokenStream {
    let variant = syn::Ident::new(variant, Span::call_site());
    quote!(::pattern_core::__private::ConstExpr::#variant(&#a))
}

/// The `ConstExpr` tree of an expression, as tokens of a constant
/// expression (every node a `&` temporary, which a const initializer keeps
/// for `'static`).
pub fn const_tokens(e: &Expr) -> TokenStream {
    match e {
        // Refused by `parse_text`; NaN keeps a slip visible in any budget.
        Expr::Apply(..) => num(f64::NAN),
        Expr::Num(v) => num(*v),
        Expr::Var(name) => quote!(::pattern_core::__private::ConstExpr::Var(#name)),
        Expr::Add(items) => fold(items, |acc, item| match item {
            // `a + (-c)·b` as `a - c·b`, which reads better in summaries.
            Expr::Mul(fs) if matches!(fs.first(), Some(Expr::Num(c)) if *c < 0.0) => {
                binary("Sub", acc, const_tokens(&-item.clone()))
            }
            Expr::Num(c) if *c < 0.0 => binary("Sub", acc, num(-c)),
            _ => binary("Add", acc, const_tokens(item)),
        }),
        Expr::Mul(items) => fold(items, |acc, item| match item {
            Expr::Pow(base, k) if **k == Expr::Num(-1.0) => binary("Div", acc, const_tokens(base)),
            _ => binary("Mul", acc, const_tokens(item)),
        }),
        Expr::Pow(base, k) if **k == Expr::Num(-1.0) => binary("Div", num(1.0), const_tokens(base)),
        Expr::Pow(base, k) => binary("Pow", const_tokens(base), const_tokens(k)),
        Expr::Call(func, args) => {
            let a = |i: usize| const_tokens(&args[i]);
            match func {
                Func::Log2 => unary("Log2", a(0)),
                Func::Ln => unary("Ln", a(0)),
                Func::Log => binary("Log", a(0), a(1)),
                Func::Sqrt => unary("Sqrt", a(0)),
                Func::Ceil => unary("Ceil", a(0)),
                Func::Floor => unary("Floor", a(0)),
                Func::Max | Func::Min => {
                    let variant = if *func == Func::Max { "Max" } else { "Min" };
                    let mut acc = a(0);
                    for i in 1..args.len() {
                        acc = binary(variant, acc, a(i));
                    }
                    acc
                }
            }
        }
    }
}

fn fold(items: &[Expr], mut step: impl FnMut(TokenStream, &Expr) -> TokenStream) -> TokenStream {
    let mut acc = const_tokens(&items[0]);
    for item in &items[1..] {
        acc = step(acc, item);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> String {
        const_tokens(&Expr::parse(text).unwrap().simplify())
            .to_string()
            .replace(' ', "")
            .replace("::pattern_core::__private::ConstExpr::", "")
    }

    #[test]
    fn const_trees() {
        assert_eq!(
            tokens("1034.17*x*log2(x)"),
            "Mul(&Mul(&Num(1034.17f64),&Var(\"x\")),&Log2(&Var(\"x\")))"
        );
        assert_eq!(
            tokens("x/n - 3"),
            "Sub(&Div(&Var(\"x\"),&Var(\"n\")),&Num(3f64))"
        );
        assert_eq!(
            tokens("max(x, 2, y)"),
            "Max(&Max(&Var(\"x\"),&Var(\"y\")),&Num(2f64))"
        );
        assert_eq!(
            tokens("x^(2/3)"),
            "Pow(&Var(\"x\"),&Div(&Num(2f64),&Num(3f64)))"
        );
    }

    #[test]
    fn errors_show_the_position() {
        let err = parse_text("1034.17 * x * log2(x", Span::call_site()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("invalid cost model: expected `)` to close the `(` at byte 18"),
            "{err}"
        );
    }
}
