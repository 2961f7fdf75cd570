"""Extra-P 4.2.5, the version the figures in docs/calibration.md are
against, in a virtual environment of its own ($EXTRAP_VENV, or
/tmp/pattern-extrap-venv), installed from PyPI the first time a script
asks for it. The scripts that compare with Extra-P take its Python or its
command line from here."""

import os
import subprocess
import sys
from pathlib import Path

VERSION = "4.2.5"
VENV = Path(os.environ.get("EXTRAP_VENV", "/tmp/pattern-extrap-venv"))


def python():
    """The environment's Python, Extra-P installed in it."""
    py = VENV / "bin" / "python"
    if not (VENV / "bin" / "extrap").exists():
        print(f"installing extrap=={VERSION} into {VENV} ...", file=sys.stderr)
        if not py.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"extrap=={VERSION}"], check=True)
    return py


def command():
    """Extra-P's command line, `extrap`, of the environment."""
    python()
    return VENV / "bin" / "extrap"
