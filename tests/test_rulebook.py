"""The player-facing rulebooks (issue 26): the sentence tables, the glossary, and the books
built from them in zh-Hans, zh-Hant and English."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.model.loader import bundled_variants, clause_specs
from harness.model.mutants import mutate
from harness.model.registry import INFORMATIONAL
from harness.model.value_classes import ValueClass, moved_into, schema_classes, value_classes
from harness.rulebook.book import build
from harness.rulebook.language import LANGS, Lang, simplified
from harness.rulebook.templates import (
    Context,
    RenderError,
    read_tables,
    render,
    rulebook_dir,
    tables,
)


def test_the_bundled_tables_read_without_a_problem() -> None:
    table = tables()
    assert table.chapters and table.phrases and table.glossary


def test_each_glossary_term_converts_to_its_simplified_form() -> None:
    """The zh-Hans rulebooks are converted from zh-Hant: the glossary's simplified terms must
    be what the conversion gives, or the two rulebooks would name a rule differently."""
    for term, words in tables().glossary.items():
        assert simplified(words[Lang.ZH_HANT]) == words[Lang.ZH_HANS], term


@pytest.mark.parametrize(
    ("term", "hant", "hans"),
    [
        ("first", "頭遊", "头游"),
        ("double_down", "雙下", "双下"),
        ("tribute", "進貢", "进贡"),
        ("anti_tribute", "抗貢", "抗贡"),
        ("return_card", "還牌", "还牌"),
        ("jiefeng", "接風", "接风"),
        ("wild", "逢人配", "逢人配"),
        ("level_card", "主牌", "主牌"),
    ],
)
def test_the_glossary_names_the_terms_of_the_sources(term: str, hant: str, hans: str) -> None:
    words = tables().glossary[term]
    assert (words[Lang.ZH_HANT], words[Lang.ZH_HANS]) == (hant, hans)
    assert words[Lang.EN]


def _copy_tables(tmp_path: Path) -> Path:
    folder = tmp_path / "rulebook"
    shutil.copytree(rulebook_dir(), folder)
    return folder


def test_a_template_without_words_in_a_language_is_a_located_error(tmp_path: Path) -> None:
    folder = _copy_tables(tmp_path)
    chapter = folder / "chapters" / "99-broken.yaml"
    chapter.write_text(
        "chapter: broken\n"
        "title: {en: Broken, zh-Hant: 壞}\n"
        "clauses:\n"
        "  deck.decks:\n"
        "    - en: 'Two packs.'\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        read_tables(folder)
    text = str(info.value)
    assert f"{chapter}:5:" in text and "no words in zh-Hant" in text
    assert "also in" in text  # deck.decks is in the cards chapter too


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("'{nothing}'", "unknown name 'nothing'"),
        ("'{t.no_such_term}'", "no term 'no_such_term'"),
        ("'{rules[no.such]}'", "no clause 'no.such'"),
        ("'{value:loud}'", "unknown renderer 'loud'"),
        ("'{value:each:no_phrase}'", "no phrase 'no_phrase'"),
        ("'{value'", "expected '}'"),
    ],
)
def test_a_field_a_template_cannot_fill_is_refused_as_the_tables_are_read(
    tmp_path: Path, text: str, words: str
) -> None:
    folder = _copy_tables(tmp_path)
    phrases = folder / "phrases.yaml"
    phrases.write_text(
        phrases.read_text(encoding="utf-8") + f"broken: [{{en: {text}, zh-Hant: 壞}}]\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        read_tables(folder)
    assert words in str(info.value) and str(phrases) in str(info.value)


def test_every_language_has_a_tag() -> None:
    assert [lang.value for lang in LANGS] == ["zh-Hans", "zh-Hant", "en"]


# ---------------------------------------------------------------------------------------------
# Every clause value has words in every language


def _accepted_classes(clause_id: str) -> list[ValueClass]:
    """The value classes the loader accepts for a clause: those the interpreter implements, or
    every class of the schema for a clause no engine operation reads (informational)."""
    if clause_id in INFORMATIONAL:
        return schema_classes(clause_id)
    return list(value_classes(clause_id))


def test_every_clause_of_the_schema_is_in_one_chapter() -> None:
    placed = [e.clause for c in tables().chapters for e in c.clauses]
    assert sorted(placed) == sorted(clause_specs()), set(clause_specs()) ^ set(placed)


@pytest.mark.parametrize("clause_id", list(clause_specs()))
def test_every_value_of_a_clause_has_words_in_every_language(clause_id: str) -> None:
    """Each bundled variant's value, and a value of every class the loader accepts (moved
    from each bundled variant's value), renders in zh-Hans, zh-Hant and English."""
    table = tables()
    try:
        entry = table.entry(clause_id)
    except KeyError:
        pytest.fail(f"{clause_id} is in no chapter of spec/rulebook/chapters/")
    bases = bundled_variants()
    values = [base.value(clause_id) for base in bases]
    values += [moved_into(cls, v) for cls in _accepted_classes(clause_id) for v in values[:4]]
    for base in bases:
        rules = {cid: c.value for cid, c in base.clauses.items()}
        for value in values:
            for lang in LANGS:
                text = render(entry.sentence, value, Context(lang, table, rules))
                assert text.strip() and "{" not in text, (clause_id, value, lang, text)


def test_a_value_without_words_fails_the_rulebook_with_the_templates_place(tmp_path: Path) -> None:
    """A club's file may give a value the tables have no alternative for: building its
    rulebook fails, naming the clause, the value, the language and the template's line."""
    folder = _copy_tables(tmp_path)
    play = folder / "chapters" / "07-play.yaml"
    text = play.read_text(encoding="utf-8")
    start = text.index("  flow.pass:")
    end = text.index("\n  flow.", start + 1)
    play.write_text(
        text[:start]
        + "  flow.pass:\n    - when: always\n      en: 'You may pass.'\n      zh-Hant: '可以不出。'"
        + text[end:],
        encoding="utf-8",
    )
    table = read_tables(folder)
    ruleset = bundled_variants()[0]
    build(ruleset, Lang.EN, table=table)  # always: it has words
    unable = mutate(ruleset, "flow.pass", "when_unable")
    assert unable is not None
    with pytest.raises(RenderError) as info:
        build(unable, Lang.ZH_HANS, table=table)
    said = str(info.value)
    assert "flow.pass" in said and "'when_unable'" in said and "zh-Hans" in said
    assert f"{play}:" in said


@pytest.mark.parametrize("slug", [v.slug for v in bundled_variants()])
def test_every_combination_is_drawn_with_examples_of_its_own_type(slug: str) -> None:
    """Each combination's rule is followed by corpus plays of that combination (drawn as
    cards, named in the book's language)."""
    from harness.conformance.corpus import load_cases

    ruleset = next(v for v in bundled_variants() if v.slug == slug)
    book = build(ruleset, Lang.ZH_HANT, load_cases()[0])
    rules = [r for c in book.chapters for r in c.rules if r.clause.endswith(".shape")]
    assert len(rules) == 10
    for rule in rules:
        kind = rule.clause.split(".")[1]
        assert rule.examples, rule.clause
        term = tables().glossary[kind][Lang.ZH_HANT]
        assert all(e.reading == term and e.cards for e in rule.examples), rule.clause
