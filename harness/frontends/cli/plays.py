"""`guandan classify`, `plays` and `play`: the reference interpreter for people (認牌, 可出的牌,
模擬)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TextIO

from harness.errors import NotationError, UsageError
from harness.frontends.cli._common import (
    EXIT_OK,
    Subparsers,
    add_bots,
    add_format,
    add_option,
    add_output,
    epilog,
    padded,
    variant,
    variant_input,
    words_stream,
    write_output,
)
from harness.interpreter.actions import LegalAction, legal_actions
from harness.interpreter.bots import MatchLog, play_match
from harness.interpreter.classify import classify
from harness.interpreter.legal import legal_plays
from harness.interpreter.readings import SEQUENCE_TYPES, Reading
from harness.model.bounds import SEED
from harness.model.cards import Card, Rank, display, parse_card, parse_hand, parse_rank
from harness.model.ruleset import CombinationType, Ruleset
from harness.wording import counted


def level_arg(text: str) -> Rank:
    """The level (級) a person typed (2-9, 10 or T, J, Q, K, A); a usage error says why not."""
    try:
        rank = parse_rank(text)
    except NotationError as exc:
        raise UsageError(f"--level {text!r}: {exc}") from None
    if rank.is_joker:
        raise UsageError(f"--level {text!r}: a level is a rank 2..A (10 or T for ten)")
    return rank


def cards_arg(tokens: Sequence[str], what: str) -> tuple[Card, ...]:
    """The cards (牌) a person typed, as a hand of two decks; a usage error names the token."""
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
    ruleset = variant(args.variant, args.option)
    level = level_arg(args.level)
    cards = cards_arg(args.cards, "cards")
    result = classify(cards, level, ruleset)
    if args.format == "json":
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


def previous_reading(
    text: str, kind: str | None, ruleset: Ruleset, level: Rank
) -> tuple[tuple[Card, ...], Reading]:
    """The play to beat (上家的牌) a person typed, and its reading: the only one, the one of type
    `kind`, or the default one (逢人配 undeclared); a usage error where none or several fit."""
    cards = cards_arg(text.split(), "--previous")
    found = classify(cards, level, ruleset)
    readings = list(found.readings)
    if kind:
        readings = [r for r in readings if r.type.value == kind]
    if not readings:
        raise UsageError(f"--previous {text!r} is no play at level {level.value}")
    if len(readings) > 1:
        if found.default is not None and found.default in readings:
            return cards, found.default
        kinds = ", ".join(sorted({r.type.value for r in readings}))
        listed = "; ".join(describe_reading(r) for r in readings)
        raise UsageError(
            f"--previous {text!r} reads several ways ({listed}); "
            f"choose with --previous-type ({kinds})"
        )
    return cards, readings[0]


def _previous(args: argparse.Namespace, ruleset: Ruleset, level: Rank) -> Reading | None:
    if args.previous is None:
        return None
    return previous_reading(args.previous, args.previous_type, ruleset, level)[1]


def cmd_plays(args: argparse.Namespace, out: TextIO) -> int:
    """List the legal plays of a hand, as leader or against a previous play."""
    ruleset = variant(args.variant, args.option)
    level = level_arg(args.level)
    hand = cards_arg(args.cards, "hand")
    previous = _previous(args, ruleset, level)
    against = "as leader" if previous is None else f"against {describe_reading(previous)}"
    if args.actions:
        return _write_actions(legal_actions(hand, level, ruleset, previous), args, against, out)
    plays = legal_plays(hand, level, ruleset, previous)
    if args.format == "json":
        rows = [{**p.reading.to_json(), "cards": [c.code for c in p.cards]} for p in plays]
        out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return EXIT_OK
    out.write(f"{counted(len(plays), 'play')} {against}, level {args.level}, {ruleset.slug}:\n")
    for play in plays:
        cards = " ".join(display(c) for c in play.cards)
        out.write(f"  {padded(describe_reading(play.reading), 44)} {cards}\n")
    return EXIT_OK


def _write_actions(
    actions: Sequence[LegalAction], args: argparse.Namespace, against: str, out: TextIO
) -> int:
    """The legal actions (可出的牌組): each distinct set of cards, with its readings."""
    if args.format == "json":
        rows = [
            {"cards": [c.code for c in cards], "readings": [r.to_json() for r in readings]}
            for cards, readings in actions
        ]
        out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return EXIT_OK
    out.write(f"{counted(len(actions), 'action')} {against}, level {args.level}:\n")
    for cards, readings in actions:
        text = " ".join(display(c) for c in cards)
        read = "; ".join(describe_reading(r) for r in readings)
        out.write(f"  {text:<32} {read}\n")
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
    ruleset = variant(args.variant, args.option)
    words = words_stream(args, out, "json")
    log = play_match(ruleset, args.seed, args.bots)
    if args.json:
        write_output(args.json, json.dumps(log.to_json(), ensure_ascii=False, indent=1) + "\n", out)
    write_match_log(log, words, summary=args.summary)
    return EXIT_OK


def register(sub: Subparsers) -> None:
    """Add `classify`, `plays` and `play`."""
    p = sub.add_parser(
        "classify",
        help="every reading of some cards at a level (認牌)",
        epilog=epilog(
            [
                "guandan classify --variant huaian --level 10 ♥10 SJ SQ SK SA",
                "guandan classify --variant competition --level 2 --format json H2 H2",
            ],
            "0 the readings printed (none: the cards are no play)",
        ),
    )
    p.add_argument("--variant", required=True, type=variant_input, help="a variant slug or file")
    p.add_argument(
        "--level", required=True, help="the level being played: 2-9, 10 or T, J, Q, K, A"
    )
    add_option(p)
    add_format(p, old=True)
    p.add_argument("cards", nargs="+", metavar="CARD", help="cards: H9 ST SB HR, or ♥9 ♠10 小王")
    p.set_defaults(func=cmd_classify)

    p = sub.add_parser(
        "plays",
        help="the legal plays of a hand (可出的牌)",
        epilog=epilog(
            ["guandan plays --variant huaian --level 2 --previous 'S3 S4 S5 S6 S7' H5 H6 H7 H8 H9"],
            "0 the plays printed",
        ),
    )
    p.add_argument("--variant", required=True, type=variant_input, help="a variant slug or file")
    p.add_argument("--level", required=True, help="the level being played")
    add_option(p)
    p.add_argument("--previous", metavar="CARDS", help="the play to beat, e.g. 'S3 S4 S5 S6 S7'")
    p.add_argument(
        "--previous-type",
        metavar="TYPE",
        help="the reading of --previous when it reads several ways, e.g. straight",
    )
    add_format(p, old=True)
    p.add_argument(
        "--actions",
        action="store_true",
        help="list every distinct set of cards that can be played, with its readings",
    )
    p.add_argument("cards", nargs="+", metavar="CARD", help="the hand")
    p.set_defaults(func=cmd_plays)

    p = sub.add_parser(
        "play",
        help="play a whole match with simple bots (模擬)",
        epilog=epilog(
            ["guandan play --variant competition --seed 7 --summary --json log.json"],
            "0 the match played",
        ),
    )
    p.add_argument("--variant", required=True, type=variant_input, help="a variant slug or file")
    add_option(p)
    p.add_argument("--seed", type=SEED, required=True, help="the seed of the deals and bots")
    add_bots(p)
    add_output(p, "--json", "FILE", "also write the log as JSON to FILE")
    p.add_argument("--summary", action="store_true", help="print rounds only, not every play")
    p.set_defaults(func=cmd_play)
