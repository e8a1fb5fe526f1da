"""The fast engine (issue 52): the corpus passes on it, it answers as the reference on random
hands of every bundled variant, it declines the rule sets it does not play, and it is off, said
so, where there is no compiler (the Python path then answers)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.api import call
from harness.engine.fast import tables
from harness.engine.reference import ReferenceEngine
from harness.errors import EngineError, EngineErrorKind
from harness.interpreter.classify import classify
from harness.kernel import build
from harness.model.cards import Card, Rank, two_deck_pack
from harness.model.declarations import Implementation, marks, where
from harness.model.loader import load_variant, variant_slugs
from harness.strategies import card_sets, codes, hands_with_wilds, levels, readings

ROOT = Path(__file__).resolve().parents[1]
SLUGS = [slug for slug in variant_slugs()]
RULESETS = {slug: load_variant(slug) for slug in SLUGS}
OPERATIONS = ("classify", "beats", "legal_plays", "legal_actions")

# Where a C compiler is found the kernel must be on: a build that fails there is a failure, not
# a skip. Only a machine without one (or with the kernel switched off) skips.
HAS_COMPILER = build._compiler() is not None and not build._switched_off()
needs_kernel = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")


def _fast(slug: str) -> Any:
    from harness.engine.fast.engine import FastEngine

    return FastEngine(RULESETS[slug])


@pytest.fixture(scope="module")
def engines() -> dict[str, tuple[Any, ReferenceEngine]]:
    if not HAS_COMPILER:
        pytest.skip("no C compiler: the fast engine is off")
    return {slug: (_fast(slug), ReferenceEngine(RULESETS[slug])) for slug in SLUGS}


@needs_kernel
def test_the_kernel_is_active_where_a_compiler_is() -> None:
    found = build.status()
    assert found.active, found.detail


# --- the corpus -------------------------------------------------------------------------------


@needs_kernel
def test_check_engine_fast_passes_every_case_of_every_variant(tmp_path: Path) -> None:
    """`guandan check --engine fast`: nothing fails, nothing errs, and every case of the four
    play operations is judged on every variant (derived ones included: none is declined)."""
    from harness.frontends.cli import main

    report = tmp_path / "fast.json"
    assert main(["check", "--engine", "fast", "--json", str(report)]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    statuses = Counter(case["status"] for case in data["cases"])
    assert statuses["fail"] == 0 and statuses["error"] == 0, statuses
    assert data["refusals"] == []
    for case in data["cases"]:
        if case["operation"] in OPERATIONS:
            assert case["status"] == "pass", case
        else:
            assert case["status"] == "unsupported", case
    judged = Counter(c["operation"] for c in data["cases"] if c["status"] == "pass")
    # The corpus has cases of each play operation: a run that judged none would be no proof.
    assert all(judged[op] > 100 for op in OPERATIONS), judged


@needs_kernel
@pytest.mark.parametrize("slug", SLUGS)
def test_fuzz_engine_fast_finds_nothing(slug: str, tmp_path: Path) -> None:
    """`guandan fuzz --engine fast`: the fuzzer's own situations, compared with the reference,
    find no difference (a small budget here; `--examples 20000` a variant is the long run)."""
    from harness.frontends.cli import main

    summary = tmp_path / "fuzz.json"
    argv = ["fuzz", "--engine", "fast", "--variant", slug, "--examples", "400", "--seed", "52"]
    assert main([*argv, "--quiet", "--json", str(summary), "--out", str(tmp_path / "cases")]) == 0
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["compared"] == 400
    assert sorted(data["targets"]) == sorted(OPERATIONS)
    assert data["findings"] == [] and data["errors"] == []


# --- the same answers as the reference, on random situations -----------------------------------


def _actions(answer: dict[str, Any]) -> Counter[str]:
    return Counter(
        json.dumps(
            [sorted(a["cards"]), sorted(json.dumps(r, sort_keys=True) for r in a["readings"])]
        )
        for a in answer["actions"]
    )


def _readings(items: list[dict[str, Any]]) -> Counter[tuple[str, str, int]]:
    return Counter((r["type"], r["rank"], r["size"]) for r in items)


@st.composite
def situations(draw: st.DrawFn) -> tuple[str, Rank, list[Card], dict[str, Any] | None]:
    slug = draw(st.sampled_from(SLUGS))
    level = draw(levels())
    hand = draw(hands_with_wilds(level, 1, 27))
    previous = draw(st.none() | readings(RULESETS[slug], level))
    return slug, level, hand, previous


@needs_kernel
@given(situations())
@settings(max_examples=150, deadline=None)
def test_legal_actions_and_plays_are_the_references(
    engines: dict[str, tuple[Any, ReferenceEngine]],
    situation: tuple[str, Rank, list[Card], dict[str, Any] | None],
) -> None:
    slug, level, hand, previous = situation
    fast, reference = engines[slug]
    request: dict[str, Any] = {"hand": codes(hand), "level": level.value, "previous": previous}
    mine, theirs = call(fast, "legal_actions", request), call(reference, "legal_actions", request)
    assert mine["total"] == theirs["total"]
    assert _actions(mine) == _actions(theirs)
    plays = call(fast, "legal_plays", request)["plays"]
    assert _readings(plays) == _readings(call(reference, "legal_plays", request)["plays"])
    # Each play's cards are the hand's and make its reading (by the reference's classify).
    for play in plays:
        cards = [c for c in hand if c.code in play["cards"]]
        assert not Counter(play["cards"]) - Counter(c.code for c in hand)
        made = classify([_card(code, hand) for code in play["cards"]], level, RULESETS[slug])
        assert (play["type"], play["rank"], play["size"]) in {
            (r.type.value, r.rank.value, r.size) for r in made.readings
        }, (play, cards)


def _card(code: str, hand: list[Card]) -> Card:
    return next(c for c in hand if c.code == code)


@needs_kernel
@given(st.sampled_from(SLUGS), levels(), st.data())
@settings(max_examples=300, deadline=None)
def test_classify_and_beats_are_the_references(
    engines: dict[str, tuple[Any, ReferenceEngine]], slug: str, level: Rank, data: st.DataObject
) -> None:
    fast, reference = engines[slug]
    cards = data.draw(card_sets(level) | hands_with_wilds(level, 1, 8))
    request = {"cards": codes(cards), "level": level.value}
    mine, theirs = call(fast, "classify", request), call(reference, "classify", request)
    assert _readings(mine["readings"]) == _readings(theirs["readings"])
    assert mine["default"] == theirs["default"]
    ruleset = RULESETS[slug]
    play, previous = data.draw(readings(ruleset, level)), data.draw(readings(ruleset, level))
    asked = {"play": play, "previous": previous, "level": level.value}
    assert call(fast, "beats", asked) == call(reference, "beats", asked)


@needs_kernel
def test_the_kernels_cache_changes_no_answer() -> None:
    """Readings kept per profile across listings: a hand listed on a cold table, on the warm
    one, and by threads at once, is listed alike."""
    from harness.engine.fast.engine import FastEngine

    rng = random.Random(52)
    pack = list(two_deck_pack())
    level = Rank.SEVEN
    hands = [rng.sample(pack, 27) for _ in range(8)]
    cold = [FastEngine(RULESETS["huaian"]) for _ in hands]
    first = [e.listing(e.tables(level), h, None, False) for e, h in zip(cold, hands, strict=True)]
    warm = FastEngine(RULESETS["huaian"])
    assert [warm.listing(warm.tables(level), h, None, False) for h in hands] == first
    found: dict[int, object] = {}

    def list_one(i: int) -> None:
        found[i] = warm.listing(warm.tables(level), hands[i], None, False)

    threads = [threading.Thread(target=list_one, args=(i,)) for i in range(len(hands))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [found[i] for i in range(len(hands))] == first


# --- what it reads, and what it declines ------------------------------------------------------


def test_the_fast_engine_reads_every_clause_the_play_operations_do() -> None:
    """No clause the reference's play operations apply is left unread (and so ignored) by the
    fast engine: every one is declared by a function of the fast engine, with its values."""
    import harness.interpreter.actions
    import harness.interpreter.classify
    import harness.interpreter.legal
    import harness.interpreter.readings

    modules = (
        harness.interpreter.readings,
        harness.interpreter.classify,
        harness.interpreter.legal,
        harness.interpreter.actions,
    )
    reference = {m.clause for module in modules for m in marks(module)}
    fast = {m.clause for m in tables.declarations()}
    assert reference <= fast, sorted(reference - fast)


def test_the_bundled_variants_and_their_derived_ones_are_played() -> None:
    for slug, ruleset in RULESETS.items():
        assert tables.refusals(ruleset) == [], slug


def test_a_clause_value_it_does_not_play_is_refused_by_name() -> None:
    """A value outside what the fast engine declares is named, with its reason."""
    never = where(lambda value: "not in the kernel", "nothing")
    mark = Implementation("ranks.level_card.position", "test", never)
    refused = tables.refusals(RULESETS["huaian"], [mark])
    assert [r.clause for r in refused] == ["ranks.level_card.position"]
    assert str(refused[0]) == 'ranks.level_card.position = "above_ace": not in the kernel'


@pytest.mark.parametrize(
    ("shape", "reason"),
    [
        (
            {
                "groups": {"min": 2, "max": 2},
                "group_size": {"min": 3, "max": 3},
                "consecutive": True,
                "same_suit": False,
                "kicker": {"group_size": 2, "distinct_rank": True, "jokers": False},
                "jokers": "excluded",
            },
            "a run with a kicker",
        ),
        (
            {
                "groups": {"min": 2, "max": 2},
                "group_size": {"min": 1, "max": 1},
                "consecutive": False,
                "same_suit": False,
                "kicker": None,
                "jokers": "excluded",
            },
            "several groups that are no run",
        ),
    ],
)
def test_shapes_the_kernel_does_not_list_are_refused(shape: dict[str, Any], reason: str) -> None:
    """An airplane (a run of triples with kickers) and unordered groups are no shape of the
    kernel: refused, never read as something else."""
    found = tables._shape_refusal(shape)
    assert found is not None and found.startswith(reason)


@needs_kernel
def test_a_rule_set_it_does_not_play_is_declined_as_unsupported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness.engine.fast import engine

    refused = [tables.Refusal("sequences.wrap", True, "not in the kernel")]
    monkeypatch.setattr(engine, "refusals", lambda ruleset: refused)
    with pytest.raises(EngineError) as raised:
        engine.FastEngine(RULESETS["huaian"])
    assert raised.value.kind is EngineErrorKind.UNSUPPORTED
    assert "sequences.wrap = true: not in the kernel" in str(raised.value)


@needs_kernel
def test_other_operations_are_unsupported_not_answered(
    engines: dict[str, tuple[Any, ReferenceEngine]],
) -> None:
    fast, _ = engines["huaian"]
    assert set(fast.describe().operations) == set(OPERATIONS)
    with pytest.raises(EngineError) as raised:
        fast.answer("tribute", {})
    assert raised.value.kind is EngineErrorKind.UNSUPPORTED


@needs_kernel
def test_impossible_input_is_refused_as_the_reference_refuses_it(
    engines: dict[str, tuple[Any, ReferenceEngine]],
) -> None:
    fast, _ = engines["huaian"]
    with pytest.raises(EngineError) as raised:
        fast.classify({"cards": ["HR", "HR", "HR"], "level": "2"})
    assert raised.value.kind is EngineErrorKind.INVALID_INPUT


# --- the tables, from the rules ---------------------------------------------------------------


def _windows(slug: str, span: int) -> list[list[str]]:
    table = tables.compile_tables(RULESETS[slug], Rank.TWO)
    off = tables.OFF
    start = table[off["WINDOW_START"] + span]
    count = table[off["WINDOW_COUNT"] + span]
    flat = table[off["WINDOWS"] + start : off["WINDOWS"] + start + span * count]
    return [[tables.PLACES[p].value for p in flat[i : i + span]] for i in range(0, len(flat), span)]


def test_straight_windows_run_from_a2345_to_tjqka() -> None:
    """Every source allows A2345 and 10JQKA and forbids JQKA2 (base.yaml, sequences.*): ten
    windows of five, the lowest with A at the bottom."""
    windows = _windows("huaian", 5)
    assert len(windows) == 10
    assert windows[0] == ["A", "2", "3", "4", "5"]
    assert windows[-1] == ["T", "J", "Q", "K", "A"]


# --- off: the Python path answers ---------------------------------------------------------------


def _guandan(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.frontends.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


def test_switched_off_the_version_says_so_and_fast_is_refused_by_name() -> None:
    done = _guandan("--version", GUANDAN_FAST="off")
    assert done.returncode == 0
    assert done.stdout.rstrip().endswith("(fast engine off (switched off by GUANDAN_FAST))")
    done = _guandan("check", "--engine", "fast", "--variant", "huaian", GUANDAN_FAST="off")
    assert done.returncode == 2
    assert "engine 'fast' is off (switched off by GUANDAN_FAST)" in done.stderr


def test_without_a_compiler_it_is_off_and_the_reference_still_runs(tmp_path: Path) -> None:
    """A machine with only Python and pip: no compiler on the PATH, nothing cached. The fast
    engine is off and says why; the Python path checks the corpus as ever."""
    env = {
        "PATH": str(tmp_path),
        "CC": "",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        build.SWITCH: "",
    }
    done = _guandan("--version", **env)
    assert done.returncode == 0
    assert "fast engine off (no C compiler found" in done.stdout
    done = _guandan("check", "--engine", "reference", "--variant", "huaian", **env)
    assert done.returncode == 0, done.stderr[-500:]
