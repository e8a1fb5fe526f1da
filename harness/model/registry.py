"""The clause registry (條款登記): which code applies each clause id, and which of its values.

A clause id is a key in code. Every function that applies a clause declares it with
`@implements("tribute.return.max_rank")`, naming the values it implements where that is not every
value the schema allows; clauses that only inform people (time limits, table conduct) are listed
in `INFORMATIONAL` with the reason. `seal()` checks, once the interpreter is imported, that every
clause of the schema is one or the other and that every id the code names exists. The loader then
refuses a value no implementation covers, so that no clause value is accepted and ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from harness.errors import RegistryError
from harness.model._schemas import clause_specs

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Values:
    """The values of a clause that an implementation covers: all, a list, or those a test passes.

    `test(value)` returns None for a covered value and a short reason otherwise; `description`
    says in words which values are covered, for error messages and the docs.
    """

    allowed: tuple[Any, ...] | None = None
    test: Callable[[Any], str | None] | None = None
    description: str = "every value the schema allows"

    def refusal(self, value: Any) -> str | None:
        """None when `value` is covered, else why not."""
        if self.allowed is not None and not any(_same(value, a) for a in self.allowed):
            return "not among the implemented values"
        if self.test is not None:
            return self.test(value)
        return None

    @property
    def every(self) -> bool:
        """Whether every value the schema allows is covered."""
        return self.allowed is None and self.test is None


ALL = Values()
"""Every value the schema allows."""


def only(*values: Any) -> Values:
    """Exactly these values."""
    return Values(allowed=values, description=", ".join(_shown(v) for v in values))


def where(test: Callable[[Any], str | None], description: str) -> Values:
    """The values `test` passes (it returns None for them, a reason for the others)."""
    return Values(test=test, description=description)


def _same(a: Any, b: Any) -> bool:
    # true == 1 in Python; a clause value of `true` is not the number 1.
    return type(a) is type(b) and bool(a == b)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Implementation:
    """One function that applies a clause, and the values of it that the function implements."""

    clause: str
    function: str
    values: Values


_IMPLEMENTATIONS: dict[str, list[Implementation]] = {}
_VERDICTS: set[str] = set()
_sealed = False


def implements(*clause_ids: str, values: Values = ALL) -> Callable[[F], F]:
    """Declare that the decorated function applies these clauses, for `values` of each."""

    def register(function: F) -> F:
        name = f"{function.__module__}.{function.__qualname__}"
        for clause_id in clause_ids:
            entry = Implementation(clause_id, name, values)
            _IMPLEMENTATIONS.setdefault(clause_id, []).append(entry)
        return function

    return register


def verdict(clause_id: str) -> str:
    """Declare a clause id that a refused action (IllegalAction) may name; returns the id."""
    _VERDICTS.add(clause_id)
    return clause_id


INFORMATIONAL: dict[str, str] = {
    "deal.shuffler": "Who shuffles changes no deal that can be dealt; the simulator deals at "
    "random.",
    "deal.cutter": "Who cuts changes no deal that can be dealt; the simulator deals at random.",
    "deal.first_drawer": "Who draws first changes no deal that can be dealt.",
    "deal.first_drawer_double_down": "Who draws first changes no deal that can be dealt.",
    "deal.min_shuffles": "How often the cards are shuffled is table procedure.",
    "disclosure.misreport": "The penalty for telling a wrong count needs a wrong count, which "
    "no engine operation tells.",
    "timing.first_play_seconds": "A time limit is for the table or the app's clock; no operation "
    "has time in it.",
    "timing.play_seconds": "A time limit is for the table or the app's clock; no operation has "
    "time in it.",
    "match.time_limit_winner": "A match stopped by time is decided by the organiser's clock.",
    "conduct.no_signals": "Table conduct between people; no operation can see it.",
    "conduct.hands_concealed": "Table conduct between people; no operation can see it.",
    "deal.first_round": "How the first round's dealing order is decided changes no deal that "
    "can be dealt; a replay is given its deal and its leader.",
}
"""Clauses that inform people but that no code applies (prose only), with the reason."""


def seal() -> None:
    """Check the registry against the schema; called once the interpreter has been imported."""
    global _sealed
    known = set(clause_specs())
    problems: list[str] = []
    for clause_id in sorted(set(_IMPLEMENTATIONS) | set(INFORMATIONAL) | _VERDICTS):
        if clause_id not in known:
            problems.append(f"{clause_id!r} is named by the code but is no clause of the schema")
    for clause_id in known:
        implemented = clause_id in _IMPLEMENTATIONS
        informational = clause_id in INFORMATIONAL
        if not implemented and not informational:
            problems.append(f"{clause_id} is neither implemented nor declared informational")
        if implemented and informational:
            problems.append(f"{clause_id} is both implemented and declared informational")
    if problems:
        raise RegistryError(
            "the clause registry disagrees with the schema:\n" + "\n".join(problems)
        )
    _sealed = True


def _require_sealed() -> None:
    if not _sealed:
        raise RegistryError(
            "the clause registry is not filled yet: it is filled when harness.interpreter is "
            "imported (importing harness does it)"
        )


def implementations(clause_id: str) -> tuple[Implementation, ...]:
    """The functions that apply `clause_id` (empty for an informational clause)."""
    _require_sealed()
    return tuple(_IMPLEMENTATIONS.get(clause_id, ()))


def informational_reason(clause_id: str) -> str | None:
    """Why `clause_id` is prose only, or None when code applies it."""
    return INFORMATIONAL.get(clause_id)


def verdict_ids() -> frozenset[str]:
    """Every clause id a refused action may name."""
    _require_sealed()
    return frozenset(_VERDICTS)


def implemented_values(clause_id: str) -> str:
    """In words, the values of `clause_id` every implementation covers."""
    _require_sealed()
    parts = [
        i.values.description for i in _IMPLEMENTATIONS.get(clause_id, ()) if not i.values.every
    ]
    return "; ".join(dict.fromkeys(parts)) or ALL.description


def refusal(clause_id: str, value: Any) -> str | None:
    """None when the reference interpreter implements `value` for `clause_id`, else a message."""
    _require_sealed()
    if clause_id in INFORMATIONAL:
        return None
    for entry in _IMPLEMENTATIONS.get(clause_id, ()):
        reason = entry.values.refusal(value)
        if reason is not None:
            why = f": {reason}" if entry.values.test is not None else ""
            return (
                f"value {_shown(value)} is not implemented by the reference interpreter "
                f"(implemented: {implemented_values(clause_id)}){why}"
            )
    return None


def all_implementations() -> Iterable[Implementation]:
    """Every (clause, function) pair, in registration order."""
    _require_sealed()
    for entries in _IMPLEMENTATIONS.values():
        yield from entries
