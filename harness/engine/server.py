"""The process protocol (行程協定), server side: `guandan serve` answers it over the reference
interpreter, one JSON line in, one JSON line out.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from harness import __version__
from harness.engine.api import OPERATION_NAMES, EngineInfo, Json
from harness.engine.process import PROTOCOL_VERSION
from harness.errors import HarnessError
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant


def _respond(item: Mapping[str, Any], ruleset: Any) -> Json:
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


def serve(variant: str | None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Answer the process protocol over the reference interpreter until `bye` or end of input."""
    ruleset = None

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
            wanted = message.get("variant") or variant
            if variant is not None and wanted != variant:
                send({"type": "error", "message": f"this server plays {variant}, not {wanted}"})
                continue
            try:
                ruleset = load_variant(str(wanted), dict(message.get("options") or {}))
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
