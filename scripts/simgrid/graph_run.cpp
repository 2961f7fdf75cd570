// A flow graph on a machine, simulated by SimGrid (3.32, s4u API): the peer
// of pattern's own simulator in scripts/simgrid_compare.py. See README.md
// beside this file for the formats, the units and the configuration.
//
//   graph_run [--cfg=..] [--dag|--ready] MACHINE.json GRAPH.json
//       prints {"start": [..], "finish": [..], "makespan": x} (ns); dag mode
//       (SimGrid's activity dependencies) unless --ready
//   graph_run [--cfg=..] [--dag|--ready] --pipeline ELEMENTS NODES
//       the 16-stage pipeline of benches/sim.rs built in memory, timed;
//       ready mode unless --dag; prints {"mode": .., "tasks": n,
//       "build_s": .., "setup_s": .., "run_s": .., "makespan": x}
//
// Units map 1:1: one SimGrid second is one ns, a host's speed in flop/s is
// the node's speed, a compute task's flops are its ns at speed 1, a link's
// bandwidth in byte/s is its bytes per ns, a latency in s is its ns.

#include <simgrid/s4u.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using json = nlohmann::json;

XBT_LOG_NEW_DEFAULT_CATEGORY(graph_run, "A flow graph on a machine");

namespace {

// The options that make CM02 plain max-min fairness with latency as a pure
// delay, and full (non-lazy) updates. Given first, so that a --cfg on the
// command line overrides them.
const char* const DEFAULTS[] = {
    "--cfg=network/model:CM02",
    "--cfg=network/optim:Full",
    "--cfg=cpu/optim:Full",
    "--cfg=network/TCP-gamma:0",
    "--cfg=network/crosstraffic:0",
    "--cfg=network/weight-S:0",
    "--cfg=network/latency-factor:1",
    "--cfg=network/bandwidth-factor:1",
    "--cfg=maxmin/precision:1e-13",
    "--log=xbt_cfg.thres:warning",
};

[[noreturn]] void fail(const std::string& message)
{
  std::fprintf(stderr, "graph_run: %s\n", message.c_str());
  std::exit(2);
}

json read_json(const std::string& path)
{
  std::ifstream in(path);
  if (not in)
    fail("cannot open " + path);
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    fail(path + ": " + e.what());
  }
}

double number(const json& object, const char* key, double fallback, bool required, const std::string& where)
{
  auto it = object.find(key);
  if (it == object.end()) {
    if (required)
      fail(where + ": `" + key + "` is missing");
    return fallback;
  }
  if (not it->is_number())
    fail(where + ": `" + key + "` is not a number");
  return it->get<double>();
}

struct Link {
  double latency   = 0.0;
  double bandwidth = 1.0;
};

Link read_link(const json& j, const std::string& where)
{
  Link l;
  l.latency   = number(j, "latency_ns", 0.0, false, where);
  l.bandwidth = number(j, "bandwidth_bytes_per_ns", 1.0, true, where);
  return l;
}

// The machine: one host per node, a full zone whose routes are written out.
struct Machine {
  std::vector<sg4::Host*> hosts;
  // Whether every route between two nodes has the same latency (SimGrid
  // weighs a flow by its route's latency).
  bool one_latency = true;
  double latency   = 0.0; // a star's, or within a rack
  double between   = 0.0; // added between racks
  size_t per_rack  = 1;
  // The latency of the route from node i to node j (i != j), in ns.
  double route_latency(size_t i, size_t j) const
  {
    return i / per_rack == j / per_rack ? latency : latency + between;
  }
};

// Star: node n has a split-duplex link (up = out of n, down = into n) of
// latency L/2 each way, so a transfer's route {from up, to down} has
// latency L. Racks: a transfer between racks also crosses its sender
// rack's uplink up, the shared backbone and the receiver rack's uplink down.
Machine build_machine(const json& m)
{
  if (not m.contains("nodes") or not m["nodes"].is_array() or m["nodes"].empty())
    fail("machine: `nodes` must be a non-empty list of groups");
  struct NodeSpec {
    int cores;
    double speed;
  };
  std::vector<NodeSpec> nodes;
  for (size_t g = 0; g < m["nodes"].size(); g++) {
    const json& group = m["nodes"][g];
    std::string where = "machine: nodes[" + std::to_string(g) + "]";
    auto count  = static_cast<long>(number(group, "count", 1, false, where));
    auto cores  = static_cast<int>(number(group, "cores", 1, true, where));
    double speed = number(group, "speed", 1.0, false, where);
    if (count < 1 or cores < 1 or not(speed > 0))
      fail(where + ": count and cores >= 1, speed > 0");
    for (long i = 0; i < count; i++)
      nodes.push_back({cores, speed});
  }
  json net = m.value("network", json::object());
  std::string topology = net.value("topology", std::string("star"));
  std::string sharing  = net.value("sharing", std::string("max-min"));
  if (sharing != "max-min")
    fail("machine: sharing `" + sharing + "`: SimGrid's CM02 shares max-min only");
  double latency   = number(net, "latency_ns", 0.0, false, "machine: network");
  double bandwidth = number(net, "bandwidth_bytes_per_ns", 1.0, false, "machine: network");
  size_t per_rack  = nodes.size();
  Link uplink, backbone;
  if (topology == "racks") {
    if (not net.contains("racks"))
      fail("machine: topology racks needs `network.racks`");
    const json& r = net["racks"];
    per_rack      = static_cast<size_t>(number(r, "nodes_per_rack", 1, true, "machine: network.racks"));
    if (per_rack < 1)
      fail("machine: nodes_per_rack >= 1");
    uplink   = read_link(r.at("uplink"), "machine: network.racks.uplink");
    backbone = read_link(r.at("backbone"), "machine: network.racks.backbone");
  } else if (topology != "star") {
    fail("machine: unknown topology `" + topology + "`");
  }
  size_t n     = nodes.size();
  size_t racks = (n + per_rack - 1) / per_rack;

  Machine machine;
  auto* zone = sg4::create_full_zone("machine");
  for (size_t i = 0; i < n; i++) {
    auto* host = zone->create_host("node" + std::to_string(i), nodes[i].speed);
    host->set_core_count(nodes[i].cores);
    machine.hosts.push_back(host->seal());
  }
  std::vector<sg4::Link*> node_links;
  for (size_t i = 0; i < n; i++)
    node_links.push_back(zone->create_split_duplex_link("link" + std::to_string(i), bandwidth)
                             ->set_latency(latency / 2.0)
                             ->seal());
  std::vector<sg4::Link*> uplinks;
  sg4::Link* bb = nullptr;
  if (racks > 1) {
    for (size_t r = 0; r < racks; r++)
      uplinks.push_back(zone->create_split_duplex_link("uplink" + std::to_string(r), uplink.bandwidth)
                            ->set_latency(uplink.latency)
                            ->seal());
    bb = zone->create_link("backbone", backbone.bandwidth)
             ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
             ->set_latency(backbone.latency)
             ->seal();
  }
  using Dir = sg4::LinkInRoute::Direction;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      if (i == j)
        continue;
      std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(node_links[i], Dir::UP)};
      if (i / per_rack != j / per_rack) {
        route.emplace_back(uplinks[i / per_rack], Dir::UP);
        route.emplace_back(bb);
        route.emplace_back(uplinks[j / per_rack], Dir::DOWN);
      }
      route.emplace_back(node_links[j], Dir::DOWN);
      zone->add_route(machine.hosts[i]->get_netpoint(), machine.hosts[j]->get_netpoint(), nullptr, nullptr, route,
                      false);
    }
  zone->seal();
  machine.latency  = latency;
  machine.per_rack = per_rack;
  if (racks > 1) {
    machine.between     = 2.0 * uplink.latency + backbone.latency;
    machine.one_latency = machine.between == 0.0;
  }
  return machine;
}

struct Task {
  bool compute;
  int node, from, to;
  double amount; // ns at speed 1, or bytes
  std::vector<size_t> after;
};

std::vector<Task> read_graph(const json& g, size_t nodes)
{
  if (not g.contains("tasks") or not g["tasks"].is_array())
    fail("graph: `tasks` must be a list");
  std::vector<Task> tasks;
  for (size_t i = 0; i < g["tasks"].size(); i++) {
    const json& t     = g["tasks"][i];
    std::string where = "graph: tasks[" + std::to_string(i) + "]";
    Task task{};
    auto node_index = [&](const json& j, const char* key) {
      double v = number(j, key, 0, true, where);
      if (v < 0 or v >= static_cast<double>(nodes) or v != std::floor(v))
        fail(where + ": `" + key + "` is not a node of the machine");
      return static_cast<int>(v);
    };
    if (t.contains("compute")) {
      task.compute = true;
      task.node    = node_index(t["compute"], "node");
      task.amount  = number(t["compute"], "ns", 0, true, where + ".compute");
    } else if (t.contains("transfer")) {
      task.compute = false;
      task.from    = node_index(t["transfer"], "from");
      task.to      = node_index(t["transfer"], "to");
      task.amount  = number(t["transfer"], "bytes", 0, true, where + ".transfer");
      // SimGrid's payload is a whole number of bytes (uint64_t).
      if (task.amount != std::floor(task.amount) or task.amount > 9.007199254740992e15)
        fail(where + ": bytes must be a whole number (SimGrid's payload size is an integer)");
    } else {
      fail(where + ": neither `compute` nor `transfer`");
    }
    if (not(task.amount >= 0) or not std::isfinite(task.amount))
      fail(where + ": amount must be finite and >= 0");
    for (const json& d : t.value("after", json::array())) {
      if (not d.is_number_integer() or d.get<long>() < 0 or d.get<size_t>() >= i)
        fail(where + ": `after` may only name earlier tasks");
      task.after.push_back(d.get<size_t>());
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

// `after` waits for `before` to end (s4u's add_successor is public on the
// typed activities only).
void depend(const sg4::ActivityPtr& before, const sg4::ActivityPtr& after)
{
  if (auto* exec = dynamic_cast<sg4::Exec*>(before.get()))
    exec->add_successor(after);
  else
    static_cast<sg4::Comm*>(before.get())->add_successor(after);
}

// Whether a task takes no time: a compute of 0 ns, a transfer within a
// node, a transfer of 0 bytes over a route of no latency. Such tasks are
// not given to SimGrid (a transfer within a node would cross its loopback
// link): each ends when the last of its dependencies ends.
bool is_noop(const Task& t, const Machine& machine)
{
  if (t.compute)
    return t.amount == 0.0;
  return t.from == t.to or (t.amount == 0.0 and machine.route_latency(t.from, t.to) == 0.0);
}

sg4::ActivityPtr make_activity(const Task& t, const Machine& machine)
{
  if (t.compute)
    return sg4::Exec::init()->set_flops_amount(t.amount)->set_host(machine.hosts[t.node]);
  return sg4::Comm::sendto_init(machine.hosts[t.from], machine.hosts[t.to])
      ->set_payload_size(static_cast<uint64_t>(t.amount));
}

struct Times {
  std::vector<double> start, finish;
  double setup_s = 0.0; // creating the activities and their dependencies (dag mode)
  double run_s   = 0.0; // Engine::run (and, in ready mode, creating the activities)
};

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b)
{
  return std::chrono::duration<double>(b - a).count();
}

// Dag mode: every task an activity from the start, its dependencies given
// to SimGrid (add_successor), every activity vetoable_start()ed; SimGrid
// starts each when its last dependency ends. SimGrid 3.32 keeps every Exec
// created by maestro in one list that it scans whenever an Exec ends, so
// this mode costs time quadratic in the number of compute tasks.
Times run_dag(const Machine& machine, const std::vector<Task>& tasks)
{
  size_t n = tasks.size();
  Times times;
  auto t0 = Clock::now();
  std::vector<sg4::ActivityPtr> activity(n);
  std::vector<std::vector<size_t>> waits(n); // the activities each task waits for
  std::vector<size_t> deps;
  for (size_t i = 0; i < n; i++) {
    deps.clear();
    for (size_t d : tasks[i].after) {
      if (activity[d])
        deps.push_back(d);
      else
        deps.insert(deps.end(), waits[d].begin(), waits[d].end());
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    waits[i] = deps;
    if (is_noop(tasks[i], machine))
      continue;
    activity[i] = make_activity(tasks[i], machine);
    for (size_t d : deps)
      depend(activity[d], activity[i]);
  }
  for (auto& a : activity)
    if (a)
      a->vetoable_start();
  auto t1 = Clock::now();
  sg4::Engine::get_instance()->run();
  auto t2 = Clock::now();
  times.setup_s = seconds(t0, t1);
  times.run_s   = seconds(t1, t2);
  times.start.resize(n);
  times.finish.resize(n);
  for (size_t i = 0; i < n; i++) {
    if (activity[i]) {
      if (activity[i]->get_state() != sg4::Activity::State::FINISHED)
        fail("task " + std::to_string(i) + " did not finish (state " + activity[i]->get_state_str() + ")");
      times.start[i]  = activity[i]->get_start_time();
      times.finish[i] = activity[i]->get_finish_time();
    } else {
      double at = 0.0;
      for (size_t d : waits[i])
        at = std::max(at, times.finish[d]);
      times.start[i] = times.finish[i] = at;
    }
  }
  return times;
}

// Ready mode: a task becomes an activity, started at once, when its last
// dependency ends (heard through Activity::on_completion); SimGrid never
// holds more activities than are running. The same simulation as dag mode,
// without its quadratic cost.
Times run_ready(const Machine& machine, const std::vector<Task>& tasks)
{
  size_t n = tasks.size();
  Times times;
  times.start.assign(n, -1.0);
  times.finish.assign(n, -1.0);
  auto t0 = Clock::now();
  std::vector<size_t> first(n + 1, 0), next, pending(n, 0);
  {
    std::vector<size_t> deps;
    for (size_t i = 0; i < n; i++) {
      deps.assign(tasks[i].after.begin(), tasks[i].after.end());
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      pending[i] = deps.size();
      for (size_t d : deps)
        first[d + 1]++;
    }
    for (size_t i = 0; i < n; i++)
      first[i + 1] += first[i];
    next.resize(first[n]);
    std::vector<size_t> fill(first.begin(), first.end() - 1);
    for (size_t i = 0; i < n; i++) {
      deps.assign(tasks[i].after.begin(), tasks[i].after.end());
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (size_t d : deps)
        next[fill[d]++] = i;
    }
  }
  std::vector<sg4::ActivityPtr> live(n);
  std::vector<sg4::ActivityPtr> ended; // dropped later: an activity's complete() still runs after on_completion
  std::vector<size_t> ready;
  auto drain = [&]() {
    double now = sg4::Engine::get_clock();
    while (not ready.empty()) {
      size_t i = ready.back();
      ready.pop_back();
      times.start[i] = now;
      if (is_noop(tasks[i], machine)) {
        times.finish[i] = now;
        for (size_t k = first[i]; k < first[i + 1]; k++)
          if (--pending[next[k]] == 0)
            ready.push_back(next[k]);
        continue;
      }
      live[i] = make_activity(tasks[i], machine);
      live[i]->set_data(reinterpret_cast<void*>(i));
      live[i]->start();
    }
  };
  sg4::Activity::on_completion_cb([&](sg4::Activity const& a) {
    if (a.get_state() != sg4::Activity::State::FINISHED)
      fail("an activity failed");
    auto i = reinterpret_cast<size_t>(a.get_data<void>());
    if (ended.size() >= 4096)
      ended.clear(); // all of them have returned from complete() by now
    times.finish[i] = sg4::Engine::get_clock();
    ended.push_back(std::move(live[i]));
    for (size_t k = first[i]; k < first[i + 1]; k++)
      if (--pending[next[k]] == 0)
        ready.push_back(next[k]);
    drain();
  });
  for (size_t i = n; i-- > 0;)
    if (pending[i] == 0)
      ready.push_back(i);
  drain();
  sg4::Engine::get_instance()->run();
  auto t1 = Clock::now();
  times.run_s = seconds(t0, t1);
  for (size_t i = 0; i < n; i++)
    if (times.finish[i] < 0)
      fail("task " + std::to_string(i) + " did not finish");
  return times;
}

void print_double(double x)
{
  std::printf("%.17g", x);
}

void print_list(const std::vector<double>& xs)
{
  std::printf("[");
  for (size_t i = 0; i < xs.size(); i++) {
    if (i)
      std::printf(", ");
    print_double(xs[i]);
  }
  std::printf("]");
}

int run_graph(const std::string& machine_path, const std::string& graph_path, bool ready)
{
  Machine machine = build_machine(read_json(machine_path));
  if (not machine.one_latency)
    XBT_WARN("routes differ in latency: CM02 then shares a link in proportion to 1/latency, not max-min");
  std::vector<Task> tasks = read_graph(read_json(graph_path), machine.hosts.size());
  Times times = ready ? run_ready(machine, tasks) : run_dag(machine, tasks);
  double makespan = 0.0;
  for (double f : times.finish)
    makespan = std::max(makespan, f);
  std::printf("{\"start\": ");
  print_list(times.start);
  std::printf(", \"finish\": ");
  print_list(times.finish);
  std::printf(", \"makespan\": ");
  print_double(makespan);
  std::printf("}\n");
  return 0;
}

// benches/sim.rs's pipeline: stage s of element i after stage s of element
// i - 1 and stage s - 1 of element i, 100 + s ns each; stage s on node
// s * nodes / 16; a hand-over between nodes is a transfer of 1024 bytes.
// One node has 16 cores; over 4 nodes, each has 4 cores and the network a
// latency of 1000 ns and 10 bytes per ns (the bench's platforms).
int run_pipeline(long elements, int nodes, bool ready)
{
  const int stages = 16;
  json m = {{"nodes", {{{"count", nodes}, {"cores", nodes == 1 ? 16 : 4}, {"speed", 1.0}}}},
            {"network", {{"topology", "star"}, {"latency_ns", 1000.0}, {"bandwidth_bytes_per_ns", 10.0}}}};
  Machine machine = build_machine(m);

  auto t0 = Clock::now();
  std::vector<Task> tasks;
  std::vector<long> previous(stages, -1);
  for (long i = 0; i < elements; i++) {
    long before = -1;
    for (int s = 0; s < stages; s++) {
      int node = s * nodes / stages;
      Task step{true, node, 0, 0, 100.0 + s, {}};
      if (previous[s] >= 0)
        step.after.push_back(previous[s]);
      if (before >= 0) {
        int from = (s - 1) * nodes / stages;
        if (from == node) {
          step.after.push_back(before);
        } else {
          tasks.push_back(Task{false, 0, from, node, 1024.0, {static_cast<size_t>(before)}});
          step.after.push_back(tasks.size() - 1);
        }
      }
      tasks.push_back(std::move(step));
      previous[s] = before = static_cast<long>(tasks.size()) - 1;
    }
  }
  auto t1 = Clock::now();
  Times times = ready ? run_ready(machine, tasks) : run_dag(machine, tasks);
  std::printf("{\"mode\": \"%s\", \"tasks\": %zu, \"build_s\": ", ready ? "ready" : "dag", tasks.size());
  print_double(seconds(t0, t1));
  std::printf(", \"setup_s\": ");
  print_double(times.setup_s);
  std::printf(", \"run_s\": ");
  print_double(times.run_s);
  std::printf(", \"makespan\": ");
  print_double(sg4::Engine::get_clock());
  std::printf("}\n");
  return 0;
}

} // namespace

int main(int argc, char* argv[])
{
  std::vector<char*> args{argv[0]};
  for (const char* d : DEFAULTS)
    args.push_back(const_cast<char*>(d));
  for (int i = 1; i < argc; i++)
    args.push_back(argv[i]);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  sg4::Engine e(&count, args.data());
  std::vector<std::string> rest;
  bool ready = false, dag = false;
  for (int i = 1; i < count; i++) {
    std::string a = args[i];
    if (a == "--ready")
      ready = true;
    else if (a == "--dag")
      dag = true;
    else
      rest.push_back(a);
  }
  if (ready and dag)
    fail("--ready and --dag exclude each other");
  if (rest.size() == 3 and rest[0] == "--pipeline") {
    long elements = std::atol(rest[1].c_str());
    int nodes     = std::atoi(rest[2].c_str());
    if (elements < 1 or (nodes != 1 and nodes != 4))
      fail("--pipeline ELEMENTS NODES: ELEMENTS >= 1, NODES 1 or 4");
    return run_pipeline(elements, nodes, not dag);
  }
  if (rest.size() != 2)
    fail("usage: graph_run [--cfg=..] [--dag|--ready] MACHINE.json GRAPH.json\n"
         "       graph_run [--cfg=..] [--dag|--ready] --pipeline ELEMENTS NODES");
  return run_graph(rest[0], rest[1], ready);
}
