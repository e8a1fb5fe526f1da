"""The conformance dashboard drawn as HTML (一致性總覽): one self-contained page for `guandan report
--html` (styles inline, no script, nothing fetched), and the site's Conformance page, which shows
the reference engine on every bundled variant, run when the site is built.

Every string that comes from a report is escaped: a report holds engine output, which is untrusted.
Cards are drawn by the docs' own `cards_html`, with the docs' own stylesheet.
"""

from __future__ import annotations

import functools
import html
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.conformance.explaining.failures import (
    DECIDING_RULE,
    FAMILY_RULE,
    clauses_of,
    differences,
    status_of,
)
from harness.conformance.reporting import mdescape as md
from harness.conformance.reporting.dashboard import (
    RATE_RULE,
    Dashboard,
    EngineRuns,
    Explainer,
    Rate,
    build,
    bundled_case,
    report_from_json,
)
from harness.conformance.reporting.run_reports import report_json
from harness.conformance.running.results import RunConfig
from harness.conformance.running.runner import run
from harness.frontends.card_faces import cards_html, reading_words
from harness.model.cards import Card, Rank
from harness.model.loader import bundled_variants, load_variant, variant_slugs
from harness.wording import counted

ASSETS = Path(__file__).resolve().parent / "assets"
# The stylesheets the dashboard needs, by their path on the site (mkdocs.yml's extra_css).
STYLESHEETS = {"stylesheets/cards.css": "cards.css", "stylesheets/dashboard.css": "dashboard.css"}
SITE_PAGE = "conformance.md"


def stylesheet(name: str) -> str:
    """A stylesheet of the package's assets (the cards, the dashboard)."""
    return (ASSETS / name).read_text(encoding="utf-8")


def esc(value: Any) -> str:
    """Any value as escaped HTML text, fit for an attribute too."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


_NOT_ANCHOR = re.compile(r"[^a-z0-9]+")


def _anchor(*parts: object) -> str:
    return "-".join(_NOT_ANCHOR.sub("-", str(p).lower()).strip("-") or "x" for p in parts)


# One encoder for every value: `json.dumps` with options makes a new one each call.
_ONE_LINE = json.JSONEncoder(ensure_ascii=False, default=str)


def _json(value: Any, indent: int | None = None) -> str:
    return esc(_ONE_LINE.encode(value) if indent is None else indented_json(value, indent))


def indented_json(value: Any, indent: int) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=indent, default=str)`, three times as fast:
    with an indent, `json` encodes in Python, a generator per value (1.6 s of a page of 32,000
    failures). A key `json` would refuse is left to `json` itself."""
    try:
        return _indented(value, " " * indent, "\n")
    except TypeError:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=str)


def _indented(value: Any, step: str, newline: str) -> str:
    # As `json.encoder` tells the kinds apart, in its order (a bool is an int, so first).
    if isinstance(value, str):
        return _string(value)
    if value is None or value is True or value is False:
        return _CONSTANTS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    inner = newline + step
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        items = [_indented(v, step, inner) for v in value]
        return "[" + inner + ("," + inner).join(items) + newline + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        pairs = [f"{_key(k)}: {_indented(v, step, inner)}" for k, v in value.items()]
        return "{" + inner + ("," + inner).join(pairs) + newline + "}"
    return _string(str(value))  # default=str


_CONSTANTS = {None: "null", True: "true", False: "false"}
_string = json.encoder.encode_basestring


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _string(key)
    if isinstance(key, float):
        return _string(_float(key))
    if key is None or key is True or key is False:
        return _string(_CONSTANTS[key])
    if isinstance(key, int):
        return _string(int.__repr__(key))
    raise TypeError(f"a key of type {type(key).__name__}")


@dataclass(frozen=True)
class Section:
    """A part of the dashboard: a heading, its anchor, and its HTML."""

    title: str
    anchor: str
    html: str


# ---------------------------------------------------------------------------------------------
# Matrices


def _rate_td(rate: Rate, href: str | None = None) -> str:
    counts = ", ".join(f"{s} {n}" for s, n in sorted(rate.counts.items()))
    title = f"{rate.fraction()} passed" + (f" ({counts})" if counts else "")
    text = esc(rate.text())
    if href and rate.passed < rate.judged:
        text = f'<a href="#{esc(href)}">{text}</a>'
    covered = "" if rate.judged == rate.total else f"; {rate.coverage()}"
    small = f"<small>{esc(rate.fraction() + covered)}</small>" if rate.total else ""
    return f'<td class="gd-rate gd-rate-{rate.band}" title="{esc(title)}">{text}{small}</td>'


def _failures_anchor(engine: EngineRuns) -> str:
    return f"failures-{engine.number}"


def _engines_table(d: Dashboard) -> str:
    rows = []
    for e in d.engines:
        whole = d.rate(e)
        rows.append(
            f"<tr><td>{e.number}</td><td>{esc(e.name or e.spec)}</td><td>{esc(e.version)}</td>"
            f"<td><code>{esc(e.spec)}</code></td><td>{esc(', '.join(e.variants))}</td>"
            f"<td>{esc(', '.join(Path(s).name for s in e.sources))}</td>"
            f'<td class="gd-rate">{whole.judged} of {whole.total}</td>'
            f"{_rate_td(whole, _failures_anchor(e))}</tr>"
        )
    head = (
        "<tr><th>#</th><th>engine</th><th>version</th><th>spec</th><th>variants</th>"
        "<th>reports</th><th>judged</th><th>pass rate</th></tr>"
    )
    body = "".join(rows)
    return f'<table class="gd-dash gd-engines"><thead>{head}</thead><tbody>{body}</tbody></table>'


def _variants_table(d: Dashboard) -> str:
    head = "".join(f"<th>{esc(v)}</th>" for v in d.variants)
    rows = []
    for e in d.engines:
        cells = "".join(_rate_td(d.rate(e, v), _failures_anchor(e)) for v in d.variants)
        cells += _rate_td(d.rate(e), _failures_anchor(e))
        rows.append(f"<tr><th>{e.number}. {esc(e.label)}</th>{cells}</tr>")
    return (
        f'<table class="gd-dash gd-by-variant"><thead><tr><th>engine</th>{head}<th>all</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _matrix(d: Dashboard, kind: str, rows: Sequence[str]) -> str:
    """Rows of families (or operations) × a column per engine and variant."""
    columns = d.columns()
    spans: dict[int, int] = {}
    for engine, _ in columns:
        spans[engine.number] = spans.get(engine.number, 0) + 1
    top = "".join(
        f'<th colspan="{spans[e.number]}">{e.number}. {esc(e.label)}</th>'
        for e in d.engines
        if e.number in spans
    )
    second = "".join(f"<th>{esc(v or 'all')}</th>" for _, v in columns)
    body = []
    for row in rows:
        cells = "".join(
            _rate_td(
                d.rate(
                    engine,
                    variant,
                    family=row if kind == "family" else None,
                    operation=row if kind == "operation" else None,
                ),
                _failures_anchor(engine),
            )
            for engine, variant in columns
        )
        body.append(f"<tr><th>{esc(row)}</th>{cells}</tr>")
    return (
        f'<table class="gd-dash gd-by-{kind}"><thead><tr><th rowspan="2">{esc(kind)}</th>{top}</tr>'
        f"<tr>{second}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


# ---------------------------------------------------------------------------------------------
# Failures


def _wild(entry: Mapping[str, Any]) -> Card | None:
    """The wild card of the entry's level on its variant, when the variant is a bundled one."""
    level = entry.get("input", {}).get("level") if isinstance(entry.get("input"), Mapping) else None
    slug = entry.get("variant")
    if not isinstance(level, str) or not isinstance(slug, str):
        return None
    return _wild_card(level, slug)


@functools.lru_cache(maxsize=256)
def _wild_card(level: str, slug: str) -> Card | None:
    """The wild card of a level on a bundled variant (the same few for every entry)."""
    if slug not in variant_slugs():
        return None
    try:
        return Card(Rank(level), load_variant(slug).rules.wild.suit)
    except ValueError:
        return None


def _cards(value: Any, wild: Card | None) -> str:
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        try:
            return cards_html(value, wild)
        except Exception:  # not cards after all: a report is untrusted, show it as text
            pass
    return f"<code>{_json(value)}</code>"


def _reading(value: Any) -> str:
    if isinstance(value, Mapping):
        try:
            return f"{esc(reading_words(value))} <code>{_json(value)}</code>"
        except Exception:  # not a reading after all: show it as text
            pass
    return f"<code>{_json(value)}</code>"


def _action(action: Any, wild: Card | None) -> str:
    if not isinstance(action, Mapping):
        return f"<code>{_json(action)}</code>"
    seat = f"seat {esc(action.get('seat', '?'))}"
    if action.get("pass"):
        return f"{seat} passes"
    if "ask" in action:
        return f"{seat} asks seat {esc(action['ask'])}'s count"
    shown = f"{seat} plays {_cards(action.get('cards', []), wild)}"
    if "reading" in action:
        shown += f" as {_reading(action['reading'])}"
    return shown


def input_html(entry: Mapping[str, Any]) -> str:
    """A case's input with its cards drawn as cards, each key on its own line."""
    data = entry.get("input")
    if not isinstance(data, Mapping):
        return "" if data is None else f"<pre>{_json(data, 1)}</pre>"
    wild = _wild(entry)
    items = []
    for key, value in data.items():
        if key in ("cards", "hand"):
            shown = _cards(value, wild)
        elif key == "hands" and isinstance(value, list):
            shown = "<br>".join(f"seat {i}: {_cards(h, wild)}" for i, h in enumerate(value))
        elif key == "actions" and isinstance(value, list):
            shown = '<ol start="0">' + "".join(f"<li>{_action(a, wild)}</li>" for a in value)
            shown += "</ol>"
        elif key in ("play", "previous"):
            shown = _reading(value)
        else:
            shown = f"<code>{_json(value)}</code>"
        items.append(f"<dt>{esc(key)}</dt><dd>{shown}</dd>")
    return f'<dl class="gd-input">{"".join(items)}</dl>'


def diff_html(entry: Mapping[str, Any]) -> str:
    """The differences as a coloured diff."""
    lines = []
    for difference in differences(entry):
        if difference.path:
            lines.append(f'<div class="gd-at">@ {esc(difference.path)}</div>')
        for mark, text in difference.lines():
            kind = {"-": "gd-del", "+": "gd-ins"}.get(mark, "gd-same")
            lines.append(f'<div class="{kind}">{esc(mark)} {esc(text)}</div>')
    return f'<div class="gd-diff">{"".join(lines)}</div>' if lines else ""


def _case_link(entry: Mapping[str, Any], site: bool) -> str:
    name = f"<code>{esc(entry.get('id', '?'))}</code>"
    case = bundled_case(entry) if site else None
    return f'<a href="../cases/{esc(case.area)}/#{esc(case.id)}">{name}</a>' if case else name


def _clause_link(clause: str, variant: str, site: bool) -> str:
    name = f"<code>{esc(clause)}</code>"
    if site and variant in variant_slugs():
        return f'<a href="../rulebooks/{esc(variant)}/#{esc(clause)}">{name}</a>'
    return name


def failure_html(engine: EngineRuns, entry: Mapping[str, Any], site: bool = False) -> str:
    """One failing case, opened on demand: input, expected, actual, diff, rerun command."""
    variant = str(entry.get("variant", "?"))
    status = status_of(entry)
    anchor = _anchor("case", engine.number, entry.get("id", "?"), variant)
    head = (
        f'<span class="gd-status gd-status-{_anchor(status)}">{esc(status)}</span> '
        f"{_case_link(entry, site)} on {esc(variant)}"
    )
    if entry.get("description"):
        head += f" — {esc(entry['description'])}"
    clauses = ", ".join(_clause_link(c, variant, site) for c in clauses_of(entry))
    parts = [
        f"<p>Decided by {_clause_link(str(entry.get('decided_by', '?')), variant, site)}; "
        f"checks {clauses or 'no clause'}.</p>",
        input_html(entry),
        '<div class="gd-outputs">',
    ]
    for label in ("expected", "actual"):
        if entry.get(label) is not None:
            parts.append(f"<div><strong>{label}</strong><pre>{_json(entry[label], 1)}</pre></div>")
    parts.append("</div>")
    diff = diff_html(entry)
    parts.append(diff or f"<p>{esc(entry.get('message', ''))}</p>")
    if entry.get("detail"):
        parts.append(f"<pre>{esc(entry['detail'])}</pre>")
    if entry.get("rerun"):
        parts.append(f"<p>Rerun it alone:</p><pre><code>{esc(entry['rerun'])}</code></pre>")
    body = "".join(parts)
    return f'<details class="gd-case" id="{anchor}"><summary>{head}</summary>{body}</details>'


def _failures(engine: EngineRuns, site: bool, explain: Explainer) -> Iterator[str]:
    """The lines of an engine's failures, made as they are written."""
    rule = re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(DECIDING_RULE))  # our own words
    yield f"<p>{esc(engine.spec)}; grouped by deciding clause: {rule}.</p>"
    for group in engine.failures():
        n = len(group.entries)
        verdict = f" ({esc(group.verdict)})" if group.verdict else ""
        yield (
            f'<h3 id="{_anchor("clause", engine.number, group.clause)}">'
            f"<code>{esc(group.clause)}</code>{verdict}: "
            f"{counted(n, 'case')}</h3>"
        )
        for e in group.entries:
            yield failure_html(engine, explain(engine, e), site)


# ---------------------------------------------------------------------------------------------
# The page


def sections(d: Dashboard, site: bool = False) -> list[Section]:
    """The dashboard's parts: engines, rates by variant, by family, by operation, failures."""
    return [Section(title, anchor, "\n".join(lines)) for title, anchor, lines in _parts(d, site)]


def _parts(d: Dashboard, site: bool) -> Iterator[tuple[str, str, Iterable[str]]]:
    """Each part of `sections` as its title, anchor and lines (the failures made as they are
    written: a page of every failure at once held each several times over)."""
    yield "Engines", "engines", [_engines_table(d)]
    yield "Pass rate by variant", "by-variant", [_variants_table(d)]
    family = f"<p>{esc(FAMILY_RULE.capitalize())}.</p>{_matrix(d, 'family', d.families)}"
    yield "By clause family", "by-family", [family]
    yield "By operation", "by-operation", [_matrix(d, "operation", d.operations)]
    explain = Explainer(d)
    for engine in d.engines:
        if engine.failures():
            title = f"Failures: {engine.number}. {engine.label}"
            yield title, _failures_anchor(engine), _failures(engine, site, explain)


def _summary(d: Dashboard) -> str:
    return (
        f"{counted(len(d.sources), 'report')} of <code>guandan check</code>, "
        f"{counted(len(d.engines), 'engine')}, {counted(len(d.variants), 'variant')}. "
        f"Pass rate: {esc(RATE_RULE)}; a cell with failures links "
        "to them."
    )


def page_html(d: Dashboard, title: str = "Guandan conformance dashboard") -> str:
    """The dashboard as one self-contained HTML file: styles inline, no script, nothing fetched."""
    return "".join(page_chunks(d, title))


def page_chunks(d: Dashboard, title: str = "Guandan conformance dashboard") -> Iterator[str]:
    """`page_html` in parts made as they are written."""
    css = "\n".join(stylesheet(name) for name in STYLESHEETS.values())
    # The policy forbids scripts and any fetch: even a string that escaped escaping runs nothing.
    policy = "default-src 'none'; style-src 'unsafe-inline'"
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>\n{css}\n"
        "body { font-family: system-ui, var(--gd-cjk-fonts), sans-serif; margin: 1.5em;"
        " color: #212121; }\n"
        "</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<p>{_summary(d)}</p>\n"
    )
    for i, (heading, anchor, lines) in enumerate(_parts(d, site=False)):
        yield ("\n" if i else "") + f'<h2 id="{esc(anchor)}">{esc(heading)}</h2>\n'
        for j, line in enumerate(lines):
            yield ("\n" if j else "") + line
    yield "\n</body>\n</html>\n"


def site_page(d: Dashboard, intro: str) -> str:
    """The dashboard as a page of the site: Markdown headings (for the table of contents) around
    the HTML of each part."""
    out = ["# Conformance (一致性)", "", intro, "", f"<p>{_summary(d)}</p>", ""]
    for s in sections(d, site=True):
        # The heading's own anchor is the one the matrices link to.
        out += [f"## {md.text(s.title)} {{ #{s.anchor} }}", "", s.html, ""]
    return "\n".join(out) + "\n"


INTRO = """\
The reference engine on every bundled variant, run when this site was built: every case of the
corpus that applies to a variant, with the variant's options as each case chooses them. Make the
same page for your own engine from the JSON reports of `guandan check`:

```sh
guandan check --engine "exec:./my-engine" --json mine.json
guandan check --engine reference --json reference.json
guandan report reference.json mine.json --html dashboard.html --markdown dashboard.md
```

The HTML file is self-contained (styles inline, no script): open it, or publish it as a CI
artifact. A cell with failures links to them, each with its input (cards drawn as cards), the
expected output, what came back, what differs, and the command that reruns it alone."""


def reference_dashboard() -> Dashboard:
    """The reference engine on every bundled variant, run in this process."""
    result = run(RunConfig(engine="reference", variants=bundled_variants()))
    return build([report_from_json(report_json(result), "reference (built with the site)")])


def site_files(stage: Callable[[str], None] | None = None) -> dict[str, str]:
    """The site's Conformance page and the stylesheets it uses, by path under docs/; `stage`
    told as the reference engine's run begins."""
    files = {path: stylesheet(name) for path, name in STYLESHEETS.items()}
    if stage is not None:
        stage("the Conformance page: the reference engine against the corpus, every variant")
    files[SITE_PAGE] = site_page(reference_dashboard(), INTRO)
    return files
