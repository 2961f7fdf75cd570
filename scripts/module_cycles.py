#!/usr/bin/env python3
"""Fails when a crate's modules import each other in a cycle.

A module depends on another when its code (comments and `mod tests` left
out) names it through `crate::` or `super::`. Usage:
    scripts/module_cycles.py pattern-core/src pattern-core/design/src ...
Prints each crate's cycles (strongly connected components of two modules or
more) and exits 1 if any crate has one.
"""
import os
import re
import sys


def modules(root):
    found = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            parts = os.path.relpath(path, root)[:-3].split("/")
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if parts and parts[-1] == "tests":
                continue
            src = open(path, encoding="utf-8").read()
            src = re.split(r"#\[cfg\(test\)\]\s*(?:pub\(crate\)\s*)?mod tests", src)[0]
            src = "\n".join(l for l in src.split("\n") if not l.strip().startswith("//"))
            found["::".join(parts) or "crate"] = src
    return found


def edges(mods):
    names = set(mods)
    out = {m: set() for m in mods}
    for m, src in mods.items():
        refs = [((), r) for r in re.findall(r"crate::((?:\w+::)*\w+)", src)]
        refs += [(tuple(m.split("::")[:-1]), r) for r in re.findall(r"super::((?:\w+::)*\w+)", src)]
        for base, ref in refs:
            segs = list(base) + ref.split("::")
            for k in range(len(segs), 0, -1):
                cand = "::".join(segs[:k])
                if cand in names:
                    related = cand == m or m.startswith(cand + "::") or cand.startswith(m + "::")
                    if not related:
                        out[m].add(cand)
                    break
    return out


def cycles(graph):
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    bad = False
    for root in sys.argv[1:]:
        found = cycles(edges(modules(root)))
        print(f"{root}: {'no import cycle' if not found else found}")
        bad |= bool(found)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
