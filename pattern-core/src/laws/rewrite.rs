//! The laws as oriented rewrite rules: from a design, find the designs the
//! laws say are equivalent or better.

use super::check::{self, REL};
use super::sample::{Domain, Point};
use crate::semantics::{Footprint, Throughput};
use crate::{Count, Term, TermError};
use crate::{Design, Expr};
use std::collections::{HashSet, VecDeque};
use std::fmt;

/// A law used as a rewrite rule, in one direction. Every rule keeps the
/// work (the atoms an element passes through, perhaps in another order) and
/// the threads of the design. Idempotence is a law but no rule: `pipe(a, a)
/// → a` would drop a stage's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `pipe(a, pipe(b, c)) → pipe(pipe(a, b), c)`, law (i).
    PipeAssocLeft,
    /// `pipe(pipe(a, b), c) → pipe(a, pipe(b, c))`, law (i).
    PipeAssocRight,
    /// `pipe(a, b) → pipe(b, a)`, law (ii).
    PipeSwap,
    /// `pipe(tpool_n(a), tpool_n(b)) → tpool_n(pipe(a, b))`, law (iii).
    Layer,
    /// `tpool_n(pipe(a, b)) → pipe(tpool_n(a), tpool_n(b))`, law (iii).
    Unlayer,
    /// `pipe(a, b) → tpool_2(seq(a, b))`, law (iv): never slower. Applied
    /// when `a` and `b` occupy the same threads (so the pool has as many
    /// as the pipeline) and contain no mapReduce.
    PipeToPool,
    /// `seq(a, seq(b, c)) → seq(seq(a, b), c)`.
    SeqAssocLeft,
    /// `seq(seq(a, b), c) → seq(a, seq(b, c))`.
    SeqAssocRight,
    /// `seq(a, b) → seq(b, a)` (for the time; the result may differ).
    SeqSwap,
    /// `tpool_1(t) → t`.
    PoolIdentity,
    /// `tpool_n(tpool_k(t)) → tpool_{nk}(t)`, for numeric counts.
    PoolFuse,
    /// `tpool_n(seq(a, b)) → seq(tpool_n(a), tpool_n(b))`.
    PoolDistribute,
    /// `seq(tpool_n(a), tpool_n(b)) → tpool_n(seq(a, b))`.
    PoolFactor,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 13] = [
        Rule::PipeAssocLeft,
        Rule::PipeAssocRight,
        Rule::PipeSwap,
        Rule::Layer,
        Rule::Unlayer,
        Rule::PipeToPool,
        Rule::SeqAssocLeft,
        Rule::SeqAssocRight,
        Rule::SeqSwap,
        Rule::PoolIdentity,
        Rule::PoolFuse,
        Rule::PoolDistribute,
        Rule::PoolFactor,
    ];

    /// The rule as text: `pipe(a, b) → tpool_2(seq(a, b))`.
    pub fn text(self) -> &'static str {
        match self {
            Rule::PipeAssocLeft => "pipe(a, pipe(b, c)) → pipe(pipe(a, b), c)",
            Rule::PipeAssocRight => "pipe(pipe(a, b), c) → pipe(a, pipe(b, c))",
            Rule::PipeSwap => "pipe(a, b) → pipe(b, a)",
            Rule::Layer => "pipe(tpool_n(a), tpool_n(b)) → tpool_n(pipe(a, b))",
            Rule::Unlayer => "tpool_n(pipe(a, b)) → pipe(tpool_n(a), tpool_n(b))",
            Rule::PipeToPool => "pipe(a, b) → tpool_2(seq(a, b))",
            Rule::SeqAssocLeft => "seq(a, seq(b, c)) → seq(seq(a, b), c)",
            Rule::SeqAssocRight => "seq(seq(a, b), c) → seq(a, seq(b, c))",
            Rule::SeqSwap => "seq(a, b) → seq(b, a)",
            Rule::PoolIdentity => "tpool_1(t) → t",
            Rule::PoolFuse => "tpool_n(tpool_k(t)) → tpool_{nk}(t)",
            Rule::PoolDistribute => "tpool_n(seq(a, b)) → seq(tpool_n(a), tpool_n(b))",
            Rule::PoolFactor => "seq(tpool_n(a), tpool_n(b)) → tpool_n(seq(a, b))",
        }
    }

    /// The rule applied at the root of `t`, if it matches.
    pub fn apply(self, t: &Term) -> Option<Term> {
        use Term::{Pipe, Seq, Tpool};
        let c = |t: &Term| t.clone();
        match (self, t) {
            (Rule::PipeAssocLeft, Pipe(a, bc)) => match &**bc {
                Pipe(b, cc) => Some(Term::pipe(Term::pipe(c(a), c(b)), c(cc))),
                _ => None,
            },
            (Rule::PipeAssocRight, Pipe(ab, cc)) => match &**ab {
                Pipe(a, b) => Some(Term::pipe(c(a), Term::pipe(c(b), c(cc)))),
                _ => None,
            },
            (Rule::PipeSwap, Pipe(a, b)) if a != b => Some(Term::pipe(c(b), c(a))),
            (Rule::Layer, Pipe(a, b)) => match (&**a, &**b) {
                (Tpool(n, a), Tpool(k, b)) if n == k => {
                    Some(Term::tpool(n.clone(), Term::pipe(c(a), c(b))))
                }
                _ => None,
            },
            (Rule::Unlayer, Tpool(n, ab)) => match &**ab {
                Pipe(a, b) => Some(Term::pipe(
                    Term::tpool(n.clone(), c(a)),
                    Term::tpool(n.clone(), c(b)),
                )),
                _ => None,
            },
            (Rule::PipeToPool, Pipe(a, b)) if !a.has_shuffle() && !b.has_shuffle() => {
                let (ta, tb) = (Footprint::of(a).threads, Footprint::of(b).threads);
                ta.approx_eq(&tb, REL)
                    .then(|| Term::tpool(2u64, Term::seq(c(a), c(b))))
            }
            (Rule::SeqAssocLeft, Seq(a, bc)) => match &**bc {
                Seq(b, cc) => Some(Term::seq(Term::seq(c(a), c(b)), c(cc))),
                _ => None,
            },
            (Rule::SeqAssocRight, Seq(ab, cc)) => match &**ab {
                Seq(a, b) => Some(Term::seq(c(a), Term::seq(c(b), c(cc)))),
                _ => None,
            },
            (Rule::SeqSwap, Seq(a, b)) if a != b => Some(Term::seq(c(b), c(a))),
            (Rule::PoolIdentity, Tpool(Count::Fixed(1), t)) => Some(c(t)),
            (Rule::PoolFuse, Tpool(Count::Fixed(n), inner)) => match &**inner {
                Tpool(Count::Fixed(k), t) => Some(Term::tpool(n.checked_mul(*k)?, c(t))),
                _ => None,
            },
            (Rule::PoolDistribute, Tpool(n, ab)) => match &**ab {
                Seq(a, b) => Some(Term::seq(
                    Term::tpool(n.clone(), c(a)),
                    Term::tpool(n.clone(), c(b)),
                )),
                _ => None,
            },
            (Rule::PoolFactor, Seq(a, b)) => match (&**a, &**b) {
                (Tpool(n, a), Tpool(k, b)) if n == k => {
                    Some(Term::tpool(n.clone(), Term::seq(c(a), c(b))))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The rule applied at every sub-term of `t` where it matches: one
    /// result per match, in pre-order ([`Term::rewrites`]; any depth).
    pub fn apply_everywhere(self, t: &Term) -> Vec<Term> {
        t.rewrites(|s| self.apply(s))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// How a design found by [`rewrite`] relates to the original.
#[derive(Clone, Debug, PartialEq)]
pub enum Relation {
    /// The same model (same normal form, or equal values at every grid
    /// point of the domain).
    Equivalent,
    /// Never slower on the grid over the domain, faster somewhere:
    /// `original/found` ranges from `least` to `most`.
    Better {
        /// The smallest speedup (≥ 1).
        least: f64,
        /// The largest speedup.
        most: f64,
        /// Where the speedup is largest.
        most_at: Point,
    },
    /// Slower somewhere, by up to `worst` times. The built-in rules never
    /// lead here under the pointwise operators; the variant exists so that a
    /// result is never hidden.
    Worse {
        /// The largest slowdown.
        worst: f64,
        /// Where.
        at: Point,
    },
}

/// A design found by [`rewrite`].
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The design.
    pub term: Term,
    /// The rules applied to the original to reach it, in order.
    pub steps: Vec<Rule>,
    /// Its model, in normal form.
    pub model: Expr,
    /// Its threads, in normal form.
    pub threads: Expr,
    /// How it compares with the original.
    pub relation: Relation,
}

/// Why rewriting failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RewriteError {
    /// The design is not well-formed.
    #[error("the design is not well-formed: {0}")]
    IllFormed(#[from] TermError),
    /// A model could not be evaluated at a point of the domain.
    #[error("the model of `{design}` cannot be evaluated at {point}")]
    Eval {
        /// The design, as text.
        design: String,
        /// Where.
        point: Point,
    },
}

/// The search of [`rewrite`]: which rules, how far, over which domain.
///
/// ```
/// use pattern_core::laws::{Rewriter, Rule};
///
/// let r = Rewriter::new().max_steps(2).rules(&[Rule::PipeToPool, Rule::Layer]);
/// assert_eq!(r.get_max_steps(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Rewriter {
    rules: Vec<Rule>,
    max_steps: usize,
    max_designs: usize,
    domain: Domain,
}

impl Default for Rewriter {
    fn default() -> Rewriter {
        Rewriter::new()
    }
}

impl Rewriter {
    /// Every rule, up to 3 steps, at most 500 designs, the default
    /// [`Domain`].
    pub fn new() -> Rewriter {
        Rewriter {
            rules: Rule::ALL.to_vec(),
            max_steps: 3,
            max_designs: 500,
            domain: Domain::new(),
        }
    }

    /// Only these rules.
    pub fn rules(mut self, rules: &[Rule]) -> Rewriter {
        self.rules = rules.to_vec();
        self
    }

    /// At most this many rule applications from the original.
    pub fn max_steps(mut self, steps: usize) -> Rewriter {
        self.max_steps = steps;
        self
    }

    /// Stop after finding this many designs.
    pub fn max_designs(mut self, designs: usize) -> Rewriter {
        self.max_designs = designs;
        self
    }

    /// Compare the designs found with the original over this domain.
    pub fn domain(mut self, domain: Domain) -> Rewriter {
        self.domain = domain;
        self
    }

    /// The bound on rule applications.
    pub fn get_max_steps(&self) -> usize {
        self.max_steps
    }
}

/// Applies the laws as oriented rules to `design`, at every sub-term,
/// breadth-first up to the rewriter's bounds, and lists the distinct designs
/// found (the original excluded) with their models, their threads and their
/// relation to the original: the better ones first (largest least speedup
/// first), then the equivalent ones; among equals the smaller design, then
/// the one fewer steps away.
///
/// ```
/// use pattern_core::laws::{rewrite, Relation, Rewriter, Rule};
/// use pattern_core::Design;
///
/// let d = Design::parse("qsort = 1034.17*x*log2(x); inc = 536.185*x; pipe(tpool[4](qsort), tpool[4](inc))").unwrap();
/// let found = rewrite(d.term(), &Rewriter::new()).unwrap();
/// // Layering, law (iv) inside, then fusion: one pool of eight threads.
/// let best = &found[0];
/// assert_eq!(best.term.to_string(), "tpool[8](seq(qsort, inc))");
/// assert_eq!(best.steps, [Rule::Layer, Rule::PipeToPool, Rule::PoolFuse]);
/// let Relation::Better { least, .. } = best.relation else { panic!() };
/// assert!(least > 1.3);
/// // Law (iv) at the root is as good, one step away.
/// let pool = found.iter().find(|f| f.steps == [Rule::PipeToPool]).unwrap();
/// assert_eq!(pool.term.to_string(), "tpool[2](seq(tpool[4](qsort), tpool[4](inc)))");
/// assert!(matches!(pool.relation, Relation::Better { least: l, .. } if (l - least).abs() < 1e-9));
/// // Layering alone changes nothing.
/// assert!(found.iter().any(|f| f.term.to_string() == "tpool[4](pipe(qsort, inc))"
///     && f.relation == Relation::Equivalent));
/// ```
pub fn rewrite(design: &Term, rewriter: &Rewriter) -> Result<Vec<Found>, RewriteError> {
    Design::from_term(design.clone())?;
    let original = Throughput::new().expr(design).simplify();
    let mut seen: HashSet<String> = HashSet::from([design.to_string()]);
    let mut queue: VecDeque<(Term, Vec<Rule>)> = VecDeque::from([(design.clone(), Vec::new())]);
    let mut found = Vec::new();
    'search: while let Some((t, steps)) = queue.pop_front() {
        if steps.len() >= rewriter.max_steps {
            continue;
        }
        for &rule in &rewriter.rules {
            for next in rule.apply_everywhere(&t) {
                if found.len() >= rewriter.max_designs {
                    break 'search;
                }
                if !seen.insert(next.to_string()) {
                    continue;
                }
                let mut path = steps.clone();
                path.push(rule);
                let model = Throughput::new().expr(&next).simplify();
                let relation = relate(&original, &model, &next, &rewriter.domain)?;
                found.push(Found {
                    threads: Footprint::of(&next).threads.simplify(),
                    term: next.clone(),
                    steps: path.clone(),
                    model,
                    relation,
                });
                queue.push_back((next, path));
            }
        }
    }
    // Better first, by least speedup (to 9 digits, so that equal models
    // tie), then equivalent, then the smaller design and the shorter path.
    let rank = |f: &Found| match f.relation {
        Relation::Better { least, .. } => (0, -round9(least)),
        Relation::Equivalent => (1, 0.0),
        Relation::Worse { worst, .. } => (2, worst),
    };
    found.sort_by(|p, q| {
        let (rp, rq) = (rank(p), rank(q));
        rp.0.cmp(&rq.0)
            .then(rp.1.total_cmp(&rq.1))
            .then(p.term.size().cmp(&q.term.size()))
            .then(p.steps.len().cmp(&q.steps.len()))
    });
    Ok(found)
}

/// `v` rounded to 9 significant digits.
fn round9(v: f64) -> f64 {
    format!("{v:.8e}").parse().unwrap_or(v)
}

/// The relation of `found` to `original` on the domain's grid.
fn relate(
    original: &Expr,
    found: &Expr,
    term: &Term,
    domain: &Domain,
) -> Result<Relation, RewriteError> {
    if check::same_form(original, found) {
        return Ok(Relation::Equivalent);
    }
    let eval_error = |p: &[f64], vars: &[String]| RewriteError::Eval {
        design: term.to_string(),
        point: Point::new(vars, p),
    };
    let Some(pair) = check::Pair::new(original, found) else {
        return Err(eval_error(&[], &[]));
    };
    let mut least = f64::INFINITY;
    let mut most: (f64, Vec<f64>) = (0.0, Vec::new());
    let mut worst: Option<(f64, Vec<f64>)> = None;
    for p in domain.grid(&pair.vars, 1024) {
        let (o, f) = pair.at(&p).ok_or_else(|| eval_error(&p, &pair.vars))?;
        let speedup = if o == f { 1.0 } else { o / f };
        least = least.min(speedup);
        if speedup > most.0 {
            most = (speedup, p.clone());
        }
        if !check::at_most(f, o) && worst.as_ref().is_none_or(|w| f / o > w.0) {
            worst = Some((f / o, p));
        }
    }
    Ok(match worst {
        Some((worst, at)) => Relation::Worse {
            worst,
            at: Point::new(&pair.vars, &at),
        },
        None if check::close(least, 1.0) && check::close(most.0, 1.0) => Relation::Equivalent,
        None => Relation::Better {
            least,
            most: most.0,
            most_at: Point::new(&pair.vars, &most.1),
        },
    })
}
