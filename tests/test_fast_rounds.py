"""The fast engine's rounds (issue 52): the kernel's turns, tricks, passes, 接風, finishing
order and early end, played with the Python path's random bots through a callback, give match
logs equal to the interpreter's, byte for byte, on every bundled variant."""

from __future__ import annotations

import ctypes
import json
from collections.abc import Sequence
from typing import Any

import pytest

from harness.engine.fast.engine import encode
from harness.engine.fast.fast_bot import CARD, CODE, PythonLister, decode
from harness.engine.fast.fast_rounds import ACTOR, FastRounds, flow_table
from harness.interpreter.bots import Bot, RoundLog, play_match
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import PlayRules
from harness.interpreter.round import PassAction, RoundState
from harness.kernel import load
from harness.kernel.view import GdRoundView
from harness.model.derived import derive
from harness.model.loader import load_variant
from harness.model.seats import Finish

VARIANTS = ("huaian", "competition", "match-rules", "online-app")

kernel, _status = load()
pytestmark = pytest.mark.skipif(kernel is None, reason=f"the fast kernel is off: {_status}")


class _Seen:
    """What a Python bot sees of the kernel's round: the calls `RandomBot.act` makes."""

    def __init__(self, view: GdRoundView, rules: PlayRules) -> None:
        self.view = view
        self.rules = rules
        self.hands = tuple(
            tuple(CARD[view.hands[s][i]] for i in range(view.counts[s])) for s in range(4)
        )
        self.trick = (view.trick_owner, decode(view.trick_reading)) if view.has_trick else None

    def legal_plays(self) -> list[Any]:
        plays = HandPlays(self.hands[self.view.turn], self.rules)
        return plays.open_to(None if self.trick is None else self.trick[1])

    def may_pass(self) -> bool:
        return bool(self.view.may_pass)


def _kernel_rounds(ruleset: Any) -> Any:
    """A round player on the kernel whose actors are the match's own Python bots."""
    assert kernel is not None
    fast = FastRounds(kernel, ruleset)
    lister = PythonLister()

    def rounds(state: RoundState, bots: Sequence[Bot], log: RoundLog) -> Finish:
        lister.register(fast.table(state.rules.level), state.rules)

        def act(bot: Any, view: Any, seat: int, cards: Any, n: Any, reading: Any) -> int:
            seen = _Seen(ctypes.cast(view, ctypes.POINTER(GdRoundView)).contents, state.rules)
            action = bots[seat].act(seen, seat)  # type: ignore[arg-type]
            if isinstance(action, PassAction):
                return 0
            for i, card in enumerate(action.play.cards):
                cards[i] = CODE[card]
            n[0] = len(action.play.cards)
            reading[0] = encode(action.play.reading)
            return 1

        return fast(state, log, lister.callback, ACTOR(act), [None] * 4)

    return rounds


# The bundled variants agree on the flow (pass at will, 接風 to the partner, a double-down ends
# the round): the other values come from one-clause mutants.
FLOWS: tuple[dict[str, Any], ...] = (
    {},
    {"flow.pass": "when_unable"},
    {"flow.jiefeng": "next_active"},
    {"flow.early_end": False},
    {"flow.pass": "when_unable", "flow.jiefeng": "next_active", "flow.early_end": False},
)


def test_the_flow_table_reads_each_value() -> None:
    huaian = load_variant("huaian")
    found = {flow_table(_derived(huaian, values)) for values in FLOWS}
    assert found == {(1, 1, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0), (0, 0, 0)}


def _derived(base: Any, values: dict[str, Any]) -> Any:
    found = derive(base, values)
    assert found is not None
    return found


@pytest.mark.parametrize("values", FLOWS, ids=lambda v: ",".join(v) or "as-is")
@pytest.mark.parametrize("slug", VARIANTS)
def test_random_matches_log_as_the_interpreters(slug: str, values: dict[str, Any]) -> None:
    ruleset = _derived(load_variant(slug), values)
    for seed in (1, 2):
        expected = play_match(ruleset, seed, "random").to_json()
        found = play_match(ruleset, seed, "random", rounds=_kernel_rounds(ruleset)).to_json()
        assert json.dumps(found) == json.dumps(expected)
