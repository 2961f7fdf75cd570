//! Printing: readable Unicode (`1034.17·x·log₂(x) + 5422.97`), plain ASCII
//! (`{:#}`: `1034.17*x*log2(x) + 5422.97`) and LaTeX ([`Expr::latex`]).
//!
//! Both text forms parse back: sums print their negative terms as `a - b`,
//! products their negative powers as `a/b`, and the parser rebuilds the same
//! sums and products. A precision (`{:.4}`) rounds numbers to that many
//! significant digits, for tables; without one, numbers print exactly (the
//! shortest text that reads back to the same `f64`).

use super::flat::negate;
use super::{Expr, Func};
use std::fmt::{self, Write};

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Unicode,
    Ascii,
}

#[derive(Clone, Copy)]
struct Options {
    style: Style,
    precision: Option<usize>,
}

/// Binding strength of a printed form, loosest first.
const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const POWER: u8 = 3;
const ATOM: u8 = 4;

/// Formats a number exactly (or to `precision` significant digits), picking
/// the shorter of positional and scientific notation.
pub(crate) fn format_number(v: f64, precision: Option<usize>) -> String {
    let v = match precision {
        Some(p) if v.is_finite() && v != 0.0 => {
            let rounded = format!("{:.*e}", p.max(1) - 1, v);
            rounded.parse().unwrap_or(v)
        }
        _ => v,
    };
    // Forms that parse back to the same value: the sign of zero matters
    // (`1/(-0)`), a literal past the largest f64 reads as infinity, and
    // `0/0` evaluates to NaN (an error, as NaN always is).
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    if v.is_nan() {
        return "(0/0)".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "1e999" } else { "-1e999" }.to_string();
    }
    let plain = format!("{v}");
    // Everyday magnitudes read best positionally (2000, not 2e3); beyond,
    // the shorter form wins (1.241e7, 1.16e-10).
    if (1e-4..1e6).contains(&v.abs()) {
        return plain;
    }
    let sci = format!("{v:e}");
    if sci.len() < plain.len() { sci } else { plain }
}

fn is_negative(e: &Expr) -> bool {
    match e {
        Expr::Num(v) => v.is_sign_negative() && *v != 0.0,
        Expr::Mul(items) => matches!(items.first(), Some(Expr::Num(c)) if *c < 0.0),
        _ => false,
    }
}

/// The binding strength of `e` as printed.
fn strength(e: &Expr) -> u8 {
    match e {
        // `-0` too: `(-0)^2` is not `-(0^2)`.
        Expr::Num(v) if v.is_sign_negative() && !v.is_nan() => PRODUCT,
        Expr::Num(_) | Expr::Var(_) | Expr::Call(_, _) | Expr::Apply(_, _) => ATOM,
        Expr::Add(_) => SUM,
        Expr::Mul(_) => PRODUCT,
        Expr::Pow(_, exponent) => match **exponent {
            Expr::Num(k) if k < 0.0 => PRODUCT,
            _ => POWER,
        },
    }
}

fn reciprocal_power(e: &Expr) -> Option<(&Expr, f64)> {
    match e {
        // The reciprocal of a reciprocal prints as a power, `(1/x)^-1`:
        // `1/(1/x)` would read back as `x`, which rounds differently.
        Expr::Pow(base, _) if reciprocal_power(base).is_some() => None,
        // So does the reciprocal of a power with a number for exponent,
        // `(x^0.5)^-1`: `1/x^0.5` reads back as `x^-0.5`, which rounds
        // differently.
        Expr::Pow(base, _) if matches!(&**base, Expr::Pow(_, k) if matches!(**k, Expr::Num(_))) => {
            None
        }
        Expr::Pow(base, exponent) => match **exponent {
            Expr::Num(k) if k < 0.0 => Some((base, -k)),
            _ => None,
        },
        _ => None,
    }
}

struct Printer<'o, W> {
    out: &'o mut W,
    options: Options,
}

impl<W: Write> Printer<'_, W> {
    fn times(&self) -> &'static str {
        match self.options.style {
            Style::Unicode => "·",
            Style::Ascii => "*",
        }
    }

    /// Prints `e`, in parentheses if it binds looser than `min`.
    fn operand(&mut self, e: &Expr, min: u8) -> fmt::Result {
        if strength(e) < min {
            self.out.write_char('(')?;
            self.expr(e)?;
            self.out.write_char(')')
        } else {
            self.expr(e)
        }
    }

    fn expr(&mut self, e: &Expr) -> fmt::Result {
        crate::deep(|| match e {
            Expr::Num(v) => {
                let text = format_number(*v, self.options.precision);
                self.out.write_str(&text)
            }
            Expr::Var(name) => self.out.write_str(name),
            Expr::Add(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i == 0 {
                        self.operand(item, PRODUCT)?;
                    } else if is_negative(item) {
                        self.out.write_str(" - ")?;
                        self.operand(&negate(item.clone()), PRODUCT)?;
                    } else {
                        self.out.write_str(" + ")?;
                        self.operand(item, PRODUCT)?;
                    }
                }
                Ok(())
            }
            Expr::Mul(items) => self.product(items),
            Expr::Pow(base, exponent) => {
                if let Some((base, k)) = reciprocal_power(e) {
                    self.out.write_str("1/")?;
                    return self.denominator(base, k);
                }
                self.power(base, exponent)
            }
            Expr::Apply(name, args) => {
                self.out.write_str(name)?;
                self.arguments(args)
            }
            Expr::Call(func, args) => {
                let name = match (func, self.options.style) {
                    (Func::Log2, Style::Unicode) => "log₂",
                    (f, _) => f.name(),
                };
                self.out.write_str(name)?;
                self.arguments(args)
            }
        })
    }

    fn arguments(&mut self, args: &[Expr]) -> fmt::Result {
        self.out.write_char('(')?;
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.expr(arg)?;
        }
        self.out.write_char(')')
    }

    /// `base^exponent`.
    fn power(&mut self, base: &Expr, exponent: &Expr) -> fmt::Result {
        // A power is right-associative, so a power as base needs parentheses.
        self.operand(base, ATOM)?;
        self.out.write_char('^')?;
        match exponent {
            Expr::Num(k) if *k >= 0.0 => self.expr(exponent),
            Expr::Var(_) | Expr::Call(_, _) => self.expr(exponent),
            _ => {
                self.out.write_char('(')?;
                self.expr(exponent)?;
                self.out.write_char(')')
            }
        }
    }

    /// The denominator of `1/base^k`: `base` alone for `k = 1`.
    fn denominator(&mut self, base: &Expr, k: f64) -> fmt::Result {
        if k == 1.0 {
            // `1/x^(1/3)` reads as `1/(x^(1/3))`: a power binds tighter than `/`.
            self.operand(base, POWER)
        } else {
            self.power(base, &Expr::Num(k))
        }
    }

    fn product(&mut self, items: &[Expr]) -> fmt::Result {
        let mut rest = items;
        // `-x` for `-1·x`, unless the next factor is a number (`-1·2` stays).
        if let [Expr::Num(c), next, ..] = items
            && *c == -1.0
            && !matches!(next, Expr::Num(_))
        {
            self.out.write_char('-')?;
            rest = &items[1..];
        }
        for (i, factor) in rest.iter().enumerate() {
            match reciprocal_power(factor) {
                Some((base, k)) => {
                    self.out.write_str(if i == 0 { "1/" } else { "/" })?;
                    self.denominator(base, k)?;
                }
                None => {
                    if i > 0 {
                        self.out.write_str(self.times())?;
                    }
                    let min = if i == 0 && rest.len() == items.len() {
                        PRODUCT
                    } else {
                        POWER
                    };
                    let min = if matches!(factor, Expr::Mul(_)) {
                        ATOM
                    } else {
                        min
                    };
                    self.operand(factor, min)?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Expr {
    /// Unicode by default; `{:#}` prints ASCII; `{:.N}` rounds numbers to N
    /// significant digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = Options {
            style: if f.alternate() {
                Style::Ascii
            } else {
                Style::Unicode
            },
            precision: f.precision(),
        };
        let mut text = String::new();
        Printer {
            out: &mut text,
            options,
        }
        .expr(self)?;
        f.write_str(&text)
    }
}

/// The LaTeX rendering of an expression, from [`Expr::latex`].
///
/// ```
/// use pattern_core::Expr;
///
/// let e = Expr::parse("1034.17*x*log2(x) + x^(2/3)/n").unwrap();
/// assert_eq!(
///     e.latex().to_string(),
///     r"1034.17 \cdot x \cdot \log_2 x + \frac{x^{2/3}}{n}"
/// );
/// ```
pub struct Latex<'a> {
    expr: &'a Expr,
    precision: Option<usize>,
}

impl Expr {
    /// Renders the expression as LaTeX (math mode, without the `$`).
    pub fn latex(&self) -> Latex<'_> {
        Latex {
            expr: self,
            precision: None,
        }
    }

    /// Renders the expression as LaTeX with numbers rounded to `digits`
    /// significant digits.
    pub fn latex_rounded(&self, digits: usize) -> Latex<'_> {
        Latex {
            expr: self,
            precision: Some(digits),
        }
    }

    /// The expression in plain ASCII (`*`, `log2`), as Extra-P and Rust code
    /// write it. Same as `format!("{:#}", self)`.
    pub fn to_ascii(&self) -> String {
        format!("{self:#}")
    }
}

impl fmt::Display for Latex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        latex(self.expr, self.precision, &mut text)?;
        f.write_str(&text)
    }
}

fn latex_number(v: f64, precision: Option<usize>, out: &mut String) -> fmt::Result {
    if v.is_infinite() {
        return out.write_str(if v > 0.0 { r"\infty" } else { r"-\infty" });
    }
    if v.is_nan() {
        return out.write_str(r"\mathrm{NaN}");
    }
    let text = format_number(v, precision);
    match text.split_once('e') {
        Some((mantissa, exponent)) => write!(out, r"{mantissa} \times 10^{{{exponent}}}"),
        None => out.write_str(&text),
    }
}

fn latex_operand(e: &Expr, min: u8, precision: Option<usize>, out: &mut String) -> fmt::Result {
    if strength(e) < min && !matches!(e, Expr::Mul(_) if min <= PRODUCT) {
        out.write_str(r"\left(")?;
        latex(e, precision, out)?;
        out.write_str(r"\right)")
    } else {
        latex(e, precision, out)
    }
}

/// `name(args)` as an operator name.
fn latex_applied(
    name: &str,
    args: &[Expr],
    precision: Option<usize>,
    out: &mut String,
) -> fmt::Result {
    write!(out, r"\operatorname{{{}}}\left(", name.replace('_', r"\_"))?;
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        latex(arg, precision, out)?;
    }
    out.write_str(r"\right)")
}

fn latex(e: &Expr, precision: Option<usize>, out: &mut String) -> fmt::Result {
    crate::deep(|| latex_node(e, precision, out))
}

fn latex_node(e: &Expr, precision: Option<usize>, out: &mut String) -> fmt::Result {
    match e {
        Expr::Apply(name, args) => latex_applied(name, args, precision, out),
        // Ill-formed (hand-built): written as it is.
        Expr::Call(func, args) if !func.accepts(args.len()) => {
            latex_applied(func.name(), args, precision, out)
        }
        Expr::Num(v) => latex_number(*v, precision, out),
        Expr::Var(name) => match name.split_once('_') {
            Some((head, tail)) if !tail.is_empty() => write!(out, r"{head}_{{\mathrm{{{tail}}}}}"),
            _ if name.chars().count() > 1 => write!(out, r"\mathit{{{name}}}"),
            _ => out.write_str(name),
        },
        Expr::Add(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 && is_negative(item) {
                    out.write_str(" - ")?;
                    // Negated in place: a copy of each negative term would
                    // make a deep expression quadratic.
                    match item {
                        Expr::Num(v) => latex_number(-v, precision, out)?,
                        Expr::Mul(factors) => latex_product(factors, true, precision, out)?,
                        _ => latex_operand(&negate(item.clone()), PRODUCT, precision, out)?,
                    }
                } else {
                    if i > 0 {
                        out.write_str(" + ")?;
                    }
                    latex_operand(item, PRODUCT, precision, out)?;
                }
            }
            Ok(())
        }
        Expr::Mul(items) => latex_product(items, false, precision, out),
        Expr::Pow(base, exponent) => {
            if let Some((base, k)) = reciprocal_power(e) {
                out.write_str(r"\frac{1}{")?;
                if k == 1.0 {
                    latex(base, precision, out)?;
                } else {
                    latex_operand(base, ATOM, precision, out)?;
                    out.write_str("^{")?;
                    latex_number(k, precision, out)?;
                    out.write_char('}')?;
                }
                return out.write_char('}');
            }
            latex_operand(base, ATOM, precision, out)?;
            out.write_str("^{")?;
            match &**exponent {
                // `x^{2/3}` reads better than a fraction in a superscript.
                Expr::Mul(items) if items.len() == 2 => {
                    if let (Expr::Num(a), Some((Expr::Num(b), k))) =
                        (&items[0], reciprocal_power(&items[1]))
                        && k == 1.0
                    {
                        write!(
                            out,
                            "{}/{}",
                            format_number(*a, None),
                            format_number(*b, None)
                        )?;
                        return out.write_char('}');
                    }
                    latex(exponent, precision, out)?;
                }
                _ => latex(exponent, precision, out)?,
            }
            out.write_char('}')
        }
        Expr::Call(func, args) => {
            let arg = |i: usize, out: &mut String| latex(&args[i], precision, out);
            match func {
                Func::Log2 | Func::Ln => {
                    out.write_str(if *func == Func::Log2 {
                        r"\log_2 "
                    } else {
                        r"\ln "
                    })?;
                    if matches!(args[0], Expr::Var(_)) {
                        arg(0, out)
                    } else {
                        out.write_str(r"\left(")?;
                        arg(0, out)?;
                        out.write_str(r"\right)")
                    }
                }
                Func::Log => {
                    out.write_str(r"\log_{")?;
                    arg(0, out)?;
                    out.write_str(r"}\left(")?;
                    arg(1, out)?;
                    out.write_str(r"\right)")
                }
                Func::Sqrt => {
                    out.write_str(r"\sqrt{")?;
                    arg(0, out)?;
                    out.write_char('}')
                }
                Func::Ceil | Func::Floor => {
                    let (l, r) = if *func == Func::Ceil {
                        (r"\lceil ", r" \rceil")
                    } else {
                        (r"\lfloor ", r" \rfloor")
                    };
                    out.write_str(l)?;
                    arg(0, out)?;
                    out.write_str(r)
                }
                Func::Max | Func::Min => {
                    out.write_str(if *func == Func::Max {
                        r"\max\left("
                    } else {
                        r"\min\left("
                    })?;
                    for i in 0..args.len() {
                        if i > 0 {
                            out.write_str(", ")?;
                        }
                        arg(i, out)?;
                    }
                    out.write_str(r"\right)")
                }
            }
        }
    }
}

/// A factor of a product as LaTeX prints it, by reference: a number (a
/// negated leading one), an expression, or `base^k` of a denominator.
enum Factor<'a> {
    Num(f64),
    Expr(&'a Expr),
    Power(&'a Expr, f64),
}

impl Factor<'_> {
    fn latex(&self, min: u8, precision: Option<usize>, out: &mut String) -> fmt::Result {
        match *self {
            Factor::Num(v) => latex_operand(&Expr::Num(v), min, precision, out),
            Factor::Expr(e) => latex_operand(e, min, precision, out),
            Factor::Power(base, k) => {
                latex_operand(base, ATOM, precision, out)?;
                out.write_str("^{")?;
                latex_number(k, precision, out)?;
                out.write_char('}')
            }
        }
    }
}

/// A product, its leading number negated when `negated` (a negative term
/// of a sum after its ` - `), reciprocal powers below a fraction bar.
fn latex_product(
    items: &[Expr],
    negated: bool,
    precision: Option<usize>,
    out: &mut String,
) -> fmt::Result {
    let mut numerator: Vec<Factor<'_>> = Vec::with_capacity(items.len());
    let mut denominator: Vec<Factor<'_>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match (reciprocal_power(item), item) {
            (Some((base, 1.0)), _) => denominator.push(Factor::Expr(base)),
            (Some((base, k)), _) => denominator.push(Factor::Power(base, k)),
            (None, Expr::Num(c)) if negated && i == 0 => {
                // As `negate` does: a leading 1 left by the negation goes.
                if -c != 1.0 || items.len() == 1 {
                    numerator.push(Factor::Num(-c));
                }
            }
            (None, _) => numerator.push(Factor::Expr(item)),
        }
    }
    if let Some(Factor::Num(c)) | Some(Factor::Expr(Expr::Num(c))) = numerator.first()
        && *c == -1.0
        && numerator.len() > 1
    {
        numerator.remove(0);
        out.write_char('-')?;
    }
    if denominator.is_empty() {
        return latex_factors(&numerator, precision, out);
    }
    out.write_str(r"\frac{")?;
    if numerator.is_empty() {
        out.write_char('1')?;
    } else {
        latex_factors(&numerator, precision, out)?;
    }
    out.write_str("}{")?;
    latex_factors(&denominator, precision, out)?;
    out.write_char('}')
}

fn latex_factors(
    factors: &[Factor<'_>],
    precision: Option<usize>,
    out: &mut String,
) -> fmt::Result {
    if let [Factor::Expr(single)] = factors {
        return latex(single, precision, out);
    }
    for (i, factor) in factors.iter().enumerate() {
        if i > 0 {
            out.write_str(r" \cdot ")?;
        }
        factor.latex(if i == 0 { PRODUCT } else { POWER }, precision, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Expr {
        Expr::parse(text).unwrap()
    }

    #[test]
    fn numbers_print_exactly_and_short() {
        assert_eq!(format_number(5422.97, None), "5422.97");
        assert_eq!(format_number(1.241e7, None), "1.241e7");
        assert_eq!(format_number(9449000.0, None), "9449000");
        assert_eq!(format_number(1.16e-10, None), "1.16e-10");
        assert_eq!(format_number(0.353395, None), "0.353395");
        assert_eq!(format_number(-3.0, None), "-3");
        assert_eq!(format_number(344.72333333333336, Some(4)), "344.7");
        assert_eq!(format_number(0.0, None), "0");
    }

    #[test]
    fn unicode_and_ascii() {
        let e = p("1034.17 * x * log2(x) + 5422.97");
        assert_eq!(e.to_string(), "1034.17·x·log₂(x) + 5422.97");
        assert_eq!(format!("{e:#}"), "1034.17*x*log2(x) + 5422.97");
        assert_eq!(e.to_ascii(), "1034.17*x*log2(x) + 5422.97");
    }

    #[test]
    fn signs_fractions_powers() {
        for (input, shown) in [
            ("a - b", "a - b"),
            ("a - 2*b", "a - 2·b"),
            ("a - (b + c)", "a - (b + c)"),
            ("-x + a", "-x + a"),
            ("-x^2", "-x^2"),
            ("(-2)^2", "(-2)^2"),
            ("x / n", "x/n"),
            ("x / (n * m)", "x/(n·m)"),
            ("x / n / m", "x/n/m"),
            ("1 / n", "1/n"),
            ("2 / n", "2/n"),
            ("x / n^2", "x/n^2"),
            ("1 / n^2", "1/n^2"),
            ("x^(2/3)", "x^(2/3)"),
            ("x^n", "x^n"),
            ("x^(n+1)", "x^(n + 1)"),
            ("(x^2)^3", "(x^2)^3"),
            ("2^3^2", "2^(3^2)"),
            (
                "(m*n - 1)/(m*n) * 12288 * x / 0.125",
                "(m·n - 1)/(m·n)·12288·x/0.125",
            ),
            ("x * (-1)", "x·(-1)"),
            ("-1 * 2", "-1·2"),
            ("max(a, b) / n", "max(a, b)/n"),
            ("log(10, x)", "log(10, x)"),
            ("(a + b) * (c + d)", "(a + b)·(c + d)"),
            ("-(a + b)", "-(a + b)"),
            ("x^0.5", "x^0.5"),
        ] {
            let e = p(input);
            assert_eq!(e.to_string(), shown, "{input}");
            assert_eq!(p(shown), e, "{shown} does not read back");
            assert_eq!(p(&e.to_ascii()), e, "{} does not read back", e.to_ascii());
        }
    }

    #[test]
    fn precision_rounds_numbers() {
        let e = p("344.72333333333336 * x + 1.23456789e-9");
        assert_eq!(format!("{e:.3}"), "345·x + 1.23e-9");
    }

    #[test]
    fn latex_forms() {
        for (input, shown) in [
            (
                "1034.17*x*log2(x) + 5422.97",
                r"1034.17 \cdot x \cdot \log_2 x + 5422.97",
            ),
            ("1.241e7", r"1.241 \times 10^{7}"),
            ("x^(2/3)", r"x^{2/3}"),
            ("(m*n - 1)/(m*n)", r"\frac{m \cdot n - 1}{m \cdot n}"),
            ("1/n^2", r"\frac{1}{n^{2}}"),
            (
                "max(a, b) - ceil(x)",
                r"\max\left(a, b\right) - \lceil x \rceil",
            ),
            (
                "sqrt(p) + log(3, y) + ln(x + 1)",
                r"\sqrt{p} + \log_{3}\left(y\right) + \ln \left(x + 1\right)",
            ),
            (
                "reduce_v * t_c",
                r"reduce_{\mathrm{v}} \cdot t_{\mathrm{c}}",
            ),
            ("-x*y", r"-x \cdot y"),
        ] {
            assert_eq!(p(input).latex().to_string(), shown, "{input}");
        }
    }
}
