/* What the kernel's files share (issue 52): the listing of a hand's plays in the reference's
 * order (_listing.c), the heuristic bot (_bot.c) and the round it plays in (_round.c).
 *
 * Prepended (after the layout's defines) to every kernel file by harness/kernel/build.py.
 *
 * A card is an int32: place * 5 + suit (places 0..12 are 2..A, 13 the small joker, 14 the big
 * joker; suits 0..3 are S H C D, 4 the jokers'). A reading is an int32: type << 24 | place << 16
 * | size, as harness/engine/fast/engine.py `encode` writes it. A hand is an int32 array of cards
 * in the order the reference holds them (the order decides which cards a play is made of).
 */
#ifndef GD_ROUND_H
#define GD_ROUND_H
#include <stdint.h>

#define GD_MAX_HAND 64  /* cards a hand may hold (27 dealt, a few more by tribute) */
#define GD_MAX_PLAY 32  /* cards one play may take */

/* What a listing asks for (HandPlays in harness/interpreter/legal.py):
 *   GD_LIST_ALL        `HandPlays(hand, rules).plays()`;
 *   GD_LIST_FOLLOWING  `.following(previous)` (bombs included; `open_to(previous)`);
 *   GD_LIST_NO_BOMBS   `.following(previous, bombs=False)`;
 *   GD_LIST_ANY_BEATS  `.beaten_by_any(previous)`: returns 1 or 0 and writes nothing.
 * The plays are written to `out` as records [reading, n, card_1 .. card_n], in the reference's
 * listing order, each play's cards in the reference's order. Returns the ints written; when
 * more than `room` are needed, returns how many (the caller grows `out` and asks again); -1
 * when memory ran out. */
enum { GD_LIST_ALL = 0, GD_LIST_FOLLOWING = 1, GD_LIST_NO_BOMBS = 2, GD_LIST_ANY_BEATS = 3 };

typedef int64_t (*gd_lister)(const int32_t *T, const int32_t *hand, int32_t n, int32_t mode,
                             int32_t previous, int32_t *out, int64_t room);

/* The listing in _listing.c, of the signature above. */
int64_t gd_hand_plays(const int32_t *T, const int32_t *hand, int32_t n, int32_t mode,
                      int32_t previous, int32_t *out, int64_t room);

/* A round as a bot sees it (RoundState in harness/interpreter/round.py). */
typedef struct {
    const int32_t *T;         /* the tables at the round's level (harness/engine/fast/tables.py) */
    const int32_t *B;         /* the bot's own tables, if it needs any beyond T (or NULL) */
    int32_t rules_id;         /* the PlayRules' identity: equal ids are the same object (`is`) */
    gd_lister lister;         /* how the bot lists plays (gd_hand_plays, or a test's callback) */
    const int32_t *hands[4];  /* each seat's hand, in order */
    int32_t counts[4];        /* how many cards each holds */
    int32_t hand_ids[4];      /* each hand's identity: a new id whenever that hand changes */
    int32_t turn;             /* the seat whose turn it is */
    int32_t leader;           /* `state.leader` */
    int32_t has_trick;        /* whether a play is on the table (`state.trick is not None`) */
    int32_t trick_owner;      /* `state.trick[0]` */
    int32_t trick_reading;    /* `state.trick[1]`, encoded */
    int32_t may_pass;         /* `state.may_pass()` */
    int32_t out_mask;         /* bit s set: seat s has gone out (`not state.active(s)`) */
} GdRoundView;

/* One seat's HeuristicBot (harness/interpreter/heuristic.py), its memory kept across rounds as
 * the Python object keeps it. */
typedef struct GdBot GdBot;
GdBot *gd_bot_new(void);
void gd_bot_free(GdBot *bot);
/* `bot.act(state, seat)`: 1 for a play (its cards and reading written), 0 for a pass, -1 when
 * memory ran out. */
int32_t gd_bot_act(GdBot *bot, const GdRoundView *view, int32_t seat, int32_t *cards,
                   int32_t *n, int32_t *reading);
/* `bot.give_back(hand, options, rules)`: the card returned (還牌); -1 when memory ran out. */
int32_t gd_bot_give_back(GdBot *bot, const int32_t *T, const int32_t *B, int32_t rules_id,
                         gd_lister lister, const int32_t *hand, int32_t n,
                         const int32_t *options, int32_t m);

#endif
