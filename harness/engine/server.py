"""The process protocol (行程協定), server side: `guandan serve` answers it over the reference
interpreter, one JSON line in, one JSON line out.

Served for one variant (a Ruleset: bundled, or loaded from a variant file), a hello naming that
variant's slug is accepted with any of its options; served for none, a hello may name any
bundled variant. The `clauses` a hello may carry are not needed here: the server has the rules.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from harness import __version__
from harness.engine._variants import as_ruleset
from harness.engine.api import OPERATION_NAMES, EngineInfo, Json
from harness.engine.process import PROTOCOL_VERSION
from harness.errors import HarnessError
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset


def _respond(item: Mapping[str, Any], ruleset: Ruleset) -> Json:
    request_id = item.get("id")
    operation = item.get("operation")
    data = item.get("input")
    if operation not in OPERATION_NAMES:
        return {
            "id": request_id,
            "error": {"kind": "unsupported", "message": f"unknown operation {operation!r}"},
        }
    if not isinstance(data, dict):
        return {
            "id": request_id,
            "error": {"kind": "invalid_input", "message": "`input` must be an object"},
        }
    try:
        return {"id": request_id, "output": run_operation(str(operation), data, ruleset)}
    except HarnessError as exc:
        return {"id": request_id, "error": {"kind": "invalid_input", "message": str(exc)}}


def _session(served: Ruleset | None, hello: Mapping[str, Any]) -> Ruleset:
    """The variant a hello asks for, options chosen; HarnessError says why it is refused."""
    wanted = hello.get("variant") or (served.slug if served is not None else None)
    options = hello.get("options") or {}
    if not isinstance(options, dict):
        raise HarnessError("`options` must be an object")
    if served is None:
        return load_variant(str(wanted), options)
    if wanted != served.slug:
        raise HarnessError(f"this server plays {served.slug}, not {wanted}")
    return served.with_options(options)


def serve(
    variant: Ruleset | str | None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout
) -> int:
    """Answer the process protocol over the reference interpreter until `bye` or end of input:
    for `variant` only (a Ruleset, or a bundled slug), or for any bundled variant (None)."""
    served = None if variant is None else as_ruleset(variant)
    ruleset: Ruleset | None = None

    def send(message: Json) -> None:
        stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
        stdout.flush()

    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            send({"type": "error", "message": "not JSON"})
            continue
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            try:
                ruleset = _session(served, message)
            except HarnessError as exc:
                send({"type": "error", "message": str(exc)})
                continue
            info = EngineInfo(
                "guandan-harness reference", __version__, ruleset.slug, dict(ruleset.chosen)
            )
            send({"type": "hello", "protocol": PROTOCOL_VERSION, **info.to_json()})
        elif kind == "bye":
            send({"type": "bye"})
            return 0
        elif ruleset is None:
            send({"type": "error", "message": "say hello first"})
        elif kind == "request":
            send({"type": "response", **_respond(message, ruleset)})
        elif kind == "batch":
            items = message.get("requests")
            if not isinstance(items, list):
                send({"type": "error", "message": "a batch needs `requests`"})
                continue
            send(
                {
                    "type": "batch",
                    "id": message.get("id"),
                    "responses": [
                        _respond(i, ruleset)
                        if isinstance(i, dict)
                        else {
                            "id": None,
                            "error": {"kind": "invalid_input", "message": "not an object"},
                        }
                        for i in items
                    ],
                }
            )
        else:
            send({"type": "error", "message": f"unknown message type {kind!r}"})
    return 0
