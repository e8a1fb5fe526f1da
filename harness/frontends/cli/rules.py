"""`guandan variants`, `show`, `validate` and `diff`: the rule sets (規則) as data."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any, TextIO

import yaml

from harness._paths import variants_dir
from harness.conformance.cases.case_loader import load_cases
from harness.errors import UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    Subparsers,
    add_format,
    add_option,
    epilog,
    format_provenance,
    format_value,
    input_path,
    variant,
    variant_input,
)
from harness.frontends.cli._style import paint_diff
from harness.model.diagnostics import safe_text
from harness.model.loader import check_variant_files, clause_specs, load_variant, variant_slugs
from harness.model.ruleset import Clause, Option, Ruleset
from harness.rulebook.differences import differences, differences_text
from harness.rulebook.language import LANGS, Lang, parse_lang
from harness.wording import counted


def cmd_variants(args: argparse.Namespace, out: TextIO) -> int:
    """List the bundled variants, slug and title."""
    rows = [load_variant(slug) for slug in variant_slugs()]
    if args.format == "json":
        data = [
            {
                "id": r.slug,
                "title": r.title,
                "title_zh": r.title_zh,
                "source": r.source,
                "options": sorted(r.options),
            }
            for r in rows
        ]
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.slug) for r in rows)
    for r in rows:
        opts = f"  [options: {', '.join(r.options)}]" if r.options else ""
        out.write(f"{r.slug:<{width}}  {r.title_zh}  {r.title}{opts}\n")
    return EXIT_OK


def _titled(ruleset: Ruleset) -> dict[str, Any]:
    """The resolved variant as `Ruleset.to_json` gives it, each clause headed by its title."""
    data = ruleset.to_json()
    specs = clause_specs()
    for cid in ruleset.clauses:
        *groups, leaf = cid.split(".")
        node = data["rules"]
        for part in groups:
            node = node[part]
        node[leaf] = {"title": specs[cid].title, **node[leaf]}
    return data


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    """Print a resolved variant with the title and provenance of every clause."""
    ruleset = variant(args.variant, args.option)
    data = _titled(ruleset)
    if args.format == "json":
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100))
    return EXIT_OK


def cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    """Check variant files (all bundled ones by default); exit 1 on any problem."""
    files: list[Path] = []
    for raw in args.paths or [str(variants_dir())]:
        path = Path(raw)
        try:
            if path.is_dir():
                files.extend(sorted(path.glob("*.yaml")))
                continue
            found = path.exists()
        except OSError as exc:
            # A name too long for the file system, say: a mistake on the command line.
            raise UsageError(f"cannot read {safe_text(raw)}: {exc.strerror}") from None
        if not found:
            raise UsageError(f"no such file or folder: {safe_text(raw)}")
        files.append(path)
    problems = check_variant_files(files)
    for problem in problems:
        out.write(f"{problem}\n")
    if problems:
        out.write(f"{counted(len(problems), 'problem')} in {counted(len(files), 'file')}\n")
        return EXIT_FAILED
    out.write(f"{counted(len(files), 'file')} valid\n")
    return EXIT_OK


def _option_terms(option: Option | None) -> tuple[Any, ...] | None:
    # Options differ when what may be chosen differs, not when only their wording does.
    if option is None:
        return None
    return (option.sets, option.choices, option.default, option.minimum, option.maximum)


def _differences(a: Ruleset, b: Ruleset) -> list[tuple[Clause, Clause]]:
    return [
        (a.clauses[cid], b.clauses[cid])
        for cid in a.clauses
        if a.clauses[cid].value != b.clauses[cid].value
    ]


def _describe_option(option: Option) -> str:
    if option.choices is not None:
        allowed = " or ".join(format_value(c) for c in option.choices)
    else:
        allowed = f"{option.minimum if option.minimum is not None else '..'} to " + (
            f"{option.maximum}" if option.maximum is not None else "any"
        )
    return f"sets {option.sets}: {allowed} (default {format_value(option.default)})"


def cmd_diff(args: argparse.Namespace, out: TextIO) -> int:
    """Show the clauses whose values differ between two variants, with both provenances; with
    `--exit-code`, exit 1 when they differ (in a clause or an option)."""
    text = io.StringIO()
    differ = _diff(args, text)
    shown = text.getvalue()
    out.write(shown if args.format == "json" else paint_diff(shown, out))
    return EXIT_FAILED if differ and args.exit_code else EXIT_OK


def _diff(args: argparse.Namespace, out: TextIO) -> bool:
    """`cmd_diff` itself: writes the differences, and returns whether there are any."""
    a = variant(args.a)
    b = variant(args.b)
    if args.only_different:
        return _for_players(a, b, parse_lang(args.lang), args.format, out)
    diffs = _differences(a, b)
    option_names = [
        n
        for n in sorted(set(a.options) | set(b.options))
        if _option_terms(a.options.get(n)) != _option_terms(b.options.get(n))
    ]
    if args.format == "json":
        data = {
            "a": a.slug,
            "b": b.slug,
            "clauses": [{"id": x.id, a.slug: x.to_json(), b.slug: y.to_json()} for x, y in diffs],
            "options": {
                n: {
                    a.slug: a.options[n].to_json() if n in a.options else None,
                    b.slug: b.options[n].to_json() if n in b.options else None,
                }
                for n in option_names
                if (n in a.options) != (n in b.options)
                or a.options[n].to_json() != b.options[n].to_json()
            },
        }
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return bool(diffs or option_names)
    width = max(len(a.slug), len(b.slug))
    specs = clause_specs()
    differ = counted(len(diffs), "clause differs", "clauses differ")
    out.write(f"{differ} between {a.slug} and {b.slug}\n")
    for x, y in diffs:
        out.write(f"\n{x.id} — {specs[x.id].title}\n")
        for ruleset, clause in ((a, x), (b, y)):
            out.write(f"  {ruleset.slug:<{width}}  {format_value(clause.value)}\n")
            said = format_provenance(clause.provenance, ruleset)
            out.write(f"  {'':<{width}}    {said}\n")
    for name in option_names:
        out.write(f"\noption {name}\n")
        for slug, opt in ((a.slug, a.options.get(name)), (b.slug, b.options.get(name))):
            shown = "-" if opt is None else _describe_option(opt)
            out.write(f"  {slug:<{width}}  {shown}\n")
    return bool(diffs or option_names)


def _for_players(a: Ruleset, b: Ruleset, lang: Lang, form: str, out: TextIO) -> bool:
    """`diff --only-different`: each clause that differs as one rulebook sentence per variant,
    with the cases that tell them apart; returns whether any differs."""
    found = differences([a, b], lang, load_cases()[0])
    if form == "json":
        data = [
            {
                "id": d.clause,
                "chapter": d.chapter,
                "sentences": {r.slug: s for r, s in d.sentences},
                "cases": [c.id for c in d.cases],
            }
            for d in found
        ]
        out.write(json.dumps({"a": a.slug, "b": b.slug, "lang": lang.value, "clauses": data},
                             ensure_ascii=False, indent=2) + "\n")  # fmt: skip
    else:
        out.write(differences_text(found, lang))
    return bool(found)


def register(sub: Subparsers) -> None:
    """Add `variants`, `show`, `validate` and `diff`."""
    p = sub.add_parser(
        "variants",
        help="list the bundled variants (slug and title)",
        epilog=epilog(["guandan variants", "guandan variants --format json"], "0 listed"),
    )
    add_format(p)
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser(
        "show",
        help="print a resolved variant with the provenance of each clause",
        epilog=epilog(
            ["guandan show huaian", "guandan show huaian --option target=8 --format json"],
            "0 shown",
        ),
    )
    p.add_argument(
        "variant", type=variant_input,
        help="a variant slug (see `guandan variants`) or a variant file",
    )  # fmt: skip
    add_format(p, ("yaml", "json"))
    add_option(p, "choose an option (e.g. target=8); may be repeated")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "validate",
        help="check variant files (default: every bundled variant)",
        epilog=epilog(
            ["guandan validate", "guandan validate my-club.yaml"],
            "0 every file valid, 1 a problem found",
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH", type=input_path,
                   help="variant files or folders of them")  # fmt: skip
    p.set_defaults(func=cmd_validate)


DIFF_JSON = """

--format json prints one object:
  {"a": SLUG_A, "b": SLUG_B,
   "clauses": [{"id": CLAUSE, SLUG_A: {"value": V, PROVENANCE: {...}}, SLUG_B: {...}}],
   "options": {NAME: {SLUG_A: OPTION or null, SLUG_B: OPTION or null}}}
each clause whose values differ, with both values and provenances (PROVENANCE is "stated",
"read" or "assumed") as `guandan show --format json` writes them, and each option whose terms
or wording differ (null where a variant has none). --exit-code counts the clauses and the
options whose terms differ."""


def register_diff(sub: Subparsers) -> None:
    """Add `diff` (last in the command list, as it has always been)."""
    p = sub.add_parser(
        "diff",
        help="the clauses whose values differ between two variants",
        epilog=epilog(
            [
                "guandan diff huaian competition",
                "guandan diff competition my-club.yaml --exit-code --format json",
                "guandan diff huaian match-rules --only-different --lang zh-Hans",
            ],
            "0 shown (with --exit-code: the variants do not differ), 1 with --exit-code: "
            "they differ",
        )
        + DIFF_JSON,
    )
    p.add_argument("a", type=variant_input, help="a variant slug or file")
    p.add_argument("b", type=variant_input, help="another variant slug or file")
    add_format(p)
    p.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 1 when the variants differ, in a clause or an option (as git diff does)",
    )
    p.add_argument(
        "--only-different",
        action="store_true",
        help="for players: each clause that differs as one rulebook sentence per variant in "
        "--lang, with the cases that tell them apart",
    )
    p.add_argument(
        "--lang",
        default=Lang.EN.value,
        choices=[lang.value for lang in LANGS],
        help="the language of --only-different (default en)",
    )
    p.set_defaults(func=cmd_diff)
