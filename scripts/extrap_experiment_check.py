#!/usr/bin/env python3
"""Check Extra-P's experiment files both ways against Extra-P itself (not
needed by CI).

For every text and JSON input under DIR (a checkout of Extra-P's
`tests/data`: `text/`, `json/`, `jsonlines/`, `talpas/`):

1. Ours read by Extra-P: `pattern fit --mean FILE --save-experiment OUT`,
   then Extra-P's own reader (`extrap.fileio.experiment_io`) loads OUT.
   Checked: every measurement's mean equals the one `pattern fit` printed
   (relative 1e-12), and each model, evaluated by Extra-P on those
   measurements (its `compute_cost`), has the RSS the file states
   (relative 1e-9): Extra-P reads the functions as we meant them.
2. Extra-P's read by us: `extrap --FORMAT FILE --save-experiment X` with and
   without `--keep-values`, then `pattern fit --mean X`. Checked: the same
   call paths, metrics, points and means (relative 1e-12), and with values
   kept, the same repetition counts.

3. Extra-P 3's legacy experiment files (any file under DIR that starts as
   one): Extra-P's `--extra-p-3` reader and `pattern fit --mean` give the
   same call paths, metrics, points and means (relative 1e-12), and
   `pattern fit` (the median) Extra-P's medians.

Installs Extra-P from PyPI into /tmp/pattern-extrap-venv (or $EXTRAP_VENV)
if needed; builds `pattern` in release mode.

Usage: python3 scripts/extrap_experiment_check.py DIR
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import extrap_env

ROOT = Path(__file__).resolve().parent.parent
FORMATS = {"text": "--text", "json": "--json", "jsonlines": "--json", "talpas": "--talpas"}

# Run inside Extra-P's environment: an Extra-P 3 file's means and medians.
LEGACY = r"""
import json, sys
from extrap.fileio.file_reader.extrap3_experiment_reader import Extrap3ExperimentFileReader
e = Extrap3ExperimentFileReader().read_experiment(sys.argv[1])
print(json.dumps({f"{cp}/{m}": [[list(x.coordinate), x.mean, x.median] for x in ms]
                  for (cp, m), ms in e.measurements.items()}))
"""


def check_legacy(pattern, python, path):
    """Extra-P 3's file read by both; a list of failures."""
    run = subprocess.run([python, "-c", LEGACY, str(path)], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"Extra-P cannot read it: {run.stderr.strip().splitlines()[-1]}"]
    theirs = json.loads(run.stdout)
    failures = []
    for which, flag in ((1, ["--mean"]), (2, [])):
        out = subprocess.run([pattern, "fit", *flag, "--json", str(path)], capture_output=True, text=True)
        if not out.stdout:
            return [f"pattern cannot read it: {out.stderr.strip()}"]
        ours = {f"{s['region']}/{s['metric']}": [(m["point"], m["mean"], 1) for m in s["measurements"]]
                for s in json.loads(out.stdout)["series"]}
        # Extra-P's rows are [coordinate, mean, median].
        expected = {k: [(x[0], x[which], 1) for x in pts] for k, pts in theirs.items()}
        problem = same_means(ours, expected, False)
        if problem:
            failures.append(f"{'means' if which == 1 else 'medians'}: {problem}")
    return failures


# Run inside Extra-P's environment: prints, per call path and metric, the
# means and repetitions, and each model's stated and recomputed RSS.
LOADER = r"""
import json, sys
from extrap.fileio.experiment_io import read_experiment
e = read_experiment(sys.argv[1])
out = {"measurements": {}, "models": []}
for (cp, m), ms in e.measurements.items():
    out["measurements"][f"{cp}/{m}"] = [[list(x.coordinate), x.mean, x.repetitions] for x in ms]
for modeler in e.modelers:
    for (cp, m), model in modeler.models.items():
        h = model.hypothesis
        stated = h.RSS
        # A constant hypothesis adds to its costs instead of setting them.
        h._RSS, h._rRSS = 0.0, 0.0
        h.compute_cost(e.measurements[(cp, m)])
        out["models"].append([f"{cp}/{m}", stated, h.RSS])
print(json.dumps(out))
"""


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def pattern_binary():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pattern"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "release" / "pattern")


def venv_python():
    return str(extrap_env.python())


def pattern_means(pattern, path):
    """`pattern fit --mean PATH --json`: {region/metric: [(point, mean, count)]}."""
    run = subprocess.run([pattern, "fit", "--mean", "--json", str(path)], capture_output=True, text=True)
    if run.returncode not in (0, 1) or not run.stdout:
        return None, run.stderr.strip()
    doc = json.loads(run.stdout)
    means = {}
    for s in doc["series"]:
        means[f"{s['region']}/{s['metric']}"] = [
            (m["point"], m["mean"], m["values"]) for m in s["measurements"]
        ]
    return means, ""


def same_means(ours, theirs, counts):
    """Whether two {series: [(point, mean, count)]} agree; Extra-P's text
    reader names a missing metric `` where ours says `<default>`."""
    rename = lambda series: {k + "<default>" if k.endswith("/") else k: v for k, v in series.items()}
    ours, theirs = rename(ours), rename(theirs)
    if set(ours) != set(theirs):
        return f"series differ: {sorted(set(ours) ^ set(theirs))[:4]}"
    for key in ours:
        a = sorted((tuple(p), m, n) for p, m, n in ours[key])
        b = sorted((tuple(p), m, n) for p, m, n in theirs[key])
        if len(a) != len(b) or any(pa != pb for (pa, _, _), (pb, _, _) in zip(a, b)):
            return f"{key}: points differ"
        for (p, ma, na), (_, mb, nb) in zip(a, b):
            if not close(ma, mb, 1e-12):
                return f"{key} at {p}: mean {ma} against {mb}"
            if counts and na != nb:
                return f"{key} at {p}: {na} repetitions against {nb}"
    return ""


def check(pattern, python, option, path, work):
    """Both directions for one input; a list of failures."""
    failures = []
    ours = work / "ours.extra-p"
    subprocess.run([pattern, "fit", "--mean", str(path), "--save-experiment", str(ours)], capture_output=True)
    means, err = pattern_means(pattern, path)
    if means is None:
        return [f"pattern cannot read it: {err}"]
    if ours.exists():
        run = subprocess.run([python, "-c", LOADER, str(ours)], capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"Extra-P cannot load ours: {run.stderr.strip().splitlines()[-1]}")
        else:
            doc = json.loads(run.stdout)
            theirs = {k: [(p, m, n) for p, m, n in v] for k, v in doc["measurements"].items()}
            problem = same_means(means, theirs, True)
            if problem:
                failures.append(f"ours in Extra-P: {problem}")
            for key, stated, recomputed in doc["models"]:
                if not close(stated, recomputed, 1e-9) and abs(stated - recomputed) > 1e-9:
                    failures.append(f"model {key}: RSS {stated} stated, {recomputed} by Extra-P")
    for keep in (True, False):
        theirs_file = work / "theirs.extra-p"
        theirs_file.unlink(missing_ok=True)
        args = [str(extrap_env.command()), option, str(path), "--save-experiment", str(theirs_file)]
        if keep:
            args.insert(1, "--keep-values")
        subprocess.run(args, capture_output=True)
        if not theirs_file.exists():
            continue
        # Extra-P keeps the repetitions of some readers only (not JSON's).
        kept = keep and "values/" in subprocess.run(["unzip", "-l", str(theirs_file)], capture_output=True, text=True).stdout
        read, err = pattern_means(pattern, theirs_file)
        if read is None:
            failures.append(f"we cannot read Extra-P's ({'values' if keep else 'means'}): {err}")
            continue
        problem = same_means(means, read, kept)
        if problem:
            failures.append(f"Extra-P's in ours ({'values' if keep else 'means'}): {problem}")
    return failures


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    data = Path(sys.argv[1])
    pattern, python = pattern_binary(), venv_python()
    total, bad = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for directory, option in FORMATS.items():
            for path in sorted((data / directory).rglob("*")):
                if not (path.is_file() and path.suffix.lower() in (".txt", ".json", ".jsonl")):
                    continue
                total += 1
                failures = check(pattern, python, option, path, work)
                if failures:
                    bad += 1
                    print(f"{path.relative_to(data)}:")
                    for f in failures:
                        print(f"  {f}")
    print(f"{total - bad} of {total} files agree both ways")
    legacy = [p for p in sorted(data.rglob("*")) if p.is_file() and p.read_bytes()[6:23] == b"EXTRAP_EXPERIMENT"]
    agree = 0
    for path in legacy:
        failures = check_legacy(pattern, python, path)
        agree += not failures
        for f in failures:
            print(f"{path.relative_to(data)}: {f}")
    print(f"{agree} of {len(legacy)} Extra-P 3 files read alike")


if __name__ == "__main__":
    main()
