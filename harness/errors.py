"""The one exception root of the harness (錯誤) and every family below it.

    HarnessError                 anything the harness raises on purpose
    ├── NotationError            a card token or card list the notation does not allow
    ├── DataError                problems in data files (variants, cases), each located
    ├── RulesShapeError          a clause value that does not fit the typed rule model
    ├── RegistryError            a clause id or value the clause registry does not know
    ├── InputError               an operation's input is malformed (names the field)
    ├── IllegalAction            an action the rules forbid (names the deciding clause)
    ├── EngineError              an engine could not answer (kind: EngineErrorKind)
    │   ├── Unsupported          the engine does not support an operation
    │   └── OptionRefused        the engine does not play an option's value
    └── UsageError               a command line that asks for the impossible (exit 2)

This module imports nothing from the package: every layer may raise these.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Protocol


class HarnessError(Exception):
    """Root of every error the harness raises on purpose."""


class NotationError(HarnessError, ValueError):
    """A card token or card list that the notation (牌的記法) does not allow."""

    def __init__(self, message: str, token: str | None = None) -> None:
        super().__init__(message)
        self.token = token


class _Place(Protocol):
    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def column(self) -> int: ...


class _Located(Protocol):
    @property
    def location(self) -> _Place: ...

    @property
    def message(self) -> str: ...


class DataError(HarnessError):
    """One or more problems in data files (資料錯誤); `problems` lists every one, in file order."""

    def __init__(self, problems: Sequence[_Located]) -> None:
        self.problems = tuple(sorted(problems, key=_order))
        super().__init__("\n".join(str(p) for p in self.problems))


def _order(problem: _Located) -> tuple[str, int, int, str]:
    loc = problem.location
    return (loc.file, loc.line, loc.column, problem.message)


class RulesShapeError(HarnessError):
    """A clause value does not fit the typed rule model (the schema and `Rules` disagree)."""


class RegistryError(HarnessError):
    """A clause id the schema does not define, or a registry entry that contradicts it."""


class InputError(HarnessError):
    """An operation's input is malformed (輸入錯誤); the message names the field."""


class IllegalAction(HarnessError):
    """An action the rules forbid (違規); `rule` is the id of the clause that decided it."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class EngineErrorKind(StrEnum):
    """How an engine failed to answer: the `kind` of an `EngineError` and of a protocol error."""

    UNSUPPORTED = "unsupported"
    INVALID_INPUT = "invalid_input"
    INTERNAL = "internal"
    CRASH = "crash"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol"


class EngineError(HarnessError):
    """An engine could not answer (引擎錯誤); `kind` says how, `detail` what was seen."""

    def __init__(
        self, kind: EngineErrorKind, message: str, detail: str = "", answer: Any = None
    ) -> None:
        super().__init__(message)
        self.kind = EngineErrorKind(kind)
        self.detail = detail
        self.answer = answer
        """The answer the engine gave, when there was one to refuse (a malformed output)."""

    def __reduce__(self) -> tuple[type[EngineError], tuple[EngineErrorKind, str, str, Any]]:
        # An error is a value: it crosses to another process (--jobs) whole.
        return (type(self), (self.kind, str(self), self.detail, self.answer))


class Unsupported(EngineError):
    """The engine does not support this operation (a case of it is `unsupported`)."""

    def __init__(self, operation: str) -> None:
        super().__init__(EngineErrorKind.UNSUPPORTED, f"operation {operation!r} is not supported")
        self.operation = operation

    def __reduce__(self) -> tuple[type[Unsupported], tuple[str]]:  # type: ignore[override]
        return (type(self), (self.operation,))


class OptionRefused(EngineError):
    """The engine does not play this value of an option (開局選項): raised by an adapter's factory,
    constructor or `describe()`; the cases written for that value are `unsupported`, the others
    run."""

    def __init__(self, option: str, value: object, reason: str = "") -> None:
        told = f": {reason}" if reason else ""
        super().__init__(
            EngineErrorKind.UNSUPPORTED, f"the engine does not play {option}={value!r}{told}"
        )
        self.option = option
        self.value = value
        self.reason = reason

    def __reduce__(self) -> tuple[type[OptionRefused], tuple[str, object, str]]:  # type: ignore[override]
        return (type(self), (self.option, self.value, self.reason))


class EngineNotStarted(HarnessError):
    """The engine could not start at all (引擎無法啟動): its command is not there, its module does
    not import, it died or answered no hello; a run stops at once, with this one line."""


class UsageError(HarnessError):
    """The command line asks for something that cannot be done (exit status 2)."""


class OutputError(HarnessError):
    """A file the command writes could not be written (寫入失敗: no space, a quota, an I/O
    error): one line naming the file; nothing empty or half-written is left in its place."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple[type[OutputError], tuple[str, str]]:
        return (OutputError, (self.path, self.reason))
