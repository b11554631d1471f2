/* coord_runs.c - the runs the coordinator serves: loaded from the database
 * (runs are submitted there), their pools rebuilt from stored pairs and
 * active leases, SPRT stops, completion and piece-value estimates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "report.h"
#include "runstate.h"

coord_run_t *coord_run_find(coord_t *self, int64_t id)
{
    for (coord_run_t *r = self->runs; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

/* planned - stored (counted) - leased: the pairs to hand out. If the store
 * cannot be read, the pool stays as it was. */
static int s_pool_build(coord_t *self, coord_run_t *run)
{
    store_range_t *ranges = NULL;
    size_t n = 0;
    int rc = store_pairs_stored(self->store, run->id, &ranges, &n);
    if (rc < 0)
        return rc;
    pool_clear(run->pool);
    run->in_flight = 0;
    if (pool_add(run->pool, 0, run->pairs_planned - 1) < 0) {
        free(ranges);
        return CAPA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        pool_remove(run->pool, ranges[i].first, ranges[i].last);
    free(ranges);
    for (size_t b = 0; b < self->lease_buckets; b++)
        for (coord_lease_t *l = self->leases[b]; l; l = l->next)
            if (l->run_id == run->id && !l->cancelled) {
                if (!l->ended)
                    pool_remove(run->pool, l->first, l->last);
                for (size_t i = 0; l->ended && i < l->nheld; i++)
                    pool_remove(run->pool, l->held[i], l->held[i]);
                run->in_flight += coord_lease_size(l);
            }
    return 0;
}

void coord_runs_repool(coord_t *self)
{
    for (coord_run_t *r = self->runs; r; r = r->next) {
        if (!r->active)
            continue;   /* finished, stopped or failed runs stay so */
        int64_t before = pool_size(r->pool);
        if (s_pool_build(self, r) < 0) {
            /* coord_run_check rebuilds it once it runs dry. */
            LOG(LOG_WARN, "run %lld: cannot rebuild its pool now: %s", (long long) r->id,
                store_last_error(self->store));
            continue;
        }
        if (pool_size(r->pool) != before)
            LOG(LOG_INFO, "run %lld: %lld pairs to hand out (were %lld), %lld under lease",
                (long long) r->id, (long long) pool_size(r->pool), (long long) before,
                (long long) r->in_flight);
    }
}

static void s_deactivate(coord_t *self, coord_run_t *run)
{
    run->active = false;
    pool_clear(run->pool);
    for (size_t b = 0; b < self->lease_buckets; b++)
        for (coord_lease_t *l = self->leases[b]; l; l = l->next)
            if (l->run_id == run->id && !l->cancelled) {
                run->in_flight -= coord_lease_size(l);
                l->cancelled = true;
            }
}

static int s_activate(coord_t *self, coord_run_t *run)
{
    int rc = s_pool_build(self, run);
    if (rc < 0) {
        LOG(LOG_WARN, "run %lld: cannot rebuild its pool: %s", (long long) run->id,
            store_last_error(self->store));
        return rc;
    }
    run->active = true;
    LOG(LOG_INFO, "run %lld (%s, %s): %lld of %lld pairs to hand out, %lld under lease",
        (long long) run->id, proto_kind_name(run->info->doc->kind), run->info->doc->name,
        (long long) pool_size(run->pool), (long long) run->pairs_planned,
        (long long) run->in_flight);
    return 0;
}

static void s_run_free(coord_run_t *run)
{
    runinfo_destroy(&run->info);
    pool_destroy(&run->pool);
    stats_spsa_destroy(&run->spsa);
    free(run);
}

static int s_load(coord_t *self, const store_run_t *sr, coord_run_t **out)
{
    char err[512];
    coord_run_t *run = calloc(1, sizeof *run);
    if (!run || !(run->pool = pool_new())) {
        free(run);
        return CAPA_ENOMEM;
    }
    run->id = sr->id;
    run->status = sr->status;
    run->priority = sr->priority;
    run->pairs_planned = sr->pairs_planned;
    run->totals = sr->totals;
    run->last_estimate_pairs = -1;
    int rc = runinfo_from_doc(sr->doc ? sr->doc : "", NULL, 0, &run->info, err, sizeof err);
    if (rc == 0 && sr->kind == PROTO_KIND_SPSA) {
        rc = coord_spsa_load(self, run, sr->state);
        if (rc < 0)
            snprintf(err, sizeof err, "bad SPSA state");
    }
    if (rc < 0) {
        LOG(LOG_ERROR, "run %lld: unusable document: %s", (long long) sr->id, err);
        if (runstate_is_active(sr->status)) {
            cJSON *res = cJSON_CreateObject();
            cJSON_AddStringToObject(res, "error", err);
            char *txt = res ? cJSON_PrintUnformatted(res) : NULL;
            store_run_finish(self->store, sr->id, STORE_RUN_FAILED, txt);
            free(txt);
            cJSON_Delete(res);
        }
        s_run_free(run);
        return CAPA_EINVAL;
    }
    /* The stored seed is the run's (the canonical document carries the same). */
    run->info->doc->seed = sr->seed;
    run->info->spec.seed = (uint64_t) sr->seed;
    /* Append: the list stays oldest first. */
    coord_run_t **pp = &self->runs;
    while (*pp)
        pp = &(*pp)->next;
    *pp = run;
    if (runstate_is_active(run->status))
        s_activate(self, run);
    *out = run;
    return 0;
}

int coord_run_get(coord_t *self, int64_t id, coord_run_t **out)
{
    coord_run_t *run = coord_run_find(self, id);
    if (run) {
        *out = run;
        return 0;
    }
    store_run_t sr;
    memset(&sr, 0, sizeof sr);
    int rc = store_run_get(self->store, id, &sr);
    if (rc < 0)
        return rc;
    rc = s_load(self, &sr, out);
    store_run_clear(&sr);
    return rc;
}

int coord_runs_refresh(coord_t *self)
{
    store_run_t *list = NULL;
    size_t n = 0;
    int rc = store_run_next(self->store, 1000, &list, &n);
    if (rc < 0)
        return rc;
    /* Mark which of our active runs the database still lists. */
    bool *listed = NULL;
    size_t nruns = 0;
    for (coord_run_t *r = self->runs; r; r = r->next)
        nruns++;
    listed = calloc(nruns + 1, sizeof *listed);
    for (size_t i = 0; i < n; i++) {
        const store_run_t *sr = &list[i];
        coord_run_t *run = coord_run_find(self, sr->id);
        if (!run) {
            if (s_load(self, sr, &run) == 0)
                LOG(LOG_INFO, "run %lld (%s) picked up from the database", (long long) sr->id,
                    proto_kind_name(sr->kind));
            continue;
        }
        run->priority = sr->priority;
        run->status = sr->status;
        if (!run->active)
            s_activate(self, run);
        size_t k = 0;
        for (coord_run_t *r = self->runs; r; r = r->next, k++)
            if (r == run)
                listed[k] = true;
    }
    store_run_list_free(&list, n);
    /* Active runs the database no longer lists were stopped or finished. */
    size_t k = 0;
    for (coord_run_t *r = self->runs; r && k < nruns; r = r->next, k++) {
        if (!r->active || (listed && listed[k]))
            continue;
        store_run_t sr;
        memset(&sr, 0, sizeof sr);
        if (store_run_get(self->store, r->id, &sr) == 0) {
            r->status = sr.status;
            if (!runstate_is_active(sr.status)) {
                LOG(LOG_INFO, "run %lld is %s: no more tasks for it", (long long) r->id,
                    store_run_status_name(sr.status));
                s_deactivate(self, r);
            }
            store_run_clear(&sr);
        }
    }
    free(listed);
    return 0;
}

static int s_finish(coord_t *self, coord_run_t *run, cJSON *result, const char *why)
{
    char *txt = result ? cJSON_PrintUnformatted(result) : NULL;
    int rc = store_run_finish(self->store, run->id, STORE_RUN_FINISHED, txt);
    free(txt);
    if (rc < 0) {
        LOG(LOG_WARN, "run %lld: cannot record its end now (%s); retrying", (long long) run->id,
            store_last_error(self->store));
        return rc;
    }
    run->status = STORE_RUN_FINISHED;
    s_deactivate(self, run);
    LOG(LOG_INFO, "run %lld finished: %s", (long long) run->id, why);
    return 0;
}

static void s_estimate(coord_t *self, coord_run_t *run)
{
    cJSON *rep = NULL;
    char err[256];
    if (report_build(self->store, run->id, REPORT_FIT, &rep, err, sizeof err) < 0) {
        LOG(LOG_WARN, "run %lld: no estimate now: %s", (long long) run->id, err);
        return;
    }
    char *txt = cJSON_PrintUnformatted(rep);
    if (txt && store_estimate_put(self->store, run->id, run->totals.pairs, txt) == 0) {
        run->last_estimate_pairs = run->totals.pairs;
        run->last_estimate_ms = coord_now_ms();
    }
    free(txt);
    cJSON_Delete(rep);
}

int coord_run_check(coord_t *self, coord_run_t *run, bool final_estimate)
{
    if (!run->active)
        return 0;
    runinfo_t *info = run->info;
    if (info->doc->kind == PROTO_KIND_SPRT && run->totals.pairs > 0) {
        stats_counts_t c = { 0 };
        for (int i = 0; i < 5; i++)
            c.penta[i] = run->totals.penta[i];
        c.wins = run->totals.wins;
        c.draws = run->totals.draws;
        c.losses = run->totals.losses;
        stats_sprt_report_t r;
        char err[256];
        if (stats_sprt_report(&info->sprt, &c, &r, err, sizeof err) == 0 &&
            r.verdict != STATS_SPRT_CONTINUE) {
            cJSON *res = cJSON_CreateObject();
            cJSON_AddStringToObject(res, "verdict",
                                    r.verdict == STATS_SPRT_ACCEPT_H1 ? "H1" : "H0");
            cJSON_AddNumberToObject(res, "llr", r.llr);
            cJSON_AddNumberToObject(res, "lower", r.lower);
            cJSON_AddNumberToObject(res, "upper", r.upper);
            cJSON_AddNumberToObject(res, "pairs", (double) run->totals.pairs);
            cJSON *rep = stats_sprt_to_json(&r);
            if (rep)
                cJSON_AddItemToObject(res, "report", rep);
            char why[128];
            snprintf(why, sizeof why, "SPRT %s after %lld pairs (LLR %.3f)",
                     stats_verdict_name(r.verdict), (long long) run->totals.pairs, r.llr);
            int rc = s_finish(self, run, res, why);
            cJSON_Delete(res);
            return rc;
        }
    }
    if (info->doc->kind == PROTO_KIND_VALUES && run->totals.pairs > 0 &&
        run->totals.pairs != run->last_estimate_pairs &&
        (final_estimate || coord_now_ms() - run->last_estimate_ms >=
                               (int64_t) self->cfg.estimate_seconds * 1000))
        s_estimate(self, run);
    if (pool_size(run->pool) == 0 && run->in_flight == 0) {
        /* Every planned pair is stored (or was handed out and came back). */
        store_totals_t t;
        if (store_run_recount(self->store, run->id, &t) < 0)
            return CAPA_EDB;
        store_range_t *stored = NULL;
        size_t ns = 0;
        if (store_pairs_stored(self->store, run->id, &stored, &ns) < 0)
            return CAPA_EDB;
        int64_t count = 0;
        for (size_t i = 0; i < ns; i++)
            count += stored[i].last - stored[i].first + 1;
        free(stored);
        if (count < run->pairs_planned) {
            /* Some pairs are neither stored nor leased: rebuild the pool. */
            s_pool_build(self, run);
            return 0;
        }
        if (info->doc->kind == PROTO_KIND_VALUES)
            s_estimate(self, run);
        cJSON *res = cJSON_CreateObject();
        cJSON_AddStringToObject(res, "verdict", info->doc->kind == PROTO_KIND_SPRT ? "inconclusive"
                                                                              : "complete");
        cJSON_AddNumberToObject(res, "pairs", (double) count);
        if (run->spsa) {
            cJSON *st = stats_spsa_to_json(run->spsa);
            if (st)
                cJSON_AddItemToObject(res, "spsa", st);
        }
        int rc = s_finish(self, run, res, "every planned pair is stored");
        cJSON_Delete(res);
        return rc;
    }
    return 0;
}

void coord_runs_free(coord_t *self)
{
    coord_run_t *r = self->runs;
    while (r) {
        coord_run_t *next = r->next;
        s_run_free(r);
        r = next;
    }
    self->runs = NULL;
}
