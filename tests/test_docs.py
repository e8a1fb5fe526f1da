"""The documentation site: built strictly from the data, rulebooks, the comparison matrix, the
difference pages, an anchor for every clause, cards drawn as cards, and a headless browser."""

from __future__ import annotations

import functools
import html
import http.server
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.model.loader import clause_specs, load_variant, variant_slugs
from tests import browser, markdown_check

ROOT = Path(__file__).resolve().parents[1]


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_the_home_pages_tour_is_links() -> None:
    """Each part of the site the home page's list names is a link to it, not bold text alone
    (issue 51: "Variants in play" and "Conformance" were not)."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    items = re.findall(r"^- \*\*(.+?)\*\*", text, re.M)
    assert len(items) >= 5
    assert [i for i in items if not re.fullmatch(r"\[[^\]]+\]\([^)]+\)", i)] == []


def test_the_theme_prints_no_banner(tmp_path: Path) -> None:
    """`mkdocs build` with the site's theme, as installed (CI checks both ends of its range),
    prints mkdocs's own lines and nothing else: no end-of-life banner (issue 51). A one-page
    site, so that the fast tier checks it; the whole site's build is checked line by line too."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# t\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: material\n")
    env = {k: v for k, v in os.environ.items() if "MKDOCS" not in k}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert said and all(line.startswith("INFO") for line in said), said


@pytest.mark.slow
def test_the_build_says_each_stage_as_it_begins(site_build: tuple[Path, list[str]]) -> None:
    """The build takes minutes: its log says what it is making, stage by stage, between
    mkdocs's own first lines and its last (`mkdocs build -q` hides them)."""
    _, said = site_build
    stages = [line.split("guandan: ", 1)[1] for line in said if "INFO    -  guandan: " in line]
    slugs = variant_slugs()
    assert stages[0].startswith("the pages made from the data"), stages
    strength = [s for s in stages if s.startswith("the Corpus strength page: ")]
    assert [s.rsplit(" ", 1)[1] for s in strength] == slugs, stages
    pdfs = [s for s in stages if s.startswith("rulebook PDF ")]
    assert len(pdfs) == 3 * len(slugs) and pdfs[-1].startswith(f"rulebook PDF {len(pdfs)}/")
    conformance = next(i for i, s in enumerate(stages) if s.startswith("the Conformance page: "))
    # Then the try-it panel's files (after `npm ci` where the runtime was not installed).
    panel = stages[conformance + 1 :]
    assert panel and all(s.startswith("the try-it panel: ") for s in panel), stages
    assert panel[-1].startswith("the try-it panel: the package, the variants"), stages
    first = next(i for i, line in enumerate(said) if "guandan: " in line)
    assert "Building documentation" in said[first - 1]
    assert "Documentation built" in said[-1]


def test_nothing_generated_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "docs", "site"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    generated = [
        p
        for p in tracked
        if p.startswith(
            ("docs/rulebooks", "docs/comparison", "docs/cases", "docs/reference", "site/")
        )
    ]
    assert generated == []


@pytest.mark.slow
@pytest.mark.parametrize("slug", variant_slugs())
def test_a_specification_per_variant_with_an_anchor_for_every_clause(site: Path, slug: str) -> None:
    """The clause-by-clause reference of each variant: ids, values, quotes, examples."""
    text = page(site, f"specification/{slug}")
    ruleset = load_variant(slug)
    missing = [cid for cid in ruleset.clauses if f'id="{cid}"' not in text]
    assert missing == []
    chapters = re.findall(r'<h2 id="[^"]*">([A-Z][a-z]+)', text)
    assert chapters[-8:] == [
        "Cards",
        "Combinations",
        "Comparison",
        "Play",
        "Finishing",
        "Levels",
        "Tribute",
        "Scoring",
    ]
    stated = next(c for c in ruleset.clauses.values() if c.stated)
    assert stated.provenance.quote is not None
    assert stated.provenance.quote.split("…")[0][:12] in text
    assert "Assumed: the source is silent or unclear" in text
    assert f'href="../../rulebooks/{slug}/"' in text


@pytest.mark.slow
@pytest.mark.parametrize("slug", variant_slugs())
@pytest.mark.parametrize("lang", ["", "zh-Hans/", "zh-Hant/"])
def test_a_players_rulebook_per_variant_and_language(site: Path, slug: str, lang: str) -> None:
    """Each rule of the variant anchored by its clause id, with its mark and note; the other
    languages, the PDF and the specification a click away; the PDF is on the site."""
    text = page(site, f"{lang}rulebooks/{slug}")
    ruleset = load_variant(slug)
    missing = [cid for cid in ruleset.clauses if f'id="{cid}"' not in text]
    assert missing == []
    assert 'class="gd-mark gd-stated"' in text and 'class="footnote"' in text
    assert 'class="gd-langs"' in text
    for other in ("English", "简体中文", "繁體中文"):
        assert other in text
    tag = lang.rstrip("/") or "en"
    assert f"pdf/{slug}.{tag}.pdf" in text
    assert (site / "pdf" / f"{slug}.{tag}.pdf").read_bytes().startswith(b"%PDF")
    assert "specification/" in text


@pytest.mark.slow
def test_rulebooks_list_options_with_defaults(site: Path) -> None:
    text = page(site, "specification/huaian")
    assert "Options (開局選項)" in text and "<code>target</code>" in text


@pytest.mark.slow
def test_the_zh_hans_rulebook_keeps_the_sources_words_as_written(site: Path) -> None:
    """The book is simplified, the source's words it quotes are as written (traditional)."""
    text = page(site, "zh-Hans/rulebooks/huaian")
    assert "用两副牌，连大小王共108张。" in text  # the rule, simplified
    assert "「游戲牌數：兩副牌，共108張牌」" in text  # the source's words, as written


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "name", "words"),
    [
        ("zh-Hans", "掼蛋规则与一致性检验", ["规则书", "各规则的差异", "术语表", "其他语言"]),
        ("zh-Hant", "摜蛋規則與一致性檢驗", ["規則書", "各規則的差異", "術語表", "其他語言"]),
    ],
)
def test_a_chinese_page_has_its_languages_header_and_navigation(
    site: Path, lang: str, name: str, words: list[str]
) -> None:
    """The header's site name and the navigation follow the page's language; the English
    site's sections are not in it."""
    for path in (f"{lang}/rulebooks/huaian", f"{lang}/comparison", lang):
        text = page(site, path)
        header = text.split('<header class="md-header')[1].split("</header>")[0]
        assert name in header and "Guandan rules and conformance" not in header
        nav = text.split('<nav class="md-nav md-nav--primary"')[1].split('<div class="md-content"')[
            0
        ]
        for word in words:
            assert word in nav, (path, word)
        for english in ("Guides", "Conformance", "Case catalogue", "Rulebooks"):
            assert english not in nav, (path, english)
    zh = "zh" if lang == "zh-Hans" else "zh-Hant"
    assert f'<html lang="{zh}"' in page(site, f"{lang}/rulebooks/huaian")


def test_the_chinese_navigation_is_all_in_its_language() -> None:
    from harness.frontends.rulebook_pages import LANG_NAMES, site_nav
    from harness.model.loader import bundled_variants
    from harness.rulebook.language import Lang, simplified

    rulesets = {r.slug: r for r in bundled_variants()}
    for lang in (Lang.ZH_HANS, Lang.ZH_HANT):
        entries = site_nav(rulesets, lang)
        titles = [e.title for e in entries] + [c.title for e in entries for c in e.children]
        own = [t for t in titles if t not in LANG_NAMES.values()]
        assert own and not any(re.search(r"[A-Za-z]{3,}", t) for t in own), own
        if lang is Lang.ZH_HANS:
            assert all(simplified(t) == t for t in own), own
        assert {e.path for e in entries[1].children} == {
            f"{lang.value}/rulebooks/{slug}.md" for slug in rulesets
        }


@pytest.mark.slow
def test_the_comparison_matrix_marks_differences(site: Path) -> None:
    text = page(site, "comparison/all")
    assert 'class="gd-matrix"' in text
    rows = re.findall(r"<tr>", text)
    assert len(rows) > len(load_variant("huaian").clauses)
    assert "<strong>≠</strong>" in text
    # A clause id breaks only after a dot: each part is a span the stylesheet keeps whole.
    assert (
        '<code class="gd-id"><span>levels.</span><wbr><span>up.</span><wbr>'
        "<span>double_down</span></code>"
    ) in text
    assert 'href="../../rulebooks/match-rules/#levels.up.double_down"' in text


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["", "zh-Hans/", "zh-Hant/"])
def test_the_comparison_shows_only_the_differences_as_sentences(site: Path, lang: str) -> None:
    text = page(site, f"{lang}comparison")
    assert 'id="levels.up.double_down"' in text
    assert 'id="deck.decks"' not in text  # equal in every variant
    section = text.split('id="levels.up.double_down"')[1].split("<h2")[0]
    assert section.count("<li>") == len(variant_slugs())
    assert "cases/levels/#" in section


@pytest.mark.slow
def test_the_double_down_difference_page(site: Path) -> None:
    """4 in match-rules, 3 elsewhere: the match-rules quote and a case that tells them apart."""
    text = page(site, "comparison/levels-up-double_down")
    assert "如上游的對門為二遊（俗稱雙下），則上游方升4級" in text
    assert "如果是雙下，即結對的兩家是上游、二游，贏家公升3級" in text
    section = text.split("Cases that tell the variants apart")[-1]
    assert re.search(r"Applies to: match-rules\b", section)
    assert re.search(r"Applies to: competition, huaian, online-app", section)


@pytest.mark.slow
def test_cards_are_drawn_as_cards(site: Path) -> None:
    text = page(site, "cases/combos")
    assert '<span class="gd-card gd-red" title="H5">♥5</span>' in text  # a red card
    assert "gd-wild" in text and "逢人配" in text
    assert 'title="HR big joker">大王</span>' in text
    assert 'class="gd-card gd-black"' in text


@pytest.mark.slow
def test_the_catalogue_marks_cases_resting_on_assumptions(site: Path) -> None:
    text = page(site, "cases/tribute")
    said = "Rests on a clause that is only our reading (assumed where the source is silent, or"
    assert f"{said} read into its words) in:</em> huaian" in text


@pytest.mark.slow
def test_reference_pages(site: Path) -> None:
    for path in (
        "reference/notation",
        "reference/protocol",
        "reference/cli",
        "reference/ruleset-schema",
        "reference/case-schema",
        "reference/clauses",
        "guide/engine-authors",
        "cases",
    ):
        assert (site / path / "index.html").exists(), path
    assert "guandan check" in page(site, "reference/cli")
    assert "A worked transcript" in page(site, "reference/protocol")


@pytest.mark.slow
def test_rulebooks_state_how_the_first_deal_is_decided(site: Path) -> None:
    """deal.first_round: the rulebooks give each source's first-deal procedure with its words."""
    assert "第一局牌由坐東方位選手洗牌" in page(site, "rulebooks/match-rules")
    assert "隨機抽張牌正面朝上放在牌堆中" in page(site, "rulebooks/competition")
    assert 'id="deal.first_round"' in page(site, "rulebooks/huaian")


@pytest.mark.slow
def test_clauses_link_to_the_functions_that_apply_them(site: Path) -> None:
    """The clause reference names, for each clause, the functions that apply it, and the
    implementation page has an anchor for each of them."""
    clauses = page(site, "reference/clauses")
    implementation = page(site, "reference/implementation")
    row = clauses.split("<code>tribute.return.max_rank</code>")[1].split("</tr>")[0]
    assert "implementation/#interpreter-tribute-return-cards" in row
    assert 'id="interpreter-tribute-return-cards"' in implementation
    assert "The cards of <code>hand</code> that may be returned" in implementation
    row = clauses.split("<code>timing.play_seconds</code>")[1].split("</tr>")[0]
    assert "prose only" in row


def test_the_wild_card_is_the_variants_wild_suit() -> None:
    """docs draw as wild the level card of the suit in wild.suit, not a fixed heart."""
    from harness.frontends.docs import card_html
    from harness.model.cards import parse_card

    assert "gd-wild" in card_html("S9", parse_card("S9"))
    assert "gd-wild" not in card_html("H9", parse_card("S9"))


@pytest.mark.slow
def test_the_conformance_page_shows_the_reference_on_every_variant(site: Path) -> None:
    """The dashboard page, made at build time by running the reference in process: every
    bundled variant at 100 %, the engine named with its version, styled by both stylesheets."""
    text = page(site, "conformance")
    row = text.split('<table class="gd-dash gd-by-variant">')[1].split("</table>")[0]
    for slug in variant_slugs():
        assert f"<th>{slug}</th>" in row
        assert f"<th>{slug}[…]</th>" in row  # the variants derived from it, in one column
    cells = re.findall(r'<td class="gd-rate gd-rate-(\w+)"[^>]*>([^<]*)<', row)
    assert len(cells) == 2 * len(variant_slugs()) + 1  # each variant, its derived ones, all
    assert set(cells) == {("full", "100 %")}
    assert "guandan-harness reference" in text and "0.1.0" in text
    assert 'class="gd-dash gd-by-family"' in text and 'class="gd-dash gd-by-operation"' in text
    assert "Failures:" not in text
    assert (site / "stylesheets" / "cards.css").exists()
    assert (site / "stylesheets" / "dashboard.css").exists()
    assert "stylesheets/dashboard.css" in text


@pytest.mark.slow
def test_search_index_holds_the_cases(site: Path) -> None:
    index = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "combo-straight-a2345-is-the-lowest-straight" in index


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))

    class Quiet(http.server.ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass

    server = Quiet(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *a: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["comparison/", "comparison/all/", "rulebooks/competition/", "conformance/"]
)
def test_pages_load_in_a_browser_without_console_errors(served: str, path: str) -> None:
    dom, console = browser.load(f"{served}/{path}")
    assert console == []
    if path == "comparison/all/":
        assert 'class="gd-matrix"' in dom and "<table" in dom
        assert "double_down" in dom
    elif path == "comparison/":
        assert 'id="levels.up.double_down"' in dom and 'class="gd-id"' in dom
    elif path == "conformance/":
        assert 'class="gd-dash gd-by-variant"' in dom and "100 %" in dom
    else:
        assert 'id="levels.failures.limit"' in dom and "gd-card" in dom


@pytest.fixture(scope="module")
def data_pages() -> dict[str, str]:
    """The generated pages but the corpus-strength one (tests/test_strength.py reads that)."""
    from harness.frontends.docs import data_pages as pages

    return pages()


def test_every_heading_a_generated_page_writes_is_a_heading(data_pages: dict[str, str]) -> None:
    """Valid Markdown: each heading written is rendered as one, at its level (a heading
    written under a table row without a blank line became a row of the table)."""
    assert len(data_pages) > 30
    for path, text in data_pages.items():
        written = markdown_check.written_headings(text)
        assert written, path
        assert markdown_check.rendered_headings(text) == written, path


@pytest.mark.slow
def test_the_clauses_page_has_one_heading_per_family(site: Path) -> None:
    families = list(dict.fromkeys(cid.split(".")[0] for cid in clause_specs()))
    h2 = [
        words
        for level, words in markdown_check.rendered_headings_html(page(site, "reference/clauses"))
        if level == 2
    ]
    assert h2 == families
    assert len(families) > 10


# Run in a copy of a built page: for every distinct font its Chinese text is set in, one Chinese
# character is drawn in that font and compared with a code point no font has (U+0378): a font
# stack without CJK glyphs draws both as the same empty box. The verdicts replace the page.
GLYPH_CHECK = """
<script>
document.fonts.ready.then(() => {
  const draw = (text, font) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 48;
    const pen = canvas.getContext("2d");
    pen.font = font;
    pen.textBaseline = "top";
    pen.fillText(text, 4, 4);
    return pen.getImageData(0, 0, 48, 48).data.join(",");
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Map();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const found = node.data.match(/[\\u3400-\\u9fff]/);
    if (!found || !node.parentElement) continue;
    const style = getComputedStyle(node.parentElement);
    const font = `${style.fontStyle} ${style.fontWeight} 32px ${style.fontFamily}`;
    if (!seen.has(font)) {
      const glyph = draw(found[0], font);
      seen.set(font, {char: found[0], font, boxed: glyph === draw("\\u0378", font),
                      blank: glyph === draw("", font)});
    }
  }
  const pre = document.createElement("pre");
  pre.id = "glyph-verdicts";
  pre.textContent = JSON.stringify([...seen.values()]);
  document.body.replaceChildren(pre);
});
</script>
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["rulebooks/competition", "zh-Hans/rulebooks/huaian", "zh-Hans/comparison"]
)
def test_chinese_is_drawn_in_real_glyphs_not_boxes(
    site: Path, served: str, path: str, tmp_path: Path
) -> None:
    """The site's font stack finds CJK glyphs (CI installs Debian's fonts-noto-cjk): in the
    rulebooks (English and zh-Hans) and the zh-Hans comparison page every font that sets
    Chinese text draws a real glyph, and a screenshot of each page is taken as a person would
    see it."""
    picture = browser.screenshot(f"{served}/{path}/", tmp_path / "page.png")
    keep(picture, f"{path.replace('/', '-')}.png")
    assert picture.read_bytes().startswith(b"\x89PNG")
    probe = site / path / "glyph-check.html"
    probe.write_text(page(site, path).replace("</body>", GLYPH_CHECK + "</body>"), "utf-8")
    # The page's own console is checked by the test above; emptying it here upsets its scripts.
    dom, _ = browser.load(f"{served}/{path}/glyph-check.html")
    found = re.search(r'<pre id="glyph-verdicts">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    verdicts = json.loads(html.unescape(found.group(1)))
    assert verdicts, "no Chinese text found on the page"
    boxed = [v for v in verdicts if v["boxed"] or v["blank"]]
    assert boxed == [], boxed


# Run in a copy of the Variants in play page: each plot's drawn size, and the boxes the browser
# laid out its texts and axis in (in the plot's own units), replace the page.
PLOT_CHECK = """
<script>
window.addEventListener("load", () => {
  const plots = [...document.querySelectorAll("svg.play-plot")].map((svg) => {
    const boxes = (css) => [...svg.querySelectorAll(css)].map((element) => {
      const box = element.getBBox();
      const style = getComputedStyle(element);
      const shown = style.display !== "none" && style.visibility === "visible"
        && Number(style.opacity) > 0 && !!(style.fill !== "none" || style.stroke !== "none");
      return {left: box.x, right: box.x + box.width, top: box.y, bottom: box.y + box.height,
              text: element.textContent, shown};
    });
    const screen = svg.getBoundingClientRect();
    return {
      statistic: svg.dataset.statistic, kind: svg.dataset.kind,
      width: svg.viewBox.baseVal.width, height: svg.viewBox.baseVal.height,
      screen: {width: screen.width, height: screen.height},
      area: boxes("rect.plot-area")[0], axis: boxes("line.axis"), marks: boxes("line.tick"),
      ticks: boxes("text.tick-label"), unit: boxes("text.unit"), titles: boxes("text.plot-title"),
      labels: boxes("text.label"), values: boxes("text.value"),
      dots: svg.querySelectorAll("circle.estimate").length,
      caps: svg.querySelectorAll("line.cap").length, text: svg.textContent,
    };
  });
  // Where the code in a table cell (a clause id, a value) goes on to a new line: the characters
  // either side of each break, found from where each character is laid out.
  const breaks = [];
  for (const code of document.querySelectorAll("td code")) {
    const range = document.createRange();
    let top = null, before = "";
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (top !== null && box.top > top + 2) {
          breaks.push({code: code.textContent, before, after: node.data[i]});
        }
        top = box.top;
        before = node.data[i];
      }
    }
  }
  const pre = document.createElement("pre");
  pre.id = "plots";
  pre.textContent = JSON.stringify({plots, breaks});
  document.body.replaceChildren(pre);
});
</script>
"""


def keep(picture: Path, name: str) -> None:
    """A screenshot kept where `GUANDAN_SCREENSHOTS` says, to look at."""
    if os.environ.get("GUANDAN_SCREENSHOTS"):
        shutil.copy(picture, Path(os.environ["GUANDAN_SCREENSHOTS"]) / name)


@pytest.mark.slow
def test_the_play_plots_are_drawn_in_the_browser(site: Path, served: str, tmp_path: Path) -> None:
    """Every SVG plot of Variants in play, as the browser lays it out (in the faces it found):
    no label overflows the label column into the plot area, no title or value the plot; the
    axis, its ticks, their numbers (apart, each readable) and the unit are drawn and visible;
    the plots of one statistic are drawn at one size on the page, so at one scale; and the
    labels are whole text: the four variants, each attributed clause. In the tables under the
    plots, a clause id or a value breaks only between its words."""
    picture = browser.screenshot(f"{served}/variants-in-play/", tmp_path / "page.png", "1280,4000")
    keep(picture, "variants-in-play.png")
    probe = site / "variants-in-play" / "plot-check.html"
    probe.write_text(
        page(site, "variants-in-play").replace("</body>", PLOT_CHECK + "</body>"), "utf-8"
    )
    dom, _ = browser.load(f"{served}/variants-in-play/plot-check.html", size="1280,1600")
    found = re.search(r'<pre id="plots">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    drawn = json.loads(html.unescape(found.group(1)))
    plots = drawn["plots"]
    assert len(plots) > 10
    sizes: dict[tuple[str, str], set[float]] = {}
    for plot in plots:
        name = (plot["statistic"], plot["kind"])
        assert plot["screen"]["width"] > 300 and plot["screen"]["height"] > 40, name
        assert plot["dots"] >= 1 and plot["caps"] >= 2, name
        area, width = plot["area"], plot["width"]
        for label in plot["labels"]:
            assert label["shown"] and 0 <= label["left"] < label["right"], label
            assert label["right"] <= area["left"], (name, label["text"], label["right"], area)
        for text in plot["values"] + plot["titles"] + plot["unit"] + plot["ticks"]:
            assert text["shown"] and 0 <= text["left"] < text["right"] <= width, (name, text)
        for value in plot["values"]:
            assert value["left"] >= area["right"] or value["text"] == "no sample", value
        (axis,) = plot["axis"]
        assert axis["shown"] and abs(axis["left"] - area["left"]) < 0.5
        assert abs(axis["right"] - area["right"]) < 0.5
        assert len(plot["ticks"]) >= 3 and len(plot["marks"]) == len(plot["ticks"])
        assert all(mark["shown"] and mark["bottom"] > mark["top"] for mark in plot["marks"])
        for one, two in itertools.pairwise(plot["ticks"]):
            assert one["right"] < two["left"], (name, one, two)  # numbers that do not touch
            float(one["text"])
            assert one["top"] >= axis["bottom"], one  # under the axis
        (unit,) = plot["unit"]
        assert unit["text"] and unit["top"] >= plot["ticks"][0]["bottom"]
        sizes.setdefault(name, set()).add(round(plot["screen"]["width"], 1))
    assert all(len(widths) == 1 for widths in sizes.values()), sizes
    first = [label["text"] for label in plots[0]["labels"]]
    assert first == ["huaian", "competition", "match-rules", "online-app"]
    assert any(
        label["text"] == 'disclosure.hand_count = {"max_cards": 6, "mode": "on_request"}'
        for plot in plots
        for label in plot["labels"]
    )
    assert any("levels.up.double_down = 4" in p["text"] for p in plots)
    # The clause tables under the plots: an id or a value that wraps, wraps between its words.
    cut = [b for b in drawn["breaks"] if b["before"] not in "._- " and b["after"] != " "]
    assert cut == []


# The hand-written pages people read in the source tree (GitHub renders them as they are).
HAND_WRITTEN = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "spec").glob("*.md")]
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tree_links(path: Path) -> list[str]:
    """The relative link targets of a Markdown file, outside code blocks, without anchors."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        elif not fenced:
            found += [t for t in LINK.findall(line) if "://" not in t and not t.startswith("#")]
    return [t.split("#")[0] for t in found if not t.startswith("mailto:")]


@pytest.mark.parametrize("path", HAND_WRITTEN, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_work_in_the_source_tree(path: Path) -> None:
    """Every relative link of a hand-written page names a file or folder of the tree (a link
    to a page only the site has is broken where GitHub shows the page)."""
    from harness.frontends.docs import SITE_ONLY

    def site_only(target: str) -> bool:
        under_docs = os.path.relpath(os.path.normpath(path.parent / target), ROOT / "docs")
        return under_docs in SITE_ONLY

    links = tree_links(path)
    broken = [t for t in links if not (path.parent / t).exists() and not site_only(t)]
    assert broken == []


@pytest.mark.slow
def test_tree_links_are_site_pages_on_the_site(site: Path) -> None:
    """Each tree file a hand-written page may link to stands for a page the site has, and the
    build points the links there (the strict build fails on a link it cannot resolve)."""
    from harness.frontends.docs import SITE_ONLY, TREE_TO_SITE, site_links

    for tree, target in TREE_TO_SITE.items():
        assert (ROOT / tree).exists(), tree
        assert (site / target.removesuffix(".md").removesuffix("index")).is_dir(), target
    assert site_links("[a](../variants/huaian.yaml#x)", "index.md") == "[a](rulebooks/huaian.md#x)"
    assert site_links("[p](../../spec/protocol.md)", "guide/engine-authors.md") == (
        "[p](../reference/protocol.md)"
    )
    assert site_links("```\n[p](../../spec/protocol.md)\n```\n", "guide/x.md").count("spec") == 1
    assert site_links("[g](variants.md)", "guide/engine-authors.md") == "[g](variants.md)"
    used = {t for path in HAND_WRITTEN for t in tree_links(path)}
    assert any("../variants/" in t for t in used)
    for target in SITE_ONLY:
        assert (site / target.removesuffix(".md")).is_dir(), target
    home = page(site, "")
    assert 'href="rulebooks/huaian/"' in home and 'href="comparison/"' in home
    # The home page's tour links every part it names (issue 51: two were bold text).
    for target in ("variants-in-play/", "conformance/", "performance/"):
        assert f'href="{target}"' in home, target
