"""`guandan smoke`: a protocol self-test (協定自檢) of an engine process in a few seconds, each
violation named with the line that caused it."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

from harness.conformance.cases.case_loader import first_inputs
from harness.engine import check_engine_spec
from harness.engine.smoke_checks import Outcome, smoke
from harness.engine.trace import tracing
from harness.errors import HarnessError, UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    Subparsers,
    add_clean_env,
    add_option,
    add_trace,
    epilog,
    variant,
    variant_input,
)
from harness.model.bounds import SECONDS
from harness.wording import counted

EXAMPLE = "exec:guandan serve"


def cmd_smoke(args: argparse.Namespace, out: TextIO) -> int:
    """Run the smoke test; exit 0 when every check holds, 1 on any violation."""
    try:
        check_engine_spec(args.engine)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    if not args.engine.startswith("exec:"):
        raise UsageError(
            f"smoke checks the process protocol, which {args.engine!r} does not speak: give an "
            f"engine process, exec:COMMAND (e.g. {EXAMPLE!r}, the reference over the protocol)"
        )
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    ruleset = variant(args.variant, args.option)
    # Every option valued, as in any hello the harness sends.
    ruleset = ruleset.with_options(
        {**{n: o.default for n, o in ruleset.options.items()}, **dict(ruleset.chosen)}
    )
    inputs = first_inputs(ruleset)
    command = args.engine[len("exec:") :].strip()
    start = time.monotonic()
    with tracing(args.trace) as trace:
        checks = smoke(command, ruleset, inputs=inputs, timeout=args.timeout, trace=trace)
    seconds = time.monotonic() - start
    out.write(f"guandan smoke: {args.engine} on {ruleset.slug}\n")
    for check in checks:
        detail = f": {check.detail}" if check.detail else ""
        out.write(f"{check.outcome.value} {check.name}{detail}\n")
        if check.line:
            out.write(f"     line: {check.line}\n")
    failed = sum(c.failed for c in checks)
    passed = sum(c.outcome is Outcome.PASS for c in checks)
    verdict = "protocol OK" if not failed else counted(failed, "violation")
    out.write(f"{verdict}: {passed} passed, {failed} failed ({seconds:.1f} s)\n")
    return EXIT_FAILED if failed else EXIT_OK


def register(sub: Subparsers) -> None:
    """Add `smoke`."""
    p = sub.add_parser(
        "smoke",
        help="a protocol self-test of an engine process, in a few seconds",
        epilog=epilog(
            [
                'guandan smoke --engine "exec:node examples/engines/node/engine.js"',
                'guandan smoke --engine "exec:./my-engine" --variant competition --trace t.jsonl',
            ],
            "0 every check passed, 1 a protocol violation (each named with its line)",
        ),
    )
    p.add_argument(
        "--engine",
        required=True,
        metavar="SPEC",
        help=f"exec:COMMAND, an engine process (e.g. {EXAMPLE!r}); the reference and py: "
        "engines speak no protocol",
    )
    p.add_argument(
        "--variant",
        default="huaian",
        metavar="SLUG|FILE",
        type=variant_input,
        help="the variant the hello asks for (default huaian)",
    )
    add_option(p, "an option the hello asks for (e.g. target=8); the others at their defaults")
    add_clean_env(p)
    p.add_argument(
        "--timeout",
        type=SECONDS,
        default=5.0,
        metavar="SECONDS",
        help="seconds the engine may take to answer each line (default 5)",
    )
    add_trace(p)
    p.set_defaults(func=cmd_smoke)
