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
        if (l->held != src->held)
            free(l->held);
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
                    run->in_flight -= coord_lease_size(l);
            }
            *pp = l->next;
            free(l->step);
            free(l->held);
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

int64_t coord_lease_size(const coord_lease_t *l)
{
    return l->ended ? (int64_t) l->nheld : l->last - l->first + 1;
}

/* first..last back to run_id's pool (if the run still hands out work). */
static void s_give(coord_t *self, int64_t run_id, int64_t first, int64_t last)
{
    coord_run_t *run = coord_run_find(self, run_id);
    if (run && run->active && pool_add(run->pool, first, last) < 0)
        LOG(LOG_ERROR, "run %lld: out of memory returning pairs %lld..%lld", (long long) run_id,
            (long long) first, (long long) last);
}

/* Sorted pairs v[0..n) back to the pool, as ranges. */
static void s_give_list(coord_t *self, int64_t run_id, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        s_give(self, run_id, v[i], v[j]);
        i = j + 1;
    }
}

static int s_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

bool coord_lease_holds(const coord_lease_t *l, int64_t p)
{
    return l->ended && l->nheld &&
           bsearch(&p, l->held, l->nheld, sizeof *l->held, s_cmp_i64) != NULL;
}

/* Replaces an ended lease's held set (sorted, owned), keeping in_flight. */
static void s_set_held(coord_t *self, coord_lease_t *l, int64_t *held, size_t n)
{
    int64_t before = coord_lease_size(l);
    if (l->held != held)
        free(l->held);
    l->held = held;
    l->nheld = n;
    l->ended = true;
    coord_run_t *run = coord_run_find(self, l->run_id);
    if (run && !l->cancelled)
        run->in_flight += coord_lease_size(l) - before;
}

void coord_lease_release(coord_t *self, int64_t task_id)
{
    coord_lease_t *l = coord_lease_find(self, task_id);
    if (!l)
        return;
    if (l->ended && !l->cancelled && l->nheld) {
        LOG(LOG_INFO, "task %lld: %zu pair(s) held for worker %s's resend back to the pool",
            (long long) task_id, l->nheld, l->worker_id);
        s_give_list(self, l->run_id, l->held, l->nheld);
    }
    coord_lease_remove(self, task_id);
}

void coord_lease_unhold(coord_t *self, int64_t task_id, const proto_result_t *res)
{
    coord_lease_t *l = coord_lease_find(self, task_id);
    if (!l || !l->ended)
        return;
    size_t k = 0;
    for (size_t i = 0; i < l->nheld; i++) {
        bool stored = false;
        for (size_t j = 0; j < res->pair_count && !stored; j++)
            stored = res->pairs[j].pair == l->held[i];
        if (!stored)
            l->held[k++] = l->held[i];
    }
    s_set_held(self, l, l->held, k);
    if (k == 0)
        coord_lease_remove(self, task_id);
}

/* Ends lease l, which the worker no longer plays: in the store, then its
 * unstored pairs go back to the pool except those in spooled (sorted), which
 * are held for the resend. The lease is forgotten when nothing is held. */
static void s_end(coord_t *self, coord_lease_t *l, const int64_t *spooled, size_t nspooled)
{
    int64_t tid = l->task_id;
    store_range_t *ranges = NULL;
    size_t n = 0;
    int rc = store_task_expire(self->store, tid, &ranges, &n);
    if (rc == CAPA_ESTATE) {   /* finished or ended meanwhile: nothing of it is ours */
        coord_lease_remove(self, tid);
        return;
    }
    if (rc < 0) {
        LOG(LOG_WARN, "worker %s: cannot end task %lld now (%s); trying again later",
            l->worker_id, (long long) tid, store_last_error(self->store));
        return;
    }
    int64_t *held = nspooled ? malloc(nspooled * sizeof *held) : NULL;
    size_t nheld = 0;
    int64_t back = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t from = ranges[i].first;
        for (int64_t p = ranges[i].first; p <= ranges[i].last; p++) {
            if (!held || !bsearch(&p, spooled, nspooled, sizeof *spooled, s_cmp_i64))
                continue;
            held[nheld++] = p;
            if (p > from)
                s_give(self, l->run_id, from, p - 1);
            back += p - from;
            from = p + 1;
        }
        if (from <= ranges[i].last)
            s_give(self, l->run_id, from, ranges[i].last);
        back += ranges[i].last - from + 1;
    }
    free(ranges);
    LOG(LOG_INFO, "worker %s no longer plays task %lld (run %lld pairs %lld..%lld): %lld "
        "unstored pair(s) back to the pool, %zu held for its resend", l->worker_id,
        (long long) tid, (long long) l->run_id, (long long) l->first, (long long) l->last,
        (long long) back, nheld);
    s_set_held(self, l, held, nheld);
    if (nheld == 0)
        coord_lease_remove(self, tid);
}

static const proto_spooled_t *s_spooled(const proto_holding_t *h, int64_t task_id)
{
    for (size_t i = 0; i < h->spooled_count; i++)
        if (h->spooled[i].task_id == task_id)
            return &h->spooled[i];
    return NULL;
}

void coord_lease_judge(coord_t *self, coord_session_t *s, const proto_holding_t *h, bool hello)
{
    /* The worker's leases first: ending one changes the table. */
    size_t n = 0, cap = 0;
    int64_t *ids = NULL;
    for (size_t b = 0; b < self->lease_buckets; b++)
        for (coord_lease_t *l = self->leases[b]; l; l = l->next) {
            if (l->cancelled || strcmp(l->worker_id, s->worker_id) != 0)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                int64_t *v = realloc(ids, cap * sizeof *v);
                if (!v) {
                    free(ids);
                    return;
                }
                ids = v;
            }
            ids[n++] = l->task_id;
        }
    for (size_t i = 0; i < n; i++) {
        coord_lease_t *l = coord_lease_find(self, ids[i]);
        if (!l)
            continue;
        bool playing = false;
        for (size_t k = 0; k < h->task_count && !playing; k++)
            playing = h->tasks[k] == l->task_id;
        const proto_spooled_t *sp = s_spooled(h, l->task_id);
        if (!hello && !playing && !sp && !l->confirmed && l->issued_seq >= s->request_seq)
            continue;   /* its TASK may still be on the way */
        l->confirmed = true;
        if (playing && !l->ended)
            continue;
        int64_t *spooled = NULL;
        size_t nspooled = sp ? sp->pair_count : 0;
        if (nspooled && (spooled = malloc(nspooled * sizeof *spooled))) {
            memcpy(spooled, sp->pairs, nspooled * sizeof *spooled);
            qsort(spooled, nspooled, sizeof *spooled, s_cmp_i64);
        } else {
            nspooled = 0;
        }
        if (!l->ended) {
            s_end(self, l, spooled, nspooled);
        } else {
            /* Held pairs the spool no longer has (and that were not stored
             * here, or they would not be held) go back. */
            size_t k = 0;
            int64_t *gone = l->nheld ? malloc(l->nheld * sizeof *gone) : NULL;
            size_t ngone = 0;
            for (size_t j = 0; j < l->nheld; j++) {
                int64_t p = l->held[j];
                if (spooled && bsearch(&p, spooled, nspooled, sizeof *spooled, s_cmp_i64))
                    l->held[k++] = p;
                else if (gone)
                    gone[ngone++] = p;
            }
            if (ngone) {
                LOG(LOG_INFO, "task %lld: %zu held pair(s) no longer in worker %s's spool: back "
                    "to the pool", (long long) l->task_id, ngone, l->worker_id);
                if (!l->cancelled)
                    s_give_list(self, l->run_id, gone, ngone);
            }
            free(gone);
            int64_t tid = l->task_id;
            s_set_held(self, l, l->held, k);
            if (k == 0)
                coord_lease_remove(self, tid);
        }
        free(spooled);
    }
    free(ids);
}

void coord_lease_orphans(coord_t *self, int64_t now)
{
    int64_t limit = (int64_t) self->cfg.heartbeat_ms * self->cfg.liveness;
    char worker[PROTO_ID_MAX] = "";
    for (size_t b = 0; b < self->lease_buckets && !worker[0]; b++)
        for (coord_lease_t *l = self->leases[b]; l && !worker[0]; l = l->next) {
            if (l->cancelled)
                continue;
            if (coord_session_by_worker(self, l->worker_id)) {
                l->orphan_ms = 0;
            } else if (l->orphan_ms == 0) {
                l->orphan_ms = now;
            } else if (now - l->orphan_ms > limit) {
                snprintf(worker, sizeof worker, "%s", l->worker_id);
                LOG(LOG_WARN, "worker %s has had no session for over %lld ms: its leases end",
                    worker, (long long) limit);
            }
        }
    /* One worker per call: the table changes under us (the next cron goes on). */
    if (worker[0] && coord_lease_expire_worker(self, worker) < 0)
        for (size_t b = 0; b < self->lease_buckets; b++)   /* try again after another wait */
            for (coord_lease_t *l = self->leases[b]; l; l = l->next)
                if (strcmp(l->worker_id, worker) == 0)
                    l->orphan_ms = now;
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
    /* Leases whose pairs were all stored return no range: forget them too;
     * ended ones give back the pairs held for the resend. */
    for (size_t b = 0; b < self->lease_buckets; b++) {
        coord_lease_t *l = self->leases[b];
        while (l) {
            coord_lease_t *next = l->next;
            if (!l->cancelled && strcmp(l->worker_id, worker_id) == 0)
                coord_lease_release(self, l->task_id);
            l = next;
        }
    }
    return 0;
}
