"""What the `guandan` commands share: exit statuses, the argparse types of inputs and outputs,
option parsing, loading a variant (a slug or a file), and clause values and provenance in one
line."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol, TextIO

from harness.errors import OutputError, UsageError
from harness.model._files import kind_of, write_atomically
from harness.wording import counted

if TYPE_CHECKING:
    from harness.model.ruleset import Provenance, Ruleset

# The rule model, the YAML reader and the reports are imported where they are used, not here:
# every command imports this module, `guandan --version` too, which needs none of them.

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""The exit status after Ctrl-C, as a shell gives a command that SIGINT ended (128 + 2)."""
EXIT_TERMINATED = 143
"""The exit status after SIGTERM (128 + 15): the command stopped as after Ctrl-C."""


Command = Callable[[argparse.Namespace, TextIO], int]


def add_clean_env(parser: argparse.ArgumentParser) -> None:
    """Add `--clean-env`: the engines get only the variables a program needs to start."""
    parser.add_argument(
        "--clean-env",
        action="store_true",
        help="start engines with only PATH, HOME, the locale (LANG, LANGUAGE, LC_*), TZ and "
        "the temporary folders in their environment, not the whole of this one (tokens and "
        "secrets included); the same as GUANDAN_ENGINE_ENV=clean",
    )


def add_trace(parser: argparse.ArgumentParser) -> None:
    """Add `--trace FILE`: every protocol line of every engine process, as JSON lines."""
    parser.add_argument(
        "--trace",
        metavar="FILE",
        type=output_file,
        help="write every line sent to and received from each exec: engine (hellos, requests, "
        "batches, byes, and stray lines) to FILE as JSON lines: t (seconds), pid, engine, dir "
        "(sent or received), line; the reference and py: engines speak no protocol lines, "
        "and workers on a Dask cluster write none",
    )


def _writable_folder(folder: Path) -> str | None:
    """Why nothing can be written in the nearest folder that exists at or above `folder`, or
    None: a file can be made there and a byte written in it (tried, then removed: permissions,
    a read-only file system and a full disk all show; a full disk still lets an empty file be
    made, so the byte is what tells)."""
    at = folder
    while not at.exists():
        if at.parent == at:
            return f"{folder}: no folder above it exists"
        at = at.parent
    if not at.is_dir():
        return f"{at} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(dir=at, prefix=".guandan-write-check-")
    except OSError as exc:
        return f"cannot write in {at}: {exc.strerror or exc}"
    try:
        os.write(fd, b"\n")
    except OSError as exc:
        return f"cannot write in {at}: {exc.strerror or exc}"
    finally:
        os.close(fd)
        Path(probe).unlink(missing_ok=True)
    return None


def _input(text: str, noun: str, *, folder: bool = False) -> str:
    """`text` when it names a regular file (or, with `folder`, a folder) that can be read;
    else the argparse error saying what it is. A FIFO or a device is refused at once: reading
    one would wait for ever, or never end."""
    from harness.model.diagnostics import safe_text

    shown = safe_text(text)
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        raise argparse.ArgumentTypeError(f"no such {noun}: {shown}") from None
    except (OSError, ValueError) as exc:
        # A name too long for the file system, a file taken for a folder, a NUL in the name.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise argparse.ArgumentTypeError(f"cannot read {shown}: {why}") from None
    if not (stat.S_ISREG(mode) or (folder and stat.S_ISDIR(mode))):
        wanted = "a file or a folder" if folder else "a file"
        raise argparse.ArgumentTypeError(f"{shown} is {kind_of(mode)}, not {wanted}")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"{shown} cannot be read (permission denied)")
    return text


def input_file(text: str) -> str:
    """An argparse type for a file the command reads: refused at once, before any work, where
    it is missing, unreadable, a folder, a FIFO, a device or a socket."""
    return _input(text, "file")


def input_path(text: str) -> str:
    """`input_file`, where a folder (of such files) is also taken."""
    return _input(text, "file or folder", folder=True)


def variant_input(text: str) -> str:
    """An argparse type for `SLUG|FILE`: a name that is a file's (`.yaml`, or a path) must be
    an `input_file`; a slug is looked up when the variant is loaded."""
    from harness.model.loader import is_variant_file

    return _input(text, "variant file") if is_variant_file(text) else text


def output_file(text: str) -> str:
    """An argparse type for a file the command will write (出力): refused at once, before any
    work, where it is a folder, lies under a file, or cannot be written. A FIFO or a device
    (or a link to one) is taken where it can be written: it is written through, never
    replaced."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text} cannot be written (permission denied)")
    if path.exists() and not path.is_file():
        return text  # written through: no file is made beside it
    # A link to a file: the file it leads to is replaced, in its own folder.
    real = Path(os.path.realpath(path)) if path.is_symlink() else path
    problem = _writable_folder(real.parent)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem}")
    return text


def jobs_to_run(asked: int) -> int:
    """`--jobs` as it runs: at most one process per usable CPU, with a one-line notice on
    stderr where `asked` was more (the work caps it further, silently: a run of one shard
    runs in this process)."""
    from harness.engine.cluster import usable_cpus

    cpus = usable_cpus()
    if asked <= cpus:
        return asked
    sys.stderr.write(
        f"guandan: --jobs {asked}: {counted(cpus, 'CPU')} here, so at most "
        f"{counted(cpus, 'process', 'processes')} run\n"
    )
    return cpus


STDOUT = "-"
"""What a file option takes for standard output."""


def output_file_or_stdout(text: str) -> str:
    """`output_file`, or `-` for standard output."""
    return text if text == STDOUT else output_file(text)


def add_output(
    parser: argparse.ArgumentParser, name: str, metavar: str, help: str, *, old: str = ""
) -> None:
    """A file option `name` that also takes `-` for standard output; `old`, a former name of
    the same option, still accepted but no longer shown."""
    more = f" (old name: {old}, kept for one release)" if old else ""
    dest = name.removeprefix("--").replace("-", "_")
    parser.add_argument(
        name,
        metavar=metavar,
        type=output_file_or_stdout,
        dest=dest,
        help=f"{help} (- for stdout){more}",
    )
    if old:
        parser.add_argument(old, type=output_file_or_stdout, dest=dest, help=argparse.SUPPRESS)


def add_format(
    parser: argparse.ArgumentParser, choices: Sequence[str] = ("text", "json"), *, old: bool = False
) -> None:
    """`--format`: what the command prints on stdout (the first of `choices` by default); `old`:
    the `--json` flag it once had for `--format json`, still accepted but no longer shown."""
    more = " (old name: --json, kept for one release)" if old else ""
    parser.add_argument(
        "--format",
        choices=choices,
        default=choices[0],
        help=f"what to print (default {choices[0]}){more}",
    )
    if old:
        parser.add_argument(
            "--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS
        )


def words_stream(args: argparse.Namespace, out: TextIO, *names: str) -> TextIO:
    """Where a command writes its words for people: `out`, unless one of the file options
    `names` writes to stdout (`-`), which then holds that file alone (stderr takes the words).
    Two options on stdout at once are a usage error."""
    on_stdout = [n for n in names if getattr(args, n, None) == STDOUT]
    if len(on_stdout) > 1:
        shown = " and ".join("--" + n.replace("_", "-") for n in on_stdout)
        raise UsageError(f"{shown} cannot both write to stdout (-): give one of them a file")
    return sys.stderr if on_stdout else out


def write_output(target: str, text: str | bytes | Iterable[str], out: TextIO) -> None:
    """Write `text` (or its parts; or bytes, a PDF) to the file `target` whole or not at all,
    or to `out`, the command's stdout, when `target` is `-`; a write that fails is an
    OutputError naming it."""
    if target != STDOUT:
        write_atomically(Path(target), text)
        return
    try:
        if isinstance(text, bytes):
            binary = binary_stdout(out)
            out.flush()
            binary.write(text)
            binary.flush()
        else:
            out.writelines([text] if isinstance(text, str) else text)
            out.flush()
    except BrokenPipeError:
        raise  # the reader went away (`| head`): the command stops quietly
    except OSError as exc:
        raise OutputError("standard output", exc.strerror or str(exc)) from None


def binary_stdout(out: TextIO) -> BinaryIO:
    """The bytes stream under the command's stdout `out`, for a PDF on `-`; a usage error at
    a terminal (bytes would garble it) or where `out` has none."""
    binary: BinaryIO | None = getattr(out, "buffer", None)
    if binary is None or out.isatty():
        raise UsageError("binary output (a PDF) goes to a file or a pipe: give -o FILE.pdf")
    return binary


def output_folder(text: str) -> str:
    """An argparse type for a folder the command will write files in: refused at once where it
    is a file, lies under a file, or cannot be written."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    problem = _writable_folder(path)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem}")
    return text


class Subparsers(Protocol):
    """What `add_subparsers` returns: each command module adds its commands to it."""

    def add_parser(
        self, name: str, *, help: str | None = ..., epilog: str | None = ...
    ) -> argparse.ArgumentParser:
        """A new subcommand `name`."""
        ...


EXIT_WORDS = "2 usage or input error, 130 after Ctrl-C, 143 after SIGTERM"


def epilog(examples: Sequence[str], exits: str) -> str:
    """A command's `--help` epilog: example command lines, one a line, then its exit statuses
    (`exits`: those of 0 and 1; the others are every command's)."""
    lines = ["examples:", *(f"  {e}" for e in examples), "", f"exit status: {exits}, {EXIT_WORDS}"]
    return "\n".join(lines)


def format_value(value: Any) -> str:
    """A clause value in one line for people: text bare, lists and mappings as compact JSON."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def format_provenance(provenance: Provenance, ruleset: Ruleset) -> str:
    """A provenance in one line: `stated by SOURCE (place): quote`, `read from SOURCE
    (place): quote; our reading: reading`, or `assumed: reason`."""
    from harness.model.ruleset import ProvenanceKind

    if provenance.kind.quoted:
        # A bundled source (來源) by its id, as the commands take it; a club's own source of
        # `ruleset`, the variant that cites it, by its title.
        found = ruleset.cited(provenance.source)
        named = found.title if found is not None and found.own else provenance.source
        if provenance.kind is ProvenanceKind.READ:
            reading = " ".join((provenance.reading or "").split())
            return (
                f"read from {named} ({provenance.place}): {provenance.quote}; "
                f"our reading: {reading}"
            )
        return f"stated by {named} ({provenance.place}): {provenance.quote}"
    return f"assumed: {provenance.reason}"


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`--option NAME=VALUE` arguments as a mapping; a malformed one is a UsageError."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option {pair!r}: expected NAME=VALUE, e.g. target=8")
        out[name.strip()] = value.strip()
    return out


def variant(spec: str, options: Sequence[str] = ()) -> Ruleset:
    """A bundled variant by slug, or a variant file by path, with `--option`s chosen."""
    from harness.model.loader import load_variant_spec

    return load_variant_spec(spec, parse_options(options))


def add_bots(parser: argparse.ArgumentParser, default: str = "random") -> None:
    """The `--bots KIND[,KIND2]` argument of `play`, `simulate` and `compare-play`
    (模擬的機器人)."""
    parser.add_argument(
        "--bots",
        default=default,
        metavar="KIND[,KIND2]",
        help="random, greedy or heuristic; KIND,KIND2: seats 0 and 2 play KIND, seats 1 and 3 "
        f"KIND2 (default: {default})",
    )


def add_python_path(parser: argparse.ArgumentParser) -> None:
    """The `--python` flag of `simulate` and `compare-play`: play on the interpreter, not the
    fast engine (快速引擎)."""
    parser.add_argument(
        "--python",
        action="store_true",
        help="play every match on the interpreter (the Python path), not on the fast engine "
        "where it is on (`guandan --version` says); the numbers are the same, only slower",
    )


def add_option(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    """The repeatable `--option NAME=VALUE` argument."""
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help=help)


def columns(text: str) -> int:
    """How many terminal columns `text` takes: a wide or full-width character (a Chinese term
    such as 雙下) takes two, as terminals draw it."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def padded(text: str, width: int) -> str:
    """`text` left-aligned in `width` terminal columns (see `columns`), as `f"{text:<width}"`
    would be if every character took one column."""
    return text + " " * max(0, width - columns(text))
