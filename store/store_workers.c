/* store_workers.c - workers: HELLO upsert, last seen, flagging, listing. */
#include "store_int.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKER_COLS                                                                     \
    "id, contributor_id, name, host_info::text, cores, concurrency, engine_version,"      \
    " bench_signature, nps, epoch_ms(first_seen), epoch_ms(last_seen), flagged,"          \
    " coalesce(flag_reason, ''), pairs, games, cpu_ms"

static int s_worker_from(store_t *store, const PGresult *res, int row, store_worker_t *w)
{
    bool oom = false;
    memset(w, 0, sizeof *w);
    store_get_text(res, row, 0, w->id, sizeof w->id);
    w->contributor_id = store_get_i64(res, row, 1);
    store_get_text(res, row, 2, w->name, sizeof w->name);
    w->host_info = store_get_dup(res, row, 3, &oom);
    w->cores = store_get_int(res, row, 4);
    w->concurrency = store_get_int(res, row, 5);
    store_get_text(res, row, 6, w->engine_version, sizeof w->engine_version);
    w->bench_signature = store_get_i64(res, row, 7);
    w->nps = store_get_double(res, row, 8);
    w->first_seen_ms = store_get_i64(res, row, 9);
    w->last_seen_ms = store_get_i64(res, row, 10);
    w->flagged = store_get_bool(res, row, 11);
    store_get_text(res, row, 12, w->flag_reason, sizeof w->flag_reason);
    w->pairs = store_get_i64(res, row, 13);
    w->games = store_get_i64(res, row, 14);
    w->cpu_ms = store_get_i64(res, row, 15);
    if (oom)
        return store_fail(store, CAPA_ENOMEM, "out of memory reading a worker");
    return 0;
}

static bool s_is_worker_id(const char *id)
{
    size_t len = strlen(id);
    return len >= 1 && len < STORE_ID_MAX
           && strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")
                  == len;
}

int store_worker_upsert(store_t *store, const store_worker_t *w)
{
    if (!s_is_worker_id(w->id))
        return store_fail(store, CAPA_EINVAL,
                          "a worker id is 1..63 bytes of A-Z a-z 0-9 . _ : -");
    char cb[24], cores[24], conc[24], bench[24], nps[40];
    snprintf(nps, sizeof nps, "%.17g", w->nps);
    const char *params[] = {
        w->id, store_i64(cb, w->contributor_id), w->name, w->host_info,
        store_i64(cores, w->cores), store_i64(conc, w->concurrency), w->engine_version,
        store_i64(bench, w->bench_signature), nps,
    };
    PGresult *res;
    /* The update only applies to the same contributor's worker: another
     * contributor cannot take a worker id over. */
    int rc = store_exec(store, "upsert worker",
                        "INSERT INTO workers AS w (id, contributor_id, name, host_info, cores,"
                        " concurrency, engine_version, bench_signature, nps)"
                        " VALUES ($1, $2::bigint, $3, $4::jsonb, $5::int, $6::int, $7,"
                        " $8::bigint, $9::double precision)"
                        " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name,"
                        "  host_info = EXCLUDED.host_info, cores = EXCLUDED.cores,"
                        "  concurrency = EXCLUDED.concurrency,"
                        "  engine_version = EXCLUDED.engine_version,"
                        "  bench_signature = EXCLUDED.bench_signature, nps = EXCLUDED.nps,"
                        "  last_seen = now()"
                        " WHERE w.contributor_id = EXCLUDED.contributor_id"
                        " RETURNING id",
                        9, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_EAUTH, "worker id %s belongs to another contributor", w->id);
    PQclear(res);
    return rc;
}

int store_worker_get(store_t *store, const char *id, store_worker_t *out)
{
    memset(out, 0, sizeof *out);
    const char *params[] = { id };
    PGresult *res;
    int rc = store_exec(store, "get worker", "SELECT " WORKER_COLS " FROM workers WHERE id = $1",
                        1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no worker %s", id);
    else
        rc = s_worker_from(store, res, 0, out);
    PQclear(res);
    return rc;
}

int store_worker_seen(store_t *store, const char *id)
{
    const char *params[] = { id };
    PGresult *res;
    int rc = store_exec(store, "worker seen",
                        "UPDATE workers SET last_seen = now() WHERE id = $1 RETURNING id", 1,
                        params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no worker %s", id);
    PQclear(res);
    return rc;
}

int store_worker_flag(store_t *store, const char *id, const char *reason, size_t *n_excluded)
{
    const char *params[] = { id, reason };
    PGresult *res;
    /* One statement: flag, exclude the stored pairs, take them out of the
     * runs' counters (cpu_ms stays: the CPU was spent). Excluded, a pair
     * moves to its worker's slot of the key (sql/002): its number is free. */
    int rc = store_exec(
        store, "flag worker",
        "WITH f AS (UPDATE workers SET flagged = true, flag_reason = $2,"
        "  flagged_at = coalesce(flagged_at, now()) WHERE id = $1 RETURNING id),"
        " ex AS (UPDATE pairs p SET excluded = true, excluded_at = now() FROM f"
        "  WHERE p.worker_id = f.id AND NOT p.excluded"
        "  RETURNING p.run_id, p.score, p.result1, p.result2, p.b_white1, p.b_white2,"
        "   false AS excluded, 0::bigint AS cpu_ms),"
        " delta AS (SELECT run_id," COUNTER_DELTAS " FROM ex GROUP BY run_id),"
        " run_upd AS (UPDATE runs r SET pairs_done = r.pairs_done - d.n,"
        "  penta0 = r.penta0 - d.p0, penta1 = r.penta1 - d.p1, penta2 = r.penta2 - d.p2,"
        "  penta3 = r.penta3 - d.p3, penta4 = r.penta4 - d.p4, wins = r.wins - d.w,"
        "  draws = r.draws - d.d, losses = r.losses - d.l"
        "  FROM delta d WHERE r.id = d.run_id RETURNING r.id)"
        " SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM ex)",
        2, params, &res);
    if (rc < 0)
        return rc;
    if (store_get_i64(res, 0, 0) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no worker %s", id);
    else if (n_excluded)
        *n_excluded = (size_t) store_get_i64(res, 0, 1);
    PQclear(res);
    return rc;
}

void store_worker_list_free(store_worker_t **list_p, size_t n)
{
    if (!list_p || !*list_p)
        return;
    for (size_t i = 0; i < n; i++)
        free((*list_p)[i].host_info);
    free(*list_p);
    *list_p = NULL;
}

int store_worker_list(store_t *store, int64_t contributor_id, store_worker_t **list_p,
                      size_t *n_out)
{
    *list_p = NULL;
    *n_out = 0;
    char cb[24];
    const char *params[] = { store_i64(cb, contributor_id) };
    PGresult *res;
    int rc = store_exec(store, "list workers",
                        "SELECT " WORKER_COLS " FROM workers"
                        " WHERE $1::bigint = 0 OR contributor_id = $1::bigint"
                        " ORDER BY last_seen DESC, id",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_worker_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d workers", rows);
        }
        for (int i = 0; i < rows && rc == 0; i++) {
            rc = s_worker_from(store, res, i, &v[i]);
            if (rc < 0)
                store_worker_list_free(&v, (size_t) i + 1);
        }
        if (rc == 0) {
            *list_p = v;
            *n_out = (size_t) rows;
        }
    }
    PQclear(res);
    return rc;
}
