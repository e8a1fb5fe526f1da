"""A club's variant file is data in every book (issue 50): a title, a reason, an alternative
that hold HTML, a script, a handler attribute, a `javascript:` link or a Markdown attribute list
come out as the text they are, in the Markdown and the HTML rulebook, in every language."""

from __future__ import annotations

import html.parser
import io
import json
import re
from pathlib import Path

import markdown as markdown_lib
import pytest
from _pytest.capture import CaptureFixture

from harness.frontends.cli import main

TITLE = "X<script>alert(1)</script><img src=x onerror=alert(2)> [a](javascript:alert(3))"
TITLE_ZH = "淮安<script>alert(4)</script>{onclick=alert(7)}"
REASON = (
    "see [l](javascript:alert(13)) <b onmouseover=alert(5)>x</b> *em* `t` | p {onclick=alert(8)}"
)
OTHER = "3 <i>y</i> [m](javascript:alert(6)) ![p](javascript:alert(9))"

HOSTILE = f"""id: huaian-hostile
extends: huaian
title: {TITLE!r}
title_zh: {TITLE_ZH!r}
rules:
  levels:
    up:
      double_down: {{value: 4, assumed: {{reason: {REASON!r}, alternatives: [{OTHER!r}]}}}}
"""


class _Live(html.parser.HTMLParser):
    """What in an HTML document would run or lead away: elements, handler attributes, link
    targets; and the text a reader sees."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.handlers: list[str] = []
        self.targets: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(f"{tag} {name}={value}")
            if name in ("href", "src", "xlink:href", "action", "formaction"):
                self.targets.append(value or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _live(page: str) -> _Live:
    found = _Live()
    found.feed(page)
    found.close()
    return found


def _safe_target(target: str) -> bool:
    """A link target that leads to a page: http, https, or relative (an anchor)."""
    scheme, sep, _ = target.partition(":")
    return not sep or "/" in scheme or "#" in scheme or scheme.lower() in ("http", "https")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    path = tmp_path / "huaian-hostile.yaml"
    path.write_text(HOSTILE, encoding="utf-8")
    return path


def _book(hostile: Path, fmt: str, lang: str, tmp_path: Path, capsys: CaptureFixture[str]) -> str:
    out = tmp_path / f"book-{lang}.{fmt}"
    code = main(["rulebook", str(hostile), "--format", fmt, "--lang", lang, "-o", str(out),
                 "--quiet"], io.StringIO())  # fmt: skip
    assert code == 0, capsys.readouterr().err
    return out.read_text(encoding="utf-8")


def _check_page(page: str, title: str) -> None:
    live = _live(page)
    assert "script" not in live.tags and "img" not in live.tags and "i" not in live.tags
    assert "b" not in live.tags and "em" not in live.tags
    assert live.handlers == []
    assert [t for t in live.targets if not _safe_target(t)] == []
    seen = " ".join("".join(live.text).split())
    # The hostile words are there, as text the reader sees.
    assert title in seen
    assert "[l](javascript:alert(13)) <b onmouseover=alert(5)>x</b> *em* `t` | p" in seen
    assert "{onclick=alert(8)}" in seen
    assert "3 <i>y</i> [m](javascript:alert(6)) ![p](javascript:alert(9))" in seen


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
def test_the_html_rulebook_shows_a_hostile_variant_as_text(
    hostile: Path, tmp_path: Path, capsys: CaptureFixture[str], lang: str
) -> None:
    page = _book(hostile, "html", lang, tmp_path, capsys)
    _check_page(page, TITLE if lang == "en" else "<script>alert(4)</script>{onclick=alert(7)}")


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
def test_the_markdown_rulebook_carries_no_live_markup(
    hostile: Path, tmp_path: Path, capsys: CaptureFixture[str], lang: str
) -> None:
    """The Markdown book holds no raw HTML of the variant's, and read as the site reads it
    (Python-Markdown with the site's extensions), it is the text again."""
    from harness.rulebook.printed import EXTENSIONS

    text = _book(hostile, "md", lang, tmp_path, capsys)
    assert "<script" not in text and "<img" not in text and "<b " not in text
    # A link's brackets only escaped (`\\]`), so that none is made.
    assert re.search(r"(?<!\\)\]\(javascript:", text) is None
    _check_page(
        markdown_lib.markdown(text, extensions=EXTENSIONS),
        TITLE if lang == "en" else "<script>alert(4)</script>{onclick=alert(7)}",
    )


LINE_BREAKING = """id: huaian-breaks
extends: huaian
title: t
title_zh: t
rules:
  "no\\u2028key": 1
  "nel\\x85key": 1
options:
  "o\\u2029p": {sets: x, default: 1}
"""


def test_validate_shows_line_separators_escaped(tmp_path: Path) -> None:
    """A key holding U+2028, U+2029 or NEL (which end a line for a terminal's reader and for
    `str.splitlines`) is echoed escaped: every problem is one line."""
    path = tmp_path / "huaian-breaks.yaml"
    path.write_text(LINE_BREAKING, encoding="utf-8")
    out = io.StringIO()
    assert main(["validate", str(path)], out) == 1
    text = out.getvalue()
    assert not {"\u2028", "\u2029", "\x85"} & set(text), text
    assert "no\\u2028key" in text and "o\\u2029p" in text and "nel\\x85key" in text
    assert all(line.startswith(str(path)) for line in text.splitlines()[:-1]), text


# Markup that, were it live, would mark the page when a browser runs it.
MARK = "document.body.setAttribute('data-pwned','{}')"
MARKED_TITLE = f"<script>document.title='PWNED'</script><img src=x onerror=\"{MARK.format(1)}\">"
MARKED_REASON = f'<iframe src="javascript:parent.{MARK.format(3)}"></iframe>'
MARKING = f"""id: huaian-marking
extends: huaian
title: {json.dumps(MARKED_TITLE)}
title_zh: {json.dumps(f'<svg onload="{MARK.format(2)}"></svg>')}
rules:
  levels:
    up:
      double_down:
        value: 4
        assumed:
          reason: {json.dumps(MARKED_REASON)}
          alternatives: [{json.dumps(f"[x](javascript:{MARK.format(4)})")}]
"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh-Hant"])
def test_a_browser_runs_nothing_of_a_hostile_variant(
    tmp_path: Path, capsys: CaptureFixture[str], lang: str
) -> None:
    """The HTML book opened in headless Chromium: no script of the variant's ran (the page's
    title and body are as the book made them), and the hostile words are on the page as text."""
    from tests.browser import load

    path = tmp_path / "huaian-marking.yaml"
    path.write_text(MARKING, encoding="utf-8")
    page = _book(path, "html", lang, tmp_path, capsys)
    dom, _console = load((tmp_path / f"book-{lang}.html").as_uri())
    assert page  # the book was written
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
    assert "<title>PWNED</title>" not in dom
    live = _live(dom)
    assert live.handlers == [] and "script" not in live.tags and "iframe" not in live.tags
    assert "document.body.setAttribute" in "".join(live.text)
