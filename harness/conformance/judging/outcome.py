"""The interpreter's outcome for a question (結果): its answer, or the refusal a case expecting
one names (`{refused: invalid_input}`), so that the tools that weigh the interpreter, or its
mutants, against a case (coverage, selection, mutation, the explainer) read an expected refusal
as met when the interpreter refuses the input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.errors import EngineErrorKind, HarnessError
from harness.interpreter.operations import Json, run_operation
from harness.model.ruleset import Ruleset


def refusal() -> Json:
    """The outcome of an input the interpreter refuses, as a case expecting it writes it."""
    return {"refused": EngineErrorKind.INVALID_INPUT.value}


def outcome(operation: str, data: Mapping[str, Any], ruleset: Ruleset) -> Json:
    """The interpreter's answer to `operation` on `data`, or `refusal()` when it refuses."""
    try:
        return run_operation(operation, data, ruleset)
    except HarnessError:
        return refusal()
