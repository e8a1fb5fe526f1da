"""The engine API (引擎介面): the Python protocol every engine adapter implements, and the
reference engine that answers with this package's interpreter.

An engine implements one variant (with the options chosen for it) and answers the operations of
DESIGN.md on the JSON-shaped objects of `spec/case.schema.json`, here as TypedDicts. It says in
`describe()` which variant and options it implements and which operations it supports; an
operation it does not support raises `Unsupported`, and such a case is reported as unsupported,
never as a failure. Subclass `EngineBase` to get every operation unsupported until written.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, Protocol, TypedDict, cast, runtime_checkable

from harness import __version__
from harness.errors import HarnessError
from harness.loader import load_variant
from harness.operations import OPERATIONS, run_operation

OPERATION_NAMES = tuple(OPERATIONS)
Json = dict[str, Any]


class ReadingJson(TypedDict):
    """A reading: `{type, rank, size}`."""

    type: str
    rank: str
    size: int


class ClassifyInput(TypedDict):
    """classify: these cards at this level."""

    cards: list[str]
    level: str


class ClassifyOutput(TypedDict):
    """classify: every reading, and the default one or None."""

    readings: list[ReadingJson]
    default: ReadingJson | None


class BeatsInput(TypedDict):
    """beats: may `play` follow `previous` at this level?"""

    play: ReadingJson
    previous: ReadingJson
    level: str


class BeatsOutput(TypedDict):
    """beats: the answer."""

    beats: bool


class LegalPlaysInput(TypedDict):
    """legal_plays: a hand at a level, leading (previous None) or against a reading."""

    hand: list[str]
    level: str
    previous: NotRequired[ReadingJson | None]


class LegalPlaysOutput(TypedDict):
    """legal_plays: the readings open to the hand (cards optional)."""

    plays: list[dict[str, Any]]


class TributeInput(TypedDict):
    """tribute: the last finish, the new deal, the new level."""

    finish: list[int]
    hands: list[list[str]]
    level: str


class SettleInput(TypedDict):
    """settle: a match state and a round's finish."""

    state: dict[str, Any]
    finish: list[int]


class ReplayInput(TypedDict):
    """replay: a deal, level, leader and scripted actions."""

    hands: list[list[str]]
    level: str
    leader: int
    actions: list[dict[str, Any]]


class ScoreInput(TypedDict):
    """score: the winning team, the last finish, the final level."""

    winner: int
    finish: str
    final_level: str


@dataclass(frozen=True)
class EngineInfo:
    """What an engine says about itself: name, version, variant, options, operations."""

    name: str
    version: str
    variant: str
    options: Mapping[str, Any] = field(default_factory=dict)
    operations: tuple[str, ...] = OPERATION_NAMES

    def to_json(self) -> Json:
        """The facts as in the process protocol's `hello` answer."""
        return {
            "name": self.name,
            "version": self.version,
            "variant": self.variant,
            "options": dict(self.options),
            "operations": list(self.operations),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> EngineInfo:
        """The facts from a `hello` answer; errors name the missing or malformed field."""
        missing = [k for k in ("name", "variant") if k not in data]
        if missing:
            raise HarnessError(f"engine description lacks {', '.join(missing)}: {dict(data)!r}")
        operations = data.get("operations", list(OPERATION_NAMES))
        options = data.get("options") or {}
        if not isinstance(operations, list) or not isinstance(options, dict):
            raise HarnessError(
                "engine description: `operations` must be a list and `options` an object"
            )
        return EngineInfo(
            str(data["name"]),
            str(data.get("version", "?")),
            str(data["variant"]),
            options,
            tuple(str(o) for o in operations),
        )


class EngineError(HarnessError):
    """An engine could not answer; `kind` says how (see `KINDS`), `detail` what was seen."""

    KINDS = ("unsupported", "invalid_input", "internal", "crash", "timeout", "protocol")

    def __init__(self, kind: str, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


def unwrap_response(response: Mapping[str, Any]) -> Json:
    """The output of a protocol response `{id, output}`, or its `{error}` raised as EngineError."""
    if "error" in response:
        error = response["error"] if isinstance(response["error"], dict) else {}
        kind = str(error.get("kind", "internal"))
        raise EngineError(
            kind if kind in EngineError.KINDS else "internal",
            str(error.get("message", "the engine reported an error")),
        )
    output = response.get("output")
    if not isinstance(output, dict):
        raise EngineError(
            "protocol",
            "the response has no `output` object",
            json.dumps(dict(response), ensure_ascii=False)[:300],
        )
    return output


class Unsupported(EngineError):
    """The engine does not support this operation (a case of it is `unsupported`)."""

    def __init__(self, operation: str) -> None:
        super().__init__("unsupported", f"operation {operation!r} is not supported")


@runtime_checkable
class Engine(Protocol):
    """A Guandan engine as the harness sees it: the Python protocol (引擎介面)."""

    def describe(self) -> EngineInfo:
        """Name, version, the variant and options implemented, the operations supported."""
        ...

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """Every reading of these cards at this level (逢人配 included)."""
        ...

    def beats(self, request: BeatsInput) -> BeatsOutput:
        """Whether one reading may follow another (壓牌)."""
        ...

    def legal_plays(self, request: LegalPlaysInput) -> LegalPlaysOutput:
        """The plays open to a hand (可出的牌)."""
        ...

    def tribute(self, request: TributeInput) -> Json:
        """Tribute, return and anti-tribute before a round (進貢/還牌/抗貢)."""
        ...

    def settle(self, request: SettleInput) -> Json:
        """The match after a round (升級)."""
        ...

    def replay(self, request: ReplayInput) -> Json:
        """A scripted round: legality, turns, 接風, the end and the order."""
        ...

    def score(self, request: ScoreInput) -> Json:
        """What each seat wins or pays (計分)."""
        ...

    def close(self) -> None:
        """Release what the engine holds (a process, a connection)."""
        ...


class EngineBase:
    """A base for Python adapters: every operation unsupported until the subclass writes it."""

    def describe(self) -> EngineInfo:
        """Subclasses say what they implement."""
        raise NotImplementedError

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """Unsupported unless overridden."""
        raise Unsupported("classify")

    def beats(self, request: BeatsInput) -> BeatsOutput:
        """Unsupported unless overridden."""
        raise Unsupported("beats")

    def legal_plays(self, request: LegalPlaysInput) -> LegalPlaysOutput:
        """Unsupported unless overridden."""
        raise Unsupported("legal_plays")

    def tribute(self, request: TributeInput) -> Json:
        """Unsupported unless overridden."""
        raise Unsupported("tribute")

    def settle(self, request: SettleInput) -> Json:
        """Unsupported unless overridden."""
        raise Unsupported("settle")

    def replay(self, request: ReplayInput) -> Json:
        """Unsupported unless overridden."""
        raise Unsupported("replay")

    def score(self, request: ScoreInput) -> Json:
        """Unsupported unless overridden."""
        raise Unsupported("score")

    def close(self) -> None:
        """Nothing to release."""


def call(engine: Engine, operation: str, data: Mapping[str, Any]) -> Json:
    """Ask `engine` one operation by name, with JSON-shaped input."""
    if operation not in OPERATIONS:
        raise EngineError("unsupported", f"operation {operation!r} is not known")
    if operation not in engine.describe().operations:
        raise Unsupported(operation)
    method: Callable[[Any], Any] = getattr(engine, operation)
    answer = method(dict(data))
    if not isinstance(answer, dict):
        raise EngineError(
            "protocol", f"{operation} answered {type(answer).__name__}, not an object"
        )
    return cast(Json, answer)


class ReferenceEngine(EngineBase):
    """The reference interpreter as an engine, for one bundled variant and its options."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.ruleset = load_variant(variant, dict(options or {}))

    def describe(self) -> EngineInfo:
        """The reference interpreter: every operation."""
        return EngineInfo(
            "guandan-harness reference", __version__, self.ruleset.slug, dict(self.ruleset.chosen)
        )

    def _run(self, operation: str, request: Mapping[str, Any]) -> Json:
        try:
            return run_operation(operation, request, self.ruleset)
        except HarnessError as exc:
            raise EngineError("invalid_input", str(exc)) from None

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """Every reading, by the interpreter."""
        return cast(ClassifyOutput, self._run("classify", request))

    def beats(self, request: BeatsInput) -> BeatsOutput:
        """Whether one reading may follow another, by the interpreter."""
        return cast(BeatsOutput, self._run("beats", request))

    def legal_plays(self, request: LegalPlaysInput) -> LegalPlaysOutput:
        """The plays open to a hand, by the interpreter."""
        return cast(LegalPlaysOutput, self._run("legal_plays", request))

    def tribute(self, request: TributeInput) -> Json:
        """The tribute, by the interpreter."""
        return self._run("tribute", request)

    def settle(self, request: SettleInput) -> Json:
        """The match after a round, by the interpreter."""
        return self._run("settle", request)

    def replay(self, request: ReplayInput) -> Json:
        """A scripted round, by the interpreter."""
        return self._run("replay", request)

    def score(self, request: ScoreInput) -> Json:
        """The score, by the interpreter."""
        return self._run("score", request)


def check_engine_spec(spec: str) -> None:
    """Raise HarnessError unless `spec` has the form of an engine spec (nothing is started)."""
    if spec == "reference":
        return
    if spec.startswith("py:"):
        module_name, _, attribute = spec[len("py:") :].partition(":")
        if module_name and attribute:
            return
        raise HarnessError(f"engine {spec!r}: expected py:module:attribute")
    if spec.startswith("exec:"):
        if spec[len("exec:") :].strip():
            return
        raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
    raise HarnessError(f"engine {spec!r}: expected reference, py:module:attribute or exec:COMMAND")


def load_engine(
    spec: str, variant: str, options: Mapping[str, Any] | None = None, timeout: float = 10.0
) -> Engine:
    """An engine for `variant` from a spec: `reference`, `py:module:attribute`, `exec:COMMAND`.

    For `py:`, the attribute is an Engine, or a callable taking (variant, options) that returns
    one. For `exec:`, the command speaks the process protocol (spec/protocol.md).
    """
    chosen = dict(options or {})
    if spec == "reference":
        return ReferenceEngine(variant, chosen)
    if spec.startswith("py:"):
        return _python_engine(spec, variant, chosen)
    if spec.startswith("exec:"):
        from harness.process import ProcessEngine

        command = spec[len("exec:") :].strip()
        if not command:
            raise HarnessError(f"engine {spec!r}: expected exec:COMMAND")
        return ProcessEngine(command, variant, chosen, timeout=timeout)
    raise HarnessError(f"engine {spec!r}: expected reference, py:module:attribute or exec:COMMAND")


def _python_engine(spec: str, variant: str, options: dict[str, Any]) -> Engine:
    module_name, _, attribute = spec[len("py:") :].partition(":")
    if not module_name or not attribute:
        raise HarnessError(f"engine {spec!r}: expected py:module:attribute")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HarnessError(f"engine {spec!r}: cannot import {module_name}: {exc}") from None
    target = getattr(module, attribute, None)
    if target is None:
        raise HarnessError(f"engine {spec!r}: {module_name} has no attribute {attribute!r}")
    engine: Any = target
    if inspect.isclass(target) or (not isinstance(target, Engine) and callable(target)):
        make: Callable[..., Any] = target
        params = inspect.signature(make).parameters
        engine = make(variant, options) if len(params) >= 2 else make()
    if not isinstance(engine, Engine):
        raise HarnessError(
            f"engine {spec!r}: {attribute} is not an Engine (it needs describe, "
            f"close and the operations {', '.join(OPERATION_NAMES)})"
        )
    return engine
