//! The monomial search of multi-parameter fits ([`Fitter::monomial_search`]):
//! sums of products of each parameter's classes, built one monomial at a
//! time and improved factor by factor while cross-validation says the data
//! want it.

use super::settings::Fitter;
use crate::fit::hypothesis::{TermClass, TermEval};
use crate::fit::search::{Engine, Quick, Scorer};

/// A monomial: its factors, each a parameter's position and its class, in
/// the order of the parameters.
pub(super) type Monomial = Vec<(usize, TermClass)>;

/// How many standard errors of the paired difference the leave-one-out
/// loss must drop by for a monomial to be added or kept: the better score
/// of the best of many candidates is partly chance, and a term fitted to
/// noise extrapolates anywhere.
const STANDARD_ERRORS: f64 = 2.0;

/// How many rounds of improvement at most (refining and pruning, or the
/// sweeps of a coordinate descent): each changes the model only when it
/// scores better, and two or three suffice.
const ROUNDS: usize = 4;

/// Every product of at most one class per parameter (at least one factor):
/// `terms` holds each parameter's position and its classes.
pub(super) fn products(terms: &[(usize, Vec<TermClass>)]) -> Vec<Monomial> {
    let mut out: Vec<Monomial> = vec![Vec::new()];
    for (p, classes) in terms {
        let mut next = Vec::with_capacity(out.len() * (classes.len() + 1));
        for mono in &out {
            next.push(mono.clone());
            for &class in classes {
                let mut longer = mono.clone();
                longer.push((*p, class));
                next.push(longer);
            }
        }
        out = next;
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The values of `monomial` at the points `coords`.
pub(super) fn column(monomial: &Monomial, coords: &[&[f64]]) -> Vec<f64> {
    let evals: Vec<(usize, TermEval)> = monomial
        .iter()
        .map(|&(p, class)| (p, TermEval::new(class)))
        .collect();
    coords
        .iter()
        .map(|c| evals.iter().map(|(p, e)| e.eval(c[*p])).product())
        .collect()
}

/// One parameter at the points: its distinct values, each point's index
/// among them, the classes it may take and their values at the distinct
/// values.
struct Axis {
    p: usize,
    values: Vec<f64>,
    index: Vec<usize>,
    classes: Vec<TermClass>,
    tables: Vec<Vec<f64>>,
}

impl Axis {
    fn new(p: usize, coords: &[&[f64]], space: &[TermClass]) -> Axis {
        let mut values: Vec<f64> = coords.iter().map(|c| c[p]).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let index = coords
            .iter()
            .map(|c| values.partition_point(|&v| v < c[p]))
            .collect();
        // As along a line: no log factor where log₂ turns negative.
        let log_ok = values.first().is_some_and(|&v| v >= 1.0);
        let mut classes: Vec<TermClass> = space
            .iter()
            .copied()
            .filter(|t| log_ok || !t.has_log())
            .collect();
        // Sorted, to find a class's values by binary search.
        classes.sort_unstable();
        classes.dedup();
        let tables = classes.iter().map(|&c| table(c, &values)).collect();
        Axis {
            p,
            values,
            index,
            classes,
            tables,
        }
    }
}

/// The values of `class` at `values`.
fn table(class: TermClass, values: &[f64]) -> Vec<f64> {
    let e = TermEval::new(class);
    values.iter().map(|&v| e.eval(v)).collect()
}

/// The monomial search over some points: the engine that scores, the
/// parameters, the candidates to add (the products of the line terms and
/// every single class).
pub(super) struct Search<'s> {
    engine: &'s Engine<'s>,
    axes: Vec<Axis>,
    candidates: Vec<Monomial>,
    /// Scratch for a monomial's values.
    values: Vec<f64>,
    /// Hypotheses scored.
    pub evaluated: usize,
}

impl<'s> Search<'s> {
    /// A search at `coords` (the points `engine` scores) over the classes of
    /// `space`, with the products of `line_terms` as candidates.
    pub(super) fn new(
        engine: &'s Engine<'s>,
        coords: &[&[f64]],
        params: usize,
        space: &[TermClass],
        line_terms: &[(usize, Vec<TermClass>)],
    ) -> Search<'s> {
        let axes: Vec<Axis> = (0..params).map(|p| Axis::new(p, coords, space)).collect();
        let mut candidates = products(line_terms);
        for axis in &axes {
            for &class in &axis.classes {
                let single = vec![(axis.p, class)];
                if !candidates.contains(&single) {
                    candidates.push(single);
                }
            }
        }
        Search {
            engine,
            axes,
            candidates,
            values: Vec::with_capacity(coords.len()),
            evaluated: 0,
        }
    }

    /// The values of `monomial` at the points, into `self.values`.
    fn fill(&mut self, monomial: &Monomial) {
        let n = self.axes.first().map_or(0, |a| a.index.len());
        self.values.clear();
        self.values.resize(n, 1.0);
        for &(p, class) in monomial {
            let axis = &self.axes[p];
            let owned;
            let t = match axis.classes.binary_search(&class) {
                Ok(k) => &axis.tables[k],
                Err(_) => {
                    owned = table(class, &axis.values);
                    &owned
                }
            };
            for (v, &i) in self.values.iter_mut().zip(&axis.index) {
                *v *= t[i];
            }
        }
    }

    /// The score with `monomial` added to `scorer`'s set ([`Scorer::score`]).
    fn score(&mut self, scorer: &mut Scorer<'_>, monomial: &Monomial) -> Option<f64> {
        self.fill(monomial);
        self.evaluated += 1;
        scorer.score(&self.values)
    }

    /// [`Search::score`] with the points' losses ([`Scorer::with`]).
    fn quick(&mut self, scorer: &mut Scorer<'_>, monomial: &Monomial) -> Option<Quick> {
        self.fill(monomial);
        scorer.with(&self.values)
    }

    /// The scorer of `chosen` without the monomial at `skip`.
    fn scorer(&mut self, chosen: &[Monomial], skip: Option<usize>) -> Option<Scorer<'s>> {
        let mut columns = Vec::with_capacity(chosen.len());
        for (j, mono) in chosen.iter().enumerate() {
            if Some(j) != skip {
                self.fill(mono);
                columns.push(self.values.clone());
            }
        }
        let cols: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        self.engine.scorer(&cols)
    }

    /// The monomials chosen, at most `most`: one at a time, the candidate
    /// that adds most ([`Search::add`]), the model then settled
    /// ([`Search::settle`]); at the end, monomials dropped while the model
    /// without one, settled again, scores better ([`Search::drop_one`]).
    /// `None` if no monomial makes a valid hypothesis.
    pub(super) fn run(&mut self, most: usize) -> Option<Vec<Monomial>> {
        let mut chosen = Vec::new();
        let mut current = self.scorer(&chosen, None)?.alone()?;
        while chosen.len() < most && self.add(&mut chosen, &mut current) {
            self.settle(&mut chosen, &mut current);
        }
        while self.drop_one(&mut chosen, &mut current) {}
        (!chosen.is_empty()).then_some(chosen)
    }

    /// Rounds of refining and pruning until neither changes the model.
    fn settle(&mut self, chosen: &mut Vec<Monomial>, current: &mut Quick) {
        for _ in 0..ROUNDS {
            let refined = self.refine(chosen, current);
            if !(self.prune(chosen, current) || refined) {
                break;
            }
        }
    }

    /// The model without one of its monomials, the others settled again,
    /// when that scores better: a monomial added early can bend the
    /// others, which the one added to make up for it then holds in place.
    /// Whether one was dropped.
    fn drop_one(&mut self, chosen: &mut Vec<Monomial>, current: &mut Quick) -> bool {
        for k in 0..chosen.len() {
            if chosen.len() < 2 {
                return false;
            }
            let mut fewer = chosen.clone();
            fewer.remove(k);
            self.evaluated += 1;
            let Some(mut q) = self.scorer(&fewer, None).and_then(|mut s| s.alone()) else {
                continue;
            };
            self.settle(&mut fewer, &mut q);
            if q.score < current.score {
                *chosen = fewer;
                *current = q;
                return true;
            }
        }
        false
    }

    /// The candidate not in `chosen` that scores best added to `scorer`'s
    /// set, with its score.
    fn best_candidate(
        &mut self,
        scorer: &mut Scorer<'_>,
        chosen: &[Monomial],
    ) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for c in 0..self.candidates.len() {
            if chosen.contains(&self.candidates[c]) {
                continue;
            }
            let mono = self.candidates[c].clone();
            if let Some(s) = self.score(scorer, &mono)
                && best.is_none_or(|(_, b)| s < b)
            {
                best = Some((c, s));
            }
        }
        best
    }

    /// Forward selection: the candidate whose addition scores best, added
    /// if it beats the model without it beyond chance ([`beyond_chance`]).
    /// Whether one was added.
    fn add(&mut self, chosen: &mut Vec<Monomial>, current: &mut Quick) -> bool {
        let Some(mut scorer) = self.scorer(chosen, None) else {
            return false;
        };
        let Some((c, _)) = self.best_candidate(&mut scorer, chosen) else {
            return false;
        };
        let mono = self.candidates[c].clone();
        self.fill(&mono);
        if !scorer.contributes(&self.values) {
            return false;
        }
        match self.quick(&mut scorer, &mono) {
            Some(q) if beyond_chance(&q, current) => {
                chosen.push(mono);
                *current = q;
                true
            }
            _ => false,
        }
    }

    /// Backfitting: each monomial in turn improved factor by factor with
    /// the others fixed ([`Search::descend`]). Whether one was replaced.
    fn refine(&mut self, chosen: &mut [Monomial], current: &mut Quick) -> bool {
        let mut changed = false;
        for j in 0..chosen.len() {
            let Some(mut scorer) = self.scorer(chosen, Some(j)) else {
                continue;
            };
            let best = self.descend(&mut scorer, chosen, j, chosen[j].clone(), current.score);
            if best.1 < current.score
                && best.0 != chosen[j]
                && let Some(q) = self.quick(&mut scorer, &best.0)
            {
                chosen[j] = best.0;
                *current = q;
                changed = true;
            }
        }
        changed
    }

    /// Coordinate descent of the monomial at `j` from `start` (scoring
    /// `score`): its factor in each parameter replaced by the class of the
    /// space (or none) that scores best with the others fixed (`scorer`),
    /// while that improves.
    fn descend(
        &mut self,
        scorer: &mut Scorer<'_>,
        chosen: &[Monomial],
        j: usize,
        start: Monomial,
        score: f64,
    ) -> (Monomial, f64) {
        let mut at = (start, score);
        for _ in 0..ROUNDS {
            let mut moved = false;
            for a in 0..self.axes.len() {
                let mut best: Option<(Monomial, f64)> = None;
                for other in self.variants(&at.0, a) {
                    if chosen
                        .iter()
                        .enumerate()
                        .any(|(k, m)| k != j && *m == other)
                    {
                        continue;
                    }
                    if let Some(s) = self.score(scorer, &other)
                        && s < best.as_ref().map_or(at.1, |b| b.1)
                    {
                        best = Some((other, s));
                    }
                }
                if let Some(b) = best {
                    at = b;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        at
    }

    /// `mono` with its factor in the parameter of axis `a` replaced by each
    /// other class of the axis, or left out (if another factor remains).
    fn variants(&self, mono: &Monomial, a: usize) -> Vec<Monomial> {
        let axis = &self.axes[a];
        let without: Monomial = mono.iter().copied().filter(|f| f.0 != axis.p).collect();
        let mut out = Vec::with_capacity(axis.classes.len() + 1);
        if !without.is_empty() && without.len() < mono.len() {
            out.push(without.clone());
        }
        for &class in &axis.classes {
            let mut m = without.clone();
            m.push((axis.p, class));
            m.sort_by_key(|f| f.0);
            if m != *mono {
                out.push(m);
            }
        }
        out
    }

    /// Leaves out each monomial the others do as well without, beyond
    /// chance. Whether one was left out.
    fn prune(&mut self, chosen: &mut Vec<Monomial>, current: &mut Quick) -> bool {
        let mut changed = false;
        let mut j = 0;
        while chosen.len() > 1 && j < chosen.len() {
            self.evaluated += 1;
            let without = self.scorer(chosen, Some(j)).and_then(|mut s| s.alone());
            match without {
                Some(q) if !beyond_chance(current, &q) => {
                    chosen.remove(j);
                    *current = q;
                    changed = true;
                }
                _ => j += 1,
            }
        }
        changed
    }
}

/// Whether `new` beats `old` beyond chance: the mean of the paired drops in
/// the points' leave-one-out losses is at least [`STANDARD_ERRORS`] of its
/// standard errors.
fn beyond_chance(new: &Quick, old: &Quick) -> bool {
    let n = new.losses.len() as f64;
    let drops: Vec<f64> = old
        .losses
        .iter()
        .zip(&new.losses)
        .map(|(o, w)| o - w)
        .collect();
    let mean = drops.iter().sum::<f64>() / n;
    let var = drops.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (n - 1.0);
    mean > 0.0 && mean >= STANDARD_ERRORS * (var / n).sqrt()
}

impl Fitter {
    /// The classes of parameter `p` the monomial search combines: those of
    /// `leading` (its model along its line) and those of the best model with
    /// up to two terms along the line (`xs`, `ys`), so that a parameter
    /// whose time is a sum (`y² + log₂y`) keeps both terms.
    pub(super) fn line_terms(
        &self,
        name: &str,
        xs: &[f64],
        ys: &[f64],
        leading: &[TermClass],
    ) -> (Vec<TermClass>, usize) {
        let mut classes = leading.to_vec();
        let mut evaluated = 0;
        if self.max_terms < 2 {
            let mut two = self.clone();
            two.max_terms = 2;
            if let Ok(single) = two.fit_line(name, xs, ys, None) {
                evaluated = single.evaluated;
                classes.extend(single.classes);
            }
        }
        classes.sort_unstable();
        classes.dedup();
        (classes, evaluated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_take_at_most_one_class_per_parameter() {
        let a = TermClass::extrap(1, 1, 0);
        let b = TermClass::extrap(2, 1, 0);
        let all = products(&[(0, vec![a, b]), (2, vec![a])]);
        // (2 + 1)·(1 + 1) − 1: the empty product left out.
        assert_eq!(all.len(), 5);
        assert!(all.contains(&vec![(0, b), (2, a)]));
        assert!(all.contains(&vec![(2, a)]));
        assert!(all.iter().all(|m| !m.is_empty()));
    }

    #[test]
    fn chance_improvements_are_not_enough() {
        let old = Quick {
            score: 1.0,
            losses: vec![1.0, 1.0, 1.0, 1.0],
        };
        let steady = Quick {
            score: 0.9,
            losses: vec![0.9, 0.91, 0.89, 0.9],
        };
        assert!(beyond_chance(&steady, &old));
        let lucky = Quick {
            score: 0.9,
            losses: vec![0.2, 1.2, 1.1, 1.1],
        };
        assert!(!beyond_chance(&lucky, &old));
    }
}
