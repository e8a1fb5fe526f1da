"""Clause declarations (條款聲明): `@implements` marks a function with the clauses it applies.

The mark is an attribute of the function and nothing else: importing a module that declares
clauses changes no state outside it. The clause registry (`harness.model.registry`) reads the
marks of a fixed list of modules when it is built. This module imports nothing else from the
package, so that the card notation can declare its clauses without loading the schemas.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# The attribute `@implements` sets on a function: a tuple of Implementation, in declaration order.
_MARK = "__implements__"


@dataclass(frozen=True)
class Values:
    """The values of a clause (條款值) that an implementation covers: all, a list, or a test's.

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
"""Every value the schema allows (全部值)."""


def only(*values: Any) -> Values:
    """Exactly these values (僅此值)."""
    return Values(allowed=values, description=", ".join(shown(v) for v in values))


def where(test: Callable[[Any], str | None], description: str) -> Values:
    """The values `test` passes (條件值): it returns None for them, a reason for the others."""
    return Values(test=test, description=description)


def _same(a: Any, b: Any) -> bool:
    # true == 1 in Python; a clause value of `true` is not the number 1.
    return type(a) is type(b) and bool(a == b)


def shown(value: Any) -> str:
    """A clause value as messages show it (顯示): its JSON, cut at 80 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Implementation:
    """One function that applies a clause (條款實現), and the values of it the function covers."""

    clause: str
    function: str
    values: Values


def implements(*clause_ids: str, values: Values = ALL) -> Callable[[F], F]:
    """Mark the decorated function as applying these clauses (實現條款), for `values` of each."""

    def mark(function: F) -> F:
        name = f"{function.__module__}.{function.__qualname__}"
        # Stacked marks add up; a wrapper made with functools.wraps copies the inner's marks.
        earlier: tuple[Implementation, ...] = getattr(function, _MARK, ())
        entries = tuple(Implementation(clause_id, name, values) for clause_id in clause_ids)
        setattr(function, _MARK, (*earlier, *entries))
        return function

    return mark


def declared(function: Any) -> tuple[Implementation, ...]:
    """The clauses `function` is marked with (條款標記), in the order declared; empty if none."""
    entries = getattr(function, _MARK, ())
    if isinstance(entries, tuple) and all(isinstance(e, Implementation) for e in entries):
        return entries
    return ()


def marks(module: ModuleType) -> tuple[Implementation, ...]:
    """The clauses the functions and methods defined in `module` are marked with (條款標記),
    in the order they are defined."""
    found: dict[int, tuple[Implementation, ...]] = {}
    for obj in _defined(module.__name__, vars(module).values(), set()):
        entries = declared(obj)
        if entries:
            # A function bound to two names is one function: keyed by its tuple of marks.
            found.setdefault(id(entries), entries)
    return tuple(entry for entries in found.values() for entry in entries)


def _defined(module_name: str, objects: Any, seen: set[int]) -> Iterator[Any]:
    """The functions and classes among `objects` that `module_name` defines, and their methods
    (properties, static and class methods unwrapped), nested classes included, each once."""
    for obj in objects:
        if isinstance(obj, staticmethod | classmethod):
            obj = obj.__func__
        if isinstance(obj, property):
            yield from (f for f in (obj.fget, obj.fset, obj.fdel) if f is not None)
            continue
        if getattr(obj, "__module__", None) != module_name or id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, type):
            yield from _defined(module_name, vars(obj).values(), seen)
