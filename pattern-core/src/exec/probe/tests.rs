//! A probe's machine and notes: their structure and ranges, never a time.

use super::threads::Sampled;
use super::*;

/// Whether `ns` is a cost: finite and `>= 0`.
fn is_cost(ns: f64) -> bool {
    ns.is_finite() && ns >= 0.0
}

#[test]
fn a_quick_probe_describes_this_computer() {
    let probe = measure(&Options::quick()).unwrap();
    let m = &probe.machine;
    assert_eq!(m.check(), Ok(()));
    assert_eq!(
        (m.nodes(), m.cores()),
        (1, Cores::of_current_thread().len())
    );
    assert_eq!(m.node_speed(0), 1.0);
    assert_eq!(Machine::from_json(&m.to_json()).unwrap(), *m);

    let parts: Vec<Part> = probe.quantities.iter().map(|q| q.part).collect();
    assert_eq!(parts, Part::ALL);
    let w = m.waiting_costs();
    let costs = [
        w.handoff_ns,
        w.take_ns,
        w.wake_latency_ns,
        w.wake_cost_ns,
        w.waker_cost_ns,
    ];
    assert!(costs.into_iter().all(is_cost), "{w:?}");
    assert!(w.spin_ns.is_none_or(is_cost), "{w:?}");
    for q in &probe.quantities {
        match &q.outcome {
            Outcome::Measured { median_ns, samples } => {
                assert!(is_cost(*median_ns) && *samples >= 1, "{q:?}");
                // The machine holds what was measured.
                assert_eq!(field(w, q.part), Some(*median_ns));
            }
            // A note names the quantity, why, and what it keeps.
            Outcome::Unmeasured(why) => {
                assert!(!why.is_empty());
                let note = format!("{}: not measured ({why}); left at ", q.part);
                assert!(probe.notes.iter().any(|n| n.starts_with(&note)), "{q:?}");
                assert_eq!(field(w, q.part), field(&Waiting::new(), q.part));
            }
        }
    }
    // What stands in the way is named where it stands.
    let unmeasured = |part| probe.quantities.iter().find(|q| q.part == part).unwrap();
    if Cores::of_current_thread().len() < 2 {
        for part in [
            Part::WakeLatency,
            Part::Spin,
            Part::WakeCost,
            Part::WakerCost,
        ] {
            assert_eq!(
                unmeasured(part).outcome,
                Outcome::Unmeasured("needs two cores; this thread may run on one".into())
            );
        }
    } else if !w.pinned {
        assert!(matches!(&unmeasured(Part::WakeLatency).outcome,
            Outcome::Unmeasured(why) if why.contains("pinned")));
    }
    if thread_cpu_ns().is_none() {
        assert!(matches!(&unmeasured(Part::WakeCost).outcome,
            Outcome::Unmeasured(why) if why.contains("CPU clock") || why.contains("two cores") || why.contains("pinned")));
    }
    assert!(probe.notes[0].starts_with(&format!("nodes: 1 node of {} cores", m.cores())));
    assert!(probe.notes[1].starts_with(&format!("pinned: {}", w.pinned)));
    assert!(probe.notes.len() >= 2 + Part::ALL.len());
}

/// The value of `part` in `w`.
fn field(w: &Waiting, part: Part) -> Option<f64> {
    match part {
        Part::Handoff => Some(w.handoff_ns),
        Part::Take => Some(w.take_ns),
        Part::WakeLatency => Some(w.wake_latency_ns),
        Part::Spin => w.spin_ns,
        Part::WakeCost => Some(w.wake_cost_ns),
        Part::WakerCost => Some(w.waker_cost_ns),
    }
}

#[test]
fn parts_left_out_keep_their_free_default() {
    let probe = measure(&Options::quick().samples(1).only(&[Part::Take])).unwrap();
    for q in &probe.quantities {
        if q.part == Part::Take {
            // Nothing stands in the way of running `tpool[1](pass)`.
            assert!(q.median_ns().is_some_and(is_cost), "{q:?}");
            assert!(matches!(q.outcome, Outcome::Measured { samples: 1, .. }));
        } else {
            assert_eq!(q.outcome, Outcome::Unmeasured("not asked for".into()));
        }
    }
    let w = probe.machine.waiting_costs();
    let expected = Waiting::new()
        .pinned(w.pinned)
        .take_ns(probe.quantities[5].median_ns().unwrap());
    assert_eq!(*w, expected);
    assert!(probe.notes.contains(
        &"spin_ns: not measured (not asked for); left at null (polls for ever)".to_string()
    ));

    // Nothing asked for: this computer's cores, and the pinning.
    let bare = measure(&Options::new().only(&[])).unwrap();
    let cores = Cores::of_current_thread().machine();
    let pinned = bare.machine.waiting_costs().pinned;
    let expected = if pinned {
        cores.waiting(Waiting::new().pinned(true))
    } else {
        cores
    };
    assert_eq!(bare.machine, expected);
}

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
