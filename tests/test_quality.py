"""The package is ruff clean and mypy strict clean; a built wheel carries the data."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness.kernel import status as kernel_status

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_check() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "harness", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run(
        sys.executable, "-m", "ruff", "format", "--check", "harness", "tests", "benchmarks"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        str(out),
        str(ROOT),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = out.glob("*.whl")
    return built


def test_wheel_ships_spec_variants_and_cases(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "harness/_data/spec/ruleset.schema.json",
        "harness/_data/spec/sources.yaml",
        "harness/_data/spec/sources/competition.txt",
        "harness/_data/variants/base.yaml",
        "harness/_data/variants/match-rules.yaml",
    ):
        assert needed in names, needed


def test_the_checker_installs_without_the_docs_toolchain(wheel: Path) -> None:
    """`pip install guandan-harness` brings what `guandan check` needs; mkdocs is the docs extra."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(name).decode("utf-8")
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    core = [line for line in requires if "extra ==" not in line]
    assert any("jsonschema" in line for line in core)
    assert not any("mkdocs" in line for line in core), core
    assert any("mkdocs-material" in line and "extra == 'docs'" in line for line in requires)
    code = "import sys, harness.frontends.cli; assert 'mkdocs' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_installed_wheel_finds_its_data_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    """A non-editable install, run from elsewhere, validates and lists the bundled variants."""
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(target)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import harness, harness.frontends.cli;"
        "assert harness.__file__.startswith(sys.argv[1]), harness.__file__;"
        "raise SystemExit(harness.frontends.cli.main(['validate']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 files valid" in result.stdout


BENCHMARKS = [
    (
        ["benchmarks/plays.py", "--hands", "20", "--sets", "200"],
        [
            "classify_5_first",
            "classify_6_first",
            "legal_plays_lead_27_median",
            "legal_plays_lead_27_p99",
            "legal_plays_follow_27_median",
            "legal_plays_follow_27_p99",
            "legal_actions_lead_27_median",
            "legal_actions_lead_27_p99",
            "legal_actions_lead_27_count_median",
            "classify_5_repeat",
            "classify_6_repeat",
        ],
    ),
    (
        ["benchmarks/rounds.py", "--rounds", "3", "--matches", "1"],
        [
            "rounds_random_bots",
            "actions_random_bots",
            "matches_random_bots",
            "rounds_per_match",
            "heuristic_rounds_per_second",
            *(
                [
                    "heuristic_rounds_per_second_fast",
                    "heuristic_fast_over_python",
                    "heuristic_rounds_per_second_fast_simulating",
                    "heuristic_fast_simulating_over_python",
                ]
                if kernel_status().active
                else []
            ),
        ],
    ),
    (
        ["benchmarks/simulate.py", "--bots", "random", "--matches", "6", "--single", "2"],
        [
            "simulate_one_core_matches_per_s",
            "simulate_one_core_rounds_per_s",
            "simulate_6_matches_jobs_2",
            "simulate_jobs_2_rounds_per_s",
            "simulate_6_matches_local_cluster_2",
            "simulate_local_cluster_2_rounds_per_s",
        ],
    ),
    (
        ["benchmarks/strength.py", "--matches", "2"],
        [
            "heuristic_vs_random_win_rate",
            "heuristic_vs_random_low",
            "heuristic_vs_random_high",
            "heuristic_vs_greedy_win_rate",
            "heuristic_vs_greedy_low",
            "heuristic_vs_greedy_high",
        ],
    ),
    # benchmarks/instructions.py runs in full as the speed guard (tests/test_speed_guard.py).
    (
        ["benchmarks/fast.py", "--hands", "6"],
        [
            "legal_actions_lead_27_python_median",
            "legal_actions_lead_27_fast_median",
            "legal_actions_lead_27_ratio",
            "legal_actions_lead_27_kernel_median",
            "legal_actions_lead_27_kernel_ratio",
            "legal_actions_lead_27_count_median",
            "legal_actions_op_python_median",
            "legal_actions_op_fast_median",
            "legal_actions_op_ratio",
            "hand_plays_lead_27_python_median",
            "hand_plays_lead_27_kernel_median",
            "hand_plays_lead_27_kernel_ratio",
        ],
    ),
    (
        ["benchmarks/report.py", "--entries", "200"],
        [
            "report_200_failures_html",
            "report_html_over_an_eighth",
            "report_200_failures_markdown",
            "report_markdown_over_an_eighth",
        ],
    ),
    (
        # A one-clause mutant engine: the benchmark's own (four clauses, 2 ms an answer) is
        # for the figures, and takes three times as long.
        [
            "benchmarks/fingerprint.py",
            "--runs",
            "1",
            "--engine",
            "py:tests.engines.mutants:double_down_two",
        ],
        ["check_wall_median", "fingerprint_wall_median", "fingerprint_over_check"],
    ),
    (
        ["benchmarks/check.py", "--rounds", "1", "--runs", "2"],
        [
            "python_protocol",
            "process_protocol_batched",
            "process_over_python_protocol",
            "cases_per_pass",
            "main_job_cpu_median",
            "main_job_wall_median",
            "main_job_wall_spread",
            "main_job_case_runs",
            "main_job_case_runs_per_s",
        ],
    ),
]


SLOW_BENCHMARKS = ("check.py", "simulate.py", "fingerprint.py")
"""The main job run again, a local Dask cluster and a fingerprint:
seconds to a minute each, in the slow tier; the others run in the fast one."""


@pytest.mark.parametrize(
    ("argv", "figures"),
    [
        pytest.param(
            argv,
            figures,
            id=f"{Path(argv[0]).name}-{figures[0]}",
            marks=pytest.mark.slow if Path(argv[0]).name in SLOW_BENCHMARKS else (),
        )
        for argv, figures in BENCHMARKS
    ],
)
def test_benchmarks_print_their_figures(argv: list[str], figures: list[str]) -> None:
    """Each benchmark runs (on a little work) and prints `name: value unit` per figure; speed
    itself is measured by running them, not asserted here."""
    if Path(argv[0]).name == "fast.py" and not kernel_status().active:
        pytest.skip(f"benchmarks/fast.py needs the fast engine: {kernel_status()}")
    result = _run(sys.executable, *argv)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == figures
    for line in lines:
        name, value, unit = line.replace(":", "").split()
        # A spread of two runs may round to nothing (0.000 s); every other figure is positive.
        assert unit and (float(value) >= 0 if name.endswith("_spread") else float(value) > 0)
