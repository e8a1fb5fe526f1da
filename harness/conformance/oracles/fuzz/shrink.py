"""Shrinking a replay finding (縮減): the script and the deal cut down together while the engine
still disagrees with the reference in the same way.

Hypothesis shrinks the choices a round was drawn from; on a slow engine its time runs out long
before a round of a hundred actions is short. This shrinker works on the replay input itself,
after hypothesis: it cuts the script just after the first step that differs, drops earlier
tricks and actions (a play takes its cards out of its player's hand, so the rest of the round
is the same game), then takes out of the hands the cards no action uses. A candidate is first
replayed by the reference alone, which must accept every action but the last (and answer the
last as it did), so the shrunk script stays a legal round up to the difference; only then is the
engine asked, through a `Checker` like the one that found it, and the candidate is kept when it
gives a finding of the same `probe`. Deterministic, and bounded by engine calls and seconds.

A replay's hands need not be whole (27 cards): the input schema asks for four lists of cards,
so hands are cut too, but never to nothing (a seat without cards at the start is no round).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from harness.conformance.judging.outputs import step_differences
from harness.conformance.oracles.fuzz.findings import Checker, Finding, Found
from harness.engine import EngineError, call
from harness.errors import HarnessError
from harness.model.cards import parse_hand

T = TypeVar("T")

Json = dict[str, Any]
CALLS = 400
"""Engine calls one shrink may make."""
SECONDS = 10.0
"""Seconds one shrink may take; the smallest finding by then is kept."""


def shrink_replay(
    finding: Finding, checker: Checker, calls: int = CALLS, seconds: float = SECONDS
) -> Finding:
    """`finding` (a replay) with a shorter script and smaller hands showing the same
    discrepancy (same `probe`), or `finding` itself where nothing smaller does."""
    if finding.operation != "replay" or not isinstance(finding.input.get("actions"), list):
        return finding
    shrinker = _Shrinker(finding, checker, calls, time.perf_counter() + seconds)
    shrinker.cut_after_difference()
    while not shrinker.spent():
        before = shrinker.best.size()
        shrinker.drop_actions()
        shrinker.drop_cards()
        if shrinker.best.size() >= before:
            break
    return shrinker.best


class _Shrinker:
    """One shrink: the smallest finding so far, and what may still be spent on it."""

    def __init__(self, finding: Finding, checker: Checker, calls: int, until: float) -> None:
        self.best = finding
        self.probe = finding.probe
        self.not_modelled = checker.not_modelled
        # A checker of its own: the shrink's questions are not examples of the run.
        self.asker = Checker(
            checker.engine, checker.reference, checker.not_modelled, checker.operations
        )
        self.calls = calls
        self.until = until
        self.last = _last_step(finding.expected)

    def spent(self) -> bool:
        """Whether the engine calls or the time are used up."""
        return self.calls <= 0 or time.perf_counter() >= self.until

    def attempt(self, data: Json) -> bool:
        """Keep `data` if it is a legal round up to its last action (by the reference alone)
        on which the engine still differs in the same way."""
        if self.spent() or not _hands_valid(data) or not self._same_round(data):
            return False
        self.calls -= 1
        try:
            self.asker.check("replay", data)
        except Found as found:
            if found.finding.probe == self.probe:
                self.best = found.finding
                return True
        return False

    def _same_round(self, data: Json) -> bool:
        """Whether the reference plays every action of `data`, accepting all but the last, and
        answers the last as it answered the finding's (legal, or refused by the same rule)."""
        try:
            out = call(self.asker.reference, "replay", data)
        except EngineError:
            return False
        steps = out.get("steps") or []
        if len(steps) != len(data["actions"]) or not all(s.get("legal") for s in steps[:-1]):
            return False
        return self.last is None or _last_step(out) == self.last

    def cut_after_difference(self) -> None:
        """Cut the script just after the first differing step, where that still shows it (the
        reference replays a script that stops mid-round: `over` false, `finish` null)."""
        actions = self.best.input["actions"]
        at = _first_difference(self.best, self.not_modelled)
        if at is not None and at + 1 < len(actions):
            self.last = _last_step({"steps": self.best.expected["steps"][: at + 1]})
            if not self.attempt({**self.best.input, "actions": actions[: at + 1]}):
                self.last = _last_step(self.best.expected)

    def drop_actions(self) -> None:
        """Drop earlier tricks (halves, then quarters, ... then one at a time), then single
        actions, where the rest stays a legal round showing the same difference; never the
        last action (where the difference shows)."""
        for level in ("tricks", "actions"):
            last = len(self.best.input["actions"]) - 1
            if level == "tricks":
                units = [u for u in _tricks(self.best) if last not in u]
            else:
                units = [[i] for i in range(last)]
            self.remove_chunks(
                units,
                lambda chunk: self.attempt(
                    _without(self.best.input, {a for u in chunk for a in u})
                ),
                lambda rest, chunk: _renumber(rest, {a for u in chunk for a in u}),
            )

    def drop_cards(self) -> None:
        """Take out of each hand the cards no action plays, keeping one unplayed card where the
        seat does not go out (so that who goes out, and when, stays as it was): every seat at
        once, then half of a seat's spare cards at a time, seat by seat."""
        spares = [_spare(self.best.input, s)[1:] for s in range(4)]
        if any(spares) and self.attempt(_drop(self.best.input, spares)):
            return
        for seat in range(4):

            def without(chunk: list[str], seat: int = seat) -> bool:
                drop: list[list[str]] = [[] for _ in range(4)]
                drop[seat] = chunk
                return self.attempt(_drop(self.best.input, drop))

            self.remove_chunks(_spare(self.best.input, seat)[1:], without, whole=True)

    def remove_chunks(
        self,
        items: list[T],
        attempt: Callable[[list[T]], bool],
        after: Callable[[list[T], list[T]], list[T]] | None = None,
        whole: bool = False,
    ) -> None:
        """Take out chunks of `items` while the finding still shows: halves first (or, `whole`,
        all of them first), then quarters, down to one at a time (`attempt(chunk)` tries the
        finding without a chunk and keeps it if it still shows; `after(rest, chunk)` renames
        what is left)."""
        size = max(1, len(items) if whole else len(items) // 2)
        while items and not self.spent():
            i, progressed = 0, False
            while i < len(items) and not self.spent():
                chunk = items[i : i + size]
                if attempt(chunk):
                    rest = items[:i] + items[i + size :]
                    items = after(rest, chunk) if after is not None else rest
                    progressed = True
                else:
                    i += size
            if not progressed:
                if size == 1:
                    break
                size = max(1, size // 2)


def _last_step(expected: Json) -> tuple[bool, str | None] | None:
    """The reference's answer to a script's last action: its legality and rule."""
    steps = expected.get("steps") or []
    if not steps:
        return None
    return bool(steps[-1].get("legal")), steps[-1].get("rule")


def _hands_valid(data: Json) -> bool:
    """Four hands, none empty, of cards two decks can deal."""
    hands = data["hands"]
    if len(hands) != 4 or not all(hands):
        return False
    try:
        parse_hand([c for h in hands for c in h])
    except HarnessError:
        return False
    return True


def _first_difference(finding: Finding, not_modelled: Sequence[str]) -> int | None:
    """The index of the first step where the engine's answer differs, or None."""
    got = (finding.actual or {}).get("steps")
    if not isinstance(got, list):
        return None
    for i, want in enumerate(finding.expected.get("steps", [])):
        if i >= len(got) or step_differences(want, got[i], not_modelled):
            return i
    return None


def _without(data: Json, removed: set[int]) -> Json:
    """`data` without the actions at `removed`, each removed play's cards taken out of its
    player's hand; where the first turn action goes, the first one left leads."""
    actions = data["actions"]
    hands = [list(h) for h in data["hands"]]
    for i in sorted(removed):
        action = actions[i]
        for code in action.get("cards") or ():
            if code in hands[action["seat"]]:
                hands[action["seat"]].remove(code)
    kept = [a for i, a in enumerate(actions) if i not in removed]
    leader = data["leader"]
    turns = [i for i, a in enumerate(actions) if "ask" not in a]
    if turns and turns[0] in removed:
        first = next((a for a in kept if "ask" not in a), None)
        if first is not None:
            leader = first["seat"]
    return {**data, "hands": hands, "leader": leader, "actions": kept}


def _tricks(finding: Finding) -> list[list[int]]:
    """The script's actions in units that can go together: each ask alone, and the turn
    actions of each trick (a trick ends where the reference names who leads next)."""
    units: list[list[int]] = []
    trick: list[int] = []
    steps = finding.expected.get("steps", [])
    for i, (action, step) in enumerate(zip(finding.input["actions"], steps, strict=False)):
        if "ask" in action:
            units.append([i])
            continue
        trick.append(i)
        if "lead" in step:
            units.append(trick)
            trick = []
    if trick:
        units.append(trick)
    return units


def _renumber(units: list[list[int]], removed: set[int]) -> list[list[int]]:
    """Action indices after the actions at `removed` are gone."""
    return [[a - sum(1 for g in removed if g < a) for a in u] for u in units]


def _spare(data: Json, seat: int) -> list[str]:
    """The cards of `seat` that no action plays, least telling first."""
    played: Counter[str] = Counter()
    for action in data["actions"]:
        if "ask" not in action and action.get("seat") == seat:
            played.update(action.get("cards") or ())
    left = Counter(data["hands"][seat]) - played
    level = str(data["level"])
    return sorted(left.elements(), key=lambda code: _weight(code, level))


def _drop(data: Json, drops: Sequence[Sequence[str]]) -> Json:
    """`data` with the cards `drops[seat]` taken out of each seat's hand."""
    hands = [list(h) for h in data["hands"]]
    for seat, cards in enumerate(drops):
        for code in cards:
            hands[seat].remove(code)
    return {**data, "hands": hands}


_ORDER = "23456789TJQKA"


def _weight(code: str, level: str) -> tuple[int, int, str]:
    """An order of cards from the least to the most telling: plain low cards first, then the
    level's cards, then jokers (the card kept in a hand should change no choice)."""
    rank = parse_hand([code])[0].rank
    if rank.is_joker:
        return (2, 0, code)
    if rank.value == level:
        return (1, 0, code)
    return (0, _ORDER.index(rank.value) if rank.value in _ORDER else 0, code)
