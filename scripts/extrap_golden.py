#!/usr/bin/env python3
"""Regenerates the golden data of tests/fit_extrap_golden.rs (not needed by CI).

Builds a few small data sets in Extra-P's text format, models each with
Extra-P's default single-parameter modeler (mean of repetitions, its CLI
default) and prints a Rust array of (name, Extra-P text, Extra-P's printed
model) to paste into the test. Run with the venv of scripts/extrap_compare.py:
    /tmp/pattern-extrap-venv/bin/python scripts/extrap_golden.py
"""

import math
import os
import tempfile

from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers.model_generator import ModelGenerator


def wobble(i, amplitude):
    return 1.0 + amplitude * math.sin(2.399963 * (i + 1))


def dataset(xs, f, reps, amplitude):
    rows, i = [], 0
    for x in xs:
        values = []
        for _ in range(reps):
            values.append(repr(f(x) * wobble(i, amplitude)))
            i += 1
        rows.append(values)
    text = "PARAMETER x\nPOINTS " + " ".join(f"({x!r})" for x in xs) + "\nREGION r\nMETRIC time\n"
    text += "".join("DATA " + " ".join(v) + "\n" for v in rows)
    return text


SETS = {
    "linear_5_points": dataset([2.0, 4.0, 8.0, 16.0, 32.0], lambda x: 5 + 3 * x, 3, 0.02),
    "qsort_like": dataset([float(2 ** k) for k in range(10, 17)],
                          lambda x: 5422.97 + 1034.17 * x * math.log2(x), 5, 0.01),
    "sqrt_with_constant": dataset([10.0 * k for k in range(1, 9)], lambda x: 100 + 7 * math.sqrt(x), 3, 0.01),
    "sizes_below_one": dataset([0.25, 0.5, 1.0, 2.0, 4.0, 8.0], lambda x: 2 + x * x, 2, 0.01),
    "constant": dataset([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], lambda x: 10.0, 4, 0.01),
    "huge_power": dataset([float(2 ** k) for k in range(6, 21, 2)],
                          lambda x: 1e6 + 5.6 * x ** 2.5 * math.log2(x) ** 2, 5, 0.03),
}


def main():
    print("const GOLDEN: &[(&str, &str, &str)] = &[")
    for name, text in SETS.items():
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        experiment = TextFileReader().read_experiment(f.name)
        os.unlink(f.name)
        generator = ModelGenerator(experiment)
        generator.model_all()
        (model,) = generator.models.values()
        printed = model.hypothesis.function.to_string("x")
        print(f"    (\n        {name!r},\n        \"{text.strip()}\",\n        {printed!r},\n    ),"
              .replace("'", '"'))
    print("];")


if __name__ == "__main__":
    main()
