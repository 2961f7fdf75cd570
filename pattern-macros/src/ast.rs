//! The parsed inputs of `design!` (its head; the design itself is read by
//! the grammar crate), `cost_budget!` and `cost_summary!`, keeping the
//! user's spans for the errors.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, Path, Token, Visibility, bracketed};

/// `#[attrs] vis type Name =`, the head of the item form of `design!`.
pub struct ItemHead {
    /// Attributes (docs) for the generated type.
    pub attrs: Vec<Attribute>,
    /// Its visibility.
    pub vis: Visibility,
    /// Its name.
    pub name: Ident,
}

/// The input of `design!`: the item head, if any, and the design's tokens
/// (read by the grammar crate's parser).
pub struct DesignInput {
    /// `Some` for the item form.
    pub head: Option<ItemHead>,
    /// The design: definitions and one term.
    pub body: TokenStream,
}

impl Parse for DesignInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let head = if input.peek(Token![type]) || input.peek(Token![pub]) {
            let vis: Visibility = input.parse()?;
            input.parse::<Token![type]>()?;
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some(ItemHead { attrs, vis, name })
        } else {
            if let Some(attr) = attrs.first() {
                return Err(syn::Error::new_spanned(
                    attr,
                    "attributes go with the item form: `design!(#[doc = ..] pub type Name = ...)`",
                ));
            }
            None
        };
        let body: TokenStream = input.parse()?;
        Ok(DesignInput { head, body })
    }
}

/// A number in a macro: `1e6`, `262144`, `2.5e9`.
pub fn parse_number(input: ParseStream) -> syn::Result<(f64, Span)> {
    let lit: syn::Lit = input.parse()?;
    let span = lit.span();
    let value = match &lit {
        syn::Lit::Float(f) => f.base10_parse::<f64>()?,
        syn::Lit::Int(i) => i.base10_parse::<f64>()?,
        _ => return Err(syn::Error::new(span, "expected a number such as `1e6`")),
    };
    if !value.is_finite() || value < 0.0 {
        return Err(syn::Error::new(
            span,
            "expected a finite, non-negative number",
        ));
    }
    Ok((value, span))
}

/// `name = number` in a budget or summary.
pub struct Binding {
    /// The variable.
    pub name: Ident,
    /// Its value.
    pub value: f64,
    /// The value's text, for messages.
    pub text: String,
}

impl Parse for Binding {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let fork = input.fork();
        let lit: syn::Lit = fork.parse()?;
        let text = match &lit {
            syn::Lit::Float(f) => f.base10_digits().to_string(),
            syn::Lit::Int(i) => i.base10_digits().to_string(),
            _ => String::new(),
        };
        let (value, _) = parse_number(input)?;
        Ok(Binding { name, value, text })
    }
}

/// The input of `cost_budget!`: a design type, the point, and `max`.
pub struct BudgetInput {
    /// The design type.
    pub design: Path,
    /// The point (`x = 1e6`, ...).
    pub point: Vec<Binding>,
    /// The budget in ns per element, its text and span.
    pub max: (f64, String, Span),
}

impl Parse for BudgetInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let design: Path = input.parse()?;
        let mut point = Vec::new();
        let mut max = None;
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let binding: Binding = input.parse()?;
            if binding.name == "max" {
                if max.is_some() {
                    return Err(syn::Error::new(binding.name.span(), "`max` is given twice"));
                }
                max = Some((binding.value, binding.text, binding.name.span()));
            } else if point.iter().any(|b: &Binding| b.name == binding.name) {
                return Err(syn::Error::new(
                    binding.name.span(),
                    format!("`{}` is given twice", binding.name),
                ));
            } else {
                point.push(binding);
            }
        }
        if !input.is_empty() {
            return Err(
                input.error("expected `, name = value` (for example `, x = 1e6, max = 2.5e9`)")
            );
        }
        let max = max.ok_or_else(|| {
            syn::Error::new_spanned(
                &design,
                "cost_budget! needs the budget: `cost_budget!(Design, x = 1e6, max = 2.5e9)`",
            )
        })?;
        Ok(BudgetInput { design, point, max })
    }
}

/// The input of `cost_summary!`:
/// `#[attrs] vis const NAME = [A, B] at x = [1024, 1e6] (with n = 4)?;`.
pub struct SummaryInput {
    /// Attributes of the const.
    pub attrs: Vec<Attribute>,
    /// Its visibility.
    pub vis: Visibility,
    /// Its name.
    pub name: Ident,
    /// The designs (types).
    pub designs: Vec<Path>,
    /// The variable of the columns.
    pub var: Ident,
    /// Its values, with their text.
    pub points: Vec<(f64, String)>,
    /// Other variables held fixed.
    pub fixed: Vec<Binding>,
}

impl Parse for SummaryInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![const]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let content;
        bracketed!(content in input);
        let designs: Vec<Path> = Punctuated::<Path, Token![,]>::parse_terminated(&content)?
            .into_iter()
            .collect();
        let at: Ident = input.parse()?;
        if at != "at" {
            return Err(syn::Error::new(
                at.span(),
                "expected `at`: `[A, B] at x = [1024, 1e6]`",
            ));
        }
        let var: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let content;
        bracketed!(content in input);
        let mut points = Vec::new();
        while !content.is_empty() {
            let fork = content.fork();
            let text = match fork.parse::<syn::Lit>()? {
                syn::Lit::Float(f) => f.base10_digits().to_string(),
                syn::Lit::Int(i) => i.base10_digits().to_string(),
                _ => String::new(),
            };
            let (v, _) = parse_number(&content)?;
            points.push((v, text));
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        let mut fixed = Vec::new();
        if input.peek(Ident) {
            let with: Ident = input.parse()?;
            if with != "with" {
                return Err(syn::Error::new(
                    with.span(),
                    "expected `with` (other variables) or `;`",
                ));
            }
            loop {
                fixed.push(input.parse::<Binding>()?);
                if !input.peek(Token![,]) {
                    break;
                }
                input.parse::<Token![,]>()?;
            }
        }
        input.parse::<Token![;]>()?;
        if designs.is_empty() {
            return Err(syn::Error::new(
                name.span(),
                "cost_summary! needs at least one design",
            ));
        }
        Ok(SummaryInput {
            attrs,
            vis,
            name,
            designs,
            var,
            points,
            fixed,
        })
    }
}

/// Whether a name starts with a lowercase letter (or `_`): functions and
/// symbols, as opposed to types and consts.
pub fn starts_lowercase(ident: &Ident) -> bool {
    ident
        .to_string()
        .trim_start_matches("r#")
        .chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c == '_')
}
