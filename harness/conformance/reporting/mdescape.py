"""Markdown that stays what it says: text from a report (an engine's output is untrusted) can
neither open HTML, nor make a link, nor end a code span or fence early."""

from __future__ import annotations

import html
import re

# Characters that would start emphasis, a link, a code span, a table cell or (with the
# attr_list extension the books and the site read Markdown with) an attribute list, `{onclick=…}`.
_SPECIAL = re.compile(r"([\\`*_\[\]|{}])")


def text(value: str) -> str:
    """Text for a paragraph or a table cell, on one line: HTML and Markdown punctuation escaped."""
    one_line = " ".join(value.split())
    return _SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False))


def _longest_run(value: str, char: str) -> int:
    if char not in value:  # most text: no run to look for
        return 0
    return max(len(r) for r in re.findall(re.escape(char) + "+", value))


def code(value: str) -> str:
    """An inline code span holding `value` on one line, whatever backticks it holds."""
    one_line = " ".join(value.split())
    ticks = "`" * (_longest_run(one_line, "`") + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") else ""
    return f"{ticks}{pad}{one_line}{pad}{ticks}"


def fence(value: str, language: str = "") -> list[str]:
    """A fenced code block holding `value` as it is, whatever backticks it holds."""
    ticks = "`" * max(3, _longest_run(value, "`") + 1)
    return [f"{ticks}{language}", *value.splitlines(), ticks]
