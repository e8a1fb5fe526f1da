"""Counts in words (計數): `1 case`, `2 cases`, for every summary line a person reads."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` and `noun`, the noun in the plural unless the count is one (`many`, where the
    plural is not the noun and an s: `1 family`, `2 families`)."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {many or noun + 's'}"
