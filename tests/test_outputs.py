"""Outputs checked before the work (issue 23): every file or folder a command will write is
refused at once, exit 2 with one line naming it, before any case runs or any engine starts,
where it is a folder (a file wanted), a file (a folder wanted), lies under a file, or cannot be
written."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness.frontends.cli import main

FUZZ = ["fuzz", "--engine", "reference", "--variant", "huaian", "--examples", "50"]
# A command that would run for a while before writing, and the option naming its output.
COMMANDS = [
    (["check", "--engine", "reference", "--variant", "huaian"], "--report", "file"),
    (["check", "--engine", "reference", "--variant", "huaian"], "--junit", "file"),
    (["check", "--engine", "reference", "--variant", "huaian"], "--markdown", "file"),
    (FUZZ, "--out", "dir"),
    (FUZZ, "--json", "file"),
    (["fingerprint", "--engine", "reference"], "--out", "file"),
    (["fingerprint", "--engine", "reference"], "--json", "file"),
    (["mutate", "--variant", "huaian"], "--json", "file"),
    (["mutate", "--variant", "huaian"], "--markdown", "file"),
    (["play", "--variant", "huaian", "--seed", "1"], "--json", "file"),
]


def places(tmp_path: Path, kind: str) -> dict[str, Path]:
    """Unwritable places for a file or a folder output."""
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    a_folder = tmp_path / "a-folder"
    a_folder.mkdir()
    found = {"under a file": a_file / "out"}
    if kind == "file":
        found["a folder"] = a_folder
    else:
        found["a file"] = a_file
    return found


@pytest.mark.parametrize(("command", "option", "kind"), COMMANDS)
def test_an_unwritable_output_is_refused_before_the_work(
    tmp_path: Path, capsys: CaptureFixture[str], command: list[str], option: str, kind: str
) -> None:
    for what, place in places(tmp_path, kind).items():
        out = io.StringIO()
        code = main([*command, option, str(place)], out)
        err = capsys.readouterr().err
        assert code == 2, (what, out.getvalue(), err)
        assert f"argument {option}" in err and str(place) in err, (what, err)
        assert "Traceback" not in err
        # Refused at once: nothing ran, so nothing was printed to the command's output.
        assert out.getvalue() == "", what


def test_a_folder_no_file_can_be_made_in_is_refused(
    tmp_path: Path, capsys: CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where making a file fails (a read-only folder or file system, a full disk: here the
    probe's own error, as root may write in a read-only folder), the output is refused."""

    def full(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    code = main(["check", "--engine", "reference", "--report", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write in {tmp_path}: No space left on device" in err, err


def test_an_output_in_a_folder_still_to_be_made_is_accepted(tmp_path: Path) -> None:
    """A report in folders that do not exist yet is fine: they are made when it is written."""
    report = tmp_path / "new" / "deeper" / "r.json"
    out = io.StringIO()
    code = main(
        ["check", "--engine", "reference", "--variant", "huaian", "-k", "combo-single-*",
         "--report", str(report)],
        out,
    )  # fmt: skip
    assert code == 0, out.getvalue()
    assert report.exists()
    assert not list(tmp_path.rglob(".guandan-write-check-*"))  # the probe leaves nothing


def test_fingerprints_default_output_is_checked_before_the_work(
    tmp_path: Path, capsys: CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out, fingerprint writes ENGINE-fingerprint.yaml in the working folder: that
    file is checked as a given one is, once the engine has said its name and before any case
    runs (a folder of that name, here, or a folder no file can be made in)."""
    from harness.frontends.cli import strength

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fingerprint ran: its output was not checked first")

    monkeypatch.setattr(strength, "fingerprint", never)
    monkeypatch.chdir(tmp_path)
    default = tmp_path / "guandan-harness-reference-fingerprint.yaml"
    default.mkdir()
    out = io.StringIO()
    assert main(["fingerprint", "--engine", "reference"], out) == 2
    err = capsys.readouterr().err
    assert f"--out (by default {default.name}): {default.name} is a folder, not a file" in err
    assert "give --out FILE" in err and out.getvalue() == ""

    default.rmdir()

    def full(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    assert main(["fingerprint", "--engine", "reference"], io.StringIO()) == 2
    assert "No space left on device" in capsys.readouterr().err
