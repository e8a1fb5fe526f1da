"""The clauses a run consulted (查閱記錄, issue 49): a watched copy of a ruleset records each
clause its typed view or its clauses are read for, where the interpreter reads them; a run of
simulated matches gathers what every process read, so that a clause outside the record is one
that decided nothing in the run."""

from __future__ import annotations

import pickle

import pytest

from harness.engine.cluster import Workers
from harness.model.loader import load_variant
from harness.model.registry import INFORMATIONAL
from harness.model.ruleset import CombinationType, Rules, TributeRules
from harness.model.seats import FinishKind
from harness.simulation.run import Shard, run_shard, simulate
from tests.conftest import repo_on_path

# Read whenever a round is played: when the play rules of a level are built (once, and then
# kept by ruleset in memos), and when each round is settled.
BUILT_ONCE = (
    "ranks.natural",
    "ranks.level_card.position",
    "ranks.level_card.in_full_house",
    "wild.suit",
    "bombs.ladder",
    *(f"combinations.{kind.value}.shape" for kind in CombinationType),
)
EVERY_ROUND = ("levels.final", "levels.streak.firsts", "scoring.base", "tribute.enabled")


def test_a_watched_copy_records_each_clause_read_once() -> None:
    huaian = load_variant("huaian")
    watched = huaian.watched()
    assert watched is not huaian and watched.slug == huaian.slug
    assert huaian.watched().to_json() == huaian.to_json()  # the same clauses, values and all
    assert watched.consulted() == frozenset()
    assert watched.rules.levels.up.double_down == 3
    assert watched.consulted() == {"levels.up.double_down"}
    # A group is no clause; a method of the view reads through it as play does.
    assert watched.rules.levels.up.for_finish(FinishKind.FIRST_AND_FOURTH) == 1
    assert watched.rules.combinations.shape(CombinationType.PAIR) is not None
    assert "deal.shuffler" in watched.clauses  # asking whether a clause exists reads nothing
    assert watched.value("timing.play_seconds") == huaian.value("timing.play_seconds")
    assert watched.consulted() == {
        "levels.up.double_down",
        "levels.up.first_and_fourth",
        "combinations.pair.shape",
        "timing.play_seconds",
    }
    # After its first read a clause is the instance's own field: read as fast as a plain one.
    assert "double_down" in vars(watched.rules.levels.up)
    assert "first_and_third" not in vars(watched.rules.levels.up)
    # The ruleset it was made from is untouched, and says that any clause may have been read.
    assert type(huaian.rules) is Rules
    assert huaian.consulted() == frozenset(huaian.clauses)
    assert huaian.watched().consulted() == frozenset()  # each copy has its own record


def test_an_option_chosen_is_a_clause_read_like_any_other() -> None:
    """An option chosen (打到8) sets its clause before play: the watched copy keeps the choice,
    and its clause is recorded when play reads it, as any other is."""
    to_eight = load_variant("huaian").with_options({"target": "8"})
    watched = to_eight.watched()
    assert watched.chosen == {"target": "8"} and watched.consulted() == frozenset()
    assert watched.rules.levels.final.value == "8"
    assert watched.consulted() == {"levels.final"}
    assert "levels.final" in simulate(to_eight, "greedy", 1, 1).consulted


def test_a_watched_copy_sent_to_another_process_records_there() -> None:
    """Pickled (a shard sent to a worker), a watched copy arrives with an empty record of its
    own, shared by its view and its clauses; a group sent alone is counted read whole."""
    watched = load_variant("huaian").watched()
    assert watched.rules.levels.final.value == "A"
    there = pickle.loads(pickle.dumps(watched))
    assert there.consulted() == frozenset()
    assert there.rules.flow.jiefeng and there.value("tribute.enabled") is True
    assert there.consulted() == {"flow.jiefeng", "tribute.enabled"}
    assert watched.consulted() == {"levels.final"}
    alone = pickle.loads(pickle.dumps(watched.rules.tribute))
    assert type(alone) is TributeRules and alone == load_variant("huaian").rules.tribute
    tribute = {c for c in watched.clauses if c.startswith("tribute.")}
    assert tribute <= watched.consulted()


def test_a_run_records_what_play_reads_and_no_prose_only_clause() -> None:
    report = simulate(load_variant("huaian"), "heuristic", 1, 2)
    read = report.consulted
    assert set(BUILT_ONCE) <= read and set(EVERY_ROUND) <= read
    assert read.isdisjoint(INFORMATIONAL), sorted(read & set(INFORMATIONAL))
    assert read < frozenset(report.ruleset.clauses)


def test_memos_kept_by_ruleset_do_not_hide_a_read() -> None:
    """A clause read once, when the play rules are built and kept, is recorded by every run
    that plays them: each run plays a copy of its own, which no memo has seen. The same match
    played twice reads the same clauses."""
    huaian = load_variant("huaian")
    first = run_shard(Shard(huaian.watched(), "greedy", 4, 0, 1))
    again = run_shard(Shard(huaian.watched(), "greedy", 4, 0, 1))
    assert set(BUILT_ONCE) <= again.consulted
    assert again.consulted == first.consulted
    assert again.records == first.records
    # Two runs of one ruleset in one process, each afresh.
    runs = [simulate(huaian, "greedy", 4, 1) for _ in range(2)]
    assert runs[0].consulted == runs[1].consulted == first.consulted
    assert runs[0].ruleset is not runs[1].ruleset


def test_the_reads_of_worker_processes_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Played in two processes, a run records what it records on one core: the workers' reads
    come back with their shards, since the copy in this process read only for the statistics."""
    repo_on_path(monkeypatch)  # where the pool spawns rather than forks
    huaian = load_variant("huaian")
    alone = simulate(huaian, "random", 5, 12)
    spread = simulate(huaian, "random", 5, 12, Workers(jobs=2))
    assert spread.records == alone.records
    assert spread.consulted == alone.consulted
    assert not set(BUILT_ONCE) & spread.ruleset.consulted()  # none was read in this process
