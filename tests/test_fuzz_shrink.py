"""Replay findings shrunk on their script and deal (`fuzz.shrink`), and findings written only
when check's judge confirms them: the case fails the engine and passes the reference."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.conformance.oracles.fuzz.driver import FuzzReport, confirm, write_cases
from harness.conformance.oracles.fuzz.findings import Checker, Finding, Found, case_expected
from harness.conformance.oracles.fuzz.shrink import shrink_replay
from harness.conformance.running.runner import RunConfig, Status, run
from harness.engine import ReferenceEngine
from harness.frontends.cli import main
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from tests.engines.pyengines import SwappedFollowOrder

SWAPPED = "py:tests.engines.pyengines:SwappedFollowOrder"


def _played(slug: str) -> Ruleset:
    ruleset = load_variant(slug)
    return ruleset.with_options({n: o.default for n, o in ruleset.options.items()})


def _check(engine: str, folder: Path) -> set[Status]:
    """The statuses `guandan check --cases FOLDER --no-bundled` gives the cases on `engine`."""
    config = RunConfig(
        engine=engine, variants=[load_variant("huaian")], cases_paths=[folder], bundled=False
    )
    result = run(config)
    assert not result.problems, result.problems
    return {r.status for r in result.results}


@pytest.mark.slow
def test_the_swapped_follow_bug_is_a_short_replay_whose_case_fails_it(tmp_path: Path) -> None:
    """Fuzzing replays of the planted swap engine: the finding is at most 8 actions, and its
    case fails the engine and passes the reference under `check`. The shrink is bounded by its
    tries, not by time: with the default 10 s a loaded machine once stopped at 9."""
    out, summary = tmp_path / "found", tmp_path / "summary.json"
    printed = io.StringIO()
    code = main(
        [
            "fuzz", "--engine", SWAPPED, "--variant", "huaian", "--seed", "0",
            "--examples", "150", "--operation", "replay", "--out", str(out),
            "--json", str(summary), "--quiet", "--shrink-seconds", "600",
        ],
        printed,
    )  # fmt: skip
    assert code == 1, printed.getvalue()
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert report["findings"] and not report["dropped"]
    # One cause, one finding; no single clause value is the bug (the engine ranks the level
    # card naturally in some comparisons only, which its other answers show).
    (finding,) = report["findings"]
    assert finding["operation"] == "replay"
    assert len(finding["input"]["actions"]) <= 8, finding["input"]
    assert finding["explained_by"] is None, finding
    assert finding["verdict"] == "no clause value explains it"
    assert _check(SWAPPED, out) == {Status.FAIL}
    assert _check("reference", out) == {Status.PASS}


# Level 2: the level card (2) ranks above A. Seat 0 holds a spare hand; the tricks before the
# last are singles each won by seat 0's A or a pair; at the end seat 1's level-card single 2,
# legal on seat 0's K, is refused by the swap engine (it ranks 2 below K, as a straight would).
HANDS = [
    ["SA", "HA", "C3", "C4", "C5", "C6", "C7", "C8", "CK", "D9", "DT"],
    ["S4", "S5", "S6", "S7", "S2", "D3", "D4", "D5"],
    ["H4", "H5", "H6", "H7", "H8", "H9", "HT", "D6"],
    ["C9", "CT", "CJ", "CQ", "D7", "D8", "DJ", "DQ"],
]
SCRIPT = [
    {"seat": 0, "cards": ["C3"]},
    {"seat": 1, "cards": ["S4"]},
    {"seat": 2, "cards": ["H5"]},
    {"seat": 3, "cards": ["C9"]},
    {"seat": 0, "cards": ["SA"]},
    {"seat": 1, "pass": True},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 0, "cards": ["C4"]},
    {"seat": 1, "cards": ["S5"]},
    {"seat": 2, "ask": 0},
    {"seat": 2, "cards": ["H6"]},
    {"seat": 3, "cards": ["CT"]},
    {"seat": 0, "cards": ["HA"]},
    {"seat": 1, "pass": True},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 0, "cards": ["CK"]},
    {"seat": 1, "cards": ["S2"]},  # the level card on a K: legal, refused by the swap engine
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 0, "pass": True},
]


def _finding(engine: SwappedFollowOrder, data: dict[str, object], ruleset: Ruleset) -> Finding:
    checker = Checker(engine, ReferenceEngine(ruleset), (), ("replay",))
    try:
        checker.check("replay", data)
    except Found as found:
        return found.finding
    raise AssertionError("the engine agreed with the reference")


def test_the_shrinker_cuts_a_hand_built_round_to_the_difference() -> None:
    """A round of 22 actions where the swap shows at action 19: the shrinker keeps the last
    trick's lead and the refused follow (the earlier tricks, the ask and the passes after go,
    with the cards played), and the hands lose the cards no action plays."""
    ruleset = _played("huaian")
    engine = SwappedFollowOrder(ruleset)
    data = {"hands": HANDS, "level": "2", "leader": 0, "actions": SCRIPT}
    found = _finding(engine, data, ruleset)
    checker = Checker(engine, ReferenceEngine(ruleset), (), ("replay",))
    shrunk = shrink_replay(found, checker, seconds=600)  # bounded by its engine calls
    assert shrunk.probe == found.probe
    actions = shrunk.input["actions"]
    assert actions == [{"seat": 0, "cards": ["CK"]}, {"seat": 1, "cards": ["S2"]}]
    assert shrunk.input["leader"] == 0
    # Every seat keeps the cards it plays and one more (so that nobody goes out).
    assert [len(h) for h in shrunk.input["hands"]] == [2, 2, 1, 1]
    assert "CK" in shrunk.input["hands"][0] and "S2" in shrunk.input["hands"][1]
    # Still a discrepancy of the same shape, the follow legal by the rules.
    again = _finding(engine, shrunk.input, ruleset)
    assert again.probe == found.probe
    assert again.expected["steps"][-1]["legal"] is True


def test_a_finding_the_reference_does_not_pass_is_not_written(tmp_path: Path) -> None:
    """A finding whose expected output is wrong (the reference itself fails its case), and one
    the engine in fact passes, are dropped with the reason; the true one is written."""
    ruleset = _played("huaian")
    engine = SwappedFollowOrder(ruleset)
    data = {"hands": HANDS, "level": "2", "leader": 0, "actions": SCRIPT[:19]}
    # The clause explain would name (a finding is explained before it is written).
    true = replace(_finding(engine, data, ruleset), clause="ranks.level_card.position")
    wrong = Finding(
        "beats",
        {"play": {"type": "single", "rank": "K", "size": 1},
         "previous": {"type": "single", "rank": "3", "size": 1}, "level": "2"},
        {"beats": False},  # a K beats a 3: the reference fails this case
        {"beats": True},
        ("beats: expected false, found true",),
        "beats:false",
    )  # fmt: skip
    agreed = Finding(
        "classify",
        {"cards": ["S3", "H3"], "level": "9"},
        case_expected(
            "classify", ReferenceEngine(ruleset).answer("classify", {"cards": ["S3", "H3"],
                                                                     "level": "9"})
        ),
        {"readings": []},
        ("readings: differ",),
        "readings:missing",
    )  # fmt: skip
    report = FuzzReport(SWAPPED, engine.describe(), ruleset, 0, ("replay",))
    report.findings = [true, wrong, agreed]
    written = write_cases(report, tmp_path)
    assert len(written) == 1 and report.findings == [true]
    reasons = dict((f.operation, why) for f, why in report.dropped)
    assert set(reasons) == {"beats", "classify"}
    assert "reference does not pass" in reasons["beats"]
    assert "engine passes" in reasons["classify"]
    assert _check(SWAPPED, tmp_path) == {Status.FAIL}
    confirm(report)  # once confirmed, not again
    assert len(report.dropped) == 2


def test_a_double_down_finish_groups_the_two_who_never_went_out() -> None:
    """After an early end on a double-down the order of the losers is not played: a case
    expects them as a group; where three went out the order stays as played."""
    steps = [{"legal": True, "next": 2, "out": 0}, {"legal": True, "next": None, "out": 2}]
    out = {"steps": steps, "over": True, "finish": [0, 2, 3, 1], "double_down": True}
    assert case_expected("replay", out)["finish"] == [0, 2, [3, 1]]
    three = [*steps[:1], {"legal": True, "next": 3, "out": 1}, {"legal": True, "out": 2}]
    played = {"steps": three, "over": True, "finish": [0, 1, 2, 3], "double_down": False}
    assert case_expected("replay", played)["finish"] == [0, 1, 2, 3]
