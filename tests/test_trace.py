"""`--trace FILE` (issue 24): every line sent to and received from every engine process, as
whole JSON lines with direction and time, from threads and forked workers alike; an unwritable
trace is a usage error before any work."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from _pytest.capture import CaptureFixture

from harness.engine.process import ProcessEngine
from harness.engine.trace import TRACE_LINE_LIMIT, Trace, current_trace, tracing
from harness.frontends.cli import main

PYTHON = shlex.quote(sys.executable)
SERVE = f"exec:{PYTHON} -m harness.frontends.cli serve"
CHECK = ["check", "--engine", SERVE, "--variant", "huaian", "-k", "combo-single", "--no-explain"]


def records(path: Path) -> list[dict[str, Any]]:
    """The trace's records; each line must be one whole JSON object."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines]
    for record in found:
        assert {"t", "pid", "engine", "dir", "line"} <= set(record), record
        assert record["dir"] in ("sent", "received")
    return found


def messages(found: list[dict[str, Any]], direction: str) -> list[dict[str, Any]]:
    return [json.loads(r["line"]) for r in found if r["dir"] == direction]


def test_check_traces_the_hello_every_request_and_answer_and_bye(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    code = main([*CHECK, "--trace", str(trace)], io.StringIO())
    assert code == 0
    found = records(trace)
    sent, received = messages(found, "sent"), messages(found, "received")
    assert sent[0]["type"] == "hello" and sent[0]["variant"] == "huaian"
    assert received[0]["type"] == "hello"
    assert sent[-1] == {"type": "bye"} and received[-1] == {"type": "bye"}
    asked = [m for m in sent if m["type"] in ("request", "batch")]
    answers = [m for m in received if m["type"] in ("response", "batch")]
    assert asked and [m["id"] for m in asked] == [m["id"] for m in answers]
    ids = {item["id"] for m in asked for item in m.get("requests", [m])}
    assert len(ids) == 5  # the five single cards of -k combo-single, each asked once
    times = [r["t"] for r in found]
    assert times == sorted(times) and times[0] >= 0


def test_check_with_two_jobs_traces_whole_lines_of_each_engine(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    argv = [*CHECK[:-1], "-k", "combo-pair", "--no-derived", "--jobs", "2", "--trace", str(trace)]
    code = main(argv, io.StringIO())
    assert code == 0
    found = records(trace)
    by_engine: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for record in found:
        by_engine[record["pid"], record["engine"]].append(record)
    assert len(by_engine) >= 2, by_engine.keys()
    for lines in by_engine.values():
        assert json.loads(lines[0]["line"])["type"] == "hello"
    per_pid: dict[int, list[float]] = defaultdict(list)
    for record in found:
        per_pid[record["pid"]].append(record["t"])
    assert all(times == sorted(times) for times in per_pid.values())


def test_fuzz_workers_forked_with_jobs_write_to_the_same_trace(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    argv = ["fuzz", "--engine", SERVE, "--variant", "huaian", "--operation", "classify"]
    # Two shards of 200 examples: one shard would run in this process (issue 50: no more
    # processes than shards).
    argv += ["--examples", "400", "--jobs", "2", "--quiet", "--trace", str(trace)]
    code = main(argv, io.StringIO())
    assert code == 0
    found = records(trace)
    pids = {r["pid"] for r in found}
    assert pids - {os.getpid()}, pids  # the workers forked by the pool wrote to it
    for pid in pids:
        mine = [r for r in found if r["pid"] == pid]
        assert [r["t"] for r in mine] == sorted(r["t"] for r in mine)
        assert json.loads(mine[0]["line"])["type"] == "hello"
    assert sum(m.get("operation") == "classify" for m in messages(found, "sent")) >= 40


def test_smoke_traces_its_lines_the_malformed_one_too(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    code = main(["smoke", "--engine", SERVE, "--trace", str(trace)], io.StringIO())
    assert code == 0
    found = records(trace)
    assert "this is not JSON" in [r["line"] for r in found if r["dir"] == "sent"]
    assert json.loads(found[0]["line"])["type"] == "hello"
    assert messages(found, "received")[-1] == {"type": "bye"}


def test_stray_lines_an_engine_prints_are_traced(tmp_path: Path) -> None:
    """A line that answers nothing is dropped by the engine's client, but traced."""
    script = tmp_path / "engine.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'bye':\n"
        "        print('a stray line', flush=True)\n"
        "        break\n"
        "    print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'x', 'version': '1',\n"
        "        'variant': m['variant'], 'options': m['options'], 'operations': []}),\n"
        "        flush=True)\n",
        encoding="utf-8",
    )
    path = tmp_path / "trace.jsonl"
    trace = Trace(str(path))
    engine = ProcessEngine(f"{PYTHON} {shlex.quote(str(script))}", "huaian", trace=trace)
    assert engine.describe().name == "x"
    engine.close()
    trace.close()
    lines = [(r["dir"], r["line"]) for r in records(path)]
    assert lines[-2:] == [("sent", '{"type": "bye"}'), ("received", "a stray line")]


def test_lines_not_utf8_huge_or_unfinished_are_recorded_as_such(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    trace = Trace(str(path))
    trace.received(1, b"caf\xe9", 4)
    huge = b"x" * (TRACE_LINE_LIMIT + 10)
    trace.received(1, huge, 5_000_000, overflow=True)
    split = b"x" * (TRACE_LINE_LIMIT - 1) + "é".encode()  # the cut falls inside the é
    trace.received(2, split, len(split))
    trace.received(2, b'{"type": "resp', 14, unfinished=True)
    trace.close()
    escaped, cut, halved, unfinished = records(path)
    assert escaped["line"] == "caf\\xe9" and escaped["escaped"] is True
    assert len(cut["line"]) == TRACE_LINE_LIMIT and cut["bytes"] == 5_000_000
    assert cut["overflow"] is True
    assert halved["line"] == "x" * (TRACE_LINE_LIMIT - 1) and "escaped" not in halved
    assert unfinished["unfinished"] is True and unfinished["engine"] == 2


def test_tracing_sets_the_current_trace_for_the_block_only(tmp_path: Path) -> None:
    with tracing(str(tmp_path / "t.jsonl")) as trace:
        assert current_trace() is trace is not None
    assert current_trace() is None
    with tracing(None) as nothing:
        assert nothing is None and current_trace() is None


@pytest.mark.parametrize(
    "command",
    [
        ["check", "--engine", SERVE, "--variant", "huaian"],
        ["fuzz", "--engine", SERVE, "--variant", "huaian"],
        ["fingerprint", "--engine", SERVE],
        ["smoke", "--engine", SERVE],
    ],
)
def test_an_unwritable_trace_is_refused_before_the_work(
    tmp_path: Path, capsys: CaptureFixture[str], command: list[str]
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    for place in (a_file / "trace.jsonl", tmp_path):
        out = io.StringIO()
        code = main([*command, "--trace", str(place)], out)
        err = capsys.readouterr().err
        assert code == 2 and "argument --trace" in err and str(place) in err, err
        assert out.getvalue() == ""
