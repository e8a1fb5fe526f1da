"""`guandan serve` answers every line (issue 16): whatever a line holds — a hello's options of
the wrong type, a lone surrogate, 100,000 nested arrays, a byte that is not UTF-8, an input
field of the wrong type, a line past 1 MiB — it gets one answer, one line of UTF-8 JSON, and
the server goes on. The regression tests pin each crash found; the property test feeds random
and mutated protocol lines (20,000 of them under HYPOTHESIS_PROFILE=thorough)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource

from harness.conformance.cases.case_loader import load_cases
from harness.engine import server as server_module
from harness.engine.server import MAX_LINE_BYTES, _encode, serve
from harness.interpreter.operations import run_operation
from harness.model import _schema_types as schema_types
from harness.model._schemas import load_schema
from harness.model.loader import load_variant

ROOT = Path(__file__).resolve().parents[1]
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"

HELLO = {"type": "hello", "protocol": 1, "variant": "competition", "options": {}}
HUAIAN = {
    "type": "hello",
    "protocol": 1,
    "variant": "huaian",
    "options": {"target": "A"},
    "clauses": {"levels.up.double_down": 3},
}
INPUTS: dict[str, dict[str, Any]] = {
    "classify": {"cards": ["S5", "S5", "S7", "S7", "H7"], "level": "7"},
    "beats": {
        "play": {"type": "straight_flush", "rank": "9", "size": 5},
        "previous": {"type": "bomb", "rank": "A", "size": 5},
        "level": "2",
    },
    "legal_plays": {
        "hand": ["S3", "S3", "S4"],
        "level": "9",
        "previous": {"type": "pair", "rank": "2", "size": 2},
    },
    "legal_actions": {"hand": ["S3", "S3", "S4", "H9", "SB"], "level": "9", "previous": None},
    "tribute": {
        "finish": [0, 2, 1, 3],
        "hands": [["SA", "H3"], ["D5", "C6"], ["HR", "S2"], ["SK", "DK"]],
        "level": "5",
    },
    "settle": {"state": {"levels": ["A", "5"], "declarer": 0}, "finish": [0, 2, 1, 3]},
    "replay": {
        "hands": [["S2", "H4"], ["S3"], ["S4"], ["S5"]],
        "level": "2",
        "leader": 0,
        "actions": [
            {"seat": 0, "cards": ["S2"]},
            {"seat": 1, "pass": True},
            {"seat": 2, "ask": 0},
            {"seat": 2, "cards": ["S4"], "reading": {"type": "single", "rank": "4", "size": 1}},
        ],
    },
    "score": {"winner": 1, "levels_gained": 4, "final_level": "A", "match_over": True},
}
REQUESTS = [
    {"type": "request", "id": n, "operation": op, "input": data}
    for n, (op, data) in enumerate(INPUTS.items(), start=1)
]
BATCH = {
    "type": "batch",
    "id": 100,
    "requests": [{k: v for k, v in r.items() if k != "type"} for r in REQUESTS],
}
SEEDS: list[Any] = [HELLO, HUAIAN, *REQUESTS, BATCH]
"""Valid lines for every message and operation, which the property test mutates."""

PROBE_ID = 424242
PROBE = {"type": "request", "id": PROBE_ID, "operation": "classify", "input": INPUTS["classify"]}


def line(message: Any) -> bytes:
    """A message as the protocol line that carries it (no newline)."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8")


def run(lines: list[bytes], variant: str | None = None) -> list[dict[str, Any]]:
    """Feed raw lines to serve() through in-memory binary streams; every answer must be UTF-8
    JSON on one line, and is returned parsed."""
    out = io.BytesIO()
    assert serve(variant, io.BytesIO(b"".join(x + b"\n" for x in lines)), out) == 0
    return parse_answers(out.getvalue())


def parse_answers(data: bytes) -> list[dict[str, Any]]:
    """The answers in serve's output, each checked to be one line of UTF-8 JSON, an object
    with a type."""
    assert not data or data.endswith(b"\n")
    answers = []
    for raw in data.split(b"\n")[:-1]:
        text = raw.decode("utf-8")  # strict: UnicodeDecodeError fails the test
        assert len(text.splitlines()) == 1, text
        answer = json.loads(text)
        assert isinstance(answer, dict) and isinstance(answer.get("type"), str), text
        answers.append(answer)
    return answers


def session(*lines: bytes) -> list[bytes]:
    """A hello, the lines, then a valid request whose answer shows the server still works."""
    return [line(HELLO), *lines, line(PROBE)]


def expect_recovered(answers: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The answers to the `count` lines between the hello and the probe, after checking that
    the hello was accepted and the probe answered correctly."""
    assert len(answers) == count + 2, answers
    assert answers[0]["type"] == "hello"
    wanted = run_operation("classify", INPUTS["classify"], load_variant("competition"))
    assert answers[-1] == {"type": "response", "id": PROBE_ID, "output": wanted}
    return answers[1:-1]


def invalid_input(answer: dict[str, Any]) -> str:
    """The message of a response refusing its input as `invalid_input`."""
    assert answer["type"] == "response" and set(answer) == {"type", "id", "error"}, answer
    assert answer["error"]["kind"] == "invalid_input", answer
    message: str = answer["error"]["message"]
    return message


# --- one regression test per crash class -----------------------------------------------------


@pytest.mark.parametrize("options", [[1], [], "target", "", 7, 0, True, False])
def test_a_hello_whose_options_are_not_an_object_is_refused(options: Any) -> None:
    """Refused, it opens no session: a good hello after it is accepted."""
    hello = {**HELLO, "options": options}
    refused, *answers = run([line(hello), *session()])
    assert refused["type"] == "error" and "`options` must be an object" in refused["message"]
    expect_recovered(answers, 0)


def test_serve_is_strict_about_the_hello() -> None:
    """Issue 24: the hello names its variant even when the server plays one, says protocol 1,
    comes once; the answer echoes every option the variant offers (never `{}` for huaian)."""
    nameless = {"type": "hello", "protocol": 1, "options": {"target": "A"}}
    (answer,) = run([line(nameless)], "huaian")
    assert answer["type"] == "error" and "must name its `variant`" in answer["message"]
    (answer,) = run([line({**HUAIAN, "protocol": 2})])
    assert answer["type"] == "error" and "protocol 1" in answer["message"]
    first, second = run([line({**HUAIAN, "options": {}}), line(HUAIAN)])
    assert first["type"] == "hello" and first["options"] == {"target": "A"}
    assert second == {"type": "error", "message": "a session has one hello: this one plays huaian"}
    eight = {**HUAIAN, "options": {"target": "8"}}
    assert run([line(eight)])[0]["options"] == {"target": "8"}


@pytest.mark.parametrize("variant", [None, "huaian"])
def test_a_hello_with_wrong_types_is_refused_when_serving_one_variant(variant: Any) -> None:
    hellos = [
        {"type": "hello", "protocol": 1, "variant": ["huaian"]},
        {"type": "hello", "protocol": 1, "variant": "huaian", "options": ["target"]},
        {"type": "hello", "protocol": 1, "variant": "huaian", "options": {"target": [1]}},
        {"type": "hello", "protocol": 1, "variant": "huaian", "options": {"target": {}}},
    ]
    answers = run([*map(line, hellos), line(HUAIAN), line({**PROBE, "id": 5})], variant)
    assert [a["type"] for a in answers] == ["error"] * 4 + ["hello", "response"]
    assert answers[-1]["output"]["readings"]


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "request", "id": "\\ud800", "operation": "classify", "input": {}}',
        '{"type": "request", "id": 3, "operation": "classify",'
        ' "input": {"cards": ["\\ud800", "S\\udfff"], "level": "7"}}',
        '{"type": "request", "id": 3, "operation": "classify",'
        ' "input": {"cards": ["S3"], "level": "\\ud800"}}',
        '{"type": "request", "id": 3, "operation": "\\udbff", "input": {}}',
        '{"type": "\\ud800"}',
        '{"type": "hello", "protocol": 1, "variant": "\\ud800"}',
        '{"type": "hello", "protocol": 1, "variant": "competition", "options": {"\\ud800": 1}}',
    ],
)
def test_a_lone_surrogate_is_echoed_as_a_replacement_character(raw: str) -> None:
    answers = expect_recovered(run(session(raw.encode("ascii"))), 1)
    assert answers[0]["type"] in ("response", "error")
    text = json.dumps(answers[0], ensure_ascii=False)
    assert not any("\ud800" <= c <= "\udfff" for c in text)


def test_a_lone_surrogate_in_a_text_stream_is_written_as_utf8() -> None:
    """On a text stream (io.StringIO) the surrogate may come raw; the answer is still UTF-8."""
    out = io.StringIO()
    text = line(HELLO).decode() + '\n{"type": "request", "id": 1, "operation": "classify",'
    serve(None, io.StringIO(text + ' "input": {"cards": ["\ud800"], "level": "7"}}\n'), out)
    answers = parse_answers(out.getvalue().encode("utf-8"))
    assert "\ufffd" in invalid_input(answers[1])


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
@pytest.mark.parametrize("shape", ["[{}]", '{"a":{}}', '{"id":{}}'])
def test_deep_nesting_is_refused(depth: int, shape: str) -> None:
    head, tail = shape.split("{}")
    answers = expect_recovered(run(session((head * depth + "1" + tail * depth).encode())), 1)
    assert answers[0] == {
        "type": "error",
        "message": "not read: arrays and objects nested deeper than 64",
    }


def test_deep_nesting_inside_an_input_is_refused() -> None:
    nested = "[" * 500 + "]" * 500
    raw = '{"type": "request", "id": 9, "operation": "classify", "input": {"cards": %s}}'
    answers = expect_recovered(run(session((raw % nested).encode())), 1)
    assert "nested deeper" in answers[0]["message"]


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff",
        b'{"type": "request", "id": 1, "operation": "classify", "input": {"cards": ["S\xff"]}}',
        b"\xc3",  # a truncated two-byte sequence
        b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 (CESU), which UTF-8 forbids
        b"\xc0\xaf",  # an overlong "/"
    ],
)
def test_bytes_that_are_not_utf8_are_refused(raw: bytes) -> None:
    answers = expect_recovered(run(session(raw)), 1)
    assert answers[0]["type"] == "error" and answers[0]["message"].startswith("not UTF-8")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"type": "request", "id": ' + "9" * 5000 + "}", "not JSON: Exceeds the limit"),
        ('{"type": "request", "id": 1e999}', "not JSON: the number 1e999 is out of range"),
        ('{"type": "request", "id": NaN}', "not JSON: NaN is not a JSON value"),
        ('{"type": "request", "id": -Infinity}', "not JSON: -Infinity is not a JSON value"),
        ("[1, 2]", "a message must be a JSON object"),
        ('"hello"', "a message must be a JSON object"),
        ("null", "a message must be a JSON object"),
        ("\x0b", "not JSON"),
        ("\u2028", "not JSON"),
        ('{"type": ["hello"]}', 'unknown message type ["hello"]'),
        ('{"type": "batch", "id": 1, "requests": {}}', "a batch needs `requests`"),
        ('{"type": "batch", "id": [1], "requests": []}', "a batch's `id` must be a whole number"),
    ],
)
def test_lines_that_are_no_message_get_an_error(raw: str, message: str) -> None:
    answers = expect_recovered(run(session(raw.encode("utf-8"))), 1)
    assert answers[0]["type"] == "error" and answers[0]["message"].startswith(message)


def _req(operation: str, **changes: Any) -> dict[str, Any]:
    return {"type": "request", "id": 7, "operation": operation, "input": changes}


WRONG_TYPES = [
    (_req("legal_plays", hand={"S3": 1}, level="9"), "`hand` must be a list"),
    (_req("legal_actions", hand="S3 S4", level="9"), "`hand` must be a list"),
    (_req("classify", cards=[3, 4], level="7"), "`cards[0]` must be a string"),
    (_req("classify", cards=[None], level="7"), "`cards[0]` must be a string"),
    (_req("classify", cards=["S3"], level=["7"]), "`level` must be a string"),
    (_req("classify", cards=["S3"], level=7), "`level` must be a string"),
    (_req("beats", play="pair", previous={}, level="2"), "`play` must be an object"),
    (
        _req("beats", play={"type": "pair", "rank": 3, "size": 2}, previous={}, level="2"),
        "`play.rank` must be a string",
    ),
    (
        _req("beats", play={"type": "pair", "rank": "3", "size": 2.0}, previous={}, level="2"),
        "`play.size` must be a whole number",
    ),
    (_req("legal_plays", hand=[], level="2", previous=[]), "`previous` must be an object or null"),
    (_req("tribute", finish="0213", hands=[], level="2"), "`finish` must be a list"),
    (_req("tribute", finish=[0, 2, 1, 3], hands=[{}], level="2"), "`hands[0]` must be a list"),
    (_req("tribute", finish=[0.0, 2, 1, 3], hands=[], level="2"), "`finish[0]` must be a whole"),
    (_req("settle", state=[], finish=[0, 1, 2, 3]), "`state` must be an object"),
    (_req("settle", state={"levels": [2, 2]}, finish=[0, 1, 2, 3]), "`state.levels[0]`"),
    (_req("settle", state={"levels": ["2", "2"], "declarer": "0"}, finish=[]), "`state.declarer`"),
    (
        _req("settle", state={"levels": ["2", "2"], "firsts": [True]}, finish=[]),
        "`state.firsts[0]`",
    ),
    (_req("replay", hands=[], level="2", leader=1.0, actions=[]), "`leader` must be a whole"),
    (_req("replay", hands=[], level="2", leader=True, actions=[]), "`leader` must be a whole"),
    (_req("replay", hands=[], level="2", leader=0, actions={}), "`actions` must be a list"),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[[0]]),
        "`actions[0]` must be an object",
    ),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[{"seat": 0.0, "cards": []}]),
        "`actions[0].seat` must be a whole number",
    ),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[{"seat": [0], "pass": True}]),
        "`actions[0].seat` must be a whole number",
    ),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[{"seat": 0, "pass": "yes"}]),
        "`actions[0].pass` must be true",
    ),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[{"seat": 0, "ask": "1"}]),
        "`actions[0].ask` must be a whole number",
    ),
    (
        _req("replay", hands=[], level="2", leader=0, actions=[{"seat": 0, "cards": "S2"}]),
        "`actions[0].cards` must be a list",
    ),
    (_req("score", winner="1", levels_gained=1, final_level="A", match_over=True), "`winner`"),
    (_req("score", winner=1, levels_gained=1.5, final_level="A", match_over=True), "`levels_"),
    (_req("score", winner=1, levels_gained=1, final_level=None, match_over=True), "`final_"),
    (_req("score", winner=1, levels_gained=1, final_level="A", match_over=1), "`match_over`"),
    ({"type": "request", "id": 7, "operation": "classify", "input": []}, "`input` must be an"),
    ({"type": "request", "id": "7", "operation": "classify", "input": {}}, "`id` must be a whole"),
    ({"type": "request", "id": 7.0, "operation": "classify", "input": {}}, "`id` must be a whole"),
]


@pytest.mark.parametrize(("request_line", "message"), WRONG_TYPES)
def test_an_input_field_of_the_wrong_type_is_invalid_input(
    request_line: dict[str, Any], message: str
) -> None:
    answers = expect_recovered(run(session(line(request_line))), 1)
    assert invalid_input(answers[0]).startswith(message), answers[0]


def test_a_batch_answers_each_bad_request_in_place() -> None:
    items = [
        {"id": 1, "operation": "classify", "input": {"cards": [1], "level": "7"}},
        "not a request",
        {"id": [2], "operation": "classify", "input": {}},
        {"id": 3, "operation": ["classify"], "input": {}},
        {"id": 4, "operation": "classify", "input": INPUTS["classify"]},
    ]
    batch = {"type": "batch", "id": 8, "requests": items}
    (answer,) = expect_recovered(run(session(line(batch))), 1)
    kinds = [r.get("error", {}).get("kind") for r in answer["responses"]]
    assert kinds == ["invalid_input", "invalid_input", "invalid_input", "unsupported", None]
    assert [r["id"] for r in answer["responses"]] == [1, None, None, 3, 4]


def test_huge_lists_and_numbers_are_answered() -> None:
    many = ["S2", "H3"] * 20_000
    huge = 10**4000
    lines = [
        line(_req("classify", cards=many, level="7")),
        line(_req("score", winner=1, levels_gained=huge, final_level="A", match_over=True)),
        line(_req("replay", hands=[[]] * 4, level="2", leader=huge, actions=[])),
        line(
            _req("beats", play={"type": "pair", "rank": "3", "size": huge}, previous={}, level="2")
        ),
        line({"type": "batch", "id": 1, "requests": [{"id": 1}] * 50_000}),
    ]
    answers = expect_recovered(run(session(*lines)), len(lines))
    assert "appears" in invalid_input(answers[0])
    assert answers[1]["type"] == "response"
    assert "`leader` must be a seat" in invalid_input(answers[2])
    assert answers[3]["type"] == "response"
    assert len(answers[4]["responses"]) == 50_000


class _Reads(io.BytesIO):
    """Input that remembers how much each `readline` asked for."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int | None] = []

    def readline(self, size: int | None = -1, /) -> bytes:
        self.asked.append(size)
        return super().readline(size)


def test_a_line_past_one_mebibyte_is_refused_without_reading_it_whole() -> None:
    exact = b'{"type": "bye"' + b" " * (MAX_LINE_BYTES - 15) + b"}"
    assert len(exact) == MAX_LINE_BYTES
    lines = session(b"[" * (MAX_LINE_BYTES + 1), b"x" * (3 * MAX_LINE_BYTES), b"\xff" * 9)
    stdin = _Reads(b"".join(x + b"\n" for x in [*lines, exact, line(PROBE)]))
    out = io.BytesIO()
    serve(None, stdin, out)
    answers = parse_answers(out.getvalue())
    assert [a["type"] for a in answers] == ["hello", "error", "error", "error", "response", "bye"]
    too_long = f"line longer than {MAX_LINE_BYTES} bytes, not read"
    assert answers[1]["message"] == answers[2]["message"] == too_long
    assert answers[3]["message"].startswith("not UTF-8")
    # Every read is bounded: no line is ever held past 1 MiB and a byte.
    assert all(size is not None and 0 < size <= MAX_LINE_BYTES + 1 for size in stdin.asked)


def test_blank_lines_get_no_answer_and_whitespace_that_is_not_json_does() -> None:
    answers = expect_recovered(run(session(b"", b" \t\r", b"\x0c")), 1)
    assert answers == [{"type": "error", "message": "not JSON"}]


def test_an_interpreter_failure_is_answered_internal_and_the_server_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last resort: should the interpreter raise what it should not, the request is answered
    `internal` (a kind the protocol has) and the traceback goes to stderr."""

    def broken(operation: str, data: Any, ruleset: Any) -> Any:
        if operation == "beats":
            raise TypeError("a bug")
        return run_operation(operation, data, ruleset)

    monkeypatch.setattr(server_module, "run_operation", broken)
    answers = expect_recovered(run(session(line(REQUESTS[1]))), 1)
    assert answers[0]["error"] == {"kind": "internal", "message": "TypeError: a bug"}
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_guandan_serve_reads_and_writes_bytes_whatever_the_locale(encoding: str) -> None:
    """A real `guandan serve` process, raw bytes on stdin: every line answered in UTF-8."""
    lines = [
        line(HELLO),
        b"\xff",
        b'{"type": "request", "id": 1, "operation": "classify", "input": {"cards": ["\\ud800",'
        b' "\xe7\xb4\x85\xe6\xa1\x839"], "level": "7"}}',
        b"[" * 100_000,
        line({**HELLO, "options": ["x"]}),
        line(_req("replay", hands=[], level="2", leader=0, actions=[{"seat": 0.5, "pass": True}])),
        line(PROBE),
        line({"type": "bye"}),
    ]
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "harness.frontends.cli", "serve"],
        input=b"".join(x + b"\n" for x in lines),
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode()
    answers = parse_answers(done.stdout)
    assert [a["type"] for a in answers] == [
        "hello",
        "error",
        "response",
        "error",
        "error",
        "response",
        "response",
        "bye",
    ]
    message = invalid_input(answers[2])
    assert "\ufffd" in message  # the surrogate, replaced
    assert answers[6]["output"]["readings"]


# --- the property: random and mutated lines ---------------------------------------------------

LINES_PER_EXAMPLE = 10
EXAMPLES = 2000 if THOROUGH else 100
SECONDS_PER_LINE = 10.0
FED: list[int] = []  # lines fed by the property test, for the thorough run's report
SLOWEST: list[float] = []  # the longest wait for an answer in each example, in seconds

_NASTY_TEXT = [
    "\\ud800",
    "\\udfff",
    "\\u0000",
    "\\n",
    "\x00",
    "\x1f",
    "\x7f",
    "\x85",
    "\u2028",
    "\ufeff",
    "\ud800",
    "é",
    "紅桃",
    "♥",
    '"',
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "-",
    "0",
    "1e999",
    "NaN",
    "true",
    "null",
    "9" * 40,
    "[" * 70,
]
insertion = st.lists(st.sampled_from(_NASTY_TEXT) | st.text(max_size=3), max_size=4).map("".join)
_RAW_VALUES = [
    "[" * 100_000,
    "[" * 65 + "]" * 65,
    "9" * 5000,
    "-" + "9" * 4300,
    "1e999",
    "-1e-999",
    "NaN",
    "Infinity",
    "-0",
    "1.0",
    "18446744073709551617",
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\u0000"',
    '"' + "S2 " * 1000 + '"',
    "[" + ", ".join(['"S2"'] * 3000) + "]",
    "{}",
    "[]",
    '""',
]
json_scalar = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**300), max_value=10**300)
    | st.floats()
    | st.text(max_size=6)
    | st.sampled_from(["S3", "HR", "7", "A", "pair", "classify", "hello", "\ud800", "\x00"])
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)
# A replacement: a JSON value Python writes, or raw text no json.dumps would write.
replacement = json_value.map(lambda v: json.dumps(v, ensure_ascii=False)) | st.sampled_from(
    _RAW_VALUES
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a parsed message, the root included."""
    yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _paths(sub, (*path, index))


_MARK = "\u0001MARK\u0001"


@st.composite
def retyped(draw: st.DrawFn) -> bytes:
    """A valid line with one value replaced (any JSON type, or raw text such as deep nesting
    or a 5000-digit number), or one key deleted."""
    message = json.loads(json.dumps(draw(st.sampled_from(SEEDS))))
    path = draw(st.sampled_from([p for p in _paths(message) if p]))
    parent = message
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
        return line(message)
    parent[path[-1]] = _MARK
    text = json.dumps(message, ensure_ascii=draw(st.booleans()))
    return text.replace(json.dumps(_MARK), draw(replacement)).encode("utf-8", "surrogatepass")


@st.composite
def edited(draw: st.DrawFn) -> bytes:
    """A valid line with characters deleted, inserted or replaced (surrogates, control
    characters and JSON punctuation among them), or raw bytes put in."""
    text = line(draw(st.sampled_from(SEEDS))).decode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 8)))
        what = draw(st.sampled_from(["delete", "insert", "replace"]))
        new = "" if what == "delete" else draw(insertion)
        text = text[:start] + new + text[end if what != "insert" else start :]
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    return data


# Structural mutations get twice the share: they are what reaches the input checks.
protocol_line = (
    st.sampled_from(SEEDS).map(line)
    | retyped()
    | retyped()
    | edited()
    | st.binary(max_size=64)
    | st.text(max_size=64).map(lambda t: t.encode("utf-8", "surrogatepass"))
    | st.sampled_from([*_RAW_VALUES, "", " ", "\t\r", "\x0b", "{", '{"type": null}']).map(
        lambda t: t.encode("utf-8", "surrogatepass")
    )
).map(lambda data: data.replace(b"\n", b" "))


def _is_bye(data: bytes) -> bool:
    """Whether a line is a bye message, which ends the session (the probe would go unread),
    or a hello, which opens one (the test's own hello would then be refused as a second)."""
    try:
        message = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message.get("type") in ("bye", "hello")


def _internal(answer: dict[str, Any]) -> bool:
    """Whether an answer owns up to a failure of the server: a gap in its input checks."""
    if answer["type"] == "error":
        return str(answer["message"]).startswith("internal")
    responses = answer.get("responses", [answer])
    return any(r.get("error", {}).get("kind") == "internal" for r in responses)


def _is_blank(data: bytes) -> bool:
    return not data.strip(b" \t\r")


class _TimedInput(io.BytesIO):
    """Input that notes when each line's read began (readline with the line bound)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.starts: list[float] = []

    def readline(self, size: int | None = -1, /) -> bytes:
        if size == MAX_LINE_BYTES + 1:
            self.starts.append(time.monotonic())
        return super().readline(size)


class _TimedOutput(io.BytesIO):
    """Output that notes how long after its line's read began each answer was written."""

    def __init__(self, source: _TimedInput) -> None:
        super().__init__()
        self.source = source
        self.latencies: list[float] = []

    def write(self, data: Any, /) -> int:
        self.latencies.append(time.monotonic() - self.source.starts[-1])
        return super().write(data)


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    """The protocol schema's check of a message from the engine."""
    protocol = json.loads((ROOT / "spec" / "protocol.schema.json").read_text(encoding="utf-8"))
    cases = json.loads((ROOT / "spec" / "case.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in (protocol, cases)]
    )
    engine_side = {**protocol, "anyOf": [{"$ref": "#/$defs/from_engine"}]}
    return jsonschema.Draft202012Validator(engine_side, registry=registry)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(protocol_line, min_size=LINES_PER_EXAMPLE, max_size=LINES_PER_EXAMPLE))
def test_every_line_gets_one_well_formed_answer_and_the_server_goes_on(
    garbage: list[bytes],
) -> None:
    garbage = [b"{}" if _is_bye(x) else x for x in garbage]
    lines = [*garbage, line(HELLO), line(PROBE), line({"type": "bye"})]
    stdin = _TimedInput(b"".join(x + b"\n" for x in lines))
    out = _TimedOutput(stdin)
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        assert serve(None, stdin, out) == 0
    FED.append(len(garbage))
    SLOWEST.append(max(out.latencies))
    answers = parse_answers(out.getvalue())
    assert len(answers) == sum(not _is_blank(x) for x in lines)
    assert errors.getvalue() == "", errors.getvalue()  # no traceback: nothing reached `internal`
    assert max(out.latencies) < SECONDS_PER_LINE
    check = _validator()
    for answer in answers:
        problems = [p.message for p in check.iter_errors(answer)]
        assert not problems, (answer, problems)
        assert not _internal(answer), answer
    wanted = run_operation("classify", INPUTS["classify"], load_variant("competition"))
    assert answers[-3]["type"] == "hello"
    assert answers[-2] == {"type": "response", "id": PROBE_ID, "output": wanted}
    assert answers[-1] == {"type": "bye"}


def test_report_the_lines_fed() -> None:
    """Runs after the property test (file order): what it fed, shown with `pytest -s`."""
    if FED:
        print(
            f"\nserve fuzz: {sum(FED)} protocol lines in {len(FED)} examples,"
            f" slowest answer {max(SLOWEST) * 1000:.0f} ms"
        )


@st.composite
def retyped_input(draw: st.DrawFn) -> tuple[str, Any]:
    """An operation and its input with one value replaced by any JSON value, or one key gone
    (the corpus's inputs and this file's among the seeds)."""
    operation = draw(st.sampled_from(sorted(INPUTS)))
    seeds = [INPUTS[operation], *(dict(c.input) for c in CORPUS if c.operation == operation)]
    data = json.loads(json.dumps(draw(st.sampled_from(seeds))))
    places = [p for p in _paths(data) if p]
    change = draw(st.booleans())
    if places and change:
        path = draw(st.sampled_from(places))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_value)
    return operation, data


CORPUS = load_cases()[0]


@settings(max_examples=3000 if THOROUGH else 300)
@given(retyped_input())
def test_the_fast_type_check_judges_as_the_walk(drawn: tuple[str, Any]) -> None:
    """`SchemaCheck.type_problem` answers from a check made once per schema node, and walks
    only to explain a no: the two must agree on every input."""
    operation, data = drawn
    defs = load_schema("case.schema.json")["$defs"]
    node = defs[f"{operation}_input"]
    assert schema_types.typed(data, schema_types.check_of(node, defs)) == (
        schema_types.type_problem(data, node, defs) is None
    )


def test_an_answer_past_the_line_limit_becomes_an_error_saying_so() -> None:
    """`serve` bounds its own answers by the client's line limit (issue 23): a response too
    long keeps its id and says why; a batch too long is refused whole, to be asked singly."""
    big = {"type": "response", "id": 3, "output": {"text": "a" * 200}}
    line = json.loads(_encode(big, limit=150))
    assert line["id"] == 3 and line["error"]["kind"] == "internal"
    assert "over the protocol's line limit of 150" in line["error"]["message"]
    batch = {"type": "batch", "id": 9, "responses": [big, big]}
    refused = json.loads(_encode(batch, limit=150))
    assert refused["type"] == "error" and "one at a time" in refused["message"]
    small = {"type": "response", "id": 4, "output": {}}
    assert json.loads(_encode(small, limit=150)) == small
