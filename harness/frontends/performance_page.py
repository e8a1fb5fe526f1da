"""The site's Performance page (性能), generated from the committed benchmark results
(`benchmarks/results.json`, written by `python benchmarks/record.py`): every speed figure the
project gives is measured by a benchmark and written here by no hand."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness._paths import data_root
from harness.conformance.reporting import mdescape as md
from harness.errors import HarnessError

RESULTS = "benchmarks/results.json"
"""The results file, relative to the checkout the site is built from."""

FIELDS = ("name", "benchmark", "title", "value", "unit", "method", "kind", "command", "date")
"""What every recorded figure holds."""

KINDS = {
    "instructions": "instruction count: comparable as it stands",
    "count": "work done: deterministic",
    "ratio": "a ratio of two timings of the same run",
    "timing": "a timing: compare it in calibration units",
}
"""Each kind of figure, with what makes it comparable from one machine to another."""


def results_path() -> Path:
    """The committed results file of the checkout the site is built from."""
    return data_root() / RESULTS


def load_results(path: Path | None = None) -> dict[str, Any]:
    """The results file, checked: each figure has every field of `FIELDS` and a known kind, and
    a timing has its calibration; otherwise a `HarnessError` naming the figure and the field."""
    where = path or results_path()
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{where}: cannot read the benchmark results: {exc}") from exc
    if not isinstance(data, dict):
        raise HarnessError(f"{where}: not a JSON object")
    figures = data.get("figures")
    if not isinstance(figures, list):
        raise HarnessError(f"{where}: no `figures` list")
    for i, figure in enumerate(figures):
        name = figure.get("name", "?") if isinstance(figure, dict) else "?"
        label = f"{where}: figure {i} ({name})"
        if not isinstance(figure, dict):
            raise HarnessError(f"{label}: not an object")
        missing = [f for f in FIELDS if f not in figure]
        if missing:
            raise HarnessError(f"{label}: missing {', '.join(missing)}")
        if figure["kind"] not in KINDS:
            raise HarnessError(f"{label}: kind {figure['kind']!r} is none of {', '.join(KINDS)}")
        if figure["kind"] == "timing" and "calibration_seconds" not in figure:
            raise HarnessError(f"{label}: a timing without its run's calibration_seconds")
    checked: dict[str, Any] = data
    return checked


def number(value: float) -> str:
    """A figure as a reader reads it: three significant digits, thousands separated."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{round(value):,}"
    return f"{value:.3g}"


def _comparable(figure: Mapping[str, Any]) -> str:
    if figure["kind"] != "timing":
        return KINDS[figure["kind"]]
    units = figure.get("in_calibration_units")
    shown = f"{number(units)} in calibration units; " if units is not None else ""
    return f"{shown}calibration {number(figure['calibration_seconds'])} s"


def performance_page(results: Mapping[str, Any] | None = None) -> str:
    """The Performance page: each benchmark's figures with their unit, method, comparability
    and date, and the command that measures them again."""
    data = results if results is not None else load_results()
    figures: Sequence[Mapping[str, Any]] = data["figures"]
    out = [
        "# Performance",
        "",
        "Every speed figure the project gives is on this page, measured by a benchmark of "
        "`benchmarks/` and recorded with the date in `benchmarks/results.json` by "
        "`python benchmarks/record.py` (which runs them all; name one, such as "
        "`python benchmarks/record.py instructions`, to measure it alone). The page is "
        "generated from that file when the site is built: no figure is written by hand.",
        "",
        "A timing depends on the machine and on what else it runs, so each figure says what "
        "makes it comparable. An **instruction count** (valgrind's callgrind, "
        "`PYTHONHASHSEED=0`) is the same from run to run to a fraction of a per cent: it is "
        "the figure to weigh a change by, before and after. A **count** of work done is "
        "deterministic. A **ratio** of two timings of the same run cancels most of the "
        "machine's speed. Any other **timing** is given with the run's calibration: the "
        "seconds a fixed pure-Python workload, independent of the harness's code, took in a "
        "fresh process just before and just after the benchmark; a rate times those seconds, "
        "or a time over them, is the figure in *calibration units*, which moves far less "
        "from one machine to another than the figure itself.",
        "",
    ]
    for bench in dict.fromkeys(str(f["benchmark"]) for f in figures):
        group = [f for f in figures if f["benchmark"] == bench]
        out += [
            f"## {md.text(bench)}",
            "",
            "| figure | value | unit | comparable as | how it was measured | date |",
            "| --- | ---: | --- | --- | --- | --- |",
        ]
        for f in group:
            cells = (
                str(f["title"]),  # the recorder's own Markdown (a command in backticks)
                number(float(f["value"])),
                md.text(str(f["unit"])),
                md.text(_comparable(f)),
                str(f["method"]),
                str(f["date"]),
            )
            out.append("| " + " | ".join(cells) + " |")
        commands = dict.fromkeys(str(f["command"]) for f in group)
        out += ["", "Measured by " + ", ".join(md.code(c) for c in commands) + ".", ""]
    return "\n".join(out)
