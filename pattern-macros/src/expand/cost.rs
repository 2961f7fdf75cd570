//! `#[cost(..)]` and `cost_of!(..)`.

use super::annotation::{annotation_const, annotation_path};
use super::errors::Errors;
use crate::attr::{CostArgs, unit_factor};
use crate::model;
use pattern_expr::Expr;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, LitStr, Path};

/// `#[cost(..)]`.
pub fn cost_inner(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut function: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[cost] goes on a function with a body: a free function, a generic or async one, or a method in an `impl` block",
            );
            let err = err.to_compile_error();
            return quote!(#item #err);
        }
    };
    let name = function.sig.ident.clone();
    let vis = function.vis.clone();
    let placeholder = annotation_const(&vis, &name, &name.to_string(), &Expr::num(0.0), None);
    let checked = syn::parse2::<CostArgs>(args).and_then(|args| {
        let checked = check(&args)?;
        Ok((args, checked))
    });
    let (args, Checked { model, bytes }) = match checked {
        Ok(both) => both,
        Err(e) => {
            let err = e.to_compile_error();
            return quote!(#item #placeholder #err);
        }
    };
    let atom = args.name.as_ref().map_or_else(
        || name.to_string().trim_start_matches("r#").to_string(),
        |n| n.value(),
    );

    // The cost summary in the function's docs.
    let class = model
        .growth("x")
        .map_or_else(|| "class unknown".to_string(), |g| g.to_string());
    let mut line = format!(" **Cost model** (`#[cost]`): `{model}` ns per call, {class}");
    if let Some(bytes) = &bytes {
        line.push_str(&format!("; moves `{bytes}` bytes of memory per call"));
    }
    if let Some(var) = &args.var {
        line.push_str(&format!("; x is `{}`", var.value()));
    }
    if let Some(unit) = &args.unit {
        line.push_str(&format!("; written in {}", unit.value()));
    }
    line.push('.');
    function.attrs.push(syn::parse_quote!(#[doc = ""]));
    function.attrs.push(syn::parse_quote!(#[doc = #line]));
    let annotation = annotation_const(&vis, &name, &atom, &model, bytes.as_ref());
    quote!(#function #annotation)
}

/// The arguments of `#[cost]`, checked: the model in ns per call and the
/// bytes per call, both in `x`, in normal form.
struct Checked {
    model: Expr,
    bytes: Option<Expr>,
}

/// Checks the arguments of `#[cost]`, reporting every error at once.
fn check(args: &CostArgs) -> syn::Result<Checked> {
    let mut errors = Errors::default();
    let mut model = ok_or_push(
        model::parse_text(&args.model.value(), args.model.span()),
        &mut errors,
    );
    let factor = match &args.unit {
        Some(unit) => unit_factor(&unit.value()).unwrap_or_else(|| {
            errors.push(syn::Error::new(
                unit.span(),
                format!("unknown unit `{}`: use ns, us, ms or s", unit.value()),
            ));
            1.0
        }),
        None => 1.0,
    };
    let mut bytes = args.bytes.as_ref().and_then(|b| {
        let parsed = model::parse_named(&b.value(), b.span(), "bytes expression");
        ok_or_push(parsed, &mut errors)
    });
    if let (Some(lit), Some(b), Some(m)) = (&args.bytes, &bytes, &model)
        && let Some(e) = unknown_variable(lit, b, m)
    {
        errors.push(e);
    }
    if let (Some(var), Some(e)) = (&args.var, &model) {
        let v = var.value();
        if syn::parse_str::<Ident>(&v).is_err() {
            errors.push(syn::Error::new(
                var.span(),
                format!("`{v}` is not a variable name"),
            ));
        } else if v != "x" && e.depends_on("x") {
            errors.push(syn::Error::new(
                var.span(),
                format!("the model uses both `{v}` (the size, renamed to x) and `x`; write it in one of them"),
            ));
        } else {
            model = Some(e.subs(&v, &Expr::var("x")));
            bytes = bytes.map(|b| b.subs(&v, &Expr::var("x")));
        }
    }
    if let Some(n) = &args.name
        && (n.value().is_empty() || n.value().contains(char::is_whitespace))
    {
        errors.push(syn::Error::new(n.span(), "an atom name is one word"));
    }
    errors.finish()?;
    Ok(Checked {
        model: (model.expect("checked") * factor).simplify(),
        bytes: bytes.map(|b| b.simplify()),
    })
}

/// The error when the bytes (`lit`, read as `bytes`) name a variable that
/// the model does not, both as written (before `var` renames the size).
fn unknown_variable(lit: &LitStr, bytes: &Expr, model: &Expr) -> Option<syn::Error> {
    let known = model.vars();
    let v = bytes.vars().into_iter().find(|v| !known.contains(v))?;
    let known = match known.into_iter().collect::<Vec<_>>().join(", ") {
        none if none.is_empty() => "it has none".to_string(),
        names => names,
    };
    Some(syn::Error::new(
        lit.span(),
        format!(
            "the bytes use `{v}`, which is not a variable of the model ({known}): the bytes are a function of the model's variables"
        ),
    ))
}

/// The value, or `None` with the error recorded.
fn ok_or_push<T>(result: syn::Result<T>, errors: &mut Errors) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// `cost_of!(path)`.
pub fn cost_of_inner(input: TokenStream) -> TokenStream {
    match syn::parse2::<Path>(input) {
        Ok(path) => {
            let annotation = annotation_path(&path);
            quote!(#annotation)
        }
        Err(e) => e.to_compile_error(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::expand;

    #[test]
    fn cost_keeps_the_function_and_adds_docs_and_the_annotation() {
        let out = cost_inner(
            quote!("1034.17 * x * log2(x)"),
            quote!(
                pub fn qsort(v: &mut Vec<i32>) {
                    v.sort_unstable()
                }
            ),
        )
        .to_string();
        assert!(
            out.contains("pub fn qsort (v : & mut Vec < i32 >) { v . sort_unstable () }"),
            "{out}"
        );
        assert!(out.contains("# [doc = \" **Cost model** (`#[cost]`): `1034.17·x·log₂(x)` ns per call, O(x·log₂x).\"]"), "{out}");
        assert!(
            out.contains(
                "pub const __cost_model_of_qsort : :: pattern_core :: __private :: CostAnnotation"
            ),
            "{out}"
        );
        assert!(out.contains("name : \"qsort\""), "{out}");
        assert!(out.contains("text : \"1034.17*x*log2(x)\""), "{out}");
    }

    #[test]
    fn cost_options_convert_units_and_rename_the_size() {
        let out = cost_inner(
            quote!("2 * n", var = "n", unit = "us", name = "double"),
            quote!(
                fn f(n: usize) {}
            ),
        )
        .to_string();
        assert!(out.contains("text : \"2000*x\""), "{out}");
        assert!(out.contains("name : \"double\""), "{out}");
        assert!(out.contains("x is `n`; written in us."), "{out}");
    }

    #[test]
    fn cost_bytes_are_renamed_by_var_but_not_converted_by_unit() {
        let out = cost_inner(
            quote!("2 * n", var = "n", unit = "us", bytes = "8 * n + 64"),
            quote!(
                fn f(n: usize) {}
            ),
        )
        .to_string();
        assert!(out.contains("text : \"2000*x\""), "{out}");
        let tree = ":: pattern_core :: __private :: ConstExpr :: Add (& :: pattern_core :: __private :: ConstExpr :: Mul (& :: pattern_core :: __private :: ConstExpr :: Num (8f64) , & :: pattern_core :: __private :: ConstExpr :: Var (\"x\")) , & :: pattern_core :: __private :: ConstExpr :: Num (64f64))";
        assert!(
            out.contains(&format!(
                "bytes : :: core :: option :: Option :: Some ({tree})"
            )),
            "{out}"
        );
        assert!(
            out.contains("moves `8·x + 64` bytes of memory per call; x is `n`; written in us."),
            "{out}"
        );
        // Without `bytes`, the annotation records none.
        let out = cost_inner(
            quote!("x"),
            quote!(
                fn g() {}
            ),
        )
        .to_string();
        assert!(
            out.contains("bytes : :: core :: option :: Option :: None"),
            "{out}"
        );
        assert!(!out.contains("bytes of memory"), "{out}");
    }

    #[test]
    fn cost_bytes_errors() {
        let error = |args: TokenStream| {
            cost_inner(
                args,
                quote!(
                    fn f() {}
                ),
            )
            .to_string()
        };
        let out = error(quote!("x", bytes = "8 * (x"));
        assert!(out.starts_with("fn f () { }"), "{out}");
        assert!(
            out.contains("compile_error ! { \"invalid bytes expression: expected `)` to close the `(` at byte 4"),
            "{out}"
        );
        let out = error(quote!("2 * x", bytes = "8 * x * y"));
        assert!(
            out.contains("the bytes use `y`, which is not a variable of the model (x)"),
            "{out}"
        );
        // Checked as written: with `var = "n"`, the size of the bytes is `n`.
        let out = error(quote!("2 * n", var = "n", bytes = "8 * x"));
        assert!(
            out.contains("the bytes use `x`, which is not a variable of the model (n)"),
            "{out}"
        );
        let out = error(quote!("5", bytes = "x"));
        assert!(
            out.contains("not a variable of the model (it has none)"),
            "{out}"
        );
        let out = error(quote!("x", bytes = "allgather(p, 8)"));
        assert!(
            out.contains("`allgather` is not a built-in function"),
            "{out}"
        );
        let out = error(quote!("x", bytes = "8 * x", bytes = "x"));
        assert!(out.contains("`bytes` is given twice"), "{out}");
        // Every error at once.
        let out = error(quote!("x", unit = "h", bytes = "y"));
        assert!(out.contains("unknown unit `h`"), "{out}");
        assert!(out.contains("the bytes use `y`"), "{out}");
    }

    #[test]
    fn cost_errors_keep_the_item_and_a_placeholder() {
        let out = cost_inner(
            quote!("1034.17 * x * log2(x"),
            quote!(
                fn qsort() {}
            ),
        )
        .to_string();
        assert!(out.starts_with("fn qsort () { }"), "{out}");
        assert!(out.contains("__cost_model_of_qsort"), "{out}");
        assert!(
            out.contains(
                "compile_error ! { \"invalid cost model: expected `)` to close the `(` at byte 18"
            ),
            "{out}"
        );
        let out = cost_inner(
            quote!("x", unit = "hours", var = "n"),
            quote!(
                fn f() {}
            ),
        )
        .to_string();
        assert!(out.contains("unknown unit `hours`"), "{out}");
        let out = cost_inner(
            quote!("x"),
            quote!(
                struct S;
            ),
        )
        .to_string();
        assert!(out.contains("#[cost] goes on a function"), "{out}");
        let out = cost_inner(
            quote!(),
            quote!(
                fn f() {}
            ),
        )
        .to_string();
        assert!(out.contains("expected the cost model as a string"), "{out}");
    }

    #[test]
    fn cost_of_points_at_the_annotation() {
        assert_eq!(
            expand(cost_of_inner, "Foo::sort"),
            "Foo :: __cost_model_of_sort"
        );
    }
}
