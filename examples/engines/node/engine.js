#!/usr/bin/env node
// A Guandan engine skeleton speaking the process protocol (spec/protocol.md), no dependencies:
// it reads one JSON object per line on stdin and writes one JSON line per message on stdout.
//
// It answers `classify` for 1 to 3 cards (singles, pairs and triples, the heart level card wild)
// and `unsupported` for everything else. Copy it and add operations in OPERATIONS below.
//
//     guandan check --engine "exec:node examples/engines/node/engine.js" --variant huaian
"use strict";

const readline = require("readline");

const NAME = "skeleton-node";
const VERSION = "0.1.0";

// The bundled variants; all four read 1 to 3 cards alike. A variant file could change those
// rules, so any other variant is refused at the hello (its cases are then unsupported).
const VARIANTS = ["huaian", "competition", "match-rules", "online-app"];

const RANKS = "23456789TJQKA";
const SUITS = "SHCD";
const JOKERS = ["SB", "HR"]; // small joker, big joker: two-letter codes, no suit
const TYPES = { 1: "single", 2: "pair", 3: "triple" };

// An error an operation throws to answer `invalid_input` (the input is not what it takes) or
// `unsupported` (this engine does not do that yet: never counted as a failure).
class ProtocolError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}
const invalid = (message) => new ProtocolError("invalid_input", message);
const unsupported = (message) => new ProtocolError("unsupported", message);

// Whether `code` is a card in canonical notation: S9, HT, DA, SB, HR.
function isCard(code) {
  if (JOKERS.includes(code)) return true;
  return typeof code === "string" && code.length === 2 && SUITS.includes(code[0]) &&
    RANKS.includes(code[1]);
}

// Every reading of 1 to 3 cards: {"readings": [...], "default": null}.
function classify(data) {
  const { cards, level } = data;
  if (!Array.isArray(cards)) throw invalid("`cards` must be a list of cards");
  if (!(typeof level === "string" && level.length === 1 && RANKS.includes(level))) {
    throw invalid("`level` must be a rank 2-9, T, J, Q, K or A");
  }
  const seen = new Map();
  cards.forEach((code, i) => {
    if (!isCard(code)) throw invalid(`\`cards\`: card ${i + 1} of ${cards.length} is not a card`);
    seen.set(code, (seen.get(code) || 0) + 1);
    // Two decks hold two of each card.
    if (seen.get(code) > 2) throw invalid(`\`cards\`: ${code} appears more than twice`);
  });
  if (cards.length > 3) throw unsupported("this skeleton classifies 1 to 3 cards only");
  // The two hearts of the level rank are wild (逢人配): they stand for any non-joker card,
  // but only beside a natural card; played alone they are plain level cards.
  const wild = "H" + level;
  let naturals = cards.filter((c) => c !== wild);
  if (naturals.length === 0) naturals = cards;
  const wilds = cards.length - naturals.length;
  const ranks = new Set(naturals.map((c) => (JOKERS.includes(c) ? c : c[1])));
  const readings = [];
  if (ranks.size === 1) {
    const [rank] = ranks;
    // A wild card never stands for a joker: SB with a wild is no pair.
    if (!JOKERS.includes(rank) || wilds === 0) {
      readings.push({ type: TYPES[cards.length], rank, size: cards.length });
    }
  }
  // `default` names the reading an undeclared play takes when it reads several ways; one to
  // three cards never do, so it is always null here.
  return { readings, default: null };
}

// Operation name -> function(input) -> output. Add yours here, and they are announced in the
// hello and answered; the other operations are `unsupported`.
const OPERATIONS = { classify };

// A name echoed in a message: the string itself, anything else only by what it is.
const named = (value) => (typeof value === "string" ? value : "(not a string)");
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const error = (message) => ({ type: "error", message });
// A response that gives an error instead of an output.
const failure = (id, kind, message) => ({ id, error: { kind, message } });

// The answer to one request (a request message, or one request of a batch).
function respond(item) {
  const id = item.id;
  if (!Number.isInteger(id)) {
    return failure(null, "invalid_input", "`id` must be a whole number");
  }
  try {
    // Object.hasOwn, not `in`: "toString" is in every object.
    if (typeof item.operation !== "string" || !Object.hasOwn(OPERATIONS, item.operation)) {
      throw unsupported(`operation ${named(item.operation)} is not implemented`);
    }
    if (!isObject(item.input)) throw invalid("`input` must be an object");
    return { id, output: OPERATIONS[item.operation](item.input) };
  } catch (exc) {
    // A ProtocolError is the answer; anything else is a bug in the engine: say so, serve on.
    const kind = exc instanceof ProtocolError ? exc.kind : "internal";
    return failure(id, kind, String(exc.message || exc));
  }
}

let started = false;

// Accept the variant and options asked, or refuse them with an error message.
function hello(message) {
  if (started) return error("hello was already said");
  if (message.protocol !== 1) return error("this engine speaks protocol 1");
  const variant = message.variant;
  const options = message.options === undefined || message.options === null ? {} : message.options;
  if (!VARIANTS.includes(variant)) return error(`this engine plays ${VARIANTS.join(", ")} only`);
  if (!isObject(options)) return error("`options` must be an object");
  started = true;
  // Echo the variant and every option as asked: this engine plays them all alike.
  return {
    type: "hello",
    protocol: 1,
    name: NAME,
    version: VERSION,
    variant,
    options,
    operations: Object.keys(OPERATIONS),
    // The variants named above only: the cases on derived variants (huaian[flow.pass=...]) are
    // then not applicable. Say "any" once the engine plays from the hello's `clauses`.
    rulesets: "named",
  };
}

// The one message that answers `message` (a parsed line): hello first, then requests and
// batches, then bye.
function answer(message) {
  if (!isObject(message)) return error("a message must be a JSON object");
  const kind = message.type;
  if (kind === "hello") return hello(message);
  if (kind === "bye") return { type: "bye" };
  if (kind !== "request" && kind !== "batch") return error(`unknown message type ${named(kind)}`);
  if (!started) return error("say hello first");
  if (kind === "request") return { type: "response", ...respond(message) };
  if (!Number.isInteger(message.id)) return error("a batch's `id` must be a whole number");
  if (!Array.isArray(message.requests)) return error("a batch needs `requests`");
  // One answer for the whole batch: a response per request, in order.
  const responses = message.requests.map((item) =>
    isObject(item) ? respond(item) : failure(null, "invalid_input", "not an object"));
  return { type: "batch", id: message.id, responses };
}

// The protocol loop: read a line, answer it with one line; stop after bye. Node writes each
// line out in order (no flush needed); the process exits once the bye is written.
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let ended = false; // lines read ahead of the bye still arrive: they get no answer
lines.on("line", (line) => {
  if (ended || !line.trim()) return; // blank lines get no answer either
  let message;
  try {
    message = JSON.parse(line);
  } catch (exc) {
    process.stdout.write(JSON.stringify(error("not JSON")) + "\n");
    return;
  }
  const reply = answer(message);
  if (reply.type === "bye") {
    ended = true;
    lines.close();
    process.stdout.write(JSON.stringify(reply) + "\n", () => process.exit(0));
    return;
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
