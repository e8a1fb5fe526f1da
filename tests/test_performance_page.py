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
    assert "instructions" in kinds, "the page gives no instruction count"


def test_the_page_shows_each_figure_with_its_command_date_and_comparability() -> None:
    page = performance_page(SAMPLE)
    assert "| Alpha per round | 33,123,456 | instr | instruction count" in page
    assert "| Beta rate | 7.5 | cases/s | 3 in calibration units; calibration 0.4 s |" in page
    assert "2026-01-02" in page and "2026-01-03" in page
    assert "`python benchmarks/alpha.py`" in page
    assert "`python benchmarks/beta.py --runs 3`" in page
    assert page.index("## alpha") < page.index("## beta")


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
