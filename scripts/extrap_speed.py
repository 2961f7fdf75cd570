#!/usr/bin/env python3
"""Time `pattern fit` against Extra-P's command line on Extra-P's own test
data, file by file, process start included (not needed by CI).

1. Installs Extra-P from PyPI into a virtual environment (default
   /tmp/pattern-extrap-venv, or $EXTRAP_VENV) unless it is there.
2. Builds `pattern` in release mode.
3. For every input under DIR (a checkout of Extra-P's `tests/data`: the
   text, JSON, JSON Lines and Talpas files of `text/`, `json/`,
   `jsonlines/`, `talpas/` and `input/`, the experiment files (`.extra-p`)
   and each CUBE set of `cubeset/`; Extra-P 3's legacy experiments are left
   out), runs `extrap --FORMAT INPUT` and `pattern fit INPUT` in turn,
   ROUNDS times each, and keeps each one's median wall time.
4. Reports, per format and in all: the files, the time of each tool summed,
   the ratio of the sums and the median ratio per file, and the files
   `pattern fit` could not read or fit in part (with its message).

Usage: python3 scripts/extrap_speed.py DIR [--rounds N] [--json OUT]
(DIR: e.g. `git clone https://github.com/extra-p/extrap` and its tests/data.)
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import extrap_env

ROOT = Path(__file__).resolve().parent.parent

# Extra-P's input option for each format of its test data.
FORMATS = {
    "text": "--text",
    "json": "--json",
    "jsonlines": "--json",
    "talpas": "--talpas",
    "experiment": "--experiment",
    "cube": "--cube",
}


def extrap_binary():
    """The `extrap` command of the virtual environment, installed once."""
    return str(extrap_env.command())


def pattern_binary():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pattern"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "release" / "pattern")


def file_format(data, path):
    """The format of an input file, by its directory and extension; None
    for what is not an input (scripts, Extra-P 3's legacy experiments)."""
    top = path.relative_to(data).parts[0]
    suffix = path.suffix.lower()
    if suffix == ".extra-p":
        return "experiment"
    if suffix == ".json":
        return "json"
    if suffix == ".jsonl":
        return "jsonlines"
    if suffix == ".txt" and top == "talpas":
        return "talpas"
    if suffix == ".txt" and top in ("text", "input"):
        return "text"
    return None


def inputs(data):
    """(format, option, path) for every input under `data`: the files, and
    each CUBE set (a directory of `cubeset/`)."""
    found = []
    for path in sorted(data.rglob("*")):
        if path.is_file() and "cubeset" not in path.parts:
            kind = file_format(data, path)
            if kind:
                found.append((kind, FORMATS[kind], path))
    cubes = data / "cubeset"
    if cubes.is_dir():
        for path in sorted(cubes.iterdir()):
            if path.is_dir():
                found.append(("cube", "--cube", path))
    return found


def timed(command):
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    return time.perf_counter() - start, run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="Extra-P's tests/data directory")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write every file's times here")
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"{args.data}: not a directory")
    extrap, pattern = extrap_binary(), pattern_binary()
    rows = []
    for directory, option, path in inputs(args.data):
        extrap_times, pattern_times = [], []
        for _ in range(args.rounds):
            t, e = timed([extrap, option, str(path), "--disable-progress"])
            extrap_times.append(t)
            t, p = timed([pattern, "fit", str(path)])
            pattern_times.append(t)
        if p.returncode == 0:
            outcome = "ok"
        elif "no model:" in p.stdout:
            outcome = "partial: " + next(l.strip() for l in p.stdout.splitlines() if "no model:" in l)
        else:
            outcome = "error: " + (p.stderr.strip().splitlines() or ["?"])[0]
        rows.append({
            "format": directory,
            "file": str(path.relative_to(args.data)),
            "extrap_s": statistics.median(extrap_times),
            "extrap_ok": e.returncode == 0,
            "pattern_s": statistics.median(pattern_times),
            "pattern": outcome,
        })
    print(f"Extra-P's command line against `pattern fit` on {args.data}, {args.rounds} rounds, medians\n")
    print("| format | files | Extra-P read | pattern read | Extra-P s | pattern s | ratio of sums | median ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in list(FORMATS) + ["all"]:
        chosen = [r for r in rows if name in ("all", r["format"])]
        if not chosen:
            continue
        e = sum(r["extrap_s"] for r in chosen)
        p = sum(r["pattern_s"] for r in chosen)
        ratio = statistics.median(r["extrap_s"] / r["pattern_s"] for r in chosen)
        read_e = sum(r["extrap_ok"] for r in chosen)
        read_p = sum(not r["pattern"].startswith("error") for r in chosen)
        print(f"| {name} | {len(chosen)} | {read_e} | {read_p} | {e:.2f} | {p:.3f} | {e / p:.0f}x | {ratio:.0f}x |")
    failed = [r for r in rows if r["pattern"] != "ok"]
    if failed:
        print("\nFiles `pattern fit` did not read or fit whole:")
        for r in failed:
            print(f"- {r['file']}: {r['pattern']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
