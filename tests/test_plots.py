"""Interval plots as inline SVG (harness/frontends/plots.py): a numbered axis of round ticks,
an interval with end caps and a dot per row, labels whole, and text measured wide enough for
the faces a browser may draw it in."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from harness.frontends.plots import (
    GAP,
    MARGIN,
    TICKS,
    Axis,
    Row,
    axis_for,
    columns_for,
    interval_plot,
    text_width,
    wrap,
)

SVG = "{http://www.w3.org/2000/svg}"

# Advance widths in em, from the fonts' own metrics (units per em 2048): DejaVu Sans, the widest
# common sans-serif face, and Liberation Sans (Arial's metrics) where it is the wider.
MEASURED = {
    "m": 0.974,
    "W": 0.989,
    "e": 0.615,
    "0": 0.636,
    " ": 0.318,
    "=": 0.838,
    "_": 0.556,
    "@": 1.015,
    '"': 0.46,
    "雙": 1.0,
}


def drawn(svg: str, css: str) -> list[ET.Element]:
    """The elements of class `css` in a plot."""
    return [e for e in ET.fromstring(svg).iter() if e.get("class") == css]


def text(element: ET.Element) -> str:
    return "".join(element.itertext())


def ticks(svg: str) -> list[tuple[float, float]]:
    """Each tick label's place and number."""
    return [(float(t.get("x", "nan")), float(text(t))) for t in drawn(svg, "tick-label")]


@pytest.mark.parametrize("char", list(MEASURED))
def test_text_is_measured_at_least_as_wide_as_the_widest_common_face(char: str) -> None:
    assert text_width(char * 10, size=10) >= MEASURED[char] * 100
    assert text_width(char * 10, size=10, bold=True) >= MEASURED[char] * 100 * 1.1


def test_wrapping_breaks_at_spaces_and_never_cuts_a_word() -> None:
    label = 'wild.default = {"applies_to": ["full_house"], "choice": "lowest"}'
    lines = wrap(label, 150)
    assert len(lines) > 1 and " ".join(lines) == label
    assert all(text_width(f"{line} ") <= 150 for line in lines if " " in line)
    # A word wider than the width has a line of its own, whole.
    assert wrap("a tribute.return.reveal_together b", 40) == [
        "a",
        "tribute.return.reveal_together",
        "b",
    ]


@pytest.mark.parametrize(
    ("points", "signed", "expected"),
    [
        ([9.46, 10.465, 10.92], False, (9.0, 11.0, 0.5)),
        ([-6.05, 5.9], True, (-8.0, 6.0, 2.0)),
        ([0.3, 0.4], True, (0.0, 0.4, 0.1)),
        ([37.349, 37.79], False, (37.3, 37.8, 0.1)),
        ([5.0], False, (4.4, 5.6, 0.2)),
    ],
)
def test_an_axis_has_round_ends_and_ticks_1_2_or_5_apart(
    points: list[float], signed: bool, expected: tuple[float, float, float]
) -> None:
    axis = axis_for([{"value": p} for p in points], "things", rate=False, signed=signed)
    assert (axis.low, axis.high, axis.step) == pytest.approx(expected)
    assert axis.low <= min(points) and max(points) <= axis.high
    assert len(axis.ticks()) - 1 <= TICKS
    mantissa = axis.step / 10 ** math.floor(math.log10(axis.step))
    assert round(mantissa, 6) in (1, 2, 5)


def test_a_rate_axis_is_in_percent_and_a_change_axis_holds_zero_and_is_signed() -> None:
    axis = axis_for([{"value": 0.02, "low": 0.01, "high": 0.031}], "pp", rate=True, signed=True)
    assert axis.low == 0 and axis.high >= 3.1
    assert [axis.tick_label(t) for t in axis.ticks()] == ["0", "+1", "+2", "+3", "+4"]
    falls = axis_for([{"value": -1.2, "low": -2.0, "high": -0.4}], "x", rate=False, signed=True)
    assert falls.tick_label(falls.low) == "-2.0" and falls.high == 0


def test_an_interval_plot_has_a_dot_an_interval_with_caps_and_a_numbered_axis() -> None:
    """A dot per row with a value, an interval with two end caps where it has one, "no sample"
    for a row without a value, labels escaped as XML text, ticks with numbers under the plot
    area and the unit under them."""
    rows = [
        Row("a<b", {"value": 0.5, "low": 0.25, "high": 0.75, "n": 10}),
        Row("no interval", {"value": 0.2, "low": None, "high": None, "n": 1}),
        Row("empty", {"value": None, "low": None, "high": None, "n": 0}),
    ]
    axis = axis_for([r.estimate for r in rows], "share of rounds (%)", rate=True)
    svg = interval_plot("Rate & more", rows, axis, statistic="double_down_rate")
    assert len(drawn(svg, "estimate")) == 2
    assert len(drawn(svg, "interval")) == 1 and len(drawn(svg, "cap")) == 2
    assert "a&lt;b" in svg and "Rate &amp; more" in svg and "no sample" in svg
    assert "50.00 [25.00, 75.00] %" in svg
    assert [n for _, n in ticks(svg)] == [20, 30, 40, 50, 60, 70, 80]
    (unit,) = drawn(svg, "unit")
    assert text(unit) == "share of rounds (%)"
    # The dot and the caps are where their numbers are on the axis.
    (x0, n0), (x1, n1) = ticks(svg)[:2]

    def at(v: float) -> float:
        return x0 + (v - n0) / (n1 - n0) * (x1 - x0)

    first = drawn(svg, "row")[0]
    (dot,) = [e for e in first.iter() if e.get("class") == "estimate"]
    caps = [float(e.get("x1", "nan")) for e in first.iter() if e.get("class") == "cap"]
    assert float(dot.get("cx", "nan")) == pytest.approx(at(50), abs=0.1)
    assert caps == pytest.approx([at(25), at(75)], abs=0.1)
    assert not drawn(svg, "zero") or float(drawn(svg, "zero")[0].get("x1", "nan")) == at(0)


def test_a_change_leaving_zero_out_is_red_on_an_axis_with_a_zero_line() -> None:
    rows = [Row("x", {"value": -1.0, "low": -2.0, "high": -0.5, "n": 9})]
    axis = axis_for([r.estimate for r in rows], "change in things", rate=False, signed=True)
    svg = interval_plot("Change", rows, axis)
    (zero,) = drawn(svg, "zero")
    assert float(zero.get("x1", "nan")) == pytest.approx(dict(map(reversed, ticks(svg)))[0.0])
    assert "#b03a2e" in drawn(svg, "interval")[0].get("stroke", "")
    assert "-1.00 [-2.00, -0.50]" in svg


def test_a_long_label_is_wrapped_whole_inside_its_column() -> None:
    """A label longer than the column is wrapped at its spaces: its text node holds all of it,
    every line but the last ends in the space it broke at, and each line fits the column."""
    label = 'disclosure.hand_count = {"max_cards": 10, "mode": "announce"}'
    rows = [Row(label, {"value": 1.0, "low": 0.5, "high": 1.5, "n": 3})]
    axis = axis_for([r.estimate for r in rows], "u", rate=False)
    columns = columns_for([(rows, axis)])
    svg = interval_plot("t", rows, axis, columns)
    (node,) = drawn(svg, "label")
    assert text(node) == label
    lines = [text(span) for span in node]
    assert len(lines) > 1 and all(line.endswith(" ") for line in lines[:-1])
    area = float(drawn(svg, "plot-area")[0].get("x", "nan"))
    assert area == columns.label
    assert all(text_width(line) <= area - MARGIN - GAP for line in lines)


def test_plots_sharing_an_axis_and_columns_are_drawn_alike() -> None:
    """Two plots of one quantity on one axis and one set of columns: the same width, the same
    plot area, the same ticks at the same places, so equal differences are equally long."""
    small = [Row("a", {"value": 0.1, "low": 0.0, "high": 0.2, "n": 5})]
    large = [Row("a much longer label", {"value": 3.0, "low": 2.0, "high": 4.0, "n": 5})]
    axis = axis_for([r.estimate for r in small + large], "u", rate=False, signed=True)
    columns = columns_for([(small, axis), (large, axis)])
    one, two = (interval_plot("t", rows, axis, columns) for rows in (small, large))
    assert ticks(one) == ticks(two) and len(ticks(one)) >= 3
    assert ET.fromstring(one).get("width") == ET.fromstring(two).get("width")
    assert Axis(axis.low, axis.high, axis.step, "u", False, True) == axis


def test_an_axis_of_huge_numbers_is_still_made() -> None:
    """Numbers too long for any tick spacing give an axis all the same (two intervals)."""
    axis = axis_for([{"value": 1e30}, {"value": 3e30}], "u", rate=False)
    assert axis.low <= 1e30 and axis.high >= 3e30 and len(axis.ticks()) <= 3
