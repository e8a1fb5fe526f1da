"""Counts in words: the noun is singular for one and plural otherwise, in every summary line
built from a count (`1 case:`, never `1 cases:`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from harness.frontends.cli import main
from harness.wording import counted


@pytest.mark.parametrize(
    ("n", "noun", "plural", "words"),
    [
        (0, "case", None, "0 cases"),
        (1, "case", None, "1 case"),
        (2, "case", None, "2 cases"),
        (1, "discrepancy", "discrepancies", "1 discrepancy"),
        (3, "discrepancy", "discrepancies", "3 discrepancies"),
        (1, "clause differs", "clauses differ", "1 clause differs"),
        (2, "clause differs", "clauses differ", "2 clauses differ"),
    ],
)
def test_a_count_takes_the_noun_in_its_number(
    n: int, noun: str, plural: str | None, words: str
) -> None:
    """English: one takes the singular; zero and more take the plural."""
    assert counted(n, noun, plural) == words


def test_a_number_keeps_its_format() -> None:
    """The number formatted as asked (thousands, width), the noun after it."""
    assert counted(1500, "example", spec=",") == "1,500 examples"
    assert counted(1, "example", spec=">4,") == "   1 example"


ONE_CASE = """\
title: One case
cases:
  - id: one-pair-of-nines
    description: Two nines are a pair, no wild card among them (no default reading).
    operation: classify
    clauses: [combinations.pair.shape]
    input: {cards: [S9, H9], level: "2"}
    expected:
      readings: [{type: pair, rank: "9", size: 2}]
      default: null
"""


def test_a_check_of_one_case_says_one_case(tmp_path: Path) -> None:
    """`guandan check` on a corpus of one case: `1 case: 1 passed, ... 0 errors, 0 timeouts`."""
    (tmp_path / "one.yaml").write_text(ONE_CASE, encoding="utf-8")
    out = io.StringIO()
    command = ["check", "--engine", "reference", "--variant", "huaian", "--no-derived"]
    code = main([*command, "--cases", str(tmp_path), "--no-bundled"], out)
    assert code == 0, out.getvalue()
    (summary,) = [line for line in out.getvalue().splitlines() if ": 1 case" in line]
    assert ": 1 case: 1 passed, 0 failed, 0 unsupported, 0 errors, 0 timeouts, " in summary
