"""Soundness of a listing (健全性): every play a `legal_plays` answer lists, and every action a
`legal_actions` answer lists, must be cards from the hand that make the reading given (and beat
`previous`, when following). The judge checks it whatever the engine and whatever the case
expects, since a case compares readings only and cannot say which cards an engine will choose.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from harness.errors import HarnessError
from harness.interpreter.classify import rules_classification
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import Card, parse_card, parse_hand, parse_rank
from harness.model.ruleset import Ruleset

Soundness = Callable[[Any], list[str]]
"""What is unsound in an engine's answer, one line per fault (empty: sound)."""

# A mapping, a dict tried first: it is what answers hold, and the abstract class's own check
# costs more than the rest of a reading's.
_OBJECT = (dict, Mapping)

# Sequences' and bombs' sizes vary, so their size is part of their name.
_FIXED_SIZE = frozenset({"single", "pair", "triple", "full_house", "joker_bomb"})


def soundness(
    operation: str, data: Mapping[str, Any], ruleset: Ruleset, not_modelled: Collection[str] = ()
) -> Soundness | None:
    """The soundness check of an answer to `operation` on `data` under `ruleset`, or None where
    there is none: another operation, or an input the reference refuses (nothing to hold an
    answer to). Fields in `not_modelled` are not required and not checked."""
    if operation not in ("legal_plays", "legal_actions"):
        return None
    try:
        hand = parse_hand([str(c) for c in data["hand"]])
        rules = play_rules(ruleset, parse_rank(str(data["level"])))
        raw = data.get("previous")
        previous = None if raw is None else Reading.from_json(dict(raw))
    except (HarnessError, KeyError, TypeError, ValueError):
        return None
    listing = _Listing(Counter(c.code for c in hand), rules, previous, frozenset(not_modelled))
    return listing.plays if operation == "legal_plays" else listing.actions


def name(reading: Mapping[str, Any]) -> str:
    """A reading in a few words: `pair of 2`, `straight of 7 (5 cards)`."""
    kind = str(reading.get("type", "?"))
    words = f"{kind.replace('_', ' ')} of {reading.get('rank', '?')}"
    return words if kind in _FIXED_SIZE else f"{words} ({reading.get('size', '?')} cards)"


def _codes(cards: Sequence[Any]) -> str:
    return "[" + ", ".join(str(c) for c in cards) + "]"


class _Listing:
    """The hand, rules and play to beat that an answer's plays and actions are held to."""

    def __init__(
        self,
        hand: Counter[str],
        rules: PlayRules,
        previous: Reading | None,
        not_modelled: frozenset[str],
    ) -> None:
        self.hand = hand
        self.rules = rules
        self.previous = previous
        self.not_modelled = not_modelled
        # A long listing names the same cards and readings many times: each is parsed once.
        self.cards: dict[str, tuple[Card, str]] = {}
        self.readings: dict[tuple[Any, ...], Reading] = {}

    def _card(self, token: Any) -> tuple[Card, str]:
        """The card `token` names, and its canonical code; HarnessError if it is none."""
        text = str(token)
        if text not in self.cards:
            card = parse_card(text)
            self.cards[text] = (card, card.code)
        return self.cards[text]

    def _reading(self, raw: Mapping[str, Any]) -> Reading:
        """`raw` as a Reading; HarnessError if it is none."""
        key = (raw.get("type"), raw.get("rank"), raw.get("size"), type(raw.get("size")))
        if key not in self.readings:
            self.readings[key] = Reading.from_json(dict(raw))
        return self.readings[key]

    def plays(self, answer: Any) -> list[str]:
        """Each listed play's faults: its cards not from the hand, or not making its reading,
        or its reading not beating `previous`."""
        faults: list[str] = []
        for i, play in enumerate(self._items(answer, "plays")):
            if "cards" in self.not_modelled:
                fault = self._beats(play)
                if fault is not None:
                    faults.append(f"plays[{i}]: {fault}")
            elif "cards" not in play:
                faults.append(f"plays[{i}]: {name(play)} carries no cards")
            else:
                faults += self._readings("plays", i, play["cards"], [play])
        return faults

    def actions(self, answer: Any) -> list[str]:
        """Each listed action's faults: its cards not from the hand, or a reading the cards do
        not make or that does not beat `previous`."""
        faults: list[str] = []
        for i, action in enumerate(self._items(answer, "actions")):
            readings = action.get("readings")
            if "readings" in self.not_modelled or not isinstance(readings, list):
                readings = []
            if "cards" in self.not_modelled or not isinstance(action.get("cards"), list):
                for j, reading in enumerate(readings):
                    fault = self._beats(reading)
                    if fault is not None:
                        faults.append(f"actions[{i}].readings[{j}]: {fault}")
                continue
            faults += self._readings("actions", i, action["cards"], readings, "readings")
        return faults

    def _items(self, answer: Any, key: str) -> list[Mapping[str, Any]]:
        """The answer's list under `key`, its objects only (the schema check, not this one,
        refuses the rest), or none when the engine does not model it."""
        if key in self.not_modelled or not isinstance(answer, Mapping):
            return []
        items = answer.get(key)
        if not isinstance(items, list):
            return []
        return [x for x in items if isinstance(x, _OBJECT)]

    def _readings(
        self, items: str, i: int, raw: Any, readings: Sequence[Any], key: str | None = None
    ) -> list[str]:
        """The faults of `readings` declared for the cards `raw` of item `i` of the answer's
        list `items`: cards not from the hand first (nothing else is worth saying of them), then
        each reading they do not make or that does not beat `previous`; `key` names the
        readings' list in the messages, if it is one. Where a fault is, is worked out only for a
        fault: a long answer has none."""
        parsed: list[tuple[Card, str]] | None = None
        if isinstance(raw, list):
            try:
                parsed = [self.cards[c] for c in raw]  # the tokens seen before: most of them
            except (KeyError, TypeError):
                with contextlib.suppress(HarnessError):  # not cards: said below
                    parsed = [self._card(c) for c in raw]
        if parsed is None:
            return [f"{items}[{i}]: {raw!r} is not a list of cards"]
        held: dict[str, int] = {}  # a Counter, at a fraction of its cost for a few cards
        for _, code in parsed:
            held[code] = held.get(code, 0) + 1
        if any(n > self.hand[code] for code, n in held.items()):
            return [f"{items}[{i}]: cards {_codes(raw)} are not in the hand"]
        made = rules_classification([card for card, _ in parsed], self.rules).readings
        faults: list[str] = []
        for j, reading in enumerate(readings):
            if not isinstance(reading, _OBJECT):
                continue
            try:
                declared = self._reading(reading)
            except HarnessError:
                fault: str | None = f"{reading!r} is not a reading"
            else:
                if declared not in made:
                    fault = f"cards {_codes(raw)} do not make {name(reading)}"
                else:
                    fault = self._beats(reading)
            if fault is not None:
                at = f"{items}[{i}]" if key is None else f"{items}[{i}].{key}[{j}]"
                faults.append(f"{at}: {fault}")
        return faults

    def _beats(self, reading: Any) -> str | None:
        """The fault when following and `reading` does not beat the play on the table."""
        if self.previous is None or not isinstance(reading, _OBJECT):
            return None
        try:
            declared = self._reading(reading)
        except HarnessError:
            return f"{reading!r} is not a reading"
        if self.rules.beats(declared, self.previous):
            return None
        return f"{name(reading)} does not beat {name(self.previous.to_json())}"
