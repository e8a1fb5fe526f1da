"""Problems found in data files, each placed at FILE:LINE:COLUMN with the clause path."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# The characters YAML allows in a file (its printable set); the same set bounds what an escape
# in a double-quoted string may produce, so that a lone surrogate (which no UTF-8 output can
# encode) or a terminal control sequence never reaches a message or an output.
_NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# What a message may not hold raw: what YAML does not allow, and the line separators it does
# (NEL, U+2028, U+2029), which end a line for a terminal's reader or `str.splitlines`: a message
# is one line.
_NOT_IN_MESSAGE = re.compile(f"{_NOT_PRINTABLE.pattern}|[\x85\u2028\u2029]")


def safe_text(text: str) -> str:
    """`text` with every character YAML does not allow, and every line separator, written as
    an escape (`\\x00`, `\\ud800`, `\\u2028`), so that it can be printed on one line, encoded
    and compared whatever it held."""
    return _NOT_IN_MESSAGE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


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
        """The problem on one line: a path, a key or a file name holding a control character
        or a line separator (U+2028) is shown with it escaped, never raw."""
        where = f"{self.path}: " if self.path else ""
        return safe_text(f"{self.location}: {where}{self.message}")


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
