/* test_store.c - the PostgreSQL store against a real server (ctest fixture
 * "pg"): migrations, idempotent pair batches, totals, leases, reconnects,
 * contributors and workers. Each process works in its own database. */
#include "check.h"
#include "pgtest.h"

#include "err.h"
#include "log.h"
#include "store.h"
#include "store_bulk.h"
#include "startpos.h"
#include "store_games.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>

static char s_conninfo[512];   /* the migrated database of this process */

/* ---- helpers ------------------------------------------------------------- */

static store_t *s_open(void)
{
    char err[256];
    store_t *st = NULL;
    int rc = store_open(s_conninfo, &st, err, sizeof err);
    CHECK_MSG(rc == 0, "store_open: %s", err);
    return st;
}

/* A fresh store on the shared, migrated database (migrated once per process). */
static store_t *s_store(void)
{
    static bool ready;
    if (!ready) {
        CHECK(pgtest_create_db("store", s_conninfo, sizeof s_conninfo) == 0);
        store_t *st = s_open();
        int rc = store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL);
        CHECK_MSG(rc == 0, "migrate: %s", store_last_error(st));
        store_destroy(&st);
        ready = true;
    }
    return s_open();
}

static int64_t s_contributor(store_t *st, const char *name)
{
    /* A hash derived from the name: 64 hex digits. */
    char hash[65];
    unsigned h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char) *p) * 16777619u;
    for (int i = 0; i < 8; i++)
        snprintf(hash + 8 * i, 9, "%08x", h * (unsigned) (i + 1) + (unsigned) i);
    int64_t id = 0;
    int rc = store_contributor_add(st, name, hash, false, &id);
    CHECK_MSG(rc == 0, "contributor_add: %s", store_last_error(st));
    return id;
}

static void s_worker(store_t *st, const char *id, int64_t contributor)
{
    store_worker_t w = { .contributor_id = contributor, .cores = 4, .concurrency = 4,
                         .bench_signature = 4211337, .nps = 1.25e6 };
    snprintf(w.id, sizeof w.id, "%s", id);
    snprintf(w.name, sizeof w.name, "box %s", id);
    snprintf(w.engine_version, sizeof w.engine_version, "capa-engine 0.1.0");
    int rc = store_worker_upsert(st, &w);
    CHECK_MSG(rc == 0, "worker_upsert: %s", store_last_error(st));
}

static int64_t s_run(store_t *st, proto_kind_t kind, int64_t planned)
{
    store_run_t run = { .kind = kind, .name = "test run", .doc = "{\"kind\": \"test\"}",
                        .seed = 42, .pairs_planned = planned };
    int64_t id = 0;
    int rc = store_run_insert(st, &run, &id);
    CHECK_MSG(rc == 0, "run_insert: %s", store_last_error(st));
    return id;
}

/* Pair k with a result pattern from k: B's score cycles through 0..4. */
static store_pair_t s_pair(int64_t k, const char *worker)
{
    static const int res[5][2] = { { 2, 0 }, { 2, 1 }, { 1, 1 }, { 0, 1 }, { 0, 2 } };
    /* Game 1: A has White (b_white false); game 2: B has White. B's score =
     * (2 - r1) + r2; with the table above that is 0, 1, 2, 3, 4 for k % 5. */
    const int *r = res[k % 5];
    store_pair_t p = {
        .pair_no = k, .worker_id = worker,
        .fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
        .result = { r[0], r[1] }, .b_white = { false, true },
        .end = { "checkmate", "adjudication_draw" }, .plies = { 80, 120 },
        .score = (2 - r[0]) + r[1], .cpu_ms = 1000 + k,
    };
    return p;
}

static void s_check_totals_equal(const store_totals_t *a, const store_totals_t *b)
{
    CHECK_EQ_INT(a->pairs, b->pairs);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(a->penta[i], b->penta[i]);
    CHECK_EQ_INT(a->wins, b->wins);
    CHECK_EQ_INT(a->draws, b->draws);
    CHECK_EQ_INT(a->losses, b->losses);
    CHECK_EQ_INT(a->cpu_ms, b->cpu_ms);
}

/* A raw libpq query returning the first value as an integer (-1 on error). */
static long long s_scalar(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    long long v = -1;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
            v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
    }
    PQfinish(c);
    return v;
}

static void s_copy_file(const char *from, const char *to, const char *append)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK(fwrite(buf, 1, n, out) == n);
    if (append)
        fputs(append, out);
    fclose(in);
    fclose(out);
}

/* ---- migrations ------------------------------------------------------------ */

static void migrations_apply_once_and_are_idempotent(void)
{
    char ci[512];
    CHECK(pgtest_create_db("store_mig", ci, sizeof ci) == 0);
    char err[256];
    store_t *st = NULL;
    CHECK(store_open(ci, &st, err, sizeof err) == 0);
    int applied = -1;
    CHECK_MSG(store_migrate(st, CAPA_SOURCE_DIR "/sql", &applied) == 0, "%s",
              store_last_error(st));
    CHECK(applied >= 1);
    long long files = s_scalar(ci, "SELECT count(*) FROM schema_migrations");
    CHECK_EQ_INT(files, applied);
    CHECK(store_migrate(st, CAPA_SOURCE_DIR "/sql", &applied) == 0);
    CHECK_EQ_INT(applied, 0);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM schema_migrations"), files);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pg_tables WHERE tablename = 'pairs'"), 1);
    store_destroy(&st);
    CHECK(st == NULL);
}

static void a_changed_migration_is_refused(void)
{
    char ci[512];
    CHECK(pgtest_create_db("store_changed", ci, sizeof ci) == 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/store_changed_%ld", CAPA_BINARY_DIR, (long) getpid());
    mkdir(dir, 0755);
    char path[512];
    snprintf(path, sizeof path, "%s/001_init.sql", dir);
    s_copy_file(CAPA_SOURCE_DIR "/sql/001_init.sql", path, NULL);

    char err[256];
    store_t *st = NULL;
    CHECK(store_open(ci, &st, err, sizeof err) == 0);
    CHECK_MSG(store_migrate(st, dir, NULL) == 0, "%s", store_last_error(st));
    s_copy_file(CAPA_SOURCE_DIR "/sql/001_init.sql", path, "-- an edit after the fact\n");
    CHECK_EQ_INT(store_migrate(st, dir, NULL), CAPA_ESTATE);
    CHECK(strstr(store_last_error(st), "001_init.sql") != NULL);
    CHECK(strstr(store_last_error(st), "changed") != NULL);

    /* A new numbered file after a clean one is applied; a broken one is not
     * recorded and leaves nothing behind. */
    s_copy_file(CAPA_SOURCE_DIR "/sql/001_init.sql", path, NULL);
    char path2[512];
    snprintf(path2, sizeof path2, "%s/900_broken.sql", dir);
    FILE *f = fopen(path2, "w");
    CHECK(f);
    fputs("CREATE TABLE half_done (x int);\nSELECT no_such_function();\n", f);
    fclose(f);
    CHECK_EQ_INT(store_migrate(st, dir, NULL), CAPA_EDB);
    CHECK(strstr(store_last_error(st), "900_broken.sql") != NULL);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pg_tables WHERE tablename = 'half_done'"), 0);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM schema_migrations WHERE version = 900"), 0);
    unlink(path2);
    CHECK(store_migrate(st, dir, NULL) == 0);
    store_destroy(&st);
    unlink(path);
    rmdir(dir);
}

typedef struct {
    const char *conninfo;
    int rc, applied;
} s_migrator_t;

static void *s_migrate_thread(void *arg)
{
    s_migrator_t *m = arg;
    char err[256];
    store_t *st = NULL;
    m->rc = store_open(m->conninfo, &st, err, sizeof err);
    if (m->rc == 0)
        m->rc = store_migrate(st, CAPA_SOURCE_DIR "/sql", &m->applied);
    store_destroy(&st);
    return NULL;
}

static void two_coordinators_migrating_at_once_apply_each_migration_once(void)
{
    char ci[512];
    CHECK(pgtest_create_db("store_race", ci, sizeof ci) == 0);
    s_migrator_t m[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        m[i] = (s_migrator_t) { .conninfo = ci, .rc = -100, .applied = 0 };
        CHECK(pthread_create(&t[i], NULL, s_migrate_thread, &m[i]) == 0);
    }
    int total = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(m[i].rc, 0);
        total += m[i].applied;
    }
    CHECK_EQ_INT(total, s_scalar(ci, "SELECT count(*) FROM schema_migrations"));
    CHECK(total >= 1);
}

/* ---- pairs ----------------------------------------------------------------- */

static void a_batch_is_stored_once_and_a_replay_is_all_duplicates(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "batch owner");
    s_worker(st, "w-batch", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    store_pair_t p[10];
    for (int i = 0; i < 10; i++)
        p[i] = s_pair(100 + i, "w-batch");
    bool fresh[10];
    size_t n_new = 99;
    CHECK_MSG(store_insert_pairs(st, run, p, 10, fresh, &n_new) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(n_new, 10);
    for (int i = 0; i < 10; i++)
        CHECK(fresh[i]);
    CHECK(store_insert_pairs(st, run, p, 10, fresh, &n_new) == 0);
    CHECK_EQ_INT(n_new, 0);
    for (int i = 0; i < 10; i++)
        CHECK(!fresh[i]);
    store_totals_t t;
    CHECK(store_run_totals(st, run, &t) == 0);
    CHECK_EQ_INT(t.pairs, 10);
    CHECK_EQ_INT(t.penta[0] + t.penta[1] + t.penta[2] + t.penta[3] + t.penta[4], 10);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(t.penta[i], 2);
    CHECK_EQ_INT(t.wins + t.draws + t.losses, 20);
    store_worker_t w;
    CHECK(store_worker_get(st, "w-batch", &w) == 0);
    CHECK_EQ_INT(w.pairs, 10);
    CHECK_EQ_INT(w.games, 20);
    free(w.host_info);
    store_destroy(&st);
}

static void a_partly_replayed_batch_reports_new_and_duplicate_pairs(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    store_pair_t p[6];
    for (int i = 0; i < 6; i++)
        p[i] = s_pair(i, NULL);
    CHECK(store_insert_pairs(st, run, p + 2, 2, NULL, NULL) == 0);   /* pairs 2, 3 */
    /* Out of order on purpose: 5, 3, 0, 2, 4, 1. */
    store_pair_t q[6] = { p[5], p[3], p[0], p[2], p[4], p[1] };
    bool fresh[6];
    size_t n_new;
    CHECK(store_insert_pairs(st, run, q, 6, fresh, &n_new) == 0);
    CHECK_EQ_INT(n_new, 4);
    bool want[6] = { true, false, true, false, true, true };
    for (int i = 0; i < 6; i++)
        CHECK_MSG(fresh[i] == want[i], "pair %lld: fresh %d", (long long) q[i].pair_no, fresh[i]);
    store_totals_t t;
    CHECK(store_run_totals(st, run, &t) == 0);
    CHECK_EQ_INT(t.pairs, 6);
    store_destroy(&st);
}

static void a_bad_batch_stores_nothing(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    store_pair_t p[3] = { s_pair(1, NULL), s_pair(2, NULL), s_pair(1, NULL) };
    CHECK_EQ_INT(store_insert_pairs(st, run, p, 3, NULL, NULL), CAPA_EINVAL);
    CHECK(strstr(store_last_error(st), "twice") != NULL);
    p[2] = s_pair(3, NULL);
    p[2].score = (p[2].score + 1) % 5;
    CHECK_EQ_INT(store_insert_pairs(st, run, p, 3, NULL, NULL), CAPA_EINVAL);
    p[2] = s_pair(3, NULL);
    p[2].b_white[0] = true;
    CHECK_EQ_INT(store_insert_pairs(st, run, p, 3, NULL, NULL), CAPA_EINVAL);
    /* A value only the schema rejects (a too long FEN) aborts the whole batch. */
    char fen[300];
    memset(fen, 'p', sizeof fen - 1);
    fen[sizeof fen - 1] = '\0';
    p[2] = s_pair(3, NULL);
    p[2].fen = fen;
    CHECK_EQ_INT(store_insert_pairs(st, run, p, 3, NULL, NULL), CAPA_EINVAL);
    /* Unknown run and unknown worker. */
    p[2] = s_pair(3, NULL);
    CHECK_EQ_INT(store_insert_pairs(st, run + 100000, p, 3, NULL, NULL), CAPA_ENOTFOUND);
    p[2].worker_id = "nobody";
    CHECK_EQ_INT(store_insert_pairs(st, run, p, 3, NULL, NULL), CAPA_ENOTFOUND);
    store_totals_t t;
    CHECK(store_run_totals(st, run, &t) == 0);
    CHECK_EQ_INT(t.pairs, 0);
    store_range_t *r;
    size_t n;
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 0);
    CHECK(store_insert_pairs(st, run, p, 0, NULL, NULL) == 0);
    store_destroy(&st);
}

static void batches_share_a_commit_and_a_bad_one_spoils_nothing(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "group commit");
    s_worker(st, "w-group", c);
    int64_t run1 = s_run(st, PROTO_KIND_SPRT, 1000), run2 = s_run(st, PROTO_KIND_SPRT, 1000);
    store_pair_t a[3], b[2], dup[2], bad[2], ghost[1];
    for (int i = 0; i < 3; i++)
        a[i] = s_pair(i, "w-group");
    for (int i = 0; i < 2; i++) {
        b[i] = s_pair(i, "w-group");          /* same numbers, another run */
        dup[i] = s_pair(i, "w-group");        /* pair 0 and 1 of run 1 again */
        bad[i] = s_pair(50 + i, "w-group");
    }
    bad[1].score = (bad[1].score + 1) % 5;    /* refused before the server sees it */
    ghost[0] = s_pair(60, "no-such-worker");  /* refused by the server (foreign key) */
    bool fa[3], fb[2], fd[2];
    store_batch_t batches[] = {
        { .run_id = run1, .pairs = a, .n = 3, .new_p = fa },
        { .run_id = run2, .pairs = b, .n = 2, .new_p = fb },
        { .run_id = run1, .pairs = bad, .n = 2 },
        { .run_id = run1, .pairs = dup, .n = 2, .new_p = fd },
    };
    CHECK_EQ_INT(store_insert_batches(st, batches, 4), CAPA_EINVAL);
    CHECK_EQ_INT(batches[0].rc, 0);
    CHECK_EQ_INT(batches[0].n_new, 3);
    CHECK(fa[0] && fa[1] && fa[2]);
    CHECK_EQ_INT(batches[1].rc, 0);
    CHECK_EQ_INT(batches[1].n_new, 2);
    CHECK_EQ_INT(batches[2].rc, CAPA_EINVAL);
    CHECK_EQ_INT(batches[3].rc, 0);
    CHECK_EQ_INT(batches[3].n_new, 0);    /* stored by batch 0 in the same transaction */
    CHECK(!fd[0] && !fd[1]);

    /* The server refuses one: the others are still stored, each on its own. */
    store_pair_t more[2] = { s_pair(10, "w-group"), s_pair(11, "w-group") };
    store_batch_t second[] = {
        { .run_id = run1, .pairs = more, .n = 2 },
        { .run_id = run1, .pairs = ghost, .n = 1 },
        { .run_id = run1, .pairs = a, .n = 3 },
    };
    CHECK_EQ_INT(store_insert_batches(st, second, 3), CAPA_ENOTFOUND);
    CHECK_EQ_INT(second[0].rc, 0);
    CHECK_EQ_INT(second[0].n_new, 2);
    CHECK_EQ_INT(second[1].rc, CAPA_ENOTFOUND);
    CHECK_EQ_INT(second[2].rc, 0);
    CHECK_EQ_INT(second[2].n_new, 0);
    store_totals_t t1, r1, t2;
    CHECK(store_run_totals(st, run1, &t1) == 0);
    CHECK(store_run_recount(st, run1, &r1) == 0);
    s_check_totals_equal(&t1, &r1);
    CHECK_EQ_INT(t1.pairs, 5);
    CHECK(store_run_totals(st, run2, &t2) == 0);
    CHECK_EQ_INT(t2.pairs, 2);
    store_destroy(&st);
}

static void totals_equal_a_recount_of_the_pairs(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "recount");
    s_worker(st, "w-good", c);
    s_worker(st, "w-bad", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 100000);
    /* Batches of varying size with overlaps (replays), from two workers. */
    uint64_t x = 88172645463325252ull;
    store_pair_t batch[64];
    for (int b = 0; b < 60; b++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t start = (int64_t) (x % 900);
        int len = 1 + (int) ((x >> 20) % 64);
        for (int i = 0; i < len; i++) {
            batch[i] = s_pair(start + i, (b % 3 == 0) ? "w-bad" : "w-good");
            /* Vary the results beyond k % 5 too. */
            if ((x >> (i % 40)) & 1) {
                batch[i].result[0] = 1;
                batch[i].result[1] = 1;
                batch[i].score = 2;
            }
        }
        CHECK_MSG(store_insert_pairs(st, run, batch, (size_t) len, NULL, NULL) == 0, "%s",
                  store_last_error(st));
    }
    store_totals_t kept, recount;
    CHECK(store_run_totals(st, run, &kept) == 0);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    CHECK(kept.pairs > 100);
    CHECK_EQ_INT(kept.wins + kept.draws + kept.losses, 2 * kept.pairs);

    /* Flagging a worker takes its pairs out of both. */
    size_t excluded = 0;
    CHECK(store_worker_flag(st, "w-bad", "games do not reproduce", &excluded) == 0);
    CHECK(excluded > 0);
    CHECK(store_run_totals(st, run, &kept) == 0);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(kept.pairs + (int64_t) excluded, s_scalar(s_conninfo, sql));
    /* Later pairs of the flagged worker are stored, excluded: never new
     * (they count for nothing), and stored once however often they come. */
    store_pair_t late = s_pair(99999, "w-bad");
    size_t n_new;
    for (int i = 0; i < 2; i++) {
        CHECK(store_insert_pairs(st, run, &late, 1, NULL, &n_new) == 0);
        CHECK_EQ_INT(n_new, 0);
    }
    char late_sql[256];
    snprintf(late_sql, sizeof late_sql, "SELECT count(*) FROM pairs WHERE run_id = %lld"
             " AND pair_no = 99999 AND worker_id = 'w-bad' AND excluded AND excluded_at IS NOT NULL",
             (long long) run);
    CHECK_EQ_INT(s_scalar(s_conninfo, late_sql), 1);
    store_totals_t after;
    CHECK(store_run_totals(st, run, &after) == 0);
    CHECK_EQ_INT(after.pairs, kept.pairs);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&after, &recount);
    store_worker_t w;
    CHECK(store_worker_get(st, "w-bad", &w) == 0);
    CHECK(w.flagged);
    CHECK_EQ_STR(w.flag_reason, "games do not reproduce");
    free(w.host_info);
    store_destroy(&st);
}

/* A flagged worker's pairs stay stored, excluded, but give their numbers
 * back: the stored set, a lease's unstored pairs and the counters drop them;
 * another worker's replay of the number counts (once) beside them; the
 * flagged worker's resends are stored once and never new. */
static void an_excluded_pair_gives_its_number_back_and_stays_kept(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "excluded owner");
    s_worker(st, "x-liar", c);
    s_worker(st, "x-honest", c);
    s_worker(st, "x-judge", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 10);
    int64_t task = 0;
    CHECK(store_task_create(st, run, "x-liar", 0, 4, 3600 * 1000, &task) == 0);
    store_pair_t lie[5], good[10];
    for (int i = 0; i < 5; i++) {
        lie[i] = s_pair(i, "x-liar");
        lie[i].task_id = task;
        /* B won both games, always. */
        lie[i].result[0] = 0;
        lie[i].result[1] = 2;
        lie[i].score = 4;
    }
    for (int i = 0; i < 10; i++)
        good[i] = s_pair(i, "x-honest");
    size_t n_new = 0;
    CHECK(store_insert_pairs(st, run, lie, 5, NULL, &n_new) == 0);
    CHECK_EQ_INT(n_new, 5);
    CHECK(store_insert_pairs(st, run, good + 5, 5, NULL, &n_new) == 0);
    CHECK_EQ_INT(n_new, 5);
    store_range_t *r;
    size_t n;
    CHECK(store_task_unstored(st, task, &r, &n) == 0);
    CHECK_EQ_INT(n, 0);
    free(r);

    size_t excluded = 0;
    CHECK(store_worker_flag(st, "x-liar", "games do not reproduce", &excluded) == 0);
    CHECK_EQ_INT(excluded, 5);
    /* Numbers 0..4 are free again: for the pool and for the liar's lease. */
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 5);
    CHECK_EQ_INT(r[0].last, 9);
    free(r);
    CHECK(store_task_unstored(st, task, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 0);
    CHECK_EQ_INT(r[0].last, 4);
    free(r);
    store_totals_t kept, recount;
    CHECK(store_run_totals(st, run, &kept) == 0);
    CHECK_EQ_INT(kept.pairs, 5);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    /* A replay judged while only the excluded pair holds number 4 is the
     * excluded pair's. */
    CHECK(store_pair_set_verified(st, run, 4, false, "x-judge") == 0);

    /* One statement: the liar resends (first), the honest worker replays
     * 0..4. Only the replays are new, and they are attributed right. */
    bool liar_new[5], good_new[5];
    store_batch_t b[2] = {
        { .run_id = run, .pairs = lie, .n = 5, .new_p = liar_new },
        { .run_id = run, .pairs = good, .n = 5, .new_p = good_new },
    };
    CHECK_MSG(store_insert_batches(st, b, 2) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(b[0].n_new, 0);
    CHECK_EQ_INT(b[1].n_new, 5);
    for (int i = 0; i < 5; i++)
        CHECK(!liar_new[i] && good_new[i]);
    /* And again: all duplicates. */
    CHECK(store_insert_batches(st, b, 2) == 0);
    CHECK_EQ_INT(b[0].n_new + b[1].n_new, 0);

    /* Exactly the planned pairs count, each once; the lies are kept. */
    CHECK(store_run_totals(st, run, &kept) == 0);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    CHECK_EQ_INT(kept.pairs, 10);
    CHECK_EQ_INT(kept.penta[4], 2);   /* s_pair: B scores 4 on pairs 4 and 9 only */
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 0);
    CHECK_EQ_INT(r[0].last, 9);
    free(r);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(s_scalar(s_conninfo, sql), 15);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND excluded"
             " AND worker_id = 'x-liar' AND excluded_at IS NOT NULL AND score = 4",
             (long long) run);
    CHECK_EQ_INT(s_scalar(s_conninfo, sql), 5);
    /* Accounting: every pair played once per worker, resends not again. */
    CHECK_EQ_INT(s_scalar(s_conninfo, "SELECT count(*) FROM workers w JOIN worker_stats_recount s"
                                      " ON s.worker_id = w.id WHERE w.id LIKE 'x-%'"
                                      " AND (w.pairs, w.games, w.cpu_ms) = (s.pairs, s.games,"
                                      " s.cpu_ms)"), 3);
    store_worker_t w;
    CHECK(store_worker_get(st, "x-liar", &w) == 0);
    CHECK_EQ_INT(w.pairs, 5);
    free(w.host_info);

    /* A page covers whole pair numbers: the counted pair first. */
    store_pair_row_t *rows;
    CHECK(store_pairs_list(st, run, 3, 2, &rows, &n) == 0);
    CHECK_EQ_INT(n, 4);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(rows[i].pair_no, 3 + (int64_t) i / 2);
        CHECK_EQ_INT(rows[i].excluded, i % 2 == 1);
        CHECK_EQ_STR(rows[i].worker_id, i % 2 ? "x-liar" : "x-honest");
    }
    /* The verdict on 4 stayed on the liar's pair; a new one goes to the
     * counted pair. */
    CHECK_EQ_INT(rows[3].verified, 0);
    CHECK_EQ_INT(rows[2].verified, -1);
    free(rows);
    CHECK(store_pair_set_verified(st, run, 3, true, "x-judge") == 0);
    CHECK(store_pairs_list(st, run, 3, 1, &rows, &n) == 0);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(rows[0].verified, 1);
    CHECK_EQ_INT(rows[1].verified, -1);
    free(rows);
    store_destroy(&st);
}

/* A database migrated before sql/002 keeps its excluded pairs through it;
 * they get when they were excluded and free their numbers. */
static void excluded_pairs_of_an_older_database_free_their_numbers(void)
{
    char ci[512];
    CHECK(pgtest_create_db("store_002", ci, sizeof ci) == 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%s/store_002_%ld", CAPA_BINARY_DIR, (long) getpid());
    mkdir(dir, 0755);
    char one[512], two[512];
    snprintf(one, sizeof one, "%s/001_init.sql", dir);
    snprintf(two, sizeof two, "%s/002_excluded_pairs_free_their_numbers.sql", dir);
    s_copy_file(CAPA_SOURCE_DIR "/sql/001_init.sql", one, NULL);
    char err[256];
    store_t *st = NULL;
    CHECK(store_open(ci, &st, err, sizeof err) == 0);
    CHECK_MSG(store_migrate(st, dir, NULL) == 0, "%s", store_last_error(st));
    int64_t c = 0;
    CHECK(store_contributor_add(st, "old", "0123456789abcdef0123456789abcdef", false, &c) == 0);
    s_worker(st, "old-liar", c);
    s_worker(st, "old-honest", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 4);
    /* Pairs 0, 1 of a worker flagged the old way (excluded in place), 2, 3
     * of another, as 001 stored them. */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "WITH f AS (UPDATE workers SET flagged = true, flagged_at = now() - interval '1 hour'"
             "  WHERE id = 'old-liar' RETURNING id),"
             " i AS (INSERT INTO pairs (run_id, pair_no, worker_id, fen, result1, result2,"
             "  b_white1, b_white2, end1, end2, plies1, plies2, score, excluded)"
             "  SELECT %lld, k, CASE WHEN k < 2 THEN 'old-liar' ELSE 'old-honest' END, 'f', 1, 1,"
             "  false, true, 'draw', 'draw', 10, 10, 2, k < 2 FROM generate_series(0, 3) k"
             "  RETURNING 1)"
             " SELECT (SELECT count(*) FROM f) * 10 + (SELECT count(*) FROM i)", (long long) run);
    CHECK_EQ_INT(s_scalar(ci, sql), 14);
    s_copy_file(CAPA_SOURCE_DIR "/sql/002_excluded_pairs_free_their_numbers.sql", two, NULL);
    int applied = 0;
    CHECK_MSG(store_migrate(st, dir, &applied) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(applied, 1);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pairs p JOIN workers w ON w.id = p.worker_id"
                              " WHERE p.excluded AND p.excluded_at = w.flagged_at"
                              " AND p.slot = 'old-liar'"), 2);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pairs WHERE NOT excluded AND slot = ''"
                              " AND excluded_at IS NULL"), 2);
    store_range_t *r;
    size_t n;
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 2);
    CHECK_EQ_INT(r[0].last, 3);
    free(r);
    /* the rest of the migrations, as a coordinator applies them at start,
     * before today's code stores into the old database */
    DIR *sd = opendir(CAPA_SOURCE_DIR "/sql");
    CHECK(sd != NULL);
    char later[64][512];
    int n_later = 0;
    for (struct dirent *de; sd && (de = readdir(sd)) != NULL && n_later < 64;)
        if (strlen(de->d_name) > 4 && strcmp(de->d_name + strlen(de->d_name) - 4, ".sql") == 0 &&
            strcmp(de->d_name, "003") >= 0) {
            char from[512];
            snprintf(from, sizeof from, "%s/sql/%s", CAPA_SOURCE_DIR, de->d_name);
            snprintf(later[n_later], sizeof later[n_later], "%s/%s", dir, de->d_name);
            s_copy_file(from, later[n_later++], NULL);
        }
    if (sd)
        closedir(sd);
    CHECK_MSG(store_migrate(st, dir, &applied) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(applied, n_later);
    size_t n_new = 0;
    store_pair_t again[2] = { s_pair(0, "old-honest"), s_pair(1, "old-honest") };
    CHECK(store_insert_pairs(st, run, again, 2, NULL, &n_new) == 0);
    CHECK_EQ_INT(n_new, 2);
    /* sql/007: the old pairs got their worker's engine, new ones keep the
     * engine their worker reports when they are stored */
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pairs WHERE engine_bench = 4211337"
                              " AND engine_version = 'capa-engine 0.1.0'"), 6);
    CHECK(s_scalar(ci, "UPDATE workers SET bench_signature = 99 WHERE id = 'old-honest' RETURNING 1") == 1);
    CHECK_EQ_INT(s_scalar(ci, "SELECT count(*) FROM pairs WHERE engine_bench = 99"), 0);
    store_totals_t t;
    CHECK(store_run_recount(st, run, &t) == 0);
    CHECK_EQ_INT(t.pairs, 4);
    store_destroy(&st);
    unlink(one);
    unlink(two);
    for (int i = 0; i < n_later; i++)
        unlink(later[i]);
    rmdir(dir);
}

typedef struct {
    int64_t run;
    int seed;
    size_t stored;   /* pairs this thread's calls reported new */
    int rc;
} s_racer_t;

static void *s_race_thread(void *arg)
{
    s_racer_t *r = arg;
    char err[256];
    store_t *st = NULL;
    r->rc = store_open(s_conninfo, &st, err, sizeof err);
    uint32_t x = 2463534242u + (uint32_t) r->seed * 7919u;
    store_pair_t p[32];
    for (int b = 0; b < 40 && r->rc == 0; b++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int64_t start = (int64_t) (x % 200);
        int len = 1 + (int) ((x >> 8) % 32);
        for (int i = 0; i < len; i++)   /* odd threads send their pairs backwards */
            p[i] = s_pair(r->seed % 2 ? start + len - 1 - i : start + i, "w-race");
        size_t n_new = 0;
        if (b % 2) {
            r->rc = store_insert_pairs(st, r->run, p, (size_t) len, NULL, &n_new);
            r->stored += n_new;
        } else {
            /* The same pairs in two batches of one group commit. */
            store_batch_t g[2] = { { .run_id = r->run, .pairs = p, .n = (size_t) len },
                                   { .run_id = r->run, .pairs = p, .n = (size_t) len } };
            r->rc = store_insert_batches(st, g, 2);
            r->stored += g[0].n_new + g[1].n_new;
            if (g[1].n_new != 0)
                r->rc = -1000;
        }
    }
    store_destroy(&st);
    return NULL;
}

static void racing_stores_count_each_pair_once(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "racer");
    s_worker(st, "w-race", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    s_racer_t r[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (s_racer_t) { .run = run, .seed = i };
        CHECK(pthread_create(&t[i], NULL, s_race_thread, &r[i]) == 0);
    }
    size_t total = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(r[i].rc, 0);
        total += r[i].stored;
    }
    store_totals_t kept, recount;
    CHECK(store_run_totals(st, run, &kept) == 0);
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    CHECK_EQ_INT(kept.pairs, (int64_t) total);
    store_worker_t w;
    CHECK(store_worker_get(st, "w-race", &w) == 0);
    CHECK_EQ_INT(w.pairs, (int64_t) total);
    free(w.host_info);
    store_destroy(&st);
}

/* What store_games_each handed out, one line per game. */
typedef struct {
    char seen[64][160];
    int n, stop_after;
} s_games_t;

static int s_game_cb(const store_game_t *g, void *arg)
{
    s_games_t *c = arg;
    if (c->n < 64)
        snprintf(c->seen[c->n++], sizeof c->seen[0], "%lld/%lld/%d %s %d %.12s %s",
                 (long long) g->run_id, (long long) g->pair_no, g->game, g->variant, g->result,
                 g->fen, g->moves);
    return c->stop_after && c->n >= c->stop_after ? 7 : 0;
}

static void games_come_back_one_by_one_with_their_moves_in_page_order(void)
{
    store_t *st = s_store();
    store_run_t doc_run = { .kind = PROTO_KIND_SPRT, .name = "games",
                            .doc = "{\"kind\": \"sprt\", \"variant\": \"capablanca\"}",
                            .seed = 1, .pairs_planned = 100 };
    int64_t run = 0, other = s_run(st, PROTO_KIND_SPRT, 100);
    CHECK(store_run_insert(st, &doc_run, &run) == 0);
    s_worker(st, "games-liar", s_contributor(st, "games-liar"));
    store_pair_t p[5];
    for (int i = 0; i < 5; i++) {
        p[i] = s_pair(i, i == 4 ? "games-liar" : NULL);
        p[i].moves[0] = "e2e4 e7e5";
        p[i].moves[1] = i == 2 ? NULL : "h1i3";
    }
    p[1].fen2 = "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1";
    CHECK(store_insert_pairs(st, run, p, 5, NULL, NULL) == 0);
    CHECK(store_insert_pairs(st, other, p, 1, NULL, NULL) == 0);
    CHECK(store_worker_flag(st, "games-liar", "test", NULL) == 0);   /* pair 4 excluded */

    s_games_t c = { .n = 0 };
    size_t games = 0, pairs = 0;
    CHECK_MSG(store_games_each(st, run, 2, s_game_cb, &c, &games, &pairs) == 0, "%s",
              store_last_error(st));
    CHECK_EQ_INT(pairs, 4);
    CHECK_EQ_INT(games, 7);
    CHECK_EQ_INT(c.n, 7);
    char want[160];
    /* s_pair's results: pair 0 = (2, 0), pair 1 = (2, 1), pair 3 = (0, 1) */
    snprintf(want, sizeof want, "%lld/0/0 capablanca 2 rnabqkbcnr/p e2e4 e7e5", (long long) run);
    CHECK_EQ_STR(c.seen[0], want);
    snprintf(want, sizeof want, "%lld/1/1 capablanca 1 rnbqckabnr/p h1i3", (long long) run);
    CHECK_EQ_STR(c.seen[3], want);
    snprintf(want, sizeof want, "%lld/2/0 capablanca 1 rnabqkbcnr/p e2e4 e7e5", (long long) run);
    CHECK_EQ_STR(c.seen[4], want);   /* pair 2's second game has no moves */
    snprintf(want, sizeof want, "%lld/3/1 capablanca 1 rnabqkbcnr/p h1i3", (long long) run);
    CHECK_EQ_STR(c.seen[6], want);

    /* every run: the other run's doc has no variant (caparandom); a callback stops early */
    s_games_t all = { .n = 0 };
    CHECK(store_games_each(st, 0, 0, s_game_cb, &all, &games, NULL) == 0);
    CHECK(games >= 9);
    bool found = false;
    for (int i = 0; i < all.n; i++) {
        snprintf(want, sizeof want, "%lld/0/0 caparandom", (long long) other);
        found = found || strncmp(all.seen[i], want, strlen(want)) == 0;
    }
    CHECK(found);
    s_games_t stop = { .n = 0, .stop_after = 3 };
    CHECK_EQ_INT(store_games_each(st, run, 1, s_game_cb, &stop, &games, NULL), 7);
    CHECK_EQ_INT(games, 3);
    CHECK_EQ_INT(store_games_each(st, run + 1000, 0, s_game_cb, &c, NULL, NULL),
                 CAPA_ENOTFOUND);
    store_destroy(&st);
}

static void stored_pairs_come_back_as_ranges(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    int64_t nos[] = { 0, 1, 2, 5, 7, 8, 9, 10, 20 };
    store_pair_t p[9];
    for (int i = 0; i < 9; i++)
        p[i] = s_pair(nos[i], NULL);
    CHECK(store_insert_pairs(st, run, p, 9, NULL, NULL) == 0);
    store_range_t *r;
    size_t n;
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 4);
    int64_t want[4][2] = { { 0, 2 }, { 5, 5 }, { 7, 10 }, { 20, 20 } };
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(r[i].run_id, run);
        CHECK_EQ_INT(r[i].first, want[i][0]);
        CHECK_EQ_INT(r[i].last, want[i][1]);
    }
    free(r);
    store_pair_row_t *rows;
    CHECK(store_pairs_list(st, run, 7, 3, &rows, &n) == 0);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(rows[0].pair_no, 7);
    CHECK_EQ_INT(rows[2].pair_no, 9);
    CHECK_EQ_INT(rows[0].score, p[4].score);
    CHECK_EQ_STR(rows[0].end[0], "checkmate");
    CHECK_EQ_INT(rows[0].verified, -1);
    free(rows);
    CHECK(store_pair_set_verified(st, run, 7, true, NULL) == 0);
    CHECK_EQ_INT(store_pair_set_verified(st, run, 6, true, NULL), CAPA_ENOTFOUND);
    CHECK(store_pairs_list(st, run, 7, 1, &rows, &n) == 0);
    CHECK_EQ_INT(rows[0].verified, 1);
    free(rows);
    store_destroy(&st);
}

static void imbalance_games_are_counted_from_the_side_under_test(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_VALUES, 1000);
    store_pair_t p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = s_pair(i, NULL);
        p[i].imbalance = i < 2 ? "A vs C" : "C vs Q";
        p[i].fen2 = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKB1NR w KQkq - 0 1";
    }
    /* Pair 0: B loses both; pair 1: B loses game 1 (Black), draws game 2 (White). */
    CHECK(store_insert_pairs(st, run, p, 3, NULL, NULL) == 0);
    store_imbalance_t *v;
    size_t n;
    CHECK(store_imbalance_games(st, run, &v, &n) == 0);
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_STR(v[0].imbalance, "A vs C");
    CHECK(!v[0].b_white);   /* B as Black: both games lost */
    CHECK_EQ_INT(v[0].wins, 0);
    CHECK_EQ_INT(v[0].draws, 0);
    CHECK_EQ_INT(v[0].losses, 2);
    CHECK(v[1].b_white);    /* B as White: pair 0 game 2 lost, pair 1 game 2 drawn */
    CHECK_EQ_INT(v[1].wins, 0);
    CHECK_EQ_INT(v[1].draws, 1);
    CHECK_EQ_INT(v[1].losses, 1);
    CHECK_EQ_STR(v[2].imbalance, "C vs Q");
    free(v);
    store_destroy(&st);
}

static void pair_kinds_carry_the_file_of_a_missing_pawn_and_games_their_endings(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_VALUES, 1000);
    static const char *const FENS[4] = {
        "rnabqkbcnr/pppppppppp/10/10/10/10/PP1PPPPPPP/RNABQKBCNR w KQkq - 0 1", /* White's c-pawn */
        "rnabqkbcnr/ppppppppp1/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", /* Black's j-pawn */
        "rnabqkbcnr/pppppppppp/10/10/10/10/1PP1PPPPPP/RNABQKBCNR w KQkq - 0 1", /* two pawns */
        "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKB1NR w KQkq - 0 1", /* no pawn */
    };
    static const int WANT[4] = { 3, 10, 0, 0 };
    store_pair_t p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = s_pair(i, NULL);
        p[i].imbalance = "odds";
        p[i].fen = FENS[i];
    }
    p[3].end[0] = "adjudication_resign";
    CHECK(store_insert_pairs(st, run, p, 4, NULL, NULL) == 0);
    store_pair_type_t *t;
    size_t n;
    CHECK(store_pair_types(st, run, 1, &t, &n) == 0);
    CHECK_EQ_INT(n, 4); /* each pair has other results, so a kind of its own */
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            const int *r = (const int[2]) { p[k].result[0], p[k].result[1] };
            if (t[i].result[0] == r[0] && t[i].result[1] == r[1]) {
                CHECK_MSG(t[i].stratum == WANT[k], "pair %d: stratum %d", k, t[i].stratum);
                seen |= 1 << k;
            }
        }
    CHECK_EQ_INT(seen, 15);
    free(t);
    store_ending_t *e;
    CHECK(store_run_endings(st, run, &e, &n) == 0);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_STR(e[0].end, "adjudication_draw");
    CHECK_EQ_INT(e[0].games, 4);
    CHECK_EQ_STR(e[1].end, "checkmate");
    CHECK_EQ_INT(e[1].games, 3);
    CHECK_EQ_STR(e[2].end, "adjudication_resign");
    CHECK_EQ_INT(e[2].games, 1);
    free(e);
    store_destroy(&st);
}

/* The round moments from SQL equal the sums over rounds computed here from
 * the same pairs, each pair's round from its number by the segments. */
static void round_moments_sum_products_of_classes_meeting_in_a_round(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_VALUES, 1000);
    /* rounds 0..9 deal three imbalances, then rounds 10.. two */
    static const char *const IMB[3] = { "A vs C", "odds", "C vs Q" };
    const int64_t k0[2] = { 0, 30 }, r0[2] = { 0, 10 }, w[2] = { 3, 2 };
    enum { NP = 50 };
    store_pair_t p[NP];
    int cls[NP];
    int64_t rnd[NP];
    for (int k = 0; k < NP; k++) {
        p[k] = s_pair(k * 7 % 11, NULL); /* results vary with k, not with the imbalance */
        p[k].pair_no = k;
        cls[k] = k < 30 ? k % 3 : (k - 30) % 2;
        rnd[k] = k < 30 ? k / 3 : 10 + (k - 30) / 2;
        p[k].imbalance = IMB[cls[k]];
    }
    CHECK(store_insert_pairs(st, run, p, NP, NULL, NULL) == 0);
    store_round_moment_t *m = NULL;
    size_t n = 0;
    int64_t rounds = 0;
    CHECK_MSG(store_round_moments(st, run, k0, r0, w, 2, &m, &n, &rounds) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(rounds, 20);
    CHECK_EQ_INT(n, 9); /* every ordered pair of the three classes meets */
    for (size_t i = 0; i < n; i++) {
        int j = -1, l = -1;
        for (int c = 0; c < 3; c++) {
            if (strcmp(m[i].cls[0], IMB[c]) == 0)
                j = c;
            if (strcmp(m[i].cls[1], IMB[c]) == 0)
                l = c;
        }
        CHECK(j >= 0 && l >= 0);
        int64_t want[3][3] = { { 0 } };
        for (int a = 0; a < NP; a++)
            for (int b = 0; b < NP; b++) {
                if (rnd[a] != rnd[b] || cls[a] != j || cls[b] != l)
                    continue;
                const int64_t xa[3] = { 1, p[a].result[0] + p[a].result[1], p[a].score };
                const int64_t xb[3] = { 1, p[b].result[0] + p[b].result[1], p[b].score };
                for (int x = 0; x < 3; x++)
                    for (int y = 0; y < 3; y++)
                        want[x][y] += xa[x] * xb[y];
            }
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                CHECK_MSG(m[i].m[x][y] == want[x][y], "%s x %s [%d][%d]: %lld, want %lld", m[i].cls[0],
                          m[i].cls[1], x, y, (long long) m[i].m[x][y], (long long) want[x][y]);
    }
    free(m);
    /* Malformed segments are refused, naming them. */
    const int64_t bad_w[2] = { 3, 0 };
    CHECK_EQ_INT(store_round_moments(st, run, k0, r0, bad_w, 2, &m, &n, &rounds), CAPA_EINVAL);
    CHECK(strstr(store_last_error(st), "segment 1") != NULL);
    store_destroy(&st);
}

/* pairs.unprotected and pairs.shelter (sql/005, sql/006, computed in SQL
 * from the start FEN) equal the engine's counts from its attack tables and
 * its board, for values pairs dealt as a run deals them (removals of pieces
 * and pawns), and pairs without an imbalance get none; the pair kinds carry
 * them. */
static void start_covariates_match_the_engine(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_VALUES, 1000);
    startpos_imbalance_t imb[5] = { { .label = "A vs C", .side = "A", .other = "C" },
                                    { .label = "C vs R+B", .side = "C", .other = "RB" },
                                    { .label = "pawn odds", .side = "", .other = "P" },
                                    { .label = "N vs PPP", .side = "N", .other = "PPP" },
                                    { .label = "Q vs A+N", .side = "Q", .other = "AN" } };
    startpos_spec_t spec = { .source = STARTPOS_CRC, .seed = 77, .imbalances = imb, .imbalance_count = 5 };
    enum { NP = 400 };
    static startpos_t sp[NP];
    static store_pair_t p[NP];
    int want[NP];
    double want_sh[NP];
    char err[256];
    for (int k = 0; k < NP; k++) {
        CHECK_MSG(startpos_for_pair(&spec, k, &sp[k], err, sizeof err) == 0, "%s", err);
        int un[2];
        CHECK_MSG(startpos_unprotected_pawns(sp[k].fen, un, err, sizeof err) == 0, "%s", err);
        int miss[2];
        double sh[2];
        CHECK_MSG(startpos_shelter(sp[k].fen, miss, sh, err, sizeof err) == 0, "%s", err);
        p[k] = s_pair(k, NULL);
        p[k].fen = sp[k].fen;
        p[k].fen2 = sp[k].fen2;
        p[k].imbalance = sp[k].imbalance;
        /* odd pairs name B's colour in game 1 the other way: the sign follows */
        p[k].b_white[0] = k % 2 == 0;
        p[k].b_white[1] = k % 2 != 0;
        p[k].score = (p[k].b_white[0] ? p[k].result[0] : 2 - p[k].result[0]) +
                     (p[k].b_white[1] ? p[k].result[1] : 2 - p[k].result[1]);
        want[k] = (k % 2 == 0 ? 1 : -1) * (un[0] - un[1]);
        want_sh[k] = (k % 2 == 0 ? 1 : -1) * (sh[0] - sh[1]);
    }
    CHECK_MSG(store_insert_pairs(st, run, p, NP, NULL, NULL) == 0, "%s", store_last_error(st));
    PGconn *pg = PQconnectdb(s_conninfo);
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT pair_no, unprotected, shelter FROM pairs WHERE run_id = %lld ORDER BY pair_no",
             (long long) run);
    PGresult *r = PQexec(pg, sql);
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == NP);
    int nonzero = 0, pawn_odds = 0, pawn_odds_sh = 0;
    double sum_sh[5] = { 0 };
    for (int k = 0; k < NP && k < PQntuples(r); k++) {
        int got = atoi(PQgetvalue(r, k, 1));
        double got_sh = strtod(PQgetvalue(r, k, 2), NULL);
        CHECK_MSG(got == want[k], "pair %d (%s, %s): SQL %d, engine %d", k, sp[k].imbalance, sp[k].fen, got,
                  want[k]);
        CHECK_MSG(fabs(got_sh - want_sh[k]) < 1e-12, "pair %d (%s, %s): shelter SQL %g, engine %g", k,
                  sp[k].imbalance, sp[k].fen, got_sh, want_sh[k]);
        nonzero += got != 0;
        sum_sh[k % 5] += got_sh;
        if (strcmp(sp[k].imbalance, "pawn odds") == 0) {
            pawn_odds++;
            pawn_odds_sh += got_sh * (k % 2 == 0 ? 1 : -1) > 0.5; /* B lost a shelter pawn: 0.7 */
        }
        /* no piece removal touches a pawn */
        if (strcmp(sp[k].imbalance, "A vs C") == 0 || strcmp(sp[k].imbalance, "Q vs A+N") == 0)
            CHECK(got_sh == 0.0);
    }
    PQclear(r);
    CHECK(nonzero > NP / 10); /* the removals do leave pawns unprotected */
    /* files a..j in turn: the king's file and its neighbours are 3 of 10 */
    CHECK_MSG(pawn_odds_sh * 10 >= pawn_odds * 2 && pawn_odds_sh * 10 <= pawn_odds * 4,
              "pawn odds stripping the shelter: %d of %d", pawn_odds_sh, pawn_odds);
    /* beyond chance: about 0 on average in every imbalance (80 pairs each,
     * signs alternating with B's colour, so |mean| is small) */
    for (int i = 0; i < 5; i++)
        CHECK_MSG(fabs(sum_sh[i]) / (NP / 5) < 0.15, "imbalance %d: shelter sum %g", i, sum_sh[i]);
    /* the pair kinds carry it: their counts by value equal the engine's */
    store_pair_type_t *t = NULL;
    size_t n = 0;
    CHECK(store_pair_types(st, run, 1, &t, &n) == 0);
    int64_t by_sql[21] = { 0 }, by_engine[21] = { 0 };
    double sh_sql = 0.0, sh_engine = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].unprot >= -10 && t[i].unprot <= 10)
            by_sql[t[i].unprot + 10] += t[i].count;
        sh_sql += t[i].shelter * t[i].shelter * (double) t[i].count;
    }
    for (int k = 0; k < NP; k++) {
        by_engine[want[k] + 10]++;
        sh_engine += want_sh[k] * want_sh[k];
    }
    for (int u = 0; u < 21; u++)
        CHECK_EQ_INT(by_sql[u], by_engine[u]);
    CHECK_NEAR(sh_sql, sh_engine, 1e-9);
    free(t);
    /* a pair of a run without imbalances records nothing */
    int64_t sprt = s_run(st, PROTO_KIND_SPRT, 10);
    store_pair_t q = s_pair(0, NULL);
    q.fen = sp[0].fen;
    CHECK(store_insert_pairs(st, sprt, &q, 1, NULL, NULL) == 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pairs WHERE run_id = %lld AND unprotected IS NULL AND shelter IS NULL",
             (long long) sprt);
    r = PQexec(pg, sql);
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "1") == 0);
    PQclear(r);
    PQfinish(pg);
    store_destroy(&st);
}

/* ---- leases ---------------------------------------------------------------- */

static void expired_leases_return_exactly_the_unstored_pairs(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "lease owner");
    s_worker(st, "w-lease", c);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 100);
    int64_t live = 0, dead = 0;
    CHECK(store_task_create(st, run, "w-lease", 0, 9, 0, &dead) == 0);
    CHECK(store_task_create(st, run, "w-lease", 10, 19, 3600 * 1000, &live) == 0);
    /* Overlaps, bad ranges, unknown worker, beyond the plan. */
    CHECK_EQ_INT(store_task_create(st, run, "w-lease", 5, 12, 1000, NULL), CAPA_EDUP);
    CHECK_EQ_INT(store_task_create(st, run, "w-lease", 30, 29, 1000, NULL), CAPA_ERANGE);
    CHECK_EQ_INT(store_task_create(st, run, "nobody", 30, 39, 1000, NULL), CAPA_ENOTFOUND);
    CHECK_EQ_INT(store_task_create(st, run, "w-lease", 95, 100, 1000, NULL), CAPA_ERANGE);
    CHECK_EQ_INT(store_task_create(st, run + 100000, "w-lease", 0, 1, 1000, NULL), CAPA_ENOTFOUND);

    /* Pairs 0-2, 5 and 9 of the dead lease arrived; 3-4 and 6-8 did not. */
    int64_t got[] = { 0, 1, 2, 5, 9, 10 };
    store_pair_t p[6];
    for (int i = 0; i < 6; i++) {
        p[i] = s_pair(got[i], "w-lease");
        p[i].task_id = got[i] < 10 ? dead : live;
    }
    CHECK(store_insert_pairs(st, run, p, 6, NULL, NULL) == 0);
    store_range_t *r;
    size_t n;
    CHECK_MSG(store_task_expire_due(st, &r, &n) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(r[0].task_id, dead);
    CHECK_EQ_INT(r[0].run_id, run);
    CHECK_EQ_INT(r[0].first, 3);
    CHECK_EQ_INT(r[0].last, 4);
    CHECK_EQ_INT(r[1].first, 6);
    CHECK_EQ_INT(r[1].last, 8);
    free(r);
    /* Expiring again finds nothing; the live lease is untouched. */
    CHECK(store_task_expire_due(st, &r, &n) == 0);
    CHECK_EQ_INT(n, 0);
    store_task_t t;
    CHECK(store_task_get(st, dead, &t) == 0);
    CHECK_EQ_INT(t.status, STORE_TASK_EXPIRED);
    CHECK(t.ended_at_ms > 0);
    CHECK(store_task_get(st, live, &t) == 0);
    CHECK_EQ_INT(t.status, STORE_TASK_ACTIVE);
    CHECK_EQ_INT(t.first_pair, 10);
    CHECK_EQ_STR(t.worker_id, "w-lease");
    /* The freed numbers can be leased again. */
    int64_t again = 0;
    CHECK(store_task_create(st, run, "w-lease", 3, 4, 1000, &again) == 0);
    CHECK(store_task_done(st, again) == 0);
    CHECK_EQ_INT(store_task_done(st, again), CAPA_ESTATE);
    CHECK_EQ_INT(store_task_extend(st, again, 1000), CAPA_ESTATE);
    CHECK_EQ_INT(store_task_extend(st, 987654321, 1000), CAPA_ENOTFOUND);

    /* A worker that says BYE gives back its unstored numbers at once. */
    CHECK(store_task_unstored(st, live, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 11);
    CHECK_EQ_INT(r[0].last, 19);
    free(r);
    CHECK(store_task_expire_worker(st, "w-lease", &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].task_id, live);
    CHECK_EQ_INT(r[0].first, 11);
    free(r);
    CHECK_EQ_INT(store_task_expire(st, live, &r, &n), CAPA_ESTATE);
    store_destroy(&st);
}

static void leases_survive_a_new_store_and_extend(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "restart owner");
    s_worker(st, "w-restart", c);
    int64_t run = s_run(st, PROTO_KIND_SPSA, 500);
    int64_t a = 0, b = 0;
    CHECK(store_task_create(st, run, "w-restart", 0, 49, 60000, &a) == 0);
    CHECK(store_task_create(st, run, "w-restart", 50, 99, 60000, &b) == 0);
    store_destroy(&st);

    /* "The coordinator restarts": a new store sees both leases. */
    st = s_open();
    store_task_t *tasks;
    size_t n;
    CHECK(store_task_list_active(st, &tasks, &n) == 0);
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        if (tasks[i].id == a || tasks[i].id == b) {
            seen++;
            CHECK_EQ_STR(tasks[i].worker_id, "w-restart");
            CHECK(tasks[i].expires_at_ms > tasks[i].issued_at_ms);
        }
    free(tasks);
    CHECK_EQ_INT(seen, 2);
    store_task_t before, after;
    CHECK(store_task_get(st, a, &before) == 0);
    size_t extended = 0;
    CHECK(store_task_extend_worker(st, "w-restart", 120000, &extended) == 0);
    CHECK_EQ_INT(extended, 2);
    CHECK(store_task_get(st, a, &after) == 0);
    CHECK(after.expires_at_ms > before.expires_at_ms);
    /* Stopping the run cancels its leases. */
    CHECK(store_run_set_status(st, run, STORE_RUN_STOPPED) == 0);
    CHECK(store_task_get(st, b, &after) == 0);
    CHECK_EQ_INT(after.status, STORE_TASK_CANCELLED);
    CHECK_EQ_INT(store_task_create(st, run, "w-restart", 100, 109, 1000, NULL), CAPA_ESTATE);
    store_destroy(&st);
}

/* ---- runs ------------------------------------------------------------------ */

static void runs_move_through_their_statuses(void)
{
    store_t *st = s_store();
    int64_t c = s_contributor(st, "submitter");
    store_run_t in = { .kind = PROTO_KIND_VALUES, .name = "A vs C", .seed = -7,
                       .doc = "{\"imbalances\": [\"A vs C\"], \"pairs\": 200}",
                       .pairs_planned = 200, .priority = 5, .submitted_by = c };
    int64_t id = 0;
    CHECK(store_run_insert(st, &in, &id) == 0);
    store_run_t r;
    CHECK(store_run_get(st, id, &r) == 0);
    CHECK_EQ_INT(r.kind, PROTO_KIND_VALUES);
    CHECK_EQ_INT(r.status, STORE_RUN_PENDING);
    CHECK_EQ_STR(r.name, "A vs C");
    CHECK_EQ_INT(r.seed, -7);
    CHECK_EQ_INT(r.priority, 5);
    CHECK_EQ_INT(r.submitted_by, c);
    CHECK(strstr(r.doc, "\"imbalances\"") != NULL);
    CHECK(r.created_at_ms > 0);
    CHECK_EQ_INT(r.started_at_ms, 0);
    store_run_clear(&r);

    /* The highest priority comes first among runs to schedule. */
    store_run_t *runs;
    size_t n;
    CHECK(store_run_next(st, 1, &runs, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK(runs[0].priority >= 5);
    store_run_list_free(&runs, n);
    CHECK(runs == NULL);

    CHECK(store_run_set_status(st, id, STORE_RUN_RUNNING) == 0);
    CHECK(store_run_set_state(st, id, "{\"theta\": [1.5, 2]}") == 0);
    CHECK_EQ_INT(store_run_set_state(st, id, "{not json"), CAPA_EINVAL);
    CHECK(store_run_finish(st, id, STORE_RUN_FINISHED, "{\"verdict\": \"H1\"}") == 0);
    CHECK(store_run_get(st, id, &r) == 0);
    CHECK_EQ_INT(r.status, STORE_RUN_FINISHED);
    CHECK(r.started_at_ms > 0 && r.finished_at_ms >= r.started_at_ms);
    CHECK(strstr(r.result, "H1") != NULL);
    CHECK(strstr(r.state, "theta") != NULL);
    store_run_clear(&r);
    CHECK_EQ_INT(store_run_set_status(st, id, STORE_RUN_RUNNING), CAPA_ESTATE);
    CHECK_EQ_INT(store_run_set_status(st, id + 100000, STORE_RUN_RUNNING), CAPA_ENOTFOUND);
    CHECK_EQ_INT(store_run_get(st, id + 100000, &r), CAPA_ENOTFOUND);

    store_run_filter_t f = { .status_mask = 1u << STORE_RUN_FINISHED,
                             .kind_mask = 1u << PROTO_KIND_VALUES, .limit = 10 };
    CHECK(store_run_list(st, &f, &runs, &n) == 0);
    CHECK(n >= 1);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(runs[i].status, STORE_RUN_FINISHED);
        CHECK(runs[i].doc == NULL);
    }
    CHECK_EQ_INT(runs[0].id, id);
    store_run_list_free(&runs, n);
    store_run_t bad = { .kind = PROTO_KIND_SPRT, .name = "x", .doc = "[1, 2", .pairs_planned = 1 };
    CHECK_EQ_INT(store_run_insert(st, &bad, NULL), CAPA_EINVAL);
    store_destroy(&st);
}

static void runs_are_listed_in_pages_and_scheduled_by_priority(void)
{
    char ci[512];
    CHECK(pgtest_create_db("store_pages", ci, sizeof ci) == 0);
    char err[256];
    store_t *st = NULL;
    CHECK(store_open(ci, &st, err, sizeof err) == 0);
    CHECK(store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL) == 0);
    int64_t ids[7];
    int prio[7] = { 0, 3, 0, 3, 1, 0, 9 };
    for (int i = 0; i < 7; i++) {
        char name[16];
        snprintf(name, sizeof name, "run %d", i);
        store_run_t r = { .kind = PROTO_KIND_SPRT, .name = name, .doc = "{}", .pairs_planned = 10,
                          .priority = prio[i] };
        CHECK(store_run_insert(st, &r, &ids[i]) == 0);
    }
    CHECK(store_run_set_status(st, ids[6], STORE_RUN_FAILED) == 0);
    store_run_t *runs;
    size_t n;
    /* Pending or running, highest priority first, then oldest. */
    CHECK(store_run_next(st, 10, &runs, &n) == 0);
    CHECK_EQ_INT(n, 6);
    int64_t want[6] = { ids[1], ids[3], ids[4], ids[0], ids[2], ids[5] };
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(runs[i].id, want[i]);
    store_run_list_free(&runs, n);
    /* Newest first, in pages of 3. */
    store_run_filter_t f = { .limit = 3 };
    int64_t seen[7];
    size_t total = 0;
    for (f.offset = 0;; f.offset += 3) {
        CHECK(store_run_list(st, &f, &runs, &n) == 0);
        for (size_t i = 0; i < n; i++)
            seen[total++] = runs[i].id;
        store_run_list_free(&runs, n);
        if (n < 3)
            break;
    }
    CHECK_EQ_INT(total, 7);
    for (size_t i = 0; i < total; i++)
        CHECK_EQ_INT(seen[i], ids[6 - i]);
    f = (store_run_filter_t) { .status_mask = 1u << STORE_RUN_FAILED };
    CHECK(store_run_list(st, &f, &runs, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(runs[0].id, ids[6]);
    store_run_list_free(&runs, n);
    store_destroy(&st);
}

static void spsa_history_and_estimates_round_trip(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPSA, 1000);
    for (int i = 0; i < 3; i++) {
        char theta[64];
        snprintf(theta, sizeof theta, "{\"archbishop_mg\": %d}", 800 + i);
        CHECK(store_spsa_append(st, run, i, theta, i == 1 ? "{\"c\": 4}" : NULL) == 0);
    }
    CHECK_EQ_INT(store_spsa_append(st, run, 1, "{}", NULL), CAPA_EDUP);
    store_spsa_step_t *steps;
    size_t n;
    CHECK(store_spsa_list(st, run, &steps, &n) == 0);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(steps[2].iteration, 2);
    CHECK(strstr(steps[2].theta, "802") != NULL);
    CHECK(steps[0].info == NULL && steps[1].info != NULL);
    store_spsa_list_free(&steps, n);

    char *report = NULL;
    CHECK_EQ_INT(store_estimate_get(st, run, &report, NULL, NULL), CAPA_ENOTFOUND);
    CHECK(store_estimate_put(st, run, 10, "{\"A\": 8.1}") == 0);
    CHECK(store_estimate_put(st, run, 20, "{\"A\": 8.3}") == 0);
    int64_t used = 0, at = 0;
    CHECK(store_estimate_get(st, run, &report, &used, &at) == 0);
    CHECK(strstr(report, "8.3") != NULL);
    CHECK_EQ_INT(used, 20);
    CHECK(at > 0);
    free(report);
    store_destroy(&st);
}

static void estimates_keep_each_fit_in_the_run_history(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_VALUES, 1000);
    store_fit_t *fits = NULL;
    size_t n = 99;
    CHECK(store_estimate_history(st, run, 10, &fits, &n) == 0);
    CHECK_EQ_INT(n, 0);
    /* A report without a fit replaces the latest estimate but adds no fit. */
    CHECK(store_estimate_put(st, run, 0, "{\"values_error\": \"no games yet\"}") == 0);
    char rep[128];
    for (int k = 1; k <= 30; k++) {
        snprintf(rep, sizeof rep, "{\"values\": {\"games\": %d, \"values\": {\"A\": {\"value\": %d}}}}",
                 20 * k, k);
        CHECK(store_estimate_put(st, run, 10 * k, rep) == 0);
    }
    /* The same data fitted again replaces its fit. */
    CHECK(store_estimate_put(st, run, 300, "{\"values\": {\"games\": 600, \"again\": true}}") == 0);
    CHECK(store_estimate_history(st, run, 100, &fits, &n) == 0);
    CHECK_EQ_INT(n, 30);
    CHECK_EQ_INT(fits[0].pairs_used, 10);
    CHECK(strstr(fits[0].fit, "\"games\": 20") != NULL);
    CHECK(strstr(fits[0].fit, "values_error") == NULL);
    CHECK_EQ_INT(fits[29].pairs_used, 300);
    CHECK(strstr(fits[29].fit, "again") != NULL);
    CHECK(fits[29].computed_at_ms > 0);
    store_estimate_history_free(&fits, n);
    CHECK(fits == NULL);
    /* Thinned evenly, the first and the last kept. */
    CHECK(store_estimate_history(st, run, 10, &fits, &n) == 0);
    CHECK(n >= 10 && n <= 11);
    CHECK_EQ_INT(fits[0].pairs_used, 10);
    CHECK_EQ_INT(fits[n - 1].pairs_used, 300);
    for (size_t i = 1; i < n; i++)
        CHECK(fits[i].pairs_used > fits[i - 1].pairs_used);
    store_estimate_history_free(&fits, n);
    /* The latest estimate is the last report. */
    char *latest = NULL;
    int64_t used = 0;
    CHECK(store_estimate_get(st, run, &latest, &used, NULL) == 0);
    CHECK_EQ_INT(used, 300);
    CHECK(strstr(latest, "again") != NULL);
    free(latest);
    store_destroy(&st);
}

/* ---- contributors and workers --------------------------------------------- */

static void sql_injection_looking_names_are_stored_verbatim(void)
{
    store_t *st = s_store();
    const char *evil = "Robert'); DROP TABLE pairs; -- \"\\ {,} NULL";
    int64_t id = s_contributor(st, evil);
    store_contributor_t c;
    CHECK(store_contributor_get(st, id, &c) == 0);
    CHECK_EQ_STR(c.name, evil);
    CHECK_EQ_INT(s_scalar(s_conninfo, "SELECT count(*) FROM pg_tables WHERE tablename = 'pairs'"),
                 1);
    /* The same text through the array literals of a pair batch. */
    s_worker(st, "w-evil", id);
    int64_t run = s_run(st, PROTO_KIND_VALUES, 10);
    store_pair_t p = s_pair(3, "w-evil");
    p.imbalance = evil;
    p.end[1] = "\"},{NULL";
    p.moves[0] = "a2a3 \\ \"";
    CHECK_MSG(store_insert_pairs(st, run, &p, 1, NULL, NULL) == 0, "%s", store_last_error(st));
    store_pair_row_t *rows;
    size_t n;
    CHECK(store_pairs_list(st, run, 0, 10, &rows, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_STR(rows[0].imbalance, evil);
    CHECK_EQ_STR(rows[0].end[1], "\"},{NULL");
    CHECK_EQ_STR(rows[0].worker_id, "w-evil");
    free(rows);
    store_run_t run_in = { .kind = PROTO_KIND_SPRT, .name = (char *) evil, .doc = "{}",
                           .pairs_planned = 1 };
    int64_t rid;
    CHECK(store_run_insert(st, &run_in, &rid) == 0);
    store_run_t r;
    CHECK(store_run_get(st, rid, &r) == 0);
    CHECK_EQ_STR(r.name, evil);
    store_run_clear(&r);
    store_destroy(&st);
}

static void only_token_hashes_are_kept_and_revoked_tokens_fail(void)
{
    store_t *st = s_store();
    /* A raw token (not a hex digest) is refused. */
    CHECK_EQ_INT(store_contributor_add(st, "raw", "capa_Jq3xyzTOKEN", false, NULL), CAPA_EINVAL);
    CHECK_EQ_INT(store_contributor_add(st, "short", "abcdef", false, NULL), CAPA_EINVAL);
    CHECK_EQ_INT(store_contributor_add(st, "", "00112233445566778899aabbccddeeff", false, NULL),
                 CAPA_EINVAL);
    const char *hash = "4f2a9c1e0b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f";
    int64_t id = 0;
    CHECK(store_contributor_add(st, "alice", hash, true, &id) == 0);
    CHECK_EQ_INT(store_contributor_add(st, "alice", "00112233445566778899aabbccddeeff", false,
                                       NULL),
                 CAPA_EDUP);
    CHECK_EQ_INT(store_contributor_add(st, "alice2", hash, false, NULL), CAPA_EDUP);
    store_contributor_t c;
    CHECK(store_contributor_by_token(st, hash, &c) == 0);
    CHECK_EQ_INT(c.id, id);
    CHECK(c.is_admin);
    CHECK_EQ_INT(store_contributor_by_token(st, "ffffffffffffffffffffffffffffffff", &c),
                 CAPA_ENOTFOUND);
    CHECK(store_contributor_revoke(st, id) == 0);
    CHECK(store_contributor_revoke(st, id) == 0);
    CHECK_EQ_INT(store_contributor_by_token(st, hash, &c), CAPA_EAUTH);
    CHECK(c.revoked_at_ms > 0);
    CHECK_EQ_INT(store_contributor_revoke(st, 987654321), CAPA_ENOTFOUND);
    store_contributor_t *list;
    size_t n;
    CHECK(store_contributor_list(st, &list, &n) == 0);
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= list[i].id == id && strcmp(list[i].token_hash, hash) == 0;
    free(list);
    CHECK(found);
    store_destroy(&st);
}

static const store_contributor_stats_t *s_stats_of(const store_contributor_stats_t *v, size_t n,
                                                   int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return &v[i];
    CHECK_MSG(0, "contributor %lld missing from the stats", (long long) id);
    return NULL;
}

static void contributor_stats_count_all_time_the_last_days_and_active_workers(void)
{
    store_t *st = s_store();
    int64_t a = s_contributor(st, "stats donor a"), b = s_contributor(st, "stats donor b");
    s_worker(st, "stats-wa", a);
    s_worker(st, "stats-wb", b);
    int64_t run = s_run(st, PROTO_KIND_SPRT, 10);
    store_pair_t p[6];
    for (int k = 0; k < 6; k++)
        p[k] = s_pair(k, k < 4 ? "stats-wa" : "stats-wb");
    CHECK_MSG(store_insert_pairs(st, run, p, 6, NULL, NULL) == 0, "%s", store_last_error(st));
    char sql[256];
    /* pairs 0 and 1 ten days old; b's worker last seen an hour ago */
    snprintf(sql, sizeof sql, "WITH u AS (UPDATE pairs SET stored_at = now() - interval '10 days'"
                              " WHERE run_id = %lld AND pair_no < 2 RETURNING 1) SELECT count(*) FROM u",
             (long long) run);
    CHECK_EQ_INT(s_scalar(s_conninfo, sql), 2);
    CHECK_EQ_INT(s_scalar(s_conninfo, "WITH u AS (UPDATE workers SET last_seen = now() - interval"
                                      " '1 hour' WHERE id = 'stats-wb' RETURNING 1)"
                                      " SELECT count(*) FROM u"),
                 1);
    store_contributor_stats_t *v;
    size_t n;
    CHECK_MSG(store_contributor_stats(st, 90, 7, &v, &n) == 0, "%s", store_last_error(st));
    const store_contributor_stats_t *sa = s_stats_of(v, n, a), *sb = s_stats_of(v, n, b);
    CHECK_EQ_STR(sa->name, "stats donor a");
    CHECK_EQ_INT(sa->workers, 1);
    CHECK_EQ_INT(sa->active_workers, 1);
    CHECK_EQ_INT(sa->pairs, 4);
    CHECK_EQ_INT(sa->games, 8);
    CHECK_EQ_INT(sa->cpu_ms, 1000 + 1001 + 1002 + 1003);
    CHECK_EQ_INT(sa->recent_pairs, 2);
    CHECK_EQ_INT(sa->recent_games, 4);
    CHECK_EQ_INT(sa->recent_cpu_ms, 1002 + 1003);
    CHECK_EQ_INT(sb->workers, 1);
    CHECK_EQ_INT(sb->active_workers, 0);
    CHECK_EQ_INT(sb->pairs, 2);
    CHECK_EQ_INT(sb->recent_pairs, 2);
    CHECK_EQ_INT(sb->recent_cpu_ms, 1004 + 1005);
    CHECK(sb->last_seen_ms > 0 && sb->last_seen_ms < sa->last_seen_ms - 3000 * 1000);
    CHECK(sa->created_at_ms > 0 && !sa->revoked && !sa->is_admin);
    /* a contributor without workers: zeros, never seen */
    int64_t c = s_contributor(st, "stats donor c");
    free(v);
    CHECK(store_contributor_stats(st, 90, 7, &v, &n) == 0);
    const store_contributor_stats_t *sc = s_stats_of(v, n, c);
    CHECK(sc->workers == 0 && sc->pairs == 0 && sc->recent_cpu_ms == 0 && sc->last_seen_ms == 0);
    free(v);
    store_destroy(&st);
}

static void a_worker_id_cannot_be_taken_by_another_contributor(void)
{
    store_t *st = s_store();
    int64_t a = s_contributor(st, "owner a");
    int64_t b = s_contributor(st, "owner b");
    s_worker(st, "shared-id", a);
    store_worker_t w = { .contributor_id = b, .cores = 2, .concurrency = 2 };
    snprintf(w.id, sizeof w.id, "shared-id");
    CHECK_EQ_INT(store_worker_upsert(st, &w), CAPA_EAUTH);
    /* The owner's HELLO updates the details. */
    w.contributor_id = a;
    w.cores = 16;
    w.host_info = "{\"os\": \"Debian 12\"}";
    CHECK(store_worker_upsert(st, &w) == 0);
    store_worker_t got;
    CHECK(store_worker_get(st, "shared-id", &got) == 0);
    CHECK_EQ_INT(got.cores, 16);
    CHECK_EQ_INT(got.contributor_id, a);
    CHECK(got.host_info && strstr(got.host_info, "Debian") != NULL);
    free(got.host_info);
    snprintf(w.id, sizeof w.id, "bad id!");
    CHECK_EQ_INT(store_worker_upsert(st, &w), CAPA_EINVAL);
    CHECK_EQ_INT(store_worker_get(st, "nope", &got), CAPA_ENOTFOUND);
    CHECK(store_worker_seen(st, "shared-id") == 0);
    /* The coordinator's periodic last_seen of all connected workers at once:
     * an unknown id is skipped. */
    PGconn *pg = PQconnectdb(s_conninfo);
    PQclear(PQexec(pg, "UPDATE workers SET last_seen = now() - interval '1 hour' "
                       "WHERE id = 'shared-id'"));
    const char *seen[] = { "shared-id", "nobody" };
    CHECK(store_bulk_workers_seen(st, seen, 2) == 0);
    PGresult *r = PQexec(pg, "SELECT count(*) FROM workers WHERE id = 'shared-id' "
                             "AND last_seen > now() - interval '1 minute'");
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "1") == 0);
    PQclear(r);
    PQfinish(pg);
    store_worker_t *list;
    size_t n;
    CHECK(store_worker_list(st, a, &list, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_STR(list[0].id, "shared-id");
    store_worker_list_free(&list, n);
    store_destroy(&st);
}

/* ---- the server goes away ---------------------------------------------------- */

/* Registered as its own SERIAL ctest: it restarts and stops the shared cluster. */
static void the_store_survives_a_postgresql_restart(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPRT, 1000);
    store_pair_t p[4];
    for (int i = 0; i < 4; i++)
        p[i] = s_pair(i, NULL);
    CHECK(store_insert_pairs(st, run, p, 2, NULL, NULL) == 0);

    CHECK(pgtest_restart() == 0);
    /* The next call reconnects by itself. */
    size_t n_new = 0;
    CHECK_MSG(store_insert_pairs(st, run, p, 4, NULL, &n_new) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(n_new, 2);

    /* While the server is down every call fails with CAPA_EDB (no crash).
     * The server is started again before any CHECK can end the case. */
    CHECK(pgtest_stop() == 0);
    store_totals_t t;
    int rc_totals = store_run_totals(st, run, &t);
    size_t errlen = strlen(store_last_error(st));
    int rc_insert = store_insert_pairs(st, run, p, 4, NULL, NULL);
    int rc_ping = store_ping(st);
    char err[256] = "";
    store_t *other = NULL;
    int rc_open = store_open(s_conninfo, &other, err, sizeof err);
    int rc_start = pgtest_start();
    CHECK(rc_start == 0);
    CHECK_EQ_INT(rc_totals, CAPA_EDB);
    CHECK(errlen > 0);
    CHECK_EQ_INT(rc_insert, CAPA_EDB);
    CHECK_EQ_INT(rc_ping, CAPA_EDB);
    CHECK_EQ_INT(rc_open, CAPA_EDB);
    CHECK(other == NULL && strlen(err) > 0);
    CHECK_MSG(store_run_totals(st, run, &t) == 0, "%s", store_last_error(st));
    CHECK_EQ_INT(t.pairs, 4);
    CHECK(store_insert_pairs(st, run, p, 4, NULL, &n_new) == 0);
    CHECK_EQ_INT(n_new, 0);
    store_destroy(&st);
}

typedef struct {
    int64_t run;
    _Atomic int stop;
    int64_t acked;        /* pairs acknowledged (stored now or as duplicates) */
    int64_t fresh;        /* of those, reported new */
    int failures;         /* calls that failed (and were repeated) */
    int rc;
} s_loader_t;

/* Stores pairs 0, 1, 2, ... in batches of 10 like a coordinator: a failed
 * call is repeated until it succeeds, a success is an acknowledgement. */
static void *s_load_thread(void *arg)
{
    s_loader_t *l = arg;
    char err[256];
    store_t *st = NULL;
    l->rc = store_open(s_conninfo, &st, err, sizeof err);
    while (l->rc == 0 && !l->stop) {
        store_pair_t p[10];
        for (int i = 0; i < 10; i++)
            p[i] = s_pair(l->acked + i, NULL);
        size_t n_new = 0;
        int rc = store_insert_pairs(st, l->run, p, 10, NULL, &n_new);
        if (rc == CAPA_EDB) {
            l->failures++;
            usleep(20000);
            continue;
        }
        if (rc < 0) {
            l->rc = rc;
            break;
        }
        l->acked += 10;
        l->fresh += (int64_t) n_new;
    }
    store_destroy(&st);
    return NULL;
}

/* Registered with the SERIAL ctest too. */
static void no_pair_is_lost_or_counted_twice_across_restarts_under_load(void)
{
    store_t *st = s_store();
    int64_t run = s_run(st, PROTO_KIND_SPRT, 10000000);
    s_loader_t l = { .run = run };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, s_load_thread, &l) == 0);
    int restarts_ok = 0;
    for (int i = 0; i < 3; i++) {
        usleep(300000);
        restarts_ok += pgtest_restart() == 0;
    }
    usleep(300000);
    l.stop = 1;
    pthread_join(t, NULL);
    CHECK_EQ_INT(restarts_ok, 3);
    CHECK_EQ_INT(l.rc, 0);
    CHECK(l.acked > 0);
    /* Every acknowledged pair is there, nothing else, each counted once. A
     * batch cut off by a restart may have committed before its reply was
     * lost: its repeat then reports duplicates, so fresh <= acked. */
    store_totals_t kept, recount;
    CHECK_MSG(store_run_totals(st, run, &kept) == 0, "%s", store_last_error(st));
    CHECK(store_run_recount(st, run, &recount) == 0);
    s_check_totals_equal(&kept, &recount);
    CHECK_EQ_INT(kept.pairs, l.acked);
    CHECK(l.fresh <= l.acked);
    store_range_t *r;
    size_t n;
    CHECK(store_pairs_stored(st, run, &r, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(r[0].first, 0);
    CHECK_EQ_INT(r[0].last, l.acked - 1);
    free(r);
    fprintf(stderr, "  %lld pairs acknowledged, %d failed calls repeated over 3 restarts\n",
            (long long) l.acked, l.failures);
    store_destroy(&st);
}

static const check_case_t CASES[] = {
    CASE(migrations_apply_once_and_are_idempotent),
    CASE(a_changed_migration_is_refused),
    CASE(two_coordinators_migrating_at_once_apply_each_migration_once),
    CASE(a_batch_is_stored_once_and_a_replay_is_all_duplicates),
    CASE(a_partly_replayed_batch_reports_new_and_duplicate_pairs),
    CASE(a_bad_batch_stores_nothing),
    CASE(batches_share_a_commit_and_a_bad_one_spoils_nothing),
    CASE(totals_equal_a_recount_of_the_pairs),
    CASE(an_excluded_pair_gives_its_number_back_and_stays_kept),
    CASE(excluded_pairs_of_an_older_database_free_their_numbers),
    CASE(racing_stores_count_each_pair_once),
    CASE(stored_pairs_come_back_as_ranges),
    CASE(games_come_back_one_by_one_with_their_moves_in_page_order),
    CASE(imbalance_games_are_counted_from_the_side_under_test),
    CASE(pair_kinds_carry_the_file_of_a_missing_pawn_and_games_their_endings),
    CASE(round_moments_sum_products_of_classes_meeting_in_a_round),
    CASE(start_covariates_match_the_engine),
    CASE(expired_leases_return_exactly_the_unstored_pairs),
    CASE(leases_survive_a_new_store_and_extend),
    CASE(runs_move_through_their_statuses),
    CASE(runs_are_listed_in_pages_and_scheduled_by_priority),
    CASE(spsa_history_and_estimates_round_trip),
    CASE(estimates_keep_each_fit_in_the_run_history),
    CASE(sql_injection_looking_names_are_stored_verbatim),
    CASE(only_token_hashes_are_kept_and_revoked_tokens_fail),
    CASE(a_worker_id_cannot_be_taken_by_another_contributor),
    CASE(contributor_stats_count_all_time_the_last_days_and_active_workers),
    CASE(the_store_survives_a_postgresql_restart),
    CASE(no_pair_is_lost_or_counted_twice_across_restarts_under_load),
    { 0 },
};

int main(int argc, char **argv)
{
    capa_log_init("test_store");
    if (!getenv("CAPA_LOG_LEVEL"))
        capa_log_set_level(LOG_ERROR);   /* expected failures would fill the output */
    return check_main(argc, argv, CASES);
}
