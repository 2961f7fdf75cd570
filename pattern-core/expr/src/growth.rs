//! Asymptotic growth in one variable: the big-O class, comparison of two
//! expressions, and the dominant term (the paper's choice for `pipe`).

use super::flat::sum_of;
use super::normal::{Q, to_poly, to_rational};
use super::{Expr, Func};
use num_traits::{One, Signed, Zero};
use std::cmp::Ordering;
use std::fmt;

/// A growth class `var^power · log2(var)^log`, the PMNF class of a term.
///
/// Ordered by growth: `x·log₂x` beats `x`, `x^1.5` beats `x·log₂(x)^2`.
///
/// ```
/// use pattern_core::Expr;
///
/// let qsort = Expr::parse("1034.17 * x * log2(x) + 5422.97").unwrap();
/// assert_eq!(qsort.growth("x").unwrap().to_string(), "O(x·log₂x)");
/// let inc = Expr::parse("536.185 * x").unwrap();
/// assert!(qsort.growth("x") > inc.growth("x"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Growth {
    var: String,
    power: Q,
    log: Q,
}

impl Growth {
    fn constant(var: &str) -> Growth {
        Growth {
            var: var.to_string(),
            power: Q::zero(),
            log: Q::zero(),
        }
    }

    /// The variable the class is about.
    pub fn var(&self) -> &str {
        &self.var
    }

    /// The exponent of the variable.
    pub fn power(&self) -> f64 {
        *self.power.numer() as f64 / *self.power.denom() as f64
    }

    /// The exponent of `log2(var)`.
    pub fn log_power(&self) -> f64 {
        *self.log.numer() as f64 / *self.log.denom() as f64
    }

    /// Whether this is `O(1)`.
    pub fn is_constant(&self) -> bool {
        self.power.is_zero() && self.log.is_zero()
    }

    fn key(&self) -> (Q, Q) {
        (self.power, self.log)
    }
}

impl PartialOrd for Growth {
    fn partial_cmp(&self, other: &Growth) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Growth {
    fn cmp(&self, other: &Growth) -> Ordering {
        self.key()
            .cmp(&other.key())
            .then_with(|| self.var.cmp(&other.var))
    }
}

fn write_exponent(f: &mut fmt::Formatter<'_>, q: &Q) -> fmt::Result {
    if q.is_integer() {
        write!(f, "^{}", q.numer())
    } else {
        write!(f, "^({}/{})", q.numer(), q.denom())
    }
}

impl fmt::Display for Growth {
    /// `O(1)`, `O(x)`, `O(x·log₂x)`, `O(x^(2/3)·log₂(x)^2)`, `O(1/n)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("O(")?;
        if self.is_constant() {
            return f.write_str("1)");
        }
        let v = &self.var;
        let mut wrote = false;
        if self.power.is_positive() {
            f.write_str(v)?;
            if !self.power.is_one() {
                write_exponent(f, &self.power)?;
            }
            wrote = true;
        }
        if !self.log.is_zero() {
            if wrote {
                f.write_str("·")?;
            }
            if self.log.is_one() {
                write!(f, "log₂{v}")?;
            } else {
                write!(f, "log₂({v})")?;
                write_exponent(f, &self.log)?;
            }
            wrote = true;
        }
        if self.power.is_negative() {
            if !wrote {
                f.write_str("1")?;
            }
            write!(f, "/{v}")?;
            if self.power != -Q::one() {
                write_exponent(f, &-self.power)?;
            }
        }
        f.write_str(")")
    }
}

/// The growth class of `e` in `var`; `None` where it cannot be told (a power
/// whose exponent depends on a variable).
fn growth_of(e: &Expr, var: &str) -> Option<Growth> {
    crate::deep(|| {
        Some(match e {
            // An unresolved function could grow in any way.
            Expr::Apply(_, args) if args.iter().any(|a| a.depends_on(var)) => return None,
            Expr::Apply(..) => Growth::constant(var),
            Expr::Num(_) => Growth::constant(var),
            Expr::Var(v) if v == var => Growth {
                var: var.to_string(),
                power: Q::one(),
                log: Q::zero(),
            },
            Expr::Var(_) => Growth::constant(var),
            Expr::Add(items) | Expr::Call(Func::Max, items) => items
                .iter()
                .map(|i| growth_of(i, var))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max()?,
            Expr::Call(Func::Min, items) => items
                .iter()
                .map(|i| growth_of(i, var))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min()?,
            Expr::Mul(items) => {
                let mut g = Growth::constant(var);
                for item in items {
                    let h = growth_of(item, var)?;
                    g.power += h.power;
                    g.log += h.log;
                }
                g
            }
            Expr::Pow(base, exponent) => {
                let g = growth_of(base, var)?;
                if g.is_constant() {
                    // A constant base: constant unless the exponent grows.
                    return (!exponent.depends_on(var)).then(|| Growth::constant(var));
                }
                let k = to_poly(exponent).as_constant().and_then(to_rational)?;
                Growth {
                    var: var.to_string(),
                    power: g.power * k,
                    log: g.log * k,
                }
            }
            Expr::Call(func, args) if !func.accepts(args.len()) => return None,
            Expr::Call(Func::Log2 | Func::Ln, args) => log_growth(growth_of(&args[0], var)?),
            Expr::Call(Func::Log, args) => {
                if args[0].depends_on(var) {
                    return None;
                }
                log_growth(growth_of(&args[1], var)?)
            }
            Expr::Call(Func::Sqrt, args) => {
                let g = growth_of(&args[0], var)?;
                Growth {
                    power: g.power / Q::from_integer(2),
                    log: g.log / Q::from_integer(2),
                    ..g
                }
            }
            Expr::Call(Func::Ceil | Func::Floor, args) => growth_of(&args[0], var)?,
        })
    })
}

/// `log2` of something of class `g`: `log2(var)` for any power, a constant
/// for a constant or a pure logarithm (`log2 log2 x` is counted as constant).
fn log_growth(g: Growth) -> Growth {
    if g.power.is_zero() {
        Growth::constant(&g.var)
    } else {
        Growth {
            power: Q::zero(),
            log: Q::one(),
            ..g
        }
    }
}

/// The normal form of `e` with its extrema resolved in `var`. Without
/// extrema nothing changes, and the normal form is not normalized again
/// (a fixed point: that pass would only repeat the first).
fn resolved_normal_form(e: &Expr, var: &str) -> Expr {
    let normal = e.simplify();
    let resolved = resolve_extrema(&normal, var);
    if resolved == normal {
        normal
    } else {
        resolved.simplify()
    }
}

/// Replaces every `max`/`min` by the argument that wins as `var` grows.
fn resolve_extrema(e: &Expr, var: &str) -> Expr {
    crate::deep(|| match e {
        Expr::Call(func @ (Func::Max | Func::Min), args) => {
            let args: Vec<Expr> = args
                .iter()
                .map(|a| resolve_extrema(a, var).simplify())
                .collect();
            pick_extremum(*func, args, var)
        }
        Expr::Num(_) | Expr::Var(_) => e.clone(),
        _ => e.map_children(|c| resolve_extrema(c, var)),
    })
}

fn pick_extremum(func: Func, args: Vec<Expr>, var: &str) -> Expr {
    let growths: Vec<Option<Growth>> = args.iter().map(|a| growth_of(a, var)).collect();
    if growths.iter().any(Option::is_none) {
        return Expr::Call(func, args);
    }
    let growths: Vec<Growth> = growths.into_iter().flatten().collect();
    let best = if func == Func::Max {
        growths.iter().max()
    } else {
        growths.iter().min()
    }
    .cloned();
    // None: a hand-built call without arguments, kept as it is.
    let Some(best) = best else {
        return Expr::Call(func, args);
    };
    let tied: Vec<Expr> = args
        .into_iter()
        .zip(&growths)
        .filter(|(_, g)| **g == best)
        .map(|(a, _)| a)
        .collect();
    if tied.len() == 1 {
        return tied.into_iter().next().expect("one");
    }
    // Same class: the larger (smaller) leading coefficient wins, if the
    // leading terms differ only in their coefficient.
    let leads: Vec<(f64, Expr)> = tied
        .iter()
        .filter_map(|a| split_coefficient(&leading_part(a, var)))
        .collect();
    if leads.len() == tied.len() && leads.iter().all(|(_, m)| *m == leads[0].1) {
        let pick = leads
            .iter()
            .enumerate()
            .max_by(|(_, (a, _)), (_, (b, _))| {
                if func == Func::Max {
                    a.total_cmp(b)
                } else {
                    b.total_cmp(a)
                }
            })
            .map(|(i, _)| i)
            .expect("at least one");
        return tied[pick].clone();
    }
    Expr::Call(func, tied)
}

/// `c·rest` → `(c, rest)` for a single term.
fn split_coefficient(term: &Expr) -> Option<(f64, Expr)> {
    match term {
        Expr::Num(c) => Some((*c, Expr::Num(1.0))),
        Expr::Mul(items) => match items.first() {
            Some(Expr::Num(c)) => Some((*c, super::product_of(items[1..].to_vec()))),
            _ => Some((1.0, term.clone())),
        },
        Expr::Add(_) => None,
        other => Some((1.0, other.clone())),
    }
}

/// The terms of a normal form with the highest growth in `var`.
fn leading_part(e: &Expr, var: &str) -> Expr {
    let terms: Vec<Expr> = match e {
        Expr::Add(items) => items.clone(),
        other => vec![other.clone()],
    };
    let growths: Vec<Option<Growth>> = terms.iter().map(|t| growth_of(t, var)).collect();
    let Some(best) = growths.iter().flatten().max().cloned() else {
        return e.clone();
    };
    sum_of(
        terms
            .into_iter()
            .zip(growths)
            .filter(|(_, g)| g.as_ref().is_none_or(|g| *g == best))
            .map(|(t, _)| t)
            .collect(),
    )
}

impl Expr {
    /// The growth class in `var` (other variables count as constants), or
    /// `None` where it cannot be told (an exponent that depends on a variable).
    pub fn growth(&self, var: &str) -> Option<Growth> {
        growth_of(&resolved_normal_form(self, var), var)
    }

    /// Compares two expressions by asymptotic growth in `var`: `Less` if
    /// `self` grows slower. `None` if either class cannot be told.
    ///
    /// ```
    /// use pattern_core::Expr;
    /// use std::cmp::Ordering;
    ///
    /// let a = Expr::parse("x^1.5").unwrap();
    /// let b = Expr::parse("1e6 * x * log2(x)^2").unwrap();
    /// assert_eq!(a.cmp_growth(&b, "x"), Some(Ordering::Greater));
    /// ```
    pub fn cmp_growth(&self, other: &Expr, var: &str) -> Option<Ordering> {
        Some(self.growth(var)?.key().cmp(&other.growth(var)?.key()))
    }

    /// The part that dominates as `var` grows: the normal-form terms of the
    /// highest class, coefficients kept. Every `max` is first resolved to its
    /// faster-growing argument (`min` to the slower), as the paper's pipeline
    /// operator does; arguments of one class are told apart by their leading
    /// coefficients.
    ///
    /// ```
    /// use pattern_core::Expr;
    ///
    /// let pipe = Expr::parse("max(1034.17*x*log2(x), 536.185*x, 5422.97)").unwrap();
    /// assert_eq!(pipe.dominant("x").to_string(), "1034.17·x·log₂(x)");
    /// let seq = Expr::parse("1034.17*x*log2(x) + 536.185*x").unwrap();
    /// assert_eq!(seq.dominant("x").to_string(), "1034.17·x·log₂(x)");
    /// ```
    pub fn dominant(&self, var: &str) -> Expr {
        leading_part(&resolved_normal_form(self, var), var)
    }

    /// The coefficient of the dominant term in `var`, when the dominant part
    /// is a single term: `1034.17` for `1034.17·x·log₂(x) + 5422.97`.
    pub fn leading_coefficient(&self, var: &str) -> Option<f64> {
        match self.dominant(var) {
            Expr::Add(_) => None,
            term => split_coefficient(&term).map(|(c, _)| c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(text: &str) -> String {
        Expr::parse(text)
            .unwrap()
            .growth("x")
            .map_or("?".into(), |g| g.to_string())
    }

    fn dom(text: &str) -> String {
        Expr::parse(text).unwrap().dominant("x").to_string()
    }

    #[test]
    fn classes() {
        assert_eq!(g("5422.97"), "O(1)");
        assert_eq!(g("536.185 * x"), "O(x)");
        assert_eq!(g("1034.17 * x * log2(x) + 5422.97"), "O(x·log₂x)");
        assert_eq!(g("x^(2/3) * log2(x)^2"), "O(x^(2/3)·log₂(x)^2)");
        assert_eq!(g("n / x"), "O(1/x)");
        assert_eq!(g("log2(x)"), "O(log₂x)");
        assert_eq!(g("ln(x^3 + 1)"), "O(log₂x)");
        assert_eq!(g("sqrt(x)"), "O(x^(1/2))");
        assert_eq!(g("ceil(x / 3)"), "O(x)");
        assert_eq!(g("max(x, x^2) + min(x, 1)"), "O(x^2)");
        assert_eq!(g("x^n"), "?");
        assert_eq!(g("2^n"), "O(1)");
        assert_eq!(g("x * n * m"), "O(x)");
    }

    #[test]
    fn comparisons() {
        let e = |t: &str| Expr::parse(t).unwrap();
        assert_eq!(
            e("x*log2(x)").cmp_growth(&e("1e9*x"), "x"),
            Some(Ordering::Greater)
        );
        assert_eq!(
            e("x^1.5").cmp_growth(&e("x*log2(x)^2"), "x"),
            Some(Ordering::Greater)
        );
        assert_eq!(e("3*x").cmp_growth(&e("x + 7"), "x"), Some(Ordering::Equal));
        assert_eq!(
            e("log2(x)").cmp_growth(&e("x^0.25"), "x"),
            Some(Ordering::Less)
        );
        assert_eq!(e("x^n").cmp_growth(&e("x"), "x"), None);
    }

    #[test]
    fn dominant_terms() {
        assert_eq!(dom("1034.17*x*log2(x) + 5422.97"), "1034.17·x·log₂(x)");
        assert_eq!(
            dom("max(1034.17*x*log2(x), 536.185*x)"),
            "1034.17·x·log₂(x)"
        );
        assert_eq!(dom("max(536.185*x, 670.32*x)"), "670.32·x");
        assert_eq!(dom("min(536.185*x, 670.32*x)"), "536.185·x");
        assert_eq!(dom("max(536.185*x, 5422.97)"), "536.185·x");
        assert_eq!(dom("max(a*x, b*x)"), "max(a·x, b·x)");
        assert_eq!(dom("3*x*n + 2*x*m + 5"), "2·m·x + 3·n·x");
        assert_eq!(dom("98304*x - 98304*x/(m*n)"), "98304·x - 98304·x/m/n");
        assert_eq!(dom("max(qsort, inc)"), "max(inc, qsort)");
    }

    #[test]
    fn leading_coefficients() {
        let e = |t: &str| Expr::parse(t).unwrap();
        assert_eq!(
            e("1034.17*x*log2(x) + 5422.97").leading_coefficient("x"),
            Some(1034.17)
        );
        assert_eq!(e("5422.97").leading_coefficient("x"), Some(5422.97));
        assert_eq!(e("x/n").leading_coefficient("x"), Some(1.0));
        assert_eq!(e("a*x + b*x").leading_coefficient("x"), None);
    }
}
