/* store_values.c - the values runs with their stored estimates and the
 * engines that played them (see store_values.h). */
#include "store_values.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store_int.h"

/* A game field of the run document as a whole number (0 when absent). */
#define VALUES_GAME(key) "coalesce((r.doc -> 'game' ->> '" key "')::numeric, 0)::bigint"

int store_values_runs(store_t *store, size_t limit, store_values_run_t **runs_p, size_t *n_out)
{
    *runs_p = NULL;
    *n_out = 0;
    char lim[24];
    const char *params[] = { store_i64(lim, limit ? (int64_t) limit : 500) };
    PGresult *res = NULL;
    int rc = store_exec(store, "values runs",
                        "SELECT r.id, r.name, r.status, coalesce(r.doc ->> 'variant', ''),"
                        " " VALUES_GAME("nodes") ", " VALUES_GAME("tc_base_ms") ","
                        " " VALUES_GAME("tc_inc_ms") ", r.pairs_done, r.pairs_planned,"
                        " epoch_ms(r.created_at), coalesce(epoch_ms(r.finished_at), 0),"
                        " coalesce(e.pairs_used, 0), coalesce(epoch_ms(e.computed_at), 0),"
                        " CASE WHEN json_typeof(e.report -> 'values') = 'object'"
                        "  THEN (e.report -> 'values')::text END,"
                        " e.report ->> 'values_error',"
                        /* the estimate's engines (counted when it was made); the
                         * pairs scanned only for an older estimate without them */
                        " coalesce((e.report -> 'engines')::text, " STORE_RUN_ENGINES_SQL("r.id") "::text),"
                        /* the engine's own parameters, or changed ones */
                        " coalesce(r.doc -> 'params', '{}') <> '{}' OR coalesce(r.doc -> 'params_side', '{}') <> '{}'"
                        "  OR coalesce(r.doc -> 'params_other', '{}') <> '{}'"
                        " FROM runs r LEFT JOIN estimates e ON e.run_id = r.id"
                        " WHERE r.kind = 'values' AND r.status <> 'failed'"
                        "  AND (r.status <> 'pending' OR e.run_id IS NOT NULL)"
                        " ORDER BY r.id DESC LIMIT $1::bigint",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_values_run_t *v = rows ? calloc((size_t) rows, sizeof *v) : NULL;
    if (rows && !v) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d values runs", rows);
    }
    bool oom = false;
    for (int i = 0; i < rows; i++) {
        store_values_run_t *r = &v[i];
        char status[16];
        r->id = store_get_i64(res, i, 0);
        r->name = store_get_dup(res, i, 1, &oom);
        store_get_text(res, i, 2, status, sizeof status);
        r->status = (store_run_status_t) store_run_status_parse(status);
        store_get_text(res, i, 3, r->variant, sizeof r->variant);
        r->nodes = store_get_i64(res, i, 4);
        r->tc_base_ms = store_get_i64(res, i, 5);
        r->tc_inc_ms = store_get_i64(res, i, 6);
        r->pairs_done = store_get_i64(res, i, 7);
        r->pairs_planned = store_get_i64(res, i, 8);
        r->created_at_ms = store_get_i64(res, i, 9);
        r->finished_at_ms = store_get_i64(res, i, 10);
        r->pairs_used = store_get_i64(res, i, 11);
        r->computed_at_ms = store_get_i64(res, i, 12);
        r->fit = store_get_dup(res, i, 13, &oom);
        r->error = store_get_dup(res, i, 14, &oom);
        r->engines = store_get_dup(res, i, 15, &oom);
        r->params_changed = store_get_bool(res, i, 16);
    }
    PQclear(res);
    if (oom) {
        store_values_runs_free(&v, (size_t) rows);
        return store_fail(store, CAPA_ENOMEM, "out of memory reading %d values runs", rows);
    }
    *runs_p = v;
    *n_out = (size_t) rows;
    return 0;
}

void store_values_runs_free(store_values_run_t **runs_p, size_t n)
{
    store_values_run_t *v = *runs_p;
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].name);
        free(v[i].fit);
        free(v[i].error);
        free(v[i].engines);
    }
    free(v);
    *runs_p = NULL;
}
