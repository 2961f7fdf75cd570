#!/usr/bin/env python3
"""The simulator's speed against SimPy on the same model: a 16-stage
pipeline, stage s taking 100 + s ns per element, buffers of 4 places
between stages (blocking after service), one core per stage, N elements.

    python3 -m venv /tmp/simpy && /tmp/simpy/bin/pip install simpy
    /tmp/simpy/bin/python scripts/simpy_pipeline.py [N]

Runs SimPy, then `cargo run --release --example simulate -- --pipeline N`
(the same model in pattern), checks that both give the same makespan, and
prints both wall times and their ratio. Not run in CI (SimPy comes from
PyPI)."""
import subprocess
import sys
import time

import simpy

STAGES = 16
BUFFER = 4


def simpy_pipeline(n):
    env = simpy.Environment()
    # buffers[s] feeds stage s; the last stage feeds the sink.
    buffers = [None] + [simpy.Store(env, capacity=BUFFER) for _ in range(STAGES - 1)]
    done = {"count": 0, "last": 0.0}

    def stage(s):
        taken = 0
        while True:
            if s == 0:
                if taken == n:
                    return
                taken += 1
            else:
                yield buffers[s].get()
            yield env.timeout(100 + s)
            if s + 1 < STAGES:
                yield buffers[s + 1].put(1)  # blocks while the buffer is full
            else:
                done["count"] += 1
                done["last"] = env.now

    for s in range(STAGES):
        env.process(stage(s))
    env.run()
    assert done["count"] == n
    return done["last"]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    start = time.perf_counter()
    makespan = simpy_pipeline(n)
    simpy_seconds = time.perf_counter() - start
    out = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--example", "simulate", "--", "--pipeline", str(n)],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    ours_seconds, ours_makespan = float(out[0]), float(out[1])
    if abs(ours_makespan - makespan) > 1e-9 * makespan:
        sys.exit(f"the makespans differ: SimPy {makespan}, pattern {ours_makespan}")
    print(f"{STAGES}-stage pipeline, {n} elements, makespan {makespan:.0f} ns in both")
    print(f"SimPy {simpy.__version__}: {simpy_seconds:.3f} s; pattern: {ours_seconds:.3f} s; "
          f"ratio {simpy_seconds / ours_seconds:.0f}x")


if __name__ == "__main__":
    main()
