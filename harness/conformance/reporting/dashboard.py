"""The conformance dashboard (一致性總覽): JSON reports of `guandan check`, several engines on
several variants, read as one table of pass rates by variant, clause family and operation, with
each engine's failures explained.

A pass rate is the cases passed over the cases judged: an unsupported operation is never a
failure, so its cases are left out. A report is read tolerantly (keys this version does not know
are ignored, a status it does not know is shown by name and counted as not passed), and every
string in it is engine output or hand-written, to be escaped wherever it is shown.
`harness.frontends.dashboard_html` draws this model as HTML; text and Markdown are drawn here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.conformance.cases.case_loader import Case, load_cases
from harness.conformance.explaining.failures import (
    DECIDING_RULE,
    FAMILY_RULE,
    FailureGroup,
    case_family,
    deciding_clause,
    failure_groups,
    is_applicable,
    is_bundled_case_file,
    is_failing,
    key_of,
    known_ids,
    operation_of,
    rerun_for,
    source_file,
    status_of,
)
from harness.conformance.reporting import mdescape as md
from harness.conformance.reporting.run_reports import failure_markdown, verdict_md
from harness.conformance.running.jsonread import UnreadableJSON, read_json
from harness.conformance.running.results import NOT_STARTED, share_percent
from harness.errors import HarnessError
from harness.model._files import read_regular_text
from harness.model.derived import base_name
from harness.model.loader import bundled_variants, variant_slugs
from harness.wording import counted

# What `guandan check` accepts as agreeing with the corpus: a pass, a listed failure that passes
# (the list is stale, the engine is right), and a pass with omissions (`omitted`).
PASSED = frozenset({"pass", "xpass", "omitted"})
# Not judged: the engine said it does not do the operation.
NOT_JUDGED = frozenset({"unsupported"})
RATE_RULE = (
    "passed / judged: every case run but those whose operation the engine does not support; "
    "judged / total is the coverage, shown wherever it is not whole"
)


@dataclass(frozen=True)
class Rate:
    """How many of the judged cases passed (通過率), and the count of every status."""

    passed: int
    judged: int
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Every case counted, judged or not."""
        return sum(self.counts.values())

    @property
    def percent(self) -> int | None:
        """The pass rate in whole percent, rounded to the nearest (2/3 is 67 %), yet 100 % only
        when every judged case passed and 0 % only when none did."""
        return None if self.judged == 0 else share_percent(self.passed, self.judged)

    def coverage(self) -> str:
        """`judged/total judged`: how much of what ran the rate is about (覆蓋率)."""
        return f"{self.judged}/{self.total} judged"

    def text(self) -> str:
        """`100 %`, `n/a` when nothing was judged, `—` when nothing ran."""
        if self.total == 0:
            return "—"
        return "n/a" if self.percent is None else f"{self.percent} %"

    def fraction(self) -> str:
        """`passed/judged`."""
        return f"{self.passed}/{self.judged}"

    @property
    def band(self) -> str:
        """A word for the colour of the rate: full, high (≥ 90 %), mid (≥ 50 %), low or none."""
        if self.percent is None:
            return "none"
        if self.passed == self.judged:
            return "full"
        return "high" if self.percent >= 90 else "mid" if self.percent >= 50 else "low"


def rate(entries: Iterable[Mapping[str, Any]]) -> Rate:
    """The rate of some report entries."""
    counts: dict[str, int] = {}
    not_started = 0
    for entry in entries:
        status = status_of(entry)
        counts[status] = counts.get(status, 0) + 1
        not_started += _not_started(entry, status)
    return _rate(counts, not_started)


def _not_started(entry: Mapping[str, Any], status: str) -> bool:
    # A case of an option set the engine could not start for judges nothing, as in check.
    return status == "error" and str(entry.get("message", "")).startswith(NOT_STARTED)


def _rate(counts: Mapping[str, int], not_started: int) -> Rate:
    passed = sum(n for s, n in counts.items() if s in PASSED)
    judged = sum(n for s, n in counts.items() if s not in NOT_JUDGED) - not_started
    return Rate(passed, judged, counts)


# ---------------------------------------------------------------------------------------------
# Reading reports


@dataclass(frozen=True)
class Report:
    """One JSON report of `guandan check`, read tolerantly."""

    source: str
    spec: str
    name: str
    version: str
    entries: tuple[Mapping[str, Any], ...]
    variant_files: Mapping[str, str] = field(default_factory=dict)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def report_from_json(data: Any, source: str) -> Report:
    """A report from its JSON; HarnessError naming `source` when it is not one."""
    if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
        raise HarnessError(f"{source}: not a report of `guandan check` (no list of `cases`)")
    engine = data.get("engine")
    engine = engine if isinstance(engine, Mapping) else {}
    files = data.get("variant_files")
    files = files if isinstance(files, Mapping) else {}
    # A case on a derived variant the engine does not claim to play is no case of its: left out.
    entries = tuple(e for e in data["cases"] if isinstance(e, Mapping) and is_applicable(e))
    return Report(
        source,
        _text(engine.get("spec")) or "?",
        _text(engine.get("name")),
        _text(engine.get("version")),
        entries,
        {_text(k): _text(v) for k, v in files.items()},
    )


def read_report(path: Path) -> Report:
    """The report in `path`; HarnessError naming the file when it cannot be read."""
    try:
        data = read_json(read_regular_text(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise HarnessError(f"{path}: cannot read it ({exc})") from None
    except UnreadableJSON as exc:
        raise HarnessError(f"{path}: {exc}") from None
    return report_from_json(data, str(path))


# ---------------------------------------------------------------------------------------------
# The dashboard


def column_of(variant: str) -> str:
    """The dashboard column of a variant's results: its own, or for a variant derived for cases
    on values no bundled variant plays (`huaian[flow.pass=when_unable]`), one column for all
    those derived from the same base (`huaian[…]`), so that the tables stay readable."""
    base = base_name(variant)
    return f"{base}[…]" if base != variant else variant


@dataclass(frozen=True)
class EngineRuns:
    """One engine (by spec, name and version) and every case its reports hold, each key once."""

    number: int
    spec: str
    name: str
    version: str
    sources: tuple[str, ...]
    entries: tuple[Mapping[str, Any], ...]
    variant_files: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The engine's name and version, or its spec when it gave no name."""
        return " ".join(x for x in (self.name or self.spec, self.version) if x)

    @functools.cached_property
    def variants(self) -> list[str]:
        """The variants its cases ran on, in order of first appearance."""
        return list(dict.fromkeys(column_of(str(e.get("variant", "?"))) for e in self.entries))

    def select(
        self, variant: str | None = None, family: str | None = None, operation: str | None = None
    ) -> list[Mapping[str, Any]]:
        """Its entries on a variant, of a family, of an operation (None: any)."""
        return [
            e
            for e in self.entries
            if (variant is None or column_of(str(e.get("variant"))) == variant)
            and (family is None or case_family(e) == family)
            and (operation is None or operation_of(e) == operation)
        ]

    def failures(self) -> list[FailureGroup]:
        """Its failing cases by deciding clause, the largest group first."""
        return list(self._failures)

    @functools.cached_property
    def _failures(self) -> tuple[FailureGroup, ...]:
        return tuple(failure_groups(self.entries))

    def rate(
        self, variant: str | None = None, family: str | None = None, operation: str | None = None
    ) -> Rate:
        """The rate of its entries on a variant, of a family, of an operation (None: any), as
        `rate(self.select(...))`, from counts made once (each cell of the matrices went through
        every entry)."""
        counts: dict[str, int] = {}
        not_started = 0
        for (v, f, o), (tally, stopped) in self._cells.items():
            if (variant in (None, v)) and (family in (None, f)) and (operation in (None, o)):
                for status, n in tally.items():
                    counts[status] = counts.get(status, 0) + n
                not_started += stopped
        return _rate(counts, not_started)

    @functools.cached_property
    def _cells(self) -> Mapping[tuple[str | None, str, str], tuple[dict[str, int], int]]:
        """Status counts and cases not started, by variant (None when not text, which no
        variant selects), family and operation."""
        cells: dict[tuple[str | None, str, str], tuple[dict[str, int], int]] = {}
        for entry in self.entries:
            variant = entry.get("variant")
            key = (
                column_of(variant) if isinstance(variant, str) else None,
                case_family(entry),
                operation_of(entry),
            )
            tally, stopped = cells.get(key, ({}, 0))
            status = status_of(entry)
            tally[status] = tally.get(status, 0) + 1
            cells[key] = tally, stopped + _not_started(entry, status)
        return cells


@dataclass(frozen=True)
class Dashboard:
    """Engines × variants, with the families and operations their cases cover."""

    engines: tuple[EngineRuns, ...]
    variants: tuple[str, ...]
    families: tuple[str, ...]
    operations: tuple[str, ...]
    sources: tuple[str, ...]

    def rate(
        self,
        engine: EngineRuns,
        variant: str | None = None,
        family: str | None = None,
        operation: str | None = None,
    ) -> Rate:
        """The rate of one engine, on a variant, of a family, of an operation (None: all)."""
        return engine.rate(variant, family, operation)

    def columns(self) -> list[tuple[EngineRuns, str | None]]:
        """The columns of the matrices by family and operation: each engine on each of its
        variants, then on all of them."""
        out: list[tuple[EngineRuns, str | None]] = []
        for engine in self.engines:
            mine = [v for v in self.variants if v in engine.variants]
            out += [(engine, v) for v in mine]
            if len(mine) > 1:
                out.append((engine, None))
        return out


def build(reports: Sequence[Report]) -> Dashboard:
    """The dashboard of some reports: one engine per spec, name and version (a later report's
    result for a case and variant replaces an earlier one's)."""
    grouped: dict[tuple[str, str, str], list[Report]] = {}
    for report in reports:
        grouped.setdefault((report.spec, report.name, report.version), []).append(report)
    engines = []
    for number, ((spec, name, version), mine) in enumerate(grouped.items(), start=1):
        entries: dict[str, Mapping[str, Any]] = {}
        files: dict[str, str] = {}
        for report in mine:
            files.update(report.variant_files)
            for entry in report.entries:
                entries[key_of(entry)] = entry
        sources = tuple(r.source for r in mine)
        engines.append(
            EngineRuns(number, spec, name, version, sources, tuple(entries.values()), files)
        )
    every = [e for engine in engines for e in engine.entries]
    seen = list(dict.fromkeys(column_of(str(e.get("variant", "?"))) for e in every))
    bundled = [s for s in variant_slugs() if s in seen]
    return Dashboard(
        tuple(engines),
        tuple(bundled + sorted(set(seen) - set(bundled))),
        tuple(sorted({case_family(e) for e in every})),
        tuple(sorted({operation_of(e) for e in every})),
        tuple(r.source for r in reports),
    )


# ---------------------------------------------------------------------------------------------
# A failure, explained


@functools.cache
def _corpus() -> Mapping[str, Case]:
    cases, _ = load_cases()
    return {c.id: c for c in cases}


@functools.cache
def _defaults() -> Mapping[str, Mapping[str, Any]]:
    return {r.slug: {n: o.default for n, o in r.options.items()} for r in bundled_variants()}


def bundled_case(entry: Mapping[str, Any]) -> Case | None:
    """The bundled case an entry ran, unless it names a case file outside the bundled corpus."""
    source = source_file(entry)
    if source is not None and not is_bundled_case_file(source):
        return None  # a case of one's own, which may share an id with a bundled one
    return _corpus().get(str(entry.get("id")))


class Explainer:
    """Explains the failing entries of a dashboard: the input, deciding clause, rerun command and
    description, from the report where it has them and worked out here where it does not."""

    def __init__(self, dashboard: Dashboard) -> None:
        self.known = known_ids([e.entries for e in dashboard.engines])
        if any(failing(e) for e in dashboard.engines):
            self.known |= set(_corpus())

    def __call__(self, engine: EngineRuns, entry: Mapping[str, Any]) -> dict[str, Any]:
        """The entry, explained."""
        out = dict(entry)
        case = bundled_case(entry)
        if out.get("input") is None and case is not None:
            out["input"] = case.input
        if not out.get("description"):
            out["description"] = case.description if case else ""
        if not isinstance(out.get("decided_by"), str):
            out["decided_by"] = deciding_clause(entry)
        if not isinstance(out.get("rerun"), str):
            variant = str(entry.get("variant", "?"))
            spec = engine.variant_files.get(variant)
            defaults = None if spec else _defaults().get(variant)
            out["rerun"] = rerun_for(entry, engine.spec, spec, defaults).command(self.known)
        return out


# ---------------------------------------------------------------------------------------------
# Text and Markdown


def render_text(dashboard: Dashboard) -> str:
    """The dashboard for a terminal: engines, rates by variant, failures by deciding clause."""
    sources, engines = len(dashboard.sources), len(dashboard.engines)
    out = [f"{counted(sources, 'report')}, {counted(engines, 'engine')}", ""]
    for engine in dashboard.engines:
        out.append(f"[{engine.number}] {engine.label}  ({engine.spec})")
    width = max([12, *(len(v) + 2 for v in dashboard.variants)])
    out += ["", "pass rate".ljust(8) + "".join(v.rjust(width) for v in dashboard.variants)]
    for engine in dashboard.engines:
        cells = [dashboard.rate(engine, v).text().rjust(width) for v in dashboard.variants]
        out.append(f"[{engine.number}]".ljust(8) + "".join(cells))
    for engine in dashboard.engines:
        groups = engine.failures()
        if groups:
            out += ["", f"[{engine.number}] {engine.label}: failures by deciding clause"]
            out += [f"  {len(g.entries):>4}  {g.label}" for g in groups]
    return "\n".join(out) + "\n"


def _rate_cell(r: Rate) -> str:
    if r.judged == 0:
        return r.text() if r.total == 0 else f"{r.text()} ({r.coverage()})"
    covered = "" if r.judged == r.total else f"; {r.coverage()}"
    return f"{r.text()} ({r.fraction()}{covered})"


def render_markdown(dashboard: Dashboard) -> str:
    """The dashboard as Markdown: engines, matrices of pass rates, failures explained."""
    return "".join(markdown_chunks(dashboard))


def markdown_chunks(dashboard: Dashboard) -> Iterator[str]:
    """`render_markdown` in parts made as they are written: the tables, then each failure (a
    page of every failure at once held each several times over)."""
    out = ["# Guandan conformance dashboard", ""]
    out += [
        f"{counted(len(dashboard.sources), 'report')} of `guandan check`. Pass rate: "
        f"{RATE_RULE}. "
        f"By clause family: {FAMILY_RULE}.",
        "",
        "## Engines",
        "",
        "| # | engine | version | spec | variants | cases | judged | pass rate |",
        "| ---: | --- | --- | --- | --- | ---: | ---: | ---: |",
    ]
    for e in dashboard.engines:
        whole = dashboard.rate(e)
        out.append(
            f"| {e.number} | {md.text(e.name or e.spec)} | {md.text(e.version)} | "
            f"{md.text(e.spec)} | {md.text(', '.join(e.variants))} | {whole.total} | "
            f"{whole.judged} | {_rate_cell(whole)} |"
        )
    out += ["", "## Pass rate by variant", ""]
    out += ["| engine | " + " | ".join(md.text(v) for v in dashboard.variants) + " | all |"]
    out += ["| --- |" + " ---: |" * (len(dashboard.variants) + 1)]
    for e in dashboard.engines:
        cells = [_rate_cell(dashboard.rate(e, v)) for v in dashboard.variants]
        cells.append(_rate_cell(dashboard.rate(e)))
        out.append(f"| {e.number}. {md.text(e.label)} | " + " | ".join(cells) + " |")
    columns = dashboard.columns()
    heads = [f"{e.number}: {md.text(v or 'all')}" for e, v in columns]
    for title, rows, kind in (
        ("By clause family", dashboard.families, "family"),
        ("By operation", dashboard.operations, "operation"),
    ):
        out += ["", f"## {title}", ""]
        out += ["| " + kind + " | " + " | ".join(heads) + " |"]
        out += ["| --- |" + " ---: |" * len(heads)]
        for row in rows:
            cells = [
                dashboard.rate(engine, variant, **{kind: row}).text() for engine, variant in columns
            ]
            out.append(f"| {md.text(row)} | " + " | ".join(cells) + " |")
    explain = Explainer(dashboard)
    grouped = [(e, e.failures()) for e in dashboard.engines]
    if any(groups for _, groups in grouped):
        out += ["", "## Failures", "", f"Grouped by deciding clause: {DECIDING_RULE}.", ""]
    for engine, groups in grouped:
        if not groups:
            continue
        out += [f"### {engine.number}. {md.text(engine.label)}", ""]
        for group in groups:
            title = f"{md.code(group.clause)}{verdict_md(group.verdict)}"
            out += [f"#### {title} ({len(group.entries)})", ""]
            for entry in group.entries:
                yield "\n".join(out) + "\n"
                full = explain(engine, entry)
                out = failure_markdown(full, str(full.get("description", "")), "#####")
    yield "\n".join(out) + "\n"


def failing(engine: EngineRuns) -> list[Mapping[str, Any]]:
    """The engine's failing entries."""
    return [e for e in engine.entries if is_failing(e)]
