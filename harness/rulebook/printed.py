"""A rulebook as one HTML document and as an A4 PDF (印刷版): the options and a table of
contents on the first page, page numbers, cards drawn, CJK fonts embedded (WeasyPrint)."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import markdown as markdown_lib

from harness.errors import UsageError
from harness.frontends.card_faces import __file__ as _cards_module
from harness.rulebook.book import Book
from harness.rulebook.language import Lang
from harness.rulebook.markdown import chapter_anchor, markdown
from harness.wording import counted

_ASSETS = Path(_cards_module).parent / "assets"

# The CJK face of each language first (the simplified and traditional forms of a character
# differ in shape), then the other, then whatever the system has.
_FONTS = {
    Lang.ZH_HANS: '"Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans CJK TC", sans-serif',
    Lang.ZH_HANT: '"Noto Sans CJK TC", "Source Han Sans TC", "Noto Sans CJK SC", sans-serif',
    Lang.EN: '"Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "Noto Sans CJK TC", sans-serif',
}

_PRINT_CSS = """
@page {
  size: A4;
  margin: 18mm 16mm 20mm;
  @bottom-center { content: counter(page); font-size: 9pt; color: #616161; }
}
@page :first { @bottom-center { content: none; } }
body { font-size: 10.5pt; line-height: 1.55; }
h1 { font-size: 20pt; margin: 0 0 0.6em; }
h2 { font-size: 14pt; margin: 1.4em 0 0.5em; break-after: avoid; bookmark-level: 1; }
p { margin: 0.35em 0; }
.gd-front { break-after: page; }
.gd-toc ol { padding-left: 1.4em; }
.gd-toc a { color: inherit; text-decoration: none; }
.gd-toc a::after { content: leader(".") target-counter(attr(href), page); }
.gd-mark { font-size: 0.8em; color: #616161; }
.gd-stated { color: #2e7d32; }
.gd-read { color: #1565c0; }
.gd-assumed { color: #ef6c00; }
.footnote { font-size: 8.5pt; color: #424242; border-top: 1px solid #bdbdbd; margin-top: 2em; }
.footnote hr { display: none; }
details summary { font-weight: 600; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #bdbdbd; padding: 0.2em 0.6em; }
svg.gd-ladder { display: block; margin: 0.5em 0; }
"""

# The site gets the same Markdown through MkDocs; these are the extensions it reads it with.
EXTENSIONS = ["footnotes", "tables", "attr_list", "md_in_html"]


def html_document(book: Book) -> str:
    """The rulebook as one HTML document for reading or printing: the title, options and
    contents on the first page, then the chapters with their notes at the end."""
    text = markdown(book)
    title_line, _, rest = text.partition("\n")
    front, _, body = rest.partition("\n## 1. ")
    body = "## 1. " + body if body else rest
    # The title page: the title, what the marks mean, the options chosen and the contents.
    contents = "".join(
        f'<li><a href="#{chapter_anchor(c.id)}">{html.escape(c.title)}</a></li>'
        for c in book.chapters
        if c.rules
    )
    front_html = markdown_lib.markdown(title_line + "\n" + front, extensions=EXTENSIONS)
    body_html = markdown_lib.markdown(body, extensions=EXTENSIONS)
    css = (_ASSETS / "cards.css").read_text(encoding="utf-8")
    font = _FONTS[book.lang]
    return (
        f'<!DOCTYPE html>\n<html lang="{book.lang.value}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(book.title)}</title>\n"
        f"<style>{css}\nbody {{ font-family: {font}; }}\n{_PRINT_CSS}</style>\n</head>\n<body>\n"
        f'<section class="gd-front">{front_html}\n<nav class="gd-toc"><h2>'
        f"{html.escape(book.words('book.contents'))}</h2><ol>{contents}</ol></nav></section>\n"
        f"{body_html}\n</body>\n</html>\n"
    )


def pdf_bytes(book: Book, stage: Callable[[str], None] | None = None) -> bytes:
    """The rulebook as an A4 PDF, `stage` told as each step starts (laying out the pages,
    writing them); a usage error says what to install when WeasyPrint or the Pango library it
    lays text out with is missing."""
    try:
        import weasyprint
    except (ImportError, OSError) as exc:
        raise UsageError(
            "a PDF needs WeasyPrint and the Pango library: pip install 'guandan-harness[pdf]', "
            f"and on Debian apt-get install libpango-1.0-0 libpangoft2-1.0-0 ({exc})"
        ) from None
    told = stage or (lambda what: None)
    told("laying out the pages")
    document = weasyprint.HTML(string=html_document(book), base_url=str(_ASSETS)).render()
    told(f"writing {counted(len(document.pages), 'page')} as PDF")
    return bytes(document.write_pdf())
