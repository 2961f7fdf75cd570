//! The parsed inputs of `design!`, `cost_budget!` and `cost_summary!`,
//! keeping the user's spans for the errors.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitInt, LitStr, Path, Token, Visibility, bracketed, parenthesized};

/// A cost model written in a macro: a string literal, or bare tokens
/// (`536.185 * x`), which are read back as text.
#[derive(Clone)]
pub enum ModelSource {
    /// `"1034.17 * x * log2(x)"`.
    Lit(LitStr),
    /// `1034.17 * x * log2(x)`.
    Tokens(TokenStream),
}

impl ModelSource {
    /// The model's text.
    pub fn text(&self) -> String {
        match self {
            ModelSource::Lit(lit) => lit.value(),
            ModelSource::Tokens(tokens) => tokens.to_string(),
        }
    }

    /// Where to point errors.
    pub fn span(&self) -> Span {
        match self {
            ModelSource::Lit(lit) => lit.span(),
            ModelSource::Tokens(tokens) => tokens
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span()),
        }
    }

    /// Tokens up to a `,` or `;` at this level (or the end): a string
    /// literal alone is taken as the model's text.
    fn parse_until_separator(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr)
            && (input.peek2(Token![,]) || input.peek2(Token![;]) || peek_end_after_lit(input))
        {
            return Ok(ModelSource::Lit(input.parse()?));
        }
        let mut tokens = TokenStream::new();
        while !input.is_empty() && !input.peek(Token![,]) && !input.peek(Token![;]) {
            let tt: TokenTree = input.parse()?;
            tokens.extend([tt]);
        }
        if tokens.is_empty() {
            return Err(
                input.error("expected a cost model, such as `536.185 * x` or \"536.185 * x\"")
            );
        }
        Ok(ModelSource::Tokens(tokens))
    }
}

fn peek_end_after_lit(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<LitStr>().is_ok() && fork.is_empty()
}

/// A count in brackets: `4`, `N` (a const in scope) or `n` (a symbol).
#[derive(Clone)]
pub enum CountAst {
    /// An integer literal.
    Int(LitInt),
    /// A lowercase name: a variable of the model.
    Symbol(Ident),
    /// A path to a `u64` const (uppercase, or with `::`).
    Const(Path),
}

impl Parse for CountAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitInt) {
            return Ok(CountAst::Int(input.parse()?));
        }
        let path: Path = input.call(Path::parse_mod_style).map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a count: a positive integer, a const, or a name such as `n`",
            )
        })?;
        match path.get_ident() {
            Some(ident) if starts_lowercase(ident) => Ok(CountAst::Symbol(ident.clone())),
            _ => Ok(CountAst::Const(path)),
        }
    }
}

/// A `name = value` parameter of `mapreduce[..]`.
#[derive(Clone)]
pub struct ParamAst {
    /// `m`, `n`, `d` or `k` (others are reported by the checks).
    pub name: Ident,
    /// The value's tokens, interpreted by the checks.
    pub value: ModelSource,
}

impl Parse for ParamAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let value = ModelSource::parse_until_separator(input)?;
        Ok(ParamAst { name, value })
    }
}

/// A term of the design syntax.
#[derive(Clone)]
pub enum TermAst {
    /// A reference to an atom: an annotated function (`qsort`,
    /// `Type::method`), a `CostModel` or design type (`Qsort`), or a name
    /// defined in the macro.
    Atom(Path),
    /// `name[params](components)` or `name(components)`.
    Pattern {
        /// `seq`, `pipe`, `tpool`, `mapreduce` (others are reported).
        kw: Ident,
        /// The bracketed parameters, unparsed (their meaning depends on the
        /// pattern), with the bracket's span.
        params: Option<(TokenStream, Span)>,
        /// The components.
        parts: Vec<TermAst>,
    },
}

impl TermAst {
    /// The span of the term's head, for errors.
    pub fn span(&self) -> Span {
        match self {
            TermAst::Atom(path) => path
                .segments
                .last()
                .map_or_else(Span::call_site, |s| s.ident.span()),
            TermAst::Pattern { kw, .. } => kw.span(),
        }
    }
}

impl Parse for TermAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: Path = input.call(Path::parse_mod_style).map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected an atom or a pattern (seq, pipe, tpool, mapreduce)",
            )
        })?;
        let is_call = input.peek(syn::token::Paren) || input.peek(syn::token::Bracket);
        if !is_call {
            return Ok(TermAst::Atom(path));
        }
        let Some(kw) = path.get_ident().cloned() else {
            return Err(syn::Error::new_spanned(
                &path,
                "a pattern is one name: seq, pipe, tpool or mapreduce",
            ));
        };
        let params = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = bracketed!(content in input);
            Some((content.parse::<TokenStream>()?, bracket.span.join()))
        } else {
            None
        };
        if !input.peek(syn::token::Paren) {
            return Err(input.error(format!("expected `(` and the components of `{kw}`")));
        }
        let content;
        parenthesized!(content in input);
        let parts = Punctuated::<TermAst, Token![,]>::parse_terminated(&content)?;
        Ok(TermAst::Pattern {
            kw,
            params,
            parts: parts.into_iter().collect(),
        })
    }
}

/// `name = model;`, an atom defined inside `design!`.
#[derive(Clone)]
pub struct Def {
    /// The atom's name.
    pub name: Ident,
    /// Its model.
    pub model: ModelSource,
}

/// `#[attrs] vis type Name =`, the head of the item form of `design!`.
pub struct ItemHead {
    /// Attributes (docs) for the generated type.
    pub attrs: Vec<Attribute>,
    /// Its visibility.
    pub vis: Visibility,
    /// Its name.
    pub name: Ident,
}

/// The input of `design!`.
pub struct DesignInput {
    /// `Some` for the item form.
    pub head: Option<ItemHead>,
    /// Atoms defined in the macro.
    pub defs: Vec<Def>,
    /// The term.
    pub term: TermAst,
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
        let mut defs = Vec::new();
        while input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let model = ModelSource::parse_until_separator(input)?;
            input.parse::<Token![;]>()?;
            defs.push(Def { name, model });
        }
        let term: TermAst = input.parse()?;
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
        }
        if !input.is_empty() {
            return Err(
                input.error("expected the end of the design: one term after the definitions")
            );
        }
        Ok(DesignInput { head, defs, term })
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
