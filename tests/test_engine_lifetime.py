"""No engine outlives the run (issue 23, part 4): whatever the tool (`ProcessEngine`, `check`
with one or two jobs, `fuzz --jobs 2`, the pytest plugin), however the run ends (finished,
Ctrl-C, SIGTERM, SIGKILL of the harness) and whatever the engine does (a sleeper that calls
`setsid()` and double-forks, as a daemon does, escaping every process group and session).

The engines are `tests/engines/hostile.py`'s `escape` (correct) and `escape-hang` (hangs on
classify); each test's marker is in their environment, and the `marker` fixture fails the test
if any process still carries it (keepers included) a moment after the run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.conformance.oracles.fuzz.driver import SHARD_SIZE
from harness.engine.process import ProcessEngine
from harness.model.ruleset import Ruleset
from tests.conftest import slow_but
from tests.test_hostile_engines import (
    CASES,
    CLASSIFY,
    ENV_MARKER,
    REPO,
    STRAIGHT,
    answers,
    engines,
    fails,
    hostile,
    huaian,
    importable,
    marker,
    survivors,
)

__all__ = ["answers", "huaian", "importable", "marker"]  # fixtures, used by name

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc (Linux)")


SLEEPER = "time.sleep(600)"  # the escaped sleeper's command line, once it has exec'd


def wait_for(marker: str, sleepers: int, seconds: float = 60) -> None:
    """Wait until `sleepers` escaped sleepers carry `marker` (their engines are up and past the
    hello): the run is mid-work.

    A sleeper counts once it has exec'd, for only then has it left the engine's session: the
    forked child before it carries the marker too (CI once caught it there)."""
    deadline = time.monotonic() + seconds
    while sum(SLEEPER in line for line in engines(marker)) < sleepers:
        assert time.monotonic() < deadline, f"the engines never started: {survivors(marker)}"
        time.sleep(0.05)


def sleeper_escaped(marker: str) -> None:
    """The sleeper really left the engine's session (else the test proves nothing)."""
    found = engines(marker)
    sessions = set()
    for line in found:
        with contextlib.suppress(ProcessLookupError):  # the forked child, gone once it forked
            sessions.add(os.getsid(int(line.split(":")[0])))
    assert len(sessions) == 2, found


@pytest.mark.slow
def test_the_escaped_sleeper_dies_with_a_closed_engine(huaian: Ruleset, marker: str) -> None:
    engine = ProcessEngine(hostile("escape", marker), huaian, timeout=10)
    try:
        engine.describe()
        wait_for(marker, 1)
        sleeper_escaped(marker)
    finally:  # closed even when a check fails, so that `marker` does not report it twice
        engine.close()
    # `marker` checks that nothing is left: neither the engine, its sleeper nor the keeper.


def test_the_escaped_sleeper_dies_when_its_engine_times_out(huaian: Ruleset, marker: str) -> None:
    engine = ProcessEngine(hostile("escape-hang", marker), huaian, timeout=2)
    try:
        engine.describe()
        wait_for(marker, 1)
        fails(engine, [CLASSIFY])
        deadline = time.monotonic() + 5
        while survivors(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not survivors(marker)  # ended with the timed-out engine, not at close
    finally:
        engine.close()


def _cases(tmp_path: Path) -> Path:
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    return cases


def _start(args: list[str], marker: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.frontends.cli", *args],
        cwd=REPO,
        env={**os.environ, ENV_MARKER: marker},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _check(tmp_path: Path, kind: str, marker: str, jobs: int) -> list[str]:
    engine = f"exec:{hostile(kind, marker)}"
    args = ["check", "--engine", engine, "--variant", "huaian", "--cases", str(_cases(tmp_path))]
    return [*args, "--no-bundled", "--timeout", "60", "--jobs", str(jobs)]


def _fuzz(kind: str, marker: str, examples: int = 40) -> list[str]:
    engine = f"exec:{hostile(kind, marker)}"
    args = ["fuzz", "--engine", engine, "--variant", "huaian", "--operation", "classify"]
    return [*args, "--examples", str(examples), "--jobs", "2", "--timeout", "60", "--quiet"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_finished_check_leaves_nothing(tmp_path: Path, marker: str, jobs: int) -> None:
    proc = _start(_check(tmp_path, "escape", marker, jobs), marker)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper is Linux's")
def test_an_engine_that_kills_its_keeper_leaves_nothing(tmp_path: Path, marker: str) -> None:
    """The engine starts an escaped sleeper, then SIGKILLs its own keeper, the process that
    would have ended the sleeper (issue 50): `guandan` adopts the orphans and ends them with
    the command. Without it the sleeper lives on under init, and the marker fixture fails."""
    proc = _start(_check(tmp_path, "escape-kill-keeper", marker, 1), marker)
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err, err.decode()


@pytest.mark.slow
def test_a_finished_fuzz_with_two_jobs_leaves_nothing(marker: str) -> None:
    """The forked workers' engines were left running when the workers ended (issue 23)."""
    proc = _start(_fuzz("escape", marker), marker)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode in (0, 1), err.decode()  # found or not: this is about processes
    assert b"Traceback" not in err


ENDINGS = {
    "ctrl-c": (signal.SIGINT, 130),
    "sigterm": (signal.SIGTERM, 128 + signal.SIGTERM),
    "sigkill": (signal.SIGKILL, -signal.SIGKILL),
}


@pytest.mark.parametrize(
    ("tool", "ending"),
    slow_but(
        itertools.product(["check-1", "check-2", "fuzz-2", "fingerprint"], sorted(ENDINGS)),
        *[("check-1", ending) for ending in ENDINGS],
    ),
)
def test_an_ended_run_leaves_nothing(tmp_path: Path, marker: str, tool: str, ending: str) -> None:
    """The run is ended while its engine hangs on classify (with its escaped sleeper beside
    it); a SIGKILLed harness runs no code at all, and its engines still die."""
    if tool == "fuzz-2":
        # Two shards (SHARD_SIZE examples each), so that both workers start an engine.
        args = _fuzz("escape-hang", marker, examples=2 * SHARD_SIZE)
        sleepers = 2
    elif tool == "fingerprint":
        engine = f"exec:{hostile('escape-hang', marker)}"
        args = ["fingerprint", "--engine", engine, "--variant", "huaian", "--timeout", "60"]
        args += ["--out", str(tmp_path / "inferred.yaml")]
        sleepers = 1
    else:
        args = _check(tmp_path, "escape-hang", marker, int(tool[-1]))
        args += ["-k", STRAIGHT]  # a classify case, on which the engine hangs
        sleepers = 1
    proc = _start(args, marker)
    try:
        wait_for(marker, sleepers)
        time.sleep(0.5)  # past the hello, into the classify that hangs
        signum, code = ENDINGS[ending]
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code, err.decode()
    assert b"Traceback" not in err


def test_the_plugin_leaves_nothing_when_killed(tmp_path: Path, marker: str) -> None:
    """The pytest plugin keeps engines for the session; a SIGKILLed pytest leaves none."""
    cases = _cases(tmp_path)
    engine = f"exec:{hostile('escape-hang', marker)}"
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--guandan-cases={cases}",
        "--guandan-no-bundled", f"--guandan-engine={engine}", "--guandan-variant=huaian",
        "--guandan-timeout=60",
        "-k", STRAIGHT,
    ]  # fmt: skip
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env={**os.environ, ENV_MARKER: marker},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(marker, 1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        proc.kill()


def test_the_engine_gets_the_signals_a_program_expects(tmp_path: Path) -> None:
    """The keeper ignores SIGINT and Python ignores SIGPIPE: the engine must not inherit that
    (a Python engine would get no KeyboardInterrupt, a C one no EPIPE death), nor a mask."""
    from harness.engine.process import _Session

    session = _Session(["sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status >&2"])
    session.exited.wait(10)
    session.end()
    seen = dict(re.findall(r"(Sig(?:Ign|Blk)):\s*([0-9a-f]+)", session.stderr_text()))
    ignored = int(seen["SigIgn"].strip(), 16)
    for signum in (signal.SIGINT, signal.SIGPIPE, signal.SIGTERM):
        assert not ignored & (1 << (signum - 1)), seen
    assert int(seen["SigBlk"].strip(), 16) == 0


def test_helper_threads_leave_signals_to_the_main_thread() -> None:
    """The harness's helper threads (an engine's readers, the parent watch) block every
    signal, so that a SIGTERM reaches the main thread and interrupts what it waits on: a
    pool worker whose SIGTERM went to a reader thread once waited for its next task forever."""
    import threading

    from harness.engine.process import deaf_thread

    seen: list[int] = []
    done = threading.Event()

    def record() -> None:
        seen.append(threading.get_native_id())
        done.wait(10)

    thread = deaf_thread(record)
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
        status = Path(f"/proc/self/task/{seen[0]}/status").read_text()
        blocked = int(re.search(r"SigBlk:\s*([0-9a-f]+)", status).group(1), 16)  # type: ignore[union-attr]
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            assert blocked & (1 << (signum - 1)), hex(blocked)
    finally:
        done.set()
        thread.join(5)
