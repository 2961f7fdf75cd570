//! The n-ary expressions the semantics build: a sum, a product or a `max`
//! of parts, flat (a part of the same kind gives its items, not a nested
//! node), so a design of many stages lowers to one node of many items
//! rather than a deep tree.
//!
//! Built in linear time: a design nested deep in code (a pool of pools of
//! pools, a chain whose every link is a different pattern) grows the same
//! node one level at a time, and copying it at every level would be
//! quadratic. A part that already holds [`ABSORB`] items or more takes the
//! others in place, at its end; below that the parts keep their order.

use crate::{Expr, Func};

/// How many items a part must hold to take the other parts in place (and
/// change the order of the items, not their value).
pub(crate) const ABSORB: usize = 32;

/// The kinds of flat nodes.
#[derive(Clone, Copy)]
enum Kind {
    Sum,
    Product,
    Max,
}

impl Kind {
    /// The items of `e` if it is a node of this kind, else `e` back.
    fn items(self, mut e: Expr) -> Result<Vec<Expr>, Expr> {
        match (self, &mut e) {
            (Kind::Sum, Expr::Add(items))
            | (Kind::Product, Expr::Mul(items))
            | (Kind::Max, Expr::Call(Func::Max, items)) => Ok(std::mem::take(items)),
            _ => Err(e),
        }
    }

    fn len(self, e: &Expr) -> usize {
        match (self, e) {
            (Kind::Sum, Expr::Add(items))
            | (Kind::Product, Expr::Mul(items))
            | (Kind::Max, Expr::Call(Func::Max, items)) => items.len(),
            _ => 0,
        }
    }

    /// The node of `items`: none gives the identity (`0`, `1`, an empty
    /// `max`), one gives the item.
    fn build(self, mut items: Vec<Expr>) -> Expr {
        match (self, items.len()) {
            (Kind::Sum, 0) => Expr::num(0.0),
            (Kind::Product, 0) => Expr::num(1.0),
            (_, 1) => items.pop().unwrap_or_else(|| Expr::num(0.0)),
            (Kind::Sum, _) => Expr::Add(items),
            (Kind::Product, _) => Expr::Mul(items),
            (Kind::Max, _) => Expr::max(items),
        }
    }

    fn of(self, mut parts: Vec<Expr>) -> Expr {
        let widest = parts
            .iter()
            .enumerate()
            .map(|(i, p)| (self.len(p), i))
            .max()
            .filter(|&(len, _)| len >= ABSORB);
        let mut items = match widest {
            Some((_, i)) => self.items(parts.remove(i)).unwrap_or_default(),
            None => Vec::with_capacity(parts.len()),
        };
        for part in parts {
            match self.items(part) {
                Ok(inner) => items.extend(inner),
                Err(e) => items.push(e),
            }
        }
        self.build(items)
    }
}

/// `a + b + ..`, flat.
pub(crate) fn sum(parts: Vec<Expr>) -> Expr {
    Kind::Sum.of(parts)
}

/// `a · b · ..`, flat.
pub(crate) fn product(parts: Vec<Expr>) -> Expr {
    Kind::Product.of(parts)
}

/// `a / n`, flat: `1/n` alone when `a` is 1.
pub(crate) fn divide(a: Expr, n: Expr) -> Expr {
    match a {
        Expr::Num(1.0) => n.recip(),
        a => product(vec![a, n.recip()]),
    }
}

/// `max(a, b, ..)`, flat.
pub(crate) fn max(parts: Vec<Expr>) -> Expr {
    Kind::Max.of(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(i: usize) -> Expr {
        Expr::var(&format!("x{i}"))
    }

    #[test]
    fn small_parts_keep_their_order() {
        let inner = sum(vec![x(1), x(2)]);
        assert_eq!(
            sum(vec![x(0), inner, x(3)]).to_string(),
            "x0 + x1 + x2 + x3"
        );
        assert_eq!(
            product(vec![x(0), product(vec![x(1), x(2)])]).to_string(),
            "x0·x1·x2"
        );
        assert_eq!(
            max(vec![max(vec![x(0), x(1)]), x(2)]).to_string(),
            "max(x0, x1, x2)"
        );
        assert_eq!(sum(vec![]), Expr::num(0.0));
        assert_eq!(product(vec![]), Expr::num(1.0));
        assert_eq!(sum(vec![x(7)]), x(7));
        assert_eq!(divide(Expr::num(1.0), x(1)), x(1).recip());
        assert_eq!(divide(x(0), Expr::num(2.0)).to_string(), "x0/2");
        // Other kinds nest.
        let nested = sum(vec![x(0), product(vec![x(1), x(2)])]);
        assert!(matches!(&nested, Expr::Add(items) if items.len() == 2));
    }

    #[test]
    fn a_wide_part_takes_the_others_in_place() {
        let wide = sum((0..ABSORB).map(x).collect());
        let grown = sum(vec![x(100), wide.clone(), x(101)]);
        let Expr::Add(items) = &grown else {
            panic!("{grown}")
        };
        assert_eq!(items.len(), ABSORB + 2);
        assert_eq!(items[..ABSORB], (0..ABSORB).map(x).collect::<Vec<_>>()[..]);
        assert_eq!(items[ABSORB..], [x(100), x(101)]);
        let at: Vec<(String, f64)> = (0..200).map(|i| (format!("x{i}"), i as f64)).collect();
        let at: Vec<(&str, f64)> = at.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let expected: f64 = (0..ABSORB).map(|i| i as f64).sum::<f64>() + 201.0;
        assert_eq!(grown.eval(&at).unwrap(), expected);
    }

    #[test]
    fn growing_one_node_level_by_level_is_linear() {
        // 10^5 levels, each adding one item: quadratic copying would take
        // 5·10^9 moves; in place it is 10^5.
        let mut acc = Expr::num(1.0);
        for i in 0..100_000 {
            acc = divide(acc, x(i % 3));
        }
        assert!(matches!(&acc, Expr::Mul(items) if items.len() == 100_000));
        let mut acc = x(0);
        for i in 0..100_000 {
            acc = max(vec![x(i % 5), acc]);
        }
        assert!(matches!(&acc, Expr::Call(Func::Max, items) if items.len() == 100_001));
    }
}
