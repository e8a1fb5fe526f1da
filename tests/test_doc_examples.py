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
from pathlib import Path

import pytest
import yaml

from harness.frontends.cli import main
from tests.doc_blocks import FRAGMENT, PAGES, REPO, Block, blocks, page_blocks, write_files


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
        write_files(page_blocks, folder)
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
        found = page_blocks(path)
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
    """The variant guide holds a variant example and the text file it quotes."""
    for page in ("docs/guide/variants.md",):
        mine = [b for b, _ in YAML_BLOCKS if b.page == page and not b.fragment]
        assert any("extends:" in b.text for b in mine), page
        titled = page_blocks(REPO / page)
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


@pytest.mark.parametrize("page", ["docs/guide/variants.md"])
def test_a_typo_in_the_pages_own_example_is_refused_at_its_quote(tmp_path: Path, page: str) -> None:
    """The page's variant, beside its rule text, with one quote mistyped: refused at that
    quote's line and column, with the very message the page prints for it."""
    found = page_blocks(REPO / page)
    write_files(found, tmp_path)
    (variant,) = (b for b in found if b.title == "my-club.yaml")
    lines = variant.text.splitlines()
    (row,) = (i for i, line in enumerate(lines) if "quote: 雙下升4級" in line)
    column = lines[row].index("雙下升4級") + 1
    path = tmp_path / "my-club.yaml"
    path.write_text(variant.text.replace("quote: 雙下升4級", "quote: 雙下升5級"), encoding="utf-8")
    out = io.StringIO()
    assert main(["validate", str(path)], out) == 1
    expected = (
        f"my-club.yaml:{row + 1}:{column}: levels.up.double_down.stated.quote: "
        "quote not found in source 'my-club': '雙下升5級'"
    )
    assert expected in out.getvalue().splitlines()[0]
    text = " ".join((REPO / page).read_text(encoding="utf-8").split())
    assert expected in text, f"{page}: its message for a mistyped quote is not today's"
