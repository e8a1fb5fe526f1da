"""Engines for the tests of derived variants: the reference with one clause value ignored.

`make_ignores_when_unable` plays `flow.pass: always` whatever it is told (a pass is always
allowed), while it reports the variant it was handed; `make_by_slug` knows variants only by slug
(it loads the bundled one of that name), so it cannot start for a derived variant;
`make_echoing` is built as the engine guide's first skeleton was: it echoes whatever variant it
is handed and plays the bundled variant the name starts with, saying nothing of `rulesets`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.engine import Engine, EngineBase, EngineInfo, Json, Reach, ReferenceEngine
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
        """The variant it was handed, under another name; it plays any rule set it is handed
        (it reads the Ruleset), so derived variants apply to it."""
        return EngineInfo(
            "ignores-when-unable", "1", self.told.slug, dict(self.told.chosen), rulesets=Reach.ANY
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, passes always allowed."""
        return self.reference.answer(operation, request)


def make_ignores_when_unable(slug: str, options: Mapping[str, Any], ruleset: Ruleset) -> Engine:
    """A factory given the Ruleset itself."""
    return IgnoresWhenUnable(ruleset)


def make_by_slug(slug: str, options: Mapping[str, Any]) -> Engine:
    """The reference for the bundled variant named `slug` (a derived name is no bundled one)."""
    return ReferenceEngine(slug, options)


STARTED: list[str] = []
"""The variants `make_echoing` was started for, in this process, in order."""


class Echoing(EngineBase):
    """The reference for the bundled variant a name starts with, claiming the name it was
    handed whole (`huaian[flow.pass=when_unable]` is played as huaian)."""

    def __init__(self, slug: str, options: Mapping[str, Any], rulesets: Reach) -> None:
        self.slug = slug
        self.rulesets = rulesets
        self.reference = ReferenceEngine(slug.partition("[")[0], options)

    def describe(self) -> EngineInfo:
        """The name it was handed, echoed."""
        info = self.reference.describe()
        return EngineInfo("echoing", "1", self.slug, info.options, rulesets=self.rulesets)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference plays the base variant."""
        return self.reference.answer(operation, request)


def make_echoing(slug: str, options: Mapping[str, Any]) -> Engine:
    """An engine that echoes any name and plays its base, claiming no derived variant."""
    STARTED.append(slug)
    return Echoing(slug, options, Reach.NAMED)


def make_echoing_claims_derived(slug: str, options: Mapping[str, Any]) -> Engine:
    """The same, claiming derived variants by name (wrongly: it plays the base)."""
    STARTED.append(slug)
    return Echoing(slug, options, Reach.DERIVED)
