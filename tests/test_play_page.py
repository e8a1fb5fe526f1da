"""The "Variants in play" page (issue 27, part 4): drawn from the committed results of
`guandan compare-play`, which a small re-run of the same seeds agrees with; its plots are SVG
with a dot and an interval per row."""

from __future__ import annotations

import itertools
import re
import shlex
from typing import Any

import pytest

from harness import __version__
from harness.frontends.play_page import (
    ATTRIBUTED,
    PLOTTED,
    Row,
    estimates,
    interval_plot,
    load_results,
    play_page,
    variants_of,
)
from harness.model.loader import load_variant
from harness.simulation.run import simulate

RERUN = 12
"""Matches of each variant played again: the first ones of the committed run's seeds."""


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return load_results()


def test_the_results_say_how_they_were_made(results: dict[str, Any]) -> None:
    """The command, seed, bots and version are in the file, and the command is the one that
    gives these numbers: compare-play of the four bundled variants, heuristic bots."""
    words = shlex.split(results["command"])
    assert words[:2] == ["guandan", "compare-play"]
    assert words[2:6] == ["huaian", "competition", "match-rules", "online-app"]
    assert results["bots"] == "heuristic" and "--bots" in words
    assert words[words.index("--seed") + 1] == str(results["seed"])
    assert int(words[words.index("--matches") + 1]) == results["matches"] >= 200
    assert results["version"] == __version__
    assert variants_of(results) == ["huaian", "competition", "match-rules", "online-app"]
    # Every pair, not only huaian against the others: each pair's differences attributed.
    assert "--every-pair" in words
    pairs = [(p["base"], p["other"]) for p in results["pairs"]]
    assert pairs == list(itertools.combinations(variants_of(results), 2))


def test_a_small_rerun_agrees_within_the_intervals(results: dict[str, Any]) -> None:
    """The first matches of each variant, played again with the same seed and bots, give
    numbers whose intervals hold the committed values of the main statistics, and overlap the
    committed intervals of every statistic: a changed bot or rule that moves the numbers makes
    the committed file stale, and this fails."""
    for slug in variants_of(results):
        again = simulate(load_variant(slug), results["bots"], results["seed"], RERUN)
        for stat in again.statistics():
            committed = estimates(results, stat.name).get(slug)
            mine = stat.estimate
            if committed is None or mine.low is None or committed["low"] is None:
                continue
            assert mine.high is not None and committed["high"] is not None
            assert mine.low <= committed["high"] and committed["low"] <= mine.high, (
                slug,
                stat.name,
                mine,
                committed,
            )
            if stat.name in ("rounds_per_match", "double_down_rate", "plays_per_round"):
                assert mine.low <= committed["value"] <= mine.high, (slug, stat.name, mine)


def test_the_committed_comparison_attributes_a_shorter_match_to_the_double_down(
    results: dict[str, Any],
) -> None:
    """Issue 27's acceptance: match-rules plays shorter matches than huaian, and its
    double-down worth 4 levels alone shortens a huaian match, with an interval below zero;
    every other differing clause's move of rounds per match is given too."""
    (pair,) = [p for p in results["pairs"] if (p["base"], p["other"]) == ("huaian", "match-rules")]
    whole = pair["statistics"]["rounds_per_match"]["difference"]
    assert whole["high"] < 0
    steps = {s["clause"]: s for s in pair["steps"]}
    double_down = steps["levels.up.double_down"]
    assert double_down["value"] == 4
    assert double_down["changes"]["rounds_per_match"]["high"] < 0
    for step in pair["steps"]:
        assert step["refused"] or "rounds_per_match" in step["changes"], step["clause"]


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg .*?</svg>", page, re.S)


def test_the_page_draws_each_statistic_and_each_attribution(results: dict[str, Any]) -> None:
    page = play_page(results)
    assert page.startswith("# Variants in play\n")
    assert results["command"] in page
    side_by_side = [name for name in PLOTTED if estimates(results, name)]
    attributions = [
        name
        for pair in results["pairs"]
        for name in ATTRIBUTED
        if (pair["statistics"].get(name) or {}).get("difference")
    ]
    svgs = _svgs(page)
    assert len(svgs) == len(side_by_side) + len(attributions)
    for svg in svgs[: len(side_by_side)]:
        for slug in variants_of(results):
            assert f">{slug}</text>" in svg
    assert "levels.up.double_down = 4" in page
    for pair in results["pairs"]:
        assert f"### {pair['other']} against {pair['base']}" in page


def test_an_interval_plot_has_a_dot_and_a_bar_per_row() -> None:
    """A dot per row with a value, a bar where it has an interval, a zero line for changes,
    "no sample" for a row without a value, and labels escaped as XML text."""
    rows = [
        Row("a<b", {"value": 0.5, "low": 0.25, "high": 0.75, "n": 10}),
        Row("no interval", {"value": 0.2, "low": None, "high": None, "n": 1}),
        Row("empty", {"value": None, "low": None, "high": None, "n": 0}),
    ]
    svg = interval_plot("Rate & more", rows, rate=True)
    assert svg.count("<circle") == 2 and svg.count("<line") == 1
    assert "a&lt;b" in svg and "Rate &amp; more" in svg and "no sample" in svg
    assert "50.00 % [25.00 %, 75.00 %]" in svg
    changes = interval_plot(
        "Change",
        [Row("x", {"value": -1.0, "low": -2.0, "high": -0.5, "n": 9})],
        rate=False,
        signed=True,
    )
    # The zero line, then the bar, red as its interval leaves zero out.
    assert (
        changes.count("<line") == 2 and "#b03a2e" in changes and "-1.00 [-2.00, -0.50]" in changes
    )
