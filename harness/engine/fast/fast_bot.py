"""The heuristic bot on the C kernel (快速啟發式機器人): `HeuristicBot`'s decisions, made by
`harness/kernel/_bot.c` from a round on the compact form, answered as Python actions and cards.

The C bot lists plays only through the listing it is handed (`gd_lister` in `_round.h`): the
kernel's own (`gd_hand_plays`, the reference's `HandPlays` in C) where the kernel has it, else
`PythonLister`, which asks the reference's `HandPlays` itself. Its memory mirrors the Python
bot's, whose `is` checks on hands and rules become ids here: a hand's id changes exactly when
the hand object does (`_Ids`), and a `PlayRules` object keeps one id.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Sequence
from typing import Any

from harness.engine.fast.bot_tables import bot_table
from harness.engine.fast.engine import FastEngine, encode
from harness.engine.fast.tables import NSUIT, PLACE, PLACES, SUIT, TYPES
from harness.errors import EngineError, EngineErrorKind, HarnessError
from harness.interpreter.heuristic import Unit
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import Play, PlayRules, Reading
from harness.interpreter.round import Action, PassAction, PlayAction, RoundState
from harness.kernel.layout import JOKER_SUIT
from harness.kernel.view import (
    LIST_ALL,
    LIST_ANY_BEATS,
    LIST_FOLLOWING,
    LISTER,
    MAX_HAND,
    GdRoundView,
)
from harness.model.cards import FULL_DECK, Card
from harness.model.ruleset import Ruleset

_I32 = ctypes.c_int32
_I32P = ctypes.POINTER(ctypes.c_int32)

CODE: dict[Card, int] = {
    card: PLACE[card.rank] * NSUIT + (JOKER_SUIT if card.suit is None else SUIT[card.suit])
    for card in FULL_DECK
}
"""Each card's code on the compact form (place * 5 + suit, as `_round.h` says)."""
CARD: dict[int, Card] = {code: card for card, code in CODE.items()}
"""The card of each code: the interned deck's own objects."""


def decode(code: int) -> Reading:
    """A reading from the kernel's int (`engine.encode` undone)."""
    return Reading(TYPES[code >> 24], PLACES[code >> 16 & 0xFF], code & 0xFFFF)


CODE_OF: dict[int, int] = {id(card): code for card, code in CODE.items()}
"""Each card's code by the card object's identity: the cards are interned (`FULL_DECK`), and a
lookup by identity skips the dataclass's hash, a Python call per card."""


def codes_of(cards: Sequence[Card]) -> list[int]:
    """The cards' codes (`CODE`), found by identity where the cards are the interned ones."""
    code_of = CODE_OF
    try:
        return [code_of[id(card)] for card in cards]
    except KeyError:  # a card made outside the interned deck: by its value
        return [CODE[card] for card in cards]


def _codes(cards: Sequence[Card]) -> ctypes.Array[ctypes.c_int32]:
    return (_I32 * max(1, len(cards)))(*codes_of(cards))


class PythonLister:
    """The reference's listing (`HandPlays`) as a `gd_lister` the C bot calls: the plays of a
    hand written as `_round.h` says, for the tables each rule object was registered with."""

    def __init__(self) -> None:
        self._rules: dict[int, PlayRules] = {}
        self._last: tuple[int, tuple[int, ...], HandPlays] | None = None
        self.error: BaseException | None = None
        """What went wrong in the last call that failed (a callback cannot raise into C)."""
        self.callback = LISTER(self._list)

    def register(self, table: ctypes.Array[ctypes.c_int32], rules: PlayRules) -> None:
        """Answer calls with `table` by listing under `rules`."""
        self._rules[ctypes.addressof(table)] = rules

    def _plays(self, table: Any, hand: Any, n: int) -> HandPlays:
        """The hand's `HandPlays`, kept for the next call on the same hand (a bot asks a hand
        twice in a row: whether any play beats, then which)."""
        address = ctypes.addressof(table.contents)
        codes = tuple(hand[:n])
        last = self._last
        if last is not None and last[0] == address and last[1] == codes:
            return last[2]
        plays = HandPlays(tuple(CARD[c] for c in codes), self._rules[address])
        self._last = (address, codes, plays)
        return plays

    def _list(
        self, table: Any, hand: Any, n: int, mode: int, previous: int, out: Any, room: int
    ) -> int:
        try:
            plays = self._plays(table, hand, n)
            if mode == LIST_ANY_BEATS:
                return int(plays.beaten_by_any(decode(previous)))
            if mode == LIST_ALL:
                found = plays.plays()
            else:
                found = plays.following(decode(previous), bombs=mode == LIST_FOLLOWING)
            flat: list[int] = []
            for play in found:
                flat += (encode(play.reading), len(play.cards), *map(CODE.__getitem__, play.cards))
            if flat and len(flat) <= room:
                ctypes.memmove(out, (_I32 * len(flat))(*flat), 4 * len(flat))
            return len(flat)
        except BaseException as exc:  # nothing may be raised through C: kept, and the bot told
            self.error = exc
            return -1


class _Ids:
    """Ids of objects as the C bot compares them: one id per object while it is alive here,
    never given to another (the object is held, so its `id()` is not reused while it is)."""

    __slots__ = ("_held", "_next")

    LIMIT = 512

    def __init__(self) -> None:
        self._held: dict[int, tuple[object, int, Any]] = {}
        self._next = 0

    def of(self, thing: object, make: Any = None) -> tuple[int, Any]:
        """The id of `thing`, and what `make(thing)` gave when it was first seen."""
        found = self._held.get(id(thing))
        if found is not None and found[0] is thing:
            return found[1], found[2]
        if len(self._held) >= self.LIMIT:
            # Forgotten objects get new ids if seen again: ids only grow, so none is shared.
            self._held.clear()
        self._next += 1
        made = None if make is None else make(thing)
        self._held[id(thing)] = (thing, self._next, made)
        return self._next, made


class RulesIds(_Ids):
    """Ids of `PlayRules` objects (`_Ids`), shareable by the bots of a match and its rounds."""

    def id_of(self, rules: PlayRules) -> int:
        """The id of `rules`."""
        return self.of(rules)[0]


class FastHeuristicBot:
    """`HeuristicBot` (harness.interpreter.heuristic) on the C kernel, for one rule set: the
    same actions, tribute cards and returns, its memory kept across the rounds of a match.
    Raises `EngineError` (unsupported) where the fast engine is off or does not play the rule
    set."""

    def __init__(
        self,
        ruleset: Ruleset,
        lister: PythonLister | None = None,
        engine: FastEngine | None = None,
        rules_ids: RulesIds | None = None,
    ) -> None:
        # The engine and the rules' ids may be shared: a match's four bots and the round they
        # play in (harness.engine.fast.matches) must number one rules object alike.
        self._engine = engine if engine is not None else FastEngine(ruleset)
        kernel = self._engine.kernel
        self._kernel = kernel
        table = bot_table()
        if len(table) != kernel.bot_tables_size:
            raise EngineError(EngineErrorKind.INTERNAL, "the kernel's bot reads another table")
        self._table = (_I32 * len(table))(*table)
        self._python = lister
        if lister is None:
            address = _kernel_lister(kernel.library)
            if address is None:
                self._python = PythonLister()
                self._lister = self._python.callback
            else:
                self._lister = LISTER(address)
        else:
            self._lister = lister.callback
        bot = kernel.bot_new()
        if not bot:
            raise MemoryError("the fast kernel could not make a bot")
        self._bot = bot
        self._finalizer = weakref.finalize(self, kernel.bot_free, bot)
        self._hands = _Ids()
        self._rules = rules_ids if rules_ids is not None else RulesIds()
        self._cards = (_I32 * MAX_HAND)()
        self._n = _I32()
        self._reading = _I32()

    @property
    def pointer(self) -> int:
        """The C bot (`GdBot *`), for a round played in the kernel."""
        return int(self._bot)

    @property
    def table(self) -> Any:
        """The bot's own table (`GdRoundView.B`)."""
        return self._table

    def _tables(self, rules: PlayRules) -> tuple[Any, int]:
        """The kernel's table of `rules` (registered with the Python lister), and its id."""
        if rules.rules is not self._engine.ruleset.rules:
            raise HarnessError("FastHeuristicBot: play rules of another rule set than its own")
        array = self._engine.tables(rules.level).array
        if self._python is not None:
            self._python.register(array, rules)
        rules_id, _ = self._rules.of(rules)
        return array, rules_id

    def _failed(self, code: int) -> Exception:
        lister = self._python
        if lister is not None and lister.error is not None:
            error, lister.error = lister.error, None
            return error if isinstance(error, Exception) else HarnessError(str(error))
        what = "ran out of memory" if code == -1 else "was given what it cannot take"
        return EngineError(EngineErrorKind.INTERNAL, f"the fast kernel's bot {what}")

    def act(self, state: RoundState, seat: int) -> Action:
        """The action of `seat`, whose turn it is (`HeuristicBot.act`)."""
        table, rules_id = self._tables(state.rules)
        view = GdRoundView()
        view.T = ctypes.cast(table, _I32P)
        view.B = ctypes.cast(self._table, _I32P)
        view.rules_id = rules_id
        view.lister = self._lister
        for s, hand in enumerate(state.hands):
            hand_id, codes = self._hands.of(hand, _codes)
            view.hands[s] = ctypes.cast(codes, _I32P)
            view.counts[s] = len(hand)
            view.hand_ids[s] = hand_id
        view.turn = seat if state.turn is None else state.turn
        view.leader = state.leader
        if state.trick is not None:
            view.has_trick = 1
            view.trick_owner = state.trick[0]
            view.trick_reading = encode(state.trick[1])
            view.may_pass = int(state.may_pass())
        view.out_mask = sum(1 << s for s in state.out)
        done = self._kernel.bot_act(
            self._bot,
            ctypes.byref(view),
            seat,
            self._cards,
            ctypes.byref(self._n),
            ctypes.byref(self._reading),
        )
        if done < 0:
            raise self._failed(done)
        if done == 0:
            return PassAction(seat)
        cards = tuple(CARD[c] for c in self._cards[: self._n.value])
        return PlayAction(seat, Play(cards, decode(self._reading.value)))

    def choose(self, options: Sequence[Card]) -> Card:
        """A tribute card: the first of `options` by `sort_key` (`HeuristicBot.choose`)."""
        found = self._kernel.bot_choose(_codes(options), len(options))
        if found < 0:
            raise self._failed(found)
        return CARD[found]

    def give_back(self, hand: Sequence[Card], options: Sequence[Card], rules: PlayRules) -> Card:
        """The card returned (還牌), holding `hand` (`HeuristicBot.give_back`)."""
        table, rules_id = self._tables(rules)
        found = self._kernel.bot_give_back(
            self._bot,
            ctypes.cast(table, _I32P),
            ctypes.cast(self._table, _I32P),
            rules_id,
            self._lister,
            _codes(hand),
            len(hand),
            _codes(options),
            len(options),
        )
        if found < 0:
            raise self._failed(found)
        return CARD[found]

    def resist(self) -> bool:
        """Claims an optional anti-tribute (`HeuristicBot.resist`)."""
        return True

    def plan(self, dealt: Sequence[Card], hand: Sequence[Card], rules: PlayRules) -> list[Unit]:
        """`plan_hand(hand, _Index(HandPlays(dealt, rules)))` made by the C bot (its memory
        left as it was): for tests of the plan on its own."""
        if len(dealt) > MAX_HAND or len(hand) > MAX_HAND:
            raise HarnessError(f"a hand of more than {MAX_HAND} cards")
        table, _ = self._tables(rules)
        room = 4 * MAX_HAND
        while True:
            out = (_I32 * room)()
            needed = self._kernel.bot_plan(
                self._bot,
                ctypes.cast(table, _I32P),
                ctypes.cast(self._table, _I32P),
                self._lister,
                _codes(dealt),
                len(dealt),
                _codes(hand),
                len(hand),
                out,
                room,
            )
            if needed < 0:
                raise self._failed(int(needed))
            if needed <= room:
                break
            room = needed
        units = []
        at = 0
        while at < needed:
            n = out[at + 2]
            cards = tuple(CARD[c] for c in out[at + 3 : at + 3 + n])
            units.append(Unit(decode(out[at]), cards, bool(out[at + 1])))
            at += 3 + n
        return units


def _kernel_lister(library: ctypes.CDLL) -> int | None:
    """The address of the kernel's own listing (`gd_hand_plays`), where it has one."""
    try:
        function = library.gd_hand_plays
    except AttributeError:
        return None
    address = ctypes.cast(function, ctypes.c_void_p).value
    return None if address is None else int(address)


__all__ = ["CARD", "CODE", "FastHeuristicBot", "PythonLister", "RulesIds", "decode"]
