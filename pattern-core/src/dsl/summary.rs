//! Text built at compile time: the messages of `cost_budget!` and the tables
//! of `cost_summary!`. `const fn`s cannot allocate, so [`ConstText`] is a
//! fixed buffer that the macros size, and models, growth classes and numbers
//! are rendered into it by hand.

use super::ConstExpr;
use super::const_expr::{const_floor, const_log2, const_pow};

/// A string built in `const` context, up to `N` bytes (longer text is cut
/// and ends in `…`).
#[derive(Clone, Copy, Debug)]
pub struct ConstText<const N: usize> {
    buf: [u8; N],
    len: usize,
    cut: bool,
}

impl<const N: usize> Default for ConstText<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> ConstText<N> {
    /// An empty text.
    pub const fn new() -> Self {
        ConstText {
            buf: [0; N],
            len: 0,
            cut: false,
        }
    }

    /// The text. Always valid UTF-8: a cut never splits a character.
    pub const fn as_str(&self) -> &str {
        let (bytes, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => "",
        }
    }

    /// Appends a string (whole, or cut before it with `…`).
    pub const fn push(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        // Room is kept for the three bytes of `…`.
        if self.cut || self.len + bytes.len() + 3 > N {
            if !self.cut && self.len + 3 <= N {
                let dots = "…".as_bytes();
                let mut i = 0;
                while i < 3 {
                    self.buf[self.len + i] = dots[i];
                    i += 1;
                }
                self.len += 3;
            }
            self.cut = true;
            return self;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
        self
    }

    const fn push_digit(self, d: u64) -> Self {
        let digits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
        self.push(digits[(d % 10) as usize])
    }

    /// Appends a non-negative integer.
    pub const fn push_uint(self, v: u64) -> Self {
        let mut div = 1u64;
        while v / div >= 10 {
            div *= 10;
        }
        let mut out = self;
        while div > 0 {
            out = out.push_digit(v / div % 10);
            div /= 10;
        }
        out
    }

    /// Appends a number with 4 significant digits: `5422.97` as `5423`,
    /// `5.1532e9` as `5.153e9`, `0.125` as `0.125`.
    pub const fn push_number(self, v: f64) -> Self {
        if v.is_nan() {
            return self.push("NaN");
        }
        let mut out = self;
        if v < 0.0 {
            out = out.push("-");
        }
        let v = v.abs();
        if v.is_infinite() {
            return out.push("inf");
        }
        if v == 0.0 {
            return out.push("0");
        }
        // v = m · 10^e with 1000 ≤ m < 10000, m an integer (4 digits).
        let mut e = const_floor(const_log2(v) * std::f64::consts::LOG10_2) as i64 - 3;
        let mut m = (v / const_pow(10.0, e as f64) + 0.5) as u64;
        if m >= 10000 {
            m = (m + 5) / 10;
            e += 1;
        }
        if m < 1000 {
            m *= 10;
            e -= 1;
        }
        // Strip trailing zeros of the mantissa.
        let mut digits = 4i64;
        while m.is_multiple_of(10) && digits > 1 {
            m /= 10;
            digits -= 1;
            e += 1;
        }
        let point = digits + e; // digits before the decimal point
        if point >= 0 && point <= 6 && e >= -4 {
            // Positional: 5423, 0.125, 12.5
            if point <= 0 {
                out = out.push("0.");
                let mut zeros = -point;
                while zeros > 0 {
                    out = out.push("0");
                    zeros -= 1;
                }
                return out.push_uint(m);
            }
            let mut div = 1u64;
            let mut k = 1;
            while k < digits {
                div *= 10;
                k += 1;
            }
            let mut i = 0;
            while i < digits {
                if i == point {
                    out = out.push(".");
                }
                out = out.push_digit(m / div % 10);
                div /= 10;
                i += 1;
            }
            let mut trailing = point - digits;
            while trailing > 0 {
                out = out.push("0");
                trailing -= 1;
            }
            out
        } else {
            // Scientific: 5.153e9
            let mut div = 1u64;
            let mut k = 1;
            while k < digits {
                div *= 10;
                k += 1;
            }
            out = out.push_digit(m / div % 10);
            if digits > 1 {
                out = out.push(".");
                let mut i = 1;
                div /= 10;
                while i < digits {
                    out = out.push_digit(m / div % 10);
                    div /= 10;
                    i += 1;
                }
            }
            out = out.push("e");
            let exp = e + digits - 1;
            if exp < 0 {
                out = out.push("-");
            }
            out.push_uint(exp.unsigned_abs())
        }
    }

    /// Appends a model as readable text (`1034.17·x·log₂(x)/4`), as written
    /// in the tree (the macros store normal forms).
    pub const fn push_model(self, e: &ConstExpr) -> Self {
        self.model(e, 0)
    }

    /// `min` is the binding strength the context needs: 0 anywhere, 1 in a
    /// product, 2 as the base or exponent of a power.
    const fn model(self, e: &ConstExpr, min: u8) -> Self {
        let strength = match e {
            ConstExpr::Add(..) | ConstExpr::Sub(..) => 0,
            ConstExpr::Mul(..) | ConstExpr::Div(..) => 1,
            ConstExpr::Num(v) if *v < 0.0 => 1,
            ConstExpr::Pow(..) => 2,
            _ => 3,
        };
        let mut out = self;
        let parens = strength < min;
        if parens {
            out = out.push("(");
        }
        out = match e {
            ConstExpr::Num(v) => out.push_exact(*v),
            ConstExpr::Var(name) => out.push(name),
            ConstExpr::Add(a, b) => {
                let out = out.model(a, 0);
                match b {
                    ConstExpr::Num(v) if *v < 0.0 => out.push(" - ").push_exact(-*v),
                    ConstExpr::Mul(ConstExpr::Num(c), rest) if *c < 0.0 => {
                        let out = out.push(" - ");
                        if *c == -1.0 {
                            out.model(rest, 1)
                        } else {
                            out.push_exact(-*c).push("·").model(rest, 1)
                        }
                    }
                    // Addition is associative: a sum on the right needs no parentheses.
                    _ => out.push(" + ").model(b, 0),
                }
            }
            ConstExpr::Sub(a, b) => out.model(a, 0).push(" - ").model(b, 1),
            ConstExpr::Mul(a, b) => out.model(a, 1).push("·").model(b, 2),
            ConstExpr::Div(a, b) => out.model(a, 1).push("/").model(b, 3),
            ConstExpr::Pow(a, b) => out.model(a, 3).push("^").model(b, 3),
            ConstExpr::Log2(a) => out.push("log₂(").model(a, 0).push(")"),
            ConstExpr::Ln(a) => out.push("ln(").model(a, 0).push(")"),
            ConstExpr::Log(b, a) => out
                .push("log(")
                .model(b, 0)
                .push(", ")
                .model(a, 0)
                .push(")"),
            ConstExpr::Sqrt(a) => out.push("sqrt(").model(a, 0).push(")"),
            ConstExpr::Ceil(a) => out.push("ceil(").model(a, 0).push(")"),
            ConstExpr::Floor(a) => out.push("floor(").model(a, 0).push(")"),
            ConstExpr::Max(..) => out.push("max(").extremum_args(e, true).push(")"),
            ConstExpr::Min(..) => out.push("min(").extremum_args(e, false).push(")"),
            ConstExpr::Let(name, value, body) => out
                .model(body, 0)
                .push(" [")
                .push(name)
                .push(" := ")
                .model(value, 0)
                .push("]"),
        };
        if parens {
            out = out.push(")");
        }
        out
    }

    /// The arguments of nested `max` (or `min`) calls as one list.
    const fn extremum_args(self, e: &ConstExpr, max: bool) -> Self {
        match (e, max) {
            (ConstExpr::Max(a, b), true) | (ConstExpr::Min(a, b), false) => {
                self.extremum_args(a, max).push(", ").extremum_args(b, max)
            }
            _ => self.model(e, 0),
        }
    }

    /// Appends a number of a model: up to 6 significant digits, which keeps
    /// Table 1's coefficients (`1034.17`, `0.353395`) as printed.
    const fn push_exact(self, v: f64) -> Self {
        if v == const_floor(v) && v.abs() < 1e15 {
            let out = if v < 0.0 { self.push("-") } else { self };
            return out.push_uint(v.abs() as u64);
        }
        let mut out = self;
        if v < 0.0 {
            out = out.push("-");
        }
        let a = v.abs();
        if a < 1e-3 || a >= 1e6 {
            return out.push_number(a);
        }
        // Six significant digits, trailing zeros dropped.
        let int = const_floor(a) as u64;
        let mut scale = 1u64;
        let mut decimals = 0;
        let mut digits_left = 6i64
            - if int == 0 {
                0
            } else {
                (const_floor(const_log2(a) * std::f64::consts::LOG10_2) + 1.0) as i64
            };
        while digits_left > 0 {
            scale *= 10;
            decimals += 1;
            digits_left -= 1;
        }
        let mut frac = ((a - int as f64) * scale as f64 + 0.5) as u64;
        let mut int = int;
        if frac >= scale {
            int += 1;
            frac -= scale;
        }
        while decimals > 0 && frac.is_multiple_of(10) {
            frac /= 10;
            scale /= 10;
            decimals -= 1;
        }
        out = out.push_uint(int);
        if decimals > 0 {
            out = out.push(".");
            let mut div = scale / 10;
            while div > 0 {
                out = out.push_digit(frac / div % 10);
                div /= 10;
            }
        }
        out
    }

    /// Appends the growth class of a model in `var` (`O(x·log₂x)`), or
    /// `O(?)` where it cannot be told in const context.
    pub const fn push_class(self, e: &ConstExpr, var: &str) -> Self {
        let (p, l) = growth(e, var);
        if p.is_nan() || l.is_nan() {
            return self.push("O(?)");
        }
        let mut out = self.push("O(");
        if p == 0.0 && l == 0.0 {
            return out.push("1)");
        }
        let mut wrote = false;
        if p > 0.0 {
            out = out.push(var);
            if p != 1.0 {
                out = out.push("^").push_exact(p);
            }
            wrote = true;
        }
        if l != 0.0 {
            if wrote {
                out = out.push("·");
            }
            out = out.push("log₂").push(var);
            if l != 1.0 {
                out = out.push("^").push_exact(l);
            }
            wrote = true;
        }
        if p < 0.0 {
            if !wrote {
                out = out.push("1");
            }
            out = out.push("/").push(var);
            if p != -1.0 {
                out = out.push("^").push_exact(-p);
            }
        }
        out.push(")")
    }
}

/// The growth class `(power, log power)` of a model in `var`, NaN where a
/// power's exponent is not a number.
const fn growth(e: &ConstExpr, var: &str) -> (f64, f64) {
    match e {
        ConstExpr::Num(_) => (0.0, 0.0),
        ConstExpr::Var(name) => {
            if super::const_expr::str_eq(name, var) {
                (1.0, 0.0)
            } else {
                (0.0, 0.0)
            }
        }
        ConstExpr::Add(a, b) | ConstExpr::Sub(a, b) | ConstExpr::Max(a, b) => {
            larger(growth(a, var), growth(b, var))
        }
        ConstExpr::Min(a, b) => {
            let (x, y) = (growth(a, var), growth(b, var));
            if is_larger(x, y) { y } else { x }
        }
        ConstExpr::Mul(a, b) => {
            let (x, y) = (growth(a, var), growth(b, var));
            (x.0 + y.0, x.1 + y.1)
        }
        ConstExpr::Div(a, b) => {
            let (x, y) = (growth(a, var), growth(b, var));
            (x.0 - y.0, x.1 - y.1)
        }
        ConstExpr::Pow(a, b) => match b {
            ConstExpr::Num(k) => {
                let g = growth(a, var);
                (g.0 * *k, g.1 * *k)
            }
            _ => (f64::NAN, f64::NAN),
        },
        ConstExpr::Sqrt(a) => {
            let g = growth(a, var);
            (g.0 / 2.0, g.1 / 2.0)
        }
        ConstExpr::Log2(a) | ConstExpr::Ln(a) | ConstExpr::Log(_, a) => {
            let g = growth(a, var);
            if g.0 != 0.0 { (0.0, 1.0) } else { (0.0, 0.0) }
        }
        ConstExpr::Ceil(a) | ConstExpr::Floor(a) => growth(a, var),
        // A bound variable: the body's growth with the value's growth for it
        // is beyond this sketch unless the binding is a constant.
        ConstExpr::Let(name, value, body) => {
            if super::const_expr::str_eq(name, var) {
                let v = growth(value, var);
                let b = growth(body, var);
                // body(var := value): powers compose when the body is a
                // power of var.
                (b.0 * v.0, b.1 + b.0 * v.1)
            } else {
                growth(body, var)
            }
        }
    }
}

const fn is_larger(x: (f64, f64), y: (f64, f64)) -> bool {
    x.0 > y.0 || (x.0 == y.0 && x.1 > y.1)
}

const fn larger(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
    if x.0.is_nan() || y.0.is_nan() {
        (f64::NAN, f64::NAN)
    } else if is_larger(x, y) {
        x
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(v: f64) -> String {
        ConstText::<64>::new().push_number(v).as_str().to_string()
    }

    #[test]
    fn numbers_with_four_significant_digits() {
        assert_eq!(number(5422.97), "5423");
        assert_eq!(number(5.153216e9), "5.153e9");
        assert_eq!(number(0.125), "0.125");
        assert_eq!(number(12.5), "12.5");
        assert_eq!(number(1e6), "1e6");
        assert_eq!(number(262144.0), "262100");
        assert_eq!(number(2.5e9), "2.5e9");
        assert_eq!(number(0.00001234), "1.234e-5");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(9999.6), "10000");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(0.0), "0");
    }

    #[test]
    fn models_and_classes() {
        const QSORT: ConstExpr = ConstExpr::Mul(
            &ConstExpr::Mul(&ConstExpr::Num(1034.17), &ConstExpr::Var("x")),
            &ConstExpr::Log2(&ConstExpr::Var("x")),
        );
        const POOL: ConstExpr = ConstExpr::Max(
            &ConstExpr::Div(&QSORT, &ConstExpr::Num(4.0)),
            &ConstExpr::Add(
                &ConstExpr::Mul(&ConstExpr::Num(536.185), &ConstExpr::Var("x")),
                &ConstExpr::Num(-5.5),
            ),
        );
        const TEXT: ConstText<256> = ConstText::new()
            .push_model(&POOL)
            .push(" is ")
            .push_class(&POOL, "x");
        assert_eq!(
            TEXT.as_str(),
            "max(1034.17·x·log₂(x)/4, 536.185·x - 5.5) is O(x·log₂x)"
        );
        let root = ConstExpr::Pow(&ConstExpr::Var("x"), &ConstExpr::Num(0.5));
        assert_eq!(
            ConstText::<64>::new().push_class(&root, "x").as_str(),
            "O(x^0.5)"
        );
        let inv = ConstExpr::Div(&ConstExpr::Num(3.0), &ConstExpr::Var("n"));
        assert_eq!(
            ConstText::<64>::new().push_class(&inv, "n").as_str(),
            "O(1/n)"
        );
        assert_eq!(
            ConstText::<64>::new().push_exact(0.353395).as_str(),
            "0.353395"
        );
        assert_eq!(
            ConstText::<64>::new().push_exact(258.5425).as_str(),
            "258.543"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_character() {
        let t = ConstText::<10>::new().push("abc").push("defgh").push("ij");
        assert_eq!(t.as_str(), "abc…");
        let t = ConstText::<12>::new().push("log₂(x)");
        assert_eq!(t.as_str(), "log₂(x)");
    }
}
