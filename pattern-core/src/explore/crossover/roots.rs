//! Root isolation on `[lo, hi]` that cannot miss a root: a box whose
//! enclosure of `f` excludes 0 has none; a box where the enclosure of `f'`
//! excludes 0 is monotone and has at most one, found by bisection; a box
//! where the enclosure of `f''` excludes 0 has at most one extremum, found
//! by bisection on `f'`, where `f` either touches 0 (a tangency) or not,
//! and on each side of which `f` is monotone; any other box is split in
//! two (at its geometric middle when it spans more than a factor 4, so that
//! `1..1e12` takes a few dozen levels). A box narrower than
//! [`MIN_BOX_WIDTH`] is decided from the values at its ends and middle, and
//! the whole search is bounded by [`MAX_BOXES`]: never a hang. Before a
//! box is split, the `max`es and `min`s with an argument dominating on it
//! are resolved ([`Resolver`]): a difference that cancels there is a tie,
//! and what remains is searched without the kinks.

use super::interval::Interval;
use super::resolve::{Outcome, Resolver};
use super::tape::Tape;
use super::{PointKind, Root};
use crate::expr::Expr;

/// Boxes one search may examine before giving up.
pub(crate) const MAX_BOXES: usize = 200_000;
/// The relative width under which a box is decided from point values.
pub(crate) const MIN_BOX_WIDTH: f64 = 1e-12;
/// `|f| <= TOLERANCE · scale` counts as zero: where it holds on a whole
/// box the two models tie there; at an extremum of `f` it is a tangency.
pub(crate) const TOLERANCE: f64 = 1e-12;
/// The relative width to which bisection narrows a root.
const ROOT_WIDTH: f64 = 4.0 * f64::EPSILON;

/// A function to find the roots of, and the parts whose absolute values
/// sum to its scale (the magnitude its rounding errors are relative to).
pub(crate) struct Problem<'a> {
    pub f: &'a Tape,
    pub scale_parts: &'a [Tape],
    /// The expression `f` was compiled from and its variable, for
    /// resolving its maxima and minima box by box ([`Resolver`]); `None`
    /// leaves them to the enclosures.
    pub source: Option<(&'a Expr, &'a str)>,
}

/// Why a search stopped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Failure {
    /// `f` (or a scale part) is not finite at this point.
    NonFinite { at: f64 },
    /// A box could not be decided.
    Undecided { lo: f64, hi: f64, boxes: usize },
}

/// The roots, in increasing order, and the pieces where `f` is zero to
/// tolerance (ties), merged and in increasing order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Isolated {
    pub roots: Vec<Root>,
    pub ties: Vec<(f64, f64)>,
}

impl Problem<'_> {
    fn value(&self, x: f64) -> Result<f64, Failure> {
        let v = self.f.at(x).v;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(Failure::NonFinite { at: x })
        }
    }

    fn slope(&self, x: f64) -> Result<f64, Failure> {
        let d = self.f.at(x).d;
        if d.is_nan() {
            Err(Failure::NonFinite { at: x })
        } else {
            Ok(d)
        }
    }

    fn tolerance(&self, x: f64) -> Result<f64, Failure> {
        let mut scale = 0.0;
        for part in self.scale_parts {
            let v = part.at(x).v;
            if !v.is_finite() {
                return Err(Failure::NonFinite { at: x });
            }
            scale += v.abs();
        }
        Ok(TOLERANCE * scale)
    }

    /// `value` (f at `x`) counts as 0.
    fn near_zero(&self, x: f64, value: f64) -> Result<bool, Failure> {
        Ok(value.abs() <= self.tolerance(x)?)
    }

    /// What a sign change of `f` bisected to `at` is: a crossing where `f`
    /// there is within the tolerance plus what its slope moves it over the
    /// last bisection step (a steep crossing), else a jump.
    fn crossing_or_jump(&self, at: f64) -> Result<PointKind, Failure> {
        let step = ROOT_WIDTH * at.abs();
        let within = self.tolerance(at)? + 4.0 * self.slope(at)?.abs() * step;
        Ok(if self.value(at)?.abs() <= within {
            PointKind::Crossing
        } else {
            PointKind::Jump
        })
    }
}

/// Where to split `[a, b]`: the geometric middle of a positive box that
/// spans more than a factor 4, else the arithmetic one.
pub(crate) fn split(a: f64, b: f64) -> f64 {
    if a > 0.0 && b > 4.0 * a {
        (a.sqrt() * b.sqrt()).clamp(a, b)
    } else {
        a + (b - a) / 2.0
    }
}

fn narrow(a: f64, b: f64, relative: f64) -> bool {
    let m = split(a, b);
    m <= a || m >= b || b - a <= relative * a.abs().max(b.abs())
}

/// The sign of a value: -1, 0 or 1.
fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// A root of `g` in `[a, b]`, where `g(a)` and `g(b)` have opposite signs
/// (or one is 0), by bisection to [`ROOT_WIDTH`]: the edge of the region
/// around the end where `g` is not 0, so that where `g` is 0 on a whole
/// piece (a tie) the root is where the piece ends, not its far end.
fn bisect(g: &impl Fn(f64) -> Result<f64, Failure>, a: f64, b: f64) -> Result<f64, Failure> {
    let (ga, gb) = (g(a)?, g(b)?);
    // `inside` is an end where g has the sign `s`, `outside` the other.
    let (mut inside, mut outside, s) = match (sign(ga), sign(gb)) {
        (0, 0) => return Ok(a),
        (_, 0) => (a, b, sign(ga)),
        (_, sb) => (b, a, sb),
    };
    while !narrow(inside.min(outside), inside.max(outside), ROOT_WIDTH) {
        let m = split(inside.min(outside), inside.max(outside));
        if sign(g(m)?) == s {
            inside = m;
        } else {
            outside = m;
        }
    }
    Ok(inside.min(outside) + (inside - outside).abs() / 2.0)
}

/// Finds every root of `problem.f` on `[lo, hi]`.
pub(crate) fn isolate(problem: &Problem, lo: f64, hi: f64) -> Result<Isolated, Failure> {
    let mut out = Isolated::default();
    let (expr, var) = match problem.source {
        Some((expr, var)) => (Some(expr), var),
        None => (None, ""),
    };
    let mut resolver = Resolver::new(problem.f, expr, var);
    // Each box with the variant of `f` that holds on it (0: `f` itself).
    // Right halves are pushed first: boxes come off in increasing order.
    let mut stack = vec![(lo, hi, 0usize)];
    let mut boxes = 0usize;
    while let Some((a, b, variant)) = stack.pop() {
        boxes += 1;
        if boxes > MAX_BOXES {
            return Err(Failure::Undecided {
                lo: a,
                hi: b,
                boxes,
            });
        }
        let f = resolver.tape(variant);
        let over = f.over(a, b);
        let m = split(a, b);
        // Mean-value form: f(m) + f'([a, b])·([a, b] - m), tight on small
        // boxes, intersected with the natural enclosure.
        let at_m = f.over(m, m).v;
        let offsets = Interval { lo: a, hi: b }.sub(Interval::point(m));
        let enclosure = over.v.intersect(at_m.add(over.d.mul(offsets)));
        if !enclosure.contains_zero() {
            continue;
        }
        let tolerance = problem
            .tolerance(a)?
            .max(problem.tolerance(m)?)
            .max(problem.tolerance(b)?);
        if !enclosure.is_nan() && enclosure.magnitude() <= tolerance {
            out.ties.push((a, b));
            continue;
        }
        if over.d.contains_zero() && over.dd.contains_zero() {
            // Undecided by the enclosures: resolve the kinks first.
            match resolver.resolve(variant, a, b) {
                Some(Outcome::Zero) => {
                    out.ties.push((a, b));
                    continue;
                }
                Some(Outcome::Variant(resolved)) => {
                    stack.push((a, b, resolved));
                    continue;
                }
                None => {}
            }
        }
        let view = Problem {
            f: resolver.tape(variant),
            scale_parts: problem.scale_parts,
            source: None,
        };
        if !over.d.contains_zero() {
            monotone(&view, a, b, &mut out)?;
        } else if !over.dd.contains_zero() {
            single_extremum(&view, a, b, &mut out)?;
        } else if narrow(a, b, MIN_BOX_WIDTH) {
            decide_narrow(&view, a, b, &mut out)?;
        } else {
            stack.push((m, b, variant));
            stack.push((a, m, variant));
        }
    }
    Ok(tidy(problem, lo, hi, out))
}

/// `f` monotone on `[a, b]`: a root where the signs at the ends differ, a
/// tie where both ends are within the tolerance of 0 (so is all between).
fn monotone(problem: &Problem, a: f64, b: f64, out: &mut Isolated) -> Result<(), Failure> {
    let (fa, fb) = (problem.value(a)?, problem.value(b)?);
    if problem.near_zero(a, fa)? && problem.near_zero(b, fb)? {
        out.ties.push((a, b));
    } else if sign(fa) * sign(fb) <= 0 {
        let at = bisect(&|x| problem.value(x), a, b)?;
        out.roots
            .push(Root::numeric(at, problem.crossing_or_jump(at)?));
    }
    Ok(())
}

/// `f'` monotone on `[a, b]`: `f` has one extremum at most.
fn single_extremum(problem: &Problem, a: f64, b: f64, out: &mut Isolated) -> Result<(), Failure> {
    let (da, db) = (problem.slope(a)?, problem.slope(b)?);
    if sign(da) * sign(db) > 0 {
        return monotone(problem, a, b, out);
    }
    let c = bisect(&|x| problem.slope(x), a, b)?;
    if c <= a || c >= b {
        return monotone(problem, a, b, out);
    }
    if problem.near_zero(c, problem.value(c)?)? {
        out.roots.push(Root::numeric(c, PointKind::Tangency));
        return Ok(());
    }
    monotone(problem, a, c, out)?;
    monotone(problem, c, b, out)
}

/// A box too narrow to split: the values at its ends and its middle
/// decide. Both ends within the tolerance of 0 are a tie (a sliver of one,
/// which [`tidy`] merges with its neighbours); one end within it, with the
/// middle not, is a root at that end: where `f` leaves 0.
fn decide_narrow(problem: &Problem, a: f64, b: f64, out: &mut Isolated) -> Result<(), Failure> {
    let (fa, fb) = (problem.value(a)?, problem.value(b)?);
    let m = split(a, b);
    let (zero_a, zero_b) = (problem.near_zero(a, fa)?, problem.near_zero(b, fb)?);
    if zero_a && zero_b {
        out.ties.push((a, b));
    } else if sign(fa) * sign(fb) <= 0 {
        let at = bisect(&|x| problem.value(x), a, b)?;
        out.roots
            .push(Root::numeric(at, problem.crossing_or_jump(at)?));
    } else if problem.near_zero(m, problem.value(m)?)? {
        out.roots.push(Root::numeric(m, PointKind::Tangency));
    } else if zero_a || zero_b {
        let at = if zero_a { a } else { b };
        out.roots.push(Root::numeric(at, PointKind::Crossing));
    } else {
        return Err(Failure::Undecided {
            lo: a,
            hi: b,
            boxes: 0,
        });
    }
    Ok(())
}

/// Sorted roots without duplicates (a root on the edge of two boxes is
/// found twice), ties merged, ties too narrow to be an interval turned
/// into points, roots inside ties dropped.
fn tidy(problem: &Problem, lo: f64, hi: f64, found: Isolated) -> Isolated {
    let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * p.abs().max(q.abs());
    let mut ties: Vec<(f64, f64)> = Vec::new();
    for (a, b) in found.ties {
        match ties.last_mut() {
            Some(last) if a <= last.1 || close(a, last.1) => last.1 = last.1.max(b),
            _ => ties.push((a, b)),
        }
    }
    let mut roots = found.roots;
    let mut kept_ties = Vec::new();
    for (a, b) in ties {
        let whole = a <= lo && b >= hi;
        if whole || b - a > 1e-9 * a.abs().max(b.abs()) {
            kept_ties.push((a, b));
            continue;
        }
        // A sliver where f is within rounding of 0: a crossing or a
        // tangency, as the signs a little way off on each side tell.
        let w = (b - a).max(1e-9 * a.abs().max(b.abs()));
        let left = problem.value((a - w).max(lo)).unwrap_or(0.0);
        let right = problem.value((b + w).min(hi)).unwrap_or(0.0);
        let kind = if sign(left) * sign(right) < 0 {
            PointKind::Crossing
        } else {
            PointKind::Tangency
        };
        roots.push(Root::numeric(a + (b - a) / 2.0, kind));
    }
    roots.sort_by(|p, q| p.at.total_cmp(&q.at));
    let mut unique: Vec<Root> = Vec::with_capacity(roots.len());
    for root in roots {
        match unique.last_mut() {
            Some(last) if close(last.at, root.at) => {
                // A tangency found on one side outranks a crossing found
                // at the edge of the neighbouring box.
                if root.kind == PointKind::Tangency {
                    last.kind = PointKind::Tangency;
                }
            }
            _ => unique.push(root),
        }
    }
    let inside = |x: f64| kept_ties.iter().any(|&(a, b)| x > a && x < b);
    unique.retain(|r| !inside(r.at));
    // A tie ends at the edge of a box; a root found next to it (the kink
    // where it starts or stops, bisected to the last bit) is the sharper
    // end: move the end there rather than leave a sliver between them.
    let near = |p: f64, q: f64| (p - q).abs() <= 1e-9 * p.abs().max(q.abs());
    for tie in &mut kept_ties {
        for root in &unique {
            if root.at <= tie.0 && near(root.at, tie.0) {
                tie.0 = root.at;
            }
            if root.at >= tie.1 && near(root.at, tie.1) {
                tie.1 = root.at;
            }
        }
    }
    Isolated {
        roots: unique,
        ties: kept_ties,
    }
}
