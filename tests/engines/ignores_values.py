"""Engines for the tests of derived variants: the reference with one clause value ignored.

`make_ignores_when_unable` plays `flow.pass: always` whatever it is told (a pass is always
allowed), while it reports the variant it was handed; `make_by_slug` knows variants only by slug
(it loads the bundled one of that name), so it cannot start for a derived variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.engine import Engine, EngineBase, EngineInfo, Json, ReferenceEngine
from harness.model.mutants import mutate
from harness.model.ruleset import Ruleset


class IgnoresWhenUnable(EngineBase):
    """The reference interpreter, with `flow.pass` always `always`."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.told = ruleset
        played = mutate(ruleset, "flow.pass", "always")
        assert played is not None
        self.reference = ReferenceEngine(played)

    def describe(self) -> EngineInfo:
        """The variant it was handed, under another name."""
        return EngineInfo("ignores-when-unable", "1", self.told.slug, dict(self.told.chosen))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, passes always allowed."""
        return self.reference.answer(operation, request)


def make_ignores_when_unable(slug: str, options: Mapping[str, Any], ruleset: Ruleset) -> Engine:
    """A factory given the Ruleset itself."""
    return IgnoresWhenUnable(ruleset)


def make_by_slug(slug: str, options: Mapping[str, Any]) -> Engine:
    """The reference for the bundled variant named `slug` (a derived name is no bundled one)."""
    return ReferenceEngine(slug, options)
