/* tt.c - the transposition table. */
#include "tt.h"

#include <stdlib.h>
#include <string.h>

#include "search.h"

#define BUCKET 4

typedef struct {
    tt_entry_t e[BUCKET];
} tt_bucket_t;

struct tt_s {
    tt_bucket_t *buckets;
    uint64_t count;
    size_t mb;
    uint8_t gen;
};

tt_t *tt_new(size_t mb)
{
    tt_t *tt = calloc(1, sizeof *tt);
    if (!tt)
        return NULL;
    uint64_t count = (uint64_t) mb * 1024 * 1024 / sizeof(tt_bucket_t);
    if (count < 1)
        count = 1;
    tt->buckets = calloc(count, sizeof(tt_bucket_t));
    if (!tt->buckets) {
        free(tt);
        return NULL;
    }
    tt->count = count;
    tt->mb = mb;
    return tt;
}

void tt_destroy(tt_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->buckets);
    free(*self_p);
    *self_p = NULL;
}

void tt_clear(tt_t *tt)
{
    memset(tt->buckets, 0, tt->count * sizeof(tt_bucket_t));
    tt->gen = 0;
}

void tt_new_search(tt_t *tt)
{
    tt->gen = (uint8_t) ((tt->gen + 1) & 63);
}

static tt_bucket_t *s_bucket(const tt_t *tt, uint64_t key)
{
    return &tt->buckets[(uint64_t) (((unsigned __int128) key * tt->count) >> 64)];
}

void tt_prefetch(const tt_t *tt, uint64_t key)
{
    __builtin_prefetch(s_bucket(tt, key));
}

bool tt_probe(const tt_t *tt, uint64_t key, tt_entry_t *out)
{
    tt_bucket_t *b = s_bucket(tt, key);
    uint32_t k = (uint32_t) key;
    for (int i = 0; i < BUCKET; i++) {
        if (b->e[i].key == k && b->e[i].bound_gen & 3) {
            *out = b->e[i];
            return true;
        }
    }
    return false;
}

void tt_store(tt_t *tt, uint64_t key, move_t move, int score, int eval, int depth, int bound)
{
    tt_bucket_t *b = s_bucket(tt, key);
    uint32_t k = (uint32_t) key;
    tt_entry_t *slot = NULL;
    int worst = 1 << 30;
    for (int i = 0; i < BUCKET; i++) {
        tt_entry_t *e = &b->e[i];
        if (e->key == k || !(e->bound_gen & 3)) {
            slot = e;
            break;
        }
        int age = (tt->gen - (e->bound_gen >> 2)) & 63;
        int worth = e->depth - 8 * age;
        if (worth < worst) {
            worst = worth;
            slot = e;
        }
    }
    /* Keep a deeper result of the same position unless this one is exact. */
    if (slot->key == k && (slot->bound_gen & 3) && bound != TT_BOUND_EXACT &&
        depth + 3 < slot->depth && (slot->bound_gen >> 2) == tt->gen)
        return;
    if (move == MOVE_NONE && slot->key == k)
        move = slot->move;
    if (depth < 0)
        depth = 0;
    if (depth > 255)
        depth = 255;
    slot->key = k;
    slot->move = move;
    slot->score = (int16_t) score;
    slot->eval = (int16_t) eval;
    slot->depth = (uint8_t) depth;
    slot->bound_gen = (uint8_t) (bound | (tt->gen << 2));
}

int tt_hashfull(const tt_t *tt)
{
    uint64_t n = tt->count < 250 ? tt->count : 250;
    int used = 0;
    for (uint64_t i = 0; i < n; i++)
        for (int j = 0; j < BUCKET; j++)
            used += (tt->buckets[i].e[j].bound_gen & 3) && (tt->buckets[i].e[j].bound_gen >> 2) == tt->gen;
    return n ? (int) (used * 1000 / (n * BUCKET)) : 0;
}

size_t tt_size_mb(const tt_t *tt)
{
    return tt->mb;
}

int tt_score_to(int score, int ply)
{
    if (score >= SCORE_MATE_IN_MAX)
        return score + ply;
    if (score <= -SCORE_MATE_IN_MAX)
        return score - ply;
    return score;
}

int tt_score_from(int score, int ply)
{
    if (score >= SCORE_MATE_IN_MAX)
        return score - ply;
    if (score <= -SCORE_MATE_IN_MAX)
        return score + ply;
    return score;
}
