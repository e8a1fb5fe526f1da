"""The engine pool (引擎會話, `harness.conformance.running.session`) the pytest plugin and the fuzz
shards share: one start per spec, variant with options, timeout and lane; a failed start remembered,
not tried again; `close` closes every engine, whatever one close raises."""

from __future__ import annotations

import pickle
import threading
import time

import pytest

from harness.conformance.running.session import BATCH, EnginePool, answers
from harness.engine import Engine, EngineError, EngineErrorKind, EngineInfo, ReferenceEngine
from harness.model.loader import load_variant
from harness.model.ruleset import Ruleset


class Tracked(ReferenceEngine):
    """The reference, noting its hellos and whether it was closed."""

    def __init__(self, ruleset: Ruleset, hello_fails: bool = False, close_fails: bool = False):
        super().__init__(ruleset)
        self.hellos = 0
        self.closed = False
        self.hello_fails = hello_fails
        self.close_fails = close_fails

    def describe(self) -> EngineInfo:
        """The reference's hello, or a refusal when told to refuse."""
        self.hellos += 1
        if self.hello_fails:
            raise EngineError(EngineErrorKind.UNSUPPORTED, "no hello for this variant")
        return super().describe()

    def close(self) -> None:
        """Noted; raises when told to."""
        self.closed = True
        if self.close_fails:
            raise OSError("the engine's pipe is gone")


class Starter:
    """A start function that records each start and what it made."""

    def __init__(self, **behaviour: bool) -> None:
        self.behaviour = behaviour
        self.starts: list[tuple[str, str, float]] = []
        self.made: list[Tracked] = []

    def __call__(self, spec: str, ruleset: Ruleset, timeout: float) -> Engine:
        self.starts.append((spec, ruleset.slug, timeout))
        if spec == "refuses":
            raise EngineError(EngineErrorKind.UNSUPPORTED, f"{ruleset.slug} is not played here")
        engine = Tracked(ruleset, **self.behaviour)
        self.made.append(engine)
        return engine


@pytest.fixture
def huaian() -> Ruleset:
    return load_variant("huaian")


def test_the_same_key_gets_the_same_engine_started_once(huaian: Ruleset) -> None:
    start = Starter()
    pool = EnginePool(start)
    first = pool.engine("spec", huaian, 5.0)
    assert pool.engine("spec", huaian, 5.0) is first
    # The same variant sent to another process is another object: still the same key.
    copy = pickle.loads(pickle.dumps(huaian))
    assert copy is not huaian
    assert pool.engine("spec", copy, 5.0) is first
    assert start.starts == [("spec", "huaian", 5.0)]
    assert start.made == [first]
    assert start.made[0].hellos == 1  # the hello is asked at the start, once


def test_another_option_timeout_spec_or_lane_is_another_engine(huaian: Ruleset) -> None:
    start = Starter()
    pool = EnginePool(start)
    first = pool.engine("spec", huaian, 5.0)
    others = [
        pool.engine("spec", huaian.with_options({"target": "8"}), 5.0),
        pool.engine("spec", huaian, 6.0),
        pool.engine("other", huaian, 5.0),
        pool.engine("spec", huaian, 5.0, lane=1),
    ]
    assert len({id(e) for e in [first, *others]}) == 5
    assert len(start.starts) == 5


def test_a_failed_start_is_remembered_and_not_tried_again(huaian: Ruleset) -> None:
    start = Starter()
    pool = EnginePool(start)
    for _ in range(3):
        with pytest.raises(EngineError, match="huaian is not played here") as raised:
            pool.engine("refuses", huaian)
        assert raised.value.kind is EngineErrorKind.UNSUPPORTED
    assert start.starts == [("refuses", "huaian", 10.0)]
    # The failure is the key's alone: another engine starts.
    assert pool.engine("spec", huaian) is start.made[0]


def test_a_refused_hello_closes_the_engine_and_is_remembered(huaian: Ruleset) -> None:
    start = Starter(hello_fails=True)
    pool = EnginePool(start)
    for _ in range(2):
        with pytest.raises(EngineError, match="no hello"):
            pool.engine("spec", huaian)
    assert len(start.made) == 1
    assert start.made[0].closed
    assert start.made[0].hellos == 1


def test_close_closes_every_engine_even_when_one_close_raises(huaian: Ruleset) -> None:
    start = Starter(close_fails=True)
    pool = EnginePool(start)
    engines = [pool.engine("spec", huaian, lane=lane) for lane in range(3)]
    with pytest.raises(EngineError):
        pool.engine("refuses", huaian)
    pool.close()
    assert all(isinstance(e, Tracked) and e.closed for e in engines)
    # After the close nothing is kept: an engine asked for starts anew, a refusal is asked again.
    assert pool.engine("spec", huaian) is not engines[0]
    with pytest.raises(EngineError):
        pool.engine("refuses", huaian)
    assert len(start.starts) == 6


def test_two_threads_asking_one_key_start_it_once(huaian: Ruleset) -> None:
    made: list[Engine] = []

    def slow(spec: str, ruleset: Ruleset, timeout: float) -> Engine:
        time.sleep(0.2)  # long enough for the other thread to ask meanwhile
        made.append(ReferenceEngine(ruleset))
        return made[-1]

    pool = EnginePool(slow)
    got: list[Engine] = []
    threads = [
        threading.Thread(target=lambda: got.append(pool.engine("spec", huaian))) for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert got == [made[0], made[0]]


# ---------------------------------------------------------------------------------------------
# Asking: the one loop every tool asks through


class Batching(ReferenceEngine):
    """The reference with a `batch` method, as the process engine has: notes each batch's size;
    fails a batch as a whole when told to; declares classify only."""

    def __init__(self, ruleset: Ruleset, batch_fails: bool = False) -> None:
        super().__init__(ruleset)
        self.batches: list[int] = []
        self.single: list[str] = []
        self.batch_fails = batch_fails

    def describe(self) -> EngineInfo:
        """Classify only."""
        info = super().describe()
        return EngineInfo(info.name, info.version, info.variant, info.options, ("classify",))

    def batch(self, requests: list[tuple[str, dict[str, object]]]) -> list[dict[str, object]]:
        """Each answer as a protocol response, or the batch refused whole."""
        self.batches.append(len(requests))
        if self.batch_fails:
            raise EngineError(EngineErrorKind.PROTOCOL, "a short batch")
        return [{"id": i, "output": self.answer(op, data)} for i, (op, data) in enumerate(requests)]

    def classify(self, data: dict[str, object]) -> dict[str, object]:
        """Noted, then the reference's."""
        self.single.append("classify")
        return super().classify(data)


def _questions(n: int) -> list[tuple[str, dict[str, object]]]:
    return [("classify", {"cards": ["S3"], "level": "2"})] * n + [("beats", {})]


def test_questions_go_in_batches_an_undeclared_operation_unasked(huaian: Ruleset) -> None:
    engine = Batching(huaian)
    got = list(answers(engine, _questions(BATCH + 6)))
    assert engine.batches == [BATCH, 6]  # the beats question is never sent
    assert [a()["readings"][0]["type"] for a in got[:-1]] == ["single"] * (BATCH + 6)
    with pytest.raises(EngineError) as refused:
        got[-1]()
    assert refused.value.kind is EngineErrorKind.UNSUPPORTED


def test_a_batch_that_fails_whole_is_asked_one_question_at_a_time(huaian: Ruleset) -> None:
    engine = Batching(huaian, batch_fails=True)
    got = [a() for a in list(answers(engine, _questions(3)))[:3]]
    assert engine.batches == [3] and engine.single == ["classify"] * 3
    assert all(g["readings"] for g in got)


def test_asking_stops_when_told(huaian: Ruleset) -> None:
    engine = Tracked(huaian)
    asked = 0

    def stopped() -> bool:
        return asked >= 2

    for answer in answers(engine, _questions(5), stopped):
        answer()
        asked += 1
    assert asked == 2
