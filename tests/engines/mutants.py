"""Engines that are the reference with one clause value changed (變異引擎): on the variant and
options they are started for, that clause set to the value named in `MUTANTS`. Started for the
named variant, the engine is that variant's mutant, which `guandan fingerprint` must recover
exactly; started for the inferred variant file, it is that file's rules. Each is a module
attribute, so `py:tests.engines.mutants:NAME` loads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.engine import EngineBase, EngineInfo, Json, Reach, ReferenceEngine
from harness.model.mutants import mutate
from harness.model.ruleset import Ruleset

# name: (variant, clause, value). Across families: levels, sequences, tribute, compare, flow,
# ranks, disclosure, scoring, wild, finish, bombs.
MUTANTS: dict[str, tuple[str, str, Any]] = {
    "double_down_two": ("huaian", "levels.up.double_down", 2),
    "wrapping": ("huaian", "sequences.wrap", True),
    "return_to_payer": ("huaian", "tribute.return.double_to", "payer"),
    "equal_beats": ("competition", "compare.equal_beats", True),
    "jiefeng_next": ("match-rules", "flow.jiefeng", "next_active"),
    "no_first_streak": ("online-app", "levels.streak.firsts", None),
    "level_card_natural": ("huaian", "ranks.level_card.position", "natural"),
    "counts_at_seven": (
        "competition",
        "disclosure.hand_count",
        {"max_cards": 7, "mode": "on_request"},
    ),
    "no_bonus_at_ace": ("online-app", "scoring.end_bonus", {"8": 5}),
    "wild_needs_nothing": ("huaian", "wild.needs_natural_card", False),
    "anti_with_one_joker": ("huaian", "tribute.anti.big_jokers", 1),
    "first_and_fourth_none": ("match-rules", "levels.up.first_and_fourth", 0),
}


class MutantEngine(EngineBase):
    """The reference on a fixed mutant, describing itself as the variant it was started for."""

    def __init__(self, name: str, asked: Ruleset) -> None:
        _, clause, value = MUTANTS[name]
        played = asked if asked.value(clause) == value else mutate(asked, clause, value)
        assert played is not None, f"{name}: {clause}={value!r} is not valid for {asked.slug}"
        self.name = name
        self.asked = asked
        self.engine = ReferenceEngine(played)

    def describe(self) -> EngineInfo:
        """The variant asked for, under the mutant's name."""
        return EngineInfo(
            f"mutant-{self.name}",
            "1",
            self.asked.slug,
            dict(self.asked.chosen),
            rulesets=Reach.ANY,
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The mutant's answer."""
        return self.engine.answer(operation, request)


def _factory(name: str) -> Callable[..., MutantEngine]:
    def make(variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> MutantEngine:
        return MutantEngine(name, ruleset)

    return make


for _name in MUTANTS:
    globals()[_name] = _factory(_name)
