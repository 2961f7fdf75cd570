//! `cost_budget!(..)`.

use super::annotation::path_text;
use crate::ast::BudgetInput;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// `cost_budget!(Design, x = .., max = ..)`.
pub fn cost_budget_inner(input: TokenStream) -> TokenStream {
    let input: BudgetInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let design = &input.design;
    let name = path_text(design);
    let bindings = input.point.iter().map(|b| {
        let var = b.name.to_string();
        let value = Literal::f64_suffixed(b.value);
        quote!((#var, #value))
    });
    let point = if input.point.is_empty() {
        "no bound variable".to_string()
    } else {
        input
            .point
            .iter()
            .map(|b| format!("{} = {}", b.name, b.text))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (max, max_text, max_span) = (&input.max.0, &input.max.1, input.max.2);
    let max = Literal::f64_suffixed(*max);
    let head = format!("cost_budget!: `{name}` costs ");
    let tail = format!(" ns per element at {point}, over the budget of {max_text} ns");
    let unbound = format!(
        "cost_budget!: `{name}` has no value at {point}: a variable of its model is unbound (give it a value here, such as `n = 4`)"
    );
    quote_spanned! {max_span=>
        const _: () = {
            const __COST: f64 = ::pattern_core::__private::cost_with::<#design>(&[#(#bindings),*]);
            if __COST.is_nan() {
                ::core::panic!(#unbound);
            }
            if __COST > #max {
                const __MESSAGE: ::pattern_core::__private::ConstText<512> =
                    ::pattern_core::__private::ConstText::new().push(#head).push_number(__COST).push(#tail);
                ::core::panic!("{}", ::pattern_core::__private::ConstText::as_str(&__MESSAGE));
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::{cost_summary_inner, expand};

    #[test]
    fn budget_and_summary() {
        let out = expand(cost_budget_inner, "Sorter, x = 1e6, max = 2.5e9");
        assert!(
            out.contains("cost_with :: < Sorter > (& [(\"x\" , 1000000f64)])"),
            "{out}"
        );
        assert!(
            out.contains("\" ns per element at x = 1e6, over the budget of 2.5e9 ns\""),
            "{out}"
        );
        let out = expand(cost_budget_inner, "Sorter, x = 1e6");
        assert!(out.contains("cost_budget! needs the budget"), "{out}");
        let out = expand(
            cost_summary_inner,
            "pub const S = [A, B] at x = [1024, 1e6] with n = 4;",
        );
        assert!(
            out.contains("| design | model | class in x | x = 1024 | x = 1e6 |"),
            "{out}"
        );
        assert!(out.contains("(\"n\" , 4f64)"), "{out}");
    }
}
