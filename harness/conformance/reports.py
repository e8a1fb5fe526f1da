"""Reports of a `guandan check` run: for people (terminal), JSON, JUnit XML and Markdown."""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from harness.conformance.corpus import Case, load_cases
from harness.conformance.runner import BAD, CaseResult, RunResult, Status, families
from harness.model.ruleset import ProvenanceKind


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def report_json(run: RunResult) -> dict[str, Any]:
    """The JSON report: engine, variant, summary, one entry per case, stale expect-fail entries."""
    variants = [r.slug for r in run.config.variants]
    return {
        "engine": {
            "spec": run.config.engine,
            "name": run.engine_name,
            "version": run.engine_version,
        },
        "variant": variants[0] if len(variants) == 1 else variants,
        "options": run.config.options,
        "summary": run.summary(),
        "ok": run.ok,
        "stale_expect_fail": run.stale,
        "seconds": round(run.seconds, 3),
        "families": families(run.results),
        "cases": [r.to_json() for r in run.results],
    }


def write_json(run: RunResult, path: Path) -> None:
    """Write the JSON report to `path` (atomically)."""
    _write_atomically(path, json.dumps(report_json(run), ensure_ascii=False, indent=1) + "\n")


def write_junit(run: RunResult, path: Path) -> None:
    """Write a JUnit XML report: one testsuite per variant, one testcase per case."""
    root = ET.Element("testsuites", name="guandan-conformance")
    by_variant: dict[str, list[CaseResult]] = {}
    for result in run.results:
        by_variant.setdefault(result.variant, []).append(result)
    for variant, results in by_variant.items():
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"guandan.{variant}",
            tests=str(len(results)),
            failures=str(sum(r.status in (Status.FAIL, Status.XPASS) for r in results)),
            errors=str(sum(r.status in (Status.ERROR, Status.TIMEOUT) for r in results)),
            skipped=str(sum(r.status in (Status.UNSUPPORTED, Status.XFAIL) for r in results)),
            time=f"{sum(r.seconds for r in results):.3f}",
        )
        for result in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"guandan.{variant}.{result.operation}",
                name=result.key,
                time=f"{result.seconds:.6f}",
            )
            if result.status in (Status.FAIL, Status.XPASS):
                node = ET.SubElement(
                    case, "failure", message=result.message[:500], type=result.status.value
                )
                node.text = _failure_text(result)
            elif result.status in (Status.ERROR, Status.TIMEOUT):
                node = ET.SubElement(
                    case, "error", message=result.message[:500], type=result.status.value
                )
                node.text = result.detail
            elif result.status in (Status.UNSUPPORTED, Status.XFAIL):
                ET.SubElement(case, "skipped", message=f"{result.status.value}: {result.message}")
    if run.stale:
        suite = ET.SubElement(
            root,
            "testsuite",
            name="guandan.expect-fail",
            tests=str(len(run.stale)),
            failures=str(len(run.stale)),
        )
        for entry in run.stale:
            case = ET.SubElement(suite, "testcase", classname="guandan.expect-fail", name=entry)
            ET.SubElement(case, "failure", message=f"stale expect-fail entry: {entry}")
    ET.indent(root)
    _write_atomically(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(run: RunResult, path: Path) -> None:
    """Write a Markdown summary: totals, a table by clause family, and the failures."""
    lines = [f"# Guandan conformance: {run.engine_name or run.config.engine}", ""]
    summary = run.summary()
    lines += ["| status | cases |", "| --- | ---: |"]
    lines += [f"| {k} | {v} |" for k, v in summary.items()]
    lines += ["", "## By clause family", ""]
    statuses = [s.value for s in Status]
    lines += [
        "| family | " + " | ".join(statuses) + " |",
        "| --- | " + " | ".join("---:" for _ in statuses) + " |",
    ]
    for family, row in families(run.results).items():
        lines.append(f"| {family} | " + " | ".join(str(row.get(s, 0)) for s in statuses) + " |")
    bad = [r for r in run.results if r.status in BAD]
    if bad:
        lines += [
            "",
            "## Failures",
            "",
            "| case | status | clauses | what differs |",
            "| --- | --- | --- | --- |",
        ]
        for r in bad:
            lines.append(
                f"| `{r.key}` | {r.status.value} | {', '.join(r.clauses)} | "
                f"{_cell(r.message)[:300]} |"
            )
    if run.stale:
        lines += ["", "## Stale expect-fail entries", ""] + [f"- `{e}`" for e in run.stale]
    _write_atomically(path, "\n".join(lines) + "\n")


def _failure_text(result: CaseResult) -> str:
    parts = [result.message]
    if result.expected is not None:
        parts.append("expected: " + json.dumps(result.expected, ensure_ascii=False))
    if result.actual is not None:
        parts.append("actual:   " + json.dumps(result.actual, ensure_ascii=False))
    return "\n".join(parts)


def _short(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cases_by_id() -> Mapping[str, Case]:
    cases, _ = load_cases()
    return {c.id: c for c in cases}


def write_text(run: RunResult, out: TextIO, verbose: bool = False) -> None:
    """The run for people: each failure in full (clause, source quote, input, expected, actual,
    what differs), then a summary by clause family and the totals."""
    cases = run.cases or _cases_by_id()
    # The variants the run had: a variant file is never reloaded (nor mistaken for a bundled one).
    rulesets = {r.slug: r for r in run.config.variants}
    bad = [r for r in run.results if r.status in BAD]
    for result in bad:
        case = cases.get(result.id)
        out.write(f"\n{result.status.value.upper()} {result.key}")
        if case is not None:
            out.write(f" — {case.description}\n  at {case.location}\n")
            ruleset = rulesets.get(result.variant)
            for clause_id in case.clauses:
                clause = None if ruleset is None else ruleset.clauses.get(clause_id)
                if clause is None:
                    continue
                prov = clause.provenance
                if prov.kind is ProvenanceKind.STATED:
                    out.write(f"  {clause_id}: stated ({prov.place}): {prov.quote}\n")
                else:
                    out.write(f"  {clause_id}: assumed: {prov.reason}\n")
            out.write(f"  input:    {_short(case.input)}\n")
        else:
            out.write("\n")
        out.write(f"  expected: {_short(result.expected)}\n")
        if result.actual is not None:
            out.write(f"  actual:   {_short(result.actual)}\n")
        for difference in result.differences:
            out.write(f"  differs:  {difference}\n")
        if not result.differences:
            out.write(f"  {result.message}\n")
        if result.detail:
            out.write("  " + result.detail.replace("\n", "\n  ") + "\n")
    if verbose:
        for result in run.results:
            if result.status not in BAD:
                out.write(f"{result.status.value:<11} {result.key}\n")
    table = families(run.results)
    if table:
        out.write("\nBy clause family:\n")
        for family, row in table.items():
            shown = ", ".join(f"{k} {v}" for k, v in sorted(row.items()))
            out.write(f"  {family:<14} {shown}\n")
    refused = sorted(
        {
            r.variant
            for r in run.results
            if r.status is Status.UNSUPPORTED and r.message.startswith("the engine could not start")
        }
    )
    for variant in refused:
        out.write(
            f"NOTE: the engine did not start for {variant}; its cases are unsupported, not failed\n"
        )
    for entry in run.stale:
        out.write(f"STALE expect-fail entry: {entry}\n")
    s = run.summary()
    out.write(
        f"\n{run.engine_name or run.config.engine}: {s['total']} cases: {s['passed']} passed, "
        f"{s['failed']} failed, {s['unsupported']} unsupported, {s['errors']} errors, "
        f"{s['timeouts']} timeouts, {s['xfail']} xfail, {s['xpass']} xpass "
        f"({run.seconds:.1f} s)\n"
    )
    assumed = sum(1 for r in run.results if r.assumed)
    if assumed:
        out.write(
            f"{assumed} of them rest on a clause the variant only assumes "
            "(see `assumed` in the JSON report)\n"
        )
