"""Seats and teams (座位): four seats 0-3 in playing order; partners sit opposite."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from harness.errors import HarnessError
from harness.model.declarations import implements, only

SEATS = (0, 1, 2, 3)


@implements("seats.players", values=only(4))
def next_seat(seat: int) -> int:
    """The seat's 下家 (next player): seat + 1, modulo 4."""
    return (seat + 1) % 4


@implements("seats.players", values=only(4))
def previous_seat(seat: int) -> int:
    """The seat's 上家 (previous player): seat - 1, modulo 4."""
    return (seat - 1) % 4


@implements("seats.partners", values=only("opposite"))
@implements("seats.players", values=only(4))
def partner(seat: int) -> int:
    """The seat's partner (對家), sitting opposite: seat + 2, modulo 4."""
    return (seat + 2) % 4


def team(seat: int) -> int:
    """The team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


class FinishKind(StrEnum):
    """How the winners finished (名次): 1st+2nd (雙下), 1st+3rd, or 1st+4th."""

    DOUBLE_DOWN = "double_down"
    FIRST_AND_THIRD = "first_and_third"
    FIRST_AND_FOURTH = "first_and_fourth"


@dataclass(frozen=True, slots=True)
class Finish:
    """A round's finishing order (上游, 二游, 三游, 下游): a permutation of the four seats.

    After an early end on a double-down the two losers never went out; they follow in playing
    order, and both count as last where the variant says so.
    """

    order: tuple[int, int, int, int]

    @staticmethod
    def of(order: Sequence[int]) -> Finish:
        """A finish from a list of seats; anything but a permutation of 0..3 is an error."""
        if sorted(order) != [0, 1, 2, 3]:
            raise HarnessError(f"finishing order {list(order)!r}: expected a permutation of 0..3")
        a, b, c, d = order
        return Finish((a, b, c, d))

    @property
    def first(self) -> int:
        """The first to go out (上游/頭游)."""
        return self.order[0]

    @property
    def second(self) -> int:
        """The second (二游)."""
        return self.order[1]

    @property
    def third(self) -> int:
        """The third (三游)."""
        return self.order[2]

    @property
    def last(self) -> int:
        """The last (下游/末游)."""
        return self.order[3]

    @property
    def winners(self) -> int:
        """The winning team: the team of the first."""
        return team(self.first)

    @property
    def kind(self) -> FinishKind:
        """Where the first's partner finished: 2nd (雙下), 3rd or 4th."""
        place = self.order.index(partner(self.first))
        return (FinishKind.DOUBLE_DOWN, FinishKind.FIRST_AND_THIRD, FinishKind.FIRST_AND_FOURTH)[
            place - 1
        ]

    @property
    def losers(self) -> tuple[int, int]:
        """The two seats of the losing team, in finishing order."""
        out = [s for s in self.order if team(s) != self.winners]
        return out[0], out[1]
