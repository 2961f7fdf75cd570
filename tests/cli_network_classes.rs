//! `pattern mva FILE.json` with `classes`: closed classes alone by
//! multi-class MVA, open ones alone as an open network, both as a mixed
//! network; the figures the library gives, exactly, and errors that say
//! where in the file.

mod common;

use common::cli::*;
use pattern_core::queue::{
    Method, MixedNetwork, MultiClassApproximation, MultiClassNetwork, OpenNetwork,
};
use serde_json::Value;

/// The entry of `name` in the array `list` of `doc`.
fn named<'a>(doc: &'a Value, list: &str, name: &str) -> &'a Value {
    (doc[list].as_array().unwrap().iter())
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {doc}"))
}

/// Class `class`'s figures at `station`.
fn at<'a>(doc: &'a Value, station: &str, class: &str) -> &'a Value {
    (named(doc, "stations", station)["classes"]
        .as_array()
        .unwrap()
        .iter())
    .find(|v| v["class"] == class)
    .unwrap_or_else(|| panic!("no {class} at {station}"))
}

/// `examples/data/two_classes.json`, built by hand.
fn two_classes() -> MultiClassNetwork {
    MultiClassNetwork::new()
        .multi_server("cpu", 2)
        .queue("disk")
        .delay("think")
        .class("batch", 4, &[("cpu", 0.5), ("disk", 0.8)])
        .class(
            "users",
            10,
            &[("cpu", 0.05), ("disk", 0.03), ("think", 2.0)],
        )
}

#[test]
fn closed_classes_are_multi_class_mva_exactly() {
    let file = data("two_classes.json");
    let approx = |method| MultiClassApproximation {
        method,
        ..MultiClassApproximation::default()
    };
    let cases = [
        (json(&["mva", &file]), two_classes().mva().unwrap()),
        (
            json(&["mva", &file, "--approx"]),
            (two_classes().mva_approx_with(&approx(Method::Linearizer))).unwrap(),
        ),
        (
            json(&["mva", &file, "--approx=schweitzer-bard"]),
            (two_classes().mva_approx_with(&approx(Method::SchweitzerBard))).unwrap(),
        ),
    ];
    for (doc, s) in &cases {
        for class in ["batch", "users"] {
            let c = named(doc, "classes", class);
            assert_eq!(f(&c["throughput"]), s.throughput(class).unwrap());
            assert_eq!(f(&c["response_time"]), s.response_time(class).unwrap());
            assert_eq!(f(&c["cycle_time"]), s.cycle_time(class).unwrap());
            for st in ["cpu", "disk"] {
                let (got, want) = (at(doc, st, class), s.of(class, st).unwrap());
                assert_eq!(f(&got["utilization"]), want.utilization);
                assert_eq!(f(&got["queue_length"]), want.queue_length);
                assert_eq!(f(&got["residence_time"]), want.residence_time);
            }
        }
        let disk = named(doc, "stations", "disk");
        assert_eq!(f(&disk["utilization"]), s.utilization("disk").unwrap());
        assert_eq!(named(doc, "classes", "batch")["population"], 4);
        assert!(doc["headroom"].is_null());
    }
    assert_eq!(cases[0].0["exact"], true);
    assert_eq!(cases[2].0["approximation"], "schweitzer-bard");
    // The two approximations differ, and neither is exact.
    let x = |i: usize| f(&named(&cases[i].0, "classes", "batch")["throughput"]);
    assert!(x(0) != x(1) && x(1) != x(2) && x(0) != x(2));
    close("batch X", x(0), 1.07074, 1e-5);
}

#[test]
fn open_classes_are_an_open_network() {
    let doc = json(&["mva", &data("open_classes.json")]);
    let s = OpenNetwork::new()
        .queue("cpu")
        .multi_server("disks", 2)
        .delay("net")
        .class("web", 2.5, &[("cpu", 0.05), ("disks", 0.3), ("net", 0.2)])
        .class("api", 4.0, &[("cpu", 0.02), ("disks", 0.1), ("net", 0.05)])
        .solve()
        .unwrap();
    for class in ["web", "api"] {
        let c = named(&doc, "classes", class);
        assert_eq!(f(&c["response_time"]), s.response_time(class).unwrap());
        assert!(c["cycle_time"].is_null());
        for st in ["cpu", "disks", "net"] {
            let got = at(&doc, st, class);
            assert_eq!(
                f(&got["residence_time"]),
                s.residence_time(class, st).unwrap()
            );
            assert_eq!(
                f(&got["queue_length"]),
                s.of(class, st).unwrap().queue_length
            );
        }
    }
    assert_eq!(f(&named(&doc, "classes", "api")["rate"]), 4.0);
    let disks = named(&doc, "stations", "disks");
    assert_eq!(f(&disks["utilization"]), s.utilization("disks").unwrap());
    assert_eq!(f(&disks["throughput"]), 6.5);
    // 2.5·0.3 + 4·0.1 = 1.15 of 2 disks: the rates may grow 2/1.15 times.
    close("headroom", f(&doc["headroom"]["factor"]), 2.0 / 1.15, 1e-12);
    assert_eq!(doc["headroom"]["station"], "disks");
    // Options of closed classes would be ignored: errors.
    let e = fails(&["mva", &data("open_classes.json"), "--approx"]);
    assert!(
        e.contains("--approx and --max-steps are for closed classes"),
        "{e}"
    );
}

#[test]
fn both_kinds_are_a_mixed_network() {
    let file = data("mixed_classes.json");
    let net = MixedNetwork::new()
        .queue("cpu")
        .queue("disk")
        .delay("net")
        .closed_class("batch", 4, &[("cpu", 0.5), ("disk", 0.8)])
        .open_class("web", 2.5, &[("cpu", 0.05), ("disk", 0.1), ("net", 0.2)]);
    let schweitzer = MultiClassApproximation {
        method: Method::SchweitzerBard,
        ..MultiClassApproximation::default()
    };
    for (doc, s) in [
        (json(&["mva", &file]), net.solve().unwrap()),
        (
            json(&["mva", &file, "--approx=schweitzer-bard"]),
            net.solve_approx_with(&schweitzer).unwrap(),
        ),
    ] {
        for class in ["batch", "web"] {
            let c = named(&doc, "classes", class);
            assert_eq!(f(&c["throughput"]), s.throughput(class).unwrap());
            assert_eq!(f(&c["response_time"]), s.response_time(class).unwrap());
            for st in ["cpu", "disk"] {
                let got = at(&doc, st, class);
                assert_eq!(
                    f(&got["residence_time"]),
                    s.residence_time(class, st).unwrap()
                );
                assert_eq!(f(&got["utilization"]), s.of(class, st).unwrap().utilization);
            }
        }
        // The web requests keep the disk 0.25 busy: the rate may grow 4 times.
        assert_eq!(f(&doc["headroom"]["factor"]), 4.0);
    }
    // By hand: the batch jobs see the CPU 1/(1 − 0.125) and the disk
    // 1/(1 − 0.25) slower; an open job at the disk finds Q_batch there.
    let doc = json(&["mva", &file]);
    let q = f(&at(&doc, "disk", "batch")["queue_length"]);
    let r = f(&at(&doc, "disk", "web")["residence_time"]);
    close("R web disk", r, 0.1 * (1.0 + q) / 0.75, 1e-12);
    let text = stdout(&run(&["mva", &file]));
    assert!(text.contains("1 closed, 1 open"), "{text}");
    assert!(text.contains("the open rates may grow this many times before `disk` saturates"));
}

#[test]
fn a_multi_server_station_both_kinds_visit() {
    let file = temp_file(
        "shop.json",
        r#"{"classes": [{"name": "batch", "population": 4}, {"name": "web", "rate": 2.5}],
            "stations": [
              {"name": "cpu", "kind": "queue", "demands": {"batch": 0.5, "web": 0.05}},
              {"name": "disks", "kind": "multi_server", "servers": 2, "demands": {"batch": 0.8, "web": 0.1}},
              {"name": "net", "kind": "delay", "demands": {"web": 0.2}}]}"#,
    );
    let s = MixedNetwork::new()
        .queue("cpu")
        .multi_server("disks", 2)
        .delay("net")
        .closed_class("batch", 4, &[("cpu", 0.5), ("disks", 0.8)])
        .open_class("web", 2.5, &[("cpu", 0.05), ("disks", 0.1), ("net", 0.2)])
        .solve()
        .unwrap();
    let doc = json(&["mva", &file]);
    for class in ["batch", "web"] {
        let c = named(&doc, "classes", class);
        assert_eq!(f(&c["throughput"]), s.throughput(class).unwrap());
        assert_eq!(f(&c["response_time"]), s.response_time(class).unwrap());
        let got = at(&doc, "disks", class);
        assert_eq!(
            f(&got["residence_time"]),
            s.residence_time(class, "disks").unwrap()
        );
    }
    assert_eq!(f(&at(&doc, "disks", "web")["utilization"]), 0.125);
}

#[test]
fn a_file_of_one_class_is_read_as_before() {
    let doc = json(&["mva", &data("interactive.json")]);
    close("X", f(&doc["throughput"]), 1.8683, 1e-4);
    assert!(doc.get("classes").is_none());
    // And from standard input, classes too.
    let text = std::fs::read_to_string(data("mixed_classes.json")).unwrap();
    let o = run_stdin(&["--json", "mva", "-"], &text);
    assert!(o.status.success(), "{}", stderr(&o));
    let piped: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        piped["classes"],
        json(&["mva", &data("mixed_classes.json")])["classes"]
    );
}

#[test]
fn bad_files_say_where() {
    let cases = [
        (
            "unknown.json",
            "{\"classes\": [{\"name\": \"batch\", \"population\": 4}],\n \"stations\": [\n  {\"name\": \"cpu\", \"kind\": \"queue\", \"demands\": {\"bach\": 0.5}}]}",
            "no class is named `bach` (classes: batch) at line 3 column 53",
        ),
        (
            "both.json",
            r#"{"classes": [{"name": "a", "population": 2, "rate": 1}], "stations": []}"#,
            "a class has a population (closed) or a rate (open), not both at line 1 column 50",
        ),
        (
            "neither.json",
            r#"{"classes": [{"name": "a"}], "stations": []}"#,
            "the class `a` gives neither a population (closed) nor a rate (open) at line 1 column 26",
        ),
        (
            "negative.json",
            r#"{"classes": [{"name": "a", "rate": -2}], "stations": []}"#,
            "the rate is -2: a rate is a number >= 0",
        ),
        (
            "twice.json",
            r#"{"classes": [{"name": "a", "rate": 1}, {"name": "a", "population": 1}], "stations": []}"#,
            "two classes are named `a` at line 1 column 70",
        ),
        (
            "demand.json",
            r#"{"classes": [{"name": "a", "rate": 1}], "stations": [{"name": "cpu", "kind": "queue", "demand": 1}]}"#,
            "the station `cpu` gives its `demands` by class, as {\"a\": 0.5} at line 1 column 99",
        ),
        (
            "population.json",
            r#"{"population": 3, "classes": [{"name": "a", "rate": 1}], "stations": []}"#,
            "each closed class gives its own `population`, the file none at line 1 column 16",
        ),
        (
            "demands.json",
            r#"{"population": 3, "stations": [{"name": "cpu", "kind": "queue", "demands": {"a": 1}}]}"#,
            "`demands` by class need the file's `classes`",
        ),
        (
            "negative_demand.json",
            r#"{"classes": [{"name": "a", "rate": 1}], "stations": [{"name": "cpu", "kind": "queue", "demands": {"a": -1}}]}"#,
            "the demand of `a` is -1: a demand is a number >= 0",
        ),
    ];
    for (name, text, want) in cases {
        let e = fails(&["mva", &temp_file(name, text)]);
        assert!(e.contains(want), "{name}: {e}");
        assert!(e.contains('^'), "{name}: no caret in {e}");
    }
}

#[test]
fn what_the_solvers_refuse_is_an_error() {
    let saturated = temp_file(
        "saturated.json",
        r#"{"classes": [{"name": "b", "population": 2}, {"name": "w", "rate": 3}],
            "stations": [{"name": "cpu", "kind": "queue", "demands": {"b": 1, "w": 0.5}}]}"#,
    );
    let e = fails(&["mva", &saturated]);
    assert!(
        e.contains("`cpu` is saturated: the arrivals keep it 1.5000 busy"),
        "{e}"
    );
    let ld = temp_file(
        "ld.json",
        r#"{"classes": [{"name": "b", "population": 2}, {"name": "w", "rate": 0.1}],
            "stations": [{"name": "net", "kind": "load_dependent", "rates": [1, 2], "demands": {"b": 1, "w": 0.5}}]}"#,
    );
    let e = fails(&["mva", &ld]);
    assert!(
        e.contains("the open class `w` visits `net`, a load-dependent station"),
        "{e}"
    );
    let file = data("two_classes.json");
    for (args, want) in [
        (
            vec!["mva", &file, "--population", "3"],
            "--population is for a network of one class",
        ),
        (
            vec!["mva", &file, "--sweep"],
            "--sweep is for a network of one class",
        ),
        (
            vec!["mva", &file, "--max-steps", "10"],
            "would take about 8.8e2 steps, more than the limit of 1.0e1 (--max-steps",
        ),
        (vec!["mva", &file, "--cores", "2"], "are for a design"),
    ] {
        let e = fails(&args);
        assert!(e.contains(want), "{args:?}: {e}");
    }
}
