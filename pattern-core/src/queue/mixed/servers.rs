//! A `c`-server station that closed and open classes share, exactly.
//!
//! In product form the station with `m` closed jobs and `o` open ones
//! weighs `(m + o)!/Π_{j ≤ m+o} α(j) · U^o/o!` (times the closed classes'
//! own factors), `α(j) = min(j, c)`, `U` the servers the open classes keep
//! busy. Summing the open jobs out leaves the closed classes a
//! load-dependent station of rate `α̃(m) = α(m)·T(m − 1)/T(m)`, with
//! `T(m) = Σ_o C(m + o, o)·U^o / Π_{j=m+1}^{m+o} α(j)`. From `m = c − 1`
//! on, `T(m) = (1 − ρ)^−(m+1)` (`ρ = U/c`), so `α̃(m) = c·(1 − ρ)` from `c`
//! on; below, the open jobs that fit under `c − 1 − m` free servers sum to
//! `U^o/o!` and the rest to a finite sum (Vandermonde):
//! `T(m) = Σ_{o<o*} U^o/o! + m!/(c − 1)!·U^{o*}·Σ_{i≤m} C(c − 1, m − i)·ρ^i/(1 − ρ)^{i+1}`,
//! `o* = c − 1 − m`. Every term is positive and summed in logarithms.

use super::super::normalizing::log_add;

/// `k·ln x`, 0 for `k = 0` (also where `x = 0`).
fn times_ln(k: usize, ln: f64) -> f64 {
    if k == 0 { 0.0 } else { k as f64 * ln }
}

/// `ln T(m)` for `m = 0..=c − 1`, `c ≥ 2`, `0 < U < c`, in `O(c)`.
///
/// With `q = ρ/(1 − ρ)` the finite sum is `S(m)/(1 − ρ)`, where
/// `S(m) = Σ_{k≤m} C(c − 1, k)·q^{m−k}` obeys `S(m) = q·S(m − 1) + C(c − 1, m)`;
/// the head is a prefix of the exponential series, summed once for all `m`.
fn ln_t(c: usize, u: f64) -> Vec<f64> {
    let ln_fact: Vec<f64> = (0..c)
        .scan(0.0, |acc, k| {
            if k > 0 {
                *acc += (k as f64).ln();
            }
            Some(*acc)
        })
        .collect();
    let rho = u / c as f64;
    let (ln_u, ln_free) = (u.ln(), (-rho).ln_1p());
    let ln_q = rho.ln() - ln_free;
    // head[k] = ln Σ_{o<k} U^o/o!
    let mut head = Vec::with_capacity(c);
    head.push(f64::NEG_INFINITY);
    for o in 0..c - 1 {
        head.push(log_add(head[o], times_ln(o, ln_u) - ln_fact[o]));
    }
    let mut out = Vec::with_capacity(c);
    let mut ln_s = f64::NEG_INFINITY;
    for m in 0..c - 1 {
        let first = c - 1 - m;
        let ln_binom = ln_fact[c - 1] - ln_fact[m] - ln_fact[first];
        ln_s = log_add(ln_q + ln_s, ln_binom);
        let b = ln_fact[m] - ln_fact[c - 1] + times_ln(first, ln_u) + ln_s - ln_free;
        out.push(log_add(head[first], b));
    }
    out.push(-(c as f64) * ln_free);
    out
}

/// `α̃(n)` for `n = 1, 2, …`: the rate the closed classes see at a
/// `c`-server station (`c ≥ 2`) kept `u` busy by open classes
/// (`0 <= u < c`).
pub(super) fn effective_rate(c: usize, u: f64) -> impl Fn(usize) -> f64 + Send + Sync + 'static {
    let rho = u / c as f64;
    let below: Vec<f64> = if u > 0.0 {
        let t = ln_t(c, u);
        (1..c).map(|m| m as f64 * (t[m - 1] - t[m]).exp()).collect()
    } else {
        (1..c).map(|m| m as f64).collect()
    };
    let tail = c as f64 * (1.0 - rho);
    move |n: usize| match n.checked_sub(1).and_then(|i| below.get(i)) {
        Some(a) => *a,
        None => tail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `T(m)` by its series, summed until the terms vanish.
    fn series(c: usize, u: f64, m: usize) -> f64 {
        let (mut t, mut sum) = (1.0f64, 1.0f64);
        for o in 1..200_000 {
            t *= (m + o) as f64 / o as f64 * u / (m + o).min(c) as f64;
            sum += t;
            if t < 1e-18 * sum && o > c {
                break;
            }
        }
        sum
    }

    #[test]
    fn the_rates_are_the_series_ratios() {
        for (c, u) in [(2, 0.7), (3, 2.5), (5, 1.0), (8, 7.2), (4, 1e-9)] {
            let alpha = effective_rate(c, u);
            for m in 1..=c + 2 {
                let want = m.min(c) as f64 * series(c, u, m - 1) / series(c, u, m);
                let got = alpha(m);
                assert!(
                    (got / want - 1.0).abs() < 1e-11,
                    "c={c} u={u} m={m}: {got} {want}"
                );
            }
        }
        // No open load: the station as it is.
        let plain = effective_rate(3, 0.0);
        assert_eq!(
            (plain(1), plain(2), plain(3), plain(9)),
            (1.0, 2.0, 3.0, 3.0)
        );
        // Many servers, heavily loaded: finite and positive.
        let big = effective_rate(400, 399.0);
        assert!((1..500).all(|n| big(n).is_finite() && big(n) > 0.0));
    }

    /// `ln T(m)` by its series in logarithms (no overflow at many servers).
    fn ln_series(c: usize, u: f64, m: usize) -> f64 {
        let (mut t, mut sum) = (0.0f64, 0.0f64);
        for o in 1..10 * c {
            t += ((m + o) as f64 / o as f64 * u / (m + o).min(c) as f64).ln();
            sum = log_add(sum, t);
            if t < sum - 40.0 && o > c {
                break;
            }
        }
        sum
    }

    #[test]
    fn a_hundred_thousand_servers() {
        let c = 100_000;
        // Half busy with open work: the series at both ends and the middle.
        let alpha = effective_rate(c, 50_000.0);
        for m in [1, 2, 1_000, 50_000, 99_000, c - 1] {
            let want = m as f64 * (ln_series(c, 50_000.0, m - 1) - ln_series(c, 50_000.0, m)).exp();
            let got = alpha(m);
            assert!((got / want - 1.0).abs() < 1e-9, "m={m}: {got} {want}");
        }
        assert_eq!((alpha(c), alpha(3 * c)), (50_000.0, 50_000.0));
        // Almost no open load: the station as it is, `min(n, c)`.
        let idle = effective_rate(c, 1e-9);
        for n in [1, 2, 77, 50_000, c - 1, c, c + 5] {
            let want = n.min(c) as f64;
            assert!((idle(n) / want - 1.0).abs() < 1e-9, "n={n}: {}", idle(n));
        }
        // Nearly saturated: `c·(1 − ρ)` from `c` on, positive below.
        let busy = effective_rate(c, c as f64 - 0.5);
        assert!((busy(c) - 0.5).abs() < 1e-9 && (busy(c + 1) - 0.5).abs() < 1e-9);
        assert!(
            (1..c)
                .step_by(997)
                .all(|n| busy(n).is_finite() && busy(n) > 0.0)
        );
    }
}
