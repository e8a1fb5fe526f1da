"""Engines modelled on real bugs (issue 22), each through `check`, `fuzz` and `fingerprint`: a
bug no clause value explains is found, once per operation it touches, and no tool names a
mutant for it; an engine playing several changed clause values is recovered value by value.
The engines are in tests/engines/realbugs.py."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from harness.frontends.cli import main
from tests.engines.realbugs import MANY, GroupedFinish

SPEC = "py:tests.engines.realbugs:{}"
# engine, the operation its bug touches, fuzz examples (a budget that finds it with seed 0; 0:
# fuzzed elsewhere).
UNEXPLAINED = [
    ("WildNeverToAce", "classify", 1000),
    ("EightCardTube", "classify", 400),
    ("LoneWildAnyRank", "classify", 200),
    # The type/value swap when following (tests/engines/pyengines.py); its fuzz run, one replay
    # finding of at most 8 actions explained by no clause, is tests/test_fuzz_shrink.py's.
    ("py:tests.engines.pyengines:SwappedFollowOrder", "replay", 0),
]


def spec_of(engine: str) -> str:
    """An engine of realbugs.py by name, or a spec as it is."""
    return engine if ":" in engine else SPEC.format(engine)


def run(*args: str) -> tuple[int, str]:
    """`guandan ARGS` in this process: exit status and what it printed."""
    out = io.StringIO()
    return main(list(args), out), out.getvalue()


def fingerprint_json(tmp_path: Path, engine: str) -> tuple[int, str, dict[str, Any]]:
    """`guandan fingerprint` of the engine on huaian: exit, text, the JSON's closest fit."""
    out = tmp_path / "fp.json"
    code, text = run(
        "fingerprint", "--engine", spec_of(engine), "--variant", "huaian",
        "--out", str(tmp_path / "fp.yaml"), "--json", str(out),
    )  # fmt: skip
    return code, text, json.loads(out.read_text(encoding="utf-8"))["fits"][0]


@pytest.mark.slow
@pytest.mark.parametrize(("engine", "operation", "examples"), UNEXPLAINED)
def test_a_bug_no_clause_explains(
    tmp_path: Path, engine: str, operation: str, examples: int
) -> None:
    """check fails it; fuzz finds it once, in its operation, explained by no clause value;
    fingerprint calls it unexplained and names no value for any clause."""
    spec = spec_of(engine)
    code, text = run("check", "--engine", spec, "--variant", "huaian")
    assert code == 1 and " 0 failed" not in text, text

    if examples:
        summary = tmp_path / "fuzz.json"
        code, text = run(
            "fuzz", "--engine", spec, "--variant", "huaian", "--operation", operation,
            "--seed", "0", "--examples", str(examples), "--out", str(tmp_path / "found"),
            "--json", str(summary), "--quiet",
        )  # fmt: skip
        assert code == 1, text
        findings = json.loads(summary.read_text(encoding="utf-8"))["findings"]
        found = [(f["operation"], f["explained_by"]) for f in findings]
        assert found == [(operation, None)], text
        assert findings[0]["verdict"] == "no clause value explains it"
        assert "no clause value explains it" in text

    code, text, fit = fingerprint_json(tmp_path, engine)
    assert code == 1, text
    verdicts = {c["verdict"] for c in fit["clauses"] if c["verdict"] != "unobserved"}
    assert verdicts == {"variant", "unexplained"}, text
    assert fit["failing"], text


@pytest.mark.slow
def test_several_clause_values_are_recovered_one_by_one(tmp_path: Path) -> None:
    """The many-clause engine: fingerprint names each changed value and nothing else, and the
    check on the variant it writes passes."""
    code, text, fit = fingerprint_json(tmp_path, "ManyClauses")
    assert code == 0, text
    found = {c["clause"]: c["value"] for c in fit["clauses"] if c["verdict"] == "mutant"}
    assert found == MANY, text
    assert not [c for c in fit["clauses"] if c["verdict"] == "unexplained"], text
    assert not [c for c in fit["clauses"] if c["equal_fits"]], text
    report = tmp_path / "check.json"
    code, text = run(
        "check", "--engine", SPEC.format("ManyClauses"), "--variant", str(tmp_path / "fp.yaml"),
        "--json", str(report),
    )  # fmt: skip
    # On the variant it plays it passes; it fails only where a case sets values back (a variant
    # derived from fp, `fp[flow.jiefeng=partner,...]`), since it plays MANY whatever it is told.
    entries = json.loads(report.read_text(encoding="utf-8"))["cases"]
    failing = [e["variant"] for e in entries if e["status"] != "pass"]
    on_fp = [e for e in entries if e["variant"] == "fp"]
    assert on_fp and all(e["status"] == "pass" for e in on_fp), text
    assert all(v.startswith("fp[") for v in failing), failing


@pytest.mark.slow
def test_fuzz_names_only_values_the_engine_plays(tmp_path: Path) -> None:
    """Fuzzing the many-clause engine's beats and settle: each finding is explained by one of
    the values it plays, one finding a value and operation."""
    summary = tmp_path / "fuzz.json"
    code, text = run(
        "fuzz", "--engine", SPEC.format("ManyClauses"), "--variant", "huaian",
        "--operation", "beats", "--operation", "settle", "--seed", "0", "--examples", "600",
        "--out", str(tmp_path / "found"), "--json", str(summary), "--quiet",
    )  # fmt: skip
    assert code == 1, text
    findings = json.loads(summary.read_text(encoding="utf-8"))["findings"]
    named = [(f["operation"], f["explained_by"]) for f in findings]
    assert ("beats", "compare.equal_beats = true") in named, text
    assert ("settle", "levels.up.double_down = 2") in named, text
    assert len(named) == len(set(named)), text
    plays = {f"{clause} = {json.dumps(value)}" for clause, value in MANY.items()}
    assert all(by in plays for _, by in named), text


@pytest.mark.slow
def test_a_correct_engine_answering_grouped_finishes_passes_everywhere(tmp_path: Path) -> None:
    """The finish of a double-down answered `[a, b, [c, d]]`, as the case README allows: check,
    fuzz (replays and whole matches) and fingerprint all find it agreeing, exit 0."""
    spec = SPEC.format("GroupedFinish")
    code, text = run("check", "--engine", spec, "--variant", "huaian")
    assert code == 0, text
    before = GroupedFinish.grouped
    code, text = run(
        "fuzz", "--engine", spec, "--variant", "huaian", "--operation", "replay",
        "--operation", "match", "--seed", "0", "--examples", "120", "--quiet",
    )  # fmt: skip
    assert code == 0 and "no discrepancy found" in text, text
    assert GroupedFinish.grouped > before  # not vacuous: some finishes were grouped
    code, text, fit = fingerprint_json(tmp_path, "GroupedFinish")
    assert code == 0 and not fit["failing"], text
    assert "(100.0 %)" in text, text


@pytest.mark.slow
def test_check_groups_failures_by_cause(tmp_path: Path) -> None:
    """The many-clause engine's failures cite a dozen clauses; check groups them under the four
    values that explain them (those on derived variants too), in the text and in the JSON
    report; `--no-explain` does not."""
    report = tmp_path / "r.json"
    code, text = run(
        "check", "--engine", SPEC.format("ManyClauses"), "--variant", "huaian",
        "--report", str(report),
    )  # fmt: skip
    assert code == 1, text
    groups = json.loads(report.read_text(encoding="utf-8"))["failures_by_clause"]
    verdicts = {g["clause"]: g["verdict"] for g in groups}
    planted = {clause: f"as if {clause} were {json.dumps(value)}" for clause, value in MANY.items()}
    for clause, said in planted.items():
        assert verdicts.get(clause) == said, groups
    # Nothing else: a case on a variant derived for it is explained with the base's cases (the
    # two-card straight case also fits "combinations.straight.shape were null" on its own).
    assert sorted(verdicts) == sorted(MANY), groups
    for clause in MANY:
        assert f"  {clause} (as if {clause} were " in text, text
    entries = json.loads(report.read_text(encoding="utf-8"))["cases"]
    failing = [e for e in entries if e["status"] == "fail"]
    assert failing and all(e["explained_by"] and e["verdict"] for e in failing)

    code, text = run(
        "check", "--engine", SPEC.format("ManyClauses"), "--variant", "huaian", "--no-explain"
    )
    assert code == 1 and "(as if" not in text, text


def test_a_failure_only_a_derived_variants_own_value_explains() -> None:
    """An engine that never reads `sequences.wrap` fails only the cases on a variant derived
    with wrapping; huaian's own mutants all set values huaian's passing cases refute, so the
    explanation is the derived variant's clause set back to huaian's own value, said so."""
    code, text = run("check", "--engine", SPEC.format("WrapUnread"), "--variant", "huaian")
    assert code == 1, text
    assert "huaian[sequences.wrap=true]" in text, text
    own = "plays huaian's own value of sequences.wrap, not the derived variant's"
    assert f"  sequences.wrap ({own})" in text, text
    assert "no clause value explains it" not in text, text


def test_check_says_when_no_clause_value_explains_a_failure() -> None:
    code, text = run("check", "--engine", SPEC.format("EightCardTube"), "--variant", "huaian")
    assert code == 1, text
    assert "combinations.tube.shape (no clause value explains it)" in text, text
    assert "verdict:  no clause value explains it" in text, text
