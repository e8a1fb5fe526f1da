"""The listing of a hand's plays in the reference's order, in C (issue 52): `gd_hand_plays`
gives what `HandPlays(hand, rules)` gives, play for play, in the same order, each play's cards
in the same order, in all four modes, on every bundled variant and on one-clause mutants the
fast engine plays; and a few small hands whose listing is worked out by hand."""

from __future__ import annotations

import ctypes
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.engine.fast import tables
from harness.engine.fast.engine import TYPES, FastEngine, encode
from harness.engine.fast.listing import ListMode, beaten_by_any, card_int, hand_plays
from harness.errors import HarnessError
from harness.interpreter.legal import HandPlays
from harness.interpreter.readings import Play, Reading, play_rules
from harness.kernel import build, layout
from harness.model.cards import NATURAL_RANKS, Card, Rank, Suit, parse_cards, two_deck_pack
from harness.model.loader import load_variant
from harness.model.mutants import mutants, mutate, plain
from harness.model.ruleset import CombinationType, Ruleset

BUNDLED = ("huaian", "competition", "match-rules", "online-app")
RULESETS = {slug: load_variant(slug) for slug in BUNDLED}
# The clause families a listing reads (shapes, orders, runs, the wild card, the ladder).
LISTING_FAMILIES = ("combinations.", "ranks.", "sequences.", "wild.", "bombs.", "compare.")

HAS_COMPILER = build._compiler() is not None and not build._switched_off()
needs_kernel = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the fast engine is off")
PACK = tuple(two_deck_pack())


def _compact(plays: list[Play]) -> list[tuple[int, tuple[int, ...]]]:
    return [(encode(p.reading), tuple(card_int(c) for c in p.cards)) for p in plays]


# --- the hands ----------------------------------------------------------------------------------


def _hand(rng: random.Random, level: Rank, size: int, wilds: int) -> list[Card]:
    """`size` cards of two decks holding exactly `wilds` wild cards (heart level cards), in a
    random order: half the time from the whole pack, half from a few neighbouring ranks and
    the jokers, where bombs, runs of pairs and triples and straight flushes are common."""
    wild = Card(level, Suit.HEARTS)
    rest = [c for c in PACK if c != wild]
    if rng.random() < 0.5:
        low = rng.randrange(len(NATURAL_RANKS))
        ranks = {NATURAL_RANKS[(low + i) % 13] for i in range(rng.randint(3, 7))}
        near = [c for c in rest if c.rank in ranks or c.rank.is_joker]
        far = [c for c in rest if c not in near]
        chosen = rng.sample(near, min(size - wilds, len(near)))
        chosen += rng.sample(far, size - wilds - len(chosen))
    else:
        chosen = rng.sample(rest, size - wilds)
    hand = chosen + [wild] * wilds
    rng.shuffle(hand)
    return hand


def _situations(
    ruleset: Ruleset, seed: int, count: int
) -> Iterator[tuple[Rank, list[Card], Reading]]:
    """Seeded hands (1 to 29 cards, 0, 1 or 2 wild cards, random levels), each with a previous
    play taken from another hand's listing."""
    rng = random.Random(seed)
    for _ in range(count):
        level = rng.choice(NATURAL_RANKS)
        wilds = rng.choice((0, 1, 2))
        hand = _hand(rng, level, rng.randint(max(1, wilds), 29), wilds)
        listed: list[Play] = []
        while not listed:  # a rule set without singles lists nothing for some small hands
            others = rng.choice((0, 1, 2))
            other = _hand(rng, level, rng.randint(max(1, others), 27), others)
            listed = HandPlays(other, play_rules(ruleset, level)).plays()
        yield level, hand, rng.choice(listed).reading


def _compare(ruleset: Ruleset, seed: int, count: int) -> int:
    """The C listing against the reference's on `count` situations, in all four modes; the
    plays compared (so that a sweep that compared nothing is seen)."""
    engine = FastEngine(ruleset)
    compared = 0
    for level, hand, previous in _situations(ruleset, seed, count):
        reference = HandPlays(hand, play_rules(ruleset, level))
        where = f"{ruleset.slug} level {level.value} hand {' '.join(c.code for c in hand)}"
        mine = hand_plays(engine, level, hand)
        assert mine == _compact(reference.plays()), where
        for mode, bombs in ((ListMode.FOLLOWING, True), (ListMode.NO_BOMBS, False)):
            found = hand_plays(engine, level, hand, mode, previous)
            expected = _compact(reference.following(previous, bombs=bombs))
            assert found == expected, f"{where} {mode.name} {previous}"
        # What _listing.c tells a caller: following is the leading listing that beats previous.
        table, against = engine.tables(level).array, encode(previous)
        beating = [p for p in mine if engine.kernel.beats(table, p[0], against)]
        assert beating == hand_plays(engine, level, hand, ListMode.FOLLOWING, previous), where
        any_beats = beaten_by_any(engine, level, hand, previous)
        assert any_beats == reference.beaten_by_any(previous), f"{where} {previous}"
        compared += len(mine)
    return compared


# --- the mutants ------------------------------------------------------------------------------


def _shape(ruleset: Ruleset, kind: str, **changed: object) -> tuple[str, object]:
    value = plain(ruleset.value(f"combinations.{kind}.shape"))
    for field, new in changed.items():
        if field.startswith("kicker_"):
            value["kicker"][field.removeprefix("kicker_")] = new
        else:
            value[field] = new
    return f"combinations.{kind}.shape", value


def _shape_mutants() -> list[tuple[str, str, object]]:
    """Shapes one field away from huaian's, of the kinds the fast engine lists: a kicker that
    may share the group's rank or never be jokers, or of one card; pairs of no jokers; runs of
    any length; runs of one suit; joker-only sets of one group."""
    base = RULESETS["huaian"]
    return [
        ("huaian", *_shape(base, "full_house", kicker_distinct_rank=False)),
        ("huaian", *_shape(base, "full_house", kicker_jokers=False)),
        ("huaian", *_shape(base, "full_house", kicker_group_size=1)),
        ("huaian", *_shape(base, "pair", jokers="excluded")),
        ("huaian", *_shape(base, "straight", groups={"min": 5, "max": None})),
        ("huaian", *_shape(base, "straight", groups={"min": 3, "max": 13})),
        ("huaian", *_shape(base, "tube", groups={"min": 2, "max": None})),
        ("huaian", *_shape(base, "tube", group_size={"min": 2, "max": None})),
        ("huaian", *_shape(base, "tube", same_suit=True)),
        ("huaian", *_shape(base, "triple", group_size={"min": 3, "max": None})),
        ("huaian", *_shape(base, "joker_bomb", groups={"min": 1, "max": 1})),
    ]


def _listing_mutants() -> list[tuple[str, str, object]]:
    """Every one-clause mutant of a bundled variant, of a clause a listing reads, that the fast
    engine plays; then the shapes above."""
    found = []
    for slug, ruleset in RULESETS.items():
        for m in mutants(ruleset):
            if not m.clause.startswith(LISTING_FAMILIES):
                continue
            changed = mutate(ruleset, m.clause, m.value)
            if changed is not None and not tables.refusals(changed):
                found.append((slug, m.clause, m.value))
    return found + _shape_mutants()


def _mutant(slug: str, clause: str, value: object) -> Ruleset:
    changed = mutate(RULESETS[slug], clause, value)
    assert changed is not None, f"{slug}: {clause} = {value!r} is refused by the loader"
    assert not tables.refusals(changed), (
        f"{slug}: {clause} = {value!r} is refused by the fast engine"
    )
    return changed


# --- the sweeps -------------------------------------------------------------------------------


@needs_kernel
@pytest.mark.parametrize("slug", BUNDLED)
def test_the_listing_is_the_references_on_each_bundled_variant(slug: str) -> None:
    assert _compare(RULESETS[slug], seed=52, count=400) > 4000


@needs_kernel
def test_the_listing_is_the_references_on_a_sample_of_mutants() -> None:
    every = _listing_mutants()
    # Each family a listing reads is among them (the shapes, the wild card, the ladder…).
    assert {clause.split(".")[0] for _, clause, _ in every} >= {
        "combinations",
        "ranks",
        "sequences",
        "wild",
        "bombs",
        "compare",
    }
    sample = random.Random(52).sample(every, 24) + _shape_mutants()
    for i, (slug, clause, value) in enumerate(sample):
        assert _compare(_mutant(slug, clause, value), seed=i, count=30) > 0, (slug, clause)


@needs_kernel
@pytest.mark.slow
@pytest.mark.parametrize("slug", BUNDLED)
def test_the_listing_is_the_references_on_a_long_run(slug: str) -> None:
    assert _compare(RULESETS[slug], seed=5252, count=3000) > 20000


@needs_kernel
@pytest.mark.slow
def test_the_listing_is_the_references_on_every_listing_mutant() -> None:
    for i, (slug, clause, value) in enumerate(_listing_mutants()):
        assert _compare(_mutant(slug, clause, value), seed=1000 + i, count=60) > 0, (slug, clause)


# --- small hands worked out by hand -----------------------------------------------------------


def _listed(slug: str, level: Rank, hand: str, previous: Reading | None = None) -> list[str]:
    mode = ListMode.ALL if previous is None else ListMode.FOLLOWING
    plays = hand_plays(FastEngine(RULESETS[slug]), level, parse_cards(hand), mode, previous)
    codes = {card_int(card): card.code for card in PACK}
    out = []
    for reading, cards in plays:
        kind, rank = TYPES[reading >> 24].value, tables.PLACES[reading >> 16 & 0xFF].value
        out.append(f"{kind} {rank}: {' '.join(codes[c] for c in cards)}")
    return out


@needs_kernel
def test_a_small_hand_with_a_wild_card_is_listed_in_the_references_order() -> None:
    """huaian at level 2 (the wild card is ♥2, above A outside runs; a wild card needs a
    natural card beside it): singles by value (the lone ♥2 is a level card, highest), then
    pairs and the triple, natural cards first and the wild card filling."""
    assert _listed("huaian", Rank.TWO, "S3 H3 S4 H2") == [
        "single 3: S3",
        "single 4: S4",
        "single 2: H2",
        "pair 3: S3 H3",
        "pair 4: S4 H2",
        "triple 3: S3 H3 H2",
    ]
    previous = Reading(CombinationType.PAIR, Rank.THREE, 2)
    assert _listed("huaian", Rank.TWO, "S3 H3 S4 H2", previous) == ["pair 4: S4 H2"]


@needs_kernel
def test_a_kicker_is_the_cheapest_pair_and_a_run_takes_its_cards_in_rank_order() -> None:
    """The pair carried by a full house is the lowest the hand holds (7s before 9s); a run's
    cards go low to high, the wild card last, and the straight flush (a bomb) comes after
    every non-bomb."""
    full = _listed("huaian", Rank.TWO, "S5 S9 H5 S7 H9 C5 D7")
    assert "full_house 5: S5 H5 C5 S7 D7" in full
    assert [p for p in full if p.startswith("full_house")] == ["full_house 5: S5 H5 C5 S7 D7"]
    runs = _listed("huaian", Rank.TWO, "S7 S3 H2 S4 S6")
    assert runs[-2:] == ["straight 7: S3 S4 S6 S7 H2", "straight_flush 7: S3 S4 S6 S7 H2"]


# --- its limits -------------------------------------------------------------------------------


@needs_kernel
def test_a_listing_past_the_stack_arrays_moves_to_the_heap_and_lists_alike(tmp_path: Path) -> None:
    """Built with room on the stack for 4 plays and 8 cards, the kernel moves what it gathers to
    the heap (growing it again and again) and lists every hand as the reference does."""
    compiler = build._compiler()
    assert compiler is not None
    small = tuple(
        "#define L_ENTRIES 4\n#define L_CARDS 8\n" + text if "gd_hand_plays(const" in text else text
        for text in build.sources()
    )
    built = build._build(compiler, small)
    assert isinstance(built, bytes), built
    # Loaded from a path of its own: dlopen hands back a library already loaded under the same
    # name, and the memory file `build._load` uses is named by a descriptor number it reuses.
    path = tmp_path / "small-kernel.so"
    path.write_bytes(built)
    kernel = build.Kernel(ctypes.CDLL(str(path)))
    loaded = build.load()[0]
    assert loaded is not None and kernel.library._handle != loaded.library._handle
    ruleset = RULESETS["huaian"]
    engine = FastEngine(ruleset)
    rng = random.Random(7)
    for size in (27, 40, 64):
        level = rng.choice(NATURAL_RANKS)
        hand = rng.sample(PACK, size)
        table = engine.tables(level).array
        cards = (ctypes.c_int32 * size)(*(card_int(c) for c in hand))
        out = (ctypes.c_int32 * (1 << 14))()
        length = kernel.hand_plays(table, cards, size, ListMode.ALL, -1, out, len(out))
        expected = _compact(HandPlays(hand, play_rules(ruleset, level)).plays())
        assert len(expected) > 4 and sum(len(c) for _, c in expected) > 8
        assert list(out[:length]) == [i for r, c in expected for i in (r, len(c), *c)]


@needs_kernel
def test_a_buffer_too_small_gets_the_room_needed_and_nothing_written() -> None:
    ruleset = RULESETS["competition"]
    engine = FastEngine(ruleset)
    hand = random.Random(8).sample(PACK, 27)
    table = engine.tables(Rank.FIVE).array
    cards = (ctypes.c_int32 * 27)(*(card_int(c) for c in hand))
    expected = _compact(HandPlays(hand, play_rules(ruleset, Rank.FIVE)).plays())
    needed = sum(2 + len(c) for _, c in expected)
    out = (ctypes.c_int32 * 64)(*([-7] * 64))
    assert engine.kernel.hand_plays(table, cards, 27, ListMode.ALL, -1, out, 10) == needed
    assert list(out) == [-7] * 64
    # A card that is no card int, or a hand past the largest: -1, nothing written.
    cards[3] = 5 * 13  # a joker's place with a suit
    assert engine.kernel.hand_plays(table, cards, 27, ListMode.ALL, -1, out, 64) == -1
    assert engine.kernel.hand_plays(table, cards, 65, ListMode.ALL, -1, out, 64) == -1
    assert list(out) == [-7] * 64


def test_the_layouts_largest_hand_is_the_kernels() -> None:
    """The table's ladder steps are written up to `MAX_HAND` cards, the size `_round.h` gives
    a hand (and `_listing.c` refuses to compile where they differ)."""
    header = (Path(build.__file__).parent / "_round.h").read_text(encoding="utf-8")
    assert f"#define GD_MAX_HAND {layout.MAX_HAND} " in header


@needs_kernel
def test_a_hand_past_the_largest_is_refused_and_a_follow_needs_a_previous_play() -> None:
    engine = FastEngine(RULESETS["huaian"])
    with pytest.raises(HarnessError, match="at most 64"):
        hand_plays(engine, Rank.TWO, list(PACK[:65]))
    with pytest.raises(HarnessError, match="a previous play is needed"):
        hand_plays(engine, Rank.TWO, list(PACK[:5]), ListMode.FOLLOWING)
