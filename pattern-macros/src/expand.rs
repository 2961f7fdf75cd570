//! Code generation. Every entry point returns the user's item unchanged on
//! error (plus a harmless placeholder where later code names what the macro
//! would have made), so a mistake shows as one error, not a cascade.

use crate::ast::{BudgetInput, CountAst, DesignInput, SummaryInput};
use crate::attr::{CostArgs, unit_factor};
use crate::check::{self, AtomRef, Errors, Node};
use crate::model;
use pattern_expr::Expr;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Path, Visibility};

/// The name of the const that `#[cost]` writes next to function `name`.
fn annotation_ident(name: &Ident) -> Ident {
    let plain = name.to_string();
    let plain = plain.trim_start_matches("r#");
    Ident::new(&format!("__cost_model_of_{plain}"), name.span())
}

/// The path of the annotation of the function at `path`.
fn annotation_path(path: &Path) -> Path {
    let mut out = path.clone();
    let last = out.segments.last_mut().expect("a path has a segment");
    last.ident = annotation_ident(&last.ident);
    out
}

fn path_text(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn annotation_const(vis: &Visibility, fn_name: &Ident, atom: &str, model: &Expr) -> TokenStream {
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
    if let Some(n) = &args.name {
        if n.value().is_empty() || n.value().contains(char::is_whitespace) {
            errors.push(syn::Error::new(n.span(), "an atom name is one word"));
        }
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

/// The items and types of one `design!` expansion.
struct Gen<'a> {
    prefix: String,
    vis: TokenStream,
    items: Vec<TokenStream>,
    defs: &'a [crate::ast::Def],
    def_models: &'a [Expr],
    made: Vec<(String, Ident)>,
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
        let vis = &self.vis;
        self.items.push(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis enum #ident {}
            impl ::pattern_core::__private::CostModel for #ident {
                const NAME: &'static str = #name;
                const MODEL: ::pattern_core::__private::ConstExpr = #model;
            }
            impl ::pattern_core::__private::ShuffleFree for #ident {}
        });
    }

    fn atom(&mut self, atom: &AtomRef) -> TokenStream {
        match atom {
            AtomRef::Type(path) => quote!(#path),
            AtomRef::Annotated(path) => {
                let (ident, new) = self.fresh(format!("fn {}", path_text(path)), "atom");
                if new {
                    let annotation = annotation_path(path);
                    let span = path.segments.last().expect("segment").ident.span();
                    let name = quote_spanned!(span=> #annotation.name);
                    let model = quote_spanned!(span=> #annotation.model);
                    self.cost_model(&ident, name, model);
                }
                quote!(#ident)
            }
            AtomRef::Local(i, name) => {
                let (ident, new) = self.fresh(format!("def {name}"), "def");
                if new {
                    let text = name.to_string();
                    let model = model::const_tokens(&self.def_models[*i]);
                    self.cost_model(&ident, quote!(#text), model);
                }
                let _ = &self.defs[*i];
                quote!(#ident)
            }
        }
    }

    fn function(&mut self, what: &str, e: &Expr) -> TokenStream {
        let (ident, _) = self.fresh(format!("{what} {}", e.to_ascii()), what);
        let model = model::const_tokens(e);
        self.cost_model(&ident, quote!(#what), model);
        quote!(#ident)
    }

    fn count(&mut self, count: &CountAst) -> TokenStream {
        match count {
            CountAst::Int(lit) => quote!(::pattern_core::Fixed<#lit>),
            CountAst::Const(path) => quote!(::pattern_core::Fixed<{ #path }>),
            CountAst::Symbol(name) => {
                let (ident, new) = self.fresh(format!("count {name}"), "count");
                if new {
                    let vis = &self.vis;
                    let text = name.to_string();
                    self.items.push(quote! {
                        #[doc(hidden)]
                        #[allow(non_camel_case_types)]
                        #vis enum #ident {}
                        impl ::pattern_core::__private::CountName for #ident {
                            const NAME: &'static str = #text;
                        }
                    });
                }
                quote!(#ident)
            }
        }
    }

    fn node(&mut self, node: &Node) -> TokenStream {
        match node {
            Node::Atom(atom) => self.atom(atom),
            Node::Seq(parts) | Node::Pipe(parts) => {
                let op = if matches!(node, Node::Seq(_)) {
                    quote!(::pattern_core::Seq)
                } else {
                    quote!(::pattern_core::Pipe)
                };
                let types: Vec<TokenStream> = parts.iter().map(|p| self.node(p)).collect();
                // n-ary nests to the right, as in the design syntax.
                let mut iter = types.into_iter().rev();
                let mut acc = iter.next().expect("two or more");
                for t in iter {
                    acc = quote!(#op<#t, #acc>);
                }
                acc
            }
            Node::Tpool(count, body) => {
                let body = self.node(body);
                let count = self.count(count);
                quote!(::pattern_core::TpoolOver<#count, #body>)
            }
            Node::MapReduce(mr) => {
                let check::MapReduceNode {
                    m,
                    n,
                    d,
                    k,
                    map,
                    shuffle,
                    reduce,
                } = &**mr;
                let m = match m {
                    Some(m) => self.count(m),
                    None => quote!(::pattern_core::Fixed<1>),
                };
                let n = self.count(n);
                let d = self.function("d", d);
                let k = self.function("k", k);
                let map = self.node(map);
                let shuffle = self.atom(shuffle);
                let reduce = self.node(reduce);
                quote!(::pattern_core::MapReduceOver<#m, #n, #d, #k, #map, #shuffle, #reduce>)
            }
        }
    }
}

/// The design as text, for the docs of a design type.
fn describe(node: &Node) -> String {
    let count = |c: &CountAst| match c {
        CountAst::Int(lit) => lit.to_string(),
        CountAst::Symbol(name) => name.to_string(),
        CountAst::Const(path) => path_text(path),
    };
    let atom = |a: &AtomRef| match a {
        AtomRef::Type(p) | AtomRef::Annotated(p) => path_text(p),
        AtomRef::Local(_, name) => name.to_string(),
    };
    match node {
        Node::Atom(a) => atom(a),
        Node::Seq(parts) | Node::Pipe(parts) => {
            let name = if matches!(node, Node::Seq(_)) {
                "seq"
            } else {
                "pipe"
            };
            let parts: Vec<String> = parts.iter().map(describe).collect();
            format!("{name}({})", parts.join(", "))
        }
        Node::Tpool(c, body) => format!("tpool[{}]({})", count(c), describe(body)),
        Node::MapReduce(mr) => format!(
            "mapreduce[m = {}, n = {}, d = {}, k = {}]({}, {}, {})",
            mr.m.as_ref().map_or("1".to_string(), count),
            count(&mr.n),
            mr.d.to_ascii(),
            mr.k.to_ascii(),
            describe(&mr.map),
            atom(&mr.shuffle),
            describe(&mr.reduce)
        ),
    }
}

/// `design!(..)`.
pub fn design_inner(input: TokenStream) -> TokenStream {
    let input: DesignInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let mut def_models = Vec::new();
    for (i, def) in input.defs.iter().enumerate() {
        if input.defs[..i].iter().any(|d| d.name == def.name) {
            errors.push(syn::Error::new(
                def.name.span(),
                format!("`{}` is defined twice", def.name),
            ));
        }
        if ["seq", "pipe", "tpool", "mapreduce"].contains(&def.name.to_string().as_str()) {
            errors.push(syn::Error::new(
                def.name.span(),
                format!("`{}` is a pattern and cannot name an atom", def.name),
            ));
        }
        match model::parse(&def.model) {
            Ok(e) => def_models.push(e.simplify()),
            Err(e) => {
                errors.push(e);
                def_models.push(Expr::num(0.0));
            }
        }
    }
    let node = check::check(&input.term, &input.defs, &mut errors);
    if let Err(e) = errors.finish() {
        let err = e.to_compile_error();
        // An invalid design type is still declared, so that its uses do not
        // add errors of their own.
        return match input.head {
            Some(head) => {
                let (vis, name) = (&head.vis, &head.name);
                quote!(#vis type #name = ::pattern_core::__private::InvalidDesign; #err)
            }
            // A block, so that several errors stay statements in expression
            // position, and a value of the stand-in design.
            None => quote!({
                #err
                ::pattern_core::__private::DesignValue::<::pattern_core::__private::InvalidDesign>::new()
            }),
        };
    }
    let node = node.expect("no errors");
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
        defs: &input.defs,
        def_models: &def_models,
        made: Vec::new(),
    };
    let ty = generator.node(&node);
    let items = generator.items;
    let Some(head) = input.head else {
        return quote! {
            {
                #(#items)*
                ::pattern_core::__private::DesignValue::<#ty>::new()
            }
        };
    };
    let (attrs, vis, name) = (&head.attrs, &head.vis, &head.name);
    let text = format!(" Design `{}` (`design!`).", describe(&node));
    let shuffle_free = (!node.has_shuffle())
        .then(|| quote!(impl ::pattern_core::__private::ShuffleFree for #name {}));
    quote! {
        #(#items)*
        #(#attrs)*
        #[doc = ""]
        #[doc = #text]
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
            /// The design as a runtime term.
            pub fn term() -> ::pattern_core::Term {
                <Self as ::pattern_core::__private::Pattern>::term()
            }
            /// The symbolic throughput model (`pipe` as a pointwise `max`).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(f: fn(TokenStream) -> TokenStream, input: &str) -> String {
        f(input.parse().unwrap()).to_string()
    }

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
    fn design_expression_form() {
        let out = expand(design_inner, "pipe(tpool[4](qsort), inc, Nop)");
        assert!(out.contains("enum __design_atom0 { }"), "{out}");
        assert!(out.contains("__cost_model_of_qsort . name"), "{out}");
        assert!(out.contains(
            "DesignValue :: < :: pattern_core :: Pipe < :: pattern_core :: TpoolOver < :: pattern_core :: Fixed < 4 > , __design_atom0 > , :: pattern_core :: Pipe < __design_atom1 , Nop > > > :: new ()"
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
    }

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

    #[test]
    fn cost_of_points_at_the_annotation() {
        assert_eq!(
            expand(cost_of_inner, "Foo::sort"),
            "Foo :: __cost_model_of_sort"
        );
    }
}
