//! Multi-parameter models: one single-parameter model per parameter, then
//! the products and sums of their terms, chosen by cross-validation; by
//! default the monomial search ([`super::monomials`]) competes.

use super::data::Data;
use super::monomials::{self, Monomial, Search};
use super::outlier::{self, Outlier};
use super::result::{Fit, FitStats, FittedTerm};
use super::settings::Fitter;
use crate::fit::error::FitError;
use crate::fit::hypothesis::TermClass;
use crate::fit::search::{Engine, Scored, Weighting};
use std::collections::BTreeMap;

/// The additive structures Extra-P tries for three parameters (besides the
/// full product and the full sum), as sets of monomials over the parameter
/// positions `0, 1, 2`.
const THREE_PARAMETER_FAMILIES: [&[&[usize]]; 21] = [
    &[&[0, 1, 2], &[0]],
    &[&[0, 1, 2], &[1]],
    &[&[0, 1, 2], &[2]],
    &[&[0, 1, 2], &[0, 1]],
    &[&[0, 1, 2], &[1, 2]],
    &[&[0, 1, 2], &[0, 2]],
    &[&[0, 1, 2], &[0, 1], &[2]],
    &[&[0, 1, 2], &[1, 2], &[0]],
    &[&[0, 1, 2], &[0, 2], &[1]],
    &[&[0, 1, 2], &[0], &[1]],
    &[&[0, 1, 2], &[0], &[2]],
    &[&[0, 1, 2], &[1], &[2]],
    &[&[0, 1], &[2]],
    &[&[0, 1], &[2], &[1]],
    &[&[0, 1], &[2], &[0]],
    &[&[0, 2], &[1]],
    &[&[0, 2], &[1], &[0]],
    &[&[0, 2], &[1], &[2]],
    &[&[1, 2], &[0]],
    &[&[1, 2], &[0], &[1]],
    &[&[1, 2], &[0], &[2]],
];

/// The candidate structures for `m` parameters with a term, as sets of
/// monomials (each a set of positions `0..m`), in Extra-P's order.
fn families(m: usize) -> Vec<Vec<Vec<usize>>> {
    let all: Vec<usize> = (0..m).collect();
    if m == 1 {
        return vec![vec![all]];
    }
    let mut out = vec![vec![all.clone()], all.iter().map(|&p| vec![p]).collect()];
    if m == 2 {
        out.push(vec![vec![0], all.clone()]);
        out.push(vec![vec![1], all]);
    } else if m == 3 {
        out.extend(
            THREE_PARAMETER_FAMILIES
                .iter()
                .map(|f| f.iter().map(|mono| mono.to_vec()).collect()),
        );
    }
    out
}

/// The single-parameter data for parameter `p`: the longest lines of points
/// along `p` (other parameters fixed); where several lines are equally long
/// and cover the same values of `p`, their values are averaged (Extra-P's
/// default point selection).
fn line_along(data: &Data, p: usize) -> (Vec<f64>, Vec<f64>) {
    let mut lines: BTreeMap<Vec<u64>, Vec<(f64, f64)>> = BTreeMap::new();
    for (c, &v) in data.coords.iter().zip(&data.values) {
        let key: Vec<u64> = c
            .iter()
            .enumerate()
            .filter(|(q, _)| *q != p)
            .map(|(_, x)| x.to_bits())
            .collect();
        lines.entry(key).or_default().push((c[p], v));
    }
    let longest = lines.values().map(Vec::len).max().unwrap_or(0);
    let mut chosen = lines.values().filter(|l| l.len() == longest);
    let Some(first) = chosen.next() else {
        return (Vec::new(), Vec::new());
    };
    let mut first = first.clone();
    first.sort_by(|a, b| a.0.total_cmp(&b.0));
    let xs: Vec<f64> = first.iter().map(|(x, _)| *x).collect();
    let mut sums: Vec<f64> = first.iter().map(|(_, y)| *y).collect();
    let mut count = 1.0;
    for line in chosen {
        let mut line = line.clone();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        if line.iter().map(|(x, _)| *x).eq(xs.iter().copied()) {
            sums.iter_mut().zip(&line).for_each(|(s, (_, y))| *s += y);
            count += 1.0;
        }
    }
    sums.iter_mut().for_each(|s| *s /= count);
    (xs, sums)
}

/// [`FitError::NotAlongLines`] when the longest line along parameter `p`
/// has too few points for a model although `p` takes enough values: the
/// points vary it only together with the others.
fn check_line(data: &Data, p: usize, name: &str, along: usize) -> Result<(), FitError> {
    // A hypothesis has two coefficients; cross-validation needs one more.
    const NEEDED: usize = 3;
    if along >= NEEDED {
        return Ok(());
    }
    let mut values: Vec<u64> = data.coords.iter().map(|c| c[p].to_bits()).collect();
    values.sort_unstable();
    values.dedup();
    if values.len() < NEEDED {
        // Too few values at all: the single-parameter fit says so.
        return Ok(());
    }
    Err(FitError::NotAlongLines {
        param: name.to_string(),
        distinct: values.len(),
        along,
    })
}

/// A scored structure: its monomials and their columns at the points.
struct Candidate {
    scored: Scored,
    monomials: Vec<Monomial>,
    columns: Vec<Vec<f64>>,
}

/// Each parameter's leading term (its position and class) from its
/// single-parameter model along its line of points, the classes the
/// monomial search combines ([`Fitter::monomial_search`]), the hypotheses
/// evaluated and whether log terms were dropped.
struct Leading {
    terms: Vec<(usize, TermClass)>,
    line_terms: Vec<(usize, Vec<TermClass>)>,
    evaluated: usize,
    log_terms_dropped: bool,
}

fn leading_terms(fitter: &Fitter, names: &[String], data: &Data) -> Result<Leading, FitError> {
    let mut evaluated = 0;
    let mut log_terms_dropped = false;
    let mut leading = Vec::new();
    let mut line_terms = Vec::new();
    let all: Vec<usize> = (0..data.values.len()).collect();
    let searched = fitter.monomial_search && varied_together(data, &all);
    for (p, name) in names.iter().enumerate() {
        let (xs, ys) = line_along(data, p);
        check_line(data, p, name, xs.len())?;
        let single = fitter.fit_line(name, &xs, &ys, None)?;
        evaluated += single.evaluated;
        log_terms_dropped |= single.log_terms_dropped;
        if let Some(&class) = single.classes.iter().max() {
            leading.push((p, class));
        }
        if searched {
            let (classes, scored) = fitter.line_terms(name, &xs, &ys, &single.classes);
            evaluated += scored;
            if !classes.is_empty() {
                line_terms.push((p, classes));
            }
        }
    }
    Ok(Leading {
        terms: leading,
        line_terms,
        evaluated,
        log_terms_dropped,
    })
}

/// The coordinates of the points `kept`.
fn coords_of<'a>(data: &'a Data, kept: &[usize]) -> Vec<&'a [f64]> {
    kept.iter().map(|&i| data.coords[i].as_slice()).collect()
}

/// The best of Extra-P's structures of the leading terms over the points
/// `kept` (indices into `data`), by cross-validation; `None` if no
/// structure is valid or the values do not vary. Counts the structures in
/// `evaluated`.
fn select(
    fitter: &Fitter,
    data: &Data,
    leading: &Leading,
    kept: &[usize],
    evaluated: &mut usize,
) -> Option<Candidate> {
    let values: Vec<f64> = kept.iter().map(|&i| data.values[i]).collect();
    let mut engine = Engine::new(&values, fitter.options());
    if engine.total_sum_of_squares() <= 0.0 || leading.terms.is_empty() {
        return None;
    }
    let coords = coords_of(data, kept);
    let mut best: Option<Candidate> = None;
    for family in families(leading.terms.len()) {
        let monomials: Vec<Monomial> = family
            .iter()
            .map(|mono| mono.iter().map(|&q| leading.terms[q]).collect())
            .collect();
        consider(&mut engine, &coords, monomials, &mut best, evaluated);
    }
    best
}

/// The structure of the monomial search ([`Fitter::monomial_search`]) over
/// the points `kept`, scored as [`select`]'s, in `best` if it scores
/// better. At most one monomial more than there are parameters.
fn search(
    fitter: &Fitter,
    data: &Data,
    leading: &Leading,
    kept: &[usize],
    best: &mut Option<Candidate>,
    evaluated: &mut usize,
) {
    let values: Vec<f64> = kept.iter().map(|&i| data.values[i]).collect();
    let mut engine = Engine::new(&values, fitter.options());
    if engine.total_sum_of_squares() <= 0.0 || leading.line_terms.is_empty() {
        return;
    }
    let coords = coords_of(data, kept);
    let params = data.coords.first().map_or(0, Vec::len);
    let mut search = Search::new(
        &engine,
        &coords,
        params,
        fitter.space.terms(),
        &leading.line_terms,
    );
    let chosen = search.run(params + 1);
    *evaluated += search.evaluated;
    if let Some(monomials) = chosen {
        consider(&mut engine, &coords, monomials, best, evaluated);
    }
}

/// Whether the points `kept` suit the monomial search: at least
/// [`outlier::MIN_POINTS_MULTI`] of them, and no fewer off the lines through
/// the smallest point (varying two parameters or more from it) than on
/// them. Only points where parameters vary together tell a product of
/// their classes from a sum; on lines alone (Extra-P's cross designs) the
/// search's thousands of hypotheses would be told apart by noise.
fn varied_together(data: &Data, kept: &[usize]) -> bool {
    let Some(first) = kept.first() else {
        return false;
    };
    let mut smallest = data.coords[*first].clone();
    for &i in kept {
        for (m, &v) in smallest.iter_mut().zip(&data.coords[i]) {
            *m = m.min(v);
        }
    }
    let off = kept
        .iter()
        .filter(|&&i| {
            let c = &data.coords[i];
            c.iter().zip(&smallest).filter(|(v, m)| v != m).count() >= 2
        })
        .count();
    kept.len() >= outlier::MIN_POINTS_MULTI && 2 * off >= kept.len()
}

/// Scores the structure of `monomials` at `coords` and keeps it in `best`
/// if it scores better.
fn consider(
    engine: &mut Engine<'_>,
    coords: &[&[f64]],
    monomials: Vec<Monomial>,
    best: &mut Option<Candidate>,
    evaluated: &mut usize,
) {
    let columns: Vec<Vec<f64>> = monomials
        .iter()
        .map(|m| monomials::column(m, coords))
        .collect();
    let cols: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    *evaluated += 1;
    if let Some(s) = engine.evaluate(&cols)
        && best.as_ref().is_none_or(|b| s.score < b.scored.score)
    {
        *best = Some(Candidate {
            scored: s,
            monomials,
            columns,
        });
    }
}

/// The value of a candidate's model at a point of `data`.
fn predict(candidate: &Candidate, coordinate: &[f64]) -> f64 {
    let c = &candidate.scored.coefficients;
    let term = |mono: &Monomial| -> f64 {
        mono.iter()
            .map(|&(p, class)| class.eval(coordinate[p]))
            .product()
    };
    c[0] + candidate
        .monomials
        .iter()
        .zip(&c[1..])
        .map(|(mono, k)| k * term(mono))
        .sum::<f64>()
}

/// The points the others contradict ([`Fitter::robust`]): `chosen`, the
/// structure fitted to all points, is fitted again by plain least squares;
/// the [`outlier::most_left_out`] points furthest off it (at least
/// [`outlier::GATE`], and [`outlier::FACTOR`] times the median point) are
/// set aside; the fit of the others then leaves out each of those that
/// lies [`outlier::FACTOR`] times their largest relative residual (at
/// least [`outlier::FLOOR`]) off it. The points kept and those left out;
/// `None` if none is.
fn without_outliers(
    fitter: &Fitter,
    data: &Data,
    leading: &Leading,
    chosen: &Candidate,
    evaluated: &mut usize,
) -> Option<(Vec<usize>, Vec<Outlier>)> {
    let n = data.values.len();
    // Plain least squares: a low point pulls a fit weighted by 1/y²
    // everywhere, but barely moves one led by the largest values.
    let plain = fitter.clone().weighting(Weighting::Absolute);
    let cols: Vec<&[f64]> = chosen.columns.iter().map(Vec::as_slice).collect();
    let all = Candidate {
        scored: Engine::new(&data.values, plain.options()).evaluate(&cols)?,
        monomials: chosen.monomials.clone(),
        columns: Vec::new(),
    };
    // Off relative to the smaller of value and model, so that a low point
    // counts as much as a high one.
    let off_all: Vec<f64> = (0..n)
        .map(|i| {
            let f = predict(&all, &data.coords[i]);
            let y = data.values[i];
            outlier::relative(y, f).max(outlier::relative(f, y))
        })
        .collect();
    let typical = crate::fit::stats::median(&off_all).max(outlier::FLOOR);
    let far = |i: &usize| off_all[*i] >= outlier::GATE.max(outlier::FACTOR * typical);
    let mut worst: Vec<usize> = (0..n).filter(far).collect();
    worst.sort_by(|&a, &b| off_all[b].total_cmp(&off_all[a]));
    worst.truncate(outlier::most_left_out(n));
    if worst.is_empty() {
        return None;
    }
    let mut set_aside = vec![false; n];
    worst.iter().for_each(|&i| set_aside[i] = true);
    let others: Vec<usize> = (0..n).filter(|&i| !set_aside[i]).collect();
    let model = select(fitter, data, leading, &others, evaluated)?;
    let off = |i: usize| {
        let expected = predict(&model, &data.coords[i]);
        (outlier::relative(data.values[i], expected), expected)
    };
    let scatter = others.iter().map(|&i| off(i).0).fold(0.0, f64::max);
    let mut left_out = Vec::new();
    for &i in &worst {
        let (residual, expected) = off(i);
        if residual >= outlier::FACTOR * scatter.max(outlier::FLOOR) {
            left_out.push((
                i,
                Outlier {
                    coordinate: data.coords[i].clone(),
                    value: data.values[i],
                    expected,
                    others_scatter: scatter,
                },
            ));
        }
    }
    if left_out.is_empty() {
        return None;
    }
    left_out.sort_by_key(|(i, _)| *i);
    let mut out = vec![false; n];
    left_out.iter().for_each(|(i, _)| out[*i] = true);
    let kept = (0..n).filter(|&i| !out[i]).collect();
    Some((kept, left_out.into_iter().map(|(_, o)| o).collect()))
}

pub(crate) fn fit(fitter: &Fitter, names: &[String], data: Data) -> Result<Fit, FitError> {
    let leading = leading_terms(fitter, names, &data)?;
    let mut evaluated = leading.evaluated;
    let log_terms_dropped = leading.log_terms_dropped;
    let n = data.values.len();
    let mut kept: Vec<usize> = (0..n).collect();
    let mut best = select(fitter, &data, &leading, &kept, &mut evaluated);
    let mut outliers = Vec::new();
    if fitter.robust
        && n >= outlier::MIN_POINTS_MULTI
        && let Some(chosen) = &best
        && let Some((others, left_out)) =
            without_outliers(fitter, &data, &leading, chosen, &mut evaluated)
    {
        best = select(fitter, &data, &leading, &others, &mut evaluated);
        kept = others;
        outliers = left_out;
    }
    if fitter.monomial_search && varied_together(&data, &kept) {
        // After the outliers: they would lead the search astray.
        search(fitter, &data, &leading, &kept, &mut best, &mut evaluated);
    }
    let values: Vec<f64> = kept.iter().map(|&i| data.values[i]).collect();
    let engine = Engine::new(&values, fitter.options());
    let tss = engine.total_sum_of_squares();
    let points: Vec<(Vec<f64>, f64)> = data.coords.into_iter().zip(data.values).collect();
    let mut fit = match best {
        Some(Candidate {
            scored,
            monomials,
            columns,
        }) => {
            let cols: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            let (rss, smape) = engine.in_sample(&cols, &scored.coefficients);
            let stats = FitStats::new(kept.len(), monomials.len(), rss, smape, tss, &scored);
            let terms = monomials
                .iter()
                .zip(&scored.coefficients[1..])
                .map(|(mono, &coefficient)| FittedTerm {
                    coefficient,
                    factors: mono
                        .iter()
                        .map(|&(p, class)| (names[p].clone(), class))
                        .collect(),
                })
                .collect();
            let constant = scored.coefficients[0];
            Fit::new(
                names.to_vec(),
                constant,
                terms,
                stats,
                evaluated,
                log_terms_dropped,
                points,
            )
        }
        None => {
            let scored = engine.constant();
            let (rss, smape) = engine.in_sample(&[], &scored.coefficients);
            let stats = FitStats::new(kept.len(), 0, rss, smape, tss, &scored);
            let constant = scored.coefficients[0];
            Fit::new(
                names.to_vec(),
                constant,
                Vec::new(),
                stats,
                evaluated + 1,
                log_terms_dropped,
                points,
            )
        }
    };
    fit.outliers = outliers;
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrap_structures() {
        assert_eq!(families(1), [vec![vec![0]]]);
        let two = families(2);
        assert_eq!(two.len(), 4);
        assert_eq!(two[0], [vec![0, 1]]);
        assert_eq!(two[1], [vec![0], vec![1]]);
        assert_eq!(families(3).len(), 23);
        assert_eq!(families(4).len(), 2);
    }

    #[test]
    fn lines_are_the_longest_and_averaged() {
        // x ∈ {1, 2, 3} at n = 1 and n = 2; x = 4 only at n = 1.
        let coords = [
            [1.0, 1.0],
            [2.0, 1.0],
            [3.0, 1.0],
            [4.0, 1.0],
            [1.0, 2.0],
            [2.0, 2.0],
            [3.0, 2.0],
        ];
        let data = Data {
            coords: coords.iter().map(|c| c.to_vec()).collect(),
            values: vec![1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 5.0],
            errors: None,
        };
        let (xs, ys) = line_along(&data, 0);
        assert_eq!(xs, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(ys, [1.0, 2.0, 3.0, 4.0]);
        // Along n: lines at x = 1, 2, 3 have two points each and are averaged.
        let (ns, vs) = line_along(&data, 1);
        assert_eq!(ns, [1.0, 2.0]);
        assert_eq!(vs, [2.0, 4.0]);
    }
}
