//! The design syntax, read once for every front end (`Design::parse` and
//! the `design!` macro): zero or more atom definitions `name = EXPR;`
//! followed by one term. Square brackets carry a pattern's parameters (the
//! paper's sub- and superscripts), parentheses its components:
//!
//! ```text
//! qsort = 1034.17 * x * log2(x);
//! inc   = 536.185 * x;
//! nop   = 5422.97;
//! pipe(tpool[4](qsort), inc, nop)
//! ```
//!
//! ```text
//! design    := (name '=' model ';')* term ';'?
//! term      := name                                        an atom (a path: Type::method)
//!            | ('seq' | 'pipe') '(' term (',' term)+ ')'    n-ary: nested to the right
//!            | 'tpool' '[' count ']' '(' term ')'
//!            | 'mapreduce' '[' param (',' param)* ']' '(' term ',' name ',' term ')'
//!            | 'on' '[' count ']' '(' term ')'             a task on p processors
//!            | 'par' '[' count (',' count)* ']' '(' term (',' term)* ')'
//!            | 'groups' '[' count ']' '(' term ')'
//!            | 'seq' '[' 'redist' '=' model ']' '(' term ',' term ')'
//! count     := positive integer | name
//! param     := ('m' | 'n') '=' count | ('d' | 'k') '=' model   m defaults to 1
//! model     := a cost expression, or one in double quotes
//! ```
//!
//! Every problem is collected (a syntax error stops the reading; everything
//! else is reported together, each at its position), and the well-formedness
//! rules are those of [`crate::check`], mapped back to the text.

use crate::check::check;
use crate::error::{DesignError, DesignErrorKind, Site};
use crate::position::Locator;
use crate::syntax::{self, RawDefinition, RawParam, Syn};
use crate::term::{Atom, Count, MapReduceParams, PATTERNS, Term};
use pattern_expr::Expr;
use std::collections::HashMap;

/// An atom defined in the design text.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// Its name.
    pub name: String,
    /// The offset of the name.
    pub at: usize,
    /// Its model.
    pub model: Expr,
    /// The bytes a call moves to and from memory (`[bytes = ..]`).
    pub bytes: Option<Expr>,
}

impl Definition {
    /// The atom it defines, called `name`.
    pub fn atom(&self, name: &str) -> Atom {
        Atom {
            name: name.into(),
            model: self.model.clone(),
            bytes: self.bytes.clone(),
        }
    }
}

/// The definitions read so far, found by name in constant time (a design
/// may define many atoms and use each many times).
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    list: Vec<Definition>,
    index: HashMap<String, usize>,
}

impl Definitions {
    /// The definition of `name` (the first one, if it is given twice).
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.index.get(name).map(|&i| &self.list[i])
    }

    /// Every definition, in the order given.
    pub fn iter(&self) -> std::slice::Iter<'_, Definition> {
        self.list.iter()
    }

    fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    fn push(&mut self, def: Definition) {
        self.index
            .entry(def.name.clone())
            .or_insert(self.list.len());
        self.list.push(def);
    }
}

/// Where a node of the term is written: the offset of its head and of each
/// of its counts (for [`Site`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeSites {
    /// The pattern's (or atom's) name.
    pub head: usize,
    /// The counts, in the order written.
    pub counts: Vec<usize>,
    /// The `[` of the parameters, if any.
    pub params: Option<usize>,
}

impl NodeSites {
    /// The offset of `site` in this node.
    pub fn offset(&self, site: Site) -> usize {
        match site {
            Site::Head => self.head,
            Site::Count(i) => self.counts.get(i).copied().unwrap_or(self.head),
            Site::Params => self.params.unwrap_or(self.head),
        }
    }
}

/// A design read from text: the definitions, the term, and where each node
/// of the term is written (by its index in [`Term::preorder`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The atoms defined, in order.
    pub definitions: Vec<Definition>,
    /// The term.
    pub term: Term,
    /// The sites of every node, in pre-order.
    pub sites: Vec<NodeSites>,
}

/// How the names of atoms are resolved: what a front end knows besides the
/// definitions in the text.
pub trait Resolve {
    /// The atom called `name` (a name or a path) written at offset `at`,
    /// given the definitions.
    fn atom(
        &mut self,
        name: &str,
        at: usize,
        definitions: &Definitions,
    ) -> Result<Atom, DesignErrorKind>;
}

/// Only the atoms defined in the text: what `Design::parse` knows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Defined;

impl Resolve for Defined {
    fn atom(
        &mut self,
        name: &str,
        _: usize,
        definitions: &Definitions,
    ) -> Result<Atom, DesignErrorKind> {
        match definitions.get(name) {
            Some(d) => Ok(d.atom(name)),
            None => Err(DesignErrorKind::UnknownAtom {
                name: name.into(),
                defined: defined_list(definitions),
            }),
        }
    }
}

/// At most this many defined names are listed in an unknown atom's error.
const LISTED: usize = 10;

/// The names defined, for an error: the first [`LISTED`] and how many more
/// (an error per unknown name must not copy a design of 10^5 atoms).
fn defined_list(definitions: &Definitions) -> String {
    let total = definitions.list.len();
    let names: Vec<&str> = definitions
        .iter()
        .take(LISTED)
        .map(|d| d.name.as_str())
        .collect();
    match total {
        0 => "none".into(),
        _ if total <= LISTED => names.join(", "),
        _ => format!("{} and {} more", names.join(", "), total - LISTED),
    }
}

/// Parses a design text with the atoms it defines; the first error (in
/// the order of the text) if it is not a well-formed design.
pub fn parse(text: &str) -> Result<Parsed, DesignError> {
    parse_with(text, &mut Defined).map_err(|mut all| all.swap_remove(0))
}

/// Parses a design text, resolving names with `resolve`; every error (at
/// least one), in the order of the text, if it is not a well-formed design.
pub fn parse_with(text: &str, resolve: &mut dyn Resolve) -> Result<Parsed, Vec<DesignError>> {
    let raw = syntax::read(text).map_err(|(kind, at)| vec![DesignError::new(kind, text, at)])?;
    let mut reader = Interpreter {
        text,
        resolve,
        definitions: Definitions::default(),
        sites: Vec::new(),
        errors: Vec::new(),
        own_error: false,
    };
    for def in &raw.definitions {
        reader.definition(def);
    }
    let term = reader.term(&raw.term);
    let Interpreter {
        definitions,
        sites,
        mut errors,
        ..
    } = reader;
    {
        // The checker runs on the placeholders too: every problem is found.
        for problem in check(&term) {
            let at = sites
                .get(problem.node)
                .map_or(0, |node| node.offset(problem.site));
            errors.push((at, problem.kind));
        }
    }
    if errors.is_empty() {
        return Ok(Parsed {
            definitions: definitions.list,
            term,
            sites,
        });
    }
    errors.sort_by_key(|(at, _)| *at);
    let mut locator = Locator::new(text);
    Err(errors
        .into_iter()
        .map(|(at, kind)| DesignError::located(kind, locator.locate(at)))
        .collect())
}

struct Interpreter<'a> {
    text: &'a str,
    resolve: &'a mut dyn Resolve,
    definitions: Definitions,
    sites: Vec<NodeSites>,
    errors: Vec<(usize, DesignErrorKind)>,
    /// Whether the node being read has an error of its own (not of a part).
    own_error: bool,
}

/// A node that could not be read: it keeps its place in the term so that
/// the rest is still checked.
fn placeholder() -> Term {
    Term::atom("?", Expr::num(0.0))
}

impl Interpreter<'_> {
    fn error(&mut self, at: usize, kind: DesignErrorKind) {
        self.errors.push((at, kind));
        self.own_error = true;
    }

    fn definition(&mut self, def: &RawDefinition) {
        let (name, at) = &def.name;
        if PATTERNS.contains(&name.as_str()) {
            self.error(*at, DesignErrorKind::ReservedName { name: name.clone() });
        }
        if self.definitions.contains(name) {
            self.error(*at, DesignErrorKind::Duplicate { name: name.clone() });
        }
        let model = self
            .model(&def.model.0, def.model.1)
            .unwrap_or_else(|| Expr::num(0.0));
        let bytes = (def.params.as_ref()).and_then(|(params, _)| self.bytes(name, params));
        self.definitions.push(Definition {
            name: name.clone(),
            at: *at,
            model,
            bytes,
        });
    }

    /// An atom's parameters: `bytes = expr` at most once, nothing else.
    fn bytes(&mut self, atom: &str, params: &[RawParam]) -> Option<Expr> {
        let mut bytes = None;
        for p in params {
            let Some((key, at)) = &p.key else {
                let form = "`name = model [bytes = expression];`";
                let pattern = atom.to_string();
                self.error(p.text.1, DesignErrorKind::Form { pattern, form });
                continue;
            };
            if key != "bytes" {
                self.error(
                    *at,
                    DesignErrorKind::UnknownParam {
                        pattern: "atom",
                        name: key.clone(),
                        known: "`bytes`",
                    },
                );
            } else if bytes.is_some() {
                self.error(*at, DesignErrorKind::Duplicate { name: key.clone() });
            } else {
                bytes = self.model(&p.text.0, p.text.1);
            }
        }
        bytes
    }

    /// A cost expression written at `at` (quotes allowed).
    fn model(&mut self, text: &str, at: usize) -> Option<Expr> {
        let trimmed = text.trim();
        let at = at + (text.len() - text.trim_start().len());
        let (text, at) = match trimmed.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(inner) => (inner, at + 1),
            None => (trimmed, at),
        };
        match Expr::parse(text) {
            Ok(e) => Some(e),
            Err(e) => {
                let shifted = e.shifted(self.text, at);
                self.error(shifted.offset(), DesignErrorKind::Expr(shifted));
                None
            }
        }
    }

    /// A count written at `at`.
    fn count(&mut self, text: &str, at: usize) -> Option<Count> {
        let syntax_error = |found: &str| DesignErrorKind::Syntax {
            expected: "a count: a positive integer or a name".into(),
            found: format!("`{found}`"),
        };
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            return match text.parse::<u64>() {
                Ok(k) => Some(Count::Fixed(k)),
                Err(_) => {
                    self.error(at, syntax_error(text));
                    None
                }
            };
        }
        let name: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let is_name = name.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && name
                .split("::")
                .all(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_alphanumeric() || c == '_'));
        if is_name {
            Some(Count::Symbol(name))
        } else {
            self.error(at, syntax_error(text));
            None
        }
    }

    /// Records the sites of a node, in pre-order.
    fn site(&mut self, head: usize, counts: Vec<usize>) {
        self.sites.push(NodeSites {
            head,
            counts,
            params: None,
        });
    }

    fn term(&mut self, syn: &Syn) -> Term {
        match syn {
            Syn::Name { text, at } => {
                self.site(*at, Vec::new());
                match self.resolve.atom(text, *at, &self.definitions) {
                    Ok(atom) => Term::Atom(atom),
                    Err(kind) => {
                        // The placeholder stands for the atom; the pattern
                        // around it is still well-formed.
                        self.errors.push((*at, kind));
                        placeholder()
                    }
                }
            }
            Syn::Call {
                name,
                at,
                params,
                parts,
            } => {
                let start = self.sites.len();
                let parent = std::mem::replace(&mut self.own_error, false);
                let built = self.call(name, *at, params.as_ref(), parts);
                let own_error = std::mem::replace(&mut self.own_error, parent);
                match built {
                    Some(term) if !own_error => term,
                    _ => {
                        // Keep the errors of the parts, but one site for the
                        // placeholder that stands for this node.
                        self.sites.truncate(start);
                        self.site(*at, Vec::new());
                        placeholder()
                    }
                }
            }
        }
    }

    fn arity(&mut self, at: usize, pattern: &str, expected: &str, found: usize) {
        self.error(
            at,
            DesignErrorKind::WrongArity {
                pattern: pattern.into(),
                expected: expected.into(),
                found,
            },
        );
    }

    fn form(&mut self, at: usize, pattern: &str, form: &'static str) {
        self.error(
            at,
            DesignErrorKind::Form {
                pattern: pattern.into(),
                form,
            },
        );
    }

    /// A call; `None` when its own form is wrong (its parts are still read
    /// for their errors).
    fn call(
        &mut self,
        name: &str,
        at: usize,
        params: Option<&(Vec<RawParam>, usize)>,
        parts: &[Syn],
    ) -> Option<Term> {
        match name {
            "seq" if params.is_some() => self.redistribution(at, params?, parts),
            "seq" | "pipe" => {
                if params.is_some() {
                    self.form(at, name, "without parameters: pipe(a, b, ..)");
                }
                if parts.len() < 2 {
                    self.arity(at, name, "two or more components", parts.len());
                }
                self.chain(name, at, parts)
            }
            "tpool" | "on" | "groups" => {
                let form = match name {
                    "tpool" => "with its thread count: tpool[n](task)",
                    "on" => "with its processors: on[p](task)",
                    _ => "with its number of groups: groups[s](task)",
                };
                let count = match params {
                    Some((p, _)) if p.len() == 1 && p[0].key.is_none() => {
                        let (text, at) = &p[0].text;
                        self.count(text, *at).map(|c| (c, *at))
                    }
                    _ => {
                        self.form(at, name, form);
                        None
                    }
                };
                if parts.len() != 1 {
                    self.arity(at, name, "one component", parts.len());
                }
                self.site(at, count.iter().map(|(_, at)| *at).collect());
                let body = Box::new(self.parts(parts).pop()?);
                let (count, _) = count?;
                Some(match name {
                    "tpool" => Term::Tpool(count, body),
                    "on" => Term::On(count, body),
                    _ => Term::Groups(count, body),
                })
            }
            "par" => {
                let mut sizes = Vec::new();
                let mut offsets = Vec::new();
                match params {
                    Some((p, _)) if p.iter().all(|p| p.key.is_none()) => {
                        for param in p {
                            let (text, at) = &param.text;
                            sizes.extend(self.count(text, *at));
                            offsets.push(*at);
                        }
                    }
                    _ => self.form(
                        at,
                        name,
                        "with one size per group: par[p1, p2](task1, task2)",
                    ),
                }
                if parts.len() != offsets.len() && !offsets.is_empty() {
                    let expected = format!("one component per group size ({})", offsets.len());
                    self.arity(at, name, &expected, parts.len());
                }
                self.site(at, offsets);
                if let (Some(node), Some((_, bracket))) = (self.sites.last_mut(), params) {
                    node.params = Some(*bracket);
                }
                let parts = self.parts(parts);
                Some(Term::Par(sizes, parts))
            }
            "mapreduce" | "mapReduce" => self.map_reduce(at, params, parts),
            _ => {
                self.error(at, DesignErrorKind::UnknownPattern { name: name.into() });
                self.parts(parts);
                None
            }
        }
    }

    fn parts(&mut self, parts: &[Syn]) -> Vec<Term> {
        parts.iter().map(|p| self.term(p)).collect()
    }

    /// `seq(..)` or `pipe(..)` of two or more, nested to the right: the
    /// pre-order of the nested nodes is each link's site, then its stage.
    fn chain(&mut self, name: &str, at: usize, parts: &[Syn]) -> Option<Term> {
        let (last, init) = parts.split_last()?;
        let mut stages = Vec::with_capacity(parts.len());
        for part in init {
            self.site(at, Vec::new());
            stages.push(self.term(part));
        }
        let mut acc = self.term(last);
        if init.is_empty() {
            return None;
        }
        let join = if name == "seq" { Term::seq } else { Term::pipe };
        while let Some(stage) = stages.pop() {
            acc = join(stage, acc);
        }
        Some(acc)
    }

    /// `seq[redist = cost](a, b)`.
    fn redistribution(
        &mut self,
        at: usize,
        (params, _): &(Vec<RawParam>, usize),
        parts: &[Syn],
    ) -> Option<Term> {
        let cost = match &params[..] {
            [
                RawParam {
                    key: Some((key, _)),
                    text: (text, text_at),
                },
            ] if key == "redist" => self.model(text, *text_at),
            _ => {
                self.form(
                    at,
                    "seq",
                    "without parameters, or with a redistribution cost: seq[redist = cost](a, b)",
                );
                None
            }
        };
        if parts.len() != 2 {
            self.arity(at, "seq[redist]", "two components", parts.len());
        }
        self.site(at, Vec::new());
        let mut parts = self.parts(parts).into_iter();
        let (a, b) = (parts.next()?, parts.next()?);
        Some(Term::Redist(cost?, Box::new(a), Box::new(b)))
    }

    fn map_reduce(
        &mut self,
        at: usize,
        params: Option<&(Vec<RawParam>, usize)>,
        parts: &[Syn],
    ) -> Option<Term> {
        let Some((params, bracket)) = params else {
            self.form(
                at,
                "mapreduce",
                "with its parameters: mapreduce[m = .., n = .., d = .., k = ..](map, shuffle, reduce)",
            );
            self.parts(parts);
            return None;
        };
        let (mut m, mut n, mut d, mut k) = (None, None, None, None);
        let mut ok = true;
        for param in params {
            let (text, text_at) = &param.text;
            let Some((key, key_at)) = &param.key else {
                self.error(
                    *text_at,
                    DesignErrorKind::Syntax {
                        expected: "a parameter: m, n, d or k".into(),
                        found: format!("`{text}`"),
                    },
                );
                ok = false;
                continue;
            };
            let given = match key.as_str() {
                "m" => m.is_some(),
                "n" => n.is_some(),
                "d" => d.is_some(),
                "k" => k.is_some(),
                _ => {
                    self.error(
                        *key_at,
                        DesignErrorKind::UnknownParam {
                            pattern: "mapreduce",
                            name: key.clone(),
                            known: "m, n, d, k",
                        },
                    );
                    ok = false;
                    continue;
                }
            };
            if given {
                self.error(*key_at, DesignErrorKind::Duplicate { name: key.clone() });
                ok = false;
                continue;
            }
            match key.as_str() {
                "m" => m = Some(self.count(text, *text_at).map(|c| (c, *text_at))),
                "n" => n = Some(self.count(text, *text_at).map(|c| (c, *text_at))),
                "d" => d = Some(self.model(text, *text_at)),
                _ => k = Some(self.model(text, *text_at)),
            }
        }
        for (missing, name, what) in [
            (n.is_none(), "n", "threads per node"),
            (d.is_none(), "d", "elements per key, a function of x"),
            (k.is_none(), "k", "number of keys, a function of x"),
        ] {
            if missing && ok {
                self.error(
                    *bracket,
                    DesignErrorKind::MissingParam {
                        pattern: "mapreduce",
                        name,
                        what,
                    },
                );
            }
        }
        if parts.len() != 3 {
            self.arity(
                at,
                "mapreduce",
                "three components: map, shuffle, reduce",
                parts.len(),
            );
            self.parts(parts);
            return None;
        }
        let m = m.unwrap_or(Some((Count::Fixed(1), at)));
        let counts = [m.as_ref(), n.as_ref().and_then(|c| c.as_ref())]
            .into_iter()
            .flatten()
            .map(|(_, at)| *at)
            .collect();
        self.site(at, counts);
        let map = self.term(&parts[0]);
        let shuffle = match &parts[1] {
            Syn::Name { text, at } => match self.resolve.atom(text, *at, &self.definitions) {
                Ok(atom) => Some(atom),
                Err(kind) => {
                    self.error(*at, kind);
                    None
                }
            },
            other => {
                self.error(
                    other.at(),
                    DesignErrorKind::Syntax {
                        expected: "the shuffle phase: an atom whose model is in x, o, m, n".into(),
                        found: "a pattern".into(),
                    },
                );
                None
            }
        };
        let reduce = self.term(&parts[2]);
        Some(Term::map_reduce(
            MapReduceParams {
                m: m?.0,
                n: n.flatten()?.0,
                d: d.flatten()?,
                k: k.flatten()?,
            },
            map,
            shuffle?,
            reduce,
        ))
    }
}
