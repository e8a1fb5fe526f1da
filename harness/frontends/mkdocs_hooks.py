"""The MkDocs hook (文檔生成): adds the generated pages to the site at build time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Link, Navigation, Section

from harness._paths import spec_dir
from harness.frontends.dashboard_html import site_files
from harness.frontends.docs import generate, site_binaries, site_links
from harness.frontends.rulebook_pages import NavEntry, page_lang, site_name, site_nav
from harness.frontends.tryit_site import find_runtime
from harness.frontends.tryit_site import site_files as tryit_files
from harness.model.loader import bundled_variants
from harness.rulebook.language import Lang

# Pages copied from spec/ as they are: the spec is their one home.
FROM_SPEC = {"notation.md": "reference/notation.md", "protocol.md": "reference/protocol.md"}


_LOG = get_plugin_logger("guandan")
"""The build's own log (`mkdocs.plugins.guandan`, its lines headed `guandan:`): `mkdocs build`
shows its INFO lines, `mkdocs build -q` does not."""


def stage(what: str) -> None:
    """Say in the build's log what the build is making now."""
    _LOG.info(what)


_SITE: dict[str, Files] = {}
"""The site's files once they are all known, for the navigation of each language's pages."""


def on_files(files: Files, config: Any) -> Files:
    """Add every generated page, the rulebooks' PDFs, the spec's own pages, the Conformance
    page (the reference engine run at build time) and the stylesheets, whose one home is the
    package. Each stage is a line of the build's log: the build takes minutes."""
    for path, content in generate(stage).items():
        files.append(File.generated(config, path, content=content))
    for path, data in site_binaries(stage).items():
        files.append(File.generated(config, path, content=data))
    for path, content in site_files(stage).items():
        files.append(File.generated(config, path, content=content))
    for name, path in FROM_SPEC.items():
        content = (spec_dir() / name).read_text(encoding="utf-8")
        files.append(File.generated(config, path, content=content))
    for path, made in panel_files(config, stage).items():
        files.append(File.generated(config, path, content=made))
    _SITE["files"] = files
    return files


def panel_files(config: Any, told: Callable[[str], None]) -> dict[str, str | bytes]:
    """The try-it panel's script, the package, the variants and the Pyodide runtime (npm ci in
    the checkout, where mkdocs.yml is, unless `extra.tryit_runtime` names a hosted one)."""
    root = Path(config.config_file_path).resolve().parent
    runtime = find_runtime(root, config.extra.get("tryit_runtime"), told)
    return tryit_files(bundled_variants(), runtime, told)


# The theme's own words (search, contents…) in each Chinese language: Material's language ids.
_THEME_LANGUAGE = {Lang.ZH_HANS: "zh", Lang.ZH_HANT: "zh-Hant"}


class _Over:
    """A read-only view of the site's configuration (or its theme) with some names given
    other values, for the templates of one page: the same site, told in that page's language."""

    def __init__(self, inner: Any, **over: Any) -> None:
        self._inner = inner
        self._over = over

    def __getattr__(self, key: str) -> Any:
        if key in self._over:
            return self._over[key]
        return getattr(self._inner, key)

    def __getitem__(self, key: str) -> Any:
        if key in self._over:
            return self._over[key]
        return self._inner[key]

    def __contains__(self, key: object) -> bool:
        return key in self._over or key in self._inner

    def get(self, key: str, default: Any = None) -> Any:
        """A value by name, as a mapping gives it."""
        return self._over[key] if key in self._over else self._inner.get(key, default)


def _nav_items(entries: tuple[NavEntry, ...], files: Files) -> list[Any]:
    items: list[Any] = []
    for entry in entries:
        if entry.children:
            section = Section(entry.title, _nav_items(entry.children, files))
            for child in section.children:
                child.parent = section
            items.append(section)
        elif entry.path is not None:
            found = files.get_file_from_path(entry.path)
            if found is not None:
                items.append(Link(entry.title, found.url or "./"))
    return items


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    """A Chinese page is shown in its language: its navigation, the site's name in the header
    and the theme's own words, never the English site's."""
    lang = page_lang(page.file.src_uri)
    if lang is None:
        return context
    files = _SITE.get("files")
    if files is None:
        return context
    rulesets = {r.slug: r for r in bundled_variants()}
    entries = site_nav(rulesets, lang)
    local = Navigation(_nav_items(entries, files), [])
    home = files.get_file_from_path(entries[0].path or "")
    local.homepage = home.page if home is not None and home.page is not None else nav.homepage
    context["nav"] = local
    theme = _Over(config.theme, language=_THEME_LANGUAGE[lang])
    context["config"] = _Over(config, site_name=site_name(lang), theme=theme)
    return context


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point a hand-written page's links into the source tree at the site pages made from those
    files (generated pages link to site pages already)."""
    if page.file.generated_by is not None:
        return markdown
    return site_links(markdown, page.file.src_uri)
