"""`guandan rulebook`: a variant's rulebook for players (規則書), in zh-Hans, zh-Hant or English,
as Markdown, HTML or an A4 PDF."""

from __future__ import annotations

import argparse
from typing import TextIO

from harness.conformance.cases.case_loader import load_cases
from harness.frontends.cli._common import (
    EXIT_OK,
    STDOUT,
    Subparsers,
    add_option,
    binary_stdout,
    epilog,
    output_file_or_stdout,
    variant,
    variant_input,
    write_output,
)
from harness.frontends.cli._progress import LiveLine, add_quiet
from harness.rulebook.book import build
from harness.rulebook.language import LANGS, Lang, parse_lang
from harness.rulebook.markdown import markdown
from harness.rulebook.printed import html_document, pdf_bytes

FORMATS = ("md", "html", "pdf")


def cmd_rulebook(args: argparse.Namespace, out: TextIO) -> int:
    """Write the rulebook of a variant (a slug or a file, its options chosen)."""
    lang = parse_lang(args.lang)
    if args.format == "pdf" and args.output == STDOUT:
        binary_stdout(out)  # refused before the work where it cannot take bytes
    ruleset = variant(args.variant, args.option)
    with LiveLine(quiet=args.quiet) as line:

        def stage(what: str) -> None:
            line.show(f"rulebook: {ruleset.slug} in {lang.value}: {what}")

        stage("reading the cases")
        cases, _ = load_cases()
        stage("building the book")
        book = build(ruleset, lang, cases)
        if args.format == "pdf":
            made: str | bytes = pdf_bytes(book, stage)
        else:
            made = markdown(book) if args.format == "md" else html_document(book)
    # The line is erased first: at a terminal, a book on stdout starts at the line's beginning.
    write_output(args.output, made, out)
    return EXIT_OK


def register(sub: Subparsers) -> None:
    """Add `rulebook`."""
    p = sub.add_parser(
        "rulebook",
        help="write a variant's rulebook for players (zh-Hans, zh-Hant or English; md, html, pdf)",
        epilog=epilog(
            [
                "guandan rulebook huaian --lang zh-Hans --format pdf -o huaian.pdf",
                "guandan rulebook online-app --option target=8 --lang en",
                "guandan rulebook my-club.yaml --lang zh-Hant --format html -o rules.html",
            ],
            "0 written",
        ),
    )
    p.add_argument("variant", type=variant_input, help="a variant slug or a variant file")
    add_option(p, "choose an option (e.g. target=8); may be repeated")
    p.add_argument(
        "--lang",
        default=Lang.EN.value,
        choices=[lang.value for lang in LANGS],
        help="the rulebook's language: zh-Hans, zh-Hant or en (default en)",
    )
    p.add_argument(
        "--format", choices=FORMATS, default="md", help="md, html or pdf (A4; default md)"
    )
    p.add_argument(
        "-o",
        "--output",
        default=STDOUT,
        type=output_file_or_stdout,
        metavar="FILE",
        help="where to write it (default -, stdout; a PDF to stdout only through a pipe or a "
        "redirection)",
    )
    add_quiet(p)
    p.set_defaults(func=cmd_rulebook)
