"""Differences between variants for players (規則差異): each clause whose values differ, as one
rulebook sentence per variant in the reader's language, with the cases that tell them apart."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from harness.conformance.cases.case_loader import Case, applicable_variants
from harness.model.ruleset import Ruleset, differing_clauses
from harness.rulebook.language import Lang, in_script
from harness.rulebook.templates import Context, phrase, render, sentence, tables
from harness.wording import counted


@dataclass(frozen=True)
class Difference:
    """One clause that differs: the chapter it is told in, each variant's sentence, and the
    corpus cases that apply to some of the variants but not all."""

    clause: str
    chapter: str
    sentences: tuple[tuple[Ruleset, str], ...]
    cases: tuple[Case, ...]


def telling_cases(clause_id: str, rulesets: Sequence[Ruleset], cases: Sequence[Case]) -> list[Case]:
    """The cases of a clause that apply to some of `rulesets` but not to all: each one shows
    the difference by itself."""
    matrix = list(rulesets)
    return [
        c
        for c in cases
        if clause_id in c.clauses and 0 < len(applicable_variants(c, matrix)) < len(matrix)
    ]


def differences(rulesets: Sequence[Ruleset], lang: Lang, cases: Sequence[Case]) -> list[Difference]:
    """Every clause whose values differ between `rulesets`, in the rulebook's order."""
    table = tables()
    differ = set(differing_clauses(rulesets))
    out = []
    for chapter in table.chapters:
        for entry in chapter.clauses:
            if entry.clause not in differ:
                continue
            sentences = []
            for ruleset in rulesets:
                values = {cid: c.value for cid, c in ruleset.clauses.items()}
                context = Context(lang, table, values)
                said: str | None
                if chapter.omitted(values):
                    # The chapter is told as one sentence, its inert clause's.
                    (key,) = chapter.omit_if
                    told = table.entry(key)
                    said = sentence(told.sentence, values[key], context)
                else:
                    said = sentence(entry.sentence, values[entry.clause], context)
                sentences.append((ruleset, said or phrase("book.left_out", None, context)))
            title = render(chapter.title, None, Context(lang, table, {}))
            telling = tuple(telling_cases(entry.clause, rulesets, cases))
            out.append(Difference(entry.clause, title, tuple(sentences), telling))
    return out


def clause_id_html(clause_id: str) -> str:
    """A clause id that a line may break only between its parts, never inside a word."""
    parts = clause_id.split(".")
    spans = [
        f"<span>{html.escape(p)}{'.' if i < len(parts) - 1 else ''}</span>"
        for i, p in enumerate(parts)
    ]
    return f'<code class="gd-id">{"<wbr>".join(spans)}</code>'


def name(ruleset: Ruleset, lang: Lang) -> str:
    """A variant's name for the reader: its Chinese title in a Chinese rulebook."""
    return in_script(ruleset.title_zh, lang) if lang.chinese else ruleset.title


def differences_text(found: Sequence[Difference], lang: Lang, limit: int = 3) -> str:
    """The differences as text for a terminal: a heading per clause, a line per variant, and
    up to `limit` cases that tell them apart."""
    out = [counted(len(found), "clause differs", "clauses differ")]
    width = max((len(r.slug) for d in found for r, _ in d.sentences), default=0)
    for diff in found:
        out += ["", f"{diff.clause} ({diff.chapter})"]
        out += [f"  {r.slug:<{width}}  {sentence}" for r, sentence in diff.sentences]
        if diff.cases:
            shown = ", ".join(c.id for c in diff.cases[:limit])
            more = f" and {len(diff.cases) - limit} more" if len(diff.cases) > limit else ""
            out.append(f"  cases: {shown}{more}")
    return "\n".join(out) + "\n"
