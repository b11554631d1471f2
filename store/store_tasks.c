/* store_tasks.c - tasks: leases on ranges of a run's pair numbers. */
#include "store_int.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>


static const char *const s_status_names[] = { "active", "done", "expired", "cancelled" };

int store_task_create(store_t *store, int64_t run_id, const char *worker_id, int64_t first,
                      int64_t last, int64_t ttl_ms, int64_t *task_id_out)
{
    if (first < 0 || last < first)
        return store_fail(store, CAPA_ERANGE, "bad pair range %lld..%lld", (long long) first,
                          (long long) last);
    if (!worker_id)
        return store_fail(store, CAPA_EINVAL, "a task needs a worker");
    char rb[24], fb[24], lb[24], tb[24];
    const char *params[] = { store_i64(rb, run_id), worker_id, store_i64(fb, first),
                             store_i64(lb, last), store_i64(tb, ttl_ms) };
    int rc = store_begin(store);
    if (rc < 0)
        return rc;
    PGresult *res;
    /* The run row lock serialises lease creation per run, so the overlap
     * check cannot race with another coordinator connection. */
    rc = store_exec(store, "create task: check",
                    "SELECT r.status, r.pairs_planned,"
                    " EXISTS (SELECT 1 FROM workers w WHERE w.id = $2),"
                    " EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = r.id AND t.status = 'active'"
                    "         AND t.first_pair <= $4::bigint AND t.last_pair >= $3::bigint)"
                    " FROM runs r WHERE r.id = $1::bigint FOR UPDATE",
                    4, params, &res);
    if (rc < 0)
        goto fail;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no run %lld", (long long) run_id);
    else if (strcmp(PQgetvalue(res, 0, 0), "pending") != 0
             && strcmp(PQgetvalue(res, 0, 0), "running") != 0)
        rc = store_fail(store, CAPA_ESTATE, "run %lld is %s: no new leases", (long long) run_id,
                        PQgetvalue(res, 0, 0));
    else if (last >= store_get_i64(res, 0, 1))
        rc = store_fail(store, CAPA_ERANGE, "pair %lld is beyond run %lld's %lld planned pairs",
                        (long long) last, (long long) run_id, (long long) store_get_i64(res, 0, 1));
    else if (!store_get_bool(res, 0, 2))
        rc = store_fail(store, CAPA_ENOTFOUND, "no worker %s", worker_id);
    else if (store_get_bool(res, 0, 3))
        rc = store_fail(store, CAPA_EDUP, "pairs %lld..%lld of run %lld overlap an active lease",
                        (long long) first, (long long) last, (long long) run_id);
    PQclear(res);
    if (rc < 0)
        goto fail;
    rc = store_exec(store, "create task",
                    "INSERT INTO tasks (run_id, worker_id, first_pair, last_pair, expires_at)"
                    " VALUES ($1::bigint, $2, $3::bigint, $4::bigint,"
                    "  now() + $5::bigint * interval '1 millisecond') RETURNING id",
                    5, params, &res);
    if (rc < 0)
        goto fail;
    if (task_id_out)
        *task_id_out = store_get_i64(res, 0, 0);
    PQclear(res);
    rc = store_commit(store);
    if (rc < 0)
        goto fail;
    return 0;
fail:
    store_rollback(store);
    return rc;
}

#define TASK_COLS                                                                       \
    "id, run_id, worker_id, first_pair, last_pair, status, epoch_ms(issued_at),"         \
    " epoch_ms(expires_at), epoch_ms(ended_at)"

static void s_task_from(const PGresult *res, int row, store_task_t *t)
{
    memset(t, 0, sizeof *t);
    t->id = store_get_i64(res, row, 0);
    t->run_id = store_get_i64(res, row, 1);
    store_get_text(res, row, 2, t->worker_id, sizeof t->worker_id);
    t->first_pair = store_get_i64(res, row, 3);
    t->last_pair = store_get_i64(res, row, 4);
    const char *st = PQgetvalue(res, row, 5);
    for (int i = 0; i < 4; i++)
        if (strcmp(st, s_status_names[i]) == 0)
            t->status = (store_task_status_t) i;
    t->issued_at_ms = store_get_i64(res, row, 6);
    t->expires_at_ms = store_get_i64(res, row, 7);
    t->ended_at_ms = store_get_i64(res, row, 8);
}

int store_task_get(store_t *store, int64_t task_id, store_task_t *out)
{
    memset(out, 0, sizeof *out);
    char tb[24];
    const char *params[] = { store_i64(tb, task_id) };
    PGresult *res;
    int rc = store_exec(store, "get task", "SELECT " TASK_COLS " FROM tasks WHERE id = $1::bigint",
                        1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no task %lld", (long long) task_id);
    else
        s_task_from(res, 0, out);
    PQclear(res);
    return rc;
}

int store_task_list_active(store_t *store, store_task_t **tasks_p, size_t *n_out)
{
    *tasks_p = NULL;
    *n_out = 0;
    PGresult *res;
    int rc = store_exec(store, "list active tasks",
                        "SELECT " TASK_COLS " FROM tasks WHERE status = 'active' ORDER BY id", 0,
                        NULL, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_task_t *t = calloc((size_t) rows, sizeof *t);
        if (!t) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d tasks", rows);
        }
        for (int i = 0; i < rows; i++)
            s_task_from(res, i, &t[i]);
        *tasks_p = t;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

/* Runs an UPDATE that returns (found, updated) for one task. */
static int s_task_update(store_t *store, int64_t task_id, const char *what, const char *sql,
                         const char *arg)
{
    char tb[24];
    const char *params[] = { store_i64(tb, task_id), arg };
    PGresult *res;
    int rc = store_exec(store, what, sql, arg ? 2 : 1, params, &res);
    if (rc < 0)
        return rc;
    if (PQgetisnull(res, 0, 0))
        rc = store_fail(store, CAPA_ENOTFOUND, "no task %lld", (long long) task_id);
    else if (store_get_i64(res, 0, 1) == 0)
        rc = store_fail(store, CAPA_ESTATE, "task %lld is %s, not active", (long long) task_id,
                        PQgetvalue(res, 0, 0));
    PQclear(res);
    return rc;
}

int store_task_extend(store_t *store, int64_t task_id, int64_t ttl_ms)
{
    char ttl[24];
    return s_task_update(store, task_id, "extend task",
                         "WITH upd AS (UPDATE tasks SET expires_at = now() + $2::bigint"
                         "  * interval '1 millisecond'"
                         "  WHERE id = $1::bigint AND status = 'active' RETURNING id)"
                         " SELECT (SELECT status FROM tasks WHERE id = $1::bigint),"
                         "  (SELECT count(*) FROM upd)",
                         store_i64(ttl, ttl_ms));
}

int store_task_done(store_t *store, int64_t task_id)
{
    return s_task_update(store, task_id, "finish task",
                         "WITH upd AS (UPDATE tasks SET status = 'done', ended_at = now()"
                         "  WHERE id = $1::bigint AND status = 'active' RETURNING id)"
                         " SELECT (SELECT status FROM tasks WHERE id = $1::bigint),"
                         "  (SELECT count(*) FROM upd)",
                         NULL);
}

int store_task_extend_worker(store_t *store, const char *worker_id, int64_t ttl_ms, size_t *n_out)
{
    char ttl[24];
    const char *params[] = { worker_id, store_i64(ttl, ttl_ms) };
    PGresult *res;
    int rc = store_exec(store, "extend worker tasks",
                        "WITH upd AS (UPDATE tasks SET expires_at = now() + $2::bigint"
                        "  * interval '1 millisecond'"
                        "  WHERE worker_id = $1 AND status = 'active' RETURNING id)"
                        " SELECT count(*) FROM upd",
                        2, params, &res);
    if (rc < 0)
        return rc;
    if (n_out)
        *n_out = (size_t) store_get_i64(res, 0, 0);
    PQclear(res);
    return 0;
}

static int s_ranges(store_t *store, const char *what, const char *sql, int n,
                    const char *const *params, store_range_t **ranges_p, size_t *n_out)
{
    *ranges_p = NULL;
    *n_out = 0;
    PGresult *res;
    int rc = store_exec(store, what, sql, n, params, &res);
    if (rc < 0)
        return rc;
    rc = store_ranges_from(store, res, ranges_p, n_out);
    PQclear(res);
    return rc;
}

int store_task_expire(store_t *store, int64_t task_id, store_range_t **ranges_p, size_t *n_out)
{
    *ranges_p = NULL;
    *n_out = 0;
    store_task_t t;
    int rc = store_task_get(store, task_id, &t);
    if (rc < 0)
        return rc;
    if (t.status != STORE_TASK_ACTIVE)
        return store_fail(store, CAPA_ESTATE, "task %lld is %s, not active", (long long) task_id,
                          s_status_names[t.status]);
    char tb[24];
    const char *params[] = { store_i64(tb, task_id) };
    return s_ranges(store, "expire task",
                    "WITH ended AS (UPDATE tasks SET status = 'expired', ended_at = now()"
                    "  WHERE id = $1::bigint AND status = 'active'"
                    "  RETURNING id, run_id, first_pair, last_pair)" STORE_UNSTORED_RANGES,
                    1, params, ranges_p, n_out);
}

int store_task_expire_worker(store_t *store, const char *worker_id, store_range_t **ranges_p,
                             size_t *n_out)
{
    const char *params[] = { worker_id };
    return s_ranges(store, "expire worker tasks",
                    "WITH ended AS (UPDATE tasks SET status = 'expired', ended_at = now()"
                    "  WHERE worker_id = $1 AND status = 'active'"
                    "  RETURNING id, run_id, first_pair, last_pair)" STORE_UNSTORED_RANGES,
                    1, params, ranges_p, n_out);
}

int store_task_expire_due(store_t *store, store_range_t **ranges_p, size_t *n_out)
{
    return s_ranges(store, "expire due tasks",
                    "WITH ended AS (UPDATE tasks SET status = 'expired', ended_at = now()"
                    "  WHERE status = 'active' AND expires_at <= now()"
                    "  RETURNING id, run_id, first_pair, last_pair)" STORE_UNSTORED_RANGES,
                    0, NULL, ranges_p, n_out);
}

int store_task_unstored(store_t *store, int64_t task_id, store_range_t **ranges_p, size_t *n_out)
{
    char tb[24];
    const char *params[] = { store_i64(tb, task_id) };
    return s_ranges(store, "unstored pairs of a task",
                    "WITH ended AS (SELECT id, run_id, first_pair, last_pair FROM tasks"
                    "  WHERE id = $1::bigint)" STORE_UNSTORED_RANGES,
                    1, params, ranges_p, n_out);
}
