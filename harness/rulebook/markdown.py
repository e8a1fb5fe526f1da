"""A rulebook written as Markdown (Python-Markdown with footnotes, tables and HTML blocks): the
site's rulebook pages and `guandan rulebook --format md`; the HTML and PDF forms are made from
it.

Every string a variant file wrote (its title, a quote, a reason, an option's value, a source's
words) is data here, never markup: it goes through `mdescape.text`, so that a club's rulebook
cannot carry a script, a handler attribute or a link. The sentences and phrases of the tables
are the project's own and keep their Markdown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from harness.conformance.reporting import mdescape
from harness.frontends.card_faces import CARD_NAMES, cards_html
from harness.model.ruleset import ProvenanceKind
from harness.rulebook.book import Book, Rule
from harness.rulebook.templates import phrase

MARKS = {ProvenanceKind.STATED: "✓", ProvenanceKind.READ: "△", ProvenanceKind.ASSUMED: "◇"}
"""A rule's mark: stated by the source; read from the source's words (the words and our
reading in the note); or our reading where the source is silent or unclear."""


def note_id(clause_id: str) -> str:
    """A footnote's id: the clause id, as Markdown footnote ids allow."""
    return clause_id.replace(".", "-").replace("_", "-")


def chapter_anchor(chapter_id: str) -> str:
    """The anchor of a chapter's heading."""
    return f"chapter-{chapter_id}"


def markdown(book: Book, header: Sequence[str] = ()) -> str:
    """The whole rulebook: title, the marks explained, the options, then each chapter with
    its rules, examples, pictures and notes; `header` lines go under the title (the site's
    language links)."""
    out = [f"# {mdescape.text(book.title)}", "", *header]
    out += [book.words("book.marks"), ""]
    out += terms_table(book)
    out += [f"## {book.words('book.options')}", ""]
    if book.options:
        out += [f"- {mdescape.text(line)}" for line in book.options]
    else:
        out.append(book.words("book.no_options"))
    out.append("")
    notes: list[str] = []
    for number, chapter in enumerate(book.chapters, 1):
        if not chapter.rules:
            continue
        out += [f"## {number}. {chapter.title} {{#{chapter_anchor(chapter.id)}}}", ""]
        if chapter.intro:
            out += [chapter.intro, ""]
        for rule in chapter.rules:
            out += _rule(book, rule)
            notes.append(_note(book, rule))
    out += notes
    return "\n".join(out) + "\n"


def _rule(book: Book, rule: Rule) -> list[str]:
    mark = MARKS[rule.note.kind]
    kind = f"gd-{rule.note.kind.value}"
    # The clauses this sentence answers for keep their anchors here: links from the
    # comparison and the specification land on the sentence that says they do not apply.
    anchors = "".join(f'<a id="{cid}"></a>' for cid in (rule.clause, *rule.also))
    out = [
        f"{anchors}{mdescape.text(rule.sentence)} "
        f'<span class="gd-mark {kind}">{mark}</span>[^{note_id(rule.clause)}]',
        "",
    ]
    for example in rule.examples:
        names = {t: book.context.tables.glossary[t][book.lang] for t in CARD_NAMES}
        cards = cards_html(example.cards, example.wild, names)
        # An example names its level: the level makes the level cards and the wild.
        said = (
            book.words("book.example_at", example.level.value)
            if example.level is not None
            else book.words("book.example")
        )
        out += [f"{said}{book.words('colon')}{cards} → {example.reading}", ""]
    if rule.figure == "ladder":
        out += [ladder_svg(book), ""]
    elif rule.figure == "level_table":
        out += level_table(book)
    return out


def _note(book: Book, rule: Rule) -> str:
    text = mdescape.text(rule.note.text)
    return f"[^{note_id(rule.clause)}]: {MARKS[rule.note.kind]} {text}"


def terms_table(book: Book) -> list[str]:
    """The source's own words beside the book's (來源用語對照), as a table: a reader holding
    the source maps 參謀 to 主牌. The source's words are quoted as written."""
    if not book.terms:
        return []
    open_, close = ("「", "」") if book.lang.chinese else ("“", "”")
    out = [f"## {book.words('book.terms')}", ""]
    out += [f"| {book.words('book.terms_source')} | {book.words('book.terms_book')} |"]
    out += ["| --- | --- |"]
    out += [
        f"| {open_}{mdescape.text(word)}{close} | {mdescape.text(said)} |"
        for word, said in book.terms
    ]
    return [*out, ""]


def ladder_svg(book: Book) -> str:
    """The bomb ladder (炸彈的大小) drawn as a ladder: the lowest bomb at the foot, each rung
    beaten by the one above it."""
    steps = [phrase("ladder.step", s, book.context) for s in book.context.rules["bombs.ladder"]]
    rung, gap, width = 30, 8, 260
    height = len(steps) * (rung + gap) + 40
    title = html.escape(book.words("book.ladder"))
    parts = [
        f'<svg class="gd-ladder" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'viewBox="0 0 {width + 40} {height}" width="{width + 40}" height="{height}">',
        f"<title>{title}</title>",
        f'<text x="{(width + 40) // 2}" y="18" text-anchor="middle" font-size="13">{title}</text>',
        f'<line x1="20" y1="28" x2="20" y2="{height - 4}" stroke="#9e9e9e" stroke-width="3"/>',
        f'<line x1="{width + 20}" y1="28" x2="{width + 20}" y2="{height - 4}" stroke="#9e9e9e" '
        'stroke-width="3"/>',
    ]
    for i, step in enumerate(reversed(steps)):
        y = 32 + i * (rung + gap)
        parts += [
            f'<rect x="24" y="{y}" width="{width - 8}" height="{rung}" rx="4" fill="#fffde7" '
            'stroke="#f9a825"/>',
            f'<text x="{(width + 40) // 2}" y="{y + rung // 2 + 5}" text-anchor="middle" '
            f'font-size="13">{html.escape(step)}</text>',
        ]
    parts.append("</svg>")
    return "".join(parts)


def level_table(book: Book) -> list[str]:
    """The level-up table (升級表): each winning finish and the levels it gains."""
    rules = book.context.rules
    rows = [
        ("outcome.double_down", rules["levels.up.double_down"]),
        ("outcome.first_and_third", rules["levels.up.first_and_third"]),
        ("outcome.first_and_fourth", rules["levels.up.first_and_fourth"]),
    ]
    head = book.words("book.level_table")
    out = [f"| {book.words('book.outcome')} | {head} |", "| --- | --- |"]
    out += [f"| {book.words(name)} | {levels} |" for name, levels in rows]
    return [*out, ""]
