"""A tiny process-protocol engine, pure standard library, that gets the protocol wrong in one
way (for `guandan smoke`'s tests). It declares classify only and answers every classify with
the readings of nothing (`{"readings": []}`, a well-formed output, not a right one).

Run as `python tests/engines/protocol_bugs.py KIND`. KIND is one of:

- `ok`: speaks the protocol correctly;
- `wrong-id`: answers a request with its id plus 100;
- `string-id`: answers a request with its id as a string;
- `short-batch`: answers a batch with one response too few;
- `batch-not-list`: answers a batch with `responses` an object, not a list;
- `not-supported`: answers classify with the error kind `not_supported`;
- `bad-output`: answers classify with `{"readings": "pair"}`, an output of the wrong shape;
- `hello-missing`: answers the hello without `name`, `version` and `operations`;
- `hello-protocol`: answers the hello with protocol 2;
- `crash-after-hello`: answers the hello, then exits (status 3);
- `slow-exit-after-hello`: closes its input, answers the hello, and exits (status 3) a moment
  later: a line sent after the hello finds the input closed before the exit is known;
- `silent-on-garbage`: answers nothing to a line that is not JSON;
- `no-bye`: exits without answering bye.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

KINDS = (
    "ok",
    "wrong-id",
    "string-id",
    "short-batch",
    "batch-not-list",
    "not-supported",
    "bad-output",
    "hello-missing",
    "hello-protocol",
    "crash-after-hello",
    "slow-exit-after-hello",
    "silent-on-garbage",
    "no-bye",
)


def response(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    """The answer to one request (without its `type`)."""
    request_id: Any = item.get("id")
    if kind == "wrong-id":
        request_id += 100
    elif kind == "string-id":
        request_id = str(request_id)
    if item.get("operation") != "classify":
        error = {"kind": "unsupported", "message": "classify only"}
        return {"id": request_id, "error": error}
    if kind == "not-supported":
        return {"id": request_id, "error": {"kind": "not_supported", "message": "no"}}
    if kind == "bad-output":
        return {"id": request_id, "output": {"readings": "pair"}}
    return {"id": request_id, "output": {"readings": []}}


def answer(kind: str, message: Any) -> dict[str, Any] | None:
    """The answer to one message (None: no answer)."""
    if not isinstance(message, dict):
        return {"type": "error", "message": "a message is a JSON object"}
    what = message.get("type")
    if what == "hello":
        hello: dict[str, Any] = {
            "type": "hello",
            "protocol": 2 if kind == "hello-protocol" else 1,
            "name": "protocol-bugs",
            "version": "1",
            "variant": message.get("variant"),
            "options": message.get("options", {}),
            "operations": ["classify"],
        }
        if kind == "hello-missing":
            for field in ("name", "version", "operations"):
                del hello[field]
        return hello
    if what == "request":
        if not isinstance(message.get("operation"), str):
            error = {"kind": "invalid_input", "message": "no operation"}
            return {"type": "response", "id": message.get("id"), "error": error}
        return {"type": "response", **response(kind, message)}
    if what == "batch":
        responses: Any = [response(kind, item) for item in message.get("requests", [])]
        if kind == "short-batch":
            responses = responses[:-1]
        elif kind == "batch-not-list":
            responses = {str(i): r for i, r in enumerate(responses)}
        return {"type": "batch", "id": message.get("id"), "responses": responses}
    return {"type": "error", "message": f"unknown message type {what!r}"}


def main(kind: str) -> int:
    """Answer the messages on stdin until bye or its end."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            if kind == "silent-on-garbage":
                continue
            message = None
            reply: dict[str, Any] | None = {"type": "error", "message": "not JSON"}
        else:
            if isinstance(message, dict) and message.get("type") == "bye":
                if kind == "no-bye":
                    return 0
                print(json.dumps({"type": "bye"}), flush=True)
                return 0
            reply = answer(kind, message)
        if kind == "slow-exit-after-hello":
            os.close(sys.stdin.fileno())  # before the hello's answer, so the next line fails
        if reply is not None:
            print(json.dumps(reply), flush=True)
        if kind == "crash-after-hello" and isinstance(message, dict):
            return 3
        if kind == "slow-exit-after-hello":
            time.sleep(0.2)
            return 3
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        sys.exit(f"usage: protocol_bugs.py {{{'|'.join(KINDS)}}}")
    sys.exit(main(sys.argv[1]))
