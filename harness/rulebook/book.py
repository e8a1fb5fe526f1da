"""A variant's rulebook as a value (規則書): chapters in the order of play, each rule a sentence
with its mark (stated or our reading) and note, examples and pictures; the renderers
(`markdown`, `html`) write it out."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.conformance.cases.case_loader import Case, applies
from harness.model.cards import Card, Rank
from harness.model.ruleset import ProvenanceKind, Ruleset
from harness.rulebook.language import Lang, in_script
from harness.rulebook.templates import (
    ClauseEntry,
    Context,
    RenderError,
    Tables,
    folded,
    join,
    phrase,
    render,
    sentence,
    tables,
    translated,
)


@dataclass(frozen=True)
class Note:
    """A rule's note (註): the source's words and their place; those words and the reading
    we take of them (據原文推定); or, where the source is silent, our reading's reason. The
    source's words are as written in every language, between quotation marks."""

    kind: ProvenanceKind
    text: str

    @property
    def stated(self) -> bool:
        """Whether the source's words give the rule as told, with nothing read into them."""
        return self.kind is ProvenanceKind.STATED


@dataclass(frozen=True)
class Example:
    """A corpus case drawn as an example: the cards, the level they are played at (which makes
    the level cards and the wild), and what they are."""

    case: Case
    cards: tuple[str, ...]
    wild: Card | None
    reading: str
    level: Rank | None = None


@dataclass(frozen=True)
class Rule:
    """One rule: the clause, its sentence, its note, and what is drawn after it; `also` are
    the clauses the variant's values leave out of the book that this sentence answers for
    (their anchors stand at it: where failures have no limit, the reset after them)."""

    clause: str
    sentence: str
    note: Note
    figure: str | None
    examples: tuple[Example, ...]
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chapter:
    """A chapter: its id, title, introduction and rules."""

    id: str
    title: str
    intro: str | None
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Book:
    """A variant's rulebook in one language."""

    ruleset: Ruleset
    lang: Lang
    context: Context
    title: str
    options: tuple[str, ...]
    chapters: tuple[Chapter, ...]
    terms: tuple[tuple[str, str], ...] = ()
    """The source's own words, as written, and the book's term for each (參謀 → 主牌)."""

    def words(self, name: str, value: Any = None) -> str:
        """A phrase of the tables in the book's language."""
        return phrase(name, value, self.context)

    @property
    def told(self) -> tuple[str, ...]:
        """The clauses the book tells in a sentence of their own, in the book's order."""
        return tuple(r.clause for c in self.chapters for r in c.rules)

    @property
    def left_out(self) -> tuple[str, ...]:
        """The clauses the variant's values make inert, left out of the book (each anchored
        at the sentence that answers for it)."""
        return tuple(cid for c in self.chapters for r in c.rules for cid in r.also)


def build(
    ruleset: Ruleset, lang: Lang, cases: Sequence[Case] = (), table: Tables | None = None
) -> Book:
    """The rulebook of `ruleset` in `lang`; RenderError names the first clause value that
    has no words in the language (with the template's place)."""
    table = table or tables()
    values = {cid: c.value for cid, c in ruleset.clauses.items()}
    context = Context(lang, table, values)
    chapters: list[Chapter] = []
    # Clauses left out before any sentence could answer for them (anchored at the next one).
    waiting: list[str] = []
    for entry in table.chapters:
        entries = [e for e in entry.clauses if e.clause in ruleset.clauses]
        if entry.omitted(values):
            # A chapter every rule of which is inert (a variant that does not score): the
            # clause that makes it so is told once in its place, answering for the others.
            (key,) = entry.omit_if
            told = next(e for e in entries if e.clause == key)
            rule = _rule(told, ruleset, context, cases)
            others = [e.clause for e in entries if e.clause != key]
            if rule is None:
                waiting += [key, *others]
            else:
                waiting += others
                chapters = _answer(chapters, waiting, rule)
                waiting = []
            continue
        rules: list[Rule] = []
        for e in entries:
            rule = _rule(e, ruleset, context, cases)
            if rule is not None:
                rules.append(dataclasses.replace(rule, also=tuple(waiting)))
                waiting = []
            elif rules:
                # A rule left out is answered for by the sentence before it in its chapter
                # (no limit to failures: the reset after them), else by the next one.
                rules[-1] = dataclasses.replace(rules[-1], also=(*rules[-1].also, e.clause))
            else:
                waiting.append(e.clause)
        if not rules:
            continue
        title = render(entry.title, None, context)
        intro = render(entry.intro, None, context) if entry.intro else None
        chapters.append(Chapter(entry.id, title, intro, tuple(rules)))
    if waiting and chapters:
        chapters = _answer(chapters, waiting, None)
    name = ruleset.title_zh if lang.chinese else ruleset.title
    title = phrase("book.title", in_script(name, lang), context)
    options = _options(ruleset, context)
    return Book(ruleset, lang, context, title, options, tuple(chapters), _terms(ruleset, context))


def _terms(ruleset: Ruleset, context: Context) -> tuple[tuple[str, str], ...]:
    """The words of the variant's source that the book says otherwise, each with the book's
    term; in a Chinese book, only the words it does not write the same."""
    source = ruleset.cited(ruleset.source or "")
    if source is None:
        return ()
    glossary = context.tables.glossary
    out = []
    for word, term in source.terms:
        said = glossary[term][context.lang] if term in glossary else term
        if context.lang.chinese and word == glossary.get(term, {}).get(Lang.ZH_HANT):
            continue
        out.append((word, said))
    return tuple(out)


def _answer(chapters: list[Chapter], left_out: list[str], rule: Rule | None) -> list[Chapter]:
    """`chapters` with `rule` (when given) added at the end of the last one, answering for the
    clauses `left_out`; without a rule, the last rule there answers for them."""
    if not chapters:
        return chapters
    last = chapters[-1]
    rules = list(last.rules)
    if rule is not None:
        rules.append(dataclasses.replace(rule, also=rule.also + tuple(left_out)))
    else:
        rules[-1] = dataclasses.replace(rules[-1], also=rules[-1].also + tuple(left_out))
    return [*chapters[:-1], dataclasses.replace(last, rules=tuple(rules))]


def _rule(
    entry: ClauseEntry, ruleset: Ruleset, context: Context, cases: Sequence[Case]
) -> Rule | None:
    """The clause's rule, or None where the variant's other values leave it out."""
    clause = ruleset.clause(entry.clause)
    try:
        said = sentence(entry.sentence, clause.value, context)
    except RenderError as exc:
        raise RenderError(f"{ruleset.slug}, in {context.lang}: {exc}") from None
    if said is None:
        return None
    examples = _examples(entry, ruleset, context, cases) if entry.examples else ()
    return Rule(entry.clause, said, _note(ruleset, entry.clause, context), entry.figure, examples)


def _note(ruleset: Ruleset, clause_id: str, context: Context) -> Note:
    prov = ruleset.clause(clause_id).provenance
    lang = context.lang
    colon, comma = phrase("colon", None, context), phrase("comma", None, context)
    stop = phrase("stop", None, context).rstrip()
    space = "" if lang.chinese else " "
    readings = [_prose(a, context) for a in prov.alternatives]
    if len(readings) > 1:
        # Numbered: an alternative may hold commas and "or" of its own.
        numbered = [
            phrase("book.alternative", r, context, key=i) for i, r in enumerate(readings, 1)
        ]
        readings = [phrase("book.alternative_sep", None, context).join(numbered)]
    others = f"{phrase('book.alternatives', None, context)}{colon}{''.join(readings)}{stop}"
    if prov.kind.quoted:
        found = ruleset.cited(prov.source or "")
        title = found.title_for(lang.chinese) if found is not None else (prov.source or "")
        place = in_script(prov.place or "", lang)
        open_, close = ("「", "」") if lang.chinese else ("“", "”")
        said = phrase(f"book.{prov.kind.value}", None, context)
        # The source's words as written, in every language: a quote is never converted.
        text = (
            f"{said}{colon}{in_script(title, lang)}{comma}{place}{colon}"
            f"{open_}{prov.quote or ''}{close}"
        )
        if prov.kind is ProvenanceKind.READ:
            # The words and what we read into them, both printed: the mark is not ✓.
            reading = _prose(prov.reading or "", context)
            ended = (prov.quote or "").rstrip()[-1:] in _ENDS
            text += f"{'' if ended and lang.chinese else stop}{space}"
            text += f"{phrase('book.reading', None, context)}{colon}{reading}"
            text += f"{space}{others}"
        return Note(prov.kind, text)
    reason = _prose(prov.reason or "", context)
    said = phrase("book.assumed", None, context)
    return Note(prov.kind, f"{said}{stop}{space}{reason}{space}{others}")


_ENDS = frozenset("。！？；.!?;")
"""The marks that end a sentence: a quote ending in one needs no other after it."""


def _prose(text: str, context: Context) -> str:
    """A variant file's English prose in the book's language; where it has no translation
    (a club's own file), the English as written, marked as such."""
    found = translated(text, context)
    if found is not None:
        return found
    return phrase("book.untranslated", folded(text), context)


def _options(ruleset: Ruleset, context: Context) -> tuple[str, ...]:
    """The variant's options, one line each: the rule as this rulebook tells it (the choice it
    is written for) and the other choices, in the words of the rule the option sets (never
    its identifier)."""
    chosen = dict(ruleset.chosen)
    lines = []
    for name, option in ruleset.options.items():
        value = chosen.get(name, option.default)
        choice = _option_words(option.sets, value, context)
        others = [
            _option_words(option.sets, c, context)
            for c in option.choices or ()
            if c != value or type(c) is not type(value)
        ]
        if others:
            row = {"choice": choice, "others": join(others, context, last="or")}
            lines.append(phrase("book.option_choices", row, context))
        else:
            lines.append(phrase("book.option_set", {"choice": choice}, context))
    return tuple(lines)


def _option_words(clause_id: str, value: Any, context: Context) -> str:
    try:
        return render(context.tables.entry(clause_id).sentence, value, context)
    except (KeyError, RenderError):
        return str(value)


def _examples(
    entry: ClauseEntry, ruleset: Ruleset, context: Context, cases: Sequence[Case]
) -> tuple[Example, ...]:
    """Up to `entry.examples` classify cases of the clause that apply to the variant, each one
    play of one reading (of the clause's own combination, for a combination's shape), drawn
    with the type's name."""
    parts = entry.clause.split(".")
    own = parts[1] if parts[0] == "combinations" and len(parts) == 3 else None
    found: list[Example] = []
    for case in cases:
        if len(found) == entry.examples:
            break
        if case.operation != "classify" or entry.clause not in case.clauses or case.options:
            continue
        readings = case.expected.get("readings", [])
        # A combination's example is a play of that combination (among its readings, as a
        # straight flush may also read as a straight); any other clause's, a play of one reading.
        ours = [r for r in readings if r["type"] == own] if own else readings[:1]
        if not ours or (own is None and len(readings) != 1) or not applies(case, ruleset):
            continue
        level = case.input.get("level")
        wild = None
        if isinstance(level, str) and level in {r.value for r in Rank}:
            wild = Card(Rank(level), ruleset.rules.wild.suit)
        reading = context.tables.glossary[ours[0]["type"]][context.lang]
        at = Rank(level) if isinstance(level, str) and level in {r.value for r in Rank} else None
        found.append(Example(case, tuple(case.input["cards"]), wild, reading, at))
    return tuple(found)
