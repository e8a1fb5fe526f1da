"""Inputs that are not files are refused (issue 23): a FIFO, a device or a socket named on the
command line, wherever a command reads a file or a folder, is refused at once with an argparse
error (exit 2) naming what it is, before any work, never waited on. One found in a folder of
inputs is a located problem; one swapped in after the check is refused by the reader itself.

Every test here runs under a watchdog: a FIFO waited on fails the test instead of hanging it.
"""

from __future__ import annotations

import io
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness.conformance.cases.case_loader import read_case_file
from harness.conformance.running.journal import read_previous
from harness.conformance.running.results import ExpectFail
from harness.errors import HarnessError
from harness.frontends.cli import main
from harness.model._files import NotRegularFile, open_regular, read_regular_text
from harness.model.loader import check_variant_file, load_variant_spec, read_variant_file
from tests.test_own_cases import GOOD

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


@pytest.fixture(autouse=True)
def never_hangs() -> Iterator[None]:
    """Fail, rather than hang, a test that waits on a FIFO for more than 20 seconds."""

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("hung: an input that is no regular file was waited on")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fifo(folder: Path, name: str = "in.yaml") -> Path:
    """A FIFO no one writes to: reading it would wait for ever."""
    path = folder / name
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    """A Unix socket bound at a path ending in `.yaml`."""
    path = tmp_path / "sock.yaml"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
    except OSError as exc:  # a path too long for a socket address: a shorter folder
        sock.close()
        pytest.fail(f"cannot bind a socket at {path}: {exc}")
    yield path
    sock.close()


REPORT = "report"
# Every option and argument that names an input, and the command that takes it (the input is
# put where `{}` is).
INPUTS = [
    ["validate", "{}"],
    ["cases", "check", "{}"],
    ["check", "--cases", "{}"],
    ["check", "--expect-fail", "{}"],
    ["check", "--resume", "{}"],
    ["check", "--variant", "{}"],
    [REPORT, "{}"],
    ["show", "{}"],
    ["diff", "huaian", "{}"],
    ["diff", "{}", "huaian"],
    ["serve", "--variant", "{}"],
    ["classify", "--variant", "{}", "--level", "2", "S3"],
    ["plays", "--variant", "{}", "--level", "2", "S3"],
    ["play", "--variant", "{}", "--seed", "1"],
    ["coverage", "--variant", "{}"],
    ["fuzz", "--engine", "reference", "--variant", "{}"],
    ["fuzz", "--engine", "reference", "--variant", "huaian", "--tls-ca-file", "{}"],
    ["fuzz", "--engine", "reference", "--variant", "huaian", "--tls-cert", "{}"],
    ["fuzz", "--engine", "reference", "--variant", "huaian", "--tls-key", "{}"],
    ["mutate", "--variant", "{}"],
    ["fingerprint", "--engine", "reference", "--variant", "{}"],
]


def _run(command: list[str], path: Path) -> tuple[int, str]:
    """The exit status and output of `command` with `path` for its `{}`."""
    out = io.StringIO()
    code = main([str(path) if a == "{}" else a for a in command], out)
    return code, out.getvalue()


@pytest.mark.parametrize("command", INPUTS, ids=lambda c: " ".join(c))
def test_a_fifo_named_as_an_input_is_refused_at_once(
    tmp_path: Path, capsys: CaptureFixture[str], command: list[str]
) -> None:
    path = fifo(tmp_path)
    code, out = _run(command, path)
    err = capsys.readouterr().err
    assert code == 2, (out, err)
    assert "error: argument" in err and f"{path} is a FIFO (named pipe), not a" in err, err
    assert out == "", out  # refused before any work
    assert "Traceback" not in err


@pytest.mark.parametrize("command", INPUTS, ids=lambda c: " ".join(c))
def test_a_socket_named_as_an_input_is_refused_at_once(
    unix_socket: Path, capsys: CaptureFixture[str], command: list[str]
) -> None:
    code, out = _run(command, unix_socket)
    err = capsys.readouterr().err
    assert code == 2 and f"{unix_socket} is a socket, not a" in err, (out, err)
    assert out == ""


@pytest.mark.parametrize(
    "command",
    [["validate", "{}"], [REPORT, "{}"], ["show", "{}"], ["check", "--expect-fail", "{}"]],
    ids=lambda c: " ".join(c),
)
def test_a_device_named_as_an_input_is_refused_at_once(
    capsys: CaptureFixture[str], command: list[str]
) -> None:
    # /dev/zero would never end, /dev/tty would wait for a line: neither is read.
    for device in ("/dev/null", "/dev/zero"):
        code, out = _run(command, Path(device))
        err = capsys.readouterr().err
        assert code == 2 and f"{device} is a character device, not a" in err, (device, err)
        assert out == ""


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["validate", "{}"], "no such file or folder: {}"),
        (["check", "--cases", "{}"], "no such file or folder: {}"),
        (["check", "--expect-fail", "{}"], "no such file: {}"),
        (["check", "--resume", "{}"], "no such report or journal to resume: {}"),
        ([REPORT, "{}"], "no such file: {}"),
        (["show", "{}"], "no such variant file: {}"),
        (["check", "--variant", "{}"], "no such variant file: {}"),
    ],
)
def test_a_missing_input_is_refused_at_once_by_its_name(
    tmp_path: Path, capsys: CaptureFixture[str], command: list[str], words: str
) -> None:
    missing = tmp_path / "nowhere.yaml"
    code, out = _run(command, missing)
    err = capsys.readouterr().err
    assert code == 2 and words.format(missing) in err, err
    assert out == ""


def test_a_folder_where_a_file_is_wanted_is_refused(
    tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    for command in ([REPORT, "{}"], ["check", "--expect-fail", "{}"], ["show", "{}/"]):
        code, _ = _run([a.replace("{}", str(tmp_path)) for a in command], tmp_path)
        err = capsys.readouterr().err
        assert code == 2 and "is a folder, not a file" in err, (command, err)


def test_a_journal_to_resume_that_is_a_fifo_is_refused(
    tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    """`--resume r.json` reads r.json and the journal beside it: whichever exists must be a
    regular file, the journal too when the report is not there."""
    journal = fifo(tmp_path, "r.json.partial.jsonl")
    code = main(["check", "--resume", str(tmp_path / "r.json")], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and f"{journal} is a FIFO (named pipe), not a file" in err, err


def test_a_fifo_in_a_folder_of_variant_files_is_a_located_problem(
    tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    fifo(tmp_path, "club.yaml")
    out = io.StringIO()
    assert main(["validate", str(tmp_path)], out) == 1
    assert "club.yaml:1:1: cannot read: a FIFO (named pipe), not a regular file" in out.getvalue()


def test_a_fifo_in_a_folder_of_cases_is_a_located_problem_and_the_others_run(
    tmp_path: Path,
) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    fifo(tmp_path, "stuck.yaml")
    out = io.StringIO()
    assert main(["cases", "check", str(tmp_path)], out) == 1
    assert "stuck.yaml:1:1: cannot read: a FIFO (named pipe), not a regular file" in out.getvalue()
    out = io.StringIO()
    code = main(
        ["check", "--cases", str(tmp_path), "--no-bundled", "--variant", "huaian", "--verbose"],
        out,
    )
    text = out.getvalue()
    assert code == 1, text
    assert "PROBLEM" in text and "stuck.yaml:1:1" in text and "FIFO" in text, text
    assert "club-straight-two-to-six" in text and "club-king-beats-nine" in text, text


def test_the_readers_refuse_a_fifo_swapped_in_after_the_check(tmp_path: Path) -> None:
    """A name checked as a regular file may name a FIFO by the time it is read: every reader
    of inputs opens without waiting and refuses what it opened."""
    path = fifo(tmp_path, "swapped.yaml")
    with pytest.raises(NotRegularFile, match=r"a FIFO \(named pipe\), not a regular file"):
        open_regular(path)
    with pytest.raises(NotRegularFile):
        read_regular_text(path)
    _, problems = read_variant_file(path)
    assert [p.message for p in problems] == ["cannot read: a FIFO (named pipe), not a regular file"]
    cases, problems = read_case_file(path)
    assert cases == [] and "a FIFO (named pipe), not a regular file" in problems[0].message
    with pytest.raises(HarnessError, match=r"--expect-fail .*FIFO"):
        ExpectFail.read(path)
    with pytest.raises(HarnessError, match=r"--resume .*FIFO"):
        read_previous(path)
    with pytest.raises(HarnessError, match=r"the variant file .* is a FIFO \(named pipe\)"):
        load_variant_spec(str(path))


def test_a_parent_variant_that_is_a_fifo_is_passed_over(tmp_path: Path) -> None:
    """`extends: club` looks for club.yaml beside the extending file: not named on the command
    line, so nothing checked it. A FIFO there is not taken for the variant (nor waited on)."""
    fifo(tmp_path, "club.yaml")
    child = tmp_path / "child.yaml"
    child.write_text("id: child\nextends: club\n", encoding="utf-8")
    problems = check_variant_file(child)
    assert any("extends" in p.path and "club" in p.message for p in problems), problems


def test_a_regular_input_is_still_read(tmp_path: Path) -> None:
    """The non-blocking open changes nothing for a regular file: its text, newlines and all."""
    path = tmp_path / "list.txt"
    path.write_bytes(b"a\r\nb\n")
    assert read_regular_text(path) == "a\nb\n"
    with open_regular(path) as fh:
        assert fh.read() == b"a\r\nb\n"
