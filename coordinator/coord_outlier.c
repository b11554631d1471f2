/* coord_outlier.c - flagging workers: the per-worker outlier test of active
 * sprt runs (verify_outlier.h), the flag itself, shared with replay
 * verification (coord_result.c), and the list of flagged workers, who get no
 * tasks (coord_request.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "store_byworker.h"
#include "verify_outlier.h"

bool coord_worker_is_flagged(const coord_t *self, const char *worker_id)
{
    for (size_t i = 0; i < self->nflagged; i++)
        if (strcmp(self->flagged[i], worker_id) == 0)
            return true;
    return false;
}

bool coord_flagged_cb(void *ctx, const char *worker_id)
{
    return coord_worker_is_flagged(ctx, worker_id);
}

static void s_flagged_add(coord_t *self, const char *worker_id)
{
    if (coord_worker_is_flagged(self, worker_id))
        return;
    if (self->verify)
        verify_drop_worker(self->verify, worker_id);
    if (self->nflagged == self->flagged_cap) {
        size_t cap = self->flagged_cap ? 2 * self->flagged_cap : 16;
        char (*v)[PROTO_ID_MAX] = realloc(self->flagged, cap * sizeof *v);
        if (!v) {
            LOG(LOG_ERROR, "out of memory: worker %s may still get tasks (its results are "
                "excluded all the same)", worker_id);
            return;
        }
        self->flagged = v;
        self->flagged_cap = cap;
    }
    snprintf(self->flagged[self->nflagged++], PROTO_ID_MAX, "%s", worker_id);
}

int coord_flagged_load(coord_t *self)
{
    store_worker_t *list = NULL;
    size_t n = 0;
    int rc = store_worker_list(self->store, 0, &list, &n);
    if (rc < 0)
        return rc;
    self->nflagged = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i].flagged)
            s_flagged_add(self, list[i].id);
    store_worker_list_free(&list, n);
    if (self->nflagged)
        LOG(LOG_INFO, "%zu flagged workers: no tasks for them", self->nflagged);
    return 0;
}

int coord_worker_flag(coord_t *self, const char *worker_id, const char *reason)
{
    /* The counters are reread below: nothing of the writer's may be pending. */
    coord_writer_drain(self);
    size_t n = 0;
    int rc = store_worker_flag(self->store, worker_id, reason, &n);
    if (rc < 0) {
        LOG(LOG_ERROR, "cannot flag worker %s: %s", worker_id, store_last_error(self->store));
        return rc;
    }
    s_flagged_add(self, worker_id);
    LOG(LOG_WARN, "worker %s flagged: %s; %zu pairs excluded (active runs play their numbers "
        "again)", worker_id, reason, n);
    for (coord_run_t *r = self->runs; r; r = r->next)
        if (store_run_totals(self->store, r->id, &r->totals) < 0)
            LOG(LOG_WARN, "run %lld: cannot reread its counters: %s", (long long) r->id,
                store_last_error(self->store));
    if (n > 0)
        coord_runs_repool(self);
    return 0;
}

static void s_check_run(coord_t *self, coord_run_t *run)
{
    store_worker_penta_t *rows = NULL;
    size_t n = 0;
    if (store_run_worker_penta(self->store, run->id, &rows, &n) < 0) {
        LOG(LOG_WARN, "run %lld: no outlier test now: %s", (long long) run->id,
            store_last_error(self->store));
        return;
    }
    verify_outlier_t *w = n ? calloc(n, sizeof *w) : NULL;
    if (n && !w) {
        free(rows);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(w[i].worker_id, sizeof w[i].worker_id, "%s", rows[i].worker_id);
        memcpy(w[i].penta, rows[i].penta, sizeof w[i].penta);
    }
    free(rows);
    int k = verify_outliers(w, n, VERIFY_OUTLIER_MIN_PAIRS, self->cfg.outlier_p);
    for (size_t i = 0; i < n; i++) {
        if (w[i].df == 0)
            continue;
        LOG(w[i].outlier ? LOG_WARN : LOG_DEBUG,
            "run %lld outlier test: worker %s pairs by score %lld/%lld/%lld/%lld/%lld, "
            "chi2 %.1f (df %d), p %.3g%s", (long long) run->id, w[i].worker_id,
            (long long) w[i].penta[0], (long long) w[i].penta[1], (long long) w[i].penta[2],
            (long long) w[i].penta[3], (long long) w[i].penta[4], w[i].chi2, w[i].df, w[i].p,
            w[i].outlier ? ": OUTLIER" : "");
    }
    for (size_t i = 0; k > 0 && i < n; i++) {
        if (!w[i].outlier)
            continue;
        char reason[STORE_TEXT_MAX];
        snprintf(reason, sizeof reason, "results of run %lld unlike the other workers' "
                 "(chi-squared %.1f, df %d, p %.2g)", (long long) run->id, w[i].chi2, w[i].df,
                 w[i].p);
        coord_worker_flag(self, w[i].worker_id, reason);
    }
    free(w);
}

void coord_outliers_check(coord_t *self)
{
    for (coord_run_t *r = self->runs; r; r = r->next)
        if (r->active && r->info && r->info->doc->kind == PROTO_KIND_SPRT)
            s_check_run(self, r);
}
