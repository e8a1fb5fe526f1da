"""Clause value classes (issue 25): read from the schema, only the implemented ones, and
counted by `guandan coverage`."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

from harness.conformance.cases.case_loader import load_cases
from harness.conformance.cases.coverage import measure
from harness.frontends.cli import main
from harness.model.value_classes import classes_of, value_classes

FIXTURES = Path(__file__).parent / "data" / "derived_cases"


def names(clause_id: str) -> list[str]:
    return [c.name for c in value_classes(clause_id)]


def test_an_enum_gives_each_member() -> None:
    assert names("flow.pass") == ["flow.pass=always", "flow.pass=when_unable"]
    assert [c.name for c in classes_of("flow.pass", "when_unable")] == ["flow.pass=when_unable"]


def test_an_enum_of_rank_letters_is_one_class() -> None:
    assert names("levels.start") == ["levels.start=<rank>"]
    assert names("tribute.return.max_rank") == [
        "tribute.return.max_rank=<rank>",
        "tribute.return.max_rank=null",
    ]


def test_a_boolean_gives_both_and_an_unimplemented_one_is_dropped() -> None:
    assert names("sequences.wrap") == ["sequences.wrap=true", "sequences.wrap=false"]
    assert [c.name for c in classes_of("sequences.wrap", True)] == ["sequences.wrap=true"]
    # The reference plays suits that never rank, and so refuses `true`.
    assert names("compare.suits_rank") == ["compare.suits_rank=false"]


def test_a_nullable_number_gives_a_number_and_null() -> None:
    assert names("levels.failures.limit") == [
        "levels.failures.limit=<number>",
        "levels.failures.limit=null",
    ]
    assert [c.name for c in classes_of("levels.failures.limit", 3)] == [
        "levels.failures.limit=<number>"
    ]
    assert names("levels.up.double_down") == ["levels.up.double_down=<number>"]


def test_an_object_gives_each_field_s_classes() -> None:
    assert names("disclosure.hand_count") == [
        "disclosure.hand_count=null",
        "disclosure.hand_count.max_cards=<number>",
        "disclosure.hand_count.mode=announce",
        "disclosure.hand_count.mode=on_request",
        "disclosure.hand_count.mode=always_visible",
    ]
    value = {"max_cards": 6, "mode": "always_visible"}
    assert [c.name for c in classes_of("disclosure.hand_count", value)] == [
        "disclosure.hand_count.max_cards=<number>",
        "disclosure.hand_count.mode=always_visible",
    ]
    assert [c.name for c in classes_of("disclosure.hand_count", None)] == [
        "disclosure.hand_count=null"
    ]


def test_a_set_of_names_gives_each_member_present() -> None:
    found = names("wild.excluded")
    assert "wild.excluded[straight_flush]" in found and len(found) == 10
    held = classes_of("wild.excluded", ["joker_bomb", "straight_flush"])
    assert [c.name for c in held] == ["wild.excluded[straight_flush]", "wild.excluded[joker_bomb]"]


def test_shape_features_are_those_the_interpreter_plays() -> None:
    straight = names("combinations.straight.shape")
    assert "combinations.straight.shape.groups=unbounded" in straight
    assert "combinations.straight.shape.group_size=range" in straight
    # Groups that are not consecutive come one at a time: no variable count of singles.
    single = names("combinations.single.shape")
    assert "combinations.single.shape.groups=range" not in single
    assert "combinations.single.shape.groups=fixed" in single
    # Seat roles that name nobody are refused by the registry.
    assert "tribute.lead.single=bigger_payer" not in names("tribute.lead.single")
    assert "tribute.lead.single=first" in names("tribute.lead.single")
    assert value_classes("timing.play_seconds") == ()  # prose only


def test_coverage_counts_derived_cases_and_reports_a_class_with_fewer_than_two() -> None:
    # The fixture corpus alone (the bundled one has cases for flow.pass=when_unable now).
    own, _ = load_cases([FIXTURES])
    report = measure(own)
    assert report.values["flow.pass"]["flow.pass=when_unable"] == 1
    assert ("flow.pass=when_unable", 1) in report.values_missing
    assert not report.ok
    twin = dataclasses.replace(own[0], id="twin")
    report = measure([*own, twin])
    assert report.values["flow.pass"]["flow.pass=when_unable"] == 2
    assert all(name != "flow.pass=when_unable" for name, _ in report.values_missing)
    data = report.to_json()
    assert data["values"]["flow.pass"]["flow.pass=when_unable"] == 2
    assert {"class": "sequences.wrap=true", "cases": 0} in data["values_missing"]


def test_coverage_lists_the_missing_classes() -> None:
    out = io.StringIO()
    code = main(["coverage", "--values", "--missing"], out=out)
    lines = out.getvalue().splitlines()
    listed = [line.split()[0] for line in lines[:-1]]
    assert code == (1 if listed else 0)
    cases, _ = load_cases()
    assert listed == [name for name, _ in measure(cases).values_missing]
    assert "flow.pass=when_unable" not in listed  # the corpus has cases for it
    assert "flow.pass=always" not in listed
    assert lines[-1].endswith("implemented value classes have fewer than 2 cases")
    out = io.StringIO()
    main(["coverage", "--values", "--missing", "--format", "json"], out=out)
    data = json.loads(out.getvalue())
    assert [c["class"] for c in data["classes"]] == listed
    assert data["ok"] is not bool(listed)
