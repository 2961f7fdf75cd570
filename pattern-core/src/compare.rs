//! Comparing two designs: is design B (a refactoring) equivalent to design
//! A, does it never lose to A over a domain, and if it does, where first and
//! by how much. It needs no test framework: the search is seeded and its
//! answer reproducible.

use crate::expr::CompiledExpr;
use crate::laws::check::{self, Dominance};
pub use crate::laws::{Domain, DomainError, Point, VarRange};
use crate::{Design, EvalError, Expr};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;

/// At most this many grid points are evaluated before the random search.
const GRID_POINTS: usize = 4096;
/// Random points tried by the search.
const SEARCH_CASES: u32 = 2048;
/// The seed of the search: the same designs give the same answer.
const SEED: u64 = 0x5eed_c0a3_7e01;
/// At most this many rounds of shrinking over all variables.
const SHRINK_ROUNDS: usize = 64;

/// Why two designs could not be compared.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompareError {
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
/// 1. If the models have the same strong normal form, B is
///    [`Verdict::Equivalent`] with [`Evidence::Symbolic`].
/// 2. Otherwise both models are evaluated on a grid over the domain (up to
///    4,096 points, log-spaced) and at 2,048 random points (seeded: the
///    answer is reproducible). Where B is slower than A (beyond a relative
///    1e-9), the point is shrunk, each variable in turn by bisection towards
///    the bottom of its range while B still loses, to the smallest failing
///    point: [`Verdict::Worse`] with it,
///    the values there and the worst ratio seen. If B never loses, the verdict
///    is [`Verdict::NeverWorse`] with the least and largest speedup `A/B`, or
///    [`Verdict::Equivalent`] with [`Evidence::Sampled`] when the values agree
///    everywhere.
///
/// ```
/// use pattern_core::compare::{compare, Domain, Verdict};
/// use pattern_core::Design;
///
/// let atoms = "qsort = 1034.17*x*log2(x); inc = 536.185*x;";
/// let a = Design::parse(&format!("{atoms} pipe(qsort, inc)")).unwrap();
/// let b = Design::parse(&format!("{atoms} tpool[2](seq(qsort, inc))")).unwrap();
/// let c = compare(&a, &b, &Domain::new()).unwrap();
/// let Verdict::NeverWorse(margin) = &c.verdict else { panic!("{c}") };
/// assert!(margin.proved);
/// assert_eq!(margin.least_at.get("x"), Some(2)); // the pool gains least at x = 2
/// assert!((margin.least - 1.317).abs() < 1e-3);
///
/// // The other way round, the pipeline loses everywhere: the smallest failing x is 2.
/// let back = compare(&b, &a, &Domain::new()).unwrap();
/// let Verdict::Worse(cex) = &back.verdict else { panic!("{back}") };
/// assert_eq!(cex.at.get("x"), Some(2));
/// ```
pub fn compare(a: &Design, b: &Design, domain: &Domain) -> Result<Comparison, CompareError> {
    let (ma, mb) = (a.model(), b.model());
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
    let fails = |p: &[u64]| {
        let p: Vec<f64> = p.iter().map(|&v| v as f64).collect();
        matches!(search.observe(&p), Ok(false))
    };
    let ranges: Vec<VarRange> = vars.iter().map(|v| domain.range(v)).collect();
    let failing = match first_failure {
        // Shrink from the first failing grid point.
        Some(p) => Some(p.iter().map(|&v| v as u64).collect()),
        // Search at random, then shrink the first failure found.
        None => {
            let mut rng = SplitMix64(SEED);
            (0..SEARCH_CASES)
                .map(|_| {
                    ranges
                        .iter()
                        .map(|r| spread(&mut rng, r))
                        .collect::<Vec<u64>>()
                })
                .find(|p| fails(p))
        }
    };
    let shrunk = failing.map(|p| shrink(p, &ranges, &fails));
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

/// A value spread over the range: log-uniform half of the time (to reach
/// small values of wide ranges), uniform otherwise.
fn spread(rng: &mut SplitMix64, range: &VarRange) -> u64 {
    let u = rng.unit();
    let (lo, hi) = (range.lo as f64, range.hi as f64);
    let v = if rng.next() >> 63 == 1 {
        lo * (hi / lo).powf(u)
    } else {
        lo + u * (hi - lo)
    };
    (v.round() as u64).clamp(range.lo, range.hi)
}

/// Steele, Lea and Flood's SplitMix64: the seeded stream of the random
/// search. A few thousand draws over the variables' ranges need no more,
/// and it keeps a random-number crate out of the default build.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1): the top 53 bits as a fraction.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The failing point `p` made smaller: each variable in turn, by bisection
/// between the bottom of its range and its value, the least value at which
/// the point still fails; rounds until nothing moves. The result fails.
fn shrink(mut p: Vec<u64>, ranges: &[VarRange], fails: &impl Fn(&[u64]) -> bool) -> Vec<u64> {
    for _ in 0..SHRINK_ROUNDS {
        let before = p.clone();
        for (i, range) in ranges.iter().enumerate() {
            let (mut lo, mut hi) = (range.lo, p[i]);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let mut q = p.clone();
                q[i] = mid;
                if fails(&q) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            p[i] = hi;
        }
        if p == before {
            break;
        }
    }
    p
}
