"""The bounded memo (`harness.memo`): answers kept by their arguments, the least recently used
dropped first, never more than the bound, one key never answered with another's value."""

from __future__ import annotations

import gc
import weakref

import pytest

from harness.memo import memo


class Calls:
    """A function that records each call it really makes and answers with a new object."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def __call__(self, key: object) -> list[object]:
        self.seen.append(key)
        return [key]


def test_a_hit_returns_the_stored_value_without_calling_again() -> None:
    calls = Calls()
    kept = memo(4)(calls)
    first = kept("a")
    assert kept("a") is first
    assert calls.seen == ["a"]
    assert kept.cache_info().hits == 1


def test_the_least_recently_used_answer_is_dropped_first() -> None:
    calls = Calls()
    kept = memo(2)(calls)
    kept("a")
    kept("b")
    kept("a")  # "a" used last: "b" is now the oldest
    kept("c")  # one too many: "b" goes
    assert calls.seen == ["a", "b", "c"]
    kept("a")
    kept("c")
    assert calls.seen == ["a", "b", "c"]  # both still kept
    kept("b")
    assert calls.seen == ["a", "b", "c", "b"]  # worked out again, and "a" dropped for it
    kept("c")
    kept("a")
    assert calls.seen == ["a", "b", "c", "b", "a"]


def test_the_bound_is_respected() -> None:
    calls = Calls()
    kept = memo(3)(calls)
    for n in range(100):
        kept(n)
        assert kept.cache_info().currsize <= 3
    assert kept.cache_info().currsize == 3
    assert len(calls.seen) == 100
    kept(99)
    kept(97)
    assert len(calls.seen) == 100  # the last three are the ones kept
    kept(96)
    assert len(calls.seen) == 101


class SameHash:
    """Values that all hash alike but are equal only to their own number."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __hash__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SameHash) and other.number == self.number


def test_different_keys_never_share_an_answer() -> None:
    calls = Calls()
    kept = memo(16)(calls)
    keys = [SameHash(n) for n in range(5)]
    answers = [kept(key) for key in keys]
    assert [answer[0] for answer in answers] == keys
    assert [kept(key) for key in keys] == answers
    assert len(calls.seen) == 5
    # An equal key (not the same object) is the same key.
    assert kept(SameHash(3)) is answers[3]


def test_arguments_in_other_places_are_other_keys() -> None:
    @memo(8)
    def pair(a: int, b: int) -> tuple[int, int]:
        return (a, b)

    assert pair(1, 2) == (1, 2)
    assert pair(2, 1) == (2, 1)
    assert pair.cache_info().misses == 2


class Key:
    """A key compared by identity (as `PlayRules` is)."""


def test_a_key_stays_alive_while_it_is_kept_so_its_id_cannot_be_reused() -> None:
    kept = memo(1)(id)  # keeps no reference of its own
    key = Key()
    alive = weakref.ref(key)
    kept(key)
    del key
    gc.collect()
    assert alive() is not None  # the memo holds it: no other object can take its id
    kept(Key())  # the bound of one drops it
    gc.collect()
    assert alive() is None


def test_a_memo_keeps_at_least_one_answer() -> None:
    with pytest.raises(ValueError, match="at least one"):
        memo(0)
