/* store_bulk.c - set-at-a-time task and contributor operations (see
 * store_bulk.h). Arrays travel as one text parameter each ("{1,2,3}"). */
#include "store_bulk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store_int.h"

typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} s_buf_t;

static void s_add(s_buf_t *b, const char *text)
{
    size_t n = strlen(text);
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap + n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, text, n + 1);
    b->len += n;
}

static void s_add_i64(s_buf_t *b, int64_t v, bool first)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s%lld", first ? "" : ",", (long long) v);
    s_add(b, tmp);
}

/* The array literal of n ids ("{1,2,3}") in *out, which the caller frees. */
static int s_i64_array(store_t *store, const int64_t *ids, size_t n, char **out)
{
    s_buf_t b = { 0 };
    s_add(&b, "{");
    for (size_t i = 0; i < n; i++)
        s_add_i64(&b, ids[i], i == 0);
    s_add(&b, "}");
    if (b.oom) {
        free(b.s);
        *out = NULL;
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    *out = b.s;
    return 0;
}

/* Leases are state the coordinator can rebuild (a lost lease row only means
 * its pairs are played again), so their writes do not wait for the disk
 * flush: synchronous_commit off for that one transaction. Pairs are never
 * written this way. */
static int s_exec_async(store_t *store, const char *what, const char *sql, int n,
                        const char *const *params, PGresult **res_p)
{
    *res_p = NULL;
    int rc = store_begin_async(store);
    if (rc < 0)
        return rc;
    rc = store_exec(store, what, sql, n, params, res_p);
    if (rc == 0)
        rc = store_commit(store);
    if (rc < 0) {
        store_rollback(store);
        if (*res_p) {
            PQclear(*res_p);
            *res_p = NULL;
        }
    }
    return rc;
}

int store_bulk_tasks_create(store_t *store, store_bulk_task_t *tasks, size_t n, int64_t ttl_ms)
{
    if (n == 0)
        return 0;
    s_buf_t runs = { 0 }, workers = { 0 }, firsts = { 0 }, lasts = { 0 };
    s_add(&runs, "{");
    s_add(&workers, "{");
    s_add(&firsts, "{");
    s_add(&lasts, "{");
    for (size_t i = 0; i < n; i++) {
        tasks[i].task_id = 0;
        s_add_i64(&runs, tasks[i].run_id, i == 0);
        s_add(&workers, i ? ",\"" : "\"");
        /* Worker ids are [A-Za-z0-9._:-]: nothing to escape in an array literal. */
        s_add(&workers, tasks[i].worker_id);
        s_add(&workers, "\"");
        s_add_i64(&firsts, tasks[i].first, i == 0);
        s_add_i64(&lasts, tasks[i].last, i == 0);
    }
    s_add(&runs, "}");
    s_add(&workers, "}");
    s_add(&firsts, "}");
    s_add(&lasts, "}");
    int rc = 0;
    if (runs.oom || workers.oom || firsts.oom || lasts.oom)
        rc = store_fail(store, CAPA_ENOMEM, "out of memory");
    PGresult *res = NULL;
    char tb[24];
    if (rc == 0) {
        const char *params[] = { runs.s, workers.s, firsts.s, lasts.s, store_i64(tb, ttl_ms) };
        rc = s_exec_async(store, "create tasks",
                        "INSERT INTO tasks (run_id, worker_id, first_pair, last_pair, expires_at)"
                        " SELECT t.run_id, t.worker_id, t.first, t.last,"
                        "  now() + $5::bigint * interval '1 millisecond'"
                        " FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])"
                        "  WITH ORDINALITY AS t(run_id, worker_id, first, last, ord)"
                        " JOIN runs r ON r.id = t.run_id AND r.status IN ('pending', 'running')"
                        "  AND t.last < r.pairs_planned AND t.first >= 0 AND t.last >= t.first"
                        " JOIN workers w ON w.id = t.worker_id"
                        " ORDER BY t.ord"
                        " RETURNING id, run_id, first_pair",
                        5, params, &res);
    }
    if (rc == 0) {
        for (int row = 0; row < PQntuples(res); row++) {
            int64_t id = store_get_i64(res, row, 0), run = store_get_i64(res, row, 1),
                    first = store_get_i64(res, row, 2);
            for (size_t i = 0; i < n; i++)
                if (tasks[i].task_id == 0 && tasks[i].run_id == run && tasks[i].first == first) {
                    tasks[i].task_id = id;
                    break;
                }
        }
        PQclear(res);
    }
    free(runs.s);
    free(workers.s);
    free(firsts.s);
    free(lasts.s);
    return rc;
}


int store_bulk_tasks_finish(store_t *store, const int64_t *ids, size_t n,
                             store_range_t **ranges_p, size_t *n_out)
{
    *ranges_p = NULL;
    *n_out = 0;
    if (n == 0)
        return 0;
    char *array;
    int rc = s_i64_array(store, ids, n, &array);
    if (rc < 0)
        return rc;
    const char *params[] = { array };
    PGresult *res = NULL;
    rc = s_exec_async(store, "finish tasks",
                      "WITH ended AS (UPDATE tasks SET status = 'done', ended_at = now()"
                      "  WHERE id = ANY($1::bigint[]) AND status = 'active'"
                      "  RETURNING id, run_id, first_pair, last_pair)" STORE_UNSTORED_RANGES,
                      1, params, &res);
    free(array);
    if (rc < 0)
        return rc;
    rc = store_ranges_from(store, res, ranges_p, n_out);
    PQclear(res);
    return rc;
}

int store_bulk_workers_seen(store_t *store, const char *const *ids, size_t n)
{
    if (n == 0)
        return 0;
    s_buf_t b = { 0 };
    s_add(&b, "{");
    for (size_t i = 0; i < n; i++) {
        /* Worker ids are [A-Za-z0-9._:-] (checked at HELLO): quoting suffices. */
        s_add(&b, i ? ",\"" : "\"");
        s_add(&b, ids[i]);
        s_add(&b, "\"");
    }
    s_add(&b, "}");
    if (b.oom) {
        free(b.s);
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    const char *params[] = { b.s };
    PGresult *res = NULL;
    int rc = s_exec_async(store, "workers seen",
                          "UPDATE workers SET last_seen = now() WHERE id = ANY($1::text[])", 1,
                          params, &res);
    free(b.s);
    PQclear(res);
    return rc;
}

int store_bulk_revoked(store_t *store, const int64_t *ids, size_t n, int64_t **revoked_p,
                        size_t *n_out)
{
    *revoked_p = NULL;
    *n_out = 0;
    if (n == 0)
        return 0;
    char *array;
    int rc = s_i64_array(store, ids, n, &array);
    if (rc < 0)
        return rc;
    const char *params[] = { array };
    PGresult *res = NULL;
    rc = store_exec(store, "revoked contributors",
                    "SELECT id FROM contributors WHERE id = ANY($1::bigint[])"
                    " AND revoked_at IS NOT NULL",
                    1, params, &res);
    free(array);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    int64_t *out = rows ? malloc((size_t) rows * sizeof *out) : NULL;
    if (rows && !out) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    for (int i = 0; i < rows; i++)
        out[i] = store_get_i64(res, i, 0);
    PQclear(res);
    *revoked_p = out;
    *n_out = (size_t) rows;
    return 0;
}
