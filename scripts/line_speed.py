#!/usr/bin/env python3
"""Times LINE's multi-class MVA solvers on the networks of `benches/queue.rs`.

Not run in CI. Installs LINE's Python package (`pip install line-solver`)
into a venv under /tmp on first use, then re-runs itself there. The networks
are those the bench builds (`classes` in benches/queue.rs): `R` classes of
`n` jobs over `M` single-server queues and a think time, class `c`'s demand
at queue `k` being `0.01 * (1 + (3k + 5c) mod 11)` and its think time
`1 + 0.5c`:

- exact MVA (`pfqn_mva`), 3 classes of 30 jobs over 20 queues;
- the Linearizer (`pfqn_linearizer`) and Bard-Schweitzer (`pfqn_bs`),
  10 classes of 20 jobs over 100 queues, at the tolerance of ours (1e-10)
  and at LINE's default.

Prints the median of `--repeats` timed calls of each (after one untimed
call) and the throughputs, to compare with those `cargo bench --bench queue`
prints first.

    python3 scripts/line_speed.py [--repeats 3]  # about 10 minutes: LINE's Linearizer takes a minute a call
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

VENV = "/tmp/line-venv"


def ensure_venv():
    """Re-executes this script in the venv, creating it if needed."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "line-solver"], check=True)
    os.execv(python, [python, *sys.argv])


def network(classes, stations):
    """The demand matrix (stations x classes) and think times of the bench."""
    import numpy as np

    demand = np.array(
        [[0.01 * (1 + (3 * k + 5 * c) % 11) for c in range(classes)] for k in range(stations)]
    )
    think = np.array([1.0 + 0.5 * c for c in range(classes)])
    return demand, think


def median_time(call, repeats):
    """The result of one untimed call and the median of `repeats` timed ones."""
    result = call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ensure_venv()
    import numpy as np
    from importlib.metadata import version
    from line_solver.api.pfqn.linearizer import pfqn_linearizer
    from line_solver.api.pfqn.mva import pfqn_bs, pfqn_mva

    print(f"line-solver {version('line-solver')}, numpy {np.__version__}")
    fmt = lambda xs: [f"{x:.10f}" for x in np.ravel(xs)]

    demand, think = network(3, 20)
    pops = np.array([30, 30, 30])
    result, t = median_time(lambda: pfqn_mva(demand, pops, think), args.repeats)
    print(f"exact (pfqn_mva), 3 classes of 30 jobs, 20 queues + think: median {t * 1e3:.2f} ms")
    print(f"  X: {fmt(result[0])}")

    demand, think = network(10, 100)
    pops = np.full(10, 20)
    sched = ["PS"] * 100
    for tol, label in [(1e-10, "tol 1e-10"), (1e-8, "LINE's default tol 1e-8")]:
        call = lambda: pfqn_linearizer(demand, pops, think, sched, tol=tol, maxiter=100000)
        result, t = median_time(call, args.repeats)
        print(
            f"Linearizer (pfqn_linearizer, {label}), 10 classes of 20 jobs, 100 queues + think:"
            f" median {t * 1e3:.2f} ms"
        )
        print(f"  X: {fmt(result[5])}")
    for tol, label in [(1e-10, "tol 1e-10"), (1e-6, "LINE's default tol 1e-6")]:
        call = lambda: pfqn_bs(demand, pops, think, tol=tol, maxiter=100000)
        result, t = median_time(call, args.repeats)
        print(
            f"Bard-Schweitzer (pfqn_bs, {label}), 10 classes of 20 jobs, 100 queues + think:"
            f" median {t * 1e3:.2f} ms"
        )
        print(f"  X: {fmt(result[0])}")


if __name__ == "__main__":
    main()
