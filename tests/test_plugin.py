"""The pytest plugin (`-p harness.conformance.pytest_plugin --guandan-engine=SPEC
--guandan-variant=V`): the corpus as tests named by case id, the property tests, and what
happens without its options.

Each run is a pytest session of its own (pytester). Plugins are not autoloaded in it: where the
package is installed, its `pytest11` entry point would register the plugin a second time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings

from harness.conformance.oracles.fuzz.targets import TARGETS
from harness.conformance.pytest_plugin import _property_settings
from tests.conftest import PLUGIN_ARGS

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
PLUGIN = (*PLUGIN_ARGS, "--guandan-examples=10")
IRREFLEXIVE = "property-beats-irreflexive-asymmetric"


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Test name → outcome (passed, failed, skipped) of a run's test calls and setups."""
    found = {}
    for report in result.reprec.getreports("pytest_runtest_logreport"):  # type: ignore[attr-defined]
        name = report.nodeid.rsplit("::", 1)[-1]
        if report.when == "call" or report.outcome != "passed":
            found[name] = report.outcome
    return found


@pytest.mark.slow
def test_reference_passes_cases_and_properties(guandan: pytest.Pytester) -> None:
    result = guandan.runpytest(
        *PLUGIN,
        "--guandan-engine=reference",
        "--guandan-variant=huaian",
        "--guandan-examples=5",
        "-k",
        "combo-straight or property",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    found = outcomes(result)
    cases = [name for name in found if not name.startswith("property-")]
    properties = sorted(name for name in found if name.startswith("property-"))
    assert cases, "-k combo-straight selected no case"
    assert all(name.startswith("combo-straight") for name in cases), cases
    assert "[" not in "".join(cases)  # named by case id alone
    assert properties == sorted(
        f"property-{name}"
        for name in (
            "card-order",
            "suit-renaming",
            "beats-irreflexive-asymmetric",
            "legal-plays-classify",
            *(f"fuzz-{target}" for target in TARGETS),
        )
    )
    assert set(found.values()) == {"passed"}
    result.assert_outcomes(passed=len(found), deselected=result.parseoutcomes()["deselected"])
    assert result.parseoutcomes()["deselected"] > 0  # -k left the rest of the corpus out


# Hypothesis would shrink the failing example of a broken property, which costs seconds and
# proves nothing here.
NO_SHRINK = """
from hypothesis import Phase, settings

settings.register_profile("no-shrink", phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile("no-shrink")
"""


def run_wrong_beats(guandan: pytest.Pytester, spec: str) -> pytest.RunResult:
    """A session of its own (a process: the hypothesis profile is global) on `spec`."""
    guandan.makeconftest(NO_SHRINK)
    return guandan.runpytest_subprocess(
        *PLUGIN,
        "-v",
        f"--guandan-engine={spec}",
        "--guandan-variant=huaian",
        "-k",
        f"combo-straight or {IRREFLEXIVE}",
    )


def check_wrong_beats(result: pytest.RunResult) -> None:
    """Only the property fails: classify is the reference's own, so the cases pass."""
    text = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, text
    counts = result.parseoutcomes()
    assert counts.get("failed") == 1, text
    assert counts.get("passed", 0) >= 1, text
    # The failure names the reading (hypothesis's own header differs between its versions).
    result.stdout.fnmatch_lines([f"*::{IRREFLEXIVE} FAILED*", "*beats itself at level*"])
    result.stdout.no_fnmatch_line("*::combo-straight* FAILED*")


def test_a_property_runs_under_the_profile_loaded_when_it_runs() -> None:
    """The profile a session's conftest loads after the plugin is imported governs its
    properties (its phases, its verbosity), less the explain phase; the plugin's own examples
    and health checks are added to it."""
    before = settings._current_profile
    assert before is not None
    assert Phase.shrink in _property_settings(7).phases
    assert Phase.explain not in _property_settings(7).phases
    settings.register_profile(
        "plugin-test-quiet",
        phases=[Phase.explicit, Phase.generate, Phase.shrink, Phase.explain],
        verbosity=Verbosity.quiet,
        suppress_health_check=[HealthCheck.data_too_large],
    )
    settings.load_profile("plugin-test-quiet")
    try:
        found = _property_settings(7)
    finally:
        settings.load_profile(before)
    assert tuple(found.phases) == (Phase.explicit, Phase.generate, Phase.shrink)
    assert found.verbosity is Verbosity.quiet
    assert found.max_examples == 7 and found.deadline is None and found.database is None
    assert {HealthCheck.data_too_large, HealthCheck.filter_too_much} <= set(
        found.suppress_health_check
    )


@pytest.mark.slow
def test_inverted_beats_fails_the_property(guandan: pytest.Pytester) -> None:
    check_wrong_beats(run_wrong_beats(guandan, "py:tests.engines.pyengines:make_wrong_beats"))


@pytest.mark.slow
def test_inverted_beats_fails_the_property_engine_class(guandan: pytest.Pytester) -> None:
    """The same bug as an engine class; the failure shows the property, the input and none of
    the plugin's internals."""
    result = run_wrong_beats(guandan, "py:tests.engines.pyengines:WrongBeats")
    check_wrong_beats(result)
    text = result.stdout.str()
    assert f"{IRREFLEXIVE}: beats is irreflexive and asymmetric" in text
    assert "beats itself at level" in text
    assert "Falsifying example" in text or "Failing test case" in text
    assert "pytest_plugin.py" not in text and "Traceback" not in text


@pytest.mark.parametrize("extra", [(), ("--guandan-variant=huaian",)])
def test_without_engine_the_plugin_adds_nothing(
    guandan: pytest.Pytester, extra: tuple[str, ...]
) -> None:
    result = guandan.runpytest(*PLUGIN, *extra)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*collected 0 items*"])


def test_engine_without_variant_is_a_usage_error(guandan: pytest.Pytester) -> None:
    result = guandan.runpytest(*PLUGIN, "--guandan-engine=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--guandan-engine needs --guandan-variant*"])


def test_a_correct_partial_engine_passes_with_its_properties_skipped(
    guandan: pytest.Pytester,
) -> None:
    """Classify for one to three cards only: the cases and the properties it cannot answer are
    skipped (an undeclared operation, or an input it refuses), and none fails."""
    result = guandan.runpytest(
        *PLUGIN,
        "-rs",
        "--guandan-engine=py:tests.engines.pyengines:SmallClassifier",
        "--guandan-variant=huaian",
        "-k",
        "combo-straight or combo-pair or property",
    )
    text = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, text
    found = outcomes(result)
    assert found["property-card-order"] == "passed"  # its bigger sets were dropped, not failed
    assert found[IRREFLEXIVE] == "skipped"
    assert "unsupported: the engine does not declare legal_plays, beats" in text
    assert "failed" not in result.parseoutcomes()
