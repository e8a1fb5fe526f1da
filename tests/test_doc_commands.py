"""The README and the guides show `guandan` commands with what they print: each `console` block
is run as written and its output compared, so an example cannot drift from the command (the
README once said `diff match-rules competition` found 14 differences; it printed 17). The
figures the README gives for the corpus are checked against the corpus too."""

from __future__ import annotations

import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.conformance.cases.case_loader import load_cases
from harness.frontends.cli import main
from tests.doc_blocks import PAGES, REPO, Block, page_blocks, write_files


@dataclass(frozen=True)
class Example:
    """One command of a `console` block: its page's blocks, its line, the command, its output."""

    page: str
    line: int
    command: str
    output: tuple[str, ...]
    files: tuple[Block, ...]

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def examples(found: list[Block]) -> list[Example]:
    """The commands (`$ guandan ...`) of a page's `console` blocks, each with its output."""
    out: list[Example] = []
    for block in found:
        if block.language != "console":
            continue
        lines = block.text.splitlines()
        for offset, line in enumerate(lines):
            if line.startswith("$ "):
                output: list[str] = []
                for rest in lines[offset + 1 :]:
                    if rest.startswith("$ "):
                        break
                    output.append(rest)
                out.append(
                    Example(
                        block.page, block.line + 1 + offset, line[2:], tuple(output), tuple(found)
                    )
                )
    return out


def matches(expected: tuple[str, ...], printed: list[str]) -> bool:
    """Whether `printed` is `expected` line by line, a line `...` standing for any lines."""
    pattern = "".join(
        r"(?:.*\n)*?" if line == "..." else re.escape(line.rstrip()) + r"\n" for line in expected
    )
    return re.fullmatch(pattern, "".join(line.rstrip() + "\n" for line in printed)) is not None


ALL = [example for path in PAGES for example in examples(page_blocks(path))]


def test_the_pages_show_commands_with_their_output() -> None:
    """The README shows a first look with what it prints; the guides show the rest."""
    readme = {e.command.split()[1] for e in ALL if e.page == "README.md"}
    assert {"diff", "classify", "plays"} <= readme
    everywhere = {e.command.split()[1] for e in ALL}
    assert {"diff", "classify", "plays", "validate"} <= everywhere


@pytest.mark.parametrize("example", ALL, ids=str)
def test_a_command_prints_what_its_page_says(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run in a folder holding the page's files; `...` in the output stands for any lines."""
    write_files(list(example.files), tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(example.command)
    assert argv[0] == "guandan", f"{example}: only `guandan` commands are run"
    out = io.StringIO()
    main(argv[1:], out)
    printed = out.getvalue().splitlines()
    assert matches(example.output, printed), (
        f"{example}: `{example.command}` printed\n" + "\n".join(printed)
    )


def test_the_elision_matches_only_what_it_should() -> None:
    assert matches(("a", "...", "c"), ["a", "b", "b", "c"])
    assert matches(("a", "...", "c"), ["a", "c"])
    assert not matches(("a", "...", "c"), ["a", "b", "d"])
    assert not matches(("a",), ["a", "b"])
    assert matches(("a", "..."), ["a", "b"])


def test_the_guide_counts_the_corpus_as_it_is() -> None:
    cases, problems = load_cases()
    assert problems == []
    guide = (REPO / "docs" / "guide" / "fuzzing.md").read_text(encoding="utf-8")
    said = re.search(r"holds ([\d,]+) hand-written cases", guide)
    assert said, "the fuzzing guide no longer says how many cases the corpus holds"
    assert int(said.group(1).replace(",", "")) == len(cases)
