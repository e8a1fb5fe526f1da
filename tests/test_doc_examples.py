"""The YAML examples of the README and of docs/ work as written (issue 21, item 3).

Every fenced ```yaml block is one of three kinds:

- a variant file (it has `id:` and `extends:`): written to `<id>.yaml` in a folder of its own,
  with every block of the same page whose info string names a file (`title="NAME"`, as in
  ```text title="my-club-rules.txt"```) written beside it as NAME, it passes `guandan validate`;
- a case file (a top-level `cases:`): it passes `guandan cases check`;
- a fragment, marked by `<!-- fragment -->` on the line before its fence (neither GitHub nor
  MkDocs shows the comment): it parses as YAML.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest
import yaml

from harness.frontends.cli import main

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


def check_block(block: Block, page_blocks: list[Block], folder: Path) -> None:
    """Fail unless `block` works as the docs say: a variant validates beside the files its page
    names, a case file checks, and anything else is a marked fragment that parses."""
    where = f"{block.page}:{block.line}"
    try:
        data = yaml.safe_load(block.text)
    except yaml.YAMLError as exc:
        pytest.fail(f"{where}: not YAML: {exc}")
    if block.fragment:
        return
    if isinstance(data, dict) and "id" in data and "extends" in data:
        for other in page_blocks:
            name = other.title
            if name is None:
                continue
            assert ".." not in PurePosixPath(name).parts and not name.startswith("/"), name
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(other.text, encoding="utf-8")
        path = folder / f"{data['id']}.yaml"
        path.write_text(block.text, encoding="utf-8")
        out = io.StringIO()
        status = main(["validate", str(path)], out)
        assert status == 0, f"{where}: the variant example does not validate:\n{out.getvalue()}"
        return
    if isinstance(data, dict) and "cases" in data:
        path = folder / (block.title or "example.yaml")
        path.write_text(block.text, encoding="utf-8")
        out = io.StringIO()
        status = main(["cases", "check", str(path)], out)
        assert status == 0, f"{where}: the case example does not check:\n{out.getvalue()}"
        return
    pytest.fail(
        f"{where}: a YAML block that is neither a variant file (`id:` and `extends:`) nor a case "
        f"file (`cases:`): mark it `{FRAGMENT}` on the line before its fence"
    )


def _yaml_blocks() -> list[tuple[Block, list[Block]]]:
    out = []
    for path in PAGES:
        page = str(path.relative_to(REPO))
        found = blocks(page, path.read_text(encoding="utf-8"))
        out += [(b, found) for b in found if b.language in ("yaml", "yml")]
    return out


YAML_BLOCKS = _yaml_blocks()


@pytest.mark.parametrize(
    ("block", "page_blocks"), YAML_BLOCKS, ids=[f"{b.page}:{b.line}" for b, _ in YAML_BLOCKS]
)
def test_every_yaml_example_works_as_written(
    block: Block, page_blocks: list[Block], tmp_path: Path
) -> None:
    check_block(block, page_blocks, tmp_path)


def test_the_variant_guides_show_a_variant_and_its_rule_text() -> None:
    """The README and the guide each hold a variant example and the text file it quotes."""
    for page in ("README.md", "docs/guide/variants.md"):
        mine = [b for b, _ in YAML_BLOCKS if b.page == page and not b.fragment]
        assert any("extends:" in b.text for b in mine), page
        titled = blocks(page, (REPO / page).read_text(encoding="utf-8"))
        assert "my-club-rules.txt" in [b.title for b in titled], page


BROKEN_PAGE = """\
Some rules:

```text title="rules.txt"
第三條　雙下升4級
```

```yaml
id: broken
title: t
title_zh: t
source: {title: T, file: rules.txt}
extends: base
rules:
  levels:
    up:
      double_down:
        value: 4
        stated: {place: 第三條, quote: 雙下升5級}
```

```yaml
levels: {start: "2"}
```

<!-- fragment -->
```yaml
levels: {start: "2"}
```
"""


def test_a_broken_example_fails(tmp_path: Path) -> None:
    """The check refuses a variant whose quote its text lacks, and an unmarked fragment; it
    takes a marked one."""
    found = blocks("broken.md", BROKEN_PAGE)
    assert [(b.line, b.language, b.title, b.fragment) for b in found] == [
        (3, "text", "rules.txt", False),
        (7, "yaml", None, False),
        (21, "yaml", None, False),
        (26, "yaml", None, True),
    ]
    with pytest.raises(AssertionError, match="quote not found in source 'broken'"):
        check_block(found[1], found, tmp_path)
    fixed = BROKEN_PAGE.replace("雙下升5級", "雙下升4級")
    check_block(blocks("fixed.md", fixed)[1], blocks("fixed.md", fixed), tmp_path)
    with pytest.raises(pytest.fail.Exception, match="mark it `<!-- fragment -->`"):
        check_block(found[2], found, tmp_path)
    check_block(found[3], found, tmp_path)
