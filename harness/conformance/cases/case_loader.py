"""The conformance corpus (一致性測試): loading cases (the bundled corpus and one's own) and
checking them. Comparing outputs lives in `harness.conformance.judging.outputs`; `compare_output` is
importable from here too.

A case file holds `cases:`, each with a stable id, the operation, its input and expected output,
the clause ids it checks, and where it applies (`applies_when` clause values, or `variants`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness._paths import cases_dir, read_cache, write_cache

# Comparing outputs moved to its own module; these names stay importable from here.
from harness.conformance.judging.outputs import MISSING as MISSING
from harness.conformance.judging.outputs import NOT_COMPARED as NOT_COMPARED
from harness.conformance.judging.outputs import UNORDERED as UNORDERED
from harness.conformance.judging.outputs import WHOLE as WHOLE
from harness.conformance.judging.outputs import compare_output as compare_output
from harness.errors import HarnessError, NotationError
from harness.model._schemas import keyword_of, load_schema, schema_check
from harness.model._yaml import YamlDocument, parse_yaml, read_yaml_text
from harness.model.cards import parse_hand
from harness.model.derived import derive, value_matches
from harness.model.diagnostics import Location, Problem, format_path
from harness.model.loader import (
    bounded_message,
    bundled_variants,
    clause_specs,
    display_name,
    load_variant,
    variant_slugs,
)
from harness.model.ruleset import Ruleset

if TYPE_CHECKING:
    import jsonschema


def case_schema() -> dict[str, Any]:
    """The JSON Schema of a case file (`spec/case.schema.json`)."""
    return load_schema("case.schema.json")


@dataclass(frozen=True)
class Case:
    """One conformance case: id, operation, input, expected output, clauses, applicability."""

    id: str
    description: str
    operation: str
    clauses: tuple[str, ...]
    input: Mapping[str, Any]
    expected: Mapping[str, Any]
    applies_when: Mapping[str, Any] = field(default_factory=dict)
    variants: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    note: str | None = None
    location: Location = field(default_factory=lambda: Location("?", 1, 1))

    @property
    def expects_refusal(self) -> bool:
        """Whether the case expects its input refused (`expected: {refused: invalid_input}`):
        an impossible input, which need not fit in two decks."""
        return "refused" in self.expected

    @property
    def area(self) -> str:
        """The corpus folder the case lives in (combos, compare, flow, tribute, levels, scoring)."""
        return Path(self.location.file).parent.name

    def ruleset_for(self, variant: Ruleset | str) -> Ruleset:
        """The variant (a Ruleset, or a bundled one by slug) with this case's options chosen;
        HarnessError when the variant lacks one of them."""
        ruleset = load_variant(variant) if isinstance(variant, str) else variant
        return ruleset.with_options(self.options)

    def applies_to(self, ruleset: Ruleset) -> bool:
        """Whether the case applies to `ruleset` (its options already chosen): every clause of
        `applies_when` has its value there, and `variants`, if given, names its slug."""
        if self.variants and ruleset.slug not in self.variants:
            return False
        if any(name not in ruleset.options for name in self.options):
            return False
        return self.values_hold(ruleset)

    def values_hold(self, ruleset: Ruleset) -> bool:
        """Whether every clause of `applies_when` has its value in `ruleset` (an object: the
        fields it gives)."""
        return all(
            clause_id in ruleset.clauses and value_matches(ruleset.value(clause_id), value)
            for clause_id, value in self.applies_when.items()
        )

    def assumed_clauses(self, ruleset: Ruleset) -> list[str]:
        """The clauses this case checks whose value in `ruleset` is only our reading: assumed
        where its source is silent, or read into its source's words (據原文推定)."""
        return [
            c
            for c in self.clauses
            if c in ruleset.clauses and ruleset.clause(c).provenance.kind.ours
        ]


def _case_files(root: Path) -> list[Path]:
    # A FIFO or a device among them is kept, to be refused as a located problem when read
    # (never waited on): left out silently, its cases would be missed without a word.
    return sorted(p for p in root.rglob("*.yaml") if p.exists() and not p.is_dir())


# A problem YAML reports inside a case (a duplicate key) names its path `cases[N]...`.
_CASE_PATH = re.compile(r"^cases\[(\d+)\]")


def _schema_problems(doc: YamlDocument, error: jsonschema.ValidationError) -> list[Problem]:
    """A schema error as located problems: one per unknown key, at the key (jsonschema names
    them all in one message, which for 20,000 keys is one line of 200 KB)."""
    path = tuple(error.absolute_path)
    if keyword_of(error) == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        return [
            Problem(
                doc.locate((*path, key), key=True),
                format_path((*path, key)),
                f"unknown key: '{key}' is not allowed here",
            )
            for key in error.instance
            if key not in known
        ]
    return [Problem(doc.locate(path), format_path(path), bounded_message(error))]


def read_case_file(path: Path) -> tuple[list[Case], list[Problem]]:
    """The valid cases of one case file, and every problem found in it, located.

    Cases are checked one by one against the schema: a case with a problem is left out and the
    others are kept. A file that is not YAML, or whose `cases` is not a list, loses all its cases,
    and its problem says so.
    """
    name = display_name(path)
    text, unreadable = read_yaml_text(path, name)
    if text is None:
        lost = "; none of its cases run"
        return [], [Problem(p.location, p.path, p.message + lost) for p in unreadable]
    cached = _cached_cases(text, name)
    if cached is not None:
        return cached, []
    cases, problems = _read_cases(text, name)
    if not problems:
        _cache_cases(text, cases)
    return cases, problems


def _read_cases(text: str, name: str) -> tuple[list[Case], list[Problem]]:
    """The valid cases of a case file's text, and every problem found in it, located."""
    doc, found = parse_yaml(text, name)
    if doc.data is None:
        if not found:
            return [], [Problem(Location(name, 1, 1), "", "the file is empty (expected `cases:`)")]
        # A syntax error leaves nothing to read past it: the whole file is lost.
        lost = "; the file cannot be read, so none of its cases run"
        return [], [Problem(p.location, p.path, p.message + lost) for p in found]
    problems = list(found)
    broken: set[int] = set()
    for problem in found:
        match = _CASE_PATH.match(problem.path)
        if match:
            broken.add(int(match.group(1)))
    errors = schema_check("case.schema.json").errors(doc.data)
    for error in errors:
        where = tuple(error.absolute_path)
        if len(where) >= 2 and where[0] == "cases" and isinstance(where[1], int):
            broken.add(where[1])
        problems.extend(_schema_problems(doc, error))
    raw_cases = doc.data.get("cases") if isinstance(doc.data, dict) else None
    if not isinstance(raw_cases, list):
        return [], problems
    cases = [
        _case(raw, doc.locate(("cases", i)))
        for i, raw in enumerate(raw_cases)
        if i not in broken and isinstance(raw, dict)
    ]
    return cases, problems


# A case file read once is kept as JSON in the user's cache, keyed by its text and by the code
# and schema that read it: the corpus loads in a fraction of the time YAML takes. Only files
# without a problem are kept (problems are located from the YAML), and JSON is data, never code.
_CACHE_FORMAT = "1"


@functools.cache
def _reader_digest() -> str:
    """What the reading of a case file depends on besides its text: the schema and the code."""
    parts = [_CACHE_FORMAT, json.dumps(case_schema(), sort_keys=True)]
    for module in (sys.modules[__name__], sys.modules[parse_yaml.__module__]):
        parts.append(Path(str(module.__file__)).read_text(encoding="utf-8"))
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _cache_name(text: str) -> str:
    """The name, in the cache, of the cases of a case file with this text."""
    digest = hashlib.sha256((_reader_digest() + "\0" + text).encode("utf-8")).hexdigest()
    return f"cases-{digest[:32]}.json"


def _cached_cases(text: str, name: str) -> list[Case] | None:
    """The cases of a case file read before, from the cache; None when they are not there."""
    try:
        data = read_cache(_cache_name(text))
        if data is None:
            return None
        cached = json.loads(data.decode("utf-8"))
        return [_case(raw, Location(name, line, column)) for raw, (line, column) in cached]
    except (OSError, ValueError, TypeError, KeyError):
        return None  # a cache file gone bad: read the YAML


def _cache_cases(text: str, cases: Sequence[Case]) -> None:
    """Keep a clean case file's cases in the cache (nothing when there is no safe cache)."""
    data = [[_raw(case), [case.location.line, case.location.column]] for case in cases]
    try:
        encoded = json.dumps(data, ensure_ascii=False)
        if json.loads(encoded) != data:
            return  # JSON would change it (a mapping with number keys): not cached
        write_cache(_cache_name(text), encoded.encode("utf-8"))
    except (OSError, ValueError, TypeError):
        pass  # a cache that cannot be written costs only time


def _raw(case: Case) -> dict[str, Any]:
    """A case as the mapping it was read from (see `_case`)."""
    raw: dict[str, Any] = {
        "id": case.id,
        "description": case.description,
        "operation": case.operation,
        "clauses": list(case.clauses),
        "input": case.input,
        "expected": case.expected,
        "applies_when": case.applies_when,
        "variants": list(case.variants),
        "options": case.options,
    }
    if case.note is not None:
        raw["note"] = case.note
    return raw


def _case(raw: Mapping[str, Any], location: Location) -> Case:
    """A case from its YAML mapping, already checked against the schema."""
    return Case(
        id=raw["id"],
        description=raw["description"],
        operation=raw["operation"],
        clauses=tuple(raw["clauses"]),
        input=raw["input"],
        expected=raw["expected"],
        applies_when=raw.get("applies_when", {}),
        variants=tuple(raw.get("variants", ())),
        options=raw.get("options", {}),
        note=raw.get("note"),
        location=location,
    )


def load_cases(paths: Iterable[Path] | None = None) -> tuple[list[Case], list[Problem]]:
    """Every valid case in the given files or folders (default: the bundled corpus), and every
    problem found; a file named twice (itself, and within a folder) is read once."""
    files: list[Path] = []
    problems: list[Problem] = []
    for path in paths if paths is not None else [cases_dir()]:
        where = Location(display_name(path), 1, 1)
        try:
            exists, folder = path.exists(), path.is_dir()
        except OSError as exc:
            problems.append(Problem(where, "", f"cannot read: {exc.strerror}"))
            continue
        if not exists:
            problems.append(Problem(where, "", "no such case file or folder"))
            continue
        files.extend(_case_files(path) if folder else [path])
    cases: list[Case] = []
    read: set[Path] = set()
    for path in files:
        if path.resolve() in read:
            continue
        read.add(path.resolve())
        found, trouble = read_case_file(path)
        cases.extend(found)
        problems.extend(trouble)
    return cases, problems


def load_corpus(
    paths: Sequence[Path] = (), *, bundled: bool = True
) -> tuple[list[Case], list[Problem]]:
    """The cases of a run: the bundled corpus (unless `bundled` is False) and one's own case
    files or folders (`paths`), with every problem found.

    An own case is left out, with a located problem, when its id is already taken (by a bundled
    case or an earlier own case: results are keyed by id), or when it cites an unknown clause or
    holds cards that two decks cannot.
    """
    cases, problems = load_cases() if bundled else ([], [])
    taken = {case.id: case for case in cases}
    if not paths:
        return cases, problems
    own, found = load_cases(paths)
    problems.extend(found)
    known = set(clause_specs())
    bundled_ids = set(taken)
    for case in own:
        first = taken.get(case.id)
        if first is not None:
            whose = "a bundled case" if case.id in bundled_ids else "another case"
            problems.append(
                Problem(
                    case.location,
                    case.id,
                    f"id taken by {whose} at {first.location}; this case is not run",
                )
            )
            continue
        trouble = _case_problems(case, known)
        if trouble:
            problems.extend(trouble)
            continue
        taken[case.id] = case
        cases.append(case)
    problems.sort(key=lambda p: (p.location.file, p.location.line, p.location.column))
    return cases, problems


def first_inputs(ruleset: Ruleset) -> dict[str, Mapping[str, Any]]:
    """The input of the first bundled case of each operation that applies to `ruleset` with
    its options chosen as they are (what `guandan smoke` asks); never an impossible one. For
    classify, the first of the fewest cards: a skeleton that reads only 1 to 3 cards answers
    it, rather than "unsupported" to every probe."""
    cases, _ = load_cases()
    found: dict[str, Mapping[str, Any]] = {}
    for case in cases:
        if case.expects_refusal or not applies(case, ruleset):
            continue
        if not all(ruleset.chosen.get(name) == value for name, value in case.options.items()):
            continue
        have = found.get(case.operation)
        if have is None or _cards(case.operation, case.input) < _cards(case.operation, have):
            found[case.operation] = case.input
    return found


def _cards(operation: str, given: Mapping[str, Any]) -> int:
    """How many cards a classify input holds (0 for any other operation's: its first is kept)."""
    return len(given["cards"]) if operation == "classify" else 0


# ---------------------------------------------------------------------------------------------
# Checks beyond the schema


def _applicability_key(case: Case) -> str:
    # Applicability depends only on these three fields and the variant.
    return json.dumps([case.applies_when, case.variants, case.options], sort_keys=True, default=str)


_APPLIES: weakref.WeakKeyDictionary[Ruleset, dict[str, bool]] = weakref.WeakKeyDictionary()


def applies(case: Case, ruleset: Ruleset) -> bool:
    """Whether the case applies to the variant `ruleset` once the case's options are chosen."""
    return _applies(case, ruleset, _applicability_key(case))


def _applies(case: Case, ruleset: Ruleset, key: str) -> bool:
    """`applies`, the case's `_applicability_key` given."""
    table = _APPLIES.setdefault(ruleset, {})
    if key not in table:
        try:
            chosen = case.ruleset_for(ruleset)
        except HarnessError:
            table[key] = False
        else:
            table[key] = case.applies_to(chosen)
    return table[key]


def applicable_variants(case: Case, rulesets: Sequence[Ruleset] | None = None) -> list[str]:
    """The slugs of the variants the case applies to, with its options chosen: of `rulesets`,
    or of the bundled variants when none are given."""
    candidates = bundled_variants() if rulesets is None else rulesets
    key = _applicability_key(case)
    return [r.slug for r in candidates if _applies(case, r, key)]


def derives(case: Case) -> bool:
    """Whether the case runs on derived variants: no bundled variant satisfies its applicability
    (its `applies_when` names a value none of them plays)."""
    return bool(case.applies_when) and not applicable_variants(case)


def derived_variant(case: Case, base: Ruleset) -> Ruleset | None:
    """`base` with the case's `applies_when` values set (`harness.model.derived`), when `base`
    is one the case may run on (its `variants`, its options); else None."""
    if case.variants and base.slug not in case.variants:
        return None
    if any(name not in base.options for name in case.options):
        return None
    return derive(base, case.applies_when)


def run_variants(case: Case, bases: Sequence[Ruleset] | None = None) -> list[Ruleset]:
    """The variants the case runs on, its options chosen: those of `bases` (default: the bundled
    variants) it applies to, or, for a case no bundled variant satisfies (`derives`), the
    variants derived from `bases` with its values set."""
    candidates = bundled_variants() if bases is None else bases
    if not derives(case):
        return [case.ruleset_for(r) for r in candidates if applies(case, r)]
    found: list[Ruleset] = []
    for base in candidates:
        derived = derived_variant(case, base)
        if derived is None:
            continue
        try:
            chosen = case.ruleset_for(derived)
        except HarnessError:
            continue
        if case.values_hold(chosen):
            found.append(chosen)
    return found


def _card_lists(case: Case) -> list[tuple[str, list[Any]]]:
    """Each group of cards that must fit in two decks together, with its name."""
    data = case.input
    groups: list[tuple[str, list[Any]]] = []
    if "cards" in data:
        groups.append(("input.cards", data["cards"]))
    if "hand" in data:
        groups.append(("input.hand", data["hand"]))
    if "hands" in data:
        groups.append(("input.hands", [c for hand in data["hands"] for c in hand]))
    for i, action in enumerate(data.get("actions", [])):
        groups.append((f"input.actions[{i}].cards", action.get("cards", [])))
    return groups


def _case_problems(case: Case, known: set[str]) -> list[Problem]:
    """What is wrong with one case on its own: unknown clause ids, cards two decks cannot hold
    (where the case expects an answer)."""
    where = case.location
    problems: list[Problem] = []
    for clause in case.clauses:
        if clause not in known:
            problems.append(Problem(where, case.id, f"unknown clause id '{clause}'"))
    for clause in case.applies_when:
        if clause not in known:
            problems.append(Problem(where, case.id, f"applies_when: unknown clause id '{clause}'"))
    # An impossible input may hold a card three times: that is what its case checks is refused.
    for name, group in [] if case.expects_refusal else _card_lists(case):
        try:
            parse_hand([str(c) for c in group])
        except NotationError as exc:
            problems.append(Problem(where, case.id, f"{name}: {exc}"))
    return problems


def check_cases(cases: Sequence[Case]) -> list[Problem]:
    """Ids unique, clause ids known, applicability non-empty, no duplicates, cards legal."""
    problems: list[Problem] = []
    known = set(clause_specs())
    seen: dict[str, Case] = {}
    # For each operation and input, the first case (in order) that applies to each variant:
    # a later case with the same input is told of the first it shares a variant with. Keeping
    # every earlier case and comparing each pair took minutes on a file of 4,000 copies.
    inputs: dict[tuple[str, str], dict[str, tuple[int, Case]]] = {}
    for index, case in enumerate(cases):
        where = case.location
        if case.id in seen:
            problems.append(
                Problem(where, case.id, f"duplicate id (first at {seen[case.id].location})")
            )
        seen.setdefault(case.id, case)
        problems.extend(_case_problems(case, known))
        for slug in case.variants:
            if slug not in variant_slugs():
                problems.append(Problem(where, case.id, f"unknown variant '{slug}'"))
        slugs = [r.slug for r in run_variants(case)]
        if not slugs:
            problems.append(
                Problem(
                    where, case.id, "applies to no bundled variant, nor to one derived from them"
                )
            )
        # The same input under other options is another situation, not a duplicate.
        key = (
            case.operation,
            json.dumps([case.input, case.options], sort_keys=True, ensure_ascii=False),
        )
        firsts = inputs.setdefault(key, {})
        shared = [firsts[slug] for slug in slugs if slug in firsts]
        if shared:
            _, other = min(shared, key=lambda pair: pair[0])
            problems.append(
                Problem(
                    where,
                    case.id,
                    f"same operation and input as '{other.id}' for a variant both apply to",
                )
            )
        for slug in slugs:
            firsts.setdefault(slug, (index, case))
    return problems
