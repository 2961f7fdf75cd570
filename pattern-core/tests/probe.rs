//! A probe of this computer: the machine it returns and its notes, their
//! structure and ranges, never a time. In a process of its own, since a
//! probe keeps cores busy.

use pattern_core::exec::Cores;
use pattern_core::exec::probe::{self, Options, Outcome, Part};
use pattern_core::fit::measure::thread_cpu_ns;
use pattern_core::machine::{Machine, Runtime, Waiting};

/// Whether `ns` is a cost: finite and `>= 0`.
fn is_cost(ns: f64) -> bool {
    ns.is_finite() && ns >= 0.0
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
fn a_quick_probe_describes_this_computer() {
    let probe = probe::measure(&Options::quick()).unwrap();
    let m = &probe.machine;
    let cores = Cores::of_current_thread().len();
    assert_eq!(m.check(), Ok(()));
    assert_eq!((m.nodes(), m.cores(), m.node_speed(0)), (1, cores, 1.0));
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
                assert_eq!(field(w, q.part), Some(*median_ns), "{q:?}");
                let note = format!(
                    "{}: {median_ns:.1} ns, the median of {samples} sample",
                    q.part
                );
                assert!(probe.notes.iter().any(|n| n.starts_with(&note)), "{q:?}");
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
    let outcome = |part| {
        &probe
            .quantities
            .iter()
            .find(|q| q.part == part)
            .unwrap()
            .outcome
    };
    let waits = [
        Part::WakeLatency,
        Part::Spin,
        Part::WakeCost,
        Part::WakerCost,
    ];
    if cores < 2 {
        for part in waits {
            let why = "needs two cores; this thread may run on one";
            assert_eq!(*outcome(part), Outcome::Unmeasured(why.into()));
        }
    } else if !w.pinned {
        for part in waits {
            assert!(matches!(outcome(part), Outcome::Unmeasured(why) if why.contains("pinned")));
        }
    } else if thread_cpu_ns().is_none() {
        for part in [Part::Spin, Part::WakeCost] {
            assert!(matches!(outcome(part), Outcome::Unmeasured(why) if why.contains("CPU clock")));
        }
    }
    assert!(probe.notes[0].starts_with(&format!("nodes: 1 node of {cores} cores at speed 1")));
    assert!(probe.notes[1].starts_with(&format!("pinned: {}", w.pinned)));
}

#[test]
fn parts_left_out_keep_their_free_default() {
    let probe = probe::measure(&Options::quick().samples(1).only(&[Part::Take])).unwrap();
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
    let take = probe.quantities[5].median_ns().unwrap();
    assert_eq!(*w, Waiting::new().pinned(w.pinned).take_ns(take));
    let spin = "spin_ns: not measured (not asked for); left at null (polls for ever)";
    assert!(probe.notes.iter().any(|n| n == spin), "{:?}", probe.notes);

    // Nothing asked for, the memory not measured: this computer's cores,
    // and the pinning.
    let bare = probe::measure(&Options::new().only(&[]).memory_mib(0)).unwrap();
    let cores = Cores::of_current_thread().machine();
    let expected = if bare.machine.waiting_costs().pinned {
        cores.waiting(Waiting::new().pinned(true))
    } else {
        cores
    };
    assert_eq!(bare.machine, expected);
    let note = "memory: not measured; atoms' bytes cost nothing beyond their models";
    assert!(bare.notes.iter().any(|n| n == note), "{:?}", bare.notes);
}

/// Each runtime's quick probe: a machine that runs on it, its waiting
/// part's costs finite and `>= 0`, unpinned but for the executor's, and
/// notes that name the runtime (no figure asserted).
#[test]
fn each_runtime_is_probed_into_a_machine_that_runs_on_it() {
    for r in Runtime::ALL {
        let probe = probe::measure(&Options::quick().runtime(r)).unwrap();
        let m = &probe.machine;
        assert_eq!(m.runs_on(), r);
        assert_eq!(m.check(), Ok(()));
        assert_eq!(Machine::from_json(&m.to_json()).unwrap(), *m);
        assert!(m.runtimes().all(|has| has == r), "{m:?}");
        let w = m.waiting_costs();
        for part in Part::ALL {
            assert!(field(w, part).is_none_or(is_cost), "{r}: {w:?}");
        }
        if r != Runtime::Executor {
            assert!(!w.pinned, "{r}: {w:?}");
        }
        let runtime = format!("runtime: {r} (probed with ");
        assert!(
            probe.notes.iter().any(|n| n.starts_with(&runtime)),
            "{:?}",
            probe.notes
        );
        // What could not be measured says why, in the notes.
        for q in &probe.quantities {
            if let Outcome::Unmeasured(why) = &q.outcome {
                let note = format!("{}: not measured ({why}); left at ", q.part);
                assert!(probe.notes.iter().any(|n| n.starts_with(&note)), "{q:?}");
            }
        }
        // rayon's experiments are its own, and say so.
        if r == Runtime::Rayon {
            for part in [Part::WakeLatency, Part::Spin, Part::WakeCost, Part::Take] {
                let q = probe.quantities.iter().find(|q| q.part == part).unwrap();
                assert!(q.sample.contains("rayon"), "{q:?}");
            }
        }
    }
}
