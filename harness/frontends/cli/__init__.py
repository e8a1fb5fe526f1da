"""The `guandan` command: rule sets (規則), the reference interpreter, the corpus, engine checks.

One module per group of commands, each adding its own subcommands: `rules` (variants, show,
validate, diff), `plays` (classify, plays, play), `corpus` (cases check, coverage), `check`
(check, serve), `fuzz`, `strength` (mutate, fingerprint) and `report` (report: the dashboard);
`_common` holds what they share.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from typing import TextIO

from harness import __version__
from harness.engine.process import ENVIRONMENT_VARIABLE
from harness.errors import DataError, HarnessError, UsageError
from harness.frontends.cli import (
    check,
    compare_play,
    completion,
    corpus,
    fuzz,
    plays,
    report,
    rulebook,
    rules,
    simulate,
    smoke,
    strength,
)
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    EXIT_WORDS,
    Command,
    format_provenance,
    format_value,
    parse_options,
    variant,
)
from harness.frontends.cli._parser import Parser, help_command
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
from harness.stopping import handling_stops, received

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
    "variant",
    "write_match_log",
]


EPILOG = f"""examples:
  guandan variants
  guandan check --engine "exec:./my-engine" --variant huaian --json report.json
  guandan COMMAND --help

exit status: 0 ok, 1 failed (or a problem found), {EXIT_WORDS} (an input that is no
regular file, a FIFO or a device, is one). `guandan` alone prints this help and exits 2, as a
command line missing its command is a usage error (git exits 1 so; pip exits 0). Stopped by
Ctrl-C or SIGTERM, check, fuzz, mutate and fingerprint (once the engine has answered) write
what finished, marked interrupted; engines are ended either way.

colour: on a terminal; NO_COLOR (set, not empty) turns it off, and wins over FORCE_COLOR (set,
not empty), which turns it on where the output is no terminal.
completion: eval "$(guandan completion bash)" (or zsh, fish)"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `guandan` command."""
    parser = Parser(
        prog="guandan",
        description="Guandan (摜蛋) rule sets as data, a reference interpreter, the conformance\n"
        "corpus, and a harness that checks any engine against them.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"guandan-harness {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(func=help_command(parser))
    rules.register(sub)
    rulebook.register(sub)
    plays.register(sub)
    simulate.register(sub)
    compare_play.register(sub)
    corpus.register(sub)
    check.register(sub)
    smoke.register(sub)
    fuzz.register(sub)
    strength.register(sub)
    report.register(sub)
    rules.register_diff(sub)
    completion.register(sub, parser)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the `guandan` command; returns the exit status (0 ok, 1 failed, 2 usage error, 130
    after Ctrl-C, 143 after SIGTERM)."""
    stream = out or sys.stdout
    # SIGTERM stops the command as Ctrl-C does (what finished is written), and as it returns
    # the engines it started are ended with it (their keepers would end them anyway).
    with handling_stops():
        try:
            status = _run(build_parser(), argv, stream)
        except KeyboardInterrupt:
            # Wherever it came (a command that writes what finished says so itself): a short
            # word on stderr, never a traceback.
            terminated = signal.SIGTERM in received()
            sys.stderr.write(f"\nguandan: {'terminated' if terminated else 'interrupted'}\n")
            status = EXIT_INTERRUPTED
        if signal.SIGTERM in received() and status == EXIT_INTERRUPTED:
            return EXIT_TERMINATED
    return status


def _run(parser: argparse.ArgumentParser, argv: Sequence[str] | None, stream: TextIO) -> int:
    """Parse the arguments and run the command, its errors as exit statuses and one line."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    func: Command = args.func
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
    finally:
        if environment is None:
            os.environ.pop(ENVIRONMENT_VARIABLE, None)
        else:
            os.environ[ENVIRONMENT_VARIABLE] = environment
