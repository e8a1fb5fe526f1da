"""A resolved rule set (規則): clauses with provenance, options, and a typed view of the rules.

The typed view (`Rules`) mirrors `spec/ruleset.schema.json`: a field name is the last part of a
clause id, so `ruleset.rules.levels.up.double_down` reads the clause `levels.up.double_down`. A
watched copy (`Ruleset.watched`) records which clauses are read through it (查閱記錄), there.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
import types
import typing
import uuid
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Union

from harness.errors import HarnessError, RulesShapeError
from harness.model.cards import Rank, Suit
from harness.model.seats import FinishKind
from harness.model.sources import Source

# ---------------------------------------------------------------------------------------------
# Provenance and clauses


class ProvenanceKind(StrEnum):
    """Where a clause comes from: stated by its source (明文), stated with our reading of the
    source's words (據原文推定), or assumed by us where the source is silent (推定)."""

    STATED = "stated"
    READ = "read"
    ASSUMED = "assumed"

    @property
    def quoted(self) -> bool:
        """Whether the clause quotes its source (stated, or read from a quote)."""
        return self is not ProvenanceKind.ASSUMED

    @property
    def ours(self) -> bool:
        """Whether the value is only our reading (assumed, or read into a quote): the
        question "does the source say exactly this?" is answered no."""
        return self is not ProvenanceKind.STATED


@dataclass(frozen=True)
class Provenance:
    """Where a clause comes from: a quote from a source; a quote and the reading we take of it
    with the other readings; or our assumption with the alternatives."""

    kind: ProvenanceKind
    source: str | None = None
    place: str | None = None
    quote: str | None = None
    reason: str | None = None
    alternatives: tuple[str, ...] = ()
    reading: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The provenance as written in a variant file."""
        if self.kind is ProvenanceKind.STATED:
            return {"stated": {"source": self.source, "place": self.place, "quote": self.quote}}
        if self.kind is ProvenanceKind.READ:
            return {
                "read": {
                    "source": self.source,
                    "place": self.place,
                    "quote": self.quote,
                    "reading": self.reading,
                    "alternatives": list(self.alternatives),
                }
            }
        return {"assumed": {"reason": self.reason, "alternatives": list(self.alternatives)}}


@dataclass(frozen=True)
class Clause:
    """One rule of a variant (條款): a stable dotted id, its value, and its provenance."""

    id: str
    value: Any
    provenance: Provenance
    observable: bool = True
    note: str | None = None
    set_by_option: str | None = None
    file: str | None = None

    @property
    def stated(self) -> bool:
        """Whether the variant's source states this clause."""
        return self.provenance.kind is ProvenanceKind.STATED

    def to_json(self) -> dict[str, Any]:
        """The clause as a JSON-shaped mapping (value, provenance, note)."""
        out: dict[str, Any] = {"value": self.value, **self.provenance.to_json()}
        if self.note:
            out["note"] = self.note
        if not self.observable:
            out["observable"] = False
        if self.set_by_option:
            out["set_by_option"] = self.set_by_option
        return out


@dataclass(frozen=True)
class Option:
    """A match-start choice (開局選項); it sets one clause, whose value is the default."""

    name: str
    sets: str
    description: str
    default: Any
    provenance: Provenance
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        """Return `value` if the option allows it, else raise an error naming the option."""
        if self.choices is not None:
            for choice in self.choices:
                if _same(choice, value):
                    return choice
            allowed = ", ".join(str(c) for c in self.choices)
            raise HarnessError(f"option {self.name}={value!r}: expected one of {allowed}")
        number = value
        if isinstance(value, str):
            try:
                number = int(value)
            except ValueError:
                raise HarnessError(
                    f"option {self.name}={value!r}: expected a whole number"
                ) from None
        if not isinstance(number, int) or isinstance(number, bool):
            raise HarnessError(f"option {self.name}={value!r}: expected a whole number")
        if self.minimum is not None and number < self.minimum:
            raise HarnessError(f"option {self.name}={number}: expected at least {self.minimum}")
        if self.maximum is not None and number > self.maximum:
            raise HarnessError(f"option {self.name}={number}: expected at most {self.maximum}")
        return number

    def to_json(self) -> dict[str, Any]:
        """The option as a JSON-shaped mapping."""
        out: dict[str, Any] = {"sets": self.sets, "description": self.description}
        out["default"] = self.default
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        out.update(self.provenance.to_json())
        return out


def _same(choice: Any, value: Any) -> bool:
    # Command lines give text: `--option target=8` must match the choice "8", and
    # `--option passing_a=false` the choice false (written as JSON writes it).
    if isinstance(choice, bool) or isinstance(value, bool):
        return bool(
            (type(choice) is type(value) and choice == value) or json.dumps(choice) == value
        )
    return bool(choice == value or str(choice) == str(value))


# ---------------------------------------------------------------------------------------------
# Value types used in clauses


class CombinationType(StrEnum):
    """A combination type (牌型), named as in every case, report and page."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    FULL_HOUSE = "full_house"
    STRAIGHT = "straight"
    TUBE = "tube"
    PLATE = "plate"
    BOMB = "bomb"
    STRAIGHT_FLUSH = "straight_flush"
    JOKER_BOMB = "joker_bomb"

    @property
    def chinese(self) -> str:
        """The Chinese name of the type."""
        return _COMBINATION_CHINESE[self]


_COMBINATION_CHINESE = {
    CombinationType.SINGLE: "單張",
    CombinationType.PAIR: "對子",
    CombinationType.TRIPLE: "三同張",
    CombinationType.FULL_HOUSE: "三帶二",
    CombinationType.STRAIGHT: "順子",
    CombinationType.TUBE: "三連對/木板",
    CombinationType.PLATE: "鋼板/三順",
    CombinationType.BOMB: "炸彈",
    CombinationType.STRAIGHT_FLUSH: "同花順/火箭",
    CombinationType.JOKER_BOMB: "四大天王/天王炸",
}


class PlaceRef(StrEnum):
    """A seat named by the last round's finish or the tribute: 上游, 二游, 下游, the payer…."""

    FIRST = "first"
    SECOND = "second"
    THIRD = "third"
    LAST = "last"
    PAYER = "payer"
    BIGGER_PAYER = "bigger_payer"
    SMALLER_PAYER = "smaller_payer"
    FIRST_NEXT = "first_next"
    FIRST_PREVIOUS = "first_previous"


class JokerUse(StrEnum):
    """Whether a combination's groups may be jokers (王): never, allowed, or only jokers."""

    EXCLUDED = "excluded"
    ALLOWED = "allowed"
    ONLY = "only"


class LevelPosition(StrEnum):
    """Where the level card (主牌/參謀) ranks outside sequences."""

    ABOVE_ACE = "above_ace"
    NATURAL = "natural"


class SequencePlace(StrEnum):
    """Whether the level card may stand in its natural place in a sequence."""

    NATURAL = "natural"
    EXCLUDED = "excluded"


class WildStandsFor(StrEnum):
    """What the wild card (逢人配) may stand for."""

    ANY_NON_JOKER = "any_non_joker"


class DefaultChoice(StrEnum):
    """Which reading an undeclared ambiguous wild play takes."""

    LOWEST = "lowest"
    HIGHEST = "highest"


class FinalGain(StrEnum):
    """What a declarer gains winning its final round without the finish it needs (不升級)."""

    NONE = "none"
    TABLE = "table"


class PassRule(StrEnum):
    """When a player may pass (棄權/不要)."""

    ALWAYS = "always"
    WHEN_UNABLE = "when_unable"


class JiefengRule(StrEnum):
    """Who leads when a finisher's last play stands (接風/借風)."""

    PARTNER = "partner"
    NEXT_ACTIVE = "next_active"


class TieRule(StrEnum):
    """How two equal tributes after a double-down are assigned."""

    TO_PREVIOUS_SEAT = "to_previous_seat"


class ReturnTo(StrEnum):
    """Whom a winner returns a card to (還牌) after a double tribute."""

    PAYER = "payer"
    NEXT_SEAT = "next_seat"


class RevealWhen(StrEnum):
    """When returns are laid face down and shown together (暗扣…同時亮開)."""

    NEVER = "never"
    DOUBLE = "double"
    TIE = "tie"


class DisclosureMode(StrEnum):
    """How a hand count (報數) is told."""

    ANNOUNCE = "announce"
    ON_REQUEST = "on_request"
    ALWAYS_VISIBLE = "always_visible"


@dataclass(frozen=True)
class IntRange:
    """An inclusive range of whole numbers; `max` None means no limit but the deck's."""

    min: int
    max: int | None

    def __contains__(self, n: object) -> bool:
        return isinstance(n, int) and n >= self.min and (self.max is None or n <= self.max)


@dataclass(frozen=True)
class Kicker:
    """A group carried along that does not count in comparison (三帶二's pair)."""

    group_size: int
    distinct_rank: bool
    jokers: bool


@dataclass(frozen=True)
class Shape:
    """The shape of a combination: rank groups, their size, sequence, suit, kicker, jokers."""

    groups: IntRange
    group_size: IntRange
    consecutive: bool
    same_suit: bool
    kicker: Kicker | None
    jokers: JokerUse


@dataclass(frozen=True)
class LadderStep:
    """One step of the bomb ladder (炸彈大小順序): a type and, for several sizes, the size."""

    type: CombinationType
    size: int | None = None


@dataclass(frozen=True)
class Streak:
    """A streak rule: `levels` after `start` rounds in a row, plus `step` for each further one."""

    start: int = field(metadata={"key": "from"})
    levels: int
    step: int

    def levels_for(self, run: int) -> int:
        """The levels this rule gives for a run of `run` consecutive rounds (0 below the start)."""
        if run < self.start:
            return 0
        return self.levels + self.step * (run - self.start)


@dataclass(frozen=True)
class WildDefault:
    """The reading an undeclared ambiguous play takes, and the types it applies to."""

    choice: DefaultChoice
    applies_to: tuple[CombinationType, ...]


@dataclass(frozen=True)
class HandCountRule:
    """When a hand count is told (報數): at or below `max_cards`, in `mode`."""

    max_cards: int
    mode: DisclosureMode


# ---------------------------------------------------------------------------------------------
# The typed view: one frozen dataclass per clause group


@dataclass(frozen=True)
class DeckRules:
    """Cards and deal (牌與局)."""

    decks: int
    hand_size: int


@dataclass(frozen=True)
class SeatRules:
    """Players and partnerships (比賽雙方)."""

    players: int
    partners: str


@dataclass(frozen=True)
class LevelCardRules:
    """The level card (主牌/參謀)."""

    position: LevelPosition
    in_sequences: SequencePlace
    in_full_house: LevelPosition


@dataclass(frozen=True)
class RankRules:
    """The order of ranks (牌點大小)."""

    natural: tuple[Rank, ...]
    jokers: tuple[Rank, ...]
    level_card: LevelCardRules


@dataclass(frozen=True)
class SequenceRules:
    """Sequences (順子, 連對, 鋼板, 同花順): where A may sit, no wrap-around."""

    ace_low: bool
    ace_high: bool
    wrap: bool


@dataclass(frozen=True)
class WildRules:
    """The wild card (逢人配)."""

    suit: Suit
    stands_for: WildStandsFor
    excluded: tuple[CombinationType, ...]
    needs_natural_card: bool
    declared: bool
    default: WildDefault | None


@dataclass(frozen=True)
class CombinationRules:
    """One combination type (牌型): its shape, or None when the variant has no such play."""

    shape: Shape | None


@dataclass(frozen=True)
class Combinations:
    """Every combination type (牌型) of the variant."""

    single: CombinationRules
    pair: CombinationRules
    triple: CombinationRules
    full_house: CombinationRules
    straight: CombinationRules
    tube: CombinationRules
    plate: CombinationRules
    bomb: CombinationRules
    straight_flush: CombinationRules
    joker_bomb: CombinationRules
    only_listed: bool

    def shape(self, kind: CombinationType) -> Shape | None:
        """The shape of `kind`, or None when the variant has no such play."""
        rules: CombinationRules = getattr(self, kind.value)
        return rules.shape


@dataclass(frozen=True)
class BombRules:
    """Bombs (炸彈) and the bomb ladder."""

    ladder: tuple[LadderStep, ...]


@dataclass(frozen=True)
class CompareRules:
    """Comparing plays (牌的大小)."""

    same_type_and_size: bool
    full_house_key: str
    sequence_key: str
    equal_beats: bool
    suits_rank: bool
    wild_same_strength: bool


@dataclass(frozen=True)
class FlowRules:
    """Playing a round (出牌規則)."""

    lead: str
    turn: str
    own_cards: bool
    # `pass` is a keyword; the clause id stays flow.pass.
    pass_: PassRule = field(metadata={"key": "pass"})
    new_lead: str
    jiefeng: JiefengRule
    early_end: bool
    first_leader: str


@dataclass(frozen=True)
class FinishRules:
    """Finishing order (名次)."""

    double_down_both_last: bool


@dataclass(frozen=True)
class LevelUpRules:
    """Levels gained by the winners, by their places (升級)."""

    double_down: int
    first_and_third: int
    first_and_fourth: int

    def for_finish(self, finish: FinishKind) -> int:
        """The levels gained for `finish`."""
        value: int = getattr(self, finish.value)
        return value


@dataclass(frozen=True)
class FailureRules:
    """Failures at the final level (A打不過去)."""

    limit: int | None
    reset_to: Rank
    counts: str


@dataclass(frozen=True)
class StreakRules:
    """Streak bonuses and penalties (連續頭游/末游)."""

    firsts: Streak | None
    lasts: Streak | None


@dataclass(frozen=True)
class LevelRules:
    """Levels (升級): start, final, level-ups, the final level, failures, streaks."""

    start: Rank
    final: Rank
    played: str
    up: LevelUpRules
    cap_at_final: bool
    final_win: tuple[FinishKind, ...]
    gain_at_final: FinalGain
    floor: Rank
    failures: FailureRules
    streak: StreakRules


@dataclass(frozen=True)
class SingleTribute:
    """Tribute when the winners did not take 1st and 2nd (單下)."""

    payer: PlaceRef
    receiver: PlaceRef


@dataclass(frozen=True)
class DoubleTribute:
    """Tribute after a double-down (雙下)."""

    assignment: str
    tie: TieRule


@dataclass(frozen=True)
class AntiTribute:
    """Anti-tribute (抗貢)."""

    big_jokers: int
    single_mandatory: bool


@dataclass(frozen=True)
class ReturnRules:
    """The return card (還牌)."""

    max_rank: Rank | None
    double_to: ReturnTo
    reveal_together: RevealWhen


@dataclass(frozen=True)
class TributeLead:
    """Who leads the round after tribute."""

    single: PlaceRef
    double: PlaceRef
    double_tie: PlaceRef
    anti: PlaceRef


@dataclass(frozen=True)
class TributeRules:
    """Tribute (進貢), return (還牌) and anti-tribute (抗貢)."""

    enabled: bool
    card: str
    single: SingleTribute
    double: DoubleTribute
    anti: AntiTribute
    # `return` is a keyword; the clause ids stay tribute.return.*.
    return_: ReturnRules = field(metadata={"key": "return"})
    lead: TributeLead


@dataclass(frozen=True)
class DealRules:
    """Shuffling and drawing (洗牌倒牌)."""

    first_round: str | None
    shuffler: str
    cutter: str
    first_drawer: str
    first_drawer_double_down: str
    min_shuffles: int | None


@dataclass(frozen=True)
class DisclosureRules:
    """Telling hand counts (報數/問牌)."""

    hand_count: HandCountRule | None
    misreport: str | None


@dataclass(frozen=True)
class TimingRules:
    """Time limits (出牌時間)."""

    first_play_seconds: int | None
    play_seconds: int | None


@dataclass(frozen=True)
class MatchRules:
    """Winning a match (勝負判定) beyond the final level."""

    time_limit_winner: str | None


@dataclass(frozen=True)
class ConductRules:
    """Table conduct (打牌紀律)."""

    no_signals: bool
    hands_concealed: bool


@dataclass(frozen=True)
class ScoringRules:
    """Scoring (計分): base x, end bonus, and x·n ± a with the room's n and a."""

    base: str | None
    settle: str
    end_bonus: Mapping[Rank, int]
    room_coefficient: int
    room_fee: int
    loser_fee_sign: int
    winner_fee_sign: int


@dataclass(frozen=True)
class Rules:
    """Every clause of a variant, typed, grouped by family."""

    deck: DeckRules
    seats: SeatRules
    ranks: RankRules
    sequences: SequenceRules
    wild: WildRules
    combinations: Combinations
    bombs: BombRules
    compare: CompareRules
    flow: FlowRules
    finish: FinishRules
    levels: LevelRules
    tribute: TributeRules
    deal: DealRules
    disclosure: DisclosureRules
    timing: TimingRules
    match: MatchRules
    conduct: ConductRules
    scoring: ScoringRules


@dataclass(frozen=True, eq=False)
class Ruleset:
    """A resolved variant (規則): metadata, every clause with provenance, options, typed rules."""

    slug: str
    title: str
    title_zh: str
    description: str
    source: str | None
    abstract: bool
    clauses: Mapping[str, Clause]
    options: Mapping[str, Option]
    rules: Rules
    chosen: Mapping[str, Any] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    # Every source document (來源) the variant cites, by the id its provenances give: bundled
    # ones, and a club's own rule text under its variant's id.
    sources: Mapping[str, Source] = field(default_factory=dict)
    # Each choice of options is built once (building the typed view is slow, and the corpus
    # asks for the same choice hundreds of times), so the same choice is the same object.
    _with: dict[Hashable, Ruleset] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # What names this object when it is sent to another process (`__reduce__`), made when it is
    # first sent: a list, so that the frozen object can keep it.
    _sent_as: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        """Sent to another process (a worker's shard, pickled) under a name of this object, so
        that the worker builds one object for every shard that carries it: the interpreter's
        memos are kept by ruleset, and a new object per shard would start each of them cold."""
        if not self._sent_as:
            self._sent_as.append(uuid.uuid4().hex)
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        return (_received, (self._sent_as[0], fields))

    def __copy__(self) -> Ruleset:
        """The ruleset itself: it is a value that never changes (`copy` would otherwise go
        through `__reduce__`, meant for sending)."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Ruleset:
        """The ruleset itself, as `__copy__`."""
        return self

    def clause(self, clause_id: str) -> Clause:
        """The clause with this id; an unknown id is an error naming close ids."""
        try:
            return self.clauses[clause_id]
        except KeyError:
            near = [c for c in self.clauses if c.split(".")[0] == clause_id.split(".")[0]]
            hint = f"; clauses of that family: {', '.join(near)}" if near else ""
            raise HarnessError(f"unknown clause id {clause_id!r}{hint}") from None

    def value(self, clause_id: str) -> Any:
        """The value of the clause with this id."""
        return self.clause(clause_id).value

    def watched(self) -> Ruleset:
        """A copy of this ruleset whose typed view and clauses record each clause they are read
        for (查閱記錄), as `consulted` tells. A new object: every memo kept by ruleset starts
        empty for it, so whatever plays it reads, afresh, each clause it depends on. The record
        is per process: a copy sent to another records there what that process reads."""
        record = _Record()
        clauses = dict(_plain_clauses(self.clauses))
        return dataclasses.replace(
            self,
            rules=_watched_view(_plain(self.rules), record),
            clauses=_WatchedClauses(clauses, record),
        )

    def consulted(self) -> frozenset[str]:
        """The ids of the clauses read so far in this process through this ruleset, if it is a
        watched copy (`watched`); else every clause id, since any of them may have been."""
        record = vars(self.rules).get("_record")
        if not isinstance(record, _Record):
            return frozenset(self.clauses)
        return frozenset(record)

    @property
    def source_document(self) -> Source | None:
        """The variant's source (來源): a club's own rule text or the bundled source it names."""
        return self.cited(self.source)

    def cited(self, source_id: str | None) -> Source | None:
        """The source (來源) the variant cites by this id: a club's own text or a bundled one."""
        return self.sources.get(source_id) if source_id is not None else None

    def with_options(self, choices: Mapping[str, Any]) -> Ruleset:
        """This variant with the given options (開局選項) chosen; unknown names are errors.

        The same choices give the same object."""
        if not choices:
            return self
        key = _choice_key(choices)
        found = self._with.get(key)
        if found is None:
            found = self._with.setdefault(key, self._choose(choices))
        return found

    def _choose(self, choices: Mapping[str, Any]) -> Ruleset:
        clauses = dict(self.clauses)
        chosen = dict(self.chosen)
        for name, raw in choices.items():
            option = self.options.get(name)
            if option is None:
                known = ", ".join(self.options) or "none"
                raise HarnessError(
                    f"variant {self.slug!r} has no option {name!r} (its options: {known})"
                )
            value = option.check(raw)
            chosen[name] = value
            clauses[option.sets] = dataclasses.replace(
                clauses[option.sets], value=value, set_by_option=name
            )
        rules = rebuild_rules(self.rules, clauses, {self.options[name].sets for name in choices})
        return dataclasses.replace(self, clauses=clauses, chosen=chosen, rules=rules)

    def to_json(self) -> dict[str, Any]:
        """The resolved variant as a JSON-shaped mapping, clauses nested by family."""
        tree: dict[str, Any] = {}
        for clause in self.clauses.values():
            node = tree
            *groups, leaf = clause.id.split(".")
            for part in groups:
                node = node.setdefault(part, {})
            node[leaf] = clause.to_json()
        return {
            "id": self.slug,
            "title": self.title,
            "title_zh": self.title_zh,
            "description": self.description,
            "source": self.source_document.to_json() if self.source_document else self.source,
            "options": {name: opt.to_json() for name, opt in self.options.items()},
            "chosen": dict(self.chosen),
            "rules": tree,
        }


def ruleset_from_json(data: Mapping[str, Any], where: str = "ruleset") -> Ruleset:
    """The variant (規則) `Ruleset.to_json` wrote, built again without the loader: no YAML
    reader, no schema check (the site's try-it panel runs the interpreter where neither is, on
    variants the site build loaded and checked). Sources are named by id only, without their
    texts. A shape `to_json` never writes is a `HarnessError` naming the place in `where`."""
    clauses: dict[str, Clause] = {}

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, Mapping) or not node:
            raise HarnessError(f"{where}: rules.{path}: expected a clause or a group of clauses")
        if "value" in node:
            clauses[path] = _clause_from_json(path, node, f"{where}: rules.{path}")
            return
        for key, inner in node.items():
            walk(inner, f"{path}.{key}" if path else str(key))

    def field_of(key: str, kind: type) -> Any:
        value = data.get(key) if isinstance(data, Mapping) else None
        if not isinstance(value, kind):
            raise HarnessError(f"{where}: `{key}`: expected {kind.__name__}, found {value!r}")
        return value

    walk(field_of("rules", Mapping), "")
    options: dict[str, Option] = {}
    for name, raw in field_of("options", Mapping).items():
        at = f"{where}: options.{name}"
        if not isinstance(raw, Mapping) or raw.get("sets") not in clauses:
            raise HarnessError(f"{at}: expected an option that sets a clause of the variant")
        choices = raw.get("choices")
        options[name] = Option(
            name=name,
            sets=raw["sets"],
            description=str(raw.get("description", "")),
            default=raw.get("default"),
            provenance=_provenance_from_json(raw, at),
            choices=tuple(choices) if isinstance(choices, list) else None,
            minimum=raw.get("minimum"),
            maximum=raw.get("maximum"),
        )
    source = data.get("source")
    try:
        rules = build_rules(clauses)
    except (RulesShapeError, KeyError, TypeError, ValueError) as exc:
        raise HarnessError(f"{where}: rules: {exc}") from None
    built = Ruleset(
        slug=field_of("id", str),
        title=field_of("title", str),
        title_zh=field_of("title_zh", str),
        description=str(data.get("description", "")),
        source=source.get("id") if isinstance(source, Mapping) else source,
        abstract=False,
        clauses=clauses,
        options=options,
        rules=rules,
    )
    return built.with_options(field_of("chosen", Mapping)) if data.get("chosen") else built


def _clause_from_json(clause_id: str, node: Mapping[str, Any], at: str) -> Clause:
    """A clause as `Clause.to_json` wrote it."""
    return Clause(
        clause_id,
        node["value"],
        _provenance_from_json(node, at),
        observable=bool(node.get("observable", True)),
        note=node.get("note"),
        set_by_option=node.get("set_by_option"),
    )


def _provenance_from_json(node: Mapping[str, Any], at: str) -> Provenance:
    """A provenance as `Provenance.to_json` wrote it (inside a clause or an option)."""
    for kind in ProvenanceKind:
        said = node.get(kind.value)
        if isinstance(said, Mapping):
            return Provenance(
                kind,
                source=said.get("source"),
                place=said.get("place"),
                quote=said.get("quote"),
                reason=said.get("reason"),
                alternatives=tuple(said.get("alternatives", ())),
                reading=said.get("reading"),
            )
    kinds = ", ".join(k.value for k in ProvenanceKind)
    raise HarnessError(f"{at}: expected one of {kinds} with its quote or reason")


_PLAIN = (str, int, bool, type(None))


def _choice_key(choices: Mapping[str, Any]) -> Hashable:
    """What tells one choice of options from another: the names, each value and its type (as
    its JSON text does: 1, "1" and true are three choices), or that JSON text for other values."""
    if all(type(value) in _PLAIN for value in choices.values()):
        return tuple(sorted((name, type(value).__name__, value) for name, value in choices.items()))
    return json.dumps(dict(choices), sort_keys=True, default=str)


_RECEIVED: OrderedDict[str, Ruleset] = OrderedDict()
"""The rulesets this process was sent, by the name they were sent under, the latest last."""
_RECEIVED_KEPT = 16
_RECEIVED_LOCK = threading.Lock()  # a Dask worker may unpickle in several threads


def _received(name: str, fields: dict[str, Any]) -> Ruleset:
    """The ruleset sent under `name` (see `Ruleset.__reduce__`): the one built when it first
    came, while it is among the latest kept, else built now. It is sent on under the same name."""
    with _RECEIVED_LOCK:
        found = _RECEIVED.get(name)
        if found is not None:
            _RECEIVED.move_to_end(name)
            return found
        found = _RECEIVED[name] = Ruleset(**fields)
        found._sent_as.append(name)
        if len(_RECEIVED) > _RECEIVED_KEPT:
            _RECEIVED.popitem(last=False)
        return found


# ---------------------------------------------------------------------------------------------
# Building the typed view from clause values


def build_rules(clauses: Mapping[str, Clause]) -> Rules:
    """The typed view of these clauses; every clause must be used exactly once."""
    used: set[str] = set()
    rules: Rules = _build_group(Rules, "", clauses, used)
    unused = sorted(set(clauses) - used)
    if unused:
        raise RulesShapeError(f"clauses with no place in the typed view: {', '.join(unused)}")
    return rules


def rebuild_rules(
    rules: Rules, clauses: Mapping[str, Clause], changed: typing.Iterable[str]
) -> Rules:
    """The typed view of `clauses`, which differ from those `rules` was built from only in the
    values of `changed`: the groups that hold none of them are `rules`' own, shared."""
    wanted = set(changed)
    unknown = sorted(cid for cid in wanted if cid not in clauses)
    if unknown:
        raise RulesShapeError(f"clauses with no place in the typed view: {', '.join(unknown)}")
    # The groups on the way to a changed clause (`tribute.`, `tribute.single.`), the view's
    # root ("") included: only those are built again.
    groups = {cid[: i + 1] for cid in wanted for i, c in enumerate(cid) if c == "."} | {""}
    rebuilt: Rules = _rebuild_group(Rules, "", rules, clauses, wanted, groups)
    return rebuilt


def _rebuild_group(
    cls: type,
    prefix: str,
    old: Any,
    clauses: Mapping[str, Clause],
    changed: set[str],
    groups: set[str],
) -> Any:
    kwargs: dict[str, Any] = {}
    for name, key, tp, group in _fields_of(cls):
        path = prefix + key
        if group and path + "." in groups:
            inner = getattr(old, name)
            kwargs[name] = _rebuild_group(tp, path + ".", inner, clauses, changed, groups)
        elif path in changed:
            kwargs[name] = structure(clauses[path].value, tp, path)
        else:
            kwargs[name] = getattr(old, name)
    return cls(**kwargs)


def clause_ids_of_view() -> list[str]:
    """Every clause id the typed view reads, in declaration order."""
    out: list[str] = []
    _collect_ids(Rules, "", out)
    return out


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a class of the typed view, worked out once (it is slow)."""
    return typing.get_type_hints(cls)


def _key(f: dataclasses.Field[Any]) -> str:
    key: str = f.metadata.get("key", f.name)
    return key


@functools.cache
def _fields_of(cls: type) -> tuple[tuple[str, str, Any, bool], ...]:
    """Each field of a class of the typed view: its name, its key in a clause id, its type, and
    whether it is a group of clauses (worked out once)."""
    hints = _hints(cls)
    return tuple(
        (
            f.name,
            _key(f),
            hints[f.name],
            isinstance(hints[f.name], type) and hints[f.name].__name__ in _GROUPS,
        )
        for f in dataclasses.fields(cls)
    )


def _collect_ids(cls: type, prefix: str, out: list[str]) -> None:
    for _, key, tp, group in _fields_of(cls):
        if group:
            _collect_ids(tp, prefix + key + ".", out)
        else:
            out.append(prefix + key)


def _build_group(cls: type, prefix: str, clauses: Mapping[str, Clause], used: set[str]) -> Any:
    kwargs: dict[str, Any] = {}
    for name, key, tp, group in _fields_of(cls):
        path = prefix + key
        if group:
            kwargs[name] = _build_group(tp, path + ".", clauses, used)
            continue
        if path not in clauses:
            raise RulesShapeError(f"clause {path} is missing")
        used.add(path)
        kwargs[name] = structure(clauses[path].value, tp, path)
    return cls(**kwargs)


def structure(value: Any, tp: Any, path: str) -> Any:
    """Convert JSON-shaped `value` to the type `tp` (dataclass, enum, tuple, mapping, optional)."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return structure(value, inner, path)
    if origin is tuple:
        (inner, _) = typing.get_args(tp)
        if not isinstance(value, list | tuple):
            raise RulesShapeError(f"{path}: expected a list, found {value!r}")
        return tuple(structure(v, inner, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (Mapping, dict):
        key_tp, value_tp = typing.get_args(tp)
        if not isinstance(value, dict):
            raise RulesShapeError(f"{path}: expected a mapping, found {value!r}")
        return {
            structure(k, key_tp, path): structure(v, value_tp, f"{path}.{k}")
            for k, v in value.items()
        }
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(value)
        except ValueError:
            raise RulesShapeError(f"{path}: {value!r} is not a {tp.__name__}") from None
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, dict):
            raise RulesShapeError(f"{path}: expected a mapping, found {value!r}")
        kwargs = {}
        for name, key, field_tp, _ in _fields_of(tp):
            if key in value:
                kwargs[name] = structure(value[key], field_tp, f"{path}.{key}")
        return tp(**kwargs)
    if tp is bool:
        if not isinstance(value, bool):
            raise RulesShapeError(f"{path}: expected true or false, found {value!r}")
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise RulesShapeError(f"{path}: expected a whole number, found {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise RulesShapeError(f"{path}: expected text, found {value!r}")
        return value
    raise RulesShapeError(f"{path}: no conversion to {tp!r}")


_GROUPS = {
    cls.__name__
    for cls in (
        Rules,
        DeckRules,
        SeatRules,
        RankRules,
        LevelCardRules,
        SequenceRules,
        WildRules,
        Combinations,
        CombinationRules,
        BombRules,
        CompareRules,
        FlowRules,
        FinishRules,
        LevelRules,
        LevelUpRules,
        FailureRules,
        StreakRules,
        TributeRules,
        SingleTribute,
        DoubleTribute,
        AntiTribute,
        ReturnRules,
        TributeLead,
        DealRules,
        DisclosureRules,
        TimingRules,
        MatchRules,
        ConductRules,
        ScoringRules,
    )
}


# ---------------------------------------------------------------------------------------------
# A watched copy (`Ruleset.watched`): the clauses read, recorded where they are read
#
# Each group of a watched view is an instance of a subclass of its group class, made once, in
# which every clause field is a `_FirstRead`: a descriptor without `__set__`, which an entry of
# the instance's own `__dict__` hides. The first read of a clause records its id and puts the
# value in the instance; every later read finds it there, as fast as a plain field's. So the
# record costs one call per clause and view, however often play reads it.


class _Record(set[str]):
    """The clause ids read through one watched copy, in this process. Sent to another process
    with its ruleset, it arrives empty: what that process reads is its own to return."""

    def __reduce__(self) -> tuple[type[_Record], tuple[()]]:
        return (_Record, ())


class _FirstRead:
    """A clause field of a watched group: its first read records the clause id."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, view: object, owner: type | None = None) -> Any:
        if view is None:
            return self
        held = vars(view)
        # Not popped: two threads (a Dask worker's) may both come here first, each finds it.
        clause_id, value = held["_unread"][self.name]
        held["_record"].add(clause_id)
        held[self.name] = value
        return value


def _is_group(tp: Any) -> bool:
    return isinstance(tp, type) and tp.__name__ in _GROUPS


@functools.cache
def _watched_class(cls: type) -> type:
    """The watched subclass of a group class of the typed view: its clause fields recorded."""
    hints = _hints(cls)
    namespace: dict[str, Any] = {
        f.name: _FirstRead(f.name) for f in dataclasses.fields(cls) if not _is_group(hints[f.name])
    }
    namespace.update(
        __doc__=cls.__doc__,
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        __reduce__=_sent,
        __copy__=_itself,
        __deepcopy__=_itself,
    )
    return type(cls.__name__, (cls,), namespace)


def _watch(view: Any, prefix: str, record: _Record) -> Any:
    """A watched copy of the group `view` of a typed view, whose clause ids start `prefix`."""
    cls: type = type(view)
    hints = _hints(cls)
    watched: Any = object.__new__(_watched_class(cls))
    held = vars(watched)
    unread: dict[str, tuple[str, Any]] = {}
    for f in dataclasses.fields(cls):
        path = f"{prefix}{_key(f)}"
        value = getattr(view, f.name)
        if _is_group(hints[f.name]):
            held[f.name] = _watch(value, path + ".", record)
        else:
            unread[f.name] = (path, value)
    held.update(_unread=unread, _record=record, _plain=view)
    return watched


def _plain(view: Rules) -> Rules:
    """The plain typed view behind `view` (itself when it is not watched)."""
    plain = vars(view).get("_plain", view)
    assert isinstance(plain, Rules)
    return plain


def _watched_view(plain: Rules, record: _Record) -> Rules:
    """A watched copy of the typed view `plain`, recording into `record`."""
    watched: Rules = _watch(plain, "", record)
    return watched


def _itself(view: Any, memo: Any = None) -> Any:
    # A view never changes: a copy of it is itself (as a ruleset's is).
    return view


def _sent(view: Any) -> tuple[Any, ...]:
    """A watched group sent to another process (pickled): the whole view goes as a watched
    view that records there; a group sent alone goes plain, every clause in it counted read."""
    held = vars(view)
    if isinstance(view, Rules):
        return (_watched_view, (held["_plain"], held["_record"]))
    _read_all(view)
    return (_itself, (held["_plain"],))


def _read_all(view: Any) -> None:
    """Read every clause of the watched group `view`, so that each is recorded."""
    plain: type = type(vars(view)["_plain"])
    hints = _hints(plain)
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if _is_group(hints[f.name]):
            _read_all(value)


class _WatchedClauses(Mapping[str, Clause]):
    """A watched ruleset's clauses: each one looked up (`Ruleset.value`, `Ruleset.clause`) is
    recorded as read, as the typed view records its fields."""

    __slots__ = ("_clauses", "_record")

    def __init__(self, clauses: dict[str, Clause], record: _Record) -> None:
        self._clauses = clauses
        self._record = record

    def __getitem__(self, clause_id: str) -> Clause:
        found = self._clauses[clause_id]
        self._record.add(clause_id)
        return found

    def __contains__(self, clause_id: object) -> bool:
        return clause_id in self._clauses

    def __iter__(self) -> typing.Iterator[str]:
        return iter(self._clauses)

    def __len__(self) -> int:
        return len(self._clauses)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_WatchedClauses, (self._clauses, self._record))


def _plain_clauses(clauses: Mapping[str, Clause]) -> Mapping[str, Clause]:
    """The clauses behind a watched ruleset's (themselves when they are not watched)."""
    return clauses._clauses if isinstance(clauses, _WatchedClauses) else clauses


def differing_clauses(rulesets: typing.Iterable[Ruleset]) -> list[str]:
    """The clause ids whose values are not the same in every variant (條款差異), in the first
    variant's order."""
    every = list(rulesets)
    return [
        cid
        for cid in every[0].clauses
        if len({json.dumps(r.value(cid), sort_keys=True) for r in every}) > 1
    ]
