"""Engine specs (引擎規格): `reference`, `fast`, `py:module:attribute` or `exec:COMMAND`, checked
and turned into an engine.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from harness.engine.api import OPERATION_NAMES, Engine
from harness.engine.process import ProcessEngine, parse_command
from harness.engine.reference import ReferenceEngine
from harness.errors import HarnessError
from harness.kernel import status as fast_status
from harness.model.ruleset import Ruleset


def check_engine_spec(spec: str) -> None:
    """Raise HarnessError unless `spec` has the form of an engine spec (nothing is started)."""
    if spec == "reference":
        return
    if spec == "fast":
        # Asked for by name, an engine that is off is a usage error, said before anything runs.
        found = fast_status()
        if not found.active:
            raise HarnessError(f"engine 'fast' is off ({found.detail}); use --engine reference")
        return
    if spec.startswith("py:"):
        module_name, _, attribute = spec[len("py:") :].partition(":")
        if module_name and attribute:
            return
        raise HarnessError(f"engine {spec!r}: expected py:module:attribute")
    if spec.startswith("exec:"):
        command = spec[len("exec:") :].strip()
        if not command:
            raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
        # The command is split as the engine will be started, so that a quote left open is a
        # usage error before anything runs, not an error on every case.
        try:
            parse_command(command)
        except HarnessError as exc:
            raise HarnessError(f"engine {spec!r}: {exc}") from None
        return
    raise HarnessError(
        f"engine {spec!r}: expected reference, fast, py:module:attribute or exec:COMMAND"
    )


def load_engine(spec: str, ruleset: Ruleset, *, timeout: float = 10.0) -> Engine:
    """An engine for `ruleset` (a variant with its options chosen) from a spec: `reference`,
    `fast` (the compiled engine, `harness.engine.fast`), `py:module:attribute` or `exec:COMMAND`.

    For `py:`, the attribute is an Engine, or a class or factory called as
    `factory(variant, options)` with the variant's slug and chosen options (`factory()` when it
    takes no parameters); a factory with a parameter named `ruleset` is also given the Ruleset
    itself, by that name. For `exec:`, the command speaks the process protocol
    (spec/protocol.md).
    """
    if spec == "reference":
        return ReferenceEngine(ruleset)
    if spec == "fast":
        from harness.engine.fast.engine import FastEngine

        return FastEngine(ruleset)
    if spec.startswith("py:"):
        return _python_engine(spec, ruleset)
    if spec.startswith("exec:"):
        command = spec[len("exec:") :].strip()
        if not command:
            raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
        return ProcessEngine(command, ruleset, timeout)
    raise HarnessError(
        f"engine {spec!r}: expected reference, fast, py:module:attribute or exec:COMMAND"
    )


def _call_factory(make: Callable[..., Any], ruleset: Ruleset) -> Any:
    """`make(slug, options)`, or `make()`; with `ruleset=` when `make` names that parameter."""
    params = inspect.signature(make).parameters
    extra = {"ruleset": ruleset} if "ruleset" in params else {}
    others = [name for name in params if name != "ruleset"]
    if len(others) >= 2:
        return make(ruleset.slug, dict(ruleset.chosen), **extra)
    return make(**extra)


def _python_engine(spec: str, ruleset: Ruleset) -> Engine:
    module_name, _, attribute = spec[len("py:") :].partition(":")
    if not module_name or not attribute:
        raise HarnessError(f"engine {spec!r}: expected py:module:attribute")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HarnessError(f"engine {spec!r}: cannot import {module_name}: {exc}") from None
    target = getattr(module, attribute, None)
    if target is None:
        raise HarnessError(f"engine {spec!r}: {module_name} has no attribute {attribute!r}")
    engine: Any = target
    if inspect.isclass(target) or (not isinstance(target, Engine) and callable(target)):
        engine = _call_factory(target, ruleset)
    if not isinstance(engine, Engine):
        raise HarnessError(
            f"engine {spec!r}: {attribute} is not an Engine (it needs describe, "
            f"close and the operations {', '.join(OPERATION_NAMES)})"
        )
    return engine
