"""The site's "Variants in play" page (對局比較): the committed results of `guandan compare-play`
over the four bundled variants, drawn as SVG interval plots, each statistic across the variants
and, for each pair, what each differing clause alone moves.

The plots (`harness.frontends.plots`) are inline SVG, so their labels are text a browser and a
test can read. Each statistic has one axis for its values across the variants and one for its
changes across every pair, with the unit its id has in `UNITS`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from harness._paths import spec_dir
from harness.frontends.plots import Axis, Row, axis_for, columns_for, estimate_text, interval_plot
from harness.simulation.stats import BEHIND

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

UNITS: dict[str, str] = {
    "rounds_per_match": "rounds per match",
    "plays_per_round": "plays per round",
    "tricks_per_round": "tricks per round",
    "bombs_per_round": "bombs per round",
    "beans_per_match": "beans per match",
    "double_down_rate": "rounds",
    "tribute_rate": "rounds after the first",
    "double_tribute_rate": "rounds after the first",
    "anti_tribute_rate": "rounds after the first",
    "final_level_failure_rate": "rounds at the declarer's final level",
    "matches_with_final_failure": "matches",
    "final_failure_reset_rate": "failures at a final level",
    "failed_team_wins": "teams that failed at a final level",
    "first_declarer_wins": "matches",
    "team0_wins": "matches",
    **{f"wins_from_{k}_behind": f"teams ever {k}+ levels behind" for k in BEHIND},
}
"""Each statistic's unit, keyed by its id: what a mean counts, or what a rate is a share of (a
statistic missing here is measured in its own words)."""


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


def unit_caption(name: str, what: str, rate: bool, change: bool = False) -> str:
    """The unit written under an axis of statistic `name` (from `UNITS`, else its own words):
    a rate's values are a share in %, its changes percentage points."""
    unit = UNITS.get(name, what)
    if rate:
        return (
            f"change in the share of {unit} (percentage points)"
            if change
            else f"share of {unit} (%)"
        )
    return f"change in {unit}" if change else unit


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
            shown = e is not None and e.get("value") is not None
            cells.append(f"{estimate_text(e, rate)} (n {e['n']})" if e and shown else "–")
        out.append(f"| {what} | " + " | ".join(cells) + " |")
    return out


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _change(estimate: Mapping[str, Any] | None, rate: bool) -> str:
    """A change with its interval, starred when the interval leaves zero out."""
    if estimate is None or estimate.get("value") is None:
        return "–"
    low, high = estimate.get("low"), estimate.get("high")
    leaves_zero = low is not None and high is not None and (low > 0 or high < 0)
    return estimate_text(estimate, rate, signed=True) + (" *" if leaves_zero else "")


def _code(text: str) -> str:
    """`text` as code in a table cell that may be narrow: it breaks after a dot or an underscore,
    between the words of a clause id or a value, never inside one. Markdown's own characters
    are written as references, so no string from the results makes emphasis or a cell."""
    marked = re.sub(r"([._])", r"\1<wbr>", escape(text))
    for char in "_*`|\\[]":
        marked = marked.replace(char, f"&#{ord(char)};")
    return f"<code>{marked}</code>"


def _step_label(step: Mapping[str, Any]) -> str:
    """`clause = value`, whole (a plot wraps it at its spaces)."""
    return f"{step['clause']} = {_value(step['value'])}"


def attribution_rows(pair: Mapping[str, Any], name: str) -> list[Row]:
    """The rows of a pair's attribution of statistic `name`: the whole difference, then what
    each clause that could be played alone moves (none where the pair has no difference)."""
    stat = pair["statistics"].get(name)
    if stat is None or stat["difference"] is None:
        return []
    first, other = pair["base"], pair["other"]
    rows = [Row(f"{other} − {first} (the whole difference)", stat["difference"])]
    for step in pair["steps"]:
        if not step["refused"] and name in step["changes"]:
            rows.append(Row(_step_label(step), step["changes"][name]))
    return rows


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
        "same seeds. Dots are estimates, the capped lines through them their 95 % confidence "
        "intervals. Each statistic is drawn on one scale in all its plots (its values on one "
        "axis, its changes on another), so equal differences look equal; a share is in %, a "
        "change of a share in percentage points (pp). A change whose interval leaves zero out "
        "is drawn red. Each interval is taken alone: of the changes that are really nothing, "
        "about one in twenty is drawn red all the same, so a lone red line among many is weak "
        "evidence.",
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
    # Each statistic's one axis; all plots one size (a narrow screen shrinks them alike).
    side: list[tuple[str, str, list[Row], Axis]] = []
    for name in PLOTTED:
        values = estimates(data, name)
        if values:
            what, rate = _about(data, name)
            rows = [Row(v, values[v]) for v in variants if v in values]
            side.append(
                (name, what, rows, axis_for(values.values(), unit_caption(name, what, rate), rate))
            )
    columns = columns_for((rows, axis) for _, _, rows, axis in side)
    for name, what, rows, axis in side:
        out.append(_figure(interval_plot(what, rows, axis, columns, statistic=name)))
    out += ["Every statistic, with its interval and sample size n:", ""]
    out += _table(data, variants)
    out += ["", "## What each difference does", ""]
    # One axis per statistic over every pair's changes; all plots one size.
    attributed = {n: [attribution_rows(p, n) for p in data["pairs"]] for n in ATTRIBUTED}
    axes: dict[str, Axis] = {}
    for name, per_pair in attributed.items():
        if any(per_pair):
            what, rate = _about(data, name)
            changes = [r.estimate for rows in per_pair for r in rows]
            axes[name] = axis_for(changes, unit_caption(name, what, rate, True), rate, True)
    columns = columns_for(
        (rows, axes[name]) for name, per_pair in attributed.items() for rows in per_pair if rows
    )
    for index, pair in enumerate(data["pairs"]):
        first, other = pair["base"], pair["other"]
        out += [f"### {other} against {first}", ""]
        steps = [s for s in pair["steps"] if not s["refused"]]
        refused = [s for s in pair["steps"] if s["refused"]]
        # Files written before steps could be left unplayed have no `skipped`: all were played.
        unread = [s for s in steps if s.get("skipped")]
        for name in ATTRIBUTED:
            rows = attributed[name][index]
            if not rows:
                continue
            title = f"{pair['statistics'][name]['what']}: {other} − {first}, and each clause alone"
            out.append(_figure(interval_plot(title, rows, axes[name], columns, statistic=name)))
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
            clause, value = _code(s["clause"]), _code(_value(s["value"]))
            out.append(f"| {clause} | {value} | " + " | ".join(cells) + " |")
        out.append("")
        for s in refused:
            out.append(
                f"- `{s['clause']}` = `{_value(s['value'])}` cannot be played alone on {first} "
                "(the loader refuses it without the other clauses of "
                f"{other}).\n"
            )
        for s in unread:
            out.append(
                f"- `{s['clause']}` = `{_value(s['value'])}` was not played: no match of "
                f"{first} read that clause, so on the same seeds every match plays as "
                f"{first}'s and it changes nothing.\n"
            )
        out += [pair["note"], ""]
    return "\n".join(out) + "\n"
