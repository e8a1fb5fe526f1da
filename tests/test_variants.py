"""Tests for the four bundled variants (variants/*.yaml) against their source texts.

Every expected value below was written by hand from the source texts in spec/sources/*.txt; the
sentence each one comes from is quoted beside it. Each test names the clause id(s) it checks.
The provenance and schema checks at the end are written here, independently of the loader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.errors import HarnessError
from harness.model.cards import Rank, Suit
from harness.model.loader import load_variant
from harness.model.ruleset import (
    CombinationType,
    DefaultChoice,
    DisclosureMode,
    HandCountRule,
    IntRange,
    JiefengRule,
    JokerUse,
    LadderStep,
    PlaceRef,
    ProvenanceKind,
    ReturnTo,
    Ruleset,
    Streak,
    TieRule,
    WildDefault,
    clause_ids_of_view,
)
from harness.model.seats import FinishKind

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec"
VARIANTS_DIR = ROOT / "variants"

VARIANTS = ("huaian", "online-app", "competition", "match-rules")
S = ProvenanceKind.STATED
R = ProvenanceKind.READ
A = ProvenanceKind.ASSUMED


def variant(slug: str) -> Ruleset:
    """The bundled variant `slug`, with no options chosen."""
    return load_variant(slug)


def check(slug: str, clause_id: str, value: Any, kind: ProvenanceKind) -> None:
    """The clause `clause_id` of `slug` has this raw value and this provenance kind."""
    clause = variant(slug).clause(clause_id)
    assert clause.value == value, f"{slug}: {clause_id} = {clause.value!r}, expected {value!r}"
    assert clause.provenance.kind is kind, (
        f"{slug}: {clause_id} is {clause.provenance.kind}, expected {kind}"
    )


def check_kind(slug: str, clause_id: str, kind: ProvenanceKind) -> None:
    """The clause `clause_id` of `slug` has this provenance kind."""
    clause = variant(slug).clause(clause_id)
    assert clause.provenance.kind is kind, (
        f"{slug}: {clause_id} is {clause.provenance.kind}, expected {kind}"
    )


def test_bundled_variants_are_the_four_sources() -> None:
    for slug in VARIANTS:
        ruleset = variant(slug)
        assert ruleset.slug == slug
        assert ruleset.source == slug
        assert not ruleset.abstract
    assert variant("base").abstract
    assert variant("base").source is None


# ---------------------------------------------------------------------------------------------
# levels.up


# levels.up.double_down, levels.up.first_and_third, levels.up.first_and_fourth
@pytest.mark.parametrize(
    ("slug", "double_down", "first_and_third", "first_and_fourth"),
    [
        # 如果是雙下，贏家方升3級。…獲得第一名和第三名，贏家方升2級；…第一名和末游，贏家升1級
        ("huaian", 3, 2, 1),
        # 如果是雙下，贏家方公升3級。…公升2級；…贏家公升1級；
        ("online-app", 3, 2, 1),
        # 雙下…贏家公升3級。如果對手有一家是下游，贏家公升2 級；如果贏家自己對門是下游，贏家公升1 級
        ("competition", 3, 2, 1),
        # 如上游的對門為二遊（俗稱雙下），則上游方升4級；如為三遊，則升2級。
        # 如為四遊(下游)，則升1級。
        ("match-rules", 4, 2, 1),
    ],
)
def test_levels_up(
    slug: str, double_down: int, first_and_third: int, first_and_fourth: int
) -> None:
    check(slug, "levels.up.double_down", double_down, S)
    check(slug, "levels.up.first_and_third", first_and_third, S)
    check(slug, "levels.up.first_and_fourth", first_and_fourth, S)
    up = variant(slug).rules.levels.up
    assert up.for_finish(FinishKind.DOUBLE_DOWN) == double_down
    assert up.for_finish(FinishKind.FIRST_AND_THIRD) == first_and_third
    assert up.for_finish(FinishKind.FIRST_AND_FOURTH) == first_and_fourth


# ---------------------------------------------------------------------------------------------
# levels.final, levels.final_win, the option `target`


# levels.final_win
@pytest.mark.parametrize(
    ("slug", "finishes"),
    [
        # 打到系統指定的最終點數的那一局，必須當局贏家沒有末游才可以最終贏得本局。
        ("huaian", ["double_down", "first_and_third"]),
        # 必須當局贏家沒有末遊才可以最終贏得本局。
        ("online-app", ["double_down", "first_and_third"]),
        # 如果打到a，打家必須有一家是上游，且對家不是下游才可以最終贏得本局
        ("competition", ["double_down", "first_and_third"]),
        # 勝方過“A”必須是頭遊和二遊，打對方雙下，否則不算過“A”
        ("match-rules", ["double_down"]),
    ],
)
def test_levels_final_win(slug: str, finishes: list[str]) -> None:
    check(slug, "levels.final_win", finishes, S)
    assert variant(slug).rules.levels.final_win == tuple(FinishKind(f) for f in finishes)


# levels.final: A everywhere; huaian and online-app offer 8 or A and name no default (assumed);
# competition 直至a…a必打 and match-rules 過“A” state it.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", S), ("match-rules", S)],
)
def test_levels_final(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "levels.final", "A", kind)
    assert variant(slug).rules.levels.final is Rank.ACE


# levels.final via the option `target` (打到8或者打到A) on huaian and online-app only.
@pytest.mark.parametrize(
    ("slug", "has_target"),
    [("huaian", True), ("online-app", True), ("competition", False), ("match-rules", False)],
)
def test_option_target_exists_only_where_the_source_offers_8_or_a(
    slug: str, has_target: bool
) -> None:
    options = variant(slug).options
    assert ("target" in options) is has_target
    if has_target:
        target = options["target"]
        assert target.sets == "levels.final"
        assert tuple(target.choices or ()) == ("8", "A")
        assert target.default == "A"
        assert target.provenance.kind is S
        assert "打到8或者打到" in (target.provenance.quote or "")


# levels.final set by the option `target`
@pytest.mark.parametrize("slug", ["huaian", "online-app"])
def test_option_target_8_sets_levels_final(slug: str) -> None:
    chosen = variant(slug).with_options({"target": "8"})
    assert chosen.rules.levels.final is Rank.EIGHT
    clause = chosen.clause("levels.final")
    assert clause.value == "8"
    assert clause.set_by_option == "target"
    assert chosen.chosen == {"target": "8"}
    # The bundled variant itself is unchanged.
    assert variant(slug).rules.levels.final is Rank.ACE
    assert variant(slug).clause("levels.final").set_by_option is None
    # A is a choice too.
    assert variant(slug).with_options({"target": "A"}).rules.levels.final is Rank.ACE


@pytest.mark.parametrize("slug", VARIANTS)
def test_unknown_option_name_is_an_error_naming_it(slug: str) -> None:
    with pytest.raises(HarnessError, match="no_such_option"):
        variant(slug).with_options({"no_such_option": "8"})


@pytest.mark.parametrize("slug", ["competition", "match-rules"])
def test_target_is_unknown_where_the_source_has_one_final_level(slug: str) -> None:
    with pytest.raises(HarnessError, match="target"):
        variant(slug).with_options({"target": "8"})


# levels.final: 9 is not among the choices 8 and A
@pytest.mark.parametrize("slug", ["huaian", "online-app"])
def test_bad_target_choice_is_an_error_naming_the_option(slug: str) -> None:
    with pytest.raises(HarnessError, match="target") as info:
        variant(slug).with_options({"target": "9"})
    assert "9" in str(info.value)


# ---------------------------------------------------------------------------------------------
# levels.failures, levels.cap_at_final


# levels.failures.limit, levels.failures.reset_to: 總計三次a打不過去，退到2重打。
def test_competition_failures_at_a() -> None:
    check("competition", "levels.failures.limit", 3, S)
    check("competition", "levels.failures.reset_to", "2", S)
    for cid in ("levels.failures.limit", "levels.failures.reset_to"):
        quote = variant("competition").clause(cid).provenance.quote or ""
        assert "總計三次a打不過去" in quote, cid
    failures = variant("competition").rules.levels.failures
    assert failures.limit == 3
    assert failures.reset_to is Rank.TWO


# levels.failures.limit: only competition limits failures at the final level.
@pytest.mark.parametrize("slug", ["huaian", "online-app", "match-rules"])
def test_no_failure_limit_elsewhere(slug: str) -> None:
    check(slug, "levels.failures.limit", None, A)
    assert variant(slug).rules.levels.failures.limit is None


# levels.cap_at_final: competition's a必打，過a 者…為勝 speaks to it, but that 必打 stops a gain
# at A is read into it (過a 者…為勝 could be a gain past A); huaian/online-app require the final
# round to be played (打到…最終點數的那一局) but say nothing of a gain that would pass it, and
# match-rules says only 否則不算過“A”, so their cap is our reading.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", R), ("match-rules", A)],
)
def test_levels_cap_at_final(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "levels.cap_at_final", True, kind)


# levels.start: 從2開始打 / 每局從2 開始打起 / 每盤記級從打2開始 (all stated)
@pytest.mark.parametrize("slug", VARIANTS)
def test_levels_start(slug: str) -> None:
    check(slug, "levels.start", "2", S)
    assert variant(slug).rules.levels.start is Rank.TWO


# ---------------------------------------------------------------------------------------------
# levels.streak


# levels.streak.firsts, levels.streak.lasts:
# 如果某個玩家連續3次頭游，則該玩家所在的一方當局額外升1級；累計4次額外升2級，以此類推；
# 如果某個玩家連續3次末游，則該玩家所在的一方當局額外降1級；累計4次末游額外降2級，以此類推；
# 累計4次 reads two ways (2 in the fourth round, or 2 in all over four): read, not stated.
@pytest.mark.parametrize("slug", ["huaian", "online-app"])
@pytest.mark.parametrize("clause_id", ["levels.streak.firsts", "levels.streak.lasts"])
def test_streaks_from_three(slug: str, clause_id: str) -> None:
    check(slug, clause_id, {"from": 3, "levels": 1, "step": 1}, R)
    alternatives = variant(slug).clause(clause_id).provenance.alternatives
    assert any("step: 0" in a for a in alternatives), alternatives
    streak = getattr(variant(slug).rules.levels.streak, clause_id.rsplit(".", 1)[1])
    assert streak == Streak(start=3, levels=1, step=1)
    assert streak.levels_for(2) == 0
    assert streak.levels_for(3) == 1
    assert streak.levels_for(4) == 2
    assert streak.levels_for(5) == 3


@pytest.mark.parametrize("slug", ["competition", "match-rules"])
@pytest.mark.parametrize("clause_id", ["levels.streak.firsts", "levels.streak.lasts"])
def test_no_streaks_in_the_match_sheets(slug: str, clause_id: str) -> None:
    check(slug, clause_id, None, A)


# ---------------------------------------------------------------------------------------------
# tribute


# tribute.single.payer, tribute.single.receiver: 末游玩家向頭游玩家進貢 / 下游向上游進貢 /
# 上一局牌的下游者需向得上游者進貢一張牌。
@pytest.mark.parametrize("slug", VARIANTS)
def test_tribute_single_last_pays_first(slug: str) -> None:
    check(slug, "tribute.single.payer", "last", S)
    check(slug, "tribute.single.receiver", "first", S)
    single = variant(slug).rules.tribute.single
    assert single.payer is PlaceRef.LAST
    assert single.receiver is PlaceRef.FIRST


# tribute.double.assignment: 點數大的給頭游，點數小的給第二名 / （上游取大牌） / 上游者拿大牌
@pytest.mark.parametrize("slug", VARIANTS)
def test_tribute_double_bigger_to_first(slug: str) -> None:
    check(slug, "tribute.double.assignment", "bigger_to_first", S)


# tribute.card: 進貢一張除主牌紅桃外的最大的牌 / 必須是自己手中最大的牌，“逢人配”除外
@pytest.mark.parametrize("slug", VARIANTS)
def test_tribute_card_highest_except_wild(slug: str) -> None:
    check(slug, "tribute.card", "highest_except_wild", S)


# tribute.anti.big_jokers: 兩個大王 / 兩張大王 in every source.
@pytest.mark.parametrize("slug", VARIANTS)
def test_anti_tribute_two_big_jokers(slug: str) -> None:
    check(slug, "tribute.anti.big_jokers", 2, S)


# tribute.anti.single_mandatory
@pytest.mark.parametrize(
    ("slug", "mandatory", "kind"),
    [
        ("huaian", False, R),  # 若末游玩家有兩張大王，可抗貢: 可 as "may", or as "can"
        ("online-app", False, R),  # 若末遊玩家有兩張大王，可抗貢，不用進貢。
        ("competition", True, S),  # 但下游如果有兩張大王，必須抗貢
        ("match-rules", True, A),  # 則不用進貢: read as no tribute at all
    ],
)
def test_anti_tribute_single_mandatory(slug: str, mandatory: bool, kind: ProvenanceKind) -> None:
    check(slug, "tribute.anti.single_mandatory", mandatory, kind)


# tribute.return.max_rank
@pytest.mark.parametrize(
    ("slug", "max_rank"),
    [
        ("huaian", None),  # 贏家分別還一張任意牌…頭游玩家還一張任意牌。
        ("online-app", None),  # 同上
        ("competition", Rank.TEN),  # 贏家分別還一張10 以下（含10）的任意牌
        ("match-rules", None),  # 還牌：還牌可以為任意牌。
    ],
)
def test_tribute_return_max_rank(slug: str, max_rank: Rank | None) -> None:
    # 10 以下 by natural rank, a level card of 10 or lower included, is competition's reading.
    kind = R if slug == "competition" else S
    check(slug, "tribute.return.max_rank", None if max_rank is None else max_rank.value, kind)
    assert variant(slug).rules.tribute.return_.max_rank == max_rank


# tribute.return.double_to
@pytest.mark.parametrize(
    ("slug", "double_to"),
    [
        ("huaian", ReturnTo.NEXT_SEAT),  # 贏家分別還一張任意牌給自己的下家。
        ("online-app", ReturnTo.NEXT_SEAT),  # 贏家分別還一張任意牌給自己的下家。
        ("competition", ReturnTo.PAYER),  # 貢牌大者取上游的還牌…下家取上家的牌
        ("match-rules", ReturnTo.PAYER),  # 上游者拿大牌，並還牌給貢大牌者
    ],
)
def test_tribute_return_double_to(slug: str, double_to: ReturnTo) -> None:
    check(slug, "tribute.return.double_to", double_to.value, S)
    assert variant(slug).rules.tribute.return_.double_to is double_to


# tribute.double.tie: competition 則上游取下家的貢牌; match-rules 則按照順時針方向進貢, read
# against the direction of play (counter-clockwise only in 九's count, 逆時針);
# huaian and online-app say nothing of equal tributes.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", S), ("match-rules", R)],
)
def test_tribute_double_tie(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "tribute.double.tie", "to_previous_seat", kind)
    assert variant(slug).rules.tribute.double.tie is TieRule.TO_PREVIOUS_SEAT


# tribute.lead.double_tie: match-rules 並由上游者的下家先出牌; competition 由上游上家先出牌.
@pytest.mark.parametrize(
    ("slug", "lead"),
    [("competition", PlaceRef.FIRST_PREVIOUS), ("match-rules", PlaceRef.FIRST_NEXT)],
)
def test_tribute_lead_after_double_tie(slug: str, lead: PlaceRef) -> None:
    check(slug, "tribute.lead.double_tie", lead.value, S)
    assert variant(slug).rules.tribute.lead.double_tie is lead


# tribute.lead.single, tribute.lead.double, tribute.lead.anti, tribute.lead.double_tie:
# huaian and online-app never say who leads after tribute; competition (下游可先出牌,
# 貢牌大者先出牌, 由上游先出牌) and match-rules (並由下游者出牌, 由貢大牌者先出牌,
# 由上游者先出牌) do.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", S), ("match-rules", S)],
)
def test_tribute_lead(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "tribute.lead.single", "payer", kind)
    check(slug, "tribute.lead.double", "bigger_payer", kind)
    check(slug, "tribute.lead.anti", "first", kind)
    check_kind(slug, "tribute.lead.double_tie", kind)
    lead = variant(slug).rules.tribute.lead
    assert lead.single is PlaceRef.PAYER
    assert lead.double is PlaceRef.BIGGER_PAYER
    assert lead.anti is PlaceRef.FIRST


# ---------------------------------------------------------------------------------------------
# wild


# wild.suit: 主牌中紅桃花色的兩張牌 / 主牌中的兩張紅桃稱為逢人配 / 紅心x可作為萬能牌配用
# wild.excluded: 組成除天王外的任意牌型 / 可以配除大小王以外的任何牌
@pytest.mark.parametrize("slug", VARIANTS)
def test_wild_suit_and_excluded(slug: str) -> None:
    check(slug, "wild.suit", "H", S)
    wild = variant(slug).rules.wild
    assert wild.suit is Suit.HEARTS
    assert CombinationType.JOKER_BOMB in wild.excluded


# wild.default: competition 與兩對牌配成三帶兩時，出牌時要說明當大牌或小牌使用，否則只當小牌用
@pytest.mark.parametrize(
    ("slug", "default"),
    [
        ("huaian", None),
        ("online-app", None),
        ("competition", {"choice": "lowest", "applies_to": ["full_house"]}),
        ("match-rules", None),
    ],
)
def test_wild_default(slug: str, default: dict[str, Any] | None) -> None:
    check(slug, "wild.default", default, S if default is not None else A)
    typed = variant(slug).rules.wild.default
    if default is None:
        assert typed is None
    else:
        assert typed == WildDefault(DefaultChoice.LOWEST, (CombinationType.FULL_HOUSE,))


# wild.declared: match-rules x4567，相當於34567（或45678出牌時須說明）, one example carried to
# every play by 以此類推; competition asks it only for a full house
# (與兩對牌配成三帶兩時，出牌時要說明): both read as "every ambiguous play is declared".
# huaian and online-app are silent.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", R), ("match-rules", R)],
)
def test_wild_declared(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "wild.declared", True, kind)


# ---------------------------------------------------------------------------------------------
# combinations.*.shape


# combinations.straight.shape: 五張點數相連的牌。（只限5張） / 不可超過五張 / 五張且只能五張
@pytest.mark.parametrize("slug", VARIANTS)
def test_straight_exactly_five(slug: str) -> None:
    check_kind(slug, "combinations.straight.shape", S)
    shape = variant(slug).rules.combinations.straight.shape
    assert shape is not None
    assert shape.groups == IntRange(5, 5)
    assert shape.group_size == IntRange(1, 1)
    assert shape.consecutive
    assert not shape.same_suit
    assert shape.kicker is None


# combinations.tube.shape: 三對點數相連的牌，（只限三對） / 不可超過3 對 /
# 不可以二連對…也不可以四連對
@pytest.mark.parametrize("slug", VARIANTS)
def test_tube_exactly_three_pairs(slug: str) -> None:
    check_kind(slug, "combinations.tube.shape", S)
    shape = variant(slug).rules.combinations.tube.shape
    assert shape is not None
    assert shape.groups == IntRange(3, 3)
    assert shape.group_size == IntRange(2, 2)
    assert shape.consecutive
    # 王不能參與到連對中 (huaian, online-app); jokers have no place in a sequence anywhere.
    assert shape.jokers is JokerUse.EXCLUDED


# combinations.plate.shape: 兩組點數相連的三張牌，（限定兩組） / 不可超過2個 / 兩個相連的三同張牌
@pytest.mark.parametrize("slug", VARIANTS)
def test_plate_exactly_two_triples(slug: str) -> None:
    check_kind(slug, "combinations.plate.shape", S)
    shape = variant(slug).rules.combinations.plate.shape
    assert shape is not None
    assert shape.groups == IntRange(2, 2)
    assert shape.group_size == IntRange(3, 3)
    assert shape.consecutive


# combinations.straight_flush.shape: 花色相同的順子 / 同花的五張牌，不可超過五張 /
# 五張花色相同的順子
@pytest.mark.parametrize("slug", VARIANTS)
def test_straight_flush_five_of_one_suit(slug: str) -> None:
    check_kind(slug, "combinations.straight_flush.shape", S)
    shape = variant(slug).rules.combinations.straight_flush.shape
    assert shape is not None
    assert shape.groups == IntRange(5, 5)
    assert shape.group_size == IntRange(1, 1)
    assert shape.consecutive
    assert shape.same_suit


# combinations.bomb.shape: 四張或四張以上點數相同的牌 (no limit but the deck's)
@pytest.mark.parametrize("slug", VARIANTS)
def test_bomb_four_or_more(slug: str) -> None:
    check_kind(slug, "combinations.bomb.shape", S)
    shape = variant(slug).rules.combinations.bomb.shape
    assert shape is not None
    assert shape.groups == IntRange(1, 1)
    assert shape.group_size.min == 4
    assert shape.group_size.max is None
    assert shape.jokers is JokerUse.EXCLUDED


# combinations.joker_bomb.shape: 四張王牌（兩個大王+兩個小王） / 四王 / 大小王各兩張
@pytest.mark.parametrize("slug", VARIANTS)
def test_joker_bomb_only_jokers(slug: str) -> None:
    check_kind(slug, "combinations.joker_bomb.shape", S)
    shape = variant(slug).rules.combinations.joker_bomb.shape
    assert shape is not None
    assert shape.jokers is JokerUse.ONLY
    # Four cards: two small and two big jokers.
    assert shape.groups.max is not None and shape.group_size.max is not None
    assert shape.groups.min * shape.group_size.min == 4
    assert shape.groups.max * shape.group_size.max == 4


# combinations.pair.shape: huaian/online-app 兩個大王或者兩個小王也算做對子; competition
# 兩張牌從大到小依次為：一對大王，一對小王; match-rules states the pair (對子：兩張牌點相同的牌)
# and never mentions joker pairs: read.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", S), ("online-app", S), ("competition", S), ("match-rules", R)],
)
def test_pair_allows_joker_pairs(slug: str, kind: ProvenanceKind) -> None:
    check_kind(slug, "combinations.pair.shape", kind)
    shape = variant(slug).rules.combinations.pair.shape
    assert shape is not None
    assert shape.groups == IntRange(1, 1)
    assert shape.group_size == IntRange(2, 2)
    assert shape.jokers is JokerUse.ALLOWED


# sequences.ace_low, sequences.ace_high, sequences.wrap: A2345 或者 10JQKA 是順子，JQKA2 屬不符合;
# huaian and online-app say it of every sequence (A在順子、同花順、連對和三順中…); match-rules says
# it of straights only (A、2在構成順子時…), tubes and plates read the same; competition gives
# A low and high by example, and no wrap only by the tube's bounds (最大的是aakkqq,最小的是aa2233).
@pytest.mark.parametrize(
    ("slug", "ends", "wrap"),
    [("huaian", S, S), ("online-app", S, S), ("competition", S, R), ("match-rules", R, R)],
)
def test_sequences_ace_both_ends_no_wrap(
    slug: str, ends: ProvenanceKind, wrap: ProvenanceKind
) -> None:
    check(slug, "sequences.ace_low", True, ends)
    check(slug, "sequences.ace_high", True, ends)
    check(slug, "sequences.wrap", False, wrap)


# ---------------------------------------------------------------------------------------------
# bombs.ladder


LADDER = (
    LadderStep(CombinationType.BOMB, 4),
    LadderStep(CombinationType.BOMB, 5),
    LadderStep(CombinationType.STRAIGHT_FLUSH),
    LadderStep(CombinationType.BOMB, 6),
    LadderStep(CombinationType.BOMB, 7),
    LadderStep(CombinationType.BOMB, 8),
    LadderStep(CombinationType.BOMB, 9),
    LadderStep(CombinationType.BOMB, 10),
    LadderStep(CombinationType.JOKER_BOMB),
)


# bombs.ladder: 天炸、十張炸彈…六張炸彈、同花順、五張炸彈、四張炸彈 (competition) /
# “火箭”可壓5張(含5張)以下的炸彈，六張以上的炸彈可以壓“火箭” (match-rules) state it;
# 同花順大於所有5張牌和4張牌的炸彈 (huaian, online-app) never says a six-card bomb beats it: read.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", R), ("online-app", R), ("competition", S), ("match-rules", S)],
)
def test_bomb_ladder(slug: str, kind: ProvenanceKind) -> None:
    check_kind(slug, "bombs.ladder", kind)
    assert variant(slug).rules.bombs.ladder == LADDER


def test_competition_ladder_quote() -> None:
    quote = variant("competition").clause("bombs.ladder").provenance.quote or ""
    assert "天炸、十張炸彈" in quote


# ---------------------------------------------------------------------------------------------
# compare


# compare.equal_beats: 點數大的則大 / 同張或同點時先出為大 / 必須比前一家打出的牌大
@pytest.mark.parametrize("slug", VARIANTS)
def test_equal_does_not_beat(slug: str) -> None:
    check(slug, "compare.equal_beats", False, S)


def test_competition_equal_beats_quote() -> None:
    quote = variant("competition").clause("compare.equal_beats").provenance.quote or ""
    assert "同張或同點時先出為大" in quote


# compare.full_house_key: 比較張數多的一組的點數 / 僅比較三同張的大小; competition is silent.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", S), ("online-app", S), ("competition", A), ("match-rules", S)],
)
def test_full_house_key(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "compare.full_house_key", "triple", kind)


# ---------------------------------------------------------------------------------------------
# flow


# flow.jiefeng: competition 任意一方先出完牌後…則由對家出牌（俗稱接硬底或接風）; match-rules
# 當上游出完最後一手牌後…採取對門借風方式 names only 上游: read for every finisher.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", S), ("match-rules", R)],
)
def test_jiefeng_partner(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "flow.jiefeng", "partner", kind)
    assert variant(slug).rules.flow.jiefeng is JiefengRule.PARTNER


# flow.early_end: match-rules 如果同一方的兩人爭得上游及二遊（雙下），則一局牌提前結束。
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", A), ("match-rules", S)],
)
def test_early_end(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "flow.early_end", True, kind)


# flow.first_leader: competition 誰拿到正面朝上的那張牌，誰就先出牌; match-rules
# 第一輪牌由起到抽出的牌面向上者先出牌.
@pytest.mark.parametrize(
    ("slug", "kind"),
    [("huaian", A), ("online-app", A), ("competition", S), ("match-rules", S)],
)
def test_first_leader_face_up_card(slug: str, kind: ProvenanceKind) -> None:
    check(slug, "flow.first_leader", "face_up_card", kind)


# ---------------------------------------------------------------------------------------------
# disclosure, timing


# disclosure.hand_count: match-rules 手中牌10張以下(包括10張牌)，必須主動報數; competition
# 任意一家可隨時詢問牌張數。被問家手中牌張低於6 張（含6 張）以下時，必須報告牌張數.
@pytest.mark.parametrize(
    ("slug", "hand_count"),
    [
        ("huaian", None),
        ("online-app", None),
        ("competition", HandCountRule(6, DisclosureMode.ON_REQUEST)),
        ("match-rules", HandCountRule(10, DisclosureMode.ANNOUNCE)),
    ],
)
def test_disclosure_hand_count(slug: str, hand_count: HandCountRule | None) -> None:
    raw = None
    if hand_count is not None:
        raw = {"max_cards": hand_count.max_cards, "mode": hand_count.mode.value}
    check(slug, "disclosure.hand_count", raw, A if hand_count is None else S)
    assert variant(slug).rules.disclosure.hand_count == hand_count


# timing.first_play_seconds, timing.play_seconds: competition
# 首張牌原則40秒內，以後出牌原則上20秒內。
@pytest.mark.parametrize(
    ("slug", "first", "later"),
    [
        ("huaian", None, None),
        ("online-app", None, None),
        ("competition", 40, 20),
        ("match-rules", None, None),
    ],
)
def test_timing(slug: str, first: int | None, later: int | None) -> None:
    # 原則上 (as a rule): that the times are limits is competition's reading.
    kind = A if first is None else R
    check(slug, "timing.first_play_seconds", first, kind)
    check(slug, "timing.play_seconds", later, kind)
    ruleset = variant(slug)
    # No engine operation can see a clock.
    assert not ruleset.clause("timing.first_play_seconds").observable
    assert not ruleset.clause("timing.play_seconds").observable


# ---------------------------------------------------------------------------------------------
# scoring (online-app's 歡樂豆)


# scoring.base: 一局遊戲結束，贏家方公升x級，遊戲基數等於x。
# scoring.end_bonus: 打到8結束，遊戲基數額外加5；打到a結束，遊戲基數額外加10分。
# scoring.loser_fee_sign: 失敗玩家的歡樂豆消耗：x×n+a; scoring.winner_fee_sign: 勝利玩家…x×n-a
def test_online_app_scoring() -> None:
    # x in the round that wins the match (the winners climb no further) is our reading.
    check("online-app", "scoring.base", "levels_gained", R)
    check("online-app", "scoring.end_bonus", {"8": 5, "A": 10}, S)
    check("online-app", "scoring.loser_fee_sign", 1, S)
    check("online-app", "scoring.winner_fee_sign", -1, S)
    scoring = variant("online-app").rules.scoring
    assert scoring.base == "levels_gained"
    assert dict(scoring.end_bonus) == {Rank.EIGHT: 5, Rank.ACE: 10}
    assert scoring.loser_fee_sign == 1
    assert scoring.winner_fee_sign == -1


# scoring.room_coefficient, scoring.room_fee: n=房間係數…; a=系統每盤自動**的歡樂豆數量…
def test_online_app_room_options() -> None:
    ruleset = variant("online-app")
    assert set(ruleset.options) == {"target", "room_coefficient", "room_fee", "settle"}
    coefficient = ruleset.options["room_coefficient"]
    fee = ruleset.options["room_fee"]
    assert coefficient.sets == "scoring.room_coefficient"
    assert fee.sets == "scoring.room_fee"
    assert coefficient.minimum == 1
    assert fee.minimum == 0
    assert coefficient.provenance.kind is S
    assert fee.provenance.kind is S
    room = ruleset.with_options({"room_coefficient": "3", "room_fee": 2})
    assert room.rules.scoring.room_coefficient == 3
    assert room.rules.scoring.room_fee == 2
    assert room.clause("scoring.room_coefficient").set_by_option == "room_coefficient"
    with pytest.raises(HarnessError, match="room_coefficient"):
        ruleset.with_options({"room_coefficient": 0})


# scoring.base, scoring.end_bonus: only online-app scores.
@pytest.mark.parametrize("slug", ["huaian", "competition", "match-rules"])
def test_no_scoring_elsewhere(slug: str) -> None:
    check(slug, "scoring.base", None, A)
    check(slug, "scoring.end_bonus", {}, A)
    assert variant(slug).rules.scoring.base is None


# ---------------------------------------------------------------------------------------------
# Provenance honesty, checked here without the loader's own quote search


def squash(text: str) -> str:
    """The text with every whitespace character removed."""
    return re.sub(r"\s+", "", text)


def quote_found(quote: str, text: str) -> bool:
    """Whether every `…`-separated fragment of `quote` is in `text`, in order (whitespace aside)."""
    hay = squash(text)
    fragments = [squash(f) for f in quote.split("…")]
    if not any(fragments):
        return False
    pos = 0
    for fragment in fragments:
        if not fragment:
            continue
        found = hay.find(fragment, pos)
        if found < 0:
            return False
        pos = found + len(fragment)
    return True


def source_text(source: str) -> str:
    """The rules part of a source text: spec/sources/<source>.txt up to its `rules_end`."""
    entries = yaml.safe_load((SPEC / "sources.yaml").read_text(encoding="utf-8"))["sources"]
    text = (SPEC / "sources" / f"{source}.txt").read_text(encoding="utf-8")
    end = entries[source].get("rules_end")
    if end:
        assert end in text, f"{source}: rules_end {end!r} not in the text"
        text = text[: text.index(end)]
    return text


def test_quote_found_helper() -> None:
    text = "甲乙丙\n丁 戊己"
    assert quote_found("乙丙丁", text)
    assert quote_found("甲…戊", text)
    assert not quote_found("戊…甲", text)
    assert not quote_found("乙丁", text)
    assert not quote_found("…", text)


# Every clause of every variant: stated or read ⇒ its quote is in the variant's own source
# text (read ⇒ also a reading and at least one alternative); assumed ⇒ a reason and at least
# one alternative.
@pytest.mark.parametrize("slug", VARIANTS)
def test_provenance_honesty(slug: str) -> None:
    ruleset = variant(slug)
    text = source_text(slug)
    bad: list[str] = []
    provenances = [(cid, c.provenance) for cid, c in ruleset.clauses.items()]
    provenances += [(f"options.{n}", o.provenance) for n, o in ruleset.options.items()]
    for cid, prov in provenances:
        if prov.kind in (S, R):
            if prov.source != slug:
                bad.append(f"{cid}: quotes source {prov.source!r}, not {slug!r}")
            if not (prov.place or "").strip():
                bad.append(f"{cid}: stated without a place")
            if not quote_found(prov.quote or "", text):
                bad.append(f"{cid}: quote not in spec/sources/{slug}.txt: {prov.quote!r}")
        if prov.kind is R:
            if not (prov.reading or "").strip():
                bad.append(f"{cid}: read without a reading")
            if not prov.alternatives or not all(a.strip() for a in prov.alternatives):
                bad.append(f"{cid}: read without other readings")
        elif prov.kind is A:
            if not (prov.reason or "").strip():
                bad.append(f"{cid}: assumed without a reason")
            if not prov.alternatives or not all(a.strip() for a in prov.alternatives):
                bad.append(f"{cid}: assumed without alternatives")
    assert not bad, "\n".join(bad)


def test_every_variant_states_something() -> None:
    for slug in VARIANTS:
        stated = [c for c in variant(slug).clauses.values() if c.provenance.kind is S]
        assert len(stated) >= 30, slug


# base.yaml has no source: every clause in the file is assumed, and base defines every clause.
def test_base_clauses_are_all_assumed() -> None:
    data = yaml.safe_load((VARIANTS_DIR / "base.yaml").read_text(encoding="utf-8"))
    assert "source" not in data
    found: list[str] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        for key, sub in node.items():
            cid = f"{prefix}{key}"
            if isinstance(sub, dict) and "value" in sub:
                found.append(cid)
                assert "stated" not in sub, cid
                assumed = sub.get("assumed")
                assert isinstance(assumed, dict), cid
                assert str(assumed.get("reason", "")).strip(), cid
                assert assumed.get("alternatives"), cid
            else:
                walk(sub, cid + ".")

    walk(data["rules"], "")
    assert sorted(found) == sorted(schema_clause_ids())
    base = variant("base")
    assert all(c.provenance.kind is A for c in base.clauses.values())


# ---------------------------------------------------------------------------------------------
# The schema, and the typed view against it


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SPEC / "ruleset.schema.json").read_text("utf-8"))
    return loaded


def schema_clause_ids() -> list[str]:
    """Clause ids by walking `properties` below `rules`; a clause is a `$ref` to the clause def."""
    out: list[str] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        for key, sub in node.get("properties", {}).items():
            if sub.get("$ref") == "#/$defs/clause":
                out.append(prefix + key)
            else:
                walk(sub, f"{prefix}{key}.")

    walk(schema()["properties"]["rules"], "")
    return out


def test_typed_view_matches_schema() -> None:
    ids = schema_clause_ids()
    assert len(ids) == len(set(ids))
    assert clause_ids_of_view() == ids
    for slug in VARIANTS:
        assert list(variant(slug).clauses) == ids, slug


def schema_nodes(node: Any, path: str = "#") -> list[tuple[str, Any]]:
    """Every mapping in the schema, with its JSON pointer."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        out.append((path, node))
        for key, sub in node.items():
            out.extend(schema_nodes(sub, f"{path}/{key}"))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            out.extend(schema_nodes(sub, f"{path}/{i}"))
    return out


def described(sub: Any, doc: dict[str, Any]) -> bool:
    """A property schema has a description, its own or (for a bare `$ref`) its target's."""
    if not isinstance(sub, dict):
        return False
    if str(sub.get("description", "")).strip():
        return True
    ref = sub.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and set(sub) == {"$ref"}:
        return described(doc["$defs"][ref.removeprefix("#/$defs/")], doc)
    return False


def test_every_schema_property_has_a_description() -> None:
    doc = schema()
    missing = [
        f"{path}/properties/{name}"
        for path, node in schema_nodes(doc)
        if isinstance(node.get("properties"), dict) and not path.endswith("/properties")
        for name, sub in node["properties"].items()
        if not described(sub, doc)
    ]
    assert not missing, "properties without a description:\n" + "\n".join(missing)


def test_every_object_with_properties_is_closed() -> None:
    open_nodes = [
        path
        for path, node in schema_nodes(schema())
        if node.get("type") == "object"
        and isinstance(node.get("properties"), dict)
        and not path.endswith("/properties")
        and node.get("additionalProperties") is not False
    ]
    assert not open_nodes, "objects without additionalProperties: false:\n" + "\n".join(open_nodes)


# ---------------------------------------------------------------------------------------------
# A label that cannot claim more than its quote (issue 48)

# The words of a reading. A `stated` clause's quote gives its value and no more, so its note may
# gloss the quote (a word's meaning, a word lost from the copy, what the words give by
# themselves) but never read into it: a note that reads, assumes, interprets or speaks of our
# choice belongs in a `read` provenance, whose reading the rulebook prints beside the quote.
READING = re.compile(
    r"\b(read|reads|reading|readings|we|our|ours|assumes?|assumed|assuming|assumption|"
    r"interprets?|interpreted|interpretation|presumably|taken (?:as|to)|takes? it)\b",
    re.IGNORECASE,
)


def test_the_reading_words_are_recognised() -> None:
    assert READING.search("可抗貢 is read as may resist")
    assert READING.search("base's reading is kept")
    assert READING.search("we apply the same 對門借風 to every finisher")
    assert READING.search("is our reading of 直到…出完")
    assert not READING.search("The level card (主牌) ranks between 小王 and A.")
    assert not READING.search("This copy has lost the word 炸彈 after 非")


@pytest.mark.parametrize("slug", VARIANTS)
def test_a_stated_clause_has_no_note_that_reads_into_its_quote(slug: str) -> None:
    ruleset = variant(slug)
    reading = {
        cid: " ".join(c.note.split())
        for cid, c in ruleset.clauses.items()
        if c.provenance.kind is S and c.note and READING.search(c.note)
    }
    assert reading == {}, "move these readings into `read:`"


@pytest.mark.parametrize(
    ("slug", "clause_id"),
    [
        # Each statement issue 48 found printed as stated while its value reads more into its
        # quote, with the words the value goes beyond.
        ("match-rules", "ranks.level_card.in_full_house"),  # 參謀既可以大於A，也允許…三帶二中使用
        ("match-rules", "combinations.pair.shape"),  # 對子：兩張牌點相同的牌 (no jokers named)
        ("match-rules", "combinations.full_house.shape"),  # 三帶二：三同張可以帶一對同時出
        ("match-rules", "flow.jiefeng"),  # 當上游出完最後一手牌後… (only 上游)
        ("huaian", "wild.stands_for"),  # 任意點數 (the rank only, no suit)
        ("huaian", "levels.streak.firsts"),  # 累計4次額外升2級 (two readings)
        ("huaian", "levels.streak.lasts"),
        ("online-app", "levels.streak.firsts"),
        ("online-app", "levels.streak.lasts"),
        ("online-app", "scoring.base"),  # x in the round that wins the match
        ("competition", "wild.declared"),  # 與兩對牌配成三帶兩時，出牌時要說明 (a full house only)
    ],
)
def test_the_readings_printed_as_stated_are_read(slug: str, clause_id: str) -> None:
    prov = variant(slug).clause(clause_id).provenance
    assert prov.kind is R, prov.kind
    assert prov.quote and quote_found(prov.quote, source_text(slug))
    assert (prov.reading or "").strip() and prov.alternatives
