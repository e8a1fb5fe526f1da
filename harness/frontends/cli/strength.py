"""`guandan mutate` and `fingerprint`: how strong the corpus is, clause by clause (變異測試), and
which rules an engine really plays (引擎指紋)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TextIO

from harness.conformance.oracles.fingerprint import (
    Fingerprint,
    Verdict,
    candidates_of,
    fingerprint,
    inferred_variant,
)
from harness.conformance.oracles.mutation import (
    VariantScore,
    load_equivalences,
    mutate_variants,
    shown,
    write_markdown,
)
from harness.conformance.running.results import json_text
from harness.engine import check_engine_spec, load_engine
from harness.engine.trace import tracing
from harness.errors import EngineError, EngineErrorKind, HarnessError, UsageError
from harness.frontends.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    STDOUT,
    Subparsers,
    add_clean_env,
    add_output,
    add_trace,
    epilog,
    jobs_to_run,
    output_file,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.frontends.cli._progress import LiveLine, add_quiet
from harness.model.bounds import COUNT, SECONDS
from harness.model.loader import bundled_variants
from harness.wording import counted


def cmd_mutate(args: argparse.Namespace, out: TextIO) -> int:
    """Score the corpus by mutants; exit 1 when a non-equivalent mutant survives, or a case
    kills a mutant called equivalent; 130 after Ctrl-C, the mutants scored until then written
    (marked interrupted)."""
    stdout, out = out, words_stream(args, out, "json", "markdown")
    variants = [variant(spec) for spec in args.variant] or bundled_variants()
    scores: list[VariantScore] = []
    line = LiveLine(quiet=args.quiet)

    def progress(slug: str, done: int, total: int) -> None:
        line.show(f"mutate: {slug} ({len(scores)}/{len(variants)}): mutant {done}/{total}")

    with line:
        try:
            mutate_variants(variants, jobs=jobs_to_run(args.jobs), into=scores, progress=progress)
        except KeyboardInterrupt:
            if not any(s.results for s in scores):
                raise  # nothing finished: nothing to write
    for s in scores:
        killed, total = s.score()
        pct = 100 * killed / total if total else 100.0
        out.write(
            f"{s.slug}: {killed}/{counted(total, 'mutant')} killed ({pct:.1f} %), "
            f"{len(s.equivalent)} equivalent{' (interrupted)' if s.interrupted else ''}\n"
        )
        parts = [(f, *s.score(f)) for f in s.families()]
        out.write("  " + ", ".join(f"{f} {k}/{n}" for f, k, n in parts if n) + "\n")
        for r in s.survivors:
            cited = ", ".join(r.cited_by[:5]) or "no case cites the clause"
            out.write(f"  survives: {r.clause} = {shown(r.value)} (cases citing it: {cited})\n")
        for r in s.stale:
            out.write(
                f"  called equivalent, but {r.killed_by[0]} kills it: "
                f"{r.clause} = {shown(r.value)}\n"
            )
    if args.json:
        write_output(args.json, json_text([s.to_json() for s in scores], indent=1) + "\n", stdout)
    if args.markdown:
        write_output(args.markdown, write_markdown(scores, load_equivalences()), stdout)
    if any(s.interrupted for s in scores):
        done = sum(len(s.results) for s in scores)
        left = len(variants) - len(scores)
        sys.stderr.write(
            f"\nguandan: interrupted: {counted(done, 'mutant')} scored, the last variant partly"
            f"{', ' + counted(left, 'variant') + ' not started' if left else ''}; what is "
            "written holds "
            "them, marked interrupted\n"
        )
        return EXIT_INTERRUPTED
    bad = any(s.survivors or s.stale for s in scores)
    return EXIT_FAILED if bad else EXIT_OK


def cmd_fingerprint(args: argparse.Namespace, out: TextIO) -> int:
    """Infer the variant an engine plays; exit 1 when no value explains some answers."""
    with tracing(args.trace):
        return _fingerprint(args, out)


def _fingerprint(args: argparse.Namespace, out: TextIO) -> int:
    """`cmd_fingerprint` itself."""
    try:
        check_engine_spec(args.engine)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    stdout, out = out, words_stream(args, out, "out", "json")
    bundled = bundled_variants()
    given = variant(args.variant) if args.variant else None
    engine = None
    # An engine plays one variant: the one given, else the first bundled one it accepts (and
    # then the one it says it plays, if that is another bundled variant).
    for ruleset in [given] if given else bundled:
        assert ruleset is not None
        try:
            engine = load_engine(args.engine, ruleset, timeout=args.timeout)
            claimed = engine.describe().variant
        except EngineError as exc:
            if exc.kind is not EngineErrorKind.UNSUPPORTED or given:
                raise UsageError(f"engine {args.engine}: {exc}") from None
            continue
        if given is None and claimed != ruleset.slug:
            match = [r for r in bundled if r.slug == claimed]
            if match:
                engine.close()
                engine = load_engine(args.engine, match[0], timeout=args.timeout)
        break
    if engine is None:
        raise UsageError(f"engine {args.engine} accepts none of the bundled variants")
    line = LiveLine(quiet=args.quiet)
    try:
        with line:
            name = engine.describe().name
            target = Path(args.out) if args.out else _default_out(name)
            chosen = candidates_of([*([given] if given else []), *bundled])
            result = fingerprint(engine, name, chosen, explain=given, progress=line.show)
    except KeyboardInterrupt:
        sys.stderr.write("\nguandan: interrupted while the engine answered: nothing written\n")
        return EXIT_INTERRUPTED
    finally:
        engine.close()
    _print(result, out)
    if result.interrupted:
        # The inferred variant is made of the clause verdicts, which were not reached: a file
        # of the closest variant's values alone would say the engine plays it exactly.
        kept = f"; {args.json} holds the cases failed, marked interrupted" if args.json else ""
        sys.stderr.write(
            f"\nguandan: interrupted while the clauses were explained: {target} not written{kept}\n"
        )
    elif args.out == STDOUT:
        write_output(STDOUT, inferred_variant(result.explained, _default_stem(name), name), stdout)
    else:
        write_output(str(target), inferred_variant(result.explained, target.stem, name), stdout)
        out.write(f"inferred variant written to {target} (guandan validate {target})\n")
    if args.json:
        write_output(args.json, json_text(result.to_json(), indent=1) + "\n", stdout)
    if result.interrupted:
        return EXIT_INTERRUPTED
    unexplained = any(c.verdict is Verdict.UNEXPLAINED for c in result.explained.clauses)
    return EXIT_FAILED if unexplained else EXIT_OK


def _default_out(name: str) -> Path:
    """The inferred variant's file when no `--out` is given, checked as a given one is, before
    any case runs: its name comes from the engine, known only once it has started."""
    target = f"{_default_stem(name)}.yaml"
    try:
        return Path(output_file(target))
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--out (by default {target}): {exc}; give --out FILE") from None


def _default_stem(name: str) -> str:
    """The name of the inferred variant (and of its file) for the engine `name`."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "engine"
    return f"{slug}-fingerprint"


def _print(result: Fingerprint, out: TextIO) -> None:
    explained = result.explained
    agreeing, seen = explained.observed()
    if result.interrupted:
        said = "no clause explained (interrupted)"
    else:
        agree = counted(seen, "clause agrees", "clauses agree")
        said = f"{agreeing}/{agree} ({100 * explained.agreement:.1f} %)"
    out.write(
        f"{result.engine} plays {explained.ruleset.slug}: {said}; it fails "
        f"{len(explained.failing)} of the {counted(explained.ran, 'case')} judged\n"
        f"  {explained.coverage()} (unsupported cases are not judged)\n"
    )
    best = result.closest
    if best is not explained:
        out.write(
            f"  the closest variant is {best.ruleset.slug} ({100 * best.passed:.1f} % passed)\n"
        )
    for other in result.fits[1:]:
        out.write(
            f"  {other.ruleset.slug}: fails {len(other.failing)} of "
            f"{counted(other.ran, 'case')} judged "
            f"({100 * other.passed:.1f} % passed)\n"
        )
    if result.interrupted:
        return
    width = max((len(c.clause) for c in explained.clauses), default=10)
    out.write(f"\n{'clause':<{width}}  verdict      value\n")
    for c in explained.clauses:
        if c.verdict is Verdict.VARIANT:
            value = shown(c.value)
        elif c.verdict is Verdict.MUTANT:
            value = f"{shown(c.value)} (the variant: {shown(c.variant_value)})"
            if c.equal_fits:
                value += f", or as if {', or '.join(c.equal_fits)}"
        elif c.verdict is Verdict.UNEXPLAINED:
            value = "no value explains the answers"
        else:
            value = "no case tells its values apart"
        cases = f"  [{', '.join(c.cases[:3])}]" if c.verdict is not Verdict.VARIANT else ""
        out.write(f"{c.clause:<{width}}  {c.verdict.value:<11}  {value}{cases}\n")


def register(sub: Subparsers) -> None:
    """Add `mutate` and `fingerprint`."""
    p = sub.add_parser(
        "mutate",
        help="score the corpus by one-clause mutants of each variant",
        epilog=epilog(
            [
                "guandan mutate --variant huaian",
                "guandan mutate --jobs 2 --json mutants.json --markdown strength.md",
            ],
            "0 every mutant not called equivalent is killed, 1 one survives (or a case kills "
            "one called equivalent)",
        ),
    )
    p.add_argument(
        "--variant", action="append", default=[], metavar="SLUG|FILE", type=variant_input,
        help="a variant to score (default: every bundled variant); may be repeated",
    )  # fmt: skip
    p.add_argument("--jobs", type=COUNT, default=1, help="processes sharing the mutants")
    add_output(p, "--json", "FILE", "write the scores and every mutant as JSON")
    add_output(p, "--markdown", "FILE", "write the report as Markdown")
    add_quiet(p)
    p.set_defaults(func=cmd_mutate)

    p = sub.add_parser(
        "fingerprint",
        help="infer which rules an engine really plays",
        epilog=epilog(
            [
                'guandan fingerprint --engine "exec:./my-engine" --out mine.yaml',
                "guandan fingerprint --engine reference --variant huaian --out - > mine.yaml",
            ],
            "0 every clause explained, 1 no value explains some answers",
        ),
    )
    p.add_argument("--engine", required=True, metavar="SPEC",
                   help="reference, fast, py:module:attribute or exec:COMMAND")  # fmt: skip
    add_clean_env(p)
    p.add_argument("--variant", metavar="SLUG|FILE", type=variant_input,
                   help="the variant to start the engine with (default: its own)")  # fmt: skip
    add_output(p, "--out", "FILE", "the inferred variant file (default: ENGINE-fingerprint.yaml)")
    add_output(p, "--json", "FILE", "write the fingerprint as JSON")
    p.add_argument("--timeout", type=SECONDS, default=10.0, help="seconds per engine answer")
    add_quiet(p)
    add_trace(p)
    p.set_defaults(func=cmd_fingerprint)
