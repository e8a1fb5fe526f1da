"""A club's own source (來源, issue 21 item 3): a variant file may quote its own rule text, in a
file beside it or inline; its quotes are checked against that text as against a bundled one, a
quote not found is refused at the quote, and the rulebook, `show` and `diff` name the club's
source by its title."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from harness.conformance.cases.case_loader import load_cases
from harness.errors import DataError
from harness.frontends.cli import main
from harness.frontends.docs import rulebook_page
from harness.model.loader import check_variant_file, load_variant_file
from tests.conftest import run_guandan

TITLE = "我的俱樂部摜蛋規則 (my club's rules)"

RULES = "我的俱樂部摜蛋規則\n\n第三條　升級\n雙下升4級，其餘照常。\n打到8或者打到A，開局前商定。\n"

# Line 4 holds the source; line 11 the quote, `雙下升4級` from its 37th character:
#          1         2         3
# 1234567890123456789012345678901234567
#         stated: {place: 第三條, quote: 雙下升4級}
VARIANT = """\
id: my-club
title: My club's rules
title_zh: 我的俱樂部
source: {{{source}}}
extends: base
rules:
  levels:
    up:
      double_down:
        value: 4
        stated: {{place: 第三條, quote: {quote}}}
"""


# The start of the `source` mapping, the title.
TITLED = f'title: "{TITLE}", '


def club(
    tmp_path: Path,
    source: str = TITLED + "file: my-club-rules.txt",
    quote: str = "雙下升4級",
    rules: str | bytes | None = RULES,
) -> Path:
    """`my-club.yaml` in `tmp_path`, its `source` mapping holding `source`, and
    `my-club-rules.txt` beside it holding `rules` (none when None)."""
    if rules is not None:
        text = tmp_path / "my-club-rules.txt"
        if isinstance(rules, bytes):
            text.write_bytes(rules)
        else:
            text.write_text(rules, encoding="utf-8")
    path = tmp_path / "my-club.yaml"
    path.write_text(VARIANT.format(source=source, quote=quote), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    """The problems of the variant file at `path`, each as printed."""
    return [str(p) for p in check_variant_file(path)]


def cli(*args: str) -> tuple[int, str]:
    """`guandan ARGS` in process: its exit status and what it printed."""
    out = io.StringIO()
    status = main(list(args), out)
    return status, out.getvalue()


# ---------------------------------------------------------------------------------------------
# It validates, loads, and is shown by its title


def test_a_variant_quoting_a_file_beside_it_validates_and_loads(tmp_path: Path) -> None:
    path = club(tmp_path)
    assert problems(path) == []
    assert cli("validate", str(path)) == (0, "1 file valid\n")
    ruleset = load_variant_file(path)
    assert ruleset.source == "my-club"
    own = ruleset.source_document
    assert own is not None and own.own and own.title == TITLE
    assert own.file == "my-club-rules.txt" and own.text == RULES
    assert ruleset.clause("levels.up.double_down").provenance.source == "my-club"
    assert ruleset.value("levels.up.double_down") == 4


def test_the_rulebook_names_the_clubs_source(tmp_path: Path) -> None:
    cases, _ = load_cases()
    page = rulebook_page(load_variant_file(club(tmp_path)), cases)
    assert f"Source: **{TITLE}**." in page
    assert f'!!! quote "Stated: {TITLE}, 第三條"\n    雙下升4級\n' in page


def test_show_and_diff_name_the_clubs_source(tmp_path: Path) -> None:
    path = club(tmp_path)
    status, text = cli("show", str(path), "--format", "json")
    assert status == 0
    data = json.loads(text)
    assert data["source"] == {"id": "my-club", "title": TITLE, "file": "my-club-rules.txt"}
    stated = data["rules"]["levels"]["up"]["double_down"]["stated"]
    assert stated == {"source": "my-club", "place": "第三條", "quote": "雙下升4級"}
    status, text = cli("diff", str(path), "competition")
    assert status == 0
    heading = "\nlevels.up.double_down — Levels for a double-down (雙下)\n"
    block = text.split(heading)[1].split("\n\n")[0].splitlines()
    assert block[0].split() == ["my-club", "4"]
    assert block[1].strip() == f"stated by {TITLE} (第三條): 雙下升4級"
    # A bundled source is still named by its id.
    assert block[3].strip().startswith("stated by competition (第四條公升級規則): ")


def test_an_inline_text_works_too(tmp_path: Path) -> None:
    inline = TITLED + 'text: "第三條　升級：雙下升4級。", description: A rule sheet.'
    path = club(tmp_path, source=inline, rules=None)
    assert problems(path) == []
    ruleset = load_variant_file(path)
    own = ruleset.source_document
    assert own is not None and own.file is None and own.text == "第三條　升級：雙下升4級。"
    assert "Source: **我的俱樂部摜蛋規則 (my club's rules)**. A rule sheet." in rulebook_page(
        ruleset, []
    )
    assert problems(club(tmp_path, source=inline, quote="雙下升5級", rules=None)) == [
        f"{path}:11:37: levels.up.double_down.stated.quote: "
        "quote not found in source 'my-club': '雙下升5級'"
    ]


def test_quotes_are_matched_as_for_a_bundled_source(tmp_path: Path) -> None:
    """Whitespace is ignored (the text breaks a line inside the quote here), and the parts of
    a quote joined by `…` must appear in order."""
    assert problems(club(tmp_path, quote="升級 雙下升4級")) == []
    assert problems(club(tmp_path, quote="第三條…打到8或者打到A")) == []
    assert len(problems(club(tmp_path, quote="打到8或者打到A…第三條"))) == 1


def test_rules_end_cuts_the_text(tmp_path: Path) -> None:
    source = TITLED + "file: my-club-rules.txt, rules_end: 其餘照常"
    assert problems(club(tmp_path, source=source)) == []
    refused = problems(club(tmp_path, source=source, quote="打到8或者打到A"))
    assert refused == [
        f"{tmp_path / 'my-club.yaml'}:11:37: levels.up.double_down.stated.quote: "
        "quote not found in source 'my-club': '打到8或者打到A'"
    ]
    gone = TITLED + "file: my-club-rules.txt, rules_end: 附錄"
    at = len("source: {" + gone) - 1
    assert problems(club(tmp_path, source=gone)) == [
        f"{tmp_path / 'my-club.yaml'}:4:{at}: source.rules_end: not found in the text: '附錄'"
    ]


def test_the_text_is_read_again_when_it_changes(tmp_path: Path) -> None:
    """Nothing caches a variant file's own text: a corrected text is read as it is now."""
    path = club(tmp_path, rules="第三條　雙下升3級\n")
    assert len(problems(path)) == 1
    with pytest.raises(DataError):
        load_variant_file(path)
    (tmp_path / "my-club-rules.txt").write_text(RULES, encoding="utf-8")
    assert problems(path) == []
    assert load_variant_file(path).source_document is not None


# ---------------------------------------------------------------------------------------------
# A quote not found is refused at the quote


def test_a_typo_in_one_quote_is_refused_at_that_quote(tmp_path: Path) -> None:
    path = club(tmp_path, quote="雙下升5級")
    assert problems(path) == [
        f"{path}:11:37: levels.up.double_down.stated.quote: "
        "quote not found in source 'my-club': '雙下升5級'"
    ]


def test_each_quote_is_placed_at_its_own_line_and_column(tmp_path: Path) -> None:
    """Two clauses, an option and a quote in block style: only the wrong quotes are refused,
    each where it is written."""
    text = (
        "id: two\ntitle: t\ntitle_zh: t\n"  # lines 1-3
        "source: {title: T, file: my-club-rules.txt}\n"  # 4
        "extends: base\n"  # 5
        "options:\n"  # 6
        "  target:\n"  # 7
        "    sets: levels.final\n"  # 8
        "    description: d\n"  # 9
        '    choices: ["8", "A"]\n'  # 10
        "    stated: {place: 第三條, quote: 打到8或打到A}\n"  # 11: the quote from column 33
        "rules:\n"  # 12
        "  levels:\n"  # 13
        "    up:\n"  # 14
        "      double_down:\n"  # 15
        "        value: 4\n"  # 16
        "        stated:\n"  # 17
        "          place: 第三條\n"  # 18
        "          quote: >-\n"  # 19: a folded quote starts at its indicator
        "            雙下升四級\n"  # 20
        "      first_and_third:\n"  # 21
        "        stated: {place: 第三條, quote: 其餘照常}\n"  # 22: found
    )
    (tmp_path / "my-club-rules.txt").write_text(RULES, encoding="utf-8")
    path = tmp_path / "two.yaml"
    path.write_text(text, encoding="utf-8")
    assert problems(path) == [
        f"{path}:19:18: levels.up.double_down.stated.quote: "
        "quote not found in source 'two': '雙下升四級'",
        f"{path}:11:33: options.target.stated.quote: "
        "quote not found in source 'two': '打到8或打到A'",
    ]


# ---------------------------------------------------------------------------------------------
# A clause may name another source


def test_a_clause_may_quote_a_bundled_source_by_id(tmp_path: Path) -> None:
    """`stated.source` names a bundled source even in a file with its own; a wrong quote from
    it is refused at the quote, an unknown id at the id."""
    body = (
        "      first_and_third:\n"
        "        value: 2\n"
        "        stated: {source: competition, place: 第四條, quote: 贏家公升2級}\n"
    )
    path = club(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8")
    assert problems(path) == []
    ruleset = load_variant_file(path)
    assert ruleset.clause("levels.up.first_and_third").provenance.source == "competition"
    assert set(ruleset.sources) == {"my-club", "competition"}
    wrong = body.replace("贏家公升2級", "贏家公升9級")
    path.write_text(club(tmp_path).read_text(encoding="utf-8") + wrong, encoding="utf-8")
    assert problems(path) == [
        f"{path}:14:58: levels.up.first_and_third.stated.quote: "
        "quote not found in source 'competition': '贏家公升9級'"
    ]
    unknown = body.replace("competition", "nowhere")
    path.write_text(club(tmp_path).read_text(encoding="utf-8") + unknown, encoding="utf-8")
    assert problems(path) == [
        f"{path}:14:26: levels.up.first_and_third.stated.source: unknown source 'nowhere'"
    ]


def test_a_variant_extending_a_clubs_file_keeps_its_quotes_and_may_name_them(
    tmp_path: Path,
) -> None:
    """Clauses inherited from a club's file keep its source; the extending file names it by
    that variant's id."""
    club(tmp_path)
    child = tmp_path / "my-club-kids.yaml"
    child.write_text(
        "id: my-club-kids\ntitle: t\ntitle_zh: t\nsource: competition\nextends: my-club\n"
        "rules:\n  levels:\n    up:\n      first_and_fourth:\n"
        "        stated: {source: my-club, place: 第三條, quote: 其餘照常}\n",
        encoding="utf-8",
    )
    assert problems(child) == []
    ruleset = load_variant_file(child)
    assert ruleset.source == "competition"
    assert ruleset.clause("levels.up.double_down").provenance.source == "my-club"
    assert ruleset.clause("levels.up.first_and_fourth").provenance.source == "my-club"
    cited = ruleset.cited("my-club")
    assert cited is not None and cited.own and cited.title == TITLE


def test_two_own_sources_under_one_id_are_refused(tmp_path: Path) -> None:
    """An own source is known by its variant's id: a file whose id is taken by the file it
    extends (whose name is not its id) cannot keep both texts apart."""
    club(tmp_path)
    (tmp_path / "my-club.yaml").rename(tmp_path / "parent.yaml")
    path = club(tmp_path, rules=None)
    text = path.read_text(encoding="utf-8").replace("extends: base", "extends: parent")
    path.write_text(text, encoding="utf-8")
    assert problems(path) == [
        f"{path}:4:9: source: this file's own source is known by its id 'my-club', which a "
        "variant it extends gives to an own source too; give the variants distinct ids"
    ]


def test_an_unknown_source_id_says_what_a_source_may_be(tmp_path: Path) -> None:
    """The README's old example, `source: my-club`, names no source: the message says what
    a source may be."""
    path = tmp_path / "old.yaml"
    text = "id: old\ntitle: t\ntitle_zh: t\nsource: my-club\nextends: base\n"
    path.write_text(text, encoding="utf-8")
    [message] = problems(path)
    assert message.startswith(f"{path}:4:9: source: unknown source 'my-club'; expected one of")
    assert "`source: {title: ..., file: FILE}`" in message


# ---------------------------------------------------------------------------------------------
# What cannot be read is a located problem at the `file` value

# Where the `file` value starts: line 4, after `source: {title: "...", file: `.
FILE_AT = f"4:{len('source: {' + TITLED + 'file: ') + 1}"

REFUSED: list[tuple[str, str, str | bytes | None, str, str]] = [
    # (name, the source mapping, the text file, where, the message's words)
    ("missing", "file: my-club-rules.txt", None, FILE_AT, "my-club-rules.txt: cannot read: No "),
    ("absolute", "file: /etc/passwd", RULES, FILE_AT, "neither absolute nor through `..`"),
    ("dot-dot", "file: ../my-club-rules.txt", RULES, FILE_AT, "found '../my-club-rules.txt'"),
    ("dot-dot-inside", "file: sub/../my-club-rules.txt", RULES, FILE_AT, "through `..`"),
    ("backslash", "file: 'sub\\x.txt'", RULES, FILE_AT, "with `/` between folders"),
    (
        "not-utf8",
        "file: my-club-rules.txt",
        "第三條\n雙下".encode() + b"\xff\n",
        FILE_AT,
        "source.file: my-club-rules.txt:2:3: not UTF-8 text: byte 0xff (invalid start byte)",
    ),
    ("a-folder", "file: .", RULES, FILE_AT, "source.file: .: cannot read: "),
    ("both", "file: my-club-rules.txt, text: 雙下升4級", RULES, "4:9", "exactly one of `file`"),
    ("neither", "description: d", RULES, "4:9", "give exactly one of `file` (a text file) or"),
    (
        "unknown-key",
        "file: my-club-rules.txt, url: x",
        RULES,
        f"4:{len('source: {' + TITLED + 'file: my-club-rules.txt, ') + 1}",
        "source.url: unknown key 'url'",
    ),
]


@pytest.mark.parametrize(
    ("name", "source", "rules", "where", "words"), REFUSED, ids=[r[0] for r in REFUSED]
)
def test_a_source_that_cannot_be_read_is_a_located_problem(
    tmp_path: Path, name: str, source: str, rules: str | bytes | None, where: str, words: str
) -> None:
    path = club(tmp_path, source=TITLED + source, rules=rules)
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:{where}: "), found
    assert words in found[0], found
    with pytest.raises(DataError):
        load_variant_file(path)


def test_a_source_without_a_title_is_refused(tmp_path: Path) -> None:
    path = club(tmp_path, source="file: my-club-rules.txt")
    assert problems(path) == [f"{path}:4:9: source: missing required key 'title'"]


def test_a_file_too_large_is_refused_unread(tmp_path: Path) -> None:
    path = club(tmp_path, rules=None)
    with (tmp_path / "my-club-rules.txt").open("wb") as fh:
        fh.truncate(10_000_001)
    assert problems(path) == [
        f"{path}:{FILE_AT}: source.file: my-club-rules.txt: larger than 10,000,000 bytes; "
        "refused unread"
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A link would let a variant file probe any file through its quotes: one leading out of
    the variant file's folder is refused; one inside it is followed."""
    outside = tmp_path / "secret.txt"
    outside.write_text(RULES, encoding="utf-8")
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / "my-club-rules.txt").symlink_to(outside)
    path = club(folder, rules=None)
    assert problems(path) == [
        f"{path}:{FILE_AT}: source.file: 'my-club-rules.txt' leads out of this variant file's "
        "folder (through a link)"
    ]
    (folder / "texts").mkdir()
    (folder / "texts" / "rules.txt").write_text(RULES, encoding="utf-8")
    (folder / "my-club-rules.txt").unlink()
    (folder / "my-club-rules.txt").symlink_to(folder / "texts" / "rules.txt")
    assert problems(path) == []
    assert problems(club(folder, source=TITLED + "file: texts/rules.txt", rules=None)) == []


def test_the_real_command_shows_no_traceback(tmp_path: Path) -> None:
    path = club(tmp_path, rules=None)
    result = run_guandan("validate", str(path))
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout.splitlines() == [
        f"{path}:{FILE_AT}: source.file: my-club-rules.txt: cannot read: No such file or directory",
        "1 problem in 1 file",
    ]
