"""The judge's soundness check (harness/conformance/judging/soundness.py): every play or action an
engine lists is cards from the hand that make the reading given, and beat `previous` when
following, whatever the case expects."""

from __future__ import annotations

from typing import Any

import pytest

from harness.conformance.cases.case_loader import load_cases, run_variants
from harness.conformance.judging.judge import Status, weigh
from harness.conformance.judging.outputs import compare_output
from harness.conformance.judging.soundness import soundness
from harness.conformance.running.runner import RunConfig, run
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant

HUAIAN = load_variant("huaian")
HAND = {"hand": ["H7", "S7", "SA", "C9", "C9", "D3"], "level": "7"}
PAIR_9 = {"type": "pair", "rank": "9", "size": 2}


def _play(kind: str, rank: str, size: int, *cards: str) -> dict[str, Any]:
    return {"type": kind, "rank": rank, "size": size, "cards": list(cards)}


def faults(operation: str, data: dict[str, Any], answer: Any, *omit: str) -> list[str]:
    """What the soundness check finds in `answer` under huaian."""
    sound = soundness(operation, data, HUAIAN, omit)
    assert sound is not None
    return sound(answer)


def test_the_reference_listing_is_sound() -> None:
    for previous in (None, PAIR_9, {"type": "single", "rank": "K", "size": 1}):
        data = {**HAND, "previous": previous}
        for op in ("legal_plays", "legal_actions"):
            answer = run_operation(op, data, HUAIAN)
            assert answer[next(iter(answer))], (op, previous)  # something is listed
            assert faults(op, data, answer) == [], (op, previous)


def test_a_play_whose_cards_are_not_the_hand_s() -> None:
    answer = {"plays": [_play("triple", "9", 3, "C9", "C9", "C9")]}
    assert faults("legal_plays", HAND, answer) == [
        "plays[0]: cards [C9, C9, C9] are not in the hand"
    ]
    answer = {"plays": [_play("pair", "K", 2, "SK", "H7")]}
    assert faults("legal_plays", HAND, answer) == ["plays[0]: cards [SK, H7] are not in the hand"]


def test_a_play_whose_cards_do_not_make_its_reading() -> None:
    """A pair filled by the wild card (H7 at level 7) but listed with one card."""
    answer = {"plays": [_play("pair", "A", 2, "SA"), _play("pair", "A", 2, "SA", "H7")]}
    assert faults("legal_plays", HAND, answer) == ["plays[0]: cards [SA] do not make pair of A"]
    straight = {"plays": [_play("straight", "7", 5, "D3", "C9", "SA", "S7", "H7")]}
    assert faults("legal_plays", HAND, straight) == [
        "plays[0]: cards [D3, C9, SA, S7, H7] do not make straight of 7 (5 cards)"
    ]


def test_a_play_without_cards_unless_the_engine_does_not_model_them() -> None:
    answer = {"plays": [{"type": "pair", "rank": "9", "size": 2}]}
    assert faults("legal_plays", HAND, answer) == ["plays[0]: pair of 9 carries no cards"]
    assert faults("legal_plays", HAND, answer, "cards") == []


def test_a_following_play_that_does_not_beat_previous() -> None:
    data = {**HAND, "previous": {"type": "pair", "rank": "A", "size": 2}}
    answer = {"plays": [_play("pair", "9", 2, "C9", "C9")]}
    assert faults("legal_plays", data, answer) == ["plays[0]: pair of 9 does not beat pair of A"]
    # Not modelling the cards does not excuse the reading.
    assert faults("legal_plays", data, answer, "cards") == [
        "plays[0]: pair of 9 does not beat pair of A"
    ]


def test_an_action_s_readings_are_the_cards_readings() -> None:
    single = {"type": "single", "rank": "A", "size": 1}
    answer = {
        "actions": [
            {"cards": ["SA"], "readings": [single, {"type": "pair", "rank": "A", "size": 2}]},
            {"cards": ["SA", "SA"], "readings": [{"type": "pair", "rank": "A", "size": 2}]},
        ]
    }
    assert faults("legal_actions", HAND, answer) == [
        "actions[0].readings[1]: cards [SA] do not make pair of A",
        "actions[1]: cards [SA, SA] are not in the hand",
    ]
    data = {**HAND, "previous": {"type": "single", "rank": "K", "size": 1}}
    low = {"actions": [{"cards": ["C9"], "readings": [{"type": "single", "rank": "9", "size": 1}]}]}
    assert faults("legal_actions", data, low) == [
        "actions[0].readings[0]: single of 9 does not beat single of K"
    ]
    assert faults("legal_actions", data, low, "cards", "readings") == []


def test_no_check_for_other_operations_or_input_the_reference_refuses() -> None:
    assert soundness("classify", {"cards": ["S3"], "level": "2"}, HUAIAN) is None
    assert soundness("legal_plays", {"hand": ["S3", "S3", "S3"], "level": "2"}, HUAIAN) is None
    assert soundness("legal_plays", {"hand": ["S3"], "level": "SB"}, HUAIAN) is None


def test_the_judge_fails_an_unsound_answer_the_comparison_passes() -> None:
    expected = {"plays": [{"type": "pair", "rank": "A", "size": 2}]}
    answer = {"plays": [_play("pair", "A", 2, "SA")]}
    assert compare_output(expected, answer) == []
    found = weigh(expected, answer, sound=soundness("legal_plays", HAND, HUAIAN))
    assert found.status is Status.FAIL
    assert found.differences == ("plays[0]: cards [SA] do not make pair of A",)


def _check(engine: str, slug: str = "huaian", *patterns: str) -> list[Any]:
    config = RunConfig(
        engine=engine if ":" in engine else f"py:tests.engines.planted:{engine}",
        variants=[load_variant(slug)],
        patterns=list(patterns),
    )
    return run(config).results


def test_a_wild_pair_listed_with_one_card_is_caught_by_soundness_alone() -> None:
    results = _check("OneCardWildPair", "huaian", "legal-")
    failed = [r for r in results if r.status is Status.FAIL]
    assert failed
    assert all(r.operation == "legal_plays" for r in failed)
    # The readings agree: what fails them is that one card does not make a pair.
    assert all(compare_output(r.expected, r.actual) == [] for r in failed)
    assert all("do not make pair of" in d for r in failed for d in r.differences)


def test_the_acting_seat_reported_out_on_every_step_is_caught() -> None:
    results = _check("ActorGoesOut", "huaian", "replay-", "flow-")
    failed = [r for r in results if r.status is Status.FAIL]
    assert failed
    assert any(
        d.startswith("steps[0].out: expected none, found ") for r in failed for d in r.differences
    )


CORRECT = "py:tests.engines.realbugs:Wrapped"  # the reference under another name, unchanged


@pytest.mark.parametrize(
    ("engine", "bad"), [("NoPlayCards", 0), ("NoPlayCardsUndeclared", 1), (CORRECT, 0)]
)
def test_a_correct_engine_passes(engine: str, bad: int) -> None:
    """The reference rewritten by nothing passes; one that leaves out the cards passes only if
    it says it does not model them."""
    results = _check(engine, "huaian", "legal-", "replay-", "flow-")
    failed = [r for r in results if r.status not in (Status.PASS, Status.OMITTED)]
    assert bool(failed) == bool(bad)
    assert all("carries no cards" in r.message for r in failed)


def test_every_listing_of_the_reference_on_the_corpus_is_sound() -> None:
    cases, _ = load_cases()
    checked = 0
    for case in cases:
        if case.operation not in ("legal_plays", "legal_actions"):
            continue
        if case.expects_refusal:
            continue
        for ruleset in run_variants(case):
            sound = soundness(case.operation, case.input, ruleset)
            assert sound is not None
            assert sound(run_operation(case.operation, case.input, ruleset)) == [], case.id
            checked += 1
    assert checked > 50
