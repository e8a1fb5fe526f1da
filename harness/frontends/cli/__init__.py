"""The `guandan` command: rule sets (規則), the reference interpreter, the corpus, engine checks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import yaml

from harness import __version__
from harness._paths import variants_dir
from harness.conformance.corpus import check_cases, load_cases
from harness.conformance.coverage import measure
from harness.conformance.reports import write_json, write_junit, write_markdown, write_text
from harness.conformance.runner import (
    CaseResult,
    ExpectFail,
    RunConfig,
    journal_path,
    read_previous,
    run,
)
from harness.engine import check_engine_spec
from harness.engine.server import serve
from harness.errors import DataError, HarnessError, NotationError, UsageError
from harness.interpreter.classify import classify
from harness.interpreter.legal import legal_plays
from harness.interpreter.readings import SEQUENCE_TYPES, Reading
from harness.interpreter.simulate import MatchLog, play_match
from harness.model.cards import Card, Rank, display, parse_card, parse_hand, parse_rank
from harness.model.loader import check_variant_files, load_variant, load_variant_file, variant_slugs
from harness.model.ruleset import (
    Clause,
    CombinationType,
    Option,
    Provenance,
    ProvenanceKind,
    Ruleset,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def format_value(value: Any) -> str:
    """A clause value in one line for people: text bare, lists and mappings as compact JSON."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def format_provenance(provenance: Provenance) -> str:
    """A provenance in one line: `stated (place): quote` or `assumed: reason`."""
    if provenance.kind is ProvenanceKind.STATED:
        return f"stated by {provenance.source} ({provenance.place}): {provenance.quote}"
    return f"assumed: {provenance.reason}"


def _parse_options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option {pair!r}: expected NAME=VALUE, e.g. target=8")
        out[name.strip()] = value.strip()
    return out


def _variant(spec: str, options: Sequence[str] = ()) -> Ruleset:
    """A bundled variant by slug, or a variant file by path."""
    chosen = _parse_options(options)
    if spec.endswith((".yaml", ".yml")) or "/" in spec:
        path = Path(spec)
        if not path.exists():
            raise UsageError(f"no such file: {spec}")
        return load_variant_file(path, chosen)
    if spec not in variant_slugs(include_abstract=True):
        raise UsageError(f"unknown variant {spec!r}; expected one of: {', '.join(variant_slugs())}")
    return load_variant(spec, chosen)


# ---------------------------------------------------------------------------------------------
# Commands


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


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    """Print a resolved variant with the provenance of every clause."""
    ruleset = _variant(args.variant, args.option)
    data = ruleset.to_json()
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
        if path.is_dir():
            files.extend(sorted(path.glob("*.yaml")))
        elif path.exists():
            files.append(path)
        else:
            raise UsageError(f"no such file or folder: {raw}")
    problems = check_variant_files(files)
    for problem in problems:
        out.write(f"{problem}\n")
    noun = "file" if len(files) == 1 else "files"
    if problems:
        out.write(f"{len(problems)} problem(s) in {len(files)} {noun}\n")
        return EXIT_FAILED
    out.write(f"{len(files)} {noun} valid\n")
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


def cmd_diff(args: argparse.Namespace, out: TextIO) -> int:
    """Show the clauses whose values differ between two variants, with both provenances."""
    a = _variant(args.a)
    b = _variant(args.b)
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
        return EXIT_OK
    width = max(len(a.slug), len(b.slug))
    out.write(f"{len(diffs)} clause(s) differ between {a.slug} and {b.slug}\n")
    for x, y in diffs:
        out.write(f"\n{x.id}\n")
        for slug, clause in ((a.slug, x), (b.slug, y)):
            out.write(f"  {slug:<{width}}  {format_value(clause.value)}\n")
            out.write(f"  {'':<{width}}    {format_provenance(clause.provenance)}\n")
    for name in option_names:
        out.write(f"\noption {name}\n")
        for slug, opt in ((a.slug, a.options.get(name)), (b.slug, b.options.get(name))):
            shown = "-" if opt is None else _describe_option(opt)
            out.write(f"  {slug:<{width}}  {shown}\n")
    return EXIT_OK


def _describe_option(option: Option) -> str:
    if option.choices is not None:
        allowed = " or ".join(format_value(c) for c in option.choices)
    else:
        allowed = f"{option.minimum if option.minimum is not None else '..'} to " + (
            f"{option.maximum}" if option.maximum is not None else "any"
        )
    return f"sets {option.sets}: {allowed} (default {format_value(option.default)})"


def _level(text: str) -> Rank:
    try:
        rank = parse_rank(text)
    except NotationError as exc:
        raise UsageError(f"--level {text!r}: {exc}") from None
    if rank.is_joker:
        raise UsageError(f"--level {text!r}: a level is a rank 2..A (10 or T for ten)")
    return rank


def _cards(tokens: Sequence[str], what: str) -> tuple[Card, ...]:
    try:
        return parse_hand(" ".join(tokens))
    except NotationError as exc:
        raise UsageError(f"{what}: {exc}") from None


def describe_reading(reading: Reading) -> str:
    """A reading in words for people, with the Chinese term: `straight (順子) to 7, 5 cards`."""
    kind = reading.type
    rank = "10" if reading.rank is Rank.TEN else reading.rank.value
    if reading.rank.is_joker:
        rank = "big joker 大王" if reading.rank is Rank.BIG_JOKER else "small joker 小王"
    words = kind.value.replace("_", " ")
    if kind in SEQUENCE_TYPES:
        place = f"to {rank}"
    elif kind is CombinationType.JOKER_BOMB:
        place = "of the four jokers"
    else:
        place = f"of {rank}"
    return f"{words} ({kind.chinese}) {place}, {reading.size} cards"


def cmd_classify(args: argparse.Namespace, out: TextIO) -> int:
    """Print every reading of the given cards at a level (empty: they are no play)."""
    ruleset = _variant(args.variant, args.option)
    level = _level(args.level)
    cards = _cards(args.cards, "cards")
    result = classify(cards, level, ruleset)
    if args.json:
        rows = [{**r.to_json(), "default": r == result.default} for r in result.readings]
        out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return EXIT_OK
    shown = " ".join(display(c) for c in cards)
    if not result.readings:
        out.write(f"{shown}: no play at level {args.level} in {ruleset.slug}\n")
        return EXIT_OK
    out.write(f"{shown} at level {args.level} in {ruleset.slug}:\n")
    for reading in result.readings:
        mark = "  (the reading when none is declared)" if reading == result.default else ""
        out.write(f"  {describe_reading(reading)}{mark}\n")
    return EXIT_OK


def _previous(args: argparse.Namespace, ruleset: Ruleset, level: Rank) -> Reading | None:
    if args.previous is None:
        return None
    cards = _cards(args.previous.split(), "--previous")
    found = classify(cards, level, ruleset)
    readings = list(found.readings)
    if args.previous_type:
        readings = [r for r in readings if r.type.value == args.previous_type]
    if not readings:
        raise UsageError(f"--previous {args.previous!r} is no play at level {level.value}")
    if len(readings) > 1:
        if found.default is not None and found.default in readings:
            return found.default
        kinds = ", ".join(sorted({r.type.value for r in readings}))
        listed = "; ".join(describe_reading(r) for r in readings)
        raise UsageError(
            f"--previous {args.previous!r} reads several ways ({listed}); "
            f"choose with --previous-type ({kinds})"
        )
    return readings[0]


def cmd_plays(args: argparse.Namespace, out: TextIO) -> int:
    """List the legal plays of a hand, as leader or against a previous play."""
    ruleset = _variant(args.variant, args.option)
    level = _level(args.level)
    hand = _cards(args.cards, "hand")
    previous = _previous(args, ruleset, level)
    plays = legal_plays(hand, level, ruleset, previous)
    if args.json:
        rows = [{**p.reading.to_json(), "cards": [c.code for c in p.cards]} for p in plays]
        out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return EXIT_OK
    against = "as leader" if previous is None else f"against {describe_reading(previous)}"
    out.write(f"{len(plays)} play(s) {against}, level {args.level}, {ruleset.slug}:\n")
    for play in plays:
        cards = " ".join(display(c) for c in play.cards)
        out.write(f"  {describe_reading(play.reading):<44} {cards}\n")
    return EXIT_OK


def _card_text(codes: Sequence[str]) -> str:
    return " ".join(display(parse_card(c)) for c in codes)


def write_match_log(log: MatchLog, out: TextIO, summary: bool = False) -> None:
    """A simulated match for people: plays as cards with Chinese terms, tribute, levels, winner."""
    data = log.to_json()
    chosen = ", ".join(f"{k}={v}" for k, v in data["options"].items()) or "defaults"
    out.write(f"Match: {log.variant} ({chosen}), seed {log.seed}, {log.bots} bots\n")
    face = data["face_up_card"]
    out.write(
        f"Face-up card {_card_text([face['card']])} goes to seat {face['seat']}, "
        "who leads the first round\n"
    )
    for rnd in data["rounds"]:
        declarer = "none yet" if rnd["declarer"] is None else f"team {rnd['declarer']}"
        out.write(
            f"\nRound {rnd['round']}: level {rnd['level']} (declarer {declarer}), "
            f"seat {rnd['leader']} leads\n"
        )
        tribute = rnd["tribute"]
        if tribute is not None:
            if tribute["anti_tribute"]:
                out.write("  anti-tribute (抗貢): no tribute\n")
            for g in tribute["given"]:
                out.write(
                    f"  tribute (進貢): seat {g['from']} gives {_card_text([g['card']])} "
                    f"to seat {g['to']}\n"
                )
            for g in tribute["returned"]:
                out.write(
                    f"  return (還牌): seat {g['from']} gives {_card_text([g['card']])} "
                    f"to seat {g['to']}\n"
                )
        if not summary:
            for act in rnd["actions"]:
                if act.get("pass"):
                    out.write(f"  seat {act['seat']}: pass (不要)\n")
                    continue
                reading = Reading.from_json(act["reading"])
                gone = "  (out)" if act.get("out") else ""
                out.write(
                    f"  seat {act['seat']}: {describe_reading(reading)}: "
                    f"{_card_text(act['cards'])}{gone}\n"
                )
        settlement = rnd["settlement"]
        out.write(
            f"  finish {rnd['finish']} ({settlement['finish']}); levels now "
            f"team 0 {rnd['levels_after'][0]}, team 1 {rnd['levels_after'][1]}\n"
        )
        for event in settlement["events"]:
            out.write(f"  {event}\n")
    out.write(
        f"\nWinner: team {log.winner} (seats {log.winner} and {(log.winner or 0) + 2}) "
        f"after {len(data['rounds'])} rounds\n"
    )


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    """Play a whole match with simple bots and print its log (and write it as JSON)."""
    ruleset = _variant(args.variant, args.option)
    log = play_match(ruleset, args.seed, args.bots)
    if args.json:
        Path(args.json).write_text(
            json.dumps(log.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    write_match_log(log, out, summary=args.summary)
    return EXIT_OK


def cmd_cases_check(args: argparse.Namespace, out: TextIO) -> int:
    """Check the corpus: schema, unique ids, known clauses, applicability, duplicates, cards."""
    paths = [Path(p) for p in args.paths] or None
    for path in paths or []:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
    cases, problems = load_cases(paths)
    problems += check_cases(cases)
    for problem in problems:
        out.write(f"{problem}\n")
    if problems:
        out.write(f"{len(problems)} problem(s) in {len(cases)} case(s)\n")
        return EXIT_FAILED
    out.write(f"{len(cases)} cases valid\n")
    return EXIT_OK


def cmd_coverage(args: argparse.Namespace, out: TextIO) -> int:
    """Clause × variant coverage of the corpus; exit 1 on any gap."""
    cases, problems = load_cases()
    if problems:
        for problem in problems:
            out.write(f"{problem}\n")
        return EXIT_FAILED
    report = measure(cases, args.minimum)
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n")
        return EXIT_OK if report.ok else EXIT_FAILED
    names = report.variants
    width = max(len(c) for c in report.counts) if report.counts else 10
    out.write(f"{'clause':<{width}}  " + "  ".join(f"{n:>11}" for n in names) + "\n")
    for clause_id, row in report.counts.items():
        cells = "  ".join(f"{row[n]:>11}" for n in names)
        flag = "  <" if any(row[n] < report.minimum for n in names) else ""
        out.write(f"{clause_id:<{width}}  {cells}{flag}\n")
    out.write(
        f"\n{len(cases)} cases; {len(report.counts)} observable clauses; "
        f"{len(report.unobservable)} no operation can observe:\n"
    )
    for clause_id in report.unobservable:
        out.write(f"  {clause_id}\n")
    out.write(f"{len(report.assumed_cases)} cases rest on an assumed clause in some variant\n")
    for clause_id, slug, n in report.uncovered:
        out.write(
            f"gap: {clause_id} is checked by {n} case(s) in {slug} "
            f"(at least {report.minimum} needed)\n"
        )
    for clause_id, a, b in report.untold_clauses:
        out.write(f"gap: {clause_id} differs between {a} and {b}, but no case shows it\n")
    for a, b in report.untold_pairs:
        out.write(f"gap: the reference set up as {a} passes every case of {b}\n")
    out.write("coverage complete\n" if report.ok else "coverage has gaps\n")
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """Run the corpus against an engine and report; exit 0 only when nothing went wrong."""
    variants = [args.variant] if args.variant else variant_slugs()
    for slug in variants:
        if slug not in variant_slugs():
            raise UsageError(
                f"unknown variant {slug!r}; expected one of: {', '.join(variant_slugs())}"
            )
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    try:
        check_engine_spec(args.engine)
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    resume = []
    if args.resume:
        if not Path(args.resume).exists() and not journal_path(Path(args.resume)).exists():
            raise UsageError(f"--resume {args.resume}: no such report or journal to resume")
        resume = read_previous(Path(args.resume))
    report = Path(args.report) if args.report else (Path(args.resume) if args.resume else None)
    config = RunConfig(
        engine=args.engine,
        variants=variants,
        options=_parse_options(args.option),
        patterns=list(args.k),
        clauses=list(args.clause),
        expect_fail=ExpectFail.read(Path(args.expect_fail)) if args.expect_fail else None,
        timeout=args.timeout,
        jobs=args.jobs,
        journal=journal_path(report) if report else None,
        resume=resume,
    )
    live = out.isatty()

    def progress(result: CaseResult, done: int, total: int) -> None:
        if live:
            out.write(f"\r[{done}/{total}] {result.status.value:<11} {result.key[:60]:<60}")
            out.flush()

    result = run(config, progress)
    if not result.results:
        raise UsageError("no case was selected: check -k, --clause, --variant and --option")
    if live:
        out.write("\r" + " " * 80 + "\r")
    write_text(result, out, verbose=args.verbose)
    if report is not None:
        write_json(result, report)
        journal = journal_path(report)
        if journal.exists():
            journal.unlink()
    if args.junit:
        write_junit(result, Path(args.junit))
    if args.markdown:
        write_markdown(result, Path(args.markdown))
    return EXIT_OK if result.ok else EXIT_FAILED


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Speak the process protocol on stdin/stdout over the reference interpreter."""
    if args.variant and args.variant not in variant_slugs():
        raise UsageError(f"unknown variant {args.variant!r}")
    return serve(args.variant, sys.stdin, out)


# ---------------------------------------------------------------------------------------------
# Parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `guandan` command."""
    parser = argparse.ArgumentParser(
        prog="guandan",
        description="Guandan (摜蛋) rule sets as data, a reference interpreter, the conformance "
        "corpus, and a harness that checks any engine against them.",
    )
    parser.add_argument("--version", action="version", version=f"guandan {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("variants", help="list the bundled variants (slug and title)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("show", help="print a resolved variant with the provenance of each clause")
    p.add_argument("variant", help="a variant slug (see `guandan variants`) or a variant file")
    p.add_argument("--format", choices=["yaml", "json"], default="yaml")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="choose an option (e.g. target=8); may be repeated",
    )
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("validate", help="check variant files (default: every bundled variant)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="variant files or folders of them")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("classify", help="every reading of some cards at a level (認牌)")
    p.add_argument("--variant", required=True, help="a variant slug or file")
    p.add_argument(
        "--level", required=True, help="the level being played: 2-9, 10 or T, J, Q, K, A"
    )
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--json", action="store_true", help="print a JSON array of readings")
    p.add_argument("cards", nargs="+", metavar="CARD", help="cards: H9 ST SB HR, or ♥9 ♠10 小王")
    p.set_defaults(func=cmd_classify)

    p = sub.add_parser("plays", help="the legal plays of a hand (可出的牌)")
    p.add_argument("--variant", required=True, help="a variant slug or file")
    p.add_argument("--level", required=True, help="the level being played")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--previous", metavar="CARDS", help="the play to beat, e.g. 'S3 S4 S5 S6 S7'")
    p.add_argument(
        "--previous-type",
        metavar="TYPE",
        help="the reading of --previous when it reads several ways, e.g. straight",
    )
    p.add_argument("--json", action="store_true", help="print a JSON array of plays")
    p.add_argument("cards", nargs="+", metavar="CARD", help="the hand")
    p.set_defaults(func=cmd_plays)

    p = sub.add_parser("play", help="play a whole match with simple bots (模擬)")
    p.add_argument("--variant", required=True, help="a variant slug or file")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--seed", type=int, required=True, help="the seed of the deals and bots")
    p.add_argument("--bots", choices=["random", "greedy"], default="random")
    p.add_argument("--json", metavar="FILE", help="also write the log as JSON to FILE")
    p.add_argument("--summary", action="store_true", help="print rounds only, not every play")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("cases", help="the conformance corpus")
    cases_sub = p.add_subparsers(dest="cases_command", required=True, metavar="COMMAND")
    c = cases_sub.add_parser("check", help="check every case (schema, ids, clauses, cards)")
    c.add_argument("paths", nargs="*", metavar="PATH", help="case files or folders")
    c.set_defaults(func=cmd_cases_check)

    p = sub.add_parser("coverage", help="clause × variant coverage of the corpus")
    p.add_argument("--json", action="store_true", help="print the coverage as JSON")
    p.add_argument("--minimum", type=int, default=2, help="cases needed per clause and variant")
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("check", help="run the corpus against an engine (the main job)")
    p.add_argument(
        "--engine",
        default="reference",
        help="reference, py:module:attribute, or exec:COMMAND (default: reference)",
    )
    p.add_argument("--variant", help="the variant to check (default: every bundled variant)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="run only the cases written for this option (e.g. target=8)",
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
        help="cases known to fail, one id or id[variant] a line; a listed case that "
        "passes fails the run",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds an engine may take to answer (default 10)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="engines run at once (processes for exec engines)",
    )
    p.add_argument("--report", metavar="FILE.json", help="write the JSON report")
    p.add_argument("--junit", metavar="FILE.xml", help="write a JUnit XML report")
    p.add_argument("--markdown", metavar="FILE.md", help="write a Markdown summary")
    p.add_argument(
        "--resume",
        metavar="FILE.json",
        help="finish an interrupted run that was writing this report",
    )
    p.add_argument("--verbose", action="store_true", help="list every case, not only failures")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("serve", help="speak the process protocol over the reference interpreter")
    p.add_argument("--variant", help="serve only this variant (default: the one each hello asks)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("diff", help="the clauses whose values differ between two variants")
    p.add_argument("a", help="a variant slug or file")
    p.add_argument("b", help="another variant slug or file")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_diff)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the `guandan` command; returns the exit status (0 ok, 1 failed, 2 usage error)."""
    stream = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    func: Callable[[argparse.Namespace, TextIO], int] = args.func
    try:
        return func(args, stream)
    except UsageError as exc:
        sys.stderr.write(f"guandan: {exc}\n")
        return EXIT_USAGE
    except DataError as exc:
        stream.write(f"{exc}\n")
        return EXIT_FAILED
    except HarnessError as exc:
        sys.stderr.write(f"guandan: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, as other command-line tools do.
        sys.stderr.close()
        return EXIT_OK

