"""Python-protocol engines for the tests of `guandan check` and the pytest plugin.

`WrongBeats` answers like the reference but inverts `beats`; `make` is a factory returning the
reference engine; `Raises` raises ZeroDivisionError on classify (and supports nothing else);
`PlaysHuaian` claims whatever variant it is asked for but plays huaian (`PlaysMatchRules`,
match-rules); `make_from_ruleset` and
`make_from_ruleset_only` are factories that take the Ruleset itself (a parameter named
`ruleset`) and play it. `NoCounts` answers replays without `counts` and says so
(`not_modelled`), `make_no_counts_undeclared` does the same without saying it; `ToAOnly` refuses
huaian's option value target=8 (`OptionRefused`); `make_misspelt_not_modelled` names a field no
output has, `make_misspelt_operation` an operation that does not exist (`clasify`);
`make_recording` notes in `RECORDED` the variant and options each engine is handed.
`SwappedFollowOrder` compares a follow (壓牌) in the rank order of the other kind of play;
`StalePrevious` compares the first follow after a lead with the previous trick's last follow;
`OtherDefault` takes another default reading when the wild card is laid first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

from harness.engine import (
    BeatsInput,
    BeatsOutput,
    ClassifyInput,
    ClassifyOutput,
    Engine,
    EngineBase,
    EngineInfo,
    Json,
    LegalPlaysInput,
    LegalPlaysOutput,
    OptionRefused,
    ReferenceEngine,
    ReplayInput,
    ScoreInput,
    SettleInput,
    TributeInput,
    Unsupported,
)
from harness.interpreter.operations import replay_from
from harness.interpreter.readings import SEQUENCE_TYPES, PlayRules, Reading
from harness.interpreter.round import PassAction, RoundState
from harness.model.cards import Rank, parse_hand, parse_rank
from harness.model.ruleset import Ruleset


class WrongBeats(EngineBase):
    """The reference interpreter, except that `beats` answers the opposite."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.reference = ReferenceEngine(variant, options)

    def describe(self) -> EngineInfo:
        """The reference's facts under another name."""
        info = self.reference.describe()
        return EngineInfo("wrong-beats", "1", info.variant, info.options, info.operations)

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """As the reference."""
        return self.reference.classify(request)

    def beats(self, request: BeatsInput) -> BeatsOutput:
        """The reference's answer, inverted."""
        answer = self.reference.beats(request)
        return {"beats": not answer["beats"]}

    def legal_plays(self, request: LegalPlaysInput) -> LegalPlaysOutput:
        """As the reference."""
        return self.reference.legal_plays(request)

    def tribute(self, request: TributeInput) -> Json:
        """As the reference."""
        return self.reference.tribute(request)

    def settle(self, request: SettleInput) -> Json:
        """As the reference."""
        return self.reference.settle(request)

    def replay(self, request: ReplayInput) -> Json:
        """As the reference."""
        return self.reference.replay(request)

    def score(self, request: ScoreInput) -> Json:
        """As the reference."""
        return self.reference.score(request)


def make(variant: str, options: Mapping[str, Any]) -> ReferenceEngine:
    """A factory, as `py:module:attribute` allows: the reference engine."""
    return ReferenceEngine(variant, options)


def make_wrong_beats(variant: str, options: Mapping[str, Any]) -> WrongBeats:
    """A factory for `WrongBeats` (`py:...:WrongBeats` itself hands the harness the class)."""
    return WrongBeats(variant, options)


class Raises(EngineBase):
    """An engine with a bug: classify raises ZeroDivisionError; nothing else is supported."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.variant = variant
        self.options = dict(options or {})

    def describe(self) -> EngineInfo:
        """Classify only."""
        return EngineInfo("raises", "1", self.variant, self.options, ("classify",))

    def classify(self, request: ClassifyInput) -> ClassifyOutput:
        """Always divides by zero."""
        raise ZeroDivisionError("classify divided by zero")


def make_raises(variant: str, options: Mapping[str, Any]) -> Raises:
    """A factory for `Raises` (`py:...:Raises` itself hands the harness the class)."""
    return Raises(variant, options)


class PlaysHuaian(EngineBase):
    """Says it plays the variant asked for, but answers as the reference on huaian (on
    `plays`, in a subclass)."""

    plays = "huaian"

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.variant = variant
        self.reference = ReferenceEngine(self.plays, options)

    def describe(self) -> EngineInfo:
        """The reference's facts, under the variant asked for."""
        info = self.reference.describe()
        return EngineInfo(f"plays-{self.plays}", "1", self.variant, info.options, info.operations)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference on the variant it plays."""
        return self.reference.answer(operation, request)


class PlaysMatchRules(PlaysHuaian):
    """Says it plays the variant asked for, but answers as the reference on match-rules."""

    plays = "match-rules"


def make_from_ruleset(variant: str, options: Mapping[str, Any], ruleset: Ruleset) -> Engine:
    """A factory given the Ruleset by name: the reference engine on exactly that object."""
    assert ruleset.slug == variant and dict(ruleset.chosen) == dict(options)
    return ReferenceEngine(ruleset)


def make_from_ruleset_only(ruleset: Ruleset) -> Engine:
    """A factory that takes the Ruleset alone, by name."""
    return ReferenceEngine(ruleset)


class ReorderedFinish(EngineBase):
    """The reference, but a replay's finish lists two seats in the other order: the two losers
    of a double-down (who never went out, so either order is right), or, with `first=True`,
    the first two out (which is a real difference)."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.reference = ReferenceEngine(variant, options)
        self.first = False

    def describe(self) -> EngineInfo:
        """The reference's facts under another name."""
        info = self.reference.describe()
        return EngineInfo("reordered-finish", "1", info.variant, info.options, info.operations)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, the finish of a double-down replay reordered."""
        output = self.reference.answer(operation, request)
        finish = output.get("finish") if operation == "replay" else None
        if isinstance(finish, list) and output.get("double_down"):
            a, b, c, d = finish
            output["finish"] = [b, a, c, d] if self.first else [a, b, d, c]
        return output


def make_reordered_first(variant: str, options: Mapping[str, Any]) -> ReorderedFinish:
    """`ReorderedFinish` that swaps the first two out: it must fail."""
    engine = ReorderedFinish(variant, options)
    engine.first = True
    return engine


class NoCounts(EngineBase):
    """The reference, but a replay's steps carry no `counts` (hand counts announced unasked):
    a partial model that says so in `not_modelled`, unless `declare` is False."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.reference = ReferenceEngine(variant, options)
        self.declare = True

    def describe(self) -> EngineInfo:
        """The reference's facts, `counts` declared not modelled."""
        info = self.reference.describe()
        left_out = ("counts",) if self.declare else ()
        return EngineInfo("no-counts", "1", info.variant, info.options, info.operations, left_out)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, every replay step without `counts`."""
        output = self.reference.answer(operation, request)
        if operation == "replay":
            output["steps"] = [
                {k: v for k, v in step.items() if k != "counts"} for step in output["steps"]
            ]
        return output


def make_no_counts_undeclared(variant: str, options: Mapping[str, Any]) -> NoCounts:
    """`NoCounts` that does not declare `counts` not modelled: its replays with counts fail."""
    engine = NoCounts(variant, options)
    engine.declare = False
    return engine


class ToAOnly(ReferenceEngine):
    """The reference, for matches played to A only: it refuses huaian's target=8."""

    def __init__(self, variant: str, options: Mapping[str, Any]) -> None:
        if options.get("target") == "8":
            raise OptionRefused("target", options["target"], "this engine plays to A only")
        super().__init__(variant, options)


def make_misspelt_not_modelled(variant: str, options: Mapping[str, Any]) -> EngineBase:
    """An engine whose description names `count`, which no output has: it cannot start."""

    class Misspelt(EngineBase):
        """Misspells a field name."""

        def describe(self) -> EngineInfo:
            """`count` for `counts`: refused when made."""
            return EngineInfo("misspelt", "1", variant, options, not_modelled=("count",))

    return Misspelt()


def make_misspelt_operation(variant: str, options: Mapping[str, Any]) -> EngineBase:
    """An engine whose description lists `clasify`, no operation: it cannot start."""

    class Misspelt(EngineBase):
        """Misspells an operation's name."""

        def describe(self) -> EngineInfo:
            """`clasify` for `classify`: refused when made."""
            return EngineInfo("misspelt", "1", variant, options, operations=("clasify",))

    return Misspelt()


class AnswersNothing(EngineBase):
    """A day-one engine that declares no operation at all: every case is unsupported."""

    def __init__(self, variant: str, options: Mapping[str, Any]) -> None:
        self._variant, self._options = variant, dict(options)

    def describe(self) -> EngineInfo:
        """No operation answered."""
        return EngineInfo("answers-nothing", "1", self._variant, self._options, operations=())


class RefusesEveryInput(EngineBase):
    """Declares classify, then answers `unsupported` to every input: nothing is ever compared."""

    def __init__(self, variant: str, options: Mapping[str, Any]) -> None:
        self._variant, self._options = variant, dict(options)

    def describe(self) -> EngineInfo:
        """Classify declared, never answered."""
        return EngineInfo("refuses", "1", self._variant, self._options, operations=("classify",))


class SmallClassifier(ReferenceEngine):
    """A correct partial engine, like a day-one one: classify only, and only for sets of one to
    three cards; any other set is refused as unsupported."""

    def describe(self) -> EngineInfo:
        """Classify only."""
        info = super().describe()
        return EngineInfo("small-classifier", "1", info.variant, info.options, ("classify",))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The reference's answer for a set of at most three cards; unsupported otherwise."""
        if operation != "classify" or len(request.get("cards", ())) > 3:
            raise Unsupported(operation)
        return super().answer(operation, request)


RECORDED: list[tuple[str, dict[str, Any]]] = []


def make_recording(variant: str, options: Mapping[str, Any]) -> ReferenceEngine:
    """The reference engine, the variant and options it is handed noted in `RECORDED`."""
    RECORDED.append((variant, dict(options)))
    return ReferenceEngine(variant, options)


class Slow(EngineBase):
    """The reference, taking 20 ms over every answer (a slow engine, for --jobs)."""

    def __init__(self, variant: str, options: Mapping[str, Any] | None = None) -> None:
        self.reference = ReferenceEngine(variant, options)

    def describe(self) -> EngineInfo:
        """The reference's facts under another name."""
        info = self.reference.describe()
        return EngineInfo("slow", "1", info.variant, info.options, info.operations)

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """As the reference, 20 ms later; the process id is noted where SLOW_ENGINE_PIDS names
        a file, so a test can tell which processes answered."""
        time.sleep(0.02)
        noted = os.environ.get("SLOW_ENGINE_PIDS")
        if noted:
            with open(noted, "a", encoding="utf-8") as pids:
                pids.write(f"{os.getpid()}\n")
        return self.reference.answer(operation, request)


class _SwappedOrderRules(PlayRules):
    """The play rules of the variant, but a follow's rank order is picked by the wrong type."""

    def _swapped_key(self, reading: Reading) -> int:
        """The key the buggy engine compares by: the order of the other kind of play."""
        if reading.type in SEQUENCE_TYPES:
            return self.value.get(reading.rank, -1)  # the level card above A, as for singles
        # Sequences' natural order; jokers, absent from it, keep their place on top.
        return self.natural_index.get(reading.rank, self.value[reading.rank])

    def refusal(self, play: Reading, previous: Reading) -> str | None:
        """The reference's verdict where the types, sizes or ladder steps decide it; otherwise
        the ranks compared by `_swapped_key`."""
        refused = super().refusal(play, previous)
        if refused in ("bombs.ladder", "compare.same_type_and_size"):
            return refused
        if self.ladder_step(play) != self.ladder_step(previous):
            return refused  # a bomb on a plain play, or a higher ladder step: no ranks compared
        mine, theirs = self._swapped_key(play), self._swapped_key(previous)
        if mine > theirs:
            return None
        if mine == theirs:
            return None if self.rules.compare.equal_beats else "compare.equal_beats"
        if play.type in SEQUENCE_TYPES:
            return "compare.sequence_key"
        if self.level in (play.rank, previous.rank):
            return "ranks.level_card.position"
        return "ranks.jokers" if play.rank.is_joker or previous.rank.is_joker else "ranks.natural"


class SwappedFollowOrder(ReferenceEngine):
    """A type/value swap when following (壓牌): the engine compares a follow with the play on
    the table in the rank order of the other kind of play.

    Modelled on a real bug: an inverted test in an engine's comparison, `natural order if the
    type is a sequence` read the wrong way round, so that singles, pairs, triples, full houses
    and bombs are compared in the natural order (the level card, 級牌, below A, where it should
    be above it) and straights, tubes, plates and straight flushes with the level card above A.
    A level-card single is refused on an A, and a K accepted on a level-card single. Leading is
    not compared, so it is unaffected. `beats` and `replay` carry the bug; every other
    operation is answered as the reference does (`legal_plays` has its own listing)."""

    def __init__(self, variant: str | Ruleset, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(variant, options)
        self._rules: dict[Rank, _SwappedOrderRules] = {}

    def describe(self) -> EngineInfo:
        """The reference's facts under the bug's name."""
        info = super().describe()
        return EngineInfo("planted-swapped-follow-order", "1", info.variant, info.options)

    def _buggy(self, level: Rank) -> _SwappedOrderRules:
        if level not in self._rules:
            self._rules[level] = _SwappedOrderRules(self.ruleset.rules, level)
        return self._rules[level]

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """`beats` and `replay` on the buggy rules; the rest as the reference."""
        if operation not in ("beats", "replay"):
            return super().answer(operation, request)
        super().answer(operation, request)  # malformed input refused as the reference does
        rules = self._buggy(parse_rank(str(request["level"])))
        if operation == "beats":
            play = Reading.from_json(request["play"])
            previous = Reading.from_json(request["previous"])
            return {"beats": rules.beats(play, previous)}
        return self._replay(request, rules)

    @staticmethod
    def _replay(request: Mapping[str, Any], rules: _SwappedOrderRules) -> Json:
        """The reference's replay (its own `replay_from`), on the buggy rules."""
        hands = tuple(parse_hand([str(c) for c in h]) for h in request["hands"])
        leader = request["leader"]
        return replay_from(RoundState(rules, hands, leader, leader), request["actions"])


class PathLikeTypes(ReferenceEngine):
    """Classify answers a reading whose type is a path, and long (issue 23: `fuzz --out` built
    file names from an engine's answer, writing into sub-folders or failing on the length)."""

    def describe(self) -> EngineInfo:
        """Classify only."""
        info = super().describe()
        return EngineInfo("path-like-types", "1", info.variant, info.options, ("classify",))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """One reading of a type no variant has, named like a path."""
        kind = "../../escaped/" + "x" * 300
        return {"readings": [{"type": kind, "rank": "3", "size": 1}], "default": None}


class MalformedReadings(ReferenceEngine):
    """Classify answered in the wrong shape, as a new engine's author might: `readings` a string
    (`{"readings": "pair"}`), not a list of readings. A protocol error, never a plain failure."""

    def describe(self) -> EngineInfo:
        """Classify only."""
        info = super().describe()
        return EngineInfo("malformed", "1", info.variant, info.options, ("classify",))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The type of the first reading where the list of readings should be."""
        output = super().answer(operation, request)
        readings = output.get("readings") or [{"type": "nothing"}]
        return {"readings": readings[0]["type"], "default": None}


class OtherDefault(ReferenceEngine):
    """Classify takes another default reading (默認讀法) when the wild card (逢人配) is laid
    first: of the readings the variant leaves a default among, the last listed other than the
    variant's default. Laid otherwise, the variant's. No clause value is this: the engine's
    own answers with the wild card laid later refute "the highest reading by default"."""

    def describe(self) -> EngineInfo:
        """Classify only."""
        info = super().describe()
        return EngineInfo("other-default", "1", info.variant, info.options, ("classify",))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The reference's classification, the default changed when the wild card comes first."""
        output = super().answer(operation, request)
        default, cards = output.get("default"), list(request.get("cards", ()))
        if default is not None and cards and cards[0] == f"H{request['level']}":
            others = [r for r in output["readings"] if r != default]
            output["default"] = others[-1] if others else default
        return output


class StalePrevious(ReferenceEngine):
    """A previous-play mix-up when following (壓牌): the engine keeps as "the previous play"
    the last play made while following, and a lead does not replace it, so the first follow
    after a new lead is compared with the previous trick's last follow, not with the lead. A
    follow the variant allows that does not beat that stale play is refused, with no clause
    named (`rule` left out); every other step is the reference's. Only `replay` carries it."""

    def describe(self) -> EngineInfo:
        """Replay only."""
        info = super().describe()
        return EngineInfo("stale-previous", "1", info.variant, info.options, ("replay",))

    def answer(self, operation: str, request: Mapping[str, Any]) -> Json:
        """The reference's replay, cut at the first follow the stale comparison refuses."""
        output = super().answer(operation, request)
        rules = PlayRules(self.ruleset.rules, parse_rank(str(request["level"])))
        hands = tuple(parse_hand([str(c) for c in h]) for h in request["hands"])
        state = RoundState(rules, hands, request["leader"], request["leader"])
        stale: Reading | None = None
        for i, (action, step) in enumerate(zip(request["actions"], output["steps"], strict=False)):
            if not step["legal"] or "ask" in action:
                break
            if action.get("pass"):
                state = state.apply(PassAction(action["seat"]))
                continue
            declared = action.get("reading")
            reading = None if declared is None else Reading.from_json(declared)
            play = state.play_action(action["seat"], parse_hand(action["cards"]), reading)
            if state.trick is not None:
                if stale is not None and not rules.beats(play.play.reading, stale):
                    refused = {"legal": False, "reason": "it does not beat the previous play"}
                    steps = [*output["steps"][:i], refused]
                    return {"steps": steps, "over": False, "finish": None, "double_down": False}
                stale = play.play.reading
            state = state.apply(play)
        return output
