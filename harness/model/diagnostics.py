"""Problems found in data files, each placed at FILE:LINE:COLUMN with the clause path."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a file: 1-based line and column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a data file: where, which clause path, what was expected and found."""

    location: Location
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.location}: {where}{self.message}"


def format_path(parts: Iterable[object]) -> str:
    """A dotted path (`levels.up.double_down`, `bombs.ladder[2].type`) from path parts.

    A variant's clauses live under its `rules` key, and a clause id is its path below it, so a
    leading `rules` is not shown.
    """
    items = list(parts)
    if items[:1] == ["rules"]:
        items = items[1:]
    return json_path(items)


def json_path(parts: Iterable[object]) -> str:
    """A place in JSON data as messages name it (`readings[0].type`, `actions[2].seat`): keys
    dotted, list indexes in brackets."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def json_type(value: Any) -> str:
    """The JSON type of parsed data, as a schema names it in messages (a whole number is
    `integer`, a bool `boolean`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
