"""The MkDocs hook (文檔生成): adds the generated pages to the site at build time."""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from harness._paths import spec_dir
from harness.frontends.dashboard import site_files
from harness.frontends.docs import generate, site_binaries, site_links

# Pages copied from spec/ as they are: the spec is their one home.
FROM_SPEC = {"notation.md": "reference/notation.md", "protocol.md": "reference/protocol.md"}


def on_files(files: Files, config: Any) -> Files:
    """Add every generated page, the rulebooks' PDFs, the spec's own pages, the Conformance
    page (the reference engine run at build time) and the stylesheets, whose one home is the
    package."""
    for path, content in generate().items():
        files.append(File.generated(config, path, content=content))
    for path, data in site_binaries().items():
        files.append(File.generated(config, path, content=data))
    for path, content in site_files().items():
        files.append(File.generated(config, path, content=content))
    for name, path in FROM_SPEC.items():
        content = (spec_dir() / name).read_text(encoding="utf-8")
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point a hand-written page's links into the source tree at the site pages made from those
    files (generated pages link to site pages already)."""
    if page.file.generated_by is not None:
        return markdown
    return site_links(markdown, page.file.src_uri)
