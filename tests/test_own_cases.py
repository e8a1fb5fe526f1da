"""One's own cases (`guandan check --cases PATH`, `--no-bundled`; the plugin's `--guandan-cases`):
run beside the bundled corpus or alone, each reported with its own description; a case file with
problems is reported FILE:LINE:COLUMN, its valid cases still run, and the run exits 1; ids that
clash are refused where they are written."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.cases.case_loader import load_cases, load_corpus, read_case_file
from harness.conformance.running.runner import RunConfig, Status, run
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import PLUGIN_ARGS

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
BUNDLED = {case.id: case for case in load_cases()[0]}
# A bundled case whose id an own case takes, and where it is written.
TAKEN = "combo-straight-a2345-is-the-lowest-straight"

GOOD = """\
title: Our club's own cases
cases:
  - id: club-straight-two-to-six
    description: In our club's words, 23456 is a straight to 6.
    operation: classify
    clauses: [combinations.straight.shape]
    input: {cards: [S2, H3, C4, D5, S6], level: "9"}
    expected:
      readings: [{type: straight, rank: "6", size: 5}]
  - id: club-king-beats-nine
    description: Our single king beats our single nine.
    operation: beats
    clauses: [compare.same_type_and_size]
    input:
      play: {type: single, rank: K, size: 1}
      previous: {type: single, rank: "9", size: 1}
      level: "5"
    expected: {beats: true}
"""

# Case 2 of 3 has a rank no reading has (a schema error); cases 1 and 3 are good.
BAD = """\
title: Cases, one of them broken
cases:
  - id: club-pair-of-threes
    description: Our pair of threes.
    operation: classify
    clauses: [combinations.pair.shape]
    input: {cards: [S3, H3], level: "9"}
    expected:
      readings: [{type: pair, rank: "3", size: 2}]
  - id: club-pair-of-zeds
    description: A rank that does not exist.
    operation: classify
    clauses: [combinations.pair.shape]
    input: {cards: [S4, H4], level: "9"}
    expected:
      readings: [{type: pair, rank: "Z", size: 2}]
  - id: club-triple-of-fives
    description: Our triple of fives.
    operation: classify
    clauses: [combinations.triple.shape]
    input: {cards: [S5, H5, C5], level: "9"}
    expected:
      readings: [{type: triple, rank: "5", size: 3}]
"""

CLASH = f"""\
title: A case whose id the bundled corpus already has
cases:
  - id: {TAKEN}
    description: Our own A2345, under an id that is taken.
    operation: classify
    clauses: [combinations.straight.shape]
    input: {{cards: [SA, H2, C3, D4, S5], level: "9"}}
    expected:
      readings: [{{type: straight, rank: "5", size: 5}}]
"""

OWN_GOOD = ["club-straight-two-to-six", "club-king-beats-nine"]
OWN_RUN = [*OWN_GOOD, "club-pair-of-threes", "club-triple-of-fives"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A case folder: one good file, one with a bad case among good ones, one clash."""
    cases = tmp_path / "club-cases"
    cases.mkdir()
    (cases / "good.yaml").write_text(GOOD, encoding="utf-8")
    (cases / "bad.yaml").write_text(BAD, encoding="utf-8")
    (cases / "clash.yaml").write_text(CLASH, encoding="utf-8")
    return cases


def check(*args: str | Path) -> tuple[int, str]:
    """`guandan check ARGS` in this process: the exit status and what it printed."""
    out = io.StringIO()
    code = main(["check", *(str(a) for a in args)], out=out)
    return code, out.getvalue()


@pytest.mark.slow
def test_own_cases_run_with_the_bundled_corpus_and_problems_fail_the_run(
    folder: Path, tmp_path: Path
) -> None:
    """The acceptance test of issue 12, item 1."""
    report = tmp_path / "r.json"
    code, text = check("--cases", folder, "--engine", "reference", "--report", report)
    assert code == 1, text
    data = json.loads(report.read_text(encoding="utf-8"))
    by_id: dict[str, list[dict[str, Any]]] = {}
    for entry in data["cases"]:
        by_id.setdefault(entry["id"], []).append(entry)

    # The good cases ran, on every variant, and passed; the report gives their own words.
    own = {case.id: case for case in load_cases([folder])[0]}
    for case_id in OWN_RUN:
        entries = by_id[case_id]
        assert {e["variant"] for e in entries} == {
            "huaian",
            "online-app",
            "competition",
            "match-rules",
        }
        assert {e["status"] for e in entries} == {"pass"}
        for e in entries:
            assert e["description"] == own[case_id].description
            assert e["input"] == own[case_id].input
            assert e["location"] == str(own[case_id].location)
    first = by_id["club-straight-two-to-six"][0]
    assert first["description"] == "In our club's words, 23456 is a straight to 6."
    assert first["input"] == {"cards": ["S2", "H3", "C4", "D5", "S6"], "level": "9"}
    assert re.search(r"good\.yaml:3:5$", first["location"])

    # The bad case did not run; the clashing one did not replace the bundled case.
    assert "club-pair-of-zeds" not in by_id
    bundled = by_id[TAKEN]
    assert {e["description"] for e in bundled} == {BUNDLED[TAKEN].description}
    assert all(e["location"] == str(BUNDLED[TAKEN].location) for e in bundled)
    # The bundled corpus ran too, all passing.
    assert len(by_id) == len(BUNDLED) + len(OWN_RUN)
    assert data["summary"]["failed"] == data["summary"]["errors"] == 0
    assert data["summary"]["problems"] == 2
    assert data["ok"] is False

    # Both problems are printed where they are, and counted.
    bad_at = re.search(r"^PROBLEM (.*bad\.yaml):(\d+):(\d+): cases\[1\]\.expected", text, re.M)
    assert bad_at is not None, text
    assert int(bad_at.group(2)) == 16  # the line of rank: "Z"
    clash_at = re.search(
        rf"^PROBLEM (.*clash\.yaml):3:5: {TAKEN}: id taken by a bundled", text, re.M
    )
    assert clash_at is not None, text
    assert str(BUNDLED[TAKEN].location) in text
    assert "2 problems in the case files" in text


def test_no_bundled_runs_only_ones_own(folder: Path) -> None:
    code, text = check("--cases", folder, "--no-bundled", "--variant", "huaian", "--verbose")
    assert code == 1, text  # the problem of bad.yaml still fails the run
    ran = re.findall(r"^pass\s+(\S+)\[huaian\]$", text, re.M)
    # Without the bundled corpus the case under a bundled id clashes with nothing: it runs.
    assert sorted(ran) == sorted([*OWN_RUN, TAKEN]), text
    assert "id taken" not in text
    (folder / "bad.yaml").unlink()
    code, text = check("--cases", folder, "--no-bundled", "--variant", "huaian")
    assert code == 0, text
    assert "PROBLEM" not in text


def test_a_good_folder_alone_passes(folder: Path, tmp_path: Path) -> None:
    (folder / "bad.yaml").unlink()
    (folder / "clash.yaml").unlink()
    code, text = check("--cases", folder / "good.yaml", "--no-bundled", "--variant", "competition")
    assert code == 0, text
    assert "2 cases: 2 passed" in text


def test_two_own_cases_with_one_id(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    second = tmp_path / "second.yaml"
    first.write_text(GOOD, encoding="utf-8")
    second.write_text(GOOD.replace("club-king-beats-nine", "club-king-beats-nine-too"), "utf-8")
    cases, problems = load_corpus([first, second], bundled=False)
    assert [c.id for c in cases] == [*OWN_GOOD, "club-king-beats-nine-too"]
    assert len(problems) == 1
    (problem,) = problems
    assert str(problem.location).endswith("second.yaml:3:5")
    assert "club-straight-two-to-six: id taken by another case at" in str(problem)
    assert str(first) in str(problem) or "first.yaml:3:5" in str(problem)


def test_a_file_named_twice_is_read_once(folder: Path) -> None:
    cases, problems = load_corpus([folder, folder / "good.yaml"], bundled=False)
    assert [c.id for c in cases].count("club-straight-two-to-six") == 1
    assert not [p for p in problems if "taken" in p.message and "good.yaml" in str(p)]


def test_a_yaml_syntax_error_loses_the_file_and_says_so(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(GOOD + "  - id: [unclosed\n", encoding="utf-8")
    cases, problems = read_case_file(broken)
    assert cases == []
    assert len(problems) == 1
    assert re.search(
        r"broken\.yaml:\d+:\d+: YAML syntax: .*none of its cases run", str(problems[0])
    )
    code, text = check("--cases", broken, "--no-bundled", "--variant", "huaian")
    assert code == 1
    assert "none of its cases run" in text and "1 problem in the case files" in text


def test_case_by_case_a_duplicate_key_costs_only_its_case(tmp_path: Path) -> None:
    doubled = tmp_path / "doubled.yaml"
    text = GOOD.replace("    operation: beats\n", "    operation: beats\n    operation: beats\n")
    doubled.write_text(text, encoding="utf-8")
    cases, problems = read_case_file(doubled)
    assert [c.id for c in cases] == ["club-straight-two-to-six"]
    assert len(problems) == 1 and "duplicate key 'operation'" in str(problems[0])


def test_a_file_level_problem_keeps_its_cases(tmp_path: Path) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text("author: us\n" + GOOD, encoding="utf-8")
    cases, problems = read_case_file(extra)
    assert [c.id for c in cases] == OWN_GOOD
    assert len(problems) == 1 and "unknown key" in str(problems[0])
    assert str(problems[0].location).endswith("extra.yaml:1:1")


def test_an_unknown_clause_in_an_own_case_is_a_problem(tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(GOOD.replace("[compare.same_type_and_size]", "[compare.no_such]"), "utf-8")
    cases, problems = load_corpus([unknown], bundled=False)
    assert [c.id for c in cases] == ["club-straight-two-to-six"]
    assert len(problems) == 1 and "unknown clause id 'compare.no_such'" in str(problems[0])


def test_the_runner_api_takes_own_cases(folder: Path) -> None:
    config = RunConfig(
        engine="reference",
        variants=[load_variant("huaian")],
        cases_paths=[folder],
        bundled=False,
    )
    result = run(config)
    assert sorted(r.id for r in result.results) == sorted([*OWN_RUN, TAKEN])
    assert {r.status for r in result.results} == {Status.PASS}
    assert result.problems and not result.ok
    assert set(result.cases) == {*OWN_RUN, TAKEN}
    straight = next(r for r in result.results if r.id == "club-straight-two-to-six")
    assert straight.description.startswith("In our club's words")
    assert straight.to_json()["description"] == straight.description


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--cases", "no/such/folder"], "no/such/folder"),
        (["--no-bundled"], "--no-bundled"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    code, _ = check("--variant", "huaian", *args)
    assert code == 2
    assert words in capsys.readouterr().err


def test_only_problems_and_no_valid_case_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: nothing\ncases: []\n", encoding="utf-8")
    code, text = check("--cases", bad, "--no-bundled", "--variant", "huaian")
    assert code == 1
    assert "PROBLEM" in text and "bad.yaml" in text


# ---------------------------------------------------------------------------------------------
# The pytest plugin


def test_the_plugin_runs_own_cases_and_fails_on_their_problems(
    guandan: pytest.Pytester, folder: Path
) -> None:
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        "--guandan-engine=reference",
        "--guandan-variant=huaian",
        f"--guandan-cases={folder}",
        "--guandan-no-bundled",
        "-k",
        "club or case-file-problem",
    )
    outcomes = result.parseoutcomes()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert outcomes.get("passed") == len(OWN_RUN), result.stdout.str()
    assert outcomes.get("failed") == 1  # the bad case's schema error; the clash is no clash here
    result.stdout.fnmatch_lines(["*bad.yaml:16:*cases[[]1[]].expected.readings[[]0[]].rank*"])
