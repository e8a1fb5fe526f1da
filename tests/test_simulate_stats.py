"""`guandan simulate`: the same seed gives the same statistics on one core, in processes and
on a Dask cluster; the intervals are the textbook ones; bad input is a usage error."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from harness.engine.cluster import Workers
from harness.frontends.cli import main
from harness.interpreter.bots import make_bots
from harness.model.loader import load_variant
from harness.simulation.run import match_seed, simulate
from harness.simulation.stats import Estimate, mean, wilson
from tests.conftest import repo_on_path

SIMULATE = ["simulate", "--variant", "huaian", "--matches", "20", "--seed", "1", "--bots"]
TIMING = ("seconds",)


def run(tmp_path: Path, name: str, *extra: str, bots: str = "greedy") -> dict[str, Any]:
    """The JSON summary of `guandan simulate` on 20 huaian matches, seed 1."""
    path = tmp_path / name
    assert main([*SIMULATE, bots, "--json", str(path), "--quiet", *extra]) == 0
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k not in TIMING}


@pytest.fixture(scope="module")
def one_core(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The summary on one core, the one the others must equal."""
    return run(tmp_path_factory.mktemp("one"), "one.json")


def test_the_summary_holds_rounds_per_match_and_the_double_down_rate(
    one_core: dict[str, Any],
) -> None:
    stats = one_core["statistics"]
    rounds = stats["rounds_per_match"]
    assert rounds["n"] == 20 and rounds["low"] < rounds["value"] < rounds["high"]
    assert (rounds["what"], rounds["rate"]) == ("rounds per match", False)
    double = stats["double_down_rate"]
    assert double["n"] > 20  # per round: more rounds than matches
    assert 0 <= double["low"] <= double["value"] <= double["high"] <= 1
    assert one_core["seed"] == 1 and one_core["version"] and one_core["matches"] == 20
    assert one_core["command"] == (
        "guandan simulate --variant huaian --matches 20 --bots greedy --seed 1"
    )


def test_two_processes_write_identical_statistics(
    tmp_path: Path, one_core: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo_on_path(monkeypatch)  # where the pool spawns rather than forks
    assert run(tmp_path, "two.json", "--jobs", "2") == one_core


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_numbers_as_one_core() -> None:
    distributed = pytest.importorskip("distributed")
    ruleset = load_variant("huaian")
    alone = simulate(ruleset, "random", 5, 12)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,  # threads start at once; tcp:// as a real scheduler is reached
        protocol="tcp",
        # The scheduler serves HTTP (its health routes) even with no dashboard, on 8787
        # unless told: two clusters at once (pytest-xdist) would clash. Port 0: a free one.
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        workers = Workers(scheduler=cluster.scheduler_address, insecure=True)
        spread = simulate(ruleset, "random", 5, 12, workers)
    assert spread.records == alone.records
    assert spread.statistics() == alone.statistics()
    assert spread.consulted == alone.consulted  # the clauses read, wherever they were


def test_match_seeds_depend_on_the_run_seed_and_the_index_only() -> None:
    assert match_seed(1, 3) == match_seed(1, 3)
    assert len({match_seed(1, i) for i in range(100)} | {match_seed(2, 0)}) == 101


def test_two_kinds_set_one_team_against_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = make_bots("greedy,random", 4)
    assert [type(b).__name__ for b in bots] == ["GreedyBot", "RandomBot", "GreedyBot", "RandomBot"]
    wins = run(tmp_path, "teams.json", bots="greedy,random")["statistics"]["team0_wins"]
    # Greedy against random: a win rate whose interval lies above one half.
    assert wins["n"] == 20 and wins["low"] > 0.5
    # The table says which team is which, so that its team 0 row can be read.
    head = capsys.readouterr().out.splitlines()[0]
    assert "greedy (team 0: seats 0 and 2) against random (team 1: seats 1 and 3)" in head


def test_the_wilson_interval_by_hand() -> None:
    # 7 of 10, z = 1.96: centre (0.7 + 0.19208) / 1.38416, half 1.96/1.38416·√(0.021 + 0.009604).
    z = 1.959963984540054
    est = wilson(7, 10)
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * math.sqrt(0.7 * 0.3 / 10 + z * z / 400)
    assert est.value == 0.7 and est.n == 10
    assert est.low == pytest.approx(centre - half) and est.high == pytest.approx(centre + half)
    assert est.low == pytest.approx(0.39678, abs=1e-5) and est.high == pytest.approx(
        0.89221, abs=1e-5
    )
    zero = wilson(0, 20)
    assert zero.low == 0.0 and zero.high == pytest.approx(0.16113, abs=1e-5)
    assert wilson(0, 0) == Estimate(None, None, None, 0)


def test_the_mean_interval_by_hand() -> None:
    # 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample deviation √(32/7), half 1.96·√(32/7)/√8.
    est = mean([2, 4, 4, 4, 5, 5, 7, 9])
    half = 1.959963984540054 * math.sqrt(32 / 7) / math.sqrt(8)
    assert est.value == 5 and est.n == 8
    assert est.low == pytest.approx(5 - half) and est.high == pytest.approx(5 + half)
    assert est.high == pytest.approx(6.48159, abs=1e-5)
    assert mean([3.0]) == Estimate(3.0, None, None, 1)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["--matches", "0", "--bots", "greedy"],
            "argument --matches: expected a whole number at least 1",
        ),
        (["--matches", "3", "--bots", "clever"], "--bots clever"),
        (["--matches", "3", "--bots", "greedy,clever"], "--bots greedy,clever"),
        (["--matches", "3", "--bots", "greedy,random,greedy"], "expected a kind or two (A,B)"),
        (
            ["--matches", "3", "--bots", "greedy", "--jobs", "0"],
            "argument --jobs: expected a whole number at least 1",
        ),
    ],
)
def test_bad_input_is_a_usage_error(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["simulate", "--variant", "huaian", "--seed", "1", *argv])
    assert code == 2
    assert needle in capsys.readouterr().err


def test_a_scoring_variant_reports_beans(tmp_path: Path) -> None:
    path = tmp_path / "beans.json"
    argv = ["simulate", "--variant", "online-app", "--matches", "5", "--seed", "2", "--bots"]
    assert main([*argv, "greedy", "--json", str(path), "--quiet"]) == 0
    beans = json.loads(path.read_text(encoding="utf-8"))["statistics"]["beans_per_match"]
    assert beans["n"] == 5 and beans["value"] > 0


def test_comebacks_are_told_for_every_deficit_from_1_to_6() -> None:
    """The comeback rows go 1+, 2+, ..., 6+ with none left out (issue 51: 5+ was missing), and
    a team counts for each k up to its deepest deficit: here a team 5 behind that won and one
    6 behind that lost."""
    from harness.simulation.records import MatchRecord
    from harness.simulation.stats import summarize

    neither = (False, False)
    records = [
        MatchRecord(0, 1, (), 0, first_declarer=1, behind=(5, 0), failed=neither, beans=None),
        MatchRecord(1, 2, (), 0, first_declarer=0, behind=(0, 6), failed=neither, beans=None),
    ]
    found = {s.name: s.estimate for s in summarize(records, scores=False)}
    names = [n for n in found if n.startswith("wins_from_")]
    assert names == [f"wins_from_{k}_behind" for k in range(1, 7)]
    assert (found["wins_from_5_behind"].value, found["wins_from_5_behind"].n) == (0.5, 2)
    assert (found["wins_from_6_behind"].value, found["wins_from_6_behind"].n) == (0.0, 1)
