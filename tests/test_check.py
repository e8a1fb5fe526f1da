"""`guandan check` end to end: the reference, the reference behind the process protocol, broken
engines of both protocols, expect-fail lists, selection, reports (JSON, JUnit, Markdown), resume
and usage errors.

Most runs use a tiny corpus of our own (the bundled one changes as it grows): the CLI reads the
corpus from `harness.corpus.cases_dir`, which the `tiny` fixture points at a folder under
tmp_path; the runner API gets the same files through `RunConfig.cases_paths`. Runs on the bundled
corpus select with `-k combo-straight` and count what the report says.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import os
import pickle
import re
import shlex
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

import harness.conformance.cases.case_loader
from harness.conformance.oracles import verdicts
from harness.conformance.running import runner
from harness.conformance.running.runner import (
    CaseResult,
    ExpectFail,
    RunConfig,
    Status,
    journal_path,
    read_previous,
    run,
)
from harness.engine import OPERATION_NAMES
from harness.errors import HarnessError
from harness.frontends.cli import check as check_module
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import repo_on_path

REPO = Path(__file__).resolve().parents[1]
BROKEN = REPO / "tests" / "engines" / "broken.py"
PYTHON = shlex.quote(sys.executable)
SERVE = f"exec:{PYTHON} -m harness.frontends.cli serve --variant huaian"
WRONG_BEATS = "py:tests.engines.pyengines:make_wrong_beats"
RAISES = "py:tests.engines.pyengines:make_raises"
SUMMARY_KEYS = {"passed", "failed", "unsupported", "errors", "timeouts", "xfail", "xpass"}


def broken(mode: str) -> str:
    """The engine spec of tests/engines/broken.py in `mode`."""
    return f"exec:{PYTHON} {shlex.quote(str(BROKEN))} {mode}"


# The tiny corpus: two classify cases (one with a reading, one with none), a beats case between
# them and a replay case after them, so that a case follows each one that breaks an engine.
STRAIGHT = "tiny-classify-straight"
BEATS = "tiny-beats-king-over-nine"
NO_PLAY = "tiny-classify-no-play"
REPLAY = "tiny-replay-pairs-climb"
TINY_IDS = [STRAIGHT, BEATS, NO_PLAY, REPLAY]
TINY = """\
title: A tiny corpus for the tests of guandan check
cases:
  - id: tiny-classify-straight
    description: A2345 is a straight to 5.
    operation: classify
    clauses: [combinations.straight.shape, sequences.ace_low]
    input: {cards: [SA, H2, C3, D4, S5], level: "9"}
    expected:
      readings: [{type: straight, rank: "5", size: 5}]
      default: null
  - id: tiny-beats-king-over-nine
    description: A single king beats a single nine.
    operation: beats
    clauses: [compare.same_type_and_size]
    input:
      play: {type: single, rank: K, size: 1}
      previous: {type: single, rank: "9", size: 1}
      level: "5"
    expected: {beats: true}
  - id: tiny-classify-no-play
    description: JQKA2 is no play; a straight does not run through A into 2.
    operation: classify
    clauses: [sequences.wrap, combinations.straight.shape]
    input: {cards: [SJ, HQ, CK, DA, S2], level: "9"}
    expected: {readings: []}
  - id: tiny-replay-pairs-climb
    description: Pairs climb 44, 77, QQ; after three passes seat 3, whose pair stands, leads.
    operation: replay
    clauses: [compare.same_type_and_size, flow.new_lead, flow.pass]
    input:
      level: "5"
      leader: 0
      hands:
        - [S4, C4, S9]
        - [D7, H7, CK]
        - [ST, DT]
        - [SQ, CQ, D3]
      actions:
        - {seat: 0, cards: [S4, C4]}
        - {seat: 1, cards: [D7, H7]}
        - {seat: 2, pass: true}
        - {seat: 3, cards: [SQ, CQ]}
        - {seat: 0, pass: true}
        - {seat: 1, pass: true}
        - {seat: 2, pass: true}
    expected:
      steps:
        - {legal: true, next: 1}
        - {legal: true, next: 2}
        - {legal: true, next: 3}
        - {legal: true, next: 0}
        - {legal: true, next: 1}
        - {legal: true, next: 2}
        - {legal: true, next: 3, lead: 3}
      over: false
      finish: null
"""

# Two cases whose input the reference rejects (three copies of one card): status error.
INVALID = """\
title: Cases with malformed input
cases:
  - id: tiny-bad-three-aces
    description: Three SA in one input, which two decks cannot hold.
    operation: classify
    clauses: [combinations.triple.shape]
    input: {cards: [SA, SA, SA], level: "9"}
    expected: {readings: []}
  - id: tiny-bad-three-kings
    description: Three SK in one input, which two decks cannot hold.
    operation: classify
    clauses: [combinations.triple.shape]
    input: {cards: [SK, SK, SK], level: "9"}
    expected: {readings: []}
"""


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.engines...` imports here, and `-m harness.frontends.cli` in engine processes."""
    repo_on_path(monkeypatch)


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Point the CLI's corpus at a folder holding the tiny corpus (and any extra files)."""
    folder = tmp_path / "cases"
    folder.mkdir()
    monkeypatch.setattr(harness.conformance.cases.case_loader, "cases_dir", lambda: folder)

    def make(**extra: str) -> Path:
        (folder / "tiny.yaml").write_text(TINY, encoding="utf-8")
        for name, text in extra.items():
            (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        return folder

    make()
    return make


def check(*args: str | Path) -> tuple[int, str]:
    """`guandan check ARGS` in this process: the exit status and what it printed."""
    out = io.StringIO()
    code = main(["check", *(str(a) for a in args)], out=out)
    return code, out.getvalue()


def load(path: Path) -> dict[str, Any]:
    """A JSON report."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def statuses(report: dict[str, Any]) -> dict[str, str]:
    """Case id → status, checking that no case appears twice."""
    ids = [c["id"] for c in report["cases"]]
    assert len(ids) == len(set(ids)), f"a case appears twice: {ids}"
    return {c["id"]: c["status"] for c in report["cases"]}


def entry(report: dict[str, Any], case_id: str) -> dict[str, Any]:
    """The report's entry for one case."""
    found: list[dict[str, Any]] = [c for c in report["cases"] if c["id"] == case_id]
    assert len(found) == 1, (case_id, found)
    return found[0]


def assert_summary(report: dict[str, Any]) -> None:
    """The summary counts agree with the cases."""
    summary = report["summary"]
    assert set(summary) >= SUMMARY_KEYS
    counted = statuses(report).values()
    names = {
        "pass": "passed",
        "fail": "failed",
        "unsupported": "unsupported",
        "error": "errors",
        "timeout": "timeouts",
        "xfail": "xfail",
        "xpass": "xpass",
    }
    for status, key in names.items():
        assert summary[key] == sum(1 for s in counted if s == status), (key, summary)
    assert summary["total"] == len(report["cases"])


# ---------------------------------------------------------------------------------------------
# The bundled corpus: the reference, in process and behind the process protocol


@pytest.fixture(scope="module")
def reference_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`guandan check --engine reference --variant huaian -k combo-straight`."""
    path = tmp_path_factory.mktemp("reference") / "r.json"
    code, text = check(
        "--engine", "reference", "--variant", "huaian", "-k", "combo-straight", "--report", path
    )
    assert code == 0, text
    return load(path)


def test_reference_passes_a_stable_selection(reference_report: dict[str, Any]) -> None:
    report = reference_report
    assert report["engine"]["spec"] == "reference"
    assert report["engine"]["name"] == "guandan-harness reference"
    assert report["variant"] == "huaian"
    assert report["ok"] is True
    assert report["stale_expect_fail"] == []
    assert_summary(report)
    found = statuses(report)
    assert found, "-k combo-straight selected no case"
    assert all("combo-straight" in case_id for case_id in found)
    assert set(found.values()) == {"pass"}
    assert report["summary"]["passed"] == report["summary"]["total"] == len(found)
    for case in report["cases"]:
        assert case["variant"] == "huaian"
        assert case["operation"] == "classify"
        assert case["differences"] == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_reference_behind_the_process_protocol_agrees(
    reference_report: dict[str, Any], tmp_path: Path, jobs: int
) -> None:
    path = tmp_path / "serve.json"
    code, text = check(
        "--engine",
        SERVE,
        "--variant",
        "huaian",
        "-k",
        "combo-straight",
        "--jobs",
        str(jobs),
        "--report",
        path,
    )
    assert code == 0, text
    report = load(path)
    assert report["engine"]["spec"] == SERVE
    assert report["engine"]["name"] == "guandan-harness reference"
    assert_summary(report)
    assert statuses(report) == statuses(reference_report)
    assert [c["id"] for c in report["cases"]] == [c["id"] for c in reference_report["cases"]]
    actual = {c["id"]: c["actual"] for c in reference_report["cases"]}
    assert {c["id"]: c["actual"] for c in report["cases"]} == actual


# ---------------------------------------------------------------------------------------------
# The tiny corpus


def test_tiny_corpus_passes_on_the_reference(tiny: Callable[..., Path], tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    code, text = check("--variant", "huaian", "--report", path)
    assert code == 0, text
    report = load(path)
    assert list(statuses(report)) == TINY_IDS
    assert set(statuses(report).values()) == {"pass"}


def test_broken_engine_speaks_every_operation() -> None:
    broken_module = importlib.import_module("tests.engines.broken")
    assert tuple(broken_module.OPERATIONS) == OPERATION_NAMES


# mode → (status of each tiny case, exit status, {case: text its message or detail holds})
BROKEN_MODES: dict[str, tuple[dict[str, str], int, dict[str, str]]] = {
    "ok": (dict.fromkeys(TINY_IDS, "pass"), 0, {}),
    "crash-on-classify": (
        {STRAIGHT: "error", BEATS: "pass", NO_PLAY: "error", REPLAY: "pass"},
        1,
        {STRAIGHT: "classify is beyond me", NO_PLAY: "classify is beyond me"},
    ),
    "garbage-on-classify": (
        {STRAIGHT: "error", BEATS: "pass", NO_PLAY: "error", REPLAY: "pass"},
        1,
        {STRAIGHT: "this is not JSON {", NO_PLAY: "not JSON"},
    ),
    "wrong-id": (
        {STRAIGHT: "error", BEATS: "pass", NO_PLAY: "error", REPLAY: "pass"},
        1,
        {STRAIGHT: "got id", NO_PLAY: "got id"},
    ),
    "missing-output": (
        {STRAIGHT: "error", BEATS: "pass", NO_PLAY: "error", REPLAY: "pass"},
        1,
        {STRAIGHT: "no `output`", NO_PLAY: "no `output`"},
    ),
    # No reading to spoil in JQKA2: that case still passes.
    "wrong-reading": (
        {STRAIGHT: "fail", BEATS: "pass", NO_PLAY: "pass", REPLAY: "pass"},
        1,
        {STRAIGHT: "readings"},
    ),
    # Unsupported is never a failure: the run passes.
    "unsupported-replay": (
        {STRAIGHT: "pass", BEATS: "pass", NO_PLAY: "pass", REPLAY: "unsupported"},
        0,
        {REPLAY: "not supported"},
    ),
    # The harness takes a refused handshake as "this engine does not play this variant": every
    # case is unsupported, none a failure; but nothing was judged, so the run does not pass
    # (issue 22: never a silent green).
    "refuse-hello": (
        dict.fromkeys(TINY_IDS, "unsupported"),
        1,
        dict.fromkeys(TINY_IDS, "refused the handshake: no"),
    ),
}


@pytest.mark.parametrize("mode", list(BROKEN_MODES))
def test_broken_process_engine(tiny: Callable[..., Path], tmp_path: Path, mode: str) -> None:
    want, exit_status, texts = BROKEN_MODES[mode]
    path = tmp_path / "r.json"
    code, text = check("--engine", broken(mode), "--variant", "huaian", "--report", path)
    report = load(path)
    found = statuses(report)
    assert found == want, text
    assert code == exit_status, text
    assert report["ok"] is (exit_status == 0)
    assert_summary(report)
    for case_id, words in texts.items():
        case = entry(report, case_id)
        assert words in case["message"] + "\n" + case["detail"], case
    if mode == "crash-on-classify":
        # The crash is told with the exit status and what the engine wrote on stderr.
        case = entry(report, STRAIGHT)
        assert "status 3" in case["message"]
        assert "stderr: broken engine: classify is beyond me" in case["detail"]
        assert "classify is beyond me" in text
    if mode != "refuse-hello":
        assert report["engine"]["name"] == f"broken-{mode}"
    else:
        assert "NOTE: the engine did not start for huaian" in text


def test_hanging_engine_times_out_and_later_cases_run(
    tiny: Callable[..., Path], tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    code, text = check(
        "--engine",
        broken("hang-on-classify"),
        "--variant",
        "huaian",
        "-k",
        STRAIGHT,
        "-k",
        BEATS,
        "--timeout",
        "2",
        "--report",
        path,
    )
    assert code == 1, text
    report = load(path)
    assert statuses(report) == {STRAIGHT: "timeout", BEATS: "pass"}
    assert report["summary"]["timeouts"] == 1
    assert "no answer within 2 s" in entry(report, STRAIGHT)["message"]


def test_python_engine_that_raises_costs_only_its_cases(
    tiny: Callable[..., Path], tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    code, text = check("--engine", RAISES, "--variant", "huaian", "--report", path)
    assert code == 1, text
    report = load(path)
    assert statuses(report) == {
        STRAIGHT: "error",
        BEATS: "unsupported",
        NO_PLAY: "error",
        REPLAY: "unsupported",
    }
    assert "ZeroDivisionError" in entry(report, STRAIGHT)["message"]


def test_python_engine_factory(tiny: Callable[..., Path], tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    code, text = check(
        "--engine", "py:tests.engines.pyengines:make", "--variant", "huaian", "--report", path
    )
    assert code == 0, text
    report = load(path)
    assert report["engine"]["name"] == "guandan-harness reference"
    assert set(statuses(report).values()) == {"pass"}


def test_python_engine_class(tiny: Callable[..., Path], tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    code, text = check(
        "--engine", "py:tests.engines.pyengines:WrongBeats", "--variant", "huaian", "--report", path
    )
    assert code == 1, text
    assert statuses(load(path)) == {
        STRAIGHT: "pass",
        BEATS: "fail",
        NO_PLAY: "pass",
        REPLAY: "pass",
    }


# ---------------------------------------------------------------------------------------------
# Expect-fail lists


def test_listed_failing_case_is_xfail(tiny: Callable[..., Path], tmp_path: Path) -> None:
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"# beats is inverted in this engine\n{BEATS}  # known\n", encoding="utf-8")
    path = tmp_path / "r.json"
    code, text = check(
        "--engine", WRONG_BEATS, "--variant", "huaian", "--expect-fail", listed, "--report", path
    )
    assert code == 0, text
    report = load(path)
    assert statuses(report) == {STRAIGHT: "pass", BEATS: "xfail", NO_PLAY: "pass", REPLAY: "pass"}
    assert report["summary"]["xfail"] == 1
    assert report["stale_expect_fail"] == []
    assert "STALE" not in text


@pytest.mark.parametrize("listed_as", [NO_PLAY, f"{NO_PLAY}[huaian]"])
def test_stale_entry_of_a_passing_case_fails_the_run(
    tiny: Callable[..., Path], tmp_path: Path, listed_as: str
) -> None:
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"{BEATS}\n{listed_as}\n", encoding="utf-8")
    path = tmp_path / "r.json"
    code, text = check(
        "--engine", WRONG_BEATS, "--variant", "huaian", "--expect-fail", listed, "--report", path
    )
    assert code == 1, text
    report = load(path)
    assert statuses(report)[NO_PLAY] == "xpass"
    assert statuses(report)[BEATS] == "xfail"
    assert report["summary"]["xpass"] == 1
    assert report["stale_expect_fail"] == [f"{listed_as} (it passes)"]
    assert f"STALE expect-fail entry: {listed_as} (it passes)" in text
    assert str(listed) in entry(report, NO_PLAY)["message"]


def test_entry_naming_no_case_fails_the_run(tiny: Callable[..., Path], tmp_path: Path) -> None:
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"{BEATS}\ntiny-no-such-case\n", encoding="utf-8")
    path = tmp_path / "r.json"
    code, text = check(
        "--engine", WRONG_BEATS, "--variant", "huaian", "--expect-fail", listed, "--report", path
    )
    assert code == 1, text
    report = load(path)
    assert statuses(report)[BEATS] == "xfail"
    assert "xpass" not in statuses(report).values()
    assert report["stale_expect_fail"] == ["tiny-no-such-case (no such case in the corpus)"]
    assert "STALE expect-fail entry: tiny-no-such-case" in text


@pytest.mark.parametrize("other", [STRAIGHT, f"{BEATS}[competition]"])
def test_entry_of_a_case_left_out_by_the_selection_is_not_stale(
    tiny: Callable[..., Path], tmp_path: Path, other: str
) -> None:
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"{BEATS}\n{other}\n", encoding="utf-8")
    path = tmp_path / "r.json"
    code, text = check(
        "--engine",
        WRONG_BEATS,
        "--variant",
        "huaian",
        "-k",
        "beats",
        "--expect-fail",
        listed,
        "--report",
        path,
    )
    report = load(path)
    assert statuses(report) == {BEATS: "xfail"}
    assert report["stale_expect_fail"] == []
    assert code == 0, text


# ---------------------------------------------------------------------------------------------
# Selection


@pytest.mark.parametrize(
    ("args", "selected"),
    [
        (["--clause", "sequences.ace_low"], [STRAIGHT]),
        (["--clause", "sequences"], [STRAIGHT, NO_PLAY]),  # a family
        (["--clause", "compare"], [BEATS, REPLAY]),
        (["--clause", "flow.pass", "--clause", "sequences.wrap"], [NO_PLAY, REPLAY]),
        (["--clause", "compare.same_type"], []),  # a prefix is not a clause
        (["--clause", "compare", "-k", "replay"], [REPLAY]),  # both must hold
        (["-k", "tiny-*-straight"], [STRAIGHT]),  # a glob matches the whole id
        (["-k", "tiny-classify-*"], [STRAIGHT, NO_PLAY]),
        (["-k", "*climb"], [REPLAY]),
        (["-k", "classify"], [STRAIGHT, NO_PLAY]),  # a plain pattern is a substring
        (["-k", "beats", "-k", "replay"], [BEATS, REPLAY]),  # either pattern
        (["-k", "straight-*"], []),  # a glob is not a substring
    ],
)
def test_selection(
    tiny: Callable[..., Path], tmp_path: Path, args: list[str], selected: list[str]
) -> None:
    path = tmp_path / "r.json"
    code, _ = check("--variant", "huaian", "--report", path, *args)
    if not selected:
        # Selecting nothing is a mistake (a mistyped -k or --clause), not a green run.
        assert code == 2 and not path.exists()
        return
    assert list(statuses(load(path))) == selected


# ---------------------------------------------------------------------------------------------
# JUnit and Markdown


def test_junit_and_markdown_reports(tiny: Callable[..., Path], tmp_path: Path) -> None:
    tiny(invalid=INVALID)
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"tiny-bad-three-kings\n{NO_PLAY}\n", encoding="utf-8")
    junit, md, path = tmp_path / "r.xml", tmp_path / "r.md", tmp_path / "r.json"
    code, text = check(
        "--engine",
        WRONG_BEATS,
        "--variant",
        "huaian",
        "--expect-fail",
        listed,
        "--report",
        path,
        "--junit",
        junit,
        "--markdown",
        md,
    )
    assert code == 1, text
    want = {
        STRAIGHT: "pass",
        BEATS: "fail",
        NO_PLAY: "xpass",
        REPLAY: "pass",
        "tiny-bad-three-aces": "error",
        "tiny-bad-three-kings": "xfail",
    }
    assert statuses(load(path)) == want

    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"guandan.huaian", "guandan.expect-fail"}
    suite = suites["guandan.huaian"]
    assert suite.get("tests") == "6"
    assert suite.get("failures") == "2"  # the fail and the xpass
    assert suite.get("errors") == "1"
    assert suite.get("skipped") == "1"  # the xfail
    children = {}
    for case in suite.findall("testcase"):
        kinds = [child.tag for child in case]
        assert len(kinds) <= 1, kinds
        children[case.get("name")] = (kinds[0] if kinds else None, case)
    assert {name: kind for name, (kind, _) in children.items()} == {
        f"{STRAIGHT}[huaian]": None,
        f"{BEATS}[huaian]": "failure",
        f"{NO_PLAY}[huaian]": "failure",
        f"{REPLAY}[huaian]": None,
        "tiny-bad-three-aces[huaian]": "error",
        "tiny-bad-three-kings[huaian]": "skipped",
    }
    beats_case = children[f"{BEATS}[huaian]"][1]
    assert beats_case.get("classname") == "guandan.huaian.beats"
    failure = beats_case.find("failure")
    assert failure is not None and failure.get("type") == "fail"
    assert failure.text is not None and "expected:" in failure.text
    stale = suites["guandan.expect-fail"]
    assert stale.get("tests") == stale.get("failures") == "1"
    (stale_case,) = stale.findall("testcase")
    assert stale_case.get("name") == f"{NO_PLAY} (it passes)"

    markdown = pytest.importorskip("markdown")
    source = md.read_text(encoding="utf-8")
    html = markdown.markdown(source, extensions=["tables"])
    assert html.count("<table>") >= 3  # the totals, the clause families, the failures
    assert f"<code>{BEATS}[huaian]</code>" in html
    assert "tiny-bad-three-aces[huaian]" in html
    assert f"<code>{NO_PLAY} (it passes)</code>" in html


# ---------------------------------------------------------------------------------------------
# Resume


def test_resume_finishes_a_journalled_run_without_rerunning(
    tiny: Callable[..., Path], tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    code, text = check("--variant", "huaian", "--report", path)
    assert code == 0, text
    first = load(path)
    # As if the run had been cut off after two cases: their results are in the journal, the
    # third line was cut short, and no report was written.
    path.unlink()
    journal = journal_path(path)
    kept = [dict(entry(first, STRAIGHT), message="from the journal"), entry(first, BEATS)]
    lines = [json.dumps(c) for c in kept] + [json.dumps(entry(first, NO_PLAY))[:40]]
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # An engine that would now answer otherwise: classify raises, nothing else is supported.
    code, text = check("--engine", RAISES, "--variant", "huaian", "--resume", path)
    assert code == 1, text
    report = load(path)
    assert statuses(report) == {
        STRAIGHT: "pass",  # journalled, not asked again
        BEATS: "pass",  # journalled, not asked again
        NO_PLAY: "error",  # asked: ZeroDivisionError
        REPLAY: "unsupported",  # asked
    }
    assert entry(report, STRAIGHT)["message"] == "from the journal"
    assert report["summary"]["total"] == len(TINY_IDS)
    assert not journal.exists()


@pytest.mark.parametrize(
    "hostile",
    ["[" * 100_000 + "]" * 100_000, '{"id": ' + "1" * 5000 + "}", "[1]", "5"],
    ids=["deep", "huge-int", "list", "number"],
)
def test_resume_skips_a_journal_line_no_run_wrote(tmp_path: Path, hostile: str) -> None:
    """Issue 23: a line nested 100,000 deep or holding a 5,000-digit integer raised a traceback;
    it is skipped, as a line cut short is."""
    report = tmp_path / "r.json"
    good = {"id": "a", "variant": "huaian", "status": "pass", "operation": "x", "clauses": []}
    journal_path(report).write_text(f"{json.dumps(good)}\n{hostile}\n", encoding="utf-8")
    assert [r.id for r in read_previous(report)] == ["a"]


@pytest.mark.parametrize(
    ("hostile", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON nests too deeply"),
        ('{"cases": [{"id": ' + "1" * 5000 + "}]}", "its JSON holds an integer of more than"),
        ("[1]", "no list of `cases`"),
    ],
)
def test_resume_refuses_a_hostile_report_in_one_line(
    tmp_path: Path, hostile: str, words: str
) -> None:
    report = tmp_path / "r.json"
    report.write_text(hostile, encoding="utf-8")
    with pytest.raises(HarnessError, match=re.escape(f"--resume {report}: not a report ({words}")):
        read_previous(report)


class Interrupted(Exception):
    """Stands for ^C in the middle of a run."""


def test_interrupted_run_resumes_from_its_journal(tmp_path: Path) -> None:
    cases = tmp_path / "tiny.yaml"
    cases.write_text(TINY, encoding="utf-8")
    report = tmp_path / "r.json"
    seen: list[str] = []

    def progress(result: CaseResult, done: int, total: int) -> None:
        seen.append(result.id)
        if done == 2:
            raise Interrupted

    huaian = load_variant("huaian")
    config = RunConfig(
        engine="reference",
        variants=[huaian],
        journal=journal_path(report),
        cases_paths=[cases],
        bundled=False,
    )
    with pytest.raises(Interrupted):
        run(config, progress)
    assert seen == TINY_IDS[:2]
    previous = read_previous(report)
    assert [r.id for r in previous] == TINY_IDS[:2]

    asked: list[str] = []
    config = RunConfig(
        engine=RAISES,
        variants=[huaian],
        journal=journal_path(report),
        resume=previous,
        cases_paths=[cases],
        bundled=False,
    )
    result = run(config, lambda r, done, total: asked.append(r.id))
    assert asked == TINY_IDS[2:]
    assert [r.id for r in result.results] == TINY_IDS
    assert [r.status for r in result.results] == [
        Status.PASS,
        Status.PASS,
        Status.ERROR,
        Status.UNSUPPORTED,
    ]
    # The journal now holds every result: resuming again asks nothing.
    assert sorted(r.id for r in read_previous(report)) == sorted(TINY_IDS)


# ---------------------------------------------------------------------------------------------
# Usage errors


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--variant", "no-such-variant"], "unknown variant 'no-such-variant'"),
        (["--variant", "huaian", "--jobs", "0"], "--jobs"),
        (["--variant", "huaian", "--timeout", "0"], "--timeout"),
        (["--variant", "huaian", "--jobs", "two"], "argument --jobs: expected a whole number"),
        (["--variant", "huaian", "--option", "no-such-option=1"], "no-such-option"),
        (["--variant", "huaian", "--option", "target"], "NAME=VALUE"),
        (["--variant", "huaian", "--expect-fail", "no/such/file.txt"], "no/such/file.txt"),
    ],
)
def test_usage_errors_exit_2(
    tiny: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    words: str,
) -> None:
    path = tmp_path / "r.json"
    code, _ = check(*args, "--report", path)
    assert code == 2
    assert words in capsys.readouterr().err
    assert not path.exists()


@pytest.mark.parametrize(
    "spec", ["no-such-kind", "py:module-without-attribute", "exec:", "exec:'unterminated"]
)
def test_bad_engine_spec_exits_2(
    tiny: Callable[..., Path], capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    code, text = check("--engine", spec, "--variant", "huaian")
    assert code == 2, text
    assert spec in capsys.readouterr().err


@pytest.mark.parametrize(
    ("engine", "passes"),
    [
        ("py:tests.engines.pyengines:ReorderedFinish", True),
        ("py:tests.engines.pyengines:make_reordered_first", False),
    ],
)
def test_losers_of_a_double_down_may_be_listed_in_either_order(engine: str, passes: bool) -> None:
    """finish.double_down_both_last: the two seats that never went out are a set in the cases;
    an engine listing them the other way passes, one swapping the first two out does not."""
    out = io.StringIO()
    status = main(["check", "--engine", engine, "--clause", "flow.early_end"], out=out)
    text = out.getvalue()
    assert ("cases: " in text) and (" 0 failed" in text) is passes, text
    assert status == (0 if passes else 1)
    ran = re.search(r"(\d+) cases: (\d+) passed", text)
    assert ran is not None and int(ran.group(1)) >= 20


@pytest.mark.slow
def test_jobs_run_a_slow_python_engine_in_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--jobs 2 runs two instances of a py: engine in two processes of their own (the engine
    notes who answered), with the same results, journal and report as --jobs 1. How much faster
    that is belongs to benchmarks/check.py, not to a timed test on a shared machine."""
    answered = {}
    reports = {}
    for jobs in (1, 2):
        report, pids = tmp_path / f"r{jobs}.json", tmp_path / f"pids{jobs}.txt"
        monkeypatch.setenv("SLOW_ENGINE_PIDS", str(pids))
        code, text = check(
            "--engine",
            "py:tests.engines.pyengines:Slow",
            "--variant",
            "huaian",
            "--clause",
            "compare",
            "--jobs",
            str(jobs),
            "--report",
            report,
        )
        assert code == 0, text
        reports[jobs] = {(c["id"], c["status"]) for c in load(report)["cases"]}
        assert load(report)["engine"]["name"] == "slow"
        answered[jobs] = set(pids.read_text(encoding="utf-8").split())
    assert reports[1] == reports[2] and len(reports[1]) >= 100
    assert len(answered[2]) == 2 and str(os.getpid()) not in answered[2], answered


# ---------------------------------------------------------------------------------------------
# Coverage: never a silent green (issue 22)


def test_an_engine_that_answers_nothing_does_not_pass(
    tiny: Callable[..., Path], tmp_path: Path
) -> None:
    """All unsupported: no case failed, yet nothing was judged, and every report says so."""
    report, junit, markdown = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    code, text = check(
        "--engine",
        "py:tests.engines.pyengines:AnswersNothing",
        "--variant",
        "huaian",
        "--report",
        report,
        "--junit",
        junit,
        "--markdown",
        markdown,
    )
    assert code == 1, text
    assert "NOT PASSED: no case was judged: the engine answered none" in text
    assert "4 cases: 0 passed" in text
    assert "coverage: judged 0 of 4 (0 %; classify 0 of 2" in text
    data = load(report)
    assert data["ok"] is False and data["summary"]["judged"] == 0
    assert data["coverage"]["classify"] == {"judged": 0, "total": 2}
    assert data["unjudged"] == ["no case was judged: the engine answered none"]
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["judged"] == "0" and props["total"] == "4" and "not_passed" in props
    assert "Coverage: judged 0 of 4" in markdown.read_text(encoding="utf-8")


def test_a_partial_engine_passes_on_what_it_answers_and_says_how_much(
    tiny: Callable[..., Path],
) -> None:
    code, text = check("--engine", broken("unsupported-replay"), "--variant", "huaian")
    assert code == 0, text
    assert "4 cases: 3 passed" in text
    assert "coverage: judged 3 of 4 (75 %; replay 0 of 1)" in text


@pytest.mark.parametrize(("required", "status"), [("classify,beats", 0), ("classify,replay", 1)])
def test_required_operations_must_be_judged(
    tiny: Callable[..., Path], required: str, status: int
) -> None:
    code, text = check(
        "--engine",
        broken("unsupported-replay"),
        "--variant",
        "huaian",
        "--require-operations",
        required,
    )
    assert code == status, text
    assert ("NOT PASSED: --require-operations: no replay case judged (of 1)" in text) is bool(
        status
    )


def test_an_unknown_required_operation_is_a_usage_error(
    tiny: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = check("--engine", "reference", "--require-operations", "clasify")
    assert code == 2
    assert "--require-operations: 'clasify' not an operation" in capsys.readouterr().err


def test_an_engine_that_cannot_start_stops_the_run_in_one_line(
    tiny: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A garbage hello: the engine cannot start, so the run stops at once, one line on stderr,
    exit 2, nothing on stdout (it once printed 11,660 lines for the corpus, then 112)."""
    engine = f"exec:{PYTHON} -c \"print('not a hello')\""
    code, text = check("--engine", engine, "--variant", "huaian")
    err = capsys.readouterr().err
    assert code == 2, (text, err)
    assert text == ""
    assert err.count("\n") == 1 and err.startswith("guandan: "), err
    assert "the engine could not start for huaian, target=A" in err, err


def test_an_engine_that_cannot_start_for_one_option_set_is_told_once() -> None:
    """Started for target A, garbage for target 8: the run goes on, and the option set it could
    not start for is one block with the count, not one per case."""
    engine = f"exec:{PYTHON} tests/engines/broken.py garbage-hello-target-8"
    code, text = check(
        "--engine", engine, "--variant", "huaian", "-k", "settle-to-eight", "-k", "combo-straight"
    )
    assert code == 1
    assert text.count("the engine could not start") == 1, text
    block = r"ERROR huaian \(target=8\): the engine could not start.*\n(?:  .*\n)*?"
    match = re.search(block + r"  (\d+) cases? not run: ", text)
    assert match and int(match.group(1)) >= 1, text
    rerun = f"  rerun:    guandan check --engine {shlex.quote(engine)} --variant huaian"
    assert rerun in text, text


@pytest.mark.parametrize("engine", ["exec:./no-such-engine", "py:no_such_module:Engine"])
def test_a_mistyped_engine_costs_one_line_and_no_case(
    engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Acceptance (issue 47): `--engine exec:./nope` is exit 2, at most 3 lines, before a single
    case is read (the corpus is not loaded: what took 31 s was cases run against nothing)."""

    def no_corpus(*args: object, **kwargs: object) -> object:
        raise AssertionError("the corpus was read for an engine that cannot start")

    monkeypatch.setattr(runner, "load_corpus", no_corpus)
    code, text = check("--engine", engine)
    err = capsys.readouterr().err
    assert code == 2, (text, err)
    assert text == "" and 1 <= len(err.splitlines()) <= 3, err
    assert "could not start" in err and engine in err, err


def test_a_result_is_built_once_and_never_changed(tmp_path: Path) -> None:
    """A result is frozen: the expect-fail list makes a new one (xfail) rather than rewriting
    the engine's, and a result reads back from its JSON and from a pipe (pickle) unchanged."""
    cases = tmp_path / "tiny.yaml"
    cases.write_text(TINY, encoding="utf-8")
    listed = tmp_path / "expect-fail.txt"
    listed.write_text(f"{BEATS}\n", encoding="utf-8")
    config = RunConfig(
        engine=WRONG_BEATS,
        variants=[load_variant("huaian")],
        expect_fail=ExpectFail.read(listed),
        cases_paths=[cases],
        bundled=False,
    )
    results = {r.id: r for r in run(config).results}
    beats = results[BEATS]
    # The engine answers the inverted `beats`: the difference is kept, the status is xfail.
    assert beats.status is Status.XFAIL
    assert beats.differences and all(isinstance(d, str) for d in beats.differences)
    for result in results.values():
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.status = Status.PASS  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.message = "rewritten"  # type: ignore[misc]
        with pytest.raises(TypeError):
            result.options["target"] = "A"  # type: ignore[index]
        assert isinstance(result.differences, tuple) and isinstance(result.omitted, tuple)
        written = result.to_json()
        # The report and journal hold plain JSON lists and objects, which read back the same.
        assert json.loads(json.dumps(written)) == written
        assert isinstance(written["differences"], list) and isinstance(written["options"], dict)
        assert CaseResult.from_json(json.loads(json.dumps(written))).to_json() == written
        assert pickle.loads(pickle.dumps(result)) == result


# ---------------------------------------------------------------------------------------------
# The explainer's budget (issue 47)


@pytest.mark.slow
def test_the_variant_asked_for_is_explained_before_its_derived_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a budget of 20 failures a family, an engine failing cases of huaian and of variants
    derived from it: the 20 explained are huaian's own (though derived ones come first in corpus
    order), and the run says how many it left, in the text and in the JSON report."""
    monkeypatch.setattr(verdicts, "LIMIT", 20)
    report = tmp_path / "r.json"
    code, text = check(
        "--engine", "py:tests.engines.realbugs:ManyFailures", "--variant", "huaian",
        "--json", report,
    )  # fmt: skip
    assert code == 1, text
    data = load(report)
    failing = [e for e in data["cases"] if e["status"] == "fail"]
    derived = [e for e in failing if "[" in e["variant"]]
    # Derived failures come early in corpus order: the first 20 failures hold some.
    assert any("[" in e["variant"] for e in failing[:20])
    explained = [e for e in failing if "verdict" in e]
    own = [e for e in failing if e["variant"] == "huaian"]
    assert len(own) > 20 and derived
    assert [e["id"] for e in explained] == [e["id"] for e in own[:20]]
    assert data["left_unexplained"] == len(failing) - 20
    assert f"NOTE: {len(failing) - 20} failing cases left unexplained for lack of budget" in text

    code, text = check(
        "--engine", "py:tests.engines.realbugs:ManyFailures", "--variant", "huaian",
        "-k", "combo-", "--no-explain", "--json", report,
    )  # fmt: skip
    assert load(report)["left_unexplained"] is None and "left unexplained" not in text


def test_the_time_said_covers_the_explaining_too(
    tiny: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The explaining runs after the cases: the run's time is both, each given (issue 47: the
    summary said only the cases' time). The explainer is made to take at least 0.3 s more."""
    explain = check_module.explain_run

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.3)
        return explain(*args, **kwargs)

    monkeypatch.setattr(check_module, "explain_run", slow)
    path = tmp_path / "r.json"
    code, text = check("--engine", WRONG_BEATS, "--variant", "huaian", "--json", path)
    assert code == 1, text
    report = load(path)
    cases, explaining = report["cases_seconds"], report["explain_seconds"]
    assert explaining >= 0.3
    assert report["seconds"] == pytest.approx(cases + explaining, abs=0.002)
    said = re.search(r"\((\d+\.\d) s: cases (\d+\.\d) s, explaining (\d+\.\d) s\)\n", text)
    assert said is not None, text
    total, *parts = map(float, said.groups())
    assert parts[1] >= 0.3 and total == pytest.approx(sum(parts), abs=0.11)

    code, text = check(
        "--engine", WRONG_BEATS, "--variant", "huaian", "--no-explain", "--json", path
    )
    report = load(path)
    assert report["explain_seconds"] == 0 and report["seconds"] == report["cases_seconds"]
    assert re.search(r"xpass \(\d+\.\d s\)\n", text), text
