"""`guandan fuzz`: differential fuzzing (差分模糊測試) of an engine against the reference
interpreter, every operation, each discrepancy shrunk and written as a ready-to-check case."""

from __future__ import annotations

import argparse
import io
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from harness.conformance.reporting.run_reports import variant_spec
from harness.conformance.running.results import json_text
from harness.engine import check_engine_spec
from harness.engine.trace import tracing
from harness.errors import HarnessError, OutputError, UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Subparsers,
    add_clean_env,
    add_option,
    add_output,
    add_trace,
    epilog,
    output_folder,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.frontends.cli._progress import LiveLine, add_quiet
from harness.frontends.cli._style import paint_fuzz
from harness.frontends.cli._workers import add_workers, workers
from harness.model.bounds import COUNT, SECONDS, SEED
from harness.model.diagnostics import safe_text
from harness.wording import counted

if TYPE_CHECKING:
    from harness.conformance.oracles.fuzz.driver import FuzzReport

# The fuzz machinery (hypothesis among it) is imported when `fuzz` runs, not with every
# `guandan` command: the main job starts faster.
OPERATIONS = "classify, beats, legal_plays, legal_actions, tribute, settle, score, replay, match"


MAX_DURATION = 7 * 86_400.0
"""The longest `--time` a fuzz run takes: a week."""


def parse_duration(text: str) -> float:
    """`60`, `60s`, `5m` or `1h` as seconds, above 0 and at most a week; anything else is a
    usage error."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    seconds = 0.0
    if match:
        seconds = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    if not 0 < seconds <= MAX_DURATION:
        raise UsageError(
            f"--time {safe_text(text)!r}: expected a duration above 0 and at most a week, "
            "e.g. 60s, 5m or 1h"
        )
    return seconds


def progress_line(report: FuzzReport, examples: int) -> str:
    """The live line: examples, rate, and discrepancies by operation."""
    rate = examples / report.seconds if report.seconds else 0.0
    found = report.by_operation()
    ops = " · ".join(f"{op} {found.get(op, 0)}" for op in report.info.operations)
    return f"fuzz: {counted(examples, 'example', spec=',')} ({rate:,.0f}/s) · found: {ops}"


def cmd_fuzz(args: argparse.Namespace, out: TextIO) -> int:
    """Fuzz an engine; exit 1 when a discrepancy (or an engine failure) was found, 130 when
    stopped by Ctrl-C before finding any."""
    with tracing(args.trace):
        return _fuzz(args, out)


def _fuzz(args: argparse.Namespace, out: TextIO) -> int:
    """`cmd_fuzz` itself."""
    from harness.conformance.oracles.fuzz.driver import FuzzConfig, fuzz, write_cases

    try:
        check_engine_spec(args.engine)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    where = workers(args)
    seconds = parse_duration(args.time) if args.time else None
    examples = args.examples if args.examples is not None or seconds else 1000
    ruleset = variant(args.variant, args.option)
    ruleset = ruleset.with_options(
        {**{n: o.default for n, o in ruleset.options.items()}, **dict(ruleset.chosen)}
    )
    config = FuzzConfig(
        engine=args.engine,
        ruleset=ruleset,
        targets=tuple(args.operation) or None,
        seed=args.seed,
        examples=examples,
        seconds=seconds,
        jobs=where.jobs,
        scheduler=where.scheduler,
        timeout=args.timeout,
        shrink_seconds=args.shrink_seconds,
        scheduler_security=where.security,
        insecure_scheduler=where.insecure,
        connect_timeout=where.connect_timeout,
    )
    line = LiveLine(quiet=args.quiet)

    def show(report: FuzzReport, examples: int) -> None:
        line.show(progress_line(report, examples))

    try:
        report = fuzz(config, show)
    finally:
        line.end()
    written: list[Path] = []
    if args.out and report.findings:
        try:
            written = write_cases(report, Path(args.out))
        except (OSError, OutputError) as exc:
            # The findings are still in the summary: a failed case file loses nothing else.
            report.errors.append(f"the case files could not be written in {args.out}: {exc}")
    # With the summary on stdout (`--json -`), the words go to stderr: stdout stays JSON.
    words = words_stream(args, out, "json")
    text = io.StringIO()
    _print(report, written, text)
    words.write(paint_fuzz(text.getvalue(), words))
    if args.json:
        write_output(args.json, json_text(report.to_json(), indent=2) + "\n", out)
    if report.findings or report.errors:
        return EXIT_FAILED
    if report.interrupted:
        return EXIT_INTERRUPTED
    # Nothing compared is no clean bill: the engine refused every input (never a silent green).
    return EXIT_OK if report.compared else EXIT_FAILED


def _print(report: FuzzReport, written: list[Path], out: TextIO) -> None:
    rate = report.total / report.seconds if report.seconds else 0.0
    out.write(
        f"guandan fuzz: {report.info.name} on {report.ruleset.slug}, seed {report.seed}: "
        f"{counted(report.total, 'example', spec=',')} in {report.seconds:.1f} s ({rate:,.0f}/s)"
        f"{' (interrupted)' if report.interrupted else ''}\n"
    )
    width = max((len(t) for t in report.targets), default=0)
    for target in report.targets:
        ran = counted(report.examples.get(target, 0), "example", spec=">7,")
        out.write(f"  {target:<{width}} {ran}\n")
    for operation, n in report.refused.items():
        asked = report.asked.get(operation, 0)
        inputs = counted(asked, "input", spec=",")
        out.write(f"  {operation}: the engine refused {n:,} of {inputs} (unsupported)\n")
    for error in report.errors:
        out.write(f"  error: {error}\n")
    if report.dropped:
        dropped = counted(len(report.dropped), "finding")
        out.write(f"  {dropped} dropped, not confirmed by the judge:\n")
    for finding, why in report.dropped:
        out.write(f"    {finding.operation} ({finding.kind}): {why}\n")
    if not report.findings:
        if report.interrupted and not report.total:
            out.write("interrupted before any example was run: nothing was compared\n")
        elif report.compared or report.interrupted or report.errors:
            out.write("no discrepancy found\n")
        else:
            out.write("NOT PASSED: nothing was compared: the engine refused every input\n")
        return
    out.write(f"{counted(len(report.findings), 'discrepancy', 'discrepancies')}:\n")
    for i, f in enumerate(report.findings):
        out.write(f"- {f.operation}: {f.clause} ({f.kind})\n")
        out.write(f"    {f.verdict}\n")
        for line in f.differences[:3]:
            out.write(f"    {line[:160]}\n")
        if i < len(written):
            out.write(f"    case: {written[i]}\n")
    if written:
        command = [
            "guandan",
            "check",
            "--engine",
            report.engine,
            "--variant",
            variant_spec(report.ruleset),
            "--cases",
            str(written[0].parent),
            "--no-bundled",
        ]
        out.write(f"check them: {shlex.join(command)}\n")


def register(sub: Subparsers) -> None:
    """Add `fuzz`."""
    p = sub.add_parser(
        "fuzz",
        help="fuzz an engine against the reference interpreter",
        epilog=epilog(
            [
                'guandan fuzz --engine "exec:./my-engine" --variant huaian --examples 5000 '
                "--out found/",
                "guandan fuzz --engine py:mine:Engine --variant competition --time 5m --json -",
            ],
            "0 no discrepancy found, 1 a discrepancy or an engine failure found (or nothing "
            "compared: the engine refused every input); 130 when stopped before finding any",
        ),
    )
    p.add_argument(
        "--engine",
        required=True,
        metavar="SPEC",
        help="reference, fast, py:module:attribute or exec:COMMAND",
    )
    p.add_argument(
        "--variant", required=True, metavar="SLUG|FILE", type=variant_input,
        help="the variant it plays",
    )  # fmt: skip
    add_clean_env(p)
    add_option(p, "an option the engine plays with (e.g. target=8)")
    p.add_argument(
        "--operation",
        action="append",
        default=[],
        metavar="OP",
        help=f"fuzz only these ({OPERATIONS}); default all the engine supports",
    )
    p.add_argument(
        "--seed", type=SEED, default=0, help="the seed: the same seed, the same examples"
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--examples",
        type=COUNT,
        metavar="N",
        help="examples in all, shared among the operations by weight (default 1000): exactly "
        "N, an example being one input asked (for match, one whole match); the harness counts "
        "them and stops at N, whatever number hypothesis would run",
    )
    budget.add_argument("--time", metavar="DURATION", help="run for this long, e.g. 60s or 5m")
    p.add_argument("--out", metavar="DIR", type=output_folder,
                   help="write each discrepancy as a case file here")  # fmt: skip
    add_output(p, "--json", "FILE", "write a JSON summary here")
    add_workers(p, "engine instances in processes")
    p.add_argument("--timeout", type=SECONDS, default=10.0, help="seconds per engine answer")
    p.add_argument(
        "--shrink-seconds",
        type=SECONDS,
        default=10.0,
        metavar="S",
        help="seconds each stage of shrinking a finding may take, as well as its fixed number "
        "of tries (a slow engine needs more; the smallest finding by then is written)",
    )
    add_quiet(p)
    add_trace(p)
    p.set_defaults(func=cmd_fuzz)
