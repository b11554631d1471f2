/* pool.c - sorted disjoint ranges of pair numbers (see pool.h). */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

struct pool_t {
    pool_range_t *r;
    size_t n, cap;
};

pool_t *pool_new(void)
{
    return calloc(1, sizeof(pool_t));
}

void pool_destroy(pool_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->r);
    free(*self_p);
    *self_p = NULL;
}

void pool_clear(pool_t *self)
{
    self->n = 0;
}

static int s_reserve(pool_t *self, size_t need)
{
    if (need <= self->cap)
        return 0;
    size_t cap = self->cap ? self->cap * 2 : 8;
    while (cap < need)
        cap *= 2;
    pool_range_t *r = realloc(self->r, cap * sizeof *r);
    if (!r)
        return CAPA_ENOMEM;
    self->r = r;
    self->cap = cap;
    return 0;
}

/* Index of the first range with hi >= n - 1 (one that n could touch). */
static size_t s_lower(const pool_t *self, int64_t n)
{
    size_t lo = 0, hi = self->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (self->r[mid].hi < n - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int pool_add(pool_t *self, int64_t lo, int64_t hi)
{
    if (lo < 0 || hi < lo)
        return CAPA_EINVAL;
    size_t i = s_lower(self, lo);
    /* Ranges i..j-1 overlap or touch [lo, hi]. */
    size_t j = i;
    while (j < self->n && self->r[j].lo <= hi + 1) {
        if (self->r[j].lo < lo)
            lo = self->r[j].lo;
        if (self->r[j].hi > hi)
            hi = self->r[j].hi;
        j++;
    }
    if (j == i) {
        if (s_reserve(self, self->n + 1) < 0)
            return CAPA_ENOMEM;
        memmove(self->r + i + 1, self->r + i, (self->n - i) * sizeof *self->r);
        self->n++;
    } else if (j > i + 1) {
        memmove(self->r + i + 1, self->r + j, (self->n - j) * sizeof *self->r);
        self->n -= j - i - 1;
    }
    self->r[i] = (pool_range_t) { lo, hi };
    return 0;
}

int pool_remove(pool_t *self, int64_t lo, int64_t hi)
{
    if (lo < 0 || hi < lo)
        return CAPA_EINVAL;
    size_t i = s_lower(self, lo + 1);   /* first range with hi >= lo */
    if (i < self->n && self->r[i].lo < lo && self->r[i].hi > hi) {
        /* [lo, hi] lies strictly inside range i: split it. */
        if (s_reserve(self, self->n + 1) < 0)
            return CAPA_ENOMEM;
        memmove(self->r + i + 1, self->r + i, (self->n - i) * sizeof *self->r);
        self->n++;
        self->r[i].hi = lo - 1;
        self->r[i + 1].lo = hi + 1;
        return 0;
    }
    size_t w = i;
    for (size_t k = i; k < self->n; k++) {
        pool_range_t r = self->r[k];
        if (r.lo > hi) {
            self->r[w++] = r;
            continue;
        }
        if (r.lo < lo)
            self->r[w++] = (pool_range_t) { r.lo, lo - 1 };
        else if (r.hi > hi)
            self->r[w++] = (pool_range_t) { hi + 1, r.hi };
    }
    self->n = w;
    return 0;
}

int pool_take(pool_t *self, int64_t max, pool_range_t *out)
{
    if (self->n == 0 || max < 1)
        return CAPA_ENOTFOUND;
    pool_range_t *r = &self->r[0];
    int64_t hi = r->hi - r->lo + 1 > max ? r->lo + max - 1 : r->hi;
    *out = (pool_range_t) { r->lo, hi };
    if (hi == r->hi) {
        memmove(self->r, self->r + 1, (self->n - 1) * sizeof *self->r);
        self->n--;
    } else {
        r->lo = hi + 1;
    }
    return 0;
}

bool pool_contains(const pool_t *self, int64_t n)
{
    if (n < 0)
        return false;
    size_t i = s_lower(self, n + 1);
    return i < self->n && self->r[i].lo <= n;
}

int64_t pool_size(const pool_t *self)
{
    int64_t s = 0;
    for (size_t i = 0; i < self->n; i++)
        s += self->r[i].hi - self->r[i].lo + 1;
    return s;
}

size_t pool_range_count(const pool_t *self)
{
    return self->n;
}

pool_range_t pool_range(const pool_t *self, size_t i)
{
    return i < self->n ? self->r[i] : (pool_range_t) { -1, -2 };
}
