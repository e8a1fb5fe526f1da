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
    assert printed == [
        "main_job_instructions",
        "main_job_case_runs",
        "version_instructions",
        "version_over_bare_python",
        "heuristic_instructions",
        "heuristic_rounds",
        "heuristic_instructions_per_round",
    ]


def test_the_committed_figures_meet_the_targets() -> None:
    """The committed counts meet the targets set in counts: the main job at most 10,000
    million instructions, the count of about 1.5 s of CPU on this project's CI machines when it
    was set (9,237 million took 1.3 s there); `guandan --version` at most five bare
    interpreters' start-ups counted in the same run. (Issue 49 asked for 0.15 s where a bare
    interpreter took 0.05 s, three start-ups; the fast engine's status, which `--version` must
    give, costs about one more: see the issue's note.)"""
    committed = json.loads((ROOT / "benchmarks" / "instructions.json").read_text("utf-8"))
    figures = committed["figures"]
    assert committed["tolerance"] == 0.02
    assert set(figures) == {
        "main_job_instructions",
        "version_instructions",
        "heuristic_instructions_per_round",
    }
    assert figures["main_job_instructions"] <= 10_000
    assert committed["version_over_bare_python"] <= 5


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
