"""`guandan check` and `serve`: an engine against the corpus, and the reference interpreter over
the process protocol (行程協定)."""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from harness.conformance.cases.variants import by_slug
from harness.conformance.reporting.run_reports import (
    json_report,
    junit_report,
    markdown_report,
    shown,
    write_text,
)
from harness.conformance.running.journal import journal_path, read_previous
from harness.conformance.running.results import CaseResult, ExpectFail, RunConfig, RunResult
from harness.conformance.running.runner import run
from harness.engine import check_engine_spec
from harness.engine.api import OPERATION_NAMES
from harness.engine.trace import tracing
from harness.errors import HarnessError, UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    STDOUT,
    Subparsers,
    add_clean_env,
    add_option,
    add_output,
    add_trace,
    epilog,
    input_file,
    input_path,
    jobs_to_run,
    parse_options,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.frontends.cli._progress import LiveLine, add_quiet
from harness.frontends.cli._style import paint_check
from harness.model.bounds import COUNT, SECONDS
from harness.model.diagnostics import Problem, safe_text
from harness.model.loader import bundled_variants
from harness.wording import counted

if TYPE_CHECKING:
    from harness.conformance.oracles.verdicts import Explained


def explain_run(run: RunResult, progress: Callable[[str], None] | None = None) -> Explained:
    """`verdicts.explain_run`, imported when a run has failures to explain (most have none)."""
    from harness.conformance.oracles.verdicts import explain_run as explain

    return explain(run, progress)


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """Run the corpus against an engine and report; exit 0 only when nothing went wrong, 130
    when Ctrl-C stopped it (the report then holds what finished, the journal stays)."""
    try:
        with tracing(args.trace):
            return _check(args, out)
    except KeyboardInterrupt:
        # Ctrl-C outside the cases (loading the corpus, or a second one while the reports of an
        # interrupted run were written): a short word, never a traceback.
        sys.stderr.write("\nguandan: interrupted\n")
        return EXIT_INTERRUPTED


def _check(args: argparse.Namespace, out: TextIO) -> int:
    """`cmd_check` itself."""
    # Each variant is loaded once, here; options are chosen per case by the runner.
    variants = [variant(spec) for spec in args.variant] if args.variant else bundled_variants()
    variants = list(by_slug(variants).values())  # two variants of one slug are an error
    try:
        check_engine_spec(args.engine)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    required = tuple(op.strip() for op in args.require_operations.split(",") if op.strip())
    strange = [op for op in required if op not in OPERATION_NAMES]
    if strange:
        raise UsageError(
            f"--require-operations: {', '.join(map(repr, strange))} not an operation "
            f"(known: {', '.join(OPERATION_NAMES)})"
        )
    own = [Path(p) for p in args.cases]
    for path in own:
        if not path.exists():
            raise UsageError(f"--cases {path}: no such case file or folder")
    if args.no_bundled and not own:
        raise UsageError("--no-bundled leaves no case to run: give your own with --cases PATH")
    resume = []
    if args.resume:
        if not Path(args.resume).exists() and not journal_path(Path(args.resume)).exists():
            raise UsageError(f"--resume {args.resume}: no such report or journal to resume")
        resume = read_previous(Path(args.resume))
    # The report (`--json`, else the one resumed), and beside it the journal: none on stdout.
    words = words_stream(args, out, "json", "junit", "markdown")
    target = args.json or args.resume
    report = Path(target) if target and target != STDOUT else None
    config = RunConfig(
        engine=args.engine,
        variants=variants,
        options=parse_options(args.option),
        patterns=list(args.k),
        clauses=list(args.clause),
        expect_fail=ExpectFail.read(Path(args.expect_fail)) if args.expect_fail else None,
        timeout=args.timeout,
        jobs=jobs_to_run(args.jobs),
        journal=journal_path(report) if report is not None and _a_file(report) else None,
        resume=resume,
        cases_paths=own,
        bundled=not args.no_bundled,
        derived=not args.no_derived,
        require_operations=required,
    )
    # The live line goes where the words go: on stdout at a terminal, as the report follows it.
    line = LiveLine(words, quiet=args.quiet)

    def progress(result: CaseResult, done: int, total: int) -> None:
        line.show(f"[{done}/{total}] {result.status.value:<11} {result.key[:60]}")

    if report is not None and not args.resume:
        # A journal left by an earlier run that was not resumed is not this run's: were this run
        # interrupted too, --resume would take its results for this run's.
        journal_path(report).unlink(missing_ok=True)
    with line:
        result = run(config, progress)
        if result.interrupted:
            line.clear()
            return _interrupted(result, args, out, report)
        if not result.results:
            line.clear()
            if result.problems:
                _write_problems(result.problems, words)
                return EXIT_FAILED
            raise UsageError("no case was selected: check -k, --clause, --variant and --option")
        if not args.no_explain:
            started = time.perf_counter()
            explained = explain_run(result, line.show)
            result.verdicts = dict(explained.verdicts)
            result.left_unexplained = explained.left
            result.explain_seconds = time.perf_counter() - started
    _write_reports(result, args, out, report)
    if report is not None:
        journal = journal_path(report)
        if journal.exists():
            journal.unlink()
    return EXIT_OK if result.ok else EXIT_FAILED


def _write_reports(
    result: RunResult, args: argparse.Namespace, out: TextIO, report: Path | None
) -> None:
    """The run for people (on stderr when a report goes to stdout), then each report asked
    for: `--json` (else the report resumed), `--junit`, `--markdown`."""
    words = words_stream(args, out, "json", "junit", "markdown")
    text = io.StringIO()
    write_text(result, text, verbose=args.verbose)
    words.write(paint_check(text.getvalue(), result.ok, words))
    _write_problems(result.problems, words)
    if args.json == STDOUT or report is not None:
        write_output(args.json or str(report), json_report(result), out)
    if args.junit:
        write_output(args.junit, junit_report(result), out)
    if args.markdown:
        write_output(args.markdown, markdown_report(result), out)


def _interrupted(
    result: RunResult, args: argparse.Namespace, out: TextIO, report: Path | None
) -> int:
    """After Ctrl-C: the reports of the cases that finished, the journal kept for --resume, a
    short word on stderr, and exit 130."""
    _write_reports(result, args, out, report)  # the journal stays: --resume reads both
    ran = f"{len(result.results)} of {counted(result.selected, 'case')} finished"
    if report is not None:
        again = f"run the same command with --resume {report} to finish the others"
    else:
        again = "give --json FILE.json to be able to finish an interrupted run with --resume"
    sys.stderr.write(f"\nguandan: interrupted: {ran}; {shown(again)}\n")
    return EXIT_INTERRUPTED


def _a_file(report: Path) -> bool:
    """Whether `report` is (or will be) a regular file: a report written through to a FIFO or
    a device has no journal beside it (none is made in /dev)."""
    return not report.exists() or report.is_file()


def resumable(text: str) -> str:
    """An argparse type for `--resume`: a report, or the journal an interrupted run left beside
    it; each of them that exists must be a regular file (`input_file`)."""
    found = [p for p in (Path(text), journal_path(Path(text))) if os.path.lexists(p)]
    if not found:
        raise argparse.ArgumentTypeError(f"no such report or journal to resume: {safe_text(text)}")
    for path in found:
        input_file(str(path))
    return text


def _write_problems(problems: Sequence[Problem], out: TextIO) -> None:
    """The problems found in the case files, located, and how many there are."""
    if not problems:
        return
    out.write("\n")
    for problem in problems:
        out.write(shown(f"PROBLEM {problem}") + "\n")
    out.write(
        f"{counted(len(problems), 'problem')} in the case files: the cases concerned did not "
        "run, "
        "the others did\n"
    )


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Speak the process protocol on stdin/stdout over the reference interpreter."""
    from harness.engine.server import serve

    served = variant(args.variant) if args.variant else None
    return serve(served, sys.stdin, out)


def register(sub: Subparsers) -> None:
    """Add `check` and `serve`."""
    p = sub.add_parser(
        "check",
        help="run the corpus against an engine (the main job)",
        epilog=epilog(
            [
                'guandan check --engine "exec:./my-engine" --variant huaian --json report.json',
                "guandan check --engine reference --variant huaian --json - | jq .summary",
                "guandan check --engine py:mine:Engine --resume report.json",
            ],
            "0 every case judged passed, 1 a case failed, errored or timed out (or a "
            "case file has a problem, or nothing was judged)",
        ),
    )
    p.add_argument(
        "--engine",
        default="reference",
        help=(
            "reference, fast (the compiled engine), py:module:attribute, or exec:COMMAND "
            "(default: reference)"
        ),
    )
    add_clean_env(p)
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="SLUG|FILE",
        type=variant_input,
        help="a variant to check: a bundled slug or a variant file; may be repeated "
        "(default: every bundled variant)",
    )
    add_option(p, "run only the cases written for this option (e.g. target=8)")
    p.add_argument(
        "--cases",
        action="append",
        default=[],
        metavar="PATH",
        type=input_path,
        help="your own case file or folder of case files, run with the bundled corpus; "
        "may be repeated",
    )
    p.add_argument(
        "--no-bundled",
        action="store_true",
        help="leave the bundled corpus out: run only the cases given with --cases",
    )
    p.add_argument(
        "--no-derived",
        action="store_true",
        help="leave out the cases written for clause values the variants checked do not play "
        "(by default they run on those variants with the values set: huaian[flow.pass=...])",
    )
    p.add_argument(
        "-k",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only cases whose id contains PATTERN (or matches it as a glob)",
    )
    p.add_argument(
        "--clause",
        action="append",
        default=[],
        metavar="ID",
        help="only cases that check this clause (or family, e.g. tribute)",
    )
    p.add_argument(
        "--expect-fail",
        metavar="FILE",
        type=input_file,
        help="cases known to fail, one id or id[variant] a line; a listed case that "
        "passes fails the run",
    )
    p.add_argument(
        "--timeout",
        type=SECONDS,
        default=10.0,
        metavar="SECONDS",
        help="seconds an engine may take to answer (default 10)",
    )
    p.add_argument(
        "--jobs",
        type=COUNT,
        default=1,
        metavar="N",
        help="engines run at once, each in a process of its own (py: engines too)",
    )
    p.add_argument(
        "--require-operations",
        metavar="OP,...",
        default="",
        help="fail the run unless at least one case of each of these operations is judged "
        "(e.g. classify,beats): an engine that answers none of them never passes by skipping",
    )
    add_output(p, "--json", "FILE.json", "write the JSON report", old="--report")
    add_output(p, "--junit", "FILE.xml", "write a JUnit XML report")
    add_output(p, "--markdown", "FILE.md", "write a Markdown summary")
    p.add_argument(
        "--resume",
        metavar="FILE.json",
        type=resumable,
        help="finish an interrupted run that was writing this report",
    )
    p.add_argument("--verbose", action="store_true", help="list every case, not only failures")
    add_quiet(p)
    add_trace(p)
    p.add_argument(
        "--no-explain", action="store_true",
        help="do not look for the clause values that explain the failures (faster)",
    )  # fmt: skip
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "serve",
        help="speak the process protocol over the reference interpreter",
        epilog=epilog(
            [
                "guandan check --engine 'exec:guandan serve'",
                "guandan serve --variant huaian < requests.jsonl",
            ],
            "0 the protocol ended (bye, or the end of its input)",
        ),
    )
    p.add_argument(
        "--variant",
        metavar="SLUG|FILE",
        type=variant_input,
        help="serve only this variant, a bundled slug or a variant file "
        "(default: the bundled one each hello asks)",
    )
    p.set_defaults(func=cmd_serve)
