// A Guandan engine skeleton speaking the process protocol (spec/protocol.md), in C++17 with
// nlohmann/json (Debian: nlohmann-json3-dev): it reads one JSON object per line on stdin and
// writes one JSON line per message on stdout.
//
// It answers `classify` for 1 to 3 cards (singles, pairs and triples, the heart level card wild)
// and `unsupported` for everything else. Copy it and add operations in OPERATIONS below.
//
//     g++ -std=c++17 -O2 -o engine engine.cpp
//     guandan check --engine "exec:examples/engines/cpp/engine" --variant huaian

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

namespace {

const char* const NAME = "skeleton-cpp";
const char* const VERSION = "0.1.0";

// The bundled variants; all four read 1 to 3 cards alike. A variant file could change those
// rules, so any other variant is refused at the hello (its cases are then unsupported).
const std::vector<std::string> VARIANTS = {"huaian", "competition", "match-rules", "online-app"};

const std::string RANKS = "23456789TJQKA";
const std::string SUITS = "SHCD";
const std::set<std::string> JOKERS = {"SB", "HR"};  // small joker, big joker: no suit
const char* const TYPES[] = {"", "single", "pair", "triple"};

// An error an operation throws to answer `invalid_input` (the input is not what it takes) or
// `unsupported` (this engine does not do that yet: never counted as a failure).
struct ProtocolError : std::runtime_error {
    std::string kind;
    ProtocolError(std::string k, const std::string& message)
        : std::runtime_error(message), kind(std::move(k)) {}
};
ProtocolError invalid(const std::string& m) { return ProtocolError("invalid_input", m); }
ProtocolError unsupported(const std::string& m) { return ProtocolError("unsupported", m); }

// Whether `code` is a card in canonical notation: S9, HT, DA, SB, HR.
bool is_card(const json& code) {
    if (!code.is_string()) return false;
    const auto& s = code.get_ref<const std::string&>();
    if (JOKERS.count(s)) return true;
    return s.size() == 2 && SUITS.find(s[0]) != std::string::npos &&
           RANKS.find(s[1]) != std::string::npos;
}

// Every reading of 1 to 3 cards: {"readings": [...], "default": null}.
json classify(const json& data) {
    const json cards = data.value("cards", json());
    const json level = data.value("level", json());
    if (!cards.is_array()) throw invalid("`cards` must be a list of cards");
    if (!(level.is_string() && level.get<std::string>().size() == 1 &&
          RANKS.find(level.get<std::string>()) != std::string::npos)) {
        throw invalid("`level` must be a rank 2-9, T, J, Q, K or A");
    }
    std::map<std::string, int> seen;
    const size_t n = cards.size();
    for (size_t i = 0; i < n; ++i) {
        if (!is_card(cards[i])) {
            throw invalid("`cards`: card " + std::to_string(i + 1) + " of " + std::to_string(n) +
                          " is not a card");
        }
        const auto code = cards[i].get<std::string>();
        if (++seen[code] > 2) {  // two decks hold two of each card
            throw invalid("`cards`: " + code + " appears more than twice");
        }
    }
    if (n > 3) throw unsupported("this skeleton classifies 1 to 3 cards only");
    // The two hearts of the level rank are wild (逢人配): they stand for any non-joker card,
    // but only beside a natural card; played alone they are plain level cards.
    const std::string wild = "H" + level.get<std::string>();
    std::vector<std::string> naturals;
    for (const auto& c : cards) {
        if (c != wild) naturals.push_back(c.get<std::string>());
    }
    if (naturals.empty()) {
        for (const auto& c : cards) naturals.push_back(c.get<std::string>());
    }
    const size_t wilds = n - naturals.size();
    std::set<std::string> ranks;
    for (const auto& c : naturals) ranks.insert(JOKERS.count(c) ? c : c.substr(1));
    json readings = json::array();
    if (ranks.size() == 1) {
        const std::string rank = *ranks.begin();
        // A wild card never stands for a joker: SB with a wild is no pair.
        if (!JOKERS.count(rank) || wilds == 0) {
            readings.push_back({{"type", TYPES[n]}, {"rank", rank}, {"size", n}});
        }
    }
    // `default` names the reading an undeclared play takes when it reads several ways; one to
    // three cards never do, so it is always null here.
    return {{"readings", readings}, {"default", nullptr}};
}

// Operation name -> function(input) -> output. Add yours here, and they are announced in the
// hello and answered; the other operations are `unsupported`.
const std::map<std::string, std::function<json(const json&)>> OPERATIONS = {
    {"classify", classify},
};

// A name echoed in a message: the string itself, anything else only by what it is.
std::string named(const json& value) {
    return value.is_string() ? value.get<std::string>() : "(not a string)";
}

json error(const std::string& message) { return {{"type", "error"}, {"message", message}}; }

json failure(const json& id, const std::string& kind, const std::string& message) {
    return {{"id", id}, {"error", {{"kind", kind}, {"message", message}}}};
}

// The answer to one request (a request message, or one request of a batch).
json respond(const json& item) {
    const json id = item.value("id", json());
    if (!id.is_number_integer()) {  // not a bool, not 1.0: a whole number
        return failure(nullptr, "invalid_input", "`id` must be a whole number");
    }
    const json operation = item.value("operation", json());
    try {
        if (!operation.is_string() || !OPERATIONS.count(operation.get<std::string>())) {
            throw unsupported("operation " + named(operation) + " is not implemented");
        }
        const json input = item.value("input", json());
        if (!input.is_object()) throw invalid("`input` must be an object");
        return {{"id", id}, {"output", OPERATIONS.at(operation.get<std::string>())(input)}};
    } catch (const ProtocolError& exc) {
        return failure(id, exc.kind, exc.what());
    } catch (const std::exception& exc) {  // a bug in the engine: say so, and keep serving
        return failure(id, "internal", exc.what());
    }
}

// One session: hello first, then requests and batches, then bye.
struct Session {
    bool started = false;

    // Accept the variant and options asked, or refuse them with an error message.
    json hello(const json& message) {
        if (started) return error("hello was already said");
        const json protocol = message.value("protocol", json());
        if (!protocol.is_number_integer() || protocol != 1) {
            return error("this engine speaks protocol 1");
        }
        const json variant = message.value("variant", json());
        json options = message.value("options", json());
        if (options.is_null()) options = json::object();
        const auto known = [&](const std::string& v) { return variant == v; };
        if (std::none_of(VARIANTS.begin(), VARIANTS.end(), known)) {
            std::string names;
            for (const auto& v : VARIANTS) names += (names.empty() ? "" : ", ") + v;
            return error("this engine plays " + names + " only");
        }
        if (!options.is_object()) return error("`options` must be an object");
        started = true;
        json operations = json::array();
        for (const auto& entry : OPERATIONS) operations.push_back(entry.first);
        // Echo the variant and every option as asked: this engine plays them all alike.
        // `rulesets`: the variants named above only, so the cases on derived variants
        // (huaian[flow.pass=...]) are not applicable; say "any" once it plays from `clauses`.
        return {{"type", "hello"},      {"protocol", 1},      {"name", NAME},
                {"version", VERSION},   {"variant", variant}, {"options", options},
                {"operations", operations}, {"rulesets", "named"}};
    }

    // The one message that answers `message` (a parsed line).
    json answer(const json& message) {
        if (!message.is_object()) return error("a message must be a JSON object");
        const json kind = message.value("type", json());
        if (kind == "hello") return hello(message);
        if (kind == "bye") return {{"type", "bye"}};
        if (kind != "request" && kind != "batch") {
            return error("unknown message type " + named(kind));
        }
        if (!started) return error("say hello first");
        if (kind == "request") {
            json reply = respond(message);
            reply["type"] = "response";
            return reply;
        }
        const json id = message.value("id", json());
        const json items = message.value("requests", json());
        if (!id.is_number_integer()) return error("a batch's `id` must be a whole number");
        if (!items.is_array()) return error("a batch needs `requests`");
        // One answer for the whole batch: a response per request, in order.
        json responses = json::array();
        for (const auto& item : items) {
            responses.push_back(item.is_object()
                                    ? respond(item)
                                    : failure(nullptr, "invalid_input", "not an object"));
        }
        return {{"type", "batch"}, {"id", id}, {"responses", responses}};
    }
};

}  // namespace

// The protocol loop: read a line, answer it with one line, flush; stop after bye.
int main() {
    std::ios::sync_with_stdio(false);
    Session session;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r\n") == std::string::npos) continue;  // blank: no answer
        json reply;
        try {
            reply = session.answer(json::parse(line));
        } catch (const json::parse_error&) {  // not JSON, or not UTF-8
            reply = error("not JSON");
        }
        // The harness waits for each line: std::endl flushes, never leave one in the buffer.
        std::cout << reply.dump() << std::endl;
        if (reply["type"] == "bye") return 0;
    }
    return 0;
}
