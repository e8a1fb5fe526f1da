"""The speed guard (issue 49): the instructions of the main job, of `guandan --version` and of a
heuristic round, counted by callgrind, stay within 2 % of the figures committed in
`benchmarks/instructions.json`. Instructions, not seconds: the same on every machine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.kernel import status

ROOT = Path(__file__).resolve().parents[1]
GUARD = ROOT / "benchmarks" / "instructions.py"


def _guard(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GUARD), *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.slow
def test_instruction_counts_are_within_the_committed_figures() -> None:
    """The main job, start-up and heuristic play count what they counted when recorded."""
    if shutil.which("valgrind") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the speed guard needs valgrind (.ci/run installs it)")
        pytest.skip("the speed guard needs valgrind (Debian: apt-get install valgrind)")
    result = _guard("--check")
    assert result.returncode == 0, result.stdout + result.stderr
    printed = [line.split(":")[0] for line in result.stdout.splitlines()]
    fast = (
        ["fast_heuristic_instructions_per_round", "fast_heuristic_fewer_instructions"]
        if status().active
        # The fast engine's count, said not counted, and --version's, said not compared (it was
        # counted loading the kernel).
        else ["instructions guard", "instructions guard"]
    )
    assert printed == [
        "main_job_instructions",
        "main_job_case_runs",
        "version_instructions",
        "version_over_bare_python",
        "heuristic_instructions",
        "heuristic_rounds",
        "heuristic_instructions_per_round",
        *fast,
    ]


def test_the_committed_figures_are_the_guarded_ones() -> None:
    """The committed file holds the four guarded counts and the 2 % tolerance. They are the
    counts of a fresh clone in a fresh virtual environment (`pip install ".[test]"`), as CI
    runs the guard: the same code has counted differently elsewhere (a checkout worked in for
    a while counted `--version` 15 to 40 % higher), so they are a guard, not a target; the
    targets in seconds are measured with `benchmarks/check.py`."""
    committed = json.loads((ROOT / "benchmarks" / "instructions.json").read_text("utf-8"))
    assert committed["tolerance"] == 0.02
    assert set(committed["figures"]) == {
        "main_job_instructions",
        "version_instructions",
        "heuristic_instructions_per_round",
        "fast_heuristic_instructions_per_round",
    }
    assert all(value > 0 for value in committed["figures"].values())


def test_a_moved_figure_fails_the_guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison itself: a figure 3 % off either way fails and is named; 1 % passes; a
    figure counted on another Python is not compared but refused."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import instructions
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    committed = tmp_path / "instructions.json"
    monkeypatch.setattr(instructions, "COMMITTED", committed)
    figures = {
        "main_job_instructions": (1000.0, "Minstr"),
        "version_instructions": (100.0, "Minstr"),
        "heuristic_instructions_per_round": (30.0, "Minstr"),
        "fast_heuristic_instructions_per_round": (1.5, "Minstr"),
        "version_over_bare_python": (3.0, "x"),
    }
    instructions.record(figures)
    assert instructions.check(figures) == 0
    for factor, verdict in ((1.01, 0), (0.99, 0), (1.03, 1), (0.97, 1)):
        moved = {**figures, "main_job_instructions": (1000.0 * factor, "Minstr")}
        assert instructions.check(moved) == verdict, factor
    data = json.loads(committed.read_text("utf-8"))
    committed.write_text(json.dumps({**data, "python": "cpython-2.7"}), "utf-8")
    assert instructions.check(figures) == 1
