/* A whole round played by four bots on the compact form (一局, issue 52): turns, tricks,
 * passes, 接風/借風, the finishing order and the early end, as harness/interpreter/round.py
 * `RoundState` plays them, each bot asked through an actor (gd_bot_act, or a test's own).
 *
 * The flow's clause values come in a small table F (harness/engine/fast/fast_rounds.py `flow_table`):
 * nothing here names a variant. A bot's action is checked as far as the round needs (the seat
 * holds the cards; a pass is allowed), never trusted to corrupt the hands.
 */
#include <stdlib.h>
#include <string.h>

enum { F_PASS_ALWAYS = 0, F_JIEFENG_PARTNER = 1, F_EARLY_END = 2 };

/* A record per action in `out`: [seat, led, kind, reading, n, card_1 .. card_n], `led` 1 when
 * the action began a trick, `kind` 1 for a play and 0 for a pass (reading 0, n 0). */
#define REC_HEAD 5

/* Errors, as negative returns (the round is then not logged at all). */
#define GD_ERR_MEMORY (-1)
#define GD_ERR_ROOM (-2)
#define GD_ERR_PASS (-3)  /* a pass where none is allowed */
#define GD_ERR_CARDS (-4) /* a play of cards the seat does not hold, or of none */
#define GD_ERR_BOT (-5)   /* an actor's own error */

int gd_ladder_step(const int32_t *T, int32_t reading); /* _kernel.c: -1 off the ladder */

typedef int32_t (*gd_actor)(void *bot, const GdRoundView *view, int32_t seat, int32_t *cards,
                            int32_t *n, int32_t *reading);

static int team(int seat) { return seat & 1; }
static int partner(int seat) { return (seat + 2) & 3; }

/* The next seat after `seat` still holding cards (出牌順序, flow.turn). */
static int next_holding(int seat, int32_t out_mask) {
    int probe = (seat + 1) & 3;
    while (out_mask >> probe & 1) probe = (probe + 1) & 3;
    return probe;
}

/* Whether the first two out are partners (雙下). */
static int double_down(const int32_t *order, int nout) {
    return nout >= 2 && team(order[0]) == team(order[1]);
}

/* Remove `cards` from `hand`, each the first equal card still there (the reference's cards are
 * interned: removing by identity removes the first equal one). 0 when one is not held. */
static int take(int32_t *hand, int32_t *count, const int32_t *cards, int n) {
    for (int i = 0; i < n; i++) {
        int at = -1;
        for (int j = 0; j < *count; j++)
            if (hand[j] == cards[i]) {
                at = j;
                break;
            }
        if (at < 0) return 0;
        memmove(hand + at, hand + at + 1, sizeof(int32_t) * (size_t)(*count - at - 1));
        (*count)--;
    }
    return 1;
}

/* Play a round to its end: `hands` (4 * GD_MAX_HAND, each seat's cards in order, `counts` of
 * them), the first leader, the actors and their bots. `ids[0]` is the next fresh hand identity
 * (in and out: identities stay unique across the rounds a bot remembers). Writes the actions'
 * records to `out` and the order seats went out to `order` (its length returned in
 * `order[4]`, then the tricks, the plays and the bombs in `order[5..7]`); returns the ints
 * written, or a negative GD_ERR_*. */
int64_t gd_play_round(const int32_t *T, const int32_t *B, const int32_t *F, int32_t rules_id,
                      gd_lister lister, gd_actor actor, void *const *bots,
                      const int32_t *hands_in, const int32_t *counts_in, int32_t leader,
                      int32_t *ids, int32_t *out, int64_t room, int32_t *order) {
    int32_t hands[4][GD_MAX_HAND];
    int32_t cards[GD_MAX_PLAY];
    int32_t scratch[4096];
    GdRoundView view;
    int64_t at = 0;
    int32_t out_mask = 0;
    int nout = 0;
    int passes = 0;
    int tricks = 0, plays = 0, bombs = 0;
    memset(&view, 0, sizeof view);
    view.T = T;
    view.B = B;
    view.rules_id = rules_id;
    view.lister = lister;
    for (int s = 0; s < 4; s++) {
        if (counts_in[s] < 0 || counts_in[s] > GD_MAX_HAND) return GD_ERR_CARDS;
        memcpy(hands[s], hands_in + s * GD_MAX_HAND, sizeof(int32_t) * (size_t)counts_in[s]);
        view.hands[s] = hands[s];
        view.counts[s] = counts_in[s];
        view.hand_ids[s] = ids[0]++;
        if (counts_in[s] == 0) return GD_ERR_CARDS;
    }
    view.turn = leader;
    view.leader = leader;
    for (;;) {
        int seat = view.turn;
        int led = !view.has_trick;
        if (!view.has_trick) {
            view.may_pass = 0;
        } else if (F[F_PASS_ALWAYS]) {
            view.may_pass = 1;
        } else {
            /* flow.pass when_unable: a pass only without a play that beats the trick. */
            int64_t got = lister(T, hands[seat], view.counts[seat], GD_LIST_FOLLOWING,
                                 view.trick_reading, scratch, 4096);
            if (got < 0) return GD_ERR_MEMORY;
            view.may_pass = got == 0;
        }
        view.out_mask = out_mask;
        int32_t n = 0, reading = 0;
        int32_t kind = actor(bots[seat], &view, seat, cards, &n, &reading);
        if (kind < 0) return kind == GD_ERR_MEMORY ? GD_ERR_MEMORY : GD_ERR_BOT;
        if (at + REC_HEAD + (kind ? n : 0) > room) return GD_ERR_ROOM;
        out[at++] = seat;
        out[at++] = led;
        out[at++] = kind ? 1 : 0;
        tricks += led;
        if (!kind) {
            /* A pass (flow.new_lead): when everyone holding cards but the owner has passed,
             * the owner leads, or, gone out, its partner or the next seat (接風, flow.jiefeng). */
            if (!view.may_pass) return GD_ERR_PASS;
            out[at++] = 0;
            out[at++] = 0;
            passes++;
            int owner = view.trick_owner;
            int needed = 0;
            for (int s = 0; s < 4; s++)
                if (!(out_mask >> s & 1) && s != owner) needed++;
            if (passes >= needed) {
                int lead = owner;
                if (out_mask >> owner & 1) {
                    int mate = partner(owner);
                    lead = F[F_JIEFENG_PARTNER] && !(out_mask >> mate & 1)
                               ? mate
                               : next_holding(owner, out_mask);
                }
                view.turn = lead;
                view.leader = lead;
                view.has_trick = 0;
                passes = 0;
            } else {
                view.turn = next_holding(seat, out_mask);
            }
            continue;
        }
        if (n <= 0 || n > GD_MAX_PLAY || !take(hands[seat], &view.counts[seat], cards, n))
            return GD_ERR_CARDS;
        view.hand_ids[seat] = ids[0]++;
        plays++;
        bombs += gd_ladder_step(T, reading) >= 0;
        out[at++] = reading;
        out[at++] = n;
        memcpy(out + at, cards, sizeof(int32_t) * (size_t)n);
        at += n;
        passes = 0;
        view.has_trick = 1;
        view.trick_owner = seat;
        view.trick_reading = reading;
        if (view.counts[seat] == 0) {
            order[nout++] = seat;
            out_mask |= 1 << seat;
        }
        /* The round ends with three out, or on a double-down where the variant ends it early
         * (flow.early_end). */
        if (nout >= 3 || (F[F_EARLY_END] && double_down(order, nout))) break;
        view.turn = next_holding(seat, out_mask);
    }
    order[4] = nout;
    order[5] = tricks;
    order[6] = plays;
    order[7] = bombs;
    return at;
}
