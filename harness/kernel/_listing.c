/* The listing of a hand's plays in the reference interpreter's order (issue 52): exactly what
 * `HandPlays(hand, rules)` in harness/interpreter/legal.py lists, play for play, in its order,
 * each play's cards in its order, so that a bot in C that takes `plays[0]`, sorts plays stably
 * or builds its plan from the listing decides as the Python bot does, and a log records the
 * same cards.
 *
 * The steps are legal.py's, one function each (`_one_group`, `_with_kicker` and `_kicker`,
 * `_sequences`, `_jokers_only`, `_group_sources`, `_Hand`), on the hand's cards by rank (in the
 * hand's order) and by suit. Two copies of a card are one int, so a list of wild cards is
 * their count. The order is `PlayRules.sort_key` (non-bombs by type, bombs up the ladder, then
 * by size and key), read from the table's KEY and STEP parts, which harness/engine/fast/
 * tables.py fills from the reference's own `PlayRules`; ties (none arise: a key is one reading)
 * would keep the order found, as Python's stable sorts do. Nothing here names a variant.
 *
 * No allocation on the heap for a hand of ordinary size: the plays are gathered in arrays on
 * the stack, moved to the heap only when a listing outgrows them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if GD_MAX_HAND != K_MAX_HAND
#error "the table's layout (K_MAX_HAND, harness/kernel/layout.py) and _round.h disagree"
#endif

#define L_PLACES 15
#define L_SUITS 4 /* the suits a natural card may have; jokers have none (4) */
#define L_JOKER_SUIT 4
#define L_SB 13
#define L_HR 14
/* Copies of a rank two decks hold (`4 * deck.decks`; the fast engine plays two decks). */
#define L_COPIES 8

#define L_READING(type, place, size) \
    (((int32_t)(type) << 24) | ((int32_t)(place) << 16) | (int32_t)(size))
#define L_TYPE(r) ((r) >> 24)
#define L_PLACE(r) (((r) >> 16) & 0xff)
#define L_SIZE(r) ((r) & 0xffff)
#define L_SHAPE(T, k, field) ((T)[OFF_SHAPES + (k) * K_SHAPE_FIELDS + (field)])
#define L_STEP(T, type, size) ((T)[OFF_STEP + (type) * (K_MAX_HAND + 1) + (size)])

/* Whether `play` may follow `previous` (壓牌): the kernel's (_kernel.c), the reference's. */
int gd_beats(const int32_t *T, int32_t play, int32_t previous);

/* The hand as `_Hand` sorts it: wild cards (a count: they are one card int), natural cards by
 * rank in the hand's order, and by suit (the suits in the order their first card came). */
typedef struct {
    const int32_t *T;
    int level;
    int32_t wild;
    int wilds;
    int32_t by_rank[L_PLACES][GD_MAX_HAND];
    int n_rank[L_PLACES];
    int suits[L_SUITS];
    int n_suits;
    int by_suit[L_SUITS][L_PLACES];
} Hand;

/* A play found: its reading and its cards (`count` of them, from `at` in the card pool). */
typedef struct {
    int32_t reading;
    int32_t at;
    int32_t count;
} Entry;

/* The plays and cards a listing gathers on the stack before it moves them to the heap (a
 * leading 27-card hand has about 80 plays of 370 cards); a test builds the kernel with tiny
 * ones to run the move. */
#ifndef L_ENTRIES
#define L_ENTRIES 512
#endif
#ifndef L_CARDS
#define L_CARDS 4096
#endif

/* The plays found so far, in arrays on the stack until they outgrow them. */
typedef struct {
    Entry *entries;
    int32_t n, cap;
    int32_t *cards;
    int32_t used, room;
    int heap_entries, heap_cards;
    int failed;
} Found;

/* `items` (of `have` items of `each` bytes) moved into a heap array of `want` items; the old
 * one freed where it was the heap's. NULL when memory ran out (`items` left as it was). */
static void *grow(void *items, int on_heap, size_t have, size_t want, size_t each) {
    void *grown = malloc(want * each);
    if (!grown) return NULL;
    memcpy(grown, items, have * each);
    if (on_heap) free(items);
    return grown;
}

/* Room for a play of `count` cards with its reading, to be filled by the caller; NULL when
 * memory ran out (then `failed` is set). */
static int32_t *add(Found *f, int32_t reading, int32_t count) {
    if (f->failed) return NULL;
    if (f->n == f->cap) {
        Entry *grown = grow(f->entries, f->heap_entries, (size_t)f->n, (size_t)f->cap * 2,
                            sizeof(Entry));
        if (!grown) {
            f->failed = 1;
            return NULL;
        }
        f->entries = grown;
        f->cap *= 2;
        f->heap_entries = 1;
    }
    if (f->used + count > f->room) {
        int32_t room = f->room * 2;
        while (f->used + count > room) room *= 2;
        int32_t *grown = grow(f->cards, f->heap_cards, (size_t)f->used, (size_t)room,
                              sizeof(int32_t));
        if (!grown) {
            f->failed = 1;
            return NULL;
        }
        f->cards = grown;
        f->room = room;
        f->heap_cards = 1;
    }
    Entry *e = &f->entries[f->n++];
    e->reading = reading;
    e->at = f->used;
    e->count = count;
    f->used += count;
    return f->cards + e->at;
}

static int32_t *put_cards(int32_t *to, const int32_t *cards, int n) {
    for (int i = 0; i < n; i++) *to++ = cards[i];
    return to;
}

static int32_t *put_same(int32_t *to, int32_t card, int n) {
    for (int i = 0; i < n; i++) *to++ = card;
    return to;
}

static int lower(int a, int b) { return a < b ? a : b; }

static int is_joker(int place) { return place >= L_SB; }

/* `_group_sources`: for a rank, the wild cards put after its natural cards (`extra`: the heart
 * level cards, which are level cards themselves) and the wild cards that may fill a group of
 * it (`fill`: none for a joker, none where a natural card is needed and there is none). */
static void sources(const Hand *h, int rank, int usable, int *extra, int *fill) {
    *extra = 0;
    *fill = 0;
    if (rank == h->level)
        *extra = h->wilds;
    else if (!is_joker(rank) && (h->n_rank[rank] || !h->T[OFF_NEEDS_NATURAL]))
        *fill = usable;
}

/* `_one_group`: a group of one rank, of every size the shape allows and the hand holds. */
static void one_group(const Hand *h, int kind, int usable, Found *f) {
    const int32_t *T = h->T;
    int ranks[L_PLACES], n_ranks = 0;
    for (int i = 0; i < T[OFF_N_NATURAL]; i++) ranks[n_ranks++] = T[OFF_NATURAL + i];
    if (L_SHAPE(T, kind, S_JOKERS) == JOKERS_ALLOWED) {
        ranks[n_ranks++] = L_SB;
        ranks[n_ranks++] = L_HR;
    }
    int low = L_SHAPE(T, kind, S_SIZE_MIN), high = L_SHAPE(T, kind, S_SIZE_MAX);
    for (int i = 0; i < n_ranks; i++) {
        int rank = ranks[i], extra, fill;
        sources(h, rank, usable, &extra, &fill);
        int naturals = h->n_rank[rank];
        int have = naturals + extra + fill;
        if (have < low) continue;
        int top = high < 0 ? have : lower(have, high);
        for (int size = low; size <= top; size++) {
            int taken = lower(size, naturals);
            int32_t *to = add(f, L_READING(kind, rank, size), size);
            if (!to) return;
            to = put_cards(to, h->by_rank[rank], taken);
            put_same(to, h->wild, size - taken);
        }
    }
}

/* A kicker found by `kicker`: `count` natural cards of `rank` from `start`, then `wilds`. */
typedef struct {
    int rank, start, count, wilds;
} Kicker;

/* `_kicker`: the kicker group using the fewest wild cards, then the lowest value; 0 if none.
 * `taken`: the cards of the main group's rank it holds already (its wild cards among them
 * where the main group is of the level, as in the reference), which a kicker of that rank
 * cannot use again; `fill_wilds`, `level_wilds`: the wild cards left to fill a kicker and to
 * stand as level cards. */
static int kicker(const Hand *h, int kind, int main, int taken, int fill_wilds, int level_wilds,
                  Kicker *best) {
    const int32_t *T = h->T;
    int size = L_SHAPE(T, kind, S_KICKER), distinct = L_SHAPE(T, kind, S_KICKER_DISTINCT);
    int jokers = L_SHAPE(T, kind, S_KICKER_JOKERS) ? 1 : 0;
    const int32_t *ranks = T + OFF_KICKER_RANKS + jokers * L_PLACES;
    int found = 0;
    for (int i = 0; i < T[OFF_KICKER_N + jokers]; i++) {
        int rank = ranks[i];
        if (distinct && rank == main) continue;
        int start = 0, naturals = h->n_rank[rank];
        if (rank == main) {
            start = lower(taken, naturals);
            naturals -= start;
        }
        int extra = 0, fill = fill_wilds;
        if (rank == h->level) {
            extra = level_wilds;
            fill = 0;
        } else if (is_joker(rank)) {
            fill = 0;
        }
        if (naturals + extra >= size) {
            int count = lower(naturals, size);
            *best = (Kicker){rank, start, count, size - count};
            return 1;
        }
        if (!found && naturals + extra + fill >= size) {
            *best = (Kicker){rank, start, naturals, size - naturals};
            found = 1;
        }
    }
    return found;
}

/* `_with_kicker`: a group with its kicker (三帶二), the kicker as cheap as the hand allows. */
static void with_kicker(const Hand *h, int kind, int usable, Found *f) {
    const int32_t *T = h->T;
    int size = L_SHAPE(T, kind, S_SIZE_MIN), kick = L_SHAPE(T, kind, S_KICKER);
    for (int i = 0; i < T[OFF_N_NATURAL]; i++) {
        int main = T[OFF_NATURAL + i], extra, fill;
        sources(h, main, usable, &extra, &fill);
        int naturals = h->n_rank[main];
        if (naturals + extra + fill < size) continue;
        int taken = lower(size, naturals);
        int spent = size - taken; /* the wild cards the group holds */
        int fill_left = usable - spent < 0 ? 0 : usable - spent;
        int level_left = h->wilds - spent < 0 ? 0 : h->wilds - spent;
        Kicker best = {0, 0, 0, 0};
        if (!kicker(h, kind, main, lower(size, naturals + extra), fill_left, level_left, &best))
            continue;
        int32_t *to = add(f, L_READING(kind, main, size + kick), size + kick);
        if (!to) return;
        to = put_cards(to, h->by_rank[main], taken);
        to = put_same(to, h->wild, spent);
        to = put_cards(to, h->by_rank[best.rank] + best.start, best.count);
        put_same(to, h->wild, best.wilds);
    }
}

/* A pool a run is made from (`_Hand.counted`): a suit, or the whole hand (suit -1). */
typedef struct {
    int suit;
    int lens[L_PLACES];
    int count;
} Pool;

/* `_sequences`: runs of consecutive groups (順子, 連對, 鋼板, 同花順), by suit where the shape
 * says so; one play for each top card and size, the first pool that makes it. */
static void sequences(const Hand *h, int kind, int usable, Found *f) {
    const int32_t *T = h->T;
    int skip = T[OFF_LEVEL_OUT_OF_SEQUENCES] ? h->level : -1;
    int gmin = L_SHAPE(T, kind, S_GROUPS_MIN), gmax = L_SHAPE(T, kind, S_GROUPS_MAX);
    if (gmax < 0) gmax = T[OFF_N_NATURAL];
    int spare = usable;
    /* A group holds at most every natural copy of its rank and every wild card. */
    int smin = L_SHAPE(T, kind, S_SIZE_MIN), smax = L_SHAPE(T, kind, S_SIZE_MAX);
    if (smax < 0) smax = L_COPIES + spare;
    int lone_wilds = T[OFF_NEEDS_NATURAL];
    Pool pools[L_SUITS];
    int n_pools = 0;
    if (L_SHAPE(T, kind, S_SAME_SUIT)) {
        for (int i = 0; i < h->n_suits; i++) {
            Pool *p = &pools[n_pools++];
            p->suit = h->suits[i];
            p->count = 0;
            for (int r = 0; r < L_PLACES; r++) {
                p->lens[r] = r == skip ? 0 : h->by_suit[p->suit][r];
                p->count += p->lens[r];
            }
        }
    } else {
        Pool *p = &pools[n_pools++];
        p->suit = -1;
        p->count = 0;
        for (int r = 0; r < L_PLACES; r++) {
            p->lens[r] = r == skip ? 0 : h->n_rank[r];
            p->count += p->lens[r];
        }
    }
    uint8_t seen[L_PLACES][K_MAX_HAND + 1];
    memset(seen, 0, sizeof seen);
    for (int groups = gmin; groups <= gmax; groups++) {
        /* No window is longer than the table holds (a longer one repeats a rank). */
        if (groups < 1 || groups > K_MAX_SPAN) continue;
        int start = T[OFF_WINDOW_START + groups], count = T[OFF_WINDOW_COUNT + groups];
        for (int gs = smin < 1 ? 1 : smin; gs <= smax; gs++) {
            int total = groups * gs;
            const Pool *ready[L_SUITS];
            int n_ready = 0;
            for (int i = 0; i < n_pools; i++)
                if (pools[i].count + spare >= total) ready[n_ready++] = &pools[i];
            /* None ready: none is for a larger group either (and the reference adds nothing). */
            if (!n_ready) break;
            for (int w = 0; w < count; w++) {
                const int32_t *window = T + OFF_WINDOWS + start + w * groups;
                int top = window[groups - 1];
                if (total <= K_MAX_HAND && seen[top][total]) continue;
                for (int i = 0; i < n_ready; i++) {
                    const Pool *p = ready[i];
                    int need = 0, short_of = 0;
                    for (int j = 0; j < groups; j++) {
                        int have = p->lens[window[j]];
                        if (have < gs) {
                            need += gs - have;
                            if (need > spare) {
                                short_of = 1;
                                break;
                            }
                        }
                    }
                    if (short_of) continue;
                    if (lone_wilds && need == total) continue;
                    /* The run's cards are the hand's (and `need` wild cards): total <= n. */
                    int32_t *to = add(f, L_READING(kind, top, total), total);
                    if (!to) return;
                    for (int j = 0; j < groups; j++) {
                        int rank = window[j];
                        if (rank == skip) continue;
                        int taken = lower(p->lens[rank], gs);
                        if (p->suit < 0)
                            to = put_cards(to, h->by_rank[rank], taken);
                        else
                            to = put_same(to, rank * (L_SUITS + 1) + p->suit, taken);
                    }
                    put_same(to, h->wild, need);
                    seen[top][total] = 1;
                    break;
                }
            }
        }
    }
}

/* `_jokers_only`: each choice of distinct jokers of the shape's count (四大天王), ranked by its
 * highest joker, in `itertools.combinations` order. */
static void jokers_only(const Hand *h, int kind, Found *f) {
    const int32_t *T = h->T;
    int size = L_SHAPE(T, kind, S_SIZE_MIN), groups = L_SHAPE(T, kind, S_GROUPS_MIN);
    int ready[2], n_ready = 0;
    if (size < 1) return;
    if (h->n_rank[L_SB] >= size) ready[n_ready++] = L_SB;
    if (h->n_rank[L_HR] >= size) ready[n_ready++] = L_HR;
    /* Combinations of `groups` of at most two jokers: one at a time, or both. */
    int chosen[2][2], n_chosen = 0;
    if (groups == 1) {
        for (int i = 0; i < n_ready; i++) chosen[n_chosen++][0] = ready[i];
    } else if (groups == 2 && n_ready == 2) {
        chosen[0][0] = ready[0];
        chosen[0][1] = ready[1];
        n_chosen = 1;
    }
    for (int c = 0; c < n_chosen; c++) {
        int32_t *to = add(f, L_READING(kind, chosen[c][groups - 1], size * groups), size * groups);
        if (!to) return;
        for (int g = 0; g < groups; g++) to = put_cards(to, h->by_rank[chosen[c][g]], size);
    }
}

/* `HandPlays._find`: the plays of one type (wild cards left out of the types they may not
 * help to make, `wild.excluded`). */
static void find(const Hand *h, int kind, Found *f) {
    const int32_t *T = h->T;
    int usable = L_SHAPE(T, kind, S_WILD_EXCLUDED) ? 0 : h->wilds;
    if (L_SHAPE(T, kind, S_JOKERS) == JOKERS_ONLY)
        jokers_only(h, kind, f);
    else if (L_SHAPE(T, kind, S_CONSECUTIVE))
        sequences(h, kind, usable, f);
    else if (L_SHAPE(T, kind, S_KICKER))
        with_kicker(h, kind, usable, f);
    else
        one_group(h, kind, usable, f);
}

/* `_Hand`: the cards sorted into wild cards, natural cards by rank and by suit; 0 when a card
 * is no card int. */
static int sort_hand(Hand *h, const int32_t *T, const int32_t *cards, int n) {
    h->T = T;
    h->level = T[OFF_LEVEL];
    h->wild = h->level * (L_SUITS + 1) + T[OFF_WILD_SUIT];
    h->wilds = 0;
    h->n_suits = 0;
    memset(h->n_rank, 0, sizeof h->n_rank);
    memset(h->by_suit, 0, sizeof h->by_suit);
    for (int i = 0; i < n; i++) {
        int32_t card = cards[i];
        int place = card / (L_SUITS + 1), suit = card % (L_SUITS + 1);
        if (card < 0 || place >= L_PLACES || (suit == L_JOKER_SUIT) != is_joker(place)) return 0;
        if (card == h->wild) {
            h->wilds++;
            continue;
        }
        h->by_rank[place][h->n_rank[place]++] = card;
        if (suit == L_JOKER_SUIT) continue;
        int known = 0;
        for (int s = 0; s < h->n_suits; s++) known |= h->suits[s] == suit;
        if (!known) h->suits[h->n_suits++] = suit;
        h->by_suit[suit][place]++;
    }
    return 1;
}

/* `PlayRules.sort_key` of a reading, as one number, with the play's place in the order found
 * below it (`seq`, which also names the play): sorting these sorts the plays stably. */
static int64_t order_of(const int32_t *T, int32_t reading, int32_t seq) {
    int type = L_TYPE(reading), size = L_SIZE(reading);
    int step = L_STEP(T, type, size);
    int64_t first = step >= 0 ? (1 << 8 | step) : type;
    int64_t key = T[OFF_KEY + type * L_PLACES + L_PLACE(reading)] + 1;
    return (((first << 8 | size) << 8 | key) << 24) | seq;
}

/* Sorted in place by insertion: the plays come nearly in order (type by type, each type by
 * rank), so this costs about one step a play, where qsort's merge sort paid forty. */
static void sort_orders(int64_t *orders, int32_t n) {
    for (int32_t i = 1; i < n; i++) {
        int64_t x = orders[i];
        int32_t j = i;
        for (; j > 0 && orders[j - 1] > x; j--) orders[j] = orders[j - 1];
        orders[j] = x;
    }
}

/* See _round.h. Also -1 for a hand past GD_MAX_HAND, a card that is no card int, or a mode
 * that is none; `previous` must be a reading for every mode but GD_LIST_ALL. The plays that
 * beat a previous one (GD_LIST_FOLLOWING) are the leading listing's that gd_beats lets follow
 * it, in the same order and cards (the reference's `following` only skips the types that
 * cannot), so a caller holding the leading listing may filter it instead of asking again. */
int64_t gd_hand_plays(const int32_t *T, const int32_t *hand, int32_t n, int32_t mode,
                      int32_t previous, int32_t *out, int64_t room) {
    if (n < 0 || n > GD_MAX_HAND || mode < GD_LIST_ALL || mode > GD_LIST_ANY_BEATS) return -1;
    Hand h;
    if (!sort_hand(&h, T, hand, n)) return -1;
    Entry entries[L_ENTRIES];
    int32_t cards[L_CARDS];
    Found f = {entries, 0, L_ENTRIES, cards, 0, L_CARDS, 0, 0, 0};
    /* The types a listing looks at: every type; the ladder's and the previous play's (only
     * those can beat it); the previous play's alone (no bombs). */
    for (int k = 0; k < K_TYPES && !f.failed; k++) {
        if (!L_SHAPE(T, k, S_PRESENT)) continue;
        if (mode == GD_LIST_FOLLOWING && !L_SHAPE(T, k, S_ON_LADDER) && k != L_TYPE(previous))
            continue;
        if (mode >= GD_LIST_NO_BOMBS && k != L_TYPE(previous)) continue;
        find(&h, k, &f);
    }
    int64_t written = -1;
    int32_t kept = 0;
    int64_t orders_here[L_ENTRIES];
    int64_t *orders = f.n <= L_ENTRIES ? orders_here : malloc(sizeof(int64_t) * (size_t)f.n);
    if (f.failed || !orders) goto done;
    for (int32_t i = 0; i < f.n; i++) {
        int32_t reading = f.entries[i].reading;
        if (mode != GD_LIST_ALL) {
            if (!gd_beats(T, reading, previous)) continue;
            /* Off the ladder only: a non-bomb of the previous play's type. */
            if (mode >= GD_LIST_NO_BOMBS && L_STEP(T, L_TYPE(reading), L_SIZE(reading)) >= 0)
                continue;
        }
        orders[kept++] = order_of(T, reading, i);
    }
    if (mode == GD_LIST_ANY_BEATS) {
        written = kept > 0;
        goto done;
    }
    sort_orders(orders, kept);
    written = 0;
    for (int32_t i = 0; i < kept; i++) written += 2 + f.entries[orders[i] & 0xffffff].count;
    if (written <= room) {
        int32_t *to = out;
        for (int32_t i = 0; i < kept; i++) {
            const Entry *e = &f.entries[orders[i] & 0xffffff];
            *to++ = e->reading;
            *to++ = e->count;
            to = put_cards(to, f.cards + e->at, e->count);
        }
    }
done:
    if (orders && orders != orders_here) free(orders);
    if (f.heap_entries) free(f.entries);
    if (f.heap_cards) free(f.cards);
    return written;
}
