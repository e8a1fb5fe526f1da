#!/usr/bin/env python3
"""A Guandan engine skeleton speaking the process protocol (spec/protocol.md), standard library
only: it reads one JSON object per line on stdin and writes one JSON line per message on stdout.

It answers `classify` for 1 to 3 cards (singles, pairs and triples, the heart level card wild)
and `unsupported` for everything else. Copy it and add operations in OPERATIONS below.

    guandan check --engine "exec:python3 examples/engines/python/engine.py" --variant huaian
"""

import json
import sys

NAME, VERSION = "skeleton-python", "0.1.0"

# The bundled variants; all four read 1 to 3 cards alike. A variant file could change those
# rules, so any other variant is refused at the hello (its cases are then unsupported).
VARIANTS = ("huaian", "competition", "match-rules", "online-app")

RANKS = "23456789TJQKA"
SUITS = "SHCD"
JOKERS = ("SB", "HR")  # small joker, big joker: two-letter codes, no suit
TYPES = {1: "single", 2: "pair", 3: "triple"}


class InputError(Exception):
    """The input is not what the operation takes: answered `invalid_input`."""


class Unsupported(Exception):
    """This engine does not do that (yet): answered `unsupported`, never a failure."""


def is_card(code):
    """Whether `code` is a card in canonical notation: S9, HT, DA, SB, HR."""
    if code in JOKERS:
        return True
    return isinstance(code, str) and len(code) == 2 and code[0] in SUITS and code[1] in RANKS


def classify(data):
    """Every reading of 1 to 3 cards: {"readings": [...], "default": null}."""
    cards, level = data.get("cards"), data.get("level")
    if not isinstance(cards, list):
        raise InputError("`cards` must be a list of cards")
    if not (isinstance(level, str) and len(level) == 1 and level in RANKS):
        raise InputError("`level` must be a rank 2-9, T, J, Q, K or A")
    seen = {}
    for i, code in enumerate(cards):
        if not is_card(code):
            raise InputError(f"`cards`: card {i + 1} of {len(cards)} is not a card")
        seen[code] = seen.get(code, 0) + 1
        if seen[code] > 2:  # two decks hold two of each card
            raise InputError(f"`cards`: {code} appears more than twice")
    if len(cards) > 3:
        raise Unsupported("this skeleton classifies 1 to 3 cards only")
    # The two hearts of the level rank are wild (逢人配): they stand for any non-joker card,
    # but only beside a natural card; played alone they are plain level cards.
    wild = "H" + level
    naturals = [c for c in cards if c != wild] or cards
    wilds = len(cards) - len(naturals)
    ranks = {c if c in JOKERS else c[1] for c in naturals}
    readings = []
    if len(ranks) == 1:
        (rank,) = ranks
        # A wild card never stands for a joker: SB with a wild is no pair.
        if rank not in JOKERS or wilds == 0:
            readings.append({"type": TYPES[len(cards)], "rank": rank, "size": len(cards)})
    # `default` names the reading an undeclared play takes when it reads several ways; one to
    # three cards never do, so it is always null here.
    return {"readings": readings, "default": None}


# Operation name -> function(input) -> output. Add yours here, and they are announced in the
# hello and answered; the other operations are `unsupported`.
OPERATIONS = {"classify": classify}


def failure(request_id, kind, message):
    """A response that gives an error instead of an output."""
    return {"id": request_id, "error": {"kind": kind, "message": message}}


def respond(item):
    """The answer to one request (a request message, or one request of a batch)."""
    request_id = item.get("id")
    if type(request_id) is not int:  # not a bool, not 1.0: a whole number
        return failure(None, "invalid_input", "`id` must be a whole number")
    operation, data = item.get("operation"), item.get("input")
    try:
        if not isinstance(operation, str) or operation not in OPERATIONS:
            raise Unsupported(f"operation {name(operation)} is not implemented")
        if not isinstance(data, dict):
            raise InputError("`input` must be an object")
        return {"id": request_id, "output": OPERATIONS[operation](data)}
    except Unsupported as exc:
        return failure(request_id, "unsupported", str(exc))
    except InputError as exc:
        return failure(request_id, "invalid_input", str(exc))
    except Exception as exc:  # a bug in the engine: say so, and keep serving
        return failure(request_id, "internal", repr(exc))


def error(message):
    """The `error` message: for a line that is no message this engine can answer."""
    return {"type": "error", "message": message}


def name(value):
    """A name echoed in a message: the string itself, anything else only by what it is."""
    return value if isinstance(value, str) else "(not a string)"


class Session:
    """One session: hello first, then requests and batches, then bye."""

    def __init__(self):
        self.started = False

    def answer(self, message):
        """The one message that answers `message` (a parsed line)."""
        if not isinstance(message, dict):
            return error("a message must be a JSON object")
        kind = message.get("type")
        if kind == "hello":
            return self.hello(message)
        if kind == "bye":
            return {"type": "bye"}
        if kind not in ("request", "batch"):
            return error(f"unknown message type {name(kind)}")
        if not self.started:
            return error("say hello first")
        if kind == "request":
            return {"type": "response", **respond(message)}
        batch_id, items = message.get("id"), message.get("requests")
        if type(batch_id) is not int:
            return error("a batch's `id` must be a whole number")
        if not isinstance(items, list):
            return error("a batch needs `requests`")
        # One answer for the whole batch: a response per request, in order.
        responses = [
            respond(i) if isinstance(i, dict) else failure(None, "invalid_input", "not an object")
            for i in items
        ]
        return {"type": "batch", "id": batch_id, "responses": responses}

    def hello(self, message):
        """Accept the variant and options asked, or refuse them with an error message."""
        if self.started:
            return error("hello was already said")
        if type(message.get("protocol")) is not int or message["protocol"] != 1:
            return error("this engine speaks protocol 1")
        variant, options = message.get("variant"), message.get("options")
        if options is None:
            options = {}
        if variant not in VARIANTS:
            return error(f"this engine plays {', '.join(VARIANTS)} only")
        if not isinstance(options, dict):
            return error("`options` must be an object")
        self.started = True
        # Echo the variant and every option as asked: this engine plays them all alike.
        return {
            "type": "hello",
            "protocol": 1,
            "name": NAME,
            "version": VERSION,
            "variant": variant,
            "options": options,
            "operations": list(OPERATIONS),
            # The variants named above only: the cases on derived variants
            # (huaian[flow.pass=...]) are then not applicable. Say "any" once the engine plays
            # from the hello's `clauses`.
            "rulesets": "named",
        }


def main():
    """The protocol loop: read a line, answer it with one line, flush; stop after bye."""
    session = Session()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue  # blank lines get no answer
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested too deep
            answer = error("not JSON")
        else:
            answer = session.answer(message)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()  # the harness waits for each line: never leave one in the buffer
        if answer["type"] == "bye":
            return


if __name__ == "__main__":
    main()
