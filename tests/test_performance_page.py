"""The Performance page (issue 51): generated from the committed benchmark results, each figure
with its unit, how it was measured, the command, the date and what makes it comparable; the
recorder that writes the results parses the benchmarks' lines and expresses a timing in the
run's calibration units."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.errors import HarnessError
from harness.frontends.performance_page import (
    FIELDS,
    GUARDED,
    committed_date,
    load_guard,
    load_results,
    number,
    performance_page,
    results_path,
)

ROOT = Path(__file__).resolve().parents[1]


def recorder() -> ModuleType:
    """benchmarks/record.py, imported (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location("record", ROOT / "benchmarks" / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["record"] = module
    spec.loader.exec_module(module)
    return module


SAMPLE: dict[str, Any] = {
    "figures": [
        {
            "name": "a_per_round",
            "benchmark": "alpha",
            "title": "Alpha per round",
            "value": 33123456.0,
            "unit": "instr",
            "method": "counted",
            "kind": "instructions",
            "command": "python benchmarks/alpha.py",
            "date": "2026-01-02",
        },
        {
            "name": "b_rate",
            "benchmark": "beta",
            "title": "Beta rate",
            "value": 7.5,
            "unit": "cases/s",
            "method": "timed",
            "kind": "timing",
            "command": "python benchmarks/beta.py --runs 3",
            "date": "2026-01-03",
            "calibration_seconds": 0.4,
            "in_calibration_units": 3.0,
        },
    ]
}


SAMPLE_GUARD: dict[str, Any] = {
    "python": "cpython-3.11",
    "tolerance": 0.02,
    "figures": {"main_job_instructions": 9237.343, "new_count": 12.5},
    "version_over_bare_python": 3.667,
    "units": {"main_job_instructions": "Minstr", "new_count": "Minstr"},
}


def test_the_committed_results_hold_every_field_and_a_known_benchmark() -> None:
    data = load_results()
    benchmarks = recorder().BENCHMARKS
    assert data["figures"]
    for figure in data["figures"]:
        assert set(FIELDS) <= set(figure), figure["name"]
        bench = benchmarks[figure["benchmark"]]
        assert figure["name"] in bench.figures
        assert figure["command"] == bench.command
        assert (ROOT / figure["command"].split()[1]).is_file()
    kinds = {f["kind"] for f in data["figures"]}
    assert {"timing", "ratio", "count"} <= kinds


def test_the_guarded_counts_are_on_the_page_each_with_its_title() -> None:
    """The instruction counts CI holds the code to (benchmarks/instructions.json) are the page's
    first table, each named in words; no figure is recorded in both files."""
    guard = load_guard()
    assert set(guard["figures"]) <= set(GUARDED)
    page = performance_page()
    for name, value in guard["figures"].items():
        assert f"| {GUARDED[name][0]} | {number(value)} | Minstr |" in page
    recorded = {f["name"] for f in load_results()["figures"]}
    assert recorded.isdisjoint(guard["figures"])
    assert page.index("## Instruction counts, held in CI") < page.index("## check")


def test_the_page_shows_each_figure_with_its_command_date_and_comparability() -> None:
    page = performance_page(SAMPLE, SAMPLE_GUARD, "2026-01-01")
    assert "| Alpha per round | 33,123,456 | instr | instruction count" in page
    assert "| Beta rate | 7.5 | cases/s | 3 in calibration units; calibration 0.4 s |" in page
    assert "2026-01-02" in page and "2026-01-03" in page
    assert "`python benchmarks/alpha.py`" in page
    assert "`python benchmarks/beta.py --runs 3`" in page
    assert page.index("## alpha") < page.index("## beta")


def test_the_guard_section_gives_each_count_its_unit_date_and_command() -> None:
    page = performance_page(SAMPLE, SAMPLE_GUARD, "2026-01-01")
    assert (
        "| The main job: `guandan check --engine reference`, every variant | 9,237 | Minstr |"
        in (page)
    )
    assert "| `new_count` | 12.5 | Minstr | instruction count" in page  # a count without words
    assert "| `guandan --version` over a bare interpreter | 3.67 | x |" in page
    assert "more than 2 % either way, on cpython-3.11" in page
    assert page.count("2026-01-01") == 3
    undated = performance_page(SAMPLE, SAMPLE_GUARD, None)
    assert "the date of the commit that last changed" in undated


def test_a_malformed_guard_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "instructions.json"
    path.write_text(json.dumps({"figures": {"a": 1}, "units": {}}), encoding="utf-8")
    with pytest.raises(HarnessError, match="no unit for a"):
        load_guard(path)
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(HarnessError, match="no `figures` object"):
        load_guard(path)


def test_the_date_of_a_committed_file_is_its_last_commits(tmp_path: Path) -> None:
    assert committed_date(ROOT / "LICENSE") is not None
    assert committed_date(tmp_path / "nothing.json") is None


def test_the_page_of_the_committed_file_names_every_figure() -> None:
    page = performance_page()
    for figure in load_results()["figures"]:
        assert figure["title"] in page and figure["date"] in page


@pytest.mark.parametrize(
    ("value", "shown"), [(0, "0"), (0.000429, "0.000429"), (2.401, "2.4"), (265043.0, "265,043")]
)
def test_numbers_are_three_significant_digits_and_whole_numbers_grouped(
    value: float, shown: str
) -> None:
    assert number(value) == shown


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda f: f.pop("command"), "missing command"),
        (lambda f: f.update(kind="speed"), "kind 'speed' is none of"),
        (lambda f: f.pop("calibration_seconds"), "a timing without its run's calibration"),
    ],
)
def test_a_malformed_results_file_is_refused_naming_the_figure(
    tmp_path: Path, change: Any, said: str
) -> None:
    data = copy.deepcopy(SAMPLE)
    change(data["figures"][1])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(HarnessError, match=f"figure 1 \\(b_rate\\): {said}"):
        load_results(path)


def test_an_unreadable_results_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(HarnessError, match="cannot read the benchmark results"):
        load_results(path)
    assert results_path().name == "results.json"


def test_the_recorder_reads_the_benchmarks_lines() -> None:
    record = recorder()
    text = "running\nheuristic_rounds: 93 rounds\nmain_job_wall_median: 2.401 s\nnoise: here\n"
    assert record.printed(text) == {
        "heuristic_rounds": (93.0, "rounds"),
        "main_job_wall_median": (2.401, "s"),
    }


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [(100.0, "cases/s", 50.0), (2.0, "s", 4.0), (10.0, "ms", 0.02), (3.0, "x", None)],
)
def test_a_timing_in_calibration_units(value: float, unit: str, expected: float | None) -> None:
    """A rate times the calibration's seconds (0.5 s here), a time over them."""
    got = recorder().in_calibration_units(value, unit, 0.5)
    assert got == (pytest.approx(expected) if expected is not None else None)
