"""Input files opened as regular files only: a FIFO, a device or a socket named as an input is
refused, never read. Reading a FIFO waits for a writer forever and a device may never end, so a
name checked beforehand is not enough: it may be swapped for one between the check and the
read. The file is opened without waiting (O_NONBLOCK) and what was opened is looked at."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import BinaryIO

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
