//! `design!(..)`: the design syntax, read and checked by the one parser of
//! the grammar crate (the same code as `Design::parse`, positions mapped back
//! to the user's tokens), then written out as a design type.

use super::annotation::{annotation_path, path_text};
use super::errors::Errors;
use crate::ast::DesignInput;
use crate::model;
use crate::tokens::TokenText;
use pattern_design::parse::{Definitions, NodeSites, Parsed, Resolve, parse_with};
use pattern_design::{Atom, Count, DesignErrorKind, Term};
use pattern_expr::Expr;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Path};

/// The model given to atoms defined outside the macro while checking: they
/// are resolved by the compiler (their `CostModel`), not here.
const OUTSIDE: &str = "__defined_outside_the_design";

/// What the macro knows of atom names besides the definitions: any other
/// name is an annotated function (lowercase) or a design type (capitalized),
/// which the compiler resolves. The offset of each name's first use is kept
/// for the spans of the generated code.
#[derive(Default)]
struct OutsideAtoms {
    first_use: Vec<(String, usize)>,
}

impl Resolve for OutsideAtoms {
    fn atom(
        &mut self,
        name: &str,
        at: usize,
        definitions: &Definitions,
    ) -> Result<Atom, DesignErrorKind> {
        if let Some(d) = definitions.get(name) {
            return Ok(d.atom(name));
        }
        if !self.first_use.iter().any(|(n, _)| n == name) {
            self.first_use.push((name.to_string(), at));
        }
        Ok(Atom::new(name, Expr::var(OUTSIDE)))
    }
}

/// `design!(..)`.
pub fn design_inner(input: TokenStream) -> TokenStream {
    let input: DesignInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let text = TokenText::new(input.body.clone());
    let mut outside = OutsideAtoms::default();
    let mut errors = Errors::default();
    let parsed = match parse_with(&text.text, &mut outside) {
        Ok(parsed) => Some(parsed),
        Err(all) => {
            for e in all {
                errors.push(syn::Error::new(
                    text.span_at(e.offset()),
                    e.kind().to_string(),
                ));
            }
            None
        }
    };
    if let Some(parsed) = &parsed {
        compile_time_models(parsed, &text, &mut errors);
    }
    if let Err(e) = errors.finish() {
        return invalid(&input, e);
    }
    // A design that did not parse always has an error, reported above.
    let Some(parsed) = parsed else {
        return invalid(&input, syn::Error::new(Span::call_site(), "invalid design"));
    };
    let (prefix, vis) = match &input.head {
        Some(head) => (format!("__{}", head.name), {
            let vis = &head.vis;
            quote!(#vis)
        }),
        None => ("__design".to_string(), quote!()),
    };
    let mut generator = Gen {
        prefix,
        vis,
        items: Vec::new(),
        made: Vec::new(),
        text: &text,
        parsed: &parsed,
        outside: &outside,
        index: 0,
    };
    let ty = generator.node(&parsed.term);
    let items = generator.items;
    let Some(head) = input.head else {
        return quote! {
            {
                #(#items)*
                // A count given by a const is checked here: 0 fails the build.
                const _: () = {
                    let _ = <#ty as ::pattern_core::__private::Pattern>::MODEL;
                };
                ::pattern_core::__private::design_of::<#ty>()
            }
        };
    };
    let (attrs, vis, name) = (&head.attrs, &head.vis, &head.name);
    let doc = format!(" Design `{}` (`design!`).", parsed.term);
    let shuffle_free = (!parsed.term.has_shuffle())
        .then(|| quote!(impl ::pattern_core::__private::ShuffleFree for #name {}));
    quote! {
        #(#items)*
        #(#attrs)*
        #[doc = ""]
        #[doc = #doc]
        #vis enum #name {}
        impl ::pattern_core::__private::Pattern for #name {
            const MODEL: ::pattern_core::__private::ConstExpr = <#ty as ::pattern_core::__private::Pattern>::MODEL;
            fn term() -> ::pattern_core::Term {
                <#ty as ::pattern_core::__private::Pattern>::term()
            }
        }
        #shuffle_free
        #[allow(dead_code)]
        impl #name {
            /// The design as a value.
            pub fn design() -> ::pattern_core::Design {
                ::pattern_core::__private::design_of::<Self>()
            }
            /// The design's term.
            pub fn term() -> ::pattern_core::Term {
                <Self as ::pattern_core::__private::Pattern>::term()
            }
            /// The throughput model (`pipe` as a pointwise `max`), in normal form.
            pub fn model() -> ::pattern_core::Expr {
                <Self as ::pattern_core::__private::Pattern>::model()
            }
            /// The throughput model with the paper's asymptotic choice for `pipe`.
            pub fn model_asymptotic() -> ::pattern_core::Expr {
                <Self as ::pattern_core::__private::Pattern>::model_asymptotic()
            }
            /// The latency of one element.
            pub fn latency() -> ::pattern_core::Expr {
                <Self as ::pattern_core::__private::Pattern>::latency()
            }
            /// The threads and nodes the design occupies.
            pub fn resources() -> ::pattern_core::Resources {
                <Self as ::pattern_core::__private::Pattern>::resources()
            }
            /// The cost per element at input size `x`, in `const` context.
            pub const fn cost_at(x: f64) -> f64 {
                ::pattern_core::__private::cost_with::<Self>(&[("x", x)])
            }
        }
    }
}

/// The models written in the macro are evaluated at compile time: they
/// cannot call machine functions.
fn compile_time_models(parsed: &Parsed, text: &TokenText, errors: &mut Errors) {
    let mut check = |e: &Expr, at: usize| {
        if let Some(name) = e.applied_functions().into_iter().next() {
            errors.push(syn::Error::new(
                text.span_at(at),
                model::machine_function_message(&name),
            ));
        }
    };
    for d in &parsed.definitions {
        check(&d.model, d.at);
        if let Some(bytes) = &d.bytes {
            check(bytes, d.at);
        }
    }
    for (node, sites) in parsed.term.preorder().zip(&parsed.sites) {
        match node {
            Term::MapReduce { params, .. } => {
                check(&params.d, sites.head);
                check(&params.k, sites.head);
            }
            Term::Redist(cost, ..) => check(cost, sites.head),
            _ => {}
        }
    }
}

/// The output for a rejected design: the errors, and a stand-in design so
/// that its uses add no errors of their own.
fn invalid(input: &DesignInput, e: syn::Error) -> TokenStream {
    let err = e.to_compile_error();
    match &input.head {
        Some(head) => {
            let (vis, name) = (&head.vis, &head.name);
            quote!(#vis type #name = ::pattern_core::__private::InvalidDesign; #err)
        }
        // A block, so that several errors stay statements in expression
        // position, and a value of the stand-in design.
        None => quote!({
            #err
            ::pattern_core::__private::design_of::<::pattern_core::__private::InvalidDesign>()
        }),
    }
}

/// The items and types of one `design!` expansion.
struct Gen<'a> {
    prefix: String,
    vis: TokenStream,
    items: Vec<TokenStream>,
    made: Vec<(String, Ident)>,
    text: &'a TokenText,
    parsed: &'a Parsed,
    outside: &'a OutsideAtoms,
    /// The pre-order index of the next node (for its sites).
    index: usize,
}

impl Gen<'_> {
    fn fresh(&mut self, key: String, what: &str) -> (Ident, bool) {
        if let Some((_, ident)) = self.made.iter().find(|(k, _)| *k == key) {
            return (ident.clone(), false);
        }
        let ident = format_ident!("{}_{}{}", self.prefix, what, self.made.len());
        self.made.push((key, ident.clone()));
        (ident, true)
    }

    fn cost_model(&mut self, ident: &Ident, name: TokenStream, model: TokenStream) {
        self.cost_model_moving(ident, name, model, None);
    }

    /// [`Gen::cost_model`] of an atom that moves `bytes` of memory a call:
    /// `bytes` is an `Option<ConstExpr>` expression.
    fn cost_model_moving(
        &mut self,
        ident: &Ident,
        name: TokenStream,
        model: TokenStream,
        bytes: Option<TokenStream>,
    ) {
        let vis = &self.vis;
        let bytes = bytes.map(|b| {
            quote!(const BYTES: ::core::option::Option<::pattern_core::__private::ConstExpr> = #b;)
        });
        self.items.push(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis enum #ident {}
            impl ::pattern_core::__private::CostModel for #ident {
                const NAME: &'static str = #name;
                const MODEL: ::pattern_core::__private::ConstExpr = #model;
                #bytes
            }
            impl ::pattern_core::__private::ShuffleFree for #ident {}
        });
    }

    fn atom(&mut self, atom: &Atom) -> TokenStream {
        if let Some(def) = self.parsed.definitions.iter().find(|d| d.name == atom.name) {
            let (ident, new) = self.fresh(format!("def {}", def.name), "def");
            if new {
                let text = def.name.clone();
                let model = model::const_tokens(&def.model.simplify());
                let bytes = (def.bytes.as_ref()).map(|b| {
                    let tree = model::const_tokens(&b.simplify());
                    quote!(::core::option::Option::Some(#tree))
                });
                self.cost_model_moving(&ident, quote!(#text), model, bytes);
            }
            return quote!(#ident);
        }
        let at = self
            .outside
            .first_use
            .iter()
            .find(|(n, _)| *n == atom.name)
            .map_or(0, |(_, at)| *at);
        let Ok(path) = syn::parse2::<Path>(self.text.path_at(at)) else {
            let span = self.text.span_at(at);
            return quote_spanned!(span=> ::core::compile_error!("expected an atom"));
        };
        let last = &path.segments.last().expect("a path has a segment").ident;
        if !crate::ast::starts_lowercase(last) {
            return quote!(#path);
        }
        let (ident, new) = self.fresh(format!("fn {}", path_text(&path)), "atom");
        if new {
            let annotation = annotation_path(&path);
            let span = last.span();
            let name = quote_spanned!(span=> #annotation.name);
            let model = quote_spanned!(span=> #annotation.model);
            let bytes = quote_spanned!(span=> #annotation.bytes);
            self.cost_model_moving(&ident, name, model, Some(bytes));
        }
        quote!(#ident)
    }

    fn function(&mut self, what: &str, e: &Expr) -> TokenStream {
        let (ident, _) = self.fresh(format!("{what} {}", e.to_ascii()), what);
        let model = model::const_tokens(e);
        self.cost_model(&ident, quote!(#what), model);
        quote!(#ident)
    }

    fn count(&mut self, count: &Count, at: usize) -> TokenStream {
        let span = self.text.span_at(at);
        match count {
            Count::Fixed(k) => {
                let lit = Literal::u64_unsuffixed(*k);
                quote_spanned!(span=> ::pattern_core::dsl::Fixed<#lit>)
            }
            Count::Symbol(name) if name.contains("::") || !name.starts_with(char::is_lowercase) => {
                let path = self.text.path_at(at);
                quote!(::pattern_core::dsl::Fixed<{ #path }>)
            }
            Count::Symbol(name) => {
                let (ident, new) = self.fresh(format!("count {name}"), "count");
                if new {
                    let vis = &self.vis;
                    self.items.push(quote! {
                        #[doc(hidden)]
                        #[allow(non_camel_case_types)]
                        #vis enum #ident {}
                        impl ::pattern_core::__private::CountName for #ident {
                            const NAME: &'static str = #name;
                        }
                    });
                }
                quote!(#ident)
            }
        }
    }

    /// The type of `term`, whose pre-order index is `self.index`.
    fn node(&mut self, term: &Term) -> TokenStream {
        let sites: NodeSites = self
            .parsed
            .sites
            .get(self.index)
            .cloned()
            .unwrap_or_default();
        self.index += 1;
        let count_at = |i: usize| sites.counts.get(i).copied().unwrap_or(sites.head);
        // The one walk over `Term`'s variants outside the grammar
        // (scripts/term_walks.py allows it): a type per node, for a design
        // text of bounded depth (`syntax::MAX_DEPTH`).
        match term {
            Term::Atom(atom) => self.atom(atom),
            Term::Seq(a, b) | Term::Pipe(a, b) => {
                let op = if matches!(term, Term::Seq(..)) {
                    quote!(::pattern_core::dsl::Seq)
                } else {
                    quote!(::pattern_core::dsl::Pipe)
                };
                let (a, b) = (self.node(a), self.node(b));
                quote!(#op<#a, #b>)
            }
            Term::Tpool(n, body) => {
                let n = self.count(n, count_at(0));
                let body = self.node(body);
                quote!(::pattern_core::dsl::TpoolOver<#n, #body>)
            }
            Term::MapReduce {
                params,
                map,
                shuffle,
                reduce,
            } => {
                let m = self.count(&params.m, count_at(0));
                let n = self.count(&params.n, count_at(1));
                let d = self.function("d", &params.d);
                let k = self.function("k", &params.k);
                let map = self.node(map);
                let shuffle = self.atom(shuffle);
                let reduce = self.node(reduce);
                quote!(::pattern_core::dsl::MapReduceOver<#m, #n, #d, #k, #map, #shuffle, #reduce>)
            }
            Term::On(p, body) => {
                let p = self.count(p, count_at(0));
                let body = self.node(body);
                quote!(::pattern_core::__private::On<#p, #body>)
            }
            Term::Groups(s, body) => {
                let s = self.count(s, count_at(0));
                let body = self.node(body);
                quote!(::pattern_core::__private::Groups<#s, #body>)
            }
            Term::Par(sizes, parts) => {
                let mut list = quote!(());
                let typed: Vec<(TokenStream, TokenStream)> = sizes
                    .iter()
                    .zip(parts)
                    .enumerate()
                    .map(|(i, (size, part))| (self.count(size, count_at(i)), self.node(part)))
                    .collect();
                for (size, part) in typed.into_iter().rev() {
                    list = quote!((::pattern_core::__private::Part<#size, #part>, #list));
                }
                quote!(::pattern_core::__private::Par<#list>)
            }
            Term::Redist(cost, a, b) => {
                let cost = self.function("redist", cost);
                let (a, b) = (self.node(a), self.node(b));
                quote!(::pattern_core::__private::Redist<#cost, #a, #b>)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::expand;

    #[test]
    fn design_expression_form() {
        let out = expand(design_inner, "pipe(tpool[4](qsort), inc, Nop)");
        assert!(out.contains("enum __design_atom0 { }"), "{out}");
        assert!(out.contains("__cost_model_of_qsort . name"), "{out}");
        // The bytes of an annotated function come from its annotation.
        assert!(
            out.contains(
                "const BYTES : :: core :: option :: Option < :: pattern_core :: __private :: ConstExpr > = __cost_model_of_qsort . bytes ;"
            ),
            "{out}"
        );
        assert!(out.contains(
            "design_of :: < :: pattern_core :: dsl :: Pipe < :: pattern_core :: dsl :: TpoolOver < :: pattern_core :: dsl :: Fixed < 4 > , __design_atom0 > , :: pattern_core :: dsl :: Pipe < __design_atom1 , Nop > > > ()"
        ), "{out}");
    }

    #[test]
    fn design_item_form_with_definitions_and_symbols() {
        let out = expand(
            design_inner,
            "pub type Pool = nop = 5422.97; tpool[n](seq(qsort, nop))",
        );
        assert!(out.contains("pub enum Pool { }"), "{out}");
        assert!(
            out.contains("# [doc = \" Design `tpool[n](seq(qsort, nop))` (`design!`).\"]"),
            "{out}"
        );
        assert!(
            out.contains("impl :: pattern_core :: __private :: CountName for __Pool_count"),
            "{out}"
        );
        assert!(out.contains("const NAME : & 'static str = \"n\""), "{out}");
        assert!(
            out.contains("impl :: pattern_core :: __private :: ShuffleFree for Pool { }"),
            "{out}"
        );
    }

    #[test]
    fn task_groups_and_consts() {
        let out = expand(
            design_inner,
            "stage = 1000 / p; on[64](par[16, N](stage, groups[4](stage)))",
        );
        assert!(
            out.contains(
                ":: pattern_core :: __private :: On < :: pattern_core :: dsl :: Fixed < 64 >"
            ),
            "{out}"
        );
        assert!(
            out.contains("Part < :: pattern_core :: dsl :: Fixed < { N } >"),
            "{out}"
        );
        assert!(
            out.contains(":: pattern_core :: __private :: Groups <"),
            "{out}"
        );
        let out = expand(design_inner, "a = 1; seq[redist = 3 * p](a, a)");
        assert!(
            out.contains(":: pattern_core :: __private :: Redist < __design_redist"),
            "{out}"
        );
    }

    #[test]
    fn design_errors_are_all_reported() {
        let out = expand(design_inner, "pipe(tpool[0](a), farm(b), seq(c))");
        assert!(out.contains("a count of 0"), "{out}");
        assert!(out.contains("unknown pattern `farm`"), "{out}");
        assert!(
            out.contains("`seq` takes two or more components, found 1"),
            "{out}"
        );
        let out = expand(
            design_inner,
            "tpool[2](mapreduce[n = 2, d = x, k = 768](m, s, r))",
        );
        assert!(out.contains("a task pool cannot wrap a mapReduce"), "{out}");
        let out = expand(design_inner, "pub type D = tpool[2](pipe(a))");
        assert!(
            out.contains("pub type D = :: pattern_core :: __private :: InvalidDesign ;"),
            "{out}"
        );
        let out = expand(design_inner, "mapreduce[n = 2, d = x, z = 1](m, s, r)");
        assert!(out.contains("unknown mapreduce parameter `z`"), "{out}");
        let out = expand(design_inner, "c = allgather(p, 8); on[4](c)");
        assert!(
            out.contains("`allgather` is not a built-in function"),
            "{out}"
        );
    }

    /// The first error of `design!` on each ill-formed design of the corpus
    /// is the one `Design::parse` gives (`tests/corpus.rs` checks that side).
    #[test]
    fn the_corpus_gives_the_same_first_errors_as_the_text() {
        let corpus = include_str!("../../../tests/corpus/invalid.txt");
        let mut cases = 0;
        for line in corpus
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let (text, want) = line.split_once(" => ").expect("design => error");
            // Unbalanced delimiters never reach a macro: rustc rejects them.
            let Ok(tokens) = text.parse::<TokenStream>() else {
                continue;
            };
            let out = design_inner(tokens).to_string();
            let first = out
                .split("compile_error ! { ")
                .nth(1)
                .and_then(|rest| rest.split(" }").next())
                .unwrap_or_else(|| panic!("{text}: no error in {out}"));
            let message: String = syn::parse_str::<syn::LitStr>(first)
                .unwrap_or_else(|e| panic!("{text}: {first}: {e}"))
                .value();
            assert_eq!(message, want, "{text}");
            cases += 1;
        }
        assert_eq!(cases, 24);
    }
}
