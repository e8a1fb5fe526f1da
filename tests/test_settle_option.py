"""When beans are settled (scoring.settle): online-app's option `settle`, its provenance, and the
score after each round of a match under each reading.

online-app 7.計分規則: 完成一盤遊戲後玩家的歡樂豆可能會發生變化 … 一局遊戲結束，贏家方公升x級，遊戲
基數等於x。打到8結束，遊戲基數額外加5；打到a結束，遊戲基數額外加10分。 盤 is read as the match
(match_end, the default); the option chooses each_round.
"""

from __future__ import annotations

import io
import json

import pytest

from harness.errors import HarnessError
from harness.frontends.cli import main
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant
from harness.model.ruleset import ProvenanceKind


def show(slug: str) -> dict[str, object]:
    out = io.StringIO()
    assert main(["show", slug, "--format", "json"], out=out) == 0
    data: dict[str, object] = json.loads(out.getvalue())
    return data


def test_online_app_offers_the_settle_option() -> None:
    ruleset = load_variant("online-app")
    option = ruleset.options["settle"]
    assert option.sets == "scoring.settle"
    assert list(option.choices or ()) == ["match_end", "each_round"]
    assert option.provenance.kind is ProvenanceKind.ASSUMED
    assert ruleset.value("scoring.settle") == "match_end"
    chosen = ruleset.with_options({"settle": "each_round"})
    assert chosen.value("scoring.settle") == "each_round"
    assert chosen.clause("scoring.settle").set_by_option == "settle"
    with pytest.raises(HarnessError, match="settle"):
        ruleset.with_options({"settle": "every_hand"})


def test_the_settle_clause_is_assumed_with_the_other_reading() -> None:
    clause = load_variant("online-app").clause("scoring.settle")
    assert clause.provenance.kind is ProvenanceKind.ASSUMED
    assert any("each_round" in alt for alt in clause.provenance.alternatives)


def test_show_lists_the_option_with_its_default() -> None:
    options = show("online-app")["options"]
    assert isinstance(options, dict)
    assert options["settle"]["default"] == "match_end"
    assert options["settle"]["choices"] == ["match_end", "each_round"]


@pytest.mark.parametrize("slug", ["huaian", "competition", "match-rules"])
def test_variants_without_scoring_offer_no_settle_option(slug: str) -> None:
    assert "settle" not in load_variant(slug).options


# A match to A played round by round (online-app, n = 1, a = 1), with the levels each round's
# winners gain worked out by hand from 5.公升級規則:
#   round 1: team 0 double-down, 2 -> 5 (3 levels)
#   round 2: team 1 first and fourth, 2 -> 3 (1 level)
#   round 3: team 0 at 5, first and fourth with seat 2's third last in a row: 1 - 1 = 0
#   round 4: team 0 wins the match at A with first and third (a later round): x = 2 + 10
ROUNDS = [(0, 3, False), (1, 1, False), (0, 0, False), (0, 2, True)]


@pytest.mark.parametrize(
    ("settle", "expected"),
    [
        # Once per match: only the last round settles, x = 12: winners 11, losers 13.
        (
            "match_end",
            [
                (None, [0, 0, 0, 0]),
                (None, [0, 0, 0, 0]),
                (None, [0, 0, 0, 0]),
                (12, [11, -13, 11, -13]),
            ],
        ),
        # Every round: x = 3, 1, 0, 12; the fee 1 is taken each round.
        (
            "each_round",
            [
                (3, [2, -4, 2, -4]),
                (1, [-2, 0, -2, 0]),
                (0, [-1, -1, -1, -1]),
                (12, [11, -13, 11, -13]),
            ],
        ),
    ],
)
def test_a_match_round_by_round(settle: str, expected: list[tuple[int | None, list[int]]]) -> None:
    ruleset = load_variant("online-app", {"settle": settle, "room_fee": 1})
    got = [
        run_operation(
            "score",
            {"winner": w, "levels_gained": g, "final_level": "A", "match_over": over},
            ruleset,
        )
        for w, g, over in ROUNDS
    ]
    assert got == [{"base": b, "amounts": a} for b, a in expected]
