"""The site's Performance page (性能), generated from the committed benchmark figures: the
instruction counts CI holds the code to (`benchmarks/instructions.json`, written by
`python benchmarks/instructions.py --record`) and the other benchmarks' results
(`benchmarks/results.json`, written by `python benchmarks/record.py`). Every speed figure the
project gives is measured by a benchmark and written here by no hand."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness._paths import data_root
from harness.conformance.reporting import mdescape as md
from harness.errors import HarnessError

RESULTS = "benchmarks/results.json"
"""The results file, relative to the checkout the site is built from."""

GUARD = "benchmarks/instructions.json"
"""The instruction counts CI holds the code to, relative to the checkout."""

GUARD_COMMAND = "python benchmarks/instructions.py"

GUARDED = {
    "main_job_instructions": (
        "The main job: `guandan check --engine reference`, every variant",
        "the whole process under callgrind, start-up included, its bytecode compiled before",
    ),
    "version_instructions": (
        "`guandan --version`: the start-up every command pays",
        "the whole process under callgrind, its bytecode compiled before",
    ),
    "heuristic_instructions_per_round": (
        "Heuristic-bot play, per round",
        "8 whole heuristic matches of huaian (tribute included) under callgrind, less the same "
        "process playing none, over the rounds played",
    ),
    "fast_heuristic_instructions_per_round": (
        "Heuristic-bot play on the fast engine, per round",
        "the same 8 matches on the fast engine as a simulation plays them (bots, rounds and "
        "tribute in the kernel; each round's counts logged, not its actions), counted the same "
        "way",
    ),
}
"""What each guarded count is, and how `benchmarks/instructions.py` measures it."""

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


def load_guard(path: Path | None = None) -> dict[str, Any]:
    """The committed instruction counts, checked: `figures` and their `units`; otherwise a
    `HarnessError` naming what is missing."""
    where = path or data_root() / GUARD
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{where}: cannot read the instruction counts: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("figures"), dict):
        raise HarnessError(f"{where}: no `figures` object")
    units = data.get("units")
    missing = [n for n in data["figures"] if not isinstance(units, dict) or n not in units]
    if missing:
        raise HarnessError(f"{where}: no unit for {', '.join(missing)}")
    checked: dict[str, Any] = data
    return checked


def committed_date(path: Path) -> str | None:
    """The date of the last commit that changed `path` (YYYY-MM-DD), or None where the checkout
    has no git history to ask."""
    try:
        done = subprocess.run(
            ["git", "log", "-1", "--format=%cs", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = done.stdout.strip()
    return found if done.returncode == 0 and found else None


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


def guard_section(guard: Mapping[str, Any], date: str | None) -> list[str]:
    """The instruction counts CI holds the code to, as a table with their command and date."""
    tolerance = float(guard.get("tolerance", 0.02)) * 100
    when = date or "the date of the commit that last changed `benchmarks/instructions.json`"
    python = md.text(str(guard.get("python", "CPython")))
    out = [
        "## Instruction counts, held in CI",
        "",
        "`python benchmarks/instructions.py --check` fails when one of these moves by more than "
        f"{number(tolerance)} % either way, on {python}; `--record` writes them anew, in the "
        "commit that makes one move on purpose. They are counted by valgrind's callgrind with "
        "`PYTHONHASHSEED=0`.",
        "",
        "| figure | value | unit | comparable as | how it was measured | date |",
        "| --- | ---: | --- | --- | --- | --- |",
    ]
    for name, value in guard["figures"].items():
        title, method = GUARDED.get(name, (md.code(name), f"see `{GUARD_COMMAND}`"))
        cells = (title, number(float(value)), md.text(str(guard["units"][name])))
        out.append("| " + " | ".join([*cells, KINDS["instructions"], method, md.text(when)]) + " |")
    ratio = guard.get("version_over_bare_python")
    if ratio is not None:
        out.append(
            "| `guandan --version` over a bare interpreter | "
            f"{number(float(ratio))} | x | a ratio of two counts of the same run | "
            "both processes counted in one run | "
            f"{md.text(when)} |"
        )
    out += ["", f"Measured by {md.code(GUARD_COMMAND)}.", ""]
    return out


def performance_page(
    results: Mapping[str, Any] | None = None,
    guard: Mapping[str, Any] | None = None,
    guard_date: str | None = None,
) -> str:
    """The Performance page: the guarded instruction counts, then each benchmark's figures with
    their unit, method, comparability and date, and the command that measures them again."""
    data = results if results is not None else load_results()
    if guard is None:
        guard = load_guard()
        guard_date = committed_date(data_root() / GUARD)
    figures: Sequence[Mapping[str, Any]] = data["figures"]
    out = [
        "# Performance",
        "",
        "Every speed figure the project gives is on this page, measured by a benchmark of "
        "`benchmarks/`: the instruction counts CI holds the code to, in "
        "`benchmarks/instructions.json`, and the other figures, recorded with their date in "
        "`benchmarks/results.json` by `python benchmarks/record.py` (which runs them all; name "
        "one, such as `python benchmarks/record.py plays`, to measure it alone). The page is "
        "generated from those files when the site is built: no figure is written by hand.",
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
        *guard_section(guard, guard_date),
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
