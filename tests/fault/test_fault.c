/* The fault suite: real capa-coordinator and capa-worker processes on
 * loopback, PostgreSQL clusters, SIGKILLs, a network cut through a TCP proxy
 * (tests/fault/fault_proxy.h), revoked tokens and an eavesdropper.
 *
 * The chaos case is seeded: it prints "seed N"; CAPA_FAULT_SEED=N replays the
 * same schedule of kills (timings of the processes themselves still vary).
 * Every case prints its figures on stdout as "figure: name = value" lines,
 * which docs/reliability.md quotes. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "check.h"
#include "coord_fixture.h"
#include "fault_proxy.h"
#include "stats_rng.h"
#include "verify.h"

#include <zmq.h>

/* How the suite's workers run: quick batches, ACK waits, backoff and
 * heartbeats, so that kills and cuts show within seconds. */
static const char *const WORKER_ARGS[] = { "--batch-seconds", "1", "--ack-wait-ms", "300",
                                           "--backoff-first-ms", "200", "--backoff-max-ms", "1000",
                                           "--heartbeat-ms", "300", "--liveness", "3",
                                           "--log-level", "debug", NULL };

static uint64_t s_below(stats_rng_t *rng, uint64_t n) { return stats_rng_next(rng) % n; }

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int64_t s_submit(coord_fx_t *fx, const char *doc)
{
    int64_t id = coord_fx_submit(fx, doc);
    CHECK(id > 0);
    return id;
}

/* Starts worker i on endpoint (its state folder kept across restarts: fresh
 * = wipe it first); its log is appended to, so it spans restarts. */
static void s_worker_start(coord_fx_t *fx, int i, const char *endpoint, bool fresh)
{
    CHECK(coord_fx_worker_start(fx, i, endpoint, fresh, WORKER_ARGS) == 0);
}

typedef struct {
    long tasks;          /* TASK lines */
    long pairs_handed;   /* pairs in those TASKs */
    long acks;           /* ACK lines */
    long stored;         /* pairs acknowledged as newly stored */
    long duplicate;      /* pairs acknowledged as already stored */
    long resends;        /* "resending N spooled batch(es)" lines */
    long lease_errors;   /* ERROR LEASE_* received */
} wlog_t;

/* Reads worker i's log: counts, and marks acknowledged pair numbers in
 * acked[0..planned) (a number outside that range fails the test). */
static void s_read_worker_log(const coord_fx_t *fx, int i, bool *acked, long planned, wlog_t *sum)
{
    char path[600];
    coord_fx_worker_log(fx, i, path, sizeof path);
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "%s", path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        const char *p;
        if ((p = strstr(line, " TASK ")) && strstr(p, " pairs, ")) {
            long n = 0;
            const char *q = strstr(p, " pairs, ");
            while (q > p && q[-1] >= '0' && q[-1] <= '9')
                q--;
            n = strtol(q, NULL, 10);
            sum->tasks++;
            sum->pairs_handed += n;
        } else if ((p = strstr(line, " ACK task "))) {
            long s = 0, d = 0;
            const char *c = strchr(p, ':');
            CHECK(c && sscanf(c, ": %ld stored, %ld duplicate", &s, &d) == 2);
            sum->acks++;
            sum->stored += s;
            sum->duplicate += d;
            const char *l = strstr(c, "; pairs");
            CHECK_MSG(l != NULL && !strstr(l, "..."), "ACK line without its pairs: %.200s", line);
            l += 7;
            char *end;
            for (long v = strtol(l, &end, 10); end != l; v = strtol(l, &end, 10)) {
                CHECK_MSG(v >= 0 && v < planned, "ACK of pair %ld outside the plan", v);
                acked[v] = true;
                l = end;
            }
        } else if (strstr(line, "resending ")) {
            sum->resends++;
        } else if (strstr(line, "ERROR LEASE_")) {
            sum->lease_errors++;
        }
    }
    fclose(f);
}

/* The invariants after a run: the stored pairs are exactly 0..planned-1,
 * each once; every acknowledged pair is there; the counters equal a recount. */
static void s_check_pairs(coord_fx_t *fx, int64_t run, long planned, const bool *acked)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(fx, sql), planned);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT pair_no) FROM pairs WHERE run_id = %lld "
             "AND pair_no BETWEEN 0 AND %ld", (long long) run, planned - 1);
    CHECK_EQ_INT(coord_fx_sql(fx, sql), planned);
    for (long p = 0; p < planned; p++) {
        if (!acked[p])
            continue;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND pair_no = %ld",
                 (long long) run, p);
        CHECK_MSG(coord_fx_sql(fx, sql) == 1, "acknowledged pair %ld is not stored once", p);
    }
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(fx, sql), planned);
    /* Run counters against run_totals_recount, column by column. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs r JOIN run_totals_recount t ON t.run_id = r.id "
             "WHERE r.id = %lld AND r.pairs_done = t.pairs_done AND r.penta0 = t.penta0 "
             "AND r.penta1 = t.penta1 AND r.penta2 = t.penta2 AND r.penta3 = t.penta3 "
             "AND r.penta4 = t.penta4 AND r.wins = t.wins AND r.draws = t.draws "
             "AND r.losses = t.losses", (long long) run);
    CHECK_MSG(coord_fx_sql(fx, sql) == 1, "run counters differ from run_totals_recount");
    /* Worker counters against the pair table (only this run in the database). */
    CHECK_EQ_INT(coord_fx_sql(fx, "SELECT coalesce(sum(pairs), 0) FROM workers"),
                 coord_fx_sql(fx, "SELECT count(*) FROM pairs"));
    CHECK_EQ_INT(coord_fx_sql(fx, "SELECT coalesce(sum(games), 0) FROM workers"),
                 2 * coord_fx_sql(fx, "SELECT count(*) FROM pairs"));
    CHECK_EQ_INT(coord_fx_sql(fx, "SELECT count(*) FROM (SELECT w.id FROM workers w "
                                  "LEFT JOIN pairs p ON p.worker_id = w.id GROUP BY w.id, w.pairs "
                                  "HAVING w.pairs <> count(p.pair_no)) x"), 0);
}

#define VALUES_DOC(pairs_each, nodes)                                                       \
    "{\"kind\":\"values\",\"name\":\"fault\",\"seed\":5,\"variant\":\"caparandom\","        \
    "\"positions\":{\"source\":\"crc\"},\"game\":{\"nodes\":" #nodes ",\"max_plies\":160},"  \
    "\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":" #pairs_each "}," \
    "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\",\"pairs\":" #pairs_each "},"      \
    "{\"name\":\"N vs B\",\"side\":\"N\",\"other\":\"B\",\"pairs\":" #pairs_each "}]}"

/* A long SPRT run: there is always work for the test clients. */
#define SPRT_DOC                                                                            \
    "{\"kind\":\"sprt\",\"name\":\"t\",\"seed\":7,\"variant\":\"caparandom\","              \
    "\"game\":{\"nodes\":1000},\"a\":{},\"b\":{\"ArchbishopValueMg\":875},"                 \
    "\"elo0\":0,\"elo1\":5,\"max_pairs\":1000}"

/* ---- cases ---------------------------------------------------------------- */

/* A worker's death, for the wait figures: worker i killed at wall-clock ms. */
typedef struct {
    int worker;
    long long at_ms;
} death_t;

static long long s_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The longest wait of any pair of worker i's leases open at its death (and
 * not stored by then) until it was handed out again (a later task with that
 * pair number); pairs its restarted process resent from the spool are not
 * handed out again and do not count. -1 if none; *n_out gets the pairs. */
static long long s_wait_after_death(coord_fx_t *fx, int64_t run, const death_t *d, long *n_out)
{
    char sql[2048];
    long long at = d->at_ms;
    snprintf(sql, sizeof sql,
             "SELECT coalesce(max(w), -1) * 100000 + count(*) FROM ("
             " SELECT min(epoch_ms(t2.issued_at)) - %lld AS w"
             " FROM tasks t JOIN workers k ON k.id = t.worker_id AND k.name = 'w%d'"
             " CROSS JOIN LATERAL generate_series(t.first_pair, t.last_pair) AS g(n)"
             " JOIN tasks t2 ON t2.run_id = t.run_id AND t2.id > t.id"
             "  AND g.n BETWEEN t2.first_pair AND t2.last_pair AND epoch_ms(t2.issued_at) >= %lld"
             " WHERE t.run_id = %lld AND epoch_ms(t.issued_at) <= %lld"
             "  AND (t.ended_at IS NULL OR epoch_ms(t.ended_at) >= %lld)"
             "  AND NOT EXISTS (SELECT 1 FROM pairs s WHERE s.run_id = t.run_id"
             "   AND s.pair_no = g.n AND epoch_ms(s.stored_at) <= %lld)"
             " GROUP BY t.id, g.n) x",
             at, d->worker, at, (long long) run, at, at, at);
    long long v = coord_fx_sql(fx, sql);
    CHECK(v != -1);
    *n_out = (long) (v % 100000);
    return v / 100000;   /* -1 (no pair, n 0) or the wait */
}

/* The longest time from worker i's death until a lease it held then was
 * ended by the coordinator (its pairs back in the pool); -1 if none was. */
static long long s_return_after_death(coord_fx_t *fx, int64_t run, const death_t *d)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(max(epoch_ms(t.ended_at)) - %lld, -1)"
             " FROM tasks t JOIN workers k ON k.id = t.worker_id AND k.name = 'w%d'"
             " WHERE t.run_id = %lld AND t.status = 'expired' AND epoch_ms(t.issued_at) <= %lld"
             "  AND epoch_ms(t.ended_at) >= %lld",
             d->at_ms, d->worker, (long long) run, d->at_ms, d->at_ms);
    return coord_fx_sql(fx, sql);
}

/* At the coordinator's defaults (heartbeat 2500 ms x 4, lease 3600 s): a
 * pair of a dead worker must come back within seconds, not the lease. */
static void a_chaos_run_stores_exactly_the_planned_pairs(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    uint64_t seed = (uint64_t) time(NULL) ^ (uint64_t) getpid();
    const char *env = getenv("CAPA_FAULT_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 10);
    printf("seed %" PRIu64 " (replay with CAPA_FAULT_SEED=%" PRIu64 ")\n", seed, seed);
    fflush(stdout);
    stats_rng_t rng;
    stats_rng_seed(&rng, seed);
    double t0 = s_now();
    long long t0_ms = s_wall_ms();
    CHECK(coord_fx_up_own_cluster(&fx, "fault_chaos", extra) == 0);
    const long planned = 3 * 32;
    int64_t run = s_submit(&fx, VALUES_DOC(32, 3000));
    for (int i = 0; i < COORD_FX_WORKERS; i++)
        s_worker_start(&fx, i, fx.proc.endpoint, true);
    /* The chaos: up to 24 events at 0.3..1.5 s intervals while the run
     * plays; a PostgreSQL crash (immediate stop) comes at one of the first
     * 8, a wiped worker (killed, restarted on an empty state folder: a new
     * worker id, its old leases never claimed) at another. */
    int worker_kills = 0, coord_kills = 0, pg_restarts = 0, wipes = 0, events = 0;
    int pg_event = (int) s_below(&rng, 8);
    int wipe_event = (pg_event + 1 + (int) s_below(&rng, 7)) % 8;
    death_t deaths[24];
    int ndeaths = 0;
    char st[32];
    for (; events < 24; events++) {
        usleep((useconds_t) (300000 + s_below(&rng, 1200000)));
        if (strcmp(coord_fx_run_status(&fx, run, st, sizeof st), "finished") == 0)
            break;
        uint64_t dice = s_below(&rng, 100);
        if (events == pg_event) {
            printf("+%.1f s: PostgreSQL crash\n", s_now() - t0);
            CHECK(coord_fx_cluster("crash", fx.own_cluster, NULL, 0) == 0);
            usleep((useconds_t) (500000 + s_below(&rng, 1500000)));
            CHECK(coord_fx_cluster("start", fx.own_cluster, NULL, 0) == 0);
            pg_restarts++;
        } else if (events == wipe_event) {
            int i = (int) s_below(&rng, COORD_FX_WORKERS);
            coord_fx_worker_stop(&fx, i, SIGKILL);
            deaths[ndeaths++] = (death_t) { i, s_wall_ms() };
            usleep((useconds_t) s_below(&rng, 1000000));
            s_worker_start(&fx, i, fx.proc.endpoint, true);
            wipes++;
        } else if (dice < 25) {
            printf("+%.1f s: SIGKILL coordinator\n", s_now() - t0);
            CHECK(coord_proc_stop(&fx.proc, SIGKILL) == 128 + SIGKILL);
            usleep((useconds_t) s_below(&rng, 1000000));
            CHECK_MSG(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0, "restart, see %s",
                      fx.proc.log_path);
            coord_kills++;
        } else {
            int i = (int) s_below(&rng, COORD_FX_WORKERS);
            coord_fx_worker_stop(&fx, i, SIGKILL);
            deaths[ndeaths++] = (death_t) { i, s_wall_ms() };
            usleep((useconds_t) s_below(&rng, 1000000));
            s_worker_start(&fx, i, fx.proc.endpoint, false);
            worker_kills++;
        }
    }
    double chaos_end = s_now();
    /* Restarted processes run their start-up bench again: on a busy machine
     * the study needs minutes (the check below is on the waits, not here). */
    bool done = coord_fx_wait_status(&fx, run, "finished", 300);
    double t_done = s_now();
    for (int i = 0; i < COORD_FX_WORKERS; i++)
        coord_fx_worker_stop(&fx, i, SIGTERM);
    CHECK_MSG(done, "the study did not finish (seed %" PRIu64 "; logs in %s/tests/fault_chaos*)",
              seed, CAPA_BINARY_DIR);
    bool acked[3 * 32] = { false };
    wlog_t sum = { 0 };
    for (int i = 0; i < COORD_FX_WORKERS; i++)
        s_read_worker_log(&fx, i, acked, planned, &sum);
    long acked_pairs = 0;
    for (long p = 0; p < planned; p++)
        acked_pairs += acked[p];
    s_check_pairs(&fx, run, planned, acked);
    long long max_wait = -1, max_return = -1;
    long waited = 0;
    for (int k = 0; k < ndeaths; k++) {
        long n = 0;
        long long w = s_wait_after_death(&fx, run, &deaths[k], &n);
        long long r = s_return_after_death(&fx, run, &deaths[k]);
        printf("death of w%d at +%.1f s: lease ended after %lld ms, %ld pair(s) handed out again, "
               "the last after %lld ms\n", deaths[k].worker,
               (double) (deaths[k].at_ms - t0_ms) / 1000.0, r, n, w);
        waited += n;
        if (w > max_wait)
            max_wait = w;
        if (r > max_return)
            max_return = r;
    }
    printf("figure: chaos.seed = %" PRIu64 "\n", seed);
    printf("figure: chaos.events = %d\n", events);
    printf("figure: chaos.worker_sigkills = %d (and %d wiped)\n", worker_kills, wipes);
    printf("figure: chaos.pairs_handed_out_again_after_a_worker_death = %ld\n", waited);
    printf("figure: chaos.longest_wait_death_to_handout_ms = %lld (heartbeat x liveness = "
           "10000)\n", max_wait);
    printf("figure: chaos.longest_wait_death_to_lease_end_ms = %lld\n", max_return);
    printf("figure: chaos.coordinator_sigkills = %d\n", coord_kills);
    printf("figure: chaos.postgres_restarts = %d\n", pg_restarts);
    printf("figure: chaos.pairs_planned = %ld\n", planned);
    printf("figure: chaos.pairs_acknowledged_distinct = %ld\n", acked_pairs);
    printf("figure: chaos.tasks = %ld\n", sum.tasks);
    printf("figure: chaos.pairs_handed_out = %ld\n", sum.pairs_handed);
    printf("figure: chaos.pairs_replayed = %ld\n", sum.pairs_handed - planned);
    printf("figure: chaos.acks = %ld (stored %ld, duplicate %ld)\n", sum.acks, sum.stored,
           sum.duplicate);
    printf("figure: chaos.spool_resends = %ld\n", sum.resends);
    printf("figure: chaos.lease_errors = %ld\n", sum.lease_errors);
    printf("figure: chaos.seconds_chaos = %.1f\n", chaos_end - t0);
    printf("figure: chaos.seconds_to_finish = %.1f\n", t_done - t0);
    CHECK(worker_kills + coord_kills + pg_restarts >= 1);
    /* Not the hour of the lease (the study would not have finished anyway). */
    CHECK_MSG(max_wait < 60000, "a pair waited %lld ms after its worker's death", max_wait);
    coord_fx_down(&fx);
    coord_fx_cluster("destroy", fx.own_cluster, NULL, 0);
}

static void a_worker_cut_off_by_the_network_resends_its_spool_and_nothing_is_counted_twice(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "2", "--heartbeat-ms",
                                         "300", "--liveness", "3", NULL };
    static coord_fx_t fx;
    double t0 = s_now();
    CHECK(coord_fx_up(&fx, "fault_cut", extra) == 0);
    const long planned = 3 * 8;
    int64_t run = s_submit(&fx, VALUES_DOC(8, 2000));
    fault_proxy_t *px = fault_proxy_new(fx.proc.port);
    CHECK(px != NULL);
    char via[64];
    snprintf(via, sizeof via, "tcp://127.0.0.1:%d", fault_proxy_port(px));
    s_worker_start(&fx, 0, via, true);
    /* Cut once the worker has stored a pair (it then holds a task). */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs p JOIN workers w ON w.id = p.worker_id "
             "WHERE p.run_id = %lld AND w.name = 'w0'",
             (long long) run);
    bool started = false;
    for (double end = s_now() + 30; !started && s_now() < end; usleep(50 * 1000))
        started = coord_fx_sql(&fx, sql) >= 1;
    CHECK_MSG(started, "the worker stored nothing through the proxy");
    fault_proxy_cut(px);
    double cut_at = s_now();
    usleep(500 * 1000);   /* what was already on its way lands */
    long at_cut = coord_fx_sql(&fx, sql);
    /* Cut for 3 s, three times the liveness window (300 ms x 3): the
     * coordinator declares the worker dead while it keeps playing and
     * spooling. A second worker joins directly and takes over its pairs. */
    s_worker_start(&fx, 1, fx.proc.endpoint, true);
    usleep(2500 * 1000);
    long during = coord_fx_sql(&fx, sql);
    fault_proxy_heal(px);
    double healed_at = s_now();
    bool done = coord_fx_wait_status(&fx, run, "finished", 90);
    double t_done = s_now();
    for (int i = 0; i < 2; i++)
        coord_fx_worker_stop(&fx, i, SIGTERM);
    CHECK_MSG(done, "the study did not finish; logs in %s/tests/fault_cut*", CAPA_BINARY_DIR);
    bool acked[3 * 8] = { false };
    wlog_t w0 = { 0 }, w1 = { 0 };
    s_read_worker_log(&fx, 0, acked, planned, &w0);
    s_read_worker_log(&fx, 1, acked, planned, &w1);
    s_check_pairs(&fx, run, planned, acked);
    /* The cut was real: nothing from w0 arrived during it, and it came back
     * on a new connection, said HELLO again and resent its spool. */
    CHECK_EQ_INT(during, at_cut);
    CHECK(fault_proxy_accepted(px) >= 2);
    CHECK_MSG(w0.resends >= 1, "w0 never resent its spool");
    long w0_after = coord_fx_sql(&fx, sql);
    printf("figure: cut.seconds_cut = %.1f\n", healed_at - cut_at);
    printf("figure: cut.w0_pairs_before_heal = %ld, at_end = %ld\n", during, w0_after);
    printf("figure: cut.w0_connections = %d\n", fault_proxy_accepted(px));
    printf("figure: cut.w0_spool_resends = %ld, lease_errors = %ld, acks = %ld (stored %ld, "
           "duplicate %ld)\n", w0.resends, w0.lease_errors, w0.acks, w0.stored, w0.duplicate);
    printf("figure: cut.pairs_handed_out = %ld (planned %ld)\n", w0.pairs_handed + w1.pairs_handed,
           planned);
    printf("figure: cut.seconds_to_finish = %.1f\n", t_done - t0);
    fault_proxy_destroy(&px);
    coord_fx_down(&fx);
}

/* A revoked token is refused at the next message of every kind a worker
 * sends (each kind from its own session), and the refusal ends the session. */
static void a_revoked_token_is_refused_at_every_kind_of_message(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "fault_revoke", extra) == 0);
    s_submit(&fx, SPRT_DOC);
    enum { K_REQUEST, K_HEARTBEAT, K_RESULT, K_HELLO, K_COUNT };
    static const char *const kinds[K_COUNT] = { "REQUEST", "HEARTBEAT", "RESULT", "HELLO" };
    coord_client_t *c[K_COUNT];
    proto_msg_t task[K_COUNT];
    memset(task, 0, sizeof task);
    for (int k = 0; k < K_COUNT; k++) {
        char wid[16];
        snprintf(wid, sizeof wid, "r%d", k);
        c[k] = coord_client_join(fx.proc.endpoint, fx.token, wid, 4242);
        CHECK(c[k] != NULL);
        CHECK(coord_client_task(c[k], 2, &task[k]) == 0);
    }
    char err[512];
    CHECK(admin_contributor_revoke(fx.st, "alice", err, sizeof err) == 0);
    /* Past the coordinator's refresh (200 ms in tests), which also catches
     * messages that do not read the database. */
    usleep(700 * 1000);
    for (int k = 0; k < K_COUNT; k++) {
        proto_msg_t m;
        if (k == K_REQUEST) {
            CHECK(coord_client_request(c[k], 1, &m) == 0);
        } else if (k == K_HEARTBEAT) {
            proto_msg_t hb = { .type = PROTO_HEARTBEAT };
            int64_t tasks[1] = { task[k].u.task.task_id };
            hb.u.heartbeat.tasks = tasks;
            hb.u.heartbeat.task_count = 1;
            CHECK(coord_client_send(c[k], &hb) == 0);
            CHECK(coord_client_recv(c[k], &m, 10000) == 0);
        } else if (k == K_RESULT) {
            CHECK(coord_client_deliver(c[k], &task[k].u.task, NULL, 1, NULL, 0, false, &m) == 0);
        } else {
            CHECK(coord_client_hello(c[k], fx.token, "r3", 4242, &m) == 0);
        }
        CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == PROTO_TOKEN_REVOKED,
                  "%s after revocation: got %s %s", kinds[k], proto_type_name(m.type),
                  m.type == PROTO_ERROR ? proto_code_name(m.u.error.code) : "");
        proto_msg_free(&m);
        printf("figure: revoke.%s = TOKEN_REVOKED\n", kinds[k]);
    }
    /* Nothing of the revoked worker's RESULT was stored. */
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs"), 0);
    for (int k = 0; k < K_COUNT; k++) {
        proto_msg_free(&task[k]);
        coord_client_destroy(&c[k]);
    }
    coord_fx_down(&fx);
}

/* With CURVE, the bytes on the wire do not contain the token; without it
 * they do (so the search would have found it). */
static void an_eavesdropper_sees_the_token_only_without_curve(void)
{
    static coord_fx_t fx;
    CHECK(coord_fx_up_curve(&fx, "fault_curve") == 0);
    const char *pub = fx.server_public;
    fault_proxy_t *px = fault_proxy_new(fx.proc.port);
    CHECK(px != NULL);
    char via[64];
    snprintf(via, sizeof via, "tcp://127.0.0.1:%d", fault_proxy_port(px));
    coord_client_t *c = coord_client_new_curve(via, pub);
    proto_msg_t m;
    CHECK(coord_client_hello(c, fx.token, "spied", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    size_t curve_bytes = fault_proxy_bytes(px);
    CHECK(curve_bytes > strlen(fx.token));
    CHECK(!fault_proxy_saw(px, fx.token, strlen(fx.token)));
    /* (ZMTP's own CURVE handshake has a command named HELLO: look for JSON.) */
    CHECK(!fault_proxy_saw(px, "\"token\"", 7));
    /* Control: the same HELLO without CURVE, through a proxy to a plain
     * ROUTER, shows the token (so the search above could have found it). */
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    CHECK(zmq_bind(router, "tcp://127.0.0.1:*") == 0);
    char last[64];
    size_t lastlen = sizeof last;
    CHECK(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, last, &lastlen) == 0);
    fault_proxy_t *px2 = fault_proxy_new(atoi(strrchr(last, ':') + 1));
    CHECK(px2 != NULL);
    snprintf(via, sizeof via, "tcp://127.0.0.1:%d", fault_proxy_port(px2));
    coord_client_t *plain = coord_client_new(via);
    proto_msg_t hm = { .type = PROTO_HELLO };
    snprintf(hm.u.hello.token, sizeof hm.u.hello.token, "%s", fx.token);
    snprintf(hm.u.hello.worker_id, sizeof hm.u.hello.worker_id, "spied");
    snprintf(hm.u.hello.name, sizeof hm.u.hello.name, "spied");
    hm.u.hello.cores = hm.u.hello.concurrency = 1;
    snprintf(hm.u.hello.engine_version, sizeof hm.u.hello.engine_version, "capa-engine test");
    hm.u.hello.bench = 4242;
    CHECK(coord_client_send(plain, &hm) == 0);
    zmq_pollitem_t it = { .socket = router, .events = ZMQ_POLLIN };
    CHECK(zmq_poll(&it, 1, 10000) == 1);
    for (int more = 1; more;) {
        zmq_msg_t f;
        zmq_msg_init(&f);
        CHECK(zmq_msg_recv(&f, router, 0) >= 0);
        more = zmq_msg_more(&f);
        zmq_msg_close(&f);
    }
    coord_client_destroy(&plain);
    CHECK(fault_proxy_saw(px2, fx.token, strlen(fx.token)));
    CHECK(fault_proxy_saw(px2, "\"token\"", 7));
    fault_proxy_destroy(&px2);
    zmq_close(router);
    zmq_ctx_term(ctx);
    printf("figure: curve.bytes_seen = %zu, token_in_clear = no\n", curve_bytes);
    fault_proxy_destroy(&px);
    coord_fx_down(&fx);
}

/* The bench signature the coordinator computed ("bench signature N (own
 * bench"), for a test client's HELLO. */
static int64_t s_coord_bench(const coord_fx_t *fx)
{
    FILE *f = fopen(fx->proc.log_path, "r");
    CHECK(f != NULL);
    char line[1024];
    long long bench = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "bench signature ");
        if (p && strstr(p, "own bench"))
            bench = atoll(p + 16);
    }
    fclose(f);
    CHECK_MSG(bench > 0, "no bench signature in %s", fx->proc.log_path);
    return bench;
}

/* The liar's RESULT for every pair of task: B won both games, every time. */
static int s_lie(coord_client_t *liar, const proto_task_t *t, proto_msg_t *reply)
{
    int scores[PROTO_PAIRS_MAX];
    for (size_t i = 0; i < t->pair_count; i++)
        scores[i] = 4;
    return coord_client_deliver(liar, t, NULL, t->pair_count, scores, 0, true, reply);
}

/* One REQUEST of the liar, and its lies if it gets a task: the answer. */
static proto_type_t s_liar_request(coord_client_t *liar, int slots, long *lies, long *tasks)
{
    proto_msg_t m;
    CHECK(coord_client_request(liar, slots, &m) == 0);
    proto_type_t type = m.type;
    if (m.type == PROTO_TASK) {
        proto_msg_t a;
        CHECK(s_lie(liar, &m.u.task, &a) == 0);
        CHECK_MSG(a.type == PROTO_ACK, "liar RESULT: %s %s", proto_type_name(a.type),
                  a.type == PROTO_ERROR ? a.u.error.text : "");
        proto_msg_free(&a);
        *lies += (long) m.u.task.pair_count;
        (*tasks)++;
    } else {
        CHECK_MSG(m.type == PROTO_NO_TASK, "liar REQUEST: %s", proto_type_name(m.type));
    }
    proto_msg_free(&m);
    return type;
}

/* How many of the liar's pair numbers of a run are counted for someone else. */
static long s_liar_numbers_replayed(coord_fx_t *fx, int64_t run)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs l JOIN pairs h ON h.run_id = l.run_id "
             "AND h.pair_no = l.pair_no AND NOT h.excluded AND h.worker_id <> 'liar' "
             "WHERE l.run_id = %lld AND l.worker_id = 'liar'", (long long) run);
    return coord_fx_sql(fx, sql);
}

/* Two honest capa-workers and a liar (a protocol client that reports B
 * winning both games of every pair it gets, verify tasks included). The
 * liar's first task comes before any honest pair is stored, so it holds
 * pairs of the run that count until the liar is caught. With verify_rate 1
 * every stored pair is replayed on another worker: the liar disagrees with
 * both honest workers and is flagged; from then on it gets NO_TASK. Its
 * pairs stay stored but excluded, their numbers are played again by the
 * honest workers, and the study ends with exactly its planned pairs counted,
 * each number once; the counters, the recount, the report and the estimate
 * agree; no honest worker is flagged although the liar "verified" some of
 * their pairs. */
static void a_lying_worker_is_caught_by_replays_and_its_pairs_excluded(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "1", "--verify-rate",
                                         "1", NULL };
    static coord_fx_t fx;
    double t0 = s_now();
    CHECK(coord_fx_up(&fx, "fault_liar", extra) == 0);
    const long planned = 3 * 8;
    int64_t run = s_submit(&fx, VALUES_DOC(8, 2000));
    int64_t bench = s_coord_bench(&fx);
    /* The liar takes a task of the run before anything is stored (so it is
     * no replay) and holds it while the honest workers start; then its lies
     * count until it is caught, and its REQUESTs bring it replays of their
     * pairs. */
    coord_client_t *liar = coord_client_join(fx.proc.endpoint, fx.token, "liar", bench);
    CHECK(liar != NULL);
    proto_msg_t first;
    bool got = false;
    for (double end = s_now() + 30; !got && s_now() < end;) {
        CHECK(coord_client_request(liar, 2, &first) == 0);
        got = first.type == PROTO_TASK;
        if (!got) {
            proto_msg_free(&first);
            usleep(100 * 1000);
        }
    }
    CHECK_MSG(got, "the liar got no task of the run");
    s_worker_start(&fx, 0, fx.proc.endpoint, true);
    s_worker_start(&fx, 1, fx.proc.endpoint, true);
    proto_msg_t hb = { .type = PROTO_HEARTBEAT };
    for (double end = s_now() + 30; s_now() < end; usleep(300 * 1000)) {
        CHECK(coord_client_send(liar, &hb) == 0);   /* alive, holding its lease */
        if (coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id <> 'liar'") >= 2)
            break;
    }
    long lies = (long) first.u.task.pair_count, liar_tasks = 1, tasks_flagged = 0;
    proto_msg_t a;
    CHECK(s_lie(liar, &first.u.task, &a) == 0);
    CHECK_MSG(a.type == PROTO_ACK && a.u.ack.stored_count == first.u.task.pair_count,
              "the liar's first RESULT: %s", proto_type_name(a.type));
    proto_msg_free(&a);
    proto_msg_free(&first);
    char st[32];
    bool flagged = false, finished = false;
    for (double end = s_now() + 150; s_now() < end && !(flagged && finished);) {
        finished = strcmp(coord_fx_run_status(&fx, run, st, sizeof st), "finished") == 0;
        flagged = coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE id = 'liar' "
                                    "AND flagged") == 1;
        if (s_liar_request(liar, 2, &lies, &liar_tasks) == PROTO_TASK && flagged)
            tasks_flagged++;
        usleep(700 * 1000);   /* a liar that keeps a believable pace */
    }
    double t_end = s_now();
    coord_client_destroy(&liar);
    for (int i = 0; i < 2; i++)
        coord_fx_worker_stop(&fx, i, SIGTERM);
    CHECK_MSG(finished, "the study did not finish; logs in %s/tests/fault_liar*", CAPA_BINARY_DIR);
    CHECK_MSG(flagged, "the liar was not flagged (%ld lies in %ld tasks)", lies, liar_tasks);
    CHECK_MSG(tasks_flagged == 0, "the flagged liar got %ld tasks", tasks_flagged);
    char sql[512];
    /* Honest workers are not flagged. */
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE flagged "
                                   "AND id <> 'liar'"), 0);
    long liar_pairs = coord_fx_sql(&fx, "SELECT count(*) FROM pairs p JOIN workers w "
                                        "ON w.id = p.worker_id WHERE w.id = 'liar'");
    CHECK(liar_pairs >= 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs p JOIN workers w "
                                   "ON w.id = p.worker_id WHERE w.id = 'liar' AND NOT p.excluded"),
                 0);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs p JOIN workers w "
                                   "ON w.id = p.worker_id WHERE w.id <> 'liar' AND p.excluded"),
                 0);
    /* Every planned number counted exactly once, the liar's ones too (by an
     * honest worker); the liar's pairs kept beside them. */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND NOT excluded",
             (long long) run);
    long counted = coord_fx_sql(&fx, sql);
    CHECK_EQ_INT(counted, planned);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT pair_no) FROM pairs WHERE run_id = %lld "
             "AND NOT excluded AND pair_no BETWEEN 0 AND %ld", (long long) run, planned - 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), planned);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), planned + liar_pairs);
    long replayed = s_liar_numbers_replayed(&fx, run);
    CHECK_EQ_INT(replayed, liar_pairs);
    /* Counters = recount without the liar = the planned pairs. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs r JOIN run_totals_recount t ON t.run_id = r.id "
             "WHERE r.id = %lld AND r.pairs_done = t.pairs_done AND r.penta0 = t.penta0 "
             "AND r.penta1 = t.penta1 AND r.penta2 = t.penta2 AND r.penta3 = t.penta3 "
             "AND r.penta4 = t.penta4 AND r.wins = t.wins AND r.draws = t.draws "
             "AND r.losses = t.losses", (long long) run);
    CHECK_MSG(coord_fx_sql(&fx, sql) == 1, "run counters differ from run_totals_recount");
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), planned);
    /* The report and the piece-value fit saw the planned pairs, no lie. */
    snprintf(sql, sizeof sql, "SELECT (result->>'pairs')::bigint FROM runs WHERE id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), planned);
    snprintf(sql, sizeof sql, "SELECT pairs_used FROM estimates WHERE run_id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), planned);
    snprintf(sql, sizeof sql, "SELECT sum(wins + draws + losses) FROM imbalance_games "
             "WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 2 * planned);
    /* Workers' accounting: every pair stored, the liar's too, once. */
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT coalesce(sum(pairs), 0) FROM workers"),
                 coord_fx_sql(&fx, "SELECT count(*) FROM pairs"));
    long checked = coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE verified IS NOT NULL");
    long mism = coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE verified = false");
    long honest_ok = coord_fx_sql(&fx, "SELECT count(*) FROM pairs p JOIN workers w "
                                       "ON w.id = p.worker_id WHERE w.id <> 'liar' AND p.verified "
                                       "AND p.verified_by IN "
                                       "(SELECT id FROM workers WHERE id <> 'liar')");
    /* Honest replays of honest pairs reproduce: determinism across workers. */
    CHECK(honest_ok >= 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs p JOIN workers w "
                                   "ON w.id = p.worker_id JOIN workers v ON v.id = p.verified_by "
                                   "WHERE w.id <> 'liar' AND v.id <> 'liar' AND NOT p.verified"),
                 0);
    printf("figure: liar.pairs_planned = %ld\n", planned);
    printf("figure: liar.tasks = %ld, fabricated_pairs = %ld (stored %ld, all excluded, "
           "%ld replayed by honest workers), counted = %ld of %ld planned\n", liar_tasks, lies,
           liar_pairs, replayed, counted, planned);
    printf("figure: liar.pairs_verified = %ld, mismatches = %ld, honest_reproduced_by_honest = %ld\n",
           checked, mism, honest_ok);
    printf("figure: liar.flagged = yes, honest_flagged = 0, seconds = %.1f\n", t_end - t0);
    coord_fx_down(&fx);
}

/* Two honest capa-workers play an sprt run with replays off; a liar joins
 * once they have stored 40 pairs and reports B winning every pair. The
 * outlier test (every second here) flags it; honest workers stay unflagged,
 * its pairs are excluded and the counters equal the recount. */
static void a_worker_whose_results_are_unlike_the_others_is_flagged_as_an_outlier(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "1", "--verify-rate",
                                         "0", "--outlier-p", "1e-6", "--outlier-seconds", "1",
                                         NULL };
    static coord_fx_t fx;
    double t0 = s_now();
    CHECK(coord_fx_up(&fx, "fault_outlier", extra) == 0);
    /* Hypotheses 4 Elo apart and alpha = beta = 1e-6: the SPRT needs far
     * more than the liar's pairs to stop. */
    int64_t run = s_submit(&fx, "{\"kind\":\"sprt\",\"name\":\"o\",\"seed\":3,\"variant\":\"caparandom\","
                                "\"game\":{\"nodes\":300,\"max_plies\":160},\"a\":{},\"b\":{},"
                                "\"elo0\":-2,\"elo1\":2,\"alpha\":1e-6,\"beta\":1e-6,"
                                "\"max_pairs\":2000}");
    int64_t bench = s_coord_bench(&fx);
    s_worker_start(&fx, 0, fx.proc.endpoint, true);
    s_worker_start(&fx, 1, fx.proc.endpoint, true);
    bool enough = false;
    for (double end = s_now() + 60; !enough && s_now() < end; usleep(200 * 1000))
        enough = coord_fx_sql(&fx, "SELECT count(*) FROM pairs") >= 40;
    CHECK_MSG(enough, "the honest workers stored fewer than 40 pairs in 60 s");
    coord_client_t *liar = coord_client_join(fx.proc.endpoint, fx.token, "liar", bench);
    CHECK(liar != NULL);
    proto_msg_t m;
    long lies = 0;
    bool flagged = false;
    double t_join = s_now(), t_flag = 0;
    for (double end = s_now() + 60; !flagged && s_now() < end;) {
        CHECK(coord_client_request(liar, 4, &m) == 0);
        if (m.type == PROTO_TASK) {
            const proto_task_t *t = &m.u.task;
            proto_msg_t a;
            CHECK(s_lie(liar, t, &a) == 0);
            CHECK_MSG(a.type == PROTO_ACK, "liar RESULT: %s", proto_type_name(a.type));
            proto_msg_free(&a);
            lies += (long) t->pair_count;
        }
        proto_msg_free(&m);
        usleep(300 * 1000);
        flagged = coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE id = 'liar' "
                                    "AND flagged") == 1;
        if (flagged)
            t_flag = s_now();
    }
    /* Flagged: no more tasks for it, and its numbers go to the honest
     * workers (returned numbers first). */
    long no_lies = 0, no_tasks = 0;
    if (flagged)
        CHECK_EQ_INT(s_liar_request(liar, 4, &no_lies, &no_tasks), PROTO_NO_TASK);
    long liar_numbers = coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id = 'liar'");
    long replayed = -1;
    for (double end = s_now() + 60; flagged && s_now() < end; usleep(200 * 1000))
        if ((replayed = s_liar_numbers_replayed(&fx, run)) == liar_numbers)
            break;
    double t_replayed = s_now();
    coord_client_destroy(&liar);
    for (int i = 0; i < 2; i++)
        coord_fx_worker_stop(&fx, i, SIGTERM);
    CHECK_MSG(flagged, "the liar was not flagged after %ld fabricated pairs", lies);
    CHECK_MSG(replayed == liar_numbers, "%ld of the liar's %ld numbers played again in 60 s",
              replayed, liar_numbers);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM workers WHERE id = 'liar' AND flag_reason LIKE "
             "'%%chi-squared%%'");
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE flagged "
                                   "AND id <> 'liar'"), 0);
    long liar_pairs = coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id = 'liar'");
    CHECK(liar_pairs >= 30);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id = 'liar' "
                                   "AND NOT excluded"), 0);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id <> 'liar' "
                                   "AND excluded"), 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs r JOIN run_totals_recount t ON t.run_id = r.id "
             "WHERE r.id = %lld AND r.pairs_done = t.pairs_done AND r.penta0 = t.penta0 "
             "AND r.penta1 = t.penta1 AND r.penta2 = t.penta2 AND r.penta3 = t.penta3 "
             "AND r.penta4 = t.penta4 AND r.wins = t.wins AND r.draws = t.draws "
             "AND r.losses = t.losses", (long long) run);
    CHECK_MSG(coord_fx_sql(&fx, sql) == 1, "run counters differ from run_totals_recount");
    long honest = coord_fx_sql(&fx, "SELECT count(*) FROM pairs WHERE worker_id <> 'liar'");
    printf("figure: outlier.honest_pairs = %ld, liar_pairs = %ld (all excluded)\n", honest,
           liar_pairs);
    printf("figure: outlier.seconds_from_liar_join_to_flag = %.1f, "
           "from_flag_to_its_numbers_replayed = %.1f, total = %.1f\n",
           t_flag - t_join, t_replayed - t_flag, s_now() - t0);
    coord_fx_down(&fx);
}

/* Gaps left by test_coord's hostile table: HELLO without a token or with an
 * SQL-looking one, a pair twice in one RESULT, results for verify tasks that
 * are unknown or another worker's; each gets its documented ERROR, nothing
 * is stored, and a well-behaved worker is served throughout. */
static void more_hostile_messages_get_their_errors_and_nothing_is_stored(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "fault_hostile", extra) == 0);
    s_submit(&fx, SPRT_DOC);
    coord_client_t *evil = coord_client_new(fx.proc.endpoint);
    CHECK(evil != NULL);
    struct {
        const char *what;
        const char *json;
        proto_code_t code;
    } pre[] = {
        { "HELLO without a token", "{\"v\":1,\"type\":\"HELLO\",\"worker\":\"e\",\"name\":\"e\","
          "\"cores\":1,\"concurrency\":1,\"engine\":\"x\",\"bench\":4242,\"nps\":1}", PROTO_BAD_SCHEMA },
        { "HELLO with an SQL token", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"x' OR '1'='1\","
          "\"worker\":\"e\",\"name\":\"e\",\"cores\":1,\"concurrency\":1,\"engine\":\"x\","
          "\"bench\":4242,\"nps\":1}", PROTO_BAD_SCHEMA },
        { "HELLO with an empty token", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"\",\"worker\":\"e\","
          "\"name\":\"e\",\"cores\":1,\"concurrency\":1,\"engine\":\"x\",\"bench\":4242,\"nps\":1}",
          PROTO_BAD_SCHEMA },
        { "HELLO with a token as a number", "{\"v\":1,\"type\":\"HELLO\",\"token\":12,\"worker\":\"e\","
          "\"name\":\"e\",\"cores\":1,\"concurrency\":1,\"engine\":\"x\",\"bench\":4242,\"nps\":1}",
          PROTO_BAD_SCHEMA },
        { "REQUEST before HELLO", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1}", PROTO_UNKNOWN_WORKER },
    };
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        CHECK(coord_client_send_raw(evil, pre[i].json, strlen(pre[i].json)) == 0);
        proto_msg_t m;
        CHECK_MSG(coord_client_recv(evil, &m, 10000) == 0, "%s: no reply", pre[i].what);
        CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == pre[i].code, "%s: got %s %s",
                  pre[i].what, proto_type_name(m.type),
                  m.type == PROTO_ERROR ? proto_code_name(m.u.error.code) : "");
        proto_msg_free(&m);
    }
    coord_client_destroy(&evil);
    coord_client_t *good = coord_client_join(fx.proc.endpoint, fx.token, "good", 4242);
    evil = coord_client_join(fx.proc.endpoint, fx.token, "evil", 4242);
    CHECK(good != NULL);
    CHECK(evil != NULL);
    proto_msg_t m, gt;
    CHECK(coord_client_task(evil, 2, &gt) == 0);
    CHECK(gt.u.task.pair_count >= 1);
    /* The same pair twice in one RESULT. */
    int64_t twice[2] = { gt.u.task.pairs[0].pair, gt.u.task.pairs[0].pair };
    proto_result_t res;
    CHECK(coord_client_make_result(&gt.u.task, twice, 1, NULL, 0, false, &res) == 0);
    char frame[4096];
    proto_msg_t rm = { .type = PROTO_RESULT };
    rm.u.result = res;
    char err[256];
    size_t len = 0;
    char *enc = NULL;
    CHECK(proto_encode(&rm, &enc, &len, err, sizeof err) == 0);
    proto_result_free(&res);
    /* Splice a copy of the pair object into the array: [P] -> [P,P]. */
    char *open = strstr(enc, "\"pairs\":[");
    CHECK(open != NULL);
    open += 9;
    char *close = strrchr(enc, ']');
    CHECK(close != NULL && close > open);
    int n = snprintf(frame, sizeof frame, "%.*s%.*s,%.*s%s", (int) (open - enc), enc,
                     (int) (close - open), open, (int) (close - open), open, close);
    free(enc);
    CHECK(n > 0 && (size_t) n < sizeof frame);
    CHECK(coord_client_send_raw(evil, frame, (size_t) n) == 0);
    CHECK(coord_client_recv(evil, &m, 10000) == 0);
    CHECK_MSG(m.type == PROTO_ERROR && (m.u.error.code == PROTO_INCONSISTENT_RESULT ||
                                        m.u.error.code == PROTO_BAD_SCHEMA),
              "a pair twice: got %s %s", proto_type_name(m.type),
              m.type == PROTO_ERROR ? proto_code_name(m.u.error.code) : "");
    proto_msg_free(&m);
    /* A RESULT for a verify-range task nobody was given. */
    proto_task_t fake = gt.u.task;
    fake.task_id = fake.lease_id = VERIFY_TASK_BASE + 12345;
    int64_t one[1] = { gt.u.task.pairs[0].pair };
    CHECK(coord_client_deliver(evil, &fake, one, 1, NULL, 0, true, &m) == 0);
    CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == PROTO_LEASE_UNKNOWN, "verify task: got %s",
              proto_type_name(m.type));
    proto_msg_free(&m);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs"), 0);
    /* The good worker is served and stores its pair. */
    proto_msg_t tt;
    CHECK(coord_client_task(good, 1, &tt) == 0);
    CHECK(coord_client_deliver(good, &tt.u.task, NULL, 1, NULL, 0, false, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_ACK);
    proto_msg_free(&m);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs"), 1);
    proto_msg_free(&tt);
    proto_msg_free(&gt);
    coord_client_destroy(&good);
    coord_client_destroy(&evil);
    coord_fx_down(&fx);
}

/* Issue 16: PostgreSQL crashes (immediate stop) at a random moment of the
 * coordinator's first 10 s and comes back 2 s later. The coordinator waits
 * for it in whatever start-up step it is, answers INTERNAL meanwhile, and
 * then serves: a worker joins, gets a task and its result is stored.
 * CAPA_FAULT_CRASH_MS=<ms after the start> places the crash. */
static void the_coordinator_survives_a_database_crash_during_its_start_up(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up_own_cluster(&fx, "fault_startup", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC);
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGKILL), 128 + SIGKILL);
    uint64_t seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 16);
    stats_rng_t rng;
    stats_rng_seed(&rng, seed);
    long crash_ms = (long) s_below(&rng, 10000);
    const char *env = getenv("CAPA_FAULT_CRASH_MS");
    if (env && *env)
        crash_ms = strtol(env, NULL, 10);
    printf("crash %ld ms after the coordinator's start (CAPA_FAULT_CRASH_MS=%ld replays it)\n",
           crash_ms, crash_ms);
    fflush(stdout);
    char back[700], line[2400];
    snprintf(back, sizeof back, "%s.back", fx.own_cluster);
    unlink(back);
    snprintf(line, sizeof line, "(sleep %.3f; '%s' crash '%s' >/dev/null 2>&1; sleep 2; "
             "'%s' start '%s' >/dev/null 2>&1; touch '%s') &", crash_ms / 1000.0, CAPA_PGTMP,
             fx.own_cluster, CAPA_PGTMP, fx.own_cluster, back);
    CHECK(system(line) == 0);
    double t0 = s_now();
    CHECK_MSG(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0,
              "the coordinator did not come up (crash at %ld ms); see %s", crash_ms,
              fx.proc.log_path);
    /* The crash and the restart are over. */
    for (int i = 0; i < 300 && access(back, F_OK) != 0; i++)
        usleep(100 * 1000);
    CHECK(access(back, F_OK) == 0);
    int status;
    CHECK_MSG(waitpid(fx.proc.pid, &status, WNOHANG) == 0,
              "the coordinator exited (crash at %ld ms); see %s", crash_ms, fx.proc.log_path);
    /* It serves: a worker joins (INTERNAL while it still waits), gets a task
     * and a pair of it is stored. */
    coord_client_t *c = NULL;
    for (int i = 0; i < 150 && !c; i++) {
        c = coord_client_new(fx.proc.endpoint);
        proto_msg_t m;
        int rc = coord_client_hello(c, fx.token, "w-start", s_coord_bench(&fx), &m);
        bool welcome = rc == 0 && m.type == PROTO_WELCOME;
        if (rc == 0)
            proto_msg_free(&m);
        if (!welcome) {
            coord_client_destroy(&c);
            usleep(200 * 1000);
        }
    }
    CHECK_MSG(c != NULL, "no WELCOME within 30 s (crash at %ld ms); see %s", crash_ms,
              fx.proc.log_path);
    double t_welcome = s_now();
    proto_msg_t tm;
    CHECK(coord_client_task(c, 1, &tm) == 0);
    proto_msg_t m;
    CHECK(coord_client_deliver(c, &tm.u.task, NULL, 1, NULL, 0, false, &m) == 0);
    CHECK_MSG(m.type == PROTO_ACK, "RESULT answered %s", proto_type_name(m.type));
    proto_msg_free(&m);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    CHECK_MSG(waitpid(fx.proc.pid, &status, WNOHANG) == 0, "the coordinator exited");
    printf("figure: startup_crash.crash_ms = %ld\n", crash_ms);
    printf("figure: startup_crash.seconds_to_welcome = %.1f\n", t_welcome - t0);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
    coord_fx_cluster("destroy", fx.own_cluster, NULL, 0);
}

static const check_case_t CASES[] = {
    CASE(a_chaos_run_stores_exactly_the_planned_pairs),
    CASE(a_worker_cut_off_by_the_network_resends_its_spool_and_nothing_is_counted_twice),
    CASE(a_revoked_token_is_refused_at_every_kind_of_message),
    CASE(an_eavesdropper_sees_the_token_only_without_curve),
    CASE(a_lying_worker_is_caught_by_replays_and_its_pairs_excluded),
    CASE(more_hostile_messages_get_their_errors_and_nothing_is_stored),
    CASE(a_worker_whose_results_are_unlike_the_others_is_flagged_as_an_outlier),
    CASE(the_coordinator_survives_a_database_crash_during_its_start_up),
    { 0 },
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, CASES);
}
