//! Multi-parameter models: one single-parameter model per parameter, then
//! the products and sums of their terms, chosen by cross-validation.

use super::data::Data;
use super::result::{Fit, FitStats, FittedTerm};
use super::settings::Fitter;
use crate::fit::error::FitError;
use crate::fit::hypothesis::{TermClass, TermEval};
use crate::fit::search::{Engine, Scored};
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

/// A scored structure: its monomials (sets of parameter positions) and their
/// columns at the points.
struct Candidate {
    scored: Scored,
    family: Vec<Vec<usize>>,
    monomials: Vec<Vec<f64>>,
}

pub(crate) fn fit(fitter: &Fitter, names: &[String], data: Data) -> Result<Fit, FitError> {
    // Single-parameter models, and the leading term of each.
    let mut evaluated = 0;
    let mut log_terms_dropped = false;
    let mut leading: Vec<(usize, TermClass)> = Vec::new();
    for (p, name) in names.iter().enumerate() {
        let (xs, ys) = line_along(&data, p);
        check_line(&data, p, name, xs.len())?;
        let single = fitter.fit_line(name, &xs, &ys, None)?;
        evaluated += single.evaluated;
        log_terms_dropped |= single.log_terms_dropped;
        if let Some(&class) = single.classes.iter().max() {
            leading.push((p, class));
        }
    }

    // Columns of each parameter's term at every point.
    let columns: Vec<Vec<f64>> = leading
        .iter()
        .map(|&(p, class)| {
            let e = TermEval::new(class);
            data.coords.iter().map(|c| e.eval(c[p])).collect()
        })
        .collect();
    let mut engine = Engine::new(&data.values, fitter.options());
    let tss = engine.total_sum_of_squares();
    let mut best: Option<Candidate> = None;
    if tss > 0.0 && !leading.is_empty() {
        for family in families(leading.len()) {
            let monomials: Vec<Vec<f64>> = family
                .iter()
                .map(|mono| {
                    (0..data.values.len())
                        .map(|i| mono.iter().map(|&q| columns[q][i]).product())
                        .collect()
                })
                .collect();
            let cols: Vec<&[f64]> = monomials.iter().map(Vec::as_slice).collect();
            evaluated += 1;
            if let Some(s) = engine.evaluate(&cols) {
                let better = match &best {
                    None => true,
                    Some(b) => s.score < b.scored.score,
                };
                if better {
                    best = Some(Candidate {
                        scored: s,
                        family,
                        monomials,
                    });
                }
            }
        }
    }

    let points: Vec<(Vec<f64>, f64)> = data
        .coords
        .iter()
        .cloned()
        .zip(data.values.iter().copied())
        .collect();
    let n = data.values.len();
    Ok(match best {
        Some(Candidate {
            scored,
            family,
            monomials,
        }) => {
            let cols: Vec<&[f64]> = monomials.iter().map(Vec::as_slice).collect();
            let (rss, smape) = engine.in_sample(&cols, &scored.coefficients);
            let stats = FitStats::new(n, family.len(), rss, smape, tss, &scored);
            let terms = family
                .iter()
                .zip(&scored.coefficients[1..])
                .map(|(mono, &coefficient)| FittedTerm {
                    coefficient,
                    factors: mono
                        .iter()
                        .map(|&q| {
                            let (p, class) = leading[q];
                            (names[p].clone(), class)
                        })
                        .collect(),
                })
                .collect();
            Fit::new(
                names.to_vec(),
                scored.coefficients[0],
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
            let stats = FitStats::new(n, 0, rss, smape, tss, &scored);
            Fit::new(
                names.to_vec(),
                scored.coefficients[0],
                Vec::new(),
                stats,
                evaluated + 1,
                log_terms_dropped,
                points,
            )
        }
    })
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
