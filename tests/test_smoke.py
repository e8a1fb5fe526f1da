"""`guandan smoke` (issue 24): the reference server passes every check in a few seconds, and an
engine that gets the protocol wrong fails, with a message naming the problem and the line that
shows it."""

from __future__ import annotations

import io
import shlex
import sys
import time
from pathlib import Path

import pytest
from _pytest.capture import CaptureFixture

from harness.frontends.cli import main
from harness.model.loader import load_variant, variant_slugs

PYTHON = shlex.quote(sys.executable)
SERVE = f"exec:{PYTHON} -m harness.frontends.cli serve"
BUGS = Path(__file__).parent / "engines" / "protocol_bugs.py"


def bugs(kind: str) -> str:
    """The engine spec of the protocol_bugs engine of `kind`."""
    return f"exec:{PYTHON} {shlex.quote(str(BUGS))} {kind}"


def smoke(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(["smoke", *argv], out=out)
    return status, out.getvalue()


def test_the_reference_server_passes_every_check_in_seconds() -> None:
    start = time.monotonic()
    status, text = smoke("--engine", SERVE)
    seconds = time.monotonic() - start
    assert status == 0, text
    lines = text.splitlines()
    verdicts = [line.split()[0] for line in lines[1:-1]]
    assert verdicts and set(verdicts) == {"PASS"}, text
    # Every step: the hello, each of the eight operations, a batch, malformed input, bye.
    for step in ("hello", "classify", "score", "batch of 2", "not JSON", "without its operation"):
        assert any(step in line for line in lines), (step, text)
    assert "PASS bye: answered bye" in text
    assert lines[-1].startswith("protocol OK: 14 passed, 0 failed"), text
    assert seconds < 15, seconds  # a few seconds on an idle machine


def test_a_correct_minimal_engine_passes_and_its_undeclared_operations_are_not_asked() -> None:
    status, text = smoke("--engine", bugs("ok"), "--variant", "competition")
    assert status == 0, text
    assert "on competition" in text.splitlines()[0]
    assert "PASS classify" in text and "beats" not in text, text


@pytest.mark.parametrize(
    ("kind", "step", "problem", "quoted"),
    [
        ("wrong-id", "classify", "the response has the id 101, not 1", '"id": 101'),
        ("string-id", "classify", "the id '1', a string: ids are integers", '"id": "1"'),
        ("short-batch", "batch of 2", "1 response for 2 requests", '"type": "batch"'),
        ("batch-not-list", "batch of 2", "`responses` must be a list", '"responses": {'),
        (
            "not-supported",
            "classify",
            'error kind "not_supported" is none of unsupported, invalid_input, internal',
            '"kind": "not_supported"',
        ),
        (
            "bad-output",
            "classify",
            "the classify output does not fit its schema: "
            '`readings`: expected an array, found "pair"',
            '"readings": "pair"',
        ),
        ("hello-missing", "hello", "no `name` string; no `version` string; no `operations`", ""),
        ("hello-protocol", "hello", "protocol is 2, not 1", '"protocol": 2'),
        ("crash-after-hello", "classify", "the engine exited (status 3) without answering", ""),
        # Its input closed before the next line is written: the status is waited for.
        ("slow-exit-after-hello", "classify", "the engine exited (status 3) without answering", ""),
        ("no-bye", "bye", "without answering", ""),
    ],
)
def test_a_protocol_bug_fails_naming_the_problem_and_its_line(
    kind: str, step: str, problem: str, quoted: str
) -> None:
    status, text = smoke("--engine", bugs(kind), "--timeout", "2")
    assert status == 1, text
    lines = text.splitlines()
    failures = [i for i, line in enumerate(lines) if line.startswith(f"FAIL {step}:")]
    assert failures, text
    first = failures[0]
    assert problem in lines[first], text
    if quoted:
        assert lines[first + 1].startswith("     line: {") and quoted in lines[first + 1], text
    assert "violation" in lines[-1], text


def test_an_engine_that_dies_after_its_hello_leaves_the_rest_unrun() -> None:
    status, text = smoke("--engine", bugs("crash-after-hello"))
    assert status == 1
    assert "PASS hello" in text
    assert "SKIP the rest: not run" in text and "batch" not in text, text


def test_an_engine_silent_on_a_line_that_is_not_json_fails_that_check_and_goes_on() -> None:
    status, text = smoke("--engine", bugs("silent-on-garbage"), "--timeout", "0.5")
    assert status == 1
    assert "FAIL a line that is not JSON: no answer within 0.5 s" in text, text
    assert "PASS answers again after malformed input" in text and "PASS bye" in text, text


@pytest.mark.parametrize("engine", ["reference", "py:tests.engines.pyengines:Reference"])
def test_an_engine_in_the_harness_is_a_usage_error_pointing_to_serve(
    engine: str, capsys: CaptureFixture[str]
) -> None:
    status, text = smoke("--engine", engine)
    err = capsys.readouterr().err
    assert status == 2 and text == ""
    assert "checks the process protocol" in err and "exec:guandan serve" in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["--engine", "exec:"],
        ["--engine", "exec:'open quote"],
        ["--engine", SERVE, "--timeout", "0"],
        ["--engine", SERVE, "--variant", "no-such-variant"],
    ],
)
def test_usage_errors_are_exit_2(argv: list[str], capsys: CaptureFixture[str]) -> None:
    status, text = smoke(*argv)
    capsys.readouterr()
    assert status == 2, text


def test_a_command_that_cannot_start_fails() -> None:
    status, text = smoke("--engine", "exec:/no/such/engine")
    assert status == 1
    assert "FAIL start: cannot start '/no/such/engine'" in text, text


@pytest.mark.parametrize("slug", variant_slugs())
def test_the_classify_probe_is_of_the_fewest_cards(slug: str) -> None:
    """smoke asks classify about a bundled case of the fewest cards any applicable case has,
    a single card: a skeleton that reads 1 to 3 cards answers it (issue 51)."""
    from harness.conformance.cases.case_loader import applies, first_inputs, load_cases

    ruleset = load_variant(slug)
    cases, _ = load_cases()
    sizes = [
        len(c.input["cards"])
        for c in cases
        if c.operation == "classify" and not c.expects_refusal and not c.options
        and applies(c, ruleset)
    ]  # fmt: skip
    probe = first_inputs(ruleset)["classify"]
    assert len(probe["cards"]) == min(sizes) == 1
