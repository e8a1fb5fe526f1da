"""`.ci/lowest_constraints.py`: the bottom of every declared range, for CI's second run."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "lowest_constraints.py"


def run(pyproject: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(pyproject)], capture_output=True, text=True, check=False
    )


def test_every_declared_dependency_is_pinned_at_its_floor() -> None:
    done = run(ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stderr
    pins = dict(line.split("==") for line in done.stdout.splitlines())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert pins["pyyaml"] == "6.0" and pins["ruff"] == "0.9" and pins["mypy"] == "1.17"
    declared = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        declared += [r for r in extra if not r.startswith(project["name"])]
    assert len(pins) == len({r.split("[")[0].split(">")[0].lower() for r in declared})


def test_a_range_without_a_floor_is_refused(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\ndependencies = ["pyyaml<7"]\n', encoding="utf-8")
    done = run(pyproject)
    assert done.returncode != 0
    assert "expected one lower bound" in done.stderr
