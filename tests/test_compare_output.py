"""How an engine's output is compared with a case's expected output."""

from __future__ import annotations

from harness.conformance.corpus import compare_output


def test_keys_left_out_are_not_compared() -> None:
    assert compare_output({"won": True}, {"won": True, "changes": [0, 0], "state": {}}) == []
    assert (
        compare_output(
            {"state": {"levels": ["A", "5"]}}, {"state": {"levels": ["A", "5"], "failures": [1, 0]}}
        )
        == []
    )


def test_a_missing_key_is_a_difference() -> None:
    assert compare_output({"won": True}, {"changes": [0, 0]}) == [
        "won: expected true, found nothing"
    ]


def test_readings_are_a_set() -> None:
    a = {"type": "pair", "rank": "3", "size": 2}
    b = {"type": "single", "rank": "3", "size": 1}
    assert compare_output({"readings": [a, b]}, {"readings": [b, a]}) == []
    diff = compare_output({"readings": [a]}, {"readings": [a, b]})
    assert len(diff) == 1 and diff[0].startswith("readings: missing [], unexpected")


def test_plays_compare_readings_not_representative_cards() -> None:
    expected = {"plays": [{"type": "pair", "rank": "3", "size": 2}]}
    actual = {"plays": [{"type": "pair", "rank": "3", "size": 2, "cards": ["S3", "S3"]}]}
    assert compare_output(expected, actual) == []


def test_card_sets_ignore_order() -> None:
    expected = {"payments": [{"payer": 3, "receiver": 0, "cards": ["SA", "DA"]}]}
    actual = {"payments": [{"payer": 3, "receiver": 0, "cards": ["DA", "SA"]}], "leader": 3}
    assert compare_output(expected, actual) == []
    wrong = {"payments": [{"payer": 3, "receiver": 0, "cards": ["SA"]}]}
    assert compare_output(expected, wrong) != []


def test_steps_are_ordered_and_each_cut_to_its_own_keys() -> None:
    expected = {"steps": [{"legal": True, "next": 1}, {"legal": True, "out": 1}]}
    actual = {"steps": [{"legal": True, "next": 1, "out": 0}, {"legal": True, "next": 2, "out": 1}]}
    assert compare_output(expected, actual) == []
    swapped = {"steps": list(reversed(actual["steps"]))}
    assert compare_output(expected, swapped) != []


def test_counts_are_compared_whole() -> None:
    """A seat told that should not be, or one left out, is a difference."""
    expected = {"steps": [{"legal": True, "counts": {}}, {"legal": True, "counts": {"0": 5}}]}
    assert (
        compare_output(
            expected,
            {"steps": [{"legal": True, "counts": {}}, {"legal": True, "counts": {"0": 5}}]},
        )
        == []
    )
    told = {"steps": [{"legal": True, "counts": {"2": 9}}, {"legal": True, "counts": {"0": 5}}]}
    assert compare_output(expected, told) == ['steps[0].counts: expected {}, found {"2": 9}']
    later = {"steps": [{"legal": True, "counts": {}}, {"legal": True, "counts": {"0": 5, "1": 4}}]}
    assert compare_output(expected, later) != []


def test_words_are_not_compared() -> None:
    assert compare_output({"won": False, "events": ["x"]}, {"won": False, "events": ["y"]}) == []


def test_not_an_object() -> None:
    assert compare_output({"beats": True}, ["beats"]) == ['expected an object, found ["beats"]']


def test_a_finish_may_group_seats_that_never_went_out() -> None:
    """[0, 2, [1, 3]]: 0 then 2 went out; 1 and 3 never did, and may come in either order."""
    expected = {"finish": [0, 2, [1, 3]], "over": True}
    assert compare_output(expected, {"finish": [0, 2, 1, 3], "over": True}) == []
    assert compare_output(expected, {"finish": [0, 2, 3, 1], "over": True}) == []
    assert compare_output(expected, {"finish": [2, 0, 1, 3], "over": True}) != []
    assert compare_output(expected, {"finish": [0, 1, 2, 3], "over": True}) != []
    assert compare_output({"finish": [0, 2, 1, 3]}, {"finish": [0, 2, 3, 1]}) != []
