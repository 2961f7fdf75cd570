#!/usr/bin/env python3
"""Compare pattern's flow-graph simulator with SimGrid 3.32 (not run by CI).

1. Installs SimGrid's C++ library (Debian's libsimgrid-dev, with
   nlohmann-json3-dev, g++ and pkg-config) with apt-get when missing.
2. Builds scripts/simgrid/graph_run.cpp into target/simgrid/graph_run.
3. Writes the cases, each a machine file and a flow graph (formats in
   scripts/simgrid/README.md), into a temporary directory, from a fixed seed:
   (a) four 6-byte transfers into and out of shared links; (b) scatter/gather
   stars of 3 to 15 workers; (c) seed 003's LU factorization on 4 and 8
   nodes (the graphs of examples/simulate/lu.rs); (d) random DAGs of computes
   and transfers; (e) racks with uplinks and a backbone of other bandwidths;
   (f) heterogeneous nodes (cores and speeds).
4. Runs SimGrid on each, in both of graph_run's modes (SimGrid's activity
   dependencies, and activities created when ready), which must agree;
   checks SimGrid against scripts/simgrid/maxmin_reference.py (exact
   arithmetic on the small cases a, b, e, f; doubles on c and d); and, with
   `--ours CMD`, runs `CMD MACHINE.json GRAPH.json` on each, which prints the
   same JSON as graph_run, and compares. Two runs agree when the largest
   relative difference of their tasks' finish times is at most 1e-9.
5. Times the 16-stage pipeline of benches/sim.rs (62,500 elements: 10^6
   compute tasks on one node of 16 cores; and over 4 nodes with 1024-byte
   transfers between them), the median of 3 runs of SimGrid; with `--ours`,
   of `CMD --pipeline ELEMENTS NODES` too, which prints {"build_s": ..,
   "run_s": .., "makespan": ..} (seconds to build the graph and to simulate
   it), and the ratio.

Usage: python3 scripts/simgrid_compare.py [--ours CMD] [--seed N]
           [--elements N] [--runs N] [--no-speed] [--keep DIR] [--only a,b,..]
Exits 1 if any check fails.
"""

import argparse
import json
import math
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "scripts" / "simgrid" / "graph_run.cpp"
BINARY = ROOT / "target" / "simgrid" / "graph_run"
TOLERANCE = 1e-9

sys.path.insert(0, str(ROOT / "scripts" / "simgrid"))
import maxmin_reference  # noqa: E402


# ---------------------------------------------------------------- setup


def have_simgrid():
    ok = subprocess.run(["pkg-config", "--exists", "simgrid"], capture_output=True).returncode == 0 \
        if shutil.which("pkg-config") else False
    return ok and shutil.which("g++") and Path("/usr/include/nlohmann/json.hpp").exists()


def install_simgrid():
    """apt-get install the C++ library and the JSON parser graph_run needs."""
    if have_simgrid():
        return
    packages = ["libsimgrid-dev", "nlohmann-json3-dev", "g++", "pkg-config"]
    prefix = [] if os.geteuid() == 0 else (["sudo"] if shutil.which("sudo") else None)
    if prefix is None:
        sys.exit("SimGrid is missing and this user cannot install it: "
                 f"apt-get install -y {' '.join(packages)}")
    print(f"installing {' '.join(packages)} ...", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = prefix + ["apt-get", "install", "-y", "-q"] + packages
    if subprocess.run(install, env=env).returncode != 0:
        subprocess.run(prefix + ["apt-get", "update", "-q"], env=env, check=True)
        subprocess.run(install, env=env, check=True)
    if not have_simgrid():
        sys.exit("SimGrid still missing after apt-get install")


def build():
    if BINARY.exists() and BINARY.stat().st_mtime >= SOURCE.stat().st_mtime:
        return
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "simgrid"],
                           check=True, capture_output=True, text=True).stdout.split()
    cmd = ["g++", "-O2", "-std=c++17", "-Wall", "-Wextra", str(SOURCE), "-o", str(BINARY)] + flags
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


# ---------------------------------------------------------------- cases


def star(nodes, latency, bandwidth, cores=1):
    return {"nodes": [{"count": nodes, "cores": cores, "speed": 1.0}],
            "network": {"topology": "star", "latency_ns": latency,
                        "bandwidth_bytes_per_ns": bandwidth, "sharing": "max-min"}}


class Graph:
    def __init__(self):
        self.tasks = []

    def compute(self, node, ns, after=()):
        self.tasks.append({"compute": {"node": node, "ns": ns}, "after": sorted(set(after))})
        return len(self.tasks) - 1

    def transfer(self, a, b, size, after=()):
        assert size == int(size), "SimGrid moves whole bytes"
        self.tasks.append({"transfer": {"from": a, "to": b, "bytes": int(size)},
                           "after": sorted(set(after))})
        return len(self.tasks) - 1

    def json(self):
        return {"tasks": self.tasks}


def case_four_transfers(latency):
    """A 0->1, B 0->2, C 3->2, D 4->2, 6 bytes each at 1 byte/ns. Max-min:
    node 2's link in is the bottleneck (B, C, D at 1/3 each), A takes the
    2/3 left of node 0's link out: A ends at latency + 9, B, C, D at
    latency + 18."""
    g = Graph()
    for a, b in [(0, 1), (0, 2), (3, 2), (4, 2)]:
        g.transfer(a, b, 6)
    return star(5, latency, 1.0), g.json()


def case_scatter_gather(rng, workers):
    """Node 0 splits, sends a share to each worker, each computes and sends
    its result back, node 0 merges: the master's links are shared by all."""
    machine = {"nodes": [{"count": 1, "cores": 2, "speed": 1.0},
                         {"count": workers, "cores": 1, "speed": 1.0}],
               "network": {"topology": "star", "latency_ns": 50.0,
                           "bandwidth_bytes_per_ns": 2.0, "sharing": "max-min"}}
    g = Graph()
    split = g.compute(0, 100.0)
    backs = []
    for w in range(1, workers + 1):
        out = g.transfer(0, w, rng.randint(200, 4000), [split])
        work = g.compute(w, round(rng.uniform(100.0, 3000.0), 3), [out])
        backs.append(g.transfer(w, 0, rng.randint(100, 2000), [work]))
    g.compute(0, 200.0, backs)
    return machine, g.json()


def lu_graph(n, r, nodes, rate, pipelined):
    """examples/simulate/lu.rs's graph(n, r, nodes, rate, pipelined, None),
    task for task in the same order."""
    k_all = n // r
    rf = float(r)
    block = float(r * r * 8)
    g = Graph()
    column = [None] * k_all
    connection = [None] * (nodes * nodes)
    barrier = []
    nxt = 0

    def owner(j):
        return j % nodes

    def send(a, b, size, deps):
        c = a * nodes + b
        after = list(deps)
        if a != b and connection[c] is not None:
            after.append(connection[c])
        t = g.transfer(a, b, size, after)
        if a != b:
            connection[c] = t
        return t

    for k in range(k_all):
        m = float(n - k * r)
        deps = [column[k]] if column[k] is not None else []
        if not pipelined:
            deps += barrier
        panel = g.compute(owner(k), (m * rf * rf - rf * rf * rf / 3.0) / rate, deps)
        ends = [panel]
        t12 = []
        for j in range(k + 1, k_all):
            l11 = send(owner(k), owner(j), block, [panel])
            deps = [l11] + ([column[j]] if column[j] is not None else [])
            trsm = g.compute(owner(j), rf ** 3 / rate, deps)
            column[j] = trsm
            t12.append(send(owner(j), owner(k), block, [trsm]))
        for jj, j in enumerate(range(k + 1, k_all)):
            for _ in range(k + 1, k_all):
                e = nxt % nodes
                nxt = e + 1
                request = send(owner(k), e, 2.0 * block, [t12[jj]])
                product = g.compute(e, 2.0 * rf ** 3 / rate, [request])
                back = send(e, owner(j), block, [product])
                deps = [back] + ([column[j]] if column[j] is not None else [])
                subtract = g.compute(owner(j), rf * rf / rate, deps)
                column[j] = subtract
                ends.append(subtract)
        barrier = ends
    return g.json()


def lu_flops(n, r):
    rf = float(r)
    total = 0.0
    for k in range(n // r):
        m = float(n - k * r)
        later = float(n // r - k - 1)
        total += (m * rf * rf - rf * rf * rf / 3.0 + later * rf ** 3
                  + later * later * (2.0 * rf ** 3 + rf * rf))
    return total


def case_lu(nodes, r, pipelined):
    """tests/sim_lu.rs: 2592 x 2592, UltraSparc rate, Fast Ethernet."""
    n = 2592
    rate = lu_flops(n, 216) / 185.1e9
    return star(nodes, 100_000.0, 0.0125), lu_graph(n, r, nodes, rate, pipelined)


def random_dag(rng, nodes, count, transfer_share=0.5, window=24):
    g = Graph()
    for i in range(count):
        k = rng.choice([0, 1, 1, 2, 2, 3]) if i else 0
        deps = [rng.randrange(max(0, i - window), i) for _ in range(k)]
        if rng.random() < transfer_share:
            a = rng.randrange(nodes)
            b = rng.randrange(nodes) if rng.random() < 0.95 else a
            size = 0 if rng.random() < 0.03 else rng.randint(1, 5000)
            g.transfer(a, b, size, deps)
        else:
            ns = 0.0 if rng.random() < 0.02 else round(rng.uniform(1.0, 800.0), 3)
            g.compute(rng.randrange(nodes), ns, deps)
    return g.json()


def case_random(rng, nodes, count):
    machine = {"nodes": [{"count": nodes, "cores": 2, "speed": 1.0}],
               "network": {"topology": "star", "latency_ns": 20.0,
                           "bandwidth_bytes_per_ns": 1.5, "sharing": "max-min"}}
    return machine, random_dag(rng, nodes, count)


def case_racks(rng, nodes, per_rack, count):
    """Racks whose uplinks and backbone have other bandwidths than the node
    links, and no latency of their own, so that every route has the node
    network's latency: many transfers at once, within and between racks."""
    machine = {"nodes": [{"count": nodes, "cores": 2, "speed": 1.0}],
               "network": {"topology": "racks", "latency_ns": 5.0,
                           "bandwidth_bytes_per_ns": 1.0, "sharing": "max-min",
                           "racks": {"nodes_per_rack": per_rack,
                                     "uplink": {"latency_ns": 0.0, "bandwidth_bytes_per_ns": 1.5},
                                     "backbone": {"latency_ns": 0.0, "bandwidth_bytes_per_ns": 2.5}}}}
    g = Graph()
    previous = []
    for wave in range(count // 10):
        current = []
        for _ in range(10):
            a = rng.randrange(nodes)
            b = (a + rng.randrange(1, nodes)) % nodes
            after = [rng.choice(previous)] if previous and rng.random() < 0.7 else []
            t = g.transfer(a, b, rng.randint(50, 3000), after)
            if rng.random() < 0.3:
                t = g.compute(b, round(rng.uniform(10.0, 500.0), 3), [t])
            current.append(t)
        previous = current
    return machine, g.json()


def case_heterogeneous(rng):
    """Groups of nodes with different cores and speeds, and more compute
    tasks than cores at once (processor sharing)."""
    machine = {"nodes": [{"count": 2, "cores": 4, "speed": 1.0},
                         {"count": 1, "cores": 2, "speed": 2.5},
                         {"count": 2, "cores": 1, "speed": 0.5},
                         {"count": 1, "cores": 3, "speed": 1.75}],
               "network": {"topology": "star", "latency_ns": 10.0,
                           "bandwidth_bytes_per_ns": 4.0, "sharing": "max-min"}}
    g = Graph()
    nodes = 6
    roots = [g.compute(n, round(rng.uniform(50.0, 400.0), 3)) for n in range(nodes) for _ in range(5)]
    layer = roots
    for _ in range(4):
        nxt = []
        for _ in range(20):
            src = rng.choice(layer)
            a = rng.randrange(nodes)
            b = rng.randrange(nodes)
            t = g.transfer(a, b, rng.randint(100, 4000), [src])
            nxt.append(g.compute(b, round(rng.uniform(20.0, 600.0), 3), [t, rng.choice(layer)]))
        layer = nxt
    return machine, g.json()


# Finish times known by hand: case (a) with latency L.
EXPECTED = {"a-four-transfers": [10.0, 19.0, 19.0, 19.0],
            "a-four-transfers-no-latency": [9.0, 18.0, 18.0, 18.0]}


def pipeline_makespan(elements, nodes):
    """The 16-stage pipeline's makespan by hand: the first element's path
    (stages of 100..115 ns, and over 4 nodes 3 transfers of 1000 + 1024/10
    ns, which never overlap on a link), then one element per 115 ns."""
    first = sum(100 + s for s in range(16)) + (0 if nodes == 1 else 3 * (1000.0 + 1024 / 10.0))
    return first + (elements - 1) * 115.0


def cases(seed):
    """(name, group, machine, graph, reference mode: 'exact' or 'float')."""
    rng = random.Random(seed)
    out = []
    m, g = case_four_transfers(1.0)
    out.append(("a-four-transfers", "a", m, g, "exact"))
    m, g = case_four_transfers(0.0)
    out.append(("a-four-transfers-no-latency", "a", m, g, "exact"))
    for w in [3, 5, 8, 12, 15]:
        m, g = case_scatter_gather(rng, w)
        out.append((f"b-scatter-gather-{w}", "b", m, g, "exact"))
    for nodes, r, pipelined in [(4, 216, False), (8, 216, False), (8, 216, True), (4, 324, False), (8, 324, False)]:
        m, g = case_lu(nodes, r, pipelined)
        out.append((f"c-lu-{r}-{nodes}{'-pipelined' if pipelined else ''}", "c", m, g, "float"))
    for nodes, count in [(5, 300), (8, 1000), (12, 3000)]:
        m, g = case_random(rng, nodes, count)
        out.append((f"d-random-{nodes}-nodes-{count}", "d", m, g, "float"))
    for nodes, per_rack, count in [(8, 4, 60), (8, 3, 80), (9, 3, 120)]:
        m, g = case_racks(rng, nodes, per_rack, count)
        out.append((f"e-racks-{nodes}-by-{per_rack}", "e", m, g, "exact"))
    for i in range(2):
        m, g = case_heterogeneous(rng)
        out.append((f"f-heterogeneous-{i}", "f", m, g, "exact"))
    return out


# ---------------------------------------------------------------- runs


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({p.returncode}): {p.stderr.strip()}")
    return json.loads(p.stdout)


def max_relative(a, b):
    """The largest |x - y| / max(|x|, |y|) over the tasks' finish times."""
    if len(a) != len(b):
        return math.inf
    worst = 0.0
    for x, y in zip(a, b):
        if x != y:
            worst = max(worst, abs(x - y) / max(abs(x), abs(y)))
    return worst


def verdict(d):
    return "pass" if d <= TOLERANCE else "FAIL"


def compare_cases(args, directory):
    failed = False
    rows = []
    for name, group, machine, graph, mode in cases(args.seed):
        if args.only and group not in args.only:
            continue
        mpath, gpath = directory / f"{name}.machine.json", directory / f"{name}.graph.json"
        mpath.write_text(json.dumps(machine, indent=1))
        gpath.write_text(json.dumps(graph))
        t = time.perf_counter()
        sg = run_json([str(BINARY), str(mpath), str(gpath)])
        sg_s = time.perf_counter() - t
        ready = run_json([str(BINARY), "--ready", str(mpath), str(gpath)])
        modes = max_relative(sg["finish"], ready["finish"])
        t = time.perf_counter()
        ref = maxmin_reference.simulate(machine, graph, exact=(mode == "exact"))
        ref_s = time.perf_counter() - t
        vs_ref = max_relative(sg["finish"], ref["finish"])
        row = {"case": name, "tasks": len(graph["tasks"]), "makespan": sg["makespan"],
               "dag_vs_ready": modes, "vs_reference": vs_ref, "reference": mode,
               "simgrid_s": sg_s, "reference_s": ref_s}
        failed |= modes > TOLERANCE or vs_ref > TOLERANCE
        if name in EXPECTED:
            row["vs_expected"] = max(max_relative(sg["finish"], EXPECTED[name]),
                                     max_relative(ref["finish"], EXPECTED[name]))
            failed |= row["vs_expected"] > TOLERANCE
        if args.ours:
            ours = run_json(shlex.split(args.ours) + [str(mpath), str(gpath)])
            row["vs_ours"] = max_relative(sg["finish"], ours["finish"])
            row["ours_makespan"] = ours["makespan"]
            failed |= row["vs_ours"] > TOLERANCE
        rows.append(row)
        line = (f"{name:34} {row['tasks']:6} tasks  makespan {sg['makespan']:<22.17g} "
                f"dag/ready {modes:.1e} {verdict(modes)}  reference ({mode}) {vs_ref:.1e} {verdict(vs_ref)}")
        if args.ours:
            line += f"  ours {row['vs_ours']:.1e} {verdict(row['vs_ours'])}"
        if name in EXPECTED:
            line += (f"  finishes {' '.join(f'{x:g}' for x in sg['finish'])}, by hand "
                     f"{' '.join(f'{x:g}' for x in EXPECTED[name])} {verdict(row['vs_expected'])}")
        print(line, flush=True)
    return rows, failed


def pipeline_speed(args):
    rows = []
    failed = False
    for nodes in [1, 4]:
        label = "16 cores" if nodes == 1 else "4 nodes with transfers"
        sg = [run_json([str(BINARY), "--pipeline", str(args.elements), str(nodes)]) for _ in range(args.runs)]
        row = {"pipeline": label, "elements": args.elements, "tasks": sg[0]["tasks"],
               "makespan": sg[0]["makespan"],
               "simgrid_build_s": statistics.median(r["build_s"] for r in sg),
               "simgrid_run_s": statistics.median(r["setup_s"] + r["run_s"] for r in sg)}
        by_hand = pipeline_makespan(args.elements, nodes)
        row["vs_by_hand"] = max_relative([row["makespan"]], [by_hand])
        failed |= row["vs_by_hand"] > TOLERANCE
        line = (f"pipeline, {label}: {row['tasks']} tasks, makespan {row['makespan']:.17g} "
                f"(by hand {by_hand:.17g}, {verdict(row['vs_by_hand'])}); SimGrid build "
                f"{row['simgrid_build_s']:.3f} s, simulate {row['simgrid_run_s']:.3f} s")
        if args.ours:
            ours = [run_json(shlex.split(args.ours) + ["--pipeline", str(args.elements), str(nodes)])
                    for _ in range(args.runs)]
            row["ours_build_s"] = statistics.median(r["build_s"] for r in ours)
            row["ours_run_s"] = statistics.median(r["run_s"] for r in ours)
            row["makespan_difference"] = max_relative([row["makespan"]], [ours[0]["makespan"]])
            row["ratio_simulate"] = row["simgrid_run_s"] / row["ours_run_s"]
            failed |= row["makespan_difference"] > TOLERANCE
            line += (f"; ours build {row['ours_build_s']:.3f} s, simulate {row['ours_run_s']:.3f} s, "
                     f"makespan {verdict(row['makespan_difference'])}; "
                     f"SimGrid/ours {row['ratio_simulate']:.1f}x")
        rows.append(row)
        print(line, flush=True)
    return rows, failed


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ours", help="command that takes MACHINE.json GRAPH.json (or --pipeline E N)")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--elements", type=int, default=62_500)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--no-speed", action="store_true", help="skip the pipeline timings")
    p.add_argument("--keep", type=Path, help="write the cases and a results.json here")
    p.add_argument("--only", type=lambda s: set(s.split(",")), help="case groups to run: a,b,c,d,e,f")
    args = p.parse_args()

    install_simgrid()
    build()
    directory = args.keep or Path(tempfile.mkdtemp(prefix="simgrid-compare-"))
    directory.mkdir(parents=True, exist_ok=True)
    rows, failed = compare_cases(args, directory)
    speed = []
    if not args.no_speed:
        speed, slow_failed = pipeline_speed(args)
        failed |= slow_failed
    if args.keep:
        (directory / "results.json").write_text(json.dumps({"cases": rows, "pipeline": speed}, indent=1))
    else:
        shutil.rmtree(directory)
    print("FAILED" if failed else "all checks pass")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
