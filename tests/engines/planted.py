"""Engines with one planted bug each (埋雷引擎): the reference on a mutant of the variant asked for
(one clause value changed, `harness.model.loader.mutant`), or a small wrapper around the reference
where no clause value says the bug. Features that should find bugs are tested on these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.engine import EngineBase, EngineInfo, Json, Reach, ReferenceEngine
from harness.model.loader import mutant
from harness.model.ruleset import Ruleset
from tests.engines.realbugs import Wrapped


class Planted(EngineBase):
    """The reference on `ruleset`, except that `operations` are answered on a mutant of it."""

    def __init__(
        self,
        name: str,
        ruleset: Ruleset,
        clause: str,
        value: Any,
        operations: tuple[str, ...] | None = None,
    ) -> None:
        self.name = name
        self.reference = ReferenceEngine(ruleset)
        self.buggy = ReferenceEngine(mutant(ruleset, clause, value))
        self.operations = operations

    def describe(self) -> EngineInfo:
        """The reference's facts under the bug's name."""
        info = self.reference.describe()
        return EngineInfo(
            self.name, "1", info.variant, info.options, info.operations, rulesets=Reach.ANY
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The mutant's answer where the bug lives, the reference's elsewhere."""
        if self.operations is None or operation in self.operations:
            return self.buggy.answer(operation, request)
        return self.reference.answer(operation, request)


def _planted(
    clause: str, value: Any, operations: tuple[str, ...] | None = None
) -> Callable[..., Planted]:
    """A factory of `Planted`; `value` may be a function of the variant (its wrong value)."""

    def make(variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> Planted:
        wrong = value(ruleset) if callable(value) else value
        return Planted(f"planted-{clause}", ruleset, clause, wrong, operations)

    return make


# The level card ranks in its natural place, not above A, when choosing the tribute card.
level_natural_in_tribute = _planted("ranks.level_card.position", "natural", ("tribute",))
# A sequence may run past A (JQKA2).
wrapping_sequences = _planted("sequences.wrap", True)
# An equal play beats the one on the table.
equal_beats = _planted("compare.equal_beats", True)
# A double-down is worth 2 levels.
double_down_two = _planted("levels.up.double_down", 2)
# After a double tribute each winner returns to the wrong seat: its own 下家 where the variant
# says its payer, its payer where the variant says its 下家.
wrong_return_seat = _planted(
    "tribute.return.double_to",
    lambda r: "payer" if r.value("tribute.return.double_to") == "next_seat" else "next_seat",
)
# 接風 goes to the next player still in, not to the finisher's partner.
jiefeng_next = _planted("flow.jiefeng", "next_active")
# Three firsts in a row give no extra level.
no_first_streak = _planted("levels.streak.firsts", None)
# The score leaves out the end bonus of the round that ends the match (online-app's 8: 5, A: 10).
no_end_bonus = _planted("scoring.end_bonus", {})
# Hand counts are told only when asked, never announced unasked (match-rules announces at 10).
counts_on_request = _planted(
    "disclosure.hand_count",
    lambda r: {**(r.value("disclosure.hand_count") or {"max_cards": 10}), "mode": "on_request"},
)


class NoTenCardBomb(EngineBase):
    """The reference, but it never sees a bomb of ten cards (炸彈 of 10): it drops that reading."""

    def __init__(self, variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> None:
        self.reference = ReferenceEngine(ruleset)

    def describe(self) -> EngineInfo:
        """The reference's facts under the bug's name."""
        info = self.reference.describe()
        return EngineInfo("planted-no-ten-card-bomb", "1", info.variant, info.options)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, without ten-card bombs among readings and plays."""
        output = self.reference.answer(operation, request)
        for key in ("readings", "plays"):
            if key in output:
                output[key] = [r for r in output[key] if not _ten_card_bomb(r)]
        if operation == "classify" and output.get("default") and _ten_card_bomb(output["default"]):
            output["default"] = None
        return output


def _ten_card_bomb(reading: Mapping[str, Any]) -> bool:
    return reading.get("type") == "bomb" and reading.get("size") == 10


class OneCardWildPair(Wrapped):
    """`legal_plays` lists a pair filled by the wild card (逢人配) with the wild card dropped from
    its representative cards: `pair of 7` as [S7] alone. Its readings are all right, so a
    comparison of readings passes it; only the soundness check catches it."""

    name = "planted-one-card-wild-pair"

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Each pair of a wild card and another card listed with the other card only."""
        if operation != "legal_plays":
            return output
        wild = f"H{request['level']}"
        for play in output["plays"]:
            cards = play.get("cards", [])
            if play["type"] == "pair" and wild in cards and len(set(cards)) == 2:
                play["cards"] = [c for c in cards if c != wild]
        return output


class ActorGoesOut(Wrapped):
    """`replay` reports the seat that acted as going out (出完) on every step, as an engine that
    sets `out` before it checks the hand is empty would."""

    name = "planted-actor-goes-out"

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """`out` on every step: the acting seat."""
        if operation != "replay":
            return output
        for step, action in zip(output["steps"], request["actions"], strict=False):
            step["out"] = action["seat"]
        return output


class NoPlayCards(Wrapped):
    """`legal_plays` lists readings without representative cards, and says `cards` is not
    modelled (`declare`), or does not (then each play lacking its cards is a fault)."""

    name = "no-play-cards"
    declare = True

    def describe(self) -> EngineInfo:
        """The reference's facts, `cards` declared not modelled where `declare` says so."""
        info = super().describe()
        left_out = ("cards",) if self.declare else ()
        return EngineInfo(
            self.name, "1", info.variant, info.options, info.operations, left_out, Reach.ANY
        )

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Every play without its cards."""
        if operation == "legal_plays":
            plays = output["plays"]
            output["plays"] = [{k: v for k, v in p.items() if k != "cards"} for p in plays]
        return output


class NoPlayCardsUndeclared(NoPlayCards):
    """`NoPlayCards` that does not say `cards` is not modelled."""

    name = "no-play-cards-undeclared"
    declare = False
