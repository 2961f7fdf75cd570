#!/usr/bin/env python3
"""Compare our CUBE reader (`Experiment::read_cube`) with Extra-P's own
(`CubeFileReader2`, what `extrap --cube` uses) on directories of CUBE runs
(not needed by CI).

For every DIR given (e.g. the subdirectories of a checkout of Extra-P's
`tests/data/cubeset`), and for each scaling (weak, weak_threaded, strong)
and value kind (exclusive, inclusive), both readers read DIR; compared:
the parameters, the set of (call path, metric) series, their points, and
each point's mean (relative 1e-9; Extra-P's `Measurement.mean`, ours the
mean of the point's values). Medians are compared too and counted apart.

- A directory that Extra-P refuses (FileFormatError) must be refused by
  ours too. Where Extra-P fails otherwise (a crash on a metric it cannot
  read), Extra-P is run again on the metrics ours read, and ours must say
  in `skipped` what it left out (printed).
- Call paths measured at only some points: Extra-P 4.2.5 means to merge
  them into their nearest caller measured everywhere (exclusive values),
  but its search starts at the call path itself, which is still there, so
  it drops them instead; ours merges them. Where ours merged (its `skipped`
  says so), Extra-P is run a second time with that search starting at the
  caller ("merge fixed"), and the means must agree with that run, except
  weak-threaded ones at the callers merged into (Extra-P adds the means of
  the non-zero values, ours leaves the zeros of the sum out): reported.

Our side is a throwaway Cargo project in a temporary directory that depends
on ./pattern-core (feature `extrap-archives`) by path and prints the series
as JSON; nothing is written in the repository. Extra-P is taken from
/tmp/pattern-extrap-venv (or $EXTRAP_VENV), installed from PyPI
(extrap==4.2.5) if missing.

Usage:
    mkdir /tmp/xcube && git --git-dir=EXTRAP.git archive HEAD tests/data/cubeset | tar -x -C /tmp/xcube
    python3 scripts/extrap_cube_compare.py /tmp/xcube/tests/data/cubeset/*/
Exit status 1 if any disagreement is found.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import extrap_env

ROOT = Path(__file__).resolve().parent.parent
SCALINGS = ["weak", "weak_threaded", "strong"]
REL = 1e-9

# Run in Extra-P's environment: argv = dir scaling inclusive(0/1)
# metrics(JSON list or "-": Extra-P's `selected_metrics`) fix_merge(0/1).
EXTRAP_READER = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from extrap.entities.callpath import Callpath
from extrap.fileio.file_reader.cube_file_reader2 import CubeFileReader2
from extrap.entities.scaling_type import ScalingType

def merge_from_caller(experiment, to_merge, progress_bar=None):
    # Extra-P's merge, its search for the caller starting one level up.
    for key in to_merge:
        callpath, metric = key
        name, target = callpath.name, None
        while target is None and "->" in name:
            name = name.rsplit("->", 1)[0]
            if (Callpath(name), metric) in experiment.measurements:
                target = (Callpath(name), metric)
        if target is not None:
            at = {m.coordinate: m for m in experiment.measurements[target]}
            for m in experiment.measurements[key]:
                if m.coordinate in at:
                    at[m.coordinate].merge(m)
                else:
                    m.callpath = target[0]
                    experiment.measurements[target].append(m)
        del experiment.measurements[key]

reader = CubeFileReader2()
reader.scaling_type = ScalingType(sys.argv[2])
reader.use_inclusive_measurements = sys.argv[3] == "1"
if sys.argv[4] != "-":
    # (Compared with the CUBE metrics' names: strings.)
    reader.selected_metrics = json.loads(sys.argv[4])
if sys.argv[5] == "1":
    CubeFileReader2._merge_callpaths_into_existing_calltree = staticmethod(merge_from_caller)
try:
    e = reader.read_experiment(sys.argv[1])
except Exception as x:
    print(json.dumps({"error": f"{type(x).__name__}: {x}"}))
    sys.exit(0)
out = {"parameters": [str(p) for p in e.parameters], "series": {}}
for (cp, m), ms in e.measurements.items():
    out["series"][f"{cp}\t{m}"] = [[list(x.coordinate), float(x.mean), float(x.median)] for x in ms]
print(json.dumps(out))
"""

OUR_MAIN = r"""
use pattern_core::fit::extrap_io::{CubeOptions, Experiment, Scaling};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scaling = match args[2].as_str() {
        "weak" => Scaling::Weak,
        "weak_threaded" => Scaling::WeakThreaded,
        _ => Scaling::Strong,
    };
    let options = CubeOptions { scaling, inclusive: args[3] == "1", ..CubeOptions::default() };
    let read = match Experiment::read_cube(&args[1], &options) {
        Ok(r) => r,
        Err(e) => {
            println!("{}", serde_json::json!({ "error": e.to_string() }));
            return;
        }
    };
    let mut series = serde_json::Map::new();
    for s in &read.experiment.series {
        let points: Vec<serde_json::Value> = s
            .points
            .iter()
            .map(|p| serde_json::json!([p.coordinate, p.values]))
            .collect();
        series.insert(format!("{}\t{}", s.region, s.metric), points.into());
    }
    let out = serde_json::json!({
        "parameters": read.experiment.parameters,
        "series": series,
        "skipped": read.skipped,
    });
    println!("{out}");
}
"""

# Ours' note of call paths merged into a caller: metric, caller.
MERGED = re.compile(r"^metric `([^`]*)`: \d+ call paths? measured at only some points merged into `([^`]*)`")


def extrap_python():
    return extrap_env.python()


def our_binary(work):
    project = Path(work) / "cube_dump"
    (project / "src").mkdir(parents=True)
    (project / "Cargo.toml").write_text(
        "[package]\nname = \"cube_dump\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n"
        "[dependencies]\n"
        f"pattern-core = {{ path = \"{ROOT / 'pattern-core'}\", features = [\"extrap-archives\"] }}\n"
        "serde_json = \"1\"\n\n[workspace]\n"
    )
    (project / "src" / "main.rs").write_text(OUR_MAIN)
    target = os.environ.get("CARGO_TARGET_DIR", str(Path(work) / "target"))
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--manifest-path", str(project / "Cargo.toml")],
        check=True,
        env={**os.environ, "CARGO_TARGET_DIR": target},
    )
    return Path(target) / "release" / "cube_dump"


def run(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-300)


def compare(extrap, ours):
    """(series, points, agreeing means, differing medians, mean mismatches
    as (key, text), other problems)."""
    problems = []
    if extrap["parameters"] != ours["parameters"]:
        problems.append(f"parameters {extrap['parameters']} vs {ours['parameters']}")
    keys_e, keys_o = set(extrap["series"]), set(ours["series"])
    problems += [f"only Extra-P has {k!r}" for k in sorted(keys_e - keys_o)]
    problems += [f"only ours has {k!r}" for k in sorted(keys_o - keys_e)]
    n_points = n_agree = n_medians = 0
    mismatches = []
    for k in sorted(keys_e & keys_o):
        e_points = {tuple(c): (mean, median) for c, mean, median in extrap["series"][k]}
        o_points = {tuple(c): values for c, values in ours["series"][k]}
        if set(e_points) != set(o_points):
            problems.append(f"{k!r}: points {sorted(e_points)} vs {sorted(o_points)}")
            continue
        for c, (mean, median) in e_points.items():
            n_points += 1
            values = o_points[c]
            if close(mean, statistics.fmean(values)):
                n_agree += 1
            else:
                mismatches.append((k, f"{k!r} at {c}: mean {mean!r} vs ours {statistics.fmean(values)!r}"))
            n_medians += not close(median, statistics.median(values))
    return len(keys_e & keys_o), n_points, n_agree, n_medians, mismatches, problems


def check(python, binary, d, scaling, inclusive):
    """Prints one comparison; returns whether it failed."""
    label = f"{d.name} {scaling} {'inclusive' if inclusive == '1' else 'exclusive'}"
    extrap = run([str(python), "-c", EXTRAP_READER, str(d), scaling, inclusive, "-", "0"])
    ours = run([str(binary), str(d), scaling, inclusive])
    if "error" in extrap and "error" in ours:
        print(f"{label}: both refuse: Extra-P {extrap['error']!r}; ours {ours['error']!r}")
        return False
    metrics = "-"
    if "error" in extrap and not extrap["error"].startswith("FileFormatError") and "error" not in ours:
        print(f"{label}: Extra-P fails ({extrap['error'][:100]}); ours skipped:")
        for s in ours["skipped"]:
            print(f"  {s}")
        metrics = json.dumps(sorted({k.split("\t")[1] for k in ours["series"]}))
        label += " (Extra-P on the metrics ours read)"
        extrap = run([str(python), "-c", EXTRAP_READER, str(d), scaling, inclusive, metrics, "0"])
    if "error" in extrap or "error" in ours:
        print(f"{label}: DISAGREE: Extra-P {extrap.get('error', 'reads it')}; ours {ours.get('error', 'reads it')}")
        return True
    n_series, n_points, n_agree, n_medians, mismatches, problems = compare(extrap, ours)
    merged_into = {f"{m[2]}\t{m[1]}" for m in map(MERGED.match, ours["skipped"]) if m}
    failed = bool(problems)
    report = f"{label}: {n_series} series, {n_agree}/{n_points} point means agree, medians differ at {n_medians}"
    if mismatches and all(k in merged_into for k, _ in mismatches):
        report += f"; the {len(mismatches)} others at callers ours merged into"
        fixed = run([str(python), "-c", EXTRAP_READER, str(d), scaling, inclusive, metrics, "1"])
        _, _, f_agree, _, f_mismatches, f_problems = compare(fixed, ours)
        report += f"; with Extra-P's merge fixed: {f_agree}/{n_points} agree"
        expected = scaling == "weak_threaded" and all(k in merged_into for k, _ in f_mismatches)
        if f_mismatches and expected:
            report += f" (the {len(f_mismatches)} others weak-threaded at merge callers, as documented)"
        failed |= bool(f_problems) or (bool(f_mismatches) and not expected)
        problems += f_problems
    else:
        failed |= bool(mismatches)
        problems += [text for _, text in mismatches]
    print(report + (": DISAGREE" if failed else ""))
    for p in problems[:20]:
        print(f"  {p}")
    return failed


def main():
    dirs = [Path(d) for d in sys.argv[1:]]
    if not dirs:
        print(__doc__)
        return 2
    python = extrap_python()
    failed = False
    with tempfile.TemporaryDirectory() as work:
        binary = our_binary(work)
        for d in dirs:
            for scaling in SCALINGS:
                for inclusive in ["0", "1"]:
                    failed |= check(python, binary, d, scaling, inclusive)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
