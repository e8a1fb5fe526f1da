"""The site's rulebook pages (規則書頁面): each variant's rulebook in English, simplified and
traditional Chinese with a language switcher and its PDF, the home page of each Chinese
language, and the differences between the variants for players in each language.

English pages keep their old places (`rulebooks/SLUG.md`, `comparison/index.md`); the Chinese
ones live in a folder per language (`zh-Hans/…`, `zh-Hant/…`).
"""

from __future__ import annotations

import concurrent.futures
import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from harness.conformance.cases.case_loader import Case
from harness.frontends.tryit_site import panel
from harness.model.ruleset import Ruleset
from harness.rulebook.book import build
from harness.rulebook.differences import clause_id_html, differences, name
from harness.rulebook.language import LANGS, Lang
from harness.rulebook.markdown import markdown
from harness.rulebook.printed import pdf_bytes
from harness.rulebook.templates import Context, phrase, tables

LANG_NAMES = {Lang.EN: "English", Lang.ZH_HANS: "简体中文", Lang.ZH_HANT: "繁體中文"}
"""Each language by its own name, as the switcher shows it."""


def folder(lang: Lang) -> str:
    """The site folder of a language's pages ("" for English, the site's own language)."""
    return "" if lang is Lang.EN else f"{lang.value}/"


def rulebook_path(slug: str, lang: Lang) -> str:
    """A rulebook page's path under docs/."""
    return f"{folder(lang)}rulebooks/{slug}.md"


def pdf_path(slug: str, lang: Lang) -> str:
    """A rulebook PDF's path on the site."""
    return f"pdf/{slug}.{lang.value}.pdf"


def comparison_path(lang: Lang) -> str:
    """The players' comparison page of a language."""
    return f"{folder(lang)}comparison/index.md"


def home_path(lang: Lang) -> str:
    """A language's home page (the English one is the site's own, hand-written)."""
    return f"{folder(lang)}index.md"


def _link(target: str, page: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def _site_url(path: str) -> str:
    """Where MkDocs puts the page of `path` (its directory URLs: `a/b.md` is `a/b/`)."""
    stem = path.removesuffix(".md")
    return stem.removesuffix("index") if stem.endswith("index") else stem + "/"


def _url(target: str, page: str) -> str:
    """A URL from `page`'s built page to `target`'s, for raw HTML (MkDocs rewrites the links
    of Markdown, not those of HTML)."""
    return posixpath.relpath(_site_url(target), _site_url(page) or ".") + "/"


def switcher(page_of: Mapping[Lang, str], page: str, extra: Sequence[str] = ()) -> str:
    """The language bar: each language's version of this page, the current one in bold."""
    links = [
        f"**{LANG_NAMES[lang]}**"
        if target == page
        else f"[{LANG_NAMES[lang]}]({_link(target, page)})"
        for lang, target in page_of.items()
    ]
    return '<div class="gd-langs" markdown>' + " · ".join([*links, *extra]) + "</div>"


def rulebook_pages(rulesets: Mapping[str, Ruleset], cases: Sequence[Case]) -> dict[str, str]:
    """Every rulebook page, each language's home page and comparison page."""
    pages: dict[str, str] = {}
    for slug, ruleset in rulesets.items():
        paths = {lang: rulebook_path(slug, lang) for lang in LANGS}
        for lang, path in paths.items():
            book = build(ruleset, lang, cases)
            extra = [
                f"[PDF]({_link(pdf_path(slug, lang), path)})",
                f"[{_spec_words(lang)}]({_link(f'specification/{slug}.md', path)})",
            ]
            names = {slug: name(ruleset, lang)}
            spec = _url(f"specification/{slug}.md", path)
            try_it = panel([ruleset], lang, names, spec)
            pages[path] = markdown(book, header=[switcher(paths, path, extra), "", try_it])
    homes = {lang: home_path(lang) for lang in LANGS}
    comparisons = {lang: comparison_path(lang) for lang in LANGS}
    for lang in LANGS:
        if lang is not Lang.EN:
            pages[homes[lang]] = home_page(rulesets, lang, homes)
        pages[comparisons[lang]] = players_comparison(rulesets, lang, cases, comparisons)
    pages["glossary.md"] = glossary_page()
    return pages


@dataclass(frozen=True)
class NavEntry:
    """An entry of a language's site navigation (導航): a page by its path under docs/, or a
    section of entries."""

    title: str
    path: str | None = None
    children: tuple[NavEntry, ...] = ()


def site_nav(rulesets: Mapping[str, Ruleset], lang: Lang) -> tuple[NavEntry, ...]:
    """The navigation of a Chinese language's pages, all in that language: its home, its
    rulebooks, the differences, the glossary, and the other languages by their own names."""
    context = Context(lang, tables(), {})
    rulebooks = tuple(
        NavEntry(name(ruleset, lang), rulebook_path(slug, lang))
        for slug, ruleset in rulesets.items()
    )
    others = tuple(NavEntry(LANG_NAMES[o], home_path(o)) for o in LANGS if o is not lang)
    return (
        NavEntry(phrase("site.home", None, context), home_path(lang)),
        NavEntry(phrase("site.rulebooks", None, context), children=rulebooks),
        NavEntry(phrase("site.comparison", None, context), comparison_path(lang)),
        NavEntry(phrase("site.glossary", None, context), "glossary.md"),
        NavEntry(phrase("site.languages", None, context), children=others),
    )


def page_lang(path: str) -> Lang | None:
    """The language of a Chinese page of the site, by its folder (None for the others)."""
    return next((lang for lang in LANGS if lang.chinese and path.startswith(folder(lang))), None)


def site_name(lang: Lang) -> str:
    """The site's name in a language, for the header of its pages."""
    return phrase("site.name", None, Context(lang, tables(), {}))


def glossary_page() -> str:
    """The glossary (術語表) every rulebook follows: each term in English, traditional and
    simplified Chinese."""
    out = [
        "# Glossary (術語表)",
        "",
        "The terms every rulebook uses, in each language. A rulebook's sentence names a term by "
        "its id (`{t.ID}` in `spec/rulebook/chapters/`), so the three rulebooks of a variant "
        "always say the same rule with the same word; the simplified term is what OpenCC "
        "converts the traditional one to (tested).",
        "",
        "| id | English | 繁體中文 | 简体中文 |",
        "| --- | --- | --- | --- |",
    ]
    for key, words in tables().glossary.items():
        out.append(
            f"| `{key}` | {words[Lang.EN]} | {words[Lang.ZH_HANT]} | {words[Lang.ZH_HANS]} |"
        )
    return "\n".join(out) + "\n"


def _spec_words(lang: Lang) -> str:
    return phrase("book.reference", None, Context(lang, tables(), {}))


def rulebook_pdfs(
    rulesets: Mapping[str, Ruleset],
    cases: Sequence[Case],
    stage: Callable[[str], None] | None = None,
) -> dict[str, bytes]:
    """Every rulebook's PDF (A4), by its path on the site, laid out on every core (a PDF
    takes seconds, and a site has a dozen); `stage` told as each is made."""
    books = [build(ruleset, lang, cases) for ruleset in rulesets.values() for lang in LANGS]
    workers = min(len(books), os.cpu_count() or 1, 4)
    made: dict[str, bytes] = {}
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        for book, pdf in zip(books, pool.map(pdf_bytes, books), strict=True):
            slug, lang = book.ruleset.slug, book.lang.value
            made[pdf_path(slug, book.lang)] = pdf
            if stage is not None:
                stage(f"rulebook PDF {len(made)}/{len(books)}: {slug} in {lang}")
    return made


def home_page(rulesets: Mapping[str, Ruleset], lang: Lang, homes: Mapping[Lang, str]) -> str:
    """A Chinese language's home page: its rulebooks, their PDFs and the comparison."""
    page = homes[lang]
    context = Context(lang, tables(), {})
    out = [
        f"# {phrase('site.home', None, context)}",
        "",
        switcher(homes, page),
        "",
        phrase("site.home_intro", None, context),
        "",
    ]
    for slug, ruleset in rulesets.items():
        rulebook = _link(rulebook_path(slug, lang), page)
        pdf = _link(pdf_path(slug, lang), page)
        out.append(f"- [{name(ruleset, lang)}]({rulebook}) · [PDF]({pdf})")
    comparison = _link(comparison_path(lang), page)
    out += ["", f"[{phrase('site.comparison', None, context)}]({comparison})", ""]
    return "\n".join(out) + "\n"


def players_comparison(
    rulesets: Mapping[str, Ruleset],
    lang: Lang,
    cases: Sequence[Case],
    pages: Mapping[Lang, str],
) -> str:
    """The differences between the variants, for players: each clause that differs as one
    sentence per variant, with the cases that tell them apart. The full matrix (every clause,
    English) is a link away."""
    page = pages[lang]
    context = Context(lang, tables(), {})
    found = differences(list(rulesets.values()), lang, cases)
    matrix = _link("comparison/all.md", page)
    out = [
        f"# {phrase('site.comparison', None, context)}",
        "",
        switcher(pages, page),
        "",
        phrase("site.comparison_intro", len(found), context),
        "",
        f"[{phrase('site.matrix', None, context)}]({matrix})",
        "",
        panel(
            list(rulesets.values()),
            lang,
            {slug: name(r, lang) for slug, r in rulesets.items()},
            _url("reference/clauses.md", page),
        ),
    ]
    for diff in found:
        out += [
            f"## {diff.chapter} · {clause_id_html(diff.clause)} {{#{diff.clause}}}",
            "",
        ]
        for ruleset, sentence in diff.sentences:
            rulebook = _link(rulebook_path(ruleset.slug, lang), page)
            out.append(f"- [{name(ruleset, lang)}]({rulebook}#{diff.clause}): {sentence}")
        out.append("")
        if diff.cases:
            links = ", ".join(
                f"[{c.id}]({_link(f'cases/{c.area}.md', page)}#{c.id})" for c in diff.cases[:6]
            )
            more = f" (+{len(diff.cases) - 6})" if len(diff.cases) > 6 else ""
            out += [f"{phrase('site.cases', None, context)}: {links}{more}", ""]
    return "\n".join(out) + "\n"
