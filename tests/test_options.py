"""Options, said plainly: an engine is handed every option with its value (the default where the
cases choose none), and may refuse one option's value, by `OptionRefused` (Python) or a hello
error naming the `option` (process): the cases written for that value are unsupported, the
others run, and the engine "did not start" for a variant only when it started for none of its
option sets."""

from __future__ import annotations

import importlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from harness.conformance.cases.case_loader import load_cases
from harness.conformance.running.runner import RunConfig, Status, run, select
from harness.errors import EngineErrorKind, OptionRefused
from harness.frontends.cli import main
from harness.model.loader import load_variant
from tests.conftest import PLUGIN_ARGS, repo_on_path

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
BROKEN = REPO / "tests" / "engines" / "broken.py"
TO_A_ONLY = "py:tests.engines.pyengines:ToAOnly"
CASES = {case.id: case for case in load_cases()[0]}
# Cases written for huaian's target 8, and some written for no option at all.
PATTERNS = ["settle-to-eight-*", "combo-straight-a2345-*"]


def broken(mode: str) -> str:
    """The engine spec of tests/engines/broken.py in `mode`."""
    return f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(BROKEN))} {mode}"


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`py:tests...` imports here, and in engine processes."""
    repo_on_path(monkeypatch)


def test_every_option_arrives_with_its_value() -> None:
    pyengines = importlib.import_module("tests.engines.pyengines")
    pyengines.RECORDED.clear()
    config = RunConfig(
        engine="py:tests.engines.pyengines:make_recording",
        variants=[load_variant(v) for v in ("huaian", "competition", "match-rules")],
        patterns=PATTERNS,
    )
    result = run(config)
    assert result.ok
    assert sorted(pyengines.RECORDED, key=repr) == sorted(
        [
            ("huaian", {"target": "A"}),
            ("huaian", {"target": "8"}),
            ("competition", {}),
            ("match-rules", {"passing_a": True}),
        ],
        key=repr,
    )


def test_option_refused_says_which_value() -> None:
    error = OptionRefused("target", "8", "this engine plays to A only")
    assert error.kind is EngineErrorKind.UNSUPPORTED
    assert (error.option, error.value) == ("target", "8")
    assert str(error) == "the engine does not play target='8': this engine plays to A only"


@pytest.mark.parametrize(
    ("engine", "named"),
    [
        (TO_A_ONLY, True),
        (broken("refuse-target-8"), True),
        (broken("refuse-target-8-unnamed"), False),
    ],
)
def test_a_refused_value_costs_only_its_cases(engine: str, named: bool) -> None:
    config = RunConfig(engine=engine, variants=[load_variant("huaian")], patterns=PATTERNS)
    result = run(config)
    for r in result.results:
        if CASES[r.id].options.get("target") == "8":
            assert r.status is Status.UNSUPPORTED, r
            assert "this engine plays to A only" in r.message
            assert not r.message.startswith("the engine could not start")
            assert ("target='8'" in r.message) is named
            assert "target=8" in r.message or named
        else:
            assert r.status is Status.PASS, r
    assert {r.status for r in result.results} == {Status.PASS, Status.UNSUPPORTED}
    assert result.ok
    assert result.not_started == []
    (refusal,) = result.refusals
    assert refusal.variant == "huaian" and dict(refusal.options) == {"target": "8"}
    assert refusal.option == ("target" if named else None)
    assert refusal.cases == sum(1 for r in result.results if r.status is Status.UNSUPPORTED)
    assert refusal.to_json()["cases"] == refusal.cases


def test_the_engine_did_not_start_only_when_no_option_set_started() -> None:
    """Asked only for target 8, the engine starts for no option set of huaian."""
    config = RunConfig(
        engine=TO_A_ONLY,
        variants=[load_variant("huaian"), load_variant("competition")],
        patterns=PATTERNS,
        options={},
    )
    assert run(config).not_started == []
    only_8 = RunConfig(
        engine=TO_A_ONLY,
        variants=[load_variant("huaian")],
        patterns=PATTERNS,
        options={"target": "8"},
    )
    result = run(only_8)
    assert result.not_started == ["huaian"]
    assert result.results and {r.status for r in result.results} == {Status.UNSUPPORTED}
    assert all(r.message.startswith("the engine could not start") for r in result.results)


def check(*args: str) -> tuple[int, str]:
    """`guandan check ARGS` in this process: the exit status and what it printed."""
    out = io.StringIO()
    code = main(["check", *args], out=out)
    return code, out.getvalue()


def test_the_cli_notes_a_variant_not_started_only_when_none_started() -> None:
    args = ["--engine", TO_A_ONLY, "--variant", "huaian", "-k", PATTERNS[0], "-k", PATTERNS[1]]
    code, text = check(*args)
    assert code == 0, text
    assert "did not start for huaian" not in text
    # The refusal of one value is told as such, with the cases it cost.
    assert re.search(
        r"NOTE: the engine refused huaian with target=8 \(\d+ cases? unsupported\)", text
    )
    code, text = check(*args, "--option", "target=8")
    # Every case unsupported: none failed, but nothing was judged, so the run does not pass.
    assert code == 1, text
    assert "did not start for huaian" in text
    assert "no case was judged" in text


def test_the_plugin_skips_the_cases_of_a_refused_value(guandan: pytest.Pytester) -> None:
    result = guandan.runpytest(
        *PLUGIN_ARGS,
        f"--guandan-engine={TO_A_ONLY}",
        "--guandan-variant=huaian",
        "-rs",
        "-k",
        "settle-to-eight or combo-straight-a2345",
    )
    outcomes = result.parseoutcomes()
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    config = RunConfig(engine=TO_A_ONLY, variants=[load_variant("huaian")], patterns=PATTERNS)
    chosen = select(config, list(CASES.values()))
    eight = sum(1 for item in chosen if item.options == {"target": "8"})
    assert eight and outcomes.get("skipped") == eight
    assert outcomes.get("passed") == len(chosen) - eight
    result.stdout.fnmatch_lines(["*unsupported: the engine refused huaian*plays to A only*"])
