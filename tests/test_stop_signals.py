"""Ctrl-C and SIGTERM stop every command the same way (issue 23): no traceback, a short word on
stderr, exit 130 after SIGINT and 143 after SIGTERM; `mutate` and `fingerprint` write what
finished, marked interrupted; the worker processes and the engines are ended.

Each command runs in a subprocess whose work is held at a chosen function (the hold marks a
file, then sleeps): the signal comes when the command is known to be mid-work, with no guessed
sleep. The signal goes to the whole process group, as a terminal's Ctrl-C does, or (SIGTERM, as
a supervisor sends it) to the harness alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_own_cases import GOOD

REPO = Path(__file__).resolve().parents[1]

# Runs `guandan ARGS` with MODULE:NAME (a function, or Class.method) held at its AFTER-th call:
# the hold waits SETTLE seconds (for what finished to be taken in), touches READY, then sleeps, so
# that the signal finds the command inside its work.
HOLD = """
import importlib, sys, time
from pathlib import Path

module, name, ready, after, settle, *args = sys.argv[1:]
target = importlib.import_module(module)
*owners, name = name.split(".")
for owner in owners:  # a method: Class.name
    target = getattr(target, owner)
original = getattr(target, name)
calls = [0]


def held(*a, **k):
    calls[0] += 1
    if calls[0] == int(after):
        time.sleep(float(settle))
        Path(ready).touch()
        time.sleep(60)
    return original(*a, **k)


setattr(target, name, held)
from harness.frontends.cli import main

raise SystemExit(main(args))
"""

STOPS_WITHIN = 5.0
"""Seconds from the signal to the end of the process."""


def stopped(
    tmp_path: Path,
    hold: str,
    args: list[str],
    *,
    after: int = 1,
    settle: float = 0.0,
    sig: int = signal.SIGINT,
    cold: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `guandan ARGS` with `hold` (`module:function`) held at its `after`-th call (and
    `settle` seconds more), send `sig` once the hold is reached (SIGINT to the process group,
    SIGTERM to the harness), and return how it ended; `cold`: with an empty cache of its own
    (mutate keeps the killers it found, and would not call what is held)."""
    module, name = hold.split(":")
    ready = tmp_path / "ready"
    path = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    if cold:
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, module, name, str(ready), str(after), str(settle), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
        start_new_session=True,  # a process group of its own, to signal as a terminal does
    )
    try:
        waited = time.monotonic() + 60
        while not ready.exists() and process.poll() is None and time.monotonic() < waited:
            time.sleep(0.02)
        assert ready.exists() and process.poll() is None, process.communicate()
        if sig == signal.SIGINT:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
        signalled = time.monotonic()
        out, err = process.communicate(timeout=30)
        took = time.monotonic() - signalled
        assert took < STOPS_WITHIN, (took, err)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    # Nothing of the run is left behind: no worker, no engine in the harness's group.
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)
    assert "Traceback" not in err and "Traceback" not in out, err
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def a_report(tmp_path: Path) -> Path:
    """A file that `report` takes as its input (it is held before reading it)."""
    path = tmp_path / "r.json"
    path.write_text("{}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "hold"),
    [
        (["validate"], "harness.frontends.cli.rules:check_variant_files"),
        (["diff", "huaian", "competition"], "harness.frontends.cli.rules:variant"),
        (["cases", "check"], "harness.frontends.cli.corpus:check_cases"),
        (["report", "r.json", "--html", "d.html"], "harness.frontends.cli.report:read_report"),
        (["show", "huaian"], "harness.frontends.cli.rules:variant"),
        (["coverage"], "harness.frontends.cli.corpus:measure"),
    ],
    ids=lambda a: a[0] if isinstance(a, list) else None,
)
def test_ctrl_c_exits_130_with_a_word_and_no_traceback(
    tmp_path: Path, args: list[str], hold: str
) -> None:
    a_report(tmp_path)
    done = stopped(tmp_path, hold, args)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "guandan: interrupted", done.stderr
    assert not (tmp_path / "d.html").exists()  # report writes whole or not at all


def test_ctrl_c_in_mutate_writes_the_mutants_scored(tmp_path: Path) -> None:
    # Held in the 300th case tried: the mutants before the one under way are scored.
    done = stopped(
        tmp_path,
        "harness.conformance.oracles.mutation:kills",
        ["mutate", "--json", "m.json", "--markdown", "m.md"],
        after=300,
        cold=True,
    )
    assert done.returncode == 130, done.stderr
    assert "interrupted: " in done.stderr and "mutants scored" in done.stderr, done.stderr
    (score,) = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert score["interrupted"] is True and len(score["results"]) > 0
    assert "(interrupted)" in done.stdout
    assert "**Interrupted**" in (tmp_path / "m.md").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_mutate_with_workers_writes_the_mutants_scored(
    tmp_path: Path, sig: int, status: int
) -> None:
    """Held as a worker starts its second piece of mutants (its first one sent, and taken in
    during the settling time): SIGINT to the group or SIGTERM to the harness alone, and the
    mutants scored are written."""
    done = stopped(
        tmp_path,
        "harness.conformance.oracles.mutation:_score_piece",
        ["mutate", "--jobs", "2", "--json", "m.json"],
        after=2,
        settle=0.5,
        sig=sig,
        cold=True,
    )
    assert done.returncode == status, done.stderr
    (score,) = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert score["interrupted"] is True and len(score["results"]) > 0
    assert "3 variants not started" in done.stderr, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_mutate_stopped_amid_its_workers_ends_them(tmp_path: Path, sig: int, status: int) -> None:
    """Held in a worker: the workers (which a terminal's Ctrl-C reaches too, SIGTERM not) are
    ended with no traceback of theirs, and none is left (`stopped` looks)."""
    done = stopped(
        tmp_path,
        "harness.conformance.oracles.mutation:kills",
        ["mutate", "--jobs", "2"],
        sig=sig,
        cold=True,
    )
    assert done.returncode == status, done.stderr


FINGERPRINT = ["fingerprint", "--engine", "reference", "--json", "f.json", "--out", "f.yaml"]


@pytest.mark.slow
def test_ctrl_c_while_fingerprint_explains_writes_the_cases_failed(tmp_path: Path) -> None:
    """Every answer is in; the explaining stops: the JSON holds each variant's failing cases,
    marked interrupted; the inferred variant, made of clause verdicts never reached, is not
    written."""
    done = stopped(tmp_path, "harness.conformance.oracles.fingerprint:explain", FINGERPRINT)
    assert done.returncode == 130, done.stderr
    assert "interrupted while the clauses were explained: f.yaml not written" in done.stderr
    data = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))
    assert data["interrupted"] is True and data["agreement"] is None
    assert len(data["fits"]) == 4 and all(f["cases"] > 0 for f in data["fits"])
    assert data["fits"][0]["clauses"] == []
    assert not (tmp_path / "f.yaml").exists()
    assert "no clause explained (interrupted)" in done.stdout


def test_ctrl_c_while_the_engine_answers_fingerprint_writes_nothing(tmp_path: Path) -> None:
    done = stopped(tmp_path, "harness.conformance.oracles.fingerprint:session_answers", FINGERPRINT)
    assert done.returncode == 130, done.stderr
    assert "interrupted while the engine answered: nothing written" in done.stderr
    assert not (tmp_path / "f.json").exists() and not (tmp_path / "f.yaml").exists()


def test_sigterm_stops_check_writes_the_report_and_ends_the_engine(tmp_path: Path) -> None:
    """A process engine (the reference over the protocol) that writes its pid: after SIGTERM
    to the harness, the report holds the cases that finished, and the engine is gone."""
    (tmp_path / "cases.yaml").write_text(GOOD, encoding="utf-8")
    pid_file = tmp_path / "engine.pid"
    script = tmp_path / "engine.py"
    script.write_text(
        "import os, sys\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "from harness.frontends.cli import main\n"
        "raise SystemExit(main(['serve']))\n",
        encoding="utf-8",
    )
    check = [
        "check", "--engine", f"exec:{sys.executable} {script}", "--variant", "huaian",
        "--cases", "cases.yaml", "--no-bundled", "--report", "r.json",
    ]  # fmt: skip
    done = stopped(
        tmp_path, "harness.conformance.running.runner:_Journal.write", check, sig=signal.SIGTERM
    )
    assert done.returncode == 143, done.stderr
    assert "interrupted: 1 of 2 cases finished" in done.stderr, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True and len(report["cases"]) == 1
    engine = int(pid_file.read_text(encoding="utf-8"))
    with pytest.raises(ProcessLookupError):
        os.kill(engine, 0)
