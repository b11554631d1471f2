/* tt.h - the transposition table of one engine.
 *
 * Buckets of four 16-byte entries; an entry keeps 32 bits of the key, the
 * best move, score, static evaluation, depth, bound and the generation of
 * the search that wrote it. Mate scores are stored relative to the node
 * (tt_score_to / tt_score_from convert). Not thread-safe: one table per
 * engine, one engine per thread. Allocated zeroed, so its contents never
 * depend on uninitialised memory.
 */
#ifndef CAPA_ENGINE_TT_H
#define CAPA_ENGINE_TT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

enum { TT_BOUND_NONE = 0, TT_BOUND_UPPER = 1, TT_BOUND_LOWER = 2, TT_BOUND_EXACT = 3 };

typedef struct {
    uint32_t key;
    move_t move;
    int16_t score;
    int16_t eval;
    uint8_t depth;
    uint8_t bound_gen;  /* bound in bits 0-1, generation in bits 2-7 */
    uint8_t pad_[2];
} tt_entry_t;

typedef struct tt_s tt_t;

/* A table of about mb megabytes (at least one bucket). NULL on allocation
 * failure. The caller owns it; free with tt_destroy. */
tt_t *tt_new(size_t mb);
void tt_destroy(tt_t **self_p);
/* Empties the table (a new game). */
void tt_clear(tt_t *tt);
/* Starts a new search: entries of older searches are replaced first. */
void tt_new_search(tt_t *tt);
/* Looks up key; true and a copy in *out if found. */
bool tt_probe(const tt_t *tt, uint64_t key, tt_entry_t *out);
/* Starts loading the bucket of key into the cache. */
void tt_prefetch(const tt_t *tt, uint64_t key);
/* Stores a result (score already converted with tt_score_to). */
void tt_store(tt_t *tt, uint64_t key, move_t move, int score, int eval, int depth, int bound);
/* Permille of sampled entries written by the current search (UCI hashfull). */
int tt_hashfull(const tt_t *tt);
/* Size in megabytes as requested. */
size_t tt_size_mb(const tt_t *tt);

/* Mate scores: stored relative to the node, returned relative to the root. */
int tt_score_to(int score, int ply);
int tt_score_from(int score, int ply);

#endif
