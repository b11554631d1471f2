/* coord_lease.c - the leases the coordinator holds in memory (a chained hash
 * on the task id); the database's tasks table is the truth after a restart. */
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"

static size_t s_bucket(const coord_t *self, int64_t task_id)
{
    uint64_t h = (uint64_t) task_id * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t) (h >> 20) & (self->lease_buckets - 1);
}

coord_lease_t *coord_lease_find(coord_t *self, int64_t task_id)
{
    if (!self->lease_buckets)
        return NULL;
    for (coord_lease_t *l = self->leases[s_bucket(self, task_id)]; l; l = l->next)
        if (l->task_id == task_id)
            return l;
    return NULL;
}

static int s_rehash(coord_t *self)
{
    size_t nb = self->lease_buckets ? self->lease_buckets * 2 : 1024;
    coord_lease_t **tab = calloc(nb, sizeof *tab);
    if (!tab)
        return CAPA_ENOMEM;
    size_t old = self->lease_buckets;
    coord_lease_t **otab = self->leases;
    self->leases = tab;
    self->lease_buckets = nb;
    for (size_t i = 0; i < old; i++) {
        coord_lease_t *l = otab[i];
        while (l) {
            coord_lease_t *next = l->next;
            size_t b = s_bucket(self, l->task_id);
            l->next = tab[b];
            tab[b] = l;
            l = next;
        }
    }
    free(otab);
    return 0;
}

int coord_lease_add(coord_t *self, const coord_lease_t *src)
{
    if ((self->lease_count + 1) > self->lease_buckets && s_rehash(self) < 0)
        return CAPA_ENOMEM;
    coord_lease_t *l = coord_lease_find(self, src->task_id);
    if (!l) {
        if (!(l = malloc(sizeof *l)))
            return CAPA_ENOMEM;
        *l = *src;
        size_t b = s_bucket(self, src->task_id);
        l->next = self->leases[b];
        self->leases[b] = l;
        self->lease_count++;
    } else {
        coord_lease_t *next = l->next;
        if (l->step != src->step)
            free(l->step);
        *l = *src;
        l->next = next;
    }
    return 0;
}

void coord_lease_remove(coord_t *self, int64_t task_id)
{
    if (!self->lease_buckets)
        return;
    coord_lease_t **pp = &self->leases[s_bucket(self, task_id)];
    while (*pp) {
        coord_lease_t *l = *pp;
        if (l->task_id == task_id) {
            if (!l->cancelled) {
                coord_run_t *run = coord_run_find(self, l->run_id);
                if (run)
                    run->in_flight -= l->last - l->first + 1;
            }
            *pp = l->next;
            free(l->step);
            free(l);
            self->lease_count--;
            return;
        }
        pp = &l->next;
    }
}

void coord_lease_return(coord_t *self, const store_range_t *ranges, size_t n)
{
    int64_t last_task = -1;
    for (size_t i = 0; i < n; i++) {
        const store_range_t *r = &ranges[i];
        coord_run_t *run = coord_run_find(self, r->run_id);
        if (run && run->active && pool_add(run->pool, r->first, r->last) < 0)
            LOG(LOG_ERROR, "run %lld: out of memory returning pairs %lld..%lld",
                (long long) r->run_id, (long long) r->first, (long long) r->last);
        if (r->task_id > 0 && r->task_id != last_task) {
            coord_lease_remove(self, r->task_id);
            last_task = r->task_id;
        }
    }
}

int coord_lease_expire_worker(coord_t *self, const char *worker_id)
{
    store_range_t *ranges = NULL;
    size_t n = 0;
    int rc = store_task_expire_worker(self->store, worker_id, &ranges, &n);
    if (rc < 0) {
        LOG(LOG_WARN, "worker %s: cannot expire its leases now (%s); the lease expiry will",
            worker_id, store_last_error(self->store));
        return rc;
    }
    coord_lease_return(self, ranges, n);
    free(ranges);
    /* Leases whose pairs were all stored return no range: forget them too. */
    for (size_t b = 0; b < self->lease_buckets; b++) {
        coord_lease_t *l = self->leases[b];
        while (l) {
            coord_lease_t *next = l->next;
            if (!l->cancelled && strcmp(l->worker_id, worker_id) == 0)
                coord_lease_remove(self, l->task_id);
            l = next;
        }
    }
    return 0;
}
