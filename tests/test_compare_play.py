"""`guandan compare-play`: variants played on the same seeds, the differences with intervals,
and each difference attributed to the clauses that make it (issue 27, part 3)."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

import harness.simulation.comparison as compare_module
from harness.frontends.cli import main
from harness.model.derived import derive
from harness.model.loader import load_variant, load_variant_file
from harness.model.ruleset import differing_clauses
from harness.simulation.comparison import ComparisonInterrupted, compare_play, difference
from harness.simulation.records import MatchRecord, RoundRecord
from harness.simulation.run import SimulationReport, simulate
from harness.simulation.stats import (
    Z95,
    Estimate,
    mean,
    paired_difference,
    paired_ratio_difference,
)
from tests.test_stop_signals import stopped

DOUBLE_DOWN_4 = """id: huaian-dd4
extends: huaian
title: Huai'an with a double-down worth 4
title_zh: 淮安雙下四級
rules:
  levels:
    up:
      double_down: {value: 4, assumed: {reason: test, alternatives: ["3"]}}
"""


# Hand counts told at 10 or fewer: no bot asks for a count, so no match reads it.
COUNTS_TOLD = """id: huaian-counts
extends: huaian
title: Huai'an with hand counts told
title_zh: 淮安報數
rules:
  disclosure:
    hand_count:
      value: {max_cards: 10, mode: announce}
      assumed: {reason: test, alternatives: ["never told"]}
"""

# The level card in its natural place in a full house: read once per level, when the play
# rules are built (and then kept in memos by ruleset).
FULL_HOUSE_NATURAL = """id: huaian-fh
extends: huaian
title: Huai'an with the level card natural in a full house
title_zh: 淮安三帶二參謀
rules:
  ranks:
    level_card:
      in_full_house: {value: natural, assumed: {reason: test, alternatives: [above_ace]}}
"""


@pytest.fixture
def club(tmp_path: Path) -> Path:
    path = tmp_path / "huaian-dd4.yaml"
    path.write_text(DOUBLE_DOWN_4, encoding="utf-8")
    return path


def _variant_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"{text.split()[1]}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_difference_and_its_interval_by_hand() -> None:
    """5 ± 1.96 against 7 ± 3.92 (standard errors 1 and 2): 2 ± 1.96 √5."""
    base = Estimate(5.0, 5.0 - Z95, 5.0 + Z95, 30)
    other = Estimate(7.0, 7.0 - 2 * Z95, 7.0 + 2 * Z95, 20)
    found = difference(base, other)
    assert found.value == pytest.approx(2.0) and found.n == 20
    assert found.low == pytest.approx(2.0 - Z95 * 5**0.5)
    assert found.high == pytest.approx(2.0 + Z95 * 5**0.5)
    assert difference(Estimate(None, None, None, 0), other).value is None


def _round(double_down: bool) -> RoundRecord:
    """A round of 10 plays in 3 tricks, no bomb, no tribute, not at the final level."""
    return RoundRecord(
        plays=10,
        tricks=3,
        bombs=0,
        levels=("2", "2"),
        declarer=None,
        double_down=double_down,
        tribute=None,
        due=None,
        anti=None,
        at_final=False,
        failed_final=False,
        reset=False,
    )


def _match(index: int, rounds: int, winner: int = 0) -> MatchRecord:
    played = _round(double_down=False)
    return MatchRecord(
        index, 1000 + index, (played,) * rounds, winner, 0, (0, 0), (False, False), None
    )


def test_a_per_match_difference_is_paired_match_by_match() -> None:
    """Matches of 5 to 50 rounds, each one round shorter in the other variant: the paired
    difference is -1 with no spread, where the two runs' own intervals are wide; a per-round
    statistic has no pairing."""
    lengths = [5, 50, 12, 33, 8, 41, 20, 27]
    base = [_match(i, n) for i, n in enumerate(lengths)]
    other = [_match(i, n - 1) for i, n in enumerate(lengths)]
    paired = paired_difference("rounds_per_match", base, other)
    assert paired is not None and paired.n == len(lengths)
    assert paired.value == pytest.approx(-1.0)
    assert paired.low == pytest.approx(-1.0) and paired.high == pytest.approx(-1.0)
    unpaired = difference(mean([float(n) for n in lengths]), mean([n - 1.0 for n in lengths]))
    assert unpaired.low is not None and unpaired.low < -10  # the same runs, unpaired
    # Matches are paired by seed, whatever order the records come in; unmatched ones are out.
    shuffled = [*other[::-1], _match(99, 3)]
    assert paired_difference("rounds_per_match", base, shuffled) == paired
    assert paired_difference("plays_per_round", base, other) is None


def _doubles(index: int, flags: list[bool]) -> MatchRecord:
    """A match whose rounds are won by a double-down (雙下) or not, as `flags` say."""
    rounds = tuple(_round(double_down=f) for f in flags)
    return MatchRecord(index, 1000 + index, rounds, 0, 0, (0, 0), (False, False), None)


def test_a_per_round_difference_is_a_paired_ratio_worked_by_hand() -> None:
    """Double-downs 1 of 2 and 0 of 1 rounds against 2 of 2 and 1 of 3: rates 1/3 and 3/5, so
    +4/15. Per match, the error share is (x_b − 3/5 n_b)/2.5 − (x_a − 1/3 n_a)/1.5: +0.0978
    and −0.0978, whose deviation is 0.1383, so the half-width is 1.96 × 0.1383 / √2."""
    base = [_doubles(0, [True, False]), _doubles(1, [False])]
    other = [_doubles(0, [True, True]), _doubles(1, [True, False, False])]
    found = paired_ratio_difference("double_down_rate", base, other)
    assert found is not None and found.n == 2
    share = 0.8 / 2.5 - (1 / 3) / 1.5
    half = Z95 * (2 * share * share) ** 0.5 / 2**0.5
    assert found.value == pytest.approx(4 / 15)
    assert found.low == pytest.approx(4 / 15 - half) and found.high == pytest.approx(4 / 15 + half)
    assert half == pytest.approx(0.19164, abs=1e-4)
    # Runs that play every match alike differ by nothing, with no spread at all.
    same = paired_ratio_difference("double_down_rate", base, base)
    assert same == Estimate(0.0, 0.0, 0.0, 2)
    assert paired_ratio_difference("rounds_per_match", base, other) is None


def test_the_differing_clauses_of_two_variants() -> None:
    huaian, match_rules = load_variant("huaian"), load_variant("match-rules")
    found = differing_clauses([huaian, match_rules])
    assert "levels.up.double_down" in found and "deck.decks" not in found
    assert differing_clauses([huaian, huaian]) == []


@pytest.mark.slow
def test_one_differing_clause_is_the_whole_difference(club: Path) -> None:
    """Where the other variant differs in one clause, its one step is that clause, played on
    the same seeds as the other variant itself: the step's changes are the whole difference."""
    rulesets = [load_variant("huaian"), load_variant_file(club)]
    (pair,) = compare_play(rulesets, "greedy", 3, 8)
    (step,) = pair.steps
    assert (step.clause, step.value, step.refused) == ("levels.up.double_down", 4, False)
    assert step.changes == pair.changes
    assert len(pair.base.records) == len(pair.other.records) == 8
    # The same seeds: round 1 of each match is the same deal, played the same way (the level
    # a double-down gains comes after it).
    for mine, theirs in zip(pair.base.records, pair.other.records, strict=True):
        assert mine.rounds[0] == theirs.rounds[0]


def _json(changes: Mapping[str, Estimate]) -> str:
    return json.dumps({n: c.to_json() for n, c in changes.items()})


def test_a_step_no_match_read_is_not_played_and_is_what_playing_it_gives() -> None:
    """Huai'an against match-rules: each step whose clause no huaian match read is left
    unplayed, and played anyway on the same seeds it gives huaian's matches and changes equal
    to the last bit; every step whose clause a match read is played. (On these three matches
    no tribute met the anti-tribute's jokers either: `tribute.anti.single_mandatory`, read on
    other deals, is among the steps not played.)"""
    huaian = load_variant("huaian")
    started: list[str] = []
    rulesets = [huaian, load_variant("match-rules")]
    (pair,) = compare_play(rulesets, "heuristic", 2, 3, started=started.append)
    skipped = [s for s in pair.steps if s.skipped]
    played = [s for s in pair.steps if not s.skipped]
    assert skipped and played and not any(s.refused for s in pair.steps)
    assert "disclosure.hand_count" in [s.clause for s in skipped]  # no bot asks for a count
    assert len(started) == 2 + len(played)
    read = pair.base.consulted
    for step in pair.steps:
        assert step.skipped is (step.clause not in read), step.clause
    for step in skipped:
        alone = derive(huaian, {step.clause: step.value})
        assert alone is not None and alone is not huaian
        again = simulate(alone, "heuristic", 2, 3)
        assert again.records == pair.base.records, step.clause
        assert _json(compare_module._changes(pair.base, again)) == _json(step.changes)


def test_a_clause_that_is_read_is_never_skipped(tmp_path: Path) -> None:
    """A clause read only when the play rules are built, which memos keep, is read all the
    same: its step is played, and being the whole difference, it moves what the other does."""
    club = load_variant_file(_variant_file(tmp_path, FULL_HOUSE_NATURAL))
    started: list[str] = []
    (pair,) = compare_play([load_variant("huaian"), club], "greedy", 3, 4, started=started.append)
    (step,) = pair.steps
    assert step.clause == "ranks.level_card.in_full_house"
    assert step.clause in pair.base.consulted
    assert not step.skipped and len(started) == 3
    assert step.changes == pair.changes


@pytest.mark.slow
def test_every_pair_plays_each_variant_once(club: Path) -> None:
    """With `every_pair`, each variant against each later one: a variant is played once, its
    run shared by the pairs it is in, and each pair's steps are the clauses where its two
    differ (match-rules' double-down is worth 4, as the club's: no such step between them)."""
    rulesets = [load_variant("huaian"), load_variant_file(club), load_variant("match-rules")]
    started: list[str] = []
    pairs = compare_play(rulesets, "greedy", 5, 3, started=started.append, every_pair=True)
    names = [(p.base.ruleset.slug, p.other.ruleset.slug) for p in pairs]
    assert names == [("huaian", "huaian-dd4"), ("huaian", "match-rules"),
                     ("huaian-dd4", "match-rules")]  # fmt: skip
    assert pairs[0].base is pairs[1].base
    assert pairs[0].other is pairs[2].base and pairs[1].other is pairs[2].other
    assert len(started) == len(set(started))
    for pair, (first, other) in zip(pairs, [(0, 1), (0, 2), (1, 2)], strict=True):
        wanted = differing_clauses([rulesets[first], rulesets[other]])
        assert [s.clause for s in pair.steps] == wanted
    assert "levels.up.double_down" in [s.clause for s in pairs[1].steps]
    assert "levels.up.double_down" not in [s.clause for s in pairs[2].steps]


def test_the_command_records_every_pair(club: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    path = tmp_path / "c.json"
    argv = ["compare-play", "huaian", str(club), "--matches", "2", "--bots", "greedy"]
    code = main([*argv, "--seed", "2", "--every-pair", "--json", str(path), "--quiet"], out)
    assert code == 0, out.getvalue()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["command"].endswith(" --seed 2 --every-pair"), data["command"]
    assert [(p["base"], p["other"]) for p in data["pairs"]] == [("huaian", "huaian-dd4")]


def test_the_command_prints_the_steps_and_writes_json(club: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    path = tmp_path / "c.json"
    argv = ["compare-play", "huaian", str(club), "--matches", "6", "--bots", "greedy"]
    code = main([*argv, "--seed", "2", "--json", str(path), "--quiet"], out)
    assert code == 0, out.getvalue()
    text = out.getvalue()
    assert "rounds per match" in text and "levels.up.double_down = 4" in text
    assert "the steps need not add up" in text
    assert "one 95 % interval taken alone" in text  # no star is read as beyond chance
    data = json.loads(path.read_text(encoding="utf-8"))
    (pair,) = data["pairs"]
    assert (pair["base"], pair["other"]) == ("huaian", "huaian-dd4")
    rounds = pair["statistics"]["rounds_per_match"]
    assert set(rounds) == {"what", "rate", "base", "other", "difference"}
    assert (rounds["what"], rounds["rate"]) == ("rounds per match", False)
    assert set(rounds["difference"]) == {"value", "low", "high", "n"}
    assert [s["clause"] for s in pair["steps"]] == ["levels.up.double_down"]
    assert "skipped" not in pair["steps"][0]  # played: the file is as it was before skipping
    assert data["seed"] == 2 and data["matches"] == 6 and data["command"].startswith("guandan")
    # A rate is in % in both columns as beside its difference (issue 51: the columns were
    # bare numbers); a mean is a bare number everywhere.
    rows = {line.strip().split("  ")[0]: line for line in text.splitlines()}
    for stat in pair["statistics"].values():
        row = rows[stat["what"]]
        if stat["base"]["value"] is None or stat["other"]["value"] is None:
            continue
        shares = re.findall(r"\d+\.\d\d %", row.split("[")[0])
        assert len(shares) == (3 if stat["rate"] else 0), row


def test_the_command_names_a_step_not_played_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.json"
    club = _variant_file(tmp_path, COUNTS_TOLD)
    argv = ["compare-play", "huaian", str(club), "--matches", "3", "--bots", "greedy"]
    assert main([*argv, "--seed", "2", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err.count("compare-play: playing ") == 2, err  # the two variants, no step
    why = "not played: no match of huaian read disclosure.hand_count, so every match plays alike"
    assert f'disclosure.hand_count = {{"max_cards": 10, "mode": "announce"}}: {why}' in out
    assert "A step not played changes a clause that no match of the first variant read" in out
    (pair,) = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    (step,) = pair["steps"]
    assert (step["clause"], step["refused"], step["skipped"]) == (
        "disclosure.hand_count",
        False,
        why,
    )
    rounds = step["changes"]["rounds_per_match"]
    assert rounds == pair["statistics"]["rounds_per_match"]["difference"]
    assert rounds == {"value": 0.0, "low": 0.0, "high": 0.0, "n": 3}


def test_one_variant_is_a_usage_error() -> None:
    out = io.StringIO()
    code = main(["compare-play", "huaian", "--matches", "3", "--seed", "1"], out)
    assert code == 2


def _interrupting_at(monkeypatch: pytest.MonkeyPatch, stop_at: int) -> list[str]:
    """Make the `stop_at`-th run of a comparison come back interrupted (after one match), as
    `simulate` returns a run stopped by Ctrl-C; the names of the runs started, in order."""
    real = compare_module.simulate
    runs: list[str] = []

    def simulate(ruleset: object, *args: object) -> SimulationReport:
        report = real(ruleset, *args)  # type: ignore[arg-type]
        runs.append(report.ruleset.slug)
        if len(runs) == stop_at:
            del report.records[1:]
            report.interrupted = True
        return report

    monkeypatch.setattr(compare_module, "simulate", simulate)
    return runs


def test_an_interrupted_run_stops_the_comparison_with_the_whole_pairs(
    club: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped part-way (Ctrl-C) ends the comparison there: no later run is played, and
    the pairs it carries are those whose every run played every match."""
    runs = _interrupting_at(monkeypatch, 4)
    rulesets = [load_variant("huaian"), load_variant_file(club), load_variant("competition")]
    with pytest.raises(ComparisonInterrupted) as stop:
        compare_play(rulesets, "random", 3, 2)
    # huaian, the club, the club's one step on huaian; then competition, stopped.
    assert runs == ["huaian", "huaian-dd4", "huaian[levels.up.double_down=4]", "competition"]
    (pair,) = stop.value.pairs
    assert (pair.base.ruleset.slug, pair.other.ruleset.slug) == ("huaian", "huaian-dd4")
    assert len(pair.base.records) == len(pair.other.records) == 2
    assert isinstance(stop.value, KeyboardInterrupt)  # uncaught, it stops as Ctrl-C does


def test_an_interrupt_before_any_whole_pair_writes_nothing(
    club: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _interrupting_at(monkeypatch, 2)
    path = tmp_path / "c.json"
    argv = ["compare-play", "huaian", str(club), "--matches", "2", "--bots", "random"]
    assert main([*argv, "--seed", "3", "--json", str(path), "--quiet"]) == 130
    assert "interrupted, 0 pairs complete: no comparison written" in capsys.readouterr().err
    assert not path.exists()


@pytest.mark.slow
def test_the_live_line_counts_each_runs_matches(
    club: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a terminal, each run shows its matches as they end (the shards of five), under the
    line that names it; `--quiet` shows neither."""
    argv = ["compare-play", "huaian", str(club), "--matches", "7", "--bots", "random"]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main([*argv, "--seed", "3"]) == 0
    err = capsys.readouterr().err
    assert err.count("compare-play: playing ") == 3, err
    for name in ("huaian", "huaian-dd4"):
        assert f"{name}: 5/7 matches (" in err and f"{name}: 7/7 matches (" in err, err
    assert main([*argv, "--seed", "3", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_ctrl_c_in_compare_play_writes_the_pairs_complete(tmp_path: Path) -> None:
    """SIGINT while a later variant plays: exit 130, the pair complete before it printed and
    written, marked interrupted; nothing played after it."""
    (tmp_path / "huaian-dd4.yaml").write_text(DOUBLE_DOWN_4, encoding="utf-8")
    done = stopped(
        tmp_path,
        "harness.simulation.run:run_shard",
        ["compare-play", "huaian", "huaian-dd4.yaml", "competition", "--matches", "2",
         "--bots", "random", "--seed", "3", "--json", "c.json"],
        after=4,  # huaian, the club, its one step on huaian: competition's first shard
    )  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert "compare-play: interrupted, 1 pair complete" in done.stderr, done.stderr
    assert "compare-play: playing competition" in done.stderr
    assert "huaian against huaian-dd4" in done.stdout and "competition" not in done.stdout
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert data["interrupted"] is True
    assert [(p["base"], p["other"]) for p in data["pairs"]] == [("huaian", "huaian-dd4")]
