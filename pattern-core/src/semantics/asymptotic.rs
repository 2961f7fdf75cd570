//! The paper's `pipe` ([`super::Mode::Asymptotic`]): of all stages, the one
//! whose model grows fastest in `x`. Stages of one class are told apart by
//! their leading coefficients; stages that cannot be told apart (symbolic
//! coefficients, a class that cannot be told) stay together in a `max`.
//!
//! The stages are folded from the right, as a right-nested chain reads.
//! Each stage's class, leading coefficient and dominant monomial are worked
//! out once, and the `max` being gathered keeps its class, so a pipeline of
//! `n` stages costs `n` analyses of one stage (not `n` analyses of a `max` as
//! long as the pipeline); a stage equal to one already folded is skipped.

use crate::{Expr, Func, Growth};
use std::cmp::Ordering;
use std::collections::HashSet;

/// A stage and what the choice needs of it.
struct Stage {
    expr: Expr,
    growth: Option<Growth>,
    coefficient: Option<f64>,
    /// The dominant part without its numeric coefficient.
    monomial: Expr,
}

impl Stage {
    fn new(expr: Expr) -> Stage {
        let dominant = expr.dominant("x");
        let coefficient = match &dominant {
            Expr::Add(_) => None,
            _ => expr.leading_coefficient("x"),
        };
        let monomial = match &dominant {
            Expr::Mul(items) if matches!(items.first(), Some(Expr::Num(_))) => {
                Expr::Mul(items[1..].to_vec())
            }
            Expr::Num(_) => Expr::num(1.0),
            _ => dominant,
        };
        Stage {
            growth: expr.growth("x"),
            expr,
            coefficient,
            monomial,
        }
    }
}

/// What the fold holds: one stage, or stages gathered in a `max` (kept in
/// reverse order, the newest last) with the class of the `max`.
enum Choice {
    One(Stage),
    Max {
        reversed: Vec<Expr>,
        growth: Option<Growth>,
    },
}

impl Choice {
    fn growth(&self) -> Option<&Growth> {
        match self {
            Choice::One(s) => s.growth.as_ref(),
            Choice::Max { growth, .. } => growth.as_ref(),
        }
    }

    /// `max(stage, self)`: the class is the larger one, unknown if either is.
    fn gather(self, stage: Stage) -> Choice {
        let growth = match (&stage.growth, self.growth()) {
            (Some(a), Some(b)) => Some(a.max(b).clone()),
            _ => None,
        };
        let mut reversed = match self {
            Choice::One(s) => push_reversed(Vec::new(), s.expr),
            Choice::Max { reversed, .. } => reversed,
        };
        reversed = push_reversed(reversed, stage.expr);
        Choice::Max { reversed, growth }
    }

    fn into_expr(self) -> Expr {
        match self {
            Choice::One(s) => s.expr,
            Choice::Max { mut reversed, .. } => {
                reversed.reverse();
                Expr::max(reversed)
            }
        }
    }
}

/// `e` (its arguments, if it is a `max`) pushed in reverse order.
fn push_reversed(mut reversed: Vec<Expr>, mut e: Expr) -> Vec<Expr> {
    match &mut e {
        Expr::Call(Func::Max, items) => reversed.extend(std::mem::take(items).into_iter().rev()),
        _ => reversed.push(e),
    }
    reversed
}

/// The slower of `stage` and what was chosen so far.
fn slower(stage: Stage, chosen: Choice) -> Choice {
    let order = match (&stage.growth, chosen.growth()) {
        (Some(a), Some(b)) => Some(a.cmp(b)),
        _ => None,
    };
    match (order, chosen) {
        (Some(Ordering::Greater), _) => Choice::One(stage),
        (Some(Ordering::Less), chosen) => chosen,
        (Some(Ordering::Equal), Choice::One(other)) => {
            match (stage.coefficient, other.coefficient) {
                (Some(a), Some(b)) if stage.monomial == other.monomial => {
                    Choice::One(if a >= b { stage } else { other })
                }
                _ => Choice::One(other).gather(stage),
            }
        }
        (_, chosen) => chosen.gather(stage),
    }
}

/// The stage that dominates as `x` grows, over all stages.
pub(crate) fn slowest_stage(stages: Vec<Expr>) -> Expr {
    let mut seen = HashSet::new();
    let mut stages = stages
        .into_iter()
        .rev()
        .filter(|s| seen.insert(s.clone()))
        .map(Stage::new);
    let Some(last) = stages.next() else {
        return Expr::max(Vec::new());
    };
    stages
        .fold(Choice::One(last), |chosen, stage| slower(stage, chosen))
        .into_expr()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The choice as first written: each stage against the whole choice so
    /// far, analysed afresh (quadratic, kept to check the fast one against).
    fn reference(stages: Vec<Expr>) -> Expr {
        fn same_monomial(a: &Expr, b: &Expr) -> bool {
            let strip = |e: &Expr| {
                let dominant = e.dominant("x");
                match &dominant {
                    Expr::Mul(items) if matches!(items.first(), Some(Expr::Num(_))) => {
                        Expr::Mul(items[1..].to_vec())
                    }
                    Expr::Num(_) => Expr::num(1.0),
                    _ => dominant,
                }
            };
            strip(a) == strip(b)
        }
        fn max_of(a: Expr, b: Expr) -> Expr {
            let mut items = Vec::new();
            for mut e in [a, b] {
                match &mut e {
                    Expr::Call(Func::Max, inner) => items.append(inner),
                    _ => items.push(e),
                }
            }
            Expr::max(items)
        }
        let mut stages = stages.into_iter().rev();
        let Some(last) = stages.next() else {
            return Expr::max(Vec::new());
        };
        stages.fold(last, |b, a| match a.cmp_growth(&b, "x") {
            Some(Ordering::Greater) => a,
            Some(Ordering::Less) => b,
            Some(Ordering::Equal) => match (a.leading_coefficient("x"), b.leading_coefficient("x"))
            {
                (Some(ca), Some(cb)) if same_monomial(&a, &b) => {
                    if ca >= cb {
                        a
                    } else {
                        b
                    }
                }
                _ => max_of(a, b),
            },
            None => max_of(a, b),
        })
    }

    fn parse(stages: &[&str]) -> Vec<Expr> {
        stages.iter().map(|s| Expr::parse(s).unwrap()).collect()
    }

    #[test]
    fn the_same_choice_as_the_reference() {
        let cases: [&[&str]; 10] = [
            &["x", "x*log2(x)", "7"],
            &["2*x", "3*x + 1"],
            &["3*x + 1", "2*x"],
            &["a*x", "b*x"],
            &["a*x", "b*x", "x^2", "c*x"],
            &["x^2", "a*x", "b*x"],
            &["x^k", "x", "x^2"],
            &["x", "x^k", "5"],
            &["max(a*x, 2*x)", "3*x", "x/2"],
            &[
                "1034.17*x*log2(x)",
                "536.185*x",
                "5422.97",
                "258.5*x*log2(x)",
            ],
        ];
        for case in cases {
            let stages = parse(case);
            let fast = slowest_stage(stages.clone());
            let slow = reference(stages);
            assert_eq!(fast.simplify(), slow.simplify(), "{case:?}");
        }
    }

    #[test]
    fn copies_of_a_few_stages_are_gathered_once() {
        let stages: Vec<Expr> = (0..10_000)
            .map(|i| Expr::parse(if i % 2 == 0 { "x/n" } else { "2*x/m" }).unwrap())
            .collect();
        assert_eq!(slowest_stage(stages).to_string(), "max(x/n, 2·x/m)");
        assert_eq!(slowest_stage(Vec::new()), Expr::max(Vec::new()));
    }

    #[test]
    fn many_stages_that_cannot_be_ordered_are_gathered_in_linear_time() {
        // 10^4 symbolic coefficients: each stage once analysed the `max` of
        // all stages before it (38 s for 2,000 stages).
        let n = 10_000;
        let stages: Vec<Expr> = (0..n)
            .map(|i| Expr::var(&format!("k{i}")) * Expr::var("x"))
            .collect();
        let chosen = slowest_stage(stages.clone());
        let Expr::Call(Func::Max, items) = &chosen else {
            panic!("{chosen}")
        };
        assert_eq!(items[..], stages[..]);
        let faster = [stages, vec![Expr::parse("x^2").unwrap()]].concat();
        assert_eq!(slowest_stage(faster).to_string(), "x^2");
    }
}
