"""Control characters from an engine in every report (issue 16): an engine's error message, its
stderr and its answers may hold ESC sequences, NUL, BEL, backspace, carriage returns, C1
controls and lone surrogates. The JUnit XML stays well-formed, the terminal and the Markdown
show them escaped (no raw one, no broken table), the JSON report and the journal keep the text
as it was, and `guandan report` shows them escaped too.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.reporting.run_reports import (
    shown,
    write_json,
    write_junit,
    write_markdown,
    write_text,
)
from harness.conformance.running.runner import (
    CaseResult,
    RunConfig,
    RunResult,
    Status,
    journal_path,
    json_text,
    read_previous,
    run,
)
from harness.engine import EngineBase, EngineError, EngineErrorKind, EngineInfo, ReferenceEngine
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import repo_on_path

EVIL = (
    "\x1b[2J\x1b]0;pwned\x07 nul\x00 bs\x08 cr\r lf\n tab\t c1\x9b31m del\x7f "
    "lone\ud800 nonchar\ufffe pipe| tick` <tag> &amp;"
)
# What may not reach a terminal or an XML file raw: C0 controls but newline, DEL, C1, lone
# surrogates, U+FFFE and U+FFFF.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")

CASES = """\
title: Two cases for an engine that answers with control characters
cases:
  - id: evil-classify
    description: A2345 is a straight to 5.
    operation: classify
    clauses: [combinations.straight.shape]
    input: {cards: [SA, H2, C3, D4, S5], level: "9"}
    expected:
      readings: [{type: straight, rank: "5", size: 5}]
      default: null
  - id: evil-beats
    description: A single king beats a single nine.
    operation: beats
    clauses: [compare.same_type_and_size]
    input:
      play: {type: single, rank: K, size: 1}
      previous: {type: single, rank: "9", size: 1}
      level: "5"
    expected: {beats: true}
"""


class Evil(EngineBase):
    """The reference, except that classify fails with EVIL as message and detail, and beats
    answers EVIL; its name and version hold control characters too."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.reference = ReferenceEngine(variant, options)

    def describe(self) -> EngineInfo:
        """The reference's facts under an evil name."""
        info = self.reference.describe()
        return EngineInfo("evil\x1b[5m", "1\x00", info.variant, info.options, info.operations)

    def answer(self, operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """EVIL where it can be."""
        if operation == "classify":
            raise EngineError(EngineErrorKind.INTERNAL, EVIL, EVIL)
        if operation == "beats":
            return {"beats": EVIL}
        return self.reference.answer(operation, request)


# A process engine that greets properly, then writes control characters to stderr and exits.
CRASHING = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "protocol": 1, "name": "crashing",
            "version": "1", "variant": message["variant"], "options": message["options"],
            "operations": ["classify", "beats"]}) + "\\n")
        sys.stdout.flush()
    else:
        sys.stderr.buffer.write(b"\\x1b[2J\\x00\\x07\\x08 bad \\xff bytes \\r\\n")
        sys.stderr.flush()
        sys.exit(3)
"""


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.test_report_escaping:Evil` imports here."""
    repo_on_path(monkeypatch)


def assert_no_raw(text: str, where: str, allowed: str = "") -> None:
    """No raw control character in `text` but newlines and those `allowed`."""
    found = next((m for m in RAW.finditer(text) if m.group() not in allowed), None)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}: {text[:200]!r}"


def test_shown_escapes_as_repr_does() -> None:
    assert shown("a\x1b[2J\x00\x07\x08\r\t\n\x9b\x7f\ud800\ufffe") == (
        "a\\x1b[2J\\x00\\x07\\x08\\r\\t\\n\\x9b\\x7f\\ud800\\ufffe"
    )
    assert shown("line\nnext\ttab\r", keep="\n\t") == "line\nnext\ttab\\r"
    assert shown("plain 中文 ünïcode | ` <>") == "plain 中文 ünïcode | ` <>"


def test_shown_escapes_what_reorders_or_breaks_a_line_and_noncharacters() -> None:
    """Issue 23: bidirectional overrides (a line that reads otherwise than it is), U+2028 and
    U+2029 (line ends to `splitlines`) and the noncharacters of every plane reached the terminal
    and Markdown raw."""
    raw = "a\u202eb\u2066c\u200fd\u2028e\u2029f\ufdd0g\U0001fffeh\U0010ffff"
    assert shown(raw) == (
        "a\\u202eb\\u2066c\\u200fd\\u2028e\\u2029f\\ufdd0g\\U0001fffeh\\U0010ffff"
    )
    assert shown("emoji 😀 and ♠ stay") == "emoji 😀 and ♠ stay"


def test_reports_are_strict_json_whatever_numbers_an_engine_answered() -> None:
    """NaN and infinities an engine answered are written as strings: strict parsers read the
    report."""
    text = json_text({"actual": {"beats": float("nan"), "x": [float("inf"), -float("inf"), 1.5]}})

    def refuse(name: str) -> None:
        raise AssertionError(f"not strict JSON: {name}")

    assert json.loads(text, parse_constant=refuse) == {
        "actual": {"beats": "nan", "x": ["inf", "-inf", 1.5]}
    }


def _results() -> RunResult:
    """A run whose results hold EVIL everywhere an engine's words go."""
    huaian = load_variant("huaian")
    common: dict[str, Any] = {
        "variant": "huaian",
        "operation": "classify",
        "clauses": ("combinations.straight.shape",),
        "expected": {"readings": []},
        "input": {"cards": ["SA"], "level": "9"},
    }
    failed = CaseResult(
        id="evil-fail",
        status=Status.FAIL,
        actual={"readings": [EVIL]},
        differences=(f"readings[0]: expected nothing, got {EVIL}",),
        message=EVIL,
        **common,
    )
    errored = CaseResult(id="evil-error", status=Status.ERROR, message=EVIL, detail=EVIL, **common)
    timed = CaseResult(
        id="evil-timeout", status=Status.TIMEOUT, message=f"timeout: {EVIL}", detail=EVIL, **common
    )
    skipped = CaseResult(id="evil-unsupported", status=Status.UNSUPPORTED, message=EVIL, **common)
    passed = CaseResult(id="evil-pass", status=Status.OMITTED, omitted=(EVIL,), **common)
    results = [failed, errored, timed, skipped, passed]
    config = RunConfig(engine="py:evil\x1b[2J:Engine", variants=[huaian])
    return RunResult(config, results, engine_name=EVIL, engine_version=EVIL, selected=5)


def test_every_writer_escapes_or_keeps_control_characters(tmp_path: Path) -> None:
    run = _results()

    out = io.StringIO()
    write_text(run, out, verbose=True)
    text = out.getvalue()
    assert_no_raw(text, "terminal")
    assert "\\x1b[2J" in text and "\\x00" in text and "\\ud800" in text and "\\r" in text

    junit = tmp_path / "r.xml"
    write_junit(run, junit)
    root = ET.parse(junit).getroot()  # well-formed
    messages = [n.get("message", "") for n in root.iter() if n.tag in ("failure", "error")]
    assert messages and all("\\x1b[2J" in m and "\\x07" in m for m in messages)
    assert_no_raw(junit.read_text(encoding="utf-8"), "junit", allowed="\t")

    markdown = tmp_path / "r.md"
    write_markdown(run, markdown)
    page = markdown.read_text(encoding="utf-8")
    assert_no_raw(page, "markdown")
    assert "\\x1b" in page
    _assert_tables_whole(page)

    report = tmp_path / "r.json"
    write_json(run, report)
    data = json.loads(report.read_bytes().decode("utf-8"))  # UTF-8 throughout
    by_id = {c["id"]: c for c in data["cases"]}
    assert by_id["evil-error"]["message"] == EVIL  # kept as it was
    assert by_id["evil-error"]["detail"] == EVIL
    assert by_id["evil-fail"]["actual"] == {"readings": [EVIL]}
    assert data["engine"]["name"] == EVIL
    assert_no_raw(report.read_text(encoding="utf-8"), "json")  # JSON escapes them


def _assert_tables_whole(page: str) -> None:
    """Every row of every Markdown table has as many cells as its header (a raw | or newline
    in a cell would add or cut one)."""
    cells = re.compile(r"(?<!\\)\|")
    header: int | None = None
    for line in page.split("\n"):
        if not line.startswith("|"):
            header = None
            continue
        count = len(cells.findall(line))
        if header is None:
            header = count
        assert count == header, line


@pytest.mark.parametrize("kind", ["py", "exec"])
def test_check_with_an_engine_that_says_control_characters(tmp_path: Path, kind: str) -> None:
    cases = tmp_path / "evil.yaml"
    cases.write_text(CASES, encoding="utf-8")
    if kind == "py":
        engine = "py:tests.test_report_escaping:Evil"
    else:
        script = tmp_path / "crashing.py"
        script.write_text(CRASHING, encoding="utf-8")
        engine = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    report, junit, markdown = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    arguments = [
        "check", "--engine", engine, "--variant", "huaian", "--no-bundled",
        "--cases", str(cases), "--report", str(report), "--junit", str(junit),
        "--markdown", str(markdown), "--verbose",
    ]  # fmt: skip
    out = io.StringIO()
    code = main(arguments, out=out)
    assert code == 1, out.getvalue()
    assert_no_raw(out.getvalue(), "terminal")
    assert "\\x1b[2J" in out.getvalue()
    ET.parse(junit)
    assert_no_raw(junit.read_text(encoding="utf-8"), "junit", allowed="\t")
    assert_no_raw(markdown.read_text(encoding="utf-8"), "markdown")
    _assert_tables_whole(markdown.read_text(encoding="utf-8"))
    entries = {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    if kind == "py":
        assert entries["evil-classify"]["detail"] == EVIL
        assert entries["evil-beats"]["actual"] == {"beats": EVIL}
    else:
        assert "\x1b[2J" in entries["evil-classify"]["detail"]  # its stderr, kept

    # The dashboard of that report, in each of its forms.
    code = main(["report", str(report)], out=(out := io.StringIO()))
    assert code == 0
    assert_no_raw(out.getvalue(), "report text")
    page, html = tmp_path / "d.md", tmp_path / "d.html"
    code = main(["report", str(report), "--markdown", str(page), "--html", str(html)], out=out)
    assert code == 0
    assert_no_raw(page.read_text(encoding="utf-8"), "report markdown")
    assert_no_raw(html.read_text(encoding="utf-8"), "report html", allowed="\t")


def test_the_journal_keeps_control_characters_and_lone_surrogates(tmp_path: Path) -> None:
    cases = tmp_path / "evil.yaml"
    cases.write_text(CASES, encoding="utf-8")
    report = tmp_path / "r.json"
    journal = journal_path(report)
    # Interrupted after the first case (as Ctrl-C would): the journal holds its result.

    class Stop(Exception):
        """Stands for ^C."""

    def progress(result: CaseResult, done: int, total: int) -> None:
        raise Stop

    config = RunConfig(
        engine="py:tests.test_report_escaping:Evil",
        variants=[load_variant("huaian")],
        journal=journal,
        cases_paths=[cases],
        bundled=False,
    )
    with pytest.raises(Stop):
        run(config, progress)
    raw = journal.read_text(encoding="utf-8")
    assert raw.count("\n") == 1  # one line, whatever line ends the text holds
    (previous,) = read_previous(report)
    assert previous.id == "evil-classify"
    assert previous.message.endswith(EVIL) and previous.detail == EVIL
