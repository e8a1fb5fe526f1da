"""Whether a round allows an action, as a yes or no: the tests' short form of
`RoundState.verify`, which no engine operation needs (a replay reports the refusing clause)."""

from __future__ import annotations

from harness.errors import IllegalAction
from harness.interpreter.round import Action, AskAction, RoundState


def can(state: RoundState, action: Action | AskAction) -> bool:
    """Whether `action` is allowed in `state` now."""
    try:
        state.verify(action)
    except IllegalAction:
        return False
    return True
