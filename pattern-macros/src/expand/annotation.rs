//! The const that `#[cost]` writes beside a function, and how the other
//! macros name it from the function's path.

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

/// The annotation of function `fn_name`: the atom's name, its model and the
/// bytes a call moves, if given.
pub(crate) fn annotation_const(
    vis: &Visibility,
    fn_name: &Ident,
    atom: &str,
    model: &Expr,
    bytes: Option<&Expr>,
) -> TokenStream {
    let ident = annotation_ident(fn_name);
    let tree = model::const_tokens(model);
    let text = model.to_ascii();
    let bytes = match bytes {
        Some(b) => {
            let tree = model::const_tokens(b);
            quote!(::core::option::Option::Some(#tree))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #ident: ::pattern_core::__private::CostAnnotation = ::pattern_core::__private::CostAnnotation {
            name: #atom,
            model: #tree,
            text: #text,
            bytes: #bytes,
        };
    }
}
