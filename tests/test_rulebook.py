"""The player-facing rulebooks (issue 26): the sentence tables, the glossary, and the books
built from them in zh-Hans, zh-Hant and English."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.model.loader import bundled_variants, clause_specs
from harness.model.mutants import mutate
from harness.model.registry import INFORMATIONAL
from harness.model.ruleset import Ruleset
from harness.model.value_classes import ValueClass, moved_into, schema_classes, value_classes
from harness.rulebook.book import build
from harness.rulebook.language import LANGS, Lang, simplified, simplified_keeping_quotes
from harness.rulebook.templates import (
    Context,
    RenderError,
    read_tables,
    rulebook_dir,
    sentence,
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
    for value in values:
        told = 0
        for base in bases:
            rules = {cid: c.value for cid, c in base.clauses.items()}
            for lang in LANGS:
                # None: the variant's other values make the rule inert (an `omit` alternative).
                text = sentence(entry.sentence, value, Context(lang, table, rules))
                if text is not None:
                    told += 1
                    assert text.strip() and "{" not in text, (clause_id, value, lang, text)
        # Left out in one variant, a value is still told where the rule is live: an `omit`
        # alternative is never a way for a value to have no words.
        live = [a for a in entry.sentence.alternatives if not a.omit and a.matches(value, None)]
        assert told or live, (clause_id, value)


def test_a_value_without_words_fails_the_rulebook_with_the_templates_place(tmp_path: Path) -> None:
    """A club's file may give a value the tables have no alternative for: building its
    rulebook fails, naming the clause, the value, the language and the template's line."""
    folder = _copy_tables(tmp_path)
    play = folder / "chapters" / "08-play.yaml"
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
    from harness.conformance.cases.case_loader import load_cases

    ruleset = next(v for v in bundled_variants() if v.slug == slug)
    book = build(ruleset, Lang.ZH_HANT, load_cases()[0])
    rules = [r for c in book.chapters for r in c.rules if r.clause.endswith(".shape")]
    assert len(rules) == 10
    for rule in rules:
        kind = rule.clause.split(".")[1]
        assert rule.examples, rule.clause
        term = tables().glossary[kind][Lang.ZH_HANT]
        assert all(e.reading == term and e.cards for e in rule.examples), rule.clause


# ---------------------------------------------------------------------------------------------
# The order of play, and only the variant's own rules (issue 48)


def test_the_chapters_follow_the_order_of_play() -> None:
    """Cards and deal, tribute and return (right after the deal: it decides who leads every
    round after the first), play, finishing, levels, the end of the match, conduct, and
    scoring last."""
    assert [c.id for c in tables().chapters] == [
        "cards",
        "ranks",
        "wild",
        "dealing",
        "tribute",
        "combinations",
        "beating",
        "play",
        "finishing",
        "levels",
        "match_end",
        "conduct",
        "scoring",
    ]


def _variant(slug: str) -> Ruleset:
    return next(v for v in bundled_variants() if v.slug == slug)


def _book_text(slug: str, lang: Lang) -> str:
    from harness.rulebook.markdown import markdown

    return markdown(build(_variant(slug), lang))


def _sentences(slug: str, lang: Lang) -> str:
    """What a book tells, its notes left out (they may name other variants' rules)."""
    book = build(_variant(slug), lang)
    intros = [c.intro or "" for c in book.chapters]
    return "\n".join(intros + [r.sentence for c in book.chapters for r in c.rules])


# Only the online app's text scores a match (7.計分規則, 歡樂豆); only competition limits the
# failures at A (第四條: 總計三次a打不過去，退到2重打); only huaian and online-app give streak
# bonuses (如果某個玩家連續3次頭游…).
SCORES = {"online-app"}
FAILURE_LIMIT = {"competition"}
STREAKS = {"huaian", "online-app"}
SLUGS = ["competition", "huaian", "match-rules", "online-app"]


@pytest.mark.parametrize("slug", SLUGS)
def test_a_book_has_a_scoring_chapter_only_where_its_variant_scores(slug: str) -> None:
    book = build(_variant(slug), Lang.EN)
    ids = [c.id for c in book.chapters]
    assert ("scoring" in ids) == (slug in SCORES), ids
    text = _sentences(slug, Lang.ZH_HANT)
    assert "比賽還可以用" not in text
    assert ("x×n" in text) == (slug in SCORES)  # the formula sentences
    # Said once where it does not score, in the chapter's place: after conduct.
    assert text.count("本規則不計分") == (0 if slug in SCORES else 1)
    if slug not in SCORES:
        whole = _book_text(slug, Lang.ZH_HANT)
        assert whole.index("牌必須完全面向自己") < whole.index("本規則不計分") < whole.index("\n[^")


@pytest.mark.parametrize("slug", SLUGS)
def test_a_book_tells_the_reset_after_failures_only_with_a_failure_limit(slug: str) -> None:
    text = _sentences(slug, Lang.ZH_HANT)
    limited = slug in FAILURE_LIMIT
    assert ("退回2重新打起" in text) == limited
    assert ("不會因此退級" in text) == (not limited)
    assert ("算打A失敗一次" in text) == limited
    english = _sentences(slug, Lang.EN)
    assert ("starts again from level 2" in english) == limited


@pytest.mark.parametrize("slug", SLUGS)
def test_a_book_speaks_of_streaks_only_where_its_variant_has_them(slug: str) -> None:
    text = _sentences(slug, Lang.ZH_HANT)
    english = _sentences(slug, Lang.EN)
    streaks = slug in STREAKS
    assert ("連續頭遊的額外升級" in text or "連續{t.first}" in text) == streaks
    assert ("streak" in english) == streaks
    # Without streaks their absence is said once, for firsts and lasts together.
    assert text.count("連續做頭遊") == (0 if streaks else 1)
    assert ("falls below level" in english) == streaks  # no penalty: no floor either


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("lang", LANGS, ids=str)
def test_tribute_is_told_right_after_the_deal_and_before_play_and_levels(
    slug: str, lang: Lang
) -> None:
    ids = [c.id for c in build(_variant(slug), lang).chapters]
    assert ids.index("dealing") + 1 == ids.index("tribute")
    assert ids.index("tribute") < ids.index("play") < ids.index("levels") < ids.index("conduct")
    assert ids[-1] == ("scoring" if slug in SCORES else "conduct")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_clause_keeps_one_anchor_in_its_book(slug: str) -> None:
    """A clause left out still has its anchor, at the sentence that answers for it, so that
    the comparison and the specification pages link to something."""
    ruleset = _variant(slug)
    text = _book_text(slug, Lang.EN)
    counts = {cid: text.count(f'<a id="{cid}"></a>') for cid in ruleset.clauses}
    assert {cid for cid, n in counts.items() if n != 1} == set()
    book = build(ruleset, Lang.EN)
    assert sorted(book.told + book.left_out) == sorted(ruleset.clauses)


def test_a_variant_without_tribute_has_no_tribute_chapter() -> None:
    ruleset = mutate(_variant("huaian"), "tribute.enabled", False)
    if ruleset is None:
        pytest.skip("the reference does not play a variant without tribute")
    book = build(ruleset, Lang.EN)
    assert "tribute" not in [c.id for c in book.chapters]
    dealing = next(c for c in book.chapters if c.id == "dealing")
    assert dealing.rules[-1].clause == "tribute.enabled"
    assert "tribute.card" in dealing.rules[-1].also


@pytest.mark.parametrize(
    ("alternative", "words"),
    [
        ("{omit: true, en: x, zh-Hant: x}", "`omit: true` leaves the rule out: no words"),
        ("{if: {no.such: 1}, en: x, zh-Hant: x}", "`if` names no clause 'no.such'"),
        ("{if: [], en: x, zh-Hant: x}", "`if` maps clause ids to their values"),
    ],
)
def test_a_broken_if_or_omit_is_refused_as_the_tables_are_read(
    tmp_path: Path, alternative: str, words: str
) -> None:
    folder = _copy_tables(tmp_path)
    cards = folder / "chapters" / "01-cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(
        text.replace("  deck.hand_size:\n", f"  deck.hand_size:\n    - {alternative}\n"),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        read_tables(folder)
    assert words in str(info.value) and f"{cards}:" in str(info.value)


def test_a_chapter_left_out_by_a_clause_of_another_chapter_is_refused(tmp_path: Path) -> None:
    folder = _copy_tables(tmp_path)
    scoring = folder / "chapters" / "13-scoring.yaml"
    text = scoring.read_text(encoding="utf-8")
    scoring.write_text(
        text.replace("omit_if: {scoring.base: null}", "omit_if: {deck.decks: 2}"),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        read_tables(folder)
    assert "'deck.decks' is no clause of this chapter" in str(info.value)


# The statements issue 48 found printed ✓ while their values read more into their quotes.
READINGS = [
    ("match-rules", "ranks.level_card.in_full_house"),
    ("match-rules", "combinations.pair.shape"),
    ("match-rules", "combinations.full_house.shape"),
    ("match-rules", "flow.jiefeng"),
    ("huaian", "wild.stands_for"),
    ("huaian", "levels.streak.firsts"),
    ("huaian", "levels.streak.lasts"),
    ("online-app", "levels.streak.firsts"),
    ("online-app", "levels.streak.lasts"),
    ("online-app", "scoring.base"),
    ("competition", "wild.declared"),
]


@pytest.mark.parametrize(("slug", "clause_id"), READINGS)
def test_a_reading_is_printed_with_its_quote_and_the_reading_not_as_stated(
    slug: str, clause_id: str
) -> None:
    from harness.rulebook.markdown import note_id

    ruleset = _variant(slug)
    prov = ruleset.clause(clause_id).provenance
    text = _book_text(slug, Lang.EN)
    anchor = f'<a id="{clause_id}"></a>'
    line = next(x for x in text.splitlines() if anchor in x)
    assert "gd-mark gd-read" in line and "✓" not in line
    written = next(x for x in text.splitlines() if x.startswith(f"[^{note_id(clause_id)}]: "))
    # What the reader sees: the variant's words are escaped as Markdown text (`above\_ace`).
    note = html.unescape(re.sub(r"\\(.)", r"\1", written))
    assert note.split(": ", 1)[1].startswith("△ ")
    assert (prov.quote or "") in note
    assert " ".join((prov.reading or "").split()) in note
    assert all(" ".join(a.split()) in note for a in prov.alternatives)

    # In Chinese: the source's words as written, then our reading in the reader's script.
    catalogue = tables().translations
    for lang in (Lang.ZH_HANT, Lang.ZH_HANS):
        text = _book_text(slug, lang)
        note = next(x for x in text.splitlines() if x.startswith(f"[^{note_id(clause_id)}]: "))
        assert note.split(": ", 1)[1].startswith("△ ") and f"「{prov.quote}」" in note
        reading = catalogue[" ".join((prov.reading or "").split())][Lang.ZH_HANT]
        shown = reading if lang is Lang.ZH_HANT else simplified_keeping_quotes(reading)
        assert shown in note


# ---------------------------------------------------------------------------------------------
# Each book wholly in its language (issue 48, item 3)

# What a Chinese book may hold in Latin letters: card notation (A2345, AAKKQQ, x4567), the
# formula's letters (x×n+a) and the marks. An English sentence is a run of three or more
# words of two letters or more (no card's notation is three words); an identifier has an
# underscore (room_coefficient); any other word of three letters or more that is not made of
# card ranks alone (JQKA, aakkqq) is English too. Tags, their attributes and the footnotes'
# ids are markup, and the source's words between 「」 are quotes, kept as written.
_TAG = re.compile(r"<[^>]*>")
_MARKUP = re.compile(r"\[\^[^\]]*\]:?|\{#[^}]*\}")
_QUOTE = re.compile(r"「[^「」]*」")
_WORD = r"[A-Za-z]{2,}"
_RUN = re.compile(rf"{_WORD}(?:[\s,.;:'’()/-]+{_WORD}){{2,}}")
_IDENTIFIER = re.compile(r"\b[A-Za-z]+_[A-Za-z_]+\b")
_ENGLISH_WORD = re.compile(r"\b(?![AKQJTakqjt]+\b)[A-Za-z]{3,}\b")


def _prose(markdown_text: str) -> str:
    """A book's text as a reader reads it, outside the source's words it quotes."""
    return _QUOTE.sub(" ", _MARKUP.sub(" ", _TAG.sub(" ", markdown_text)))


def _english(text: str) -> set[str]:
    return (
        set(_RUN.findall(text)) | set(_IDENTIFIER.findall(text)) | set(_ENGLISH_WORD.findall(text))
    )


def test_the_english_finder_finds_english_and_only_english() -> None:
    assert _english("其他讀法：a random seat leads或as in apps")
    assert _english("room_coefficient：x乘以房間係數n")
    assert _english("來源原文：比賽規則 (match rules, twelve sections)")
    assert _english("本規則的讀法：level")
    assert not _english("例如打9時，9、10、J、Q、K是順子；A2345、10JQKA、AAKKQQ、aakkqq")
    assert not _english("輸方每人付出x×n+a個歡樂豆；x＝0")
    assert not _english(_prose("<span title='SB small joker'>小王</span>「jqka2屬不符合」"))


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("lang", [Lang.ZH_HANS, Lang.ZH_HANT], ids=str)
def test_a_chinese_book_has_no_english_outside_quotes_and_card_notation(
    slug: str, lang: Lang
) -> None:
    text = _prose(_book_text(slug, lang))
    assert _english(text) == set()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_simplified_book_is_simplified_outside_the_sources_words(slug: str) -> None:
    """Every line of the zh-Hans book is unchanged by OpenCC's t2s once the source's words it
    quotes (kept as written, traditional) are left out."""
    text = _prose(_book_text(slug, Lang.ZH_HANS))
    traditional = [line for line in text.splitlines() if simplified(line) != line]
    assert traditional == []


@pytest.mark.parametrize("slug", SLUGS)
def test_the_simplified_book_keeps_the_sources_words_as_written(slug: str) -> None:
    ruleset = _variant(slug)
    text = _book_text(slug, Lang.ZH_HANS)
    quoted = [c.provenance.quote for c in ruleset.clauses.values() if c.provenance.kind.quoted]
    assert quoted and all(f"「{q}」" in text for q in quoted if q)


def _variant_prose() -> dict[str, list[str]]:
    """Every reason, reading and other reading of the bundled variants (English), by where."""
    found: dict[str, list[str]] = {}
    for ruleset in bundled_variants():
        for cid, clause in ruleset.clauses.items():
            prov = clause.provenance
            for text in (prov.reason, prov.reading, *prov.alternatives):
                if text:
                    found.setdefault(" ".join(text.split()), []).append(f"{ruleset.slug}: {cid}")
    return found


def test_every_reason_reading_and_alternative_has_its_chinese() -> None:
    """A changed English text in a variant file is not printed as English in a Chinese book:
    it has no translation until spec/rulebook/translations.yaml is changed too."""
    catalogue = tables().translations
    missing = {text: where[0] for text, where in _variant_prose().items() if text not in catalogue}
    assert missing == {}


def test_every_translation_translates_something() -> None:
    used = set(_variant_prose())
    assert [en for en in tables().translations if en not in used] == []


def test_the_words_a_translation_quotes_are_a_sources_words() -> None:
    """Between 「」 a translation quotes a source as written (kept so in the zh-Hans book);
    our own glosses go between “”."""
    from harness.model.sources import sources

    texts = [s for s in sources().values() if s.text]
    bad = [
        quote
        for words in tables().translations.values()
        for quote in re.findall(r"「([^「」]*)」", words[Lang.ZH_HANT])
        if not any(source.contains(quote) for source in texts)
    ]
    assert bad == []


def test_a_club_variant_without_translations_prints_its_english_marked(tmp_path: Path) -> None:
    from harness.model.loader import load_variant_file

    own = tmp_path / "my-club.yaml"
    own.write_text(
        "id: my-club\nextends: huaian\ntitle: My club\ntitle_zh: 我的俱樂部\nrules:\n"
        "  levels:\n    up:\n      double_down:\n"
        '        {value: 4, assumed: {reason: "our club plays four", alternatives: ["3"]}}\n',
        encoding="utf-8",
    )
    book = build(load_variant_file(own), Lang.ZH_HANT)
    rule = next(r for c in book.chapters for r in c.rules if r.clause == "levels.up.double_down")
    assert "〔未譯，英文原文〕our club plays four" in rule.note.text


def test_the_english_glossary_has_no_banker() -> None:
    """Guandan has no banker (莊家): 頭遊 is the first player to go out."""
    glossary = tables().glossary
    assert all("banker" not in words[Lang.EN] for words in glossary.values())
    assert glossary["first"][Lang.EN] == "first"


# The source's own words issue 48 found a reader could not map to the book's.
SOURCE_WORDS = {
    "match-rules": {"參謀": "主牌", "火箭": "同花順", "木板": "三連對", "連同張": "鋼板",
                    "四大天王": "天王炸", "借風": "接風", "上游": "頭遊", "下游": "末遊"},
    "competition": {"上游": "頭遊", "下游": "末遊", "天炸": "天王炸", "三帶兩": "三帶二"},
    "huaian": {"連對": "三連對", "三順": "鋼板", "天王": "天王炸", "末游": "末遊"},
    "online-app": {"連對": "三連對", "天王炸彈": "天王炸"},
}  # fmt: skip


@pytest.mark.parametrize("slug", SLUGS)
def test_every_book_maps_its_sources_words_to_its_own(slug: str) -> None:
    book = build(_variant(slug), Lang.ZH_HANT)
    assert dict(book.terms).items() >= SOURCE_WORDS[slug].items()
    text = _book_text(slug, Lang.ZH_HANT)
    assert all(f"| 「{word}」 | {term} |" in text for word, term in SOURCE_WORDS[slug].items())
    english = _book_text(slug, Lang.EN)
    assert "| “參謀” | level card |" in english or slug != "match-rules"


def test_every_source_word_is_the_sources_and_every_term_the_glossarys() -> None:
    from harness.model.sources import sources

    for source in sources().values():
        for word, term in source.terms:
            assert source.text and word in source.text, (source.id, word)
            assert term in tables().glossary, (source.id, term)


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("lang", LANGS, ids=str)
def test_options_are_told_in_the_words_of_their_rules_not_by_identifier(
    slug: str, lang: Lang
) -> None:
    ruleset = _variant(slug)
    book = build(ruleset, lang)
    for line in book.options:
        assert not any(re.search(rf"\b{name}\b", line) for name in ruleset.options), line


def test_an_option_names_its_other_choices() -> None:
    book = build(_variant("huaian"), Lang.ZH_HANT)
    (line,) = book.options
    assert line.startswith("比賽打到A為止") and "比賽打到8為止" in line


@pytest.mark.parametrize("lang", LANGS, ids=str)
def test_every_card_example_states_its_level(lang: Lang) -> None:
    """A wild card is one only at its level: each example drawn at a level says which."""
    from harness.conformance.cases.case_loader import load_cases
    from harness.rulebook.markdown import markdown

    book = build(_variant("huaian"), lang, load_cases()[0])
    examples = [e for c in book.chapters for r in c.rules for e in r.examples]
    assert any(e.wild is not None for e in examples)
    written = markdown(book)
    said = {
        Lang.ZH_HANS: "例（打{}）：",
        Lang.ZH_HANT: "例（打{}）：",
        Lang.EN: "Example, at level {}: ",
    }
    for example in examples:
        level = example.case.input.get("level")
        if level:
            shown = "10" if level == "T" else level
            assert example.level is not None
            assert said[lang].format(shown) in written, (example.case.id, level)
