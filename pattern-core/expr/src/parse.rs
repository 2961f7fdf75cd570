//! The textual syntax of cost expressions: a hand-written recursive-descent
//! parser (the grammar is tiny and the errors must name byte offsets).
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '·' | '×' | '/') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := atom (('^' | '**') unary)?          right-associative
//! atom    := number | ident | ident '(' expr (',' expr)* ')' | '(' expr ')'
//! ```

use super::flat::{negate, product_of, sum_of};
use super::{Expr, Func};
use crate::parse_error::ParseError;

/// One lexical token and where it starts.
#[derive(Clone, Debug, PartialEq)]
enum Token<'a> {
    Num(f64),
    Ident(&'a str),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
    End,
}

impl Token<'_> {
    fn describe(&self) -> String {
        match self {
            Token::Num(v) => format!("the number `{v}`"),
            Token::Ident(name) => format!("`{name}`"),
            Token::Plus => "`+`".into(),
            Token::Minus => "`-`".into(),
            Token::Star => "`*`".into(),
            Token::Slash => "`/`".into(),
            Token::Caret => "`^`".into(),
            Token::LParen => "`(`".into(),
            Token::RParen => "`)`".into(),
            Token::Comma => "`,`".into(),
            Token::End => "the end of the input".into(),
        }
    }
}

/// Splits the input into tokens with their byte offsets.
fn tokenize(input: &str) -> Result<Vec<(Token<'_>, usize)>, ParseError> {
    let mut tokens = Vec::new();
    let bytes = input.as_bytes();
    let mut i = 0;
    while i < input.len() {
        let rest = &input[i..];
        let c = rest.chars().next().expect("not at the end");
        let start = i;
        let token = match c {
            c if c.is_whitespace() => {
                i += c.len_utf8();
                continue;
            }
            '0'..='9' | '.' => {
                let len = number_length(rest);
                let text = &rest[..len];
                let value: f64 = text
                    .parse()
                    .map_err(|_| ParseError::new(input, start, "a number", format!("`{text}`")))?;
                check_literal(input, start, text, value)?;
                i += len;
                tokens.push((Token::Num(value), start));
                continue;
            }
            c if c.is_alphabetic() || c == '_' => {
                let len = rest
                    .char_indices()
                    .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '_' || ch == '₂'))
                    .map_or(rest.len(), |(k, _)| k);
                i += len;
                tokens.push((Token::Ident(&rest[..len]), start));
                continue;
            }
            '+' => Token::Plus,
            '-' | '−' => Token::Minus,
            '*' if bytes.get(i + 1) == Some(&b'*') => {
                i += 1;
                Token::Caret
            }
            '*' | '·' | '×' | '⋅' => Token::Star,
            '/' | '÷' => Token::Slash,
            '^' => Token::Caret,
            '(' => Token::LParen,
            ')' => Token::RParen,
            ',' => Token::Comma,
            other => {
                return Err(ParseError::new(
                    input,
                    start,
                    "a number, a name, an operator or a parenthesis",
                    format!("`{other}`"),
                ));
            }
        };
        i += c.len_utf8();
        tokens.push((token, start));
    }
    tokens.push((Token::End, input.len()));
    Ok(tokens)
}

/// A literal keeps its value: beyond `f64` (`1e400`) it would read as
/// infinity, below it (`1e-400`) as zero.
fn check_literal(input: &str, start: usize, text: &str, value: f64) -> Result<(), ParseError> {
    let digits = text.split(['e', 'E']).next().unwrap_or(text);
    let nonzero = digits.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if value.is_finite() && (value != 0.0 || !nonzero) {
        return Ok(());
    }
    let range = if value.is_finite() {
        "a number that is zero or at least 4.9e-324 in size (the smallest `f64`)"
    } else {
        "a number at most 1.7976931348623157e308 in size (the largest `f64`)"
    };
    Err(ParseError::new(input, start, range, format!("`{text}`")))
}

/// Whether an expression has no variables and no machine functions: its
/// value is known when it is parsed. Iterative (the parser's nesting is
/// bounded, an expression's width is not).
fn is_closed_constant(e: &Expr) -> bool {
    let mut pending = vec![e];
    while let Some(e) = pending.pop() {
        match e {
            Expr::Var(_) | Expr::Apply(..) => return false,
            Expr::Num(_) => {}
            Expr::Add(items) | Expr::Mul(items) | Expr::Call(_, items) => pending.extend(items),
            Expr::Pow(base, exponent) => pending.extend([&**base, &**exponent]),
        }
    }
    true
}

/// Appends a factor to a product, flattening a product into its factors.
fn push_factor(factors: &mut Vec<Expr>, mut factor: Expr) {
    match &mut factor {
        Expr::Mul(items) => factors.append(items),
        _ => factors.push(factor),
    }
}

/// The length of the number at the start of `text`: digits, an optional
/// fraction and an optional exponent (`1.241e7`, `.5`, `3E-2`).
fn number_length(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<(Token<'a>, usize)>,
    pos: usize,
    depth: usize,
}

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 100;

impl<'a> Parser<'a> {
    fn peek(&self) -> &Token<'a> {
        &self.tokens[self.pos].0
    }

    fn offset(&self) -> usize {
        self.tokens[self.pos].1
    }

    fn bump(&mut self) -> Token<'a> {
        let token = self.tokens[self.pos].0.clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    fn error(&self, expected: impl Into<String>) -> ParseError {
        ParseError::new(self.input, self.offset(), expected, self.peek().describe())
    }

    /// Refuses a constant that has no value in `f64` (`1e308*1e308`,
    /// `0^-1`, `log2(0)`), at its position: read, it would be an infinity
    /// or NaN in the model.
    fn valued(&self, start: usize, e: Expr) -> Result<Expr, ParseError> {
        if !is_closed_constant(&e) {
            return Ok(e);
        }
        match e.eval(&[]) {
            Ok(_) => Ok(e),
            Err(_) => {
                let text = self.input[start..self.offset().max(start)].trim_end();
                Err(ParseError::new(
                    self.input,
                    start,
                    "a constant within the range of `f64` (finite, with a value)",
                    format!("`{text}`, which has no value"),
                ))
            }
        }
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let start = self.offset();
        let sum = self.sum()?;
        self.valued(start, sum)
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut terms = vec![self.term()?];
        loop {
            match self.peek() {
                Token::Plus => {
                    self.bump();
                    terms.push(self.term()?);
                }
                Token::Minus => {
                    self.bump();
                    terms.push(negate(self.term()?));
                }
                _ => break,
            }
        }
        Ok(sum_of(terms))
    }

    /// A product, its factors gathered in one list (folding them pairwise
    /// copied the list at every factor: quadratic in a long product).
    fn term(&mut self) -> Result<Expr, ParseError> {
        let start = self.offset();
        let product = self.product()?;
        self.valued(start, product)
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut factors = Vec::new();
        push_factor(&mut factors, self.unary()?);
        loop {
            match self.peek() {
                Token::Star => {
                    self.bump();
                    let rhs = self.unary()?;
                    push_factor(&mut factors, rhs);
                }
                Token::Slash => {
                    self.bump();
                    let at = self.offset();
                    let divisor = self.unary()?;
                    if is_closed_constant(&divisor) && divisor.eval(&[]).is_ok_and(|v| v == 0.0) {
                        let text = self.input[at..self.offset().max(at)].trim_end();
                        return Err(ParseError::new(
                            self.input,
                            at,
                            "a divisor that is not zero",
                            format!("`{text}`"),
                        ));
                    }
                    let rhs = divisor.recip();
                    // `1/b` is the reciprocal alone, as `divide` makes it.
                    if factors.len() == 1 && factors[0] == Expr::Num(1.0) {
                        factors.clear();
                    }
                    push_factor(&mut factors, rhs);
                }
                _ => return Ok(product_of(factors)),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        // Every recursive path passes here, so this bounds the recursion.
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("at most {MAX_DEPTH} levels of nesting")));
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Token::Minus => {
                self.bump();
                Ok(negate(self.unary()?))
            }
            Token::Plus => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let start = self.offset();
        let base = self.atom()?;
        let base = self.valued(start, base)?;
        if *self.peek() == Token::Caret {
            self.bump();
            let exponent = self.unary()?;
            return self.valued(start, base.pow(exponent));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let start = self.offset();
        match self.peek().clone() {
            Token::Num(v) => {
                self.bump();
                Ok(Expr::Num(v))
            }
            Token::Ident(name) => {
                self.bump();
                if *self.peek() != Token::LParen {
                    if Func::from_name(name).is_some() {
                        return Err(self.error(format!("`(` after the function `{name}`")));
                    }
                    return Ok(Expr::Var(name.to_string()));
                }
                let Some(func) = Func::from_name(name) else {
                    if crate::is_mistaken_function(name) {
                        return Err(ParseError::new(
                            self.input,
                            start,
                            format!(
                                "a function: {} (or a machine function: {})",
                                crate::FUNCTIONS.join(", "),
                                crate::MACHINE_FUNCTIONS.join(", ")
                            ),
                            format!("`{name}`"),
                        ));
                    }
                    // A machine function such as `allgather(p, b)`, kept
                    // symbolic until a machine profile resolves it.
                    let open = self.offset();
                    self.bump();
                    let mut args = vec![self.expr()?];
                    while *self.peek() == Token::Comma {
                        self.bump();
                        args.push(self.expr()?);
                    }
                    self.close(open)?;
                    return Ok(Expr::Apply(name.to_string(), args));
                };
                let open = self.offset();
                self.bump();
                let mut args = vec![self.expr()?];
                while *self.peek() == Token::Comma {
                    self.bump();
                    args.push(self.expr()?);
                }
                self.close(open)?;
                let (lo, hi) = func.arity();
                if args.len() < lo || hi.is_some_and(|hi| args.len() > hi) {
                    let wanted = match (lo, hi) {
                        (1, Some(1)) => "one argument".to_string(),
                        (2, Some(2)) if func == Func::Log => {
                            "two arguments, `log(base, e)` (use `log2` or `ln` for one)".to_string()
                        }
                        (lo, Some(hi)) if lo == hi => format!("{lo} arguments"),
                        (lo, _) => format!("at least {lo} argument(s)"),
                    };
                    return Err(ParseError::new(
                        self.input,
                        start,
                        format!("`{name}` with {wanted}"),
                        format!("{} argument(s)", args.len()),
                    ));
                }
                Ok(match func {
                    Func::Max | Func::Min if args.len() == 1 => args.pop().expect("one"),
                    _ => Expr::Call(func, args),
                })
            }
            Token::LParen => {
                let open = self.offset();
                self.bump();
                let inner = self.expr()?;
                self.close(open)?;
                Ok(inner)
            }
            _ => Err(self.error("a number, a name or `(`")),
        }
    }

    fn close(&mut self, open: usize) -> Result<(), ParseError> {
        if *self.peek() == Token::RParen {
            self.bump();
            Ok(())
        } else {
            let mut err = self.error("`)` to close the `(`");
            err.open = Some(open);
            Err(err)
        }
    }
}

pub(crate) fn parse(input: &str) -> Result<Expr, ParseError> {
    let tokens = tokenize(input)?;
    let mut parser = Parser {
        input,
        tokens,
        pos: 0,
        depth: 0,
    };
    let e = parser.expr()?;
    if *parser.peek() != Token::End {
        return Err(parser.error("an operator or the end of the input"));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Expr {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn err(text: &str) -> ParseError {
        parse(text).expect_err(text)
    }

    fn err_of(text: &str) -> ParseError {
        err(text)
    }

    fn pow(a: Expr, b: Expr) -> Expr {
        Expr::Pow(Box::new(a), Box::new(b))
    }

    #[test]
    fn numbers() {
        assert_eq!(p("5422.97"), Expr::Num(5422.97));
        assert_eq!(p("1.241e7"), Expr::Num(1.241e7));
        assert_eq!(p("9.449E6"), Expr::Num(9.449e6));
        assert_eq!(p("3e-2"), Expr::Num(0.03));
        assert_eq!(p("2.5e+3"), Expr::Num(2500.0));
        assert_eq!(p(".5"), Expr::Num(0.5));
        assert_eq!(p("7."), Expr::Num(7.0));
        assert_eq!(p("-1487600.12"), Expr::Num(-1487600.12));
    }

    #[test]
    fn names_and_operators() {
        let x = Expr::var("x");
        assert_eq!(p("x"), x);
        assert_eq!(p("reduce_v2"), Expr::var("reduce_v2"));
        assert_eq!(p("x + 1"), Expr::Add(vec![x.clone(), Expr::Num(1.0)]));
        assert_eq!(p("x - 1"), Expr::Add(vec![x.clone(), Expr::Num(-1.0)]));
        assert_eq!(p("2 * x"), Expr::Mul(vec![Expr::Num(2.0), x.clone()]));
        assert_eq!(p("2·x"), p("2 * x"));
        assert_eq!(p("2×x"), p("2 * x"));
        assert_eq!(
            p("x / 2"),
            Expr::Mul(vec![x.clone(), pow(Expr::Num(2.0), Expr::Num(-1.0))])
        );
        assert_eq!(p("x ^ 2"), pow(x.clone(), Expr::Num(2.0)));
        assert_eq!(p("x ** 2"), p("x^2"));
        assert_eq!(p("x − 1"), p("x - 1"));
    }

    #[test]
    fn precedence_and_associativity() {
        let x = Expr::var("x");
        // ^ is right-associative and binds tighter than unary minus.
        assert_eq!(
            p("2^3^2"),
            pow(Expr::Num(2.0), pow(Expr::Num(3.0), Expr::Num(2.0)))
        );
        assert_eq!(
            p("-x^2"),
            Expr::Mul(vec![Expr::Num(-1.0), pow(x.clone(), Expr::Num(2.0))])
        );
        assert_eq!(p("x^-1"), pow(x.clone(), Expr::Num(-1.0)));
        assert_eq!(
            p("1 + 2 * x"),
            Expr::Add(vec![
                Expr::Num(1.0),
                Expr::Mul(vec![Expr::Num(2.0), x.clone()])
            ])
        );
        assert_eq!(
            p("(1 + 2) * x"),
            Expr::Mul(vec![
                Expr::Add(vec![Expr::Num(1.0), Expr::Num(2.0)]),
                x.clone()
            ])
        );
        assert_eq!(
            p("a - b - c")
                .eval(&[("a", 1.0), ("b", 2.0), ("c", 3.0)])
                .unwrap(),
            -4.0
        );
        assert_eq!(
            p("a / b / c")
                .eval(&[("a", 12.0), ("b", 2.0), ("c", 3.0)])
                .unwrap(),
            2.0
        );
        assert_eq!(p("--x"), x);
        assert_eq!(p("+x"), x);
    }

    #[test]
    fn functions() {
        let x = Expr::var("x");
        assert_eq!(p("log2(x)"), x.clone().log2());
        assert_eq!(p("log₂(x)"), x.clone().log2());
        assert_eq!(p("ln(x)"), x.clone().ln());
        assert_eq!(p("log(10, x)"), x.clone().log(10.0));
        assert_eq!(p("sqrt(x)"), x.clone().sqrt());
        assert_eq!(p("ceil(x)"), x.clone().ceil());
        assert_eq!(p("floor(x)"), x.clone().floor());
        assert_eq!(
            p("max(x, 1, 2)"),
            Expr::max([x.clone(), Expr::Num(1.0), Expr::Num(2.0)])
        );
        assert_eq!(p("min(x, 1)"), Expr::min([x.clone(), Expr::Num(1.0)]));
        assert_eq!(p("max(x)"), x);
    }

    #[test]
    fn extrap_output_parses_unchanged() {
        let x = Expr::var("x");
        let e = p("-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)");
        let v = e.eval(&[("x", 1024.0)]).unwrap();
        assert!((v - (-1487600.12 + 1039.05 * 1024.0 * 10.0)).abs() < 1e-6);
        assert_eq!(p("x**(1)"), pow(x.clone(), Expr::Num(1.0)));
        let frac = p("3.5 * x^(2/3)");
        assert!((frac.eval(&[("x", 8.0)]).unwrap() - 14.0).abs() < 1e-12);
        let frac2 = p("2 + 0.5 * x**(4/5) * log2(x)**(2)");
        let want = 2.0 + 0.5 * 32f64.powf(0.8) * 25.0;
        assert!((frac2.eval(&[("x", 32.0)]).unwrap() - want).abs() < 1e-9);
    }

    #[test]
    fn error_unexpected_end() {
        let e = err("1 +");
        assert_eq!(e.offset(), 3);
        assert_eq!(e.expected(), "a number, a name or `(`");
        assert_eq!(e.found(), "the end of the input");
        assert_eq!(
            e.to_string(),
            "expected a number, a name or `(`, found the end of the input at byte 3\n  1 +\n     ^"
        );
    }

    #[test]
    fn error_unclosed_parenthesis() {
        let e = err("log2(x");
        assert_eq!(e.offset(), 6);
        assert_eq!(e.expected(), "`)` to close the `(` at byte 4");
    }

    #[test]
    fn error_trailing_input() {
        let e = err("2 x");
        assert_eq!(e.offset(), 2);
        assert_eq!(e.expected(), "an operator or the end of the input");
        assert_eq!(e.found(), "`x`");
        let e = err("(x))");
        assert_eq!(e.offset(), 3);
        assert_eq!(e.found(), "`)`");
    }

    #[test]
    fn error_bad_character() {
        let e = err("x $ 2");
        assert_eq!(e.offset(), 2);
        assert_eq!(e.found(), "`$`");
        // The caret counts characters, so it sits under `$` after a multibyte `·`.
        let e = err("2·x $");
        assert_eq!(e.offset(), 5);
        assert!(e.to_string().ends_with("\n  2·x $\n      ^"), "{e}");
    }

    #[test]
    fn error_bad_number() {
        let e = err(".");
        assert_eq!(e.offset(), 0);
        assert_eq!(e.expected(), "a number");
        assert_eq!(e.found(), "`.`");
    }

    #[test]
    fn unknown_functions_are_machine_functions() {
        let e = p("1 + allgather(p, 8 * n)");
        assert_eq!(
            e,
            Expr::num(1.0) + Expr::apply("allgather", [Expr::var("p"), 8.0 * Expr::var("n")])
        );
        assert_eq!(e.to_string(), "1 + allgather(p, 8·n)");
        let err = e.eval(&[("p", 4.0), ("n", 2.0)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`allgather` is not a built-in function: resolve it before evaluating (a communication function against a machine profile)"
        );
        // Arguments are checked like any expression.
        let err = err_of("1 + send(x, )");
        assert_eq!(err.offset(), 12);
    }

    #[test]
    fn error_unknown_function_lists_the_functions() {
        for (text, name, at) in [("log10(x)", "log10", 0), ("2 * exp2(x)", "exp2", 4)] {
            let e = err(text);
            assert_eq!(e.offset(), at, "{text}");
            assert_eq!(e.found(), format!("`{name}`"));
            assert_eq!(
                e.expected(),
                "a function: log2, ln, log, sqrt, ceil, floor, max, min (or a machine \
                 function: allgather, allgather_p, allgatherv, bcast, bcast_p, gather, \
                 multibcast, multibcast_p, reduce, scatter, send, send_p)"
            );
        }
        // A name without `(` is a variable, whatever it is.
        assert_eq!(p("log10 + 1"), Expr::var("log10") + 1.0);
    }

    #[test]
    fn error_literal_beyond_f64() {
        let e = err("a + 1e400*x");
        assert_eq!((e.offset(), e.found()), (4, "`1e400`"));
        assert!(
            e.expected().contains("the largest `f64`"),
            "{}",
            e.expected()
        );
        let e = err("1e-400*x");
        assert_eq!((e.offset(), e.found()), (0, "`1e-400`"));
        // The extremes themselves are numbers.
        assert_eq!(p("1.7976931348623157e308"), Expr::num(f64::MAX));
        assert_eq!(p("5e-324"), Expr::num(5e-324));
        assert_eq!(p("0e-400"), Expr::num(0.0));
    }

    #[test]
    fn error_constant_without_value() {
        for (text, at, found) in [
            ("x/0", 2, "`0`"),
            ("x / (2 - 2) + 1", 4, "`(2 - 2)`"),
            ("0/0", 2, "`0`"),
            ("x + 1e308*1e308", 4, "`1e308*1e308`, which has no value"),
            ("x*log2(0)", 2, "`log2(0)`, which has no value"),
            ("x + 10^400", 4, "`10^400`, which has no value"),
            ("0^-1 + x", 0, "`0^-1`, which has no value"),
            ("x*log(0, 4)", 2, "`log(0, 4)`, which has no value"),
        ] {
            let e = err(text);
            assert_eq!((e.offset(), e.found()), (at, found), "{text}");
        }
        // Variables and machine functions are not constants.
        assert!(Expr::parse("1/x + log2(x - 1) + send(0)/1").is_ok());
    }

    #[test]
    fn error_wrong_arity() {
        let e = err("log(x)");
        assert_eq!(e.offset(), 0);
        assert_eq!(
            e.expected(),
            "`log` with two arguments, `log(base, e)` (use `log2` or `ln` for one)"
        );
        assert_eq!(e.found(), "1 argument(s)");
        let e = err("x + log2(x, 2)");
        assert_eq!(e.offset(), 4);
        assert_eq!(e.expected(), "`log2` with one argument");
    }

    #[test]
    fn error_function_without_parenthesis() {
        let e = err("log2 x");
        assert_eq!(e.offset(), 5);
        assert_eq!(e.expected(), "`(` after the function `log2`");
    }

    #[test]
    fn error_empty_input_and_empty_parens() {
        let e = err("");
        assert_eq!(e.offset(), 0);
        assert_eq!(e.found(), "the end of the input");
        let e = err("max()");
        assert_eq!(e.offset(), 4);
        assert_eq!(e.found(), "`)`");
    }

    #[test]
    fn error_too_deep() {
        let text = format!("{}x{}", "(".repeat(300), ")".repeat(300));
        let e = err(&text);
        assert!(e.expected().contains("levels of nesting"));
    }

    #[test]
    fn error_position_on_later_line() {
        let e = err("1 +\n 2 * )");
        assert_eq!(e.line_col(), (2, 6));
        assert_eq!(e.to_string().lines().nth(1), Some("   2 * )"));
        assert_eq!(e.to_string().lines().nth(2), Some("       ^"));
    }
}
