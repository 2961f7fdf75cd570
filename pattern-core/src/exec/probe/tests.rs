//! A probe's options and statistic. Probes themselves are tested in their
//! own process (`pattern-core/tests/probe.rs`): their busy threads, pinned,
//! take a core from the other unit tests' threads, and the CPU clock's
//! test counts how long its thread waits for a core.

use super::threads::Sampled;
use super::*;

#[test]
fn out_of_range_samples_are_an_error() {
    for n in [0, MAX_SAMPLES + 1] {
        let e = measure(&Options::new().samples(n)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid option: samples({n}): a probe takes 1 to 100000 samples")
        );
    }
}

#[test]
fn parts_read_by_their_keys() {
    for p in Part::ALL {
        assert_eq!(p.key().parse::<Part>(), Ok(p));
        assert_eq!(p.to_string(), p.key());
    }
    assert_eq!("handoff".parse::<Part>(), Ok(Part::Handoff));
    assert_eq!(" waker_cost ".parse::<Part>(), Ok(Part::WakerCost));
    let e = "handof".parse::<Part>().unwrap_err();
    assert_eq!(
        e,
        "`handof` is not a quantity a probe measures: one of wake_latency_ns, spin_ns, \
         wake_cost_ns, waker_cost_ns, handoff_ns, take_ns"
    );
}

#[test]
fn a_median_is_the_middle_sample() {
    let s = Sampled::of(vec![3.0, f64::NAN, 1.0, 2.0]).unwrap();
    assert_eq!((s.median, s.samples), (2.0, 3));
    // Of an even count, the upper middle one.
    assert_eq!(Sampled::of(vec![4.0, 1.0, 3.0, 2.0]).unwrap().median, 3.0);
    assert_eq!(Sampled::of(vec![-5.0]).unwrap().median, 0.0);
    assert_eq!(
        Sampled::of(vec![f64::INFINITY]),
        Err("no sample could be taken".into())
    );
}

#[test]
fn the_options_count_samples_as_documented() {
    assert_eq!(handoff::runs(400), (16, 50_000));
    assert_eq!(handoff::runs(20), (1, 2_500));
    assert_eq!(handoff::runs(1), (1, 2_000));
    assert_eq!((waker::pairs(400), waker::pairs(20)), (8, 3));
    assert_eq!(Options::default(), Options::new());
    assert_eq!(Options::quick().sample_count(), 20);
    let w = wake::slow_pause(Some(3e6));
    assert_eq!(w, std::time::Duration::from_millis(6));
    assert_eq!(wake::slow_pause(None), wake::SLOW_PAUSE);
    assert_eq!(
        wake::slow_pause(Some(1e12)),
        std::time::Duration::from_millis(100)
    );
}
