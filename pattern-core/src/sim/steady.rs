//! Whether a design's run reached a steady state, so that the slope of its
//! exits is its time per element.
//!
//! The slope is measured over the middle half of the exits: from exit
//! `⌊E/4⌋ + 1` to exit `E − ⌊E/4⌋` of `E` elements. At most `F` elements
//! are in flight at once, `F` the design's threads (each holds one) plus
//! its buffers' places. The window starts after the fill when `⌊E/4⌋ ≥ F +
//! 1`: more elements have left by then than the design can hold, so its
//! whole content has turned over since the start. It ends before the drain
//! under the same condition: at exit `E − ⌊E/4⌋` at most `E − ⌊E/4⌋ + F <
//! E` elements have entered, so the source still holds elements and the
//! first stage still works. Hence a run is long enough with `E ≥ 4·(F +
//! 1)` elements. And since no run beats the capacity bound, a slope below
//! it (by more than rounding, 1e-9) measured something else than a steady
//! state (a pool draining at once, say) and the run is not steady either.
//!
//! Fed at a rate ([`Simulation::arrivals`]), the source may be empty at
//! times, and the slope, a least-squares line's through exits that come
//! at random, is the mean gap between departures: the arrivals' when the
//! design keeps up, the design's capacity when it does not.
//!
//! [`Simulation::arrivals`]: super::Simulation::arrivals

/// Whether a design's run reached a steady state ([`SimResult::steady_state`]).
///
/// [`SimResult::steady_state`]: super::SimResult::steady_state
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyState {
    /// Whether the run was steady: long enough (`elements_needed` or more)
    /// and its slope not below the bound.
    pub steady: bool,
    /// The most elements in flight at once: the design's threads plus its
    /// buffers' places.
    pub in_flight: usize,
    /// The elements a run needs for its measured window to start after the
    /// fill and end before the drain: `4 × (in_flight + 1)`.
    pub elements_needed: usize,
    /// The slope of the exits over the window, in ns per element (NaN
    /// when the window holds too few exits).
    pub slope: f64,
    /// The capacity bound: no run of the design on the machine takes less
    /// per element.
    pub bound: f64,
}

/// Relative rounding allowed between a slope and the bound.
const ROUNDING: f64 = 1e-9;

impl SteadyState {
    /// The verdict on a run of `elements` with `in_flight` elements at
    /// most, whose window's slope is `slope`.
    pub(crate) fn judge(
        elements: usize,
        in_flight: usize,
        slope: Option<f64>,
        bound: f64,
    ) -> SteadyState {
        let elements_needed = in_flight.saturating_add(1).saturating_mul(4);
        let slope = slope.unwrap_or(f64::NAN);
        SteadyState {
            // A slope beyond `f64` (exits near 1e305 ns, their squares
            // overflowing in the fit) measures nothing.
            steady: elements >= elements_needed
                && slope.is_finite()
                && slope >= bound * (1.0 - ROUNDING),
            in_flight,
            elements_needed,
            slope,
            bound,
        }
    }

    /// The time per element to report for a run of `elements` that took
    /// `makespan`: the slope when steady, else the makespan per element
    /// (fill and drain included), which no run makes smaller than the
    /// bound.
    pub(crate) fn time_per_element(&self, makespan: f64, elements: usize) -> f64 {
        if self.steady {
            self.slope
        } else {
            makespan / elements as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_steady_when_long_enough_and_not_below_the_bound() {
        // 5 in flight: 24 elements needed (⌊24/4⌋ = 6 = 5 + 1).
        let s = SteadyState::judge(24, 5, Some(10.0), 10.0);
        assert!(s.steady);
        assert_eq!(s.elements_needed, 24);
        assert!(!SteadyState::judge(23, 5, Some(10.0), 10.0).steady);
        assert!(!SteadyState::judge(24, 5, Some(9.99), 10.0).steady);
        assert!(!SteadyState::judge(24, 5, Some(f64::INFINITY), 10.0).steady);
        assert!(!SteadyState::judge(24, 5, None, 10.0).steady);
        // Not steady: the makespan per element.
        assert_eq!(
            SteadyState::judge(23, 5, Some(10.0), 10.0).time_per_element(460.0, 23),
            20.0
        );
        // Counts never overflow.
        assert_eq!(
            SteadyState::judge(1, usize::MAX, None, 0.0).elements_needed,
            usize::MAX
        );
    }
}
