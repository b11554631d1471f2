/* coord_outlier.c - flagging workers: the per-worker outlier test of active
 * sprt runs (verify_outlier.h) and the flag itself, shared with replay
 * verification (coord_result.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "store_extra.h"
#include "verify_outlier.h"

/* Pairs a worker (and the rest of its run) needs before it is tested. */
#define OUTLIER_MIN_PAIRS 30

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
    if (self->verify)
        verify_set_flagged(self->verify, worker_id);
    LOG(LOG_WARN, "worker %s flagged: %s; %zu pairs excluded", worker_id, reason, n);
    for (coord_run_t *r = self->runs; r; r = r->next)
        if (store_run_totals(self->store, r->id, &r->totals) < 0)
            LOG(LOG_WARN, "run %lld: cannot reread its counters: %s", (long long) r->id,
                store_last_error(self->store));
    return 0;
}

static void s_check_run(coord_t *self, coord_run_t *run)
{
    store_extra_penta_t *rows = NULL;
    size_t n = 0;
    if (store_extra_worker_penta(self->store, run->id, &rows, &n) < 0) {
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
    int k = verify_outliers(w, n, OUTLIER_MIN_PAIRS, self->cfg.outlier_p);
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
        if (r->active && r->info && r->info->kind == STORE_RUN_SPRT)
            s_check_run(self, r);
}
