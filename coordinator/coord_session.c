/* coord_session.c - the table of connected workers, keyed by ZeroMQ routing
 * id (open addressing, linear probing, backward-shift deletion). */
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"

static uint64_t s_hash(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h ^ (h >> 29);
}

coord_session_t *coord_session_find(coord_t *self, const uint8_t *rid, size_t len)
{
    if (self->session_cap == 0)
        return NULL;
    size_t mask = self->session_cap - 1;
    for (size_t i = s_hash(rid, len) & mask;; i = (i + 1) & mask) {
        coord_session_t *s = &self->sessions[i];
        if (!s->used)
            return NULL;
        if (s->rid_len == len && memcmp(s->rid, rid, len) == 0)
            return s;
    }
}

static int s_grow(coord_t *self)
{
    size_t cap = self->session_cap ? self->session_cap * 2 : 64;
    coord_session_t *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return -1;
    for (size_t i = 0; i < self->session_cap; i++) {
        coord_session_t *s = &self->sessions[i];
        if (!s->used)
            continue;
        size_t j = s_hash(s->rid, s->rid_len) & (cap - 1);
        while (tab[j].used)
            j = (j + 1) & (cap - 1);
        tab[j] = *s;
    }
    free(self->sessions);
    self->sessions = tab;
    self->session_cap = cap;
    return 0;
}

coord_session_t *coord_session_add(coord_t *self, const uint8_t *rid, size_t len)
{
    if (len == 0 || len > COORD_RID_MAX)
        return NULL;
    coord_session_t *s = coord_session_find(self, rid, len);
    if (s)
        return s;
    if ((self->session_count + 1) * 2 > self->session_cap && s_grow(self) < 0)
        return NULL;
    size_t mask = self->session_cap - 1;
    size_t i = s_hash(rid, len) & mask;
    while (self->sessions[i].used)
        i = (i + 1) & mask;
    s = &self->sessions[i];
    memset(s, 0, sizeof *s);
    s->used = true;
    memcpy(s->rid, rid, len);
    s->rid_len = len;
    self->session_count++;
    return s;
}

void coord_session_remove(coord_t *self, coord_session_t *s)
{
    size_t mask = self->session_cap - 1;
    size_t i = (size_t) (s - self->sessions);
    self->sessions[i].used = false;
    self->session_count--;
    /* Backward-shift: move later entries of the probe chain into the hole. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        coord_session_t *e = &self->sessions[j];
        if (!e->used)
            break;
        size_t home = s_hash(e->rid, e->rid_len) & mask;
        /* e may move to i if i lies cyclically in [home, j). */
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            self->sessions[i] = *e;
            e->used = false;
            i = j;
        }
    }
}

coord_session_t *coord_session_by_worker(coord_t *self, const char *worker_id)
{
    for (size_t i = 0; i < self->session_cap; i++) {
        coord_session_t *s = &self->sessions[i];
        if (s->used && strcmp(s->worker_id, worker_id) == 0)
            return s;
    }
    return NULL;
}
