"""A variant's rulebook as a value (規則書): chapters in the order of play, each rule a sentence
with its mark (stated or our reading) and note, examples and pictures; the renderers
(`markdown`, `html`) write it out."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.conformance.corpus import Case, applies
from harness.model.cards import Card, Rank
from harness.model.ruleset import ProvenanceKind, Ruleset
from harness.rulebook.language import Lang, in_script
from harness.rulebook.templates import (
    ClauseEntry,
    Context,
    RenderError,
    Tables,
    join,
    phrase,
    render,
    sentence,
    tables,
)


@dataclass(frozen=True)
class Note:
    """A rule's note (註): the source's words and their place; those words and the reading
    we take of them (據原文推定); or, where the source is silent, our reading's reason."""

    kind: ProvenanceKind
    text: str
    original: str | None = None
    """The quote as written, where the text shows it converted (zh-Hans)."""

    @property
    def stated(self) -> bool:
        """Whether the source's words give the rule as told, with nothing read into them."""
        return self.kind is ProvenanceKind.STATED


@dataclass(frozen=True)
class Example:
    """A corpus case drawn as an example: the cards and what they are."""

    case: Case
    cards: tuple[str, ...]
    wild: Card | None
    reading: str


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
    return Book(ruleset, lang, context, title, _options(ruleset, context), tuple(chapters))


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
    clause = ruleset.clause(clause_id)
    prov = clause.provenance
    lang = context.lang
    colon, stop = phrase("colon", None, context), phrase("stop", None, context)
    alternatives = join(list(prov.alternatives), context, last="or")
    others = f"{phrase('book.alternatives', None, context)}{colon}{alternatives}."
    if prov.kind.quoted:
        found = ruleset.cited(prov.source or "")
        title = found.title if found is not None else (prov.source or "")
        quote = in_script(prov.quote or "", lang)
        place = in_script(prov.place or "", lang)
        open_, close = ("「", "」") if lang.chinese else ("“", "”")
        said = phrase(f"book.{prov.kind.value}", None, context)
        text = f"{said}{colon}{in_script(title, lang)}, {place}{colon}{open_}{quote}{close}"
        if prov.kind is ProvenanceKind.READ:
            # The words and what we read into them, both printed: the mark is not ✓.
            reading = (prov.reading or "").strip()
            text += f"{stop}{phrase('book.reading', None, context)}{colon}{reading} {others}"
        return Note(prov.kind, text, prov.quote if quote != prov.quote else None)
    # The reasons are the variant files' own prose, written in English.
    text = f"{phrase('book.assumed', None, context)}{stop}{(prov.reason or '').strip()} {others}"
    return Note(prov.kind, text)


def _options(ruleset: Ruleset, context: Context) -> tuple[str, ...]:
    """The variant's options and the choice this rulebook is written for, one line each."""
    chosen = dict(ruleset.chosen)
    lines = []
    for name, option in ruleset.options.items():
        value = chosen.get(name, option.default)
        try:
            choice = render(context.tables.entry(option.sets).sentence, value, context)
        except (KeyError, RenderError):
            choice = str(value)
        lines.append(phrase("book.option_row", {"name": name, "choice": choice}, context))
    return tuple(lines)


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
        found.append(Example(case, tuple(case.input["cards"]), wild, reading))
    return tuple(found)
