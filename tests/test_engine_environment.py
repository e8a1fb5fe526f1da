"""The environment an engine gets (issue 23): the harness's own by default, documented; with
`--clean-env` (or GUANDAN_ENGINE_ENV=clean) only what a program needs to start."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from harness.engine.process import ENVIRONMENT_VARIABLE, engine_environment
from harness.frontends.cli import main

SECRET = "GUANDAN_TEST_SECRET_TOKEN"
ONE_CASE = "flow-jiefeng-seat-zero-finisher-partner-two-leads"


def test_the_default_is_the_whole_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    assert engine_environment() is None  # subprocess then passes os.environ


def test_a_clean_environment_keeps_what_a_program_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "clean")
    monkeypatch.setenv(SECRET, "hunter2")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    env = engine_environment()
    assert env is not None
    assert SECRET not in env and "PYTHONPATH" not in env
    assert env["PATH"] == "/usr/bin:/bin" and env["LC_TIME"] == "C"


def _engine_writing_env(tmp_path: Path) -> tuple[str, Path]:
    """An engine (the reference served) that first writes its environment to a file."""
    seen = tmp_path / "env.txt"
    serve = f"{shlex.quote(sys.executable)} -m harness.frontends.cli serve"
    script = f"env > {shlex.quote(str(seen))}; exec {serve}"
    return f"exec:sh -c {shlex.quote(script)}", seen


@pytest.mark.parametrize("clean", [False, True])
def test_check_passes_the_environment_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: bool
) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setenv(SECRET, "hunter2")
    engine, seen = _engine_writing_env(tmp_path)
    args = ["check", "--engine", engine, "--variant", "huaian", "-k", ONE_CASE]
    if clean:
        args.append("--clean-env")
    assert main(args) == 0
    names = {line.split("=", 1)[0] for line in seen.read_text().splitlines() if "=" in line}
    assert (SECRET in names) is not clean
    assert "PATH" in names
    assert ENVIRONMENT_VARIABLE not in os.environ  # restored after the command
