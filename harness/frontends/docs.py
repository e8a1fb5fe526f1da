"""The documentation generator (文檔): rulebooks, the comparison matrix, difference pages, the
case catalogue and the reference pages, as Markdown made from the variants, schemas and corpus.

The MkDocs hook (`harness/frontends/mkdocs_hooks.py`) adds these pages at build time, so they
can never drift from the data; nothing generated is committed. Cards are drawn by `cards`.
"""

from __future__ import annotations

import html
import inspect
import json
import os
import posixpath
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness._paths import spec_dir
from harness.conformance.cases.case_loader import (
    Case,
    applicable_variants,
    applies,
    case_schema,
    load_cases,
)
from harness.conformance.oracles.mutation import load_equivalences, mutate_variants, write_markdown
from harness.conformance.reporting import mdescape as md
from harness.frontends.card_faces import card_html as card_html  # re-exported: the docs' own
from harness.frontends.card_faces import cards_html, reading_words
from harness.frontends.performance_page import performance_page
from harness.frontends.play_page import play_page
from harness.frontends.rulebook_pages import rulebook_pages, rulebook_pdfs
from harness.model.cards import Card, Rank
from harness.model.loader import (
    bundled_variants,
    clause_specs,
    ruleset_schema,
    variant_slugs,
)
from harness.model.registry import reference_registry
from harness.model.ruleset import Clause, ProvenanceKind, Ruleset, differing_clauses
from harness.rulebook.differences import clause_id_html, telling_cases

# The order a player learns the rules in, and the families each chapter holds.
CHAPTERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Cards", "牌", ("deck", "seats", "ranks", "wild")),
    ("Combinations", "牌型", ("combinations", "sequences")),
    ("Comparison", "牌的大小", ("compare", "bombs")),
    ("Play", "出牌", ("flow", "disclosure", "timing", "conduct")),
    ("Finishing", "名次", ("finish",)),
    ("Levels", "升級", ("levels", "match")),
    ("Tribute", "進貢", ("tribute", "deal")),
    ("Scoring", "計分", ("scoring",)),
)

# ---------------------------------------------------------------------------------------------
# Values in words


def _words(text: str) -> str:
    return text.replace("_", " ")


def value_words(value: Any) -> str:
    """A clause value in words for a rulebook (generic over the value's shape)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "10" if value == "T" else _words(value)
    if isinstance(value, list):
        if value and all(isinstance(v, dict) and "type" in v for v in value):
            steps = [
                f"{v['size']}-card {_words(v['type'])}" if v.get("size") else _words(v["type"])
                for v in value
            ]
            return " < ".join(steps)
        return ", ".join(value_words(v) for v in value) if value else "none"
    if isinstance(value, dict):
        if {"groups", "group_size"} <= set(value):
            return _shape_words(value)
        if {"from", "levels", "step"} <= set(value):
            return (
                f"from {value['from']} in a row: {value['levels']} level(s), "
                f"{value['step']} more for each further one"
            )
        if {"max_cards", "mode"} <= set(value):
            return f"told at {value['max_cards']} cards or fewer ({_words(value['mode'])})"
        if {"choice", "applies_to"} <= set(value):
            return f"the {value['choice']} reading, for {value_words(value['applies_to'])}"
        if not value:
            return "none"
        return ", ".join(f"{value_words(k)}: {value_words(v)}" for k, v in value.items())
    return html.escape(str(value))


def _span(r: Mapping[str, Any]) -> str:
    if r["max"] is None:
        return f"{r['min']} or more"
    return str(r["min"]) if r["min"] == r["max"] else f"{r['min']} to {r['max']}"


def _shape_words(shape: Mapping[str, Any]) -> str:
    parts = [f"{_span(shape['groups'])} group(s) of {_span(shape['group_size'])} card(s)"]
    if shape["consecutive"]:
        parts.append("consecutive ranks")
    if shape["same_suit"]:
        parts.append("one suit")
    if shape["kicker"]:
        k = shape["kicker"]
        kicker = (
            f"plus {k['group_size']} of another rank"
            if k["distinct_rank"]
            else f"plus {k['group_size']} cards"
        )
        parts.append(kicker + (" (a joker pair allowed)" if k["jokers"] else ""))
    parts.append(
        {"excluded": "no jokers", "allowed": "jokers allowed", "only": "jokers only"}[
            shape["jokers"]
        ]
    )
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# Provenance


def provenance_md(clause: Clause, ruleset: Ruleset) -> str:
    """The clause's quote, its place and its source's title (來源), or our assumption."""
    prov = clause.provenance
    if prov.kind.quoted:
        # `ruleset`, the variant that cites it, knows every source it cites, a club's own too.
        found = ruleset.cited(prov.source)
        title = found.title if found is not None else prov.source
        said = "Stated" if prov.kind is ProvenanceKind.STATED else "Read from the source"
        out = f'!!! quote "{said}: {title}, {prov.place}"\n    {prov.quote}\n'
        if prov.kind is ProvenanceKind.READ:
            alternatives = "; ".join(prov.alternatives)
            reading = " ".join((prov.reading or "").split())
            out += (
                f'\n!!! note "Our reading of these words"\n    {reading}\n\n'
                f"    Other readings: {alternatives}.\n"
            )
    else:
        alternatives = "; ".join(prov.alternatives)
        out = (
            f'!!! note "Assumed: the source is silent or unclear"\n    {prov.reason}\n\n'
            f"    Other readings: {alternatives}.\n"
        )
    if clause.note:
        out += f"\n*Reading:* {clause.note.strip()}\n"
    return out


# ---------------------------------------------------------------------------------------------
# Cases rendered


def _level(case: Case) -> Rank | None:
    level = case.input.get("level")
    return Rank(level) if isinstance(level, str) and level in [r.value for r in Rank] else None


def _wild(case: Case, level: Rank | None) -> Card | None:
    """The wild card of the case's level: the level card of the suit its variants name in
    wild.suit (none marked if they name different suits)."""
    if level is None:
        return None
    slugs = set(applicable_variants(case))
    suits = {r.rules.wild.suit for r in bundled_variants() if r.slug in slugs}
    return Card(level, suits.pop()) if len(suits) == 1 else None


def case_md(case: Case, link: str = "") -> str:
    """A case as hands and outcome: its input with cards drawn, and the expected output (or,
    for an impossible input, the refusal expected)."""
    head = f"**{case.description}**" + (f" ([{case.id}]({link}))" if link else "")
    if case.expects_refusal:
        asked = f"{case.operation} of `" + json.dumps(case.input, ensure_ascii=False) + "`"
        return f"{head}\n\n{asked}: refused as `{case.expected['refused']}`\n"
    level = _level(case)
    wild = _wild(case, level)
    data = case.input
    lines = [head]
    lead = f"At level {value_words(level.value)}: " if level else ""
    if case.operation == "classify":
        readings = case.expected.get("readings", [])
        said = "; ".join(reading_words(r) for r in readings) or "no play"
        lines.append(f"{lead}{cards_html(data['cards'], wild)} → {said}")
        if case.expected.get("default"):
            lines.append(f"when not declared: {reading_words(case.expected['default'])}")
    elif case.operation == "beats":
        verdict = "beats" if case.expected.get("beats") else "does not beat"
        lines.append(
            f"{lead}{reading_words(data['play'])} {verdict} {reading_words(data['previous'])}"
        )
    elif case.operation == "legal_plays":
        against = data.get("previous")
        what = f"against {reading_words(against)}" if against else "as leader"
        plays = "; ".join(reading_words(p) for p in case.expected.get("plays", [])) or "none"
        lines.append(f"{lead}hand {cards_html(data['hand'], wild)} {what}: {plays}")
    elif case.operation in ("tribute", "replay"):
        lines.append(f"{lead}finish {data.get('finish', '')}" if "finish" in data else lead)
        for seat, hand in enumerate(data["hands"]):
            lines.append(f"seat {seat}: {cards_html(hand, wild)}")
        if case.operation == "replay":
            lines.append(
                f"leader: seat {data['leader']}; actions: "
                + "; ".join(f"seat {a['seat']} " + _action_words(a, wild) for a in data["actions"])
            )
        lines.append("expected: `" + json.dumps(case.expected, ensure_ascii=False) + "`")
    else:
        lines.append("input: `" + json.dumps(data, ensure_ascii=False) + "`")
        lines.append("expected: `" + json.dumps(case.expected, ensure_ascii=False) + "`")
    return "\n\n".join(x for x in lines if x) + "\n"


def _action_words(action: Mapping[str, Any], wild: Card | None) -> str:
    """A replay action in words: a pass, an ask (問牌), or the cards played."""
    if action.get("pass"):
        return "passes"
    if "ask" in action:
        return f"asks seat {action['ask']}'s count"
    return cards_html(action.get("cards", []), wild)


def case_anchor(case: Case) -> str:
    """The catalogue page and anchor of a case."""
    return f"cases/{case.area}.md#{case.id}"


# ---------------------------------------------------------------------------------------------
# Pages


def _family_of(clause_id: str) -> str:
    return clause_id.split(".")[0]


def _chapter_clauses(ruleset: Ruleset, families: Sequence[str]) -> list[Clause]:
    return [c for c in ruleset.clauses.values() if _family_of(c.id) in families]


def _examples(
    cases: Sequence[Case], clause_id: str, ruleset: Ruleset, limit: int = 2
) -> list[Case]:
    found = []
    for case in cases:
        if clause_id in case.clauses and not case.options and applies(case, ruleset):
            found.append(case)
            if len(found) == limit:
                break
    return found


def rulebook_page(ruleset: Ruleset, cases: Sequence[Case], prefix: str = "../") -> str:
    """A variant's specification (規格): every clause in learning order, with its id, value,
    source and examples; the players' rulebook is `harness.rulebook`'s."""
    specs = clause_specs()
    src = ruleset.source_document
    out = [
        f"# {ruleset.title_zh} — {ruleset.title}: the specification",
        "",
        f"[The rulebook for players](../rulebooks/{ruleset.slug}.md) tells these rules in "
        "sentences, in English, simplified and traditional Chinese.",
        "",
        ruleset.description,
        "",
    ]
    if src is not None:
        out += [f"Source: **{src.title}**. {src.description.strip()}".strip(), ""]
    stated = sum(1 for c in ruleset.clauses.values() if c.stated)
    read = sum(1 for c in ruleset.clauses.values() if c.provenance.kind is ProvenanceKind.READ)
    out += [
        f"{stated} of {len(ruleset.clauses)} clauses are stated by the source; {read} are read "
        "from its words, marked *Read from the source* with our reading and the other "
        "readings; the others are our reading where it is silent, marked *Assumed* with the "
        "reason and the other readings.",
        "",
    ]
    if ruleset.options:
        out += [
            "## Options (開局選項)",
            "",
            "| option | sets | choices | default |",
            "| --- | --- | --- | --- |",
        ]
        for name, opt in ruleset.options.items():
            if opt.choices is not None:
                choices = ", ".join(value_words(c) for c in opt.choices)
            else:
                choices = (
                    f"{opt.minimum} or more"
                    if opt.maximum is None
                    else f"{opt.minimum} to {opt.maximum}"
                )
            out.append(
                f"| `{name}`: {opt.description} | [`{opt.sets}`](#{opt.sets}) | "
                f"{choices} | {value_words(opt.default)} |"
            )
        out.append("")
    for title, chinese, families in CHAPTERS:
        clauses = _chapter_clauses(ruleset, families)
        if not clauses:
            continue
        out += [f"## {title} ({chinese})", ""]
        for clause in clauses:
            spec = specs[clause.id]
            out += [
                f'<a id="{clause.id}"></a>',
                "",
                f"### {spec.title}",
                "",
                f"`{clause.id}` — {spec.description}",
                "",
                f"**Value:** {value_words(clause.value)}",
                "",
            ]
            if not clause.observable:
                out += [
                    "*No engine operation can observe this rule; the corpus does not check it.*",
                    "",
                ]
            out.append(provenance_md(clause, ruleset))
            for case in _examples(cases, clause.id, ruleset):
                title = case.description.replace('"', "'")
                out += [f'??? example "Example: {title}"', ""]
                body = case_md(case, prefix + case_anchor(case))
                out += ["    " + line if line else "" for line in body.splitlines()]
                out.append("")
    return "\n".join(out) + "\n"


def _short(value: Any) -> str:
    text = value_words(value)
    return text if len(text) <= 60 else text[:57] + "…"


def difference_slug(clause_id: str) -> str:
    """The file name of a difference page."""
    return clause_id.replace(".", "-")


def comparison_page(rulesets: Mapping[str, Ruleset]) -> str:
    """The matrix of clause × variant, differing rows marked and linked to their pages."""
    slugs = list(rulesets)
    differ = set(differing_clauses(rulesets.values()))
    out = [
        "# Every clause side by side",
        "",
        "[The differences, told for players](index.md) (in English, 简体中文 and 繁體中文).",
        "",
        f"{len(differ)} of {len(next(iter(rulesets.values())).clauses)} clauses differ "
        "between the variants; they are marked **≠** and link to a page with the sources side "
        "by side and the cases that tell the variants apart. Each cell links to the clause in "
        "that variant's rulebook; *italic* values are our reading (assumed, or read from the "
        "source's words), not stated by the source.",
        "",
        '<div class="gd-matrix" markdown>',
        "",
        "| clause | " + " | ".join(f"[{s}](../rulebooks/{s}.md)" for s in slugs) + " |",
        "| --- | " + " | ".join("---" for _ in slugs) + " |",
    ]
    for cid in next(iter(rulesets.values())).clauses:
        shown = clause_id_html(cid)
        label = f"[**≠** {shown}]({difference_slug(cid)}.md)" if cid in differ else shown
        cells = []
        for slug in slugs:
            clause = rulesets[slug].clause(cid)
            text = _short(clause.value).replace("|", "\\|")
            text = text if clause.stated else f"*{text}*"
            cells.append(f"[{text}](../rulebooks/{slug}.md#{cid})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", "</div>", ""]
    return "\n".join(out) + "\n"


def difference_page(clause_id: str, rulesets: Mapping[str, Ruleset], cases: Sequence[Case]) -> str:
    """One difference: the values, the sources side by side, the cases that tell them apart."""
    spec = clause_specs()[clause_id]
    out = [
        f"# {spec.title}",
        "",
        f"`{clause_id}` — {spec.description}",
        "",
        "| variant | value | provenance |",
        "| --- | --- | --- |",
    ]
    for slug, ruleset in rulesets.items():
        clause = ruleset.clause(clause_id)
        prov = clause.provenance
        said = {
            ProvenanceKind.STATED: f"stated ({prov.place}): {prov.quote}",
            ProvenanceKind.READ: f"read ({prov.place}): {prov.quote}; our reading: {prov.reading}",
            ProvenanceKind.ASSUMED: f"assumed: {prov.reason}",
        }[prov.kind]
        out.append(
            f"| [{slug}](../rulebooks/{slug}.md#{clause_id}) | "
            f"{value_words(clause.value)} | {said.replace('|', '/').strip()} |"
        )
    out += ["", "## Sources side by side", ""]
    for slug, ruleset in rulesets.items():
        out += [
            f"### {ruleset.title_zh} ({slug})",
            "",
            provenance_md(ruleset.clause(clause_id), ruleset),
        ]
    matrix = list(rulesets.values())
    telling = telling_cases(clause_id, matrix, cases)
    out += ["## Cases that tell the variants apart", ""]
    if not telling:
        out.append("No case in the corpus shows this difference by itself.")
    for case in telling[:8]:
        applies_to = ", ".join(applicable_variants(case, matrix))
        out += [
            f"#### {case.id}",
            "",
            f"Applies to: {applies_to}",
            "",
            case_md(case, "../" + case_anchor(case)),
            "",
        ]
    return "\n".join(out) + "\n"


def catalogue_page(
    area: str, cases: Sequence[Case], rulesets: Mapping[str, Ruleset] | None = None
) -> str:
    """The cases of one area, each with its id as anchor, clauses, variants (default: the
    bundled ones), input and outcome."""
    if rulesets is None:
        rulesets = {r.slug: r for r in bundled_variants()}
    matrix = list(rulesets.values())
    mine = [c for c in cases if c.area == area]
    out = [
        f"# Cases: {area}",
        "",
        f"{len(mine)} cases. Use the search box to find a case by id, card or clause.",
        "",
    ]
    for case in mine:
        slugs = applicable_variants(case, matrix)
        clauses = ", ".join(f"`{c}`" for c in case.clauses)
        out += [
            f'<a id="{case.id}"></a>',
            "",
            f"### {case.id}",
            "",
            f"`{case.operation}` · applies to {', '.join(slugs)} · checks {clauses}",
            "",
            case_md(case),
            "",
        ]
        if case.note:
            out += [f"*Note:* {case.note.strip()}", ""]
        assumed = {slug: case.assumed_clauses(rulesets[slug]) for slug in slugs}
        resting = [f"{slug} ({', '.join(found)})" for slug, found in assumed.items() if found]
        if resting:
            out += [
                "*Rests on a clause that is only our reading (assumed where the source is "
                "silent, or read into its words) in:* " + "; ".join(resting),
                "",
            ]
    return "\n".join(out) + "\n"


def cases_index_page(cases: Sequence[Case]) -> str:
    """The catalogue's front page: areas and counts."""
    areas: dict[str, int] = {}
    for case in cases:
        areas[case.area] = areas.get(case.area, 0) + 1
    out = [
        "# Case catalogue",
        "",
        f"The corpus holds {len(cases)} hand-written cases.",
        "",
        "| area | cases |",
        "| --- | ---: |",
    ]
    out += [f"| [{a}]({a}.md) | {n} |" for a, n in sorted(areas.items())]
    return "\n".join(out) + "\n"


def schema_page(title: str, schema: Mapping[str, Any], intro: str) -> str:
    """A JSON Schema as tables of properties."""
    out = [f"# {title}", "", intro, "", str(schema.get("description", "")), ""]

    def table(node: Mapping[str, Any], heading: str) -> None:
        props = node.get("properties")
        if not isinstance(props, dict):
            return
        out.extend([f"## {heading}", "", "| key | description |", "| --- | --- |"])
        for key, sub in props.items():
            desc = (
                str(sub.get("description", "")).replace("|", "/") if isinstance(sub, dict) else ""
            )
            out.append(f"| `{key}` | {desc} |")
        out.append("")

    table(schema, "Top level")
    for name, sub in schema.get("$defs", {}).items():
        if isinstance(sub, dict):
            table(sub, f"`{name}`")
    return "\n".join(out) + "\n"


def function_anchor(function: str) -> str:
    """The anchor of a function on the implementation page: its dotted name with dashes."""
    return function.removeprefix("harness.").replace(".", "-").replace("_", "-").lower()


def _applied_by(clause_id: str) -> str:
    functions = [i.function for i in reference_registry().implementations(clause_id)]
    if not functions:
        return f"prose only: {reference_registry().informational_reason(clause_id)}"
    return ", ".join(
        f"[`{f.removeprefix('harness.')}`](implementation.md#{function_anchor(f)})"
        for f in functions
    )


def clauses_reference_page() -> str:
    """Every clause id with its title, description and the code that applies it, by family."""
    out = [
        "# Clauses",
        "",
        "Every clause of a variant, by id. A clause id is one string "
        "everywhere: the YAML key path under `rules`, the interpreter's functions that apply it "
        "(declared with `@implements`), the cases that check it, the report line and the anchor "
        "in each rulebook.",
        "",
    ]
    family = ""
    for cid, spec in clause_specs().items():
        if _family_of(cid) != family:
            family = _family_of(cid)
            # A table ends only at a blank line: without one the heading is read as its row.
            out += [
                "",
                f"## {family}",
                "",
                "| clause | meaning | applied by |",
                "| --- | --- | --- |",
            ]
        links = " ".join(f"[{s}](../rulebooks/{s}.md#{cid})" for s in variant_slugs())
        meaning = f"**{spec.title}**: {spec.description}".replace("|", "/")
        out.append(f'| <a id="{cid}"></a>`{cid}` | {meaning} ({links}) | {_applied_by(cid)} |')
    return "\n".join(out) + "\n"


def implementation_page() -> str:
    """Every function that applies a clause, with its one-line docstring and its clauses."""
    by_function: dict[str, list[str]] = {}
    for entry in reference_registry().all_implementations():
        by_function.setdefault(entry.function, []).append(entry.clause)
    out = [
        "# Implementation",
        "",
        "The functions of the reference interpreter that apply clauses, as the clause registry "
        "(`harness/model/registry.py`) lists them. Each declares its clauses with "
        "`@implements(...)`, so `grep -rn CLAUSE_ID harness/` finds it; a clause value no "
        "function implements is refused when a variant is loaded.",
        "",
    ]
    module = ""
    for function in sorted(by_function):
        owner = function.rsplit(".", 1)[0]
        while owner not in sys.modules:
            owner = owner.rsplit(".", 1)[0]
        if owner != module:
            module = owner
            out += [f"## `{module}`", ""]
        target: Any = sys.modules[owner]
        for part in function.removeprefix(owner + ".").split("."):
            target = getattr(target, part)
        summary = (inspect.getdoc(target) or "").split("\n")[0]
        out += [f"### `{function.removeprefix(owner + '.')}` {{#{function_anchor(function)}}}", ""]
        out += [summary, ""]
        clauses = ", ".join(
            f"[`{c}`](clauses.md#{c})" for c in sorted(dict.fromkeys(by_function[function]))
        )
        out += [f"Applies: {clauses}", ""]
    return "\n".join(out) + "\n"


def cli_reference_page() -> str:
    """The command-line reference, from the `guandan` command's own parser."""
    import argparse

    from harness.frontends.cli import build_parser

    parser = build_parser()
    out = [
        "# Command line: `guandan`",
        "",
        "Generated from the command itself.",
        "",
        "```",
        parser.format_help().rstrip(),
        "```",
        "",
    ]

    def walk(p: argparse.ArgumentParser, name: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    full = f"{name} {sub_name}"
                    out.extend([f"## `{full}`", "", "```", sub.format_help().rstrip(), "```", ""])
                    walk(sub, full)

    walk(parser, "guandan")
    return "\n".join(out) + "\n"


def strength_page(rulesets: Sequence[Ruleset], stage: Callable[[str], None] | None = None) -> str:
    """Corpus strength (變異測試): the mutation score of every variant, computed at build time,
    `stage` told as each variant's mutants are begun."""

    def progress(slug: str, done: int, total: int) -> None:
        if stage is not None and done == 0:
            stage(f"the Corpus strength page: the {total} mutants of {slug}")

    # Every core: the test suite's other workers wait for the site (and a user for the build).
    scores = mutate_variants(rulesets, jobs=min(os.cpu_count() or 1, 4), progress=progress)
    intro = (
        "# Corpus strength\n\n"
        "Coverage counts the cases that cite a clause; this page shows that changing a clause's "
        "value makes some case fail. For every variant, each *mutant* (the variant with one "
        "clause value changed: another enum member, the other boolean, a number one step away, "
        "null, a field of an object or an entry of a table changed, a member of a set left out "
        "or put in, two steps of the bomb ladder swapped) is played by the reference "
        "interpreter against the cases that apply to the variant. A mutant is *killed* when a "
        "case fails. A surviving mutant is a hole through which a wrong engine would pass, "
        "unless no output can show the change: such *equivalent* mutants are listed below with "
        "the reason, reviewed by hand in `spec/equivalent-mutants.yaml`.\n\n"
        "Computed when this site was built (`guandan mutate --markdown`); the test suite fails "
        "when a mutant survives.\n\n"
    )
    return (
        intro
        + code_mutants_section()
        + "## Data mutants\n\n"
        + write_markdown(scores, load_equivalences())
    )


CODE_MUTANTS = "code-mutants-score.json"


def code_mutants_section() -> str:
    """The score of the interpreter's code mutants, as the committed results file
    (`spec/code-mutants-score.json`, written by `python -m tools.mutation run`) gives it."""
    path = spec_dir() / CODE_MUTANTS
    if not path.is_file():
        return ""
    data = json.loads(path.read_text(encoding="utf-8"))
    counts = data["counts"]
    lines = [
        "## Code mutants of the interpreter",
        "",
        "A *code mutant* is the reference interpreter (`harness/interpreter/`, the bots of "
        "`simulate.py` left out) with one change to its code made by cosmic-ray: a comparison "
        "swapped or negated, a number one off, `and` for `or`, a `not` added or removed, `True` "
        "for `False`, `break` for `continue`, a loop that never runs. A seeded sample of them is "
        "run against the whole bundled corpus (`guandan check --engine reference`); a mutant is "
        "killed when a case fails. Survivors that no output can show are reviewed in "
        "`spec/equivalent-code-mutants.yaml`.",
        "",
        f"**{data['killed_percent']} %** killed: {counts['killed']} of "
        f"{counts['killed'] + counts['survived']} sampled mutants ({data['population']} in all), "
        f"{counts['survived']} survived, of which {counts['equivalent']} are reviewed "
        f"equivalent ({data['killed_percent_without_equivalents']} % without them). "
        f"Run on {md.text(data['date'])} with {md.code(data['command'])}, seed {data['seed']}"
        + (f", at commit {md.code(str(data['commit'])[:12])}" if data.get("commit") else "")
        + "; the run is not repeated when the site is built.",
        "",
    ]
    survivors = data["survivors"]
    if survivors:
        lines += ["Survivors:", ""]
    for s in survivors:
        where = md.code(f"{s['file']}:{s['line']}")
        change = f"{md.code(s['before'])} → {md.code(s['after'])}"
        verdict = f" Equivalent: {md.text(s['equivalent'])}" if s["equivalent"] else ""
        function = md.code(str(s["function"]))
        lines.append(f"- {where} in {function}, {s['operator']}: {change}.{verdict}")
    return "\n".join([*lines, "", ""])


# ---------------------------------------------------------------------------------------------
# Links that work where they are read

# The hand-written pages under docs/ are read in two places: in the source tree (GitHub renders
# docs/ as it is) and on the site. A link to a generated page has no file in the tree, so they
# link to the file the page is made from, and the site build points each such link at the page.
TREE_TO_SITE: dict[str, str] = {
    "spec/protocol.md": "reference/protocol.md",
    "spec/notation.md": "reference/notation.md",
    "spec/case.schema.json": "reference/case-schema.md",
    "spec/ruleset.schema.json": "reference/ruleset-schema.md",
    "harness/model/registry.py": "reference/implementation.md",
    "conformance_cases": "cases/index.md",
    "variants": "comparison/index.md",
    "spec/rulebook/glossary.yaml": "glossary.md",
    "spec/variants-in-play.json": "variants-in-play.md",
    "benchmarks/results.json": "performance.md",
    **{f"variants/{slug}.yaml": f"rulebooks/{slug}.md" for slug in variant_slugs()},
}

SITE_ONLY: frozenset[str] = frozenset({"conformance.md"})
"""Generated pages made from no one file of the tree (the Conformance page is the reference
engine run at build time): a hand-written page may link to them by their path under docs/,
a link that works on the site only."""

_LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def site_links(markdown: str, page: str) -> str:
    """A hand-written page's Markdown with each link into the source tree outside docs/ (as
    GitHub reads it) turned into a link to the site page made from that file; `page` is the
    page's path under docs/. Links inside code blocks are left as written."""
    folder = posixpath.dirname(posixpath.join("docs", page))
    out, fenced = [], False

    def rewrite(found: re.Match[str]) -> str:
        opening, target, fragment, closing = found.groups()
        if "://" in target or target.startswith(("/", "mailto:")):
            return found.group()
        in_tree = posixpath.normpath(posixpath.join(folder, target)).rstrip("/")
        site = TREE_TO_SITE.get(in_tree)
        if site is None:
            return found.group()
        relative = posixpath.relpath(site, posixpath.dirname(page) or ".")
        return f"{opening}{relative}{fragment or ''}{closing}"

    for line in markdown.splitlines(keepends=True):
        if _FENCE_LINE.match(line):
            fenced = not fenced
        out.append(line if fenced else _LINK.sub(rewrite, line))
    return "".join(out)


def generate(stage: Callable[[str], None] | None = None) -> dict[str, str]:
    """Every generated page, by its path under docs/; `stage` told as each kind is begun."""
    told = stage or _silent
    told("the pages made from the data (rulebooks, comparison, cases, reference)")
    pages = data_pages()
    pages["strength.md"] = strength_page(bundled_variants(), stage)
    pages["variants-in-play.md"] = play_page()
    pages["performance.md"] = performance_page()
    return pages


def _silent(what: str) -> None:
    """A stage told to no one."""


def site_binaries(stage: Callable[[str], None] | None = None) -> dict[str, bytes]:
    """The generated files that are not pages: each rulebook's PDF in each language, `stage`
    told as each is made."""
    (stage or _silent)("the rulebook PDFs: the books in every language, laid out")
    cases, _ = load_cases()
    return rulebook_pdfs({r.slug: r for r in bundled_variants()}, cases, stage)


def data_pages() -> dict[str, str]:
    """The generated pages read from the data alone: all but the corpus-strength page, whose
    mutation run takes most of the build."""
    cases, _ = load_cases()
    rulesets = {r.slug: r for r in bundled_variants()}
    pages: dict[str, str] = {}
    for slug, ruleset in rulesets.items():
        pages[f"specification/{slug}.md"] = rulebook_page(ruleset, cases)
    # The players' rulebooks and comparison, in three languages.
    pages.update(rulebook_pages(rulesets, cases))
    pages["comparison/all.md"] = comparison_page(rulesets)
    for cid in differing_clauses(rulesets.values()):
        pages[f"comparison/{difference_slug(cid)}.md"] = difference_page(cid, rulesets, cases)
    pages["cases/index.md"] = cases_index_page(cases)
    for area in sorted({c.area for c in cases}):
        pages[f"cases/{area}.md"] = catalogue_page(area, cases, rulesets)
    pages["reference/clauses.md"] = clauses_reference_page()
    pages["reference/implementation.md"] = implementation_page()
    pages["reference/ruleset-schema.md"] = schema_page(
        "The ruleset schema",
        ruleset_schema(),
        "`spec/ruleset.schema.json` (JSON Schema 2020-12): the shape of a variant file.",
    )
    pages["reference/cli.md"] = cli_reference_page()
    pages["reference/case-schema.md"] = schema_page(
        "The case schema",
        case_schema(),
        "`spec/case.schema.json`: a corpus file, and the input and output of every operation.",
    )
    return pages
