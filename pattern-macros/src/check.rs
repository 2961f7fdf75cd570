//! The checks of `design!`: known patterns, the number of components,
//! positive counts, the mapreduce parameters, no shuffle inside a task pool.
//! Every error found is reported, each at the user's span.

use crate::ast::{CountAst, Def, ModelSource, ParamAst, TermAst, starts_lowercase};
use crate::model;
use pattern_expr::Expr;
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, Path, Token};

/// What an atom name refers to.
pub enum AtomRef {
    /// A function annotated with `#[cost]` (lowercase last segment).
    Annotated(Path),
    /// A type implementing `CostModel` or a design type (capitalized).
    Type(Path),
    /// An atom defined in the macro, by its index in the definitions.
    Local(usize, Ident),
}

/// A checked term.
pub enum Node {
    /// An atom.
    Atom(AtomRef),
    /// `seq` of two or more.
    Seq(Vec<Node>),
    /// `pipe` of two or more.
    Pipe(Vec<Node>),
    /// `tpool[count](body)`.
    Tpool(CountAst, Box<Node>),
    /// `mapreduce[..](map, shuffle, reduce)`.
    MapReduce(Box<MapReduceNode>),
}

/// The parts of a checked `mapreduce`.
pub struct MapReduceNode {
    /// Nodes (`None`: the default, 1).
    pub m: Option<CountAst>,
    /// Threads per node.
    pub n: CountAst,
    /// Elements per key.
    pub d: Expr,
    /// Keys.
    pub k: Expr,
    /// The map phase.
    pub map: Node,
    /// The shuffle phase, an atom.
    pub shuffle: AtomRef,
    /// The reduce phase.
    pub reduce: Node,
}

impl Node {
    /// Whether the node contains a mapreduce (and so a shuffle).
    pub fn has_shuffle(&self) -> bool {
        match self {
            Node::Atom(_) => false,
            Node::Seq(parts) | Node::Pipe(parts) => parts.iter().any(Node::has_shuffle),
            Node::Tpool(_, body) => body.has_shuffle(),
            Node::MapReduce(_) => true,
        }
    }
}

/// Collects errors so the user sees all of them at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error.
    pub fn push(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(err),
            None => self.0 = Some(err),
        }
    }

    /// `Err` with every error recorded, or `Ok`.
    pub fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// Checks a term against the definitions; `None` where it is ill-formed
/// (the reasons are in `errors`).
pub fn check(term: &TermAst, defs: &[Def], errors: &mut Errors) -> Option<Node> {
    match term {
        TermAst::Atom(path) => Some(Node::Atom(atom_ref(path, defs))),
        TermAst::Pattern { kw, params, parts } => {
            let name = kw.to_string();
            let checked: Vec<Option<Node>> = parts.iter().map(|p| check(p, defs, errors)).collect();
            let arity_error = |expected: &str| {
                syn::Error::new(
                    kw.span(),
                    format!("`{name}` takes {expected}, found {}", parts.len()),
                )
            };
            match name.as_str() {
                "seq" | "pipe" => {
                    if let Some((_, span)) = params {
                        errors.push(syn::Error::new(
                            *span,
                            format!("`{name}` has no parameters: {name}(a, b, ..)"),
                        ));
                    }
                    if parts.len() < 2 {
                        errors.push(arity_error("two or more components"));
                        return None;
                    }
                    let nodes: Option<Vec<Node>> = checked.into_iter().collect();
                    let nodes = nodes?;
                    Some(if name == "seq" {
                        Node::Seq(nodes)
                    } else {
                        Node::Pipe(nodes)
                    })
                }
                "tpool" => {
                    let count = match params {
                        Some((tokens, span)) => parse_count(tokens.clone(), *span, errors),
                        None => {
                            errors.push(syn::Error::new(
                                kw.span(),
                                "`tpool` needs its thread count: tpool[n](task)",
                            ));
                            None
                        }
                    };
                    if parts.len() != 1 {
                        errors.push(arity_error("one component"));
                        return None;
                    }
                    let body = checked.into_iter().next().flatten()?;
                    if body.has_shuffle() {
                        errors.push(syn::Error::new(
                            kw.span(),
                            "a task pool cannot wrap a mapReduce: a shuffle phase must never be inside a task pool (seed 001 §3.2); put the task pool around the map or the reduce phase instead",
                        ));
                        return None;
                    }
                    Some(Node::Tpool(count?, Box::new(body)))
                }
                "mapreduce" | "mapReduce" => {
                    let params = match params {
                        Some((tokens, span)) => map_reduce_params(tokens.clone(), *span, errors),
                        None => {
                            errors.push(syn::Error::new(
                                kw.span(),
                                "`mapreduce` needs its parameters: mapreduce[m = .., n = .., d = .., k = ..](map, shuffle, reduce)",
                            ));
                            None
                        }
                    };
                    if parts.len() != 3 {
                        errors.push(arity_error("three components: map, shuffle, reduce"));
                        return None;
                    }
                    let shuffle = match &parts[1] {
                        TermAst::Atom(path) => Some(atom_ref(path, defs)),
                        other => {
                            errors.push(syn::Error::new(
                                other.span(),
                                "the shuffle phase is an atom (a model in x, o, m, n), not a pattern",
                            ));
                            None
                        }
                    };
                    let mut it = checked.into_iter();
                    let (map, _, reduce) = (it.next().flatten(), it.next(), it.next().flatten());
                    let (m, n, d, k) = params?;
                    Some(Node::MapReduce(Box::new(MapReduceNode {
                        m,
                        n,
                        d,
                        k,
                        map: map?,
                        shuffle: shuffle?,
                        reduce: reduce?,
                    })))
                }
                _ => {
                    errors.push(syn::Error::new(
                        kw.span(),
                        format!("unknown pattern `{name}`: the patterns are seq, pipe, tpool and mapreduce"),
                    ));
                    None
                }
            }
        }
    }
}

fn atom_ref(path: &Path, defs: &[Def]) -> AtomRef {
    if let Some(ident) = path.get_ident() {
        if let Some(i) = defs.iter().position(|d| d.name == *ident) {
            return AtomRef::Local(i, ident.clone());
        }
    }
    let last = &path.segments.last().expect("a path has a segment").ident;
    if starts_lowercase(last) {
        AtomRef::Annotated(path.clone())
    } else {
        AtomRef::Type(path.clone())
    }
}

fn parse_count(tokens: TokenStream, span: Span, errors: &mut Errors) -> Option<CountAst> {
    if tokens.is_empty() {
        errors.push(syn::Error::new(
            span,
            "expected a count: a positive integer, a const, or a name such as `n`",
        ));
        return None;
    }
    match syn::parse2::<CountAst>(tokens) {
        Ok(count) => check_count(count, errors),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

fn check_count(count: CountAst, errors: &mut Errors) -> Option<CountAst> {
    if let CountAst::Int(lit) = &count {
        match lit.base10_parse::<u64>() {
            Ok(0) => {
                errors.push(syn::Error::new(
                    lit.span(),
                    "a count of 0: counts are positive integers or names",
                ));
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                errors.push(e);
                return None;
            }
        }
    }
    Some(count)
}

type MapReduceParams = (Option<CountAst>, CountAst, Expr, Expr);

fn map_reduce_params(
    tokens: TokenStream,
    span: Span,
    errors: &mut Errors,
) -> Option<MapReduceParams> {
    let params = match Punctuated::<ParamAst, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(params) => params,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let (mut m, mut n, mut d, mut k) = (None, None, None, None);
    let mut ok = true;
    for p in params {
        let name = p.name.to_string();
        let seen = match name.as_str() {
            "m" => m.is_some(),
            "n" => n.is_some(),
            "d" => d.is_some(),
            "k" => k.is_some(),
            _ => {
                errors.push(syn::Error::new(
                    p.name.span(),
                    format!("unknown mapreduce parameter `{name}`: the parameters are m, n, d, k"),
                ));
                ok = false;
                continue;
            }
        };
        if seen {
            errors.push(syn::Error::new(
                p.name.span(),
                format!("`{name}` is given twice"),
            ));
            ok = false;
            continue;
        }
        match name.as_str() {
            "m" | "n" => {
                let tokens = match &p.value {
                    ModelSource::Tokens(t) => t.clone(),
                    ModelSource::Lit(lit) => {
                        errors.push(syn::Error::new(
                            lit.span(),
                            "a count is a number or a name, not a string",
                        ));
                        ok = false;
                        continue;
                    }
                };
                let count = parse_count(tokens, p.value.span(), errors);
                ok &= count.is_some();
                if name == "m" { m = count } else { n = count }
            }
            _ => match model::parse(&p.value) {
                Ok(e) => {
                    if name == "d" {
                        d = Some(e)
                    } else {
                        k = Some(e)
                    }
                }
                Err(e) => {
                    errors.push(e);
                    ok = false;
                }
            },
        }
    }
    for (missing, what) in [
        (n.is_none(), "`n` (threads per node)"),
        (d.is_none(), "`d` (elements per key, a function of x)"),
        (k.is_none(), "`k` (number of keys, a function of x)"),
    ] {
        if missing && ok {
            errors.push(syn::Error::new(span, format!("mapreduce needs {what}")));
        }
    }
    Some((m, n?, d?, k?)).filter(|_| ok)
}
