"""Fenced blocks of the README and docs/ pages, read once for the tests that run them: the YAML
examples (tests/test_doc_examples.py) and the `console` commands (tests/test_doc_commands.py).
A block whose info string names a file (`title="NAME"`) is a file the page's examples read."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]

FRAGMENT = "<!-- fragment -->"
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_TITLE = re.compile(r'\btitle="(?P<name>[^"]+)"')


@dataclass(frozen=True)
class Block:
    """A fenced block of a Markdown page: where it starts, its info string, its text, and
    whether the line before its fence marks it a fragment."""

    page: str
    line: int
    info: str
    text: str
    fragment: bool

    @property
    def language(self) -> str:
        """The first word of the info string (`yaml`, `text`), lowercased."""
        words = self.info.split()
        return words[0].lower() if words else ""

    @property
    def title(self) -> str | None:
        """The file name the info string gives (`title="NAME"`), if any."""
        found = _TITLE.search(self.info)
        return found.group("name") if found else None


def blocks(page: str, text: str) -> list[Block]:
    """The fenced blocks of a Markdown text, in order (an indented fence keeps its indent off
    its lines; a block left open runs to the end, as Markdown reads it)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if opened is None or (opened["fence"][0] == "`" and "`" in opened["info"]):
            i += 1
            continue
        indent, fence = opened["indent"], opened["fence"]
        before = lines[i - 1].strip() if i else ""
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            closing = _FENCE.match(lines[j])
            if (
                closing is not None
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
                and not closing["info"].strip()
            ):
                break
            body.append(lines[j].removeprefix(indent))
            j += 1
        out.append(
            Block(page, i + 1, opened["info"].strip(), "\n".join(body) + "\n", before == FRAGMENT)
        )
        i = j + 1
    return out


def page_blocks(path: Path) -> list[Block]:
    """The fenced blocks of one of the pages, named by its path in the repository."""
    return blocks(str(path.relative_to(REPO)), path.read_text(encoding="utf-8"))


def write_files(found: list[Block], folder: Path) -> None:
    """Write the blocks of a page that name a file (`title="NAME"`) into `folder`."""
    for block in found:
        name = block.title
        if name is None:
            continue
        assert ".." not in PurePosixPath(name).parts and not name.startswith("/"), name
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
