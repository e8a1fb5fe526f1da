"""The try-it panel (試玩) of the site's rulebook and comparison pages, its Python side: the
reference interpreter answering a reader's question, run in the page by Pyodide.

The page sends the cards, the level and the play to beat as a person types them, exactly as
`guandan classify` and `guandan plays` take them (the same parsing, the same messages for a bad
token or an impossible hand), and gets JSON back: every reading of the cards with the card each
wild card stands for, whether each beats the play to beat and the clause that decides it, and
the legal plays of the cards as a hand. Asked of several variants at once (the comparison page),
each part the variants answer differently names the clauses that make the difference.

Only the interpreter and the rule model are imported: the variants come as the JSON the site
build wrote (`Ruleset.to_json` of each variant it loaded and checked), so the page needs neither
PyYAML nor jsonschema.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from harness.errors import HarnessError
from harness.frontends.cli.plays import cards_arg, describe_reading, level_arg, previous_reading
from harness.interpreter.classify import classify, rules_classification
from harness.interpreter.legal import legal_plays
from harness.interpreter.readings import PlayRules, Reading, play_rules
from harness.model.cards import NATURAL_RANKS, Card, Suit
from harness.model.ruleset import Ruleset, differing_clauses, rebuild_rules, ruleset_from_json

Json = dict[str, Any]

PARTS = ("readings", "beats", "plays")
"""The parts of an answer, each compared across variants on the comparison page."""


def load_rulesets(text: str) -> dict[str, Ruleset]:
    """The variants of the site's export (a JSON list of `Ruleset.to_json`), by slug."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise HarnessError("variants export: expected a list of variants")
    found = [ruleset_from_json(raw, f"variants export [{i}]") for i, raw in enumerate(data)]
    return {r.slug: r for r in found}


def stands_for(cards: Sequence[Card], reading: Reading, rules: PlayRules) -> list[Json]:
    """What each wild card (逢人配) of `cards` stands for in `reading`: the natural cards that,
    put in their place, make exactly that reading without a wild card (the first such, in
    rank order); a wild card that stands for none plays as itself."""
    wilds = [c for c in cards if rules.is_wild(c)]
    if not wilds:
        return []
    naturals = [c for c in cards if not rules.is_wild(c)]
    suits = {c.suit for c in naturals}
    # A same-suit play (同花順) keeps the suit of its natural cards; else a suit that is never
    # wild, so that the card put in is natural.
    suit = suits.pop() if len(suits) == 1 else Suit.SPADES
    for ranks in itertools.combinations_with_replacement(NATURAL_RANKS, len(wilds)):
        put = [Card(rank, suit) for rank in ranks]
        if any(rules.is_wild(c) for c in put):
            continue
        readings = rules_classification(naturals + put, rules).readings
        if reading in readings:
            return [{"card": w.code, "as": p.code} for w, p in zip(wilds, put, strict=True)]
    return [{"card": w.code, "as": w.code} for w in wilds]


def deciding_clause(play: Reading, previous: Reading, rules: PlayRules) -> str:
    """The clause that decides whether `play` may follow `previous` (裁定): the one that forbids
    it, or else the one that would forbid the other way round (the same comparison), or else
    `compare.equal_beats` (equal plays, and equal beats)."""
    refused = rules.refusal(play, previous)
    if refused is not None:
        return refused
    return rules.refusal(previous, play) or "compare.equal_beats"


def _reading(reading: Reading) -> Json:
    return {**reading.to_json(), "words": describe_reading(reading)}


def ask(ruleset: Ruleset, request: Mapping[str, Any]) -> Json:
    """One variant's answer to the panel's question: `level`, `cards`, and optionally
    `previous` (cards) and `previous_type`. A bad input is `{"error": MESSAGE}`, the message
    `guandan classify` or `guandan plays` gives for it."""
    try:
        return _ask(ruleset, request)
    except HarnessError as exc:
        return {"variant": ruleset.slug, "error": str(exc)}


def _ask(ruleset: Ruleset, request: Mapping[str, Any]) -> Json:
    level = level_arg(str(request.get("level", "")))
    cards = cards_arg(str(request.get("cards", "")).split(), "cards")
    rules = play_rules(ruleset, level)
    found = classify(cards, level, ruleset)
    readings = [
        {
            **_reading(r),
            "default": r == found.default,
            "wild": stands_for(cards, r, rules),
        }
        for r in found.readings
    ]
    out: Json = {
        "variant": ruleset.slug,
        "level": level.value,
        "cards": [c.code for c in cards],
        "readings": readings,
        "previous": None,
        "beats": [],
    }
    previous: Reading | None = None
    text = str(request.get("previous") or "").strip()
    if text:
        kind = str(request.get("previous_type") or "") or None
        previous_cards, previous = previous_reading(text, kind, ruleset, level)
        out["previous"] = {**_reading(previous), "cards": [c.code for c in previous_cards]}
        out["beats"] = [
            {
                **_reading(r),
                "beats": rules.beats(r, previous),
                "clause": deciding_clause(r, previous, rules),
            }
            for r in found.readings
        ]
    plays = legal_plays(cards, level, ruleset, previous)
    out["role"] = "leader" if previous is None else "follower"
    out["plays"] = [{**_reading(p.reading), "cards": [c.code for c in p.cards]} for p in plays]
    return out


def _part(answer: Mapping[str, Any], part: str) -> Any:
    """What is compared of one part of an answer: readings, verdicts and plays as readings."""
    keys = ("type", "rank", "size")
    rows = answer.get(part, [])
    if part == "readings":
        return sorted((*(r[k] for k in keys), r["default"]) for r in rows)
    if part == "beats":
        return sorted((*(r[k] for k in keys), r["beats"]) for r in rows)
    return sorted({tuple(r[k] for k in keys) for r in rows})


def with_value(ruleset: Ruleset, clause_id: str, value: Any) -> Ruleset:
    """`ruleset` with one clause given another variant's value (a mutant, built as data)."""
    clauses = dict(ruleset.clauses)
    clauses[clause_id] = dataclasses.replace(clauses[clause_id], value=value)
    rules = rebuild_rules(ruleset.rules, clauses, {clause_id})
    return dataclasses.replace(ruleset, clauses=clauses, rules=rules)


def compare(rulesets: Sequence[Ruleset], request: Mapping[str, Any]) -> Json:
    """The question asked of every variant (the comparison page): each one's answer, and for
    each part the variants answer in more than one way, each minority's difference from the
    answer most of them give (the first of them where as many give each), with the clauses
    that explain it.

    A clause explains a difference when that variant, given the other's value of the clause
    alone, answers that part as the other does (the explainer's test, on a mutant built as
    data); where no one clause does, every differing clause the answer read is named, marked
    as not alone."""
    answers = [ask(r, request) for r in rulesets]
    differences: list[Json] = []
    for part in PARTS:
        groups: dict[str, list[int]] = {}
        for i, answer in enumerate(answers):
            if "error" not in answer:
                groups.setdefault(json.dumps(_part(answer, part)), []).append(i)
        ordered = sorted(groups.values(), key=lambda group: (-len(group), group[0]))
        for group in ordered[1:]:
            base, other = rulesets[ordered[0][0]], rulesets[group[0]]
            found = _explained(base, other, answers[group[0]], part, request)
            found["variants"] = [base.slug, *(rulesets[i].slug for i in group)]
            differences.append(found)
    return {"answers": answers, "differences": differences}


def _explained(
    base: Ruleset, other: Ruleset, answer: Mapping[str, Any], part: str, request: Mapping[str, Any]
) -> Json:
    """Which clauses make `other` answer `part` otherwise than `base`."""
    watched = other.watched()
    _ask(watched, request)
    read = watched.consulted()
    candidates = [c for c in differing_clauses([base, other]) if c in read]
    alone = []
    for clause_id in candidates:
        try:
            mutant = with_value(base, clause_id, other.value(clause_id))
        except (HarnessError, KeyError, TypeError, ValueError):
            continue  # a value the other clauses of `base` cannot take
        if _part(ask(mutant, request), part) == _part(answer, part):
            alone.append(clause_id)
    return {
        "part": part,
        "variants": [base.slug, other.slug],
        "clauses": alone or candidates,
        "alone": bool(alone),
    }


def answer_json(rulesets: Mapping[str, Ruleset], slugs: Sequence[str], request_text: str) -> str:
    """The panel's entry point: the request as JSON text, the answer as JSON text (one variant's
    answer, or the comparison of several)."""
    request = json.loads(request_text)
    chosen = [rulesets[s] for s in slugs]
    if len(chosen) == 1:
        return json.dumps(ask(chosen[0], request), ensure_ascii=False)
    return json.dumps(compare(chosen, request), ensure_ascii=False)
