"""The engine API (引擎介面): the Python protocol every engine adapter implements.

An engine implements one variant (with the options chosen for it) and answers the operations of
DESIGN.md on the JSON-shaped objects of `spec/case.schema.json`, here as TypedDicts. It says in
`describe()` which variant and options it implements and which operations it supports; an
operation it does not support raises `Unsupported`, and such a case is reported as unsupported,
never as a failure. Subclass `EngineBase` and either write the operations one by one, or answer
them all in one method, `answer(operation, request)`.

An engine that does not play an option's value raises `OptionRefused` from its factory,
constructor or `describe()`; one that does not model some output fields names them in
`EngineInfo.not_modelled` (field names of `spec/case.schema.json`'s outputs), and they are left
out of the comparison.
"""

# No `from __future__ import annotations` here: TypedDict must see `NotRequired` itself, not a
# string, to leave a key out of `__required_keys__` (Python 3.11).
import difflib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NotRequired, Protocol, TypedDict, cast, runtime_checkable

from harness.errors import EngineError, EngineErrorKind, HarnessError, Unsupported
from harness.interpreter.operations import OPERATIONS
from harness.model._schemas import load_schema, schema_check

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
    """classify: every reading, and the default one or None (which an answer may leave out)."""

    readings: list[ReadingJson]
    default: NotRequired[ReadingJson | None]


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


class LegalActionsInput(TypedDict):
    """legal_actions: a hand at a level, leading (previous None) or against a reading."""

    hand: list[str]
    level: str
    previous: NotRequired[ReadingJson | None]


class LegalActionJson(TypedDict):
    """One action: its cards and the readings they may be declared as."""

    cards: list[str]
    readings: list[ReadingJson]


class LegalActionsOutput(TypedDict):
    """legal_actions: every distinct set of cards the hand can play, and how many."""

    actions: NotRequired[list[LegalActionJson]]
    total: NotRequired[int]


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
    """replay: a deal, level, leader and scripted actions (plays, passes and asks)."""

    hands: list[list[str]]
    level: str
    leader: int
    actions: list[dict[str, Any]]


class ScoreInput(TypedDict):
    """score: the round's winning team, the levels it gained, the level the match is played to,
    and whether the round ended the match."""

    winner: int
    levels_gained: int
    final_level: str
    match_over: bool


def _property_names(node: Any, defs: Mapping[str, Any], seen: set[str]) -> Iterator[str]:
    """Every property name a schema node allows, at any depth, following `#/$defs/` refs."""
    if isinstance(node, list):
        for item in node:
            yield from _property_names(item, defs, seen)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name not in seen:
            seen.add(name)
            yield from _property_names(defs[name], defs, seen)
    properties = node.get("properties")
    if isinstance(properties, dict):
        yield from properties
        yield from _property_names(list(properties.values()), defs, seen)
    for key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
        yield from _property_names(node.get(key), defs, seen)


@functools.cache
def output_fields() -> frozenset[str]:
    """Every field name an operation's output may hold, at any depth (the properties of the
    `<operation>_output` definitions of `spec/case.schema.json`): the names `not_modelled` may
    give."""
    defs = load_schema("case.schema.json")["$defs"]
    seen: set[str] = set()
    names: set[str] = set()
    for operation in OPERATION_NAMES:
        names.update(_property_names(defs[f"{operation}_output"], defs, seen))
    return frozenset(names)


def _did_you_mean(name: str) -> str:
    """`, did you mean 'classify'?` for a near miss of an operation's name, else nothing."""
    close = difflib.get_close_matches(name, OPERATION_NAMES, n=1)
    return f", did you mean {close[0]!r}?" if close else ""


class Reach(StrEnum):
    """Which rule sets an engine plays (可玩規則), as its hello says (`rulesets`)."""

    NAMED = "named"
    """Only the variants it names: a variant derived for cases is no variant it plays."""
    DERIVED = "derived"
    """Also a variant derived from one it plays, by its derived name (`huaian[flow.pass=...]`)."""
    ANY = "any"
    """Any rule set it is handed, read from the hello's `clauses` (the rules as data)."""


@dataclass(frozen=True)
class EngineInfo:
    """What an engine says about itself: name, version, variant, options, operations, the
    output fields it does not model (left out of the comparison; a case that names one and
    otherwise agrees is `omitted`, passed with omissions), and which rule sets it plays
    (`rulesets`: a variant derived for cases runs only on an engine that says it plays it)."""

    name: str
    version: str
    variant: str
    options: Mapping[str, Any] = field(default_factory=dict)
    operations: tuple[str, ...] = OPERATION_NAMES
    not_modelled: tuple[str, ...] = ()
    rulesets: Reach = Reach.NAMED

    def __post_init__(self) -> None:
        if self.rulesets not in tuple(Reach):
            raise HarnessError(
                f"rulesets={self.rulesets!r}: expected one of {', '.join(map(repr, Reach))}"
            )
        object.__setattr__(self, "rulesets", Reach(self.rulesets))
        # A misspelt field would leave the field compared and the engine's intent unmet: refuse.
        if isinstance(self.not_modelled, str):
            raise HarnessError(
                f"not_modelled={self.not_modelled!r}: expected a list of output field names"
            )
        object.__setattr__(self, "not_modelled", tuple(self.not_modelled))
        # A misspelt operation (`clasify`) would leave the engine unjudged on it, every case
        # "unsupported" and the run green: refuse it by name, as a start-up error.
        strange = [name for name in self.operations if name not in OPERATIONS]
        if strange:
            raise HarnessError(
                "operations: "
                + "; ".join(
                    f"{name!r} is not an operation{_did_you_mean(name)}" for name in strange
                )
                + f" (known: {', '.join(OPERATION_NAMES)})"
            )
        unknown = [name for name in self.not_modelled if name not in output_fields()]
        if unknown:
            raise HarnessError(
                f"not_modelled: {', '.join(repr(n) for n in unknown)} "
                f"{'is not an output field' if len(unknown) == 1 else 'are not output fields'} "
                f"of spec/case.schema.json (known: {', '.join(sorted(output_fields()))})"
            )

    def to_json(self) -> Json:
        """The facts as in the process protocol's `hello` answer (`not_modelled` only when the
        engine leaves something out)."""
        out: Json = {
            "name": self.name,
            "version": self.version,
            "variant": self.variant,
            "options": dict(self.options),
            "operations": list(self.operations),
        }
        if self.not_modelled:
            out["not_modelled"] = list(self.not_modelled)
        if self.rulesets is not Reach.NAMED:
            out["rulesets"] = self.rulesets.value
        return out

    @property
    def plays_derived(self) -> bool:
        """Whether the engine says it plays a variant derived for cases (`rulesets` derived or
        any); the cases of one are not applicable to any other engine."""
        return self.rulesets is not Reach.NAMED

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "EngineInfo":
        """The facts from a `hello` answer; errors name the missing or malformed field."""
        missing = [k for k in ("name", "variant") if k not in data]
        if missing:
            raise HarnessError(f"engine description lacks {', '.join(missing)}: {dict(data)!r}")
        operations = data.get("operations", list(OPERATION_NAMES))
        options = data.get("options") or {}
        not_modelled = data.get("not_modelled", [])
        if not isinstance(operations, list) or not isinstance(options, dict):
            raise HarnessError(
                "engine description: `operations` must be a list and `options` an object"
            )
        if not isinstance(not_modelled, list):
            raise HarnessError(
                f"engine description: `not_modelled` must be a list of output field names, "
                f"not {not_modelled!r}"
            )
        return EngineInfo(
            str(data["name"]),
            str(data.get("version", "?")),
            str(data["variant"]),
            options,
            tuple(str(o) for o in operations),
            tuple(str(n) for n in not_modelled),
            data.get("rulesets", Reach.NAMED),
        )


_WARNED: set[str] = set()
ERROR_KINDS = ("unsupported", "invalid_input", "internal")
"""The kinds of error an engine may answer (`spec/protocol.schema.json`)."""


def protocol_warning(text: str) -> None:
    """Say once per process, on stderr, that an engine bends the protocol in a way the
    harness works around (an unknown error kind, batch answers it cannot use): the run goes
    on, but the author should know."""
    if text in _WARNED:
        return
    _WARNED.add(text)
    sys.stderr.write(f"guandan: warning: {text}\n")


def unwrap_response(response: Mapping[str, Any]) -> Json:
    """The output of a protocol response `{id, output}`, or its `{error}` raised as EngineError
    (an error kind the protocol does not have is taken as `internal`, and warned of once)."""
    if "error" in response:
        error = response["error"] if isinstance(response["error"], dict) else {}
        kind = str(error.get("kind", "internal"))
        known = kind in ERROR_KINDS
        if not known:
            protocol_warning(
                f"the engine answered an error of kind {json.dumps(kind)[:60]}, which the "
                f"protocol does not have ({', '.join(ERROR_KINDS)}): taken as internal"
            )
        raise EngineError(
            EngineErrorKind(kind) if known else EngineErrorKind.INTERNAL,
            str(error.get("message", "the engine reported an error")),
        )
    output = response.get("output")
    if not isinstance(output, dict):
        raise EngineError(
            EngineErrorKind.PROTOCOL,
            "the response has no `output` object",
            json.dumps(dict(response), ensure_ascii=False)[:300],
        )
    return output


@runtime_checkable
class Engine(Protocol):
    """A Guandan engine as the harness sees it: the Python protocol (引擎介面)."""

    def describe(self) -> EngineInfo:
        """Name, version, the variant and options implemented, the operations supported, the
        output fields not modelled; `OptionRefused` when it does not play an option's value."""
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

    def legal_actions(self, request: LegalActionsInput) -> LegalActionsOutput:
        """Every distinct set of cards the hand can play, with its readings (可出的牌組)."""
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
    """A base for Python adapters: every operation goes through `answer`, unsupported until
    the subclass writes the operation or `answer` itself."""

    def describe(self) -> EngineInfo:
        """Subclasses say what they implement."""
        raise NotImplementedError

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """Answer `operation` on `request`: unsupported unless a subclass says otherwise."""
        raise Unsupported(operation)

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """Every reading of these cards at this level (逢人配 included)."""
        return cast(ClassifyOutput, self.answer("classify", request))

    def beats(self, request: BeatsInput) -> BeatsOutput:
        """Whether one reading may follow another (壓牌)."""
        return cast(BeatsOutput, self.answer("beats", request))

    def legal_plays(self, request: LegalPlaysInput) -> LegalPlaysOutput:
        """The plays open to a hand (可出的牌)."""
        return cast(LegalPlaysOutput, self.answer("legal_plays", request))

    def legal_actions(self, request: LegalActionsInput) -> LegalActionsOutput:
        """Every distinct set of cards the hand can play, with its readings (可出的牌組)."""
        return cast(LegalActionsOutput, self.answer("legal_actions", request))

    def tribute(self, request: TributeInput) -> Json:
        """Tribute, return and anti-tribute before a round (進貢/還牌/抗貢)."""
        return self.answer("tribute", request)

    def settle(self, request: SettleInput) -> Json:
        """The match after a round (升級)."""
        return self.answer("settle", request)

    def replay(self, request: ReplayInput) -> Json:
        """A scripted round: legality, turns, 接風, the end and the order."""
        return self.answer("replay", request)

    def score(self, request: ScoreInput) -> Json:
        """What each seat wins or pays (計分)."""
        return self.answer("score", request)

    def close(self) -> None:
        """Nothing to release."""


def checked_output(operation: str, output: Json, not_modelled: Sequence[str] = ()) -> Json:
    """`output` when it has the shape of `operation`'s output (`spec/case.schema.json`; a field
    the engine does not model may be missing); else EngineError of kind `protocol` naming the
    field and what was expected: a malformed answer is an error, never a plain failure."""
    check = schema_check("case.schema.json", f"{operation}_output")
    if check.valid(output):
        return output
    problems = [
        p
        for p in check.problems(output)
        if not (p.missing is not None and p.missing in not_modelled)
    ]
    if not problems:
        return output
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise EngineError(
        EngineErrorKind.PROTOCOL,
        f"the {operation} answer does not have the output's shape: {problems[0]}{more}",
        "answer: " + json.dumps(output, ensure_ascii=False, default=str)[:300],
        answer=output,
    )


def call(engine: Engine, operation: str, data: Mapping[str, Any]) -> Json:
    """Ask `engine` one operation by name, with JSON-shaped input; its answer is checked against
    the operation's output schema (`checked_output`)."""
    if operation not in OPERATIONS:
        raise EngineError(EngineErrorKind.UNSUPPORTED, f"operation {operation!r} is not known")
    if operation not in engine.describe().operations:
        raise Unsupported(operation)
    method: Callable[[Any], Any] = getattr(engine, operation)
    answer = method(dict(data))
    if not isinstance(answer, dict):
        raise EngineError(
            EngineErrorKind.PROTOCOL, f"{operation} answered {type(answer).__name__}, not an object"
        )
    return checked_output(operation, cast(Json, answer), engine.describe().not_modelled)
