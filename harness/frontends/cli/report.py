"""`guandan report`: JSON reports of `guandan check` (engines × variants) as one conformance
dashboard (一致性總覽), in HTML, Markdown or text."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from harness.conformance.reporting.dashboard import (
    Dashboard,
    build,
    markdown_chunks,
    read_report,
    render_text,
)
from harness.conformance.reporting.run_reports import shown
from harness.errors import HarnessError, UsageError
from harness.frontends.cli._common import (
    EXIT_OK,
    STDOUT,
    Subparsers,
    add_output,
    epilog,
    input_file,
    words_stream,
    write_output,
)
from harness.frontends.dashboard_html import page_chunks


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    """Render the dashboard of some reports; print it as text when no file is asked for.

    The reports hold what engines said, control characters and all (JSON keeps them): each page
    shows them escaped."""
    try:
        try:
            dashboard = build([read_report(Path(p)) for p in args.reports])
        except HarnessError as exc:
            raise UsageError(str(exc)) from None
        _write(dashboard, args, out)
    except RecursionError:
        # JSON nested a few hundred deep parses, yet cannot be drawn (nor encoded again).
        raise UsageError("a report holds a value nested too deeply to show") from None
    return EXIT_OK


def _write(dashboard: Dashboard, args: argparse.Namespace, out: TextIO) -> None:
    # Written as made, each part escaped on its own (`shown` escapes character by character).
    words = words_stream(args, out, "html", "markdown")
    if args.html:
        page = (shown(part, keep="\n\t") for part in page_chunks(dashboard))
        write_output(args.html, page, out)
        if args.html != STDOUT:
            words.write(f"wrote {args.html}\n")
    if args.markdown:
        text = (shown(part, keep="\n") for part in markdown_chunks(dashboard))
        write_output(args.markdown, text, out)
        if args.markdown != STDOUT:
            words.write(f"wrote {args.markdown}\n")
    if not (args.html or args.markdown):
        out.write(shown(render_text(dashboard), keep="\n"))


def register(sub: Subparsers) -> None:
    """Add `report`."""
    p = sub.add_parser(
        "report",
        help="several JSON reports of `guandan check` as one conformance dashboard",
        epilog=epilog(
            [
                "guandan report mine.json theirs.json",
                "guandan report reports/*.json --html dashboard.html --markdown dashboard.md",
                "guandan report mine.json --markdown - >> $GITHUB_STEP_SUMMARY",
            ],
            "0 the dashboard written",
        ),
    )
    p.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT.json",
        type=input_file,
        help="reports written by `guandan check --json` (engines × variants)",
    )
    add_output(p, "--html", "OUT.html", "write the dashboard as one self-contained HTML file")
    add_output(p, "--markdown", "OUT.md", "write the dashboard as Markdown")
    p.set_defaults(func=cmd_report)
