/* store_byworker.c - a run's pairs counted per worker (see store_byworker.h). */
#include "store_byworker.h"

#include <stdlib.h>

#include "err.h"
#include "store_int.h"

int store_run_worker_penta(store_t *store, int64_t run_id, store_worker_penta_t **rows_p,
                             size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char id[32];
    const char *params[] = { store_i64(id, run_id) };
    PGresult *res = NULL;
    int rc = store_exec(store, "pairs per worker",
                        "SELECT worker_id, count(*) FILTER (WHERE score = 0),"
                        " count(*) FILTER (WHERE score = 1), count(*) FILTER (WHERE score = 2),"
                        " count(*) FILTER (WHERE score = 3), count(*) FILTER (WHERE score = 4)"
                        " FROM pairs WHERE run_id = $1::bigint AND NOT excluded"
                        " AND worker_id IS NOT NULL GROUP BY worker_id ORDER BY worker_id",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_worker_penta_t *out = rows ? calloc((size_t) rows, sizeof *out) : NULL;
    if (rows && !out) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    for (int i = 0; i < rows; i++) {
        store_get_text(res, i, 0, out[i].worker_id, sizeof out[i].worker_id);
        for (int b = 0; b < 5; b++)
            out[i].penta[b] = store_get_i64(res, i, 1 + b);
    }
    PQclear(res);
    *rows_p = out;
    *n_out = (size_t) rows;
    return 0;
}

/* B's half points in game 1 and 2 of a pair row. */
#define BYWORKER_B1 "(CASE WHEN b_white1 THEN result1 ELSE 2 - result1 END)"
#define BYWORKER_B2 "(CASE WHEN b_white2 THEN result2 ELSE 2 - result2 END)"

int store_run_worker_rows(store_t *store, int64_t run_id,
                                store_worker_row_t **rows_p, size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char id[32];
    const char *params[] = { store_i64(id, run_id) };
    PGresult *res = NULL;
    int rc = store_exec(store, "pairs per worker and imbalance",
                        "SELECT a.worker_id, a.imbalance, coalesce(c.name, ''),"
                        " coalesce(w.flagged, false), a.p0, a.p1, a.p2, a.p3, a.p4,"
                        " a.wins, a.draws, a.losses, a.excluded FROM ("
                        "  SELECT worker_id, coalesce(imbalance, '') AS imbalance,"
                        "  count(*) FILTER (WHERE score = 0 AND NOT excluded) AS p0,"
                        "  count(*) FILTER (WHERE score = 1 AND NOT excluded) AS p1,"
                        "  count(*) FILTER (WHERE score = 2 AND NOT excluded) AS p2,"
                        "  count(*) FILTER (WHERE score = 3 AND NOT excluded) AS p3,"
                        "  count(*) FILTER (WHERE score = 4 AND NOT excluded) AS p4,"
                        "  coalesce(sum((" BYWORKER_B1 " = 2)::int + (" BYWORKER_B2 " = 2)::int)"
                        "   FILTER (WHERE NOT excluded), 0) AS wins,"
                        "  coalesce(sum((result1 = 1)::int + (result2 = 1)::int)"
                        "   FILTER (WHERE NOT excluded), 0) AS draws,"
                        "  coalesce(sum((" BYWORKER_B1 " = 0)::int + (" BYWORKER_B2 " = 0)::int)"
                        "   FILTER (WHERE NOT excluded), 0) AS losses,"
                        "  count(*) FILTER (WHERE excluded) AS excluded"
                        "  FROM pairs WHERE run_id = $1::bigint AND worker_id IS NOT NULL"
                        "  GROUP BY worker_id, coalesce(imbalance, '')) a"
                        " LEFT JOIN workers w ON w.id = a.worker_id"
                        " LEFT JOIN contributors c ON c.id = w.contributor_id"
                        " ORDER BY a.worker_id, a.imbalance",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    store_worker_row_t *out = rows ? calloc((size_t) rows, sizeof *out) : NULL;
    if (rows && !out) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    for (int i = 0; i < rows; i++) {
        store_worker_row_t *r = &out[i];
        store_get_text(res, i, 0, r->worker_id, sizeof r->worker_id);
        store_get_text(res, i, 1, r->imbalance, sizeof r->imbalance);
        store_get_text(res, i, 2, r->contributor, sizeof r->contributor);
        r->flagged = store_get_bool(res, i, 3);
        for (int b = 0; b < 5; b++)
            r->penta[b] = store_get_i64(res, i, 4 + b);
        r->wins = store_get_i64(res, i, 9);
        r->draws = store_get_i64(res, i, 10);
        r->losses = store_get_i64(res, i, 11);
        r->excluded = store_get_i64(res, i, 12);
    }
    PQclear(res);
    *rows_p = out;
    *n_out = (size_t) rows;
    return 0;
}
