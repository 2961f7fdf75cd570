#!/usr/bin/env python3
"""Fails when a module outside the grammar crate walks a term by matching
on `Term`'s variants (issue 34: the fold everywhere).

The rule. Outside `pattern-core/design/src`, a pattern (a `match` arm,
`if let`, `let .. else`, `while let`) on a `Term` variant may read the
node's own parameters (`Term::Tpool(n, _)`, `Term::MapReduce { params, .. }`)
but may not bind a sub-term (`Term::Seq(a, b)`, `Term::Tpool(_, body)`,
`Term::MapReduce { map, .. }`): binding the parts is how a walk recurses,
and walks go through the grammar's fold, `Term::preorder`, `Term::chain`,
`Term::children` and `Term::counts`. Constructing terms is fine
(`Term::seq(..)`, `Term::Par(sizes, parts)` as an expression), and so is a
single match on a node's own kind (`matches!(t, Term::Pipe(..))`).

Comments (doc examples included) and tests' files are not read; a file in
ALLOWED may bind sub-terms, for the reason it gives. Usage:
    scripts/term_walks.py pattern-core/src src pattern-macros/src
Prints each binding pattern found and exits 1 if any.
"""
import os
import re
import sys

ALLOWED = {
    # The macros generate a type-level design from the term: a type per
    # node, built by recursing over the variants (the macro's input is a
    # design text of bounded depth, `syntax::MAX_DEPTH`).
    "pattern-macros/src/expand/design.rs": "type generation",
}

# The positions of each variant's sub-terms (tuple variants), or the names
# of its sub-term fields (the struct variant).
SUB_TERMS = {
    "Seq": [0, 1],
    "Pipe": [0, 1],
    "Tpool": [1],
    "On": [1],
    "Groups": [1],
    "Par": [1],
    "Redist": [1, 2],
    "MapReduce": ["map", "reduce"],
}

START = re.compile(r"\bTerm::(" + "|".join(SUB_TERMS) + r")\s*([({])")


def closing(src, i):
    """The index just past the bracket that closes the one at `i`."""
    depth = 0
    for j in range(i, len(src)):
        if src[j] in "([{":
            depth += 1
        elif src[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(src)


def split_top(text):
    """`text` split at its top-level commas."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def after_group(src, j):
    """The text after the tuple or slice a `Term::..(..)` ending at `j`
    stands in, if it stands in one: a pattern `(Term::Seq(a, b), x) =>`
    is told by what follows its tuple."""
    while j < len(src):
        while j < len(src) and src[j] in " \t\n":
            j += 1
        if j < len(src) and src[j] == ",":
            depth = 0
            while j < len(src):
                if src[j] in "([{":
                    depth += 1
                elif src[j] in ")]}":
                    depth -= 1
                    if depth < 0:
                        break
                j += 1
        elif j < len(src) and src[j] == ")":
            j += 1
        else:
            break
    return src[j : j + 40]


def is_pattern(rest):
    """Whether the text after a `Term::..(..)` makes it a pattern."""
    return (
        rest.startswith("=>")
        or (rest.startswith("|") and not rest.startswith("||"))
        or rest.startswith("if ")
        or (rest.startswith("=") and not rest.startswith("=="))
        or rest.startswith("else")
    )


def binds(variant, bracket, inner):
    """Whether the pattern's contents bind one of the variant's sub-terms."""
    parts = split_top(inner)
    for slot in SUB_TERMS[variant]:
        if bracket == "(" and isinstance(slot, int):
            if slot < len(parts) and parts[slot] not in ("_", ".."):
                if ".." in parts[: slot + 1]:
                    continue  # the slot is after a `..`: not this part
                return True
        if bracket == "{" and isinstance(slot, str):
            for p in parts:
                if re.fullmatch(r"(ref\s+)?(mut\s+)?" + slot, p):
                    return True
                if re.match(slot + r"\s*:", p) and not re.fullmatch(slot + r"\s*:\s*_", p):
                    return True
    return False


def code(path):
    """The file's text without comments (lines starting `//`)."""
    src = open(path, encoding="utf-8").read()
    src = re.split(r"#\[cfg\(test\)\]\s*(?:pub\(crate\)\s*)?mod tests", src)[0]
    lines = src.split("\n")
    return "\n".join("" if l.strip().startswith("//") else l for l in lines)


def walks(path):
    src = code(path)
    for m in START.finditer(src):
        end = closing(src, m.end() - 1)
        inner = src[m.end() : end - 1]
        if is_pattern(after_group(src, end)) and binds(m.group(1), m.group(2), inner):
            line = src.count("\n", 0, m.start()) + 1
            yield line, src[m.start() : end].replace("\n", " ")


def main(roots):
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            if "/design/src" in dirpath or dirpath.endswith("design/src"):
                continue
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                tests = f == "tests.rs" or "/tests/" in path
                if not f.endswith(".rs") or path in ALLOWED or tests:
                    continue
                found += [(path, line, text) for line, text in walks(path)]
    for path, line, text in found:
        print(f"{path}:{line}: a walk over `Term`'s variants: {text}")
    if found:
        print("walk terms through the grammar (fold, preorder, chain, children, counts)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
