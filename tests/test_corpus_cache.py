"""The corpus cache: a clean case file read once is kept as JSON in the user's private cache
folder and read back exactly; an edited file, a file gone bad or one others may write is read
from its YAML again."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conformance.cases import case_loader as corpus
from harness.conformance.cases.case_loader import load_cases, read_case_file

CASE_FILE = """\
title: Cache
cases:
  - id: cache-single-five
    description: A five is a single.
    operation: classify
    clauses: [combinations.single.shape]
    input: {cards: [S5], level: "9"}
    expected:
      readings: [{type: single, rank: "5", size: 1}]
      default: {type: single, rank: "5", size: 1}
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "guandan-harness"


def test_the_whole_corpus_reads_back_the_same(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, problems = load_cases()
    assert not problems
    assert len(list(cache.glob("cases-*.json"))) == len({c.location.file for c in first})

    def unread(text: str, file: str) -> None:
        raise AssertionError(f"{file} was parsed again")

    monkeypatch.setattr(corpus, "parse_yaml", unread)
    again, problems = load_cases()
    assert not problems
    assert again == first  # ids, inputs, expected outputs, clauses, locations: everything


def test_an_edited_file_is_read_again(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE_FILE, encoding="utf-8")
    (case,), _ = read_case_file(path)
    path.write_text(CASE_FILE.replace("A five is a single.", "Five alone."), encoding="utf-8")
    (edited,), _ = read_case_file(path)
    assert (case.description, edited.description) == ("A five is a single.", "Five alone.")


def test_a_file_with_a_problem_is_not_cached(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE_FILE.replace("operation: classify", "operation: classfy"), "utf-8")
    for _ in range(2):
        cases, problems = read_case_file(path)
        assert not cases and problems
    assert not list(cache.glob("cases-*.json"))


@pytest.mark.parametrize("spoil", ["garbage", "others may write it"])
def test_a_cache_file_gone_bad_or_not_private_is_not_read(
    cache: Path, tmp_path: Path, spoil: str
) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE_FILE, encoding="utf-8")
    read_case_file(path)
    (cached,) = cache.glob("cases-*.json")
    assert not cached.stat().st_mode & 0o077
    planted = cached.read_text(encoding="utf-8").replace("A five is a single.", "Planted.")
    if spoil == "garbage":
        cached.write_text("[[{", encoding="utf-8")
    else:
        cached.write_text(planted, encoding="utf-8")
        cached.chmod(0o666)
    (case,), problems = read_case_file(path)
    assert not problems
    assert case.description == "A five is a single."


def test_mutant_killers_are_kept_and_reused_only_for_the_same_mutants(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`guandan mutate` and the site's strength page keep each mutant's killers by the variant,
    the code and the data: a second score of the same mutants tries no case and says the same;
    another set of mutants, or a kept file gone bad, is scored again."""
    from harness.conformance.oracles import mutation
    from harness.model.loader import load_variant
    from harness.model.mutants import mutants

    huaian = load_variant("huaian")
    some = list(mutants(huaian))[:6]
    chosen = [some[:5]]
    monkeypatch.setattr(mutation, "mutants", lambda ruleset: iter(chosen[0]))
    tried = [0]
    real_kills = mutation.kills

    def counted(item: mutation.Selected, mutant: mutation.Mutant) -> bool:
        tried[0] += 1
        return real_kills(item, mutant)

    monkeypatch.setattr(mutation, "kills", counted)

    def scored() -> list[dict[str, object]]:
        (score,) = mutation.mutate_variants([huaian])
        return [r.to_json() for r in score.results]

    first = scored()
    assert tried[0] > 0 and len(first) == 5
    assert len(list(cache.glob("mutant-killers-*.json"))) == 1
    tried[0] = 0
    assert scored() == first and tried[0] == 0
    chosen[0] = some  # one mutant more: the kept killers do not name it
    assert len(scored()) == 6 and tried[0] > 0
    (kept,) = cache.glob("mutant-killers-*.json")
    kept.write_text('{"not": "a list"}', encoding="utf-8")
    tried[0] = 0
    assert len(scored()) == 6 and tried[0] > 0
