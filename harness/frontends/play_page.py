"""The site's "Variants in play" page (對局比較): the committed results of `guandan compare-play`
over the four bundled variants, drawn as SVG interval plots, each statistic across the variants
and, for each pair, what each differing clause alone moves.

The plots are drawn here, a few lines of SVG each (a dot, its 95 % interval, a zero line), so
the site needs no plotting library: they are inline, so their labels are text a browser and a
test can read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from harness._paths import spec_dir

RESULTS = "variants-in-play.json"
"""The committed results file under `spec/`, written by the command it records."""

PLOTTED = (
    "rounds_per_match",
    "plays_per_round",
    "bombs_per_round",
    "double_down_rate",
    "tribute_rate",
    "double_tribute_rate",
    "anti_tribute_rate",
    "matches_with_final_failure",
    "first_declarer_wins",
    "wins_from_3_behind",
)
"""The statistics drawn across the variants (every statistic is in the table below them)."""

ATTRIBUTED = ("rounds_per_match", "double_down_rate", "anti_tribute_rate")
"""The statistics whose change each clause step is drawn for."""


@dataclass(frozen=True)
class Row:
    """One line of a plot: its label and an estimate (`{value, low, high, n}`)."""

    label: str
    estimate: Mapping[str, Any]


def results_path() -> Path:
    """Where the committed results are."""
    return spec_dir() / RESULTS


def load_results(path: Path | None = None) -> dict[str, Any]:
    """The committed results (the JSON `guandan compare-play --json` writes)."""
    data: dict[str, Any] = json.loads((path or results_path()).read_text(encoding="utf-8"))
    return data


def variants_of(results: Mapping[str, Any]) -> list[str]:
    """The variants compared, in the order the command names them."""
    found = [name for p in results["pairs"] for name in (p["base"], p["other"])]
    return list(dict.fromkeys(found))


def estimates(results: Mapping[str, Any], name: str) -> dict[str, Mapping[str, Any]]:
    """Each variant's estimate of statistic `name`."""
    out: dict[str, Mapping[str, Any]] = {}
    for pair in results["pairs"]:
        stat = pair["statistics"].get(name)
        if stat is None:
            continue
        if stat["base"] is not None:
            out.setdefault(pair["base"], stat["base"])
        if stat["other"] is not None:
            out[pair["other"]] = stat["other"]
    return out


def _about(results: Mapping[str, Any], name: str) -> tuple[str, bool]:
    """What a statistic means and whether it is a rate."""
    for pair in results["pairs"]:
        stat = pair["statistics"].get(name)
        if stat is not None:
            return str(stat["what"]), bool(stat["rate"])
    raise KeyError(name)


def _number(x: float, rate: bool, signed: bool = False) -> str:
    scaled = 100 * x if rate else x
    text = f"{scaled:+.2f}" if signed else f"{scaled:.2f}"
    return f"{text} %" if rate else text


def interval_plot(title: str, rows: Sequence[Row], rate: bool, signed: bool = False) -> str:
    """An SVG plot: one row per label, its value as a dot and its 95 % interval as a bar; with a
    zero line when `signed` (differences). Rows with no value are drawn as "no sample"."""
    # About 7 px a character of 13 px text: the label column fits the longest label.
    label_w = min(max(120, 7 * max((len(r.label) for r in rows), default=0) + 12), 420)
    value_w, plot_w, row_h, top = 190, 300, 26, 30
    width = label_w + plot_w + value_w
    points = [
        x
        for r in rows
        for x in (r.estimate.get("low"), r.estimate.get("value"), r.estimate.get("high"))
        if x is not None
    ]
    lo, hi = (min(points), max(points)) if points else (0.0, 1.0)
    if signed:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    height = top + row_h * len(rows) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="play-plot" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-size="13">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" font-weight="bold">{escape(title)}</text>',
    ]
    if signed:
        zero = x(0.0)
        out.append(
            f'<line x1="{zero:.1f}" y1="{top - 6}" x2="{zero:.1f}" y2="{height - 6}" '
            'stroke="#888" stroke-dasharray="3,3"/>'
        )
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        out.append(f'<text x="0" y="{y + 4:.1f}">{escape(row.label)}</text>')
        value, low, high = (row.estimate.get(k) for k in ("value", "low", "high"))
        if value is None:
            out.append(f'<text x="{label_w}" y="{y + 4:.1f}" fill="#888">no sample</text>')
            continue
        if low is not None and high is not None:
            # An interval that leaves zero out is drawn darker (one interval, taken alone).
            strong = signed and (low > 0 or high < 0)
            colour = "#b03a2e" if strong else "#2e86c1"
            out.append(
                f'<line x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="4" stroke-linecap="round" opacity="0.6"/>'
            )
            shown = f"{_number(value, rate, signed)} [{_number(low, rate, signed)}, "
            shown += f"{_number(high, rate, signed)}]"
        else:
            colour, shown = "#2e86c1", _number(value, rate, signed)
        out.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>')
        out.append(f'<text x="{width - value_w + 8}" y="{y + 4:.1f}">{escape(shown)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _figure(svg: str) -> str:
    # A raw HTML block: Markdown passes it as it is, so the plot is inline SVG on the page.
    return f'<div class="play-figure">\n{svg}\n</div>\n'


def _table(results: Mapping[str, Any], variants: Sequence[str]) -> list[str]:
    names = list(results["pairs"][0]["statistics"])
    for pair in results["pairs"][1:]:
        names += [n for n in pair["statistics"] if n not in names]
    out = ["| statistic | " + " | ".join(variants) + " |"]
    out.append("| --- |" + " --- |" * len(variants))
    for name in names:
        what, rate = _about(results, name)
        values = estimates(results, name)
        cells = []
        for v in variants:
            e = values.get(v)
            if e is None or e.get("value") is None:
                cells.append("–")
            elif e.get("low") is None or e.get("high") is None:
                cells.append(f"{_number(e['value'], rate)} (n {e['n']})")
            else:
                cells.append(
                    f"{_number(e['value'], rate)} [{_number(e['low'], rate)}, "
                    f"{_number(e['high'], rate)}] (n {e['n']})"
                )
        out.append(f"| {what} | " + " | ".join(cells) + " |")
    return out


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _change(estimate: Mapping[str, Any] | None, rate: bool) -> str:
    """A change with its interval, starred when the interval leaves zero out."""
    if estimate is None or estimate.get("value") is None:
        return "–"
    low, high = estimate.get("low"), estimate.get("high")
    text = _number(estimate["value"], rate, signed=True)
    if low is None or high is None:
        return text
    star = " *" if low > 0 or high < 0 else ""
    return f"{text} [{_number(low, rate, True)}, {_number(high, rate, True)}]{star}"


def _step_label(step: Mapping[str, Any], longest: int = 56) -> str:
    """`clause = value`, the value cut short where it is long (the table below has it whole)."""
    label = f"{step['clause']} = {_value(step['value'])}"
    return label if len(label) <= longest else label[: longest - 1] + "…"


def play_page(results: Mapping[str, Any] | None = None) -> str:
    """The page, from the committed results (or `results`)."""
    data = results if results is not None else load_results()
    variants = variants_of(data)
    out = [
        "# Variants in play",
        "",
        "What does a rule difference do to a game? Each variant was played by four "
        f"{data['bots']} bots on the same deals (common random numbers: match *i* of every "
        f"run plays the seed made from the run's seed and *i*), {data['matches']:,} matches "
        "each; then, for each pair of variants and every clause where the second differs "
        "from the first, the first was played again with that one clause changed, on the "
        "same seeds. Dots are estimates, bars their 95 % confidence intervals; a change whose "
        "interval leaves zero out is drawn red. Each interval is taken alone: of the changes "
        "that are really nothing, about one in twenty is drawn red all the same, so a lone red "
        "bar among many is weak evidence.",
        "",
        f"Made by `{data['command']} --jobs 2 --json spec/{RESULTS}` (harness "
        f"{data['version']}, seed {data['seed']}, bots {data['bots']}); the file is committed, "
        "and the test suite plays the first matches again and checks that they agree with it "
        "within the intervals. The numbers describe these bots' play: people bomb, pass and "
        "keep cards differently.",
        "",
        "## The variants side by side",
        "",
    ]
    for name in PLOTTED:
        values = estimates(data, name)
        if not values:
            continue
        what, rate = _about(data, name)
        rows = [Row(v, values[v]) for v in variants if v in values]
        out.append(_figure(interval_plot(what, rows, rate)))
    out += ["Every statistic, with its interval and sample size n:", ""]
    out += _table(data, variants)
    out += ["", "## What each difference does", ""]
    for pair in data["pairs"]:
        first, other = pair["base"], pair["other"]
        out += [f"### {other} against {first}", ""]
        steps = [s for s in pair["steps"] if not s["refused"]]
        refused = [s for s in pair["steps"] if s["refused"]]
        for name in ATTRIBUTED:
            stat = pair["statistics"].get(name)
            if stat is None or stat["difference"] is None:
                continue
            rows = [Row(f"{other} − {first} (the whole difference)", stat["difference"])]
            rows += [Row(_step_label(s), s["changes"][name]) for s in steps if name in s["changes"]]
            title = f"{stat['what']}: {other} − {first}, and each clause alone"
            out.append(_figure(interval_plot(title, rows, bool(stat["rate"]), signed=True)))
        shown = [n for n in ATTRIBUTED if (pair["statistics"].get(n) or {}).get("difference")]
        out += [
            "| clause | its value in "
            + other
            + " | "
            + " | ".join(pair["statistics"][n]["what"] for n in shown)
            + " |",
            "| --- | --- |" + " --- |" * len(shown),
        ]
        for s in steps:
            cells = [
                _change(s["changes"].get(n), bool(pair["statistics"][n]["rate"])) for n in shown
            ]
            out.append(f"| `{s['clause']}` | `{_value(s['value'])}` | " + " | ".join(cells) + " |")
        out.append("")
        for s in refused:
            out.append(
                f"- `{s['clause']}` = `{_value(s['value'])}` cannot be played alone on {first} "
                "(the loader refuses it without the other clauses of "
                f"{other}).\n"
            )
        out += [pair["note"], ""]
    return "\n".join(out) + "\n"
