"""Engines for impossible input (不可能的輸入).

`Unvalidated` is modelled on real engines that trust their caller and never validate: it reads
cards one by one without checking that two decks hold them, so three S5 classify as three 5s
(here: the reference asked about the cards with each copy past the second moved to another
suit of its rank). It plays classify, beats and legal_plays only, as such engines often start.
`ClassifyOnly` is a correct engine that implements classify alone: its impossible-input cases
of other operations are `unsupported`, never blamed on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from harness.engine import EngineBase, EngineInfo, Json, ReferenceEngine
from harness.errors import Unsupported
from harness.model.ruleset import Ruleset

SUITS = "SHCD"


def within_two_decks(cards: list[str]) -> list[str]:
    """`cards` with each copy past the second moved to another suit of its rank (a joker past
    the second is dropped): what an engine that never counts copies ends up reading."""
    seen: Counter[str] = Counter()
    kept: list[str] = []
    for card in cards:
        if seen[card] >= 2 and len(card) == 2 and card not in ("SB", "HR"):
            card = next((s + card[1] for s in SUITS if seen[s + card[1]] < 2), card)
        if seen[card] < 2:
            kept.append(card)
            seen[card] += 1
    return kept


class _Subset(EngineBase):
    """The reference on the variant asked for, answering only `OPERATIONS`."""

    NAME = "subset"
    OPERATIONS: tuple[str, ...] = ("classify",)

    def __init__(self, variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> None:
        self.reference = ReferenceEngine(ruleset)

    def describe(self) -> EngineInfo:
        """The reference's facts under this engine's name and operations."""
        info = self.reference.describe()
        return EngineInfo(self.NAME, "1", info.variant, info.options, self.OPERATIONS)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The reference's answer for an operation played, `unsupported` for the others."""
        if operation not in self.OPERATIONS:
            raise Unsupported(operation)
        return self.reference.answer(operation, self.read(operation, request))

    def read(self, operation: str, request: Mapping[str, Any]) -> Mapping[str, Any]:
        """The request as the engine reads it (as sent, here)."""
        return request


class ClassifyOnly(_Subset):
    """A correct engine that implements classify alone."""

    NAME = "classify-only"


class Unvalidated(_Subset):
    """Never checks that two decks hold the cards it is asked to classify."""

    NAME = "unvalidated"
    OPERATIONS = ("classify", "beats", "legal_plays")

    def read(self, operation: str, request: Mapping[str, Any]) -> Mapping[str, Any]:
        """A classify's cards as read without counting copies."""
        if operation == "classify":
            return {**request, "cards": within_two_decks(list(request["cards"]))}
        return request
