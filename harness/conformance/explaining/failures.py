"""Why a case failed (失敗說明): the clause that decides it, the family a case counts under, its
differences made readable, and the one command that reruns it alone.

Everything here reads report entries (the JSON shape of `CaseResult.to_json()`), so the reports of
a run and the dashboard of many saved reports explain a failure the same way; keys it does not
know are ignored and keys it needs may be missing.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import os
import re
import shlex
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness._paths import cases_dir
from harness.conformance.judging.judge import BAD, Status

# How a case is counted in the tables by clause family, said in every report that shows them.
FAMILY_RULE = "each case counted once, under the family of the first clause it cites"
# Which clause decides a failing case, said with every grouping of failures.
DECIDING_RULE = (
    "by the clause value that explains it, where one does; otherwise a replay by the `rule` of "
    "its first differing step, where the case gives one, and any other case by its first clause"
)

FAILING = frozenset(s.value for s in BAD)
NOT_APPLICABLE = Status.NOT_APPLICABLE.value
NO_CLAUSE = "(no clause)"
# Keys of a replay step that the corpus never compares.
_STEP_IGNORED = frozenset({"reason", "events"})


def family(clause_id: str) -> str:
    """A clause's family (條款族): the first part of its id (`tribute` of `tribute.card`)."""
    return clause_id.split(".")[0]


def clauses_of(entry: Mapping[str, Any]) -> list[str]:
    """The clause ids a report entry cites, in the case's order."""
    found = entry.get("clauses")
    return [c for c in found if isinstance(c, str)] if isinstance(found, list | tuple) else []


def case_family(entry: Mapping[str, Any]) -> str:
    """The one family a case counts under: that of its first clause."""
    clauses = clauses_of(entry)
    return family(clauses[0]) if clauses else NO_CLAUSE


def status_of(entry: Mapping[str, Any]) -> str:
    """The entry's status as written (a status this version does not know is kept as it is)."""
    return str(entry.get("status", "?"))


def is_failing(entry: Mapping[str, Any]) -> bool:
    """Failed, errored, timed out or passed against an expect-fail list: what fails a run."""
    return status_of(entry) in FAILING


def key_of(entry: Mapping[str, Any]) -> str:
    """`id[variant]`, the name of a case on one variant."""
    return f"{entry.get('id', '?')}[{entry.get('variant', '?')}]"


def _step_agrees(want: Any, got: Any) -> bool:
    # A step holds scalars and `counts`: it agrees when every key the case gives is equal.
    if not isinstance(want, Mapping):
        return True
    if not isinstance(got, Mapping):
        return False
    return all(k in got and got[k] == v for k, v in want.items() if k not in _STEP_IGNORED)


def deciding_clause(entry: Mapping[str, Any]) -> str:
    """The clause that decides a failing case: that of the clause value explaining it (the
    explainer's verdict, `explained_by`), where one does; otherwise the `rule` of a replay's
    first differing step, when the case gives one; otherwise the case's first clause."""
    explained = entry.get("explained_by")
    if isinstance(explained, list) and explained and isinstance(explained[0], str):
        return explained[0].split(" = ")[0]
    clauses = clauses_of(entry)
    first = clauses[0] if clauses else NO_CLAUSE
    expected, actual = entry.get("expected"), entry.get("actual")
    if entry.get("operation") != "replay" or not isinstance(actual, Mapping):
        return first
    steps = expected.get("steps") if isinstance(expected, Mapping) else None
    got = actual.get("steps")
    got = got if isinstance(got, list) else []
    for i, want in enumerate(steps if isinstance(steps, list) else []):
        if not _step_agrees(want, got[i] if i < len(got) else None):
            rule = want.get("rule") if isinstance(want, Mapping) else None
            return rule if isinstance(rule, str) and rule else first
    return first


def is_applicable(entry: Mapping[str, Any]) -> bool:
    """Whether the case applies to the engine: not one on a variant derived for cases that the
    engine does not claim to play (`not_applicable`, counted apart)."""
    return status_of(entry) != NOT_APPLICABLE


def tally(
    entries: Iterable[Mapping[str, Any]], by: Callable[[Mapping[str, Any]], str]
) -> dict[str, dict[str, int]]:
    """Counts of statuses under each value of `by` (an operation, a family), each entry that
    applies to the engine once."""
    table: dict[str, dict[str, int]] = {}
    for entry in filter(is_applicable, entries):
        row = table.setdefault(by(entry), {})
        status = status_of(entry)
        row[status] = row.get(status, 0) + 1
    return dict(sorted(table.items()))


def operation_of(entry: Mapping[str, Any]) -> str:
    """The entry's operation (classify, beats, ...)."""
    return str(entry.get("operation", "?"))


@dataclass(frozen=True)
class FailureGroup:
    """The failing cases of one cause (失敗組): one clause decides them and, where the run was
    explained, one verdict covers them (`as if …`, or `no clause value explains it`)."""

    clause: str
    entries: tuple[Mapping[str, Any], ...]
    verdict: str = ""

    @property
    def label(self) -> str:
        """`clause` alone, or `clause (verdict)`."""
        return f"{self.clause} ({self.verdict})" if self.verdict else self.clause


def verdict_of(entry: Mapping[str, Any]) -> str:
    """The explainer's verdict on a failing entry in words, or "" where none was reached."""
    found = entry.get("verdict")
    return found if isinstance(found, str) else ""


def failure_groups(entries: Iterable[Mapping[str, Any]]) -> list[FailureGroup]:
    """The failing entries grouped by deciding clause and verdict, the largest group first:
    failures one clause value explains are one group, whatever clauses their cases cite."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for entry in entries:
        if is_failing(entry):
            groups.setdefault((deciding_clause(entry), verdict_of(entry)), []).append(entry)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [FailureGroup(clause, tuple(found), verdict) for (clause, verdict), found in ordered]


# ---------------------------------------------------------------------------------------------
# Differences made readable


class DifferenceKind(StrEnum):
    """What a line of `differences` says."""

    VALUE = "value"  # expected one value, found another
    ABSENT = "absent"  # expected a value, found nothing
    SET = "set"  # a list compared as a set: what is missing, what is unexpected
    OTHER = "other"  # a line this version cannot take apart: shown as it is


@dataclass(frozen=True)
class Difference:
    """One difference between the expected and the actual output, taken apart for showing."""

    path: str
    kind: DifferenceKind
    want: str
    got: str
    text: str

    def lines(self) -> list[tuple[str, str]]:
        """The difference as diff lines: (`-` or `+` or ` `, text)."""
        if self.kind is DifferenceKind.VALUE:
            return [("-", f"expected {self.want}"), ("+", f"found    {self.got}")]
        if self.kind is DifferenceKind.ABSENT:
            return [("-", f"expected {self.want}"), ("+", "found    nothing")]
        if self.kind is DifferenceKind.SET:
            # Only the sides that hold something: a list with an extra item is missing nothing.
            sides = [("-", f"missing    {self.want}"), ("+", f"unexpected {self.got}")]
            kept = [(mark, text) for mark, text in sides if not text.endswith(" []")]
            return kept or sides
        return [(" ", self.text)]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _split(body: str, first: str, second: str) -> tuple[str, str] | None:
    """`FIRST a, SECOND b` → (a, b), preferring the split where both halves are JSON."""
    if not body.startswith(first):
        return None
    rest = body[len(first) :]
    cuts = _occurrences(rest, second)
    cut = next(cuts, None)
    if cut is None:
        return None
    for i in itertools.chain([cut], cuts):
        a, b = rest[:i], rest[i + len(second) :]
        if _is_json(a) and (b == "nothing" or _is_json(b)):
            return a, b
    return rest[:cut], rest[cut + len(second) :]


def _occurrences(text: str, part: str) -> Iterator[int]:
    """Where `part` begins in `text`, overlapping ones too, found as needed (trying each index of
    a long line in turn made every difference cost its length)."""
    at = text.find(part)
    while at >= 0:
        yield at
        at = text.find(part, at + 1)


def parse_difference(text: str) -> Difference:
    """A line of `differences` (`steps[3].rule: expected "a", found "b"`), taken apart."""
    path, body = "", text
    if not text.startswith(("expected ", "missing ")):  # a whole output has no path
        head, sep, tail = text.partition(": ")
        if sep:
            path, body = head, tail
    pair = _split(body, "missing ", ", unexpected ")
    if pair is not None:
        return Difference(path, DifferenceKind.SET, pair[0], pair[1], text)
    pair = _split(body, "expected ", ", found ")
    if pair is not None:
        if pair[1] == "nothing":
            return Difference(path, DifferenceKind.ABSENT, pair[0], "", text)
        return Difference(path, DifferenceKind.VALUE, pair[0], pair[1], text)
    return Difference(path, DifferenceKind.OTHER, "", "", text)


def differences(entry: Mapping[str, Any]) -> list[Difference]:
    """The entry's differences, taken apart."""
    found = entry.get("differences")
    items = found if isinstance(found, list) else []
    return [parse_difference(str(d)) for d in items]


def diff_text(entry: Mapping[str, Any], indent: str = "") -> list[str]:
    """The differences as a unified-diff-like block: `@ path` then `- expected`, `+ found`."""
    out: list[str] = []
    for difference in differences(entry):
        if difference.path:
            out.append(f"{indent}@ {difference.path}")
        out += [f"{indent}{mark} {text}" for mark, text in difference.lines()]
    return out


# ---------------------------------------------------------------------------------------------
# Rerunning one case


class _IdIndex:
    """The known ids of a run, indexed by their complete `-` parts, so that whether an id lies
    inside another is found among the few ids sharing a part (comparing every id with every
    other took 4 minutes for a report of 32,000 failures)."""

    def __init__(self, known_ids: Collection[str]) -> None:
        self.known = known_ids
        self.by_part: dict[str, list[str]] = {}
        for other in known_ids:
            for part in set(other.split("-")):
                self.by_part.setdefault(part, []).append(other)
        self.parts = sorted(self.by_part)
        self.text = "\n" + "\n".join(known_ids) + "\n"

    def _candidates(self, case_id: str) -> Iterable[str] | None:
        """The known ids that may hold `case_id`, or None when no part narrows them."""
        parts = case_id.split("-")
        inner = parts[1:-1]
        if inner:
            # An id holding `case_id` holds its inner parts whole.
            return self.by_part.get(min(inner, key=lambda p: len(self.by_part.get(p, ()))), ())
        if len(parts) == 2 and parts[1]:
            # `a-b` inside another id: some part of it begins with `b`.
            start = bisect.bisect_left(self.parts, parts[1])
            end = bisect.bisect_left(self.parts, parts[1] + "\U0010ffff")
            return (other for p in self.parts[start:end] for other in self.by_part[p])
        return None

    def inside_another(self, case_id: str) -> bool:
        """Whether `case_id` is part of a known id other than itself."""
        candidates = self._candidates(case_id)
        if candidates is None:
            # One part: the text of them all is searched.
            return self.text.count(case_id) > self.text.count(f"\n{case_id}\n")
        return any(case_id != other and case_id in other for other in candidates)


# The index of the last collections asked about, kept with the collection (its id its own).
_INDEXES: dict[int, _IdIndex] = {}


def _index(known_ids: Collection[str]) -> _IdIndex:
    found = _INDEXES.get(id(known_ids))
    if found is None or found.known is not known_ids:
        if len(_INDEXES) > 8:
            _INDEXES.clear()
        found = _INDEXES[id(known_ids)] = _IdIndex(known_ids)
    return found


def exact_pattern(case_id: str, known_ids: Collection[str] = ()) -> str:
    """A `-k` pattern that selects `case_id` alone: the id itself, or, when it is part of another
    known id, the id with its last letter as a glob class (a glob matches the whole id)."""
    if case_id and known_ids and _index(known_ids).inside_another(case_id):
        return f"{case_id[:-1]}[{case_id[-1]}]"
    return case_id


def _option_text(value: Any) -> str:
    # As `--option` takes it: text bare, true/false and numbers as JSON writes them.
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def source_file(entry: Mapping[str, Any]) -> str | None:
    """The case file a report entry names: its `file`, or the file of its `location`
    (`path:line:column`); None when it names neither."""
    file = entry.get("file")
    if isinstance(file, str) and file:
        return file
    location = entry.get("location")
    found = re.fullmatch(r"(.+):\d+:\d+", location) if isinstance(location, str) else None
    return found.group(1) if found else None


def is_bundled_case_file(path: str) -> bool:
    """Whether a case file lies in the bundled corpus (so `--cases` is not needed to find it)."""
    try:
        cwd = "" if os.path.isabs(path) else os.getcwd()
    except OSError:  # the working directory is gone: a relative path names nothing
        return False
    return _is_bundled_case_file(path, cwd)


# Every entry of a report names its case file, most often the same few: resolving each anew
# took 12 of the 27 s a dashboard of 32,000 failures did. A relative path is resolved against
# the working directory, hence the key.
@functools.lru_cache(maxsize=1024)
def _is_bundled_case_file(path: str, cwd: str) -> bool:
    try:
        (Path(cwd) / path).resolve().relative_to(cases_dir().resolve())
    except (ValueError, OSError):
        return False
    return True


@dataclass(frozen=True)
class Rerun:
    """What reruns one case alone: engine, variant, case id, options, the cases' file if not
    bundled."""

    engine: str
    variant: str
    case_id: str
    options: tuple[tuple[str, Any], ...] = ()
    cases: str | None = None

    def command(self, known_ids: Collection[str] = ()) -> str:
        """`guandan check --engine SPEC --variant V -k CASE_ID [--option k=v ...] [--cases P]`."""
        words = ["guandan", "check", "--engine", self.engine, "--variant", self.variant]
        words += ["-k", exact_pattern(self.case_id, known_ids)]
        for name, value in self.options:
            words += ["--option", f"{name}={_option_text(value)}"]
        if self.cases:
            words += ["--cases", self.cases]
        return shlex.join(words)


def _same_value(a: Any, b: Any) -> bool:
    # As JSON has them: true is not 1, "8" is not 8 (the runner stores each option as checked).
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def rerun_for(
    entry: Mapping[str, Any],
    engine: str,
    variant: str | None = None,
    defaults: Mapping[str, Any] | None = None,
    case_file: str | None = None,
) -> Rerun:
    """The rerun of a report entry on `engine`: the entry's variant (or the variant file given),
    its options but those at their `defaults`, and `--cases` for a case from outside the bundled
    corpus (the file the entry names, else `case_file`)."""
    options = entry.get("options")
    chosen = options if isinstance(options, Mapping) else {}
    kept = tuple(
        (str(name), value)
        for name, value in sorted(chosen.items())
        if defaults is None or name not in defaults or not _same_value(defaults[name], value)
    )
    source = source_file(entry) or case_file
    cases = source if source and not is_bundled_case_file(source) else None
    slug = str(entry.get("variant", "?"))
    return Rerun(engine, variant or slug, str(entry.get("id", "?")), kept, cases)


def sorted_statuses(statuses: Iterable[str]) -> list[str]:
    """Statuses in the order of `Status`, then any this version does not know, by name."""
    order = [s.value for s in Status]
    found = set(statuses)
    return [s for s in order if s in found] + sorted(found - set(order))


def short_json(value: Any, limit: int = 400) -> str:
    """A value as one line of JSON, cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def known_ids(groups: Sequence[Iterable[Mapping[str, Any]]]) -> set[str]:
    """The case ids of some report entries."""
    return {str(e.get("id")) for entries in groups for e in entries if e.get("id")}
