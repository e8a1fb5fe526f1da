"""The reference engine (參考引擎): this package's interpreter behind the engine API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness import __version__
from harness.engine.api import EngineBase, EngineInfo, Json
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant


class ReferenceEngine(EngineBase):
    """The reference interpreter as an engine, for one bundled variant and its options."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.ruleset = load_variant(variant, dict(options or {}))

    def describe(self) -> EngineInfo:
        """The reference interpreter: every operation."""
        return EngineInfo(
            "guandan-harness reference", __version__, self.ruleset.slug, dict(self.ruleset.chosen)
        )

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """Every operation, by the interpreter; malformed input is `invalid_input`."""
        try:
            return run_operation(operation, request, self.ruleset)
        except HarnessError as exc:
            raise EngineError(EngineErrorKind.INVALID_INPUT, str(exc)) from None
