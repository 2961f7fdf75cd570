//! The exact sum of floats (Shewchuk's error-free expansions, as Python's
//! `math.fsum`): the fuzz checker's test of whether a sum that evaluates to
//! 0 truly cancels or only rounded a small term away (`x - 1e-134 - x`).

/// The sign of the exact sum of `values`: `Some(1.0)`, `Some(-1.0)`, or
/// `Some(0.0)` when it is exactly zero; `None` when a partial sum leaves
/// `f64` (no exact expansion then).
pub fn exact_sum_sign(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    // Non-overlapping partials in increasing magnitude whose exact sum is
    // that of the values so far.
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        if !x.is_finite() {
            return None;
        }
        let mut kept = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            // TwoSum with |x| >= |y|: hi + lo == x + y exactly.
            let hi = x + y;
            if !hi.is_finite() {
                return None;
            }
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        partials.push(x);
    }
    // The largest nonzero partial outweighs all the smaller ones together.
    let top = partials.iter().rev().find(|p| **p != 0.0);
    Some(top.map_or(0.0, |p| p.signum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_sum_keeps_what_rounding_drops() {
        assert_eq!(exact_sum_sign([800.6, -1e-134, -800.6]), Some(-1.0));
        assert_eq!(exact_sum_sign([1.0, 1e-300, -1.0]), Some(1.0));
        assert_eq!(exact_sum_sign([1e100, 1.0, -1e100, -1.0]), Some(0.0));
        assert_eq!(exact_sum_sign([0.1, 0.2, -0.3]), Some(1.0));
        assert_eq!(exact_sum_sign([3.0, -3.0]), Some(0.0));
        assert_eq!(exact_sum_sign([]), Some(0.0));
        assert_eq!(exact_sum_sign([f64::MAX, f64::MAX]), None);
    }
}
