"""The `guandan` command: rule sets (規則), the reference interpreter, the corpus, engine checks.

One module per group of commands, each adding its own subcommands: `rules` (variants, show,
validate, diff), `plays` (classify, plays, play), `corpus` (cases check, coverage), `check`
(check, serve), `fuzz`, `strength` (mutate, fingerprint) and `report` (report: the dashboard);
`_common` holds what they share.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from harness import __version__
from harness.collecting import fewer_collections
from harness.errors import DataError, HarnessError, UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    Command,
    format_provenance,
    format_value,
    parse_options,
    variant,
)
from harness.frontends.cli._parser import Parser, help_command
from harness.stopping import handling_stops, received

if TYPE_CHECKING:
    from harness.frontends.cli.check import cmd_check, cmd_serve
    from harness.frontends.cli.corpus import cmd_cases_check, cmd_coverage
    from harness.frontends.cli.plays import (
        cmd_classify,
        cmd_play,
        cmd_plays,
        describe_reading,
        write_match_log,
    )
    from harness.frontends.cli.rules import cmd_diff, cmd_show, cmd_validate, cmd_variants

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "cmd_cases_check",
    "cmd_check",
    "cmd_classify",
    "cmd_coverage",
    "cmd_diff",
    "cmd_play",
    "cmd_plays",
    "cmd_serve",
    "cmd_show",
    "cmd_validate",
    "cmd_variants",
    "describe_reading",
    "format_provenance",
    "format_value",
    "main",
    "parse_options",
    "run",
    "variant",
    "write_match_log",
]

# The command functions this package re-exports, by the module of the package that defines
# them: imported when first asked for, so that `guandan --version` imports none of them.
_EXPORTS = {
    "cmd_cases_check": "corpus",
    "cmd_check": "check",
    "cmd_classify": "plays",
    "cmd_coverage": "corpus",
    "cmd_diff": "rules",
    "cmd_play": "plays",
    "cmd_plays": "plays",
    "cmd_serve": "check",
    "cmd_show": "rules",
    "cmd_validate": "rules",
    "cmd_variants": "rules",
    "describe_reading": "plays",
    "write_match_log": "plays",
}

COMMANDS: dict[str, tuple[str, str]] = {
    "variants": ("rules", "register"),
    "show": ("rules", "register"),
    "validate": ("rules", "register"),
    "rulebook": ("rulebook", "register"),
    "classify": ("plays", "register"),
    "plays": ("plays", "register"),
    "play": ("plays", "register"),
    "simulate": ("simulate", "register"),
    "compare-play": ("compare_play", "register"),
    "cases": ("corpus", "register"),
    "coverage": ("corpus", "register"),
    "check": ("check", "register"),
    "serve": ("check", "register"),
    "smoke": ("smoke", "register"),
    "fuzz": ("fuzz", "register"),
    "mutate": ("strength", "register"),
    "fingerprint": ("strength", "register"),
    "report": ("report", "register"),
    "diff": ("rules", "register_diff"),
    "completion": ("completion", "register"),
}
"""Each command of `guandan`, in the order of its `--help`, and the module of this package and
the function in it that adds it: a command line that names one imports only that module."""


def __getattr__(name: str) -> Any:
    """A command function re-exported here, imported from its module when first asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


EPILOG = f"""examples:
  guandan variants
  guandan check --engine "exec:./my-engine" --variant huaian --json report.json
  guandan COMMAND --help

exit status:
  {EXIT_OK}    ok
  {EXIT_FAILED}    failed, or a problem found
  {EXIT_USAGE}    usage or input error (an input that is a FIFO, a device or no regular
       file is one); `guandan` alone prints this help and exits 2: it lacks its command
  {EXIT_INTERRUPTED}  stopped by Ctrl-C
  {EXIT_TERMINATED}  stopped by SIGTERM
Stopped either way, check, fuzz, mutate and fingerprint (once the engine has answered) write
what finished, marked interrupted, and every engine they started is ended.

colour: on a terminal; NO_COLOR (set, not empty) turns it off, and wins over FORCE_COLOR (set,
not empty), which turns it on where the output is no terminal.
completion: eval "$(guandan completion bash)" (or zsh, fish)"""


def version_text() -> str:
    """`guandan --version`: the package's version and whether the fast engine is active."""
    from harness.kernel import status

    return f"guandan-harness {__version__} ({status()})"


class _Version(argparse.Action):
    """`--version`: the text is made when asked for (it asks after the fast kernel)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        # As argparse's own version action: printed through the parser, to stdout.
        parser._print_message(version_text() + "\n", sys.stdout)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `guandan` command."""
    return _parser(list(dict.fromkeys(COMMANDS.values())))


def _parser(registers: Sequence[tuple[str, str]]) -> argparse.ArgumentParser:
    """The parser of `guandan` with the commands that the functions `registers` names (module,
    function) add, in that order."""
    parser = Parser(
        prog="guandan",
        description="Guandan (摜蛋) rule sets as data, a reference interpreter, the conformance\n"
        "corpus, and a harness that checks any engine against them.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="show the version and whether the fast engine is active, and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(func=help_command(parser))
    for module, function in registers:
        register: Callable[..., None] = getattr(
            importlib.import_module(f"{__name__}.{module}"), function
        )
        if module == "completion":
            register(sub, parser)  # it writes the script of the whole parser it is given
        else:
            register(sub)
    return parser


def _parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser `argv` needs: none of the commands for `--version`, only the module of the
    command it names, or the whole parser (`--help`, a mistyped command, `completion`)."""
    first = argv[0] if argv else ""
    if first == "--version":
        return _parser([])
    if first in COMMANDS and first != "completion":
        return _parser([COMMANDS[first]])
    return build_parser()


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the `guandan` command; returns the exit status (0 ok, 1 failed, 2 usage error, 130
    after Ctrl-C, 143 after SIGTERM)."""
    stream = out or sys.stdout
    # SIGTERM stops the command as Ctrl-C does (what finished is written), and as it returns
    # the engines it started are ended with it (their keepers would end them anyway).
    # The command's objects (cases, rule sets, memos, results) live until it ends: the collector
    # walks them less often meanwhile (a sixth of the main job with Python's thresholds).
    with handling_stops(), fewer_collections():
        try:
            given = sys.argv[1:] if argv is None else list(argv)
            status = _run(_parser_for(given), given, stream)
        except KeyboardInterrupt:
            # Wherever it came (a command that writes what finished says so itself): a short
            # word on stderr, never a traceback.
            terminated = signal.SIGTERM in received()
            sys.stderr.write(f"\nguandan: {'terminated' if terminated else 'interrupted'}\n")
            status = EXIT_INTERRUPTED
        if signal.SIGTERM in received() and status == EXIT_INTERRUPTED:
            return EXIT_TERMINATED
    return status


def run() -> NoReturn:
    """The `guandan` console script (and `python -m harness.frontends.cli`): `main` on the
    command line, then the process ends with its exit status."""
    # What an engine started, orphaned by its killed keeper, is adopted and ended with the
    # command (`harness.engine.orphans`); `--version`, which starts nothing, skips both.
    adopting = sys.argv[1:2] != ["--version"] and _adopting()
    status = main()
    if adopting:
        from harness.engine.orphans import end_orphans

        end_orphans()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
    except OSError as exc:
        # What the command printed last could not be written (a full disk behind a redirect).
        sys.stderr.write(f"guandan: {_unwritten(exc)}\n")
        _drop_stdout()
        status = EXIT_USAGE
    # The process ends: every object the command made goes with it. Frozen, they are not walked
    # again by the collector's passes as the interpreter shuts down (a tenth of the main job).
    gc.freeze()
    sys.exit(status)


def _adopting() -> bool:
    """Make this process the adopter of its engines' orphans, where the system allows."""
    from harness.engine.orphans import adopt_orphans

    return adopt_orphans()


_WRITE_FAILURES = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)
)
"""The errors of a write that failed for want of room or of a working disk."""


def _unwritten(exc: OSError) -> str:
    """A failed write in one line: the file it names, else standard output."""
    where = exc.filename if exc.filename is not None else "standard output"
    return f"cannot write {where}: {exc.strerror or exc}"


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that what its buffer still holds is not tried
    again (and reported again) as the interpreter ends."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _run(parser: argparse.ArgumentParser, argv: Sequence[str] | None, stream: TextIO) -> int:
    """Parse the arguments and run the command, its errors as exit statuses and one line."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    func: Command = args.func
    from harness.engine.process import ENVIRONMENT_VARIABLE

    # Read where each engine starts (forked and spawned workers included), restored after.
    environment = os.environ.get(ENVIRONMENT_VARIABLE)
    if getattr(args, "clean_env", False):
        os.environ[ENVIRONMENT_VARIABLE] = "clean"
    try:
        return func(args, stream)
    except UsageError as exc:
        sys.stderr.write(f"guandan: {exc}\n")
        return EXIT_USAGE
    except DataError as exc:
        stream.write(f"{exc}\n")
        return EXIT_FAILED
    except HarnessError as exc:
        sys.stderr.write(f"guandan: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, as other command-line tools do.
        sys.stderr.close()
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            raise
        # A write the command did not name (its words, to a stdout on a full disk): one line.
        sys.stderr.write(f"guandan: {_unwritten(exc)}\n")
        _drop_stdout()
        return EXIT_USAGE
    finally:
        if environment is None:
            os.environ.pop(ENVIRONMENT_VARIABLE, None)
        else:
            os.environ[ENVIRONMENT_VARIABLE] = environment
