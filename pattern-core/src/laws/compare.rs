//! Checking a refactoring: is design B equivalent to design A, does it never
//! lose to A over a domain, and if it does, where first and by how much.

use super::check::{self, Dominance};
use super::sample::{Domain, DomainError, Point};
use crate::expr::CompiledExpr;
use crate::{Design, EvalError, Expr};
use crate::{Term, TermError};
use proptest::prelude::RngCore;
use proptest::strategy::{NewTree, Strategy};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;

/// At most this many grid points are evaluated before the random search.
const GRID_POINTS: usize = 4096;
/// Random points tried by the search (proptest cases).
const SEARCH_CASES: u32 = 2048;

/// Why two designs could not be compared.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompareError {
    /// A design is not well-formed.
    #[error("design {side} is not well-formed: {error}")]
    IllFormed {
        /// `"A"` or `"B"`.
        side: &'static str,
        /// What is wrong.
        error: TermError,
    },
    /// The domain is not valid.
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// A model could not be evaluated at a point of the domain.
    #[error("the model of design {side} cannot be evaluated at {point}: {error}")]
    Eval {
        /// `"A"` or `"B"`.
        side: &'static str,
        /// Where.
        point: Point,
        /// What went wrong.
        error: EvalError,
    },
}

/// How an equivalence was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The models have the same normal form: equal everywhere.
    Symbolic,
    /// The normal forms differ (it cannot decide every `max`), but the
    /// values agree at every point searched.
    Sampled {
        /// How many points were evaluated.
        points: usize,
    },
}

/// By how much B beats A where it never loses: ratios `A/B` (≥ 1) over the
/// points searched.
#[derive(Clone, Debug, PartialEq)]
pub struct Margin {
    /// The smallest `A/B`: B is at least this many times as fast.
    pub least: f64,
    /// Where.
    pub least_at: Point,
    /// The largest `A/B`.
    pub most: f64,
    /// Where.
    pub most_at: Point,
    /// Whether `M[B] ≤ M[A]` was also proved symbolically (dominance), for
    /// every positive value of the variables, not only the domain.
    pub proved: bool,
    /// How many points were evaluated.
    pub points: usize,
}

/// Where B loses to A.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The smallest failing point found: proptest shrinks each variable
    /// towards the bottom of its range while B still loses.
    pub at: Point,
    /// `M[A]` there.
    pub a: f64,
    /// `M[B]` there.
    pub b: f64,
    /// `B/A` there (> 1): B takes this many times as long.
    pub ratio: f64,
    /// The largest `B/A` among the points searched.
    pub worst_ratio: f64,
    /// Where.
    pub worst_at: Point,
}

/// The answer of [`compare`].
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// B is as fast as A.
    Equivalent(Evidence),
    /// B is never slower than A on the domain, and faster somewhere.
    NeverWorse(Margin),
    /// B is slower than A somewhere on the domain.
    Worse(Counterexample),
}

/// Two designs compared: their models, the verdict, and how B's growth in
/// `x` compares with A's (B may lose beyond the domain when it grows faster).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// `M[A]`, in normal form.
    pub a: Expr,
    /// `M[B]`, in normal form.
    pub b: Expr,
    /// The verdict on the domain.
    pub verdict: Verdict,
    /// B's growth in `x` against A's (`Greater`: B grows faster), if known.
    pub growth: Option<Ordering>,
}

impl Comparison {
    /// Whether B never loses to A on the domain (equivalent or better).
    pub fn never_worse(&self) -> bool {
        !matches!(self.verdict, Verdict::Worse(_))
    }
}

fn percent(ratio: f64) -> f64 {
    100.0 * (ratio - 1.0)
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Equivalent(Evidence::Symbolic) => {
                f.write_str("equivalent: the models have the same normal form")
            }
            Verdict::Equivalent(Evidence::Sampled { points }) => write!(
                f,
                "equivalent on the domain: equal values at all {points} points searched"
            ),
            Verdict::NeverWorse(m) => {
                write!(
                    f,
                    "B never loses: {:.3}x to {:.3}x as fast as A (least at {}, most at {}; {} points)",
                    m.least, m.most, m.least_at, m.most_at, m.points
                )?;
                if m.proved {
                    f.write_str("; M[B] ≤ M[A] proved symbolically")?;
                }
                Ok(())
            }
            Verdict::Worse(c) => write!(
                f,
                "B loses to A: smallest failing point {}, where B takes {:.1} against {:.1} ({:.2} % slower); worst {:.2} % slower at {}",
                c.at,
                c.b,
                c.a,
                percent(c.ratio),
                percent(c.worst_ratio),
                c.worst_at
            ),
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.verdict)?;
        if self.never_worse() && self.growth == Some(Ordering::Greater) {
            f.write_str(
                " (but B grows faster in x: it loses beyond the domain for large enough x)",
            )?;
        }
        Ok(())
    }
}

/// Compares design B (a refactoring) with design A over `domain`.
///
/// 1. Both designs must be well-formed ([`Design::from_term`]).
/// 2. If the models have the same strong normal form, B is
///    [`Verdict::Equivalent`] with [`Evidence::Symbolic`].
/// 3. Otherwise both models are evaluated on a grid over the domain (up to
///    4,096 points, log-spaced) and at 2,048 random points (proptest, seeded:
///    the answer is reproducible). Where B is slower than A (beyond a relative
///    1e-9), proptest shrinks the point, each variable towards the bottom of
///    its range, to the smallest failing point: [`Verdict::Worse`] with it,
///    the values there and the worst ratio seen. If B never loses, the verdict
///    is [`Verdict::NeverWorse`] with the least and largest speedup `A/B`, or
///    [`Verdict::Equivalent`] with [`Evidence::Sampled`] when the values agree
///    everywhere.
///
/// ```
/// use pattern_core::laws::{compare, Domain, Verdict};
/// use pattern_core::Design;
///
/// let atoms = "qsort = 1034.17*x*log2(x); inc = 536.185*x;";
/// let a = Design::parse(&format!("{atoms} pipe(qsort, inc)")).unwrap();
/// let b = Design::parse(&format!("{atoms} tpool[2](seq(qsort, inc))")).unwrap();
/// let c = compare(a.term(), b.term(), &Domain::new()).unwrap();
/// let Verdict::NeverWorse(margin) = &c.verdict else { panic!("{c}") };
/// assert!(margin.proved);
/// assert_eq!(margin.least_at.get("x"), Some(2)); // the pool gains least at x = 2
/// assert!((margin.least - 1.317).abs() < 1e-3);
///
/// // The other way round, the pipeline loses everywhere: the smallest failing x is 2.
/// let back = compare(b.term(), a.term(), &Domain::new()).unwrap();
/// let Verdict::Worse(cex) = &back.verdict else { panic!("{back}") };
/// assert_eq!(cex.at.get("x"), Some(2));
/// ```
pub fn compare(a: &Term, b: &Term, domain: &Domain) -> Result<Comparison, CompareError> {
    for (side, t) in [("A", a), ("B", b)] {
        Design::from_term(t.clone()).map_err(|error| CompareError::IllFormed { side, error })?;
    }
    let model = |t: &Term| crate::semantics::Throughput::new().expr(t).simplify();
    let (ma, mb) = (model(a), model(b));
    let growth = mb.cmp_growth(&ma, "x");
    let done = |verdict| Comparison {
        a: ma.clone(),
        b: mb.clone(),
        verdict,
        growth,
    };
    if check::same_form(&ma, &mb) {
        return Ok(done(Verdict::Equivalent(Evidence::Symbolic)));
    }
    let vars = check::vars_of(&ma, &mb);
    let names: Vec<&str> = vars.iter().map(String::as_str).collect();
    let compiled = |side: &'static str, e: &Expr| {
        e.compile(&names).map_err(|error| CompareError::Eval {
            side,
            point: Point(Vec::new()),
            error,
        })
    };
    let search = Search {
        vars: &vars,
        a: compiled("A", &ma)?,
        b: compiled("B", &mb)?,
        stats: RefCell::new(Stats::default()),
    };
    // The grid first: it sees the ends of every range.
    let grid = domain.grid(&vars, GRID_POINTS);
    let mut first_failure: Option<Vec<f64>> = None;
    for p in &grid {
        if !search.observe(p)? && first_failure.is_none() {
            first_failure = Some(p.clone());
        }
    }
    let config = runner_config();
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let test = |values: Vec<u64>| -> Result<(), TestCaseError> {
        let p: Vec<f64> = values.iter().map(|&v| v as f64).collect();
        match search.observe(&p) {
            Ok(true) | Err(_) => Ok(()),
            Ok(false) => Err(TestCaseError::fail("B is slower than A")),
        }
    };
    let shrunk = match first_failure {
        // Shrink from the first failing grid point.
        Some(p) => {
            let start: Vec<Start> = vars
                .iter()
                .zip(&p)
                .map(|(v, &x)| Start {
                    lo: domain.range(v).lo,
                    start: x as u64,
                })
                .collect();
            let unshrunk: Vec<u64> = p.iter().map(|&v| v as u64).collect();
            match start.new_tree(&mut runner) {
                Ok(tree) => match runner.run_one(tree, test) {
                    Err(TestError::Fail(_, point)) => Some(point),
                    _ => Some(unshrunk),
                },
                Err(_) => Some(unshrunk),
            }
        }
        // Search at random, shrinking the first failure found.
        None => {
            let strategy: Vec<Spread> = vars
                .iter()
                .map(|v| Spread {
                    lo: domain.range(v).lo,
                    hi: domain.range(v).hi,
                })
                .collect();
            match runner.run(&strategy, test) {
                Err(TestError::Fail(_, point)) => Some(point),
                _ => None,
            }
        }
    };
    let stats = search.stats.into_inner();
    if let Some((side, point, error)) = stats.error {
        return Err(CompareError::Eval {
            side,
            point: Point::new(&vars, &point),
            error,
        });
    }
    let verdict = match shrunk {
        Some(point) => {
            let p: Vec<f64> = point.iter().map(|&v| v as f64).collect();
            let (va, vb) = (search.a.eval(&p), search.b.eval(&p));
            let (worst, worst_at) = stats.worst.unwrap_or((ratio(vb, va), p.clone()));
            Verdict::Worse(Counterexample {
                at: Point::new(&vars, &p),
                a: va,
                b: vb,
                ratio: ratio(vb, va),
                worst_ratio: worst,
                worst_at: Point::new(&vars, &worst_at),
            })
        }
        None => {
            let (least, least_at) = stats.least.unwrap_or((1.0, Vec::new()));
            let (most, most_at) = stats.most.unwrap_or((1.0, Vec::new()));
            if check::close(least, 1.0) && check::close(most, 1.0) {
                Verdict::Equivalent(Evidence::Sampled {
                    points: stats.points,
                })
            } else {
                Verdict::NeverWorse(Margin {
                    least,
                    least_at: Point::new(&vars, &least_at),
                    most,
                    most_at: Point::new(&vars, &most_at),
                    proved: check::le(&mb, &ma) == Dominance::Proved,
                    points: stats.points,
                })
            }
        }
    };
    Ok(done(verdict))
}

/// The proptest configuration of the search: seeded, no files, quiet.
fn runner_config() -> Config {
    let mut config = Config::with_cases(SEARCH_CASES);
    config.failure_persistence = None;
    config.source_file = None;
    config.max_shrink_iters = 4096;
    config.max_shrink_time = 0;
    config.max_local_rejects = 0;
    config.max_global_rejects = 0;
    config.verbose = 0;
    config
}

/// `num / den`, with `0/0 = 1`.
fn ratio(num: f64, den: f64) -> f64 {
    if num == den { 1.0 } else { num / den }
}

#[derive(Default)]
struct Stats {
    points: usize,
    /// Least `A/B` and where.
    least: Option<(f64, Vec<f64>)>,
    /// Largest `A/B` and where.
    most: Option<(f64, Vec<f64>)>,
    /// Largest `B/A` where B loses, and where.
    worst: Option<(f64, Vec<f64>)>,
    /// The first point a model could not be evaluated at.
    error: Option<(&'static str, Vec<f64>, EvalError)>,
}

struct Search<'a> {
    vars: &'a [String],
    a: CompiledExpr,
    b: CompiledExpr,
    stats: RefCell<Stats>,
}

impl Search<'_> {
    /// Evaluates both models at `p` and records it: `Ok(true)` where B is
    /// not slower than A, `Ok(false)` where it is.
    fn observe(&self, p: &[f64]) -> Result<bool, CompareError> {
        let mut stats = self.stats.borrow_mut();
        let (va, vb) = match (self.a.eval_checked(p), self.b.eval_checked(p)) {
            (Ok(va), Ok(vb)) => (va, vb),
            (Err(error), _) | (_, Err(error)) => {
                let side = if self.a.eval_checked(p).is_err() {
                    "A"
                } else {
                    "B"
                };
                let point = Point::new(self.vars, p);
                if stats.error.is_none() {
                    stats.error = Some((side, p.to_vec(), error.clone()));
                }
                return Err(CompareError::Eval { side, point, error });
            }
        };
        stats.points += 1;
        let speedup = ratio(va, vb);
        let better = |slot: &Option<(f64, Vec<f64>)>, v: f64, greater: bool| {
            slot.as_ref()
                .is_none_or(|(old, _)| if greater { v > *old } else { v < *old })
        };
        if better(&stats.least, speedup, false) {
            stats.least = Some((speedup, p.to_vec()));
        }
        if better(&stats.most, speedup, true) {
            stats.most = Some((speedup, p.to_vec()));
        }
        let loses = !check::at_most(vb, va);
        if loses {
            let slowdown = ratio(vb, va);
            if better(&stats.worst, slowdown, true) {
                stats.worst = Some((slowdown, p.to_vec()));
            }
        }
        Ok(!loses)
    }
}

/// A value spread over `lo ..= hi`: log-uniform half of the time (to reach
/// small values of wide ranges), uniform otherwise; shrinks towards `lo`.
#[derive(Clone, Copy, Debug)]
struct Spread {
    lo: u64,
    hi: u64,
}

impl Strategy for Spread {
    type Tree = proptest::num::u64::BinarySearch;
    type Value = u64;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let rng = runner.rng();
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (lo, hi) = (self.lo as f64, self.hi as f64);
        let v = if rng.next_u64() & 1 == 0 {
            lo * (hi / lo).powf(u)
        } else {
            lo + u * (hi - lo)
        };
        let v = (v.round() as u64).clamp(self.lo, self.hi);
        Ok(proptest::num::u64::BinarySearch::new_above(self.lo, v))
    }
}

/// A fixed starting value that shrinks towards `lo`.
#[derive(Clone, Copy, Debug)]
struct Start {
    lo: u64,
    start: u64,
}

impl Strategy for Start {
    type Tree = proptest::num::u64::BinarySearch;
    type Value = u64;

    fn new_tree(&self, _: &mut TestRunner) -> NewTree<Self> {
        Ok(proptest::num::u64::BinarySearch::new_above(
            self.lo, self.start,
        ))
    }
}
