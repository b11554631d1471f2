/* store_pairs.c - pairs: the batched, idempotent insert, stored sets, totals,
 * listings and the imbalance table of values runs. */
#include "store_int.h"

#include "err.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- array literals -------------------------------------------------------- */

/* A growable text buffer for PostgreSQL array literals ({1,2}, {"a",NULL}),
 * passed as parameter values: the data never becomes SQL text. */
typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} s_buf_t;

static void s_reserve(s_buf_t *b, size_t more)
{
    if (b->oom || b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns) {
        b->oom = true;
        return;
    }
    b->s = ns;
    b->cap = cap;
}

static void s_putc(s_buf_t *b, char c)
{
    s_reserve(b, 1);
    if (b->oom)
        return;
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

static void s_printf(s_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_printf(s_buf_t *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    s_reserve(b, (size_t) w);
    if (b->oom)
        return;
    memcpy(b->s + b->len, tmp, (size_t) w + 1);
    b->len += (size_t) w;
}

/* Opens the array or adds a separator. */
static void s_sep(s_buf_t *b, size_t i)
{
    s_putc(b, i == 0 ? '{' : ',');
}

/* A text element: NULL, or double-quoted with " and \ escaped. */
static void s_text(s_buf_t *b, const char *v)
{
    if (!v) {
        s_printf(b, "NULL");
        return;
    }
    s_reserve(b, strlen(v) * 2 + 2);
    if (b->oom)
        return;
    b->s[b->len++] = '"';
    for (const char *p = v; *p; p++) {
        if (*p == '"' || *p == '\\')
            b->s[b->len++] = '\\';
        b->s[b->len++] = *p;
    }
    b->s[b->len++] = '"';
    b->s[b->len] = '\0';
}

/* ---- insert ---------------------------------------------------------------- */

enum {
    A_RUN, A_PAIR, A_TASK, A_WORKER, A_FEN, A_FEN2, A_IMB, A_RES1, A_RES2, A_BW1, A_BW2, A_END1,
    A_END2, A_PLY1, A_PLY2, A_MOV1, A_MOV2, A_SCORE, A_CPU, A_COUNT
};

/* One statement stores any number of batches, of any runs. Rows go in by
 * (run, pair number), so concurrent statements take their index locks in
 * the same order (no deadlock), and then in array order, so when a pair
 * number comes twice the first one is stored and the second is a duplicate,
 * as if the batches went one by one. A flagged worker's pairs go in excluded:
 * in their worker's slot of the key (sql/002), not the pair number's counted
 * slot, so they are stored (once) but neither counted nor returned as new.
 * Each pair keeps the engine its worker reported when it was stored
 * (sql/007). */
static const char *const s_insert_sql =
    "WITH u AS ("
    " SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[],"
    "  $6::text[], $7::text[], $8::smallint[], $9::smallint[], $10::boolean[], $11::boolean[],"
    "  $12::text[], $13::text[], $14::int[], $15::int[], $16::text[], $17::text[],"
    "  $18::smallint[], $19::bigint[]) WITH ORDINALITY"
    "  AS u(run_id, pair_no, task_id, worker_id, fen, fen2, imbalance, result1, result2,"
    "   b_white1, b_white2, end1, end2, plies1, plies2, moves1, moves2, score, cpu_ms, ord)),"
    " ins AS ("
    " INSERT INTO pairs (run_id, pair_no, task_id, worker_id, fen, fen2, imbalance,"
    "  result1, result2, b_white1, b_white2, end1, end2, plies1, plies2, moves1, moves2,"
    "  score, cpu_ms, excluded, excluded_at, engine_bench, engine_version)"
    " SELECT u.run_id, u.pair_no, u.task_id, u.worker_id, u.fen, u.fen2, u.imbalance,"
    "  u.result1, u.result2, u.b_white1, u.b_white2, u.end1, u.end2, u.plies1, u.plies2,"
    "  u.moves1, u.moves2, u.score, u.cpu_ms, coalesce(w.flagged, false),"
    "  CASE WHEN w.flagged THEN now() END, w.bench_signature, w.engine_version"
    " FROM u LEFT JOIN workers w ON w.id = u.worker_id ORDER BY u.run_id, u.pair_no, u.ord"
    " ON CONFLICT (run_id, pair_no, slot) DO NOTHING"
    " RETURNING run_id, pair_no, worker_id, score, result1, result2, b_white1, b_white2,"
    "  excluded, cpu_ms),"
    " delta AS (SELECT run_id," COUNTER_DELTAS " FROM ins GROUP BY run_id),"
    " run_upd AS ("
    " UPDATE runs r SET pairs_done = r.pairs_done + d.n, penta0 = r.penta0 + d.p0,"
    "  penta1 = r.penta1 + d.p1, penta2 = r.penta2 + d.p2, penta3 = r.penta3 + d.p3,"
    "  penta4 = r.penta4 + d.p4, wins = r.wins + d.w, draws = r.draws + d.d,"
    "  losses = r.losses + d.l, cpu_ms = r.cpu_ms + d.cpu"
    " FROM delta d WHERE r.id = d.run_id RETURNING r.id),"
    " worker_upd AS ("
    " UPDATE workers w SET pairs = w.pairs + s.n, games = w.games + 2 * s.n,"
    "  cpu_ms = w.cpu_ms + s.cpu, last_seen = now()"
    " FROM (SELECT worker_id, count(*) AS n, sum(cpu_ms) AS cpu FROM ins"
    "  WHERE worker_id IS NOT NULL GROUP BY worker_id) s"
    " WHERE w.id = s.worker_id RETURNING w.id)"
    " SELECT run_id, pair_no, worker_id FROM ins WHERE NOT excluded";

#define INSERT_NAME "capa_insert_pairs"

/* A pair number of a batch and where it sits in the batch. */
typedef struct {
    int64_t no;
    size_t idx;
} s_key_t;

static int s_cmp_key(const void *a, const void *b)
{
    int64_t x = ((const s_key_t *) a)->no, y = ((const s_key_t *) b)->no;
    return (x > y) - (x < y);
}

/* Checks a batch before it goes to the server: clear messages for the
 * mistakes a caller can make, the schema's CHECKs guard the rest. */
static int s_check_batch(store_t *store, const store_pair_t *pairs, size_t n, s_key_t *sorted)
{
    for (size_t i = 0; i < n; i++) {
        const store_pair_t *p = &pairs[i];
        if (p->pair_no < 0)
            return store_fail(store, CAPA_ERANGE, "pair number %lld is negative",
                              (long long) p->pair_no);
        if (!p->fen || !p->end[0] || !p->end[1])
            return store_fail(store, CAPA_EINVAL, "pair %lld lacks a FEN or a termination",
                              (long long) p->pair_no);
        int b_half = 0;
        for (int g = 0; g < 2; g++) {
            if (p->result[g] < STORE_BLACK_WINS || p->result[g] > STORE_WHITE_WINS)
                return store_fail(store, CAPA_EINVAL, "pair %lld: game %d result %d is not 0..2",
                                  (long long) p->pair_no, g + 1, p->result[g]);
            b_half += p->b_white[g] ? p->result[g] : 2 - p->result[g];
        }
        if (p->b_white[0] == p->b_white[1])
            return store_fail(store, CAPA_EINVAL, "pair %lld: B has the same colour in both games",
                              (long long) p->pair_no);
        if (p->score != b_half)
            return store_fail(store, CAPA_EINVAL,
                              "pair %lld: score %d does not follow from the games (%d)",
                              (long long) p->pair_no, p->score, b_half);
        sorted[i] = (s_key_t) { .no = p->pair_no, .idx = i };
    }
    qsort(sorted, n, sizeof *sorted, s_cmp_key);
    for (size_t i = 1; i < n; i++)
        if (sorted[i].no == sorted[i - 1].no)
            return store_fail(store, CAPA_EINVAL, "pair %lld appears twice in one batch",
                              (long long) sorted[i].no);
    return 0;
}

/* A batch's bookkeeping while it is stored. */
typedef struct {
    s_key_t *sorted;     /* its pair numbers, sorted */
    bool ready;          /* checked: goes to the server */
} s_prep_t;

static void s_add_rows(s_buf_t *a, size_t *rows, const store_batch_t *b)
{
    for (size_t i = 0; i < b->n; i++, (*rows)++) {
        const store_pair_t *p = &b->pairs[i];
        for (int k = 0; k < A_COUNT; k++)
            s_sep(&a[k], *rows);
        s_printf(&a[A_RUN], "%" PRId64, b->run_id);
        s_printf(&a[A_PAIR], "%" PRId64, p->pair_no);
        if (p->task_id > 0)
            s_printf(&a[A_TASK], "%" PRId64, p->task_id);
        else
            s_printf(&a[A_TASK], "NULL");
        s_text(&a[A_WORKER], p->worker_id);
        s_text(&a[A_FEN], p->fen);
        s_text(&a[A_FEN2], p->fen2);
        s_text(&a[A_IMB], p->imbalance);
        s_printf(&a[A_RES1], "%d", p->result[0]);
        s_printf(&a[A_RES2], "%d", p->result[1]);
        s_printf(&a[A_BW1], "%s", p->b_white[0] ? "t" : "f");
        s_printf(&a[A_BW2], "%s", p->b_white[1] ? "t" : "f");
        s_text(&a[A_END1], p->end[0]);
        s_text(&a[A_END2], p->end[1]);
        s_printf(&a[A_PLY1], "%d", p->plies[0]);
        s_printf(&a[A_PLY2], "%d", p->plies[1]);
        s_text(&a[A_MOV1], p->moves[0]);
        s_text(&a[A_MOV2], p->moves[1]);
        s_printf(&a[A_SCORE], "%d", p->score);
        s_printf(&a[A_CPU], "%" PRId64, p->cpu_ms);
    }
}

/* Stores the ready batches among b[0..n) with one statement (its own
 * transaction) and fills their n_new / new_p. */
static int s_store_ready(store_t *store, store_batch_t *b, s_prep_t *pp, size_t n)
{
    s_buf_t a[A_COUNT];
    memset(a, 0, sizeof a);
    size_t rows = 0;
    for (size_t i = 0; i < n; i++)
        if (pp[i].ready)
            s_add_rows(a, &rows, &b[i]);
    if (rows == 0)
        return 0;
    const char *params[A_COUNT];
    int rc = 0;
    for (int k = 0; k < A_COUNT; k++) {
        s_putc(&a[k], '}');
        if (a[k].oom && rc == 0)
            rc = store_fail(store, CAPA_ENOMEM, "out of memory building %zu pairs", rows);
        params[k] = a[k].s;
    }
    PGresult *res = NULL;
    if (rc == 0)
        rc = store_exec_prepared(store, "insert pairs", INSERT_NAME, s_insert_sql, A_COUNT,
                                 params, &res);
    for (int k = 0; k < A_COUNT; k++)
        free(a[k].s);
    if (rc < 0)
        return rc;
    /* Each newly counted pair belongs to the first ready batch with its
     * number and its worker (a flagged worker's batch with the same number,
     * earlier in the statement, stored its pair excluded: not new). */
    for (int r = 0; r < PQntuples(res); r++) {
        s_key_t key = { .no = store_get_i64(res, r, 1) };
        int64_t run = store_get_i64(res, r, 0);
        bool no_worker = PQgetisnull(res, r, 2);
        const char *worker = PQgetvalue(res, r, 2);
        for (size_t i = 0; i < n; i++) {
            if (!pp[i].ready || b[i].run_id != run)
                continue;
            s_key_t *hit = bsearch(&key, pp[i].sorted, b[i].n, sizeof key, s_cmp_key);
            if (!hit)
                continue;
            const char *w = b[i].pairs[hit->idx].worker_id;
            if (no_worker ? w != NULL : (!w || strcmp(w, worker) != 0))
                continue;
            if (b[i].new_p)
                b[i].new_p[hit->idx] = true;
            b[i].n_new++;
            break;
        }
    }
    PQclear(res);
    return 0;
}

int store_insert_batches(store_t *store, store_batch_t *batches, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        batches[i].rc = 0;
        batches[i].n_new = 0;
        if (batches[i].new_p)
            memset(batches[i].new_p, 0, batches[i].n * sizeof *batches[i].new_p);
    }
    if (n == 0)
        return 0;
    s_prep_t *pp = calloc(n, sizeof *pp);
    if (!pp)
        return store_fail(store, CAPA_ENOMEM, "out of memory for %zu batches", n);
    size_t ready = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        store_batch_t *b = &batches[i];
        if (b->n == 0)
            continue;
        pp[i].sorted = malloc(b->n * sizeof *pp[i].sorted);
        if (!pp[i].sorted)
            b->rc = store_fail(store, CAPA_ENOMEM, "out of memory for %zu pairs", b->n);
        else
            b->rc = s_check_batch(store, b->pairs, b->n, pp[i].sorted);
        pp[i].ready = b->rc == 0;
        ready += pp[i].ready;
    }
    int src = ready > 0 ? s_store_ready(store, batches, pp, n) : 0;
    if (src < 0 && ready == 1) {
        for (size_t i = 0; i < n; i++)
            if (pp[i].ready)
                batches[i].rc = src;
    } else if (src < 0) {
        /* The server refused the statement, so nothing of it is stored: find
         * the culprit by storing the batches one by one. */
        bool *was = malloc(n * sizeof *was);
        if (!was) {
            rc = store_fail(store, CAPA_ENOMEM, "out of memory for %zu batches", n);
            for (size_t i = 0; i < n; i++)
                if (pp[i].ready)
                    batches[i].rc = rc;
        }
        for (size_t i = 0; was && i < n; i++)
            was[i] = pp[i].ready;
        for (size_t i = 0; was && i < n; i++) {
            if (!was[i])
                continue;
            for (size_t k = 0; k < n; k++)
                pp[k].ready = k == i;
            batches[i].rc = s_store_ready(store, batches, pp, n);
        }
        free(was);
    }
    for (size_t i = 0; i < n; i++) {
        free(pp[i].sorted);
        if (batches[i].rc < 0 && rc == 0)
            rc = batches[i].rc;
    }
    free(pp);
    return rc;
}

int store_insert_pairs(store_t *store, int64_t run_id, const store_pair_t *pairs, size_t n,
                       bool *new_p, size_t *n_new)
{
    store_batch_t b = { .run_id = run_id, .pairs = pairs, .n = n, .new_p = new_p };
    int rc = store_insert_batches(store, &b, 1);
    if (n_new)
        *n_new = b.n_new;
    return rc < 0 ? rc : b.rc;
}

/* ---- reading ---------------------------------------------------------------- */

int store_pairs_stored(store_t *store, int64_t run_id, store_range_t **ranges_p, size_t *n_out)
{
    *ranges_p = NULL;
    *n_out = 0;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "stored pairs",
                        "SELECT 0, $1::bigint, min(pair_no), max(pair_no) FROM ("
                        " SELECT pair_no, pair_no - row_number() OVER (ORDER BY pair_no) AS grp"
                        " FROM pairs WHERE run_id = $1::bigint AND NOT excluded) s"
                        " GROUP BY grp ORDER BY min(pair_no)",
                        1, params, &res);
    if (rc < 0)
        return rc;
    rc = store_ranges_from(store, res, ranges_p, n_out);
    PQclear(res);
    return rc;
}

static int s_totals(store_t *store, int64_t run_id, const char *what, const char *sql,
                    store_totals_t *out)
{
    memset(out, 0, sizeof *out);
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, what, sql, 1, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return store_fail(store, CAPA_ENOTFOUND, "no run %lld", (long long) run_id);
    }
    out->pairs = store_get_i64(res, 0, 0);
    for (int i = 0; i < 5; i++)
        out->penta[i] = store_get_i64(res, 0, 1 + i);
    out->wins = store_get_i64(res, 0, 6);
    out->draws = store_get_i64(res, 0, 7);
    out->losses = store_get_i64(res, 0, 8);
    out->cpu_ms = store_get_i64(res, 0, 9);
    PQclear(res);
    return 0;
}

int store_run_totals(store_t *store, int64_t run_id, store_totals_t *out)
{
    return s_totals(store, run_id, "run totals",
                    "SELECT pairs_done, penta0, penta1, penta2, penta3, penta4, wins, draws,"
                    " losses, cpu_ms FROM runs WHERE id = $1::bigint",
                    out);
}

int store_run_recount(store_t *store, int64_t run_id, store_totals_t *out)
{
    return s_totals(store, run_id, "run recount",
                    "SELECT pairs_done, penta0, penta1, penta2, penta3, penta4, wins, draws,"
                    " losses, cpu_ms FROM run_totals_recount WHERE run_id = $1::bigint",
                    out);
}

int store_pairs_list(store_t *store, int64_t run_id, int64_t from, size_t limit,
                     store_pair_row_t **rows_p, size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char rb[24], fb[24], lb[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(fb, from),
                             store_i64(lb, limit ? (int64_t) limit : 1000) };
    PGresult *res;
    /* The first limit pair numbers from "from", with all their rows. */
    int rc = store_exec(store, "list pairs",
                        "SELECT pair_no, task_id, worker_id, fen, fen2, imbalance, result1,"
                        " result2, b_white1, b_white2, end1, end2, plies1, plies2, score, cpu_ms,"
                        " epoch_ms(stored_at), excluded,"
                        " CASE WHEN verified IS NULL THEN -1 WHEN verified THEN 1 ELSE 0 END"
                        " FROM pairs WHERE run_id = $1::bigint AND pair_no >= $2::bigint"
                        " AND pair_no <= (SELECT max(pair_no) FROM (SELECT DISTINCT pair_no"
                        "  FROM pairs WHERE run_id = $1::bigint AND pair_no >= $2::bigint"
                        "  ORDER BY pair_no LIMIT $3::bigint) s)"
                        " ORDER BY pair_no, excluded, excluded_at, worker_id",
                        3, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_pair_row_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d pairs", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_pair_row_t *p = &v[i];
            p->pair_no = store_get_i64(res, i, 0);
            p->task_id = store_get_i64(res, i, 1);
            store_get_text(res, i, 2, p->worker_id, sizeof p->worker_id);
            store_get_text(res, i, 3, p->fen, sizeof p->fen);
            store_get_text(res, i, 4, p->fen2, sizeof p->fen2);
            store_get_text(res, i, 5, p->imbalance, sizeof p->imbalance);
            p->result[0] = store_get_int(res, i, 6);
            p->result[1] = store_get_int(res, i, 7);
            p->b_white[0] = store_get_bool(res, i, 8);
            p->b_white[1] = store_get_bool(res, i, 9);
            store_get_text(res, i, 10, p->end[0], sizeof p->end[0]);
            store_get_text(res, i, 11, p->end[1], sizeof p->end[1]);
            p->plies[0] = store_get_int(res, i, 12);
            p->plies[1] = store_get_int(res, i, 13);
            p->score = store_get_int(res, i, 14);
            p->cpu_ms = store_get_i64(res, i, 15);
            p->stored_at_ms = store_get_i64(res, i, 16);
            p->excluded = store_get_bool(res, i, 17);
            p->verified = store_get_int(res, i, 18);
        }
        *rows_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

int store_pair_set_verified(store_t *store, int64_t run_id, int64_t pair_no, bool reproduced,
                            const char *by_worker)
{
    char rb[24], pb[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(pb, pair_no), reproduced ? "t" : "f",
                             by_worker };
    PGresult *res;
    /* The pair number's counted pair; if its worker was flagged since, its
     * pair is the one excluded last (no other has been counted yet). */
    int rc = store_exec(store, "verify pair",
                        "UPDATE pairs p SET verified = $3::boolean, verified_by = $4,"
                        " verified_at = now()"
                        " FROM (SELECT slot FROM pairs WHERE run_id = $1::bigint"
                        "  AND pair_no = $2::bigint"
                        "  ORDER BY excluded, excluded_at DESC LIMIT 1) t"
                        " WHERE p.run_id = $1::bigint AND p.pair_no = $2::bigint"
                        " AND p.slot = t.slot RETURNING p.pair_no",
                        4, params, &res);
    if (rc < 0)
        return rc;
    if (PQntuples(res) == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no pair %lld in run %lld", (long long) pair_no,
                        (long long) run_id);
    PQclear(res);
    return rc;
}

int store_pair_types(store_t *store, int64_t run_id, int buckets, store_pair_type_t **rows_p,
                     size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char rb[24], bb[24];
    const char *params[] = { store_i64(rb, run_id), store_i64(bb, buckets > 1 ? buckets : 1) };
    PGresult *res;
    int rc = store_exec(store, "pair types",
                        "SELECT imbalance, b_white1, b_white2, result1, result2,"
                        " (pair_no * $2::bigint) / (SELECT coalesce(max(pair_no), 0) + 1"
                        "  FROM pairs WHERE run_id = $1::bigint) AS bucket, " STORE_PAWN_GAP_FILE
                        " AS stratum, coalesce(unprotected, 0), coalesce(shelter, 0), count(*)"
                        " FROM pairs WHERE run_id = $1::bigint AND NOT excluded"
                        " AND imbalance IS NOT NULL"
                        " GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 ORDER BY 6, 1, 2, 3, 4, 5, 7, 8, 9",
                        2, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_pair_type_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d rows", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_get_text(res, i, 0, v[i].imbalance, sizeof v[i].imbalance);
            v[i].b_white[0] = store_get_bool(res, i, 1);
            v[i].b_white[1] = store_get_bool(res, i, 2);
            v[i].result[0] = store_get_int(res, i, 3);
            v[i].result[1] = store_get_int(res, i, 4);
            v[i].bucket = store_get_int(res, i, 5);
            v[i].stratum = store_get_int(res, i, 6);
            v[i].unprot = store_get_int(res, i, 7);
            v[i].shelter = store_get_double(res, i, 8);
            v[i].count = store_get_i64(res, i, 9);
        }
        *rows_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

/* "{a,b,c}" of n integers into buf. */
static const char *s_int_array(char *buf, size_t cap, const int64_t *v, int n)
{
    size_t u = 0;
    buf[u++] = '{';
    for (int i = 0; i < n && u + 24 < cap; i++)
        u += (size_t) snprintf(buf + u, cap - u, "%s%lld", i ? "," : "", (long long) v[i]);
    snprintf(buf + u, cap - u, "}");
    return buf;
}

int store_round_moments(store_t *store, int64_t run_id, const int64_t *first_pair,
                        const int64_t *first_round, const int64_t *width, int segments,
                        store_round_moment_t **rows_p, size_t *n_out, int64_t *rounds)
{
    *rows_p = NULL;
    *n_out = 0;
    *rounds = 0;
    if (segments < 1 || segments > 256)
        return store_fail(store, CAPA_EINVAL, "round moments: %d segments", segments);
    for (int i = 0; i < segments; i++)
        if (width[i] < 1 || first_pair[i] < 0 || first_round[i] < 0 ||
            (i > 0 && first_pair[i] <= first_pair[i - 1]))
            return store_fail(store, CAPA_EINVAL, "round moments: segment %d is malformed", i);
    char rb[24], kb[256 * 24], r0b[256 * 24], wb[256 * 24];
    const char *params[] = { store_i64(rb, run_id), s_int_array(kb, sizeof kb, first_pair, segments),
                             s_int_array(r0b, sizeof r0b, first_round, segments),
                             s_int_array(wb, sizeof wb, width, segments) };
    PGresult *res;
    /* One row per counted pair with its round (a round holds at most one
     * pair of each imbalance), then every two rows of one round. */
    int rc = store_exec(store, "round moments",
                        "WITH q AS (SELECT imbalance AS cls, coalesce(unprotected, 0) AS u,"
                        "  coalesce(shelter, 0) AS h,"
                        "  result1 + result2 AS a, score AS s,"
                        "  width_bucket(pair_no, $2::bigint[]) AS b, pair_no"
                        "  FROM pairs WHERE run_id = $1::bigint AND NOT excluded"
                        "  AND imbalance IS NOT NULL),"
                        " c AS (SELECT cls, u, h, a::bigint AS a, s::bigint AS s,"
                        "  ($3::bigint[])[b] + (pair_no - ($2::bigint[])[b]) / ($4::bigint[])[b] AS rnd"
                        "  FROM q)"
                        " SELECT x.cls, x.u, x.h, y.cls, y.u, y.h, count(*), sum(y.a), sum(y.s), sum(x.a),"
                        "  sum(x.a * y.a), sum(x.a * y.s), sum(x.s), sum(x.s * y.a), sum(x.s * y.s),"
                        "  (SELECT count(DISTINCT rnd) FROM c)"
                        " FROM c x JOIN c y ON x.rnd = y.rnd GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6",
                        4, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_round_moment_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d rows", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_get_text(res, i, 0, v[i].cls[0], sizeof v[i].cls[0]);
            v[i].unprot[0] = store_get_int(res, i, 1);
            v[i].shelter[0] = store_get_double(res, i, 2);
            store_get_text(res, i, 3, v[i].cls[1], sizeof v[i].cls[1]);
            v[i].unprot[1] = store_get_int(res, i, 4);
            v[i].shelter[1] = store_get_double(res, i, 5);
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    v[i].m[x][y] = store_get_i64(res, i, 6 + 3 * x + y);
        }
        *rounds = store_get_i64(res, 0, 15);
        *rows_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

int store_imbalance_games(store_t *store, int64_t run_id, store_imbalance_t **rows_p,
                          size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "imbalance games",
                        "SELECT imbalance, b_white, wins, draws, losses FROM imbalance_games"
                        " WHERE run_id = $1::bigint ORDER BY imbalance, b_white",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_imbalance_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d rows", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_get_text(res, i, 0, v[i].imbalance, sizeof v[i].imbalance);
            v[i].b_white = store_get_bool(res, i, 1);
            v[i].wins = store_get_i64(res, i, 2);
            v[i].draws = store_get_i64(res, i, 3);
            v[i].losses = store_get_i64(res, i, 4);
        }
        *rows_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}

int store_run_engines(store_t *store, int64_t run_id, char **json_p)
{
    *json_p = NULL;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "run engines", "SELECT " STORE_RUN_ENGINES_SQL("$1::bigint") "::text", 1, params,
                        &res);
    if (rc < 0)
        return rc;
    bool oom = false;
    *json_p = store_get_dup(res, 0, 0, &oom);
    PQclear(res);
    return oom || !*json_p ? store_fail(store, CAPA_ENOMEM, "out of memory for the engines of run %lld",
                                        (long long) run_id)
                           : 0;
}

int store_run_endings(store_t *store, int64_t run_id, store_ending_t **rows_p, size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    char rb[24];
    const char *params[] = { store_i64(rb, run_id) };
    PGresult *res;
    int rc = store_exec(store, "run endings",
                        "SELECT e, count(*) FROM (SELECT end1 AS e FROM pairs"
                        " WHERE run_id = $1::bigint AND NOT excluded UNION ALL SELECT end2 FROM pairs"
                        " WHERE run_id = $1::bigint AND NOT excluded) g GROUP BY e ORDER BY 2 DESC, 1",
                        1, params, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    if (rows > 0) {
        store_ending_t *v = calloc((size_t) rows, sizeof *v);
        if (!v) {
            PQclear(res);
            return store_fail(store, CAPA_ENOMEM, "out of memory for %d rows", rows);
        }
        for (int i = 0; i < rows; i++) {
            store_get_text(res, i, 0, v[i].end, sizeof v[i].end);
            v[i].games = store_get_i64(res, i, 1);
        }
        *rows_p = v;
        *n_out = (size_t) rows;
    }
    PQclear(res);
    return 0;
}
