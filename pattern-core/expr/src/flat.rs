//! Sums and products built flat: an `Add` inside a sum (a `Mul` inside a
//! product) gives its items to the outer one, and one item is itself. The
//! operators, the parser and the normal form build through these, so that
//! every expression they make is flat.

use crate::Expr;

/// A flat sum; one item gives the item back, none gives `0`.
pub(crate) fn sum_of(items: Vec<Expr>) -> Expr {
    let mut flat = Vec::with_capacity(items.len());
    for mut item in items {
        match &mut item {
            Expr::Add(inner) => flat.append(inner),
            _ => flat.push(item),
        }
    }
    match flat.len() {
        0 => Expr::Num(0.0),
        1 => flat.pop().expect("one item"),
        _ => Expr::Add(flat),
    }
}

/// A flat product; one item gives the item back, none gives `1`.
pub(crate) fn product_of(items: Vec<Expr>) -> Expr {
    let mut flat = Vec::with_capacity(items.len());
    for mut item in items {
        match &mut item {
            Expr::Mul(inner) => flat.append(inner),
            _ => flat.push(item),
        }
    }
    match flat.len() {
        0 => Expr::Num(1.0),
        1 => flat.pop().expect("one item"),
        _ => Expr::Mul(flat),
    }
}

/// `-e`: a negated number, a product with its leading number negated, or `-1·e`.
pub(crate) fn negate(e: Expr) -> Expr {
    let mut e = e;
    match &mut e {
        Expr::Num(v) => Expr::Num(-*v),
        Expr::Mul(items) => {
            let mut items = std::mem::take(items);
            if let Some(Expr::Num(c)) = items.first_mut() {
                *c = -*c;
                if *c == 1.0 {
                    items.remove(0);
                    return product_of(items);
                }
                return Expr::Mul(items);
            }
            items.insert(0, Expr::Num(-1.0));
            Expr::Mul(items)
        }
        _ => Expr::Mul(vec![Expr::Num(-1.0), e]),
    }
}

/// `a / b`: `1/b` is the reciprocal alone, so that it prints as `1/b`.
pub(crate) fn divide(a: Expr, b: Expr) -> Expr {
    match a {
        Expr::Num(1.0) => b.recip(),
        a => product_of(vec![a, b.recip()]),
    }
}
