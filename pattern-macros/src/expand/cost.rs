//! `#[cost(..)]` and `cost_of!(..)`.

use super::annotation::{annotation_const, annotation_path};
use super::errors::Errors;
use crate::attr::{CostArgs, unit_factor};
use crate::model;
use pattern_expr::Expr;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, Path};

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
    let placeholder = annotation_const(&vis, &name, &name.to_string(), &Expr::num(0.0));
    let args: CostArgs = match syn::parse2(args) {
        Ok(args) => args,
        Err(e) => {
            let err = e.to_compile_error();
            return quote!(#item #placeholder #err);
        }
    };
    let mut errors = Errors::default();
    let parsed = model::parse_text(&args.model.value(), args.model.span());
    let factor = match &args.unit {
        Some(unit) => match unit_factor(&unit.value()) {
            Some(f) => f,
            None => {
                errors.push(syn::Error::new(
                    unit.span(),
                    format!("unknown unit `{}`: use ns, us, ms or s", unit.value()),
                ));
                1.0
            }
        },
        None => 1.0,
    };
    let mut model = match parsed {
        Ok(e) => Some(e),
        Err(e) => {
            errors.push(e);
            None
        }
    };
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
        }
    }
    let atom = args.name.as_ref().map_or_else(
        || name.to_string().trim_start_matches("r#").to_string(),
        |n| n.value(),
    );
    if let Some(n) = &args.name
        && (n.value().is_empty() || n.value().contains(char::is_whitespace))
    {
        errors.push(syn::Error::new(n.span(), "an atom name is one word"));
    }
    if let Err(e) = errors.finish() {
        let err = e.to_compile_error();
        return quote!(#item #placeholder #err);
    }
    let model = (model.expect("checked") * factor).simplify();

    // The cost summary in the function's docs.
    let class = model
        .growth("x")
        .map_or_else(|| "class unknown".to_string(), |g| g.to_string());
    let mut line = format!(" **Cost model** (`#[cost]`): `{model}` ns per call, {class}");
    if let Some(var) = &args.var {
        line.push_str(&format!("; x is `{}`", var.value()));
    }
    if let Some(unit) = &args.unit {
        line.push_str(&format!("; written in {}", unit.value()));
    }
    line.push('.');
    function.attrs.push(syn::parse_quote!(#[doc = ""]));
    function.attrs.push(syn::parse_quote!(#[doc = #line]));
    let annotation = annotation_const(&vis, &name, &atom, &model);
    quote!(#function #annotation)
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
