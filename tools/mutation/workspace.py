"""A private copy of the package for cosmic-ray to mutate, and the test command run in it."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

# What the package reads: its own code, and the data `harness/_paths.py` finds beside it.
COPIED = ("harness", "spec", "variants", "conformance_cases")
CHECK = ("-m", "harness.frontends.cli", "check", "--engine", "reference", "--no-explain")


def repository_root() -> Path:
    """The checkout this tool belongs to (the folder holding `harness/`)."""
    return Path(__file__).resolve().parents[2]


def copy_package(source: Path, target: Path) -> Path:
    """Copy the package and its data from `source` into `target`; `target` is returned."""
    for name in COPIED:
        shutil.copytree(source / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_command(check_args: tuple[str, ...] = ()) -> str:
    """The command cosmic-ray runs for each mutant: this Python, the copy's `guandan check`."""
    return shlex.join((sys.executable, *CHECK, *check_args))


def environment(copy: Path) -> dict[str, str]:
    """The environment of every process run in `copy`: the copy first on the import path, so
    that it, and not the editable install, is imported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(copy), env.get("PYTHONPATH"))))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def imported_from(copy: Path) -> Path:
    """Where the interpreter package is imported from when run in `copy`."""
    probe = "import harness.interpreter as i; print(i.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=copy,
        env=environment(copy),
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip()).resolve()


def baseline(copy: Path, command: str) -> float:
    """Seconds the unmutated test takes in `copy`; a failing baseline stops the run (every
    mutant would count as killed)."""
    started = time.monotonic()
    done = subprocess.run(
        shlex.split(command), cwd=copy, env=environment(copy), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"the unmutated corpus run fails:\n{done.stdout[-2000:]}")
    return time.monotonic() - started
