"""How an engine's output is compared with a case's expected output."""

from __future__ import annotations

import pytest

from harness.conformance.cases.case_loader import compare_output
from harness.conformance.judging.judge import weigh
from harness.conformance.judging.outputs import project, step_differences, without_fields


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
    actual = {
        "steps": [{"legal": True, "next": 1, "rule": "x"}, {"legal": True, "next": 2, "out": 1}]
    }
    assert compare_output(expected, actual) == []
    swapped = {"steps": list(reversed(actual["steps"]))}
    assert compare_output(expected, swapped) != []


def test_a_listed_step_without_out_or_lead_says_there_is_none() -> None:
    """Absent `out`/`lead` in an expected step: the engine's step must not carry them."""
    expected = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 2, "out": 1}]}
    stray = {"steps": [{"legal": True, "next": 1, "out": 0}, {"legal": True, "next": 2, "out": 1}]}
    assert compare_output(expected, stray) == ["steps[0].out: expected none, found 0"]
    led = {"steps": [{"legal": True, "next": 1, "lead": 3}, {"legal": True, "next": 2, "out": 1}]}
    assert compare_output(expected, led) == ["steps[0].lead: expected none, found 3"]
    lost = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 2}]}
    assert compare_output(expected, lost) == ["steps[1].out: expected 1, found nothing"]
    wrong = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 2, "out": 3}]}
    assert compare_output(expected, wrong) == ["steps[1].out: expected 1, found 3"]


def test_a_listed_step_without_told_says_nothing_was_told() -> None:
    """`told` follows an ask only: on another listed step it is a difference; null is a value."""
    expected = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 1, "told": None}]}
    right = {"steps": [{"legal": True, "next": 1}, {"legal": True, "next": 1, "told": None}]}
    assert compare_output(expected, right) == []
    stray = {"steps": [{"legal": True, "next": 1, "told": 5}, {"legal": True, "next": 1}]}
    assert compare_output(expected, stray) == [
        "steps[0].told: expected none, found 5",
        "steps[1].told: expected null, found nothing",
    ]


def test_steps_not_listed_and_fields_not_modelled_are_not_compared() -> None:
    """Absence means none only in a listed step, and never for a field the engine omits."""
    unlisted = {"steps": [{"legal": True, "out": 0}], "over": False}
    assert compare_output({"over": False}, unlisted) == []
    expected = {"steps": [{"legal": True}]}
    actual = {"steps": [{"legal": True, "out": 0, "lead": 0}]}
    assert compare_output(expected, actual, ("out", "lead")) == []
    assert compare_output(expected, actual, ("out",)) == ["steps[0].lead: expected none, found 0"]
    assert weigh(expected, actual, not_modelled=("out", "lead")).agrees
    assert step_differences({"legal": True}, {"legal": True, "out": 2}) == [
        "steps[0].out: expected none, found 2"
    ]


def test_project_keeps_the_fields_whose_absence_is_compared() -> None:
    """An answer projected on an expectation is compared as that expectation would compare it."""
    expected = {"steps": [{"legal": True}]}
    actual = {"steps": [{"legal": True, "next": 1, "out": 0}], "over": False}
    assert project(actual, expected) == {"steps": [{"legal": True, "out": 0}]}
    assert compare_output(project(actual, expected), actual) == []


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


def test_an_engine_may_answer_a_finish_in_the_grouped_form() -> None:
    """The case README's grouped form (`[0, 2, [1, 3]]`) is an answer too: a group where the
    expected output has one of the same seats, in any order; never where an order is expected."""
    expected = {"finish": [0, 2, [1, 3]], "over": True}
    assert compare_output(expected, {"finish": [0, 2, [1, 3]], "over": True}) == []
    assert compare_output(expected, {"finish": [0, 2, [3, 1]], "over": True}) == []
    assert compare_output(expected, {"finish": [0, 2, [3], [1]], "over": True}) == []
    assert compare_output(expected, {"finish": [0, 1, [2, 3]], "over": True}) != []
    assert compare_output(expected, {"finish": [0, [2, 1, 3]], "over": True}) != []
    assert compare_output(expected, {"finish": [[0, 2], 1, 3], "over": True}) != []
    assert compare_output({"finish": [0, 2, 3, 1]}, {"finish": [0, 2, [3, 1]]}) == [
        "finish: expected [0, 2, 3, 1], found [0, 2, [3, 1]]"
    ]


# ---------------------------------------------------------------------------------------------
# Multisets: order free, duplicates count

PAIR_3 = {"type": "pair", "rank": "3", "size": 2}
SINGLE_3 = {"type": "single", "rank": "3", "size": 1}


def test_a_reading_listed_twice_is_a_difference() -> None:
    """The same reading twice is not the same answer as the reading once, in either direction."""
    diff = compare_output({"readings": [PAIR_3]}, {"readings": [PAIR_3, PAIR_3]})
    assert diff == [
        'readings: {"rank": "3", "size": 2, "type": "pair"} listed 2 times, expected once'
    ]
    diff = compare_output({"readings": [PAIR_3, PAIR_3]}, {"readings": [PAIR_3]})
    assert diff == [
        'readings: {"rank": "3", "size": 2, "type": "pair"} listed once, expected 2 times'
    ]


def test_a_duplicate_is_told_beside_what_is_missing_and_unexpected() -> None:
    pair_4 = {"type": "pair", "rank": "4", "size": 2}
    diff = compare_output({"readings": [PAIR_3, SINGLE_3]}, {"readings": [PAIR_3, PAIR_3, pair_4]})
    assert len(diff) == 1
    assert diff[0].startswith("readings: missing [{")
    assert '"rank": "4"' in diff[0].split("unexpected")[1]
    assert "listed 2 times, expected once" in diff[0]


def test_multisets_are_order_free_and_equal_counts_agree() -> None:
    expected = {"readings": [PAIR_3, SINGLE_3, PAIR_3]}
    assert compare_output(expected, {"readings": [SINGLE_3, PAIR_3, PAIR_3]}) == []
    assert compare_output(expected, {"readings": [SINGLE_3, PAIR_3]}) != []


def test_plays_listing_one_reading_twice_fail_though_their_cards_differ() -> None:
    """Representative cards are cut away before comparing, so two plays of one reading are one
    reading listed twice."""
    expected = {"plays": [PAIR_3]}
    actual = {"plays": [{**PAIR_3, "cards": ["S3", "S3"]}, {**PAIR_3, "cards": ["H3", "D3"]}]}
    assert compare_output(expected, actual) == [
        'plays: {"rank": "3", "size": 2, "type": "pair"} listed 2 times, expected once'
    ]


@pytest.mark.parametrize("key", ["payments", "returns"])
def test_payments_and_returns_are_multisets(key: str) -> None:
    one = {"payer": 3, "receiver": 0} if key == "payments" else {"giver": 0, "receiver": 3}
    assert compare_output({key: [one]}, {key: [one, one]}) != []
    assert compare_output({key: [one, one]}, {key: [one, one]}) == []


def test_cards_are_multisets() -> None:
    expected = {"payments": [{"payer": 3, "receiver": 0, "cards": ["SA", "DA"]}]}
    doubled = {"payments": [{"payer": 3, "receiver": 0, "cards": ["DA", "SA", "SA"]}]}
    diff = compare_output(expected, doubled)
    assert diff == [
        'payments: missing [{"cards": ["DA", "SA"], "payer": 3, "receiver": 0}], '
        'unexpected [{"cards": ["DA", "SA", "SA"], "payer": 3, "receiver": 0}]'
    ]
    two_copies = {"returns": [{"giver": 0, "receiver": 3, "cards": ["S4", "S4"]}]}
    assert compare_output(two_copies, two_copies) == []
    assert compare_output(two_copies, {"returns": [{"giver": 0, "receiver": 3, "cards": ["S4"]}]})


def test_ordered_lists_keep_their_order() -> None:
    assert compare_output({"changes": [2, 0]}, {"changes": [0, 2]}) != []


# ---------------------------------------------------------------------------------------------
# Fields an engine does not model


def test_without_fields_cuts_a_name_at_any_depth_and_says_which_were_there() -> None:
    expected = {
        "steps": [{"legal": True, "counts": {}}, {"legal": True, "next": 2}],
        "over": False,
        "counts": {"0": 5},
    }
    cut, found = without_fields(expected, ["counts", "told"])
    assert cut == {"steps": [{"legal": True}, {"legal": True, "next": 2}], "over": False}
    assert found == ("counts",)
    assert expected["steps"][0] == {"legal": True, "counts": {}}  # the case is left as it was
    assert without_fields(expected, ["told"]) == (expected, ())
    assert without_fields(expected, []) == (expected, ())


def test_without_fields_never_reads_the_seats_of_counts_as_fields() -> None:
    expected = {"steps": [{"counts": {"next": 3}}]}  # not a real count, a key spelt like a field
    assert without_fields(expected, ["next"]) == (expected, ())


def test_omitted_fields_are_not_compared() -> None:
    expected = {"state": {"levels": ["8", "3"], "failures": [1, 0]}, "won": False}
    actual = {"state": {"levels": ["8", "3"]}, "won": False}
    assert compare_output(expected, actual) == ["state.failures: expected [1, 0], found nothing"]
    assert compare_output(expected, actual, omit=["failures"]) == []
    wrong = {"state": {"levels": ["9", "3"]}, "won": False}
    assert compare_output(expected, wrong, omit=["failures"]) == [
        'state.levels[0]: expected "8", found "9"'
    ]


def test_an_answer_as_written_agrees_without_sorting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The common case (issue 49): an answer equal to the expected output, lists in the same
    order, is settled without canonical forms; one in another order takes the long way."""
    from harness.conformance.judging import outputs as compare

    expected = {"readings": [{"type": "pair", "rank": "3", "size": 2}], "default": None}
    sorted_ = []
    canon = compare._canon
    monkeypatch.setattr(compare, "_canon", lambda *a: sorted_.append(a) or canon(*a))
    assert compare_output(expected, {**expected, "extra": 1}) == []
    assert sorted_ == []
    two = [{"type": "pair", "rank": "3", "size": 2}, {"type": "single", "rank": "3", "size": 1}]
    assert compare_output({"readings": two}, {"readings": two[::-1]}) == []
    assert sorted_


def test_values_equal_in_python_but_not_in_json_are_told_apart_as_before() -> None:
    """1 == True in Python; in a multiset they are different elements, as JSON has them."""
    assert compare_output({"cards": [True, 0]}, {"cards": [1, False]}) != []
    assert compare_output({"beats": True}, {"beats": 1}) == []  # a scalar compared by ==
