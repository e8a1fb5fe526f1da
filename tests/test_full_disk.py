"""Outputs that never lose data (issue 50, item 4): a write that fails after the work (no room
left: here a file-size limit, RLIMIT_FSIZE, which fails a write as a full disk or a quota does,
past the byte the up-front check writes) is one line naming the file, exit 2, no traceback,
the previous file intact and nothing empty or partial left behind. A path that is no regular
file (a character device, a FIFO, a link to either) is written through, never replaced."""

from __future__ import annotations

import io
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness.conformance.judging.judge import Status
from harness.conformance.running.journal import Journal
from harness.conformance.running.results import CaseResult
from harness.frontends.cli import main
from tests.conftest import REPO
from tests.test_compare_play import DOUBLE_DOWN_4 as CLUB

QUICK_CHECK = ["check", "--engine", "reference", "--variant", "huaian", "-k", "classify"]
# Each writer, with the option naming the file it writes (`OUT` stands for it).
WRITERS = [
    [*QUICK_CHECK, "--json", "OUT"],
    [*QUICK_CHECK, "--junit", "OUT"],
    [*QUICK_CHECK, "--markdown", "OUT"],
    ["simulate", "--variant", "huaian", "--matches", "1", "--seed", "1", "--json", "OUT"],
    ["compare-play", "huaian", "huaian-dd4.yaml", "--matches", "1", "--seed", "1",
     "--bots", "random", "--json", "OUT"],
    ["fuzz", "--engine", "reference", "--variant", "huaian", "--examples", "5", "--json", "OUT"],
    ["fingerprint", "--engine", "reference", "--out", "OUT"],
    ["play", "--variant", "huaian", "--seed", "1", "--json", "OUT"],
    ["report", "ok.json", "--html", "OUT"],
    ["report", "ok.json", "--markdown", "OUT"],
    ["rulebook", "huaian", "-o", "OUT"],
    ["smoke", "--engine", "exec:guandan serve", "--trace", "OUT"],
]  # fmt: skip


def _limited(limit: int) -> None:
    # Past `limit` bytes a write fails (EFBIG) instead of the process being killed (SIGXFSZ).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


def _guandan(cwd: Path, args: list[str], limit: int) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)  # `exec:guandan serve` finds the command there
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PATH": bin_dir + os.pathsep + os.environ["PATH"],
        # Python's own byte code caches would be cut short by the limit (it writes them whole
        # only where a write fails outright, not where it is short): none are written.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "harness.frontends.cli", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
        preexec_fn=lambda: _limited(limit), check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a report to read and a club's variant."""
    where = tmp_path_factory.mktemp("full")
    (where / "huaian-dd4.yaml").write_text(CLUB, encoding="utf-8")
    done = _guandan(where, [*QUICK_CHECK, "--json", "ok.json"], resource.RLIM_INFINITY)
    assert done.returncode == 0, done.stderr
    return where


# In the fast tier, the writers of `check` (with its journal) and of `play`; the others too in CI.
FAST = {0, 7}


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(c, id=" ".join(c[:1] + c[-2:-1]), marks=() if i in FAST else pytest.mark.slow)
        for i, c in enumerate(WRITERS)
    ],
)
@pytest.mark.parametrize("before", [None, "the previous file\n"])
def test_a_write_that_fails_is_one_line_and_loses_nothing(
    folder: Path, tmp_path: Path, command: list[str], before: str | None
) -> None:
    out = tmp_path / "out.txt"
    if before is not None:
        out.write_text(before, encoding="utf-8")
    args = [str(out) if a == "OUT" else a for a in command]
    ahead = set(folder.iterdir())
    # One byte more than the previous file: the up-front check's byte passes, the output not.
    done = _guandan(folder, args, len(before or "") + 1)
    assert done.returncode == 2, (done.stdout[-500:], done.stderr)
    assert "Traceback" not in done.stderr
    assert f"guandan: cannot write {out}: File too large" in done.stderr.splitlines()
    # The previous file as it was, or none; no temporary file, no journal, nothing else.
    if before is None:
        assert list(tmp_path.iterdir()) == []
    else:
        assert list(tmp_path.iterdir()) == [out]
        assert out.read_text(encoding="utf-8") == before
    assert set(folder.iterdir()) == ahead


def test_a_journal_that_cannot_be_written_is_given_up_and_not_left_empty(
    folder: Path, tmp_path: Path
) -> None:
    """`check --json`: the journal beside the report fails at its first line, the report after
    the run; neither is left behind."""
    report = tmp_path / "r.json"
    done = _guandan(tmp_path, [*QUICK_CHECK, "--json", str(report)], 1)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "passed" in done.stdout  # the verdict was printed before the report failed
    assert list(tmp_path.iterdir()) == []


def _result(i: int) -> CaseResult:
    return CaseResult(
        id=f"case-{i}", variant="huaian", status=Status.PASS, operation="classify", clauses=()
    )


def test_a_journal_that_fails_is_given_up_and_an_earlier_one_kept(tmp_path: Path) -> None:
    """/dev/full fails every write with ENOSPC, as a full disk does: the journal notes it and
    stops, the run goes on; a journal that was there before (an interrupted run's) stays."""
    path = tmp_path / "r.json.partial.jsonl"
    path.symlink_to("/dev/full")
    journal = Journal(path)
    journal.write(_result(1))
    journal.write(_result(2))
    assert journal.failed is not None and journal.written == set()
    assert path.is_symlink()


def test_a_character_device_is_written_through_not_replaced(
    tmp_path: Path, capsys: CaptureFixture[str]
) -> None:
    """A link to /dev/null and one to /dev/full: the JSON goes into the device (the link
    stays a link); /dev/full's ENOSPC is one line naming the path given."""
    null, full = tmp_path / "null", tmp_path / "full"
    null.symlink_to(os.devnull)
    full.symlink_to("/dev/full")
    assert main(["play", "--variant", "huaian", "--seed", "1", "--json", str(null)]) == 0
    assert null.is_symlink() and stat.S_ISCHR(os.stat(null).st_mode)
    capsys.readouterr()
    assert main(["play", "--variant", "huaian", "--seed", "1", "--json", str(full)]) == 2
    err = capsys.readouterr().err
    assert f"guandan: cannot write {full}: No space left on device" in err
    assert "Traceback" not in err
    assert full.is_symlink() and stat.S_ISCHR(os.stat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


def test_a_fifo_delivers_the_report_to_its_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code = main(["play", "--variant", "huaian", "--seed", "1", "--json", str(fifo)], io.StringIO())
    reader.join(30)
    assert code == 0
    assert got and got[0].startswith(b"{") and b'"variant"' in got[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["fifo"]


def test_a_link_to_a_file_stays_a_link_and_the_file_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "day" / "report.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    code = main(["play", "--variant", "huaian", "--seed", "1", "--json", str(link)], io.StringIO())
    assert code == 0
    assert link.is_symlink() and target.read_text(encoding="utf-8").startswith("{")


def test_standard_output_on_a_full_device_is_one_line(tmp_path: Path) -> None:
    """`-` (and the words a command prints) on a full disk: one line, exit 2, no traceback."""
    for args in (["play", "--variant", "huaian", "--seed", "1", "--json", "-"], QUICK_CHECK):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "harness.frontends.cli", *args],
                stdout=full, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=300,
                env={**os.environ, "PYTHONPATH": str(REPO)}, check=False,
            )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            "guandan: cannot write standard output: No space left on device"
        )
