"""The one judge (判定): how an engine's answer to one question is weighed against what the
reference (a case, or the interpreter) expects. `check`, the pytest plugin, `fuzz` and
`fingerprint` all judge through `judge` or `weigh`, so that they agree on what unsupported,
omitted and failing mean.

An answer is *judged* unless the engine refused the question (`unsupported`): a refusal is
neither passed nor failed. A judged answer *agrees* when it passes, plainly or with omissions
(the fields the engine declares it does not model left out); it fails when the comparison
finds a difference; an engine that errs or times out is judged and does not agree.

A case may expect a refusal instead of an answer (`{refused: invalid_input}`, for an impossible
input): the engine agrees when it answers an error of that kind; an answer given is a failure
(it accepted impossible input), another error kind is an error, and `unsupported` stays
unsupported.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.conformance.judging.outputs import compare_output, without_fields
from harness.conformance.judging.soundness import Soundness
from harness.engine import EngineError
from harness.errors import EngineErrorKind


class Status(StrEnum):
    """The outcome of one case on one engine (用例結果)."""

    PASS = "pass"
    OMITTED = "omitted"  # passed with omissions: fields the engine does not model not compared
    FAIL = "fail"
    UNSUPPORTED = "unsupported"
    ERROR = "error"
    TIMEOUT = "timeout"
    XFAIL = "xfail"
    XPASS = "xpass"
    # A case on a variant derived for it (`huaian[flow.pass=when_unable]`) that the engine does
    # not claim to play (its hello's `rulesets`): counted apart, never asked, never judged.
    NOT_APPLICABLE = "not_applicable"


BAD = frozenset({Status.FAIL, Status.ERROR, Status.TIMEOUT, Status.XPASS})
PASSED = frozenset({Status.PASS, Status.OMITTED})
"""What agrees (and what an expect-fail entry calls passing: omissions do not fail)."""


@dataclass(frozen=True)
class Judgement:
    """The judge's word on one answer (判定): the status, the answer, the differences, the
    fields not compared, a one-line message, and how long the engine took."""

    status: Status
    actual: Any = None
    differences: tuple[str, ...] = ()
    omitted: tuple[str, ...] = ()
    message: str = ""
    detail: str = ""
    seconds: float = 0.0

    @property
    def judged(self) -> bool:
        """Whether the answer counts at all: everything but a refusal (`unsupported`)."""
        return self.status is not Status.UNSUPPORTED

    @property
    def agrees(self) -> bool:
        """Whether the answer passes, plainly or with omissions."""
        return self.status in PASSED


def expects_refusal(expected: Mapping[str, Any]) -> bool:
    """Whether a case expects the engine to refuse its input (`{refused: KIND}`), not answer."""
    return "refused" in expected


def refused_as_expected(expected: Mapping[str, Any], error: EngineError) -> bool:
    """Whether `error` is the refusal the case expects (an error of the kind it names)."""
    return expects_refusal(expected) and error.kind == expected["refused"]


def weigh(
    expected: Mapping[str, Any],
    actual: Any,
    *,
    not_modelled: Sequence[str] = (),
    sound: Soundness | None = None,
    impossible: str = "",
) -> Judgement:
    """Judge an answer already given: pass, omitted (equal once the fields the engine does not
    model are left out, and one was there to leave out) or fail; an answer `sound` finds faults
    in (`soundness.soundness`: a play whose cards are not the hand's) fails too. Where the case
    expects a refusal, any answer fails: the engine accepted the impossible input (`impossible`
    says what it was, the case's description)."""
    if expects_refusal(expected):
        what = f": {impossible}" if impossible else ""
        accepted = f"the engine accepted impossible input{what}"
        # A difference as compare_output words one, so that reports show it as a diff.
        found = f'refused: expected "{expected["refused"]}", found an answer ({accepted})'
        message = f"{accepted} (expected it refused as {expected['refused']})"
        return Judgement(Status.FAIL, actual, (found,), (), message)
    wanted, omitted = without_fields(dict(expected), not_modelled)
    differences = tuple(compare_output(wanted, actual, not_modelled))
    if sound is not None and isinstance(actual, Mapping):
        differences += tuple(sound(actual))
    if differences:
        return Judgement(Status.FAIL, actual, differences, omitted, "; ".join(differences))
    if omitted:
        message = (
            f"passed with omissions: {', '.join(omitted)} not compared "
            "(the engine does not model it)"
        )
        return Judgement(Status.OMITTED, actual, (), omitted, message)
    return Judgement(Status.PASS, actual)


_KINDS = {EngineErrorKind.UNSUPPORTED: Status.UNSUPPORTED, EngineErrorKind.TIMEOUT: Status.TIMEOUT}


def judge(
    expected: Mapping[str, Any],
    answer: Callable[[], Any],
    *,
    not_modelled: Sequence[str] = (),
    sound: Soundness | None = None,
    impossible: str = "",
) -> Judgement:
    """Ask (`answer()`), then weigh the answer (`sound` and `impossible` as `weigh` takes them);
    an engine error is the pass of a case that expects that refusal, else `unsupported`,
    `timeout` or `error` by its kind, and an exception an engine raised costs only this
    question."""
    start = time.perf_counter()
    try:
        actual = answer()
    except EngineError as exc:
        seconds = time.perf_counter() - start
        if refused_as_expected(expected, exc):
            return Judgement(Status.PASS, message=f"refused: {exc.kind}", seconds=seconds)
        status = _KINDS.get(exc.kind, Status.ERROR)
        # A malformed answer is kept as the answer given, for the report to show.
        return Judgement(
            status, exc.answer, message=f"{exc.kind}: {exc}", detail=exc.detail, seconds=seconds
        )
    except Exception as exc:  # an engine's own bug must cost only this question
        message = f"the engine raised {type(exc).__name__}: {exc}"
        return Judgement(Status.ERROR, message=message, seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    found = weigh(expected, actual, not_modelled=not_modelled, sound=sound, impossible=impossible)
    return Judgement(
        found.status, actual, found.differences, found.omitted, found.message, "", seconds
    )
