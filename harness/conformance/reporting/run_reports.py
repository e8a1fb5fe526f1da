"""Reports of a `guandan check` run: for people (terminal), JSON, JUnit XML and Markdown.

Each failing case is explained the same way in all of them (see `explain`): its input, the
expected output, what came back, the differences, the clause that decides it, and the command
that reruns it alone. The tables by clause family count each case once, under the family of its
first clause, and say so.

What an engine says (its messages, its stderr, its answers) is untrusted: every writer shows its
control characters escaped (`shown`), so that none reaches a terminal, breaks the XML or a
Markdown table; the JSON report keeps the text as it was (JSON escapes it).
"""

from __future__ import annotations

import functools
import io
import json
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, TextIO

from harness._paths import variants_dir
from harness.conformance.cases.case_loader import Case, load_cases
from harness.conformance.explaining.failures import (
    DECIDING_RULE,
    FAMILY_RULE,
    case_family,
    deciding_clause,
    diff_text,
    failure_groups,
    is_failing,
    key_of,
    operation_of,
    rerun_for,
    short_json,
    sorted_statuses,
    tally,
    verdict_of,
)
from harness.conformance.judging.judge import BAD, Status
from harness.conformance.reporting import mdescape as md
from harness.conformance.running.results import (
    NOT_STARTED,
    CaseResult,
    RunResult,
    json_text,
    options_text,
    share_percent,
)
from harness.model._files import write_atomically
from harness.model.ruleset import ProvenanceKind, Ruleset
from harness.wording import counted

# Entries that get their input, deciding clause and rerun command in the JSON report: the
# failures, and the known failures of an expect-fail list (the dashboard shows both).
_EXPLAINED = frozenset({*(s.value for s in BAD), Status.XFAIL.value})


# The characters `shown` escapes: the C0 controls, DEL and the C1 controls (a terminal acts on
# them: ESC starts a sequence that may clear the screen or retitle the window, CR and BS
# overwrite what was shown; XML 1.0 allows no C0 control but tab and newlines); the format
# characters that reorder or break what is shown (the bidirectional marks, embeddings,
# overrides and isolates, which can make a line read otherwise than it is, and U+2028, U+2029,
# which end a line); lone surrogates (UTF-8 cannot encode them: writing the report would fail)
# and the noncharacters (U+FDD0 to U+FDEF and the last two code points of every plane).
_UNSHOWABLE_BMP = (
    (0x00, 0x1F),
    (0x7F, 0x9F),
    (0x61C, 0x61C),
    (0x200E, 0x200F),
    (0x2028, 0x202E),
    (0x2066, 0x2069),
    (0xD800, 0xDFFF),
    (0xFDD0, 0xFDEF),
    (0xFFFE, 0xFFFF),
)
# Beyond the BMP the pattern matches every character and `_escape` hands back all but the
# noncharacters: a class of those 32 characters alone scans ten times slower (3.7 s for a page of
# 32,000 failures against 0.3 s), and such characters are rare in a report.
_ASTRAL = (0x10000, 0x10FFFF)
# The escapes `repr` writes short, as people know them.
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def shown(text: str, keep: str = "") -> str:
    r"""`text` safe to show in a report: each control character, lone surrogate and
    noncharacter written as its escape (`\x1b`, `\ud800`, as `repr` writes it), except the
    characters in `keep` (e.g. "\n" for text shown on several lines)."""
    return _unshowable(keep).sub(_escape, text)


@functools.cache
def _unshowable(keep: str) -> re.Pattern[str]:
    """What `shown` matches but the characters of `keep`: a kept character never matches (a
    match per newline, handed back as it was, made a page of 32,000 failures 1.1 million calls)."""
    kept = sorted(ord(c) for c in set(keep))
    ranges = []
    for low, high in (*_UNSHOWABLE_BMP, _ASTRAL):
        for code in (k for k in kept if low <= k <= high):
            if low < code:
                ranges.append((low, code - 1))
            low = code + 1
        if low <= high:
            ranges.append((low, high))
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    # Beyond the BMP only the last two code points of each plane are noncharacters.
    return f"\\U{code:08x}" if code & 0xFFFE == 0xFFFE else char


def variant_spec(ruleset: Ruleset) -> str:
    """What `--variant` takes to load this variant again: its slug if bundled, else its file."""
    bundled = variants_dir() / f"{ruleset.slug}.yaml"
    if not ruleset.files:
        return ruleset.slug
    try:
        same = Path(ruleset.files[-1]).resolve() == bundled.resolve()
    except OSError:
        same = False
    return ruleset.slug if same else ruleset.files[-1]


class _Explainer:
    """What a run knows that its entries do not: the cases, the variants, the corpus's ids."""

    def __init__(self, run: RunResult) -> None:
        self.run = run
        self.cases: Mapping[str, Case] = run.cases or bundled_cases_by_id()
        # The variants the run had: a variant file is never reloaded (nor taken for a bundled one).
        self.rulesets = {r.slug: r for r in run.config.variants}
        self.known: Collection[str] = self.cases.keys()

    def rerun(self, entry: Mapping[str, Any]) -> str:
        """The command that reruns this entry's case alone."""
        ruleset = self.rulesets.get(str(entry.get("variant")))
        defaults = None if ruleset is None else {n: o.default for n, o in ruleset.options.items()}
        case = self.cases.get(str(entry.get("id")))
        return rerun_for(
            entry,
            self.run.config.engine,
            variant=None if ruleset is None else variant_spec(ruleset),
            defaults=defaults,
            case_file=None if case is None else case.location.file,
        ).command(self.known)

    def entry(self, result: CaseResult) -> dict[str, Any]:
        """The JSON report's entry of a result, explained when it failed."""
        entry = result.to_json()
        if entry.get("status") in _EXPLAINED:
            case = self.cases.get(result.id)
            if entry.get("input") is None and case is not None:
                entry["input"] = case.input
            entry.update(self.run.verdicts.get(result.key, {}))
            entry["decided_by"] = deciding_clause(entry)
            entry["rerun"] = self.rerun(entry)
        return entry


def _counted_entry(result: CaseResult) -> dict[str, Any]:
    """What the text report's tables read of a result it does not explain."""
    return {
        "id": result.id,
        "variant": result.variant,
        "status": result.status.value,
        "operation": result.operation,
        "clauses": list(result.clauses),
    }


def report_json(run: RunResult) -> dict[str, Any]:
    """The JSON report: engine, variant, summary, tables by operation and by clause family (each
    case once), failures by deciding clause, one entry per case, stale expect-fail entries."""
    variants = [r.slug for r in run.config.variants]
    explainer = _Explainer(run)
    entries = [explainer.entry(r) for r in run.results]
    files = {r.slug: spec for r in run.config.variants if (spec := variant_spec(r)) != r.slug}
    return {
        "engine": {
            "spec": run.config.engine,
            "name": run.engine_name,
            "version": run.engine_version,
        },
        "variant": variants[0] if len(variants) == 1 else variants,
        "variant_files": files,
        "options": run.config.options,
        "summary": run.summary(),
        "coverage": run.coverage(),
        "unjudged": run.unjudged,
        "ok": run.ok,
        "interrupted": run.interrupted,
        "stale_expect_fail": run.stale,
        "seconds": round(run.total_seconds, 3),
        "cases_seconds": round(run.seconds, 3),
        "explain_seconds": round(run.explain_seconds, 3),
        "operations": tally(entries, operation_of),
        "families": tally(entries, case_family),
        "families_counted": FAMILY_RULE,
        "failures_by_clause": [
            {"clause": g.clause, "verdict": g.verdict, "cases": [key_of(e) for e in g.entries]}
            for g in failure_groups(entries)
        ],
        "left_unexplained": run.left_unexplained,
        "problems": [
            {"location": str(p.location), "path": p.path, "message": p.message}
            for p in run.problems
        ],
        "refusals": [r.to_json() for r in run.refusals],
        "not_started": list(run.not_started),
        "left_out": list(run.left_out),
        "cases": entries,
    }


def write_json(run: RunResult, path: Path) -> None:
    """Write the JSON report to `path` (atomically)."""
    write_atomically(path, json_report(run))


def json_report(run: RunResult) -> str:
    """The JSON report, as `write_json` writes it."""
    return json_text(report_json(run), indent=1) + "\n"


def coverage_words(run: RunResult) -> str:
    """How much of the run was judged (覆蓋率), with the operations it was not whole on:
    `judged 52 of 875 (6 %; classify 52 of 300, beats 0 of 120, ...)`."""
    total = len(run.applicable)
    if total == 0:
        return "judged 0 of 0"
    share = share_percent(run.judged, total)
    partial = [
        f"{op} {c['judged']} of {c['total']}"
        for op, c in run.coverage().items()
        if c["judged"] < c["total"]
    ]
    return f"judged {run.judged} of {total} ({share} %" + (
        f"; {', '.join(partial)})" if partial else ")"
    )


def write_junit(run: RunResult, path: Path) -> None:
    """Write a JUnit XML report: one testsuite per variant, one testcase per case."""
    write_atomically(path, junit_report(run))


def junit_report(run: RunResult) -> str:
    """The JUnit XML report, as `write_junit` writes it."""
    explainer = _Explainer(run)
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
        # Coverage beside the counts: a suite of skips alone is no pass (never a silent green).
        properties = ET.SubElement(suite, "properties")
        judged = sum(r.status is not Status.UNSUPPORTED for r in results)
        for name, value in (("judged", judged), ("total", len(results))):
            ET.SubElement(properties, "property", name=name, value=str(value))
        for reason in run.unjudged:
            ET.SubElement(properties, "property", name="not_passed", value=reason)
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
                node.text = _failure_text(explainer.entry(result))
            elif result.status in (Status.ERROR, Status.TIMEOUT):
                node = ET.SubElement(
                    case, "error", message=result.message[:500], type=result.status.value
                )
                node.text = "\n".join(
                    filter(None, [result.detail, "rerun: " + explainer.entry(result)["rerun"]])
                )
            elif result.status in (Status.UNSUPPORTED, Status.XFAIL):
                ET.SubElement(case, "skipped", message=f"{result.status.value}: {result.message}")
            elif result.status is Status.OMITTED:
                # A pass with omissions is not a plain pass: say so where CI tools look.
                props = ET.SubElement(case, "properties")
                ET.SubElement(props, "property", name="guandan_status", value="omitted")
                left_out = ", ".join(result.omitted)
                ET.SubElement(case, "system-out").text = f"not compared: {left_out}"
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
    _escape_tree(root)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _escape_tree(root: ET.Element) -> None:
    """Every text and attribute of the XML `shown`: XML 1.0 cannot hold a control character
    (ElementTree would write one as it is, and no parser would read the file)."""
    for node in root.iter():
        if node.text:
            node.text = shown(node.text, keep="\n\t")
        if node.tail:
            node.tail = shown(node.tail, keep="\n\t")
        for name, value in node.attrib.items():
            node.attrib[name] = shown(value, keep="\n\t")


def _failure_text(entry: Mapping[str, Any]) -> str:
    parts = [str(entry.get("message", ""))]
    if entry.get("input") is not None:
        parts.append("input:    " + json.dumps(entry["input"], ensure_ascii=False))
    if entry.get("expected") is not None:
        parts.append("expected: " + json.dumps(entry["expected"], ensure_ascii=False))
    if entry.get("actual") is not None:
        parts.append("actual:   " + json.dumps(entry["actual"], ensure_ascii=False))
    parts += diff_text(entry)
    if entry.get("rerun"):
        parts.append(f"rerun:    {entry['rerun']}")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Markdown


def status_table(table: Mapping[str, Mapping[str, int]], heading: str) -> list[str]:
    """A Markdown table of status counts, one row per key of `table`, a column per status."""
    statuses = sorted_statuses(s for row in table.values() for s in row)
    lines = [
        f"| {heading} | " + " | ".join(md.text(s) for s in statuses) + " |",
        "| --- | " + " | ".join("---:" for _ in statuses) + " |",
    ]
    for name, row in table.items():
        cells = " | ".join(str(row.get(s, 0)) for s in statuses)
        lines.append(f"| {md.text(name)} | {cells} |")
    return lines


def failure_markdown(
    entry: Mapping[str, Any], description: str = "", heading: str = "####"
) -> list[str]:
    """One failing entry in Markdown: what it is, its input, expected and actual outputs, the
    differences as a diff, and the command that reruns it."""
    out = [f"{heading} {md.code(key_of(entry))}", ""]
    facts = [f"**{md.text(str(entry.get('status', '?')))}**"]
    if description:
        facts.append(md.text(description))
    facts.append("decided by " + md.code(str(entry.get("decided_by") or deciding_clause(entry))))
    if verdict_of(entry):
        facts.append(md.text(verdict_of(entry)))
    out += [" · ".join(facts), ""]
    blocks: list[tuple[str, Any]] = [
        ("input", entry.get("input")),
        ("expected", entry.get("expected")),
        ("actual", entry.get("actual")),
    ]
    for label, value in blocks:
        if value is not None:
            out += [f"{label}:", "", *md.fence(json.dumps(value, ensure_ascii=False), "json"), ""]
    diff = diff_text(entry)
    if diff:
        out += ["what differs:", "", *md.fence("\n".join(diff), "diff"), ""]
    elif entry.get("message"):
        out += [md.text(str(entry["message"])), ""]
    if entry.get("detail"):
        out += [*md.fence(str(entry["detail"])), ""]
    if entry.get("rerun"):
        out += ["rerun it alone:", "", *md.fence(str(entry["rerun"]), "sh"), ""]
    return out


def write_markdown(run: RunResult, path: Path) -> None:
    """Write a Markdown report: totals, tables by operation and by clause family, failures by
    deciding clause, and each failure in full."""
    write_atomically(path, markdown_report(run))


def markdown_report(run: RunResult) -> str:
    """The Markdown report, as `write_markdown` writes it."""
    report = report_json(run)
    entries: list[dict[str, Any]] = report["cases"]
    name = run.engine_name or run.config.engine
    lines = [f"# Guandan conformance: {md.text(name)} {md.text(run.engine_version)}".rstrip(), ""]
    lines += [f"Engine {md.code(run.config.engine)}; {FAMILY_RULE}.", ""]
    if run.interrupted:
        lines += [f"**Interrupted**: {_ran(run)}.", ""]
    lines += [f"Coverage: {coverage_words(run)}.", ""]
    lines += [f"**Not passed**: {md.text(reason)}." for reason in run.unjudged]
    lines += [""] if run.unjudged else []
    lines += ["| status | cases |", "| --- | ---: |"]
    lines += [f"| {k} | {v} |" for k, v in run.summary().items()]
    lines += ["", "## By operation", "", *status_table(report["operations"], "operation")]
    lines += ["", "## By clause family", "", f"Counted: {FAMILY_RULE}.", ""]
    lines += status_table(report["families"], "family")
    bad = [e for e in entries if is_failing(e)]
    if bad:
        lines += ["", "## Failures by deciding clause", "", f"Decided: {DECIDING_RULE}.", ""]
        lines += ["| clause | cases | which |", "| --- | ---: | --- |"]
        for group in failure_groups(bad):
            keys = ", ".join(key_of(e) for e in group.entries[:10])
            keys += f", and {len(group.entries) - 10} more" if len(group.entries) > 10 else ""
            cause = f"{_cell_code(group.clause)}{verdict_md(group.verdict, cell=True)}"
            lines.append(f"| {cause} | {len(group.entries)} | {md.text(keys)} |")
        lines += [
            "",
            "## Failures",
            "",
            "| case | status | decided by | what differs |",
            "| --- | --- | --- | --- |",
        ]
        for e in bad:
            message = str(e.get("message", ""))[:300]  # cut before escaping, never inside it
            lines.append(
                f"| {_cell_code(key_of(e))} | {md.text(str(e['status']))} | "
                f"{_cell_code(e['decided_by'])} | {md.text(message)} |"
            )
        lines += ["", "### Each failure", ""]
        for e in bad:
            case = run.cases.get(str(e["id"]))
            lines += failure_markdown(e, case.description if case else "")
    if run.stale:
        lines += ["", "## Stale expect-fail entries", ""] + [f"- {md.code(e)}" for e in run.stale]
    # Last, over the whole page: the escapes `shown` writes hold no Markdown punctuation, so
    # they cannot undo what `md` escaped.
    return shown("\n".join(lines) + "\n", keep="\n")


def verdict_md(verdict: str, cell: bool = False) -> str:
    """` (verdict)` as Markdown text, or "" for none; `cell`: escaped for a table cell."""
    if not verdict:
        return ""
    text = f" ({md.text(verdict)})"
    return text.replace("|", "\\|") if cell else text


def _cell_code(value: str) -> str:
    """An inline code span for a table cell: a `|` even inside a code span ends the cell unless
    escaped (GitHub-flavoured tables), and the escape shows as `|` there."""
    return md.code(value).replace("|", "\\|")


def _ran(run: RunResult) -> str:
    """How many of the run's cases ran, for an interrupted run."""
    return (
        f"{len(run.results)} of {counted(run.selected, 'case')} ran before the run was "
        "interrupted; the "
        "same command with --resume REPORT.json runs the others"
    )


# ---------------------------------------------------------------------------------------------
# Text, for people at a terminal


def bundled_cases_by_id() -> Mapping[str, Case]:
    """The bundled corpus's cases by id (for a run that kept no cases of its own)."""
    cases, _ = load_cases()
    return {c.id: c for c in cases}


def _input_lines(value: Any) -> list[str]:
    """The input, one top-level key a line (a replay's hands and actions stay readable)."""
    if not isinstance(value, Mapping):
        return [short_json(value, 1000)]
    return [f"{key}: {short_json(item, 1000)}" for key, item in value.items()]


def _write_failure(explainer: _Explainer, result: CaseResult, out: TextIO) -> None:
    entry = explainer.entry(result)
    case = explainer.cases.get(result.id)
    out.write(f"\n{result.status.value.upper()} {result.key}")
    # The result carries its own case's description and place: an own case is never looked up.
    if result.description:
        out.write(f" — {result.description}\n  at {result.location}\n")
    else:
        out.write("\n")
    out.write(f"  decided by {entry['decided_by']}\n")
    if verdict_of(entry):
        out.write(f"  verdict:  {verdict_of(entry)}\n")
    ruleset = explainer.rulesets.get(result.variant)
    for clause_id in case.clauses if case is not None else ():
        clause = None if ruleset is None else ruleset.clauses.get(clause_id)
        if clause is None:
            continue
        prov = clause.provenance
        if prov.kind is ProvenanceKind.STATED:
            out.write(f"  {clause_id}: stated ({prov.place}): {(prov.quote or '').strip()}\n")
        elif prov.kind is ProvenanceKind.READ:
            reading = " ".join((prov.reading or "").split())
            out.write(
                f"  {clause_id}: read ({prov.place}): {(prov.quote or '').strip()}; "
                f"our reading: {reading}\n"
            )
        else:
            out.write(f"  {clause_id}: assumed: {(prov.reason or '').strip()}\n")
    if entry.get("input") is not None:
        lines = _input_lines(entry["input"])
        out.write("  input:    " + "\n            ".join(lines) + "\n")
    out.write(f"  expected: {short_json(result.expected)}\n")
    if result.actual is not None:
        out.write(f"  actual:   {short_json(result.actual)}\n")
    diff = diff_text(entry, "            ")
    if diff:
        out.write("  differs:\n" + "\n".join(diff) + "\n")
    else:
        out.write(f"  {result.message}\n")
    if result.detail:
        out.write("  " + result.detail.replace("\n", "\n  ") + "\n")
    out.write(f"  rerun:    {entry['rerun']}\n")


def _write_table(out: TextIO, title: str, table: Mapping[str, Mapping[str, int]]) -> None:
    if not table:
        return
    out.write(f"\n{title}:\n")
    for name, row in table.items():
        shown = ", ".join(f"{s} {row[s]}" for s in sorted_statuses(row))
        out.write(f"  {name:<14} {shown}\n")


def write_text(run: RunResult, out: TextIO, verbose: bool = False) -> None:
    """The run for people: each failure in full (clause, source quote, input, expected, actual,
    what differs, the command that reruns it), failures by deciding clause, tables by operation
    and by clause family, and the totals; control characters escaped."""
    text = io.StringIO()
    _write_text(run, text, verbose)
    out.write(shown(text.getvalue(), keep="\n"))


def _write_text(run: RunResult, out: TextIO, verbose: bool) -> None:
    explainer = _Explainer(run)
    bad = [r for r in run.results if r.status in BAD]
    # An engine that could not start fails every case of its option set the same way: one
    # block per option set, not one per case (a garbage hello once printed 11,660 lines).
    not_started: dict[tuple[str, str, str], list[CaseResult]] = {}
    for result in bad:
        if result.status is Status.ERROR and result.message.startswith(NOT_STARTED):
            key = (result.variant, options_text(result.options), result.message)
            not_started.setdefault(key, []).append(result)
        else:
            _write_failure(explainer, result, out)
    for (variant, options, message), results in not_started.items():
        first = explainer.entry(results[0])
        ids = ", ".join(r.id for r in results[:3])
        more = f", and {len(results) - 3} more" if len(results) > 3 else ""
        out.write(f"\nERROR {variant} ({options}): {message}\n")
        if results[0].detail:
            out.write("  " + results[0].detail.replace("\n", "\n  ") + "\n")
        out.write(f"  {counted(len(results), 'case')} not run: {ids}{more}\n")
        # The rerun of the whole option set: the first case's, without its `-k`.
        rerun = str(first["rerun"]).replace(f" -k {shlex.quote(results[0].id)}", "")
        out.write(f"  rerun:    {rerun}\n")
    if verbose:
        for result in run.results:
            if result.status not in BAD:
                left_out = f" ({', '.join(result.omitted)} not compared)" if result.omitted else ""
                out.write(f"{result.status.value:<11} {result.key}{left_out}\n")
    # The tables count each result by its status, operation and first clause: the whole entry
    # (the case as written, the answer) is made only for a result the report explains.
    entries = [
        explainer.entry(r) if r.status.value in _EXPLAINED else _counted_entry(r)
        for r in run.results
    ]
    groups = failure_groups(entries)
    if groups:
        out.write(f"\nFailures by deciding clause ({DECIDING_RULE}):\n")
        for group in groups:
            keys = ", ".join(key_of(e) for e in group.entries[:3])
            more = f", and {len(group.entries) - 3} more" if len(group.entries) > 3 else ""
            out.write(f"  {len(group.entries):>4}  {group.label}: {keys}{more}\n")
    _write_table(out, "By operation", tally(entries, operation_of))
    _write_table(out, f"By clause family ({FAMILY_RULE})", tally(entries, case_family))
    asked = {v.slug for v in run.config.variants}
    derived = [v for v in run.not_started if v not in asked]
    if derived:
        cases = sum(1 for r in run.results if r.variant in set(derived))
        out.write(
            f"NOTE: the engine did not start for {counted(len(derived), 'variant')} derived "
            f"for cases on clause values the variants checked do not play (e.g. {derived[0]}); "
            f"their {counted(cases, 'case')} are unsupported, not failed\n"
        )
    inapplicable = [r for r in run.results if r.status is Status.NOT_APPLICABLE]
    if inapplicable:
        slugs = list(dict.fromkeys(r.variant for r in inapplicable))
        out.write(
            f"NOTE: {counted(len(inapplicable), 'case')} on {counted(len(slugs), 'variant')} "
            f"derived for clause values the variants checked do not play (e.g. {slugs[0]}) "
            "are not applicable, counted apart: the engine does not claim to play derived "
            "variants (`rulesets` in its hello; see the engine guide, Derived variants)\n"
        )
    for variant in (v for v in run.not_started if v in asked):
        statuses = {r.status for r in run.results if r.variant == variant}
        what = "unsupported" if statuses <= {Status.UNSUPPORTED} else "errors"
        out.write(
            f"NOTE: the engine did not start for {variant} under any option set; its cases are "
            f"{what}, not failed\n"
        )
    if run.left_out:
        variants = sorted({key.rsplit("[", 1)[-1].split("]")[0] for key in run.left_out})
        out.write(
            f"NOTE: {counted(len(run.left_out), 'bundled case')} left out for "
            f"{', '.join(variants)}, resting on a clause value it changes (the reference "
            "answers otherwise there), e.g. "
            f"{', '.join(run.left_out[:3])}\n"
        )
    for refusal in run.refusals:
        if refusal.variant in run.not_started:
            continue
        chosen = ", ".join(f"{k}={v}" for k, v in refusal.options.items()) or "no options"
        out.write(
            f"NOTE: the engine refused {refusal.variant} with {chosen} "
            f"({counted(refusal.cases, 'case')} unsupported): {refusal.message}\n"
        )
    if run.left_unexplained:
        out.write(
            f"NOTE: {counted(run.left_unexplained, 'failing case')} left unexplained for lack of "
            "budget: the explainer takes a variant's own failures first, then those of the "
            "variants derived from it, up to its budget a family; the others are grouped by the "
            "clause they cite\n"
        )
    for entry in run.stale:
        out.write(f"STALE expect-fail entry: {entry}\n")
    if run.interrupted:
        out.write(f"INTERRUPTED: {_ran(run)}\n")
    for reason in run.unjudged:
        out.write(f"NOT PASSED: {reason}\n")
    s = run.summary()
    took = f"{run.total_seconds:.1f} s"
    if run.left_unexplained is not None:
        took += f": cases {run.seconds:.1f} s, explaining {run.explain_seconds:.1f} s"
    out.write(
        f"\n{run.engine_name or run.config.engine}: {counted(s['total'], 'case')}: "
        f"{s['passed']} passed, "
        + (f"{s['omitted']} passed with omissions, " if s["omitted"] else "")
        + f"{s['failed']} failed, {s['unsupported']} unsupported, "
        f"{counted(s['errors'], 'error')}, {counted(s['timeouts'], 'timeout')}, "
        f"{s['xfail']} xfail, {s['xpass']} xpass "
        f"({took})\n"
        f"coverage: {coverage_words(run)}\n"
    )
    assumed = sum(1 for r in run.applicable if r.assumed)
    if assumed:
        out.write(
            f"{counted(assumed, 'of them rests', 'of them rest')} on a clause the variant only "
            "assumes "
            "(see `assumed` in the JSON report)\n"
        )
