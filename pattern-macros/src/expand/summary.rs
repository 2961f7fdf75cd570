//! `cost_summary! { .. }`.

use super::annotation::path_text;
use crate::ast::SummaryInput;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `cost_summary! { vis const NAME = [..] at x = [..] (with ..)?; }`.
pub fn cost_summary_inner(input: TokenStream) -> TokenStream {
    let input: SummaryInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let var = input.var.to_string();
    let mut header = format!("| design | model | class in {var} |");
    let mut rule = String::from("| --- | --- | --- |");
    for (_, text) in &input.points {
        header.push_str(&format!(" {var} = {text} |"));
        rule.push_str(" ---: |");
    }
    let fixed_note = if input.fixed.is_empty() {
        String::new()
    } else {
        let fixed: Vec<String> = input
            .fixed
            .iter()
            .map(|b| format!("{} = {}", b.name, b.text))
            .collect();
        format!("\n\nns per element; {}.", fixed.join(", "))
    };
    let top = format!("{header}\n{rule}\n");
    let fixed: Vec<TokenStream> = input
        .fixed
        .iter()
        .map(|b| {
            let name = b.name.to_string();
            let value = Literal::f64_suffixed(b.value);
            quote!((#name, #value))
        })
        .collect();
    let rows = input.designs.iter().map(|design| {
        let name = format!("| `{}` | ", path_text(design));
        let cells = input.points.iter().map(|(value, _)| {
            let value = Literal::f64_suffixed(*value);
            quote! {
                .push(" ").push_number(::pattern_core::__private::cost_with::<#design>(&[(#var, #value), #(#fixed),*])).push(" |")
            }
        });
        quote! {
            .push(#name)
            .push_model(&<#design as ::pattern_core::__private::Pattern>::MODEL)
            .push(" | ")
            .push_class(&<#design as ::pattern_core::__private::Pattern>::MODEL, #var)
            .push(" |")
            #(#cells)*
            .push("\n")
        }
    });
    let capacity = 1024 + input.designs.len() * (2048 + 32 * input.points.len());
    let (attrs, vis, name) = (&input.attrs, &input.vis, &input.name);
    quote! {
        #(#attrs)*
        #vis const #name: &str = {
            const __TEXT: ::pattern_core::__private::ConstText<#capacity> =
                ::pattern_core::__private::ConstText::new().push(#top) #(#rows)* .push(#fixed_note);
            ::pattern_core::__private::ConstText::as_str(&__TEXT)
        };
    }
}
