"""Reports that explain, and the conformance dashboard (`guandan report`).

The acceptance test runs `guandan check --report` on the reference and on an engine with a known
bug (WrongBeats inverts `beats`), then `guandan report` on both: the page shows 100 % for the
reference and names every failing case of the other. The rest: which clause decides a failure,
families counted once, differences taken apart, rerun commands that rerun one case alone (and do),
reports read tolerantly, and every string of a report escaped in HTML and Markdown.
"""

from __future__ import annotations

import html.parser
import io
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.explaining.failures import (
    DifferenceKind,
    case_family,
    deciding_clause,
    diff_text,
    exact_pattern,
    failure_groups,
    parse_difference,
    rerun_for,
    tally,
)
from harness.conformance.reporting.dashboard import Rate, build, render_markdown, report_from_json
from harness.conformance.reporting.run_reports import report_json, write_markdown, write_text
from harness.conformance.running.runner import RunConfig, run
from harness.frontends.cli import main
from harness.frontends.dashboard_html import indented_json, page_html
from harness.model.loader import load_variant, load_variant_spec
from tests import browser

REPO = Path(__file__).resolve().parents[1]
WRONG_BEATS = "py:tests.engines.pyengines:WrongBeats"
RAISES = "py:tests.engines.pyengines:make_raises"
# A selection of the bundled corpus that holds beats cases (which WrongBeats fails) and others.
SELECTION = ("--variant", "huaian", "--variant", "competition", "--clause", "compare")


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests.engines...` imports here."""
    monkeypatch.syspath_prepend(str(REPO))


def cli(*args: str | Path) -> tuple[int, str]:
    """`guandan ARGS` in this process: the exit status and what it printed."""
    out = io.StringIO()
    code = main([str(a) for a in args], out=out)
    return code, out.getvalue()


def load(path: Path) -> dict[str, Any]:
    """A JSON report."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`guandan check --report` on the reference and on WrongBeats, same selection."""
    folder = tmp_path_factory.mktemp("reports")
    reference, wrong = folder / "reference.json", folder / "wrong.json"
    code, text = cli("check", "--engine", "reference", *SELECTION, "--report", reference)
    assert code == 0, text
    code, text = cli("check", "--engine", WRONG_BEATS, *SELECTION, "--report", wrong)
    assert code == 1, text
    return reference, wrong


# ---------------------------------------------------------------------------------------------
# The acceptance test


class _Cells(html.parser.HTMLParser):
    """The rows of one table (by class) as lists of cell texts."""

    def __init__(self, table_class: str) -> None:
        super().__init__()
        self.table_class, self.inside, self.rows = table_class, False, []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and self.table_class in (dict(attrs).get("class") or ""):
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def table(page: str, table_class: str) -> list[list[str]]:
    """The cells of the table of `table_class` in an HTML page."""
    parser = _Cells(table_class)
    parser.feed(page)
    return parser.rows


def test_dashboard_of_the_reference_and_a_buggy_engine(
    reports: tuple[Path, Path], tmp_path: Path
) -> None:
    reference, wrong = reports
    out_html, out_md = tmp_path / "dash.html", tmp_path / "dash.md"
    code, text = cli("report", reference, wrong, "--html", out_html, "--markdown", out_md)
    assert code == 0, text
    page = out_html.read_text(encoding="utf-8")
    markdown = out_md.read_text(encoding="utf-8")

    # The engines, with name and version.
    engines = table(page, "gd-engines")
    assert [row[1:3] for row in engines[1:]] == [
        ["guandan-harness reference", "0.1.0"],
        ["wrong-beats", "1"],
    ]

    # The reference at 100 % on each variant; the buggy engine below it.
    rows = table(page, "gd-by-variant")
    # Each variant, then the variants derived from each (cases on values it does not play).
    assert rows[0] == ["engine", "competition", "huaian", "competition[…]", "huaian[…]", "all"]
    assert rows[1][0].startswith("1. guandan-harness reference")
    assert all(cell.startswith("100 %") for cell in rows[1][1:]), rows[1]
    assert not any(cell.startswith("100 %") for cell in rows[2][1:]), rows[2]
    assert "100 % (" in markdown

    # Every failing case of the buggy engine is named, in the page and in the Markdown.
    failing = [c for c in load(wrong)["cases"] if c["status"] == "fail"]
    assert failing and {c["operation"] for c in failing} == {"beats"}
    for case in failing:
        assert f"<code>{case['id']}</code> on {case['variant']}" in page
        assert f"`{case['id']}[{case['variant']}]`" in markdown
    # ... each with its rerun command and its diff.
    assert html.escape(failing[0]["rerun"]) in page
    assert "- expected true" in page or "- expected false" in page
    # By clause family: a row per family, the reference's five columns (two variants, the
    # variants derived from each, all) first, each at 100 %; the buggy engine does not claim
    # derived variants, so their cases are not its own and it has no column for them.
    families = table(page, "gd-by-family")
    columns = ["competition", "huaian", "competition[…]", "huaian[…]", "all"]
    assert families[1] == [*columns, "competition", "huaian", "all"]
    for row in families[2:]:
        # A family may have no case on a derived variant ("—"); the others are all at 100 %.
        assert all(row[i].startswith("100 %") for i in (1, 2, 5)), row
        assert all(cell.startswith("100 %") or cell == "—" for cell in row[3:5]), row
    assert any(not cell.startswith("100 %") for row in families[2:] for cell in row[6:])

    # One self-contained file: styles inline (the cards' too), no script, nothing fetched.
    assert ".gd-card {" in page and ".gd-rate-full" in page
    for fetched in ("<script", "<link", "src=", "@import", "url("):
        assert fetched not in page
    assert "Content-Security-Policy" in page

    # Printed as text when no file is asked for.
    code, text = cli("report", reference, wrong)
    assert code == 0
    assert re.search(r"\[1\]\s+100 %\s+100 %", text), text
    assert "bombs.ladder" in text or "compare." in text


@pytest.mark.slow
def test_the_dashboard_loads_in_a_browser_without_console_errors(
    reports: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "dash.html"
    assert cli("report", *reports, "--html", out)[0] == 0
    dom, console = browser.load(out.as_uri(), budget_ms=3000)
    assert console == []
    assert 'class="gd-dash gd-by-variant"' in dom


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["no-such-report.json"], "no such file: no-such-report.json"),
        (["{path}"], "not JSON"),
    ],
)
def test_report_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    path = tmp_path / "garbage.json"
    path.write_text("{not json", encoding="utf-8")
    assert cli("report", *(a.format(path=path) for a in args))[0] == 2
    assert words in capsys.readouterr().err


def test_a_json_file_that_is_no_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"engine": "x"}', encoding="utf-8")
    assert cli("report", path)[0] == 2
    assert "not a report of `guandan check`" in capsys.readouterr().err


HUGE_INT = '{"cases": [{"id": "x", "status": "fail", "seconds": ' + "7" * 5000 + "}]}"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON nests too deeply"),
        (HUGE_INT, "its JSON holds an integer of more than"),
    ],
)
def test_hostile_json_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    """Issue 23: 100,000 `[` raised RecursionError, a 5,000-digit integer a ValueError, each with
    a traceback."""
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    assert cli("report", path, "--html", tmp_path / "out.html")[0] == 2
    err = capsys.readouterr().err
    assert err == f"guandan: {path}: {words}" + err.split(words, 1)[1]
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out.html").exists()


def test_a_value_too_deep_to_draw_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nested some hundreds deep, JSON parses, yet the page cannot draw it."""
    deep = json.loads("[" * 900 + "]" * 900)
    entry = {"id": "x", "variant": "huaian", "status": "fail", "actual": deep}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"cases": [entry]}), encoding="utf-8")
    out = tmp_path / "out.html"
    assert cli("report", path, "--html", out)[0] == 2
    assert capsys.readouterr().err == "guandan: a report holds a value nested too deeply to show\n"
    assert not out.exists() and list(tmp_path.iterdir()) == [path]  # no temporary file left


def test_indented_json_is_json_dumps() -> None:
    """The page's own encoder writes what `json.dumps(indent=...)` writes, whatever the value."""
    values: list[Any] = [
        {
            "a": [1, 2.5, -0.0, None, True, False, 'é\n\u2028"\\'],
            "b": {},
            "c": [],
            "d": {"e": [[]]},
        },
        [float("nan"), float("inf"), -float("inf"), 10**40, 1e300, ("t", 1)],
        {1: "int key", 2.5: "float key", False: "bool", None: "none", "s": object},
        "plain",
        [],
        {(1, 2): "a key json refuses"},
    ]
    for value in values:
        for indent in (1, 2):
            try:
                want = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
            except TypeError:
                with pytest.raises(TypeError):
                    indented_json(value, indent)
                continue
            assert indented_json(value, indent) == want


def test_the_matrices_count_each_entry_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23: every cell of the matrices by family and operation went through every entry."""
    from harness.conformance.reporting import dashboard as model

    entries = [
        {"id": f"c{i}", "variant": v, "status": "pass", "operation": op, "clauses": [f"f{i % 7}.x"]}
        for i in range(60)
        for v, op in (("huaian", "classify"), ("competition", "beats"))
    ]
    board = build([report_from_json({"cases": entries}, "r.json")])
    calls = 0
    real = model.case_family

    def counted(entry: Any) -> str:
        nonlocal calls
        calls += 1
        return real(entry)

    monkeypatch.setattr(model, "case_family", counted)
    render_markdown(board)
    assert len(board.families) * len(board.columns()) == 7 * 3
    assert calls == len(entries)  # once each, not once per cell


# ---------------------------------------------------------------------------------------------
# Reports that explain


def test_the_json_report_explains_its_failures(reports: tuple[Path, Path]) -> None:
    report = load(reports[1])
    for case in report["cases"]:
        if case["status"] == "fail":
            assert case["input"]["play"] and case["input"]["previous"]
            assert case["decided_by"] == case["clauses"][0]
            assert case["rerun"].startswith(f"guandan check --engine {WRONG_BEATS} --variant ")
        else:
            assert "rerun" not in case and "decided_by" not in case
    sizes = [len(g["cases"]) for g in report["failures_by_clause"]]
    assert sizes == sorted(sizes, reverse=True)
    assert sum(sizes) == report["summary"]["failed"]
    # Each case counted once, by family and by operation.
    for key in ("families", "operations"):
        assert sum(sum(row.values()) for row in report[key].values()) == report["summary"]["total"]
    assert "first clause" in report["families_counted"]


def test_a_rerun_command_reruns_that_case_alone(reports: tuple[Path, Path], tmp_path: Path) -> None:
    failing = [c for c in load(reports[1])["cases"] if c["status"] == "fail"]
    words = shlex.split(failing[0]["rerun"])
    assert words[:2] == ["guandan", "check"]
    path = tmp_path / "again.json"
    code, text = cli(*words[1:], "--report", path)
    assert code == 1, text
    again = load(path)["cases"]
    assert [(c["id"], c["variant"], c["status"]) for c in again] == [
        (failing[0]["id"], failing[0]["variant"], "fail")
    ]


def test_an_id_inside_another_id_is_selected_alone(tmp_path: Path) -> None:
    """`combo-not-two-pairs-apart` is part of `combo-not-two-pairs-apart-and-two-wilds`: the
    rerun pattern matches the whole id, so it selects the one case."""
    short, longer = "combo-not-two-pairs-apart", "combo-not-two-pairs-apart-and-two-wilds"
    pattern = exact_pattern(short, [short, longer])
    assert pattern != short
    assert exact_pattern(longer, [short, longer]) == longer
    path = tmp_path / "r.json"
    code, text = cli("check", "--variant", "huaian", "-k", pattern, "--report", path)
    assert code == 0, text
    assert [c["id"] for c in load(path)["cases"]] == [short]


@pytest.mark.parametrize(
    ("case_id", "inside"),
    [
        ("a-b-c", "x-a-b-c-y"),  # inner parts whole in the other
        ("case-12", "case-123"),  # two parts: the last begins a part of the other
        ("pairs-apart", "two-pairs-apart-x"),
        ("solo", "a-solo-b"),  # one part: the text of all is searched
        ("olo", "solo"),  # inside a part
    ],
)
def test_whether_an_id_is_inside_another_is_found_by_the_index(case_id: str, inside: str) -> None:
    """The index that makes a report of many failures linear finds every way one id lies inside
    another, and never an id inside itself."""
    others = [f"case-{n}" for n in range(300)]
    assert exact_pattern(case_id, [case_id, inside, *others]) == f"{case_id[:-1]}[{case_id[-1]}]"
    assert exact_pattern(case_id, [case_id, *others[:1]]) == case_id
    assert exact_pattern(inside, [case_id, inside]) == inside


def test_the_text_report_explains_each_failure(tmp_path: Path) -> None:
    config = RunConfig(engine=WRONG_BEATS, variants=[load_variant("huaian")], patterns=["beats-"])
    result = run(config)
    out = io.StringIO()
    write_text(result, out)
    text = out.getvalue()
    failed = [r for r in result.results if r.status.value == "fail"]
    assert failed
    first = failed[0]
    block = text.split(f"FAIL {first.key}")[1].split("\nFAIL ")[0]
    assert "  input:    play: " in block and "previous: " in block
    assert "  expected: " in block and "  actual:   " in block
    assert re.search(r"@ beats\n\s+- expected (true|false)\n\s+\+ found    (true|false)", block)
    assert f"  rerun:    guandan check --engine {WRONG_BEATS} --variant huaian -k " in block
    assert f"  decided by {first.clauses[0]}" in block
    assert "Failures by deciding clause" in text
    assert "By operation:\n  beats" in text
    assert "By clause family (each case counted once, under the family of the first clause" in text


def test_the_markdown_report_explains_each_failure(tmp_path: Path) -> None:
    config = RunConfig(engine=WRONG_BEATS, variants=[load_variant("huaian")], patterns=["beats-"])
    path = tmp_path / "r.md"
    write_markdown(run(config), path)
    text = path.read_text(encoding="utf-8")
    for heading in ("## By operation", "## By clause family", "## Failures by deciding clause"):
        assert heading in text
    assert "```diff\n@ beats\n- expected" in text
    assert "```sh\nguandan check --engine" in text
    assert "each case counted once, under the family of the first clause" in text


OWN_CASES = """\
title: One case of our own
cases:
  - id: own-classify-straight
    description: A2345 is a straight to 5.
    operation: classify
    clauses: [combinations.straight.shape]
    input: {cards: [SA, H2, C3, D4, S5], level: "9"}
    expected:
      readings: [{type: straight, rank: "5", size: 5}]
"""


def test_reruns_name_own_cases_and_variant_files(tmp_path: Path) -> None:
    cases = tmp_path / "own.yaml"
    cases.write_text(OWN_CASES, encoding="utf-8")
    club = load_variant_spec(str(REPO / "tests" / "data" / "variants" / "long-tubes.yaml"))
    config = RunConfig(
        engine=RAISES, variants=[club], cases_paths=[cases], patterns=["own-classify-straight"]
    )
    report = report_json(run(config))
    (entry,) = report["cases"]
    assert entry["status"] == "error"
    words = shlex.split(entry["rerun"])
    assert words[words.index("--variant") + 1].endswith("long-tubes.yaml")
    assert words[words.index("--cases") + 1].endswith("own.yaml")
    assert report["variant_files"] == {"long-tubes": words[words.index("--variant") + 1]}


# ---------------------------------------------------------------------------------------------
# The parts


def replay_entry(expected_steps: list[Any], actual_steps: list[Any] | None) -> dict[str, Any]:
    """A failing replay entry citing flow.pass first."""
    return {
        "id": "r",
        "variant": "huaian",
        "status": "fail",
        "operation": "replay",
        "clauses": ["flow.pass", "compare.same_type_and_size"],
        "expected": {"steps": expected_steps},
        "actual": None if actual_steps is None else {"steps": actual_steps},
    }


@pytest.mark.parametrize(
    ("expected", "actual", "decided"),
    [
        # The first differing step gives a rule: that rule decides.
        (
            [{"legal": True, "next": 1}, {"legal": False, "rule": "flow.turn"}],
            [{"legal": True, "next": 1, "reason": "x"}, {"legal": False, "rule": "flow.lead"}],
            "flow.turn",
        ),
        # The first differing step was legal: the case's first clause.
        (
            [{"legal": True, "next": 1}, {"legal": False, "rule": "flow.turn"}],
            [{"legal": False, "rule": "flow.pass"}],
            "flow.pass",
        ),
        # Steps agree (another key differs): the first clause.
        ([{"legal": True, "next": 1}], [{"legal": True, "next": 1, "counts": {}}], "flow.pass"),
        # No output (an error): the first clause.
        ([{"legal": False, "rule": "flow.turn"}], None, "flow.pass"),
    ],
)
def test_the_deciding_clause(expected: list[Any], actual: list[Any] | None, decided: str) -> None:
    assert deciding_clause(replay_entry(expected, actual)) == decided


def test_groups_largest_first_and_families_once() -> None:
    def entry(case_id: str, clauses: list[str], status: str = "fail") -> dict[str, Any]:
        return {
            "id": case_id,
            "variant": "v",
            "status": status,
            "operation": "beats",
            "clauses": clauses,
        }

    entries = [
        entry("a", ["ranks.natural", "bombs.ladder"]),
        entry("b", ["bombs.ladder"]),
        entry("c", ["bombs.ladder", "ranks.natural"]),
        entry("d", ["ranks.natural"], "pass"),
        entry("e", ["ranks.jokers"], "xfail"),
    ]
    groups = failure_groups(entries)
    assert [(g.clause, len(g.entries)) for g in groups] == [
        ("bombs.ladder", 2),
        ("ranks.natural", 1),
    ]
    assert tally(entries, case_family) == {
        "bombs": {"fail": 2},
        "ranks": {"fail": 1, "pass": 1, "xfail": 1},
    }


@pytest.mark.parametrize(
    ("text", "kind", "path", "want", "got"),
    [
        (
            'steps[3].rule: expected "flow.turn", found "flow.pass"',
            DifferenceKind.VALUE,
            "steps[3].rule",
            '"flow.turn"',
            '"flow.pass"',
        ),
        ("beats: expected true, found nothing", DifferenceKind.ABSENT, "beats", "true", ""),
        (
            'readings: missing [{"a": 1}], unexpected []',
            DifferenceKind.SET,
            "readings",
            '[{"a": 1}]',
            "[]",
        ),
        # A value holding the separator: the split that leaves JSON on both sides.
        (
            'note: expected "a, found b", found "c"',
            DifferenceKind.VALUE,
            "note",
            '"a, found b"',
            '"c"',
        ),
        ("expected an object, found 3", DifferenceKind.VALUE, "", "an object", "3"),
        ("something else entirely", DifferenceKind.OTHER, "", "", ""),
    ],
)
def test_differences_taken_apart(
    text: str, kind: DifferenceKind, path: str, want: str, got: str
) -> None:
    found = parse_difference(text)
    assert (found.kind, found.path, found.want, found.got) == (kind, path, want, got)
    assert diff_text({"differences": [text]})  # always shown, one way or another


def test_a_rerun_keeps_only_options_off_their_defaults() -> None:
    entry = {
        "id": "x",
        "variant": "online-app",
        "options": {"target": "8", "room_fee": 0, "passing_a": False},
    }
    command = rerun_for(entry, "exec:./my engine", None, {"target": "A", "room_fee": 0}).command()
    assert command == (
        "guandan check --engine 'exec:./my engine' --variant online-app -k x "
        "--option passing_a=false --option target=8"
    )
    bundled = str(REPO / "conformance_cases" / "combos" / "bombs.yaml")
    assert "--cases" not in rerun_for({**entry, "file": bundled}, "reference").command()
    assert (
        "--cases /elsewhere/my.yaml"
        in rerun_for({**entry, "file": "/elsewhere/my.yaml"}, "reference").command()
    )
    # A report may name the case's place instead, as `path:line:column`.
    located = {**entry, "location": "/elsewhere/my.yaml:12:5"}
    assert rerun_for(located, "reference").cases == "/elsewhere/my.yaml"
    assert rerun_for({**entry, "location": f"{bundled}:3:5"}, "reference").cases is None


# ---------------------------------------------------------------------------------------------
# Reports read tolerantly, every string escaped

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>[link](javascript:alert(1))`|'


def evil_report() -> dict[str, Any]:
    """A report whose every string is hostile, with keys and statuses this version ignores."""
    case = {
        "id": f"case-{EVIL}",
        "variant": f"v{EVIL}",
        "status": "fail",
        "operation": f"op{EVIL}",
        "clauses": [f"fam{EVIL}.x"],
        "options": {EVIL: EVIL},
        "message": EVIL,
        "differences": [f"p{EVIL}: expected {json.dumps(EVIL)}, found 1", EVIL],
        "expected": {"cards": [EVIL], EVIL: EVIL},
        "actual": {"readings": [{"type": EVIL, "rank": EVIL, "size": 5}]},
        "detail": EVIL,
        "input": {"cards": ["SA", EVIL], "hands": [[EVIL]], "actions": [{"seat": EVIL}], EVIL: 1},
        "decided_by": EVIL,
        "rerun": EVIL,
        "file": EVIL,
        "future_key": {"nested": EVIL},
    }
    return {
        "engine": {"spec": EVIL, "name": EVIL, "version": EVIL},
        "variant_files": {EVIL: EVIL},
        "cases": [
            case,
            {**case, "id": "omitted-case", "status": "omitted"},
            {**case, "id": "strange-case", "status": EVIL},
            {"id": "bare"},  # nearly nothing: still read
            "not an entry",
        ],
        "something_new": [1, 2, 3],
    }


def test_every_string_of_a_report_is_escaped() -> None:
    dashboard = build([report_from_json(evil_report(), "evil.json")])
    page = page_html(dashboard)
    for raw in ("<script", "<img", "onerror=alert(1)>"):
        assert raw not in page
    assert "&lt;script&gt;" in page

    markdown = pytest.importorskip("markdown")
    rendered = markdown.markdown(render_markdown(dashboard), extensions=["tables", "fenced_code"])
    for raw in ("<script", "<img", 'href="javascript'):
        assert raw not in rendered


def test_unknown_statuses_are_read_and_omitted_counts_as_passed() -> None:
    dashboard = build([report_from_json(evil_report(), "evil.json")])
    (engine,) = dashboard.engines
    whole = dashboard.rate(engine)
    assert whole.total == 4
    assert whole.passed == 1  # `omitted`: passed with omissions
    assert whole.judged == 4
    assert whole.counts["omitted"] == 1 and whole.counts[EVIL] == 1


@pytest.mark.parametrize(
    ("passed", "judged", "shown"),
    [(2, 3, "67 %"), (199, 200, "99 %"), (1, 1000, "1 %"), (0, 5, "0 %"), (5, 5, "100 %")],
)
def test_a_rate_is_rounded_yet_whole_only_when_whole(passed: int, judged: int, shown: str) -> None:
    """2/3 is 67 %, not 66 % (truncated); 199/200 stays below 100 % and 1/1000 above 0 %."""
    assert Rate(passed, judged, {"pass": passed, "fail": judged - passed}).text() == shown


def test_the_dashboard_shows_coverage_where_it_is_not_whole() -> None:
    """A partial engine's rate is about what it answered, and its cells say how much that was."""
    assert Rate(47, 52, {"pass": 47, "fail": 5, "unsupported": 823}).coverage() == "52/875 judged"
    partial = run(
        RunConfig(
            engine=f"exec:{shlex.quote(sys.executable)} tests/engines/broken.py unsupported-replay",
            variants=[load_variant("huaian")],
            patterns=["combo-straight-a2345*", "flow-*"],
        )
    )
    judged, total = partial.judged, len(partial.applicable)
    assert 0 < judged < total
    page = render_markdown(build([report_from_json(report_json(partial), "partial.json")]))
    assert "| cases | judged | pass rate |" in page
    assert f"| {total} | {judged} | 100 % ({judged}/{judged}; {judged}/{total} judged) |" in page
