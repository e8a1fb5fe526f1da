"""A process-protocol engine that answers like the reference interpreter except in one way.

Run as `python tests/engines/broken.py MODE`. MODE is one of:

- `ok`: always correct;
- `crash-on-classify`: prints to stderr and exits with status 3 when asked classify;
- `hang-on-classify`: sleeps forever when asked classify;
- `garbage-on-classify`: prints a line that is not JSON for classify;
- `wrong-id`: answers classify with a wrong id;
- `missing-output`: answers classify with `{"type": "response", "id": ...}` and no output;
- `wrong-reading`: answers classify with every reading's rank changed to "2";
- `unsupported-replay`: its hello lists every operation but replay;
- `refuse-hello`: answers hello with `{"type": "error", "message": "no"}`;
- `refuse-target-8`: refuses a hello with `target` 8, naming the option
  (`{"type": "error", "message": ..., "option": "target"}`), and plays every other;
- `refuse-target-8-unnamed`: the same refusal without naming the option;
- `garbage-hello-target-8`: answers a hello with `target` 8 with a line that is not JSON (it
  cannot start for that option set), and plays every other;
- `no-counts`: its hello says `not_modelled: ["counts"]`, and its replay steps have no counts;
- `misspelt-not-modelled`: its hello says `not_modelled: ["count"]`, a field no output has;
- `misspelt-operation`: its hello lists `clasify` for classify, an operation that does not exist.

A batch holding a classify request misbehaves the same way as the classify request alone.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

# The harness is imported, and the variant loaded, only when a request needs them: a restart
# after a crash then costs little, and the hello is answered at once.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

OPERATIONS = (
    "classify",
    "beats",
    "legal_plays",
    "legal_actions",
    "tribute",
    "settle",
    "replay",
    "score",
)
MODES = (
    "ok",
    "crash-on-classify",
    "hang-on-classify",
    "garbage-on-classify",
    "wrong-id",
    "missing-output",
    "wrong-reading",
    "unsupported-replay",
    "refuse-hello",
    "refuse-target-8",
    "refuse-target-8-unnamed",
    "garbage-hello-target-8",
    "no-counts",
    "misspelt-not-modelled",
    "misspelt-operation",
)
GARBAGE = "this is not JSON {"


def send(message: Any) -> None:
    """One line of JSON, flushed."""
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def misbehave(mode: str) -> None:
    """The ways of failing that end the exchange (no answer follows)."""
    if mode == "crash-on-classify":
        sys.stderr.write("broken engine: classify is beyond me, exiting\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "hang-on-classify":
        while True:
            time.sleep(3600)
    if mode == "garbage-on-classify":
        sys.stdout.write(GARBAGE + "\n")
        sys.stdout.flush()


class Reference:
    """The reference interpreter for the variant and options of the hello, loaded when needed."""

    def __init__(self, variant: str, options: dict[str, Any]) -> None:
        self.variant = variant
        self.options = options
        self.ruleset: Any = None

    def run(self, operation: str, data: Any) -> dict[str, Any]:
        """The reference's output; HarnessError when the input is malformed."""
        from harness.interpreter.operations import run_operation
        from harness.model.loader import load_variant

        if self.ruleset is None:
            self.ruleset = load_variant(self.variant, self.options)
        output: dict[str, Any] = run_operation(operation, data, self.ruleset)
        return output


def respond(mode: str, item: dict[str, Any], reference: Reference) -> dict[str, Any]:
    """The response to one request (without its `type`)."""
    request_id = item.get("id")
    operation = item.get("operation")
    if operation not in OPERATIONS or (mode == "unsupported-replay" and operation == "replay"):
        return {
            "id": request_id,
            "error": {"kind": "unsupported", "message": f"no {operation!r} here"},
        }
    if operation == "classify" and mode == "wrong-id":
        return {"id": f"not-{request_id}", "output": {"readings": [], "default": None}}
    if operation == "classify" and mode == "missing-output":
        return {"id": request_id}
    from harness.errors import HarnessError

    try:
        output = reference.run(str(operation), item.get("input") or {})
    except HarnessError as exc:
        return {"id": request_id, "error": {"kind": "invalid_input", "message": str(exc)}}
    if operation == "replay" and mode == "no-counts":
        output["steps"] = [{k: v for k, v in s.items() if k != "counts"} for s in output["steps"]]
    if operation == "classify" and mode == "wrong-reading":
        output["readings"] = [{**r, "rank": "2"} for r in output["readings"]]
        if output.get("default") is not None:
            output["default"] = {**output["default"], "rank": "2"}
    return {"id": request_id, "output": output}


def main(mode: str) -> int:
    """Speak the process protocol until `bye` or the end of input."""
    reference = Reference("base", {})
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            options = dict(message.get("options") or {})
            if mode == "refuse-hello":
                send({"type": "error", "message": "no"})
                continue
            if mode == "garbage-hello-target-8" and options.get("target") == "8":
                sys.stdout.write(GARBAGE + "\n")
                sys.stdout.flush()
                continue
            if mode.startswith("refuse-target-8") and options.get("target") == "8":
                refusal = {"type": "error", "message": "this engine plays to A only"}
                send(refusal if mode.endswith("unnamed") else {**refusal, "option": "target"})
                continue
            reference = Reference(str(message["variant"]), options)
            operations = [o for o in OPERATIONS if mode != "unsupported-replay" or o != "replay"]
            hello = {
                "type": "hello",
                "protocol": 1,
                "name": f"broken-{mode}",
                "version": "1",
                "variant": reference.variant,
                "options": reference.options,
                "operations": operations,
            }
            if mode == "no-counts":
                hello["not_modelled"] = ["counts"]
            if mode == "misspelt-not-modelled":
                hello["not_modelled"] = ["count"]
            if mode == "misspelt-operation":
                hello["operations"] = ["clasify" if o == "classify" else o for o in operations]
            send(hello)
        elif kind == "bye":
            send({"type": "bye"})
            return 0
        elif kind == "request":
            if message.get("operation") == "classify":
                misbehave(mode)
                if mode == "garbage-on-classify":
                    continue
            send({"type": "response", **respond(mode, message, reference)})
        elif kind == "batch":
            items = message.get("requests") or []
            if any(i.get("operation") == "classify" for i in items):
                misbehave(mode)
                if mode == "garbage-on-classify":
                    continue
            responses = [respond(mode, i, reference) for i in items]
            send({"type": "batch", "id": message.get("id"), "responses": responses})
        else:
            send({"type": "error", "message": f"unknown message type {kind!r}"})
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.stderr.write(f"usage: broken.py {{{','.join(MODES)}}}\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
