"""Files read and written safely.

Input files are opened as regular files only: a FIFO, a device or a socket named as an input is
refused, never read. Reading a FIFO waits for a writer forever and a device may never end, so a
name checked beforehand is not enough: it may be swapped for one between the check and the
read. The file is opened without waiting (O_NONBLOCK) and what was opened is looked at.

Output files are written whole or not at all (`write_atomically`): a regular file through a
temporary file renamed over it, so that a failed write (a full disk) leaves the previous file as
it was and nothing empty behind; a path that is no regular file (a FIFO, a character device, a
symbolic link to one) is written through, as the shell's `>` does, never replaced by a file.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from harness.errors import OutputError

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

# Opening a FIFO for reading without O_NONBLOCK waits for a writer; opening a terminal without
# O_NOCTTY may make it this process's controlling terminal. Neither flag exists on Windows,
# which has no such files.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def kind_of(mode: int) -> str:
    """What a file of this `st_mode` is, for a message: `a FIFO (named pipe)`, `a folder`…"""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


class NotRegularFile(OSError):
    """An input that is no regular file: its `strerror` says what it is."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        self.reason = f"{kind_of(mode)}, not a regular file"
        super().__init__(self.reason)
        self.strerror = self.reason
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return self.reason


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading in binary; NotRegularFile (an OSError) when what it names is
    not a regular file, decided on the file opened, not on its name."""
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_text(path: Path) -> str:
    """The UTF-8 text of a regular file, as `Path.read_text` reads it (newlines translated);
    NotRegularFile when `path` names anything else."""
    with io.TextIOWrapper(open_regular(path), encoding="utf-8") as text:
        return text.read()


def write_atomically(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write `text` (or its parts, made as they are written; or bytes, a PDF) to `path` whole
    or not at all (a reader never sees half a report). A regular file (or a new one) is
    replaced by a temporary file renamed over it; where `path` is a symbolic link to a regular
    file, the file it leads to is, and the link stays. A FIFO or a device is written through,
    never replaced. A write that fails is an OutputError naming `path`, the previous file left
    intact and no temporary file behind."""
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(str(path), exc.strerror or str(exc)) from None
    if mode is not None and not stat.S_ISREG(mode):
        _write_through(path, text)
        return
    # The file a link leads to is replaced, not the link (`--json latest.json`, a link to
    # the day's report, stays a link).
    real = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(str(path), exc.strerror or str(exc)) from None
    try:
        # As an ordinary file is made (or as the file replaced was), not mkstemp's owner-only.
        os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else 0o644)
        with os.fdopen(fd, "wb") as binary:
            _write_all(binary, text)
        os.replace(tmp, real)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(str(path), exc.strerror or str(exc)) from None
    except BaseException:
        # A text that failed to be made (or a second Ctrl-C) leaves no temporary file behind.
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_through(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write `text` into the FIFO or device `path` as it is (no file made in its place)."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        # Blocks on a FIFO until its reader opens it, as the shell's `>` does.
        with os.fdopen(os.open(path, flags), "wb") as binary:
            _write_all(binary, text)
    except OSError as exc:
        raise OutputError(str(path), exc.strerror or str(exc)) from None


def _write_all(binary: BinaryIO, text: str | bytes | Iterable[str]) -> None:
    """Write `text` (bytes, a string, or strings made as they are written) as UTF-8."""
    if isinstance(text, bytes):
        binary.write(text)
        return
    with contextlib.closing(io.TextIOWrapper(binary, encoding="utf-8")) as fh:
        fh.writelines([text] if isinstance(text, str) else text)
        fh.flush()
