"""Counts in words (單複數): a count and its noun in the number the count asks for, `1 case`,
`2 cases`, for every summary line the tools print."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None, spec: str = "") -> str:
    """`n` and `noun` in the singular for exactly one, else in the plural (`0 cases`, `1 case`,
    `2 cases`): `plural` where an added s is wrong (`discrepancies`, `clauses differ`), `spec`
    the number's format (`,` for `1,000`)."""
    word = noun if n == 1 else plural if plural is not None else f"{noun}s"
    return f"{n:{spec}} {word}"
