"""Engine specs (引擎規格): `reference`, `py:module:attribute` or `exec:COMMAND`, checked and
turned into an engine.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from harness.engine.api import OPERATION_NAMES, Engine
from harness.engine.process import ProcessEngine
from harness.engine.reference import ReferenceEngine
from harness.errors import HarnessError


def check_engine_spec(spec: str) -> None:
    """Raise HarnessError unless `spec` has the form of an engine spec (nothing is started)."""
    if spec == "reference":
        return
    if spec.startswith("py:"):
        module_name, _, attribute = spec[len("py:") :].partition(":")
        if module_name and attribute:
            return
        raise HarnessError(f"engine {spec!r}: expected py:module:attribute")
    if spec.startswith("exec:"):
        if spec[len("exec:") :].strip():
            return
        raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
    raise HarnessError(f"engine {spec!r}: expected reference, py:module:attribute or exec:COMMAND")


def load_engine(
    spec: str, variant: str, options: Mapping[str, Any] | None = None, timeout: float = 10.0
) -> Engine:
    """An engine for `variant` from a spec: `reference`, `py:module:attribute`, `exec:COMMAND`.

    For `py:`, the attribute is an Engine, or a callable taking (variant, options) that returns
    one. For `exec:`, the command speaks the process protocol (spec/protocol.md).
    """
    chosen = dict(options or {})
    if spec == "reference":
        return ReferenceEngine(variant, chosen)
    if spec.startswith("py:"):
        return _python_engine(spec, variant, chosen)
    if spec.startswith("exec:"):
        command = spec[len("exec:") :].strip()
        if not command:
            raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
        return ProcessEngine(command, variant, chosen, timeout=timeout)
    raise HarnessError(f"engine {spec!r}: expected reference, py:module:attribute or exec:COMMAND")


def _python_engine(spec: str, variant: str, options: dict[str, Any]) -> Engine:
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
        make: Callable[..., Any] = target
        params = inspect.signature(make).parameters
        engine = make(variant, options) if len(params) >= 2 else make()
    if not isinstance(engine, Engine):
        raise HarnessError(
            f"engine {spec!r}: {attribute} is not an Engine (it needs describe, "
            f"close and the operations {', '.join(OPERATION_NAMES)})"
        )
    return engine
