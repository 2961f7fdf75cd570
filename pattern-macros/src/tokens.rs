//! The tokens of a macro's input as design text for the one parser of the
//! grammar crate, with the span of every token kept, so that an error at a
//! byte offset of the text is reported at the user's token.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};

/// Design text written from tokens, and where each token went.
pub struct TokenText {
    /// The text: the tokens separated by spaces (none after a joint
    /// punctuation, so `::` and `==` stay whole).
    pub text: String,
    /// Each token's offset in the text, its span, and the token itself
    /// (`None` for a delimiter).
    tokens: Vec<(usize, Span, Option<TokenTree>)>,
}

impl TokenText {
    /// The text of `tokens`.
    pub fn new(tokens: TokenStream) -> TokenText {
        let mut out = TokenText {
            text: String::new(),
            tokens: Vec::new(),
        };
        out.push_stream(tokens);
        out
    }

    fn push_stream(&mut self, tokens: TokenStream) {
        for tt in tokens {
            self.push(tt);
        }
    }

    fn push_piece(&mut self, text: &str, span: Span, tt: Option<TokenTree>, space: bool) {
        self.tokens.push((self.text.len(), span, tt));
        self.text.push_str(text);
        if space {
            self.text.push(' ');
        }
    }

    fn push(&mut self, tt: TokenTree) {
        match &tt {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                if !open.is_empty() {
                    self.push_piece(open, group.span_open(), None, true);
                }
                self.push_stream(group.stream());
                if !close.is_empty() {
                    self.push_piece(close, group.span_close(), None, true);
                }
            }
            TokenTree::Punct(p) => {
                let joint = p.spacing() == Spacing::Joint;
                self.push_piece(&p.as_char().to_string(), p.span(), Some(tt.clone()), !joint);
            }
            TokenTree::Ident(i) => {
                self.push_piece(&i.to_string(), i.span(), Some(tt.clone()), true)
            }
            TokenTree::Literal(l) => {
                self.push_piece(&l.to_string(), l.span(), Some(tt.clone()), true)
            }
        }
    }

    /// The index of the token that covers byte `offset` (the last one that
    /// starts at or before it).
    fn index_at(&self, offset: usize) -> Option<usize> {
        match self.tokens.binary_search_by_key(&offset, |(at, _, _)| *at) {
            Ok(i) => Some(i),
            Err(0) => None,
            Err(i) => Some(i - 1),
        }
    }

    /// The span of the token at byte `offset` (the end of the input maps to
    /// the last token).
    pub fn span_at(&self, offset: usize) -> Span {
        self.index_at(offset)
            .or_else(|| self.tokens.len().checked_sub(1))
            .map_or_else(Span::call_site, |i| self.tokens[i].1)
    }

    /// The tokens of the path (`a`, `Type::method`) that starts at byte
    /// `offset`, with their spans.
    pub fn path_at(&self, offset: usize) -> TokenStream {
        let Some(start) = self.index_at(offset) else {
            return TokenStream::new();
        };
        let mut out = TokenStream::new();
        let mut want_ident = true;
        for (_, _, tt) in &self.tokens[start..] {
            let Some(tt) = tt else { break };
            match tt {
                TokenTree::Ident(_) if want_ident => want_ident = false,
                TokenTree::Punct(p) if p.as_char() == ':' && !want_ident => {
                    if p.spacing() == Spacing::Alone {
                        want_ident = true;
                    }
                }
                _ => break,
            }
            out.extend([tt.clone()]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_positions() {
        let t = TokenText::new(quote::quote!(pipe(tpool[4](qsort), Type::f, x == 2)));
        assert_eq!(
            t.text,
            "pipe ( tpool [ 4 ] ( qsort ) , Type :: f , x == 2 ) "
        );
        let at = t.text.find("Type").unwrap();
        assert_eq!(t.path_at(at).to_string(), "Type :: f");
        let q = t.text.find("qsort").unwrap();
        assert_eq!(t.path_at(q).to_string(), "qsort");
        assert_eq!(t.path_at(q + 2).to_string(), "qsort");
    }
}
