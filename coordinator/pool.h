/* pool.h - a set of pair numbers kept as sorted, disjoint, inclusive ranges.
 *
 * A run's pool is the pair numbers still to hand out: planned pairs minus
 * stored pairs minus pairs under an unexpired lease. Returned pairs (an
 * expired lease, a dead worker) go back with pool_add; the scheduler takes
 * the lowest contiguous range with pool_take, so returned pairs (always
 * below the never-issued ones) are handed out first.
 *
 *   pool_t *p = pool_new();           caller owns; pool_destroy(&p)
 *   pool_add(p, 0, 999);              pairs 0..999
 *   pool_remove(p, 10, 19);           leased elsewhere
 *   pool_range_t r; pool_take(p, 64, &r);   r = [0, 9]
 */
#ifndef CAPA_COORD_POOL_H
#define CAPA_COORD_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t lo, hi;   /* inclusive, lo <= hi */
} pool_range_t;

typedef struct pool_t pool_t;

pool_t *pool_new(void);
void pool_destroy(pool_t **self_p);
/* Empties the set. */
void pool_clear(pool_t *self);
/* Adds [lo, hi] (union; lo <= hi, lo >= 0). 0, CAPA_EINVAL or CAPA_ENOMEM. */
int pool_add(pool_t *self, int64_t lo, int64_t hi);
/* Removes [lo, hi] (difference; parts not in the set are ignored).
 * 0, CAPA_EINVAL or CAPA_ENOMEM (a range split in two needs room). */
int pool_remove(pool_t *self, int64_t lo, int64_t hi);
/* Removes and returns in *out the lowest contiguous run of at most max
 * numbers. 0, or CAPA_ENOTFOUND when the set is empty (max >= 1). */
int pool_take(pool_t *self, int64_t max, pool_range_t *out);
bool pool_contains(const pool_t *self, int64_t n);
/* How many numbers the set holds, and how many disjoint ranges. */
int64_t pool_size(const pool_t *self);
size_t pool_range_count(const pool_t *self);
/* Range i (0 <= i < pool_range_count), lowest first. */
pool_range_t pool_range(const pool_t *self, size_t i);

#endif
