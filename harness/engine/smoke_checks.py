"""A protocol self-test (協定自檢) of an engine process, in a few seconds: its hello, one request
per operation it declares, a batch, malformed input, and bye, each answer checked line by line
against `spec/protocol.md` and its schemas (`guandan smoke`).

Unlike `ProcessEngine`, which forgives what it can (stale lines are dropped, a failed batch is
asked again one request at a time), this speaks to the process directly, one raw line at a time,
so that every violation is named with the line that caused it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from harness.engine.api import ERROR_KINDS, OPERATION_NAMES, Json, output_fields
from harness.engine.process import (
    _EXIT_GRACE,
    LINE_LIMIT,
    PROTOCOL_VERSION,
    ProcessEngine,
    _Eof,
    _Exited,
    _Overflow,
    _Session,
    parse_command,
)
from harness.engine.trace import Trace
from harness.model._schemas import schema_check
from harness.model.diagnostics import safe_text
from harness.model.ruleset import Ruleset
from harness.wording import counted

QUOTED = 200
"""The longest quote of an offending line, in characters."""
BYE_EXIT = 2.0
"""Seconds an engine has to exit once it has answered bye."""


class Outcome(Enum):
    """What became of one check."""

    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class Check:
    """One check: its name, its outcome, what was seen or what is wrong, and the offending line
    (escaped and cut) when there is one."""

    name: str
    outcome: Outcome
    detail: str = ""
    line: str = ""

    @property
    def failed(self) -> bool:
        """Whether the check found a violation."""
        return self.outcome is Outcome.FAIL


class _Gone(Exception):
    """The engine cannot be spoken to any more (it exited, hangs, or refused the session)."""


def quoted(line: bytes) -> str:
    """A line of the engine's as it can be shown: escaped where it is not UTF-8 or printable,
    cut to QUOTED characters."""
    text = safe_text(line.decode("utf-8", "backslashreplace"))
    return text if len(text) <= QUOTED else text[:QUOTED] + f"… ({len(line)} bytes)"


def schema_problem(value: Any, schema: str, definition: str) -> str | None:
    """Why `value` is not a `definition` of `spec/<schema>`, at the place it is wrong (the
    schema facade's first problem); None when it is one."""
    problems = schema_check(schema, definition).problems(value)
    return str(problems[0]) if problems else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _id_problem(got: Any, wanted: int, what: str) -> str | None:
    """Why `got` is not the id `wanted` of `what` (a string id named as such)."""
    if _is_int(got) and got == wanted:
        return None
    if isinstance(got, str):
        return f"{what} has the id {got!r}, a string: ids are integers ({wanted})"
    return f"{what} has the id {json.dumps(got)}, not {wanted}"


def answer_problems(answer: Any, operation: str, wanted: int, *, envelope: bool) -> list[str]:
    """What is wrong with the answer to request `wanted` of `operation`: a response (with its
    `type` when `envelope`, as a batch's items have none), its id, exactly one of output and
    error, a known error kind, and the output against the operation's output schema."""
    if not isinstance(answer, dict):
        return [f"a response must be a JSON object, not {json.dumps(answer)[:60]}"]
    problems = []
    if envelope and answer.get("type") != "response":
        problems.append(f'type is {json.dumps(answer.get("type"))}, not "response"')
    problem = _id_problem(answer.get("id"), wanted, "the response")
    if problem:
        problems.append(problem)
    if ("output" in answer) == ("error" in answer):
        problems.append("a response holds exactly one of `output` and `error`")
    elif "error" in answer:
        problems.extend(_error_field_problems(answer["error"]))
    else:
        problem = schema_problem(answer["output"], "case.schema.json", f"{operation}_output")
        if problem:
            problems.append(f"the {operation} output does not fit its schema: {problem}")
    if not problems:
        definition = "response" if envelope else "response_item"
        problem = schema_problem(answer, "protocol.schema.json", definition)
        if problem:
            problems.append(f"the response does not fit the protocol schema: {problem}")
    return problems


def hello_problems(answer: Json, asked: str) -> list[str]:
    """What is wrong with a hello answer, for a hello that asked for variant `asked`."""
    problems = []
    if answer.get("protocol") != PROTOCOL_VERSION or not _is_int(answer.get("protocol")):
        problems.append(
            f"protocol is {json.dumps(answer.get('protocol'))}, not {PROTOCOL_VERSION}"
            if "protocol" in answer
            else "no `protocol` (1)"
        )
    for field in ("name", "version", "variant"):
        if not isinstance(answer.get(field), str):
            problems.append(
                f"no `{field}` string" if field not in answer else f"`{field}` is no string"
            )
    if isinstance(answer.get("variant"), str) and answer["variant"] != asked:
        problems.append(f"the engine implements {answer['variant']!r}, not {asked!r} as asked")
    if "options" in answer and not isinstance(answer["options"], dict):
        problems.append("`options` must be an object")
    operations = answer.get("operations")
    if not isinstance(operations, list):
        problems.append("no `operations` list" if operations is None else "`operations` is no list")
    else:
        strange = [op for op in operations if op not in OPERATION_NAMES]
        if strange:
            problems.append(
                f"unknown operation(s) {', '.join(json.dumps(op) for op in strange)} "
                f"(known: {', '.join(OPERATION_NAMES)})"
            )
        if len({json.dumps(op) for op in operations}) != len(operations):
            problems.append("`operations` names an operation twice")
    not_modelled = answer.get("not_modelled", [])
    if not isinstance(not_modelled, list) or any(f not in output_fields() for f in not_modelled):
        problems.append("`not_modelled` must be a list of output field names")
    if not problems:
        problem = schema_problem(answer, "protocol.schema.json", "hello_answer")
        if problem:
            problems.append(f"the hello does not fit the protocol schema: {problem}")
    return problems


class _Smoke:
    """One smoke test in progress: the engine's session and the checks made so far."""

    def __init__(self, session: _Session, ruleset: Ruleset, timeout: float) -> None:
        self.session = session
        self.ruleset = ruleset
        self.timeout = timeout
        self.checks: list[Check] = []
        self.next_id = 0
        self.ending = False  # at bye: no step is left to skip

    def passed(self, name: str, detail: str = "") -> None:
        """Record a check that held."""
        self.checks.append(Check(name, Outcome.PASS, detail))

    def failed(self, name: str, detail: str, line: bytes | None = None) -> None:
        """Record a violation, with the line that shows it."""
        self.checks.append(Check(name, Outcome.FAIL, detail, quoted(line) if line else ""))

    def judged(self, name: str, problems: Sequence[str], line: bytes, detail: str = "") -> None:
        """Record a check that holds unless `problems` were found in `line`."""
        if problems:
            self.failed(name, "; ".join(problems), line)
        else:
            self.passed(name, detail)

    def new_id(self) -> int:
        """The next request id (ids start at 1)."""
        self.next_id += 1
        return self.next_id

    def send(self, name: str, message: Json | bytes) -> None:
        """Write one line; a line the engine printed meanwhile, unasked, is a violation."""
        stray = self._stray()
        if stray:
            self.failed(
                name,
                f"the engine printed {counted(len(stray), 'line')} answering nothing",
                stray[0],
            )
        if isinstance(message, bytes):
            data = message
        else:
            data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            self.session.write(data, time.monotonic() + self.timeout)
        except TimeoutError:
            self.failed(name, f"the engine did not read its input within {self.timeout:g} s")
            raise _Gone from None
        except OSError:
            # Its input is closed: it is exiting, or has, and its status may be on its way.
            self.session.exited.wait(_EXIT_GRACE)
            self.failed(name, self._exit_text("closed its input"))
            raise _Gone from None

    def _stray(self) -> list[bytes]:
        """The lines already printed (none can answer what is about to be sent)."""
        lines: list[bytes] = []
        kept = []
        while (event := self.session.get(0)) is not None:
            if isinstance(event, bytes):
                lines.append(event)
            else:
                kept.append(event)
        self.session.backlog.extend(kept)
        return lines

    def receive(self, name: str, *, fatal: bool = True) -> tuple[bytes, Any] | None:
        """The next line and its JSON, or None after recording why there is none or it is no
        JSON object (`_Gone` when the engine cannot answer any more, or hangs and `fatal`)."""
        deadline = time.monotonic() + self.timeout
        while True:
            event = self.session.get(deadline - time.monotonic())
            if event is None and self.session.exited.is_set():
                self.failed(name, self._exit_text("exited"))
                raise _Gone
            if event is None:
                self.failed(name, f"no answer within {self.timeout:g} s")
                if fatal:
                    raise _Gone
                return None
            if isinstance(event, _Exited):
                # Its last lines may still be on their way: a short grace for them.
                deadline = min(deadline, time.monotonic() + _EXIT_GRACE)
                continue
            if isinstance(event, _Eof):
                self.session.exited.wait(_EXIT_GRACE)  # for its exit status
                self.failed(name, self._exit_text("closed its output"))
                raise _Gone
            if isinstance(event, _Overflow):
                self.failed(name, f"a line longer than {LINE_LIMIT} bytes")
                raise _Gone
            try:
                value = json.loads(event.decode("utf-8"))
            except UnicodeDecodeError as exc:
                self.failed(name, f"a line that is not UTF-8 (byte {exc.start})", event)
                return None
            except (ValueError, RecursionError):
                self.failed(name, "a line that is not JSON", event)
                return None
            if not isinstance(value, dict):
                self.failed(name, "a line that is no JSON object", event)
                return None
            return event, value

    def _exit_text(self, what: str) -> str:
        seen = self.session.stderr_text()
        tail = f" ({seen[:QUOTED]})" if seen else ""
        if self.session.exited.is_set():
            return f"the engine exited (status {self.session.code}) without answering{tail}"
        return f"the engine {what} without answering{tail}"

    # -- the steps -----------------------------------------------------------------------------

    def hello(self) -> list[str]:
        """Send the hello, check its answer; the operations the engine declares."""
        hello = ProcessEngine("engine", self.ruleset).hello()
        self.send("hello", hello)
        got = self.receive("hello")
        if got is None:
            raise _Gone
        line, answer = got
        if answer.get("type") == "error":
            self.failed(
                "hello",
                f"the engine refused variant {self.ruleset.slug!r} "
                f"({answer.get('message')!r}): try --variant",
                line,
            )
            raise _Gone
        if answer.get("type") != "hello":
            self.failed("hello", f'type is {json.dumps(answer.get("type"))}, not "hello"', line)
            raise _Gone
        problems = hello_problems(answer, self.ruleset.slug)
        operations = answer.get("operations")
        declared = (
            [op for op in operations if op in OPERATION_NAMES]
            if isinstance(operations, list)
            else []
        )
        self.judged(
            "hello",
            problems,
            line,
            f"{answer.get('name')} {answer.get('version')}, protocol {PROTOCOL_VERSION}, "
            + counted(len(declared), "operation"),
        )
        return declared

    def request(self, operation: str, data: Mapping[str, Any], name: str) -> None:
        """One request, its answer checked."""
        request_id = self.new_id()
        message = {"type": "request", "id": request_id, "operation": operation, "input": data}
        self.send(name, message)
        got = self.receive(name)
        if got is not None:
            line, answer = got
            problems = answer_problems(answer, operation, request_id, envelope=True)
            self.judged(name, problems, line, _answered(answer))

    def batch(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """A batch of the requests `items`, its answer checked item by item."""
        name = f"batch of {len(items)}"
        ids = [self.new_id() for _ in items]
        batch_id = self.new_id()
        requests = [
            {"id": i, "operation": op, "input": data}
            for i, (op, data) in zip(ids, items, strict=True)
        ]
        self.send(name, {"type": "batch", "id": batch_id, "requests": requests})
        got = self.receive(name)
        if got is None:
            return
        line, answer = got
        problems = []
        if answer.get("type") != "batch":
            problems.append(f'type is {json.dumps(answer.get("type"))}, not "batch"')
        problem = _id_problem(answer.get("id"), batch_id, "the batch answer")
        if problem:
            problems.append(problem)
        responses = answer.get("responses")
        if not isinstance(responses, list):
            problems.append("`responses` must be a list, one response per request")
        elif len(responses) != len(items):
            problems.append(
                f"{counted(len(responses), 'response')} for {counted(len(items), 'request')}"
            )
        else:
            for n, (response, wanted, (op, _)) in enumerate(
                zip(responses, ids, items, strict=True)
            ):
                found = answer_problems(response, op, wanted, envelope=False)
                problems.extend(f"response {n + 1}: {p}" for p in found)
        if not problems:
            problem = schema_problem(answer, "protocol.schema.json", "batch_answer")
            if problem:
                problems.append(f"the batch answer does not fit the protocol schema: {problem}")
        self.judged(name, problems, line, "answered in order, ids matched")

    def malformed(self, name: str, message: bytes | Json) -> None:
        """Something the engine cannot act on: it must answer an `error` message, or a response
        with an error (and go on, which the next step checks)."""
        self.send(name, message)
        got = self.receive(name, fatal=False)
        if got is None:
            return
        line, answer = got
        if answer.get("type") == "error":
            problem = schema_problem(answer, "protocol.schema.json", "error")
            self.judged(name, [problem] if problem else [], line, "an error message")
        elif answer.get("type") == "response" and "error" in answer:
            wanted = message.get("id") if isinstance(message, dict) else None
            self.judged(name, _error_problems(answer, wanted), line, "an error response")
        else:
            self.failed(name, "expected an `error` message or a response with an error", line)

    def bye(self) -> None:
        """Say bye: the engine answers bye and exits, with status 0, within BYE_EXIT s."""
        self.ending = True
        self.send("bye", {"type": "bye"})
        got = self.receive("bye")
        answered = got is not None and got[1] == {"type": "bye"}
        if got is not None and not answered:
            self.failed("bye", 'expected the answer {"type": "bye"}', got[0])
        start = time.monotonic()
        if not self.session.exited.wait(BYE_EXIT):
            self.failed("bye", f"the engine did not exit within {BYE_EXIT:g} s of bye")
        elif self.session.code != 0:
            self.failed("bye", f"the engine exited with status {self.session.code} after bye")
        elif answered:
            self.passed("bye", f"answered bye, exited in {time.monotonic() - start:.2f} s")


def _answered(answer: Json) -> str:
    """What a correct response held, in a few words."""
    if "error" in answer:
        return f"answered {answer['error'].get('kind')}"
    return "answered"


def _error_field_problems(error: Any) -> list[str]:
    """What is wrong with a response's `error`: an object of a known kind and a message."""
    if not isinstance(error, dict):
        return ["`error` must be an object {kind, message}"]
    problems = []
    if error.get("kind") not in ERROR_KINDS:
        problems.append(
            f"error kind {json.dumps(error.get('kind'))} is none of {', '.join(ERROR_KINDS)}"
        )
    if not isinstance(error.get("message"), str):
        problems.append("the error has no `message` string")
    return problems


def _error_problems(answer: Json, wanted: int | None) -> list[str]:
    """What is wrong with a response that carries an error, to request `wanted` (its id may
    also be null, for a request whose id could not be read)."""
    problems = []
    if answer.get("id") is not None and wanted is not None:
        problem = _id_problem(answer.get("id"), wanted, "the response")
        if problem:
            problems.append(problem)
    problems.extend(_error_field_problems(answer.get("error")))
    return problems


def smoke(
    command: str,
    ruleset: Ruleset,
    *,
    inputs: Mapping[str, Mapping[str, Any]],
    timeout: float = 5.0,
    trace: Trace | None = None,
) -> list[Check]:
    """Every check of the smoke test of the engine started by `command`, for `ruleset` (every
    option valued), asking each operation it declares the input `inputs` gives it (one of the
    corpus's cases), each answer awaited at most `timeout` s."""
    argv = parse_command(command)
    try:
        session = _Session(argv, trace)
    except OSError as exc:
        return [Check("start", Outcome.FAIL, f"cannot start {argv[0]!r}: {exc}")]
    test = _Smoke(session, ruleset, timeout)
    try:
        _steps(test, inputs)
    except _Gone:
        if not test.ending:
            test.checks.append(
                Check("the rest", Outcome.SKIP, "not run: the engine cannot be spoken to any more")
            )
    finally:
        session.end()
    return test.checks


def _steps(test: _Smoke, inputs: Mapping[str, Mapping[str, Any]]) -> None:
    """The steps of a smoke test, in order."""
    declared = test.hello()
    asked: list[tuple[str, Mapping[str, Any]]] = []
    for operation in declared:
        if operation not in inputs:
            test.checks.append(
                Check(operation, Outcome.SKIP, f"no bundled case of it for {test.ruleset.slug}")
            )
            continue
        test.request(operation, inputs[operation], operation)
        asked.append((operation, inputs[operation]))
    if not asked and "classify" in inputs:
        asked.append(("classify", inputs["classify"]))  # answered unsupported, then
    if not asked:
        raise _Gone
    test.batch([asked[0], asked[1 % len(asked)]])
    test.malformed("a line that is not JSON", b"this is not JSON\n")
    test.malformed(
        "a request without its operation",
        {"type": "request", "id": test.new_id(), "input": {}},
    )
    test.request(*asked[0], "answers again after malformed input")
    test.bye()
