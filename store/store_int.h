/* store_int.h - what the store_*.c files share; not for other modules.
 *
 * One connection per store_t. store_exec runs one parameterised statement
 * (text parameters, text results) after making sure the connection is alive,
 * and turns a failure into a capa_err_t with the message kept in the store.
 */
#ifndef CAPA_STORE_INT_H
#define CAPA_STORE_INT_H

#include "store.h"

#include <libpq-fe.h>

struct store_s {
    PGconn *conn;          /* NULL while disconnected */
    char *conninfo;        /* heap copy, for reconnecting */
    char errmsg[1024];
    const char *prepared[8];  /* statement names prepared on this connection */
    int n_prepared;
};

/* Records a failure message, logs it (WARN) and returns code. */
int store_fail(store_t *store, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Runs sql with n text parameters (NULL entries are SQL NULL). On success
 * returns 0 and, if res_p is non-NULL, the result (caller PQclear()s it);
 * on failure returns a negative code (CAPA_EDB, CAPA_EDUP, CAPA_EINVAL,
 * CAPA_ERANGE, CAPA_ENOTFOUND from the SQLSTATE) and *res_p is NULL. what
 * names the operation in the error message. */
int store_exec(store_t *store, const char *what, const char *sql, int n,
               const char *const *params, PGresult **res_p);

/* As store_exec, through a statement prepared once per connection under
 * name (a string constant; at most 8 names). */
int store_exec_prepared(store_t *store, const char *what, const char *name, const char *sql,
                        int n, const char *const *params, PGresult **res_p);

/* Prepares name on this connection unless it already is (checking the
 * connection first, as store_exec does). */
int store_prepare(store_t *store, const char *name, const char *sql, int n);
/* Turns a result into 0 (handing it to *res_p, or clearing it) or an error
 * code from its SQLSTATE (clearing it; the message goes to the store). */
int store_result(store_t *store, const char *what, PGresult *res, PGresult **res_p);

/* Result accessors: NULL reads as 0 / false / "" / NULL. */
int64_t store_get_i64(const PGresult *res, int row, int col);
int store_get_int(const PGresult *res, int row, int col);
double store_get_double(const PGresult *res, int row, int col);

/* The JSON array of engines of the counted pairs of the run whose id is the
 * SQL expression RUN (store_run_engines; the values runs' list falls back to
 * it for an estimate made before estimates carried it). */
#define STORE_RUN_ENGINES_SQL(RUN)                                                           \
    "(SELECT coalesce(json_agg(json_build_object('bench', x.bench, 'version', x.version,"   \
    " 'pairs', x.n) ORDER BY x.n DESC, x.bench), '[]'::json)"                               \
    " FROM (SELECT coalesce(p.engine_bench, 0) AS bench, coalesce(p.engine_version, '')"    \
    " AS version, count(*) AS n FROM pairs p WHERE p.run_id = " RUN " AND NOT p.excluded"  \
    " GROUP BY 1, 2) x)"
bool store_get_bool(const PGresult *res, int row, int col);
void store_get_text(const PGresult *res, int row, int col, char *buf, size_t len);
/* A heap copy of the value, NULL for SQL NULL; sets *oom on allocation failure. */
char *store_get_dup(const PGresult *res, int row, int col, bool *oom);

/* Formats v into buf (at least 24 bytes) and returns buf. */
const char *store_i64(char *buf, int64_t v);

/* The counters a set of pair rows (with columns score, result1, result2,
 * b_white1, b_white2, excluded, cpu_ms) adds to a run. */
#define COUNTER_DELTAS                                                                   \
    " count(*) FILTER (WHERE NOT excluded) AS n,"                                         \
    " count(*) FILTER (WHERE score = 0 AND NOT excluded) AS p0,"                          \
    " count(*) FILTER (WHERE score = 1 AND NOT excluded) AS p1,"                          \
    " count(*) FILTER (WHERE score = 2 AND NOT excluded) AS p2,"                          \
    " count(*) FILTER (WHERE score = 3 AND NOT excluded) AS p3,"                          \
    " count(*) FILTER (WHERE score = 4 AND NOT excluded) AS p4,"                          \
    " coalesce(sum((CASE WHEN b_white1 THEN result1 ELSE 2 - result1 END = 2)::int"       \
    "  + (CASE WHEN b_white2 THEN result2 ELSE 2 - result2 END = 2)::int)"               \
    "  FILTER (WHERE NOT excluded), 0) AS w,"                                             \
    " coalesce(sum((result1 = 1)::int + (result2 = 1)::int)"                              \
    "  FILTER (WHERE NOT excluded), 0) AS d,"                                             \
    " coalesce(sum((CASE WHEN b_white1 THEN result1 ELSE 2 - result1 END = 0)::int"       \
    "  + (CASE WHEN b_white2 THEN result2 ELSE 2 - result2 END = 0)::int)"               \
    "  FILTER (WHERE NOT excluded), 0) AS l,"                                             \
    " coalesce(sum(cpu_ms), 0) AS cpu, count(*) AS n_all"

/* Inserting a run (store_runs.c): the columns and values of the INSERT
 * ($1..$8), its parameters from a store_run_t (bufs hold the numbers), and
 * the check of what the statement cannot check (0 or CAPA_EINVAL). */
#define STORE_RUN_INSERT_N 8
#define STORE_RUN_INSERT                                                                 \
    "(kind, name, doc, priority, seed, pairs_planned, submitted_by, state)"              \
    " VALUES ($1, $2, $3::jsonb, $4::int, $5::bigint, $6::bigint, $7::bigint, $8::jsonb)"
void store_run_insert_params(const store_run_t *run, char bufs[4][24],
                             const char *params[STORE_RUN_INSERT_N]);
int store_run_insert_check(store_t *store, const store_run_t *run);

/* Reads rows of (task_id, run_id, first, last) into a heap array. */
int store_ranges_from(store_t *store, PGresult *res, store_range_t **ranges_p, size_t *n_out);

/* The unstored pair numbers of the tasks in CTE "ended" (columns id, run_id,
 * first_pair, last_pair) as ranges: the gaps between the stored numbers of
 * each lease, with first_pair - 1 and last_pair + 1 as fences. An excluded
 * pair does not count as stored: its number is played again. The stored
 * numbers come from a range scan of the primary key per lease, so the cost
 * follows the leases' sizes, not the table's (a NOT EXISTS over
 * generate_series was planned as a hash anti-join over all of pairs: 70 ms
 * per call at 140k pairs, growing with the table; this: 3 ms). */
/* The file (1..10 = a..j) of the one pawn missing from one side's pawn rank
 * in a pair's start FEN (game 1's), 0 when no pawn or more than one is
 * missing: pawn odds by file, read from what was played. */
#define STORE_PAWN_GAP_FILE                                                              \
    "(CASE WHEN split_part(split_part(fen, ' ', 1), '/', 7) ~ '^P*1P*$'"                  \
    "   AND split_part(split_part(fen, ' ', 1), '/', 2) ~ '^p+$'"                         \
    "  THEN position('1' in split_part(split_part(fen, ' ', 1), '/', 7))"                 \
    "  WHEN split_part(split_part(fen, ' ', 1), '/', 2) ~ '^p*1p*$'"                      \
    "   AND split_part(split_part(fen, ' ', 1), '/', 7) ~ '^P+$'"                         \
    "  THEN position('1' in split_part(split_part(fen, ' ', 1), '/', 2)) ELSE 0 END)"

#define STORE_UNSTORED_RANGES                                                            \
    " , edges AS ("                                                                      \
    "  SELECT e.id, e.run_id, s.n FROM ended e CROSS JOIN LATERAL ("                      \
    "   SELECT e.first_pair - 1 AS n"                                                    \
    "   UNION ALL SELECT p.pair_no FROM pairs p WHERE p.run_id = e.run_id"                \
    "    AND p.pair_no BETWEEN e.first_pair AND e.last_pair AND NOT p.excluded"           \
    "   UNION ALL SELECT e.last_pair + 1) s)"                                            \
    " SELECT id, run_id, prev + 1, n - 1 FROM ("                                         \
    "  SELECT id, run_id, n, lag(n) OVER (PARTITION BY id ORDER BY n) AS prev"           \
    "  FROM edges) g"                                                                    \
    " WHERE n - prev > 1 ORDER BY run_id, prev"

#endif
