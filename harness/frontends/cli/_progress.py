"""The live line of a long command (進度): one line on a terminal, rewritten in place as the
work goes on (check, fuzz, simulate, compare-play, mutate, fingerprint, rulebook). Nothing is
written where the stream is no terminal (a pipe, a file, CI's log) or `--quiet` is given, so the
words and reports after it read the same either way."""

from __future__ import annotations

import argparse
import shutil
import sys
from types import TracebackType
from typing import TextIO

from harness.conformance.reporting.run_reports import shown
from harness.frontends.cli._common import columns


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """Add `--quiet`: no live progress line."""
    parser.add_argument("--quiet", action="store_true", help="no live progress line")


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (a closed stream is none)."""
    try:
        return stream.isatty()
    except ValueError:
        return False


def clipped(text: str, width: int) -> str:
    """`text` cut to at most `width` terminal columns (a wide character takes two)."""
    used = 0
    for i, ch in enumerate(text):
        used += columns(ch)
        if used > width:
            return text[:i]
    return text


class LiveLine:
    """A progress line on a terminal, rewritten in place by each `show`; silent when the
    stream (stderr by default) is no terminal or `quiet` is set. As a context manager, the
    line is erased at the end, however the block ends."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.live = not quiet and is_terminal(self.stream)
        # One column short of the terminal: a line that fills it wraps on some terminals, and
        # `\r` then returns to the second row.
        self.width = max(20, shutil.get_terminal_size().columns - 1)
        self._shown = 0

    def show(self, text: str) -> None:
        """Put `text` (escaped, cut to the terminal's width) in place of the line shown."""
        if not self.live:
            return
        line = clipped(shown(text), self.width)
        wide = columns(line)
        self.stream.write("\r" + line + " " * max(0, self._shown - wide))
        self.stream.flush()
        self._shown = wide

    def clear(self) -> None:
        """Erase the line shown: what is written next starts at the line's beginning."""
        if self.live and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
        self._shown = 0

    def end(self) -> None:
        """Keep the line shown as it stands and go to the next."""
        if self.live and self._shown:
            self.stream.write("\n")
            self.stream.flush()
        self._shown = 0

    def __enter__(self) -> LiveLine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.clear()
