//! Collective algorithms under the Hockney model (seed 000): a message of
//! `w` elements between two processes takes `α + w·β` (startup plus size
//! times the time per element), plus, where data goes through files between
//! hops as in Dryad's file pipes, `w·io` more.
//!
//! ```
//! use pattern_core::Expr;
//! use pattern_core::comm::Hockney;
//!
//! let net = Hockney::new(5e-5, 1.13e-7);
//! let (q, w) = (Expr::var("q"), Expr::var("w"));
//! // A flat tree sends q - 1 messages one after another; a binomial tree
//! // needs ceil(log2 q) rounds.
//! let flat = net.flat_tree(&q, &w).eval(&[("q", 16.0), ("w", 1e6)]).unwrap();
//! let binomial = net.binomial_tree(&q, &w).eval(&[("q", 16.0), ("w", 1e6)]).unwrap();
//! assert!((flat / binomial - 15.0 / 4.0).abs() < 1e-12);
//! ```

use crate::Expr;

/// The Hockney model of point-to-point messages, in seconds (or whatever
/// unit the coefficients are in).
#[derive(Clone, Debug, PartialEq)]
pub struct Hockney {
    /// Startup time α of one message.
    pub startup: Expr,
    /// Transfer time β of one element.
    pub per_element: Expr,
    /// I/O time of one element per hop (Dryad's file pipes); zero if none.
    pub io_per_element: Expr,
}

impl Hockney {
    /// A network with startup `α` and time `β` per element.
    pub fn new(startup: impl Into<Expr>, per_element: impl Into<Expr>) -> Hockney {
        Hockney {
            startup: startup.into(),
            per_element: per_element.into(),
            io_per_element: Expr::num(0.0),
        }
    }

    /// The same network with `io` more per element and hop (data written to
    /// and read from a file between processes).
    pub fn with_io(self, io: impl Into<Expr>) -> Hockney {
        Hockney {
            io_per_element: io.into(),
            ..self
        }
    }

    /// Time per element and hop: `β + io`.
    pub fn element_time(&self) -> Expr {
        self.per_element.clone() + self.io_per_element.clone()
    }

    /// One message of `w` elements: `α + w·(β + io)`.
    pub fn message(&self, w: &Expr) -> Expr {
        self.startup.clone() + w.clone() * self.element_time()
    }

    /// Flat tree (Dryad): the root sends to the `q - 1` others one after
    /// another, `(q - 1)·(α + w·(β + io))`.
    pub fn flat_tree(&self, q: &Expr, w: &Expr) -> Expr {
        (q.clone() - 1.0) * self.message(w)
    }

    /// Binomial tree (MPI): every round doubles the processes that have the
    /// data, `ceil(log2 q)·(α + w·(β + io))`.
    pub fn binomial_tree(&self, q: &Expr, w: &Expr) -> Expr {
        q.clone().log2().ceil() * self.message(w)
    }

    /// Pipelined tree (a chain) with the message cut in `k` segments: the
    /// first segment needs `q - 1` hops and each further one a hop more,
    /// `(q - 2 + k)·(α + (w/k)·(β + io))`.
    pub fn pipelined_tree(&self, q: &Expr, w: &Expr, k: &Expr) -> Expr {
        (q.clone() - 2.0 + k.clone()) * self.message(&(w.clone() / k.clone()))
    }

    /// The pipelined tree with the best number of segments, `k* =
    /// sqrt((q - 2)·w·(β + io)/α)`: `(sqrt((q - 2)·α) + sqrt(w·(β + io)))²`
    /// (for `q > 2`; a continuous `k`).
    pub fn pipelined_tree_optimal(&self, q: &Expr, w: &Expr) -> Expr {
        let a = ((q.clone() - 2.0) * self.startup.clone()).sqrt();
        let b = (w.clone() * self.element_time()).sqrt();
        (a + b).pow(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(e: &Expr, q: f64, w: f64) -> f64 {
        e.eval(&[("q", q), ("w", w), ("k", 8.0)]).unwrap()
    }

    #[test]
    fn algorithms_by_hand() {
        let net = Hockney::new(2.0, 0.5).with_io(0.25);
        let (q, w, k) = (Expr::var("q"), Expr::var("w"), Expr::var("k"));
        assert_eq!(eval(&net.message(&w), 1.0, 100.0), 2.0 + 100.0 * 0.75);
        assert_eq!(eval(&net.flat_tree(&q, &w), 5.0, 100.0), 4.0 * 77.0);
        assert_eq!(eval(&net.binomial_tree(&q, &w), 5.0, 100.0), 3.0 * 77.0);
        assert_eq!(eval(&net.binomial_tree(&q, &w), 8.0, 100.0), 3.0 * 77.0);
        assert_eq!(
            eval(&net.pipelined_tree(&q, &w, &k), 5.0, 800.0),
            11.0 * (2.0 + 100.0 * 0.75)
        );
        // The closed form is the minimum over k.
        let best = eval(&net.pipelined_tree_optimal(&q, &w), 10.0, 4096.0);
        let scan = (1..=4096)
            .map(|k| (10.0 - 2.0 + k as f64) * (2.0 + 4096.0 / k as f64 * 0.75))
            .fold(f64::INFINITY, f64::min);
        assert!(
            best <= scan + 1e-9 && scan - best < 0.01 * best,
            "{best} {scan}"
        );
    }

    #[test]
    fn which_wins_as_the_group_grows() {
        let net = Hockney::new(1e-4, 1e-8);
        let (q, w) = (Expr::var("q"), Expr::num(1e6));
        let flat = net.flat_tree(&q, &w);
        let binomial = net.binomial_tree(&q, &w);
        let pipelined = net.pipelined_tree_optimal(&q, &w);
        // Two processes: one message whatever the algorithm.
        assert_eq!(eval(&flat, 2.0, 0.0), eval(&binomial, 2.0, 0.0));
        // Large groups: the pipeline beats the binomial tree beats the flat tree.
        for n in [16.0, 64.0, 256.0] {
            let (f, b, p) = (
                eval(&flat, n, 0.0),
                eval(&binomial, n, 0.0),
                eval(&pipelined, n, 0.0),
            );
            assert!(p < b && b < f, "{n}: {p} {b} {f}");
        }
    }
}
