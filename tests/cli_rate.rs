//! `pattern mva DESIGN --rate R`: a design fed at a rate, as an open
//! network; its rate's units, its saturation and its misuse.

mod common;

use common::cli::*;

#[test]
fn a_design_fed_at_a_rate_reports_its_latency_and_limit() {
    let design = temp_file("one.design", "a = 100; a");
    // One element per 200 ns (5,000,000/s): M/D/1 at 1/2, 150 ns.
    let doc = json(&["mva", &design, "--cores", "1", "--rate", "5000000/s"]);
    close("latency", f(&doc["latency"]), 150.0, 1e-12);
    close("max rate", f(&doc["max_rate_per_ns"]), 0.01, 1e-12);
    assert_eq!(doc["limit"], "0: a");
    close("rate", f(&doc["rate_per_ns"]), 0.005, 1e-12);
    assert_eq!(doc["stations"][0]["servers"], 1);
    // The same rate in other units.
    for rate in ["5000/ms", "5/us", "0.005/ns"] {
        let doc = json(&["mva", &design, "--cores", "1", "--rate", rate]);
        close(rate, f(&doc["latency"]), 150.0, 1e-9);
    }
    let o = run(&["mva", &design, "--cores", "1", "--rate", "5000000/s"]);
    assert!(
        stdout(&o).contains("limited by           0: a"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_rate_beyond_the_design_or_misused_is_an_error() {
    let design = temp_file("saturates.design", "a = 100; a");
    let err = fails(&["mva", &design, "--cores", "1", "--rate", "2e7/s"]);
    assert!(
        err.contains(
            "at 20000000/s the design saturates: it sustains at most 10000000/s, limited by 0: a"
        ),
        "{err}"
    );
    for bad in ["2000", "2000/h", "0/s", "-5/s"] {
        let o = run(&["mva", &design, &format!("--rate={bad}")]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("is not a rate"), "{}", stderr(&o));
    }
    let err = fails(&["mva", &data("interactive.json"), "--rate", "1/s"]);
    assert!(err.contains("--rate and --at are for a design"), "{err}");
}
