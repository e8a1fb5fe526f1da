/* The fast engine's kernel (快速引擎核心): classify, beats and the listing of legal plays and
 * actions on rank counts, for any rule set the tables describe.
 *
 * The tables (int32, one flat array) are compiled from a Ruleset at one level by
 * harness/engine/fast/tables.py, in the layout of harness/kernel/layout.py, which also writes the
 * OFF_*, S_*, JOKERS_* and K_* defines this file is compiled with: the layout has one source.
 * Nothing here names a variant; every rule comes from the tables.
 *
 * Rank places: 0..12 are 2..A, 13 the small joker, 14 the big joker. Suits 0..3 are S H C D,
 * 4 the jokers' (none): jokers share one "suit" when a shape asks for one suit, as in the
 * reference. A reading is one int: type << 24 | place << 16 | size. A card is place * 5 + suit.
 *
 * The steps are the reference interpreter's (harness/interpreter/classify.py, readings.py,
 * actions.py), on counts: the reference is the specification, this is its second
 * implementation, and the corpus, the property tests and the fuzzer hold the two together.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPLACE 15
#define NSUIT 5
#define SB 13
#define HR 14
#define MAXREAD 512

#define RD(type, place, size) (((int32_t)(type) << 24) | ((int32_t)(place) << 16) | (int32_t)(size))
#define RD_TYPE(r) ((r) >> 24)
#define RD_PLACE(r) (((r) >> 16) & 0xff)
#define RD_SIZE(r) ((r) & 0xffff)

#define SHAPE(T, k, field) ((T)[OFF_SHAPES + (k) * K_SHAPE_FIELDS + (field)])

typedef struct {
    int32_t n;
    int32_t r[MAXREAD];
} Readings;

static void add_reading(Readings *out, int32_t r) {
    for (int i = 0; i < out->n; i++)
        if (out->r[i] == r) return;
    if (out->n < MAXREAD) out->r[out->n++] = r;
}

static int is_joker(int place) { return place >= SB; }

/* ---- classify (認牌) ---------------------------------------------------------------------- */

static void jokers_only(int k, int group_size, const int *c, int spare, int size, Readings *out) {
    if (spare) return;
    int top = -1;
    for (int p = 0; p < NPLACE; p++) {
        if (!c[p]) continue;
        if (!is_joker(p) || c[p] != group_size) return;
        top = p;
    }
    if (top >= 0) add_reading(out, RD(k, top, size));
}

static void one_group(const int32_t *T, int k, const int *c, int distinct, int spare, int size,
                      Readings *out) {
    if (distinct > 1) return;
    if (distinct == 0) {
        /* Only wild cards, where they may stand alone: any natural rank. */
        for (int i = 0; i < T[OFF_N_NATURAL]; i++) add_reading(out, RD(k, T[OFF_NATURAL + i], size));
        return;
    }
    int rank = -1;
    for (int p = 0; p < NPLACE; p++)
        if (c[p]) rank = p;
    if (is_joker(rank) && (SHAPE(T, k, S_JOKERS) == JOKERS_EXCLUDED || spare)) return;
    add_reading(out, RD(k, rank, size));
}

static void with_kicker(const int32_t *T, int k, int group_size, const int *c, const int *present,
                        int distinct, int spare, int size, Readings *out) {
    int kick = SHAPE(T, k, S_KICKER), distinct_rank = SHAPE(T, k, S_KICKER_DISTINCT);
    int kick_jokers = SHAPE(T, k, S_KICKER_JOKERS);
    int n_natural = T[OFF_N_NATURAL];
    int others[NPLACE], n_others = 0;
    for (int i = 0; i < n_natural; i++) others[n_others++] = T[OFF_NATURAL + i];
    if (kick_jokers) {
        others[n_others++] = SB;
        others[n_others++] = HR;
    }
    for (int i = 0; i < n_natural; i++) {
        int main = T[OFF_NATURAL + i];
        /* Wild cards alone fill the group only where they are as many as its cards. */
        if (group_size > spare && !c[main]) continue;
        for (int j = 0; j < n_others; j++) {
            int other = others[j];
            if (distinct_rank && other == main) continue;
            /* Every rank present is the group's or the kicker's. */
            int inside = 1;
            for (int d = 0; d < distinct; d++)
                if (present[d] != main && present[d] != other) inside = 0;
            if (!inside) continue;
            int need_main, need_last, total;
            if (other == main) {
                need_main = need_last = group_size + kick - c[main];
                total = need_main;
            } else {
                need_main = group_size - c[main];
                need_last = kick - c[other];
                total = need_main + need_last;
            }
            if (need_main < 0 || need_last < 0) continue;
            if (is_joker(other) && need_last) continue;
            if (total == spare) {
                add_reading(out, RD(k, main, size));
                break;
            }
        }
    }
}

static void sequences(const int32_t *T, int k, int groups, int group_size, const int *c,
                      int distinct, int spare, int size, Readings *out) {
    if (distinct > groups || groups > K_MAX_SPAN) return;
    if (T[OFF_LEVEL_OUT_OF_SEQUENCES] && c[T[OFF_LEVEL]]) return;
    int start = T[OFF_WINDOW_START + groups], count = T[OFF_WINDOW_COUNT + groups];
    for (int w = 0; w < count; w++) {
        const int32_t *window = T + OFF_WINDOWS + start + w * groups;
        int covered = 0, need = 0, ok = 1;
        for (int i = 0; i < groups; i++) {
            int have = c[window[i]];
            if (have > group_size) {
                ok = 0;
                break;
            }
            if (have) covered++;
            need += group_size - have;
        }
        /* Every rank present must be in the window (a joker never is). */
        if (ok && covered == distinct && need == spare)
            add_reading(out, RD(k, window[groups - 1], size));
    }
}

static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Every reading of a key, of the types in `types` (a bit each): natural counts by place, wild
 * cards, whether the natural cards share a suit, whether all the cards do. Sorted (as ints), so
 * two listings compare with memcmp. The suit flags matter to same-suit shapes alone. */
static void classify_key(const int32_t *T, const int *counts, int wilds, int one_suit,
                         int all_one_suit, int types, Readings *out) {
    int c[NPLACE], plain[NPLACE];
    int naturals = 0;
    out->n = 0;
    memcpy(c, counts, sizeof c);
    for (int p = 0; p < NPLACE; p++) naturals += c[p];
    int level = T[OFF_LEVEL];
    if (wilds && !naturals && T[OFF_NEEDS_NATURAL]) {
        /* Alone, the wild cards are plain heart level cards: natural cards of the wild suit. */
        c[level] += wilds;
        naturals = wilds;
        wilds = 0;
        one_suit = all_one_suit;
    }
    int size = naturals + wilds;
    if (!size) return;
    memcpy(plain, c, sizeof plain);
    plain[level] += wilds;
    int present_c[NPLACE], present_plain[NPLACE], distinct_c = 0, distinct_plain = 0;
    for (int p = 0; p < NPLACE; p++) {
        if (c[p]) present_c[distinct_c++] = p;
        if (plain[p]) present_plain[distinct_plain++] = p;
    }
    for (int k = 0; k < K_TYPES; k++) {
        if (!SHAPE(T, k, S_PRESENT) || !(types >> k & 1)) continue;
        int kick = SHAPE(T, k, S_KICKER);
        int gmin = SHAPE(T, k, S_GROUPS_MIN), gmax = SHAPE(T, k, S_GROUPS_MAX);
        int smin = SHAPE(T, k, S_SIZE_MIN), smax = SHAPE(T, k, S_SIZE_MAX);
        int jokers = SHAPE(T, k, S_JOKERS), consecutive = SHAPE(T, k, S_CONSECUTIVE);
        if (gmax < 0) gmax = size;
        if (smax < 0) smax = size;
        int excluded = SHAPE(T, k, S_WILD_EXCLUDED) && wilds;
        const int *here = excluded ? plain : c;
        const int *present = excluded ? present_plain : present_c;
        int spare = excluded ? 0 : wilds, same = excluded ? all_one_suit : one_suit;
        int distinct = excluded ? distinct_plain : distinct_c;
        if (SHAPE(T, k, S_SAME_SUIT) && !same) continue;
        for (int groups = gmin; groups <= gmax; groups++) {
            /* groups * gs + kick == size: one group size at most. */
            int rest = size - kick;
            if (groups <= 0 || rest % groups) continue;
            int gs = rest / groups;
            if (gs < smin || gs > smax) continue;
            int most = (jokers == JOKERS_ONLY || consecutive) ? groups : (kick ? 2 : 1);
            if (distinct > most) continue;
            if (jokers == JOKERS_ONLY)
                jokers_only(k, gs, here, spare, size, out);
            else if (consecutive)
                sequences(T, k, groups, gs, here, distinct, spare, size, out);
            else if (kick)
                with_kicker(T, k, gs, here, present, distinct, spare, size, out);
            else
                one_group(T, k, here, distinct, spare, size, out);
        }
    }
    qsort(out->r, (size_t)out->n, sizeof(int32_t), cmp_int32);
}

#define ALL_TYPES ((1 << K_TYPES) - 1)

int gd_classify(const int32_t *T, const int32_t *counts, int wilds, int one_suit,
                int all_one_suit, int32_t *out, int cap) {
    int c[NPLACE];
    Readings found;
    for (int p = 0; p < NPLACE; p++) c[p] = counts[p];
    classify_key(T, c, wilds, one_suit, all_one_suit, ALL_TYPES, &found);
    for (int i = 0; i < found.n && i < cap; i++) out[i] = found.r[i];
    return found.n;
}

/* ---- beats (壓牌) ------------------------------------------------------------------------- */

static int ladder_step(const int32_t *T, int32_t r) {
    int type = RD_TYPE(r), size = RD_SIZE(r), n = T[OFF_LADDER_N], any = -1;
    /* The step of each type at each size a hand can hold, compiled from the reference's own
     * ladder_step (the listing's table part): one lookup, where the scan below was the bot's
     * largest single cost. */
    if (type >= 0 && type < K_TYPES && size >= 0 && size <= K_MAX_HAND)
        return T[OFF_STEP + type * (K_MAX_HAND + 1) + size];
    /* The last step naming the type and size, else the last naming the type at any size. */
    for (int i = n - 1; i >= 0; i--) {
        if (T[OFF_LADDER_TYPE + i] != type) continue;
        if (T[OFF_LADDER_SIZE + i] == size) return i;
        if (T[OFF_LADDER_SIZE + i] < 0 && any < 0) any = i;
    }
    return any;
}

static int key_of(const int32_t *T, int32_t r) {
    int type = RD_TYPE(r), place = RD_PLACE(r);
    if (SHAPE(T, type, S_CONSECUTIVE)) return T[OFF_NATURAL_INDEX + place];
    if (type == T[OFF_FULL_HOUSE_TYPE] && T[OFF_FULL_HOUSE_NATURAL])
        return T[OFF_NATURAL_INDEX + place];
    return T[OFF_VALUE + place];
}

static int rank_beats(const int32_t *T, int32_t play, int32_t previous) {
    int mine = key_of(T, play), theirs = key_of(T, previous);
    if (mine != theirs) return mine > theirs;
    return T[OFF_EQUAL_BEATS] != 0;
}

int gd_beats(const int32_t *T, int32_t play, int32_t previous) {
    int mine = ladder_step(T, play), theirs = ladder_step(T, previous);
    if (mine >= 0 || theirs >= 0) {
        if (mine != theirs) return mine >= 0 && (theirs < 0 || mine > theirs);
        return rank_beats(T, play, previous);
    }
    if (RD_TYPE(play) != RD_TYPE(previous)) return 0;
    if (T[OFF_SAME_TYPE_AND_SIZE] && RD_SIZE(play) != RD_SIZE(previous)) return 0;
    return rank_beats(T, play, previous);
}

/* ---- legal plays and actions (可出的牌 / 可出的牌組) ---------------------------------------- */

/* A profile: natural cards by place (4 bits each), the wild cards above (bits 60..63). */
typedef uint64_t Profile;
#define P_SHIFT 4
#define P_WILD 60

typedef struct {
    Profile *items;
    size_t n, cap;
    int failed;
} Profiles;

static void add_profile(Profiles *ps, Profile p) {
    if (ps->failed) return;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 1024;
        Profile *grown = realloc(ps->items, cap * sizeof(Profile));
        if (!grown) {
            ps->failed = 1;
            return;
        }
        ps->items = grown;
        ps->cap = cap;
    }
    ps->items[ps->n++] = p;
}

static Profile at(int place, int n) { return (Profile)n << (P_SHIFT * place); }

/* The distinct ways to take n cards of one rank: how many of each suit (3 bits a suit). */
typedef struct {
    int n;
    int32_t ways[128];
} Parts;

#define MAXGROUP 16

typedef struct {
    const int32_t *T;
    int count[NPLACE];
    int suits[NPLACE][NSUIT];
    int wilds;
    /* The parts of each rank and size, made when first asked for (a bit each in `made`). */
    Parts *parts;
    uint32_t made[NPLACE];
    /* The caller's cache of readings by profile (see cache_get), or NULL; entries: a power of 2. */
    int32_t *cache;
    int64_t entries;
} Hand;

static void spread(const int32_t *window, int span, int i, int each, const Hand *h, int used,
                   Profile profile, Profiles *ps) {
    if (i == span) {
        add_profile(ps, profile | (Profile)used << P_WILD);
        return;
    }
    int place = window[i];
    for (int w = 0; w <= each && used + w <= h->wilds; w++) {
        if (each - w > h->count[place]) continue;
        spread(window, span, i + 1, each, h, used + w, profile + at(place, each - w), ps);
    }
}

/* Every profile a play of type k might have in the hand: a superset, classification filters. */
static void propose(const Hand *h, int k, Profiles *ps) {
    const int32_t *T = h->T;
    int most = 0, budget = h->wilds;
    for (int p = 0; p < NPLACE; p++)
        if (h->count[p] > most) most = h->count[p];
    most += budget;
    int smin = SHAPE(T, k, S_SIZE_MIN), smax = SHAPE(T, k, S_SIZE_MAX);
    int top = (smax < 0 || smax > most) ? most : smax;
    if (SHAPE(T, k, S_JOKERS) == JOKERS_ONLY) {
        int size = smin * SHAPE(T, k, S_GROUPS_MIN);
        for (int n = 0; n <= size; n++)
            if (n <= h->count[SB] && size - n <= h->count[HR])
                add_profile(ps, at(SB, n) | at(HR, size - n));
    } else if (SHAPE(T, k, S_CONSECUTIVE)) {
        int gmin = SHAPE(T, k, S_GROUPS_MIN), gmax = SHAPE(T, k, S_GROUPS_MAX);
        if (gmax < 0) gmax = T[OFF_N_NATURAL];
        if (gmax > K_MAX_SPAN) gmax = K_MAX_SPAN;
        for (int span = gmin; span <= gmax; span++) {
            int start = T[OFF_WINDOW_START + span], count = T[OFF_WINDOW_COUNT + span];
            for (int w = 0; w < count; w++)
                for (int each = smin; each <= top; each++)
                    spread(T + OFF_WINDOWS + start + w * span, span, 0, each, h, 0, 0, ps);
        }
    } else if (SHAPE(T, k, S_KICKER)) {
        int kick = SHAPE(T, k, S_KICKER), distinct = SHAPE(T, k, S_KICKER_DISTINCT);
        for (int place = 0; place < SB; place++) {
            for (int w = 0; w <= budget && w <= smin; w++) {
                if (smin - w > h->count[place]) continue;
                Profile group = at(place, smin - w) | (Profile)w << P_WILD;
                for (int other = 0; other < NPLACE; other++) {
                    int wmax = is_joker(other) ? 0 : (budget < kick ? budget : kick);
                    for (int wk = 0; wk <= wmax; wk++) {
                        if (kick - wk > h->count[other] || wk > budget - w) continue;
                        if (other == place &&
                            (distinct || smin - w + kick - wk > h->count[place]))
                            continue;
                        add_profile(ps, group + at(other, kick - wk) + ((Profile)wk << P_WILD));
                    }
                }
            }
        }
    } else {
        for (int place = 0; place < NPLACE; place++) {
            for (int size = smin; size <= top; size++) {
                if (size > h->count[place] + budget) break;
                int wmax = is_joker(place) ? 0 : (budget < size ? budget : size);
                for (int w = 0; w <= wmax; w++)
                    if (size - w <= h->count[place])
                        add_profile(ps, at(place, size - w) | (Profile)w << P_WILD);
            }
        }
    }
}

static int cmp_profile(const void *a, const void *b) {
    Profile x = *(const Profile *)a, y = *(const Profile *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int32_t *buf;
    int64_t n, cap;
} Out;

static void put(Out *o, int32_t v) {
    if (o->n < o->cap) o->buf[o->n] = v;
    o->n++;
}

static void parts_of(const Hand *h, int place, int size, Parts *out) {
    const int *s = h->suits[place];
    out->n = 0;
    for (int a = 0; a <= s[0]; a++)
        for (int b = 0; b <= s[1]; b++)
            for (int c = 0; c <= s[2]; c++)
                for (int d = 0; d <= s[3]; d++) {
                    int e = size - a - b - c - d;
                    if (e < 0 || e > s[4]) continue;
                    out->ways[out->n++] = a | b << 3 | c << 6 | d << 9 | e << 12;
                }
}

static int suit_mask(int32_t way) {
    int mask = 0;
    for (int s = 0; s < NSUIT; s++)
        if ((way >> (3 * s)) & 7) mask |= 1 << s;
    return mask;
}

typedef struct {
    int n;
    int place[NPLACE];
    int size[NPLACE];
    const Parts *parts[NPLACE];
} Groups;

static const Parts *parts_at(Hand *h, int place, int size) {
    Parts *found = &h->parts[place * MAXGROUP + size];
    if (!(h->made[place] >> size & 1)) {
        parts_of(h, place, size, found);
        h->made[place] |= 1u << size;
    }
    return found;
}

typedef struct {
    int32_t seen[4096];
    int n;
} Seen;

static int seen_add(Seen *seen, int32_t r) {
    for (int i = 0; i < seen->n; i++)
        if (seen->seen[i] == r) return 0;
    if (seen->n < 4096) seen->seen[seen->n++] = r;
    return 1;
}

static void put_set(Out *o, const Hand *h, const Groups *g, const int *choice, int wilds,
                    const Readings *readings) {
    int ncards = wilds;
    for (int i = 0; i < g->n; i++) ncards += g->size[i];
    put(o, ncards);
    for (int i = 0; i < g->n; i++) {
        int32_t way = g->parts[i]->ways[choice[i]];
        for (int s = 0; s < NSUIT; s++)
            for (int m = 0; m < ((way >> (3 * s)) & 7); m++) put(o, g->place[i] * NSUIT + s);
    }
    for (int w = 0; w < wilds; w++) put(o, h->T[OFF_LEVEL] * NSUIT + h->T[OFF_WILD_SUIT]);
    put(o, readings->n);
    for (int i = 0; i < readings->n; i++) put(o, readings->r[i]);
}

/* The readings of a set by the suits of its natural cards (see actions.py's `_patterns`). */
static const Readings *pattern(const Hand *h, int mask, int wilds, int same, const Readings *several,
                               const Readings *other, const Readings *one) {
    if (same) return one;
    if (mask && !(mask & (mask - 1))) {
        int suit = __builtin_ctz((unsigned)mask);
        return (!wilds || suit == h->T[OFF_WILD_SUIT]) ? one : other;
    }
    return several;
}

static void put_new(Out *o, const Hand *h, const Groups *g, const int *choice, int wilds,
                    const Readings *readings, Seen *seen) {
    /* A legal play per reading: the first set met that makes it. */
    for (int i = 0; i < readings->n; i++) {
        if (!seen_add(seen, readings->r[i])) continue;
        Readings one = {1, {readings->r[i]}};
        put_set(o, h, g, choice, wilds, &one);
    }
}

static void filter(const int32_t *T, Readings *r, int32_t previous) {
    int kept = 0;
    for (int i = 0; i < r->n; i++)
        if (gd_beats(T, r->r[i], previous)) r->r[kept++] = r->r[i];
    r->n = kept;
}

/* The readings of a profile by suit pattern, kept across calls in a cache the caller owns (one
 * per table): a direct-mapped array of entries [profile low, profile high, n several, n other,
 * n one, readings...]; a profile is never 0, so a zeroed entry is empty. Listings too long for
 * an entry are not kept. */
#define CACHE_WORDS 32
#define CACHE_READINGS (CACHE_WORDS - 5)

static int32_t *cache_slot(const Hand *h, Profile profile) {
    if (!h->cache) return NULL;
    uint64_t mixed = (uint64_t)profile * 0x9E3779B97F4A7C15ull;
    return h->cache + (int64_t)((mixed >> 20) & (uint64_t)(h->entries - 1)) * CACHE_WORDS;
}

static int cache_get(const Hand *h, Profile profile, Readings *several, Readings *other,
                     Readings *one) {
    int32_t *slot = cache_slot(h, profile);
    if (!slot || slot[0] != (int32_t)(uint32_t)profile || slot[1] != (int32_t)(profile >> 32))
        return 0;
    Readings *lists[3] = {several, other, one};
    int at = 5;
    for (int i = 0; i < 3; i++) {
        lists[i]->n = slot[2 + i];
        memcpy(lists[i]->r, slot + at, sizeof(int32_t) * (size_t)slot[2 + i]);
        at += slot[2 + i];
    }
    return 1;
}

static void cache_put(const Hand *h, Profile profile, const Readings *several,
                      const Readings *other, const Readings *one) {
    int32_t *slot = cache_slot(h, profile);
    if (!slot || several->n + other->n + one->n > CACHE_READINGS) return;
    const Readings *lists[3] = {several, other, one};
    int at = 5;
    for (int i = 0; i < 3; i++) {
        slot[2 + i] = lists[i]->n;
        memcpy(slot + at, lists[i]->r, sizeof(int32_t) * (size_t)lists[i]->n);
        at += lists[i]->n;
    }
    slot[0] = (int32_t)(uint32_t)profile;
    slot[1] = (int32_t)(profile >> 32);
}

/* Every set of cards with one profile, or (plays) one set for each reading not met before. */
static int emit(Hand *h, Profile profile, int32_t previous, int plays, Out *o, Seen *seen) {
    const int32_t *T = h->T;
    int c[NPLACE];
    int wilds = (int)(profile >> P_WILD);
    Groups g;
    g.n = 0;
    for (int p = 0; p < NPLACE; p++) {
        c[p] = (int)((profile >> (P_SHIFT * p)) & 15);
        if (c[p]) {
            g.place[g.n] = p;
            g.size[g.n] = c[p];
            g.n++;
        }
    }
    Readings several, other, one;
    if (!cache_get(h, profile, &several, &other, &one)) {
        classify_key(T, c, wilds, 0, 0, ALL_TYPES, &several);
        /* The suits change the readings of same-suit shapes alone (同花順): those are added. */
        int suited = T[OFF_SAME_SUIT_TYPES];
        other = several;
        one = several;
        if (suited) {
            Readings more;
            classify_key(T, c, wilds, 1, 0, suited, &more);
            for (int i = 0; i < more.n; i++) add_reading(&other, more.r[i]);
            classify_key(T, c, wilds, 1, 1, suited, &more);
            for (int i = 0; i < more.n; i++) add_reading(&one, more.r[i]);
            qsort(other.r, (size_t)other.n, sizeof(int32_t), cmp_int32);
            qsort(one.r, (size_t)one.n, sizeof(int32_t), cmp_int32);
        }
        cache_put(h, profile, &several, &other, &one);
    }
    if (previous >= 0) {
        filter(T, &several, previous);
        filter(T, &other, previous);
        filter(T, &one, previous);
    }
    if (!one.n) return 0;
    int same = g.n == 0 || (several.n == one.n &&
                            !memcmp(several.r, one.r, sizeof(int32_t) * (size_t)one.n));
    for (int i = 0; i < g.n; i++) {
        if (g.size[i] >= MAXGROUP) return 0;
        g.parts[i] = parts_at(h, g.place[i], g.size[i]);
        if (!g.parts[i]->n) return 0;
    }
    int choice[NPLACE] = {0};
    if (plays) {
        /* Every set of one suit, built directly, then the first set of several suits (among any
         * six sets one is, since there are five suits). */
        if (!same) {
            for (int s = 0; s < NSUIT; s++) {
                int ok = 1;
                for (int i = 0; i < g.n && ok; i++) {
                    int32_t way = (int32_t)g.size[i] << (3 * s);
                    int j;
                    for (j = 0; j < g.parts[i]->n && g.parts[i]->ways[j] != way; j++) {
                    }
                    if (j == g.parts[i]->n) ok = 0;
                    choice[i] = j;
                }
                if (ok && g.n) {
                    const Readings *r = pattern(h, 1 << s, wilds, 0, &several, &other, &one);
                    put_new(o, h, &g, choice, wilds, r, seen);
                }
            }
            memset(choice, 0, sizeof choice);
        }
    }
    for (;;) {
        int mask = 0;
        for (int i = 0; i < g.n; i++) mask |= suit_mask(g.parts[i]->ways[choice[i]]);
        if (plays) {
            if (same) {
                put_new(o, h, &g, choice, wilds, &one, seen);
                return 0;
            }
            if (mask & (mask - 1)) {
                put_new(o, h, &g, choice, wilds, &several, seen);
                return 0;
            }
        } else {
            const Readings *r = pattern(h, mask, wilds, same, &several, &other, &one);
            if (r->n) put_set(o, h, &g, choice, wilds, r);
        }
        int i = g.n - 1;
        while (i >= 0 && ++choice[i] == g.parts[i]->n) choice[i--] = 0;
        if (i < 0) return 0;
    }
}

/* The legal actions (plays == 0: every distinct set of cards, with its readings) or legal plays
 * (plays == 1: one set for each reading) of a hand, leading (previous < 0) or beating previous.
 * cache: the table's cache of readings by profile (entries of CACHE_WORDS ints, zeroed at first,
 * a power of 2 of them; NULL or 0 entries: none), which one caller at a time may use.
 * hand: natural cards by place and suit (NPLACE * NSUIT counts). Writes records
 * [n cards, cards..., n readings, readings...] into out, as far as cap allows; returns the ints
 * the whole answer needs (more than cap: ask again with room), or -1 when memory ran out. */
int64_t gd_list(const int32_t *T, int32_t *cache, int64_t entries, const int32_t *hand, int wilds,
                int32_t previous, int plays, int32_t *out, int64_t cap) {
    Hand h;
    h.T = T;
    h.wilds = wilds;
    h.cache = entries > 0 && !(entries & (entries - 1)) ? cache : NULL;
    h.entries = entries;
    for (int p = 0; p < NPLACE; p++) {
        h.count[p] = 0;
        for (int s = 0; s < NSUIT; s++) {
            h.suits[p][s] = hand[p * NSUIT + s];
            h.count[p] += h.suits[p][s];
        }
    }
    memset(h.made, 0, sizeof h.made);
    h.parts = malloc(sizeof(Parts) * NPLACE * MAXGROUP);
    if (!h.parts) return -1;
    Profiles ps = {NULL, 0, 0, 0};
    for (int k = 0; k < K_TYPES; k++) {
        if (!SHAPE(T, k, S_PRESENT)) continue;
        if (previous >= 0 && !SHAPE(T, k, S_ON_LADDER) && k != RD_TYPE(previous)) continue;
        propose(&h, k, &ps);
    }
    if (ps.failed) {
        free(ps.items);
        free(h.parts);
        return -1;
    }
    qsort(ps.items, ps.n, sizeof(Profile), cmp_profile);
    Out o = {out, 0, cap};
    Seen *seen = plays ? calloc(1, sizeof(Seen)) : NULL;
    if (plays && !seen) {
        free(ps.items);
        free(h.parts);
        return -1;
    }
    for (size_t i = 0; i < ps.n; i++) {
        if (i && ps.items[i] == ps.items[i - 1]) continue;
        emit(&h, ps.items[i], previous, plays, &o, seen);
    }
    free(ps.items);
    free(seen);
    free(h.parts);
    return o.n;
}

int gd_layout(void) { return K_LAYOUT; }

int gd_cache_words(void) { return CACHE_WORDS; }

/* For the heuristic bot (_bot.c): `PlayRules.key` and `PlayRules.ladder_step` (-1: no bomb). */
int gd_key(const int32_t *T, int32_t reading) { return key_of(T, reading); }

int gd_ladder_step(const int32_t *T, int32_t reading) { return ladder_step(T, reading); }
