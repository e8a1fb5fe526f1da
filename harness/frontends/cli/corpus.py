"""`guandan cases check` and `coverage`: the conformance corpus (一致性測試) and what it covers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from harness.conformance.cases.case_loader import check_cases, load_cases
from harness.conformance.cases.coverage import Coverage, measure
from harness.errors import UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    Subparsers,
    add_format,
    epilog,
    input_path,
    variant,
    variant_input,
)
from harness.frontends.cli._parser import help_command
from harness.model.bounds import COUNT
from harness.model.diagnostics import safe_text
from harness.model.loader import bundled_variants
from harness.wording import counted


def cmd_cases_check(args: argparse.Namespace, out: TextIO) -> int:
    """Check the corpus: schema, unique ids, known clauses, applicability, duplicates, cards."""
    paths = [Path(p) for p in args.paths] or None
    for path in paths or []:
        try:
            found = path.exists()
        except OSError as exc:
            # A name too long for the file system, say: a mistake on the command line.
            raise UsageError(f"cannot read {safe_text(str(path))}: {exc.strerror}") from None
        if not found:
            raise UsageError(f"no such file or folder: {safe_text(str(path))}")
    cases, problems = load_cases(paths)
    problems += check_cases(cases)
    for problem in problems:
        out.write(f"{problem}\n")
    if problems:
        out.write(f"{counted(len(problems), 'problem')} in {counted(len(cases), 'case')}\n")
        return EXIT_FAILED
    out.write(f"{counted(len(cases), 'case')} valid\n")
    return EXIT_OK


def cmd_coverage(args: argparse.Namespace, out: TextIO) -> int:
    """Clause × variant coverage of the corpus (the bundled variants, and any `--variant`);
    exit 1 on any gap."""
    matrix = bundled_variants() + [variant(spec) for spec in args.variant]
    cases, problems = load_cases()
    if problems:
        for problem in problems:
            out.write(f"{problem}\n")
        return EXIT_FAILED
    report = measure(cases, args.minimum, matrix)
    if args.missing or args.values:
        return _write_values(report, out, missing_only=args.missing, as_json=args.format == "json")
    if args.format == "json":
        out.write(json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n")
        return EXIT_OK if report.ok else EXIT_FAILED
    names = report.variants
    width = max(len(c) for c in report.counts) if report.counts else 10
    out.write(f"{'clause':<{width}}  " + "  ".join(f"{n:>11}" for n in names) + "\n")
    for clause_id, row in report.counts.items():
        cells = "  ".join(f"{row[n]:>11}" for n in names)
        flag = "  <" if any(row[n] < report.minimum for n in names) else ""
        out.write(f"{clause_id:<{width}}  {cells}{flag}\n")
        out.write(f"{'':<{width}}    applied by {_functions(report.code.get(clause_id, []))}\n")
    out.write(
        f"\n{len(cases)} cases; {len(report.counts)} observable clauses; "
        f"{len(report.unobservable)} no operation can observe:\n"
    )
    for clause_id in report.unobservable:
        applied = report.code.get(clause_id)
        why = f"applied by {_functions(applied)}" if applied else "prose only: "
        out.write(f"  {clause_id}  ({why}{report.informational.get(clause_id, '')})\n")
    out.write(
        f"{len(report.assumed_cases)} cases rest on a clause assumed or read into its source "
        "in some variant\n"
    )
    for clause_id, slug, n in report.uncovered:
        out.write(
            f"gap: {clause_id} is checked by {counted(n, 'case')} in {slug} "
            f"(at least {report.minimum} needed)\n"
        )
    for clause_id, a, b in report.untold_clauses:
        out.write(f"gap: {clause_id} differs between {a} and {b}, but no case shows it\n")
    for clause_id in report.cases_without_code:
        out.write(f"gap: {clause_id} is cited by cases, but no code applies it\n")
    for clause_id in report.code_without_cases:
        out.write(f"gap: {clause_id} is applied by code, but no case cites it\n")
    for a, b in report.untold_pairs:
        out.write(f"gap: the reference set up as {a} passes every case of {b}\n")
    for name, n in report.values_missing:
        out.write(
            f"gap: value {name} is checked by {counted(n, 'case')} (at least "
            f"{report.minimum} needed)\n"
        )
    out.write("coverage complete\n" if report.ok else "coverage has gaps\n")
    return EXIT_OK if report.ok else EXIT_FAILED


def _write_values(report: Coverage, out: TextIO, *, missing_only: bool, as_json: bool) -> int:
    """The cases of each implemented value class (or only those with too few): a table, or
    JSON; exit 1 when a class has too few."""
    rows = [
        (name, n)
        for row in report.values.values()
        for name, n in row.items()
        if not missing_only or n < report.minimum
    ]
    if as_json:
        listed = [{"class": name, "cases": n} for name, n in rows]
        data = {"minimum": report.minimum, "classes": listed, "ok": not report.values_missing}
        out.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    else:
        width = max((len(name) for name, _ in rows), default=10)
        for name, n in rows:
            flag = "  <" if n < report.minimum else ""
            out.write(f"{name:<{width}}  {n:>4}{flag}\n")
        total = sum(len(row) for row in report.values.values())
        out.write(
            f"{len(report.values_missing)} of {total} implemented value classes have fewer than "
            f"{report.minimum} cases\n"
        )
    return EXIT_FAILED if report.values_missing else EXIT_OK


def _functions(names: list[str]) -> str:
    """Function names for people: without the `harness.` prefix, or `no code`."""
    return ", ".join(n.removeprefix("harness.") for n in names) or "no code"


def register(sub: Subparsers) -> None:
    """Add `cases check` and `coverage`."""
    p = sub.add_parser("cases", help="the conformance corpus")
    cases_sub = p.add_subparsers(dest="cases_command", metavar="COMMAND")
    p.set_defaults(func=help_command(p))
    c = cases_sub.add_parser(
        "check",
        help="check every case (schema, ids, clauses, cards)",
        epilog=epilog(
            ["guandan cases check", "guandan cases check my-cases/"],
            "0 every case valid, 1 a problem found",
        ),
    )
    c.add_argument(
        "paths", nargs="*", metavar="PATH", type=input_path, help="case files or folders"
    )
    c.set_defaults(func=cmd_cases_check)

    p = sub.add_parser(
        "coverage",
        help="clause × variant coverage of the corpus",
        epilog=epilog(
            [
                "guandan coverage",
                "guandan coverage --variant my-club.yaml --format json",
                "guandan coverage --values --missing",
            ],
            "0 coverage complete, 1 a gap found",
        ),
    )
    add_format(p, old=True)
    p.add_argument("--minimum", type=COUNT, default=2, help="cases needed per clause and variant")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="SLUG|FILE",
        type=variant_input,
        help="add a variant file to the bundled variants of the matrix; may be repeated",
    )
    p.add_argument(
        "--values",
        action="store_true",
        help="show the cases of each clause value class the interpreter implements",
    )
    p.add_argument(
        "--missing",
        action="store_true",
        help="show only the value classes with fewer than --minimum cases",
    )
    p.set_defaults(func=cmd_coverage)
