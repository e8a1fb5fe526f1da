"""The "Variants in play" page (issue 27, part 4): drawn from the committed results of
`guandan compare-play`, which a small re-run of the same seeds agrees with; its plots are SVG
a reader can trust (issue 48): a numbered axis in the statistic's unit, one scale for every
plot of a statistic, each interval drawn, and labels whole."""

from __future__ import annotations

import copy
import html
import itertools
import json
import math
import re
import shlex
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

import pytest

from harness import __version__
from harness.frontends.play_page import (
    ATTRIBUTED,
    PLOTTED,
    UNITS,
    estimates,
    load_results,
    play_page,
    variants_of,
)
from harness.frontends.plots import GAP, MARGIN, text_width
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


@pytest.mark.slow
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


def test_a_step_not_played_is_listed_with_why(results: dict[str, Any]) -> None:
    """A step `compare-play` left unplayed (no match of the first variant read its clause) is
    named under its pair's table, with its exact, unchanged numbers in the table; a results
    file written before steps could be left unplayed has no such step, and reads as before."""
    skipped = [s for p in results["pairs"] for s in p["steps"] if s.get("skipped")]
    # The bundled results leave the deal's and disclosure's clauses unplayed: no bot reads them.
    assert skipped and all(s["clause"].split(".")[0] != "ranks" for s in skipped)
    page = play_page(results)
    assert page.count("was not played") == len(skipped)
    line = (
        '- `disclosure.hand_count` = `{"max_cards": 10, "mode": "announce"}` was not played: '
        "no match of huaian read that clause, so on the same seeds every match plays as "
        "huaian's and it changes nothing."
    )
    assert line in page
    assert "<code>disclosure.<wbr>hand&#95;<wbr>count</code>" in page  # still in the table
    before = copy.deepcopy(results)
    for pair in before["pairs"]:
        for step in pair["steps"]:
            step.pop("skipped", None)
    assert "was not played" not in play_page(before)


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
        labels = [_text(e) for e in _all(ET.fromstring(svg), "label")]
        assert labels == variants_of(results)
    assert "levels.up.double_down = 4" in page
    for pair in results["pairs"]:
        assert f"### {pair['other']} against {pair['base']}" in page


def _plots(page: str) -> list[ET.Element]:
    return [ET.fromstring(svg) for svg in _svgs(page)]


def _all(plot: ET.Element, css: str) -> list[ET.Element]:
    return [e for e in plot.iter() if e.get("class") == css]


def _text(element: ET.Element) -> str:
    return "".join(element.itertext())


def _at(element: ET.Element, name: str) -> float:
    return float(element.get(name, "nan"))


def _ticks(plot: ET.Element) -> list[tuple[float, float]]:
    """Each tick number under the plot area, with where it is drawn."""
    return [(_at(t, "x"), float(_text(t))) for t in _all(plot, "tick-label")]


def _area(plot: ET.Element) -> tuple[float, float]:
    (area,) = _all(plot, "plot-area")
    return _at(area, "x"), _at(area, "x") + _at(area, "width")


@pytest.fixture(scope="module")
def plots(results: dict[str, Any]) -> list[ET.Element]:
    return _plots(play_page(results))


def test_every_plot_has_a_numbered_axis_in_its_statistics_unit(
    results: dict[str, Any], plots: list[ET.Element]
) -> None:
    """Under every plot, an axis as wide as the plot area, three or more ticks with numbers
    1, 2 or 5 times a power of ten apart, evenly placed from one end to the other, and the
    statistic's unit: a share in %, a change of one in percentage points. Each dot and each
    interval's end lies on the axis where the number written beside it says."""
    assert plots
    for plot in plots:
        name, change = plot.get("data-statistic", ""), plot.get("data-kind") == "change"
        left, right = _area(plot)
        (axis,) = _all(plot, "axis")
        assert (_at(axis, "x1"), _at(axis, "x2")) == (left, right)
        ticks = _ticks(plot)
        assert len(ticks) >= 3 and len(_all(plot, "tick")) == len(ticks), name
        places, numbers = zip(*ticks, strict=True)
        assert places[0] == pytest.approx(left, abs=0.1)
        assert places[-1] == pytest.approx(right, abs=0.1)
        step = numbers[1] - numbers[0]
        assert all(b - a == pytest.approx(step) for a, b in itertools.pairwise(numbers))
        gap = places[1] - places[0]
        assert all(b - a == pytest.approx(gap, abs=0.11) for a, b in itertools.pairwise(places))
        assert round(step / 10 ** math.floor(math.log10(step)), 6) in (1, 2, 5), (name, step)
        if change:
            assert all(_text(t)[0] in "+-0" for t in _all(plot, "tick-label"))
        (unit,) = _all(plot, "unit")
        rate = bool(results["pairs"][0]["statistics"][name]["rate"])
        expected = {
            (False, False): UNITS[name],
            (False, True): f"change in {UNITS[name]}",
            (True, False): f"share of {UNITS[name]} (%)",
            (True, True): f"change in the share of {UNITS[name]} (percentage points)",
        }[rate, change]
        assert _text(unit) == expected

        def at(v: float) -> float:
            # Where number `v` is on the axis, from its end ticks.
            span = (places[-1] - places[0]) / (numbers[-1] - numbers[0])  # noqa: B023
            return places[0] + (v - numbers[0]) * span  # noqa: B023

        # The numbers are written to 2 decimals, the places to 1.
        near = 0.005 / step * gap + 0.06
        for row in _all(plot, "row"):
            (value,) = _all(row, "value")
            written = [float(n) for n in re.findall(r"[-+]?\d+\.\d+", _text(value))]
            (dot,) = _all(row, "estimate")
            assert _at(dot, "cx") == pytest.approx(at(written[0]), abs=near), _text(value)
            ends = sorted(_at(cap, "x1") for cap in _all(row, "cap"))
            assert ends == pytest.approx([at(written[1]), at(written[2])], abs=near)
            assert left - 0.1 <= ends[0] and ends[1] <= right + 0.1
        zero = _all(plot, "zero")
        assert bool(zero) == (numbers[0] <= 0 <= numbers[-1])
        assert not change or zero


def test_one_scale_for_every_plot_of_a_statistic(
    results: dict[str, Any], plots: list[ET.Element]
) -> None:
    """The plots of one statistic's changes, one a pair, are drawn on one axis: the same ticks
    at the same places, the same plot area and the same width (so a browser shrinking them to
    a narrow page shrinks them alike) and equal differences are equally long. So are all the
    plots of values across the variants, each statistic its one plot."""
    groups: dict[tuple[str, str], list[ET.Element]] = defaultdict(list)
    for plot in plots:
        groups[plot.get("data-statistic", ""), plot.get("data-kind", "")].append(plot)
    side = [n for n in PLOTTED if estimates(results, n)]
    assert [k for k in groups if k[1] == "value"] == [(n, "value") for n in side]
    for name in ATTRIBUTED:
        assert len(groups[name, "change"]) == len(results["pairs"]), name
    for key, group in groups.items():
        assert all(_ticks(p) == _ticks(group[0]) for p in group), key
    for kind in ("value", "change"):
        sizes = {(p.get("width"), _area(p)) for p in plots if p.get("data-kind") == kind}
        assert len(sizes) == 1, (kind, sizes)


def test_labels_are_whole(results: dict[str, Any], plots: list[ET.Element]) -> None:
    """Every label is its whole string in one text node (the variant, or `clause = value` with
    the value's JSON in full): wrapped at spaces where long, each line inside the label column,
    never cut; each title and each written value inside the plot."""
    expected_side = variants_of(results)
    expected_changes = {
        f"{p['other']} − {p['base']} (the whole difference)" for p in results["pairs"]
    } | {
        f"{s['clause']} = {json.dumps(s['value'], ensure_ascii=False, sort_keys=True)}"
        for p in results["pairs"]
        for s in p["steps"]
        if not s["refused"]
    }
    seen = set()
    for plot in plots:
        labels = [_text(label) for label in _all(plot, "label")]
        if plot.get("data-kind") == "value":
            assert labels == expected_side
        seen |= set(labels)
        left, _ = _area(plot)
        width = _at(plot, "width")
        for label in _all(plot, "label"):
            lines = [_text(span) for span in label]
            assert all(line.endswith(" ") for line in lines[:-1])
            assert all(text_width(line) <= left - MARGIN - GAP for line in lines), lines
        for title in _all(plot, "plot-title"):
            assert all(text_width(_text(s), bold=True) <= width - 2 * MARGIN for s in title)
        for value in _all(plot, "value"):
            assert _at(value, "x") + text_width(_text(value)) <= width
    assert seen == set(expected_side) | expected_changes
    assert "…" not in "".join(seen)


def test_every_statistic_has_a_unit() -> None:
    """Every statistic in the committed results has its unit in `UNITS` (a new statistic
    without one is drawn over its own words: add its unit)."""
    names = {n for p in load_results()["pairs"] for n in p["statistics"]}
    assert names - set(UNITS) == set()


def test_the_clause_tables_break_ids_and_values_only_between_words(
    results: dict[str, Any],
) -> None:
    """In each pair's table, a clause id and its value are code that may break after a dot or
    an underscore and nowhere else in a word; read without the breaks, each is whole, and no
    character of it is Markdown's (no emphasis, no extra cell)."""
    page = play_page(results)
    cells = re.findall(r"^\| <code>(.*?)</code> \| <code>(.*?)</code> \|", page, re.M)
    expected = [
        (s["clause"], json.dumps(s["value"], ensure_ascii=False, sort_keys=True))
        for p in results["pairs"]
        for s in p["steps"]
        if not s["refused"]
    ]
    assert [tuple(html.unescape(c.replace("<wbr>", "")) for c in row) for row in cells] == expected
    for clause, value in cells:
        assert clause.count("<wbr>") == clause.count(".") + clause.count("&#95;")
        assert not set("_*`|") & set(clause + value.replace("<wbr>", ""))
