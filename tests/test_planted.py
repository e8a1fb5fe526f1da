"""The planted-bug engines (tests/engines/planted.py) are each caught by `guandan check`: some
case fails, and a failing case checks the clause the bug is in. Mutants are built as data."""

from __future__ import annotations

import pytest

from harness.conformance.running.runner import RunConfig, Status, run
from harness.errors import HarnessError
from harness.model.loader import load_variant, mutant
from tests.conftest import slow_but

PLANTED = [
    ("level_natural_in_tribute", "huaian", "tribute.card"),
    ("wrapping_sequences", "huaian", "sequences.wrap"),
    ("equal_beats", "competition", "compare.equal_beats"),
    ("double_down_two", "huaian", "levels.up.double_down"),
    ("wrong_return_seat", "huaian", "tribute.return.double_to"),
    ("wrong_return_seat", "competition", "tribute.return.double_to"),
    ("jiefeng_next", "match-rules", "flow.jiefeng"),
    ("no_first_streak", "online-app", "levels.streak.firsts"),
    ("NoTenCardBomb", "huaian", "combinations.bomb.shape"),
]


# The fast tier catches the bugs whose checks take a second or two; CI catches them all.
QUICK = [p for p in PLANTED if p[0] in ("level_natural_in_tribute", "wrong_return_seat")]


@pytest.mark.parametrize(("engine", "slug", "clause"), slow_but(PLANTED, *QUICK))
def test_each_planted_bug_is_caught(engine: str, slug: str, clause: str) -> None:
    config = RunConfig(engine=f"py:tests.engines.planted:{engine}", variants=[load_variant(slug)])
    result = run(config)
    failed = [r for r in result.results if r.status is Status.FAIL]
    assert failed, f"{engine} on {slug}: no case failed"
    assert any(clause in r.clauses for r in failed), sorted({c for r in failed for c in r.clauses})
    assert not any(r.status in (Status.ERROR, Status.TIMEOUT) for r in result.results)


def test_a_mutant_is_the_variant_with_one_clause_changed() -> None:
    huaian = load_variant("huaian")
    two = mutant(huaian, "levels.up.double_down", 2)
    assert two.rules.levels.up.double_down == 2
    assert huaian.rules.levels.up.double_down == 3
    changed = [cid for cid in huaian.clauses if huaian.value(cid) != two.value(cid)]
    assert changed == ["levels.up.double_down"]
    assert two.clause("levels.up.double_down").provenance.kind.value == "assumed"


@pytest.mark.parametrize(
    ("clause", "value", "words"),
    [
        ("seats.players", 6, "not implemented by the reference interpreter"),
        ("compare.equal_beats", "yes", "is not of type 'boolean'"),
        ("levels.final", "2", "option target offers only"),
        ("levels.floor", "9", "above the start"),
        ("no.such.clause", 1, "unknown clause id"),
    ],
)
def test_a_mutant_is_valid_by_construction(clause: str, value: object, words: str) -> None:
    with pytest.raises(HarnessError, match=words):
        mutant(load_variant("huaian"), clause, value)
