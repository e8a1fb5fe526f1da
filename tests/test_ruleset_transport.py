"""A ruleset sent to another process (pickled, as every shard of simulate and fuzz carries it)
is built there once and reused for every shard that carries it, so the interpreter's memos,
kept by ruleset, stay warm in a worker; another ruleset is another object, and only the latest
few are kept."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
from collections import defaultdict

from harness.engine.cluster import Workers, run_tasks
from harness.interpreter.readings import play_rules
from harness.model.cards import Rank
from harness.model.loader import load_variant
from harness.model.ruleset import _RECEIVED_KEPT, Ruleset
from harness.simulation.run import Shard


def sent(ruleset: Ruleset) -> Ruleset:
    """The ruleset as another process receives it."""
    arrived: Ruleset = pickle.loads(pickle.dumps(ruleset))
    return arrived


def test_the_same_ruleset_sent_twice_is_one_object_where_it_arrives() -> None:
    huaian = load_variant("huaian")
    first, second = sent(huaian), sent(huaian)
    assert first is second and first is not huaian
    assert (first.slug, first.title, first.clauses, first.rules, first.chosen) == (
        huaian.slug,
        huaian.title,
        huaian.clauses,
        huaian.rules,
        huaian.chosen,
    )
    # The memos kept by ruleset serve every shard that carries it.
    assert play_rules(first, Rank.FIVE) is play_rules(second, Rank.FIVE)
    # Sent on from where it arrived, it is still the same one.
    assert sent(first) is first


def test_another_ruleset_is_another_object() -> None:
    huaian = load_variant("huaian")
    eight = huaian.with_options({"target": "8"})
    plain, chosen = sent(huaian), sent(eight)
    assert plain is not chosen
    assert dict(chosen.chosen) == dict(eight.chosen) and dict(plain.chosen) == {}
    # A copy made by dataclasses.replace (as a mutant is) is sent under a name of its own.
    copy = dataclasses.replace(huaian)
    assert sent(copy) is not plain


def test_only_the_latest_rulesets_are_kept() -> None:
    huaian = load_variant("huaian")
    made = [dataclasses.replace(huaian) for _ in range(_RECEIVED_KEPT + 1)]
    first = sent(made[0])
    assert sent(made[0]) is first
    for ruleset in made[1:]:
        sent(ruleset)
    assert sent(made[0]) is not first  # dropped as the oldest, and built again


_SEEN: list[Ruleset] = []
"""The distinct rulesets this worker's shards carried, held so that no address is reused."""


def _rulesets_seen(shard: Shard) -> tuple[int, int]:
    if not any(r is shard.ruleset for r in _SEEN):
        _SEEN.append(shard.ruleset)
    return os.getpid(), len(_SEEN)


def test_each_worker_process_builds_the_ruleset_once() -> None:
    huaian = load_variant("huaian")
    shards = [Shard(huaian, "random", 1, i, 1) for i in range(12)]
    seen: dict[int, set[int]] = defaultdict(set)
    run_tasks(_rulesets_seen, shards, Workers(jobs=2), lambda r: seen[r[0]].add(r[1]))
    assert seen and os.getpid() not in seen  # the shards ran in the workers
    assert all(counts == {1} for counts in seen.values()), dict(seen)


def test_a_copy_is_the_ruleset_itself() -> None:
    """A ruleset never changes: copy and deepcopy give it back, not a ruleset "received"."""
    huaian = load_variant("huaian")
    assert copy.copy(huaian) is huaian and copy.deepcopy(huaian) is huaian
    assert copy.deepcopy({"variant": huaian})["variant"] is huaian
