"""Hostile process-protocol engines: each answers its hello properly, then misbehaves in one way
that once hurt the harness (issue 16), and otherwise answers like the reference interpreter.

Run as `python -m tests.engines.hostile KIND [--marker TEXT]` from the repository root. The
marker is ignored: it is there so that a test can find every process an engine left behind.
KIND is one of:

- `ok`: always correct;
- `endless-stdout`: for classify, prints without a newline, forever;
- `non-utf8`: for classify, answers with a line holding bytes that are not UTF-8 (and writes
  such bytes on stderr);
- `control-chars`: for classify, answers an error whose message holds control characters (ESC
  sequences, NUL, BEL), escaped as JSON allows; for beats, prints a line holding them raw (not
  JSON) and writes them on stderr;
- `flood-stderr`: for classify, writes 100 MB on stderr without a newline, then exits (status 4);
- `answer-twice`: prints every answer (the hello's too) twice;
- `hang`: for classify, sleeps forever (run it through `hostile/wrapper.sh`, which starts it
  without exec and then hangs itself);
- `fork-crash`: for classify, starts a child that keeps stdout and stderr open and sleeps, then
  exits (status 3);
- `exit-mid-batch`: for a batch, prints half its answer, without a newline, and exits
  (status 5); single requests are answered correctly;
- `deaf`: answers the hello, then reads nothing more and answers nothing;
- `id-zero`: for classify, answers with id 0 (an id the harness never sends);
- `escape`: at its hello, starts a sleeper that leaves the engine's session and parentage
  (`setsid()`, then a double fork, its stdio on /dev/null, as a daemon does); always correct;
- `escape-hang`: the same sleeper, and for classify sleeps forever;
- `escape-kill-keeper`: the same sleeper, then SIGKILLs its keeper (its parent) so that no
  keeper is left to end the sleeper; then answers correctly;
- `odd-error-kind`: for classify, answers an error of kind `not_supported`, which the protocol
  does not have;
- `short-batch`: answers a batch with one response too few; single requests correctly.

A batch holding a request that makes the engine misbehave misbehaves the same way as that
request alone.

The answers are the reference interpreter's, or, when the environment variable HOSTILE_ANSWERS
names a JSON file of `[operation, input, output]` triples, those outputs for those inputs (an
engine that starts at once, without loading the harness: the tests restart these engines often).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.engines.broken import OPERATIONS, Reference, respond

KINDS = (
    "ok",
    "endless-stdout",
    "non-utf8",
    "control-chars",
    "flood-stderr",
    "answer-twice",
    "hang",
    "fork-crash",
    "exit-mid-batch",
    "deaf",
    "id-zero",
    "escape",
    "escape-hang",
    "escape-kill-keeper",
    "odd-error-kind",
    "short-batch",
)
"""The ways of misbehaving, by name."""
WRAPPER = Path(__file__).resolve().parent / "hostile" / "wrapper.sh"
"""A shell script that runs its arguments as a command without exec, then hangs."""
CONTROL = "\x1b[2J\x1b]0;pwned\x07\x00\x08\x7f\x1b[31m"
"""Control characters the control-chars engine puts in what it prints."""
FLOOD = 100 * 1024 * 1024
"""Bytes the flood-stderr engine writes on stderr, without a newline."""
_CHUNK = b"E" * 65536


def send(message: Any, times: int = 1) -> None:
    """One line of JSON, flushed (`times` times)."""
    line = json.dumps(message, ensure_ascii=False) + "\n"
    for _ in range(times):
        sys.stdout.write(line)
    sys.stdout.flush()


def raw(data: bytes, stream: Any = None) -> None:
    """Bytes as they are, flushed, on stdout (or `stream`)."""
    out = (stream or sys.stdout).buffer
    out.write(data)
    out.flush()


def canned() -> dict[str, Any]:
    """The outputs of the file HOSTILE_ANSWERS names, by operation and input (none without it)."""
    path = os.environ.get("HOSTILE_ANSWERS")
    if not path:
        return {}
    triples = json.loads(Path(path).read_text(encoding="utf-8"))
    return {key(operation, data): output for operation, data, output in triples}


def key(operation: Any, data: Any) -> str:
    """The key of a request in the canned answers."""
    return json.dumps([operation, data], sort_keys=True)


def answer(item: dict[str, Any], reference: Reference, known: dict[str, Any]) -> dict[str, Any]:
    """The response to one request (without its `type`): canned, or the reference's."""
    output = known.get(key(item.get("operation"), item.get("input")))
    if output is not None:
        return {"id": item.get("id"), "output": output}
    return respond("ok", item, reference)


def misbehave(kind: str, operation: str, request_id: Any, marker: str) -> bool:
    """Misbehave as `kind` does for `operation`: True when that took the place of an answer
    (when the engine has not exited or hung instead)."""
    if kind == "endless-stdout" and operation == "classify":
        while True:
            raw(b"x" * 65536)
    if kind == "non-utf8" and operation == "classify":
        raw(b"caf\xe9 \xff\xfe on stderr\n", sys.stderr)
        reply = {"type": "response", "id": request_id, "output": {"readings": []}}
        # A Latin-1 é inside otherwise valid JSON.
        raw(json.dumps(reply)[:-1].encode() + b', "note": "caf\xe9"}\n')
        return True
    if kind == "control-chars" and operation == "classify":
        error = {"kind": "internal", "message": f"bad{CONTROL}news"}
        send({"type": "response", "id": request_id, "error": error})
        return True
    if kind == "control-chars" and operation == "beats":
        raw(f"control{CONTROL}chars\n".encode(), sys.stderr)
        raw(f'{{"type": "response", "id": {json.dumps(request_id)}, "x": "{CONTROL}"}}\n'.encode())
        return True
    if kind == "flood-stderr" and operation == "classify":
        for _ in range(FLOOD // len(_CHUNK)):
            sys.stderr.buffer.write(_CHUNK)
        sys.stderr.flush()
        sys.exit(4)
    if kind == "odd-error-kind" and operation == "classify":
        error = {"kind": "not_supported", "message": "no classify here"}
        send({"type": "response", "id": request_id, "error": error})
        return True
    if kind == "id-zero" and operation == "classify":
        send({"type": "response", "id": 0, "output": {"readings": [], "default": None}})
        return True
    if kind in ("hang", "escape-hang") and operation == "classify":
        while True:
            time.sleep(3600)
    if kind == "fork-crash" and operation == "classify":
        # The child inherits stdin, stdout and stderr, and keeps them open.
        sleeper = "import time; time.sleep(600)"
        subprocess.Popen([sys.executable, "-c", sleeper, marker])
        sys.stderr.write("fork-crash: left a child behind, exiting\n")
        sys.stderr.flush()
        sys.exit(3)
    return False


def escape(marker: str) -> None:
    """Start a sleeper that no process group or session of the engine holds: it calls
    `setsid()`, forks again and its parent exits, so that it is no child of the engine's."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", marker])
        os._exit(0)
    os.wait()


def hello(kind: str, message: dict[str, Any]) -> tuple[Reference, dict[str, Any]]:
    """The reference for the hello's variant and the hello answer."""
    options = dict(message.get("options") or {})
    reference = Reference(str(message["variant"]), options)
    return reference, {
        "type": "hello",
        "protocol": 1,
        "name": f"hostile-{kind}",
        "version": "1",
        "variant": reference.variant,
        "options": reference.options,
        "operations": list(OPERATIONS),
    }


def main(kind: str, marker: str) -> int:
    """Speak the process protocol, badly, until `bye` or the end of input."""
    reference = Reference("base", {})
    known = canned()
    times = 2 if kind == "answer-twice" else 1
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind_of = message.get("type")
        if kind_of == "hello":
            reference, greeting = hello(kind, message)
            if kind.startswith("escape"):
                escape(marker)
            if kind == "escape-kill-keeper":
                os.kill(os.getppid(), signal.SIGKILL)
            send(greeting, times)
            if kind == "deaf":
                while True:
                    time.sleep(3600)
        elif kind_of == "bye":
            send({"type": "bye"}, times)
            return 0
        elif kind_of == "request":
            operation = str(message.get("operation"))
            if misbehave(kind, operation, message.get("id"), marker):
                continue
            send({"type": "response", **answer(message, reference, known)}, times)
        elif kind_of == "batch":
            items = message.get("requests") or []
            if kind == "exit-mid-batch":
                whole = {"type": "batch", "id": message.get("id"), "responses": []}
                text = json.dumps(whole)
                raw(text[: len(text) // 2].encode())
                sys.exit(5)
            if any(misbehave(kind, str(i.get("operation")), i.get("id"), marker) for i in items):
                continue
            responses = [answer(i, reference, known) for i in items]
            if kind == "short-batch":
                responses = responses[:-1]
            send({"type": "batch", "id": message.get("id"), "responses": responses}, times)
        else:
            send({"type": "error", "message": f"unknown message type {kind_of!r}"})
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if (
        not args
        or args[0] not in KINDS
        or (len(args) not in (1, 3))
        or args[1:2] not in ([], ["--marker"])
    ):
        sys.stderr.write(f"usage: hostile.py {{{','.join(KINDS)}}} [--marker TEXT]\n")
        sys.exit(2)
    sys.exit(main(args[0], args[2] if len(args) == 3 else ""))
