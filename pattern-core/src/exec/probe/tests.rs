//! A probe's options and statistic, and the machine it assembles for each
//! runtime. Probes themselves, of each runtime, are tested in their own
//! process (`pattern-core/tests/probe.rs`): their busy threads, pinned,
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

#[test]
fn options_name_the_runtime_probed() {
    assert_eq!(Options::new().probed(), Runtime::Executor);
    for r in Runtime::ALL {
        let o = Options::quick().runtime(r);
        assert_eq!(o.probed(), r);
        assert_eq!(o.sample_count(), 20);
        // Out-of-range samples are an error whatever the runtime.
        let e = measure(&o.samples(0)).unwrap_err();
        assert!(e.to_string().contains("samples(0)"), "{e}");
    }
}

/// A quantity measured at `ns`.
fn measured(part: Part, ns: f64) -> Quantity {
    Quantity {
        part,
        sample: "a sample".into(),
        outcome: Outcome::Measured {
            median_ns: ns,
            samples: 3,
        },
    }
}

#[test]
fn a_probe_runs_on_the_runtime_it_measured() {
    let cores = Cores::of_current_thread();
    for r in Runtime::ALL {
        let quantities = vec![
            measured(Part::Handoff, 500.0),
            Quantity {
                part: Part::WakeCost,
                sample: "a sample".into(),
                outcome: Outcome::Unmeasured("why".into()),
            },
        ];
        let pinned = r == Runtime::Executor;
        let p = assemble(&cores, (r, pinned), quantities, Duration::ZERO);
        assert_eq!(p.machine.runs_on(), r);
        let w = p.machine.waiting_of(r).unwrap();
        assert_eq!(*w, Waiting::new().pinned(pinned).handoff_ns(500.0));
        assert!(p.notes[2].starts_with(&format!("runtime: {r} (probed with ")));
        assert!(p.notes[1].starts_with(&format!("pinned: {pinned}")));
        assert!(
            p.notes
                .iter()
                .any(|n| n.starts_with("wake_cost_ns: not measured (why)"))
        );
        // The file says which runtime, and reads back.
        assert_eq!(Machine::from_json(&p.machine.to_json()).unwrap(), p.machine);
    }
}
