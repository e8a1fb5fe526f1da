"""Generated Markdown read back: the headings a page writes, and the headings Markdown makes of
it with the site's own extensions, so that a test sees a heading a table swallowed."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path
from typing import Any

import markdown
import yaml

ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(\{[^}]*\})?[ \t]*$")


def _plain(text: str) -> str:
    """A heading's words without Markdown's marks (`code`, **bold**, links, HTML)."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"\s+", " ", re.sub(r"[`*_\\]", "", text)).strip()


def written_headings(page: str) -> list[tuple[int, str]]:
    """The ATX headings the Markdown source writes, outside code fences: (level, words)."""
    out: list[tuple[int, str]] = []
    fenced = False
    for line in page.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        found = None if fenced else _HEADING.match(line)
        if found is not None:
            out.append((len(found.group(1)), _plain(found.group(2))))
    return out


class _Headings(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[int, str]] = []
        self._level = 0
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._level, self._text = int(tag[1]), []

    def handle_endtag(self, tag: str) -> None:
        if self._level and tag == f"h{self._level}":
            words = _plain("".join(self._text)).removesuffix("¶").strip()
            self.found.append((self._level, words))
            self._level = 0

    def handle_data(self, data: str) -> None:
        if self._level:
            self._text.append(data)


def _site_extensions() -> tuple[list[str], dict[str, Any]]:
    """The Markdown extensions of mkdocs.yml, with their settings."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names: list[str] = []
    settings: dict[str, Any] = {}
    for entry in config["markdown_extensions"]:
        if isinstance(entry, dict):
            ((name, options),) = entry.items()
            names.append(name)
            settings[name] = options or {}
        else:
            names.append(entry)
    return names, settings


def rendered_headings(page: str) -> list[tuple[int, str]]:
    """The headings Markdown makes of `page` with the site's extensions: (level, words)."""
    names, settings = _site_extensions()
    return rendered_headings_html(
        markdown.markdown(page, extensions=names, extension_configs=settings)
    )


def rendered_headings_html(document: str) -> list[tuple[int, str]]:
    """The headings of an HTML document (a built page's article): (level, words)."""
    parser = _Headings()
    parser.feed(document)
    return parser.found
