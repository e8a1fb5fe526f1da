"""Interval plots drawn as inline SVG (區間圖), no plotting library: a row per label with its
estimate as a dot and its 95 % interval as a line with end caps, over a horizontal axis with
round ticks, their numbers and the unit. Every string is text a browser and a test can read.

Plots of one quantity share an `Axis` (one range, so equal differences look equal) and
`Columns` (one size, so a browser narrowing them to a small screen narrows them alike); labels
are never cut, only wrapped at their spaces, in columns measured to hold them in any common
sans-serif face.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any


@dataclass(frozen=True)
class Row:
    """One line of a plot: its label and an estimate (`{value, low, high, n}`)."""

    label: str
    estimate: Mapping[str, Any]


def estimate_text(estimate: Mapping[str, Any], rate: bool, signed: bool = False) -> str:
    """An estimate as the page writes it, `value [low, high]` then its unit: a rate in %, a change
    of a rate in percentage points (pp), a change signed; "" where it has no value."""
    value, low, high = (estimate.get(k) for k in ("value", "low", "high"))
    if value is None:
        return ""

    def number(x: float) -> str:
        scaled = 100 * x if rate else x
        return f"{scaled:+.2f}" if signed else f"{scaled:.2f}"

    text = (
        number(value)
        if low is None or high is None
        else f"{number(value)} [{number(low)}, {number(high)}]"
    )
    return f"{text} {'pp' if signed else '%'}" if rate else text


FONT = 13
"""The plots' text size, px."""

PLOT_WIDTH = 300
"""The width of a plot's drawing area, px: every plot's, so one axis range is one scale."""

LABEL_MOST = 280
"""The widest a label column grows, px, before its labels wrap (at spaces, never mid-word)."""

GAP = 12
"""The space between a plot's columns, px."""

MARGIN = 2
"""The space left of the labels and titles, px (a glyph's ink may reach left of its place)."""

LINE = 16
"""The height of a line of label text, px."""

TICKS = 7
"""The most intervals between an axis's ticks."""

# Advance widths, in em, at least those of the sans-serif faces a reader's browser may fall back
# to for the site's font stack: each character's wider of DejaVu Sans (the widest common one)
# and Liberation Sans (Arial's and Helvetica's metrics), 2 % added, rounded up to 0.05 em; any
# other character (a CJK one, a symbol) counts 1.05 em. Text measured so is never wider in the
# browser than here, so a column made to hold it holds it.
_EM = (
    (0.3, "'Iijl"),
    (0.35, " ,./:;\\|·"),
    (0.4, "()-[]ft"),
    (0.45, "!r"),
    (0.5, '"'),
    (0.55, "*Jsz`"),
    (0.6, "?L_ck–"),
    (0.65, "FTabdeghnopquvxy"),
    (0.7, "0123456789$AEKPSVY{}"),
    (0.75, "BCRUXZ"),
    (0.8, "&DGHN"),
    (0.85, "OQw"),
    (0.9, "#+<=>M^~−×"),
    (1.0, "%m"),
)
_WIDTHS = {char: em for em, chars in _EM for char in chars}


def text_width(text: str, size: float = FONT, bold: bool = False) -> float:
    """How wide `text` is drawn at `size` px, at the most (bold: an eighth wider and 0.06 em more
    a character, as DejaVu Sans Bold's narrow letters grow most)."""
    ems = sum(_WIDTHS.get(char, 1.05) for char in text)
    return (ems * 1.125 + 0.06 * len(text) if bold else ems) * size


def wrap(text: str, width: float, size: float = FONT, bold: bool = False) -> list[str]:
    """`text` in lines no wider than `width` px with the space each ends in, broken at spaces
    only: a word is never cut (one longer than `width` has a line of its own); the lines joined
    by spaces are `text`."""
    space = text_width(" ", size, bold)
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width(f"{lines[-1]} {word}", size, bold) + space <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


@dataclass(frozen=True)
class Columns:
    """The widths of a plot's label and value columns, px. Plots that share them (and an axis) are
    drawn the same size, so a browser narrowing them to a small screen narrows them alike."""

    label: float
    value: float


def columns_for(panels: Iterable[tuple[Sequence[Row], Axis]]) -> Columns:
    """Columns holding the labels and values of every plot in `panels`: each label whole up to
    `LABEL_MOST` px (a longer one wraps at its spaces), never narrower than the longest word."""
    labels, values = [], []
    for rows, axis in panels:
        labels += [r.label for r in rows]
        values += [estimate_text(r.estimate, axis.rate, axis.signed) for r in rows]
    words = max((text_width(w) for label in labels for w in label.split(" ")), default=0)
    whole = max((text_width(label) for label in labels), default=0)
    shown = max((text_width(v) for v in [*values, "no sample"]), default=0)
    return Columns(
        label=math.ceil(max(words, min(whole, LABEL_MOST)) + text_width(" ")) + MARGIN + GAP,
        value=math.ceil(shown) + 2 * GAP,
    )


@dataclass(frozen=True)
class Axis:
    """A plot's horizontal axis in the numbers it shows (a rate in %): from `low` to `high`,
    a tick every `step`, and the unit written under it; `signed` for changes (ticks +/-)."""

    low: float
    high: float
    step: float
    unit: str
    rate: bool
    signed: bool = False

    def shown(self, x: float) -> float:
        """`x` in the axis's numbers (a rate in %)."""
        return 100 * x if self.rate else x

    def decimals(self) -> int:
        """The decimals a tick's number needs."""
        return max(0, -math.floor(math.log10(self.step) + 1e-9))

    def ticks(self) -> list[float]:
        """The ticks, from `low` to `high`."""
        count = round((self.high - self.low) / self.step)
        return [round(self.low + i * self.step, self.decimals() + 3) for i in range(count + 1)]

    def x(self, shown: float, left: float) -> float:
        """Where a number in the axis's units is drawn, the plot area starting at `left`."""
        return left + (shown - self.low) / (self.high - self.low) * PLOT_WIDTH

    def tick_label(self, tick: float) -> str:
        """A tick's number (`+` before a positive change)."""
        if abs(tick) < self.step * 1e-6:
            return "0"
        return f"{tick:+.{self.decimals()}f}" if self.signed else f"{tick:.{self.decimals()}f}"


def _steps(raw: float) -> Iterator[float]:
    """1, 2, 5 times the powers of ten, from the least that is at least `raw` up."""
    power = 10.0 ** math.floor(math.log10(raw))
    while True:
        for m in (1, 2, 5):
            if m * power >= raw * (1 - 1e-9):
                yield m * power
        power *= 10


def axis_for(
    estimates: Iterable[Mapping[str, Any]], unit: str, rate: bool, signed: bool = False
) -> Axis:
    """One axis holding every value and interval end of `estimates` (and zero for changes): its
    ends and ticks round numbers, 1, 2 or 5 times a power of ten apart, the finest such step
    that gives at most `TICKS` intervals whose numbers fit between their ticks."""
    points = [
        100 * e[k] if rate else e[k]
        for e in estimates
        for k in ("low", "value", "high")
        if e.get(k) is not None
    ]
    if signed:
        points.append(0.0)
    lo, hi = (min(points), max(points)) if points else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    # Ten steps on, an axis has at most two intervals: numbers too long for them still crowd.
    for step in itertools.islice(_steps((hi - lo) / TICKS), 10):
        low = math.floor(lo / step + 1e-9) * step
        high = math.ceil(hi / step - 1e-9) * step
        axis = Axis(low, high, step, unit, rate, signed)
        ticks = axis.ticks()
        room = PLOT_WIDTH / (len(ticks) - 1) - GAP
        if len(ticks) - 1 <= TICKS and all(text_width(axis.tick_label(t)) <= room for t in ticks):
            break
    return axis


def _text(x: float, y: float, lines: Sequence[str], css: str, extra: str = "") -> str:
    """A `<text>` of one line a `<tspan>`, `LINE` px apart from `y`; each line but the last ends
    in the space it was broken at, so the element's text is the whole string."""
    spans = "".join(
        f'<tspan x="{x:.1f}" y="{y + LINE * i:.1f}">{escape(line)}'
        f"{' ' if i < len(lines) - 1 else ''}</tspan>"
        for i, line in enumerate(lines)
    )
    return f'<text class="{css}"{extra}>{spans}</text>'


def _row(row: Row, lines: Sequence[str], top: float, height: float, axis: Axis, left: float) -> str:
    """One row of a plot, a `<g class="row">`: its label, then its interval (a line with end
    caps), its estimate (a dot) and both in numbers to the right of the plot area."""
    y = top + height / 2
    out = ['<g class="row">', _text(MARGIN, y + 4 - LINE * (len(lines) - 1) / 2, lines, "label")]
    value, low, high = (row.estimate.get(k) for k in ("value", "low", "high"))

    def x(v: float) -> float:
        return axis.x(axis.shown(v), left)

    if value is None:
        out.append(
            f'<text class="value" x="{left + GAP}" y="{y + 4:.1f}" fill="#888">no sample</text>'
        )
        return "\n".join([*out, "</g>"])
    colour = "#2e86c1"
    if low is not None and high is not None:
        # An interval that leaves zero out is drawn red (one interval, taken alone).
        colour = "#b03a2e" if axis.signed and (low > 0 or high < 0) else colour
        out.append(
            f'<line class="interval" x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" '
            f'y2="{y:.1f}" stroke="{colour}" stroke-width="2"/>'
        )
        out += [
            f'<line class="cap" x1="{x(end):.1f}" y1="{y - 6:.1f}" x2="{x(end):.1f}" '
            f'y2="{y + 6:.1f}" stroke="{colour}" stroke-width="2"/>'
            for end in (low, high)
        ]
    shown = estimate_text(row.estimate, axis.rate, axis.signed)
    out += [
        f'<circle class="estimate" cx="{x(value):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}"/>',
        f'<text class="value" x="{left + PLOT_WIDTH + GAP}" y="{y + 4:.1f}">{escape(shown)}</text>',
        "</g>",
    ]
    return "\n".join(out)


def _axis_marks(axis: Axis, left: float, top: float, bottom: float, caption: Sequence[str]) -> str:
    """The axis under a plot area from `top` to `bottom`: a grid line and a numbered tick at each
    tick, a dashed zero line where zero is in range, and the unit under the numbers."""
    out = []
    for tick in axis.ticks():
        at = axis.x(tick, left)
        out += [
            f'<line class="grid" x1="{at:.1f}" y1="{top}" x2="{at:.1f}" y2="{bottom}" '
            'stroke="#e0e0e0"/>',
            f'<line class="tick" x1="{at:.1f}" y1="{bottom}" x2="{at:.1f}" y2="{bottom + 5}" '
            'stroke="#333"/>',
            f'<text class="tick-label" x="{at:.1f}" y="{bottom + 18}" text-anchor="middle">'
            f"{escape(axis.tick_label(tick))}</text>",
        ]
    if axis.low <= 0 <= axis.high:
        zero = axis.x(0.0, left)
        out.append(
            f'<line class="zero" x1="{zero:.1f}" y1="{top}" x2="{zero:.1f}" y2="{bottom}" '
            'stroke="#666" stroke-dasharray="3,3"/>'
        )
    out += [
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{left + PLOT_WIDTH}" y2="{bottom}" '
        'stroke="#333"/>',
        _text(left + PLOT_WIDTH / 2, bottom + 20 + LINE, caption, "unit", ' text-anchor="middle"'),
    ]
    return "\n".join(out)


def interval_plot(
    title: str,
    rows: Sequence[Row],
    axis: Axis,
    columns: Columns | None = None,
    statistic: str = "",
) -> str:
    """An SVG plot of `statistic`: one row per label (whole, wrapped at spaces), its value a dot
    and its 95 % interval a line with end caps, on `axis` (every plot of the statistic shares
    it, and `columns`): ticks with numbers and the unit under the rows, a zero line where zero
    is in range. Rows with no value are drawn as "no sample"."""
    columns = columns or columns_for([(rows, axis)])
    left = columns.label
    width = left + PLOT_WIDTH + columns.value
    titled = wrap(title, width - 2 * MARGIN, bold=True)
    top = LINE * len(titled) + 12
    labels = [wrap(r.label, left - MARGIN - GAP) for r in rows]
    heights = [max(26, LINE * len(lines) + 10) for lines in labels]
    bottom = top + sum(heights) + 4
    caption = wrap(axis.unit, PLOT_WIDTH + 2 * min(left, columns.value) - 2 * GAP)
    height = bottom + 20 + LINE * len(caption) + 6
    kind = "change" if axis.signed else "value"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="play-plot" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-size="{FONT}" '
        f'data-statistic="{escape(statistic)}" data-kind="{kind}">',
        f"<title>{escape(title)}</title>",
        _text(MARGIN, LINE, titled, "plot-title", ' font-weight="bold"'),
        f'<rect class="plot-area" x="{left}" y="{top - 4}" width="{PLOT_WIDTH}" '
        f'height="{bottom - top + 4}" fill="#f7f7f7"/>',
        _axis_marks(axis, left, top - 4, bottom, caption),
    ]
    for row, lines, h, y in zip(
        rows, labels, heights, itertools.accumulate(heights, initial=top), strict=False
    ):
        out.append(_row(row, lines, y, h, axis, left))
    out.append("</svg>")
    return "\n".join(out)
