/* store_reports.c - what the coordinator computes and keeps (SPSA history and
 * estimate reports) and the whole database's figures for /metrics. */
#include "store_int.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

int store_spsa_append(store_t *store, int64_t run_id, int64_t iteration, const char *theta_json,
                      const char *info_json)
{
    if (!theta_json)
        return store_fail(store, CAPA_EINVAL, "an SPSA step needs theta");
    char rb[24], ib[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(ib, iteration), theta_json,
                             info_json };
    int rc = store_exec(store, "append SPSA step",
                        "INSERT INTO spsa_history (run_id, iteration, theta, info)"
                        " VALUES ($1::bigint, $2::bigint, $3::jsonb, $4::jsonb)",
                        4, params, NULL);
    if (rc == CAPA_EDUP)
        return store_fail(store, CAPA_EDUP, "run %lld already has SPSA iteration %lld",
                          (long long) run_id, (long long) iteration);
    return rc;
}

void store_spsa_list_free(store_spsa_step_t **steps_p, size_t n)
{
    if (!steps_p || !*steps_p)
        return;
    for (size_t i = 0; i < n; i++) {
        free((*steps_p)[i].theta);
        free((*steps_p)[i].info);
    }
    free(*steps_p);
    *steps_p = NULL;
}

int store_spsa_list(store_t *store, int64_t run_id, store_spsa_step_t **steps_p, size_t *n_out)
{
    *steps_p = NULL;
    *n_out = 0;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "list SPSA steps",
                        "SELECT iteration, theta::text, info::text, epoch_ms(recorded_at)"
                        " FROM spsa_history WHERE run_id = $1::bigint ORDER BY iteration",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_spsa_step_t *v = calloc((size_t) rows, sizeof *v);
        bool oom = v == NULL;
        for (int i = 0; v && i < rows; i++) {
            v[i].iteration = store_get_i64(res, i, 0);
            v[i].theta = store_get_dup(res, i, 1, &oom);
            v[i].info = store_get_dup(res, i, 2, &oom);
            v[i].recorded_at_ms = store_get_i64(res, i, 3);
        }
        if (oom) {
            store_spsa_list_free(&v, (size_t) rows);
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d SPSA steps", rows);
        }
        *steps_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

int store_estimate_put(store_t *store, int64_t run_id, int64_t pairs_used, const char *report_json)
{
    if (!report_json)
        return store_fail(store, CAPA_EINVAL, "an estimate needs a report");
    char rb[24], pb[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(pb, pairs_used), report_json };
    /* One statement: the latest report and its fit in the history commit
     * together. */
    return store_exec(store, "put estimate",
                      "WITH latest AS ("
                      "  INSERT INTO estimates (run_id, pairs_used, report)"
                      "  VALUES ($1::bigint, $2::bigint, $3::json)"
                      "  ON CONFLICT (run_id) DO UPDATE SET report = EXCLUDED.report,"
                      "   pairs_used = EXCLUDED.pairs_used, computed_at = now())"
                      " INSERT INTO estimate_history (run_id, pairs_used, fit)"
                      " SELECT $1::bigint, $2::bigint, $3::json -> 'values'"
                      " WHERE json_typeof($3::json -> 'values') = 'object'"
                      " ON CONFLICT (run_id, pairs_used) DO UPDATE SET fit = EXCLUDED.fit,"
                      "  computed_at = now()",
                      3, params, NULL);
}

void store_estimate_history_free(store_fit_t **fits_p, size_t n)
{
    if (!fits_p || !*fits_p)
        return;
    for (size_t i = 0; i < n; i++)
        free((*fits_p)[i].fit);
    free(*fits_p);
    *fits_p = NULL;
}

int store_estimate_history(store_t *store, int64_t run_id, size_t max_rows, store_fit_t **fits_p,
                           size_t *n_out)
{
    *fits_p = NULL;
    *n_out = 0;
    char rb[24], mb[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(mb, (int64_t) (max_rows ? max_rows : 1)) };
    PGresult *res;
    /* Evenly thinned to max_rows, the first and the last always kept. */
    int rc = store_exec(store, "estimate history",
                        "SELECT pairs_used, epoch_ms(computed_at), fit::text FROM ("
                        "  SELECT pairs_used, computed_at, fit,"
                        "   row_number() OVER (ORDER BY pairs_used) AS i, count(*) OVER () AS n"
                        "  FROM estimate_history WHERE run_id = $1::bigint) h"
                        " WHERE n <= $2::bigint OR i = n"
                        "  OR (i - 1) % ceil(n::numeric / $2::bigint)::bigint = 0"
                        " ORDER BY pairs_used",
                        2, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_fit_t *v = rows ? calloc((size_t) rows, sizeof *v) : NULL;
    if (rows && !v) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d fits", rows);
    }
    bool oom = false;
    for (int i = 0; i < rows; i++) {
        v[i].pairs_used = store_get_i64(res, i, 0);
        v[i].computed_at_ms = store_get_i64(res, i, 1);
        v[i].fit = store_get_dup(res, i, 2, &oom);
    }
    PQclear(res);
    if (oom) {
        store_estimate_history_free(&v, (size_t) rows);
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d fits", rows);
    }
    *fits_p = v;
    *n_out = (size_t) rows;
    return 0;
}

int store_estimate_get(store_t *store, int64_t run_id, char **report_p, int64_t *pairs_used,
                       int64_t *computed_at_ms)
{
    *report_p = NULL;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "get estimate",
                        "SELECT report::text, pairs_used, epoch_ms(computed_at) FROM estimates"
                        " WHERE run_id = $1::bigint",
                        1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return store_fail(store, CAPA_ENOTFOUND, "run %lld has no estimate yet",
                          (long long) run_id);
    }
    bool oom = false;
    *report_p = store_get_dup(res, 0, 0, &oom);
    if (pairs_used)
        *pairs_used = store_get_i64(res, 0, 1);
    if (computed_at_ms)
        *computed_at_ms = store_get_i64(res, 0, 2);
    PQclear(res);
    if (oom)
        return store_fail(store, CAPA_ENOMEM, "out of memory reading an estimate");
    return 0;
}

int store_figures(store_t *store, int live_seconds, store_figures_t *out)
{
    memset(out, 0, sizeof *out);
    static const char SQL[] =
        "SELECT count(*) FILTER (WHERE status = 'pending'),"
        " count(*) FILTER (WHERE status = 'running'),"
        " count(*) FILTER (WHERE status = 'finished'),"
        " count(*) FILTER (WHERE status = 'stopped'),"
        " count(*) FILTER (WHERE status = 'failed'),"
        " coalesce(sum(greatest(pairs_planned - pairs_done, 0))"
        "   FILTER (WHERE status IN ('pending', 'running')), 0),"
        " coalesce(sum(pairs_done), 0), coalesce(sum(cpu_ms), 0),"
        " (SELECT count(*) FROM workers),"
        " (SELECT count(*) FROM workers WHERE last_seen > now() - make_interval(secs => $1)),"
        " (SELECT count(*) FROM contributors)"
        " FROM runs";
    char live[24];
    const char *params[1] = { store_i64(live, live_seconds) };
    PGresult *res = NULL;
    int rc = store_exec(store, "figures", SQL, 1, params, &res);
    if (rc < 0)
        return rc;
    for (int i = 0; i < 5; i++)
        out->runs[i] = store_get_i64(res, 0, i);
    out->pairs_remaining = store_get_i64(res, 0, 5);
    out->pairs_total = store_get_i64(res, 0, 6);
    out->cpu_ms_total = store_get_i64(res, 0, 7);
    out->workers = store_get_i64(res, 0, 8);
    out->workers_live = store_get_i64(res, 0, 9);
    out->contributors = store_get_i64(res, 0, 10);
    PQclear(res);
    return 0;
}
