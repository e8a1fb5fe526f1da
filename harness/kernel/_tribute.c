/* Tribute between rounds (進貢), the return card (還牌), anti-tribute (抗貢) and who leads, on
 * the compact form (issue 52): harness/interpreter/tribute.py `plan_tribute` (`_double`,
 * `_seat`, `tribute_cards`, `return_cards`, `_big_jokers`) and the carrying-out of a plan in
 * harness/interpreter/bots.py `_pay_tribute` and `apply_tribute`, step for step.
 *
 * The tribute's clause values come in a small table R (harness/engine/fast/between_rounds.py
 * `tribute_table`, in the order of the R_* names below); the orders come from the rules' table
 * T at the round's level (the values outside runs, the natural order, the wild card). Nothing
 * here names a variant.
 *
 * Where Python depends on an order this file keeps it: the cards a payer may give and a giver
 * may return are distinct and sorted by `sort_key` (a card's code orders as its `sort_key`);
 * the payments are listed bigger first; the returns follow the payments; a card given or
 * returned is taken as the first equal card of the giver's hand and put at the end of the
 * receiver's (`list.remove`, `list.append`).
 */
#include <string.h>

#define NPLACE 15
#define NSUIT 5
#define NCARD (NPLACE * NSUIT)
#define BIG_JOKER 14
#define PLACE_OF(card) ((card) / NSUIT)
#define SUIT_OF(card) ((card) % NSUIT)

/* The table R, in harness/engine/fast/between_rounds.py `FIELDS` order. */
enum {
    R_ENABLED,               /* tribute.enabled */
    R_SINGLE_PAYER,          /* tribute.single.payer: a place reference (P_*) */
    R_SINGLE_RECEIVER,       /* tribute.single.receiver */
    R_ANTI_BIG_JOKERS,       /* tribute.anti.big_jokers */
    R_ANTI_SINGLE_MANDATORY, /* tribute.anti.single_mandatory */
    R_RETURN_MAX_RANK,       /* tribute.return.max_rank: a rank place, or -1 for any card */
    R_RETURN_TO_PAYER,       /* tribute.return.double_to: 1 the payer, 0 the giver's next seat */
    R_REVEAL,                /* tribute.return.reveal_together: REVEAL_* */
    R_LEAD_SINGLE,           /* tribute.lead.single */
    R_LEAD_DOUBLE,           /* tribute.lead.double */
    R_LEAD_DOUBLE_TIE,       /* tribute.lead.double_tie */
    R_LEAD_ANTI,             /* tribute.lead.anti */
    R_SIZE
};

/* Place references, in the order of `PlaceRef`. */
enum {
    P_FIRST,
    P_SECOND,
    P_THIRD,
    P_LAST,
    P_PAYER,
    P_BIGGER_PAYER,
    P_SMALLER_PAYER,
    P_FIRST_NEXT,
    P_FIRST_PREVIOUS
};
enum { REVEAL_NEVER, REVEAL_DOUBLE, REVEAL_TIE };      /* `RevealWhen` */
enum { ANTI_NONE, ANTI_MUST, ANTI_MAY };                /* `AntiTribute` */

/* Errors, as negative returns (nothing is then written to the hands). */
#define TR_ERR_MEMORY (-1) /* as _round.h says of a bot */
#define TR_ERR_ROOM (-2)   /* `out` too small */
#define TR_ERR_PLACE (-3)  /* a place reference names nobody in this tribute */
#define TR_ERR_CARDS (-4)  /* bad hands or finish, a card not held, a hand over GD_MAX_HAND */
#define TR_ERR_BOT (-5)    /* a bot failed */

int32_t gd_bot_choose(const int32_t *options, int32_t m); /* _bot.c */

/* A plan (`TributePlan`): payments bigger first, the returns in the payments' order. */
typedef struct {
    int anti, leader, anti_leader, reveal, tie;
    int np, nr;
    int payer[2], receiver[2], offered[2];
    int32_t offers[2][NCARD];
    int giver[2], to[2], returnable[2];
    int32_t returns[2][NCARD];
} TributePlan;

static int next_seat(int seat) { return (seat + 1) & 3; }
static int previous_seat(int seat) { return (seat + 3) & 3; }
static int team(int seat) { return seat & 1; }

/* `_seat`: the seat a place reference names after the finish `order`, or -1 for nobody (the
 * payers only where the tribute has them). */
static int seat_of(int ref, const int32_t *order, int payer, int bigger, int smaller) {
    switch (ref) {
    case P_FIRST: return order[0];
    case P_SECOND: return order[1];
    case P_THIRD: return order[2];
    case P_LAST: return order[3];
    case P_PAYER: return payer;
    case P_BIGGER_PAYER: return bigger;
    case P_SMALLER_PAYER: return smaller;
    case P_FIRST_NEXT: return next_seat(order[0]);
    case P_FIRST_PREVIOUS: return previous_seat(order[0]);
    default: return -1;
    }
}

/* `tribute_cards`: the distinct cards of the highest value (`rules.value`) in the hand, the
 * wild card (逢人配) left out, by `sort_key`; their count. `worth` is that value, or -1 where
 * the hand holds nothing but wild cards (`max(..., default=-1)` in `_double`). */
static int tribute_cards(const int32_t *T, const int32_t *hand, int n, int32_t *out,
                         int *worth) {
    const int32_t *value = T + OFF_VALUE;
    uint8_t held[NCARD];
    int best = -1;
    memset(held, 0, sizeof held);
    for (int i = 0; i < n; i++) {
        int32_t c = hand[i];
        if (PLACE_OF(c) == T[OFF_LEVEL] && SUIT_OF(c) == T[OFF_WILD_SUIT]) continue;
        held[c] = 1;
        if (value[PLACE_OF(c)] > best) best = value[PLACE_OF(c)];
    }
    int m = 0;
    for (int c = 0; c < NCARD; c++)
        if (held[c] && value[PLACE_OF(c)] == best) out[m++] = c;
    *worth = m ? best : -1;
    return m;
}

/* `return_cards`: the distinct cards of the hand that may go back, by `sort_key`: any, or no
 * joker and of natural rank (`ranks.natural`) at most the place `max_place` (10以下 counts by
 * the natural order, so a level card of 10 or lower may go back). */
static int return_cards(const int32_t *T, const int32_t *hand, int n, int max_place,
                        int32_t *out) {
    const int32_t *natural = T + OFF_NATURAL_INDEX;
    uint8_t held[NCARD];
    memset(held, 0, sizeof held);
    for (int i = 0; i < n; i++) {
        int32_t c = hand[i];
        if (max_place >= 0 &&
            (PLACE_OF(c) >= 13 || natural[PLACE_OF(c)] > natural[max_place]))
            continue;
        held[c] = 1;
    }
    int m = 0;
    for (int c = 0; c < NCARD; c++)
        if (held[c]) out[m++] = c;
    return m;
}

/* `_big_jokers`: how many big jokers (大王) the hand holds. */
static int big_jokers(const int32_t *hand, int n) {
    int k = 0;
    for (int i = 0; i < n; i++) k += PLACE_OF(hand[i]) == BIG_JOKER;
    return k;
}

/* A payment (payer to receiver, the payer's offers) and its return duty (the receiver's own
 * cards, as dealt, back to `to`). */
static void add_payment(TributePlan *p, const int32_t *T, const int32_t *R,
                        const int32_t *const *hands, const int32_t *counts, int payer,
                        int receiver, int to) {
    int i = p->np++;
    int worth;
    p->payer[i] = payer;
    p->receiver[i] = receiver;
    p->offered[i] = tribute_cards(T, hands[payer], counts[payer], p->offers[i], &worth);
    int j = p->nr++;
    p->giver[j] = receiver;
    p->to[j] = to;
    p->returnable[j] =
        return_cards(T, hands[receiver], counts[receiver], R[R_RETURN_MAX_RANK], p->returns[j]);
}

/* `_double`: after a double-down (雙下), both losers pay, the bigger tribute to the first;
 * equal ones each to its 上家 (順時針); both winners return. */
static int plan_double(TributePlan *p, const int32_t *T, const int32_t *R,
                       const int32_t *order, const int32_t *const *hands,
                       const int32_t *counts) {
    int payers[2], k = 0;
    for (int i = 0; i < 4; i++)
        if (team(order[i]) != team(order[0])) payers[k++] = order[i];
    int anti_leader = seat_of(R[R_LEAD_ANTI], order, -1, -1, -1);
    if (anti_leader < 0) return TR_ERR_PLACE;
    int jokers = big_jokers(hands[payers[0]], counts[payers[0]]) +
                 big_jokers(hands[payers[1]], counts[payers[1]]);
    if (jokers >= R[R_ANTI_BIG_JOKERS]) {
        p->anti = ANTI_MUST;
        p->leader = p->anti_leader = anti_leader;
        return 0;
    }
    int32_t scratch[NCARD];
    int worth[2];
    for (int i = 0; i < 2; i++)
        tribute_cards(T, hands[payers[i]], counts[payers[i]], scratch, &worth[i]);
    int a = payers[0], b = payers[1];
    int bigger, smaller, to_bigger, to_smaller;
    p->tie = worth[0] == worth[1];
    if (p->tie) {
        bigger = previous_seat(a) == order[0] ? a : b;
        smaller = bigger == a ? b : a;
        to_bigger = previous_seat(bigger);
        to_smaller = previous_seat(smaller);
    } else {
        /* `sorted(payers, key=worth, reverse=True)`: the greater worth first. */
        bigger = worth[0] > worth[1] ? a : b;
        smaller = bigger == a ? b : a;
        to_bigger = order[0];
        to_smaller = order[1];
    }
    int back_bigger = R[R_RETURN_TO_PAYER] ? bigger : next_seat(to_bigger);
    int back_smaller = R[R_RETURN_TO_PAYER] ? smaller : next_seat(to_smaller);
    add_payment(p, T, R, hands, counts, bigger, to_bigger, back_bigger);
    add_payment(p, T, R, hands, counts, smaller, to_smaller, back_smaller);
    p->leader = seat_of(p->tie ? R[R_LEAD_DOUBLE_TIE] : R[R_LEAD_DOUBLE], order, -1, bigger,
                        smaller);
    if (p->leader < 0) return TR_ERR_PLACE;
    p->anti_leader = -1;
    p->reveal = R[R_REVEAL] == REVEAL_DOUBLE || (R[R_REVEAL] == REVEAL_TIE && p->tie);
    return 0;
}

/* `plan_tribute`: the tribute before a round after the finish `order`, with the new hands. */
static int plan(TributePlan *p, const int32_t *T, const int32_t *R, const int32_t *order,
                const int32_t *const *hands, const int32_t *counts) {
    memset(p, 0, sizeof *p);
    p->anti = ANTI_NONE;
    p->anti_leader = -1;
    if (!R[R_ENABLED]) {
        p->leader = order[0];
        return 0;
    }
    /* A double-down: the first's partner (對家) finished second. */
    if (order[1] == ((order[0] + 2) & 3)) return plan_double(p, T, R, order, hands, counts);
    int payer = seat_of(R[R_SINGLE_PAYER], order, -1, -1, -1);
    int receiver = seat_of(R[R_SINGLE_RECEIVER], order, -1, -1, -1);
    int anti_leader = seat_of(R[R_LEAD_ANTI], order, -1, -1, -1);
    if (payer < 0 || receiver < 0 || anti_leader < 0) return TR_ERR_PLACE;
    if (big_jokers(hands[payer], counts[payer]) >= R[R_ANTI_BIG_JOKERS]) {
        p->anti = R[R_ANTI_SINGLE_MANDATORY] ? ANTI_MUST : ANTI_MAY;
        if (p->anti == ANTI_MUST) {
            p->leader = p->anti_leader = anti_leader;
            return 0;
        }
    }
    add_payment(p, T, R, hands, counts, payer, receiver, payer);
    p->leader = seat_of(R[R_LEAD_SINGLE], order, payer, -1, -1);
    if (p->leader < 0) return TR_ERR_PLACE;
    p->anti_leader = p->anti == ANTI_MAY ? anti_leader : -1;
    return 0;
}

/* Whether the finish is a permutation of the seats and the hands are cards, each within
 * GD_MAX_HAND. */
static int valid(const int32_t *order, const int32_t *hands, const int32_t *counts) {
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        if (order[i] < 0 || order[i] > 3 || (seen >> order[i] & 1)) return 0;
        seen |= 1 << order[i];
        if (counts[i] < 0 || counts[i] > GD_MAX_HAND) return 0;
        for (int j = 0; j < counts[i]; j++) {
            int32_t c = hands[i * GD_MAX_HAND + j];
            if (c < 0 || c >= NCARD || (PLACE_OF(c) >= 13) != (SUIT_OF(c) == 4)) return 0;
        }
    }
    return 1;
}

/* The plan as records in `out` (see gd_tribute_plan); the ints written, or TR_ERR_ROOM. */
static int64_t write_plan(const TributePlan *p, const int32_t *R, int32_t *out, int64_t room) {
    int64_t need = 7;
    for (int i = 0; i < p->np; i++) need += 3 + p->offered[i];
    for (int i = 0; i < p->nr; i++) need += 4 + p->returnable[i];
    if (need > room) return TR_ERR_ROOM;
    int64_t at = 0;
    out[at++] = p->anti;
    out[at++] = p->leader;
    out[at++] = p->anti_leader;
    out[at++] = p->reveal;
    out[at++] = p->tie;
    out[at++] = p->np;
    out[at++] = p->nr;
    for (int i = 0; i < p->np; i++) {
        out[at++] = p->payer[i];
        out[at++] = p->receiver[i];
        out[at++] = p->offered[i];
        memcpy(out + at, p->offers[i], sizeof(int32_t) * (size_t)p->offered[i]);
        at += p->offered[i];
    }
    for (int i = 0; i < p->nr; i++) {
        out[at++] = p->giver[i];
        out[at++] = p->to[i];
        out[at++] = R[R_RETURN_MAX_RANK];
        out[at++] = p->returnable[i];
        memcpy(out + at, p->returns[i], sizeof(int32_t) * (size_t)p->returnable[i]);
        at += p->returnable[i];
    }
    return at;
}

/* Check the input, plan and write the plan: the ints written, or a negative TR_ERR_*. */
static int64_t planned(TributePlan *p, const int32_t *T, const int32_t *R, const int32_t *order,
                       const int32_t *hands, const int32_t *counts, int32_t *out,
                       int64_t room) {
    if (!T || !R || !order || !hands || !counts || !out) return TR_ERR_CARDS;
    if (!valid(order, hands, counts)) return TR_ERR_CARDS;
    const int32_t *seats[4];
    for (int s = 0; s < 4; s++) seats[s] = hands + s * GD_MAX_HAND;
    int failed = plan(p, T, R, order, seats, counts);
    if (failed) return failed;
    return write_plan(p, R, out, room);
}

/* The plan of the tribute after the finish `order` (4 seats), with `hands` (4 * GD_MAX_HAND,
 * `counts` of each), written to `out` as
 *   [anti, leader, anti_leader (-1: none), reveal_together, tie, np, nr,
 *    np * (payer, receiver, m, card_1 .. card_m),
 *    nr * (giver, receiver, max_rank place (-1: any), m, card_1 .. card_m)];
 * returns the ints written, or a negative TR_ERR_*. */
int64_t gd_tribute_plan(const int32_t *T, const int32_t *R, const int32_t *order,
                        const int32_t *hands, const int32_t *counts, int32_t *out,
                        int64_t room) {
    TributePlan p;
    return planned(&p, T, R, order, hands, counts, out, room);
}

/* `apply_tribute` for one card: the first equal card of the giver's hand to the end of the
 * receiver's. Where it was in the giver's hand, or -1 when the giver does not hold it or the
 * receiver's hand is full. */
static int move(int32_t *hands, int32_t *counts, int giver, int receiver, int32_t card) {
    int32_t *from = hands + giver * GD_MAX_HAND;
    int at = -1;
    for (int j = 0; j < counts[giver]; j++)
        if (from[j] == card) {
            at = j;
            break;
        }
    if (at < 0 || counts[receiver] >= GD_MAX_HAND + (giver == receiver)) return -1;
    memmove(from + at, from + at + 1, sizeof(int32_t) * (size_t)(counts[giver] - at - 1));
    counts[giver]--;
    hands[receiver * GD_MAX_HAND + counts[receiver]++] = card;
    return at;
}

/* Move the cards of `k` moves (from, to, card) in turn, each recorded in `out` as (from, to,
 * card, where it was in the giver's hand); the ints written, or TR_ERR_CARDS. */
static int64_t moved(int32_t *hands, int32_t *counts, int k, const int *from, const int *to,
                     const int32_t *cards, int32_t *out) {
    for (int i = 0; i < k; i++) {
        int at = move(hands, counts, from[i], to[i], cards[i]);
        if (at < 0) return TR_ERR_CARDS;
        out[4 * i] = from[i];
        out[4 * i + 1] = to[i];
        out[4 * i + 2] = cards[i];
        out[4 * i + 3] = at;
    }
    return 4 * k;
}

/* The tribute carried out with the bots (`_pay_tribute`): anti-tribute where it must be, or
 * may be and the payer claims it (bit `payer` of `resist`: `bot.resist()`); else each payer's
 * card (`choose`, the first by `sort_key`), then each receiver's return (`give_back`, of the
 * seat's C bot in `bots`, whose memory it sets), a duty with no card skipped. The cards move
 * in `hands` and `counts` (in and out, left as they were on an error). Writes the plan to
 * `out` as gd_tribute_plan does, then
 *   [anti_tribute, ng, ng * (from, to, card, at), nr, nr * (from, to, card, at)],
 * `at` where the card was in the giver's hand when it left (the moves are made in that order:
 * the payments', then the returns'); returns the ints written, or a negative TR_ERR_*. The
 * leader is the plan's, or its anti_leader after anti-tribute. */
int64_t gd_tribute_pay(const int32_t *T, const int32_t *B, const int32_t *R, int32_t rules_id,
                       gd_lister lister, void *const *bots, int32_t resist,
                       const int32_t *order, int32_t *hands, int32_t *counts, int32_t *out,
                       int64_t room) {
    if (!bots) return TR_ERR_BOT;
    TributePlan p;
    int64_t at = planned(&p, T, R, order, hands, counts, out, room);
    if (at < 0) return at;
    int anti = p.anti == ANTI_MUST || (p.anti == ANTI_MAY && (resist >> p.payer[0] & 1));
    if (at + 3 + 4 * (p.np + p.nr) > room) return TR_ERR_ROOM;
    out[at++] = anti;
    if (anti) {
        out[at++] = 0;
        out[at++] = 0;
        return at;
    }
    int32_t after[4 * GD_MAX_HAND], left[4], cards[2];
    int from[2], to[2];
    memcpy(after, hands, sizeof after);
    memcpy(left, counts, sizeof left);
    for (int i = 0; i < p.np; i++) {
        cards[i] = gd_bot_choose(p.offers[i], p.offered[i]);
        if (cards[i] < 0) return TR_ERR_BOT;
        from[i] = p.payer[i];
        to[i] = p.receiver[i];
    }
    out[at++] = p.np;
    int64_t written = moved(after, left, p.np, from, to, cards, out + at);
    if (written < 0) return written;
    at += written;
    /* Every return is chosen holding the hands after the payments, before any return (the
     * duty lists the giver's own cards, as dealt: never the tribute card just received). */
    int k = 0;
    for (int i = 0; i < p.nr; i++) {
        if (!p.returnable[i]) continue;
        int g = p.giver[i];
        cards[k] = gd_bot_give_back(bots[g], T, B, rules_id, lister, after + g * GD_MAX_HAND,
                                    left[g], p.returns[i], p.returnable[i]);
        if (cards[k] < 0) return cards[k] == TR_ERR_MEMORY ? TR_ERR_MEMORY : TR_ERR_BOT;
        from[k] = g;
        to[k++] = p.to[i];
    }
    out[at++] = k;
    written = moved(after, left, k, from, to, cards, out + at);
    if (written < 0) return written;
    memcpy(hands, after, sizeof after);
    memcpy(counts, left, sizeof left);
    return at + written;
}

int32_t gd_tribute_table_size(void) { return R_SIZE; }
