"""Hostile engines (issue 16): engines that flood, garble, duplicate, hang behind a wrapper, leave
children behind or exit mid-message must cost only the cases they touch, promptly, within bounded
memory, and leave no process behind.

Two levels: `ProcessEngine` driven directly against each hostile engine (the kind of error, how
soon it comes), and `guandan check` run as a subprocess with --jobs 1 and 2 (every case has the
right status, the harness's own peak memory, the run's length, no survivor, reports that parse).
The engines are `tests/engines/hostile.py`; each run gives them a marker of its own, in their
argv and environment, to find whatever they leave running.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.engine import check_engine_spec
from harness.engine.process import LINE_LIMIT, STDERR_TAIL, ProcessEngine
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.frontends.cli import main
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset
from tests.conftest import repo_on_path, slow_but
from tests.engines.hostile import FLOOD, WRAPPER

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc (Linux)")

REPO = Path(__file__).resolve().parents[1]
PYTHON = shlex.quote(sys.executable)
PEAK_MB = 200  # the harness's own peak memory, engines not counted
ENV_MARKER = "HOSTILE_MARKER"

STRAIGHT = "tiny-classify-straight"
BEATS = "tiny-beats-king-over-nine"
NO_PLAY = "tiny-classify-no-play"
CASES = f"""\
title: Three cases for the hostile engines (two classify, one beats)
cases:
  - id: {STRAIGHT}
    description: A2345 is a straight to 5.
    operation: classify
    clauses: [combinations.straight.shape, sequences.ace_low]
    input: {{cards: [SA, H2, C3, D4, S5], level: "9"}}
    expected:
      readings: [{{type: straight, rank: "5", size: 5}}]
      default: null
  - id: {BEATS}
    description: A single king beats a single nine.
    operation: beats
    clauses: [compare.same_type_and_size]
    input:
      play: {{type: single, rank: K, size: 1}}
      previous: {{type: single, rank: "9", size: 1}}
      level: "5"
    expected: {{beats: true}}
  - id: {NO_PLAY}
    description: JQKA2 is no play; a straight does not run through A into 2.
    operation: classify
    clauses: [sequences.wrap, combinations.straight.shape]
    input: {{cards: [SJ, HQ, CK, DA, S2], level: "9"}}
    expected: {{readings: []}}
"""

CLASSIFY = ("classify", {"cards": ["SA", "H2", "C3", "D4", "S5"], "level": "9"})
BEATS_INPUT = {
    "play": {"type": "single", "rank": "K", "size": 1},
    "previous": {"type": "single", "rank": "9", "size": 1},
    "level": "5",
}
BEAT = ("beats", BEATS_INPUT)
STRAIGHT_OUT = {"readings": [{"type": "straight", "rank": "5", "size": 5}], "default": None}


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The outputs the hostile engines give for CASES (their expected outputs): with them an
    engine starts at once, without loading the harness, and the tests restart engines often."""
    path = tmp_path_factory.mktemp("hostile") / "answers.json"
    cases = yaml.safe_load(CASES)["cases"]
    triples = [[c["operation"], c["input"], c["expected"]] for c in cases]
    path.write_text(json.dumps(triples), encoding="utf-8")
    # The schema checks compiled and cached first (a first run on a machine compiles them once,
    # at a peak well over 100 MB): the runs below measure the harness itself, not that.
    for args in (["validate", "variants/huaian.yaml"], ["cases", "check"]):
        subprocess.run(
            [sys.executable, "-m", "harness.frontends.cli", *args],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
    return path


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch, answers: Path) -> None:
    """`-m tests.engines.hostile` and `-m harness...` importable in the processes tests start,
    and the engines' canned answers."""
    repo_on_path(monkeypatch)
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("HOSTILE_ANSWERS", str(answers))


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A marker of this test's own, in the environment of every engine it starts; after the
    test, no process may carry it."""
    text = f"hostile-{uuid.uuid4().hex}"
    monkeypatch.setenv(ENV_MARKER, text)
    yield text
    assert_no_survivor(text)


def hostile(kind: str, marker: str, *, wrapped: bool = False) -> str:
    """The command of a hostile engine (through the wrapper script that does not exec)."""
    command = f"{PYTHON} -m tests.engines.hostile {kind} --marker {marker}"
    return f"sh {shlex.quote(str(WRAPPER))} {command}" if wrapped else command


def survivors(marker: str) -> list[str]:
    """The processes whose command line or environment holds `marker` (zombies have neither)."""
    needle = marker.encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name == str(os.getpid()):
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if needle in cmdline or needle in environ:
            words = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry.name}: {words}")
    return found


def engines(marker: str) -> list[str]:
    """The processes carrying `marker` that are not keepers (`harness/engine/_keeper.py`, one
    above each engine): the engines and what they started."""
    return [line for line in survivors(marker) if "_keeper.py" not in line]


def assert_no_survivor(marker: str) -> None:
    """No process carries `marker` (those killed are given a moment to be gone)."""
    deadline = time.monotonic() + 2
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for line in left:  # a regression must not leave them running: they carry our marker
        with contextlib.suppress(OSError):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert not left, f"engine processes outlived the run: {left}"


@pytest.fixture(scope="module")
def huaian() -> Ruleset:
    """huaian with its options chosen (the defaults)."""
    ruleset = load_variant("huaian")
    return ruleset.with_options({n: o.default for n, o in ruleset.options.items()})


def fails(engine: ProcessEngine, requests: list[tuple[str, dict[str, Any]]]) -> EngineError:
    """The EngineError that asking `requests` raises."""
    with pytest.raises(EngineError) as caught:
        engine.batch(requests)
    return caught.value


# ---------------------------------------------------------------------------------------------
# ProcessEngine against each hostile engine


def test_endless_stdout_is_a_protocol_error_at_the_line_limit(huaian: Ruleset, marker: str) -> None:
    """Defect 1: a line with no end is cut at LINE_LIMIT bytes and is a protocol error, at once
    (the old reader kept it all: 3.3 GB in four cases); the engine is restarted."""
    engine = ProcessEngine(hostile("endless-stdout", marker), huaian, timeout=20)
    try:
        engine.describe()
        start = time.monotonic()
        error = fails(engine, [CLASSIFY])
        assert time.monotonic() - start < 10
        assert error.kind is EngineErrorKind.PROTOCOL
        assert f"longer than {LINE_LIMIT} bytes" in str(error)
        assert engine.answer(*BEAT) == {"beats": True}  # a new process
        assert engine.restarts == 1
    finally:
        engine.close()


def test_stderr_flood_keeps_only_its_tail(huaian: Ruleset, marker: str) -> None:
    """Defect 1: 100 MB of stderr without a newline leave a detail of STDERR_TAIL bytes (the old
    tail kept whole lines: 30 MB in every detail, or a MemoryError)."""
    engine = ProcessEngine(hostile("flood-stderr", marker), huaian, timeout=20)
    try:
        error = fails(engine, [CLASSIFY])
        assert error.kind is EngineErrorKind.CRASH and "status 4" in str(error)
        assert error.detail.startswith(f"stderr (its last {STDERR_TAIL} bytes): …EEEE")
        assert len(error.detail.encode()) < STDERR_TAIL + 100
        assert 1000 * len(error.detail) < FLOOD
    finally:
        engine.close()


def test_output_that_is_not_utf8_is_a_protocol_error_at_once(huaian: Ruleset, marker: str) -> None:
    """Defect 2: bytes that are not UTF-8 are a protocol error at once, not a reader thread
    killed by UnicodeDecodeError and a timeout; stderr that is not UTF-8 is shown replaced."""
    engine = ProcessEngine(hostile("non-utf8", marker), huaian, timeout=20)
    try:
        engine.describe()
        start = time.monotonic()
        error = fails(engine, [CLASSIFY])
        assert time.monotonic() - start < 5
        assert error.kind is EngineErrorKind.PROTOCOL
        assert "not UTF-8" in str(error)
        assert '"note": "caf\ufffd"' in error.detail
        assert "stderr: caf\ufffd" in error.detail
        assert engine.answer(*BEAT) == {"beats": True}
    finally:
        engine.close()


def test_control_characters_come_through_as_text(huaian: Ruleset, marker: str) -> None:
    """Control characters in an error message and in a line that is not JSON are the engine's
    text, reported as such (escaping them is the reports' business)."""
    engine = ProcessEngine(hostile("control-chars", marker), huaian, timeout=20)
    try:
        with pytest.raises(EngineError) as caught:
            engine.answer(*CLASSIFY)
        assert caught.value.kind is EngineErrorKind.INTERNAL
        assert "\x1b[2J" in str(caught.value) and "\x00" in str(caught.value)
        error = fails(engine, [BEAT])
        assert error.kind is EngineErrorKind.PROTOCOL and "not JSON" in str(error)
        assert "stderr: control\x1b[2J" in error.detail
    finally:
        engine.close()


def test_answers_are_matched_by_id(huaian: Ruleset, marker: str) -> None:
    """Defect 11a: a second copy of an answer (the hello's too) is stale, dropped and counted,
    not the answer to the next request (which the old client charged with a wrong id)."""
    engine = ProcessEngine(hostile("answer-twice", marker), huaian, timeout=20)
    try:
        assert engine.answer(*CLASSIFY) == STRAIGHT_OUT
        assert engine.answer(*BEAT) == {"beats": True}
        answers = engine.batch([BEAT, CLASSIFY, BEAT])
        assert [a["output"] for a in answers] == [{"beats": True}, STRAIGHT_OUT, {"beats": True}]
        assert engine.answer(*BEAT) == {"beats": True}
        assert engine.restarts == 0
        assert engine.discarded >= 4  # the hello's copy and three answers' (the last may wait)
    finally:
        engine.close()


def test_an_id_never_sent_is_a_protocol_error_at_once(huaian: Ruleset, marker: str) -> None:
    """Issue 23: an answer with id 0 (ids start at 1) was taken for a stale one and dropped, so
    each case waited out its whole timeout; it is a protocol error at once."""
    engine = ProcessEngine(hostile("id-zero", marker), huaian, timeout=20)
    try:
        started = time.monotonic()
        error = fails(engine, [CLASSIFY])
        assert time.monotonic() - started < 5
        assert error.kind is EngineErrorKind.PROTOCOL and "got id 0" in str(error), error
        assert engine.answer(*BEAT) == {"beats": True}  # restarted, the next request answered
    finally:
        engine.close()


def test_wrapper_that_does_not_exec_is_ended_with_its_engine(huaian: Ruleset, marker: str) -> None:
    """Defect 8: a shell that starts the engine without exec, and hangs after it: the hanging
    engine times out and the whole group is ended, then and at close (the old client killed
    only the shell: 14 engines were left running)."""
    engine = ProcessEngine(hostile("hang", marker, wrapped=True), huaian, timeout=2)
    try:
        engine.describe()
        assert len(engines(marker)) == 2  # the shell and its engine
        error = fails(engine, [CLASSIFY])
        assert error.kind is EngineErrorKind.TIMEOUT
        assert_no_survivor(marker)
        assert engine.answer(*BEAT) == {"beats": True}
    finally:
        engine.close()  # the engine exits on bye; the shell goes on to `sleep 600`


def test_crash_is_seen_while_a_child_keeps_the_pipe_open(huaian: Ruleset, marker: str) -> None:
    """Defect 8: the engine exits after starting a child that keeps stdout open: a crash, told
    with its status as soon as the engine exits (not a timeout, the old client's 104 s
    instead of 19), and the child is ended with the group."""
    engine = ProcessEngine(hostile("fork-crash", marker), huaian, timeout=30)
    try:
        engine.describe()
        start = time.monotonic()
        error = fails(engine, [CLASSIFY])
        assert time.monotonic() - start < 10
        assert error.kind is EngineErrorKind.CRASH
        assert "status 3" in str(error) and "left a child behind" in error.detail
        assert_no_survivor(marker)
    finally:
        engine.close()


def test_exit_mid_batch_is_a_crash_and_single_requests_go_on(huaian: Ruleset, marker: str) -> None:
    """An engine that prints half a batch answer and exits: a crash (the half line is not
    taken for an answer), then single requests on a new process."""
    engine = ProcessEngine(hostile("exit-mid-batch", marker), huaian, timeout=20)
    try:
        error = fails(engine, [CLASSIFY, BEAT])
        assert error.kind is EngineErrorKind.CRASH and "status 5" in str(error)
        assert "unfinished" in error.detail
        assert engine.answer(*BEAT) == {"beats": True}
    finally:
        engine.close()


def test_engine_that_reads_nothing_cannot_block_the_harness(huaian: Ruleset, marker: str) -> None:
    """A request larger than a pipe holds, to an engine that reads nothing: a timeout within
    the time limit (a blocking write would have waited forever)."""
    engine = ProcessEngine(hostile("deaf", marker), huaian, timeout=2)
    try:
        engine.describe()
        big = ("classify", {"cards": ["SA"] * 100_000, "level": "9"})
        start = time.monotonic()
        error = fails(engine, [big])
        assert time.monotonic() - start < 6
        assert error.kind is EngineErrorKind.TIMEOUT
        assert "did not read its input" in str(error)
    finally:
        engine.close()


def test_close_ends_the_engine_and_what_it_started(huaian: Ruleset, marker: str) -> None:
    """close() ends the whole group even when the engine exits politely after bye and leaves
    its wrapper hanging."""
    engine = ProcessEngine(hostile("ok", marker, wrapped=True), huaian, timeout=10)
    engine.describe()
    assert len(engines(marker)) == 2
    start = time.monotonic()
    engine.close()
    assert time.monotonic() - start < 5
    assert_no_survivor(marker)


# ---------------------------------------------------------------------------------------------
# Engine specs (defect 11c)


def test_unterminated_quote_in_exec_spec_is_refused() -> None:
    """Defect 11c: a command shlex cannot split is refused when the spec is checked."""
    with pytest.raises(HarnessError, match="cannot be split into words"):
        check_engine_spec("exec:'unterminated")
    with pytest.raises(HarnessError, match="cannot be split into words"):
        ProcessEngine("'unterminated", "huaian")
    with pytest.raises(HarnessError, match="empty"):
        check_engine_spec('exec:""')


def test_unterminated_quote_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`guandan check --engine "exec:'unterminated"` is a usage error (exit 2) before any case
    runs, not an error on every case."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    report = tmp_path / "r.json"
    args = ["check", "--engine", "exec:'unterminated", "--variant", "huaian"]
    code = main(
        [*args, "--cases", str(cases), "--no-bundled", "--report", str(report)], out=io.StringIO()
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "exec:'unterminated" in err and "cannot be split into words" in err
    assert not report.exists()


# ---------------------------------------------------------------------------------------------
# `guandan check` against each hostile engine, in a process of its own


# The peak is read from /proc/self/status (VmHWM, kB): it belongs to this process's own memory.
# ru_maxrss would not do: Linux carries it across exec, so a harness started from a large pytest
# process would report pytest's size.
MEASURED = """\
import re, sys
from harness.frontends.cli import main
code = main(sys.argv[2:])
sys.stdout.flush()
status = open("/proc/self/status", encoding="ascii").read()
with open(sys.argv[1], "w") as fh:
    fh.write(re.search(r"VmHWM:\\s*(\\d+)", status).group(1))
sys.exit(code)
"""


@dataclass
class Run:
    """One `guandan check` run: exit status, output, seconds, peak MiB and the reports."""

    code: int
    output: str
    seconds: float
    peak_mb: float
    report: dict[str, Any]
    junit: ET.ElementTree
    report_bytes: int


def check(
    tmp_path: Path, engine: str, ids: list[str], jobs: int, timeout: float, marker: str
) -> Run:
    """`guandan check` on the selected cases of CASES, in a subprocess (measured)."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    report, junit, peak = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "peak"
    args = ["check", "--engine", f"exec:{engine}", "--variant", "huaian"]
    args += ["--cases", str(cases), "--no-bundled", "--timeout", str(timeout)]
    args += ["--jobs", str(jobs), "--report", str(report), "--junit", str(junit)]
    for case_id in ids:
        args += ["-k", case_id]
    env = {**os.environ, ENV_MARKER: marker}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(peak), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
    )
    seconds = time.monotonic() - start
    output = done.stdout + done.stderr
    assert report.exists(), output
    return Run(
        done.returncode,
        output,
        seconds,
        int(peak.read_text()) / 1024,
        json.loads(report.read_text(encoding="utf-8")),
        ET.parse(junit),  # the JUnit report parses (control characters included)
        report.stat().st_size,
    )


# kind → (the cases selected, their statuses, text in each case's message or detail, timeout)
KINDS: dict[str, tuple[dict[str, str], dict[str, str], float]] = {
    "endless-stdout": (
        {STRAIGHT: "error", BEATS: "pass"},
        {STRAIGHT: f"protocol: the engine printed a line longer than {LINE_LIMIT} bytes"},
        3,
    ),
    "non-utf8": ({STRAIGHT: "error", BEATS: "pass"}, {STRAIGHT: "protocol:"}, 3),
    "control-chars": (
        {STRAIGHT: "error", BEATS: "error"},
        {STRAIGHT: "internal:", BEATS: "not JSON"},
        3,
    ),
    "flood-stderr": ({STRAIGHT: "error", BEATS: "pass"}, {STRAIGHT: "status 4"}, 3),
    "answer-twice": ({STRAIGHT: "pass", BEATS: "pass", NO_PLAY: "pass"}, {}, 3),
    "hang": ({STRAIGHT: "timeout", BEATS: "pass"}, {STRAIGHT: "no answer within 2 s"}, 2),
    "fork-crash": ({STRAIGHT: "error", BEATS: "pass"}, {STRAIGHT: "crash: "}, 3),
    "exit-mid-batch": ({STRAIGHT: "pass", BEATS: "pass", NO_PLAY: "pass"}, {}, 3),
}


# The fast tier: each kind with one engine, but the hang (its timeouts are seconds of waiting).
@pytest.mark.parametrize(
    ("kind", "jobs"),
    slow_but(itertools.product(KINDS, [1, 2]), *[(kind, 1) for kind in KINDS if kind != "hang"]),
)
def test_check_against_a_hostile_engine(tmp_path: Path, marker: str, kind: str, jobs: int) -> None:
    """Every case gets its status (a protocol error or crash where it is one, not a timeout);
    the harness stays under PEAK_MB, the run ends in bounded time, nothing survives it (the
    `marker` fixture checks), the reports are small and the JUnit one parses."""
    want, texts, timeout = KINDS[kind]
    engine = hostile(kind, marker, wrapped=kind == "hang")
    run = check(tmp_path, engine, list(want), jobs, timeout, marker)
    found = {c["id"]: c["status"] for c in run.report["cases"]}
    assert found == want, run.output
    assert run.code == (0 if set(want.values()) == {"pass"} else 1), run.output
    for case_id, words in texts.items():
        case = next(c for c in run.report["cases"] if c["id"] == case_id)
        assert words in case["message"] + "\n" + case["detail"], case
    for case in run.report["cases"]:
        assert len(case["detail"]) < STDERR_TAIL + 1000, case["id"]
    assert run.report_bytes < 100_000
    assert run.peak_mb < PEAK_MB, f"the harness peaked at {run.peak_mb:.0f} MB"
    assert run.seconds < 45, f"{run.seconds:.1f} s"
    tests = run.junit.getroot().iter("testcase")
    assert sorted(t.get("name", "") for t in tests) == sorted(f"{i}[huaian]" for i in want)


@pytest.mark.slow
def test_sigterm_ends_the_run_and_its_engines(tmp_path: Path, marker: str) -> None:
    """SIGTERM to `guandan check` ends it as an exit does (status 143): the engine that hangs
    in its wrapper script, and the wrapper, are ended with it (the `marker` fixture checks)."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    engine = hostile("hang", marker, wrapped=True)
    args = ["check", "--engine", f"exec:{engine}", "--variant", "huaian", "--cases", str(cases)]
    args += ["--no-bundled", "--timeout", "60", "-k", STRAIGHT]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.frontends.cli", *args],
        cwd=REPO,
        env={**os.environ, ENV_MARKER: marker},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    # Wait until the engine hangs on its classify (started, in its wrapper, past the hello).
    # `check` carries the marker too, in its environment: count the engine by its command.
    engine_command = f"{PYTHON} -m tests.engines.hostile hang"
    while time.monotonic() < deadline:
        if any(line.split(": ", 1)[1].startswith(engine_command) for line in engines(marker)):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the engine never started: {survivors(marker)}")
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert b"Traceback" not in err
