"""The reviewed equivalent code mutants (spec/equivalent-code-mutants.yaml): loaded, matched
against survivors, and checked against the code (an entry naming no mutant is stale)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from tools.mutation.mutants import Mutant, describe, positions

LIST = Path("spec") / "equivalent-code-mutants.yaml"
FIELDS = ("file", "function", "operator", "line", "after", "reason", "kind")
# What an entry says of its mutant: no output changes at all, or only the answer to input the
# case schema refuses (a seat 4, a size that is no number), which no case can carry.
KINDS = ("equivalent", "malformed_input", "loader_only")


@dataclass(frozen=True)
class Equivalent:
    """A mutant reviewed as equivalent: named by its source text, not its line number."""

    file: str
    function: str | None
    operator: str
    line: str
    after: str
    reason: str
    kind: str = "equivalent"

    def names(self, mutant: Mutant) -> bool:
        """Whether this entry is `mutant`."""
        return (self.file, self.function, self.operator, self.line, self.after) == (
            mutant.file,
            mutant.function,
            mutant.operator,
            mutant.before,
            mutant.after,
        )


def load(root: Path) -> list[Equivalent]:
    """The reviewed list of the checkout or copy at `root`."""
    data = yaml.safe_load((root / LIST).read_text(encoding="utf-8")) or {}
    entries = []
    for raw in data.get("equivalent") or []:
        missing = [name for name in FIELDS if name not in raw and name not in ("function", "kind")]
        if missing or set(raw) - set(FIELDS) or raw.get("kind", KINDS[0]) not in KINDS:
            raise ValueError(
                f"{LIST}: entry {raw!r}: fields must be {', '.join(FIELDS)}; kind one of "
                f"{', '.join(KINDS)}"
            )
        entries.append(
            Equivalent(
                file=raw["file"],
                function=raw.get("function"),
                operator=raw["operator"],
                line=str(raw["line"]).strip(),
                after=str(raw["after"]).strip(),
                reason=" ".join(str(raw["reason"]).split()),
                kind=raw.get("kind", KINDS[0]),
            )
        )
    return entries


def matching(entries: Iterable[Equivalent], mutant: Mutant) -> Equivalent | None:
    """The entry naming `mutant`, if any."""
    return next((entry for entry in entries if entry.names(mutant)), None)


def stale(root: Path, entries: Sequence[Equivalent]) -> list[Equivalent]:
    """The entries that name no mutant of the code at `root` (the line changed or went)."""
    return [entry for entry in entries if occurrence(root, entry) is None]


def occurrence(root: Path, entry: Equivalent) -> int | None:
    """Which occurrence of the entry's operator in its file is the mutant it names (cosmic-ray's
    numbering), or None where none is."""
    if not (root / entry.file).is_file():
        return None
    source = (root / entry.file).read_text(encoding="utf-8").splitlines()
    for found, (first, last) in positions(root, entry.file, entry.operator):
        if "\n".join(line.strip() for line in source[first - 1 : last]) != entry.line:
            continue
        if entry.names(describe(root, entry.file, entry.operator, found, (first, last))):
            return found
    return None
