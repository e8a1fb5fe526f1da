"""The reference engine (參考引擎): this package's interpreter behind the engine API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness import __version__
from harness.engine._variants import as_ruleset
from harness.engine.api import EngineBase, EngineInfo, Json, Reach
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.interpreter.operations import run_operation
from harness.model.ruleset import Ruleset


class ReferenceEngine(EngineBase):
    """The reference interpreter as an engine, for one variant (a Ruleset, or a bundled one by
    slug) and its options."""

    def __init__(self, variant: Ruleset | str, options: Mapping[str, Any] | None = None) -> None:
        self.ruleset = as_ruleset(variant, options)
        # Asked before every question (`call`): made once for the rule set it describes.
        self._info: tuple[Ruleset, EngineInfo] | None = None

    def describe(self) -> EngineInfo:
        """The reference interpreter: every operation, on any rule set it is handed."""
        if self._info is None or self._info[0] is not self.ruleset:
            info = EngineInfo(
                "guandan-harness reference",
                __version__,
                self.ruleset.slug,
                dict(self.ruleset.chosen),
                rulesets=Reach.ANY,
            )
            self._info = (self.ruleset, info)
        return self._info[1]

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """Every operation, by the interpreter; malformed input is `invalid_input`."""
        try:
            return run_operation(operation, request, self.ruleset)
        except HarnessError as exc:
            raise EngineError(EngineErrorKind.INVALID_INPUT, str(exc)) from None
