#!/usr/bin/env python3
"""A reference event simulator of flow graphs, independent of SimGrid and of
pattern's simulator, to check both on small cases.

    python3 scripts/simgrid/maxmin_reference.py MACHINE.json GRAPH.json [--float]

prints {"start": [..], "finish": [..], "makespan": x} (ns), as graph_run does.

The model (pattern-core/src/sim and machine/network.rs):

- Cores: the k compute tasks running on a node of c cores at speed v each
  progress at v * min(1, c/k) ns of work per ns (processor sharing, one core
  at most per task).
- Links: every node has a link out and a link in (full duplex); with racks,
  every rack an uplink up and an uplink down, and one backbone that every
  transfer between racks crosses in either direction. A transfer crosses the
  links of its route; the transfers moving bytes share the links max-min
  (progressive filling: every rate grows at the same pace until a link is
  full; the transfers crossing a full link keep their rate).
- Latency: the sum of the route's latencies, a delay before the bytes move,
  during which the transfer occupies no link. A transfer of 0 bytes takes its
  latency; one within a node, or of 0 bytes over a route of no latency,
  takes no time; so does a compute task of 0 ns.
- Dependencies: a task starts when every task it names in `after` has ended.

By default the arithmetic is exact (fractions.Fraction, from the exact values
of the JSON's doubles), so its times are the model's, rounded once at the
end; `--float` uses doubles, for graphs too large for fractions.
"""
import json
import sys
from fractions import Fraction


class Machine:
    """Nodes (cores, speed) and links (capacities), with routes."""

    def __init__(self, m, num):
        self.cores, self.speed = [], []
        for g in m["nodes"]:
            for _ in range(int(g.get("count", 1))):
                self.cores.append(int(g["cores"]))
                self.speed.append(num(g.get("speed", 1.0)))
        n = len(self.cores)
        net = m.get("network", {})
        if net.get("sharing", "max-min") != "max-min":
            raise SystemExit("maxmin_reference: only max-min sharing")
        self.latency = num(net.get("latency_ns", 0.0))
        bw = num(net.get("bandwidth_bytes_per_ns", 1.0))
        self.capacity = [bw] * (2 * n)
        self.per_rack = n
        self.racks = 1
        if net.get("topology", "star") == "racks":
            r = net["racks"]
            self.per_rack = int(r["nodes_per_rack"])
            self.racks = (n + self.per_rack - 1) // self.per_rack
            up, bb = r["uplink"], r["backbone"]
            self.uplink_latency = num(up.get("latency_ns", 0.0))
            self.backbone_latency = num(bb.get("latency_ns", 0.0))
            self.capacity += [num(up["bandwidth_bytes_per_ns"])] * (2 * self.racks)
            self.capacity.append(num(bb["bandwidth_bytes_per_ns"]))
        self.nodes = n

    def route(self, a, b):
        """The links (numbered as network.rs's Network::links) and the
        latency of a transfer from node a to node b != a."""
        n = self.nodes
        links = [a, n + b]
        latency = self.latency
        ra, rb = a // self.per_rack, b // self.per_rack
        if self.racks > 1 and ra != rb:
            links += [2 * n + ra, 2 * n + self.racks + rb, 2 * n + 2 * self.racks]
            latency = latency + 2 * self.uplink_latency + self.backbone_latency
        return links, latency


def max_min(flows, capacity):
    """Rates of `flows` (id -> links) by progressive filling."""
    remaining = {}
    crossing = {}
    for f, links in flows.items():
        for l in links:
            remaining[l] = capacity[l]
            crossing.setdefault(l, set()).add(f)
    rate = {}
    unfixed = set(flows)
    while unfixed:
        level = min(remaining[l] / len(fs) for l, fs in crossing.items() if fs)
        full = [l for l, fs in crossing.items() if fs and remaining[l] / len(fs) == level]
        fixed = set()
        for l in full:
            fixed |= crossing[l]
        for f in fixed:
            rate[f] = level
            unfixed.discard(f)
            for l in flows[f]:
                remaining[l] -= level
                crossing[l].discard(f)
    return rate


def simulate(machine_json, graph_json, exact=True):
    num = Fraction if exact else float
    m = Machine(machine_json, num)
    tasks = graph_json["tasks"]
    n = len(tasks)
    waiting = [0] * n
    successors = [[] for _ in range(n)]
    for i, t in enumerate(tasks):
        deps = set(t.get("after", []))
        for d in deps:
            if not 0 <= d < i:
                raise SystemExit(f"maxmin_reference: task {i} depends on {d}, not an earlier task")
            successors[d].append(i)
        waiting[i] = len(deps)
    start = [None] * n
    finish = [None] * n
    now = num(0)
    computes = {}  # task -> remaining work (ns at speed 1)
    latent = {}  # task -> time its bytes start to move
    moving = {}  # task -> remaining bytes
    route = {}
    ready = [i for i in range(n) if waiting[i] == 0]

    def end(i):
        finish[i] = now
        for s in successors[i]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)

    def begin(i):
        start[i] = now
        t = tasks[i]
        if "compute" in t:
            ns = num(t["compute"]["ns"])
            if ns == 0:
                end(i)
            else:
                computes[i] = ns
            return
        tr = t["transfer"]
        a, b, size = tr["from"], tr["to"], num(tr["bytes"])
        if a == b:
            end(i)
            return
        links, latency = m.route(a, b)
        route[i] = links
        if latency > 0:
            latent[i] = now + latency
        elif size > 0:
            moving[i] = size
        else:
            end(i)

    while True:
        while ready:
            begin(ready.pop())
        if not (computes or latent or moving):
            break
        # Rates now.
        per_node = {}
        for i in computes:
            per_node.setdefault(tasks[i]["compute"]["node"], []).append(i)
        rate = {}
        for node, ts in per_node.items():
            share = min(num(1), num(m.cores[node]) / len(ts)) if exact else min(1.0, m.cores[node] / len(ts))
            for i in ts:
                rate[i] = m.speed[node] * share
        rate.update(max_min({i: route[i] for i in moving}, m.capacity))
        # The next event.
        ends = {i: now + computes[i] / rate[i] for i in computes}
        ends.update({i: now + moving[i] / rate[i] for i in moving})
        ends.update(latent)
        at = min(ends.values())
        if exact:
            due = [i for i, t in ends.items() if t == at]
        else:
            due = [i for i, t in ends.items() if t <= at + 1e-12 * abs(at)]
        dt = at - now
        for i in computes:
            computes[i] -= rate[i] * dt
        for i in moving:
            moving[i] -= rate[i] * dt
        now = at
        for i in sorted(due):
            if i in computes:
                del computes[i]
                end(i)
            elif i in moving:
                del moving[i]
                end(i)
            else:
                del latent[i]
                size = num(tasks[i]["transfer"]["bytes"])
                if size > 0:
                    moving[i] = size
                else:
                    end(i)
    if any(f is None for f in finish):
        raise SystemExit("maxmin_reference: some tasks never started (a cycle?)")
    finish = [float(f) for f in finish]
    return {"start": [float(s) for s in start], "finish": finish, "makespan": max(finish, default=0.0)}


def main():
    args = [a for a in sys.argv[1:] if a != "--float"]
    if len(args) != 2:
        raise SystemExit(__doc__)
    with open(args[0]) as f:
        machine = json.load(f)
    with open(args[1]) as f:
        graph = json.load(f)
    r = simulate(machine, graph, exact="--float" not in sys.argv)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
