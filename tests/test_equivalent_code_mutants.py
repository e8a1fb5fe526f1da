"""The reviewed equivalent code mutants of legal_actions (可出的牌組) checked, not only read: each
entry of spec/equivalent-code-mutants.yaml for harness/interpreter/actions.py that claims no
output changes is applied to a fresh copy of the module, and the copy must list the same sets
with the same readings as the real module on random hands, leading and following, under the
bundled variants and one-clause mutants of huaian."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path

import cosmic_ray.plugins
import pytest
from cosmic_ray.mutating import mutate_code
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.interpreter import actions
from harness.interpreter.classify import classify
from harness.model.cards import Card, Rank, parse_cards
from harness.model.loader import bundled_variants, load_variant
from harness.model.mutants import mutants, mutate
from harness.model.ruleset import Ruleset
from harness.strategies import card_sets, hands, levels
from tests.conftest import SLOW
from tools.mutation import equivalents

ROOT = Path(__file__).resolve().parents[1]
FILE = "harness/interpreter/actions.py"


def _rulesets() -> list[Ruleset]:
    """The bundled variants and huaian's one-clause mutants that change what a hand may play."""
    base = load_variant("huaian")
    found = list(bundled_variants())
    for m in mutants(base):
        if m.clause.startswith(("combinations.", "wild.", "ranks.", "compare.")):
            changed = mutate(base, m.clause, m.value)
            if changed is not None:
                found.append(changed)
    return found


RULESETS = _rulesets()
ENTRIES = [e for e in equivalents.load(ROOT) if e.file == FILE and e.kind == "equivalent"]


def _mutated(entry: equivalents.Equivalent) -> types.ModuleType:
    """A fresh module of actions.py with the entry's mutation applied (the real one untouched)."""
    found = equivalents.occurrence(ROOT, entry)
    if found is None:
        raise LookupError(f"no mutant of {FILE} is {entry.line!r} -> {entry.after!r}")
    operator = cosmic_ray.plugins.get_operator(entry.operator)()
    code = mutate_code((ROOT / FILE).read_text(encoding="utf-8"), operator, found)
    assert code is not None
    module = types.ModuleType(f"_mutant_of_{actions.__name__.replace('.', '_')}")
    exec(compile(code, FILE, "exec"), module.__dict__)
    return module


def _listed(function: object, *args: object) -> set[tuple[tuple[str, ...], frozenset[object]]]:
    assert callable(function)
    return {
        (tuple(sorted(c.code for c in cards)), frozenset(readings))
        for cards, readings in function(*args)
    }


def test_the_equivalents_checked_here_are_there() -> None:
    """The list holds equivalents of actions.py (else this file checks nothing)."""
    assert len(ENTRIES) >= 5
    assert {e.function for e in ENTRIES} >= {"_with_kickers", "_jokers"}


# The fast tier checks the first entry (and the wrong one below); CI checks every one.
@pytest.mark.parametrize(
    "entry",
    [
        pytest.param(e, id=f"{e.function}:{e.operator}:{e.after[:40]}", marks=SLOW if i else ())
        for i, e in enumerate(ENTRIES)
    ],
)
def test_an_equivalent_mutant_of_legal_actions_lists_the_same(
    entry: equivalents.Equivalent,
) -> None:
    """The mutant's copy agrees with legal_actions on random hands of up to 12 cards."""
    _agreement(_mutated(entry))()


def test_a_mutant_that_changes_the_sets_is_caught() -> None:
    """The same check fails on a mutant of `_with_kickers` that is not equivalent (a group
    never made of wild cards up to its size), so a wrong review would not pass it."""
    wrong = equivalents.Equivalent(
        FILE, "_with_kickers", "core/NumberReplacer", "for w in range(min(budget, size) + 1):",
        "for w in range(min(budget, size) + 0):", "not equivalent",
    )  # fmt: skip
    module = _mutated(wrong)
    with pytest.raises(AssertionError):
        _agreement(module)()


# Hands the random search reaches rarely, given to every run: both heart level cards and a pair
# of jokers, so that a triple of one natural card and two wild ones with the jokers (三帶二) is a
# set no other grouping makes (jokers take no wild card); leading, and following a full house.
_HUAIAN = [r.slug for r in RULESETS].index("huaian")
_EXAMPLES = [
    (_HUAIAN, Rank.TWO, parse_cards("S5 H2 H2 SB SB S9"), None, 0),
    (_HUAIAN, Rank.TWO, parse_cards("S5 H2 H2 SB SB DK"), parse_cards("S3 H3 C3 S4 H4"), 0),
]
_Situation = tuple[int, Rank, tuple[Card, ...], tuple[Card, ...] | None, int]


@st.composite
def _situations(draw: st.DrawFn) -> _Situation:
    """A rule set (by its index), a level, a hand, and maybe a set to follow with the index
    of the reading shown for it."""
    index = draw(st.integers(0, len(RULESETS) - 1))
    level = draw(levels())
    hand = tuple(draw(hands(level, 1, 12)))
    previous = tuple(draw(card_sets(level))) if draw(st.booleans()) else None
    return index, level, hand, previous, draw(st.integers(0, 3))


def _agreement(module: types.ModuleType) -> Callable[[], None]:
    """A property: `module.legal_actions` lists what legal_actions does, hands up to 12 cards,
    on the examples above and on random ones."""

    @settings(deadline=None, max_examples=60, database=None, report_multiple_bugs=False)
    @given(_situations())
    def agree(situation: _Situation) -> None:
        index, level, hand, cards, shown = situation
        ruleset = RULESETS[index]
        previous = None
        if cards is not None:
            found = classify(cards, level, ruleset).readings
            previous = found[shown % len(found)] if found else None
        real = _listed(actions.legal_actions, hand, level, ruleset, previous)
        assert _listed(module.legal_actions, hand, level, ruleset, previous) == real

    for each in reversed(_EXAMPLES):
        agree = example(each)(agree)
    return agree
