"""Invalid input is part of conformance (issue 25, part 3): cases may expect a refusal
(`expected: {refused: invalid_input}`) for an impossible input; the case schema lets such an
input through while checking its shape; the one judge passes a refusal of that kind and fails
an answer; the reference refuses each impossible input, naming the offending thing; and an
engine that never validates fails `guandan check`, on the Python and the process paths."""

from __future__ import annotations

import io
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.cases.case_loader import Case, check_cases, load_cases, read_case_file
from harness.conformance.judging.judge import Status, judge, weigh
from harness.conformance.judging.outcome import outcome, refusal
from harness.conformance.oracles.mutation import kills
from harness.conformance.running.selection import Selected
from harness.engine.reference import ReferenceEngine
from harness.errors import EngineError, EngineErrorKind, Unsupported
from harness.frontends.cli import main
from harness.model.loader import load_variant
from harness.model.mutants import mutants
from tests.conftest import PLUGIN_ARGS
from tests.engines.unvalidated import within_two_decks

pytest_plugins = ["pytester"]

REFUSED = {"refused": "invalid_input"}
UNVALIDATED = "py:tests.engines.unvalidated:Unvalidated"
CLASSIFY_ONLY = "py:tests.engines.unvalidated:ClassifyOnly"
SERVE = f"exec:{shlex.quote(sys.executable)} -m harness.frontends.cli serve --variant huaian"
THREE_TIMES = "impossible-classify-a-card-three-times"


def run(*args: str) -> tuple[int, str]:
    """`guandan ARGS` in this process: exit status and what it printed."""
    out = io.StringIO()
    return main(list(args), out), out.getvalue()


def refusal_cases() -> list[Case]:
    """The bundled cases that expect a refusal."""
    return [case for case in load_cases()[0] if case.expects_refusal]


# --- the corpus -----------------------------------------------------------------------------


def test_at_least_twenty_refusal_cases_across_every_operation() -> None:
    cases = refusal_cases()
    assert len(cases) >= 20
    operations = {case.operation for case in cases}
    assert operations == {
        "classify", "beats", "legal_plays", "legal_actions", "tribute", "settle", "replay",
        "score",
    }  # fmt: skip
    assert all(case.expected == REFUSED for case in cases)


def _problems(tmp_path: Path, case: dict[str, Any]) -> list[str]:
    """The problems of a case file holding `case` alone: the schema's, then `check_cases`'."""
    path = tmp_path / "own.yaml"
    path.write_text(json.dumps({"cases": [case]}), encoding="utf-8")
    cases, problems = read_case_file(path)
    return [f"{p.path}: {p.message}" for p in [*problems, *check_cases(cases)]]


def _case(**changes: Any) -> dict[str, Any]:
    base = {
        "id": "own-case",
        "description": "d",
        "operation": "classify",
        "clauses": ["deck.decks"],
        "input": {"cards": ["S5"], "level": "9"},
        "expected": {"readings": [{"type": "single", "rank": "5", "size": 1}]},
    }
    return {**base, **changes}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        # An impossible input gets through only where the case expects it refused.
        ({"input": {"cards": ["S5"], "level": "SB"}}, "level"),
        ({"input": {"cards": ["S5", "S5", "S5"], "level": "9"}}, "S5 appears 3 times"),
        (
            {
                "operation": "settle",
                "input": {"state": {"levels": ["2", "2"]}, "finish": [0, 0, 1, 2]},
                "expected": {"won": False},
            },
            "must be unique",
        ),
        # A refusal case's input keeps its shape: card tokens, four seats, known fields.
        ({"input": {"cards": ["S1"], "level": "9"}, "expected": REFUSED}, "S1"),
        ({"input": {"cards": ["S5"], "level": "X"}, "expected": REFUSED}, "X"),
        ({"input": {"cards": ["S5"], "level": "9", "extra": 1}, "expected": REFUSED}, "extra"),
        (
            {
                "operation": "tribute",
                "input": {"finish": [0, 1, 2], "hands": [["S5"]] * 4, "level": "2"},
                "expected": REFUSED,
            },
            "finish",
        ),
        # The refusal itself: of kind invalid_input, and nothing beside it.
        ({"expected": {"refused": "internal"}}, "invalid_input"),
        ({"expected": {"refused": "invalid_input", "readings": []}}, "readings"),
    ],
)
def test_the_case_schema_and_checks(tmp_path: Path, changes: dict[str, Any], problem: str) -> None:
    found = _problems(tmp_path, _case(**changes))
    assert any(problem in message for message in found), found


@pytest.mark.parametrize(
    "changes",
    [
        {"input": {"cards": ["S5", "S5", "S5"], "level": "9"}, "expected": REFUSED},
        {"input": {"cards": ["S5"], "level": "HR"}, "expected": REFUSED},
        {
            "operation": "settle",
            "input": {"state": {"levels": ["2", "2"]}, "finish": [0, 0, 1, 2]},
            "expected": REFUSED,
        },
    ],
)
def test_an_impossible_input_gets_through_where_a_refusal_is_expected(
    tmp_path: Path, changes: dict[str, Any]
) -> None:
    assert _problems(tmp_path, _case(**changes)) == []


# --- the judge ------------------------------------------------------------------------------


def _raise(kind: EngineErrorKind) -> Callable[[], Any]:
    def answer() -> Any:
        raise EngineError(kind, f"refused as {kind}")

    return answer


def test_the_judge_passes_the_refusal_and_fails_an_answer() -> None:
    passed = judge(REFUSED, _raise(EngineErrorKind.INVALID_INPUT))
    assert passed.status is Status.PASS and passed.agrees and passed.actual is None
    failed = judge(REFUSED, lambda: {"readings": []}, impossible="Three S5 cannot be.")
    assert failed.status is Status.FAIL and not failed.agrees
    assert failed.message.startswith("the engine accepted impossible input: Three S5 cannot be.")
    assert failed.differences == (
        'refused: expected "invalid_input", found an answer (the engine accepted impossible '
        "input: Three S5 cannot be.)",
    )
    # An answer that looks like the refusal is still an answer.
    assert weigh(REFUSED, dict(REFUSED)).status is Status.FAIL


def test_the_judge_keeps_unsupported_and_calls_other_kinds_errors() -> None:
    def unsupported() -> Any:
        raise Unsupported("classify")

    assert judge(REFUSED, unsupported).status is Status.UNSUPPORTED
    assert not judge(REFUSED, unsupported).judged
    for kind in (EngineErrorKind.INTERNAL, EngineErrorKind.PROTOCOL, EngineErrorKind.CRASH):
        assert judge(REFUSED, _raise(kind)).status is Status.ERROR
    assert judge(REFUSED, _raise(EngineErrorKind.TIMEOUT)).status is Status.TIMEOUT
    # A case that expects an answer: invalid_input is an error, as before.
    assert judge({"readings": []}, _raise(EngineErrorKind.INVALID_INPUT)).status is Status.ERROR


def test_tools_weighing_the_interpreter_read_its_refusal_as_the_outcome() -> None:
    """Coverage, selection, mutation and the explainer weigh `outcome`: a refusal case is met,
    and no data mutant is counted as killing it."""
    ruleset = load_variant("huaian")
    case = next(c for c in refusal_cases() if c.id == THREE_TIMES)
    assert outcome(case.operation, case.input, ruleset) == refusal() == REFUSED
    item = Selected(case, ruleset, {})
    assert not any(kills(item, m) for m in list(mutants(ruleset))[:40])


# --- the reference --------------------------------------------------------------------------

HANDS = [["S5"], ["S6"], ["S7"], ["S8"]]


def _beats(play: tuple[str, str, int], previous: tuple[str, str, int]) -> dict[str, Any]:
    """A beats input at level 2 of two readings given as (type, rank, size)."""

    def reading(found: tuple[str, str, int]) -> dict[str, Any]:
        return {"type": found[0], "rank": found[1], "size": found[2]}

    return {"play": reading(play), "previous": reading(previous), "level": "2"}


TWENTY_EIGHT = [f"{suit}{rank}" for suit in "DC" for rank in "23456789TJQKA"] + ["HA", "HK"]
REFUSALS = [
    ("classify", {"cards": ["S5", "S5", "S5"], "level": "9"}, "S5 appears 3 times"),
    ("classify", {"cards": ["HR", "HR", "HR"], "level": "9"}, "HR appears 3 times"),
    ("classify", {"cards": ["SB", "SB", "SB"], "level": "9"}, "SB appears 3 times"),
    ("classify", {"cards": ["S5"], "level": "SB"}, "'SB' is a joker"),
    ("classify", {"cards": ["S5"], "level": "1"}, "'1' is not a rank"),
    ("legal_plays", {"hand": ["D9"] * 3, "level": "5", "previous": None}, "D9 appears 3"),
    ("beats", _beats(("pair", "8", 3), ("pair", "5", 2)), "`play`: a pair of 3 cards cannot be"),
    (
        "legal_actions",
        {"hand": ["S5"], "level": "2", "previous": {"type": "bomb", "rank": "5", "size": 3}},
        "`previous`: a bomb of 3 cards",
    ),
    ("beats", _beats(("tube", "HR", 6), ("tube", "5", 6)), "`play`: a tube of rank HR"),
    (
        "tribute",
        {"finish": [0, 1, 1, 3], "hands": HANDS, "level": "2"},
        "[0, 1, 1, 3]: expected a permutation of 0..3",
    ),
    (
        "tribute",
        {"finish": [0, 1, 2, 3], "hands": [["HR", "HR"], ["HR"], ["S7"], ["S8"]], "level": "2"},
        "HR appears 3 times",
    ),
    (
        "tribute",
        {"finish": [0, 1, 2, 3], "hands": [["S5"], [], ["S7"], ["S8"]], "level": "2"},
        "seat 1 holds no cards",
    ),
    (
        "settle",
        {"state": {"levels": ["2", "2"]}, "finish": [2, 2, 2, 2]},
        "[2, 2, 2, 2]: expected a permutation of 0..3",
    ),
    ("settle", {"state": {"levels": ["2", "SB"]}, "finish": [0, 1, 2, 3]}, "'SB' is a joker"),
    (
        "settle",
        {"state": {"levels": ["2", "2"], "firsts": [0, 1, 0, 3]}, "finish": [0, 1, 2, 3]},
        "seats [1, 3] on a run of firsts",
    ),
    (
        "settle",
        {"state": {"levels": ["2", "2"], "lasts": [0, 1, 1, 0]}, "finish": [0, 1, 2, 3]},
        "seats [1, 2] on a run of lasts",
    ),
    (
        "settle",
        {
            "state": {"levels": ["2", "2"], "firsts": [0, 0, 0, 2], "lasts": [0, 1, 0, 1]},
            "finish": [0, 1, 2, 3],
        },
        "seat 3 is on a run of firsts and of lasts",
    ),
    (
        "replay",
        {"hands": [["S5", "S5"], ["S5"], ["S7"], ["S8"]], "level": "2", "leader": 0, "actions": []},
        "S5 appears 3 times",
    ),
    (
        "replay",
        {"hands": [["S5"], ["S6"], ["S7"], TWENTY_EIGHT], "level": "9", "leader": 0, "actions": []},
        "`hands[3]`: 28 cards; a seat is dealt 27",
    ),
    (
        "replay",
        {"hands": [["S5"], ["S6"], [], ["S8"]], "level": "2", "leader": 0, "actions": []},
        "seat 2 holds no cards",
    ),
    ("score", {"winner": 0, "levels_gained": 1, "final_level": "HR", "match_over": True}, "HR"),
]


@pytest.mark.parametrize(("operation", "data", "named"), REFUSALS)
def test_the_reference_refuses_impossible_input_naming_it(
    operation: str, data: dict[str, Any], named: str
) -> None:
    with pytest.raises(EngineError) as refused:
        ReferenceEngine("huaian").answer(operation, data)
    assert refused.value.kind is EngineErrorKind.INVALID_INPUT
    assert named in str(refused.value)


def test_an_action_by_a_seat_that_is_out_stays_an_illegal_step() -> None:
    """Not impossible input: flow/illegal.yaml's `flow-illegal-seat-that-is-out-may-not-act`
    expects `flow.turn` (README item 2), so the reference keeps refusing it as a step."""
    data = {
        "hands": [["S5"], ["S6", "S9"], ["S7", "ST"], ["S8", "SJ"]],
        "level": "2",
        "leader": 0,
        "actions": [{"seat": 0, "cards": ["S5"]}, {"seat": 0, "pass": True}],
    }
    steps = ReferenceEngine("huaian").answer("replay", data)["steps"]
    assert steps[0]["out"] == 0
    assert steps[1] == {"legal": False, "rule": "flow.turn", "reason": steps[1]["reason"]}


# --- engines --------------------------------------------------------------------------------


def test_the_planted_engine_answers_three_copies_as_a_real_one_would() -> None:
    assert within_two_decks(["S5", "S5", "S5"]) == ["S5", "S5", "H5"]
    assert within_two_decks(["HR", "HR", "HR"]) == ["HR", "HR"]


def _report(tmp_path: Path, engine: str, name: str) -> tuple[int, str, dict[str, Any]]:
    """`guandan check` of `engine` on the impossible-input cases (huaian), with every report."""
    out = tmp_path / f"{name}.json"
    code, text = run(
        "check", "--engine", engine, "--variant", "huaian", "-k", "impossible-",
        "--json", str(out), "--junit", str(tmp_path / f"{name}.xml"),
        "--markdown", str(tmp_path / f"{name}.md"), "--no-explain",
    )  # fmt: skip
    return code, text, json.loads(out.read_text(encoding="utf-8"))


def _statuses(report: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["status"] for entry in report["cases"]}


def test_check_fails_an_engine_that_never_validates(tmp_path: Path) -> None:
    code, text, report = _report(tmp_path, UNVALIDATED, "unvalidated")
    assert code == 1, text
    statuses = _statuses(report)
    assert statuses[THREE_TIMES] == "fail"
    assert "the engine accepted impossible input: Three S5 cannot be" in text
    failed = next(e for e in report["cases"] if e["id"] == THREE_TIMES)
    assert failed["message"].startswith("the engine accepted impossible input: Three S5")
    # What it does refuse (beats and legal_plays go to the reference) passes; what it does
    # not implement is not blamed on it.
    assert statuses["impossible-beats-a-pair-of-three-cards"] == "pass"
    assert statuses["impossible-tribute-a-seat-finishing-twice"] == "unsupported"
    assert "accepted impossible input" in (tmp_path / "unvalidated.md").read_text("utf-8")
    assert "accepted impossible input" in (tmp_path / "unvalidated.xml").read_text("utf-8")
    dashboard = tmp_path / "dash.html"
    assert run("report", str(tmp_path / "unvalidated.json"), "--html", str(dashboard))[0] == 0
    assert THREE_TIMES in dashboard.read_text(encoding="utf-8")


def test_a_correct_engine_that_lacks_an_operation_is_not_blamed(tmp_path: Path) -> None:
    code, text, report = _report(tmp_path, CLASSIFY_ONLY, "classify-only")
    assert code == 0, text
    by_operation: dict[str, set[str]] = {}
    # A case on a derived variant, which the engine does not claim, is not its own.
    for entry in (e for e in report["cases"] if e["status"] != "not_applicable"):
        by_operation.setdefault(entry["operation"], set()).add(entry["status"])
    assert by_operation.pop("classify") == {"pass"}
    assert set().union(*by_operation.values()) == {"unsupported"}


def test_the_process_protocol_carries_the_refusal_kind(tmp_path: Path) -> None:
    """`guandan serve` answers each impossible input an error of kind invalid_input, and the
    `exec:` engine hands that kind to the judge: every refusal case passes."""
    code, text, report = _report(tmp_path, SERVE, "serve")
    assert code == 0, text
    statuses = _statuses(report)
    assert len(statuses) >= 20 and set(statuses.values()) == {"pass"}
    assert all(e["message"] == "refused: invalid_input" for e in report["cases"])


def test_the_pytest_plugin_judges_refusal_cases(guandan: pytest.Pytester) -> None:
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        f"--guandan-engine={UNVALIDATED}",
        "--guandan-variant=huaian",
        "-k",
        "impossible-classify or impossible-beats or impossible-tribute",
    )
    outcomes = {
        r.nodeid.rsplit("::", 1)[-1]: r.outcome
        for r in result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
        if r.when == "call" or r.outcome != "passed"
    }
    assert outcomes[THREE_TIMES] == "failed"
    assert outcomes["impossible-classify-at-a-joker-level"] == "passed"
    assert outcomes["impossible-beats-a-pair-of-three-cards"] == "passed"
    assert outcomes["impossible-tribute-a-seat-finishing-twice"] == "skipped"
    assert "the engine accepted impossible input" in result.stdout.str()
