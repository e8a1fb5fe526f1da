"""Safe YAML reading that keeps every node's position and rejects duplicate keys.

The reader is built for hostile files: whatever the bytes, it returns the data and a list of
located problems, never an exception. It reads the parser's events itself rather than letting
PyYAML compose nodes, so that it can stop early: libyaml's composer recurses in C (a file nested
200,000 deep crashes the process) and its scanner slows quadratically with nesting depth, so
depth is bounded while reading, before either can happen. Only plain data is built: mappings,
sequences, strings, numbers, booleans and null; any other tag is a located problem.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any, Protocol, cast

import yaml

from harness.model._files import open_regular
from harness.model.diagnostics import _NOT_PRINTABLE, Location, Problem, format_path, safe_text

# Aliases may be used (base.yaml shares provenance blocks), but a document whose aliases expand
# to more nodes than this is refused: it is the "billion laughs" shape, not a rule set.
MAX_NODES = 200_000

# The deepest bundled file nests 8 levels; 64 leaves room for any real rule set or case while
# keeping both the scanner's work and this reader's recursion small.
MAX_DEPTH = 64

# The largest bundled file is about 100 KB; a file beyond this is refused unread, so a
# multi-gigabyte file costs a bounded read (a device such as /dev/zero is not read at all).
MAX_BYTES = 10_000_000

# Engines in other languages read JSON numbers as 64-bit integers; a bigger one is no rule value
# and no card count, and Python refuses to print one of more than 4,300 digits.
MAX_INT = 2**63 - 1

# An integer written with more characters than this is refused before it is converted: the
# conversion of a long decimal text is quadratic, and no integer in range needs so many.
MAX_INT_TEXT = 100

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


# libyaml's parser, where PyYAML was built with it, reads the corpus about twenty times faster
# than the pure-Python one, and gives every event the same positions.
SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CORE = "tag:yaml.org,2002:"
_NULL, _BOOL, _INT, _FLOAT, _STR = (_CORE + t for t in ("null", "bool", "int", "float", "str"))
_SEQ, _MAP, _MERGE = (_CORE + t for t in ("seq", "map", "merge"))
_TYPE_NAMES = {_BOOL: "boolean", _INT: "integer", _FLOAT: "number"}
_REFUSED_TAGS = {
    _CORE + "timestamp": "a date or time is not a value here; write it in quotes to mean text",
    _CORE + "binary": "binary data (!!binary) is not a value here",
}


def describe_char(char: str) -> str:
    """A character named for a message: its code point, and what kind of character it is."""
    code = ord(char)
    if code == 0:
        kind = "NUL"
    elif 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate"
    elif code < 0x20 or 0x7F <= code < 0xA0:
        kind = "a control character"
    else:
        kind = "a non-character"
    return f"U+{code:04X} ({kind})"


def shown_tag(tag: str) -> str:
    """A tag as written in YAML (`!!binary` for the core schema's), cut short when long."""
    text = "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag
    text = _NOT_PRINTABLE.sub("?", text)
    return text if len(text) <= 60 else text[:57] + "..."


class _Events(Protocol):
    """What the reader uses of a loader: its parser's events and its resolver (typed here, as
    PyYAML's stubs leave them untyped)."""

    yaml_constructors: dict[str, Callable[[Any, yaml.Node], Any]]

    def get_event(self) -> Any:
        """The next event, consumed."""
        ...

    def peek_event(self) -> Any:
        """The next event, left in place."""
        ...

    def check_event(self, *choices: type[yaml.Event]) -> bool:
        """Whether the next event is of one of these kinds."""
        ...

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        """The tag of an untagged scalar, by its text (the YAML 1.1 implicit types)."""
        ...

    def dispose(self) -> None:
        """Free the parser's state (libyaml's, where it is used)."""
        ...


def _loc(file: str, mark: Any) -> Location:
    if mark is None:
        return Location(file, 1, 1)
    return Location(file, mark.line + 1, mark.column + 1)


def _text_loc(file: str, text: str, index: int) -> Location:
    """The position of the character at `index` of `text`."""
    line_start = text.rfind("\n", 0, index) + 1
    return Location(file, text.count("\n", 0, index) + 1, index - line_start + 1)


def read_yaml_text(path: FilePath, name: str) -> tuple[str | None, list[Problem]]:
    """The text of a data file, or a located problem: unreadable, not a regular file (a FIFO or
    a device, never waited on), too large, or not UTF-8."""
    where = Location(name, 1, 1)
    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        # The reason only: the file's name is in the location, and nothing else is shown.
        return None, [Problem(where, "", f"cannot read: {exc.strerror or type(exc).__name__}")]
    if len(raw) > MAX_BYTES:
        return None, [Problem(where, "", f"larger than {MAX_BYTES:,} bytes; refused unread")]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
        at = Location(name, raw.count(b"\n", 0, exc.start) + 1, column)
        byte = raw[exc.start]
        return None, [Problem(at, "", f"not UTF-8 text: byte 0x{byte:02x} ({exc.reason})")]


class _Stop(Exception):
    """Reading stops here: the document is refused as a whole, with this problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


Marks = list[tuple[Path, Location]]


@dataclass
class _Anchor:
    """An anchored node, kept for its aliases: its value, its node count, and where the marks
    of its subtree lie in the reader's logs (a range, not a copy: copying them at each of 64
    nested anchors made a 570 KB file take 20 s)."""

    value: Any
    nodes: int
    depth: int
    values: Marks
    value_range: tuple[int, int]
    keys: Marks
    key_range: tuple[int, int]


def _copy(value: Any) -> Any:
    # Each alias gets its own containers, as composing the document would give it.
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class _Reader:
    """Builds plain data from a loader's events, recording marks and problems, with bounds."""

    def __init__(self, loader: yaml.SafeLoader, file: str) -> None:
        self.loader = cast(_Events, loader)
        self.file = file
        self.problems: list[Problem] = []
        # Marks are logged in reading order, so that an anchor can name those of its subtree
        # (a range of the log) for its aliases. A value read only to be dropped (a duplicate
        # key's) logs into lists of its own, which only its anchors keep.
        self.values: Marks = []
        self.keys: Marks = []
        self.anchors: dict[str, _Anchor] = {}
        self.anchored_at: dict[str, Location] = {}
        self.open: set[str] = set()
        self.nodes = 0
        self.root = Location(file, 1, 1)

    def problem(self, at: Location, path: Path, message: str) -> None:
        """Note a problem at `at`, for the clause path `path`."""
        self.problems.append(Problem(at, format_path(path), message))

    def count(self, nodes: int) -> None:
        """Count nodes built (an alias counts its whole subtree); stop past MAX_NODES."""
        self.nodes += nodes
        if self.nodes > MAX_NODES:
            message = f"document expands to more than {MAX_NODES} nodes through aliases; refused"
            raise _Stop(Problem(self.root, "", message))

    def node(self, path: Path, depth: int) -> Any:
        """Read one node (scalar, collection or alias) at `path`."""
        event = self.loader.get_event()
        at = _loc(self.file, event.start_mark)
        if isinstance(event, yaml.AliasEvent):
            return self.alias(event, path, at)
        self.count(1)
        self.values.append((path, at))
        anchor: str | None = event.anchor
        if anchor is not None:
            if anchor in self.anchored_at:
                first = self.anchored_at[anchor]
                self.problem(
                    at,
                    path,
                    f"anchor &{safe_text(anchor)} is defined twice "
                    f"(first at {first.line}:{first.column})",
                )
            self.anchored_at[anchor] = at
            marks = (len(self.values) - 1, len(self.keys), self.nodes - 1)
            self.open.add(anchor)
        if isinstance(event, yaml.ScalarEvent):
            value = self.scalar(event, path, at)
        else:
            value = self.collection(event, path, at, depth)
        if anchor is not None:
            self.open.discard(anchor)
            self.anchors[anchor] = _Anchor(
                value,
                self.nodes - marks[2],
                len(path),
                self.values,
                (marks[0], len(self.values)),
                self.keys,
                (marks[1], len(self.keys)),
            )
        return value

    def collection(self, event: Any, path: Path, at: Location, depth: int) -> Any:
        """Read a sequence or a mapping whose start event is `event`."""
        if depth >= MAX_DEPTH:
            # No clause path: one of 64 parts would bury the message.
            raise _Stop(Problem(at, "", f"nested deeper than {MAX_DEPTH} levels; refused"))
        tag: str | None = event.tag
        is_seq = isinstance(event, yaml.SequenceStartEvent)
        if tag not in (None, "!", _SEQ if is_seq else _MAP):
            message = f"the tag {shown_tag(str(tag))} is not allowed; write plain data"
            self.problem(at, path, message)
        if is_seq:
            items: list[Any] = []
            while not self.loader.check_event(yaml.SequenceEndEvent):
                items.append(self.node((*path, len(items)), depth + 1))
            self.loader.get_event()
            return items
        return self.mapping(path, depth + 1)

    def mapping(self, path: Path, depth: int) -> dict[str, Any]:
        """Read the keys and values of a mapping up to its end event."""
        result: dict[str, Any] = {}
        first_seen: dict[str, Location] = {}
        while not self.loader.check_event(yaml.MappingEndEvent):
            key_event = self.loader.peek_event()
            key_at = _loc(self.file, key_event.start_mark)
            key = self.key(key_event, path, key_at, depth)
            if key is None:
                self.dropped(path, depth)
                continue
            if key in first_seen:
                first = first_seen[key]
                self.problem(
                    key_at,
                    (*path, key),
                    f"duplicate key '{key}' (first at {first.line}:{first.column})",
                )
                self.dropped((*path, key), depth)
                continue
            first_seen[key] = key_at
            self.keys.append(((*path, key), key_at))
            result[key] = self.node((*path, key), depth)
        self.loader.get_event()
        return result

    def key(self, event: Any, path: Path, at: Location, depth: int) -> str | None:
        """Read a mapping key: its text, or None (with a problem) when it is not one."""
        if isinstance(event, yaml.ScalarEvent):
            self.loader.get_event()
            tag = self.tag_of(event)
            if tag == _MERGE:
                self.problem(at, path, "merge keys (<<) are not allowed; write keys out")
                return None
            self.count(1)
            key = str(self.scalar(event, path, at))
            if event.anchor is not None:
                # An anchored key may be named again by an alias, as a key or as a value.
                self.anchors[event.anchor] = _Anchor(key, 1, 0, [], (0, 0), [], (0, 0))
            return key
        if isinstance(event, yaml.AliasEvent):
            value = self.alias(self.loader.get_event(), path, at, record=False)
            if not isinstance(value, dict | list):
                return str(value)
        else:
            self.dropped(path, depth)
        self.problem(at, path, "a key must be a plain scalar")
        return None

    def dropped(self, path: Path, depth: int) -> None:
        """Read a node that is not kept (a bad key's value, a duplicate), and drop its marks."""
        values, keys = self.values, self.keys
        self.values, self.keys = [], []
        try:
            self.node(path, depth)
        finally:
            self.values, self.keys = values, keys

    def alias(self, event: Any, path: Path, at: Location, *, record: bool = True) -> Any:
        """The value of an alias: a copy of its anchored node, marks and all."""
        name: str = event.anchor
        if name in self.open:
            self.problem(
                at,
                path,
                f"alias *{safe_text(name)} refers to the node that contains it; "
                "a recursive structure is not data",
            )
            return None
        anchored = self.anchors.get(name)
        if anchored is None:
            self.problem(at, path, f"alias *{safe_text(name)} names no anchor defined before it")
            return None
        self.count(anchored.nodes)
        if record:
            cut = anchored.depth
            start, end = anchored.value_range
            self.values.extend(((*path, *p[cut:]), loc) for p, loc in anchored.values[start:end])
            start, end = anchored.key_range
            self.keys.extend(((*path, *p[cut:]), loc) for p, loc in anchored.keys[start:end])
        return _copy(anchored.value)

    def tag_of(self, event: Any) -> str:
        """The tag of a scalar: as written, else resolved from its text."""
        tag: str | None = event.tag
        if tag is None or tag == "!":
            return self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        return tag

    def scalar(self, event: Any, path: Path, at: Location) -> Any:
        """The value of a scalar: text, a number, a boolean or null; anything else is a
        problem, and the scalar's own text stands in for it."""
        text: str = event.value
        bad = _NOT_PRINTABLE.search(text)
        if bad is not None:
            self.problem(
                at, path, f"the text holds {describe_char(bad.group())}, which is not allowed"
            )
            return safe_text(text)
        tag = self.tag_of(event)
        if tag == _STR:
            return text
        if tag == _NULL:
            return None
        if tag in _REFUSED_TAGS:
            self.problem(at, path, _REFUSED_TAGS[tag])
            return text
        if tag not in _TYPE_NAMES:
            self.problem(at, path, f"the tag {shown_tag(tag)} is not allowed; write plain data")
            return text
        name = _TYPE_NAMES[tag]
        if tag == _INT and len(text) > MAX_INT_TEXT:
            self.problem(at, path, f"an integer of {len(text):,} characters is out of range")
            return text
        node = yaml.ScalarNode(tag, text, style=event.style)
        construct = self.loader.yaml_constructors[tag]
        try:
            value = construct(self.loader, node)
        except (ValueError, KeyError, TypeError, ArithmeticError, yaml.YAMLError):
            self.problem(at, path, f"{_short(text)} is not a valid {name}")
            return text
        if type(value) is int and not -MAX_INT - 1 <= value <= MAX_INT:
            self.problem(at, path, f"the integer {_short(text)} is out of range (64 bits)")
            return text
        return value


def _short(text: str) -> str:
    shown = safe_text(text)
    return repr(shown if len(shown) <= 40 else shown[:37] + "...")


def parse_yaml(text: str, file: str) -> tuple[YamlDocument, list[Problem]]:
    """Parse one YAML document safely (no object construction), collecting every problem.

    Never raises: a file that cannot be read as a whole (bad syntax, a character YAML does not
    allow, nesting too deep, an alias bomb) comes back with `data` None and its problem.
    """
    bad = _NOT_PRINTABLE.search(text)
    if bad is not None:
        at = _text_loc(file, text, bad.start())
        message = f"the character {describe_char(bad.group())} is not allowed in a YAML file"
        return YamlDocument(file=file, data=None), [Problem(at, "", message)]
    doc, problems, parser_limit = _parse_with(SAFE_LOADER, text, file)
    if parser_limit and SAFE_LOADER is not yaml.SafeLoader:
        # libyaml's scanner reads far ahead of its parser, so its own nesting limit (1,000 in
        # the libyaml of PyYAML 6.0.4, none before) can stop a file before this reader's
        # bound is reached. The pure-Python scanner looks at most 1,024 characters ahead and
        # has no such limit in any PyYAML 6: read the file again with it, so that our bound,
        # at its own position, decides whichever PyYAML is installed.
        doc, problems, _ = _parse_with(yaml.SafeLoader, text, file)
    return doc, problems


# What a PyYAML parser says when its own nesting limit stops it (`exceeded maximum nesting
# depth`); such a stop is reported as this reader's bound, never as a syntax error.
_PARSER_DEPTH = "maximum nesting depth"


def _parse_with(
    loader_class: type[yaml.SafeLoader], text: str, file: str
) -> tuple[YamlDocument, list[Problem], bool]:
    """`parse_yaml` with one loader class (libyaml's or the pure-Python one); the flag says
    whether the parser's own nesting limit stopped it."""
    doc = YamlDocument(file=file, data=None)
    loader = loader_class(text)
    reader = _Reader(loader, file)
    events = reader.loader
    try:
        events.get_event()  # the stream's start
        if events.check_event(yaml.StreamEndEvent):
            doc.value_marks[()] = Location(file, 1, 1)
            return doc, [], False
        events.get_event()  # the document's start
        reader.root = _loc(file, events.peek_event().start_mark)
        data = reader.node((), 0)
        events.get_event()  # the document's end
        if not events.check_event(yaml.StreamEndEvent):
            at = _loc(file, events.peek_event().start_mark)
            message = "YAML syntax: expected a single document in the stream, found another"
            return doc, [Problem(at, "", message)], False
    except _Stop as stop:
        return doc, [*reader.problems, stop.problem], False
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = safe_text(exc.problem or "not valid YAML")
        if _PARSER_DEPTH in what:
            # The parser's own limit, below ours: still our message, at the parser's mark.
            what = f"nested deeper than {MAX_DEPTH} levels; refused"
            return doc, [*reader.problems, Problem(_loc(file, mark), "", what)], True
        return doc, [Problem(_loc(file, mark), "", f"YAML syntax: {what}")], False
    except yaml.YAMLError as exc:
        position = getattr(exc, "position", None)
        at = _text_loc(file, text, position) if isinstance(position, int) else Location(file, 1, 1)
        reason = getattr(exc, "reason", None) or "not valid YAML"
        return doc, [Problem(at, "", f"YAML: {safe_text(str(reason))}")], False
    finally:
        events.dispose()
    doc.data = data
    for path, at in reader.values:
        doc.value_marks.setdefault(path, at)
    for path, at in reader.keys:
        doc.key_marks.setdefault(path, at)
    return doc, reader.problems, False
