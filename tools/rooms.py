"""Move the harness's modules into rooms whose names say what they hold (issue 51, item 5):
`harness/conformance/` as subpackages by what they do, and no two modules of `harness/` sharing
a stem. Each move is a `git mv`; then every reference to a moved module is rewritten, as a
dotted name (`harness.conformance.judge`), as a path (`harness/conformance/judge.py`) and in
`from PACKAGE import MODULE` imports, in the package, the tests, the benchmarks, the tools, the
docs and the project's configuration.

Run from the repository's root: `python -m tools.rooms` (`--dry-run` prints what it would do).
It may be run again, after merging work written against the old layout: a move already made is
skipped, and only names still in the old layout are rewritten.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ROOMS: dict[str, str] = {
    "cases": "The corpus and its cases (用例), layer 4: loading and checking cases, variants as "
    "values, and what the corpus covers.",
    "judging": "Judging an answer (判定), layer 4: the one judge, the comparison of an output "
    "with its expectation, the interpreter's own outcome, and the soundness of a listing.",
    "running": "Running the corpus against an engine (執行), layer 4: the cases a run covers, "
    "the runner, the engine session, a run's results and journal, and JSON read back from "
    "files.",
    "explaining": "Explaining a failure (說明), layer 4: why one case failed, and the one "
    "explainer (which clause value an engine behaves as).",
    "oracles": "The tools built on the interpreter as oracle (神諭), layer 4: fuzz, "
    "fingerprint, mutation, and the verdicts `check` gives its failures (the explainer run "
    "over a finished run).",
    "reporting": "Reports of a run (報告), layer 4: for people, JSON, JUnit XML and Markdown, "
    "the dashboard's model of several reports, and Markdown escaping.",
}
"""The rooms of `harness/conformance/`, each with its package docstring."""

MOVES: dict[str, str] = {
    "harness.conformance.corpus": "harness.conformance.cases.case_loader",
    "harness.conformance.selection": "harness.conformance.running.selection",
    "harness.conformance.variants": "harness.conformance.cases.variants",
    "harness.conformance.coverage": "harness.conformance.cases.coverage",
    "harness.conformance.judge": "harness.conformance.judging.judge",
    "harness.conformance.compare": "harness.conformance.judging.outputs",
    "harness.conformance.outcome": "harness.conformance.judging.outcome",
    "harness.conformance.soundness": "harness.conformance.judging.soundness",
    "harness.conformance.runner": "harness.conformance.running.runner",
    "harness.conformance.session": "harness.conformance.running.session",
    "harness.conformance.results": "harness.conformance.running.results",
    "harness.conformance.journal": "harness.conformance.running.journal",
    "harness.conformance.jsonread": "harness.conformance.running.jsonread",
    "harness.conformance.explain": "harness.conformance.explaining.failures",
    "harness.conformance.explainer": "harness.conformance.explaining.explainer",
    "harness.conformance.verdicts": "harness.conformance.oracles.verdicts",
    "harness.conformance.fuzz": "harness.conformance.oracles.fuzz",
    "harness.conformance.fingerprint": "harness.conformance.oracles.fingerprint",
    "harness.conformance.mutation": "harness.conformance.oracles.mutation",
    "harness.conformance.reports": "harness.conformance.reporting.run_reports",
    "harness.conformance.dashboard": "harness.conformance.reporting.dashboard",
    "harness.conformance.mdescape": "harness.conformance.reporting.mdescape",
    # The simulation rooms: the bots and the matches they play, beside the statistics.
    "harness.interpreter.simulate": "harness.interpreter.bots",
    "harness.simulation.compare": "harness.simulation.comparison",
    # No two modules share a stem.
    "harness.frontends.dashboard": "harness.frontends.dashboard_html",
    "harness.frontends.cards": "harness.frontends.card_faces",
    "harness.engine.smoke": "harness.engine.smoke_checks",
}
"""Each moved module (or package), from its old dotted name to its new one. The pytest
plugin stays where its entry point names it, `harness.conformance.pytest_plugin`."""

REWRITTEN = ("harness", "tests", "benchmarks", "tools", "docs", "examples", "spec")
"""The folders whose files are rewritten (besides the files of `TOP_FILES`)."""

TOP_FILES = ("README.md", "pyproject.toml", "mkdocs.yml", "CHANGELOG.md")
SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".cfg", ".txt", ".json", ".ini"}
SKIPPED = {"tools/rooms.py", "CHANGELOG.md"}
"""Files never rewritten: this script's own table, and the history of what changed."""


@dataclass(frozen=True)
class Move:
    """One module's move, as dotted names and as paths."""

    old: str
    new: str

    def path(self, dotted: str, root: Path = ROOT) -> Path:
        """The file (`x.py`) or package folder of a dotted name under `root`."""
        base = root.joinpath(*dotted.split("."))
        return base if base.is_dir() else base.with_suffix(".py")

    @property
    def is_package(self) -> bool:
        """Whether the old or the new name is a package (a folder)."""
        return (
            ROOT.joinpath(*self.old.split(".")).is_dir()
            or ROOT.joinpath(*self.new.split(".")).is_dir()
        )


def _git(*args: str, dry: bool) -> None:
    print("git " + " ".join(args))
    if not dry:
        subprocess.run(["git", *args], cwd=ROOT, check=True)


WIDTH = 100
"""The project's line length (ruff's)."""


def make_rooms(dry: bool) -> None:
    """Each room's package, with its docstring (a room made before is left as it is)."""
    for room, doc in ROOMS.items():
        folder = ROOT / "harness" / "conformance" / room
        init = folder / "__init__.py"
        if init.exists():
            continue
        print(f"create {init.relative_to(ROOT)}")
        if not dry:
            folder.mkdir(parents=True, exist_ok=True)
            text = "\n".join(textwrap.wrap(f'"""{doc}"""', WIDTH - 4))
            init.write_text(text + "\n", encoding="utf-8")
            subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)


def move_files(dry: bool) -> None:
    """`git mv` each module still at its old place (a package as a whole folder)."""
    for old, new in MOVES.items():
        old_base = ROOT.joinpath(*old.split("."))
        new_base = ROOT.joinpath(*new.split("."))
        source = old_base if old_base.is_dir() else old_base.with_suffix(".py")
        target = new_base if old_base.is_dir() else new_base.with_suffix(".py")
        if not source.exists():
            continue  # moved already (a run before this one)
        if target.exists():
            raise SystemExit(f"both {source} and {target} exist: merge them by hand, then rerun")
        _git("mv", str(source.relative_to(ROOT)), str(target.relative_to(ROOT)), dry=dry)


def rewrite(text: str, moves: Mapping[str, str] = MOVES, package: str | None = None) -> str:
    """`text` with every reference to a moved module in its new place: `from PARENT import
    NAME` imports of moved modules first, then dotted names and paths, longest first so a
    package's modules go with it. `package`: the package whose `__init__.py` `text` is, which
    names a module renamed within it by its new name (in `__all__` too), not the old one."""
    text = _rewrite_from_imports(text, moves, package)
    for old in sorted(moves, key=len, reverse=True):
        new = moves[old]
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)
        old_path, new_path = old.replace(".", "/"), new.replace(".", "/")
        text = re.sub(rf"(?<![\w/]){re.escape(old_path)}(?=\.py\b|/)", new_path, text)
    return text


_FROM = re.compile(
    r"^(?P<indent>[ \t]*)from (?P<package>[\w.]+) import "
    r"(?:\((?P<listed>[^)]*)\)|(?P<names>[\w ,]+?)[ \t]*$)",
    re.M,
)


def _rewrite_from_imports(text: str, moves: Mapping[str, str], package: str | None) -> str:
    """`from harness.conformance import corpus, runner` → one import per moved module, from its
    new package, as its old local name (`from harness.conformance.cases import case_loader as
    corpus`); names that did not move stay in one import from the old package. In the
    `__init__.py` of `package`, a module renamed within it is imported by its new name, and
    `__all__` lists that name."""

    def replace(found: re.Match[str]) -> str:
        indent, source = found["indent"], found["package"]
        listed = found["listed"]
        body = listed if listed is not None else found["names"]
        items = [re.sub(r"#.*", "", i).strip() for i in body.replace("\n", ",").split(",")]
        stayed: list[str] = []
        lines: list[str] = []
        for item in filter(None, items):
            name, _, alias = (p.strip() for p in item.partition(" as "))
            new = moves.get(f"{source}.{name}")
            if new is None:
                stayed.append(item)
                continue
            parent, _, leaf = new.rpartition(".")
            local = leaf if parent == source == package and not alias else alias or name
            if parent == source:
                stayed.append(leaf if local == leaf else f"{leaf} as {local}")
                continue
            named = leaf if leaf == local else f"{leaf} as {local}"
            lines.append(f"{indent}from {parent} import {named}")
        if not lines and stayed == [i for i in items if i]:
            return found.group()
        if stayed:
            if listed is not None:
                inner = "".join(f"{indent}    {n},\n" for n in sorted(stayed))
                lines.insert(0, f"{indent}from {source} import (\n{inner}{indent})")
            else:
                lines.insert(0, f"{indent}from {source} import {', '.join(stayed)}")
        return "\n".join(lines)

    text = _FROM.sub(replace, text)
    if package is not None:
        for old, new in moves.items():
            old_parent, _, old_leaf = old.rpartition(".")
            new_parent, _, new_leaf = new.rpartition(".")
            if old_parent == new_parent == package:
                text = _rewrite_all(text, old_leaf, new_leaf)
    return text


def _rewrite_all(text: str, old: str, new: str) -> str:
    """`__all__`'s entry `old` as `new`."""

    def entries(found: re.Match[str]) -> str:
        return found.group().replace(f'"{old}"', f'"{new}"')

    return re.sub(r"__all__ = \[[^\]]*\]", entries, text)


def wrap_prose(text: str) -> str:
    """A Python file's docstring and comment lines longer than `WIDTH` (a longer module name
    written into them) broken at a space, the rest on a line of the same indent; code is never
    touched."""
    try:
        tree = ast.parse(text)
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (SyntaxError, tokenize.TokenError):
        return text
    prose: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                prose.update(range(value.lineno + 1, (value.end_lineno or value.lineno) + 1))
                prose.add(value.lineno)
    comments = {
        t.start[0]
        for t in tokens
        if t.type == tokenize.COMMENT and t.line.lstrip().startswith("#")  # whole-line ones
    }
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        if len(line) <= WIDTH or not (number in prose or number in comments):
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        cut = line.rfind(" ", 0, WIDTH + 1)
        if cut <= len(indent):
            i += 1
            continue
        lead = indent + ("# " if number in comments else "")
        rest = line[cut + 1 :].lstrip()
        lines[i] = line[:cut].rstrip()
        following = lines[i + 1] if i + 1 < len(lines) else ""
        same_kind = (number + 1 in comments) if number in comments else (number + 1 in prose)
        body = following[len(lead) :] if following.startswith(lead) else None
        # The rest opens the paragraph's next line when there is one, so the text reflows.
        if same_kind and body and body.strip() and not body.startswith((" ", '"""', "-")):
            lines[i + 1] = lead + rest + " " + body
        else:
            lines.insert(i + 1, lead + rest)
            was_comment = number in comments
            comments = {n + 1 if n > number else n for n in comments}
            prose = {n + 1 if n > number else n for n in prose}
            (comments if was_comment else prose).add(number + 1)
        i += 1
    return "\n".join(lines)


def files(roots: Iterable[str] = REWRITTEN) -> list[Path]:
    """The tracked files that may name a module."""
    listed = subprocess.run(
        ["git", "ls-files", *roots, *TOP_FILES], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if Path(name).suffix in SUFFIXES and name not in SKIPPED and (ROOT / name).is_file()
    ]


def rewrite_files(dry: bool) -> int:
    """Rewrite every file that names a moved module, then sort the imports and `__all__` of the
    Python files changed and format them (ruff, as the project's checks want them); how many
    files changed."""
    changed: list[Path] = []
    for path in files():
        text = path.read_text(encoding="utf-8")
        relative = path.relative_to(ROOT)
        package = ".".join(relative.parent.parts) if path.name == "__init__.py" else None
        new = rewrite(text, MOVES, package)
        if path.suffix == ".py" and new != text:
            new = wrap_prose(new)
        if new != text:
            changed.append(path)
            print(f"rewrite {path.relative_to(ROOT)}")
            if not dry:
                path.write_text(new, encoding="utf-8")
    python = [str(p) for p in changed if p.suffix == ".py"]
    if python and not dry:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--fix", "-q", "--select", "I,RUF022", *python], cwd=ROOT)
        subprocess.run([*ruff, "format", "-q", *python], cwd=ROOT, check=True)
    return len(changed)


def main(argv: list[str] | None = None) -> int:
    """Make the rooms, move the modules, rewrite the references."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print, change nothing")
    args = parser.parse_args(argv)
    make_rooms(args.dry_run)
    move_files(args.dry_run)
    changed = rewrite_files(args.dry_run)
    print(f"{changed} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
