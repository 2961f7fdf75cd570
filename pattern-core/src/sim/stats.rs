//! What a stream run measures in bounded memory: latencies in a histogram
//! of 1 % buckets, and the slope of exit times against exit ranks — exact
//! for a run whose exits repeat (the lower convex hull's middle edge), or
//! a least-squares line through random ones.

/// Latencies in buckets 1 % wide (relative), for percentiles in bounded
/// memory, and the least and greatest exactly: a percentile is never
/// outside them (a run whose elements all take 1648 ns reports 1648, not
/// its bucket's middle below it).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LatencyHistogram {
    zero: u64,
    buckets: Vec<u64>,
    count: u64,
    range: Option<(f64, f64)>,
    /// The latencies' sum, for their mean.
    sum: f64,
}

const BUCKET: f64 = 0.01;
/// Buckets up to the largest finite latency: `ln(f64::MAX / 1e-3) /
/// ln(1.01)` is about 72,030.
const MAX_BUCKETS: usize = 72_100;

impl LatencyHistogram {
    pub(crate) fn add(&mut self, latency: f64) {
        self.count += 1;
        self.sum += latency;
        let (least, most) = self.range.get_or_insert((latency, latency));
        *least = least.min(latency);
        *most = most.max(latency);
        if latency < 1e-3 {
            self.zero += 1;
            return;
        }
        // Bucket i holds [1e-3·1.01^i, 1e-3·1.01^(i+1)); logarithms apart,
        // since latency / 1e-3 overflows above 1.8e305.
        let i = (latency.ln() - 1e-3f64.ln()) / BUCKET.ln_1p();
        let i = if i.is_finite() {
            (i as usize).min(MAX_BUCKETS - 1)
        } else {
            MAX_BUCKETS - 1
        };
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, 0);
        }
        self.buckets[i] += 1;
    }

    /// The mean latency, exactly (but for the rounding of the sum).
    pub(crate) fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// The `p`-th percentile (0 to 100), to within 1 %, and within the
    /// least and greatest latency.
    pub(crate) fn percentile(&self, p: f64) -> Option<f64> {
        let (least, most) = self.range?;
        self.bucket_percentile(p).map(|v| v.clamp(least, most))
    }

    /// The middle of the bucket of the `p`-th percentile.
    fn bucket_percentile(&self, p: f64) -> Option<f64> {
        if self.count == 0 || !(0.0..=100.0).contains(&p) {
            return None;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        if rank <= self.zero {
            return Some(0.0);
        }
        let mut seen = self.zero;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                // The bucket's middle.
                return Some(1e-3 * ((i as f64 + 0.5) * BUCKET.ln_1p()).exp());
            }
        }
        None
    }
}

/// The slope of a least-squares line through points added one at a time,
/// in constant memory: exits come in bursts where a pool's workers finish
/// together, and a slope through all of them does not depend on where the
/// measured stretch starts in a burst.
#[derive(Default)]
pub(crate) struct Slope {
    n: f64,
    origin: Option<f64>,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
}

impl Slope {
    pub(crate) fn add(&mut self, x: f64, y: f64) {
        let y = y - *self.origin.get_or_insert(y);
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
    }

    pub(crate) fn slope(&self) -> Option<f64> {
        let d = self.n * self.sxx - self.sx * self.sx;
        (self.n >= 2.0 && d > 0.0).then(|| (self.n * self.sxy - self.sx * self.sy) / d)
    }
}

/// The exits over which the steady state is measured: the middle half
/// (fill and drain left out).
pub(crate) fn marks(elements: usize) -> (usize, usize) {
    (elements / 4 + 1, elements - elements / 4)
}

/// The most vertices a [`Hull`] keeps; past them every other inner one
/// goes (only exits far from a line grow it: never a steady run's).
const HULL_POINTS: usize = 4096;

/// The lower convex hull of points added in increasing `x`, for the slope
/// of exits that repeat. In a steady state of durations that do not vary,
/// exits repeat with a period of `K` elements and `K·T` ns (a pool's
/// workers end in bursts, stages in a fixed order): the points of one
/// phase of the period lie on a line of slope `T`, every other point above
/// it. The hull follows that line between its first and last points, so
/// its edge over the middle of a window of more than `2·K` exits has slope
/// `T` exactly, where a least-squares line through the bursts is off by up
/// to their size over the window.
#[derive(Default)]
pub(crate) struct Hull {
    points: Vec<(f64, f64)>,
    first: Option<f64>,
    last: f64,
}

impl Hull {
    pub(crate) fn add(&mut self, x: f64, y: f64) {
        self.first.get_or_insert(x);
        self.last = x;
        while let [.., a, b] = self.points[..] {
            // Pop b unless a, b, (x, y) turn left (b strictly below).
            if (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0) > 0.0 {
                break;
            }
            self.points.pop();
        }
        self.points.push((x, y));
        if self.points.len() > HULL_POINTS {
            let last = self.points.len() - 1;
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i == 1 || i - 1 == last || (i - 1) % 2 == 0
            });
        }
    }

    /// The slope of the edge over the middle of the points added.
    pub(crate) fn slope(&self) -> Option<f64> {
        let middle = (self.first? + self.last) / 2.0;
        let edge = self.points.windows(2).find(|w| w[1].0 >= middle)?;
        let (a, b) = (edge[0], edge[1]);
        Some((b.1 - a.1) / (b.0 - a.0))
    }
}

/// The slope of exit times against their ranks over the measured window:
/// the [`Hull`]'s where durations do not vary, a least-squares line's
/// where they do (a hull through random points follows their extremes).
pub(crate) enum Fit {
    Hull(Hull),
    Line(Slope),
}

impl Fit {
    /// A fit for durations that vary (`random`) or not.
    pub(crate) fn new(random: bool) -> Fit {
        if random {
            Fit::Line(Slope::default())
        } else {
            Fit::Hull(Hull::default())
        }
    }

    pub(crate) fn add(&mut self, x: f64, y: f64) {
        match self {
            Fit::Hull(h) => h.add(x, y),
            Fit::Line(l) => l.add(x, y),
        }
    }

    pub(crate) fn slope(&self) -> Option<f64> {
        match self {
            Fit::Hull(h) => h.slope(),
            Fit::Line(l) => l.slope(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Percentiles stay within the latencies seen: equal latencies report
    /// exactly (a bucket's middle would be 0.15 % below 1648).
    #[test]
    fn percentiles_stay_within_the_latencies_seen() {
        let mut h = LatencyHistogram::default();
        assert_eq!(h.percentile(50.0), None);
        assert_eq!(h.mean(), None);
        for _ in 0..10 {
            h.add(1648.0);
        }
        assert!(h.bucket_percentile(50.0).unwrap() < 1648.0);
        for p in [0.0, 50.0, 99.0, 100.0] {
            assert_eq!(h.percentile(p), Some(1648.0), "p{p}");
        }
        // Spread latencies keep the buckets' answer (to 1 %) inside the range.
        let mut h = LatencyHistogram::default();
        for l in 1..=1000 {
            h.add(f64::from(l));
        }
        let median = h.percentile(50.0).unwrap();
        assert!((median / 500.0 - 1.0).abs() < 0.01, "{median}");
        assert_eq!(h.percentile(100.0), Some(1000.0));
        assert_eq!(h.mean(), Some(500.5));
        let least = h.percentile(0.0).unwrap();
        assert!((1.0..1.01).contains(&least), "{least}");
        assert_eq!(h.percentile(101.0), None);
    }

    #[test]
    fn the_hulls_middle_edge_is_a_bursts_exact_slope() {
        // Bursts of 12 exits at once every 48 ns (12 workers, 4 cores):
        // 4 ns per element. A least-squares line is off by 1.6e-5.
        let mut hull = Hull::default();
        let mut line = Slope::default();
        for r in 1001..=3000usize {
            let t = 48.0 * (r / 12 + 1) as f64;
            hull.add((r - 1001) as f64, t);
            line.add((r - 1001) as f64, t);
        }
        assert_eq!(hull.slope(), Some(4.0));
        let off = line.slope().unwrap() / 4.0 - 1.0;
        assert!(off < -1e-6, "{off}");
        // Two interleaved workers: exits at 0, 1, 10, 11, 20, ...: 5 ns each.
        let mut hull = Hull::default();
        for r in 0..101usize {
            hull.add(r as f64, (10 * (r / 2) + r % 2) as f64);
        }
        assert_eq!(hull.slope(), Some(5.0));
    }
}
