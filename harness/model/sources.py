"""Source documents (來源): the bundled ones of `spec/sources.yaml`, and a variant's own.

A variant's `source` is either the id of a bundled source or a club's own rule text, given
inline (`text`) or in a UTF-8 file in the variant file's folder (`file`). Either way every
`stated` quote is checked against the text: whitespace is ignored, and fragments joined by `…`
must appear in order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from harness._paths import spec_dir
from harness.model.diagnostics import Problem, safe_text

if TYPE_CHECKING:
    from harness.model._yaml import YamlDocument

# The YAML reader is imported where a source is read, not here: a ruleset holds `Source`s, and
# the interpreter, which reads rulesets only, runs where PyYAML is absent (the site's try-it
# panel, under Pyodide, loads rulesets from JSON).


@dataclass(frozen=True)
class Source:
    """A source document (來源): id, title, and its text, bundled or a club's own (自訂來源)."""

    id: str
    title: str
    description: str
    text: str | None
    rules_end: str | None
    # Whether it is a variant's own source (its `source` mapping), and then its text file as
    # the variant names it (relative to the variant file's folder; None for inline text).
    own: bool = False
    file: str | None = None
    title_zh: str | None = None
    """The title a Chinese rulebook gives it (the title itself where none is given)."""
    terms: tuple[tuple[str, str], ...] = ()
    """The source's own words, as it writes them, and the glossary term a rulebook says
    instead (參謀 → level_card), in the order given."""

    def title_for(self, chinese: bool) -> str:
        """The title a rulebook in Chinese (or not) gives the source."""
        return (self.title_zh or self.title) if chinese else self.title

    def contains(self, quote: str) -> bool:
        """Whether `quote` (fragments joined by `…`) appears in the text, in order."""
        if self.text is None:
            return True
        hay = self._squashed
        pos = 0
        for fragment in quote.split("…"):
            frag = _squash(fragment)
            if not frag:
                continue
            found = hay.find(frag, pos)
            if found < 0:
                return False
            pos = found + len(frag)
        return True

    @functools.cached_property
    def _squashed(self) -> str:
        # Worked out once: an own text may be megabytes long, and every quote searches it.
        return _squash(self.text or "")

    def to_json(self) -> str | dict[str, Any]:
        """The source as a variant names it: a bundled one by id, a club's own as its mapping."""
        if not self.own:
            return self.id
        out: dict[str, Any] = {"id": self.id, "title": self.title}
        if self.description:
            out["description"] = self.description
        if self.file is not None:
            out["file"] = self.file
        else:
            out["text"] = self.text
        if self.rules_end is not None:
            out["rules_end"] = self.rules_end
        return out


def _squash(text: str) -> str:
    # Collected texts break lines and space words at random; quotes are compared without it.
    return re.sub(r"\s+", "", text)


@functools.cache
def sources() -> dict[str, Source]:
    """The bundled source documents of `spec/sources.yaml`, by id."""
    import yaml

    from harness.model._yaml import SAFE_LOADER

    path = spec_dir() / "sources.yaml"
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    out: dict[str, Source] = {}
    for sid, entry in data["sources"].items():
        text = None
        if entry.get("text"):
            text = (spec_dir() / entry["text"]).read_text(encoding="utf-8")
            if entry.get("rules_end"):
                text = text.split(entry["rules_end"])[0]
        out[sid] = Source(
            sid,
            entry["title"],
            entry.get("description", ""),
            text,
            entry.get("rules_end"),
            title_zh=entry.get("title_zh"),
            terms=tuple((str(k), str(v)) for k, v in (entry.get("terms") or {}).items()),
        )
    return out


def find_source(source_id: str, own: Mapping[str, Source]) -> Source | None:
    """The source (來源) an id names: a variant's own source of that id, else the bundled one."""
    found = own.get(source_id)
    return found if found is not None else sources().get(source_id)


FILE_RULE = (
    "expected a text file in this variant file's folder: a relative path with `/` between "
    "folders, neither absolute nor through `..`"
)


def file_refusal(name: str) -> str | None:
    """Why `name` cannot be an own source's file (it leaves the variant's folder), or None."""
    # Refused as written, whatever system reads the variant: a drive or `\` on Windows too.
    windows = PureWindowsPath(name)
    if (
        "\\" in name
        or PurePosixPath(name).is_absolute()
        or windows.is_absolute()
        or windows.drive
        or ".." in PurePosixPath(name).parts
    ):
        return f"{FILE_RULE}; found {_quoted(name)}"
    return None


def _quoted(text: str) -> str:
    shown = safe_text(text)
    return repr(shown if len(shown) <= 60 else shown[:57] + "...")


def read_own_source(doc: YamlDocument, folder: Path) -> tuple[Source | None, list[Problem]]:
    """A variant's own source (自訂來源) from its `source` mapping, inline or a file in `folder`."""
    # The mapping has been checked by the schema. A file is read as a variant file is (at most
    # 10 MB, UTF-8); what cannot be read is None and located problems.
    raw: Mapping[str, Any] = doc.data["source"]
    name = raw.get("file")
    text: str | None = raw.get("text")
    if isinstance(name, str):
        text, problems = _read_file(doc, folder, name)
        if text is None:
            return None, problems
    if text is None:  # the schema asks for exactly one of `file` and `text`; held here too
        where = doc.locate(("source",))
        return None, [
            Problem(where, "source", "give exactly one of `file` (a text file) or `text`")
        ]
    rules_end = raw.get("rules_end")
    if rules_end is not None:
        if rules_end not in text:
            where = doc.locate(("source", "rules_end"))
            return None, [
                Problem(where, "source.rules_end", f"not found in the text: {_quoted(rules_end)}")
            ]
        text = text.split(rules_end)[0]
    own = Source(
        id=doc.data["id"],
        title=raw["title"],
        description=raw.get("description", ""),
        text=text,
        rules_end=rules_end,
        own=True,
        file=name,
    )
    return own, []


def _read_file(doc: YamlDocument, folder: Path, name: str) -> tuple[str | None, list[Problem]]:
    """The text of an own source's file, read as safely as a variant file is (bounded in size,
    UTF-8 or a located problem), and only inside the variant file's folder: a variant file is
    data, and its quotes must not become a way to probe other files."""
    from harness.model._yaml import read_yaml_text

    where = doc.locate(("source", "file"))
    refused = file_refusal(name)
    if refused is not None:
        return None, [Problem(where, "source.file", refused)]
    path = folder / name
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = True  # not resolvable (too long, a loop of links): reading it says why
    if not inside:
        message = f"{_quoted(name)} leads out of this variant file's folder (through a link)"
        return None, [Problem(where, "source.file", message)]
    shown = safe_text(name)
    text, unreadable = read_yaml_text(path, shown)
    # The problem within the text file (its name, and where a byte is not UTF-8), placed at
    # the `file` value that names it.
    return text, [Problem(where, "source.file", _within(shown, p)) for p in unreadable]


def _within(name: str, problem: Problem) -> str:
    """A problem of the text file as part of a message: `NAME: what` for the whole file,
    `NAME:LINE:COLUMN: what` for a place in it."""
    at = problem.location
    place = "" if (at.line, at.column) == (1, 1) else f":{at.line}:{at.column}"
    return f"{name}{place}: {problem.message}"
