//! Closed intervals of `f64` with outward rounding: every operation's
//! result contains the exact result for every choice of operands in the
//! operands' intervals, so an enclosure that excludes 0 proves there is no
//! root. An operation outside its domain (the logarithm of an interval
//! reaching 0, the reciprocal of one containing 0) gives the [`Interval::ENTIRE`]
//! line or, where no real value exists at all, an interval with NaN bounds,
//! which excludes nothing.

/// `[lo, hi]`, `lo <= hi` (or NaN bounds: no information).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// Units in the last place a result is widened by: arithmetic is correctly
/// rounded (one would do); the library's `ln`, `log2`, `powf` and `exp`
/// are within a few.
const ULPS_ARITHMETIC: u32 = 1;
const ULPS_LIBM: u32 = 4;

fn next_up(v: f64) -> f64 {
    if v.is_nan() || v == f64::INFINITY {
        return v;
    }
    if v == 0.0 {
        return f64::from_bits(1);
    }
    let bits = v.to_bits();
    f64::from_bits(if v > 0.0 { bits + 1 } else { bits - 1 })
}

fn next_down(v: f64) -> f64 {
    -next_up(-v)
}

impl Interval {
    /// The whole real line: nothing known.
    pub const ENTIRE: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    /// `[0, 0]`.
    pub const ZERO: Interval = Interval { lo: 0.0, hi: 0.0 };

    /// The point `[v, v]`.
    pub fn point(v: f64) -> Interval {
        Interval { lo: v, hi: v }
    }

    /// `[lo, hi]` widened by `ulps` units in the last place each way.
    fn widened(lo: f64, hi: f64, ulps: u32) -> Interval {
        if lo.is_nan() || hi.is_nan() {
            return Interval {
                lo: f64::NAN,
                hi: f64::NAN,
            };
        }
        let (mut lo, mut hi) = (lo, hi);
        for _ in 0..ulps {
            lo = next_down(lo);
            hi = next_up(hi);
        }
        Interval { lo, hi }
    }

    /// Whether the interval has NaN bounds (no information).
    pub fn is_nan(self) -> bool {
        self.lo.is_nan() || self.hi.is_nan()
    }

    /// Whether 0 may lie in the interval (always, without information).
    pub fn contains_zero(self) -> bool {
        self.is_nan() || (self.lo <= 0.0 && self.hi >= 0.0)
    }

    /// The largest absolute value.
    pub fn magnitude(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// The intersection of two enclosures of the same quantity (either
    /// one when the other has no information).
    pub fn intersect(self, other: Interval) -> Interval {
        if self.is_nan() {
            return other;
        }
        if other.is_nan() {
            return self;
        }
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        // Rounding cannot make two enclosures of one value disjoint; keep
        // the tighter one if it happens anyway.
        if lo <= hi { Interval { lo, hi } } else { self }
    }

    /// The smallest interval containing both.
    pub fn hull(self, other: Interval) -> Interval {
        if self.is_nan() || other.is_nan() {
            return Interval::ENTIRE;
        }
        Interval {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    pub fn add(self, other: Interval) -> Interval {
        // Adding an exact zero is exact: constants keep zero derivatives.
        if other == Interval::ZERO {
            return self;
        }
        if self == Interval::ZERO {
            return other;
        }
        Interval::widened(self.lo + other.lo, self.hi + other.hi, ULPS_ARITHMETIC)
    }

    pub fn neg(self) -> Interval {
        Interval {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    pub fn sub(self, other: Interval) -> Interval {
        self.add(other.neg())
    }

    pub fn mul(self, other: Interval) -> Interval {
        if self == Interval::ZERO || other == Interval::ZERO {
            return Interval::ZERO;
        }
        // 0·∞ is 0 here: a bound at infinity stands for "any large value".
        let product = |a: f64, b: f64| if a == 0.0 || b == 0.0 { 0.0 } else { a * b };
        let candidates = [
            product(self.lo, other.lo),
            product(self.lo, other.hi),
            product(self.hi, other.lo),
            product(self.hi, other.hi),
        ];
        let lo = candidates.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = candidates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval::widened(lo, hi, ULPS_ARITHMETIC)
    }

    /// `self²`, never negative (tighter than `self·self`).
    pub fn square(self) -> Interval {
        let (a, b) = (self.lo.abs(), self.hi.abs());
        let top = a.max(b);
        let bottom = if self.contains_zero() { 0.0 } else { a.min(b) };
        let w = Interval::widened(bottom * bottom, top * top, ULPS_ARITHMETIC);
        Interval {
            lo: w.lo.max(0.0),
            hi: w.hi,
        }
    }

    /// `1/self`: the whole line when the interval contains 0.
    pub fn recip(self) -> Interval {
        if self.contains_zero() {
            return Interval::ENTIRE;
        }
        Interval::widened(1.0 / self.hi, 1.0 / self.lo, ULPS_ARITHMETIC)
    }

    /// `self^n` for an integer `n`.
    pub fn powi(self, n: i32) -> Interval {
        if n == 0 {
            return Interval::point(1.0);
        }
        if n < 0 {
            return self.powi(n.checked_neg().unwrap_or(i32::MAX)).recip();
        }
        // powi's repeated products round up to n times.
        let ulps = ULPS_LIBM + n.unsigned_abs().min(64);
        if n % 2 == 0 {
            let (a, b) = (self.lo.abs(), self.hi.abs());
            let top = a.max(b).powi(n);
            let bottom = if self.contains_zero() {
                0.0
            } else {
                a.min(b).powi(n)
            };
            let w = Interval::widened(bottom, top, ulps);
            Interval {
                lo: w.lo.max(0.0),
                hi: w.hi,
            }
        } else {
            Interval::widened(self.lo.powi(n), self.hi.powi(n), ulps)
        }
    }

    /// `self^k` for a real `k`: defined for non-negative bases only.
    pub fn powf(self, k: f64) -> Interval {
        if self.lo < 0.0 || self.is_nan() {
            return Interval {
                lo: f64::NAN,
                hi: f64::NAN,
            };
        }
        let (a, b) = (self.lo.powf(k), self.hi.powf(k));
        let w = Interval::widened(a.min(b), a.max(b), ULPS_LIBM);
        Interval {
            lo: w.lo.max(0.0),
            hi: w.hi,
        }
    }

    /// A monotone increasing function of positive arguments, applied to the
    /// bounds; NaN bounds where the interval reaches 0 or below.
    fn increasing_on_positive(self, f: fn(f64) -> f64) -> Interval {
        if self.lo > 0.0 {
            Interval::widened(f(self.lo), f(self.hi), ULPS_LIBM)
        } else {
            Interval {
                lo: f64::NAN,
                hi: f64::NAN,
            }
        }
    }

    pub fn ln(self) -> Interval {
        self.increasing_on_positive(f64::ln)
    }

    pub fn log2(self) -> Interval {
        self.increasing_on_positive(f64::log2)
    }

    pub fn sqrt(self) -> Interval {
        if self.lo < 0.0 || self.is_nan() {
            return Interval {
                lo: f64::NAN,
                hi: f64::NAN,
            };
        }
        let w = Interval::widened(self.lo.sqrt(), self.hi.sqrt(), ULPS_LIBM);
        Interval {
            lo: w.lo.max(0.0),
            hi: w.hi,
        }
    }

    pub fn exp(self) -> Interval {
        let w = Interval::widened(self.lo.exp(), self.hi.exp(), ULPS_LIBM);
        Interval {
            lo: w.lo.max(0.0),
            hi: w.hi,
        }
    }

    pub fn ceil(self) -> Interval {
        Interval {
            lo: self.lo.ceil(),
            hi: self.hi.ceil(),
        }
    }

    pub fn floor(self) -> Interval {
        Interval {
            lo: self.lo.floor(),
            hi: self.hi.floor(),
        }
    }

    pub fn max(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.max(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    pub fn min(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.min(other.lo),
            hi: self.hi.min(other.hi),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_encloses_every_combination() {
        let a = Interval { lo: -2.0, hi: 3.0 };
        let b = Interval { lo: 0.5, hi: 4.0 };
        let p = a.mul(b);
        assert!(p.lo <= -8.0 && p.hi >= 12.0 && p.lo > -8.1 && p.hi < 12.1);
        let s = a.square();
        assert!(s.lo == 0.0 && s.hi >= 9.0);
        assert_eq!(a.recip(), Interval::ENTIRE);
        let r = b.recip();
        assert!(r.lo <= 0.25 && r.hi >= 2.0);
        let q = a.powi(3);
        assert!(q.lo <= -8.0 && q.hi >= 27.0);
        let e = a.powi(2);
        assert!(e.lo == 0.0 && e.hi >= 9.0);
    }

    #[test]
    fn logarithms_need_positive_arguments() {
        assert!(Interval { lo: 0.0, hi: 1.0 }.log2().is_nan());
        let l = Interval { lo: 2.0, hi: 8.0 }.log2();
        assert!(l.lo <= 1.0 && l.hi >= 3.0 && l.lo > 0.99);
        assert!(Interval { lo: -1.0, hi: 1.0 }.sqrt().is_nan());
        assert!(Interval { lo: -1.0, hi: 1.0 }.contains_zero());
    }

    #[test]
    fn zero_times_infinity_is_zero() {
        assert_eq!(Interval::ZERO.mul(Interval::ENTIRE), Interval::ZERO);
        let m = Interval { lo: 0.0, hi: 1.0 }.mul(Interval::ENTIRE);
        assert_eq!(m, Interval::ENTIRE);
    }
}
