"""The `guandan` command: variants, show, validate, diff; exit statuses 0, 1 and 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from harness.frontends.cli import main

DATA = Path(__file__).parent / "data" / "variants"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(list(argv), out=out)
    return status, out.getvalue()


def test_variants_lists_the_four_sources() -> None:
    status, text = run("variants")
    assert status == 0
    slugs = [line.split()[0] for line in text.splitlines()]
    assert slugs == ["competition", "huaian", "match-rules", "online-app"]
    assert "base" not in slugs


def test_variants_json() -> None:
    status, text = run("variants", "--format", "json")
    assert status == 0
    data = json.loads(text)
    assert {d["id"] for d in data} == {"competition", "huaian", "match-rules", "online-app"}
    assert next(d for d in data if d["id"] == "huaian")["options"] == ["target"]


def test_show_competition_json_carries_the_quotes() -> None:
    status, text = run("show", "competition", "--format", "json")
    assert status == 0
    data = json.loads(text)
    limit = data["rules"]["levels"]["failures"]["limit"]
    assert limit["value"] == 3
    assert "總計三次a打不過去，退到2重打" in limit["stated"]["quote"]
    assert limit["stated"]["source"] == "competition"
    assert limit["title"] == "Failures allowed at the final level (打不過去)"


def test_show_yaml_with_an_option() -> None:
    status, text = run("show", "huaian", "--option", "target=8")
    assert status == 0
    assert "set_by_option: target" in text
    assert "chosen:\n  target: '8'" in text


def test_show_bad_option_is_a_usage_error(capsys) -> None:  # type: ignore[no-untyped-def]
    status, _ = run("show", "huaian", "--option", "target=9")
    assert status == 2
    assert "option target='9': expected one of 8, A" in capsys.readouterr().err
    status, _ = run("show", "huaian", "--option", "nonsense")
    assert status == 2


def test_diff_match_rules_competition_shows_double_down_4_against_3() -> None:
    status, text = run("diff", "match-rules", "competition")
    assert status == 0
    # Each clause is headed by its id and its title (the schema's `title`).
    block = text.split("\nlevels.up.double_down — Levels for a double-down (雙下)\n")[1]
    block = block.split("\n\n")[0]
    lines = block.splitlines()
    assert lines[0].split() == ["match-rules", "4"]
    assert "則上游方升4級" in lines[1]
    assert lines[2].split() == ["competition", "3"]
    assert "贏家公升3級" in lines[3]


def test_diff_json_lists_only_differing_clauses() -> None:
    status, text = run("diff", "huaian", "online-app", "--format", "json")
    assert status == 0
    data = json.loads(text)
    ids = {c["id"] for c in data["clauses"]}
    assert "scoring.base" in ids
    assert "levels.up.double_down" not in ids
    assert set(data["options"]) == {"room_coefficient", "room_fee", "settle"}


def test_validate_bundled_data_exits_0() -> None:
    status, text = run("validate")
    assert status == 0
    assert text.strip() == "5 files valid"


def test_validate_broken_file_exits_1_with_three_located_errors() -> None:
    status, text = run("validate", str(DATA / "broken.yaml"))
    assert status == 1
    located = [line for line in text.splitlines() if "broken.yaml:" in line]
    assert len(located) == 3
    assert text.splitlines()[-1] == "3 problems in 1 file"


def test_validate_missing_path_is_a_usage_error() -> None:
    status, _ = run("validate", "no/such/file.yaml")
    assert status == 2


def test_unknown_command_and_unknown_variant_are_usage_errors() -> None:
    assert run("frobnicate")[0] == 2
    assert run("show", "beijing")[0] == 2


def test_show_a_variant_file_by_path() -> None:
    status, text = run("show", str(DATA / "long-tubes.yaml"), "--format", "json")
    assert status == 0
    assert json.loads(text)["rules"]["levels"]["up"]["double_down"]["value"] == 5


def test_classify_in_words_marks_competitions_default() -> None:
    """wild.default: competition reads 55 77 + wild as the small full house unless declared."""
    status, text = run(
        "classify", "--variant", "competition", "--level", "7", "S5", "S5", "S7", "S7", "♥7"
    )
    assert status == 0
    lines = text.splitlines()
    assert "  full house (三帶二) of 5, 5 cards  (the reading when none is declared)" in lines
    assert "  full house (三帶二) of 7, 5 cards" in lines


def test_classify_json_has_type_rank_size() -> None:
    status, text = run(
        "classify", "--variant", "huaian", "--level", "10", "--json", "♥10", "SJ", "SQ", "SK", "SA"
    )
    assert status == 0
    rows = json.loads(text)
    assert {(r["type"], r["rank"], r["size"]) for r in rows} == {
        ("straight", "A", 5),
        ("straight_flush", "A", 5),
    }


def test_classify_no_play_and_bad_tokens() -> None:
    status, text = run("classify", "--variant", "huaian", "--level", "2", "SB", "HR")
    assert status == 0 and "no play" in text
    assert run("classify", "--variant", "huaian", "--level", "2", "X9")[0] == 2
    assert run("classify", "--variant", "huaian", "--level", "SB", "S9")[0] == 2


def test_plays_against_a_pair() -> None:
    status, text = run(
        "plays",
        "--variant",
        "match-rules",
        "--level",
        "2",
        "--previous",
        "S9 S9",
        "--json",
        "S3",
        "S3",
        "ST",
        "ST",
        "SB",
        "SB",
        "D5",
        "D5",
        "C5",
        "C5",
    )
    assert status == 0
    got = {(r["type"], r["rank"]) for r in json.loads(text)}
    assert got == {("pair", "T"), ("pair", "SB"), ("bomb", "5")}


def test_plays_with_an_ambiguous_previous_needs_a_type(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["plays", "--variant", "huaian", "--level", "2", "--previous", "S9 ST SJ SQ SK"]
    status, _ = run(*args, "DA", "DA")
    assert status == 2
    assert "--previous-type" in capsys.readouterr().err
    status, text = run(*args, "--previous-type", "straight", "C5", "C5", "D5", "D5")
    assert status == 0 and "bomb (炸彈) of 5, 4 cards" in text


def test_play_same_seed_gives_identical_json_and_a_winner(tmp_path: Path) -> None:
    """guandan play --variant competition --seed 7 --json log.json twice: identical files."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    status, text = run("play", "--variant", "competition", "--seed", "7", "--json", str(first))
    assert status == 0
    assert run("play", "--variant", "competition", "--seed", "7", "--json", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    log = json.loads(first.read_text(encoding="utf-8"))
    assert log["winner"] in (0, 1)
    for rnd in log["rounds"]:
        assert sorted(rnd["finish"]) == [0, 1, 2, 3]
        assert len(rnd["levels_after"]) == 2
    assert f"Winner: team {log['winner']}" in text
    assert "pass (不要)" in text


def test_play_summary_with_an_option() -> None:
    status, text = run(
        "play",
        "--variant",
        "huaian",
        "--option",
        "target=8",
        "--seed",
        "3",
        "--bots",
        "greedy",
        "--summary",
    )
    assert status == 0
    assert "Match: huaian (target=8), seed 3, greedy bots" in text
    assert "pass (不要)" not in text
    assert "Winner: team" in text
