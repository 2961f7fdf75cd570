//! What a stream run measures in bounded memory: latencies in a histogram
//! of 1 % buckets, and exit times fitted by a least-squares line.

/// Latencies in buckets 1 % wide (relative), for percentiles in bounded
/// memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LatencyHistogram {
    zero: u64,
    buckets: Vec<u64>,
    count: u64,
}

const BUCKET: f64 = 0.01;
/// Buckets up to the largest finite latency: `ln(f64::MAX / 1e-3) /
/// ln(1.01)` is about 72,030.
const MAX_BUCKETS: usize = 72_100;

impl LatencyHistogram {
    pub(crate) fn add(&mut self, latency: f64) {
        self.count += 1;
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

    /// The `p`-th percentile (0 to 100), to within 1 %.
    pub(crate) fn percentile(&self, p: f64) -> Option<f64> {
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
