/* store_contributors.c - contributors and their token hashes. */
#include "store_int.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTRIB_COLS                                                                    \
    "c.id, c.name, c.token_hash, c.is_admin, epoch_ms(c.created_at),"                     \
    " epoch_ms(c.revoked_at), s.workers, s.pairs, s.games, s.cpu_ms"
#define CONTRIB_FROM " FROM contributors c JOIN contributor_stats s ON s.contributor_id = c.id"

static void s_contributor_from(const PGresult *res, int row, store_contributor_t *c)
{
    memset(c, 0, sizeof *c);
    c->id = store_get_i64(res, row, 0);
    store_get_text(res, row, 1, c->name, sizeof c->name);
    store_get_text(res, row, 2, c->token_hash, sizeof c->token_hash);
    c->is_admin = store_get_bool(res, row, 3);
    c->created_at_ms = store_get_i64(res, row, 4);
    c->revoked_at_ms = store_get_i64(res, row, 5);
    c->workers = store_get_i64(res, row, 6);
    c->pairs = store_get_i64(res, row, 7);
    c->games = store_get_i64(res, row, 8);
    c->cpu_ms = store_get_i64(res, row, 9);
}

static bool s_is_hash(const char *h)
{
    size_t len = strlen(h);
    if (len < 32 || len > 128)
        return false;
    return strspn(h, "0123456789abcdef") == len;
}

int store_contributor_add(store_t *store, const char *name, const char *token_hash,
                          bool is_admin, int64_t *id_out)
{
    if (!name || !*name || strlen(name) >= STORE_TEXT_MAX)
        return store_fail(store, CAPA_EINVAL, "a contributor name has 1..%d bytes",
                          STORE_TEXT_MAX - 1);
    if (!token_hash || !s_is_hash(token_hash))
        return store_fail(store, CAPA_EINVAL,
                          "a token hash is 32..128 lower-case hex digits (the store never "
                          "keeps a token itself)");
    const char *params[] = { name, token_hash, is_admin ? "t" : "f" };
    PGresult *res;
    int rc = store_exec(store, "add contributor",
                        "INSERT INTO contributors (name, token_hash, is_admin)"
                        " VALUES ($1, $2, $3::boolean) RETURNING id",
                        3, params, &res);
    if (rc == CAPA_EDUP)
        return store_fail(store, CAPA_EDUP, "a contributor with this name or token exists");
    if (rc < 0)
        return rc;
    if (id_out)
        *id_out = store_get_i64(res, 0, 0);
    PQclear(res);
    return 0;
}

static int s_get_one(store_t *store, const char *what, const char *sql, const char *arg,
                     store_contributor_t *out)
{
    memset(out, 0, sizeof *out);
    const char *params[] = { arg };
    PGresult *res;
    int rc = store_exec(store, what, sql, 1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no such contributor");
    else
        s_contributor_from(res, 0, out);
    PQclear(res);
    return rc;
}

int store_contributor_by_token(store_t *store, const char *token_hash, store_contributor_t *out)
{
    if (!token_hash)
        return store_fail(store, CAPA_EINVAL, "no token hash");
    int rc = s_get_one(store, "find contributor by token",
                       "SELECT " CONTRIB_COLS CONTRIB_FROM " WHERE c.token_hash = $1", token_hash,
                       out);
    if (rc < 0)
        return rc;
    if (out->revoked_at_ms != 0)
        return store_fail(store, CAPA_EAUTH, "the token of contributor %s was revoked",
                          out->name);
    return 0;
}

int store_contributor_get(store_t *store, int64_t id, store_contributor_t *out)
{
    char ib[24];
    return s_get_one(store, "get contributor",
                     "SELECT " CONTRIB_COLS CONTRIB_FROM " WHERE c.id = $1::bigint",
                     store_i64(ib, id), out);
}

int store_contributor_revoke(store_t *store, int64_t id)
{
    char ib[24];
    const char *params[] = { store_i64(ib, id) };
    PGresult *res;
    int rc = store_exec(store, "revoke contributor",
                        "UPDATE contributors SET revoked_at = coalesce(revoked_at, now())"
                        " WHERE id = $1::bigint RETURNING id",
                        1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no contributor %lld", (long long) id);
    PQclear(res);
    return rc;
}

int store_contributor_set_token(store_t *store, int64_t id, const char *token_hash)
{
    if (!token_hash || !s_is_hash(token_hash))
        return store_fail(store, CAPA_EINVAL, "a token hash is 32..128 lower-case hex digits");
    char ib[24];
    const char *params[] = { store_i64(ib, id), token_hash };
    PGresult *res;
    int rc = store_exec(store, "set contributor token",
                        "UPDATE contributors SET token_hash = $2 WHERE id = $1::bigint RETURNING id",
                        2, params, &res);
    if (rc == CAPA_EDUP)
        return store_fail(store, CAPA_EDUP, "another contributor has this token");
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no contributor %lld", (long long) id);
    PQclear(res);
    return rc;
}

int store_contributor_list(store_t *store, store_contributor_t **list_p, size_t *n_out)
{
    *list_p = NULL;
    *n_out = 0;
    PGresult *res;
    int rc = store_exec(store, "list contributors",
                        "SELECT " CONTRIB_COLS CONTRIB_FROM " ORDER BY c.id", 0, NULL, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_contributor_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d contributors", rows);
        }
        for (int i = 0; i < rows; i++)
            s_contributor_from(res, i, &v[i]);
        *list_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

int store_contributor_stats(store_t *store, int live_seconds, int days,
                            store_contributor_stats_t **list_p, size_t *n_out)
{
    *list_p = NULL;
    *n_out = 0;
    char live[16], window[16];
    snprintf(live, sizeof live, "%d", live_seconds);
    snprintf(window, sizeof window, "%d", days);
    const char *params[] = { live, window };
    PGresult *res;
    int rc = store_exec(
        store, "contributor stats",
        "SELECT c.id, c.name, c.is_admin, c.revoked_at IS NOT NULL,"
        " count(w.id),"
        " count(w.id) FILTER (WHERE w.last_seen > now() - make_interval(secs => $1::int)),"
        " coalesce(epoch_ms(max(w.last_seen)), 0),"
        " coalesce(sum(w.pairs), 0), coalesce(sum(w.games), 0), coalesce(sum(w.cpu_ms), 0),"
        " coalesce(max(k.pairs), 0), coalesce(max(k.cpu_ms), 0), epoch_ms(c.created_at)"
        " FROM contributors c"
        " LEFT JOIN workers w ON w.contributor_id = c.id"
        " LEFT JOIN (SELECT w2.contributor_id, count(*) AS pairs, sum(p.cpu_ms) AS cpu_ms"
        "            FROM pairs p JOIN workers w2 ON w2.id = p.worker_id"
        "            WHERE p.stored_at > now() - make_interval(days => $2::int)"
        "            GROUP BY w2.contributor_id) k ON k.contributor_id = c.id"
        " GROUP BY c.id ORDER BY c.id",
        2, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_contributor_stats_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d contributors", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_contributor_stats_t *c = &v[i];
            c->id = store_get_i64(res, i, 0);
            store_get_text(res, i, 1, c->name, sizeof c->name);
            c->is_admin = store_get_bool(res, i, 2);
            c->revoked = store_get_bool(res, i, 3);
            c->workers = store_get_i64(res, i, 4);
            c->active_workers = store_get_i64(res, i, 5);
            c->last_seen_ms = store_get_i64(res, i, 6);
            c->pairs = store_get_i64(res, i, 7);
            c->games = store_get_i64(res, i, 8);
            c->cpu_ms = store_get_i64(res, i, 9);
            c->recent_pairs = store_get_i64(res, i, 10);
            c->recent_games = 2 * c->recent_pairs;
            c->recent_cpu_ms = store_get_i64(res, i, 11);
            c->created_at_ms = store_get_i64(res, i, 12);
        }
        *list_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}
