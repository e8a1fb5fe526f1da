"""Malformed variant files: each mistake is reported with FILE:LINE:COLUMN and the path."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.model.loader import check_variant_file, load_variant_file

DATA = Path(__file__).parent / "data" / "variants"

HEADER = """\
id: {slug}
title: Test variant
title_zh: 測試
extends: base
"""


def write(tmp_path: Path, slug: str, body: str, header: bool = True) -> Path:
    path = tmp_path / f"{slug}.yaml"
    text = (HEADER.format(slug=slug) if header else "") + textwrap.dedent(body)
    path.write_text(text, encoding="utf-8")
    return path


def messages(path: Path) -> list[str]:
    return [str(p) for p in check_variant_file(path)]


def one(path: Path) -> str:
    found = messages(path)
    assert len(found) == 1, found
    return found[0]


def test_three_mistakes_are_each_reported_with_line_and_column() -> None:
    """The acceptance file: a duplicate key, a wrong type and an unknown key, all three reported."""
    found = messages(DATA / "broken.yaml")
    assert len(found) == 3, found
    text = "\n".join(found)
    assert re.search(
        r"broken\.yaml:11:7: levels\.up\.double_down: duplicate key 'double_down'", text
    )
    assert re.search(
        r"broken\.yaml:9:16: levels\.up\.double_down\.value: "
        r"expected integer, found string \"three\"",
        text,
    )
    assert re.search(r"broken\.yaml:14:5: levels\.colour: unknown key 'colour'", text)


def test_yaml_syntax_error_has_position(tmp_path: Path) -> None:
    path = write(tmp_path, "syntax", "rules:\n  levels: [unclosed\n")
    message = one(path)
    assert re.match(r".*syntax\.yaml:\d+:\d+: YAML syntax: ", message), message


def test_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = one(path)
    assert "expands to more than" in message and "bomb.yaml:1:1" in message


def test_merge_keys_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "merge", "x: &x {a: 1}\nrules:\n  <<: *x\n")
    assert any("merge keys (<<) are not allowed" in m for m in messages(path))


def test_value_without_provenance(tmp_path: Path) -> None:
    path = write(
        tmp_path, "noprov", "rules:\n  levels:\n    up:\n      double_down:\n        value: 4\n"
    )
    message = one(path)
    assert "noprov.yaml:9:9: levels.up.double_down:" in message
    assert "add `stated`, `read` or `assumed`" in message


def test_stated_and_assumed_together(tmp_path: Path) -> None:
    body = """\
    rules:
      levels:
        start:
          assumed: {reason: r, alternatives: [a]}
          stated: {place: p, quote: q}
    """
    assert "not `stated` and `assumed`" in one(write(tmp_path, "both", body))


def test_read_and_stated_together(tmp_path: Path) -> None:
    body = """\
    rules:
      levels:
        start:
          stated: {place: p, quote: q}
          read: {place: p, quote: q, reading: r, alternatives: [a]}
    """
    assert "not `stated` and `read`" in one(write(tmp_path, "readboth", body))


def test_a_read_clause_needs_its_reading_and_alternatives(tmp_path: Path) -> None:
    body = """\
    source: competition
    rules:
      levels:
        start:
          read: {place: 第三條, quote: 每局從2 開始打起}
    """
    said = messages(write(tmp_path, "noreading", body))
    assert any("missing required key 'reading'" in m for m in said), said
    assert any("missing required key 'alternatives'" in m for m in said), said


def test_a_read_quote_is_checked_against_its_source(tmp_path: Path) -> None:
    body = """\
    source: competition
    rules:
      levels:
        start:
          read: {place: 第三條, quote: 每局從3開始打起, reading: r, alternatives: [a]}
    """
    message = one(write(tmp_path, "readquote", body))
    assert "levels.start.read.quote: quote not found in source 'competition'" in message


def test_stated_needs_a_source(tmp_path: Path) -> None:
    body = """\
    rules:
      levels:
        start:
          stated: {place: p, quote: q}
    """
    message = one(write(tmp_path, "nosource", body))
    assert "levels.start.stated" in message and "no `source`" in message


def test_quote_must_be_found_in_the_source(tmp_path: Path) -> None:
    body = """\
    source: competition
    rules:
      levels:
        start:
          stated: {place: 第三條, quote: 每局從3開始打起}
    """
    message = one(write(tmp_path, "badquote", body))
    # Placed at the quote itself: line 9, where `每局從3開始打起` starts at the 35th character.
    assert message.endswith(
        "badquote.yaml:9:35: levels.start.stated.quote: quote not found in source "
        "'competition': '每局從3開始打起'"
    ), message


def test_quote_fragments_must_appear_in_order(tmp_path: Path) -> None:
    ok = """\
    source: competition
    rules:
      levels:
        start:
          stated: {place: 第三條, quote: 每局從2 開始打起…a必打}
    """
    assert messages(write(tmp_path, "inorder", ok)) == []
    reversed_fragments = ok.replace("每局從2 開始打起…a必打", "a必打…每局從2 開始打起")
    assert "quote not found" in one(write(tmp_path, "outoforder", reversed_fragments))


def test_unknown_source(tmp_path: Path) -> None:
    body = "source: nowhere\n"
    assert "unknown source 'nowhere'" in one(write(tmp_path, "unknownsource", body))


def test_a_clause_naming_an_unknown_source_is_refused_at_the_name(tmp_path: Path) -> None:
    body = """\
    source: competition
    rules:
      levels:
        start:
          stated: {source: nowhere, place: p, quote: q}
    """
    message = one(write(tmp_path, "clausesource", body))
    assert message.endswith(
        "clausesource.yaml:9:24: levels.start.stated.source: unknown source 'nowhere'"
    ), message


def test_id_must_match_file_name(tmp_path: Path) -> None:
    path = tmp_path / "named.yaml"
    path.write_text(HEADER.format(slug="other"), encoding="utf-8")
    assert "id: expected the file name 'named', found 'other'" in one(path)


def test_missing_parent_and_cycle(tmp_path: Path) -> None:
    path = tmp_path / "orphan.yaml"
    path.write_text("id: orphan\ntitle: t\ntitle_zh: t\nextends: nothing-here\n", encoding="utf-8")
    assert "no variant 'nothing-here'" in one(path)
    (tmp_path / "loop-a.yaml").write_text("id: loop-a\ntitle: t\ntitle_zh: t\nextends: loop-b\n")
    (tmp_path / "loop-b.yaml").write_text("id: loop-b\ntitle: t\ntitle_zh: t\nextends: loop-a\n")
    assert "cycle" in one(tmp_path / "loop-a.yaml")


def test_incomplete_level_up_table(tmp_path: Path) -> None:
    """A variant with no parent must define every clause; the level-up table gets its own words."""
    base = Path(__file__).parents[1] / "variants" / "base.yaml"
    text = base.read_text(encoding="utf-8").replace("id: base", "id: partial")
    start = text.index("      first_and_fourth:")
    end = text.index("    cap_at_final:")
    path = tmp_path / "partial.yaml"
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    message = one(path)
    assert (
        "levels.up.first_and_fourth: the level-up table must cover every winning finish" in message
    )


def test_ladder_names_only_defined_combinations(tmp_path: Path) -> None:
    body = """\
    rules:
      combinations:
        straight_flush:
          shape:
            value: null
            assumed: {reason: r, alternatives: [a]}
    """
    message = one(write(tmp_path, "noflush", body))
    assert "bombs.ladder[2]: the ladder names 'straight_flush'" in message


def test_ladder_sizes_must_be_possible(tmp_path: Path) -> None:
    body = """\
    rules:
      bombs:
        ladder:
          value: [{type: bomb, size: 3}, {type: bomb}, {type: joker_bomb}, {type: joker_bomb}]
          assumed: {reason: r, alternatives: [a]}
    """
    found = "\n".join(messages(write(tmp_path, "ladder", body)))
    assert "bombs.ladder[0]: a bomb of 3 cards cannot exist" in found
    assert "bombs.ladder[1]: 'bomb' comes in several sizes; give `size`" in found
    assert "bombs.ladder[3]: 'joker_bomb' size None is on the ladder twice" in found


def test_ladder_must_cover_every_bomb_size(tmp_path: Path) -> None:
    """Two decks and two wild cards make bombs of 4 to 10 cards: each needs a step."""
    body = """\
    rules:
      bombs:
        ladder:
          value: [{type: bomb, size: 4}, {type: bomb, size: 5}, {type: straight_flush},
                  {type: bomb, size: 6}, {type: joker_bomb}]
          assumed: {reason: r, alternatives: [a]}
    """
    message = one(write(tmp_path, "shortladder", body))
    assert "no step for a bomb of 7, 8, 9, 10 cards" in message


def test_option_default_must_be_a_choice(tmp_path: Path) -> None:
    body = """\
    options:
      target:
        sets: levels.final
        description: play to 8 or K
        choices: ["8", "K"]
        assumed: {reason: r, alternatives: [a]}
    """
    message = one(write(tmp_path, "optdefault", body))
    assert 'options.target: the default (the value of levels.final, "A")' in message
    assert "not among the choices" in message


def test_option_choices_must_be_values_of_the_clause(tmp_path: Path) -> None:
    body = """\
    options:
      target:
        sets: levels.final
        description: play to 8 or A
        choices: ["8", "A", 11]
        assumed: {reason: r, alternatives: [a]}
      bogus:
        sets: levels.nowhere
        description: nothing
        choices: [1, 2]
        assumed: {reason: r, alternatives: [a]}
    """
    found = "\n".join(messages(write(tmp_path, "optchoices", body)))
    assert "options.target.choices: 11 is not a value of levels.final" in found
    assert "options.bogus.sets: unknown clause id 'levels.nowhere'" in found


def test_rank_written_as_a_number_gets_a_hint(tmp_path: Path) -> None:
    body = """\
    rules:
      levels:
        final:
          value: 8
          assumed: {reason: r, alternatives: [a]}
    """
    message = one(write(tmp_path, "rankint", body))
    assert "levels.final.value: expected string, found integer 8" in message
    assert 'write ranks as text in quotes, e.g. "8"' in message


def test_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")
    assert "expected a mapping of keys, found list" in one(path)


def test_load_raises_data_error_with_every_problem() -> None:
    with pytest.raises(DataError) as info:
        load_variant_file(DATA / "broken.yaml")
    assert len(info.value.problems) == 3
    assert str(info.value).count("broken.yaml:") == 3


def test_synthetic_variant_changes_numbers_without_code() -> None:
    """Tubes of 2 to 4 pairs, straights of 5 to 7, no straight flush, another ladder: data only."""
    ruleset = load_variant_file(DATA / "long-tubes.yaml")
    tube = ruleset.rules.combinations.tube.shape
    straight = ruleset.rules.combinations.straight.shape
    assert tube is not None and (tube.groups.min, tube.groups.max) == (2, 4)
    assert straight is not None and (straight.groups.min, straight.groups.max) == (5, 7)
    assert ruleset.rules.combinations.straight_flush.shape is None
    steps = [(s.type.value, s.size) for s in ruleset.rules.bombs.ladder]
    assert steps[3] == ("joker_bomb", None) and steps[-1] == ("bomb", 10)
    assert ruleset.rules.levels.up.double_down == 5
