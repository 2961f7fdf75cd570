//! The exact search: depth-first over the counts, branch and bound.
//!
//! The counts are enumerated in an order that puts last the counts in which
//! the plain operators' model is non-increasing (a task pool's count,
//! `Laws::tpool_monotone`; `pipe` is a maximum, `seq` a sum, both monotone
//! in their parts). Once only such counts are left unassigned, the bound of
//! a branch is the model with each of them at the largest value the thread
//! cap leaves it (the others at their smallest): no completion of the branch
//! is faster. Every value of a count for which that bound already loses is
//! skipped, the losing prefix of a level by bisection (the bound is
//! non-increasing in the level's own count). When the objective is that
//! monotone model itself, the last count is not enumerated: its best value
//! is the smallest one that reaches the time of the largest feasible one.
//! Counts the thread total is not monotone in (`groups[s]`) are enumerated
//! first and in full; the threads prune every other level (once over the
//! cap, larger values are too).
//!
//! Ties are broken by the fewest threads, then the smallest counts in the
//! order of the design (lexicographically); a branch is pruned only when
//! its best conceivable key (bound, fewest threads, smallest counts) does
//! not beat the incumbent's, so the result is the unique minimum of that
//! order.

use super::AllocationError;
use super::space::Space;
use super::steps::StepMeter;
use std::cmp::Ordering;

/// What is known of the objective, to prune with.
pub(super) enum Pruning<B> {
    /// Nothing: only the thread cap prunes.
    Threads,
    /// The objective is non-increasing in the space's monotone counts.
    Itself,
    /// `bound` is non-increasing in the monotone counts and at most the
    /// objective times `1 + slack` everywhere.
    By {
        /// The lower bound.
        bound: B,
        /// Its relative slack (rounding of another model).
        slack: f64,
    },
}

/// Times within this relative distance of the optimum tie with it: the
/// fewest threads among them wins (a model's rounding must not buy
/// threads: two allocations on a plateau of the queueing model differ in
/// the last bits only).
pub(crate) const TIE_TOLERANCE: f64 = 1e-9;

/// The best allocation found, with the work it took.
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub counts: Vec<u64>,
    pub threads: u64,
    pub time: f64,
    pub evaluations: u64,
    pub bound_evaluations: u64,
}

/// The incumbent.
struct Best {
    time: f64,
    threads: u64,
    counts: Vec<u64>,
}

/// Whether `(time, threads, counts)` comes strictly before `best`.
fn beats(time: f64, threads: u64, counts: &[u64], best: &Best) -> bool {
    match time.partial_cmp(&best.time) {
        Some(Ordering::Less) => true,
        Some(Ordering::Greater) | None => false,
        Some(Ordering::Equal) => (threads, counts) < (best.threads, &best.counts[..]),
    }
}

/// Caps up to this many threads are searched at once; larger ones first
/// at half their cap, recursively, for a first incumbent.
const DIRECT_CAP: u64 = 2048;

/// The spaces of a search by doubling: the cap halved until it is at most
/// [`DIRECT_CAP`], smallest first; none when the space is small or the
/// doubling does not apply. The best allocation at half the cap, its counts
/// scaled up to the cap, is close to the best at the cap when every count
/// is monotone (a pool's time falls as `1/count`), so that the bound prunes
/// all but a thin shell of the space: the search takes `O(log cap)` passes
/// of few steps each where it took `O(cap²)` steps. Exactness does not
/// depend on it: the seed is only a first incumbent.
fn coarse_spaces(space: &Space) -> Vec<Space> {
    let doubling = space.monotone.iter().all(|&m| m)
        && space.threads_monotone.iter().all(|&m| m)
        && space.cap > DIRECT_CAP;
    let mut out = Vec::new();
    let mut cap = space.cap;
    while doubling && cap > DIRECT_CAP {
        cap /= 2;
        let mut half = space.clone();
        half.cap = cap;
        out.push(half);
    }
    out.reverse();
    out
}

/// Steps of the scaling of a seed: `1 + j / SCALE_STEPS` for `j` up to
/// `SCALE_STEPS` (factors from 1 to 2).
const SCALE_STEPS: u64 = 1 << 20;

/// `seed` (feasible at half the cap) scaled by the largest factor from 1 to
/// 2 that keeps it feasible, each count within its range.
fn scaled(space: &Space, seed: &[u64]) -> Result<Option<Vec<u64>>, AllocationError> {
    let at = |j: u64| -> Vec<u64> {
        seed.iter()
            .enumerate()
            .map(|(i, &c)| {
                let grown = u128::from(c) * u128::from(SCALE_STEPS + j) / u128::from(SCALE_STEPS);
                u64::try_from(grown)
                    .unwrap_or(u64::MAX)
                    .clamp(space.lo[i], space.hi[i])
            })
            .collect()
    };
    if space.feasible(&at(0))?.is_none() {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0, SCALE_STEPS);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if space.feasible(&at(mid))?.is_some() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(Some(at(lo)))
}

/// Whether `values` with count `var` at `v` fit the caps.
fn fits(space: &Space, var: usize, values: &mut [u64], v: u64) -> Result<bool, AllocationError> {
    values[var] = v;
    Ok(space.feasible(values)?.is_some())
}

/// The largest value of count `var` that fits the caps (the others as in
/// `values`; `values[var]` is left changed), galloping from `hint`: `None`
/// if not even its smallest fits.
fn largest_fitting(
    space: &Space,
    var: usize,
    values: &mut [u64],
    hint: u64,
) -> Result<Option<u64>, AllocationError> {
    let (lo, hi) = (space.lo[var], space.hi[var]);
    if !fits(space, var, values, lo)? {
        return Ok(None);
    }
    // `good` fits and `bad` does not, once bracketed.
    let hint = hint.clamp(lo, hi);
    let (mut good, mut bad);
    let mut step = 1u64;
    if fits(space, var, values, hint)? {
        good = hint;
        loop {
            if good == hi {
                return Ok(Some(hi));
            }
            let probe = good.saturating_add(step).min(hi);
            if fits(space, var, values, probe)? {
                good = probe;
                step = step.saturating_mul(2);
            } else {
                bad = probe;
                break;
            }
        }
    } else {
        bad = hint;
        loop {
            let probe = bad.saturating_sub(step).max(lo);
            if fits(space, var, values, probe)? {
                good = probe;
                break;
            }
            bad = probe;
            step = step.saturating_mul(2);
        }
    }
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if fits(space, var, values, mid)? {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Ok(Some(good))
}

/// The fate of a branch of the search.
enum Branch {
    /// Searched.
    Enter,
    /// Cut, the next value of its level tried.
    Skip,
    /// Cut with every larger value of its level.
    EndLevel,
}

struct Searcher<'s, 'c, F, B> {
    space: &'s Space,
    objective: F,
    pruning: Pruning<B>,
    best: Option<Best>,
    evaluations: u64,
    bound_evaluations: u64,
    limit: &'c StepMeter<'c>,
    /// Per count: its last largest feasible value, where the next search
    /// for it starts.
    hints: Vec<u64>,
    /// Per level: whether the threads are non-decreasing in every count
    /// after it (then the smallest later counts give the fewest threads).
    threads_ok_after: Vec<bool>,
}

/// The allocation of `space` that minimizes `objective` with ties within
/// [`TIE_TOLERANCE`] of the optimum: of every allocation whose time is at
/// most the optimum's times `1 + TIE_TOLERANCE`, the one with the fewest
/// threads, then the smallest counts. Two exact searches: the optimum,
/// then the same search of `max(objective, limit)`, under which all those
/// allocations tie exactly (the bound, raised alike, stays a bound).
/// `steps` meters both.
pub(super) fn search_with_ties<F, B>(
    space: &Space,
    mut objective: F,
    mut pruning: Pruning<B>,
    steps: &StepMeter<'_>,
) -> Result<Found, AllocationError>
where
    F: FnMut(&[u64]) -> Result<f64, AllocationError>,
    B: FnMut(&[u64]) -> Result<f64, AllocationError>,
{
    let borrowed = match &mut pruning {
        Pruning::Threads => Pruning::Threads,
        Pruning::Itself => Pruning::Itself,
        Pruning::By { bound, slack } => Pruning::By {
            bound,
            slack: *slack,
        },
    };
    let first = search(space, &mut objective, borrowed, steps, None)?;
    let limit = first.time + TIE_TOLERANCE * first.time.abs();
    if !limit.is_finite() || limit == first.time {
        return Ok(first);
    }
    let raised = match pruning {
        Pruning::Threads => Pruning::Threads,
        Pruning::Itself => Pruning::Itself,
        Pruning::By { mut bound, slack } => Pruning::By {
            bound: move |c: &[u64]| bound(c).map(|b| b.max(limit)),
            slack,
        },
    };
    let second = search(
        space,
        |c: &[u64]| objective(c).map(|t| t.max(limit)),
        raised,
        steps,
        Some(&first.counts),
    )?;
    let time = objective(&second.counts)?;
    Ok(Found {
        time,
        evaluations: first.evaluations + second.evaluations + 1,
        bound_evaluations: first.bound_evaluations + second.bound_evaluations,
        ..second
    })
}

/// The allocation of `space` that minimizes `objective` (ties: fewest
/// threads, then smallest counts), exactly.
pub(super) fn search<F, B>(
    space: &Space,
    objective: F,
    pruning: Pruning<B>,
    limit: &StepMeter<'_>,
    seed: Option<&[u64]>,
) -> Result<Found, AllocationError>
where
    F: FnMut(&[u64]) -> Result<f64, AllocationError>,
    B: FnMut(&[u64]) -> Result<f64, AllocationError>,
{
    limit.restart();
    // Declared before the searcher, which borrows each level in turn; a
    // seed makes them needless.
    let coarse = match seed {
        Some(_) => Vec::new(),
        None => coarse_spaces(space),
    };
    let mut s = Searcher {
        space,
        objective,
        pruning,
        best: None,
        evaluations: 0,
        bound_evaluations: 0,
        limit,
        hints: space.lo.clone(),
        threads_ok_after: Vec::new(),
    };
    let minimum = space.threads(&space.lo)?;
    let all_threads_monotone = space.threads_monotone.iter().all(|&m| m);
    if all_threads_monotone && minimum.is_none_or(|t| t > space.cap) {
        return Err(AllocationError::BudgetTooSmall {
            budget: space.cap,
            minimum: minimum.unwrap_or(u64::MAX),
        });
    }
    if !matches!(s.pruning, Pruning::Threads) {
        let mut start = seed.map(<[u64]>::to_vec);
        let mut coarse_best: Option<Vec<u64>> = None;
        for level in coarse.iter().chain([space]) {
            // The best of the level below, scaled up to this one's cap.
            if let Some(best) = coarse_best.take() {
                start = scaled(level, &best)?;
            }
            s.space = level;
            s.best = None;
            s.ascend(start.take())?;
            if !std::ptr::eq(level, space) {
                s.run()?;
                coarse_best = s.best.as_ref().map(|b| b.counts.clone());
            }
        }
    }
    s.run()?;
    let best = s.best.ok_or(AllocationError::BudgetTooSmall {
        budget: space.cap,
        minimum: minimum.unwrap_or(u64::MAX),
    })?;
    Ok(Found {
        counts: best.counts,
        threads: best.threads,
        time: best.time,
        evaluations: s.evaluations,
        bound_evaluations: s.bound_evaluations,
    })
}

impl<F, B> Searcher<'_, '_, F, B>
where
    F: FnMut(&[u64]) -> Result<f64, AllocationError>,
    B: FnMut(&[u64]) -> Result<f64, AllocationError>,
{
    fn step(&mut self) -> Result<(), AllocationError> {
        self.limit.take(1)
    }

    /// The objective at `counts`, which must be a finite number.
    fn objective(&mut self, counts: &[u64]) -> Result<f64, AllocationError> {
        self.step()?;
        self.evaluations += 1;
        let t = (self.objective)(counts)?;
        if t.is_nan() || t == f64::NEG_INFINITY {
            return Err(AllocationError::NotFinite {
                counts: self.space.describe(counts),
                value: t,
            });
        }
        Ok(t)
    }

    /// The lower bound at `counts` (the objective itself, or the bound).
    fn bound(&mut self, counts: &[u64]) -> Result<f64, AllocationError> {
        match &mut self.pruning {
            Pruning::By { bound, .. } => {
                self.limit.take(1)?;
                self.bound_evaluations += 1;
                bound(counts)
            }
            _ => self.objective(counts),
        }
    }

    fn slack(&self) -> f64 {
        match self.pruning {
            Pruning::By { slack, .. } => slack,
            _ => 0.0,
        }
    }

    /// Records a leaf if it beats the incumbent.
    fn offer(&mut self, time: f64, threads: u64, counts: &[u64]) {
        if self
            .best
            .as_ref()
            .is_none_or(|b| beats(time, threads, counts, b))
        {
            self.best = Some(Best {
                time,
                threads,
                counts: counts.to_vec(),
            });
        }
    }

    /// Whether a branch whose times are at least `bound`, threads at least
    /// `threads` and counts at least `counts` cannot beat the incumbent.
    fn loses(&self, bound: f64, threads: u64, counts: &[u64]) -> bool {
        let low = bound / (1.0 + self.slack());
        self.best
            .as_ref()
            .is_some_and(|b| !beats(low, threads, counts, b))
    }

    /// The largest value of count `var` (the others as in `values`) within
    /// the cap (the threads are non-decreasing in it): by galloping from
    /// the last answer for `var` (the next is most often a step away),
    /// then bisection.
    fn max_feasible(
        &mut self,
        var: usize,
        values: &mut [u64],
    ) -> Result<Option<u64>, AllocationError> {
        let keep = values[var];
        let found = largest_fitting(self.space, var, values, self.hints[var])?;
        values[var] = keep;
        if let Some(m) = found {
            self.hints[var] = m;
        }
        Ok(found)
    }

    /// The bound of a branch: `values` with the counts `rest` (at their
    /// smallest in `values`) each at its largest feasible value. `None` if
    /// some cannot be feasible.
    fn branch_bound(
        &mut self,
        values: &mut [u64],
        rest: &[usize],
    ) -> Result<Option<f64>, AllocationError> {
        let mut maxima = Vec::with_capacity(rest.len());
        for &u in rest {
            match self.max_feasible(u, values)? {
                Some(m) => maxima.push(m),
                None => return Ok(None),
            }
        }
        for (&u, &m) in rest.iter().zip(&maxima) {
            values[u] = m;
        }
        let b = self.bound(values);
        for &u in rest {
            values[u] = self.space.lo[u];
        }
        b.map(Some)
    }

    /// What to do with the branch of `values` (count `var` just set, the
    /// counts `rest` open): enter it, skip it, or (given `last`, the
    /// level's largest value, where the level may be cut) end the level.
    fn branch(
        &mut self,
        var: usize,
        threads: u64,
        values: &mut [u64],
        rest: &[usize],
        last: Option<u64>,
    ) -> Result<Branch, AllocationError> {
        let Some(bound) = self.branch_bound(values, rest)? else {
            // The rest cannot fit, nor with a larger value.
            return Ok(if last.is_some() {
                Branch::EndLevel
            } else {
                Branch::Skip
            });
        };
        if !self.loses(bound, threads, values) {
            return Ok(Branch::Enter);
        }
        Ok(match last {
            Some(last) if self.rest_hopeless(var, last, values, rest)? => Branch::EndLevel,
            _ => Branch::Skip,
        })
    }

    /// Whether every value of count `var` from its value in `values` up to
    /// `last` loses: the bound with `var` at `last` and the counts `rest`
    /// at their largest feasible values for `var`'s value (no completion
    /// of any such branch is faster, as a larger `var` leaves the rest no
    /// more threads) is already worse than the incumbent.
    fn rest_hopeless(
        &mut self,
        var: usize,
        last: u64,
        values: &mut [u64],
        rest: &[usize],
    ) -> Result<bool, AllocationError> {
        let mut maxima = Vec::with_capacity(rest.len());
        for &u in rest {
            match self.max_feasible(u, values)? {
                Some(m) => maxima.push(m),
                None => return Ok(true),
            }
        }
        let keep = values[var];
        values[var] = last;
        for (&u, &m) in rest.iter().zip(&maxima) {
            values[u] = m;
        }
        let bound = self.bound(values);
        values[var] = keep;
        for &u in rest {
            values[u] = self.space.lo[u];
        }
        let best_time = self.best.as_ref().map_or(f64::INFINITY, |b| b.time);
        Ok(bound? / (1.0 + self.slack()) > best_time)
    }

    /// A first incumbent: from the smallest counts (or `start`: a seed, or
    /// the best at half the cap scaled up), the single increment that lowers the
    /// objective most, while one does.
    fn ascend(&mut self, start: Option<Vec<u64>>) -> Result<(), AllocationError> {
        let space = self.space;
        let mut current = start.unwrap_or_else(|| space.lo.clone());
        let Some(threads) = space.feasible(&current)? else {
            return Ok(());
        };
        let mut time = self.objective(&current)?;
        self.offer(time, threads, &current);
        loop {
            let mut step: Option<(usize, f64)> = None;
            for i in 0..space.len() {
                if current[i] >= space.hi[i] {
                    continue;
                }
                current[i] += 1;
                if let Some(t) = space.feasible(&current)? {
                    let v = self.objective(&current)?;
                    self.offer(v, t, &current);
                    if v < time && step.is_none_or(|(_, s)| v < s) {
                        step = Some((i, v));
                    }
                }
                current[i] -= 1;
            }
            match step {
                Some((i, v)) => {
                    current[i] += 1;
                    time = v;
                }
                None => return Ok(()),
            }
        }
    }

    /// The depth-first search proper, with an explicit stack of levels.
    fn run(&mut self) -> Result<(), AllocationError> {
        let space = self.space;
        let k = space.len();
        let pruned = !matches!(self.pruning, Pruning::Threads);
        // Counts the threads are not monotone in first, then the others
        // the model is not monotone in, then the monotone ones.
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by_key(|&i| (space.threads_monotone[i], pruned && space.monotone[i], i));
        let first_monotone = if pruned {
            order
                .iter()
                .rposition(|&i| !space.monotone[i])
                .map_or(0, |p| p + 1)
        } else {
            k
        };
        self.threads_ok_after = (0..k)
            .map(|l| order[l + 1..].iter().all(|&u| space.threads_monotone[u]))
            .collect();
        let mut values = space.lo.clone();
        let mut next = vec![0u64; k];
        let mut end = vec![0u64; k];
        let mut level = 0;
        self.enter(
            level,
            &order,
            first_monotone,
            &mut values,
            &mut next,
            &mut end,
        )?;
        loop {
            let var = order[level];
            if next[level] > end[level] || next[level] == 0 {
                values[var] = space.lo[var];
                if level == 0 {
                    return Ok(());
                }
                level -= 1;
                continue;
            }
            self.step()?;
            let v = next[level];
            next[level] += 1;
            values[var] = v;
            // With counts the threads are not monotone in still open, the
            // cap is checked at the leaves only.
            let threads = if self.threads_ok_after[level] {
                match space.feasible(&values)? {
                    Some(t) => t,
                    None => {
                        if space.threads_monotone[var] {
                            next[level] = 0; // larger values overflow the cap too
                        }
                        continue;
                    }
                }
            } else {
                0
            };
            let rest = &order[level + 1..];
            if level + 1 == k {
                if pruned && level >= first_monotone {
                    let b = self.bound(&values)?;
                    if self.loses(b, threads, &values) {
                        continue;
                    }
                    if matches!(self.pruning, Pruning::Itself) {
                        self.offer(b, threads, &values);
                        continue;
                    }
                }
                let t = self.objective(&values)?;
                self.offer(t, threads, &values);
                continue;
            }
            if pruned && level + 1 >= first_monotone {
                // A larger value leaves the rest no more threads: with this
                // count monotone too, a hopeless rest ends the level.
                let cuts = level >= first_monotone
                    && space.threads_monotone[var]
                    && self.threads_ok_after[level];
                match self.branch(var, threads, &mut values, rest, cuts.then_some(end[level]))? {
                    Branch::Enter => {}
                    Branch::Skip => continue,
                    Branch::EndLevel => {
                        next[level] = 0;
                        continue;
                    }
                }
            }
            level += 1;
            self.enter(
                level,
                &order,
                first_monotone,
                &mut values,
                &mut next,
                &mut end,
            )?;
        }
    }

    /// Sets the values to try at `level`: `next[level]..=end[level]`, or an
    /// empty level (`next` 0). Trims by the cap, the bound's losing prefix
    /// and, for the last count of a monotone objective, to its one best
    /// value.
    fn enter(
        &mut self,
        level: usize,
        order: &[usize],
        first_monotone: usize,
        values: &mut [u64],
        next: &mut [u64],
        end: &mut [u64],
    ) -> Result<(), AllocationError> {
        let space = self.space;
        let var = order[level];
        let (start, mut last) = (space.lo[var], space.hi[var]);
        let empty = |next: &mut [u64]| next[level] = 0;
        if space.threads_monotone[var] && self.threads_ok_after[level] {
            match self.max_feasible(var, values)? {
                Some(m) => last = m,
                None => {
                    empty(next);
                    return Ok(());
                }
            }
        }
        let mut start = start;
        if level >= first_monotone && self.best.is_some() {
            // The bound with the later counts at their largest for this
            // count at its smallest: non-increasing in this count.
            let rest = &order[level + 1..];
            let mut maxima = Vec::with_capacity(rest.len());
            for &u in rest {
                match self.max_feasible(u, values)? {
                    Some(m) => maxima.push(m),
                    None => {
                        empty(next);
                        return Ok(());
                    }
                }
            }
            for (&u, &m) in rest.iter().zip(&maxima) {
                values[u] = m;
            }
            let best_time = self.best.as_ref().map_or(f64::INFINITY, |b| b.time);
            let slack = self.slack();
            let hopeless = |s: &mut Self, v: u64, values: &mut [u64]| {
                values[var] = v;
                s.bound(values).map(|b| b / (1.0 + slack) > best_time)
            };
            let outcome = if hopeless(self, last, values)? {
                None
            } else {
                let (mut lo, mut hi) = (start, last);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if hopeless(self, mid, values)? {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                Some(lo)
            };
            values[var] = space.lo[var];
            for &u in rest {
                values[u] = space.lo[u];
            }
            match outcome {
                Some(s) => start = s,
                None => {
                    empty(next);
                    return Ok(());
                }
            }
        }
        if level + 1 == order.len()
            && level >= first_monotone
            && matches!(self.pruning, Pruning::Itself)
        {
            // The last count of a monotone objective: the smallest value
            // reaching the time of the largest feasible one.
            values[var] = last;
            let target = self.objective(values)?;
            let (mut lo, mut hi) = (start, last);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                values[var] = mid;
                if self.objective(values)? <= target {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            values[var] = space.lo[var];
            start = lo;
            last = lo;
        }
        next[level] = start;
        end[level] = last;
        Ok(())
    }
}
