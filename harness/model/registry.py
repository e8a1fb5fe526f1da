"""The clause registry (條款登記): which code applies each clause id, and which of its values.

A clause id is a key in code. Every function that applies a clause is marked with
`@implements("tribute.return.max_rank")` (`harness.model.declarations`), naming the values it
implements where that is not every value the schema allows; clauses that only inform people
(time limits, table conduct) are listed in `INFORMATIONAL` with the reason; a module whose
refusals (IllegalAction) name clauses lists them in its `VERDICTS`.

The registry is a frozen value, `Registry`. `build(modules)` reads the marks of the modules it
is given and checks them against the schema: every clause is implemented or informational, and
every id the code names exists. `reference_registry()` builds it once for the reference
interpreter, from the fixed list `REFERENCE_MODULES`; the loader takes a registry (that one by
default) and refuses a value no implementation covers, so that no clause value is accepted and
ignored.

The modules are named here, not imported: the interpreter (layer 2) declares its clauses with
this layer's marks, and the rule model must not import it; `reference_registry()` imports them
by name when it is first called, after the package is loaded.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import CodeType, FrameType, MappingProxyType, ModuleType
from typing import Any, TypeVar

from harness.errors import RegistryError
from harness.model._schemas import clause_specs
from harness.model.declarations import ALL, Implementation, declared, marks, shown

T = TypeVar("T")

REFERENCE_MODULES = (
    "harness.model.cards",
    "harness.model.seats",
    "harness.interpreter.readings",
    "harness.interpreter.classify",
    "harness.interpreter.legal",
    "harness.interpreter.match",
    "harness.interpreter.tribute",
    "harness.interpreter.actions",
    "harness.interpreter.round",
    "harness.interpreter.scoring",
    "harness.interpreter.bots",
)
"""The modules of the reference interpreter (參考解釋器) that declare clauses, in this order."""

INFORMATIONAL: Mapping[str, str] = MappingProxyType(
    {
        "deal.shuffler": "Who shuffles changes no deal that can be dealt; the simulator deals at "
        "random.",
        "deal.cutter": "Who cuts changes no deal that can be dealt; the simulator deals at random.",
        "deal.first_drawer": "Who draws first changes no deal that can be dealt.",
        "deal.first_drawer_double_down": "Who draws first changes no deal that can be dealt.",
        "deal.min_shuffles": "How often the cards are shuffled is table procedure.",
        "disclosure.misreport": "The penalty for telling a wrong count needs a wrong count, which "
        "no engine operation tells.",
        "timing.first_play_seconds": "A time limit is for the table or the app's clock; no "
        "operation has time in it.",
        "timing.play_seconds": "A time limit is for the table or the app's clock; no operation has "
        "time in it.",
        "match.time_limit_winner": "A match stopped by time is decided by the organiser's clock.",
        "conduct.no_signals": "Table conduct between people; no operation can see it.",
        "conduct.hands_concealed": "Table conduct between people; no operation can see it.",
        "deal.first_round": "How the first round's dealing order is decided changes no deal that "
        "can be dealt; a replay is given its deal and its leader.",
    }
)
"""Clauses that inform people but that no code applies (prose only), with the reason."""


@dataclass(frozen=True)
class Registry:
    """The clause registry (條款登記): clause id → the functions that apply it, the clauses that
    are prose only (with the reason), and the clause ids a refused action may name.

    A frozen value: its mappings are read-only views of copies made when it is built. `build`
    checks one against the schema; one made by hand (a test's) is taken as given.
    """

    implemented: Mapping[str, tuple[Implementation, ...]]
    informational: Mapping[str, str]
    verdicts: frozenset[str]

    def __post_init__(self) -> None:
        # Copied, then seen through a read-only view: no caller's dict can change it later.
        implemented = {cid: tuple(entries) for cid, entries in self.implemented.items()}
        object.__setattr__(self, "implemented", MappingProxyType(implemented))
        object.__setattr__(self, "informational", MappingProxyType(dict(self.informational)))
        object.__setattr__(self, "verdicts", frozenset(self.verdicts))

    def implementations(self, clause_id: str) -> tuple[Implementation, ...]:
        """The functions that apply `clause_id` (empty for an informational clause)."""
        return self.implemented.get(clause_id, ())

    def informational_reason(self, clause_id: str) -> str | None:
        """Why `clause_id` is prose only, or None when code applies it."""
        return self.informational.get(clause_id)

    def implemented_values(self, clause_id: str) -> str:
        """In words, the values of `clause_id` every implementation covers."""
        entries = self.implementations(clause_id)
        if not entries and clause_id not in self.informational:
            return "no value: no function applies it"
        parts = [i.values.description for i in entries if not i.values.every]
        return "; ".join(dict.fromkeys(parts)) or ALL.description

    def refusal(self, clause_id: str, value: Any) -> str | None:
        """None when the interpreter implements `value` for `clause_id`, else a message."""
        if clause_id in self.informational:
            return None
        entries = self.implementations(clause_id)
        if not entries:
            return (
                f"value {shown(value)} is not implemented by the reference interpreter "
                f"(no function applies {clause_id})"
            )
        for entry in entries:
            reason = entry.values.refusal(value)
            if reason is not None:
                why = f": {reason}" if entry.values.test is not None else ""
                return (
                    f"value {shown(value)} is not implemented by the reference interpreter "
                    f"(implemented: {self.implemented_values(clause_id)}){why}"
                )
        return None

    def all_implementations(self) -> Iterator[Implementation]:
        """Every (clause, function) pair, in the order of the modules and their definitions."""
        for entries in self.implemented.values():
            yield from entries


def build(modules: Iterable[ModuleType]) -> Registry:
    """The registry of the clauses `modules` declare, checked against the schema (RegistryError
    lists every disagreement)."""
    implemented: dict[str, list[Implementation]] = {}
    verdicts: set[str] = set()
    for module in modules:
        for entry in marks(module):
            implemented.setdefault(entry.clause, []).append(entry)
        verdicts.update(getattr(module, "VERDICTS", ()))
    known = set(clause_specs())
    problems: list[str] = []
    for clause_id in sorted(set(implemented) | set(INFORMATIONAL) | verdicts):
        if clause_id not in known:
            problems.append(f"{clause_id!r} is named by the code but is no clause of the schema")
    for clause_id in known:
        is_implemented = clause_id in implemented
        informational = clause_id in INFORMATIONAL
        if not is_implemented and not informational:
            problems.append(f"{clause_id} is neither implemented nor declared informational")
        if is_implemented and informational:
            problems.append(f"{clause_id} is both implemented and declared informational")
    if problems:
        raise RegistryError(
            "the clause registry disagrees with the schema:\n" + "\n".join(problems)
        )
    return Registry(
        {cid: tuple(entries) for cid, entries in implemented.items()},
        INFORMATIONAL,
        frozenset(verdicts),
    )


@functools.cache
def reference_registry() -> Registry:
    """The reference interpreter's registry (參考登記), built once from REFERENCE_MODULES."""
    return build(importlib.import_module(name) for name in REFERENCE_MODULES)


# ---------------------------------------------------------------------------------------------
# The clauses an answer went through


@dataclass(frozen=True)
class Passage:
    """One call of a function that applies clauses (條款經過), as an answer went through it:
    the function, its clauses in the order declared, and how many such calls enclose it."""

    function: str
    clauses: tuple[str, ...]
    depth: int


def went_through(
    call: Callable[[], T], registry: Registry | None = None
) -> tuple[T, tuple[Passage, ...]]:
    """`call()`'s result, and each call it made of a function that applies clauses (the
    reference registry's by default), in call order (條款軌跡).

    For labelling a discrepancy, never on the way to an answer: every Python call of this
    thread goes through a hook (`sys.setprofile`) while `call` runs. A memoized function that
    answers from its memo runs nothing, so the call must reach the rules through objects no memo
    has seen (a ruleset is kept by identity: a copy of it misses every memo)."""
    table = _functions(registry or reference_registry())
    passed: list[Passage] = []

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        found = table.get(frame.f_code)
        if found is not None:
            depth = sum(1 for f in _callers(frame) if f.f_code in table)
            passed.append(Passage(found.function, found.clauses, depth))

    before = sys.getprofile()
    sys.setprofile(hook)
    try:
        result = call()
    finally:
        sys.setprofile(before)
    return result, tuple(passed)


def _callers(frame: FrameType) -> Iterator[FrameType]:
    caller = frame.f_back
    while caller is not None:
        yield caller
        caller = caller.f_back


_FUNCTIONS: dict[int, tuple[Registry, dict[CodeType, Passage]]] = {}
"""Each registry's functions by their code, found once (the registry kept alive with them)."""


def _functions(registry: Registry) -> dict[CodeType, Passage]:
    """The code of each function the registry names, with its name and declared clauses."""
    key = id(registry)
    if key not in _FUNCTIONS:
        table: dict[CodeType, Passage] = {}
        for name in dict.fromkeys(i.function for i in registry.all_implementations()):
            function = _function(name)
            code = getattr(function, "__code__", None)
            clauses = tuple(i.clause for i in declared(function))
            if isinstance(code, CodeType) and clauses:
                table[code] = Passage(name, clauses, 0)
        _FUNCTIONS[key] = (registry, table)
    return _FUNCTIONS[key][1]


def _function(dotted: str) -> Any:
    """The function a dotted name (`module.Class.method`) names, unwrapped (a memo's, a
    property's, a static method's); None when it cannot be reached (a module not loaded, a
    function defined inside another)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        found: Any = sys.modules.get(".".join(parts[:cut]))
        if found is not None:
            break
    else:
        return None
    for name in parts[cut:]:
        found = vars(found).get(name) if hasattr(found, "__dict__") else None
        if isinstance(found, staticmethod | classmethod):
            found = found.__func__
        if isinstance(found, property):
            found = found.fget
        if found is None:
            return None
    return inspect.unwrap(found)
