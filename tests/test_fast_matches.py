"""Whole matches on the fast engine (issue 52): the heuristic bots in C, every round played in
the kernel with the kernel's own listing, give match logs byte for byte equal to the Python
path's (100 matches of each bundled variant in the slow tier), and `simulate` and
`compare-play` give the same numbers on both paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.engine.fast.fast_rounds import FastRounds
from harness.engine.fast.matches import FastMatches, fast_matches
from harness.errors import HarnessError
from harness.interpreter.bots import play_match
from harness.kernel import build
from harness.model.derived import derive
from harness.model.loader import load_variant, variant_slugs
from harness.model.mutants import mutants, mutate
from harness.simulation.run import simulate

ROOT = Path(__file__).resolve().parents[1]
HAS_COMPILER = build._compiler() is not None and not build._switched_off()
pytestmark = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")

SLUGS = variant_slugs()


def _fast(slug: str) -> FastMatches:
    found = fast_matches(load_variant(slug), "heuristic")
    assert found is not None, slug
    return found


def _same_logs(slug: str, seeds: range) -> int:
    """Play each seed on both paths and compare the logs as JSON text; the rounds played."""
    ruleset = load_variant(slug)
    fast = _fast(slug)
    before = fast.rounds_played.played
    for seed in seeds:
        python = json.dumps(play_match(ruleset, seed, "heuristic").to_json())
        log = fast.play(seed)
        assert json.dumps(log.to_json()) == python, (slug, seed)
    return fast.rounds_played.played - before


@pytest.mark.parametrize("slug", SLUGS)
def test_match_logs_are_the_python_paths_byte_for_byte(slug: str) -> None:
    played = _same_logs(slug, range(3))
    assert played >= 3 * 5  # every round of them in the kernel: a match has five or more


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_a_hundred_match_logs_of_each_variant_are_the_python_paths(slug: str) -> None:
    assert _same_logs(slug, range(1000, 1100)) >= 100 * 5


@pytest.mark.parametrize(
    "values",
    [{"flow.pass": "when_unable"}, {"flow.jiefeng": "next_active"}, {"flow.early_end": False}],
    ids=lambda v: ",".join(f"{k}={json.dumps(x)}" for k, x in v.items()),
)
def test_a_mutants_logs_are_the_python_paths(values: dict[str, object]) -> None:
    ruleset = derive(load_variant("huaian"), values)
    assert ruleset is not None
    fast = fast_matches(ruleset, "heuristic")
    assert fast is not None
    for seed in range(3):
        python = json.dumps(play_match(ruleset, seed, "heuristic").to_json())
        log = fast.play(seed)
        assert json.dumps(log.to_json()) == python


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_a_match_of_every_fourth_mutant_is_the_python_paths(slug: str) -> None:
    """The one-clause mutants `guandan mutate` plays, a match each on both paths (every fourth
    of each variant's, in turn: all of them take minutes): the policy and the round follow the
    rules' data in C as in Python. A rule set with no singles stops the Python bot (no play to
    lead with), and the fast engine's bot refuses the same hand."""
    base = load_variant(slug)
    played = 0
    for i, change in enumerate(mutants(base)):
        if i % 4:
            continue
        ruleset = mutate(base, change.clause, change.value)
        fast = None if ruleset is None else fast_matches(ruleset, "heuristic")
        if ruleset is None or fast is None:
            continue
        try:
            python = json.dumps(play_match(ruleset, 0, "heuristic").to_json())
        except IndexError:
            with pytest.raises(HarnessError):
                fast.play(0)
            continue
        assert json.dumps(fast.play(0).to_json()) == python, change
        played += 1
    assert played > 25


def test_simulate_gives_the_same_numbers_on_both_paths() -> None:
    ruleset = load_variant("competition")
    before = FastRounds.played_in_process
    on_fast = simulate(ruleset, "heuristic", 7, 12)
    played = FastRounds.played_in_process - before
    on_python = simulate(ruleset, "heuristic", 7, 12, fast=False)
    assert FastRounds.played_in_process - before == played  # none on the Python path
    assert played == sum(len(m.rounds) for m in on_python.records) > 0
    assert on_fast.statistics() == on_python.statistics()
    assert on_fast.records == on_python.records


def test_other_bots_and_an_engine_switched_off_take_the_python_path() -> None:
    ruleset = load_variant("huaian")
    assert fast_matches(ruleset, "random") is None
    assert fast_matches(ruleset, "heuristic,greedy") is None
    assert fast_matches(ruleset, "heuristic,heuristic") is not None
    script = (
        "from harness.engine.fast.matches import fast_matches\n"
        "from harness.model.loader import load_variant\n"
        "print(fast_matches(load_variant('huaian'), 'heuristic'))\n"
    )
    env = {**os.environ, build.SWITCH: "off"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.stdout.strip() == "None", done.stderr


def test_the_cli_flag_plays_the_python_path_with_the_same_numbers(tmp_path: Path) -> None:
    outputs = []
    for flag in ([], ["--python"]):
        path = tmp_path / f"out{len(outputs)}.json"
        argv = ["simulate", "--variant", "huaian", "--matches", "6", "--seed", "3", "--quiet"]
        done = subprocess.run(
            [sys.executable, "-m", "harness.frontends.cli", *argv, "--json", str(path), *flag],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(path.read_text(encoding="utf-8")))
        outputs[-1].pop("seconds")  # the one figure that may differ: how long it took
    assert outputs[0] == outputs[1]
    assert outputs[0]["statistics"]
