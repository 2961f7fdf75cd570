//! The machine's values, its file and its errors.

use super::*;

fn error(text: &str) -> String {
    Machine::from_json(text).unwrap_err().to_string()
}

#[test]
fn the_issue_s_file_reads() {
    let m = Machine::from_json(
        r#"{"nodes": [{"count": 2, "cores": 4, "speed": 1.0}], "network": {"topology": "star",
        "latency_ns": 1000, "bandwidth_bytes_per_ns": 1.25, "sharing": "max-min"}}"#,
    )
    .unwrap();
    assert_eq!(m, Machine::new(2, 4).latency(1000.0).bandwidth(1.25));
    assert_eq!((m.nodes(), m.cores()), (2, 8));
    assert_eq!(m.waiting_costs(), &Waiting::new());
}

#[test]
fn heterogeneous_nodes_and_racks_read_back_equal() {
    let m = Machine::new(4, 8)
        .latency(1e3)
        .bandwidth(12.5)
        .sharing(Sharing::EqualShare)
        .node(Node::new(16).speed(2.0))
        .racks(Racks::new(
            2,
            Link::new(250.0, 25.0),
            Link::new(100.0, 40.0),
        ))
        .waiting(Waiting::new().handoff_ns(310.5).spin_ns(13e3).pinned(true))
        .runtime(Runtime::Rayon)
        .waiting(Waiting::new().take_ns(2e3).wake_latency_ns(4e4));
    assert_eq!(m.cores(), 48);
    assert_eq!(m.nodes(), 5);
    assert_eq!((m.node_cores(3), m.node_speed(3)), (8, 1.0));
    assert_eq!((m.node_cores(4), m.node_speed(4)), (16, 2.0));
    assert_eq!((m.node_cores(5), m.has_node(5)), (0, false));
    assert_eq!(Machine::from_json(&m.to_json()).unwrap(), m);
    let compact = serde_json::to_string(&m).unwrap();
    assert_eq!(serde_json::from_str::<Machine>(&compact).unwrap(), m);
    // Both runtimes' waiting parts and the runtime read back.
    let back = Machine::from_json(&m.to_json()).unwrap();
    assert_eq!(back.runs_on(), Runtime::Rayon);
    assert_eq!(back.waiting_costs().take_ns, 2e3);
    let executor = back.runtime(Runtime::Executor);
    assert_eq!(executor.waiting_costs().handoff_ns, 310.5);
    assert_eq!(
        executor.runtimes().collect::<Vec<_>>(),
        [Runtime::Executor, Runtime::Rayon]
    );
}

#[test]
fn alike_nodes_merge() {
    let m = Machine::new(1, 4)
        .node(Node::new(4))
        .node(Node::new(4).count(2));
    assert_eq!(m, Machine::new(4, 4));
    assert_eq!(m.groups().len(), 1);
}

#[test]
fn errors_name_the_line_and_the_key() {
    assert_eq!(
        error("{\"nodes\": [{\"cores\": 0}]}"),
        "line 1, column 23, at `nodes[0].cores`: 0 is out of range: at least 1"
    );
    assert_eq!(
        error("{\"nodes\": [{\"cores\": 2}, {\"cores\": 2,\n \"speed\": -1}]}"),
        "line 2, column 13, at `nodes[1].speed`: -1 is out of range: a finite number > 0"
    );
    assert_eq!(
        error("{\"nodes\": [{\"cores\": 2}], \"network\": {\"bandwidth_bytes_per_ns\": -3}}"),
        "line 1, column 67, at `network.bandwidth_bytes_per_ns`: -3 is out of range: a finite number > 0"
    );
    let unknown = error("{\"nodes\": [{\"cores\": 2, \"coers\": 3}]}");
    assert!(
        unknown.starts_with("line 1, column 31, at `nodes[0].coers`: unknown field `coers`"),
        "{unknown}"
    );
    let top = error("{\"nodes\": [{\"cores\": 2}], \"netwrk\": {}}");
    assert!(top.contains("at `netwrk`: unknown field `netwrk`"), "{top}");
    assert!(error("{\"nodes\": []}").contains("`nodes` is empty"));
    assert!(
        error("{\"nodes\": [{\"cores\": 2}], \"network\": {\"topology\": \"racks\"}}")
            .contains("needs `network.racks`")
    );
    assert!(
        error("{\"nodes\": [{\"cores\": 2}], \"network\": {\"topology\": \"ring\"}}")
            .contains("at `network.topology`: unknown variant `ring`")
    );
    assert!(
        error("{\"nodes\": [{\"cores\": 2}], \"waiting\": {\"executor\": {\"take_ns\": -1}}}")
            .contains("at `waiting.executor.take_ns`: -1 is not a time")
    );
    // The waiting part of a runtime other than the design's alone, and the
    // form before runtimes (the waiting part itself) are errors.
    let lone = error("{\"nodes\": [{\"cores\": 2}], \"waiting\": {\"rayon\": {\"take_ns\": 1}}}");
    assert!(
        lone.contains(
            "the design runs on `executor` (`runtime`), but `waiting` describes only rayon"
        ),
        "{lone}"
    );
    let old_form = error("{\"nodes\": [{\"cores\": 2}], \"waiting\": {\"take_ns\": 1}}");
    assert!(
        old_form
            .contains("unknown variant `take_ns`, expected one of `executor`, `rayon`, `threads`"),
        "{old_form}"
    );
    assert!(
        error("{\"nodes\": [{\"cores\": 2}], \"runtime\": \"tokio\"}")
            .contains("at `runtime`: unknown variant `tokio`")
    );
    let trailing = error("{\"nodes\": [{\"cores\": 2}]} x");
    assert!(
        trailing.starts_with("line 1, column 27: trailing characters"),
        "{trailing}"
    );
    assert!(error("{\"nodes\": [{\"cores\": 1e400}]}").contains("at `nodes[0].cores`"));
    assert!(error("").starts_with("line 1, column 0: EOF"));
}

#[test]
fn a_file_that_cannot_be_read_is_named() {
    let e = Machine::from_file("/nonexistent/machine.json").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read the machine file /nonexistent/machine.json")
    );
}

#[test]
fn built_machines_are_checked() {
    assert!(Machine::new(2, 4).check().is_ok());
    assert_eq!(
        Machine::new(2, 0).check(),
        Err(MachineError::NoCores {
            group: 0,
            count: 2,
            cores: 0
        })
    );
    assert_eq!(
        Machine::new(1, 1)
            .latency(-1.0)
            .check()
            .unwrap_err()
            .to_string(),
        "`network.latency_ns` is -1: a finite number of ns >= 0"
    );
    assert!(Machine::new(1, 1).bandwidth(f64::NAN).check().is_err());
    assert!(
        Machine::new(1, 1)
            .node(Node::new(2).speed(0.0))
            .check()
            .is_err()
    );
    assert!(Machine::new(usize::MAX, 2).check().is_err());
    let w = Waiting::new().wake_cost_ns(f64::INFINITY);
    assert!(Machine::new(1, 1).waiting(w).check().is_err());
    let racks = Racks::new(0, Link::new(0.0, 1.0), Link::new(0.0, 1.0));
    assert!(Machine::new(2, 1).racks(racks).check().is_err());
}

#[test]
fn a_transfer_alone_takes_its_route_s_latency_and_slowest_link() {
    let m = Machine::new(4, 1).latency(10.0).bandwidth(2.0);
    assert_eq!(m.transfer_time(0, 1, 100.0), 10.0 + 50.0);
    let racked = m.racks(Racks::new(2, Link::new(5.0, 1.0), Link::new(1.0, 4.0)));
    assert_eq!(racked.transfer_time(0, 1, 100.0), 60.0);
    assert_eq!(
        racked.transfer_time(0, 3, 100.0),
        10.0 + 2.0 * 5.0 + 1.0 + 100.0
    );
}

#[test]
fn the_communication_profiles_come_from_the_network() {
    let m = Machine::new(8, 1).latency(1000.0).bandwidth(0.5);
    let send = crate::Expr::parse("send(b)").unwrap();
    let profile = m.communication();
    let t = profile
        .resolve(&send, &crate::comm::Context::isolated())
        .unwrap()
        .eval(&[("b", 100.0)])
        .unwrap();
    assert_eq!(t, 1000.0 + 200.0);
    let h = m
        .hockney()
        .message(&crate::Expr::num(100.0))
        .eval(&[])
        .unwrap();
    assert_eq!(h, 1200.0);
    let t3e = m.clone().comm_profile(crate::comm::MachineProfile::t3e());
    assert_eq!(t3e.communication().name, "Cray T3E");
    assert_eq!(Machine::from_json(&t3e.to_json()).unwrap(), t3e);
}

#[test]
fn summaries_and_assumptions_speak_plainly() {
    assert_eq!(Machine::new(1, 2).summary(), "1 node of 2 cores");
    assert_eq!(
        Machine::new(2, 4).latency(1000.0).bandwidth(1.25).summary(),
        "2 nodes of 4 cores, star network (1000 ns, 1.25 bytes/ns, max-min)"
    );
    let m = Machine::new(1, 8).node(Node::new(16).speed(2.0));
    assert!(
        m.summary()
            .starts_with("1 node of 8 cores + 1 node of 16 cores at speed 2")
    );
    assert_eq!(m.capacity(2), 8.0 + 32.0);
    assert_eq!(m.capacity(1), 8.0);
    assert_eq!(
        m.assumptions(2, 9),
        ["up to 9 threads on a node of 8 cores: the operators assume a core per thread"]
    );
    assert!(m.assumptions(1, 8).is_empty());
    assert_eq!(m.fewest_cores(1), 8);
    assert_eq!(Machine::new(1, 8).node(Node::new(4)).fewest_cores(2), 4);
}

#[test]
fn a_nodes_memory_reads_back_and_is_checked() {
    let m = Machine::from_json(
        r#"{"nodes": [{"cores": 2, "memory": {"bandwidth_bytes_per_ns": 30,
        "core_bandwidth_bytes_per_ns": 20}}, {"cores": 2}]}"#,
    )
    .unwrap();
    assert_eq!(m.node_memory(0), Some(Memory::new(30.0, 20.0)));
    assert_eq!((m.node_memory(1), m.node_memory(2)), (None, None));
    // Nodes alike but for their memory stay two groups.
    assert_eq!(m.groups().len(), 2);
    assert_eq!(Machine::from_json(&m.to_json()).unwrap(), m);
    let wide = Machine::new(3, 2).memory(Memory::new(30.0, 20.0));
    assert_eq!(wide.node_memory(2), Some(Memory::new(30.0, 20.0)));
    // A core faster than its node's memory, no bandwidth, a typo.
    let one = |memory: &str| {
        error(&format!(
            r#"{{"nodes": [{{"cores": 2, "memory": {memory}}}]}}"#
        ))
    };
    assert_eq!(
        one(r#"{"bandwidth_bytes_per_ns": 20, "core_bandwidth_bytes_per_ns": 30}"#),
        "line 1, column 100, at `nodes[0].memory`: `core_bandwidth_bytes_per_ns` is 30: a finite number of bytes per ns > 0, at most the node's bandwidth"
    );
    assert_eq!(
        one(r#"{"bandwidth_bytes_per_ns": 0, "core_bandwidth_bytes_per_ns": 0}"#),
        "line 1, column 62, at `nodes[0].memory.bandwidth_bytes_per_ns`: 0 is out of range: a finite number > 0"
    );
    assert!(
        one(r#"{"bandwidth": 20, "core_bandwidth_bytes_per_ns": 30}"#)
            .contains("unknown field `bandwidth`")
    );
    assert!(matches!(
        Machine::new(1, 2).memory(Memory::new(f64::NAN, 1.0)).check(),
        Err(MachineError::Invalid { key, .. }) if key == "nodes[0].memory.bandwidth_bytes_per_ns"
    ));
}

#[test]
fn a_memorys_handed_curve_reads_back_and_is_checked() {
    let m = Machine::from_json(
        r#"{"nodes": [{"cores": 2, "memory": {"bandwidth_bytes_per_ns": 30,
        "core_bandwidth_bytes_per_ns": 20, "handed": [{"bytes": 1024, "bytes_per_ns": 100},
        {"bytes": 4096, "bytes_per_ns": 25}]}}]}"#,
    )
    .unwrap();
    let curve = Handed::new(&[(1024.0, 100.0), (4096.0, 25.0)]).unwrap();
    assert_eq!(
        m.node_memory(0),
        Some(Memory::new(30.0, 20.0).with_handed(curve))
    );
    assert_eq!(Machine::from_json(&m.to_json()).unwrap(), m);
    // A memory without a curve writes none.
    assert!(
        !Machine::new(1, 2)
            .memory(Memory::new(30.0, 20.0))
            .to_json()
            .contains("handed")
    );
    let one = |handed: &str| {
        error(&format!(
            r#"{{"nodes": [{{"cores": 2, "memory": {{"bandwidth_bytes_per_ns": 30,
            "core_bandwidth_bytes_per_ns": 20, "handed": {handed}}}}}]}}"#
        ))
    };
    assert!(
        one(r#"[{"bytes": 4096, "bytes_per_ns": 1}, {"bytes": 1024, "bytes_per_ns": 1}]"#)
            .ends_with(
                "`handed[].bytes` is 1024: a finite number of bytes > 0, rising from point to point"
            ),
    );
    assert!(
        one(r#"[{"bytes": 4096, "bytes_per_ns": 0}]"#)
            .ends_with("`handed[].bytes_per_ns` is 0: a finite number of bytes per ns > 0"),
    );
    assert!(one("[]").ends_with("`handed` has 0 points: from 1 to 16"));
    let seventeen: Vec<String> = (1..=17)
        .map(|k| format!(r#"{{"bytes": {k}, "bytes_per_ns": 1}}"#))
        .collect();
    assert!(one(&format!("[{}]", seventeen.join(", "))).ends_with("has 17 points: from 1 to 16"));
    assert!(one(r#"[{"bytes": 1, "rate": 1}]"#).contains("unknown field `rate`"));
}

#[test]
fn a_handed_element_moves_its_bytes_from_the_caches() {
    let curve = Handed::new(&[(1000.0, 100.0), (4000.0, 25.0)]).unwrap();
    let m = Memory::new(20.0, 20.0).with_handed(curve);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    // Interpolated on log-log scales: 2000 bytes at 50 bytes/ns.
    assert!(close(curve.bandwidth(2000.0).unwrap(), 50.0));
    assert_eq!(curve.bandwidth(10.0), Some(100.0));
    assert_eq!(curve.bandwidth(4000.0), Some(25.0));
    assert_eq!(curve.bandwidth(4001.0), None);
    // From memory: 100 ns of 150 wait on it; handed: 40 ns on the core.
    assert_eq!(m.split(150.0, 2000.0, false), (50.0, 100.0));
    let (core, wait) = m.split(150.0, 2000.0, true);
    assert!(close(core, 90.0) && wait == 0.0, "{core} {wait}");
    // Never slower than from memory (25 bytes/ns from the caches, 20 from
    // memory, of a call that was all memory), and no bytes, no change.
    let slow = Memory::new(20.0, 20.0).with_handed(Handed::new(&[(4000.0, 10.0)]).unwrap());
    assert_eq!(slow.split(200.0, 4000.0, true), (200.0, 0.0));
    assert_eq!(m.split(150.0, 0.0, true), (150.0, 0.0));
    // Beyond the curve, or without one, as from memory.
    assert_eq!(m.split(400.0, 8000.0, true), (0.0, 400.0));
    assert_eq!(
        Memory::new(20.0, 20.0).split(150.0, 2000.0, true),
        (50.0, 100.0)
    );
}
