//! The concrete syntax of a design text: definitions, then one term whose
//! nodes are names or calls `name[params](parts)`. What a call means is
//! decided by [`crate::parse`]; this module only reads the shape, with the
//! byte offset of every piece.

use crate::error::DesignErrorKind;

/// At most this many levels of nested patterns around an atom: the parser
/// recurses once per level (chains of `pipe(a, b, ..)` are flat and have no
/// limit).
pub const MAX_DEPTH: usize = 200;

/// `name = model;` or `name = model [params];` as written.
#[derive(Clone, Debug, PartialEq)]
pub struct RawDefinition {
    /// The name and its offset.
    pub name: (String, usize),
    /// The model's text and its offset.
    pub model: (String, usize),
    /// The bracketed parameters (`[bytes = 8*x]`) and the offset of `[`.
    pub params: Option<(Vec<RawParam>, usize)>,
}

/// A node of the concrete syntax.
#[derive(Clone, Debug, PartialEq)]
pub enum Syn {
    /// A name: an atom (`qsort`, `Type::method`).
    Name {
        /// The name, paths joined without spaces.
        text: String,
        /// Its offset.
        at: usize,
    },
    /// `name[params](parts)` or `name(parts)`.
    Call {
        /// The pattern's name.
        name: String,
        /// Its offset.
        at: usize,
        /// The bracketed parameters and the offset of `[`.
        params: Option<(Vec<RawParam>, usize)>,
        /// The components.
        parts: Vec<Syn>,
    },
}

impl Syn {
    /// The offset of the node's head.
    pub fn at(&self) -> usize {
        match self {
            Syn::Name { at, .. } | Syn::Call { at, .. } => *at,
        }
    }
}

/// One parameter in brackets: `key = text` or `text`.
#[derive(Clone, Debug, PartialEq)]
pub struct RawParam {
    /// `key` and its offset, for `key = value`.
    pub key: Option<(String, usize)>,
    /// The value's text (trimmed) and its offset.
    pub text: (String, usize),
}

/// A design text read into its shape: definitions and the term.
#[derive(Clone, Debug, PartialEq)]
pub struct RawDesign {
    /// The definitions, in order.
    pub definitions: Vec<RawDefinition>,
    /// The term.
    pub term: Syn,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Int(&'a str),
    Punct(char),
    End,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) | Tok::Int(s) => format!("`{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::End => "the end of the design".to_string(),
        }
    }
}

/// A syntax error: what was expected, at which offset.
pub type SyntaxError = (DesignErrorKind, usize);

struct Reader<'a> {
    input: &'a str,
    pos: usize,
    depth: usize,
}

/// Reads a design text into its shape. Fails at the first token that does
/// not fit the grammar.
pub fn read(input: &str) -> Result<RawDesign, SyntaxError> {
    let mut r = Reader {
        input,
        pos: 0,
        depth: 0,
    };
    let mut definitions = Vec::new();
    loop {
        let save = r.pos;
        let (tok, at) = r.bump();
        match (tok, r.peek().0) {
            (Tok::Ident(name), Tok::Punct('=')) if !r.rest().trim_start().starts_with("==") => {
                r.bump();
                r.skip_space();
                let start = r.pos;
                let end = r.scan(&[';', '[']);
                let text = r.input[start..end].trim_end().to_string();
                r.pos = end;
                let params = match r.peek() {
                    (Tok::Punct('['), open) => {
                        r.bump();
                        Some((r.params()?, open))
                    }
                    _ => None,
                };
                r.expect(';', "`;` after the atom's model")?;
                definitions.push(RawDefinition {
                    name: (name.to_string(), at),
                    model: (text, start),
                    params,
                });
            }
            _ => {
                r.pos = save;
                break;
            }
        }
    }
    let term = r.term()?;
    if r.peek().0 == Tok::Punct(';') {
        r.bump();
    }
    let (tok, at) = r.peek();
    if tok != Tok::End {
        return Err(syntax(
            "the end of the design (one term after the definitions)",
            &tok,
            at,
        ));
    }
    Ok(RawDesign { definitions, term })
}

fn syntax(expected: &str, found: &Tok, at: usize) -> SyntaxError {
    (
        DesignErrorKind::Syntax {
            expected: expected.to_string(),
            found: found.describe(),
        },
        at,
    )
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn skip_space(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            // `//` comments run to the end of the line.
            if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// The next token and its offset, without consuming it.
    fn peek(&mut self) -> (Tok<'a>, usize) {
        self.skip_space();
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return (Tok::End, self.pos);
        };
        let tok = if c.is_alphabetic() || c == '_' {
            let len = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            Tok::Ident(&rest[..len])
        } else if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
                .unwrap_or(rest.len());
            Tok::Int(&rest[..len])
        } else {
            Tok::Punct(c)
        };
        (tok, self.pos)
    }

    fn bump(&mut self) -> (Tok<'a>, usize) {
        let (tok, at) = self.peek();
        self.pos += match tok {
            Tok::Ident(s) | Tok::Int(s) => s.len(),
            Tok::Punct(c) => c.len_utf8(),
            Tok::End => 0,
        };
        (tok, at)
    }

    fn expect(&mut self, c: char, what: &str) -> Result<usize, SyntaxError> {
        let (tok, at) = self.peek();
        if tok == Tok::Punct(c) {
            self.bump();
            Ok(at)
        } else {
            Err(syntax(what, &tok, at))
        }
    }

    /// The end of the text that starts here and stops at one of `stops`
    /// outside parentheses and quotes (`;` and `]` stop at any depth: they
    /// never occur in an expression).
    fn scan(&self, stops: &[char]) -> usize {
        let mut depth = 0i32;
        let mut quoted = false;
        for (i, c) in self.rest().char_indices() {
            match c {
                '"' => quoted = !quoted,
                _ if quoted => {}
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                c if stops.contains(&c) && (depth == 0 || c == ';' || c == ']') => {
                    return self.pos + i;
                }
                _ => {}
            }
        }
        self.input.len()
    }

    fn term(&mut self) -> Result<Syn, SyntaxError> {
        // `depth` patterns enclose this term: past MAX_DEPTH of them, refuse.
        if self.depth > MAX_DEPTH {
            let (_, at) = self.peek();
            return Err((
                DesignErrorKind::Syntax {
                    expected: format!("at most {MAX_DEPTH} levels of nesting"),
                    found: "more".into(),
                },
                at,
            ));
        }
        self.depth += 1;
        let result = self.term_inner();
        self.depth -= 1;
        result
    }

    fn term_inner(&mut self) -> Result<Syn, SyntaxError> {
        let (tok, at) = self.bump();
        let Tok::Ident(first) = tok else {
            return Err(syntax(
                &format!("an atom or a pattern ({})", crate::term::PATTERN_LIST),
                &tok,
                at,
            ));
        };
        let mut name = first.to_string();
        // A path: `Type::method`.
        loop {
            self.skip_space();
            if !self.rest().starts_with("::") {
                break;
            }
            self.pos += 2;
            match self.bump() {
                (Tok::Ident(seg), _) => {
                    name.push_str("::");
                    name.push_str(seg);
                }
                (tok, at) => return Err(syntax("a name after `::`", &tok, at)),
            }
        }
        let params = match self.peek() {
            (Tok::Punct('['), open) => {
                self.bump();
                Some((self.params()?, open))
            }
            _ => None,
        };
        match self.peek() {
            (Tok::Punct('('), _) => {}
            (tok, at) if params.is_some() => {
                return Err(syntax(
                    &format!("`(` and the components of {name}"),
                    &tok,
                    at,
                ));
            }
            _ => return Ok(Syn::Name { text: name, at }),
        }
        self.bump();
        let mut parts = Vec::new();
        if self.peek().0 == Tok::Punct(')') {
            self.bump();
        } else {
            loop {
                parts.push(self.term()?);
                match self.bump() {
                    (Tok::Punct(','), _) => continue,
                    (Tok::Punct(')'), _) => break,
                    (tok, at) => {
                        return Err(syntax(&format!("`,` or `)` in {name}(...)"), &tok, at));
                    }
                }
            }
        }
        Ok(Syn::Call {
            name,
            at,
            params,
            parts,
        })
    }

    /// The parameters after `[`, through `]`.
    fn params(&mut self) -> Result<Vec<RawParam>, SyntaxError> {
        let mut params = Vec::new();
        loop {
            self.skip_space();
            let mut key = None;
            let save = self.pos;
            if let (Tok::Ident(k), at) = self.bump() {
                if self.peek().0 == Tok::Punct('=') && !self.rest().starts_with("==") {
                    self.bump();
                    key = Some((k.to_string(), at));
                } else {
                    self.pos = save;
                }
            } else {
                self.pos = save;
            }
            self.skip_space();
            let start = self.pos;
            let end = self.scan(&[',', ']', ';']);
            let raw = &self.input[start..end];
            let text = raw.trim_end().to_string();
            self.pos = end;
            if text.is_empty() {
                let (tok, at) = self.peek();
                let what = if key.is_some() {
                    "a value after `=`"
                } else {
                    "a parameter"
                };
                return Err(syntax(what, &tok, at));
            }
            params.push(RawParam {
                key,
                text: (text, start),
            });
            match self.bump() {
                (Tok::Punct(','), _) => continue,
                (Tok::Punct(']'), _) => return Ok(params),
                (tok, at) => return Err(syntax("`,` or `]` after a parameter", &tok, at)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` pools nested around one atom.
    fn pools(levels: usize) -> String {
        format!(
            "a = x; {}a{}",
            "tpool[1](".repeat(levels),
            ")".repeat(levels)
        )
    }

    /// The limit the docs state is the limit enforced: 200 nested patterns
    /// read, 201 do not, and the error points inside the 201st.
    #[test]
    fn nesting_limit_is_max_depth_patterns() {
        assert!(read(&pools(MAX_DEPTH)).is_ok());
        let (kind, at) = read(&pools(MAX_DEPTH + 1)).unwrap_err();
        assert!(kind.to_string().contains("at most 200 levels"), "{kind}");
        // Just past the 201st `tpool[1](`.
        assert_eq!(at, "a = x; ".len() + (MAX_DEPTH + 1) * "tpool[1](".len());
    }

    #[test]
    fn shapes_with_offsets() {
        let d = read("a = 1; // one\nb = x;\npipe(tpool[4](a), Type::f, mapreduce[n = 2, d = max(1, x)](a, s, b));").unwrap();
        assert_eq!(d.definitions.len(), 2);
        assert_eq!(d.definitions[1].name, ("b".to_string(), 14));
        assert_eq!(d.definitions[1].model, ("x".to_string(), 18));
        let Syn::Call {
            name, at, parts, ..
        } = &d.term
        else {
            panic!("a call")
        };
        assert_eq!((name.as_str(), *at), ("pipe", 21));
        assert_eq!(
            parts[1],
            Syn::Name {
                text: "Type::f".into(),
                at: 39
            }
        );
        let Syn::Call {
            params: Some((params, _)),
            ..
        } = &parts[2]
        else {
            panic!("a mapreduce")
        };
        assert_eq!(params[1].key.as_ref().unwrap().0, "d");
        assert_eq!(params[1].text.0, "max(1, x)");
    }

    #[test]
    fn quoted_models_may_hold_separators() {
        let d = read("tpool[\"n, ]\"](a)").unwrap();
        let Syn::Call {
            params: Some((params, 5)),
            ..
        } = &d.term
        else {
            panic!("{d:?}")
        };
        assert_eq!(params[0].text.0, "\"n, ]\"");
    }

    #[test]
    fn syntax_errors() {
        let e = read("pipe(a b)").unwrap_err();
        assert_eq!(
            e,
            (
                DesignErrorKind::Syntax {
                    expected: "`,` or `)` in pipe(...)".into(),
                    found: "`b`".into()
                },
                7
            )
        );
        assert!(read("tpool[4]").is_err());
        assert!(read("tpool[](a)").is_err());
        assert!(read("").is_err());
        let deep = format!("{}a{}", "seq(a, ".repeat(300), ")".repeat(300));
        assert!(matches!(
            read(&deep),
            Err((DesignErrorKind::Syntax { .. }, _))
        ));
    }
}
