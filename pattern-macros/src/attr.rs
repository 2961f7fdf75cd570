//! The arguments of `#[cost(..)]`: the model, then `key = "value"` options.

use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// `#[cost("model", var = "n", unit = "us", name = "sort", bytes = "8*n")]`.
pub struct CostArgs {
    /// The model's text.
    pub model: LitStr,
    /// `var = "n"`: the model's size variable, renamed to `x`.
    pub var: Option<LitStr>,
    /// `unit = "us"`: the model's unit, converted to ns.
    pub unit: Option<LitStr>,
    /// `name = "sort"`: the atom's name in designs.
    pub name: Option<LitStr>,
    /// `bytes = "8*n"`: the bytes a call moves to and from memory, in the
    /// model's variables (renamed by `var`, not converted by `unit`).
    pub bytes: Option<LitStr>,
}

impl Parse for CostArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(
                "expected the cost model as a string: #[cost(\"1034.17 * x * log2(x)\")] (ns per call, x = elements)",
            ));
        }
        let model: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the cost model as a string first: #[cost(\"1034.17 * x * log2(x)\")]",
            )
        })?;
        let mut args = CostArgs {
            model,
            var: None,
            unit: None,
            name: None,
            bytes: None,
        };
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: LitStr = input.parse().map_err(|e| {
                syn::Error::new(e.span(), format!("expected a string: `{key} = \"...\"`"))
            })?;
            let slot = match key.to_string().as_str() {
                "var" => &mut args.var,
                "unit" => &mut args.unit,
                "name" => &mut args.name,
                "bytes" => &mut args.bytes,
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{other}`: the options are var, unit, name and bytes"
                        ),
                    ));
                }
            };
            if slot.is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    format!("`{key}` is given twice"),
                ));
            }
            *slot = Some(value);
        }
        Ok(args)
    }
}

/// Nanoseconds per unit.
pub fn unit_factor(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}
