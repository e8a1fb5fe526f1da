"""`guandan completion bash|zsh|fish`: a shell completion script made from the argument parser
itself, so that it never lags behind the commands: subcommands, their options, the choices of
an option, the bundled variants for `--variant`, and file names where a file is taken."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from harness.frontends.cli._common import (
    EXIT_OK,
    Subparsers,
    epilog,
    input_file,
    input_path,
    output_file,
    output_file_or_stdout,
    output_folder,
    variant_input,
)
from harness.frontends.cli._parser import subcommands
from harness.model.loader import variant_slugs

SHELLS = ("bash", "zsh", "fish")
_FILE_TYPES = (input_file, input_path, output_file, output_file_or_stdout, output_folder)


@dataclass(frozen=True)
class Option:
    """One option as completion sees it: its names, what it says, and its values."""

    names: tuple[str, ...]
    help: str
    takes_value: bool
    values: tuple[str, ...]  # the words its value may be (choices, variant slugs), if known
    files: bool  # its value may be a file name


@dataclass(frozen=True)
class Command:
    """A command (the top one, or a subcommand at some depth) as completion sees it."""

    path: tuple[str, ...]  # () for `guandan` itself, ("cases", "check") for `cases check`
    options: tuple[Option, ...]
    positionals: tuple[Option, ...]
    subcommands: dict[str, str]  # each subcommand's one-line help, by name


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[Command]:
    """Every command of `parser` (named `path`), itself first, then its subcommands depth
    first."""
    options: list[Option] = []
    positionals: list[Option] = []
    helps: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: _first_sentence(a.help or "") for a in action._choices_actions}
        elif action.help is not argparse.SUPPRESS:
            (options if action.option_strings else positionals).append(_option(action))
    subs = subcommands(parser)
    yield Command(path, tuple(options), tuple(positionals), {n: helps[n] for n in subs})
    for name, sub in subs.items():
        yield from commands(sub, (*path, name))


def _option(action: argparse.Action) -> Option:
    takes_value = action.nargs != 0
    values: tuple[str, ...] = ()
    if action.choices is not None:
        values = tuple(str(c) for c in action.choices)
    elif action.type is variant_input:
        values = tuple(variant_slugs())
    files = action.type in _FILE_TYPES or action.type is variant_input
    names = tuple(action.option_strings) or (action.dest,)
    return Option(names, _first_sentence(action.help or ""), takes_value, values, files)


def _first_sentence(text: str) -> str:
    """A help text cut to what a completion menu shows: before its first `;`, `(` or `:`."""
    return re.split(r"[;(:]", text.replace("%%", "%"), maxsplit=1)[0].strip()


def bash(parser: argparse.ArgumentParser) -> str:
    """The bash completion script: `_guandan`, bound to `guandan` with `complete -F`."""
    table = list(commands(parser))
    steps, values, words = [], [], []
    for command in table:
        where = " ".join(command.path)
        for name in command.subcommands:
            steps.append(f'        "{where}/{name}") path="{" ".join((*command.path, name))}" ;;')
        for option in command.options:
            if not option.takes_value:
                continue
            reply = _bash_reply(option)
            for name in option.names:
                values.append(f'        "{where}/{name}") {reply}; return ;;')
        listed = [*command.subcommands, *(n for o in command.options for n in o.names)]
        files = any(p.files for p in command.positionals)
        slugs = sorted({v for p in command.positionals for v in p.values})
        words.append(
            f'        "{where}") words="{" ".join([*listed, *slugs])}"; files={int(files)} ;;'
        )
    lines = [
        "# bash completion for guandan, made by `guandan completion bash`",
        "_guandan() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local path="" words="" files=0 i',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "$path/${COMP_WORDS[i]}" in',
        *steps,
        "        esac",
        "    done",
        '    case "$path/$prev" in',
        *values,
        "    esac",
        '    case "$path" in',
        *words,
        "    esac",
        '    COMPREPLY=($(compgen -W "$words" -- "$cur"))',
        "    if [[ $files == 1 && $cur != -* ]]; then",
        '        COMPREPLY+=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        "complete -o filenames -F _guandan guandan",
        "",
    ]
    return "\n".join(lines)


def _bash_reply(option: Option) -> str:
    """What bash offers for the value of `option`: its words, file names, or nothing."""
    parts = []
    if option.values:
        parts.append(f'COMPREPLY=($(compgen -W "{" ".join(option.values)}" -- "$cur"))')
    else:
        parts.append("COMPREPLY=()")
    if option.files:
        parts.append('COMPREPLY+=($(compgen -f -- "$cur"))')
    return "; ".join(parts)


def zsh(parser: argparse.ArgumentParser) -> str:
    """The zsh completion script: one `_guandan…` function per command, with `_arguments`."""
    lines = ["#compdef guandan", "# zsh completion for guandan, made by `guandan completion zsh`"]
    for command in commands(parser):
        specs = [_zsh_spec(o) for o in command.options]
        lines.append(f"{_zsh_function(command.path)}() {{")
        if command.subcommands:
            lines += [
                "    local curcontext=$curcontext state line",
                "    local -a commands",
                "    commands=(",
                *(
                    f"        {_zsh_quote(f'{name}:{_zsh_text(command.subcommands[name])}')}"
                    for name in command.subcommands
                ),
                "    )",
                "    _arguments -C \\",
                *(f"        {spec} \\" for spec in specs),
                "        '1:command:->command' '*::argument:->argument'",
                "    case $state in",
                "        command) _describe command commands ;;",
                "        argument)",
                "            case $line[1] in",
                *(
                    f"                {name}) {_zsh_function((*command.path, name))} ;;"
                    for name in command.subcommands
                ),
                "            esac ;;",
                "    esac",
            ]
        else:
            positional = [_zsh_positional(i, p) for i, p in enumerate(command.positionals, 1)]
            lines += ["    _arguments \\", *(f"        {s} \\" for s in [*specs, *positional])]
            lines[-1] = lines[-1].removesuffix(" \\")
        lines.append("}")
    lines += ['_guandan "$@"', ""]
    return "\n".join(lines)


def _zsh_function(path: tuple[str, ...]) -> str:
    return "_guandan" + "".join("_" + re.sub(r"\W", "_", p) for p in path)


def _zsh_text(text: str) -> str:
    """Help text safe inside an `_arguments` spec: no brackets, colons or backslashes."""
    return re.sub(r"[\[\]:\\]", " ", text)


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _zsh_action(option: Option) -> str:
    if option.values:
        return f"({' '.join(option.values)})"  # choices; a variant file is typed out
    return "_files" if option.files else " "


def _zsh_spec(option: Option) -> str:
    text = _zsh_text(option.help)
    value = f":{option.names[-1].lstrip('-')}:{_zsh_action(option)}" if option.takes_value else ""
    repeat = (
        "*" if option.names[0] in ("--variant", "--cases", "--option", "-k", "--clause") else ""
    )
    if len(option.names) == 1:
        return _zsh_quote(f"{repeat}{option.names[0]}[{text}]{value}")
    names = ",".join(option.names)
    exclusive = " ".join(option.names)
    return f"'({exclusive})'{repeat}{{{names}}}" + _zsh_quote(f"[{text}]{value}")


def _zsh_positional(index: int, option: Option) -> str:
    where = "*" if index == 1 and option.takes_value and not option.values else str(index)
    return _zsh_quote(f"{where}:{option.names[0]}:{_zsh_action(option)}")


def fish(parser: argparse.ArgumentParser) -> str:
    """The fish completion script: one `complete -c guandan` line per command and option."""
    lines = ["# fish completion for guandan, made by `guandan completion fish`"]
    lines.append("complete -c guandan -f")
    for command in commands(parser):
        here = _fish_condition(command.path)
        for name in command.subcommands:
            text = command.subcommands[name]
            lines.append(
                f"complete -c guandan -n {shlex.quote(here)} -a {name} -d {shlex.quote(text)}"
            )
        for option in command.options:
            flags = " ".join(
                f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}" for n in option.names
            )
            value = ""
            if option.takes_value:
                value = " -r" + (" -F" if option.files else "")
                if option.values:
                    value += f" -a {shlex.quote(' '.join(option.values))}"
            lines.append(
                f"complete -c guandan -n {shlex.quote(here)} {flags}{value} "
                f"-d {shlex.quote(option.help)}"
            )
        for positional in command.positionals:
            if positional.values:
                lines.append(
                    f"complete -c guandan -n {shlex.quote(here)} "
                    f"-a {shlex.quote(' '.join(positional.values))}"
                )
            if positional.files:
                lines.append(f"complete -c guandan -n {shlex.quote(here)} -F")
    lines.append("")
    return "\n".join(lines)


def _fish_condition(path: tuple[str, ...]) -> str:
    """The fish condition under which the words of the command `path` are offered."""
    if not path:
        return "__fish_use_subcommand"
    tests = [f"__fish_seen_subcommand_from {word}" for word in path]
    return "; and ".join(tests)


SCRIPTS: dict[str, Callable[[argparse.ArgumentParser], str]] = {
    "bash": bash,
    "zsh": zsh,
    "fish": fish,
}


def register(sub: Subparsers, parser: argparse.ArgumentParser) -> None:
    """Add `completion`, the script made from `parser` (the whole `guandan` parser)."""
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        epilog=epilog(
            [
                'eval "$(guandan completion bash)"   # in ~/.bashrc',
                "guandan completion zsh > ~/.zfunc/_guandan   # a folder on $fpath",
                "guandan completion fish > ~/.config/fish/completions/guandan.fish",
            ],
            "0 the script printed",
        ),
    )
    p.add_argument("shell", choices=SHELLS, help="the shell the script is for")

    def cmd_completion(args: argparse.Namespace, out: TextIO) -> int:
        out.write(SCRIPTS[args.shell](parser))
        return EXIT_OK

    p.set_defaults(func=cmd_completion)
