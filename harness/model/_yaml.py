"""Safe YAML reading that keeps every node's position and rejects duplicate keys."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from harness.model.diagnostics import Location, Problem, format_path

# Aliases may be used (base.yaml shares provenance blocks), but a document whose aliases expand
# to more nodes than this is refused: it is the "billion laughs" shape, not a rule set.
MAX_NODES = 200_000

Path = tuple[str | int, ...]


@dataclass
class YamlDocument:
    """A parsed YAML document: plain data plus the position of every key and value in it."""

    file: str
    data: Any
    value_marks: dict[Path, Location] = field(default_factory=dict)
    key_marks: dict[Path, Location] = field(default_factory=dict)

    def locate(self, path: Path, *, key: bool = False) -> Location:
        """The position of the value (or key) at `path`, else of its nearest ancestor."""
        marks = self.key_marks if key else self.value_marks
        probe = tuple(path)
        while probe:
            if probe in marks:
                return marks[probe]
            if not key and probe in self.key_marks:
                return self.key_marks[probe]
            probe = probe[:-1]
        return self.value_marks.get((), Location(self.file, 1, 1))


class _TooLarge(Exception):
    pass


def _loc(file: str, mark: yaml.Mark | None) -> Location:
    if mark is None:
        return Location(file, 1, 1)
    return Location(file, mark.line + 1, mark.column + 1)


# libyaml's parser, where PyYAML was built with it, reads the corpus about twenty times faster
# than the pure-Python one, and gives every node the same positions.
SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, file: str) -> tuple[YamlDocument, list[Problem]]:
    """Parse one YAML document safely (no object construction), collecting every problem."""
    doc = YamlDocument(file=file, data=None)
    loader = SAFE_LOADER(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or "not valid YAML"
        return doc, [Problem(_loc(file, mark), "", f"YAML syntax: {what}")]
    except yaml.YAMLError as exc:
        return doc, [Problem(Location(file, 1, 1), "", f"YAML: {exc}")]
    finally:
        loader.dispose()
    if node is None:
        doc.data = None
        doc.value_marks[()] = Location(file, 1, 1)
        return doc, []
    problems: list[Problem] = []
    counter = iter(range(MAX_NODES))
    try:
        doc.data = _convert(loader, node, (), doc, problems, counter)
    except _TooLarge:
        problems.append(
            Problem(
                _loc(file, node.start_mark),
                "",
                f"document expands to more than {MAX_NODES} nodes through aliases; refused",
            )
        )
        doc.data = None
    return doc, problems


def _convert(
    loader: yaml.SafeLoader,
    node: yaml.Node,
    path: Path,
    doc: YamlDocument,
    problems: list[Problem],
    counter: Iterator[int],
) -> Any:
    if next(counter, None) is None:
        raise _TooLarge
    doc.value_marks.setdefault(path, _loc(doc.file, node.start_mark))
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        first_seen: dict[str, Location] = {}
        for key_node, value_node in node.value:
            key_loc = _loc(doc.file, key_node.start_mark)
            if key_node.tag == "tag:yaml.org,2002:merge":
                problems.append(
                    Problem(
                        key_loc,
                        format_path(path),
                        "merge keys (<<) are not allowed; write keys out",
                    )
                )
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(Problem(key_loc, format_path(path), "a key must be a plain scalar"))
                continue
            key = str(loader.construct_object(key_node))
            if key in first_seen:
                first = first_seen[key]
                problems.append(
                    Problem(
                        key_loc,
                        format_path((*path, key)),
                        f"duplicate key '{key}' (first at {first.line}:{first.column})",
                    )
                )
                continue
            first_seen[key] = key_loc
            doc.key_marks[(*path, key)] = key_loc
            result[key] = _convert(loader, value_node, (*path, key), doc, problems, counter)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _convert(loader, item, (*path, i), doc, problems, counter)
            for i, item in enumerate(node.value)
        ]
    return loader.construct_object(node)
