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

/// The most servers a station both kinds of class visit may have: its
/// rates take `O(c)` time (a 5-job mixed model at this many: 0.5 s in a
/// release build, both its closed solutions).
pub(super) const MAX_SHARED_SERVERS: usize = 10_000_000;

/// `ln T(m)` for `m = 0..=last`, `last ≤ c − 1`, `c ≥ 2`, `0 < U < c`, in
/// `O(c)` time and `O(last)` memory.
///
/// With `q = ρ/(1 − ρ)` the finite sum is `S(m)/(1 − ρ)`, where
/// `S(m) = Σ_{k≤m} C(c − 1, k)·q^{m−k}` obeys `S(m) = q·S(m − 1) + C(c − 1, m)`;
/// the head is a prefix of the exponential series, summed once, of which
/// (and of `ln o!`) only the last `last + 1` lengths are kept.
fn ln_t(c: usize, u: f64, last: usize) -> Vec<f64> {
    let rho = u / c as f64;
    let (ln_u, ln_free) = (u.ln(), (-rho).ln_1p());
    let ln_q = rho.ln() - ln_free;
    let low = c - 1 - last;
    // Indexed by `o − low`: `ln Σ_{i<o} U^i/i!` and `ln o!`; by `m`: `ln m!`.
    let (mut head, mut fact_high, mut fact_low) = (
        Vec::with_capacity(last + 1),
        Vec::with_capacity(last + 1),
        Vec::with_capacity(last + 1),
    );
    let (mut sum, mut ln_fact) = (f64::NEG_INFINITY, 0.0);
    for o in 0..c {
        if o >= low {
            head.push(sum);
            fact_high.push(ln_fact);
        }
        if o <= last {
            fact_low.push(ln_fact);
        }
        sum = log_add(sum, times_ln(o, ln_u) - ln_fact);
        ln_fact += ((o + 1) as f64).ln();
    }
    let ln_fact_c1 = fact_high[last];
    let mut out = Vec::with_capacity(last + 1);
    let mut ln_s = f64::NEG_INFINITY;
    for (m, &ln_m_fact) in fact_low.iter().enumerate().take(last.min(c - 2) + 1) {
        let first = c - 1 - m;
        let ln_binom = ln_fact_c1 - ln_m_fact - fact_high[first - low];
        ln_s = log_add(ln_q + ln_s, ln_binom);
        let b = ln_m_fact - ln_fact_c1 + times_ln(first, ln_u) + ln_s - ln_free;
        out.push(log_add(head[first - low], b));
    }
    if last == c - 1 {
        out.push(-(c as f64) * ln_free);
    }
    out
}

/// `α̃(n)` for `n = 1, 2, …, most` and from `c` on: the rate the closed
/// classes see at a `c`-server station (`2 ≤ c ≤` [`MAX_SHARED_SERVERS`])
/// kept `u` busy by open classes (`0 <= u < c`); NaN between `most` and
/// `c`, never asked (and refused as a rate if it were).
pub(super) fn effective_rate(
    c: usize,
    u: f64,
    most: usize,
) -> impl Fn(usize) -> f64 + Send + Sync + 'static {
    let rho = u / c as f64;
    let last = most.min(c - 1);
    let below: Vec<f64> = if u > 0.0 {
        let t = ln_t(c, u, last);
        (1..=last)
            .map(|m| m as f64 * (t[m - 1] - t[m]).exp())
            .collect()
    } else {
        (1..=last).map(|m| m as f64).collect()
    };
    let tail = c as f64 * (1.0 - rho);
    move |n: usize| match n.checked_sub(1).and_then(|i| below.get(i)) {
        Some(a) => *a,
        None if n >= c => tail,
        None => f64::NAN,
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
            let alpha = effective_rate(c, u, c + 2);
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
        let plain = effective_rate(3, 0.0, 9);
        assert_eq!(
            (plain(1), plain(2), plain(3), plain(9)),
            (1.0, 2.0, 3.0, 3.0)
        );
        // Many servers, heavily loaded: finite and positive.
        let big = effective_rate(400, 399.0, 500);
        assert!((1..500).all(|n| big(n).is_finite() && big(n) > 0.0));
    }

    /// Only the rates up to `most` jobs are computed: the same as all of
    /// them, the tail as ever, nothing between (NaN: a rate is refused).
    #[test]
    fn the_rates_up_to_the_jobs_present() {
        for (c, u, most) in [(50, 31.0, 5), (7, 6.9, 6), (7, 6.9, 2), (1000, 2.5, 1)] {
            let (few, all) = (effective_rate(c, u, most), effective_rate(c, u, c));
            for n in 1..=most {
                assert_eq!(few(n), all(n), "c={c} u={u} n={n}");
            }
            assert_eq!((few(c), few(c + 9)), (all(c), all(c + 9)));
            if most + 1 < c {
                assert!(few(most + 1).is_nan() && few(c - 1).is_nan());
            }
        }
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
        let alpha = effective_rate(c, 50_000.0, c);
        for m in [1, 2, 1_000, 50_000, 99_000, c - 1] {
            let want = m as f64 * (ln_series(c, 50_000.0, m - 1) - ln_series(c, 50_000.0, m)).exp();
            let got = alpha(m);
            assert!((got / want - 1.0).abs() < 1e-9, "m={m}: {got} {want}");
        }
        assert_eq!((alpha(c), alpha(3 * c)), (50_000.0, 50_000.0));
        // Almost no open load: the station as it is, `min(n, c)`.
        let idle = effective_rate(c, 1e-9, c);
        for n in [1, 2, 77, 50_000, c - 1, c, c + 5] {
            let want = n.min(c) as f64;
            assert!((idle(n) / want - 1.0).abs() < 1e-9, "n={n}: {}", idle(n));
        }
        // Nearly saturated: `c·(1 − ρ)` from `c` on, positive below.
        let busy = effective_rate(c, c as f64 - 0.5, c);
        assert!((busy(c) - 0.5).abs() < 1e-9 && (busy(c + 1) - 0.5).abs() < 1e-9);
        assert!(
            (1..c)
                .step_by(997)
                .all(|n| busy(n).is_finite() && busy(n) > 0.0)
        );
    }
}
