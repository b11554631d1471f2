/* store_runs.c - runs: insert, read, list, status, result and live state. */
#include "store_int.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

static const char *const s_statuses[] = { "pending", "running", "finished", "stopped", "failed" };

const char *store_run_status_name(store_run_status_t status)
{
    return (unsigned) status < 5 ? s_statuses[status] : NULL;
}

int store_run_status_parse(const char *name)
{
    for (int i = 0; name && i < 5; i++)
        if (strcmp(name, s_statuses[i]) == 0)
            return i;
    return -1;
}

void store_run_clear(store_run_t *run)
{
    if (!run)
        return;
    free(run->name);
    free(run->doc);
    free(run->result);
    free(run->state);
    memset(run, 0, sizeof *run);
}

void store_run_list_free(store_run_t **runs_p, size_t n)
{
    if (!runs_p || !*runs_p)
        return;
    for (size_t i = 0; i < n; i++)
        store_run_clear(&(*runs_p)[i]);
    free(*runs_p);
    *runs_p = NULL;
}

/* The columns every run query selects, in the order s_run_from reads them;
 * $DOC stands for the document columns or NULLs. */
#define RUN_COLS                                                                        \
    "id, kind, status, name, priority, seed, pairs_planned, coalesce(submitted_by, 0),"  \
    " epoch_ms(created_at), epoch_ms(started_at), epoch_ms(finished_at),"                \
    " pairs_done, penta0, penta1, penta2, penta3, penta4, wins, draws, losses, cpu_ms"
#define RUN_DOC_COLS ", doc::text, result::text, state::text"
#define RUN_NO_DOC_COLS ", NULL, NULL, NULL"

static int s_run_from(store_t *store, const PGresult *res, int row, store_run_t *run)
{
    bool oom = false;
    memset(run, 0, sizeof *run);
    run->id = store_get_i64(res, row, 0);
    run->kind = PROTO_KIND_SPRT;
    proto_kind_parse(PQgetvalue(res, row, 1), &run->kind);   /* the schema admits only the three */
    run->status = (store_run_status_t) store_run_status_parse(PQgetvalue(res, row, 2));
    run->name = store_get_dup(res, row, 3, &oom);
    run->priority = store_get_int(res, row, 4);
    run->seed = store_get_i64(res, row, 5);
    run->pairs_planned = store_get_i64(res, row, 6);
    run->submitted_by = store_get_i64(res, row, 7);
    run->created_at_ms = store_get_i64(res, row, 8);
    run->started_at_ms = store_get_i64(res, row, 9);
    run->finished_at_ms = store_get_i64(res, row, 10);
    run->totals.pairs = store_get_i64(res, row, 11);
    for (int i = 0; i < 5; i++)
        run->totals.penta[i] = store_get_i64(res, row, 12 + i);
    run->totals.wins = store_get_i64(res, row, 17);
    run->totals.draws = store_get_i64(res, row, 18);
    run->totals.losses = store_get_i64(res, row, 19);
    run->totals.cpu_ms = store_get_i64(res, row, 20);
    run->doc = store_get_dup(res, row, 21, &oom);
    run->result = store_get_dup(res, row, 22, &oom);
    run->state = store_get_dup(res, row, 23, &oom);
    if (oom) {
        store_run_clear(run);
        return store_fail(store, CAPA_ENOMEM, "out of memory reading a run");
    }
    return 0;
}

static int s_runs_from(store_t *store, PGresult *res, store_run_t **runs_p, size_t *n_out)
{
    int rows = PQntuples(res);
    *runs_p = NULL;
    *n_out = 0;
    if (rows == 0)
        return 0;
    store_run_t *runs = calloc((size_t) rows, sizeof *runs);
    if (!runs)
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d runs", rows);
    for (int i = 0; i < rows; i++) {
        int rc = s_run_from(store, res, i, &runs[i]);
        if (rc < 0) {
            store_run_list_free(&runs, (size_t) i);
            return rc;
        }
    }
    *runs_p = runs;
    *n_out = (size_t) rows;
    return 0;
}

int store_run_insert_check(store_t *store, const store_run_t *run)
{
    if (!proto_kind_name(run->kind))
        return store_fail(store, CAPA_EINVAL, "run kind %d is not sprt, values or spsa",
                          (int) run->kind);
    if (!run->name || !run->doc)
        return store_fail(store, CAPA_EINVAL, "a run needs a name and a document");
    return 0;
}

void store_run_insert_params(const store_run_t *run, char bufs[4][24],
                             const char *params[STORE_RUN_INSERT_N])
{
    params[0] = proto_kind_name(run->kind);
    params[1] = run->name;
    params[2] = run->doc;
    params[3] = store_i64(bufs[0], run->priority);
    params[4] = store_i64(bufs[1], run->seed);
    params[5] = store_i64(bufs[2], run->pairs_planned);
    params[6] = run->submitted_by > 0 ? store_i64(bufs[3], run->submitted_by) : NULL;
    params[7] = run->state;
}

int store_run_insert(store_t *store, const store_run_t *run, int64_t *id_out)
{
    int bad = store_run_insert_check(store, run);
    if (bad)
        return bad;
    char bufs[4][24];
    const char *params[STORE_RUN_INSERT_N];
    store_run_insert_params(run, bufs, params);
    PGresult *res;
    int rc = store_exec(store, "insert run", "INSERT INTO runs " STORE_RUN_INSERT " RETURNING id",
                        STORE_RUN_INSERT_N, params, &res);
    if (rc < 0)
        return rc;
    if (id_out)
        *id_out = store_get_i64(res, 0, 0);
    PQclear(res);
    return 0;
}

int store_run_get(store_t *store, int64_t id, store_run_t *out)
{
    memset(out, 0, sizeof *out);
    char idb[24];
    const char *params[] = { store_i64(idb, id) };
    PGresult *res;
    int rc = store_exec(store, "get run",
                        "SELECT " RUN_COLS RUN_DOC_COLS " FROM runs WHERE id = $1::bigint", 1,
                        params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no run %lld", (long long) id);
    else
        rc = s_run_from(store, res, 0, out);
    PQclear(res);
    return rc;
}

/* A mask of enum values as a text[] literal of their names, e.g. {pending,running}. */
static void s_mask_array(unsigned mask, const char *const *names, int count, char *buf, size_t len)
{
    size_t used = 0;
    buf[used++] = '{';
    for (int i = 0; i < count; i++) {
        if (mask && !(mask & (1u << i)))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used > 1 ? "," : "", names[i]);
        used += (size_t) w;
    }
    snprintf(buf + used, len - used, "}");
}

int store_run_list(store_t *store, const store_run_filter_t *filter, store_run_t **runs_p,
                   size_t *n_out)
{
    store_run_filter_t f = { 0 };
    if (filter)
        f = *filter;
    char statuses[128], kinds[64], limit[24], offset[24];
    s_mask_array(f.status_mask, s_statuses, 5, statuses, sizeof statuses);
    const char *const s_kinds[] = { proto_kind_name(PROTO_KIND_SPRT),
                                    proto_kind_name(PROTO_KIND_VALUES),
                                    proto_kind_name(PROTO_KIND_SPSA) };
    s_mask_array(f.kind_mask, s_kinds, 3, kinds, sizeof kinds);
    const char *params[] = { statuses, kinds, store_i64(limit, f.limit ? (int64_t) f.limit : 100),
                             store_i64(offset, (int64_t) f.offset) };
    PGresult *res;
    int rc = store_exec(store, "list runs",
                        f.with_doc ? "SELECT " RUN_COLS RUN_DOC_COLS " FROM runs"
                                     " WHERE status = ANY($1::text[]) AND kind = ANY($2::text[])"
                                     " ORDER BY id DESC LIMIT $3::bigint OFFSET $4::bigint"
                                   : "SELECT " RUN_COLS RUN_NO_DOC_COLS " FROM runs"
                                     " WHERE status = ANY($1::text[]) AND kind = ANY($2::text[])"
                                     " ORDER BY id DESC LIMIT $3::bigint OFFSET $4::bigint",
                        4, params, &res);
    if (rc < 0)
        return rc;
    rc = s_runs_from(store, res, runs_p, n_out);
    PQclear(res);
    return rc;
}

int store_run_next(store_t *store, size_t limit, store_run_t **runs_p, size_t *n_out)
{
    char lim[24];
    const char *params[] = { store_i64(lim, limit ? (int64_t) limit : 100) };
    PGresult *res;
    int rc = store_exec(store, "next runs",
                        "SELECT " RUN_COLS RUN_DOC_COLS " FROM runs"
                        " WHERE status IN ('pending', 'running')"
                        " ORDER BY priority DESC, id LIMIT $1::bigint",
                        1, params, &res);
    if (rc < 0)
        return rc;
    rc = s_runs_from(store, res, runs_p, n_out);
    PQclear(res);
    return rc;
}

/* Sets status (and result if set_result) in one statement; terminal statuses
 * also cancel the run's active tasks. */
static int s_set_status(store_t *store, int64_t id, store_run_status_t status, bool set_result,
                        const char *result_json)
{
    const char *name = store_run_status_name(status);
    if (!name)
        return store_fail(store, CAPA_EINVAL, "run status %d is not valid", (int) status);
    char idb[24];
    const char *params[] = { store_i64(idb, id), name, set_result ? "t" : "f", result_json };
    PGresult *res;
    int rc = store_exec(
        store, "set run status",
        "WITH cur AS (SELECT id, status FROM runs WHERE id = $1::bigint FOR UPDATE),"
        " upd AS ("
        "  UPDATE runs r SET status = $2,"
        "   started_at = CASE WHEN $2 = 'running' THEN coalesce(r.started_at, now())"
        "                     ELSE r.started_at END,"
        "   finished_at = CASE WHEN $2 IN ('finished', 'stopped', 'failed') THEN now()"
        "                      ELSE NULL END,"
        "   result = CASE WHEN $3::boolean THEN $4::jsonb ELSE r.result END"
        "  FROM cur WHERE r.id = cur.id AND cur.status NOT IN ('finished', 'failed')"
        "  RETURNING r.id),"
        " cancel AS ("
        "  UPDATE tasks t SET status = 'cancelled', ended_at = now()"
        "  FROM upd WHERE t.run_id = upd.id AND t.status = 'active'"
        "   AND $2 IN ('finished', 'stopped', 'failed')"
        "  RETURNING t.id)"
        " SELECT (SELECT status FROM cur), (SELECT count(*) FROM upd), (SELECT count(*) FROM cancel)",
        4, params, &res);
    if (rc < 0)
        return rc;
    if (PQgetisnull(res, 0, 0))
        rc = store_fail(store, CAPA_ENOTFOUND, "no run %lld", (long long) id);
    else if (store_get_i64(res, 0, 1) == 0)
        rc = store_fail(store, CAPA_ESTATE, "run %lld is %s and cannot become %s", (long long) id,
                        PQgetvalue(res, 0, 0), name);
    PQclear(res);
    return rc;
}

int store_run_set_status(store_t *store, int64_t id, store_run_status_t status)
{
    return s_set_status(store, id, status, false, NULL);
}

int store_run_finish(store_t *store, int64_t id, store_run_status_t status,
                     const char *result_json)
{
    if (status != STORE_RUN_FINISHED && status != STORE_RUN_STOPPED && status != STORE_RUN_FAILED)
        return store_fail(store, CAPA_EINVAL, "store_run_finish needs a terminal status");
    return s_set_status(store, id, status, true, result_json);
}

static int s_set_json(store_t *store, int64_t id, const char *what, const char *sql,
                      const char *json)
{
    char idb[24];
    const char *params[] = { store_i64(idb, id), json };
    PGresult *res;
    int rc = store_exec(store, what, sql, 2, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no run %lld", (long long) id);
    PQclear(res);
    return rc;
}

int store_run_set_result(store_t *store, int64_t id, const char *result_json)
{
    return s_set_json(store, id, "set run result",
                      "UPDATE runs SET result = $2::jsonb WHERE id = $1::bigint RETURNING id",
                      result_json);
}

int store_run_set_state(store_t *store, int64_t id, const char *state_json)
{
    return s_set_json(store, id, "set run state",
                      "UPDATE runs SET state = $2::jsonb WHERE id = $1::bigint RETURNING id",
                      state_json);
}
