//! `pattern mva A B ...`: designs sharing one machine, each one's time per
//! element together beside its time alone, and clear errors for what does
//! not apply to several designs.

mod common;

use common::cli::*;

#[test]
fn two_pools_on_two_cores_share_them() {
    let (sort, inc) = (data("pool4_qsort.design"), data("pool2_inc_nop.design"));
    let doc = json(&["mva", &sort, &inc, "--cores", "2", "--at", "x=1024"]);
    // Six threads always busy on two cores: each at a third of a core.
    let node = &doc["nodes"][0];
    close("slowdown", f(&node["slowdown"]), 3.0, 1e-9);
    close("utilization", f(&node["utilization"]), 1.0, 1e-9);
    let designs = doc["designs"].as_array().unwrap();
    let qsort = 1034.17 * 1024.0 * 10.0;
    let pool = 536.185 * 1024.0 + 5422.97;
    // Four sorts each 3x slower: a sort every 3/4 of one; two pool
    // threads: an element every 3/2 of one.
    close(
        "sorts",
        f(&designs[0]["time_per_element"]),
        qsort * 0.75,
        1e-9,
    );
    close("pool", f(&designs[1]["time_per_element"]), pool * 1.5, 1e-9);
    // Alone, as `pattern mva` of the one design says.
    for (d, file) in designs.iter().zip([&sort, &inc]) {
        let alone = json(&["mva", file, "--cores", "2", "--at", "x=1024"]);
        assert_eq!(d["alone"], alone["time_per_element"]);
        assert_eq!(d["file"], file.as_str());
    }
    // Shares of the cores by the threads each keeps busy: 4 and 2 of 6.
    let shares = node["core_shares"].as_array().unwrap();
    close("share", f(&shares[0]), 4.0 / 6.0, 1e-9);
    assert_eq!(doc["interfere"], true);
    // The text says where.
    let text = stdout(&run(&[
        "mva", &sort, &inc, "--cores", "2", "--at", "x=1024",
    ]));
    assert!(
        text.contains("interfere    on node 0's cores, 3x slower"),
        "{text}"
    );
}

#[test]
fn designs_with_cores_to_spare_run_as_alone() {
    let (sort, inc) = (data("pool4_qsort.design"), data("pool2_inc_nop.design"));
    let doc = json(&["mva", &sort, &inc, "--cores", "6", "--at", "x=1024"]);
    assert_eq!(doc["interfere"], false);
    for d in doc["designs"].as_array().unwrap() {
        assert_eq!(d["alone"], d["time_per_element"]);
    }
}

#[test]
fn what_does_not_apply_to_several_designs_is_an_error() {
    let (sort, inc) = (data("pool4_qsort.design"), data("pool2_inc_nop.design"));
    let cases: [(&[&str], &str); 6] = [
        (&[], "need one: give --machine FILE, --cores C or --nodes N"),
        (&["--cores", "2", "--rate", "10/s"], "--rate"),
        (&["--cores", "2", "--population", "3"], "--population"),
        (&["--cores", "2", "--at", "y=3"], "`y`"),
        (&["--cores", "2", "--at", "x=1024", "--approx"], "--approx"),
        (&["--cores", "0", "--at", "x=1024"], "--cores 0"),
    ];
    for (extra, says) in cases {
        let mut args = vec!["mva", &sort, &inc];
        args.extend_from_slice(extra);
        let err = fails(&args);
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    // A network among the designs.
    let network = data("interactive.json");
    let err = fails(&["mva", &sort, &network, "--cores", "2", "--at", "x=1024"]);
    assert!(
        err.contains("interactive.json is a queueing network"),
        "{err}"
    );
    // Standard input for two designs.
    let err = fails(&["mva", "-", "-", "--cores", "2"]);
    assert!(err.contains("read once"), "{err}");
    // A design that does not parse names its file.
    let err = fails(&["mva", &sort, &data("syntax_error.design"), "--cores", "2"]);
    assert!(err.contains("syntax_error.design"), "{err}");
}
