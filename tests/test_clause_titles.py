"""Clause titles (條款標題): every clause of the ruleset schema has a short heading for players,
one of its own, and each rulebook heads every clause with it."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from harness.conformance.cases.case_loader import Case, load_cases
from harness.frontends.docs import rulebook_page
from harness.model.loader import clause_specs, load_variant, ruleset_schema, variant_slugs

LONGEST = 60


def _schema_titles() -> dict[str, object]:
    """The `title` keyword of every clause, read from the schema itself (None where missing)."""
    found: dict[str, object] = {}

    def walk(node: dict[str, object], prefix: str) -> None:
        properties = node.get("properties", {})
        assert isinstance(properties, dict)
        for key, sub in properties.items():
            if sub.get("$ref") == "#/$defs/clause":
                found[prefix + key] = sub.get("title")
            else:
                walk(sub, f"{prefix}{key}.")

    walk(ruleset_schema()["properties"]["rules"], "")
    return found


def test_every_clause_has_a_title() -> None:
    """Each clause property of the schema carries a non-empty `title`, and ClauseSpec reads it."""
    titles = _schema_titles()
    assert set(titles) == set(clause_specs())
    missing = [cid for cid, title in titles.items() if not isinstance(title, str) or not title]
    assert missing == []
    assert {cid: spec.title for cid, spec in clause_specs().items()} == titles


def test_titles_are_distinct() -> None:
    """No two clauses share a title, letter case and spacing aside."""
    counts = Counter(" ".join(spec.title.lower().split()) for spec in clause_specs().values())
    assert [title for title, n in counts.items() if n > 1] == []


def test_titles_are_short_headings() -> None:
    """A title is a heading: at most 60 characters, no trailing period, no stray spaces, and it
    starts with a capital letter (sentence style)."""
    bad = []
    for cid, spec in clause_specs().items():
        title = spec.title
        if len(title) > LONGEST:
            bad.append(f"{cid}: {len(title)} characters")
        if title.endswith((".", "。")):
            bad.append(f"{cid}: ends with a period")
        if title != title.strip() or "  " in title or "\n" in title:
            bad.append(f"{cid}: stray white space")
        if not title[:1].isupper():
            bad.append(f"{cid}: does not start with a capital letter")
    assert bad == []


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    """The bundled corpus, loaded once (the rulebooks draw their examples from it)."""
    found, problems = load_cases()
    assert problems == []
    return found


@pytest.mark.parametrize("slug", variant_slugs())
def test_rulebooks_head_every_clause_with_its_title(slug: str, cases: list[Case]) -> None:
    """In each bundled variant's rulebook, every clause's anchor is followed by a `###` heading
    that is the clause's title."""
    ruleset = load_variant(slug)
    text = rulebook_page(ruleset, cases)
    headings = dict(re.findall(r'<a id="([^"]+)"></a>\n\n### (.*)\n', text))
    specs = clause_specs()
    assert set(ruleset.clauses) <= set(headings)
    wrong = {cid: headings[cid] for cid in ruleset.clauses if headings[cid] != specs[cid].title}
    assert wrong == {}
    for cid in ruleset.clauses:
        assert f"\n### {specs[cid].title}\n" in text, cid
