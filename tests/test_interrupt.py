"""Ctrl-C during `guandan check` (issue 16): the run stops within about two seconds, with
--jobs 1 and --jobs 2, for a Python engine (in forked processes with --jobs 2) and a process
engine (in threads), exits 130 with a short word and no traceback, writes the reports of the
cases that finished and keeps the journal; `--resume` then runs the other cases and only them.

The signal goes to the whole process group, as a terminal's Ctrl-C does: the worker processes
and the engine processes get it too.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.conformance.running import runner
from harness.model.loader import load_variant
from tests.conftest import slow_but

REPO = Path(__file__).resolve().parents[1]

# An engine, slow on purpose, that is both a module (`py:slow_engine:SlowEngine`) and a script
# speaking the process protocol (`exec:python slow_engine.py`). It answers as the reference,
# DELAY seconds later; with SLOW_ENGINE_BROKEN set, it answers every request with an error at
# once, so that a resumed run shows which cases it asked. SLOW_ENGINE_DELAY sets DELAY.
ENGINE = """
import json
import os
import sys
import time

from harness.engine import EngineBase, EngineError, EngineInfo, ReferenceEngine

DELAY = float(os.environ.get("SLOW_ENGINE_DELAY", "0.01"))
BROKEN = bool(os.environ.get("SLOW_ENGINE_BROKEN"))


class SlowEngine(EngineBase):
    def __init__(self, variant, options=None):
        self.reference = ReferenceEngine(variant, options)

    def describe(self):
        info = self.reference.describe()
        return EngineInfo("slow", "1", info.variant, info.options, info.operations)

    def answer(self, operation, request):
        if BROKEN:
            raise EngineError("internal", "broken on purpose")
        time.sleep(DELAY)
        return self.reference.answer(operation, request)


def respond(engine, request):
    try:
        output = engine.answer(request["operation"], request["input"])
    except EngineError as exc:
        return {"type": "response", "id": request["id"],
                "error": {"kind": exc.kind.value, "message": str(exc)}}
    return {"type": "response", "id": request["id"], "output": output}


def main():
    engine = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            engine = SlowEngine(message["variant"], message.get("options"))
            info = engine.describe()
            answer = {"type": "hello", "protocol": 1, "name": info.name, "version": "1",
                      "variant": info.variant, "options": dict(info.options),
                      "operations": list(info.operations)}
        elif message["type"] == "request":
            answer = respond(engine, message)
        elif message["type"] == "batch":
            answers = [respond(engine, r) for r in message["requests"]]
            answer = {"type": "batch", "id": message["id"], "responses": answers}
        else:
            return
        sys.stdout.write(json.dumps(answer) + "\\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
"""

STOPS_WITHIN = 3.0
"""Seconds from the signal to the end of the process (the issue asks about two)."""


def _engine_spec(kind: str, folder: Path) -> str:
    script = folder / "slow_engine.py"
    script.write_text(ENGINE, encoding="utf-8")
    if kind == "py":
        return "py:slow_engine:SlowEngine"
    return f"exec:{sys.executable} {script}"


def _environment(folder: Path, broken: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(folder), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    env.pop("SLOW_ENGINE_BROKEN", None)
    if broken:
        env["SLOW_ENGINE_BROKEN"] = "1"
    return env


def _lines(path: Path) -> int:
    try:
        return path.read_text(encoding="utf-8").count("\n")
    except OSError:
        return 0


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _by_key(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    keys = [f"{c['id']}[{c['variant']}]" for c in report["cases"]]
    assert len(keys) == len(set(keys)), "a case appears twice"
    return {f"{c['id']}[{c['variant']}]": c for c in report["cases"]}


def _wait_for(path: Path, seconds: float = 120) -> None:
    """Return once `path` exists (at most `seconds`)."""
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the engine is now in its sleep, and the harness waits on it


def _interrupt(
    process: subprocess.Popen[str], ready: Callable[[], None], *, group: bool
) -> tuple[str, str, float]:
    """SIGINT, once `ready` returns, to the process's group (as a terminal's Ctrl-C) or to the
    harness alone; its output, and how many seconds it took to stop. Killed if it does not."""
    try:
        ready()
        if group:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        out, err = process.communicate(timeout=30)
        return out, err, time.monotonic() - signalled
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


@pytest.mark.parametrize(
    ("jobs", "kind"), slow_but(itertools.product(["1", "2"], ["py", "exec"]), ("1", "py"))
)
def test_ctrl_c_stops_promptly_reports_and_resumes(tmp_path: Path, kind: str, jobs: str) -> None:
    engine = _engine_spec(kind, tmp_path)
    report = tmp_path / "r.json"
    journal = tmp_path / "r.json.partial.jsonl"
    junit, markdown = tmp_path / "r.xml", tmp_path / "r.md"
    command = [
        sys.executable, "-m", "harness.frontends.cli", "check", "--engine", engine,
        "--variant", "huaian", "--no-derived", "--jobs", jobs, "--report", str(report),
    ]  # fmt: skip
    process = subprocess.Popen(
        [*command, "--junit", str(junit), "--markdown", str(markdown)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(tmp_path),
        start_new_session=True,  # a process group of its own, to signal as a terminal does
    )

    def five_done() -> None:
        waited = time.monotonic() + 60
        while _lines(journal) < 5 and process.poll() is None and time.monotonic() < waited:
            time.sleep(0.05)
        assert process.poll() is None, process.communicate()

    out, err, stopped = _interrupt(process, five_done, group=True)
    print(f"{kind} --jobs {jobs}: stopped {stopped:.2f} s after SIGINT")
    assert stopped < STOPS_WITHIN, (stopped, err)
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    words = re.search(r"interrupted: (\d+) of (\d+) cases finished", err)
    assert words is not None, err
    finished, selected = int(words.group(1)), int(words.group(2))
    assert 5 <= finished < selected
    assert "INTERRUPTED" in out
    # No worker process is left behind (the forked ones were in the signalled group).
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)

    # The reports hold what finished, every one a pass (no error made by the stop itself).
    first = _load(report)
    assert first["interrupted"] is True and first["ok"] is False
    done = _by_key(first)
    assert len(done) == finished
    assert {c["status"] for c in done.values()} == {"pass"}
    names = {case.get("name") for case in ET.parse(junit).getroot().iter("testcase")}
    assert names == set(done)
    assert "Interrupted" in markdown.read_text(encoding="utf-8")
    assert journal.exists()
    journalled = {f"{e['id']}[{e['variant']}]" for e in map(json.loads, journal.open())}
    assert journalled == set(done)

    # Resumed with the engine now failing every request: the cases that finished keep their
    # results (they are not asked again), every other case runs, once.
    resumed = subprocess.run(
        [*command, "--resume", str(report)],
        capture_output=True,
        text=True,
        env=_environment(tmp_path, broken=True),
        timeout=120,
    )
    assert resumed.returncode == 1, resumed.stderr
    assert "Traceback" not in resumed.stderr
    final = _load(report)
    assert final["interrupted"] is False
    cases = _by_key(final)
    assert len(cases) == selected
    for key, entry in cases.items():
        assert entry == done[key] if key in done else entry["status"] == "error", key
    assert not journal.exists()


def test_ctrl_c_before_any_case_finished_exits_130(tmp_path: Path) -> None:
    """An engine still starting when SIGINT comes (to the harness alone: the engine, which
    would never answer, must be stopped by the harness): no case finished, exit 130 all the
    same, and a report with no case."""
    script = tmp_path / "sleepy.py"
    started = tmp_path / "started"
    # The engine marks that it has started, so SIGINT comes while it starts however long the
    # harness takes to get there on a loaded machine (a fixed 3 s was too short once).
    script.write_text(
        f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\ntime.sleep(60)\n",
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    command = [
        sys.executable, "-m", "harness.frontends.cli", "check", "--engine",
        f"exec:{sys.executable} {script}", "--variant", "huaian", "--jobs", "2",
        "--timeout", "60", "--report", str(report),
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(tmp_path),
        start_new_session=True,
    )
    out, err, stopped = _interrupt(process, lambda: _wait_for(started), group=False)
    print(f"an engine starting: stopped {stopped:.2f} s after SIGINT")
    assert stopped < STOPS_WITHIN, (stopped, err)
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert "interrupted: 0 of" in err
    assert _load(report)["cases"] == []


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_ctrl_c_between_recording_and_journalling_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """Ctrl-C while the fifth result is journalled (before or after its line is written): the
    journal still ends holding exactly the results the report holds. A CI run once had one
    more case in the journal than in the report."""
    calls = [0]
    write = runner._Journal.write

    def interrupted_write(self: runner._Journal, result: runner.CaseResult) -> None:
        calls[0] += 1
        if calls[0] == 5 and when == "before":
            raise KeyboardInterrupt
        write(self, result)
        if calls[0] == 5 and when == "after":
            raise KeyboardInterrupt

    monkeypatch.setattr(runner._Journal, "write", interrupted_write)
    journal = tmp_path / "r.json.partial.jsonl"
    config = runner.RunConfig("reference", [load_variant("huaian")], journal=journal)
    result = runner.run(config)
    assert result.interrupted
    assert len(result.results) == 5
    journalled = [f"{e['id']}[{e['variant']}]" for e in map(json.loads, journal.open())]
    assert set(journalled) == {r.key for r in result.results}
