"""Colour for people at a terminal: the PASS/FAIL words and summary lines of `check`, the
verdict lines of `fuzz` and `diff`. Off when the output is no terminal; `NO_COLOR` (set and
not empty, no-color.org) turns it off everywhere and wins over `FORCE_COLOR` (set and not
empty, force-color.org), which turns it on where the output is no terminal. The words are the
same either way: colour is only added around them."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TextIO

RED = "31"
GREEN = "32"
YELLOW = "33"
BOLD = "1"


def colour_wanted(stream: TextIO) -> bool:
    """Whether to colour what is written to `stream`."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except ValueError:  # a closed stream
        return False


def paint(text: str, code: str) -> str:
    """`text` in the SGR colour `code`, reset after."""
    return f"\x1b[{code}m{text}\x1b[0m"


def paint_lines(text: str, stream: TextIO, colour_of: Callable[[str], str | None]) -> str:
    """`text` with each line that `colour_of` gives a colour painted in it, when `stream`
    shows colour; `text` itself otherwise."""
    if not colour_wanted(stream):
        return text
    lines = text.split("\n")
    return "\n".join(
        paint(line, code) if line and (code := colour_of(line)) else line for line in lines
    )


_BAD_WORD = re.compile(r"(FAIL|XPASS|ERROR|TIMEOUT|STALE|NOT PASSED|INTERRUPTED)\b")
_SUMMARY = re.compile(r".*: \d+ cases?: \d+ passed, .*\(\d+\.\d s\)$")
_GOOD_WORD = re.compile(r"(pass|omitted|xfail) ")


def paint_check(text: str, ok: bool, stream: TextIO) -> str:
    """The text `guandan check` prints, its verdict words and summary line coloured: red for
    a failure, an error or a run not passed, green for passes and for the summary of a run
    that passed, yellow for notes."""

    def colour_of(line: str) -> str | None:
        if _SUMMARY.fullmatch(line):
            return GREEN if ok else RED
        if _BAD_WORD.match(line):
            return RED
        if line.startswith("NOTE:"):
            return YELLOW
        return GREEN if _GOOD_WORD.match(line) else None

    return paint_lines(text, stream, colour_of)


def paint_fuzz(text: str, stream: TextIO) -> str:
    """The summary `guandan fuzz` prints, its verdict lines coloured."""

    def colour_of(line: str) -> str | None:
        if line == "no discrepancy found":
            return GREEN
        if line.startswith(("NOT PASSED", "  error: ")) or re.match(r"\d+ discrepanc", line):
            return RED
        return BOLD if line.startswith("guandan fuzz: ") else None

    return paint_lines(text, stream, colour_of)


def paint_diff(text: str, stream: TextIO) -> str:
    """The text `guandan diff` prints, its verdict line and clause headings coloured."""

    def colour_of(line: str) -> str | None:
        if re.match(r"\d+ clauses? differs?\b", line):
            return GREEN if line.startswith("0 ") else YELLOW
        return BOLD if not line.startswith(" ") else None

    return paint_lines(text, stream, colour_of)
