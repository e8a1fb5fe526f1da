"""Fewer garbage collections while matches are played: the youngest generation's threshold
is raised inside and the thresholds are as they were after, nested, concurrent, on an error,
and with collection turned off."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from harness.collecting import YOUNG, fewer_collections
from harness.interpreter import bots as simulate
from harness.model.loader import load_variant


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_raised_inside_and_restored_after() -> None:
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (YOUNG, 10, 10)
        assert gc.get_threshold() == (YOUNG, 10, 10)  # the outer block still runs
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_error() -> None:
    with pytest.raises(ValueError), fewer_collections():
        raise ValueError
    assert gc.get_threshold() == (700, 10, 10)


def test_a_threshold_of_zero_stays_zero() -> None:
    gc.set_threshold(0, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_overlapping_blocks_in_two_threads_restore_once_both_end() -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with fewer_collections():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    with fewer_collections():
        thread.start()
        assert inside.wait(10)
    # This block ended first: the other thread's still holds the raised threshold.
    assert gc.get_threshold() == (YOUNG, 10, 10)
    leave.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_match_is_played_with_fewer_collections(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []
    played = simulate._played

    def watched(*args: object) -> simulate.MatchLog:
        seen.append(gc.get_threshold())
        return played(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate, "_played", watched)
    log = simulate.play_match(load_variant("huaian"), 3, "random")
    assert log.rounds and seen == [(YOUNG, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
