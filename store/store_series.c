/* store_series.c - study series and their runs (store_series.h, sql/004). */
#include "store_int.h"
#include "store_series.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void store_series_clear(store_series_t *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->doc);
    free(s->result);
    memset(s, 0, sizeof *s);
}

void store_series_list_free(store_series_t **list_p, size_t n)
{
    if (!list_p || !*list_p)
        return;
    for (size_t i = 0; i < n; i++)
        store_series_clear(&(*list_p)[i]);
    free(*list_p);
    *list_p = NULL;
}

int store_series_create(store_t *store, const store_series_t *s, const store_run_t *first,
                        int64_t *series_id, int64_t *run_id)
{
    int bad = store_run_insert_check(store, first);
    if (bad)
        return bad;
    if (!s->name || !s->doc)
        return store_fail(store, CAPA_EINVAL, "a series needs a name and a document");
    char bufs[4][24], steps[24], by[24];
    const char *params[STORE_RUN_INSERT_N + 5];
    store_run_insert_params(first, bufs, params);
    params[STORE_RUN_INSERT_N + 0] = s->kind;
    params[STORE_RUN_INSERT_N + 1] = s->name;
    params[STORE_RUN_INSERT_N + 2] = s->doc;
    params[STORE_RUN_INSERT_N + 3] = store_i64(steps, s->steps_planned);
    params[STORE_RUN_INSERT_N + 4] = s->submitted_by > 0 ? store_i64(by, s->submitted_by) : NULL;
    PGresult *res;
    int rc = store_exec(store, "create series",
                        "WITH r AS (INSERT INTO runs " STORE_RUN_INSERT " RETURNING id),"
                        " s AS (INSERT INTO series (kind, name, doc, steps_planned, submitted_by)"
                        "  VALUES ($9, $10, $11::jsonb, $12::int, $13::bigint) RETURNING id)"
                        " INSERT INTO series_runs (series_id, step, run_id)"
                        " SELECT s.id, 0, r.id FROM s, r RETURNING series_id, run_id",
                        STORE_RUN_INSERT_N + 5, params, &res);
    if (rc < 0)
        return rc;
    if (series_id)
        *series_id = store_get_i64(res, 0, 0);
    if (run_id)
        *run_id = store_get_i64(res, 0, 1);
    PQclear(res);
    return 0;
}

int store_series_add_step(store_t *store, int64_t series_id, int step, const store_run_t *run,
                          int64_t *run_id)
{
    int rc = store_run_insert_check(store, run);
    if (rc)
        return rc;
    char bufs[4][24], sb[24], stb[24];
    const char *params[STORE_RUN_INSERT_N + 2];
    store_run_insert_params(run, bufs, params);
    params[STORE_RUN_INSERT_N + 0] = store_i64(sb, series_id);
    params[STORE_RUN_INSERT_N + 1] = store_i64(stb, step);
    if ((rc = store_begin(store)) < 0)
        return rc;
    /* The series row is locked first: its end and a new step never cross. */
    PGresult *res = NULL;
    rc = store_exec(store, "lock series",
                    "SELECT status FROM series WHERE id = $1::bigint FOR UPDATE", 1,
                    params + STORE_RUN_INSERT_N, &res);
    if (rc == 0 && PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no series %lld", (long long) series_id);
    else if (rc == 0 && strcmp(PQgetvalue(res, 0, 0), "running") != 0)
        rc = store_fail(store, CAPA_ESTATE, "series %lld has ended", (long long) series_id);
    PQclear(res);
    res = NULL;
    if (rc == 0)
        rc = store_exec(store, "add series step",
                        "WITH r AS (INSERT INTO runs " STORE_RUN_INSERT " RETURNING id)"
                        " INSERT INTO series_runs (series_id, step, run_id)"
                        " SELECT $9::bigint, $10::int, r.id FROM r RETURNING run_id",
                        STORE_RUN_INSERT_N + 2, params, &res);
    if (rc == 0 && run_id)
        *run_id = store_get_i64(res, 0, 0);
    PQclear(res);
    if (rc == 0)
        rc = store_commit(store);
    if (rc < 0)
        store_rollback(store);
    return rc;
}

int store_series_finish(store_t *store, int64_t id, const char *status, const char *result_json)
{
    char ib[24];
    const char *params[] = { store_i64(ib, id), status, result_json };
    PGresult *res;
    int rc = store_exec(store, "finish series",
                        "UPDATE series SET status = $2, result = $3::jsonb, finished_at = now()"
                        " WHERE id = $1::bigint AND status = 'running' RETURNING id",
                        3, params, &res);
    if (rc < 0)
        return rc;
    int n = PQntuples(res);
    PQclear(res);
    return n == 1 ? 0 : store_fail(store, CAPA_ESTATE, "series %lld is not running", (long long) id);
}

#define SERIES_COLS                                                                      \
    "id, kind, status, name, steps_planned, coalesce(submitted_by, 0),"                  \
    " epoch_ms(created_at), epoch_ms(finished_at)"

static int s_series_from(store_t *store, const PGresult *res, int row, store_series_t *s,
                         bool with_doc)
{
    bool oom = false;
    memset(s, 0, sizeof *s);
    s->id = store_get_i64(res, row, 0);
    store_get_text(res, row, 1, s->kind, sizeof s->kind);
    store_get_text(res, row, 2, s->status, sizeof s->status);
    s->name = store_get_dup(res, row, 3, &oom);
    s->steps_planned = store_get_int(res, row, 4);
    s->submitted_by = store_get_i64(res, row, 5);
    s->created_at_ms = store_get_i64(res, row, 6);
    s->finished_at_ms = store_get_i64(res, row, 7);
    if (with_doc) {
        s->doc = store_get_dup(res, row, 8, &oom);
        s->result = store_get_dup(res, row, 9, &oom);
    }
    if (oom) {
        store_series_clear(s);
        return store_fail(store, CAPA_ENOMEM, "out of memory reading a series");
    }
    return 0;
}

int store_series_get(store_t *store, int64_t id, store_series_t *out)
{
    memset(out, 0, sizeof *out);
    char ib[24];
    const char *params[] = { store_i64(ib, id) };
    PGresult *res;
    int rc = store_exec(store, "get series",
                        "SELECT " SERIES_COLS ", doc::text, result::text FROM series"
                        " WHERE id = $1::bigint", 1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no series %lld", (long long) id);
    else
        rc = s_series_from(store, res, 0, out, true);
    PQclear(res);
    return rc;
}

int store_series_list(store_t *store, size_t limit, store_series_t **list_p, size_t *n_out)
{
    *list_p = NULL;
    *n_out = 0;
    char lb[24];
    const char *params[] = { store_i64(lb, (int64_t) (limit ? limit : 100)) };
    PGresult *res;
    int rc = store_exec(store, "list series",
                        "SELECT " SERIES_COLS " FROM series ORDER BY id DESC LIMIT $1::bigint", 1,
                        params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_series_t *list = rows ? calloc((size_t) rows, sizeof *list) : NULL;
    if (rows && !list)
        rc = store_fail(store, CAPA_ENOMEM, "out of memory for %d series", rows);
    for (int i = 0; rc == 0 && i < rows; i++)
        if ((rc = s_series_from(store, res, i, &list[i], false)) < 0)
            store_series_list_free(&list, (size_t) i);
    PQclear(res);
    if (rc == 0) {
        *list_p = list;
        *n_out = (size_t) rows;
    }
    return rc;
}

int store_series_steps(store_t *store, int64_t id, store_series_step_t **steps_p, size_t *n_out)
{
    *steps_p = NULL;
    *n_out = 0;
    char ib[24];
    const char *params[] = { store_i64(ib, id) };
    PGresult *res;
    int rc = store_exec(store, "series steps",
                        "SELECT sr.step, sr.run_id, r.status FROM series_runs sr"
                        " JOIN runs r ON r.id = sr.run_id WHERE sr.series_id = $1::bigint"
                        " ORDER BY sr.step", 1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_series_step_t *v = rows ? calloc((size_t) rows, sizeof *v) : NULL;
    if (rows && !v) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d steps", rows);
    }
    for (int i = 0; i < rows; i++) {
        v[i].step = store_get_int(res, i, 0);
        v[i].run_id = store_get_i64(res, i, 1);
        v[i].status = (store_run_status_t) store_run_status_parse(PQgetvalue(res, i, 2));
    }
    PQclear(res);
    *steps_p = v;
    *n_out = (size_t) rows;
    return 0;
}

int store_series_due(store_t *store, int64_t **ids_p, size_t *n_out)
{
    *ids_p = NULL;
    *n_out = 0;
    PGresult *res;
    int rc = store_exec(store, "series due",
                        "SELECT s.id FROM series s CROSS JOIN LATERAL ("
                        "  SELECT r.status FROM series_runs sr JOIN runs r ON r.id = sr.run_id"
                        "  WHERE sr.series_id = s.id ORDER BY sr.step DESC LIMIT 1) last"
                        " WHERE s.status = 'running' AND last.status IN ('finished', 'failed')"
                        " ORDER BY s.id", 0, NULL, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    int64_t *ids = rows ? malloc((size_t) rows * sizeof *ids) : NULL;
    if (rows && !ids) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d series", rows);
    }
    for (int i = 0; i < rows; i++)
        ids[i] = store_get_i64(res, i, 0);
    PQclear(res);
    *ids_p = ids;
    *n_out = (size_t) rows;
    return 0;
}

int store_series_of_run(store_t *store, int64_t run_id, int64_t *series_id, int *step)
{
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "series of run",
                        "SELECT series_id, step FROM series_runs WHERE run_id = $1::bigint", 1,
                        params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return CAPA_ENOTFOUND;   /* the common case: not an error worth a message */
    }
    if (series_id)
        *series_id = store_get_i64(res, 0, 0);
    if (step)
        *step = store_get_int(res, 0, 1);
    PQclear(res);
    return 0;
}
