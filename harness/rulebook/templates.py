"""The rulebooks' sentence tables (句型表): the glossary, the phrases and one file per chapter,
read from `spec/rulebook/`, checked as they are read (every problem located by file, line and
column), and rendered for a value in a language.

A template is a list of alternatives; each gives its text in `en` and `zh-Hant` (and
`zh-Hans` where the simplified text is more than a conversion), and may name a `when`: the
value it is for. The first alternative whose `when` matches the value is used (none: the
alternative is for any value). A `when` that is a mapping matches a mapping by the fields it
names (an empty one matches only an empty mapping); any other `when` matches an equal value.
An alternative may also name `if`: other clauses of the same variant and the values they must
have (each matched as a `when`), so that a sentence can say less where another rule makes part
of it inert. An alternative `omit: true` has no text: the rule is left out of the book (a rule
that the variant's other values make inert, such as the reset after failures where failures
have no limit).

The text is a Python format string over four names: `value` (the clause's value; `value[f]`
its field f), `t.ID` (the glossary's term ID), `rules[CLAUSE]` (another clause's value in the
same variant) and, inside a phrase applied to each entry of a table, `key`. A value is written
by a renderer named after a colon (`{value:rank}`; `{value:text}` writes a text as it is);
`each:PHRASE`, `chain:PHRASE` and `or:PHRASE` write each item of a list (or entry of a table)
through a phrase, joined by "and", by " < " or by "or".
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._paths import spec_dir
from harness.errors import DataError, HarnessError
from harness.model._yaml import YamlDocument, parse_yaml
from harness.model.diagnostics import Location, Problem
from harness.rulebook.language import LANGS, Lang, simplified, simplified_keeping_quotes

FIELDS = frozenset({"value", "t", "rules", "key"})
"""The names a template's text may use."""

FIGURES = frozenset({"ladder", "level_table"})
"""The pictures a clause may carry: the bomb ladder (炸彈大小) and the level-up table (升級表)."""


@dataclass(frozen=True)
class Alternative:
    """One alternative of a template: the value it is for (`when`; any value when it has
    none) and its texts by language."""

    has_when: bool
    when: Any
    texts: Mapping[Lang, str]
    location: Location
    conditions: Mapping[str, Any] = field(default_factory=dict)
    """`if`: other clauses and the values they must have for this alternative to be used."""
    omit: bool = False
    """Whether the alternative leaves the rule out of the book (it has no texts then)."""

    def matches(self, value: Any, rules: Mapping[str, Any] | None = None) -> bool:
        """Whether this alternative is for `value`, where the variant's values are `rules`
        (an alternative with `if` conditions is for no value without them)."""
        if self.has_when and not _matches(self.when, value):
            return False
        return holds(self.conditions, rules)

    def text(self, lang: Lang) -> tuple[str, bool]:
        """The text for `lang`, and whether it is still to be converted to simplified."""
        if lang in self.texts:
            return self.texts[lang], False
        return self.texts[lang.written], lang is Lang.ZH_HANS


def holds(conditions: Mapping[str, Any], rules: Mapping[str, Any] | None) -> bool:
    """Whether every clause named in `conditions` has a value its pattern matches in `rules`
    (no conditions always hold; any condition fails without `rules`)."""
    if not conditions:
        return True
    if rules is None:
        return False
    return all(cid in rules and _matches(p, rules[cid]) for cid, p in conditions.items())


def _matches(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        if not pattern:
            return not value
        return all(k in value and _matches(p, value[k]) for k, p in pattern.items())
    if isinstance(pattern, list) and isinstance(value, list):
        return sorted(map(repr, pattern)) == sorted(map(repr, value))
    # True == 1 in Python: a yes/no and a number never match each other.
    return type(pattern) is type(value) and pattern == value


@dataclass(frozen=True)
class Template:
    """A sentence or phrase: its alternatives, first match wins."""

    key: str
    alternatives: tuple[Alternative, ...]
    location: Location

    def pick(self, value: Any, rules: Mapping[str, Any] | None = None) -> Alternative | None:
        """The first alternative for `value` in a variant whose values are `rules`, or None
        when no alternative is."""
        return next((a for a in self.alternatives if a.matches(value, rules)), None)


@dataclass(frozen=True)
class ClauseEntry:
    """A clause in a chapter: its sentence, and a picture drawn after it."""

    clause: str
    sentence: Template
    figure: str | None
    examples: int


@dataclass(frozen=True)
class ChapterEntry:
    """A chapter of the rulebook (章): its id, title, optional introduction and clauses, and
    when the whole chapter is left out (`omit_if`: one clause and the value that makes every
    rule of the chapter inert; that clause's sentence is then told once in its place)."""

    id: str
    title: Template
    intro: Template | None
    clauses: tuple[ClauseEntry, ...]
    omit_if: Mapping[str, Any] = field(default_factory=dict)

    def omitted(self, rules: Mapping[str, Any]) -> bool:
        """Whether a variant with the values `rules` leaves this chapter out."""
        return bool(self.omit_if) and holds(self.omit_if, rules)


@dataclass(frozen=True)
class Tables:
    """Everything the rulebooks are written from."""

    glossary: Mapping[str, Mapping[Lang, str]]
    phrases: Mapping[str, Template]
    chapters: tuple[ChapterEntry, ...]
    translations: Mapping[str, Mapping[Lang, str]] = field(default_factory=dict)
    """The variant files' English prose in Chinese, by the English text with its white space
    folded (`translations.yaml`)."""

    def phrase(self, name: str) -> Template:
        """A phrase by name (a KeyError is a bug: names are checked as the tables are read)."""
        return self.phrases[name]

    def entry(self, clause_id: str) -> ClauseEntry:
        """The chapter entry of a clause."""
        for chapter in self.chapters:
            for entry in chapter.clauses:
                if entry.clause == clause_id:
                    return entry
        raise KeyError(clause_id)


def rulebook_dir() -> Path:
    """Where the tables live: `spec/rulebook/`."""
    return spec_dir() / "rulebook"


@functools.cache
def tables() -> Tables:
    """The bundled tables, read and checked once; a DataError lists every problem."""
    return read_tables(rulebook_dir())


def read_tables(folder: Path) -> Tables:
    """Read and check the tables in `folder`; a DataError lists every problem, located."""
    from harness.model.loader import clause_specs  # the loader imports much; only here

    problems: list[Problem] = []
    glossary_doc = _read(folder / "glossary.yaml", problems)
    glossary = _glossary(glossary_doc, problems)
    phrases_doc = _read(folder / "phrases.yaml", problems)
    phrases = {
        str(k): _template(phrases_doc, (k,), str(k), problems)
        for k in _mapping(phrases_doc, (), problems)
    }
    chapters = []
    seen: dict[str, Location] = {}
    for path in sorted((folder / "chapters").glob("*.yaml")):
        doc = _read(path, problems)
        chapter = _chapter(doc, problems)
        if chapter is None:
            continue
        chapters.append(chapter)
        for entry in chapter.clauses:
            where = entry.sentence.location
            if entry.clause in seen:
                problems.append(
                    Problem(where, entry.clause, f"the clause is also in {seen[entry.clause]}")
                )
            seen[entry.clause] = where
            if entry.clause not in clause_specs():
                problems.append(Problem(where, entry.clause, "no clause of the schema has this id"))
    translations: dict[str, dict[Lang, str]] = {}
    if (folder / "translations.yaml").exists():
        translations = _translations(_read(folder / "translations.yaml", problems), problems)
    result = Tables(glossary, phrases, tuple(chapters), translations)
    templates: list[Template] = list(phrases.values())
    for chapter in chapters:
        templates += [chapter.title] + ([chapter.intro] if chapter.intro else [])
        templates += [e.sentence for e in chapter.clauses]
    for template in templates:
        problems += _check_fields(template, result, set(clause_specs()))
        problems += [
            Problem(alt.location, template.key, f"`if` names no clause {cid!r}")
            for alt in template.alternatives
            for cid in alt.conditions
            if cid not in clause_specs()
        ]
    if chapters and chapters[0].omit_if:
        where = chapters[0].title.location
        problems.append(
            Problem(where, "omit_if", "the first chapter has no chapter before it to be told in")
        )
    for chapter in chapters:
        own = {e.clause for e in chapter.clauses}
        problems += [
            Problem(chapter.title.location, "omit_if", f"{cid!r} is no clause of this chapter")
            for cid in chapter.omit_if
            if cid not in own
        ]
    if problems:
        raise DataError(problems)
    return result


def _read(path: Path, problems: list[Problem]) -> YamlDocument:
    doc, found = parse_yaml(path.read_text(encoding="utf-8"), str(path))
    problems += found
    return doc


def _mapping(doc: YamlDocument, path: tuple[Any, ...], problems: list[Problem]) -> dict[Any, Any]:
    node: Any = doc.data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        problems.append(Problem(doc.locate(path), _dotted(path), "expected a mapping"))
        return {}
    return node


def _dotted(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path)


def _glossary(doc: YamlDocument, problems: list[Problem]) -> dict[str, dict[Lang, str]]:
    out: dict[str, dict[Lang, str]] = {}
    for key, row in _mapping(doc, (), problems).items():
        if not isinstance(row, dict) or set(row) != {lang.value for lang in LANGS}:
            tags = ", ".join(lang.value for lang in LANGS)
            problems.append(Problem(doc.locate((key,)), str(key), f"a term needs exactly {tags}"))
            continue
        out[str(key)] = {Lang(k): str(v) for k, v in row.items()}
    return out


def folded(text: str) -> str:
    """`text` with its white space folded: how a translation finds the English it renders."""
    return " ".join(text.split())


def _translations(doc: YamlDocument, problems: list[Problem]) -> dict[str, dict[Lang, str]]:
    out: dict[str, dict[Lang, str]] = {}
    rows = doc.data if isinstance(doc.data, list) else None
    if rows is None:
        problems.append(Problem(doc.locate(()), "", "expected a list of translations"))
        return out
    allowed = {Lang.EN.value, Lang.ZH_HANT.value, Lang.ZH_HANS.value}
    for i, row in enumerate(rows):
        where = doc.locate((i,))
        if not isinstance(row, dict) or not {Lang.EN.value, Lang.ZH_HANT.value} <= set(row):
            problems.append(Problem(where, f"[{i}]", "a translation gives `en` and `zh-Hant`"))
            continue
        if set(row) - allowed or not all(isinstance(v, str) and v.strip() for v in row.values()):
            problems.append(Problem(where, f"[{i}]", "only `en`, `zh-Hant` and `zh-Hans`, as text"))
            continue
        key = folded(row[Lang.EN.value])
        if key in out:
            problems.append(Problem(where, f"[{i}]", f"the English is translated twice: {key!r}"))
        out[key] = {Lang(k): str(v) for k, v in row.items() if k != Lang.EN.value}
    return out


def _template(
    doc: YamlDocument, path: tuple[Any, ...], key: str, problems: list[Problem]
) -> Template:
    node: Any = doc.data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    where = doc.locate(path)
    if isinstance(node, dict):
        node = [node]  # a single alternative may be written without the list
        single = True
    else:
        single = False
    if not isinstance(node, list) or not node:
        problems.append(Problem(where, key, "expected a list of alternatives"))
        return Template(key, (), where)
    alternatives = []
    for i, alt in enumerate(node):
        at = path if single else (*path, i)
        if not isinstance(alt, dict):
            problems.append(Problem(doc.locate(at), key, "an alternative is a mapping"))
            continue
        unknown = set(alt) - {"when", "if", "omit"} - {lang.value for lang in LANGS}
        if unknown:
            problems.append(
                Problem(doc.locate(at), key, f"unknown field(s) {', '.join(sorted(unknown))}")
            )
        conditions = alt.get("if", {})
        if not isinstance(conditions, dict) or (not conditions and "if" in alt):
            problems.append(
                Problem(doc.locate((*at, "if")), key, "`if` maps clause ids to their values")
            )
            conditions = {}
        texts = {Lang(k): str(v) for k, v in alt.items() if k in {lang.value for lang in LANGS}}
        omit = alt.get("omit", False)
        if omit is not False:
            if omit is not True or texts:
                problems.append(
                    Problem(doc.locate(at), key, "`omit: true` leaves the rule out: no words")
                )
                continue
        else:
            missing = [lang.value for lang in (Lang.EN, Lang.ZH_HANT) if lang.value not in alt]
            if missing:
                problems.append(Problem(doc.locate(at), key, f"no words in {', '.join(missing)}"))
                continue
        alternatives.append(
            Alternative(
                "when" in alt,
                alt.get("when"),
                texts,
                doc.locate(at),
                {str(k): v for k, v in conditions.items()},
                omit,
            )
        )
    return Template(key, tuple(alternatives), where)


def _chapter(doc: YamlDocument, problems: list[Problem]) -> ChapterEntry | None:
    data = _mapping(doc, (), problems)
    if not data:
        return None
    unknown = set(data) - {"chapter", "title", "intro", "clauses", "omit_if"}
    if unknown:
        problems.append(
            Problem(doc.locate(()), "", f"unknown field(s) {', '.join(sorted(unknown))}")
        )
    name = data.get("chapter")
    if not isinstance(name, str):
        problems.append(Problem(doc.locate(("chapter",)), "chapter", "expected the chapter's id"))
        return None
    title = _template(doc, ("title",), f"{name}.title", problems)
    intro = _template(doc, ("intro",), f"{name}.intro", problems) if "intro" in data else None
    entries = []
    for cid, body in _mapping(doc, ("clauses",), problems).items():
        path: tuple[Any, ...] = ("clauses", cid)
        figure, examples = None, 0
        if isinstance(body, dict) and "words" in body:
            figure = body.get("figure")
            examples = body.get("examples", 0)
            if figure is not None and figure not in FIGURES:
                shown = ", ".join(sorted(FIGURES))
                problems.append(
                    Problem(doc.locate((*path, "figure")), cid, f"figure is one of {shown}")
                )
                figure = None
            if not isinstance(examples, int) or isinstance(examples, bool) or examples < 0:
                problems.append(
                    Problem(doc.locate((*path, "examples")), cid, "examples is a count")
                )
                examples = 0
            extra = set(body) - {"words", "figure", "examples"}
            if extra:
                problems.append(
                    Problem(doc.locate(path), cid, f"unknown field(s) {', '.join(sorted(extra))}")
                )
            path = (*path, "words")
        entries.append(
            ClauseEntry(str(cid), _template(doc, path, str(cid), problems), figure, examples)
        )
    omit_if = data.get("omit_if", {})
    if not isinstance(omit_if, dict) or len(omit_if) > 1:
        problems.append(Problem(doc.locate(("omit_if",)), "omit_if", "one clause id and its value"))
        omit_if = {}
    return ChapterEntry(name, title, intro, tuple(entries), {str(k): v for k, v in omit_if.items()})


def _check_fields(template: Template, result: Tables, clause_ids: set[str]) -> Iterator[Problem]:
    """Every name, term, clause, renderer and phrase a template's texts use exists."""
    for alt in template.alternatives:
        for lang, text in alt.texts.items():
            try:
                fields = [f for f in string.Formatter().parse(text) if f[1] is not None]
            except ValueError as exc:
                yield Problem(alt.location, template.key, f"{lang}: {exc}")
                continue
            for _, name, spec, _ in fields:
                problem = _field_problem(name or "", spec or "", result, clause_ids)
                if problem:
                    yield Problem(alt.location, template.key, f"{lang}: {{{name}}}: {problem}")


def _field_problem(name: str, spec: str, result: Tables, clause_ids: set[str]) -> str | None:
    root = name.split(".")[0].split("[")[0]
    if root not in FIELDS:
        return f"unknown name {root!r} (one of {', '.join(sorted(FIELDS))})"
    if root == "t":
        term = name[2:]
        if term not in result.glossary:
            return f"no term {term!r} in the glossary"
    if root == "rules":
        cid = name[len("rules[") : -1]
        if cid not in clause_ids:
            return f"no clause {cid!r}"
    kind, _, phrase = spec.partition(":")
    if kind in JOINED:
        if phrase not in result.phrases:
            return f"no phrase {phrase!r}"
    elif spec and spec not in RENDERERS:
        return f"unknown renderer {spec!r} (one of {', '.join(sorted(RENDERERS))})"
    return None


# ---------------------------------------------------------------------------------------------
# Rendering


class RenderError(HarnessError):
    """A value a template has no words for in a language (無對應文字), with the template's place."""


@dataclass(frozen=True)
class Context:
    """What a template is rendered with: the language, the tables and the variant's values."""

    lang: Lang
    tables: Tables
    rules: Mapping[str, Any]


@dataclass(frozen=True)
class _Value:
    data: Any

    def __getitem__(self, key: Any) -> _Value:
        if isinstance(self.data, dict):
            if key in self.data:
                return _Value(self.data[key])
            if str(key) in self.data:
                return _Value(self.data[str(key)])
            raise RenderError(f"the value has no field {key!r}")
        if isinstance(self.data, list) and isinstance(key, int) and key < len(self.data):
            return _Value(self.data[key])
        raise RenderError(f"the value {self.data!r} has no item {key!r}")


@dataclass(frozen=True)
class _Terms:
    context: Context

    def __getattr__(self, name: str) -> str:
        return str(self.context.tables.glossary[name][self.context.lang.written])


@dataclass(frozen=True)
class _Rules:
    context: Context

    def __getitem__(self, key: str) -> _Value:
        return _Value(self.context.rules[key])


class _Formatter(string.Formatter):
    def __init__(self, context: Context) -> None:
        self.context = context

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, _Value):
            return write(value.data, format_spec, self.context)
        return str(super().format_field(value, format_spec))


def sentence(template: Template, value: Any, context: Context) -> str | None:
    """A rule's sentence for `value` in the context's language, or None where the variant's
    values leave the rule out (an alternative `omit: true`). RenderError when no alternative
    is for the value."""
    alt = _pick(template, value, context)
    return None if alt.omit else _text(template, alt, value, context)


def render(template: Template, value: Any, context: Context, key: Any = None) -> str:
    """The template's text for `value` in the context's language (converted to simplified
    for zh-Hans unless written so). RenderError when no alternative is for the value, or when
    the one that is leaves the rule out."""
    alt = _pick(template, value, context)
    if alt.omit:
        raise RenderError(
            f"{template.key}: the value {value!r} leaves the rule out ({alt.location})"
        )
    return _text(template, alt, value, context, key)


def _pick(template: Template, value: Any, context: Context) -> Alternative:
    alt = template.pick(value, context.rules)
    if alt is None:
        raise RenderError(f"{template.key}: no words for the value {value!r} ({template.location})")
    return alt


def _text(
    template: Template, alt: Alternative, value: Any, context: Context, key: Any = None
) -> str:
    text, convert = alt.text(context.lang)
    # Values are written in the template's language; the whole sentence is converted at once.
    written = Context(context.lang.written, context.tables, context.rules) if convert else context
    try:
        out = _Formatter(written).format(
            text,
            value=_Value(value),
            t=_Terms(written),
            rules=_Rules(written),
            key=_Value(key),
        )
    except RenderError as exc:
        raise RenderError(f"{template.key}: {exc} ({alt.location})") from None
    return simplified(out) if convert else out


def translated(text: str, context: Context) -> str | None:
    """A variant file's English prose (a reason, a reading, another reading) in the context's
    language: as written in English; in Chinese from `translations.yaml`, simplified from the
    traditional outside the source's words in 「」 unless written; None where it has none."""
    if not context.lang.chinese:
        return folded(text)
    found = context.tables.translations.get(folded(text))
    if found is None:
        return None
    if context.lang in found:
        return found[context.lang]
    written = found[Lang.ZH_HANT]
    return simplified_keeping_quotes(written) if context.lang is Lang.ZH_HANS else written


def phrase(name: str, value: Any, context: Context, key: Any = None) -> str:
    """A phrase of the tables, rendered for `value`."""
    return render(context.tables.phrase(name), value, context, key)


def join(items: Sequence[str], context: Context, last: str = "and") -> str:
    """Items as a list: "a, b and c" (a、b和c)."""
    if not items:
        return phrase("none", None, context)
    if len(items) == 1:
        return items[0]
    sep = phrase("sep", None, context)
    return sep.join(items[:-1]) + phrase(last, None, context) + items[-1]


def _term(data: Any, context: Context) -> str:
    terms = context.tables.glossary
    if not isinstance(data, str) or data not in terms:
        raise RenderError(f"{data!r} is no term of the glossary")
    return terms[data][context.lang]


def _default(data: Any, context: Context) -> str:
    if data is None:
        return phrase("none", None, context)
    if isinstance(data, bool):
        raise RenderError(f"a yes/no value ({data}) needs an alternative with `when`")
    if isinstance(data, int):
        return str(data)
    if isinstance(data, str):
        if data in RANK_WORDS:
            return phrase("rank", data, context)
        return _term(data, context)
    if isinstance(data, list):
        return join([_default(x, context) for x in data], context)
    raise RenderError(f"the value {data!r} needs a renderer (`{{value:NAME}}`) or its fields")


RANK_WORDS = frozenset("23456789TJQKA") | {"SB", "HR"}


def _span(data: Any, context: Context) -> str:
    if not isinstance(data, dict) or "min" not in data or "max" not in data:
        raise RenderError(f"{data!r} is no range")
    if data["max"] is None:
        return phrase("span.open", data, context)
    return phrase("span.fixed" if data["min"] == data["max"] else "span.range", data, context)


def _shape(data: Any, context: Context) -> str:
    if not isinstance(data, dict) or "group_size" not in data:
        raise RenderError(f"{data!r} is no shape")
    size = _span(data["group_size"], context)
    groups = data["groups"]
    if groups == {"min": 1, "max": 1}:
        parts = [phrase("shape.one_group", {"size": size}, context)]
    else:
        counts = {"size": size, "groups": _span(groups, context)}
        parts = [phrase("shape.groups", counts, context)]
    if data.get("consecutive"):
        parts.append(phrase("shape.consecutive", None, context))
    if data.get("same_suit"):
        parts.append(phrase("shape.same_suit", None, context))
    kicker = data.get("kicker")
    if kicker:
        which = "shape.kicker.distinct" if kicker.get("distinct_rank") else "shape.kicker.any"
        parts.append(phrase(which, {"size": kicker["group_size"]}, context))
        if kicker.get("jokers"):
            parts.append(phrase("shape.kicker.jokers", None, context))
    parts.append(phrase(f"shape.jokers.{data.get('jokers', 'excluded')}", None, context))
    return phrase("sep", None, context).join(parts)


def _ranks(data: Any, context: Context) -> str:
    if not isinstance(data, list):
        raise RenderError(f"{data!r} is no list of ranks")
    return join([phrase("rank", r, context) for r in data], context)


def _terms(data: Any, context: Context) -> str:
    if not isinstance(data, list):
        raise RenderError(f"{data!r} is no list of terms")
    return join([_term(x, context) for x in data], context)


def _terms_or(data: Any, context: Context) -> str:
    if not isinstance(data, list):
        raise RenderError(f"{data!r} is no list of terms")
    return join([_term(x, context) for x in data], context, last="or")


RENDERERS: Mapping[str, Callable[[Any, Context], str]] = {
    "rank": lambda data, context: phrase("rank", data, context),
    "text": lambda data, context: str(data),
    "ranks": _ranks,
    "term": _term,
    "terms": _terms,
    "terms_or": _terms_or,
    "span": _span,
    "shape": _shape,
}
"""The value renderers a template may name after a colon."""

JOINED = frozenset({"each", "chain", "or"})
"""The renderers that write each item through a phrase (`each:PHRASE`)."""


def write(data: Any, spec: str, context: Context) -> str:
    """A value written by the renderer `spec` ("" the default) in the context's language."""
    kind, _, name = spec.partition(":")
    if kind in JOINED:
        if isinstance(data, dict):
            items = [phrase(name, v, context, key=k) for k, v in data.items()]
        elif isinstance(data, list):
            items = [phrase(name, v, context) for v in data]
        else:
            raise RenderError(f"{data!r} is no list or table")
        if kind == "chain":
            return phrase("chain", None, context).join(items)
        return join(items, context, last="or" if kind == "or" else "and")
    if not spec:
        return _default(data, context)
    return RENDERERS[spec](data, context)
