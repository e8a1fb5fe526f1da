"""`guandan rulebook` and `guandan diff --only-different` as a reader gets them: the PDF in
each language read back with poppler (pdftotext, pdftoppm), the Markdown and HTML forms, a
variant file of one's own, and the differences for players (issue 26)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.frontends.cli import main
from harness.model.loader import load_variant, variant_slugs
from harness.rulebook.language import LANGS, Lang
from harness.rulebook.templates import Context, render, tables
from tests.conftest import system_tool


def _poppler(tool: str) -> str:
    """A poppler tool's path; skipped where it is absent, except on CI, which installs it."""
    return system_tool(tool, "poppler-utils")


def _run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(args), out)
    return code, out.getvalue()


def chapter_titles(lang: Lang, slug: str | None = None) -> list[str]:
    """The chapter titles of the tables, in the rulebook's order, in `lang`; with `slug`, only
    those its variant's book has (a variant that does not score has no scoring chapter)."""
    table = tables()
    chapters = table.chapters
    if slug is not None:
        values = {cid: c.value for cid, c in load_variant(slug).clauses.items()}
        chapters = tuple(c for c in chapters if not c.omitted(values))
    return [render(c.title, None, Context(lang, table, {})) for c in chapters]


# What the acceptance asks each language's huaian PDF to hold.
TERMS = {
    Lang.ZH_HANS: ["逢人配", "双下", "进贡", "抗贡", "头游"],
    Lang.ZH_HANT: ["雙下", "進貢", "抗貢"],
    Lang.EN: ["tribute", "wild", "double-down"],
}


class _Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_acceptance_command_writes_a_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`guandan rulebook huaian --lang zh-Hans --format pdf -o r.pdf` (the site's PDFs, read
    below in every language, are made by the same code); at a terminal, its live line says
    each stage (issue 49: 12 to 19 s a book in silence)."""
    pdf = tmp_path / "r.pdf"
    terminal = _Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, _ = _run("rulebook", "huaian", "--lang", "zh-Hans", "--format", "pdf", "-o", str(pdf))
    assert code == 0 and pdf.read_bytes().startswith(b"%PDF")
    stages = [s.strip() for s in terminal.getvalue().split("\r") if s.strip()]
    assert [s.removeprefix("rulebook: huaian in zh-Hans: ") for s in stages[:3]] == [
        "reading the cases",
        "building the book",
        "laying out the pages",
    ], stages
    assert re.fullmatch(r"rulebook: huaian in zh-Hans: writing \d+ pages as PDF", stages[3])
    assert len(stages) == 4 and terminal.getvalue().endswith(" \r"), "erased at the end"
    _check_pdf(pdf, Lang.ZH_HANS, tmp_path)


@pytest.mark.slow
def test_a_pdf_goes_to_standard_output_through_a_pipe(tmp_path: Path) -> None:
    """`-o -` is standard output for a PDF too (issue 50): through a pipe the bytes, whole;
    at a terminal a usage error, exit 2, no bytes (nothing is laid out first)."""
    done = subprocess.run(
        [sys.executable, "-m", "harness.frontends.cli", "rulebook", "huaian", "--format",
         "pdf", "-o", "-", "--quiet"],
        capture_output=True, timeout=600, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"%PDF") and done.stdout.rstrip().endswith(b"%%EOF")
    code, printed = _run("rulebook", "huaian", "--format", "pdf", "-o", "-", "--quiet")
    assert code == 2 and printed == ""


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS, ids=str)
def test_the_sites_pdfs_hold_the_chapters_and_terms_and_render(
    site: Path, tmp_path: Path, lang: Lang
) -> None:
    _check_pdf(site / "pdf" / f"huaian.{lang.value}.pdf", lang, tmp_path)


def _check_pdf(pdf: Path, lang: Lang, tmp_path: Path) -> None:
    """An A4 PDF of several pages: its text holds every chapter heading, in play order, and
    the terms of the language; its first two pages render to PNG; its fonts are embedded."""
    pdftotext, pdftoppm = _poppler("pdftotext"), _poppler("pdftoppm")
    text = subprocess.run(
        [pdftotext, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.count("\f")
    assert pages >= 4, pages
    for term in TERMS[lang]:
        assert term in text, term
    # Each chapter in the contents and then as a heading ("3. 牌的大小与主牌"), in the tables'
    # order; the front matter (terms, options, contents) may take more than one page.
    titles = [f"{n}. {title}" for n, title in enumerate(chapter_titles(lang, "huaian"), 1)]
    listed = [text.find(t) for t in titles]
    places = [text.rfind(t) for t in titles]
    assert -1 not in listed and listed == sorted(listed), listed
    assert places == sorted(places) and places[0] > listed[-1], places
    info = subprocess.run(
        [_poppler("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    assert "595.276 x 841.89 pts (A4)" in info
    fonts = subprocess.run(
        [_poppler("pdffonts"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    if lang.chinese:
        cjk = [line for line in fonts.splitlines() if "CJK" in line]
        assert cjk and all(" yes " in line for line in cjk), fonts
    shots = tmp_path / lang.value
    subprocess.run(
        [pdftoppm, "-png", "-r", "50", "-f", "1", "-l", "2", str(pdf), str(shots)], check=True
    )
    pngs = sorted(tmp_path.glob(f"{lang.value}-*.png"))
    assert len(pngs) == 2 and all(p.stat().st_size > 2_000 for p in pngs)


def test_the_first_page_states_the_options_chosen() -> None:
    """`--option target=8`: the title page (before the first chapter) says the match is
    played to 8, in the words of the rule it sets."""
    code, text = _run(
        "rulebook", "huaian", "--option", "target=8", "--lang", "en", "--format", "html"
    )
    assert code == 0
    front = text.split('<section class="gd-front">')[1].split("</section>")[0]
    options = front.split("Options of this rulebook")[1]
    options = options.split("<nav")[0]
    # The rule as chosen first, the other choice after it; never the option's identifier.
    assert options.index("played up to level 8") < options.index("played up to level A")
    assert "target" not in options


@pytest.mark.parametrize("slug", variant_slugs())
@pytest.mark.parametrize("lang", LANGS, ids=str)
def test_every_rulebook_has_its_chapters_in_play_order(slug: str, lang: Lang) -> None:
    """Dealing, then tribute (it decides who leads every round after the first), then
    combinations and play, levels, the end of the match and conduct; scoring last, and only
    in the one variant whose source scores (online-app, 7.計分規則)."""
    code, text = _run("rulebook", slug, "--lang", lang.value)
    assert code == 0
    table = tables()
    ids = [c.id for c in table.chapters]
    titles = dict(zip(ids, chapter_titles(lang), strict=True))
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    found = [i for i in ids if any(h.endswith(f" {titles[i]} {{#chapter-{i}}}") for h in headings)]
    order = ["dealing", "tribute", "combinations", "play", "levels", "match_end", "conduct"]
    assert [i for i in found if i in order] == order, found
    assert ("scoring" in found) == (slug == "online-app"), found
    assert found[-1] == ("scoring" if slug == "online-app" else "conduct")
    # The chapters are numbered as printed, from 1 without a gap.
    numbers = [h.split(".")[0][3:] for h in headings if h[3:4].isdigit()]
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)]


def test_a_variant_file_of_ones_own_gets_its_own_words(tmp_path: Path) -> None:
    """huaian with a double-down worth 4: its rulebook says 4, in every language."""
    own = tmp_path / "my-club.yaml"
    own.write_text(
        "id: my-club\nextends: huaian\ntitle: My club\ntitle_zh: 我的俱樂部\nrules:\n"
        "  levels:\n    up:\n      double_down:\n"
        '        {value: 4, assumed: {reason: "our club\'s rule", alternatives: ["3"]}}\n',
        encoding="utf-8",
    )
    for lang in LANGS:
        code, text = _run("rulebook", str(own), "--lang", lang.value)
        assert code == 0, text
        rule = text.split('<a id="levels.up.double_down"></a>')[1].split("\n")[0]
        assert "4" in rule and "3" not in rule, rule


def test_html_is_one_document_with_contents_and_notes() -> None:
    code, text = _run("rulebook", "competition", "--lang", "zh-Hant", "--format", "html")
    assert code == 0
    assert text.startswith("<!DOCTYPE html>") and '<html lang="zh-Hant">' in text
    assert 'class="gd-toc"' in text and 'href="#chapter-tribute"' in text
    assert 'class="footnote"' in text and "gd-stated" in text and "gd-assumed" in text
    assert "<svg" in text  # the bomb ladder


def test_a_pdf_needs_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _run("rulebook", "huaian", "--format", "pdf")
    assert code == 2 and "give -o FILE.pdf" in capsys.readouterr().err


def test_diff_only_different_lists_the_double_down_and_nothing_equal() -> None:
    """`guandan diff huaian match-rules --only-different`: levels.up.double_down with both
    sentences, and no clause whose values are equal."""
    from harness.model.loader import load_variant

    a, b = load_variant("huaian"), load_variant("match-rules")
    code, text = _run("diff", "huaian", "match-rules", "--only-different")
    assert code == 0
    listed = [line.split(" ")[0] for line in text.splitlines() if line and line[0] != " "]
    listed = [x for x in listed if "." in x]
    assert "levels.up.double_down" in listed
    assert all(a.clause(cid).value != b.clause(cid).value for cid in listed)
    block = text.split("levels.up.double_down")[1].split("\n\n")[0]
    assert "4" in block.split("match-rules")[1].split("\n")[0]
    assert "3" in block.split("huaian")[1].split("\n")[0]
    code, data = _run(
        "diff", "huaian", "match-rules", "--only-different", "--lang", "zh-Hans", "--format", "json"
    )
    found = {c["id"]: c for c in json.loads(data)["clauses"]}
    assert "双下" in found["levels.up.double_down"]["sentences"]["match-rules"]
    assert found["levels.up.double_down"]["cases"]


def test_without_weasyprint_a_pdf_is_a_clear_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where WeasyPrint (or Pango under it) is missing, the error says what to install, and
    no file is left behind."""
    import sys

    monkeypatch.setitem(sys.modules, "weasyprint", None)  # `import weasyprint` raises
    pdf = tmp_path / "r.pdf"
    code, _ = _run("rulebook", "huaian", "--format", "pdf", "-o", str(pdf))
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'guandan-harness[pdf]'" in err and "libpango" in err
    assert not pdf.exists()
