"""A code mutant described by what a reader needs: the file, the function, the operator and
the source line before and after, never by a line number alone (lines shift)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cosmic_ray.plugins
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code


@dataclass(frozen=True)
class Mutant:
    """One mutation of one file: where, which operator, and the changed source."""

    file: str
    line: int
    function: str | None
    operator: str
    occurrence: int
    before: str
    after: str

    def to_json(self) -> dict[str, object]:
        """The mutant as in the results file."""
        return {
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "operator": self.operator,
            "occurrence": self.occurrence,
            "before": self.before,
            "after": self.after,
        }


def describe(
    root: Path, file: str, operator: str, occurrence: int, lines: tuple[int, int]
) -> Mutant:
    """The mutant `occurrence` of `operator` in `file` (relative to `root`), whose mutated node
    spans `lines` (first and last, 1-based)."""
    source = (root / file).read_text(encoding="utf-8")
    mutated = mutate_code(source, cosmic_ray.plugins.get_operator(operator)(), occurrence)
    original_lines = source.splitlines()
    mutated_lines = (mutated or source).splitlines()
    first, last = lines
    grown = len(mutated_lines) - len(original_lines)
    return Mutant(
        file=file,
        line=first,
        function=enclosing(source, first),
        operator=operator,
        occurrence=occurrence,
        before=_text(original_lines[first - 1 : last]),
        after=_text(mutated_lines[first - 1 : last + grown]),
    )


def positions(root: Path, file: str, operator: str) -> Iterator[tuple[int, tuple[int, int]]]:
    """Each occurrence of `operator` in `file` with its first and last line, in cosmic-ray's
    order (the order its `init` numbers them)."""
    module = get_ast((root / file).read_text(encoding="utf-8"))
    instance = cosmic_ray.plugins.get_operator(operator)()
    spans = (
        (start[0], end[0])
        for node in ast_nodes(module)
        for start, end in instance.mutation_positions(node)
    )
    yield from enumerate(spans)


def enclosing(source: str, line: int) -> str | None:
    """The name of the innermost function or class around `line` (None at module level)."""
    found: tuple[int, str] | None = None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and (found is None or node.lineno > found[0]):
                found = (node.lineno, node.name)
    return None if found is None else found[1]


def _text(lines: list[str]) -> str:
    """Source lines as one string, each stripped of its indentation."""
    return "\n".join(line.strip() for line in lines)
