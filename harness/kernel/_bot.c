/* The heuristic bot (啟發式) on the compact form (issue 52): see _round.h.
 *
 * The same decisions as harness/interpreter/heuristic.py's HeuristicBot, step for step: the
 * plan of a hand (拆牌: `plan_hand`, `_runs`, `_groups`), what breaking it costs (`_breaking`,
 * `broken_cost`), leading, following and the return card (還牌), with the bot's memory kept as
 * the Python object keeps it (`_index`, `_plans`, `_after`, `_returned`, `_readings`). Where the
 * Python code depends on an order (a listing's, a dict's insertion order, `min`/`max` taking
 * the first of equals, stable sorts, which card of a rank is taken), this file keeps that order;
 * the comments name the Python line each step mirrors. The plays come only from the listing the
 * view names (`view->lister`), as the Python bot's come only from `HandPlays`.
 *
 * Memory: a bot allocates its indexes and buffers at first use and grows them only when a hand
 * lists more than any before; an action allocates nothing in the steady state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPLACE 15
#define NSUIT 5
#define NCARD (NPLACE * NSUIT)
#define NSEAT 4
/* Group sizes the index keeps by (rank, size): a play takes at most GD_MAX_PLAY cards. */
#define MAXG (GD_MAX_PLAY + 1)
/* Indexes alive at once: one per seat and the returned hand's, and one being made. */
#define NSLOT (NSEAT + 2)
/* Readings of one set of cards (the kernel's classify holds as many). */
#define MAXREAD 512

#define RD_TYPE(r) ((r) >> 24)
#define RD_PLACE(r) (((r) >> 16) & 0xff)
#define RD_SIZE(r) ((r) & 0xffff)
#define PLACE_OF(card) ((card) / NSUIT)
#define SUIT_OF(card) ((card) % NSUIT)

/* The kernel's own (_kernel.c). */
int gd_classify(const int32_t *T, const int32_t *counts, int wilds, int one_suit,
                int all_one_suit, int32_t *out, int cap);
int gd_beats(const int32_t *T, int32_t play, int32_t previous);
int gd_key(const int32_t *T, int32_t reading);
int gd_ladder_step(const int32_t *T, int32_t reading);

/* The bot's table B (harness/engine/fast/bot_tables.py writes it in this order): the types it
 * names, the place of A, and the policy's constants (heuristic.py's SHORT_HAND ...). */
enum {
    B_PAIR,
    B_TRIPLE,
    B_SEQUENCE_TYPES, /* SEQUENCE_TYPES, a bit per type */
    B_ACE,
    B_SHORT_HAND,
    B_PARTNER_SHORT,
    B_GOING_OUT,
    B_BREAKS_TRIED,
    B_SIZE
};

/* Failures: memory ran out (as _round.h says), or the input breaks the contract. */
#define E_MEMORY (-1)
#define E_INPUT (-2)

/* ---- growable arrays (kept across actions: grown, never shrunk) ------------------------- */

typedef struct {
    int32_t *v;
    int64_t n, cap;
} Vec;

static int vec_reserve(Vec *a, int64_t need) {
    if (need <= a->cap) return 0;
    int64_t cap = a->cap ? a->cap : 256;
    while (cap < need) cap *= 2;
    int32_t *grown = realloc(a->v, (size_t)cap * sizeof(int32_t));
    if (!grown) return E_MEMORY;
    a->v = grown;
    a->cap = cap;
    return 0;
}

static int vec_push(Vec *a, int32_t x) {
    if (a->n == a->cap && vec_reserve(a, a->n + 1)) return E_MEMORY;
    a->v[a->n++] = x;
    return 0;
}

/* ---- the index of a listed hand (`_Index`) ---------------------------------------------- */

typedef struct {
    int refs; /* the seats' `_index` entries and `_returned` holding it */
    int32_t rules_id;
    int32_t n_dealt;
    int32_t dealt[GD_MAX_HAND];
    uint8_t held[NCARD];          /* `dealt` counted by card, for `covers` */
    int32_t groups[NPLACE][MAXG]; /* `groups[(rank, size)]`: a reading, or -1 */
    uint8_t bombs[NPLACE][MAXG];  /* `bombs` */
    int32_t full_house[NPLACE];   /* `full_house[rank]`: a reading, or -1 */
    /* `sequences`: records [reading, k, (place, count) * k] at offsets `seq_at`, in order. */
    Vec seqs, seq_at;
    /* `exact`: records [reading, n, cards...] at offsets `exact_at`, sorted as `exact`. */
    Vec exact, exact_at;
    /* The readings of the plays listed off the bomb ladder, in listing order, and where each
     * type's first and last are (`listing.beaten_by_any`). */
    Vec readings;
    int32_t type_from[K_TYPES], type_to[K_TYPES];
    int32_t shortest;
} Index;

/* One part of a plan (`Unit`), its cards in `Plan.cards`. */
typedef struct {
    int32_t n;
    int32_t reading[GD_MAX_HAND];
    int32_t bomb[GD_MAX_HAND];
    int32_t start[GD_MAX_HAND];
    int32_t len[GD_MAX_HAND];
    int32_t ncards;
    int32_t cards[GD_MAX_HAND];
} Plan;

/* One answer of `reads`, kept (see `reads`). */
typedef struct {
    uint64_t profile;
    int32_t reading;
    uint32_t tag; /* the rules' generation, and the answer in the low bit */
} ReadEntry;

#define READ_BITS 10

struct GdBot {
    Index *slots[NSLOT];
    int index_of[NSEAT]; /* `_index[seat]`: a slot, or -1 */
    int returned;        /* `_returned`: a slot, or -1 */
    /* `_plans[seat]`: the hand's id and its plan. */
    int has_plan[NSEAT];
    int32_t plan_id[NSEAT];
    Plan plans[NSEAT];
    /* `_after[seat]`. */
    int has_after[NSEAT];
    Plan after[NSEAT];
    /* `_readings[seat]`: the hand's id, the rules' id and the whole hand's readings. */
    int has_whole[NSEAT];
    int32_t whole_hand[NSEAT], whole_rules[NSEAT], whole_n[NSEAT];
    int32_t whole[NSEAT][MAXREAD];
    Vec listing;   /* the lister's last answer */
    Vec scratch;   /* `_runs`' candidates */
    Vec order;     /* offsets of plays being weighed */
    Plan trial;    /* a plan made to be counted (`broken_cost`, `_cheapest`) */
    Plan given;    /* the plan of the hand a card is returned from (`give_back`) */
    /* `reads`' answers for the rules `read_rules` (tables `read_T`), of generation `read_gen`. */
    const int32_t *read_T;
    int32_t read_rules;
    uint32_t read_gen;
    ReadEntry read_cache[1 << READ_BITS];
    Plan ordered;  /* a plan `_in_breaking_order` */
};

static int is_wild(const int32_t *T, int32_t card) {
    return card == T[OFF_LEVEL] * NSUIT + T[OFF_WILD_SUIT];
}

static int team(int seat) { return seat % 2; }

/* What the readings of a set of cards depend on (`rules_classification`'s key): the natural
 * cards' counts by rank, the wild cards, and whether the natural cards, and all the cards,
 * share one suit (a joker's "suit" is its own, as the reference's None). */
typedef struct {
    int32_t counts[NPLACE];
    int wilds, one_suit, all_one_suit;
} CardKey;

static void card_key(const int32_t *T, const int32_t *cards, int n, CardKey *key) {
    memset(key->counts, 0, sizeof key->counts);
    int wilds = 0;
    unsigned every = 0, natural = 0;
    for (int i = 0; i < n; i++) {
        unsigned suit = 1u << SUIT_OF(cards[i]);
        every |= suit;
        if (is_wild(T, cards[i])) {
            wilds++;
        } else {
            key->counts[PLACE_OF(cards[i])]++;
            natural |= suit;
        }
    }
    unsigned suits = wilds ? natural : every;
    key->wilds = wilds;
    key->one_suit = (suits & (suits - 1)) == 0;
    key->all_one_suit =
        key->one_suit && (!wilds || !suits || (suits >> T[OFF_WILD_SUIT] & 1u));
}

/* `_reads`: whether `cards` read as `reading` under the rules `rules_id` (tables `T`): the
 * kernel's classification, kept by key as the reference keeps it (`key_classification`), the
 * keys of other rules forgotten when the rules change. */
static int reads(GdBot *bot, const int32_t *T, int32_t rules_id, int32_t reading,
                 const int32_t *cards, int n) {
    if (reading < 0) return 0;
    CardKey key;
    card_key(T, cards, n, &key);
    /* The key in 64 bits (a count of 16 or more, or 4 wild cards, no hand of two decks makes,
     * is not kept). */
    uint64_t profile = (uint64_t)key.wilds << 60 | (uint64_t)key.one_suit << 62 |
                       (uint64_t)key.all_one_suit << 63;
    int kept = rules_id >= 0 && key.wilds < 4;
    for (int p = 0; p < NPLACE; p++) {
        if (key.counts[p] > 15) kept = 0;
        profile |= (uint64_t)(key.counts[p] & 15) << (4 * p);
    }
    ReadEntry *entry = NULL;
    if (kept) {
        if (bot->read_T != T || bot->read_rules != rules_id) {
            bot->read_T = T;
            bot->read_rules = rules_id;
            bot->read_gen++;
        }
        uint64_t mixed = (profile ^ (uint64_t)(uint32_t)reading * 0x9E3779B97F4A7C15ull) *
                         0xBF58476D1CE4E5B9ull;
        entry = &bot->read_cache[mixed >> (64 - READ_BITS)];
        if (entry->profile == profile && entry->reading == reading &&
            entry->tag >> 1 == bot->read_gen)
            return (int)(entry->tag & 1);
    }
    int32_t found[MAXREAD];
    int m = gd_classify(T, key.counts, key.wilds, key.one_suit, key.all_one_suit, found, MAXREAD);
    int answer = 0;
    for (int i = 0; i < m && i < MAXREAD && !answer; i++) answer = found[i] == reading;
    if (entry) {
        entry->profile = profile;
        entry->reading = reading;
        entry->tag = bot->read_gen << 1 | (uint32_t)answer;
    }
    return answer;
}

/* `holds(big, small)`: every card of `small`, as many times, in `held` (counts by card). */
static int holds(const uint8_t *held, const int32_t *cards, int n) {
    uint8_t left[NCARD];
    memcpy(left, held, sizeof left);
    for (int i = 0; i < n; i++) {
        if (cards[i] < 0 || cards[i] >= NCARD || !left[cards[i]]) return 0;
        left[cards[i]]--;
    }
    return 1;
}

/* `same_cards(one, other)`: the same cards, as many times each, in any order. */
static int same_cards(const int32_t *one, int n, const int32_t *other, int m) {
    if (n != m) return 0;
    int counts[NCARD] = {0};
    for (int i = 0; i < n; i++) counts[one[i]]++;
    for (int i = 0; i < m; i++)
        if (--counts[other[i]] < 0) return 0;
    return 1;
}

static int is_sequence(const int32_t *B, int32_t reading) {
    return B[B_SEQUENCE_TYPES] >> RD_TYPE(reading) & 1;
}

/* `_Index.__init__` and `_read`: the plays of a listing (records [reading, n, cards...] in
 * listing order) indexed for planning any part of `hand`. */
static int index_read(Index *x, const int32_t *T, const int32_t *B, int32_t rules_id,
                      const int32_t *hand, int n, const int32_t *plays, int64_t length) {
    x->rules_id = rules_id;
    x->n_dealt = n;
    memcpy(x->dealt, hand, sizeof(int32_t) * (size_t)n);
    memset(x->held, 0, sizeof x->held);
    for (int i = 0; i < n; i++) x->held[hand[i]]++;
    for (int p = 0; p < NPLACE; p++) {
        for (int s = 0; s < MAXG; s++) x->groups[p][s] = -1;
        x->full_house[p] = -1;
    }
    memset(x->bombs, 0, sizeof x->bombs);
    x->seqs.n = x->seq_at.n = x->exact.n = x->exact_at.n = x->readings.n = 0;
    for (int k = 0; k < K_TYPES; k++) {
        x->type_from[k] = 0;
        x->type_to[k] = -1;
    }
    int full = T[OFF_FULL_HOUSE_TYPE];
    for (int64_t at = 0; at < length;) {
        int32_t reading = plays[at];
        int k = plays[at + 1];
        const int32_t *cards = plays + at + 2;
        int64_t next = at + 2 + k;
        int kind = RD_TYPE(reading), size = RD_SIZE(reading);
        /* Only a type on the ladder has bombs (`ladder_step` is -1 off it). */
        int bomb = gd_ladder_step(T, reading) >= 0;
        if (!bomb && kind >= 0 && kind < K_TYPES) {
            int32_t i = (int32_t)x->readings.n;
            if (vec_push(&x->readings, reading)) return E_MEMORY;
            if (x->type_to[kind] < 0) x->type_from[kind] = i;
            x->type_to[kind] = i;
        }
        if (is_sequence(B, reading)) {
            int wild = 0;
            for (int i = 0; i < k; i++)
                if (is_wild(T, cards[i])) wild = 1;
            if (!wild) { /* a run with a wild card is left out */
                if (bomb) {
                    if (vec_push(&x->exact_at, (int32_t)x->exact.n)) return E_MEMORY;
                    if (vec_reserve(&x->exact, x->exact.n + 2 + k)) return E_MEMORY;
                    memcpy(x->exact.v + x->exact.n, plays + at, sizeof(int32_t) * (size_t)(2 + k));
                    x->exact.n += 2 + k;
                } else {
                    /* Natural cards by rank, in the order the play holds them (`ranks`). */
                    int order[NPLACE], count[NPLACE] = {0}, distinct = 0;
                    for (int i = 0; i < k; i++) {
                        int p = PLACE_OF(cards[i]);
                        if (!count[p]++) order[distinct++] = p;
                    }
                    if (vec_push(&x->seq_at, (int32_t)x->seqs.n)) return E_MEMORY;
                    if (vec_reserve(&x->seqs, x->seqs.n + 2 + 2 * distinct)) return E_MEMORY;
                    int32_t *rec = x->seqs.v + x->seqs.n;
                    rec[0] = reading;
                    rec[1] = distinct;
                    for (int i = 0; i < distinct; i++) {
                        rec[2 + 2 * i] = order[i];
                        rec[3 + 2 * i] = count[order[i]];
                    }
                    x->seqs.n += 2 + 2 * distinct;
                }
            }
            at = next;
            continue;
        }
        if (kind == full) {
            if (size == 5 && x->full_house[RD_PLACE(reading)] < 0)
                x->full_house[RD_PLACE(reading)] = reading;
            at = next;
            continue;
        }
        int rank = RD_PLACE(reading), wilds = 0, one_rank = 1;
        for (int i = 0; i < k; i++) {
            if (is_wild(T, cards[i]))
                wilds++;
            else if (PLACE_OF(cards[i]) != rank)
                one_rank = 0;
        }
        if (wilds < k && one_rank) {
            if (size < MAXG) {
                x->groups[rank][size] = reading;
                x->bombs[rank][size] = (uint8_t)bomb;
            }
        } else if (bomb && !wilds) {
            /* Bombs of several ranks (four jokers). */
            if (vec_push(&x->exact_at, (int32_t)x->exact.n)) return E_MEMORY;
            if (vec_reserve(&x->exact, x->exact.n + 2 + k)) return E_MEMORY;
            memcpy(x->exact.v + x->exact.n, plays + at, sizeof(int32_t) * (size_t)(2 + k));
            x->exact.n += 2 + k;
        }
        at = next;
    }
    /* `shortest`: the fewest cards a run of `sequences` takes. */
    x->shortest = 0;
    for (int64_t i = 0; i < x->seq_at.n; i++) {
        int size = RD_SIZE(x->seqs.v[x->seq_at.v[i]]);
        if (i == 0 || size < x->shortest) x->shortest = size;
    }
    /* Whole bombs before runs of many ranks, a stable sort by (is a run, -size). */
    for (int64_t i = 1; i < x->exact_at.n; i++) {
        int32_t off = x->exact_at.v[i];
        int32_t r = x->exact.v[off];
        int run = is_sequence(B, r), size = RD_SIZE(r);
        int64_t j = i - 1;
        while (j >= 0) {
            int32_t q = x->exact.v[x->exact_at.v[j]];
            int qrun = is_sequence(B, q), qsize = RD_SIZE(q);
            if (qrun < run || (qrun == run && -qsize <= -size)) break;
            x->exact_at.v[j + 1] = x->exact_at.v[j];
            j--;
        }
        x->exact_at.v[j + 1] = off;
    }
    return 0;
}

/* `_part`: what `n` cards of `rank` add to `_cost`: plays, triples and pairs. */
static void part(const Index *x, int rank, int n, int out[3]) {
    if (n <= 0) {
        out[0] = out[1] = out[2] = 0;
    } else if (n < MAXG && x->groups[rank][n] >= 0) {
        out[0] = 1;
        out[1] = n == 3 && x->full_house[rank] >= 0;
        out[2] = n == 2;
    } else {
        out[0] = n;
        out[1] = out[2] = 0;
    }
}

/* `_totals` of counts by place. */
static void totals(const Index *x, const int *counts, int out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (int p = 0; p < NPLACE; p++) {
        int got[3];
        part(x, p, counts[p], got);
        out[0] += got[0];
        out[1] += got[1];
        out[2] += got[2];
    }
}

static int cost(const Index *x, const int *counts) {
    int t[3];
    totals(x, counts, t);
    return t[0] - (t[1] < t[2] ? t[1] : t[2]);
}

/* `_costs_more`: whether taking `taken` out of `left` as one bomb costs more than one play. */
static int costs_more(const Index *x, const int32_t *left, int nl, const int32_t *taken, int k) {
    int before[NPLACE] = {0}, after[NPLACE];
    for (int i = 0; i < nl; i++) before[PLACE_OF(left[i])]++;
    memcpy(after, before, sizeof after);
    for (int i = 0; i < k; i++) {
        int p = PLACE_OF(taken[i]);
        if (after[p] > 0) after[p]--; /* Counter subtraction keeps no count below one */
    }
    return cost(x, after) > cost(x, before);
}

static void plan_add(Plan *plan, int32_t reading, const int32_t *cards, int n, int bomb) {
    int u = plan->n++;
    plan->reading[u] = reading;
    plan->bomb[u] = bomb;
    plan->start[u] = plan->ncards;
    plan->len[u] = n;
    memcpy(plan->cards + plan->ncards, cards, sizeof(int32_t) * (size_t)n);
    plan->ncards += n;
}

/* `by_rank`: the cards left by rank, the ranks in the dict's insertion order. */
typedef struct {
    int n_order;
    int order[NPLACE + 1];
    int present[NPLACE];
    int len[NPLACE];
    int32_t cards[NPLACE][GD_MAX_HAND];
} ByRank;

static void by_rank_delete(ByRank *br, int place) {
    int j = 0;
    for (int i = 0; i < br->n_order; i++)
        if (br->order[i] != place) br->order[j++] = br->order[i];
    br->n_order = j;
    br->present[place] = 0;
    br->len[place] = 0;
}

/* `_runs`: the runs worth making of the cards left (each saving a play), best first. */
static int runs(GdBot *bot, const int32_t *T, const Index *x, ByRank *br, Plan *plan) {
    int total = 0;
    for (int i = 0; i < br->n_order; i++) total += br->len[br->order[i]];
    if (total < x->shortest) return 0; /* too few cards for any run */
    int counts[NPLACE] = {0};
    for (int i = 0; i < br->n_order; i++) counts[br->order[i]] = br->len[br->order[i]];
    int t[3];
    totals(x, counts, t);
    int plays = t[0], triples = t[1], pairs = t[2];
    /* The runs the cards can make; counts only fall, so each pass keeps those still made. */
    Vec *cand = &bot->scratch;
    if (vec_reserve(cand, x->seq_at.n)) return E_MEMORY;
    cand->n = x->seq_at.n;
    memcpy(cand->v, x->seq_at.v, sizeof(int32_t) * (size_t)cand->n);
    for (;;) {
        int64_t best = -1;
        int best_cost = plays - (triples < pairs ? triples : pairs);
        int best_totals[3] = {plays, triples, pairs};
        int64_t kept = 0;
        for (int64_t i = 0; i < cand->n; i++) {
            const int32_t *rec = x->seqs.v + cand->v[i];
            int made = 1;
            for (int j = 0; j < rec[1] && made; j++)
                if (counts[rec[2 + 2 * j]] < rec[3 + 2 * j]) made = 0;
            if (made) cand->v[kept++] = cand->v[i];
        }
        cand->n = kept;
        for (int64_t i = 0; i < cand->n; i++) {
            const int32_t *rec = x->seqs.v + cand->v[i];
            /* Only the ranks of the run change: the totals move by their parts. */
            int p = plays + 1, tr = triples, q = pairs;
            for (int j = 0; j < rec[1]; j++) {
                int r = rec[2 + 2 * j], n = rec[3 + 2 * j], c = counts[r];
                int had[3], has[3];
                part(x, r, c, had);
                part(x, r, c - n, has);
                p += has[0] - had[0];
                tr += has[1] - had[1];
                q += has[2] - had[2];
            }
            int c = p - (tr < q ? tr : q);
            if (c < best_cost) {
                best = cand->v[i];
                best_cost = c;
                best_totals[0] = p - 1;
                best_totals[1] = tr;
                best_totals[2] = q;
            }
        }
        if (best < 0) return 0;
        plays = best_totals[0];
        triples = best_totals[1];
        pairs = best_totals[2];
        const int32_t *rec = x->seqs.v + best;
        int32_t cards[GD_MAX_HAND];
        int nc = 0;
        for (int j = 0; j < rec[1]; j++) {
            int r = rec[2 + 2 * j], n = rec[3 + 2 * j];
            counts[r] -= n;
            memcpy(cards + nc, br->cards[r], sizeof(int32_t) * (size_t)n);
            nc += n;
            br->len[r] -= n;
            memmove(br->cards[r], br->cards[r] + n, sizeof(int32_t) * (size_t)br->len[r]);
        }
        if (reads(bot, T, x->rules_id, rec[0], cards, nc)) {
            plan_add(plan, rec[0], cards, nc, 0);
        } else {
            /* The cards read otherwise (a wild card among them): put back, at the end. */
            for (int i = 0; i < nc; i++) {
                int p = PLACE_OF(cards[i]);
                br->cards[p][br->len[p]++] = cards[i];
            }
            return 0;
        }
    }
}

/* `_size`: the largest group of `rank` listed of at most `n` cards, else 1. */
static int group_size(const Index *x, int rank, int n) {
    for (int k = n < MAXG - 1 ? n : MAXG - 1; k > 1; k--)
        if (x->groups[rank][k] >= 0) return k;
    return 1;
}

/* A unit kept aside in `_groups` (a triple or a pair), its cards at most of one group. */
typedef struct {
    int32_t reading, bomb, n;
    int32_t cards[MAXG];
} Held;

static void sort_held(const int32_t *T, Held *h, int n) {
    /* Stable, by `rules.key(reading)`. */
    for (int i = 1; i < n; i++) {
        Held item = h[i];
        int key = gd_key(T, item.reading), j = i - 1;
        while (j >= 0 && gd_key(T, h[j].reading) > key) {
            h[j + 1] = h[j];
            j--;
        }
        h[j + 1] = item;
    }
}

/* `_groups`: triples, pairs and singles of the cards left, triples taking the lowest pairs. */
static void groups(GdBot *bot, const int32_t *T, const int32_t *B, const Index *x,
                   const ByRank *br, Plan *plan) {
    Held triples[GD_MAX_HAND], pairs[GD_MAX_HAND];
    int nt = 0, np = 0;
    int level = T[OFF_LEVEL];
    for (int i = 0; i < br->n_order; i++) {
        int rank = br->order[i];
        const int32_t *cards = br->cards[rank];
        int n = br->len[rank];
        while (n > 0) {
            int size = group_size(x, rank, n);
            const int32_t *part_cards = cards + n - size;
            n -= size;
            int32_t reading = size < MAXG ? x->groups[rank][size] : -1;
            /* Natural cards of one rank read as the listed group of their size; wild ones may
             * not. (Wild cards are level cards: only the level's cards may hold one.) */
            int wild = 0;
            if (rank == level)
                for (int c = 0; c < size; c++)
                    if (is_wild(T, part_cards[c])) wild = 1;
            if (reading < 0 || (wild && !reads(bot, T, x->rules_id, reading, part_cards, size))) {
                /* Its cards one by one; a card that is no play alone stays out of the plan. */
                int32_t single = x->groups[rank][1];
                if (single >= 0)
                    for (int c = 0; c < size; c++)
                        if (reads(bot, T, x->rules_id, single, part_cards + c, 1))
                            plan_add(plan, single, part_cards + c, 1, 0);
                continue;
            }
            int bomb = x->bombs[rank][size];
            int kind = RD_TYPE(reading);
            Held *h = NULL;
            if (kind == B[B_TRIPLE] && x->full_house[rank] >= 0)
                h = &triples[nt++];
            else if (kind == B[B_PAIR])
                h = &pairs[np++];
            if (h == NULL) {
                plan_add(plan, reading, part_cards, size, bomb);
                continue;
            }
            h->reading = reading;
            h->bomb = bomb;
            h->n = size;
            memcpy(h->cards, part_cards, sizeof(int32_t) * (size_t)size);
        }
    }
    sort_held(T, triples, nt);
    sort_held(T, pairs, np);
    int ace = T[OFF_VALUE + B[B_ACE]];
    for (int i = 0; i < nt; i++) {
        Held *triple = &triples[i];
        int32_t full = x->full_house[RD_PLACE(triple->reading)];
        /* A pair of A or above wins tricks alone: it is kept out of full houses. */
        int kicker = -1;
        for (int j = 0; j < np && kicker < 0; j++)
            if (gd_key(T, pairs[j].reading) < ace) kicker = j;
        int32_t joined[2 * MAXG];
        int nj = 0;
        if (kicker >= 0) {
            memcpy(joined, triple->cards, sizeof(int32_t) * (size_t)triple->n);
            const Held *pair = &pairs[kicker];
            memcpy(joined + triple->n, pair->cards, sizeof(int32_t) * (size_t)pair->n);
            nj = triple->n + pair->n;
        }
        if (kicker >= 0 && reads(bot, T, x->rules_id, full, joined, nj)) {
            for (int j = kicker; j + 1 < np; j++) pairs[j] = pairs[j + 1];
            np--;
            plan_add(plan, full, joined, nj, 0);
        } else {
            plan_add(plan, triple->reading, triple->cards, triple->n, triple->bomb);
        }
    }
    for (int j = 0; j < np; j++)
        plan_add(plan, pairs[j].reading, pairs[j].cards, pairs[j].n, pairs[j].bomb);
}

/* `sorted(cards, key=value of rank)`: stable (a counting sort; values are small). */
static void sort_by_value(const int32_t *T, int32_t *cards, int n) {
    /* Values run from -1 (a rank with none) to NPLACE (tables.py's `_orders`: the level
     * card above A, then the jokers). */
    enum { ROOM = NPLACE + 2 };
    const int32_t *value = T + OFF_VALUE;
    int start[ROOM + 1] = {0};
    for (int i = 0; i < n; i++) {
        int v = value[PLACE_OF(cards[i])] + 1;
        if (v < 0 || v >= ROOM) v = ROOM - 1; /* memory safety only */
        start[v + 1]++;
    }
    for (int v = 0; v < ROOM; v++) start[v + 1] += start[v];
    int32_t sorted[GD_MAX_HAND];
    for (int i = 0; i < n; i++) {
        int v = value[PLACE_OF(cards[i])] + 1;
        if (v < 0 || v >= ROOM) v = ROOM - 1;
        sorted[start[v]++] = cards[i];
    }
    memcpy(cards, sorted, sizeof(int32_t) * (size_t)n);
}

/* `plan_hand`: a decomposition of `hand` into units, found greedily to need few plays. */
static int plan_hand(GdBot *bot, const int32_t *T, const int32_t *B, const Index *x,
                     const int32_t *hand, int n, Plan *plan) {
    if (n > GD_MAX_HAND) return E_INPUT;
    int32_t left[GD_MAX_HAND];
    int nl = n;
    memcpy(left, hand, sizeof(int32_t) * (size_t)n);
    plan->n = 0;
    plan->ncards = 0;
    int held[NCARD];
    int counted = 0; /* `held` is counted only when a bomb is small enough to be held */
    for (int64_t e = 0; e < x->exact_at.n; e++) {
        const int32_t *rec = x->exact.v + x->exact_at.v[e];
        int32_t reading = rec[0];
        int k = rec[1];
        const int32_t *cards = rec + 2;
        if (k > nl) continue;
        if (!counted) {
            memset(held, 0, sizeof held);
            for (int i = 0; i < nl; i++) held[left[i]]++;
            counted = 1;
        }
        int ok = 1, taken = 0;
        for (; taken < k; taken++)
            if (--held[cards[taken]] < 0) {
                ok = 0;
                taken++;
                break;
            }
        if (ok && is_sequence(B, reading) && costs_more(x, left, nl, cards, k)) ok = 0;
        if (!ok) {
            for (int i = 0; i < taken; i++) held[cards[i]]++;
            continue;
        }
        plan_add(plan, reading, cards, k, 1);
        for (int i = 0; i < k; i++) { /* `_remove`: the first of each */
            for (int j = 0; j < nl; j++)
                if (left[j] == cards[i]) {
                    memmove(left + j, left + j + 1, sizeof(int32_t) * (size_t)(nl - j - 1));
                    nl--;
                    break;
                }
        }
    }
    sort_by_value(T, left, nl);
    ByRank br;
    br.n_order = 0;
    memset(br.present, 0, sizeof br.present);
    memset(br.len, 0, sizeof br.len);
    int32_t wilds[GD_MAX_HAND];
    int nw = 0;
    for (int i = 0; i < nl; i++) {
        int32_t card = left[i];
        if (is_wild(T, card)) {
            wilds[nw++] = card;
            continue;
        }
        int p = PLACE_OF(card);
        if (!br.present[p]) {
            br.present[p] = 1;
            br.order[br.n_order++] = p;
        }
        br.cards[p][br.len[p]++] = card;
    }
    /* Bombs of one rank: all its natural cards, and a wild card to make a triple a bomb. */
    int snapshot[NPLACE], ns = br.n_order;
    memcpy(snapshot, br.order, sizeof(int) * (size_t)ns);
    for (int i = 0; i < ns; i++) {
        int rank = snapshot[i], size = br.len[rank];
        if (size < MAXG && x->bombs[rank][size] &&
            reads(bot, T, x->rules_id, x->groups[rank][size], br.cards[rank], size)) {
            plan_add(plan, x->groups[rank][size], br.cards[rank], size, 1);
            by_rank_delete(&br, rank);
        }
    }
    while (nw) {
        int triple = -1;
        for (int i = 0; i < br.n_order && triple < 0; i++) {
            int r = br.order[i];
            if (br.len[r] == 3 && x->bombs[r][4]) triple = r;
        }
        if (triple < 0) break;
        int32_t reading = x->groups[triple][4];
        int32_t bomb[4] = {br.cards[triple][0], br.cards[triple][1], br.cards[triple][2],
                           wilds[nw - 1]};
        if (!reads(bot, T, x->rules_id, reading, bomb, 4)) break;
        nw--;
        by_rank_delete(&br, triple);
        plan_add(plan, reading, bomb, 4, 1);
    }
    if (nw) {
        int level = T[OFF_LEVEL];
        if (!br.present[level]) { /* `setdefault`: a rank put back goes last */
            br.present[level] = 1;
            br.order[br.n_order++] = level;
        }
        memcpy(br.cards[level] + br.len[level], wilds, sizeof(int32_t) * (size_t)nw);
        br.len[level] += nw;
    }
    if (runs(bot, T, x, &br, plan)) return E_MEMORY;
    groups(bot, T, B, x, &br, plan);
    return 0;
}

/* `_in_breaking_order`: the units of a plan, the small first, bombs last (stable). */
static void in_breaking_order(const Plan *plan, Plan *out) {
    int idx[GD_MAX_HAND];
    const int32_t *bomb = plan->bomb, *len = plan->len;
    for (int i = 0; i < plan->n; i++) {
        int j = i - 1;
        while (j >= 0 && (bomb[idx[j]] > bomb[i] ||
                          (bomb[idx[j]] == bomb[i] && len[idx[j]] > len[i]))) {
            idx[j + 1] = idx[j];
            j--;
        }
        idx[j + 1] = i;
    }
    out->n = 0;
    out->ncards = 0;
    for (int i = 0; i < plan->n; i++) {
        int u = idx[i];
        plan_add(out, plan->reading[u], plan->cards + plan->start[u], plan->len[u], plan->bomb[u]);
    }
}

/* `_breaking`: how many units of `ordered` taking `cards` out breaks, and the cards they
 * leave (`left`, `*nl`). */
static int breaking(const Plan *ordered, const int32_t *cards, int k, int32_t *left, int *nl) {
    int wanted[NCARD] = {0}, total = 0;
    for (int i = 0; i < k; i++) {
        wanted[cards[i]]++;
        total++;
    }
    int broken = 0;
    *nl = 0;
    for (int u = 0; u < ordered->n && total; u++) {
        const int32_t *unit = ordered->cards + ordered->start[u];
        int len = ordered->len[u], hit = 0;
        for (int i = 0; i < len && !hit; i++)
            if (wanted[unit[i]]) hit = 1;
        if (!hit) continue;
        broken++;
        for (int i = 0; i < len; i++) {
            if (wanted[unit[i]]) {
                wanted[unit[i]]--;
                total--;
            }
            left[(*nl)++] = unit[i];
        }
    }
    for (int i = 0; i < k; i++) /* `left.remove(card)`: the first of each */
        for (int j = 0; j < *nl; j++)
            if (left[j] == cards[i]) {
                memmove(left + j, left + j + 1, sizeof(int32_t) * (size_t)(*nl - j - 1));
                (*nl)--;
                break;
            }
    return broken;
}

/* `broken_cost` on a plan already `_in_breaking_order`: the plays taking `cards` out adds. */
static int broken_cost(GdBot *bot, const int32_t *T, const int32_t *B, const Index *x,
                       const Plan *ordered, const int32_t *cards, int k, int *added) {
    int32_t left[GD_MAX_HAND];
    int nl;
    int broken = breaking(ordered, cards, k, left, &nl);
    int failed = plan_hand(bot, T, B, x, left, nl, &bot->trial);
    if (failed) return failed;
    *added = bot->trial.n + 1 - broken;
    return 0;
}

/* ---- listing ---------------------------------------------------------------------------- */

/* The lister's answer for `hand` in `bot->listing` (its length in ints), or a failure. */
static int64_t list_plays(GdBot *bot, const int32_t *T, gd_lister lister, const int32_t *hand,
                          int n, int mode, int32_t previous) {
    if (!lister) return E_INPUT;
    if (vec_reserve(&bot->listing, 256)) return E_MEMORY;
    for (;;) {
        int64_t got = lister(T, hand, n, mode, previous, bot->listing.v, bot->listing.cap);
        if (got < 0) return E_MEMORY;
        if (mode == GD_LIST_ANY_BEATS || got <= bot->listing.cap) {
            bot->listing.n = mode == GD_LIST_ANY_BEATS ? 0 : got;
            return got;
        }
        if (vec_reserve(&bot->listing, got)) return E_MEMORY;
    }
}

/* ---- the bot's memory --------------------------------------------------------------------- */

GdBot *gd_bot_new(void) {
    GdBot *bot = calloc(1, sizeof(GdBot));
    if (!bot) return NULL;
    for (int s = 0; s < NSEAT; s++) bot->index_of[s] = -1;
    bot->returned = -1;
    return bot;
}

static void vec_free(Vec *a) {
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

void gd_bot_free(GdBot *bot) {
    if (!bot) return;
    for (int i = 0; i < NSLOT; i++) {
        Index *x = bot->slots[i];
        if (!x) continue;
        vec_free(&x->seqs);
        vec_free(&x->seq_at);
        vec_free(&x->exact);
        vec_free(&x->exact_at);
        vec_free(&x->readings);
        free(x);
    }
    vec_free(&bot->listing);
    vec_free(&bot->scratch);
    vec_free(&bot->order);
    free(bot);
}

/* A slot no one holds, for a new index (one is always free: at most five are held). */
static int free_slot(GdBot *bot) {
    for (int i = 0; i < NSLOT; i++) {
        if (!bot->slots[i]) {
            bot->slots[i] = calloc(1, sizeof(Index));
            if (!bot->slots[i]) return E_MEMORY;
            return i;
        }
        if (!bot->slots[i]->refs) return i;
    }
    return E_MEMORY;
}

static void hold(GdBot *bot, int *holder, int slot) {
    if (slot >= 0) bot->slots[slot]->refs++;
    if (*holder >= 0) bot->slots[*holder]->refs--;
    *holder = slot;
}

/* Whether every card is a card (place * 5 + suit, jokers of suit 4 alone). */
static int cards_valid(const int32_t *cards, int n) {
    /* Places 0..12 of suits 0..3, the jokers (places 13, 14) of suit 4. */
#define NATURAL_PLACE 1, 1, 1, 1, 0
#define JOKER_PLACE 0, 0, 0, 0, 1
    static const uint8_t card[NCARD] = {
        NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE,
        NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE,
        NATURAL_PLACE, NATURAL_PLACE, NATURAL_PLACE, JOKER_PLACE,   JOKER_PLACE};
#undef NATURAL_PLACE
#undef JOKER_PLACE
    for (int i = 0; i < n; i++)
        if (cards[i] < 0 || cards[i] >= NCARD || !card[cards[i]]) return 0;
    return 1;
}

/* A new index of `hand` (`_Index(HandPlays(hand, rules))`) in a free slot: its slot. */
static int new_index(GdBot *bot, const int32_t *T, const int32_t *B, int32_t rules_id,
                     gd_lister lister, const int32_t *hand, int n) {
    if (n > GD_MAX_HAND || !cards_valid(hand, n)) return E_INPUT;
    int slot = free_slot(bot);
    if (slot < 0) return slot;
    int64_t length = list_plays(bot, T, lister, hand, n, GD_LIST_ALL, -1);
    if (length < 0) return (int)length;
    if (index_read(bot->slots[slot], T, B, rules_id, hand, n, bot->listing.v, length))
        return E_MEMORY;
    return slot;
}

/* `_index_for`: the index of the hand the seat was dealt (its parts are planned with it). */
static int index_for(GdBot *bot, const GdRoundView *v, int seat, Index **out) {
    const int32_t *hand = v->hands[seat];
    int n = v->counts[seat];
    int slot = bot->index_of[seat];
    Index *x = slot >= 0 ? bot->slots[slot] : NULL;
    if (!x || x->rules_id != v->rules_id || !holds(x->held, hand, n)) {
        /* The hand it returned a card from holds this one (還牌): its index serves. */
        int spare = bot->returned;
        Index *s = spare >= 0 ? bot->slots[spare] : NULL;
        if (s && s->rules_id == v->rules_id && holds(s->held, hand, n)) {
            hold(bot, &bot->index_of[seat], spare);
            *out = s;
            return 0;
        }
        int made = new_index(bot, v->T, v->B, v->rules_id, v->lister, hand, n);
        if (made < 0) return made;
        hold(bot, &bot->index_of[seat], made);
        x = bot->slots[made];
    }
    *out = x;
    return 0;
}

/* `plan`: the last plan of the seat's hand, less the unit played since, while the hand is what
 * that leaves; else a new one. */
static int plan_of(GdBot *bot, const GdRoundView *v, int seat, Plan **out) {
    const int32_t *hand = v->hands[seat];
    int n = v->counts[seat];
    Plan *plan = &bot->plans[seat];
    *out = plan;
    if (bot->has_plan[seat] && bot->plan_id[seat] == v->hand_ids[seat]) return 0;
    int rest = bot->has_after[seat];
    bot->has_after[seat] = 0; /* `_after.pop(seat)` */
    /* The plan is being remade: it is no one's until done. */
    bot->has_plan[seat] = 0;
    const Plan *after = &bot->after[seat];
    if (rest && same_cards(after->cards, after->ncards, hand, n)) {
        *plan = *after;
    } else {
        Index *x;
        int failed = index_for(bot, v, seat, &x);
        if (!failed) failed = plan_hand(bot, v->T, v->B, x, hand, n, plan);
        if (failed) return failed;
    }
    bot->has_plan[seat] = 1;
    bot->plan_id[seat] = v->hand_ids[seat];
    return 0;
}

/* The sort key of the listing order (`PlayRules.sort_key`), compared. */
static int sort_before(const int32_t *T, int32_t a, int32_t b) {
    int sa = gd_ladder_step(T, a), sb = gd_ladder_step(T, b);
    int ka[4] = {sa >= 0, sa >= 0 ? sa : RD_TYPE(a), RD_SIZE(a), gd_key(T, a)};
    int kb[4] = {sb >= 0, sb >= 0 ? sb : RD_TYPE(b), RD_SIZE(b), gd_key(T, b)};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i];
    return 0;
}

/* `_whole`: the readings of the seat's whole hand in listing order, kept while the hand and
 * the rules are those very ones. */
static int whole(GdBot *bot, const GdRoundView *v, int seat, const int32_t **out) {
    if (!bot->has_whole[seat] || bot->whole_hand[seat] != v->hand_ids[seat] ||
        bot->whole_rules[seat] != v->rules_id) {
        const int32_t *T = v->T;
        CardKey key;
        card_key(T, v->hands[seat], v->counts[seat], &key);
        int32_t *r = bot->whole[seat];
        int m = gd_classify(T, key.counts, key.wilds, key.one_suit, key.all_one_suit, r, MAXREAD);
        if (m > MAXREAD) m = MAXREAD;
        for (int i = 1; i < m; i++) { /* into listing order */
            int32_t item = r[i];
            int j = i - 1;
            while (j >= 0 && sort_before(T, item, r[j])) {
                r[j + 1] = r[j];
                j--;
            }
            r[j + 1] = item;
        }
        bot->has_whole[seat] = 1;
        bot->whole_hand[seat] = v->hand_ids[seat];
        bot->whole_rules[seat] = v->rules_id;
        bot->whole_n[seat] = m;
    }
    *out = bot->whole[seat];
    return bot->whole_n[seat];
}

/* ---- acting ----------------------------------------------------------------------------- */

static int active(const GdRoundView *v, int seat) { return !(v->out_mask >> seat & 1); }

/* Whether the key `a` orders before `b` (tuples of three, as Python compares them). */
static int less3(const int a[3], const int b[3]) {
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

/* `_play`: play unit `u` of the plan; the rest of the plan stands for the hand it leaves. */
static int32_t play_unit(GdBot *bot, int seat, const Plan *plan, int u, int32_t *cards,
                         int32_t *n, int32_t *reading) {
    if (plan->len[u] > GD_MAX_PLAY) return E_INPUT;
    Plan *after = &bot->after[seat];
    after->n = 0;
    after->ncards = 0;
    for (int i = 0; i < plan->n; i++)
        if (i != u)
            plan_add(after, plan->reading[i], plan->cards + plan->start[i], plan->len[i],
                     plan->bomb[i]);
    bot->has_after[seat] = 1;
    memcpy(cards, plan->cards + plan->start[u], sizeof(int32_t) * (size_t)plan->len[u]);
    *n = plan->len[u];
    *reading = plan->reading[u];
    return 1;
}

/* A play of a listing record [reading, n, cards...]. */
static int32_t play_record(const int32_t *rec, int32_t *cards, int32_t *n, int32_t *reading) {
    if (rec[1] > GD_MAX_PLAY) return E_INPUT;
    memcpy(cards, rec + 2, sizeof(int32_t) * (size_t)rec[1]);
    *n = rec[1];
    *reading = rec[0];
    return 1;
}

/* `_next_opponent`: the next seat after `seat` still holding cards, if an opponent; or -1. */
static int next_opponent(const GdRoundView *v, int seat) {
    for (int step = 1; step <= 3; step++) {
        int other = (seat + step) % 4;
        if (active(v, other)) return team(other) != team(seat) ? other : -1;
    }
    return -1;
}

/* `_lead`: the unit to lead, or -1 where the plan is empty. */
static int lead(const GdRoundView *v, int seat, const Plan *plan) {
    const int32_t *T = v->T;
    int plain[GD_MAX_HAND], np = 0;
    for (int i = 0; i < plan->n; i++)
        if (!plan->bomb[i]) plain[np++] = i;
    if (!np)
        for (int i = 0; i < plan->n; i++) plain[np++] = i;
    if (!np) return -1;
    int nxt = next_opponent(v, seat);
    int close = nxt >= 0 ? v->counts[nxt] : v->counts[seat];
    if (close <= 2) {
        /* The next opponent may go out on a small play: lead more cards, or the highest. */
        int wide[GD_MAX_HAND], nw = 0;
        for (int i = 0; i < np; i++)
            if (plan->len[plain[i]] > close) wide[nw++] = plain[i];
        if (!nw) {
            int best = plain[0], best_key = gd_key(T, plan->reading[plain[0]]);
            for (int i = 1; i < np; i++) {
                int key = gd_key(T, plan->reading[plain[i]]);
                if (key > best_key) {
                    best = plain[i];
                    best_key = key;
                }
            }
            return best;
        }
        memcpy(plain, wide, sizeof(int) * (size_t)nw);
        np = nw;
    }
    int best = plain[0], best_key = gd_key(T, plan->reading[plain[0]]);
    int best_len = plan->len[plain[0]];
    for (int i = 1; i < np; i++) {
        int u = plain[i], key = gd_key(T, plan->reading[u]);
        if (key < best_key || (key == best_key && plan->len[u] > best_len)) {
            best = u;
            best_key = key;
            best_len = plan->len[u];
        }
    }
    return best;
}

/* `_pressed`: whether this trick matters. */
static int pressed(const GdRoundView *v, int seat, int owner) {
    const int32_t *B = v->B;
    for (int other = 0; other < 4; other++)
        if (team(other) != team(seat) && active(v, other) && v->counts[other] <= B[B_SHORT_HAND])
            return 1;
    int mate = (seat + 2) % 4;
    return v->leader == mate && owner != mate && active(v, mate) &&
           v->counts[mate] <= B[B_PARTNER_SHORT];
}

/* What `_follow` chose: a unit of the plan, a play of `bot->listing`, or nothing. */
typedef struct {
    int unit;      /* a unit, or -1 */
    int64_t play;  /* the offset of a play in `bot->listing`, or -1 */
} Chosen;

/* `_cheapest`: of the plays at `offsets` (non-bombs, lowest first), the one adding fewest
 * plays to the plan, the first of those (`found`, -1 if there is none), and what it adds. */
static int cheapest(GdBot *bot, const GdRoundView *v, const Index *x, const Plan *plan,
                    const int32_t *offsets, int count, int *found, int *added) {
    int best = -1;
    *found = -1;
    if (count) in_breaking_order(plan, &bot->ordered);
    for (int i = 0; i < count; i++) {
        const int32_t *rec = bot->listing.v + offsets[i];
        int32_t left[GD_MAX_HAND];
        int nl;
        int broken = breaking(&bot->ordered, rec + 2, rec[1], left, &nl);
        /* A later play wins only by adding fewer: one that cannot is not planned. */
        if (best >= 0 && 1 - broken >= *added) continue;
        int failed = plan_hand(bot, v->T, v->B, x, left, nl, &bot->trial);
        if (failed) return failed;
        int more = bot->trial.n + 1 - broken;
        if (best < 0 || more < *added) {
            best = i;
            *added = more;
        }
    }
    *found = best;
    return 0;
}

/* `listing.beaten_by_any(previous)` of the index's listing (`previous` off the ladder): a play
 * of its type, off the ladder, beats it. The listing's own plays answer, as the reference's
 * `HandPlays` answers from the plays it found. */
static int beaten_by_any(const int32_t *T, const Index *x, int32_t previous) {
    int kind = RD_TYPE(previous);
    if (kind < 0 || kind >= K_TYPES) return 0;
    /* From the last: plays of a type are listed lowest first, so a beating one is met soon. */
    for (int32_t i = x->type_to[kind]; i >= x->type_from[kind]; i--) {
        int32_t r = x->readings.v[i];
        if (RD_TYPE(r) == kind && gd_beats(T, r, previous)) return 1;
    }
    return 0;
}

/* `_follow`: a unit or a play beating the trick worth making, or nothing (pass). */
static int follow(GdBot *bot, const GdRoundView *v, int seat, const Plan *plan, Chosen *out) {
    const int32_t *T = v->T, *B = v->B;
    int owner = v->trick_owner;
    int32_t previous = v->trick_reading;
    out->unit = -1;
    out->play = -1;
    int fitting[GD_MAX_HAND], nf = 0;
    for (int i = 0; i < plan->n; i++)
        if (gd_beats(T, plan->reading[i], previous)) fitting[nf++] = i;
    int best = -1, best_key = 0;
    for (int i = 0; i < nf; i++) {
        int u = fitting[i];
        if (plan->bomb[u]) continue;
        int key = gd_key(T, plan->reading[u]);
        if (best < 0 || key < best_key) {
            best = u;
            best_key = key;
        }
    }
    if (best >= 0) {
        out->unit = best;
        return 0;
    }
    int urgent = pressed(v, seat, owner);
    if (gd_ladder_step(T, previous) < 0) {
        /* Break the plan only a little (one play more), or more when the trick matters. Only
         * what the whole hand indexed makes can a part of it make: that listing is asked
         * first, the hand's own only when it may find a play. */
        Index *x;
        int failed = index_for(bot, v, seat, &x);
        if (failed) return failed;
        int any = beaten_by_any(T, x, previous);
        int64_t length = 0;
        if (any) {
            length = list_plays(bot, T, v->lister, v->hands[seat], v->counts[seat],
                                GD_LIST_NO_BOMBS, previous);
            if (length < 0) return (int)length;
        }
        Vec *order = &bot->order;
        order->n = 0;
        for (int64_t at = 0; at < length; at += 2 + bot->listing.v[at + 1])
            if (vec_push(order, (int32_t)at)) return E_MEMORY;
        /* `sorted(others, key=rules.key)`: stable. */
        for (int64_t i = 1; i < order->n; i++) {
            int32_t off = order->v[i];
            int key = gd_key(T, bot->listing.v[off]);
            int64_t j = i - 1;
            while (j >= 0 && gd_key(T, bot->listing.v[order->v[j]]) > key) {
                order->v[j + 1] = order->v[j];
                j--;
            }
            order->v[j + 1] = off;
        }
        int count = order->n < B[B_BREAKS_TRIED] ? (int)order->n : B[B_BREAKS_TRIED];
        int found, added = 0;
        failed = cheapest(bot, v, x, plan, order->v, count, &found, &added);
        if (failed) return failed;
        if (found >= 0 && (urgent || added <= 1)) {
            out->play = order->v[found];
            return 0;
        }
    }
    if (urgent || plan->n <= 2) {
        int bomb = -1, bomb_step = 0, bomb_key = 0;
        for (int i = 0; i < nf; i++) {
            int u = fitting[i];
            if (!plan->bomb[u]) continue;
            int step = gd_ladder_step(T, plan->reading[u]);
            if (step < 0) step = 0;
            int key = gd_key(T, plan->reading[u]);
            if (bomb < 0 || step < bomb_step || (step == bomb_step && key < bomb_key)) {
                bomb = u;
                bomb_step = step;
                bomb_key = key;
            }
        }
        out->unit = bomb;
    }
    return 0;
}

int32_t gd_bot_act(GdBot *bot, const GdRoundView *v, int32_t seat, int32_t *cards, int32_t *n,
                   int32_t *reading) {
    if (!bot || !v || !v->T || !v->B || seat < 0 || seat >= NSEAT) return E_INPUT;
    for (int s = 0; s < NSEAT; s++)
        if (v->counts[s] < 0 || v->counts[s] > GD_MAX_HAND) return E_INPUT;
    if (!cards_valid(v->hands[seat], v->counts[seat])) return E_INPUT;
    const int32_t *T = v->T, *B = v->B;
    const int32_t *hand = v->hands[seat];
    int nh = v->counts[seat];
    Plan *plan;
    int failed = plan_of(bot, v, seat, &plan);
    if (failed) return failed;
    if (plan->n <= 2 || nh <= B[B_GOING_OUT]) {
        /* The whole hand may be one play: going out beats everything. */
        const int32_t *r;
        int m = whole(bot, v, seat, &r);
        for (int i = 0; i < m; i++)
            if (!v->has_trick || gd_beats(T, r[i], v->trick_reading)) {
                if (nh > GD_MAX_PLAY) return E_INPUT;
                memcpy(cards, hand, sizeof(int32_t) * (size_t)nh);
                *n = nh;
                *reading = r[i];
                return 1;
            }
    }
    if (v->has_trick && team(v->trick_owner) == team(seat) && v->may_pass)
        return 0; /* the partner's play stands: never beat it needlessly */
    if (!v->has_trick) {
        int u = lead(v, seat, plan);
        if (u >= 0) return play_unit(bot, seat, plan, u, cards, n, reading);
        int64_t length = list_plays(bot, T, v->lister, hand, nh, GD_LIST_ALL, -1);
        if (length < 0) return (int32_t)length;
        if (length == 0) return E_INPUT; /* `legal_plays()[0]` of a hand with no play */
        return play_record(bot->listing.v, cards, n, reading);
    }
    Chosen chosen;
    failed = follow(bot, v, seat, plan, &chosen);
    if (failed) return failed;
    if (chosen.unit >= 0) return play_unit(bot, seat, plan, chosen.unit, cards, n, reading);
    if (chosen.play >= 0) return play_record(bot->listing.v + chosen.play, cards, n, reading);
    if (v->may_pass) return 0;
    /* Must play: the cheapest legal play by `_break_cost` (bombs last, then the plays it adds
     * to the plan, then its rank); the first of equals. */
    Index *x;
    failed = index_for(bot, v, seat, &x);
    if (failed) return failed;
    int64_t length = list_plays(bot, T, v->lister, hand, nh, GD_LIST_FOLLOWING, v->trick_reading);
    if (length < 0) return (int32_t)length;
    if (length == 0) return E_INPUT; /* `min` of no plays */
    in_breaking_order(plan, &bot->ordered);
    int64_t best = -1;
    int best_cost[3] = {0, 0, 0};
    for (int64_t at = 0; at < length; at += 2 + bot->listing.v[at + 1]) {
        const int32_t *rec = bot->listing.v + at;
        int step = gd_ladder_step(T, rec[0]), added;
        failed = broken_cost(bot, T, B, x, &bot->ordered, rec + 2, rec[1], &added);
        if (failed) return failed;
        int c[3] = {step < 0 ? 0 : 1 + step, added, gd_key(T, rec[0])};
        if (best < 0 || less3(c, best_cost)) {
            best = at;
            memcpy(best_cost, c, sizeof c);
        }
    }
    return play_record(bot->listing.v + best, cards, n, reading);
}

/* ---- tribute ---------------------------------------------------------------------------- */

/* `choose`: a tribute card: the rules force its rank; the first of them by `sort_key` (a
 * card's code orders as its `sort_key`). */
int32_t gd_bot_choose(const int32_t *options, int32_t m) {
    if (m <= 0) return E_INPUT;
    int32_t best = options[0];
    for (int i = 1; i < m; i++)
        if (options[i] < best) best = options[i];
    return best;
}

int32_t gd_bot_give_back(GdBot *bot, const int32_t *T, const int32_t *B, int32_t rules_id,
                         gd_lister lister, const int32_t *hand, int32_t n,
                         const int32_t *options, int32_t m) {
    if (!bot || !T || !B || n < 0 || n > GD_MAX_HAND || m <= 0) return E_INPUT;
    if (!cards_valid(options, m)) return E_INPUT;
    int slot = new_index(bot, T, B, rules_id, lister, hand, n);
    if (slot < 0) return slot;
    hold(bot, &bot->returned, slot);
    Index *x = bot->slots[slot];
    Plan *plan = &bot->given;
    int failed = plan_hand(bot, T, B, x, hand, n, plan);
    if (failed) return failed;
    /* A single of its plan, the lowest by value then `sort_key`, if it has one. */
    const int32_t *value = T + OFF_VALUE;
    int32_t spare = -1;
    for (int i = 0; i < m; i++) {
        int single = 0;
        for (int u = 0; u < plan->n && !single; u++)
            if (plan->len[u] == 1 && !plan->bomb[u] && plan->cards[plan->start[u]] == options[i])
                single = 1;
        if (!single) continue;
        int32_t c = options[i];
        if (spare < 0 || value[PLACE_OF(c)] < value[PLACE_OF(spare)] ||
            (value[PLACE_OF(c)] == value[PLACE_OF(spare)] && c < spare))
            spare = c;
    }
    if (spare >= 0) return spare;
    /* Else the one whose loss costs its plan least. */
    in_breaking_order(plan, &bot->ordered);
    int32_t best = -1;
    int best_cost[3] = {0, 0, 0};
    for (int i = 0; i < m; i++) {
        int added;
        failed = broken_cost(bot, T, B, x, &bot->ordered, options + i, 1, &added);
        if (failed) return failed;
        int c[3] = {added, value[PLACE_OF(options[i])], options[i]};
        if (best < 0 || less3(c, best_cost)) {
            best = options[i];
            memcpy(best_cost, c, sizeof c);
        }
    }
    return best;
}

/* ---- for tests: a plan on its own --------------------------------------------------------- */

/* `plan_hand(hand, _Index(HandPlays(dealt, rules)))`, written to `out` as records
 * [reading, bomb, n, cards...]; the ints written, more than `room` when it needs more (ask
 * again), or a failure. The bot's memory is left as it was. */
int64_t gd_bot_plan(GdBot *bot, const int32_t *T, const int32_t *B, gd_lister lister,
                    const int32_t *dealt, int32_t n, const int32_t *hand, int32_t m,
                    int32_t *out, int64_t room) {
    if (!bot || !T || !B || n < 0 || n > GD_MAX_HAND || m < 0 || m > GD_MAX_HAND) return E_INPUT;
    if (!cards_valid(hand, m)) return E_INPUT;
    int slot = new_index(bot, T, B, -1, lister, dealt, n);
    if (slot < 0) return slot;
    Plan *plan = &bot->trial;
    int failed = plan_hand(bot, T, B, bot->slots[slot], hand, m, plan);
    if (failed) return failed;
    int64_t need = 0;
    for (int u = 0; u < plan->n; u++) {
        if (need + 3 + plan->len[u] <= room) {
            out[need] = plan->reading[u];
            out[need + 1] = plan->bomb[u];
            out[need + 2] = plan->len[u];
            memcpy(out + need + 3, plan->cards + plan->start[u],
                   sizeof(int32_t) * (size_t)plan->len[u]);
        }
        need += 3 + plan->len[u];
    }
    return need;
}

int32_t gd_bot_tables_size(void) { return B_SIZE; }
