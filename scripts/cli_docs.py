#!/usr/bin/env python3
"""Rewrites the output shown under every `$ pattern ...` command of
docs/cli.md with what the command prints now (standard output, then
standard error), as tests/cli.rs's `the_docs_show_real_output` checks it.

    cargo build --release --bin pattern && python3 scripts/cli_docs.py

Run from anywhere; the commands run in the repository's root. Prints the
commands whose output changed."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "pattern"


def words(command):
    """Splits as the test does: on spaces, single quotes group."""
    out, word, quoted, any_ = [], "", False, False
    for c in command:
        if c == "'":
            quoted, any_ = not quoted, True
        elif c == " " and not quoted:
            if any_:
                out.append(word)
            word, any_ = "", False
        else:
            word, any_ = word + c, True
    if any_:
        out.append(word)
    return out


def main():
    if not BIN.exists():
        sys.exit(f"build the command line first: cargo build --release --bin pattern ({BIN})")
    doc_path = ROOT / "docs" / "cli.md"
    doc = doc_path.read_text()
    block = re.compile(r"```console\n\$ pattern (.*?)\n(.*?)```", re.S)

    def rewrite(m):
        command, shown = m.group(1), m.group(2)
        run = subprocess.run([str(BIN), *words(command)], cwd=ROOT, capture_output=True, text=True)
        got = (run.stdout + run.stderr).rstrip() + "\n"
        if got.rstrip() != shown.rstrip():
            print(f"changed: pattern {command}")
        return f"```console\n$ pattern {command}\n{got}```"

    doc_path.write_text(block.sub(rewrite, doc))


if __name__ == "__main__":
    main()
