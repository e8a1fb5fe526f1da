"""Loading variant files (規則檔): safe YAML, the schema, `extends`, checks, and the typed result.

Every problem is collected, not only the first, and each is placed at FILE:LINE:COLUMN with the
clause path: `variants/x.yaml:12:9: levels.up.double_down.value: expected integer, found 'three'`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import stat
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from harness._paths import variants_dir
from harness.errors import DataError, HarnessError, RulesShapeError
from harness.model._files import kind_of
from harness.model._schemas import ClauseSpec as ClauseSpec
from harness.model._schemas import clause_specs as clause_specs
from harness.model._schemas import (
    clause_value_valid,
    keyword_of,
    schema_check,
    validator_class,
)
from harness.model._schemas import ruleset_schema as ruleset_schema
from harness.model._yaml import SAFE_LOADER, YamlDocument, parse_yaml, read_yaml_text
from harness.model.declarations import ALL
from harness.model.diagnostics import Location, Problem, format_path, json_type, safe_text
from harness.model.registry import Registry, reference_registry
from harness.model.ruleset import (
    Clause,
    Option,
    Provenance,
    ProvenanceKind,
    Ruleset,
    build_rules,
    rebuild_rules,
)
from harness.model.sources import Source as Source
from harness.model.sources import find_source, read_own_source
from harness.model.sources import sources as sources
from harness.wording import counted

if TYPE_CHECKING:
    import jsonschema
    from jsonschema.exceptions import ValidationError


def _value_errors(clause_id: str, value: Any) -> list[ValidationError]:
    """What is wrong with `value` as the value of `clause_id` by its schema (nothing, at the
    compiled check's speed, for a valid one)."""
    if clause_value_valid(clause_id, value):
        return []
    return list(_value_validator(clause_id).iter_errors(value))


@functools.cache
def _value_validator(clause_id: str) -> jsonschema.protocols.Validator:
    schema = ruleset_schema()
    sub = {**clause_specs()[clause_id].value_schema, "$defs": schema["$defs"]}
    return validator_class(schema["$schema"])(sub)


# ---------------------------------------------------------------------------------------------
# Reading one file


def display_name(path: Path) -> str:
    """A path as shown in messages: relative to the working folder when it is below it, and
    printable whatever bytes its name holds."""
    try:
        shown = str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        # Not below the working folder, or not resolvable (a loop of links): shown as given.
        shown = str(path)
    # A name that is not UTF-8 reaches Python with surrogates in it, which no output encodes.
    return safe_text(shown)


def read_variant_file(
    path: Path, *, registry: Registry | None = None
) -> tuple[YamlDocument, list[Problem]]:
    """Parse one variant file and check it against the schema, collecting every problem; a
    value `registry` (the reference interpreter's by default) has no code for is one."""
    name = display_name(path)
    text, unreadable = read_yaml_text(path, name)
    if text is None:
        return YamlDocument(name, None), unreadable
    registry = registry or reference_registry()
    if registry is reference_registry():
        # The files every variant extends (base.yaml) are read for each: read once.
        doc, problems = _read_reference(text, name)
        return doc, list(problems)
    return _read_variant_text(text, name, registry)


@functools.lru_cache(maxsize=32)
def _read_reference(text: str, name: str) -> tuple[YamlDocument, tuple[Problem, ...]]:
    """`_read_variant_text` against the reference's registry, kept (read, never changed)."""
    doc, problems = _read_variant_text(text, name, reference_registry())
    return doc, tuple(problems)


def _read_variant_text(
    text: str, name: str, registry: Registry
) -> tuple[YamlDocument, list[Problem]]:
    """`read_variant_file` of a file whose text was read."""
    doc, problems = parse_yaml(text, name)
    if doc.data is None and problems:
        return doc, problems
    if not isinstance(doc.data, dict):
        found = "an empty file" if doc.data is None else type(doc.data).__name__
        return doc, [Problem(doc.locate(()), "", f"expected a mapping of keys, found {found}")]
    errors = schema_check("ruleset.schema.json").errors(doc.data)
    # A value of the wrong type also fails its `enum`; the type is the message worth reading.
    mistyped = {tuple(e.absolute_path) for e in errors if keyword_of(e) == "type"}
    for error in errors:
        if keyword_of(error) == "enum" and tuple(error.absolute_path) in mistyped:
            continue
        problems.extend(_schema_problems(doc, error))
    rules = doc.data.get("rules")
    if isinstance(rules, dict):
        _refuse_unimplemented(doc, rules, (), problems, registry)
    return doc, problems


def _refuse_unimplemented(
    doc: YamlDocument,
    node: Mapping[str, Any],
    path: tuple[str, ...],
    problems: list[Problem],
    registry: Registry,
) -> None:
    """A value the schema allows but no code applies is refused where it is written, never
    accepted and ignored (the clause registry says which values the interpreter plays)."""
    specs = clause_specs()
    for key, sub in node.items():
        here = (*path, str(key))
        cid = ".".join(here)
        if not isinstance(sub, dict):
            continue
        if cid not in specs:
            _refuse_unimplemented(doc, sub, here, problems, registry)
            continue
        if "value" not in sub or not clause_value_valid(cid, sub["value"]):
            continue
        refused = registry.refusal(cid, sub["value"])
        if refused is not None:
            problems.append(Problem(doc.locate(("rules", *here, "value")), cid, refused))


def _preview(value: Any, depth: int = 0) -> Any:
    """The start of a value, enough to show 60 characters of it: a huge list or text is not
    serialised whole only to be cut."""
    if isinstance(value, str):
        return value[:61]
    if depth > 3:
        return "..."
    if isinstance(value, list):
        return [_preview(v, depth + 1) for v in value[:20]]
    if isinstance(value, dict):
        return {str(k): _preview(v, depth + 1) for k, v in list(value.items())[:20]}
    return value


def _shown(value: Any) -> str:
    text = safe_text(json.dumps(_preview(value), ensure_ascii=False, default=str))
    return text if len(text) <= 60 else text[:57] + "..."


# What `extends` may hold: the slug of a variant, as its `id` is written (the schema's pattern).
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_SLUG = 64
_EXTENDS_RULE = (
    "`extends` names a variant by its slug (lowercase letters, digits and hyphens, at most "
    f"{MAX_SLUG}): a variant file of that name beside this one, or a bundled variant; "
    "never a path"
)

# How many files a variant may stack through `extends`: the bundled ones stack two.
MAX_EXTENDS = 16


def _schema_problems(doc: YamlDocument, error: ValidationError) -> list[Problem]:
    path = tuple(error.absolute_path)
    shown = format_path(path)
    where = doc.locate(path)
    kind = keyword_of(error)
    inst = error.instance
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    value: Any = error.validator_value
    if kind == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted(schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        hint = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        return [
            Problem(
                doc.locate((*path, k), key=True),
                format_path((*path, k)),
                f"unknown key '{k}'{hint}",
            )
            for k in extra
        ]
    if kind == "oneOf" and schema.get("oneOf") == [
        {"required": ["file"]},
        {"required": ["text"]},
    ]:
        return [Problem(where, shown, "give exactly one of `file` (a text file) or `text`")]
    if kind in ("anyOf", "oneOf") and "then" in error.schema_path:
        return [
            Problem(
                where,
                shown,
                "a clause that sets `value` must say where it comes from: "
                "add `stated`, `read` or `assumed`",
            )
        ]
    if kind == "oneOf" and schema.get("oneOf") == [{"required": [k]} for k in _PROVENANCES]:
        return [Problem(where, shown, "give exactly one of `stated`, `read` or `assumed`")]
    if kind == "not" and "anyOf" in schema.get("not", {}):
        given = [k for k in _PROVENANCES if isinstance(inst, dict) and k in inst]
        both = " and ".join(f"`{k}`" for k in given)
        return [Problem(where, shown, f"give one of `stated`, `read` or `assumed`, not {both}")]
    if kind in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match

        inner = best_match(error.context)
        return _schema_problems(doc, inner)
    if path == ("extends",) and kind in ("pattern", "maxLength"):
        return [Problem(where, shown, f"{_EXTENDS_RULE}; found {_shown(inst)}")]
    if kind == "type":
        expected = value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        message = f"expected {expected_text}, found {json_type(inst)} {_shown(inst)}"
        if (
            isinstance(inst, int)
            and not isinstance(inst, bool)
            and "string" in expected_text
            and path[:1] in (("rules",), ("options",))
        ):
            message += ' (write ranks as text in quotes, e.g. "8")'
        return [Problem(where, shown, message)]
    if kind == "enum":
        options = ", ".join(_shown(v) for v in value)
        return [Problem(where, shown, f"expected one of {options}, found {_shown(inst)}")]
    if kind == "required":
        missing = [k for k in value if isinstance(inst, dict) and k not in inst]
        return [Problem(where, shown, f"missing required key '{k}'") for k in missing]
    if kind == "minimum":
        return [Problem(where, shown, f"expected at least {value}, found {inst}")]
    if kind == "maximum":
        return [Problem(where, shown, f"expected at most {value}, found {inst}")]
    if kind == "pattern":
        return [
            Problem(
                where,
                shown,
                f"expected text matching {value}, found {_shown(inst)}",
            )
        ]
    if kind == "minProperties":
        return [
            Problem(
                where,
                shown,
                "empty: give `value` with `stated`/`read`/`assumed`, or only a provenance",
            )
        ]
    sized = _size_message(str(kind), value, inst)
    if sized is not None:
        return [Problem(where, shown, sized)]
    return [Problem(where, shown, bounded_message(error))]


def _size_message(kind: str, bound: Any, inst: Any) -> str | None:
    """The message of a length or count bound, naming the size found, not the whole value."""
    if kind in ("minLength", "maxLength") and isinstance(inst, str):
        most = "at least" if kind == "minLength" else "at most"
        return f"expected {most} {bound} characters, found {len(inst)}"
    if kind in ("minItems", "maxItems") and isinstance(inst, list):
        most = "at least" if kind == "minItems" else "at most"
        return f"expected {most} {bound} items, found {len(inst)}"
    return None


def bounded_message(error: ValidationError) -> str:
    """A schema error's message, printable and at most 200 characters: jsonschema writes the
    whole offending value into it, which may be megabytes."""
    text = safe_text(error.message)
    return text if len(text) <= 200 else text[:197] + "..."


_PROVENANCES = ("stated", "read", "assumed")
"""The kinds of provenance a clause or an option gives, in the schema's order."""

_QUOTED = ("stated", "read")
"""The kinds that quote their source (the quote checked against its text)."""

# ---------------------------------------------------------------------------------------------
# Resolving `extends` and merging clauses


@dataclass
class _Entry:
    value: Any = None
    has_value: bool = False
    provenance: dict[str, Any] | None = None
    note: str | None = None
    observable: bool = True
    value_at: Location | None = None
    provenance_at: Location | None = None
    file: str | None = None
    # The source a `stated` provenance quotes unless it names one, the own sources it may name
    # (of its file and the files that file extends), and where its quote and source are written.
    source: str | None = None
    own_sources: Mapping[str, Source] = field(default_factory=dict)
    quote_at: Location | None = None
    source_at: Location | None = None
    # The document and the clause's path in it where the value was set, to place a problem
    # at a part of the value (a shape's `groups.max`), not only at the value's start.
    doc: YamlDocument | None = None
    at: tuple[str, ...] = ()

    def locate(self, *inside: str | int) -> Location:
        """Where the value's part `inside` (e.g. `groups`, `max`) is written, as well as known."""
        if self.doc is not None and self.at:
            return self.doc.locate((*self.at, "value", *inside))
        return self.value_at or Location("?", 1, 1)


@dataclass
class _Resolved:
    path: Path
    doc: YamlDocument
    entries: dict[str, _Entry] = field(default_factory=dict)
    # Each option as written, where its name is, and its provenance.
    options: dict[str, tuple[dict[str, Any], Location, _Entry]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    # The own sources of the files, by variant id; the ids of those that could not be read
    # (their problem is reported where the source is given); the top file's source id.
    own: dict[str, Source] = field(default_factory=dict)
    unread: set[str] = field(default_factory=set)
    source: str | None = None


@dataclass(frozen=True)
class _Cites:
    """What the `stated` clauses of one file quote: its `source` (an id), and the own sources
    they may name by id (of the file and of the files it extends)."""

    default: str | None
    own: Mapping[str, Source]


def _locate_parent(child: Path, slug: str) -> Path | None:
    """The file `extends: slug` names: beside the extending file, else the bundled variant;
    None when neither exists. `slug` has been checked to be a bare name, so no other folder is
    ever looked in, and the caller's message says nothing of what exists elsewhere."""
    for folder in (child.parent, variants_dir()):
        candidate = folder / f"{slug}.yaml"
        if candidate.is_file():
            return candidate
    return None


def _extends_refusal(slug: Any) -> str | None:
    """Why `slug` cannot be followed as an `extends`, or None. The schema says the same; this
    holds whatever the schema is, since the value becomes part of a file name."""
    if not isinstance(slug, str) or len(slug) > MAX_SLUG or not _SLUG.fullmatch(slug):
        return f"{_EXTENDS_RULE}; found {_shown(slug)}"
    return None


def _resolve(path: Path, problems: list[Problem], registry: Registry) -> _Resolved | None:
    """The variant at `path` with what it extends merged in, or None after adding problems.
    A problem reading a file's own source is added too, and the variant still resolved.

    The chain of `extends` is followed in a loop, not by recursion, and no further than
    MAX_EXTENDS files: a chain of a thousand files is refused, not a RecursionError.
    """
    chain: list[tuple[YamlDocument, Path]] = []
    seen: set[Path] = set()
    current = path
    while True:
        doc, own = read_variant_file(current, registry=registry)
        problems.extend(own)
        if own:
            return None
        chain.append((doc, current))
        seen.add(_real(current))
        slug = doc.data.get("extends")
        if slug is None:
            break
        where = doc.locate(("extends",))
        refused = _extends_refusal(slug)
        if refused is not None:
            problems.append(Problem(where, "extends", refused))
            return None
        parent = _locate_parent(current, slug)
        if parent is None:
            problems.append(
                Problem(
                    where,
                    "extends",
                    f"no variant '{slug}': expected a variant file {slug}.yaml beside this one "
                    f"or a bundled variant ({', '.join(_slugs(True))})",
                )
            )
            return None
        if _real(parent) in seen:
            problems.append(Problem(where, "extends", f"'{slug}' extends itself in a cycle"))
            return None
        if len(chain) >= MAX_EXTENDS:
            problems.append(
                Problem(
                    where,
                    "extends",
                    f"a variant may stack at most {MAX_EXTENDS} files through `extends`; "
                    "this one stacks more",
                )
            )
            return None
        current = parent
    resolved = _Resolved(path, chain[0][0])
    specs = clause_specs()
    # The shared core first, each file then overriding what it sets.
    for doc, at in reversed(chain):
        data: dict[str, Any] = doc.data
        resolved.files.append(doc.file)
        resolved.source = _file_source(doc, at, resolved, problems)
        cites = _Cites(resolved.source, dict(resolved.own))
        _merge_rules(doc, data.get("rules", {}), (), resolved.entries, specs, cites)
        for name, option in data.get("options", {}).items():
            entry = _Entry()
            _note_provenance(entry, doc, ("options", name), option, cites)
            resolved.options[name] = (option, doc.locate(("options", name), key=True), entry)
    return resolved


def _file_source(
    doc: YamlDocument, at: Path, resolved: _Resolved, problems: list[Problem]
) -> str | None:
    """The id of the source a file's clauses quote (來源): its `source` as written when that is
    an id, else the file's variant id, under which its own text is kept (read here, beside the
    file at `at`; a problem reading it is added, and its quotes are then not checked)."""
    raw = doc.data.get("source")
    if not isinstance(raw, dict):
        return raw if isinstance(raw, str) else None
    sid: str = doc.data["id"]
    if sid in resolved.own or sid in resolved.unread:
        problems.append(
            Problem(
                doc.locate(("source",)),
                "source",
                f"this file's own source is known by its id '{sid}', which a variant it "
                "extends gives to an own source too; give the variants distinct ids",
            )
        )
        return sid
    found, unreadable = read_own_source(doc, at.parent)
    problems.extend(unreadable)
    if found is None:
        resolved.unread.add(sid)
    else:
        resolved.own[sid] = found
    return sid


def _note_provenance(
    entry: _Entry, doc: YamlDocument, at: tuple[str, ...], node: Mapping[str, Any], cites: _Cites
) -> None:
    """Take the provenance `node` (a clause or an option at `at` in `doc`) gives, if any: what
    it says, where it and its quote are written, and what sources it may cite."""
    for kind in _PROVENANCES:
        if kind not in node:
            continue
        entry.provenance = {kind: node[kind]}
        entry.provenance_at = doc.locate((*at, kind))
        entry.source = cites.default
        entry.own_sources = cites.own
        said = node[kind] if kind in _QUOTED else {}
        entry.quote_at = doc.locate((*at, kind, "quote")) if "quote" in said else None
        entry.source_at = doc.locate((*at, kind, "source")) if "source" in said else None


def _real(path: Path) -> Path:
    """`path` with links and `..` resolved, for telling two names of one file apart."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _merge_rules(
    doc: YamlDocument,
    node: Mapping[str, Any],
    path: tuple[str, ...],
    entries: dict[str, _Entry],
    specs: Mapping[str, ClauseSpec],
    cites: _Cites,
) -> None:
    for key, sub in node.items():
        here = (*path, key)
        cid = ".".join(here)
        if cid not in specs:
            _merge_rules(doc, sub, here, entries, specs, cites)
            continue
        entry = entries.setdefault(cid, _Entry())
        full = ("rules", *here)
        if "value" in sub:
            entry.value = sub["value"]
            entry.has_value = True
            entry.value_at = doc.locate((*full, "value"))
            entry.file = doc.file
            entry.note = None
            entry.doc = doc
            entry.at = full
        _note_provenance(entry, doc, full, sub, cites)
        if "note" in sub:
            entry.note = sub["note"]
        if "observable" in sub:
            entry.observable = sub["observable"]
        if entry.provenance_at is None:
            entry.provenance_at = doc.locate(full)


# ---------------------------------------------------------------------------------------------
# Checks the schema cannot express


def _check(resolved: _Resolved, problems: list[Problem], registry: Registry) -> None:
    data = resolved.doc.data
    top = resolved.doc.locate(())
    specs = clause_specs()
    entries = resolved.entries
    for key in ("title", "title_zh"):
        if key not in data:
            problems.append(Problem(top, key, f"missing required key '{key}'"))
    named = data.get("source")
    if isinstance(named, str) and find_source(named, resolved.own) is None:
        known = [*sources(), *(f"{sid} (an own source)" for sid in resolved.own)]
        problems.append(
            Problem(
                resolved.doc.locate(("source",)),
                "source",
                f"unknown source '{named}'; expected one of {', '.join(known)} "
                "(spec/sources.yaml), or the club's own rule text: "
                "`source: {title: ..., file: FILE}` or `source: {title: ..., text: ...}`",
            )
        )
    if resolved.path.stem != data.get("id"):
        problems.append(
            Problem(
                resolved.doc.locate(("id",)),
                "id",
                f"expected the file name '{safe_text(resolved.path.stem)}', "
                f"found '{data.get('id')}'",
            )
        )

    missing = [cid for cid in specs if cid not in entries or not entries[cid].has_value]
    for cid in missing:
        message = f"clause {cid} is not defined by {resolved.doc.file} nor the variants it extends"
        if cid.startswith("levels.up."):
            message = (
                "the level-up table must cover every winning finish (double_down, "
                f"first_and_third, first_and_fourth); {cid} is not defined by "
                f"{resolved.doc.file} nor the variants it extends"
            )
        problems.append(Problem(top, cid, message))
    if missing:
        return

    mistyped = False
    for cid, entry in entries.items():
        where = entry.value_at or top
        errors = _value_errors(cid, entry.value)
        for error in errors:
            problems.append(Problem(where, f"{cid}.value", bounded_message(error)))
            mistyped = True
        _check_provenance(cid, entry, resolved.unread, problems)
    if mistyped:
        # The checks across clauses read the values as the schema shapes them.
        return

    for check in _ACROSS_CLAUSES:
        check(entries, problems)
    _check_options(resolved, problems, registry)


def _check_provenance(
    cid: str, entry: _Entry, unread: Iterable[str], problems: list[Problem]
) -> None:
    """A clause's provenance is given, and a `stated` one quotes words its source holds: the
    problem is placed at the quote (or at the source it names) where that is written."""
    where = entry.provenance_at or entry.value_at or Location("?", 1, 1)
    if entry.provenance is None:
        problems.append(Problem(where, cid, "no provenance: add `stated`, `read` or `assumed`"))
        return
    kind = next((k for k in _QUOTED if k in entry.provenance), None)
    if kind is None:
        return
    stated = entry.provenance[kind]
    source = stated.get("source") or entry.source
    if source is None:
        problems.append(
            Problem(
                where,
                f"{cid}.{kind}",
                f"a `{kind}` clause needs a source: this file has no `source`",
            )
        )
        return
    if source in unread:
        return  # its own source could not be read, which is reported where it is given
    found = find_source(source, entry.own_sources)
    if found is None:
        problems.append(
            Problem(entry.source_at or where, f"{cid}.{kind}.source", f"unknown source '{source}'")
        )
        return
    if not found.contains(stated["quote"]):
        problems.append(
            Problem(
                entry.quote_at or where,
                f"{cid}.{kind}.quote",
                f"quote not found in source '{source}': {stated['quote']!r}",
            )
        )


def _shape_value(entries: Mapping[str, _Entry], kind: str) -> Any:
    entry = entries.get(f"combinations.{kind}.shape")
    return entry.value if entry else None


def _check_ladder(entries: Mapping[str, _Entry], problems: list[Problem]) -> None:
    entry = entries["bombs.ladder"]
    where = entry.value_at or Location("?", 1, 1)
    seen: set[tuple[str, Any]] = set()
    # Each deck holds four cards of a rank and one heart level card (a wild).
    decks = entries["deck.decks"].value
    deck_most = 4 * decks + decks
    hand = entries["deck.hand_size"].value
    for i, step in enumerate(entry.value):
        path = f"bombs.ladder[{i}]"
        kind = step["type"]
        shape = _shape_value(entries, kind)
        if shape is None:
            problems.append(
                Problem(
                    where,
                    path,
                    f"the ladder names '{kind}', which this variant "
                    "does not define (its shape is null)",
                )
            )
            continue
        size = step.get("size")
        smallest = shape["groups"]["min"] * shape["group_size"]["min"]
        biggest = None
        if shape["groups"]["max"] is not None and shape["group_size"]["max"] is not None:
            biggest = shape["groups"]["max"] * shape["group_size"]["max"]
        if size is None and biggest != smallest:
            problems.append(Problem(where, path, f"'{kind}' comes in several sizes; give `size`"))
        if size is not None and (size < smallest or (biggest is not None and size > biggest)):
            problems.append(
                Problem(
                    where,
                    path,
                    f"a {kind} of {size} cards cannot exist "
                    f"(its shape allows {smallest} to {biggest or 'any'})",
                )
            )
        if size is not None and size > hand:
            problems.append(
                Problem(where, path, f"a {kind} of {size} cards is more than a hand of {hand}")
            )
        if (kind, size) in seen:
            problems.append(Problem(where, path, f"'{kind}' size {size} is on the ladder twice"))
        seen.add((kind, size))
    for kind in sorted({step["type"] for step in entry.value}):
        shape = _shape_value(entries, kind)
        sizes = {size for k, size in seen if k == kind}
        if shape is None or None in sizes:
            continue
        smallest = shape["groups"]["min"] * shape["group_size"]["min"]
        most = deck_most
        if shape["groups"]["max"] is not None and shape["group_size"]["max"] is not None:
            most = min(most, shape["groups"]["max"] * shape["group_size"]["max"])
        missing = [n for n in range(smallest, most + 1) if n not in sizes]
        if missing:
            listed = ", ".join(str(n) for n in missing)
            problems.append(
                Problem(
                    where,
                    "bombs.ladder",
                    f"no step for a {kind} of {listed} cards, which the deck and "
                    "the wild cards can make; every size must be on the ladder",
                )
            )


def _check_levels(entries: Mapping[str, _Entry], problems: list[Problem]) -> None:
    # Levels climb the variant's own order of ranks (ranks.natural), not a fixed one.
    order: list[str] = entries["ranks.natural"].value
    start = entries["levels.start"]
    final = entries["levels.final"]
    floor = entries["levels.floor"]
    if order.index(final.value) < order.index(start.value):
        problems.append(
            Problem(
                final.value_at or Location("?", 1, 1),
                "levels.final",
                f"the final level {final.value} is below the start {start.value}",
            )
        )
    if order.index(floor.value) > order.index(start.value):
        problems.append(
            Problem(
                floor.value_at or Location("?", 1, 1),
                "levels.floor",
                f"the floor {floor.value} is above the start {start.value}",
            )
        )


def _joker_sizes(shape: Mapping[str, Any], copies: int) -> range:
    """How many jokers alone can make a play of this shape: a joker group holds at most
    `copies` identical jokers, and a kicker that may be jokers (`kicker.jokers`) adds its own."""
    if shape["jokers"] == "excluded" or shape["consecutive"]:
        return range(0)
    size = shape["group_size"]
    most = min(size["max"] if size["max"] is not None else copies, copies)
    groups = shape["groups"]
    kicker = shape["kicker"]["group_size"] if shape["kicker"] and shape["kicker"]["jokers"] else 0
    low = groups["min"] * size["min"] + kicker
    high = (groups["max"] if groups["max"] is not None else groups["min"]) * most + kicker
    return range(low, high + 1)


def _check_wild(entries: Mapping[str, _Entry], problems: list[Problem]) -> None:
    default = entries["wild.default"]
    if default.value is None:
        return
    where = default.value_at or Location("?", 1, 1)
    copies = entries["deck.decks"].value
    shapes = {
        cid.split(".")[1]: entry.value
        for cid, entry in entries.items()
        if cid.startswith("combinations.") and cid.endswith(".shape") and entry.value is not None
    }
    for kind in default.value["applies_to"]:
        shape = shapes.get(kind)
        if shape is None:
            problems.append(
                Problem(
                    where,
                    "wild.default",
                    f"applies to '{kind}', which this variant does not define",
                )
            )
            continue
        if shape["jokers"] != "only":
            continue
        # A play of jokers only holds no wild card (a wild stands for no joker), so it reads
        # two ways only where another combination can be made of jokers as many.
        count = shape["groups"]["min"] * shape["group_size"]["min"]
        if not any(
            count in _joker_sizes(other, copies) for k, other in shapes.items() if k != kind
        ):
            problems.append(
                Problem(
                    where,
                    "wild.default",
                    f"applies to '{kind}', a play of jokers only: it holds no wild card and no "
                    "other combination reads it, so it has one reading and no default to take",
                )
            )


def _check_shapes(entries: Mapping[str, _Entry], problems: list[Problem]) -> None:
    """Each shape's bounds in order (`min` ≤ `max`), and its smallest set within a hand: a
    combination no deal can hold, or no count can satisfy, is a mistake, not a rule."""
    hand = entries["deck.hand_size"].value
    for cid, entry in entries.items():
        if not (cid.startswith("combinations.") and cid.endswith(".shape")):
            continue
        shape = entry.value
        if shape is None:
            continue
        for part in ("groups", "group_size"):
            low, high = shape[part]["min"], shape[part]["max"]
            if high is not None and low > high:
                problems.append(
                    Problem(
                        entry.locate(part, "max"),
                        f"{cid}.value.{part}",
                        f"min {low} is above max {high}: no set has this shape",
                    )
                )
        kicker = shape["kicker"]["group_size"] if shape["kicker"] else 0
        smallest = shape["groups"]["min"] * shape["group_size"]["min"] + kicker
        if smallest > hand:
            problems.append(
                Problem(
                    entry.locate("groups", "min"),
                    f"{cid}.value",
                    f"the smallest such set has {smallest} cards, more than a hand of {hand} "
                    "(deck.hand_size)",
                )
            )


def _check_deal(entries: Mapping[str, _Entry], problems: list[Problem]) -> None:
    """The deal fits the deck: the hands together hold no more cards than the decks do, and
    partners sitting opposite need an even number of players."""
    decks = entries["deck.decks"].value
    hand = entries["deck.hand_size"]
    players = entries["seats.players"]
    cards = 54 * decks
    if hand.value * players.value > cards:
        problems.append(
            Problem(
                hand.locate(),
                "deck.hand_size",
                f"{players.value} hands of {hand.value} cards need {hand.value * players.value} "
                f"cards; {counted(decks, 'deck holds', 'decks hold')} {cards}",
            )
        )
    if entries["seats.partners"].value == "opposite" and players.value % 2:
        problems.append(
            Problem(
                players.locate(),
                "seats.players",
                f"partners sit opposite, which needs an even number of players, "
                f"not {players.value}",
            )
        )


# The checks across clauses, each reading only the clauses' values: the loader runs them on a
# variant file, and `mutant` on a changed rule set.
_ACROSS_CLAUSES = (_check_ladder, _check_levels, _check_wild, _check_shapes, _check_deal)


def _check_options(resolved: _Resolved, problems: list[Problem], registry: Registry) -> None:
    specs = clause_specs()
    for name, (option, where, cited) in resolved.options.items():
        path = f"options.{name}"
        target = option["sets"]
        if target not in specs:
            problems.append(Problem(where, f"{path}.sets", f"unknown clause id '{target}'"))
            continue
        has_choices = "choices" in option
        has_range = "minimum" in option or "maximum" in option
        if has_choices == has_range:
            problems.append(Problem(where, path, "give either `choices` or a `minimum`/`maximum`"))
            continue
        low, high = option.get("minimum"), option.get("maximum")
        if low is not None and high is not None and low > high:
            problems.append(
                Problem(where, f"{path}.minimum", f"minimum {low} is above maximum {high}")
            )
            continue
        for choice in option.get("choices", []):
            errors = _value_errors(target, choice)
            for error in errors:
                problems.append(
                    Problem(
                        where,
                        f"{path}.choices",
                        f"{_shown(choice)} is not a value of {target}: {error.message}",
                    )
                )
            refused = None if errors else registry.refusal(target, choice)
            if refused is not None:
                problems.append(Problem(where, f"{path}.choices", f"{target}: {refused}"))
        if has_range and registry.implemented_values(target) != ALL.description:
            # A range cannot promise values the interpreter plays only some of.
            problems.append(
                Problem(
                    where,
                    path,
                    f"{target} is implemented only for {registry.implemented_values(target)}: "
                    "give `choices` among them, not a range",
                )
            )
        default = resolved.entries[target].value
        if has_choices and default not in option["choices"]:
            problems.append(
                Problem(
                    where,
                    path,
                    f"the default (the value of {target}, {_shown(default)}) is "
                    f"not among the choices {_shown(option['choices'])}",
                )
            )
        if has_range and (
            not isinstance(default, int)
            or (low is not None and default < low)
            or (high is not None and default > high)
        ):
            problems.append(
                Problem(
                    where,
                    path,
                    f"the default (the value of {target}, {_shown(default)})"
                    f" is outside {low}..{high}",
                )
            )
        _check_provenance(path, cited, resolved.unread, problems)


# ---------------------------------------------------------------------------------------------
# Building the result


def _provenance(raw: Mapping[str, Any], source: str | None) -> Provenance:
    kind = ProvenanceKind(next(k for k in _PROVENANCES if k in raw))
    said = raw[kind.value]
    if kind is ProvenanceKind.ASSUMED:
        return Provenance(kind, reason=said["reason"], alternatives=tuple(said["alternatives"]))
    # A quote; a `read` one also gives the reading taken of it and the other readings.
    return Provenance(
        kind,
        source=said.get("source") or source,
        place=said["place"],
        quote=said["quote"],
        reading=said.get("reading"),
        alternatives=tuple(said.get("alternatives", ())),
    )


def _build(resolved: _Resolved) -> Ruleset:
    data = resolved.doc.data
    clauses: dict[str, Clause] = {}
    for cid in clause_specs():
        entry = resolved.entries[cid]
        assert entry.provenance is not None
        clauses[cid] = Clause(
            cid,
            entry.value,
            _provenance(entry.provenance, entry.source),
            observable=entry.observable,
            note=entry.note,
            file=entry.file,
        )
    options: dict[str, Option] = {}
    for name, (raw, _where, cited) in resolved.options.items():
        options[name] = Option(
            name=name,
            sets=raw["sets"],
            description=raw["description"],
            default=clauses[raw["sets"]].value,
            provenance=_provenance(raw, cited.source),
            choices=tuple(raw["choices"]) if "choices" in raw else None,
            minimum=raw.get("minimum"),
            maximum=raw.get("maximum"),
        )
    try:
        rules = build_rules(clauses)
    except RulesShapeError as exc:  # pragma: no cover - the schema and the view disagree
        raise HarnessError(f"internal: {exc}") from exc
    return Ruleset(
        slug=data["id"],
        title=data["title"],
        title_zh=data["title_zh"],
        description=data.get("description", "").strip(),
        source=resolved.source,
        abstract=bool(data.get("abstract", False)),
        clauses=clauses,
        options=options,
        rules=rules,
        files=tuple(resolved.files),
        sources=_cited_sources(resolved),
    )


def _cited_sources(resolved: _Resolved) -> dict[str, Source]:
    """Every source the variant cites, by the id its provenances give: its own `source` and
    those its clauses and options quote, a club's own text among them."""
    cited: dict[str, Source] = {}
    wanted: list[tuple[str | None, Mapping[str, Source]]] = [(resolved.source, resolved.own)]
    entries = [*resolved.entries.values(), *(e for _, _, e in resolved.options.values())]
    for entry in entries:
        for kind in _QUOTED:
            stated = (entry.provenance or {}).get(kind)
            if stated is not None:
                wanted.append((stated.get("source") or entry.source, entry.own_sources))
    for sid, own in wanted:
        if sid is not None and sid not in cited:
            found = find_source(sid, own)
            if found is not None:
                cited[sid] = found
    return cited


def check_variant_file(path: Path, *, registry: Registry | None = None) -> list[Problem]:
    """Every problem in the variant file at `path` and the files it extends, the values
    `registry` (the reference interpreter's by default) has no code for among them."""
    registry = registry or reference_registry()
    problems: list[Problem] = []
    resolved = _resolve(path, problems, registry)
    if resolved is not None:
        # Resolved with problems only where an own source could not be read: the rest is
        # checked too, so that one run reports every problem.
        _check(resolved, problems, registry)
    return problems


def load_variant_file(
    path: Path, options: Mapping[str, Any] | None = None, *, registry: Registry | None = None
) -> Ruleset:
    """The resolved variant in the file at `path`, with `options` chosen; DataError if invalid
    (a value `registry`, the reference interpreter's by default, has no code for included)."""
    registry = registry or reference_registry()
    problems: list[Problem] = []
    resolved = _resolve(path, problems, registry)
    if resolved is not None:
        _check(resolved, problems, registry)
    if problems or resolved is None:
        raise DataError(problems)
    return _build(resolved).with_options(options or {})


@functools.cache
def _bundled(slug: str) -> Ruleset:
    return load_variant_file(variants_dir() / f"{slug}.yaml")


def variant_slugs(include_abstract: bool = False) -> list[str]:
    """The slugs of the bundled variants, in file-name order (the shared core left out)."""
    return list(_slugs(include_abstract))


@functools.cache
def _slugs(include_abstract: bool) -> tuple[str, ...]:
    paths = sorted(variants_dir().glob("*.yaml"))
    return tuple(p.stem for p in paths if include_abstract or not _abstract(p))


def _abstract(path: Path) -> bool:
    """Whether the bundled variant file at `path` is abstract (the shared core), read as the
    loader reads it (and keeps it, for the load that follows)."""
    doc, _ = read_variant_file(path)
    head = doc.data
    if not isinstance(head, dict):
        head = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER) or {}
    return bool(head.get("abstract"))


def load_variant(
    slug: str, options: Mapping[str, Any] | None = None, *, registry: Registry | None = None
) -> Ruleset:
    """The bundled variant `slug` (e.g. `huaian`), with `options` chosen at the start of a match;
    checked against `registry` when one is given (loaded once with the reference's otherwise)."""
    if slug not in _slugs(True):
        known = ", ".join(variant_slugs())
        raise HarnessError(f"unknown variant {slug!r}; expected one of: {known}")
    if registry is not None and registry is not reference_registry():
        return load_variant_file(variants_dir() / f"{slug}.yaml", options, registry=registry)
    return _bundled(slug).with_options(options or {})


def check_variant_files(
    paths: Iterable[Path], *, registry: Registry | None = None
) -> list[Problem]:
    """Every problem in the given variant files (each resolved with what it extends)."""
    # A file two others extend is reported once; a dict keeps the first of equal problems in
    # order in linear time (a list searched for each would take minutes on 20,000 problems).
    problems: dict[Problem, None] = {}
    for path in paths:
        problems.update(dict.fromkeys(check_variant_file(path, registry=registry)))
    return list(problems)


def is_variant_file(spec: str) -> bool:
    """Whether a variant spec names a file (a `.yaml`/`.yml` name or a path), not a slug."""
    return spec.endswith((".yaml", ".yml")) or "/" in spec or "\\" in spec


def load_variant_spec(
    spec: str, options: Mapping[str, Any] | None = None, *, registry: Registry | None = None
) -> Ruleset:
    """A bundled variant by slug (`huaian`) or a variant file by path (`my-club.yaml`), with
    `options` chosen; an unknown slug or a missing file is an error naming what was expected."""
    if is_variant_file(spec):
        path = Path(spec)
        try:
            mode = path.stat().st_mode
        except OSError:
            # A name the file system refuses (too long, say) names no file either.
            raise HarnessError(f"no such variant file: {safe_text(spec)}") from None
        if not stat.S_ISREG(mode):
            # A FIFO would be waited on forever, a device read without end: never read. (One
            # swapped in after this look is refused by the reader itself.)
            raise HarnessError(f"the variant file {safe_text(spec)} is {kind_of(mode)}, not a file")
        return load_variant_file(path, options, registry=registry)
    if spec not in _slugs(True):
        raise HarnessError(
            f"unknown variant {spec!r}; expected a variant file or one of: "
            f"{', '.join(variant_slugs())}"
        )
    return load_variant(spec, options, registry=registry)


def bundled_variants() -> list[Ruleset]:
    """The bundled variants (the shared core left out), each loaded once."""
    return [_bundled(slug) for slug in variant_slugs()]


def _value_refusal(clause_id: str, value: Any, registry: Registry) -> str | None:
    """Why `value` cannot be the value of `clause_id` whatever the other clauses are (its
    schema, then the values `registry` implements), or None. The reference's word on a value
    that is JSON data is worked out once: derived variants set the same values again and again."""
    if registry is reference_registry():
        text = json.dumps(value, sort_keys=True, default=repr)
        if json.loads(text) == value:  # JSON data: its text names it, types included
            return _reference_refusal(clause_id, text)
    return _refusal_of(clause_id, value, registry)


@functools.lru_cache(maxsize=4096)
def _reference_refusal(clause_id: str, text: str) -> str | None:
    return _refusal_of(clause_id, json.loads(text), reference_registry())


def _refusal_of(clause_id: str, value: Any, registry: Registry) -> str | None:
    errors = [e.message for e in _value_errors(clause_id, value)]
    return "; ".join(errors) if errors else registry.refusal(clause_id, value)


_ENTRIES: weakref.WeakKeyDictionary[Ruleset, dict[str, _Entry]] = weakref.WeakKeyDictionary()


def _entries(ruleset: Ruleset) -> dict[str, _Entry]:
    """The clause values of `ruleset` as the checks across clauses read them (which never
    change them), made once for each rule set that mutants are made of."""
    found = _ENTRIES.get(ruleset)
    if found is None:
        found = {cid: _Entry(value=c.value, has_value=True) for cid, c in ruleset.clauses.items()}
        _ENTRIES[ruleset] = found
    return found


def mutant(
    ruleset: Ruleset, clause_id: str, value: Any, *, registry: Registry | None = None
) -> Ruleset:
    """`ruleset` with one clause's value changed (a mutant): a rule set the reference plays
    exactly, checked as the loader checks a variant file (the clause's schema, the values the
    interpreter implements, as `registry` says, the checks across clauses); HarnessError names
    what is wrong."""
    if clause_id not in clause_specs():
        raise HarnessError(f"unknown clause id {clause_id!r}")
    refused = _value_refusal(clause_id, value, registry or reference_registry())
    if refused:
        raise HarnessError(f"{clause_id}: {refused}")
    old = ruleset.clause(clause_id)
    was = _shown(old.value)
    changed = dataclasses.replace(
        old,
        value=value,
        provenance=Provenance(
            ProvenanceKind.ASSUMED,
            reason=f"a mutant of {ruleset.slug}: {clause_id} changed from {was}",
            alternatives=(was,),
        ),
    )
    clauses = {**ruleset.clauses, clause_id: changed}
    entries = {**_entries(ruleset), clause_id: _Entry(value=value, has_value=True)}
    problems: list[Problem] = []
    for check in _ACROSS_CLAUSES:
        check(entries, problems)
    options = dict(ruleset.options)
    for name, option in ruleset.options.items():
        if option.sets != clause_id:
            continue
        if option.choices is not None and value not in option.choices:
            offered = ", ".join(_shown(c) for c in option.choices)
            problems.append(
                Problem(Location("?", 1, 1), clause_id, f"option {name} offers only {offered}")
            )
        elif option.choices is None:
            # A numeric option's bounds hold for the value it sets, as for a choice of it.
            try:
                option.check(value)
            except HarnessError as exc:
                problems.append(Problem(Location("?", 1, 1), clause_id, str(exc)))
        options[name] = dataclasses.replace(option, default=value)
    if problems:
        found = "; ".join(p.message for p in problems)
        raise HarnessError(f"{clause_id}={_shown(value)}: {found}")
    return dataclasses.replace(
        ruleset,
        clauses=clauses,
        options=options,
        rules=rebuild_rules(ruleset.rules, clauses, [clause_id]),
    )
