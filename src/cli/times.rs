//! Every command that predicts a time checks first that each atom's model
//! gives a time (a finite number >= 0) where it predicts: at its point, or
//! over the range it is asked about (sampled), with
//! `pattern_core::semantics::check_atom_times`, the one check the
//! simulator and the queueing semantics apply too. A model that turns
//! negative is reported with its atom, the point and the value, never
//! priced as a negative time.

use super::error::CliError;
use pattern_core::Design;
use pattern_core::semantics::{check_atom_times, check_time};

/// At most this many values of one variable are checked over a range.
const SAMPLES: usize = 65;

/// At most this many values of each variable are checked over a grid.
const GRID_SAMPLES: usize = 17;

/// An error unless every atom of `designs` gives a time at `at`.
pub fn at_point(designs: &[&Design], at: &[(&str, f64)]) -> Result<(), CliError> {
    for design in designs {
        check_atom_times(design.term(), at)?;
    }
    Ok(())
}

/// An error unless the time a search chose for `design` at `counts` is a
/// time: an atom may turn negative only under the counts (`-p` inside
/// `on[n]`, `p` bound by the group), where the atoms' check cannot see it.
pub fn chosen(
    design: &Design,
    counts: &[(String, u64)],
    at: &[(&str, f64)],
    time: f64,
) -> Result<(), CliError> {
    let mut point: Vec<(&str, f64)> = counts
        .iter()
        .map(|(n, c)| (n.as_str(), *c as f64))
        .collect();
    point.extend_from_slice(at);
    check_time(&design.term().to_string(), time).map_err(|e| CliError::Time(e.at(&point)))?;
    Ok(())
}

/// `count` values from `lo` to `hi`, both ends included: spaced
/// geometrically where both are positive (models of sizes bend at the low
/// end), evenly otherwise.
pub fn samples(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    if count < 2 || lo >= hi {
        return vec![lo];
    }
    let last = (count - 1) as f64;
    let geometric = lo > 0.0;
    let mut out: Vec<f64> = (0..count)
        .map(|i| {
            let t = i as f64 / last;
            if geometric {
                lo * (hi / lo).powf(t)
            } else {
                lo + (hi - lo) * t
            }
        })
        .collect();
    // The ends exactly, whatever the rounding of powf.
    out[0] = lo;
    out[count - 1] = hi;
    out
}

/// At most `count` of `values`, the first and the last among them, evenly
/// spread.
fn spread(values: &[f64], count: usize) -> Vec<f64> {
    if values.len() <= count || count < 2 {
        return values.to_vec();
    }
    let last = values.len() - 1;
    (0..count).map(|i| values[i * last / (count - 1)]).collect()
}

/// An error unless every atom gives a time at `at` with `var` at each of
/// `SAMPLES` values from `lo` to `hi`.
pub fn over_span(
    designs: &[&Design],
    at: &[(&str, f64)],
    var: &str,
    lo: f64,
    hi: f64,
) -> Result<(), CliError> {
    over_grid(designs, at, &[(var, samples(lo, hi, SAMPLES))])
}

/// An error unless every atom gives a time at `at` with the axes' variables
/// at every combination of (at most `GRID_SAMPLES` of) their values; one
/// axis alone at up to `SAMPLES` of them.
pub fn over_grid(
    designs: &[&Design],
    at: &[(&str, f64)],
    axes: &[(&str, Vec<f64>)],
) -> Result<(), CliError> {
    let per_axis = if axes.len() == 1 {
        SAMPLES
    } else {
        GRID_SAMPLES
    };
    let chosen: Vec<(&str, Vec<f64>)> = axes
        .iter()
        .map(|(name, values)| (*name, spread(values, per_axis)))
        .collect();
    let mut point: Vec<(&str, f64)> = at
        .iter()
        .copied()
        .filter(|(n, _)| !axes.iter().any(|(a, _)| a == n))
        .collect();
    let fixed = point.len();
    let mut index = vec![0usize; chosen.len()];
    if chosen.iter().any(|(_, v)| v.is_empty()) {
        return at_point(designs, &point);
    }
    loop {
        point.truncate(fixed);
        point.extend(chosen.iter().zip(&index).map(|((n, v), &i)| (*n, v[i])));
        at_point(designs, &point)?;
        // The next combination, the last axis fastest.
        let mut axis = chosen.len();
        loop {
            if axis == 0 {
                return Ok(());
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < chosen[axis].1.len() {
                break;
            }
            index[axis] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design(text: &str) -> Design {
        Design::parse(text).unwrap()
    }

    #[test]
    fn samples_include_the_ends() {
        let s = samples(1.0, 1e6, 7);
        assert_eq!(s.len(), 7);
        assert_eq!((s[0], s[6]), (1.0, 1e6));
        assert!((s[1] - 10.0).abs() < 1e-9);
        assert_eq!(samples(-1.0, 1.0, 3), [-1.0, 0.0, 1.0]);
        assert_eq!(samples(2.0, 2.0, 5), [2.0]);
        assert_eq!(spread(&[1.0, 2.0, 3.0, 4.0, 5.0], 3), [1.0, 3.0, 5.0]);
    }

    #[test]
    fn a_model_negative_at_the_low_end_of_a_span_is_found() {
        let q = design("q = 1033.89*x*log2(x) - 21815.2; tpool[2](q)");
        let e = over_span(&[&q], &[], "x", 1.0, 1e7).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the model of `q` gives -21815.2 ns at x = 1"),
            "{e}"
        );
        assert!(over_span(&[&q], &[], "x", 32.0, 1e7).is_ok());
    }

    #[test]
    fn every_combination_of_a_grid_is_checked() {
        let d = design("a = x - y; a");
        let axes = [("x", vec![1.0, 5.0, 9.0]), ("y", vec![0.0, 4.0])];
        assert!(over_grid(&[&d], &[], &axes[..1]).is_ok());
        let e = over_grid(&[&d], &[("y", 4.0)], &axes).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the model of `a` gives -3 ns at x = 1, y = 4: a time is a finite number >= 0"
        );
        let fine = [("x", vec![4.0, 9.0]), ("y", vec![0.0, 4.0])];
        assert!(over_grid(&[&d], &[], &fine).is_ok());
    }
}
