"""The process protocol: the documented transcript is what `guandan serve` answers, and every
message in it is valid under spec/protocol.schema.json."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from harness.engine import Engine
from harness.engine.process import ProcessEngine
from harness.engine.server import serve
from harness.frontends.cli import main
from harness.interpreter.operations import run_operation
from harness.model.loader import load_variant
from tests.conftest import slow_but

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "spec" / "protocol.md").read_text(encoding="utf-8")


def transcript() -> list[tuple[str, str]]:
    block = DOC.split("## A worked transcript")[1].split("```")[1]
    lines = [x for x in block.splitlines() if x[:2] in ("> ", "< ")]
    sent = [x[2:] for x in lines if x.startswith("> ")]
    got = [x[2:] for x in lines if x.startswith("< ")]
    assert len(sent) == len(got) > 4
    return list(zip(sent, got, strict=True))


def validator() -> jsonschema.protocols.Validator:
    protocol = json.loads((ROOT / "spec" / "protocol.schema.json").read_text(encoding="utf-8"))
    cases = json.loads((ROOT / "spec" / "case.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resources(
        [(s["$id"], Resource.from_contents(s)) for s in (protocol, cases)]
    )
    jsonschema.Draft202012Validator.check_schema(protocol)
    return jsonschema.Draft202012Validator(protocol, registry=registry)


def test_the_documented_transcript_is_what_serve_answers() -> None:
    pairs = transcript()
    out = io.StringIO()
    serve(None, io.StringIO("\n".join(s for s, _ in pairs) + "\n"), out)
    answers = out.getvalue().splitlines()
    assert [json.loads(a) for a in answers] == [json.loads(g) for _, g in pairs]


def test_every_transcript_message_is_valid() -> None:
    """Every message but the deliberately malformed request (a card X9), which is rejected."""
    check = validator()
    for sent, got in transcript():
        for line in (sent, got):
            errors = list(check.iter_errors(json.loads(line)))
            if '"X9"' in line and line is sent:
                assert errors, "the schema should reject the card X9"
            else:
                assert not errors, (line, errors[0].message)


def test_the_schema_rejects_a_malformed_request() -> None:
    check = validator()
    bad = {"type": "request", "id": 1, "operation": "classify", "input": {"cards": "S3"}}
    assert list(check.iter_errors(bad))
    assert list(check.iter_errors({"type": "request", "id": 1, "operation": "guess", "input": {}}))


def test_serve_refuses_another_variant_and_asks_for_hello_first() -> None:
    out = io.StringIO()
    lines = [
        {"type": "request", "id": 1, "operation": "classify", "input": {}},
        {"type": "hello", "protocol": 1, "variant": "huaian"},
        "not json",
        {"type": "bye"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    serve("competition", io.StringIO(text), out)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert answers[0] == {"type": "error", "message": "say hello first"}
    assert answers[1]["type"] == "error" and "competition" in answers[1]["message"]
    assert answers[2] == {"type": "error", "message": "not JSON"}
    assert answers[3] == {"type": "bye"}


def test_process_engine_over_serve_answers_every_operation() -> None:
    # This interpreter, not whichever `python` the PATH finds first (a venv not activated).
    command = f"{shlex.quote(sys.executable)} -m harness.frontends.cli serve"
    engine = ProcessEngine(command, load_variant("match-rules"), 20)
    try:
        assert isinstance(engine, Engine)
        info = engine.describe()
        assert info.variant == "match-rules" and "replay" in info.operations
        assert engine.beats(  # type: ignore[attr-defined]
            {
                "play": {"type": "pair", "rank": "3", "size": 2},
                "previous": {"type": "pair", "rank": "2", "size": 2},
                "level": "9",
            }
        ) == {"beats": True}
        settled = engine.settle(  # type: ignore[attr-defined]
            {"state": {"levels": ["2", "2"], "declarer": None}, "finish": [0, 2, 1, 3]}
        )
        assert settled["state"]["levels"] == ["6", "2"]  # match-rules: 雙下 升4級
        answers = engine.batch(
            [("score", {"winner": 1, "levels_gained": 4, "final_level": "A", "match_over": True})]
            * 3
        )
        assert [a["output"] for a in answers] == [{"base": None, "amounts": None}] * 3
    finally:
        engine.close()


@pytest.mark.parametrize(
    "slug", slow_but(["huaian", "competition", "match-rules", "online-app"], "competition")
)
def test_the_reference_over_its_own_protocol_passes_the_whole_corpus(slug: str) -> None:
    """Issue 23: `guandan check --engine "exec:guandan serve --variant V"`: every case passes,
    the 27-card `legal_actions` answers of about 1 MiB included (the old 1 MiB line limit failed
    them as protocol errors)."""
    command = f"exec:{shlex.quote(sys.executable)} -m harness.frontends.cli serve --variant {slug}"
    out = io.StringIO()
    # Each derived variant starts an engine of its own (its hello names it): they cross the
    # protocol in the test below, on a few clauses, rather than here, hundreds of times.
    code = main(["check", "--engine", command, "--variant", slug, "--no-derived"], out)
    assert code == 0, out.getvalue()
    assert " 0 failed, 0 unsupported, 0 errors, 0 timeouts" in out.getvalue(), out.getvalue()


@pytest.mark.slow
def test_the_reference_over_its_own_protocol_plays_derived_variants() -> None:
    """The reference server started for huaian plays the variants derived from it by the
    clauses their hellos send: every wild.default case on huaian[wild.default=...] passes."""
    command = f"exec:{shlex.quote(sys.executable)} -m harness.frontends.cli serve --variant huaian"
    out = io.StringIO()
    argv = ["check", "--engine", command, "--variant", "huaian", "--clause", "wild.default"]
    code = main([*argv, "--verbose"], out)
    assert code == 0, out.getvalue()
    assert " 0 failed, 0 unsupported, 0 errors, 0 timeouts" in out.getvalue(), out.getvalue()
    assert "[huaian[wild.default.applies_to=" in out.getvalue()


# A legal 27-card hand (two wild cards, four of each rank from 8 to K): its legal_actions answer
# is 13,415 actions, about 1.5 MB on one line.
BIG_HAND = ["H2", "H2", *(s + r for r in "89TJQK" for s in "SCDH"), "SA"]


def test_the_largest_answers_cross_the_protocol() -> None:
    """Issue 23: a line limit of 1 MiB was below the reference's own answer to a legal hand."""
    ruleset = load_variant("huaian")
    data = {"hand": BIG_HAND, "level": "2"}
    expected = run_operation("legal_actions", data, ruleset)
    assert len(json.dumps(expected)) > 1 << 20  # the answer is past the old limit
    command = f"{shlex.quote(sys.executable)} -m harness.frontends.cli serve --variant huaian"
    engine = ProcessEngine(command, ruleset, 60)
    try:
        assert engine.answer("legal_actions", data) == expected
    finally:
        engine.close()
