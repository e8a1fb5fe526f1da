"""The process protocol (行程協定), server side: `guandan serve` answers it over the reference
interpreter, one JSON line in, one JSON line out.

Served for one variant (a Ruleset: bundled, or loaded from a variant file), a hello naming that
variant's slug is accepted with any of its options; served for none, a hello may name any
bundled variant. The `clauses` a hello carries are not needed for those (the server has the
rules); a variant derived from a bundled one (`huaian[flow.pass=when_unable]`) is played by them.

Whatever a line holds, it gets one well-formed answer (one line of UTF-8 JSON) and the server
goes on: a line that is too long, not UTF-8, not JSON or nested too deep gets an `error`
message; a request whose input has a field of the wrong JSON type is answered `invalid_input`
before the interpreter sees it (the types are those of `spec/case.schema.json`); and should the
interpreter still fail, the request is answered `internal` and the traceback goes to stderr.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
import sys
import traceback
from collections.abc import Iterator, Mapping
from typing import IO, Any

from harness import __version__
from harness.engine._variants import as_ruleset
from harness.engine.api import OPERATION_NAMES, EngineInfo, Json, Reach
from harness.engine.process import LINE_LIMIT, PROTOCOL_VERSION
from harness.errors import HarnessError
from harness.interpreter.operations import run_operation
from harness.model._schema_types import shown as _shown
from harness.model._schemas import schema_check
from harness.model.derived import derive
from harness.model.diagnostics import json_type
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset

MAX_LINE_BYTES = 1 << 20
"""The longest line read (1 MiB, the newline not counted; characters on a text stream); a
longer one is answered an error and skipped without being held in memory."""

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a message may have; the deepest the protocol uses
is about 8. Deeper data never reaches the interpreter, whose checks recurse."""

_SKIP_CHUNK = 1 << 16
# Only JSON's own whitespace makes a blank line: `str.strip` would also drop \x0b, \x1c or
# U+2028, and such a line would then go unanswered.
_JSON_SPACE = " \t\r\n"
# Lone surrogates (only an escape such as "\ud800" can make one) cannot be written as UTF-8:
# echoed text carries U+FFFD in their place. NEL and the Unicode line and paragraph separators
# are escaped, so that no reader that splits lines on them sees an answer break in two.
_UNWRITABLE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("[\x85\u2028\u2029]")


class _LineTooLong:
    """What the reader yields for a line past MAX_LINE_BYTES (its text is not kept)."""


_TOO_LONG = _LineTooLong()


def _read_lines(stdin: IO[Any]) -> Iterator[str | bytes | _LineTooLong]:
    """The lines of `stdin` without their newline, each read with a bounded `readline`: bytes
    from a binary stream, text from a text stream, `_TOO_LONG` for a line too long to take."""
    while True:
        line = stdin.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        newline = "\n" if isinstance(line, str) else b"\n"
        if line.endswith(newline):
            yield line[:-1]
        elif len(line) <= MAX_LINE_BYTES:
            yield line  # the last line, with no newline after it
        else:
            # Read on to the end of the line in small pieces, keeping none of them.
            while True:
                rest = stdin.readline(_SKIP_CHUNK)
                if not rest or rest.endswith(newline):
                    break
            yield _TOO_LONG


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _too_deep(value: Any) -> bool:
    """Whether arrays and objects nest in `value` deeper than MAX_DEPTH (walked level by level
    without recursion, so that the check itself cannot overflow; only containers are kept)."""
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            return True
        below: list[Any] = []
        for node in level:
            children = node.values() if type(node) is dict else node
            below += [child for child in children if type(child) in (dict, list)]
        level = below
    return False


def _parse(text: str) -> tuple[Any, str | None]:
    """The JSON value of a line, or why it is refused."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError:
        return None, "not JSON"
    except RecursionError:
        return None, f"not read: arrays and objects nested deeper than {MAX_DEPTH}"
    except ValueError as exc:  # NaN, 1e999, an integer of more than 4300 digits
        return None, f"not JSON: {exc}"
    if _too_deep(value):
        return None, f"not read: arrays and objects nested deeper than {MAX_DEPTH}"
    return value, None


def _encode(message: Json, limit: int = LINE_LIMIT) -> bytes:
    """One answer line, UTF-8 whatever text the answer echoes, and never longer than the
    client's line limit: an answer past it is replaced by an error saying so (a response keeps
    its id; a batch is refused whole, so that its requests are asked one at a time)."""
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:  # pragma: no cover - a server bug
        text = json.dumps({"type": "error", "message": f"internal: answer not writable ({exc})"})
    if not text.isascii():  # most answers are: nothing to replace or escape
        text = _UNWRITABLE.sub("\ufffd", text)
        text = _LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    data = text.encode("utf-8")
    if len(data) <= limit:
        return data + b"\n"
    why = f"the answer is {len(data):,} bytes, over the protocol's line limit of {limit:,}"
    if message.get("type") == "response":
        error = {"kind": "internal", "message": why}
        return _encode({"type": "response", "id": message.get("id"), "error": error}, limit)
    return _encode({"type": "error", "message": f"{why}: send the requests one at a time"}, limit)


def input_problem(operation: str, data: Any) -> str | None:
    """Why `data` cannot be the input of `operation` for its JSON types (a field of the wrong
    type, at any depth), or None; the values themselves are the interpreter's to judge."""
    return schema_check("case.schema.json", f"{operation}_input").type_problem(data)


# --- answers -----------------------------------------------------------------------------


def _echoed_id(value: Any) -> tuple[int | None, str | None]:
    """The id to repeat in an answer, and why it is refused: an id is a whole number, as the
    schema has it, or absent (null); anything else is answered with id null, since an answer
    may only repeat a whole number."""
    if value is None or json_type(value) == "integer":
        return value, None
    return None, f"`id` must be a whole number, found {json_type(value)} {_shown(value)}"


def _failure(kind: str, message: str, request_id: Any = None) -> Json:
    return {"id": request_id, "error": {"kind": kind, "message": message}}


def _respond(item: Mapping[str, Any], ruleset: Ruleset) -> Json:
    request_id, bad_id = _echoed_id(item.get("id"))
    operation = item.get("operation")
    data = item.get("input")
    if bad_id is not None:
        return _failure("invalid_input", bad_id)
    if not isinstance(operation, str) or operation not in OPERATION_NAMES:
        return _failure("unsupported", f"unknown operation {_shown(operation)}", request_id)
    if not isinstance(data, dict):
        return _failure("invalid_input", "`input` must be an object", request_id)
    problem = input_problem(operation, data)
    if problem is not None:
        return _failure("invalid_input", problem, request_id)
    try:
        return {"id": request_id, "output": run_operation(operation, data, ruleset)}
    except HarnessError as exc:
        return _failure("invalid_input", str(exc), request_id)
    except Exception as exc:
        # A failure of the interpreter itself: the protocol's `internal`, and the server goes
        # on. The traceback is for whoever reads the engine's stderr.
        traceback.print_exc(file=sys.stderr)
        return _failure("internal", f"{type(exc).__name__}: {exc}", request_id)


def _session(served: Ruleset | None, hello: Mapping[str, Any]) -> Ruleset:
    """The variant a hello asks for, options chosen; HarnessError says why it is refused."""
    if hello.get("protocol") != PROTOCOL_VERSION:
        found = _shown(hello.get("protocol"))
        raise HarnessError(f"this server speaks protocol {PROTOCOL_VERSION}; the hello, {found}")
    wanted = hello.get("variant")
    if not isinstance(wanted, str):
        # Named even when the server plays one variant: the harness always names it, and a
        # client that does not is told so rather than given a variant it may not expect.
        playing = f" (this server plays {served.slug})" if served is not None else ""
        raise HarnessError(
            f"the hello must name its `variant` by slug, found {_shown(wanted)}{playing}"
        )
    options = hello.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise HarnessError(f"`options` must be an object, found {_shown(options)}")
    base, derived, _ = wanted.partition("[")
    clauses = hello.get("clauses")
    if derived and isinstance(clauses, dict) and (served is None or base == served.slug):
        start = load_variant(base, options) if served is None else served.with_options(options)
        return _derived(start, wanted, clauses)
    if served is None:
        return load_variant(wanted, options)
    if wanted != served.slug:
        raise HarnessError(f"this server plays {served.slug}, not {wanted}")
    return served.with_options(options)


def _derived(base: Ruleset, wanted: str, clauses: Mapping[str, Any]) -> Ruleset:
    """A variant derived from the one served (or a bundled one) for cases on values it does not
    play (`huaian[flow.pass=when_unable]`), played by the clause values its hello sends: the
    base with those values set, as the loader checks them (HarnessError where it refuses one)."""
    played = derive(base, clauses)
    if played is None:
        raise HarnessError(f"{wanted}: the clause values sent do not make a variant of {base.slug}")
    return dataclasses.replace(played, slug=wanted)


class _Server:
    """One session of the protocol: the variant served and the one a hello chose."""

    def __init__(self, served: Ruleset | None) -> None:
        self.served = served
        self.ruleset: Ruleset | None = None

    def answer(self, message: Any) -> Json:
        """The answer to one parsed message."""
        if not isinstance(message, dict):
            return {"type": "error", "message": "a message must be a JSON object"}
        kind = message.get("type")
        if kind == "hello":
            if self.ruleset is not None:
                return {
                    "type": "error",
                    "message": f"a session has one hello: this one plays {self.ruleset.slug}",
                }
            try:
                self.ruleset = _session(self.served, message)
            except HarnessError as exc:
                return {"type": "error", "message": str(exc)}
            # Every option the variant offers, with its value (the chosen one, else the
            # default), as the protocol says a hello carries them: never `{}` for huaian.
            chosen = self.ruleset.chosen
            options = {
                name: chosen.get(name, option.default)
                for name, option in self.ruleset.options.items()
            }
            # It plays a variant derived from the one served, or a bundled one, by its derived
            # name, from the clause values the hello sends (`_derived`).
            info = EngineInfo(
                "guandan-harness reference",
                __version__,
                self.ruleset.slug,
                options,
                rulesets=Reach.DERIVED,
            )
            return {"type": "hello", "protocol": PROTOCOL_VERSION, **info.to_json()}
        if kind == "bye":
            return {"type": "bye"}
        if kind not in ("request", "batch"):
            return {"type": "error", "message": f"unknown message type {_shown(kind)}"}
        if self.ruleset is None:
            return {"type": "error", "message": "say hello first"}
        if kind == "request":
            return {"type": "response", **_respond(message, self.ruleset)}
        batch_id, bad_id = _echoed_id(message.get("id"))
        items = message.get("requests")
        if batch_id is None:
            # A batch answer must repeat a whole number (a response may have id null).
            found = message.get("id")
            bad_id = bad_id or f"`id` must be a whole number, found {_shown(found)}"
            return {"type": "error", "message": f"a batch's {bad_id}"}
        if not isinstance(items, list):
            return {"type": "error", "message": "a batch needs `requests`"}
        return {
            "type": "batch",
            "id": batch_id,
            "responses": [
                _respond(i, self.ruleset)
                if isinstance(i, dict)
                else _failure("invalid_input", "not an object")
                for i in items
            ],
        }


def _answer_line(server: _Server, line: str | bytes | _LineTooLong) -> Json | None:
    """The answer to one line, None for a blank one."""
    if isinstance(line, _LineTooLong):
        return {"type": "error", "message": f"line longer than {MAX_LINE_BYTES} bytes, not read"}
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = line[exc.start : exc.end].hex(" ")
            what = "byte" if exc.end - exc.start == 1 else "bytes"
            return {"type": "error", "message": f"not UTF-8: {what} {bad} at offset {exc.start}"}
    else:
        text = line
    if not text.strip(_JSON_SPACE):
        return None
    message, refused = _parse(text)
    if refused is not None:
        return {"type": "error", "message": refused}
    try:
        return server.answer(message)
    except Exception as exc:
        # Past the checks above nothing should fail; if it does, the line is still answered.
        traceback.print_exc(file=sys.stderr)
        return {"type": "error", "message": f"internal: {type(exc).__name__}: {exc}"}


def serve(
    variant: Ruleset | str | None, stdin: IO[Any] = sys.stdin, stdout: IO[Any] = sys.stdout
) -> int:
    """Answer the process protocol over the reference interpreter until `bye` or end of input:
    for `variant` only (a Ruleset, or a bundled slug), or for any bundled variant (None).

    Binary streams carry UTF-8; a text stream with a binary `buffer` (sys.stdin, sys.stdout) is
    read and written through it, so that the lines are UTF-8 whatever the locale says; other
    text streams (io.StringIO) are taken as they are."""
    server = _Server(None if variant is None else as_ruleset(variant))
    source = getattr(stdin, "buffer", stdin)
    sink = getattr(stdout, "buffer", None)
    if sink is not None:
        stdout.flush()  # whatever the text layer holds goes first
    elif isinstance(stdout, io.BufferedIOBase):  # io.BytesIO, a BufferedWriter
        sink = stdout

    def send(message: Json) -> None:
        data = _encode(message)
        if sink is not None:
            sink.write(data)
            sink.flush()
        else:
            stdout.write(data.decode("utf-8"))
            stdout.flush()

    try:
        for line in _read_lines(source):
            answer = _answer_line(server, line)
            if answer is None:
                continue
            send(answer)
            if answer == {"type": "bye"}:
                return 0
    except BrokenPipeError:
        # The client has gone: there is no one left to answer.
        return 0
    return 0
