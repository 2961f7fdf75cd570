//! How many cores were busy over time, in bounded memory: busy core-time
//! summed into bins that double in width whenever the run outgrows them,
//! so that a run of any length keeps at most [`BINS`] numbers.

/// The most bins kept; past them, neighbours merge and the width doubles.
pub(crate) const BINS: usize = 4096;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BusyHistory {
    /// Busy core-ns in `[i·width, (i + 1)·width)`.
    bins: Vec<f64>,
    width: f64,
    busy: usize,
    since: f64,
    /// The bin `since` falls in and its end (`f64::NEG_INFINITY` before the
    /// first change: no fast path yet).
    bin: usize,
    bin_end: f64,
}

impl BusyHistory {
    /// Bins of `width` ns to start with (they widen as the run grows).
    pub(crate) fn new(width: f64) -> BusyHistory {
        BusyHistory {
            bins: Vec::new(),
            width,
            busy: 0,
            since: 0.0,
            bin: 0,
            bin_end: f64::NEG_INFINITY,
        }
    }

    /// From `now` on, `busy` cores are busy.
    pub(crate) fn set(&mut self, now: f64, busy: usize) {
        if busy == self.busy {
            return;
        }
        self.spread(now);
        self.busy = busy;
    }

    /// Adds the busy core-time from `self.since` to `now` to the bins it
    /// covers.
    #[inline]
    fn spread(&mut self, now: f64) {
        // Most changes fall in the bin of the last: added there at once.
        if self.since < now && now < self.bin_end && self.bin < self.bins.len() {
            self.bins[self.bin] += self.busy as f64 * (now - self.since);
            self.since = now;
        } else {
            self.spread_over(now);
        }
    }

    /// [`BusyHistory::spread`] over any bins.
    #[cold]
    fn spread_over(&mut self, now: f64) {
        if now <= self.since {
            return;
        }
        while now > self.width * BINS as f64 {
            self.widen();
        }
        if self.busy > 0 {
            let cores = self.busy as f64;
            let (mut t, mut i) = (self.since, (self.since / self.width) as usize);
            while t < now {
                let end = ((i + 1) as f64 * self.width).min(now);
                if end > t {
                    if self.bins.len() <= i {
                        self.bins.resize(i + 1, 0.0);
                    }
                    self.bins[i] += cores * (end - t);
                    t = end;
                }
                i += 1;
            }
        }
        self.since = now;
        self.locate();
    }

    /// The bin `since` falls in, and where it ends.
    fn locate(&mut self) {
        self.bin = (self.since / self.width) as usize;
        self.bin_end = (self.bin + 1) as f64 * self.width;
    }

    fn widen(&mut self) {
        self.bins = self.bins.chunks(2).map(|pair| pair.iter().sum()).collect();
        self.width *= 2.0;
        self.locate();
    }

    /// Closes the history at the end of the run.
    pub(crate) fn finish(&mut self, end: f64) {
        self.spread(end);
    }

    /// Busy core-time per window of `window` ns over `[0, end)`, a bin that
    /// straddles two windows split in proportion (exact when `window` is a
    /// multiple of the bins' width).
    pub(crate) fn windows(&self, window: f64, end: f64) -> Vec<(f64, f64)> {
        let mut count = ((end / window).ceil() as usize).max(1);
        if (count - 1) as f64 * window >= end {
            count -= 1;
        }
        let mut out = vec![0.0; count];
        for (i, &busy) in self.bins.iter().enumerate() {
            // The run ends inside the last bin: its time lies before `end`.
            let (b0, b1) = (
                i as f64 * self.width,
                ((i + 1) as f64 * self.width).min(end),
            );
            if b1 <= b0 {
                continue;
            }
            let mut w = (b0 / window) as usize;
            while w < count {
                let (w0, w1) = (w as f64 * window, (w + 1) as f64 * window);
                let overlap = b1.min(w1) - b0.max(w0);
                if overlap > 0.0 {
                    out[w] += busy * overlap / (b1 - b0);
                }
                if w1 >= b1 {
                    break;
                }
                w += 1;
            }
        }
        (0..count)
            .map(|w| {
                let start = w as f64 * window;
                (start, out[w])
            })
            .collect()
    }
}
