/* store.h - the coordinator's PostgreSQL store (libpq).
 *
 * Everything capalab keeps lives here: contributors and their token hashes,
 * workers, runs, tasks (leases on ranges of pair numbers), pairs, SPSA
 * history and estimates. SQL always goes through parameters.
 *
 *   store_t *st = NULL;
 *   if (store_open(conninfo, &st, err, sizeof err) < 0) ...   (fails if unreachable)
 *   if (store_migrate(st, "sql", NULL) < 0) LOG(..., store_last_error(st));
 *   ...
 *   store_destroy(&st);
 *
 * Errors. Every function returns 0 or a negative capa_err_t; the message of
 * the last failure (one line) is store_last_error(store). CAPA_EDB: the server
 * refused or is unreachable; CAPA_ENOTFOUND: no such row; CAPA_EDUP: a unique
 * key exists; CAPA_EINVAL / CAPA_ERANGE: a value the schema rejects;
 * CAPA_ESTATE: not allowed in the row's current state. CAPA_EDB and
 * CAPA_ESTATE failures are also logged (WARN), the others only at DEBUG.
 *
 * Connection loss. When the server goes away (a restart, a crash), the call
 * that notices fails with CAPA_EDB; every call made outside a transaction
 * first checks the connection and reconnects if it is gone (no round trip
 * when it is fine), so the coordinator simply carries on. A statement is never
 * retried blindly: a failed call may or may not have been committed. Pair
 * inserts are safe to repeat (replays come back as duplicates), and so are
 * the status, lease and flag updates; store_run_insert and the *_add/append
 * calls are not (a repeat may give CAPA_EDUP or a second run).
 *
 * Threads: a store_t is one connection; use it from one thread at a time.
 *
 * Times are Unix epoch milliseconds (int64_t); 0 means "not set". Ownership:
 * the caller owns every struct filled or allocated here, and frees lists with
 * the matching *_free function (plain arrays of flat structs with free()).
 */
#ifndef CAPA_STORE_H
#define CAPA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

typedef struct store_s store_t;

#define STORE_ID_MAX 64      /* worker ids: 1..63 bytes of A-Z a-z 0-9 . _ : - */
#define STORE_TEXT_MAX 128   /* names, FENs, labels: up to 127 bytes */
#define STORE_HASH_MAX 129   /* token hashes: 32..128 lower-case hex digits */

/* ---- connection and migrations (store.c) ---------------------------------- */

/* Connects (conninfo is a libpq string or URL). On failure returns CAPA_EDB,
 * writes the reason into err and leaves *store_p NULL. */
int store_open(const char *conninfo, store_t **store_p, char *err, size_t errlen);
/* Closes the connection and frees the store; accepts NULL; sets *store_p NULL. */
void store_destroy(store_t **store_p);
/* The message of the last failure ("" if none); owned by the store, valid until
 * the next call. */
const char *store_last_error(const store_t *store);
/* Checks the connection with a trivial query (reconnecting if needed). */
int store_ping(store_t *store);

/* Applies the migrations of sql_dir (files NNN_name.sql, in number order) that
 * the database lacks, each in its own transaction, under an advisory lock so
 * that two coordinators starting together apply each once. Refuses
 * (CAPA_ESTATE) if an applied migration's file changed or is missing, or if two
 * files share a number. *applied_out (may be NULL) gets how many it applied. */
int store_migrate(store_t *store, const char *sql_dir, int *applied_out);

/* A transaction around several store calls (each store_* call is otherwise
 * its own transaction), e.g. the store_worker_upsert of every HELLO of a
 * loop turn, so that they share one commit. After a failed call inside it,
 * roll back and redo the calls one by one. store_begin_async: BEGIN with
 * synchronous_commit off, the commit returns before the WAL is flushed (a
 * crash may lose this transaction, never corrupts). store_rollback never
 * fails (a broken connection rolls back by itself) and does nothing outside
 * a transaction. */
int store_begin(store_t *store);
int store_begin_async(store_t *store);
int store_commit(store_t *store);
void store_rollback(store_t *store);

/* ---- runs (store_runs.c) ------------------------------------------------- */

typedef enum {
    STORE_RUN_PENDING = 0,
    STORE_RUN_RUNNING = 1,
    STORE_RUN_FINISHED = 2,
    STORE_RUN_STOPPED = 3,
    STORE_RUN_FAILED = 4
} store_run_status_t;

/* "pending"/"running"/...; NULL for a bad value. A run's kind is the one
 * run-kind enum, proto_kind_t (common/protocol.h: proto_kind_name,
 * proto_kind_parse). */
const char *store_run_status_name(store_run_status_t status);
/* Parse a name; return the enum value or -1. */
int store_run_status_parse(const char *name);

/* A run's counters over its non-excluded pairs (kept by store_insert_pairs). */
typedef struct {
    int64_t pairs;        /* stored, non-excluded pairs */
    int64_t penta[5];     /* pairs by B's score in quarter points 0..4 */
    int64_t wins, draws, losses;   /* games, from B's side */
    int64_t cpu_ms;       /* all of the run's pairs */
} store_totals_t;

typedef struct {
    int64_t id;
    proto_kind_t kind;
    store_run_status_t status;
    char *name;            /* heap */
    char *doc;             /* heap: the run document (JSON text) */
    char *result;          /* heap or NULL: verdict / final report (JSON) */
    char *state;           /* heap or NULL: live state (JSON), e.g. SPSA theta */
    int priority;
    int64_t seed;
    int64_t pairs_planned;
    int64_t submitted_by;  /* contributor id, 0 = none */
    int64_t created_at_ms, started_at_ms, finished_at_ms;
    store_totals_t totals;
} store_run_t;

/* Frees the strings of one run (not the struct) and zeroes it. */
void store_run_clear(store_run_t *run);
/* Frees an array from store_run_list / store_run_next; sets *runs_p NULL. */
void store_run_list_free(store_run_t **runs_p, size_t n);

/* Inserts a run as pending. Reads kind, name, doc, priority, seed,
 * pairs_planned, submitted_by (0 = none) and, if set, state; the rest is
 * ignored. doc must be valid JSON (else CAPA_EINVAL). */
int store_run_insert(store_t *store, const store_run_t *run, int64_t *id_out);
/* Fills *out (caller clears it with store_run_clear). CAPA_ENOTFOUND if none. */
int store_run_get(store_t *store, int64_t id, store_run_t *out);

typedef struct {
    unsigned status_mask;  /* bit (1u << status); 0 = every status */
    unsigned kind_mask;    /* bit (1u << kind); 0 = every kind */
    bool with_doc;         /* also fetch doc/result/state (else they are NULL) */
    size_t limit;          /* 0 = 100 */
    size_t offset;
} store_run_filter_t;

/* Runs newest first. *runs_p is a heap array (store_run_list_free). */
int store_run_list(store_t *store, const store_run_filter_t *filter,
                   store_run_t **runs_p, size_t *n_out);
/* The runs to hand out work for: pending or running, highest priority first,
 * then oldest; with documents. *runs_p as store_run_list. */
int store_run_next(store_t *store, size_t limit, store_run_t **runs_p, size_t *n_out);

/* Moves a run to status. running sets started_at (once); finished, stopped and
 * failed set finished_at and cancel the run's active tasks. A finished or
 * failed run cannot change (CAPA_ESTATE); a stopped one can run again. */
int store_run_set_status(store_t *store, int64_t id, store_run_status_t status);
/* Sets the result JSON (NULL clears it). */
int store_run_set_result(store_t *store, int64_t id, const char *result_json);
/* Sets the live state JSON (NULL clears it). */
int store_run_set_state(store_t *store, int64_t id, const char *state_json);
/* One transaction: status (a terminal one) plus result. */
int store_run_finish(store_t *store, int64_t id, store_run_status_t status,
                     const char *result_json);

/* ---- tasks = leases (store_tasks.c) --------------------------------------- */

typedef enum {
    STORE_TASK_ACTIVE = 0,
    STORE_TASK_DONE = 1,
    STORE_TASK_EXPIRED = 2,
    STORE_TASK_CANCELLED = 3
} store_task_status_t;

typedef struct {
    int64_t id;
    int64_t run_id;
    char worker_id[STORE_ID_MAX];
    int64_t first_pair, last_pair;   /* the lease: pair numbers first..last */
    store_task_status_t status;
    int64_t issued_at_ms, expires_at_ms, ended_at_ms;
} store_task_t;

/* A range of a run's pair numbers; task_id is the task it came from (0 if
 * none). */
typedef struct {
    int64_t task_id;
    int64_t run_id;
    int64_t first, last;
} store_range_t;

/* Creates an active task leasing pairs first..last of run_id to worker_id,
 * expiring ttl_ms from now (database clock). CAPA_ENOTFOUND if the run or
 * worker does not exist, CAPA_ERANGE for a bad range or a pair number at or
 * beyond the run's pairs_planned, CAPA_ESTATE if the run is not pending or
 * running, CAPA_EDUP if an active task of the run overlaps the range. */
int store_task_create(store_t *store, int64_t run_id, const char *worker_id,
                      int64_t first, int64_t last, int64_t ttl_ms, int64_t *task_id_out);
/* Fills *out. CAPA_ENOTFOUND if none. */
int store_task_get(store_t *store, int64_t task_id, store_task_t *out);
/* Moves an active task's expiry to ttl_ms from now. CAPA_ESTATE if it is no
 * longer active, CAPA_ENOTFOUND if it does not exist. */
int store_task_extend(store_t *store, int64_t task_id, int64_t ttl_ms);
/* Extends every active task of a worker (a heartbeat); *n_out (may be NULL)
 * gets how many. */
int store_task_extend_worker(store_t *store, const char *worker_id, int64_t ttl_ms,
                             size_t *n_out);
/* Marks an active task done. CAPA_ESTATE if it is not active. */
int store_task_done(store_t *store, int64_t task_id);
/* Ends one active task now (the worker said BYE or died) as expired and
 * returns its pair ranges with no stored pair (heap array, free(); may be
 * empty). CAPA_ESTATE if it was not active. */
int store_task_expire(store_t *store, int64_t task_id, store_range_t **ranges_p,
                      size_t *n_out);
/* Ends every active task of a worker as expired; returns the unstored ranges. */
int store_task_expire_worker(store_t *store, const char *worker_id,
                             store_range_t **ranges_p, size_t *n_out);
/* Ends every active task past its expiry (database clock) as expired and
 * returns their unstored pair ranges, ordered by run and pair number. */
int store_task_expire_due(store_t *store, store_range_t **ranges_p, size_t *n_out);
/* The active tasks (at start-up), oldest first. Heap array, free(). */
int store_task_list_active(store_t *store, store_task_t **tasks_p, size_t *n_out);
/* The unstored pair ranges of one task (any status), e.g. of an active lease
 * after a restart. Heap array, free(). */
int store_task_unstored(store_t *store, int64_t task_id, store_range_t **ranges_p,
                        size_t *n_out);

/* ---- pairs (store_pairs.c) ------------------------------------------------ */

/* Game results from White's view, in half points. */
#define STORE_BLACK_WINS 0
#define STORE_DRAW 1
#define STORE_WHITE_WINS 2

/* One pair to store. Strings are borrowed (the caller keeps them). B is the
 * side under test; score is B's half points over the two games (0..4 quarter
 * points of a pair) and must agree with the results (else CAPA_EINVAL). */
typedef struct {
    int64_t pair_no;
    int64_t task_id;           /* 0 = none */
    const char *worker_id;     /* NULL = none */
    const char *fen;           /* start of game 1 */
    const char *fen2;          /* start of game 2; NULL = fen */
    const char *imbalance;     /* values runs: the imbalance label; else NULL */
    int result[2];             /* STORE_BLACK_WINS / STORE_DRAW / STORE_WHITE_WINS */
    bool b_white[2];           /* did B have White in game i (exactly one true) */
    const char *end[2];        /* termination reasons */
    int plies[2];
    const char *moves[2];      /* optional UCI move lists; NULL = not kept */
    int score;                 /* 0..4 */
    int64_t cpu_ms;
} store_pair_t;

/* Stores a batch of pairs of one run in one statement (one round trip, one
 * transaction that also updates the runs' and the workers' counters),
 * committed before it returns. Each pair number is counted once: new_p[i]
 * (caller array of n, may be NULL) is true for pairs stored and counted now
 * and false for pairs already there (a replay: acknowledge again, counted
 * once). *n_new (may be NULL) gets how many were new. A pair number twice in
 * one batch or a pair whose score disagrees with its results is CAPA_EINVAL
 * and nothing is stored. Pairs of a flagged worker are stored excluded, once
 * per worker and number: never new, and they leave the number free (it is
 * still to be played). n may be 0. */
int store_insert_pairs(store_t *store, int64_t run_id, const store_pair_t *pairs, size_t n,
                       bool *new_p, size_t *n_new);

/* Several batches (e.g. every RESULT that arrived in one turn of the
 * coordinator's loop, of any runs) stored by ONE statement: one round trip
 * and one commit (one disk flush) for all, committed before it returns. Each
 * batch gets its own outcome in rc / n_new / new_p, exactly as if the
 * batches had gone one by one through store_insert_pairs (a pair number in
 * two batches is new in the first, a duplicate in the second). A batch
 * refused before it reaches the server (CAPA_EINVAL, ...) is skipped; if the
 * server refuses the statement (an unknown run or worker, say), the batches
 * are stored one by one so the good ones still land. Returns 0 if every
 * batch was stored, else the first failing batch's error (see each rc). */
typedef struct {
    int64_t run_id;
    const store_pair_t *pairs;   /* borrowed */
    size_t n;
    bool *new_p;                 /* caller array of n, may be NULL */
    size_t n_new;                /* out */
    int rc;                      /* out: 0 or the batch's error */
} store_batch_t;

int store_insert_batches(store_t *store, store_batch_t *batches, size_t n);

/* The run's stored, counted (non-excluded) pair numbers as sorted disjoint
 * ranges (task_id 0), to rebuild the scheduler's pool after a restart or a
 * flag. Heap array, free(). */
int store_pairs_stored(store_t *store, int64_t run_id, store_range_t **ranges_p,
                       size_t *n_out);
/* The run's counters (cheap: one row). */
int store_run_totals(store_t *store, int64_t run_id, store_totals_t *out);
/* The same figures recounted from the pairs table. */
int store_run_recount(store_t *store, int64_t run_id, store_totals_t *out);

/* A stored pair as read back (flat copy). */
typedef struct {
    int64_t pair_no;
    int64_t task_id;                     /* 0 = none */
    char worker_id[STORE_ID_MAX];        /* "" = none */
    char fen[STORE_TEXT_MAX];
    char fen2[STORE_TEXT_MAX];           /* "" = same as fen */
    char imbalance[STORE_TEXT_MAX];      /* "" = none */
    int result[2];
    bool b_white[2];
    char end[2][STORE_TEXT_MAX];
    int plies[2];
    int score;
    int64_t cpu_ms;
    int64_t stored_at_ms;
    bool excluded;
    int verified;                        /* -1 never checked, 0 mismatch, 1 reproduced */
} store_pair_row_t;

/* Pairs of a run with pair_no >= from, in order, for at most limit (0 =
 * 1000) pair numbers: every row of each, the counted one first, then the
 * excluded ones in the order they were excluded. So the next page starts at
 * the last pair_no + 1, and may hold more than limit rows. Moves are not
 * returned. Heap array, free(). */
int store_pairs_list(store_t *store, int64_t run_id, int64_t from, size_t limit,
                     store_pair_row_t **rows_p, size_t *n_out);
/* Records a verification replay of one pair by another worker: on the
 * number's counted pair, or, if there is none, on the one excluded last (its
 * worker was flagged while the verdict was on its way to the store; the
 * coordinator records no verdicts on pairs of workers flagged before). */
int store_pair_set_verified(store_t *store, int64_t run_id, int64_t pair_no, bool reproduced,
                            const char *by_worker);

/* Games of a values run by imbalance and by B's colour, from B's side. */
typedef struct {
    char imbalance[STORE_TEXT_MAX];
    bool b_white;
    int64_t wins, draws, losses;
} store_imbalance_t;

/* The counted pairs of a values run summed up by kind: imbalance, which
 * game B had White in, both results, (buckets > 1) which of `buckets`
 * equal slices of the pair numbers 0..max they fall in (0 otherwise), the
 * file of a single pawn missing from the start array, how many more
 * unprotected pawns B started with and how many more pawns B missed from
 * its king's shelter. One aggregate
 * query; what the piece-value fit needs, whatever the run's size. */
typedef struct {
    char imbalance[STORE_TEXT_MAX];
    bool b_white[2];
    int result[2];                    /* White's half points per game */
    int bucket;
    int stratum;                      /* 1..10: the file (a..j) of the one pawn
                                       * missing from one side's start array; 0 when
                                       * no pawn or more than one is missing */
    int unprot;                       /* B's start pawns no piece protects minus A's
                                       * (pairs.unprotected, sql/005) */
    double shelter;                   /* B's pawns missing from its king's file and
                                       * the files beside it beyond chance, minus A's
                                       * (pairs.shelter, sql/006) */
    int64_t count;
} store_pair_type_t;

/* Heap array, free(). */
int store_pair_types(store_t *store, int64_t run_id, int buckets, store_pair_type_t **rows_p,
                     size_t *n_out);

/* Round moments of a values run (stats_values.h, stats_rounds_t): for each
 * round and class (the imbalance and the pairs' unprotected-pawn and
 * king's-shelter differences, as store_pair_types gives them) N = its counted pairs, A = White's half
 * points and S = B's half points over their games; one row per ordered pair
 * of classes (cls[0], cls[1]) that meet in a round, with the sums over those
 * rounds of the nine products m[x][y] = X_j Y_l (x, y: 0 N, 1 A, 2 S; A and
 * S in half points). A pair's round comes from its number by the run's
 * round segments (startpos_round_segments: segment s starts at pair
 * first_pair[s], round first_round[s], width[s] pairs a round). One
 * aggregate query, whose result does not grow with the pairs. */
typedef struct {
    char cls[2][STORE_TEXT_MAX];      /* the imbalances */
    int unprot[2];                    /* and the unprotected-pawn differences */
    double shelter[2];                /* and the king's-shelter differences */
    int64_t m[3][3];
} store_round_moment_t;

/* Heap array (free()) ordered by the classes, and *rounds: the rounds with a
 * counted pair. */
int store_round_moments(store_t *store, int64_t run_id, const int64_t *first_pair,
                        const int64_t *first_round, const int64_t *width, int segments,
                        store_round_moment_t **rows_p, size_t *n_out, int64_t *rounds);

/* Heap array ordered by imbalance then colour (Black first), free(). */
int store_imbalance_games(store_t *store, int64_t run_id, store_imbalance_t **rows_p,
                          size_t *n_out);

/* How the counted games of a run ended ("mate", "adjudication_resign", ...),
 * most first: a heap array the caller frees. */
typedef struct {
    char end[64];
    int64_t games;
} store_ending_t;

int store_run_endings(store_t *store, int64_t run_id, store_ending_t **rows_p, size_t *n_out);

/* The engines a run's counted pairs were played with, as JSON text
 * [{"bench", "version", "pairs"}], most pairs first ("[]" without pairs):
 * the bench signature and version each pair kept (sql/007; bench 0 and
 * version "" for pairs stored without a worker). *json_p: heap, free(). */
int store_run_engines(store_t *store, int64_t run_id, char **json_p);

/* ---- contributors and workers (store_workers.c) --------------------------- */

typedef struct {
    int64_t id;
    char name[STORE_TEXT_MAX];
    char token_hash[STORE_HASH_MAX];
    bool is_admin;
    int64_t created_at_ms, revoked_at_ms;    /* revoked_at 0 = valid */
    int64_t workers, pairs, games, cpu_ms;   /* accounting over its workers */
} store_contributor_t;

/* Adds a contributor. token_hash is the hex digest of the token (the token
 * itself is never given to the store); CAPA_EINVAL if it is not 32..128
 * lower-case hex digits or the name is empty or too long, CAPA_EDUP if the
 * name or the hash exists. */
int store_contributor_add(store_t *store, const char *name, const char *token_hash,
                          bool is_admin, int64_t *id_out);
/* Looks a token hash up. CAPA_ENOTFOUND if unknown; CAPA_EAUTH if revoked
 * (*out is filled either way when found). */
int store_contributor_by_token(store_t *store, const char *token_hash,
                               store_contributor_t *out);
int store_contributor_get(store_t *store, int64_t id, store_contributor_t *out);
/* Revokes the contributor's token (idempotent). CAPA_ENOTFOUND if none. */
int store_contributor_revoke(store_t *store, int64_t id);
/* Replaces the contributor's token hash (rotation; see bootstrap.h).
 * CAPA_ENOTFOUND if none, CAPA_EDUP if another contributor has this hash. */
int store_contributor_set_token(store_t *store, int64_t id, const char *token_hash);
/* All contributors by id, with accounting. Heap array, free(). */
int store_contributor_list(store_t *store, store_contributor_t **list_p, size_t *n_out);

/* The contributors page (fishtest's users page): per contributor, over all
 * time and over the last `days` days. */
typedef struct {
    int64_t id;
    char name[STORE_TEXT_MAX];
    bool is_admin, revoked;
    int64_t workers;              /* ever registered */
    int64_t active_workers;       /* seen in the last live_seconds */
    int64_t last_seen_ms;         /* newest last_seen of its workers; 0 = never */
    int64_t created_at_ms;
    int64_t pairs, games, cpu_ms; /* all time (the workers' accounting) */
    int64_t recent_pairs, recent_games, recent_cpu_ms;  /* pairs stored in the window */
} store_contributor_stats_t;

/* Every contributor by id. The window counts pairs by stored_at (excluded
 * pairs too, as the all-time accounting does; two games per pair). Heap
 * array, free(). */
int store_contributor_stats(store_t *store, int live_seconds, int days,
                            store_contributor_stats_t **list_p, size_t *n_out);

typedef struct {
    char id[STORE_ID_MAX];
    int64_t contributor_id;
    char name[STORE_TEXT_MAX];
    char *host_info;            /* heap or NULL: JSON object (read); borrowed on upsert */
    int cores, concurrency;
    char engine_version[STORE_TEXT_MAX];
    int64_t bench_signature;
    double nps;
    int64_t first_seen_ms, last_seen_ms;
    bool flagged;
    char flag_reason[STORE_TEXT_MAX];
    int64_t pairs, games, cpu_ms;
} store_worker_t;

/* On HELLO: inserts the worker or updates its details and last_seen. Reads id,
 * contributor_id, name, host_info (NULL = none), cores, concurrency,
 * engine_version, bench_signature, nps. CAPA_EAUTH if the id belongs to
 * another contributor. */
int store_worker_upsert(store_t *store, const store_worker_t *worker);
/* Fills *out (free out->host_info). CAPA_ENOTFOUND if none. */
int store_worker_get(store_t *store, const char *id, store_worker_t *out);
/* Updates last_seen. */
int store_worker_seen(store_t *store, const char *id);
/* Flags a worker whose games do not reproduce: its stored pairs become
 * excluded (kept, with excluded_at; the runs' counters drop them; their pair
 * numbers are no longer stored, see store_pairs_stored) and later ones are
 * stored excluded. *n_excluded (may be NULL) gets how many pairs were
 * excluded now. */
int store_worker_flag(store_t *store, const char *id, const char *reason, size_t *n_excluded);
/* Workers, most recently seen first; contributor_id 0 = all. Heap array; free
 * with store_worker_list_free. */
int store_worker_list(store_t *store, int64_t contributor_id, store_worker_t **list_p,
                      size_t *n_out);
void store_worker_list_free(store_worker_t **list_p, size_t n);

/* ---- figures for /health and /metrics (store_reports.c) ----------------- */

typedef struct {
    int64_t runs[5];            /* by store_run_status_t */
    int64_t pairs_remaining;    /* planned minus stored, over pending and running runs */
    int64_t pairs_total, cpu_ms_total;  /* stored pairs and their CPU time, all runs */
    int64_t workers;            /* workers ever registered */
    int64_t workers_live;       /* of them, seen in the last live_seconds */
    int64_t contributors;
} store_figures_t;

/* The whole database's figures in one read-only statement. */
int store_figures(store_t *store, int live_seconds, store_figures_t *out);

/* ---- SPSA history, estimates and their history (store_reports.c) -------- */

typedef struct {
    int64_t iteration;
    char *theta;               /* heap: JSON */
    char *info;                /* heap or NULL: JSON */
    int64_t recorded_at_ms;
} store_spsa_step_t;

/* Appends iteration (unique per run: CAPA_EDUP if it exists). theta is JSON;
 * info may be NULL. */
int store_spsa_append(store_t *store, int64_t run_id, int64_t iteration, const char *theta_json,
                      const char *info_json);
/* A run's history in iteration order. Free with store_spsa_list_free. */
int store_spsa_list(store_t *store, int64_t run_id, store_spsa_step_t **steps_p, size_t *n_out);
void store_spsa_list_free(store_spsa_step_t **steps_p, size_t n);

/* Replaces the run's estimate report (JSON) computed from pairs_used pairs
 * and, when the report has a fit (its "values" object), keeps that fit in
 * the run's history (sql/003: one row per pairs_used), in one statement. */
int store_estimate_put(store_t *store, int64_t run_id, int64_t pairs_used, const char *report_json);
/* *report_p: heap JSON text (free()); CAPA_ENOTFOUND if none yet. The two out
 * pointers other than report_p may be NULL. */
int store_estimate_get(store_t *store, int64_t run_id, char **report_p, int64_t *pairs_used,
                       int64_t *computed_at_ms);

/* One stored fit of a values run. */
typedef struct {
    int64_t pairs_used;
    int64_t computed_at_ms;
    char *fit;                 /* heap: JSON, the report's "values" object */
} store_fit_t;
/* A run's fits by pairs_used, evenly thinned to at most about max_rows (the
 * first and the last always kept). Free with store_estimate_history_free. */
int store_estimate_history(store_t *store, int64_t run_id, size_t max_rows, store_fit_t **fits_p,
                           size_t *n_out);
void store_estimate_history_free(store_fit_t **fits_p, size_t n);

#endif
