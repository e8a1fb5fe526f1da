"""The argument parser every `guandan` command is made with: examples kept as written in
`--help`, and "did you mean" on a mistyped command, choice or option (argparse has it only
from Python 3.14, as `suggest_on_error`)."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from harness.frontends.cli._common import EXIT_USAGE, Command

_INVALID_CHOICE = re.compile(r"invalid choice: (['\"])(?P<value>.*?)\1")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors suggest the nearest command, choice or option."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._given: list[str] = []

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's, the arguments remembered for `error` to look for a mistyped option."""
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """argparse's error (usage, the message, exit 2), with what was probably meant."""
        hints = suggestions(self, message)
        if hints:
            message += "; did you mean " + " or ".join(repr(h) for h in hints) + "?"
        # argparse tells of arguments no parser took from the top-level parser, once the
        # command's parser has returned: the usage shown is the command's, where they went.
        told = _command_parser(self) if message.startswith("unrecognized arguments") else self
        argparse.ArgumentParser.error(told, message)


def suggestions(parser: Parser, message: str) -> list[str]:
    """What the mistyped word of `message` was probably meant to be: the nearest choice of an
    invalid choice (a command among them), else the nearest option of the command given for
    each option it does not know."""
    found = _INVALID_CHOICE.search(message)
    if found:
        choices = [str(c) for a in parser._actions if a.choices is not None for c in a.choices]
        return difflib.get_close_matches(found.group("value"), choices, n=1)
    command = _command_parser(parser)
    known = option_strings(command)
    hints: list[str] = []
    for word in command._given:
        name = word.partition("=")[0]
        if not name.startswith("-") or len(name) < 2 or name[1].isdigit():
            continue
        if any(k.startswith(name) for k in known):
            continue  # known, or a prefix argparse takes for it
        hints += difflib.get_close_matches(name, option_strings(command, shown=True), n=1)
    return hints


def _command_parser(parser: Parser) -> Parser:
    """The parser of the (sub)command the arguments given to `parser` name."""
    at = parser
    for word in parser._given:
        chosen = subcommands(at).get(word)
        if isinstance(chosen, Parser):
            at = chosen
    return at


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of `parser` by name, in the order of its help (none for a command
    without)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def option_strings(parser: argparse.ArgumentParser, shown: bool = False) -> list[str]:
    """The options `parser` takes; `shown`: only those its `--help` lists (no old names)."""
    return [
        s
        for a in parser._actions
        if not shown or a.help is not argparse.SUPPRESS
        for s in a.option_strings
    ]


def help_command(parser: argparse.ArgumentParser) -> Command:
    """A command that prints the help of `parser` (a command given without its subcommand)
    and exits 2, a usage error: a script that runs it does not go on as if it had worked."""

    def show_help(args: argparse.Namespace, out: TextIO) -> int:
        out.write(parser.format_help())
        return EXIT_USAGE

    return show_help
