"""Engines modelled on bugs seen in real public engines (真實錯誤): each is the reference with one
wrapper where the real engine went wrong, and none of the wrappers is a clause value, except
`ManyClauses`, which plays several changed clause values and is slow, like a real server.

Modelled on issue 22's field report: a wild card never reaching A in a sequence; an 8-card
"tube" accepted through an aliasing bug; a lone wild card read as any of 13 ranks; a finish
answered in the grouped form the case README documents.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from harness.engine import EngineBase, EngineInfo, Json, Reach, ReferenceEngine
from harness.model.mutants import mutate
from harness.model.ruleset import Ruleset

ORDER = "23456789TJQKA"
SEQUENCES = frozenset({"straight", "straight_flush", "tube", "plate"})


class Wrapped(EngineBase):
    """The reference on the variant asked for, under another name; `fix` changes an answer."""

    name = "wrapped"

    def __init__(self, variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> None:
        self.reference = ReferenceEngine(ruleset)

    def describe(self) -> EngineInfo:
        """The reference's facts under the bug's name."""
        info = self.reference.describe()
        return EngineInfo(
            self.name, "1", info.variant, info.options, info.operations, rulesets=Reach.ANY
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The reference's answer, then the bug."""
        return self.fix(operation, request, self.reference.answer(operation, request))

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """The bug (none here)."""
        return output


def _wild(request: Mapping[str, Any]) -> str:
    return f"H{request.get('level')}"


def _readings(output: Json, keep: Any) -> Json:
    """`output` with the readings `keep` refuses dropped, its default cleared if dropped."""
    output["readings"] = [r for r in output["readings"] if keep(r)]
    default = output.get("default")
    if default is not None and not keep(default):
        output["default"] = output["readings"][0] if len(output["readings"]) == 1 else None
    return output


class WildNeverToAce(Wrapped):
    """逢人配 in a sequence never reaches A: with a wild card among the cards, no straight,
    straight flush, tube or plate up to A is read, whatever the wild card stands for. No clause
    value says so: `sequences.ace_high` is about natural sequences too, which this engine reads
    right (TJQKA is a straight)."""

    name = "wild-never-to-ace"

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Drop the A-topped sequence readings of a set holding a wild card."""
        if operation != "classify" or _wild(request) not in request.get("cards", ()):
            return output
        return _readings(output, lambda r: not (r["type"] in SEQUENCES and r["rank"] == "A"))


class EightCardTube(Wrapped):
    """Four natural consecutive pairs (33445566) read as a tube (鋼板 of 8): a tube is three
    pairs, and no clause value makes it four while keeping three."""

    name = "eight-card-tube"

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Add the 8-card tube reading."""
        cards = list(request.get("cards", ()))
        if operation != "classify" or len(cards) != 8 or _wild(request) in cards:
            return output
        ranks = [c[1] for c in cards if len(c) == 2 and c[0] in "SHCD"]
        counts = {r: ranks.count(r) for r in ranks}
        if len(ranks) != 8 or sorted(counts.values()) != [2, 2, 2, 2]:
            return output
        at = sorted(ORDER.index(r) for r in counts)
        if at != list(range(at[0], at[0] + 4)):
            return output
        tube = {"type": "tube", "rank": ORDER[at[-1]], "size": 8}
        output["readings"] = [*output["readings"], tube]
        output["default"] = tube if len(output["readings"]) == 1 else output.get("default")
        return output


class LoneWildAnyRank(Wrapped):
    """The heart level card alone read as a single of any of the 13 ranks: a wild card fills a
    combination, but alone it is the level card, one single."""

    name = "lone-wild-any-rank"

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Thirteen singles for a lone wild card."""
        if operation == "classify" and list(request.get("cards", ())) == [_wild(request)]:
            output["readings"] = [{"type": "single", "rank": r, "size": 1} for r in ORDER]
            output["default"] = None
        return output


class GroupedFinish(Wrapped):
    """A correct engine that answers a double-down's finish grouped (`[0, 2, [1, 3]]`, the two
    seats that never went out as a set), the form the case README documents."""

    name = "grouped-finish"
    grouped = 0
    """How many finishes this process's engines have answered grouped (so a test knows it
    saw some)."""

    def fix(self, operation: str, request: Mapping[str, Any], output: Json) -> Json:
        """Group the last two places of a double-down, when neither of them went out (where a
        double-down does not end the round, they play on and go out in order)."""
        went_out = {step["out"] for step in output.get("steps", ()) if "out" in step}
        finish = output.get("finish") or []
        if (
            operation == "replay"
            and output.get("double_down")
            and len(finish) == 4
            and not went_out & set(finish[2:])
        ):
            first, second, *rest = finish
            output["finish"] = [first, second, sorted(rest)]
            GroupedFinish.grouped += 1
        return output


class OtherRules(EngineBase):
    """The reference on rules of its own (`played`), under the name of the variant asked for."""

    name = "other-rules"

    def __init__(self, variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> None:
        self.asked = ruleset
        self.engine = ReferenceEngine(self.played(ruleset))

    def played(self, ruleset: Ruleset) -> Ruleset:
        """The rules this engine really plays when asked for `ruleset` (here, the same)."""
        return ruleset

    def describe(self) -> EngineInfo:
        """The variant asked for, under its own name."""
        return EngineInfo(
            self.name, "1", self.asked.slug, dict(self.asked.chosen), rulesets=Reach.ANY
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The answer of the rules it really plays."""
        return self.engine.answer(operation, request)


class WrapUnread(OtherRules):
    """The reference, except that `sequences.wrap` is never read: sequences never wrap (順子不
    能繞, no Q-K-A-2-3) even on a variant that says they do, as an engine whose config loader
    drops a key it does not know. Only a variant with wrapping (one derived for cases, here)
    shows it, so only that variant's own mutants can explain it."""

    name = "wrap-unread"

    def played(self, ruleset: Ruleset) -> Ruleset:
        """The rules without wrapping."""
        if not ruleset.value("sequences.wrap"):
            return ruleset
        played = mutate(ruleset, "sequences.wrap", False)
        assert played is not None, f"sequences.wrap = false is not valid for {ruleset.slug}"
        return played


# Several clause values changed at once, as a real engine plays its own rules: 接風 to the next
# player, an equal play beating, a double-down worth one level less, and the return after a
# double tribute to the payer.
MANY: dict[str, Any] = {
    "flow.jiefeng": "next_active",
    "compare.equal_beats": True,
    "levels.up.double_down": 2,
    "tribute.return.double_to": "payer",
}
DELAY = 0.002
"""Seconds over every answer (a server a little slow, as real ones are)."""


class ManyClauses(OtherRules):
    """The reference on huaian with the clause values of `MANY`, a few ms per answer."""

    name = "many-clauses"
    values: Mapping[str, Any] = MANY
    """The clause values it plays."""

    def played(self, ruleset: Ruleset) -> Ruleset:
        """The rules with every clause value of `values`."""
        played: Ruleset | None = ruleset
        for clause, value in self.values.items():
            assert played is not None
            if played.value(clause) != value:
                played = mutate(played, clause, value)
        assert played is not None, f"{self.values} is not valid for {ruleset.slug}"
        return played

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The changed rules' answer, a little later."""
        time.sleep(DELAY)
        return super().answer(operation, request)


class ManyFailures(ManyClauses):
    """A load for the explainer: the values of `MANY` and three more (the level card in its
    natural place, no sequence up to A, the first out leading after a single tribute), and two
    bugs no clause value explains: `legal_actions` leaves out the first action it lists, and
    `legal_plays` lists each play of several cards without its first card. It fails about
    1,300 cases of the corpus on the four bundled variants, a fifth of them legal_actions."""

    name = "many-failures"
    values: Mapping[str, Any] = {
        **MANY,
        "ranks.level_card.position": "natural",
        "sequences.ace_high": False,
        "tribute.lead.single": "first",
    }

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The changed rules' answer, at once, with the two bugs."""
        output = self.engine.answer(operation, request)
        if operation == "legal_actions":
            output["actions"] = output["actions"][1:]
        elif operation == "legal_plays":
            for play in output["plays"]:
                if len(play.get("cards", ())) > 1:
                    play["cards"] = play["cards"][1:]
        return output
