//! Code generation. Every entry point returns the user's item unchanged on
//! error (plus a harmless placeholder where later code names what the macro
//! would have made), so a mistake shows as one error, not a cascade.

mod budget;
mod cost;
mod design;
mod summary;

pub use budget::cost_budget_inner;
pub use cost::{cost_inner, cost_of_inner};
pub use design::design_inner;
pub use summary::cost_summary_inner;

use crate::model;
use pattern_expr::Expr;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Path, Visibility};

/// The name of the const that `#[cost]` writes next to function `name`.
pub(crate) fn annotation_ident(name: &Ident) -> Ident {
    let plain = name.to_string();
    let plain = plain.trim_start_matches("r#");
    Ident::new(&format!("__cost_model_of_{plain}"), name.span())
}

/// The path of the annotation of the function at `path`.
pub(crate) fn annotation_path(path: &Path) -> Path {
    let mut out = path.clone();
    let last = out.segments.last_mut().expect("a path has a segment");
    last.ident = annotation_ident(&last.ident);
    out
}

pub(crate) fn path_text(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

pub(crate) fn annotation_const(
    vis: &Visibility,
    fn_name: &Ident,
    atom: &str,
    model: &Expr,
) -> TokenStream {
    let ident = annotation_ident(fn_name);
    let tree = model::const_tokens(model);
    let text = model.to_ascii();
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #ident: ::pattern_core::__private::CostAnnotation = ::pattern_core::__private::CostAnnotation {
            name: #atom,
            model: #tree,
            text: #text,
        };
    }
}

/// Collects errors so the user sees all of them at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error.
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(err),
            None => self.0 = Some(err),
        }
    }

    /// `Err` with every error recorded, or `Ok`.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
pub(crate) fn expand(f: fn(TokenStream) -> TokenStream, input: &str) -> String {
    f(input.parse().unwrap()).to_string()
}
