/* Integration tests of capa-coordinator: a real coordinator process on a
 * loopback port, its own database on the ctest cluster (tests/pgtest.h), and
 * test clients speaking protocol v1 over DEALER sockets. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <libpq-fe.h>

#include "admin.h"
#include "check.h"
#include "coord_fixture.h"
#include "err.h"
#include "store.h"
#include "token.h"

static int64_t s_submit(coord_fx_t *fx, const char *doc)
{
    int64_t id = coord_fx_submit(fx, doc);
    CHECK(id > 0);
    return id;
}

#define SPRT_DOC(pairs)                                                                      \
    "{\"kind\":\"sprt\",\"name\":\"t\",\"seed\":7,\"variant\":\"caparandom\","               \
    "\"game\":{\"nodes\":1000},\"a\":{},\"b\":{\"ArchbishopValueMg\":875},"                 \
    "\"elo0\":0,\"elo1\":5,\"max_pairs\":" #pairs "}"

/* A client that said HELLO and got WELCOME. */
static coord_client_t *s_client(coord_fx_t *fx, const char *worker)
{
    coord_client_t *c = coord_client_join(fx->proc.endpoint, fx->token, worker, 4242);
    CHECK(c != NULL);
    return c;
}

/* REQUESTs until a TASK comes (runs appear within the refresh period). */
static void s_task(coord_client_t *c, int slots, proto_msg_t *task)
{
    CHECK(coord_client_task(c, slots, task) == 0);
}

static void s_expect_error(coord_client_t *c, proto_code_t code)
{
    proto_msg_t m;
    CHECK_MSG(coord_client_recv(c, &m, 10000) == 0, "no reply (expected %s)", proto_code_name(code));
    CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == code, "expected ERROR %s, got %s %s (%s)",
              proto_code_name(code), proto_type_name(m.type),
              m.type == PROTO_ERROR ? proto_code_name(m.u.error.code) : "",
              m.type == PROTO_ERROR ? m.u.error.text : "");
    proto_msg_free(&m);
}

/* Sends a RESULT for the given pairs of task and expects an ACK. */
static void s_deliver(coord_client_t *c, const proto_task_t *t, const int64_t *pairs, size_t n,
                      const int *scores, int64_t batch, bool last, size_t want_stored)
{
    proto_msg_t m;
    CHECK(coord_client_deliver(c, t, pairs, n, scores, batch, last, &m) == 0);
    CHECK_MSG(m.type == PROTO_ACK, "RESULT answered %s %s", proto_type_name(m.type),
              m.type == PROTO_ERROR ? m.u.error.text : "");
    CHECK_EQ_INT(m.u.ack.task_id, t->task_id);
    CHECK_EQ_INT(m.u.ack.batch, batch);
    CHECK_EQ_INT(m.u.ack.stored_count + m.u.ack.duplicate_count, n);
    CHECK_EQ_INT(m.u.ack.stored_count, want_stored);
    proto_msg_free(&m);
}

static void s_all_pairs(const proto_task_t *t, int64_t *out)
{
    for (size_t i = 0; i < t->pair_count; i++)
        out[i] = t->pairs[i].pair;
}

/* ---- cases ---------------------------------------------------------------- */

static void registration_checks_token_and_bench_signature(void)
{
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_auth", NULL) == 0);
    coord_client_t *c = coord_client_new(fx.proc.endpoint);
    proto_msg_t m;
    /* Anything before HELLO: UNKNOWN_WORKER. */
    CHECK(coord_client_request(c, 1, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_UNKNOWN_WORKER);
    proto_msg_free(&m);
    /* A well-formed token nobody issued. */
    CHECK(coord_client_hello(c, "capa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "w1", 4242, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_AUTH_FAILED);
    proto_msg_free(&m);
    /* The right token with another engine build. */
    CHECK(coord_client_hello(c, fx.token, "w1", 4243, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_SIGNATURE_MISMATCH);
    CHECK(strstr(m.u.error.text, "4242") != NULL);
    proto_msg_free(&m);
    /* Both right. */
    CHECK(coord_client_hello(c, fx.token, "w1", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    CHECK_EQ_INT(m.u.welcome.bench, 4242);
    CHECK(m.u.welcome.heartbeat_ms >= 100);
    CHECK(m.u.welcome.session[0] != 0);
    proto_msg_free(&m);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE id = 'w1'"), 1);
    /* A revoked token is refused at HELLO. */
    char bob[TOKEN_TEXT_MAX], err[256];
    CHECK(admin_contributor_add(fx.st, "bob", false, bob, sizeof bob, NULL, err, sizeof err) == 0);
    CHECK(admin_contributor_revoke(fx.st, "bob", err, sizeof err) == 0);
    coord_client_t *b = coord_client_new(fx.proc.endpoint);
    CHECK(coord_client_hello(b, bob, "wb", 4242, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_TOKEN_REVOKED);
    proto_msg_free(&m);
    /* The same worker id under another contributor's token is refused. */
    char carol[TOKEN_TEXT_MAX];
    CHECK(admin_contributor_add(fx.st, "carol", false, carol, sizeof carol, NULL, err, sizeof err) == 0);
    CHECK(coord_client_hello(b, carol, "w1", 4242, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_AUTH_FAILED);
    proto_msg_free(&m);
    coord_client_destroy(&b);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void a_revoked_worker_is_refused_at_its_next_message(void)
{
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_revoke", NULL) == 0);
    coord_client_t *c = s_client(&fx, "w1");
    coord_client_t *d = s_client(&fx, "w2");
    char err[256];
    CHECK(admin_contributor_revoke(fx.st, "alice", err, sizeof err) == 0);
    /* A REQUEST is checked against the database at once. */
    proto_msg_t m;
    CHECK(coord_client_request(c, 1, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_TOKEN_REVOKED);
    proto_msg_free(&m);
    /* The session is gone. */
    CHECK(coord_client_request(c, 1, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_UNKNOWN_WORKER);
    proto_msg_free(&m);
    /* Any other message after the next refresh (200 ms here). */
    usleep(600 * 1000);
    proto_msg_t hb = { .type = PROTO_HEARTBEAT };
    CHECK(coord_client_send(d, &hb) == 0);
    s_expect_error(d, PROTO_TOKEN_REVOKED);
    coord_client_destroy(&c);
    coord_client_destroy(&d);
    coord_fx_down(&fx);
}

/* A time-control run: the TASK's clock is the run's scaled by the
 * coordinator's reference speed over the worker's (the client says 1e6 nps). */
static void a_time_control_is_scaled_to_the_worker_speed(void)
{
    static const char *const extra[] = { "--reference_nps", "2000000", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_tc", extra) == 0);
    s_submit(&fx, "{\"kind\":\"sprt\",\"name\":\"tc\",\"seed\":7,\"variant\":\"caparandom\","
                  "\"game\":{\"tc_base_ms\":10000,\"tc_inc_ms\":100},\"a\":{},"
                  "\"b\":{\"ArchbishopValueMg\":875},\"max_pairs\":100}");
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 1, &tm);
    CHECK_EQ_INT(tm.type, PROTO_TASK);
    CHECK_EQ_INT(tm.u.task.game.nodes, 0);
    CHECK_EQ_INT(tm.u.task.game.tc_base_ms, 20000);
    CHECK_EQ_INT(tm.u.task.game.tc_inc_ms, 200);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void a_result_is_committed_before_its_ack(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_result", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(100));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 2, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->run_id, run);
    CHECK_EQ_INT(t->kind, PROTO_KIND_SPRT);
    CHECK(t->pair_count >= 2 && t->pair_count <= 100);
    CHECK_EQ_INT(t->pairs[0].pair, 0);
    for (size_t i = 1; i < t->pair_count; i++)
        CHECK_EQ_INT(t->pairs[i].pair, t->pairs[i - 1].pair + 1);
    CHECK(t->pairs[0].fen[0] != 0);
    CHECK_EQ_INT(t->b.count, 1);
    CHECK_EQ_STR(t->b.items[0].name, "ArchbishopValueMg");
    CHECK_EQ_INT(t->game.nodes, 1000);
    CHECK(t->game.chess960);
    int64_t pairs[PROTO_PAIRS_MAX];
    s_all_pairs(t, pairs);
    size_t n = t->pair_count;
    s_deliver(c, t, pairs, n, NULL, 0, true, n);
    /* Committed: the pairs, the counters, the lease closed. */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), n);
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), n);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM tasks WHERE id = %lld AND status = 'done'",
             (long long) t->task_id);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT pairs FROM workers WHERE id = 'w1'"), n);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT games FROM workers WHERE id = 'w1'"), 2 * n);
    snprintf(sql, sizeof sql, "SELECT fen FROM pairs WHERE run_id = %lld AND pair_no = 0",
             (long long) run);
    char *fen = coord_fx_sql_text(&fx, sql);
    CHECK(fen != NULL);
    CHECK_EQ_STR(fen, t->pairs[0].fen);
    free(fen);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'running'",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    /* The next task continues after the last pair. */
    proto_msg_t tm2;
    s_task(c, 2, &tm2);
    CHECK_EQ_INT(tm2.u.task.pairs[0].pair, (int64_t) n);
    proto_msg_free(&tm2);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

/* The commit of a RESULT's pairs runs on the writer thread: while it waits
 * (here on a lock held by the test), TASKs still go out, and the ACK waits
 * for the commit. */
static void tasks_go_out_while_a_result_waits_for_its_commit(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_writer", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(100));
    coord_client_t *c1 = s_client(&fx, "w1"), *c2 = s_client(&fx, "w2");
    proto_msg_t tm;
    s_task(c1, 2, &tm);
    const proto_task_t *t = &tm.u.task;
    PGconn *lock = PQconnectdb(fx.ci);
    CHECK(PQstatus(lock) == CONNECTION_OK);
    PGresult *r = PQexec(lock, "BEGIN; LOCK TABLE pairs IN EXCLUSIVE MODE");
    CHECK_MSG(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
    PQclear(r);
    int64_t pairs[PROTO_PAIRS_MAX];
    s_all_pairs(t, pairs);
    size_t n = t->pair_count;
    proto_msg_t res = { .type = PROTO_RESULT };
    CHECK(coord_client_make_result(t, pairs, n, NULL, 0, true, &res.u.result) == 0);
    CHECK(coord_client_send(c1, &res) == 0);
    proto_msg_t m;
    CHECK_MSG(coord_client_recv(c1, &m, 1000) < 0, "answered %s before the commit",
              proto_type_name(m.type));
    proto_msg_t req = { .type = PROTO_REQUEST };
    req.u.request.slots = 2;
    CHECK(coord_client_send(c2, &req) == 0);
    CHECK_MSG(coord_client_recv(c2, &m, 2000) == 0, "no answer to a REQUEST while a commit waits");
    CHECK_MSG(m.type == PROTO_TASK, "REQUEST answered %s", proto_type_name(m.type));
    CHECK(m.u.task.pairs[0].pair > t->pairs[n - 1].pair);
    proto_msg_free(&m);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 0);
    r = PQexec(lock, "COMMIT");
    PQclear(r);
    PQfinish(lock);
    CHECK_MSG(coord_client_recv(c1, &m, 10000) == 0, "no ACK after the commit");
    CHECK_MSG(m.type == PROTO_ACK, "RESULT answered %s", proto_type_name(m.type));
    CHECK_EQ_INT(m.u.ack.stored_count, n);
    proto_msg_free(&m);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), n);
    proto_result_free(&res.u.result);
    proto_msg_free(&tm);
    coord_client_destroy(&c1);
    coord_client_destroy(&c2);
    coord_fx_down(&fx);
}

static void a_replayed_result_is_acknowledged_again_and_counted_once(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_replay", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(100));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 4, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK(t->pair_count >= 4);
    int64_t pairs[PROTO_PAIRS_MAX];
    s_all_pairs(t, pairs);
    s_deliver(c, t, pairs, 2, NULL, 0, false, 2);
    s_deliver(c, t, pairs, 2, NULL, 0, false, 0);        /* the same batch again */
    s_deliver(c, t, pairs, 3, NULL, 1, false, 1);        /* overlapping: one new */
    s_deliver(c, t, pairs, t->pair_count, NULL, 2, true, t->pair_count - 3);
    s_deliver(c, t, pairs, 2, NULL, 0, false, 0);        /* after the lease closed */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), t->pair_count);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT pairs FROM workers WHERE id = 'w1'"), t->pair_count);
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM run_totals_recount WHERE run_id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), t->pair_count);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void lease_expiry_returns_exactly_the_unplayed_pairs(void)
{
    static const char *const extra[] = { "--task-seconds", "1", "--lease-seconds", "2", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_expiry", extra) == 0);
    s_submit(&fx, SPRT_DOC(8));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 8, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->pair_count, 8);   /* slots 8: the whole run */
    CHECK_EQ_INT(t->lease_seconds, 2);
    int64_t played[2] = { 0, 2 };
    s_deliver(c, t, played, 2, NULL, 0, false, 2);
    sleep(3);
    /* Another worker now gets exactly 1 and 3..7, lowest first. */
    coord_client_t *d = s_client(&fx, "w2");
    proto_msg_t a, b;
    s_task(d, 8, &a);
    CHECK_EQ_INT(a.u.task.pair_count, 1);
    CHECK_EQ_INT(a.u.task.pairs[0].pair, 1);
    /* The same pair number gives the same start. */
    CHECK_EQ_STR(a.u.task.pairs[0].fen, t->pairs[1].fen);
    s_task(d, 8, &b);
    CHECK_EQ_INT(b.u.task.pair_count, 5);
    CHECK_EQ_INT(b.u.task.pairs[0].pair, 3);
    CHECK_EQ_INT(b.u.task.pairs[4].pair, 7);
    proto_msg_t none;
    CHECK(coord_client_request(d, 8, &none) == 0);
    CHECK_EQ_INT(none.type, PROTO_NO_TASK);
    proto_msg_free(&none);
    /* The first worker's late result for its expired lease. */
    int64_t late[1] = { 1 };
    proto_msg_t m;
    CHECK(coord_client_deliver(c, t, late, 1, NULL, 1, true, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_LEASE_EXPIRED);
    proto_msg_free(&m);
    proto_msg_free(&a);
    proto_msg_free(&b);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_client_destroy(&d);
    coord_fx_down(&fx);
}

static void a_silent_worker_is_declared_dead_and_its_pairs_return(void)
{
    static const char *const extra[] = { "--task-seconds", "1", "--heartbeat-ms", "200",
                                         "--liveness", "2", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_dead", extra) == 0);
    s_submit(&fx, SPRT_DOC(6));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 6, &tm);
    CHECK_EQ_INT(tm.u.task.pair_count, 6);
    int64_t first[1] = { 0 };
    s_deliver(c, &tm.u.task, first, 1, NULL, 0, false, 1);
    /* w1 falls silent (the client sends no heartbeats). */
    usleep(1200 * 1000);
    coord_client_t *d = s_client(&fx, "w2");
    proto_msg_t a;
    s_task(d, 6, &a);
    CHECK_EQ_INT(a.u.task.pair_count, 5);
    CHECK_EQ_INT(a.u.task.pairs[0].pair, 1);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM tasks WHERE worker_id = 'w1' "
                                   "AND status = 'expired'"), 1);
    /* w1 comes back: its session is gone. */
    proto_msg_t m;
    CHECK(coord_client_request(c, 1, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_UNKNOWN_WORKER);
    proto_msg_free(&m);
    proto_msg_free(&a);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_client_destroy(&d);
    coord_fx_down(&fx);
}


/* Polls a one-number query for up to 3 s until it gives want; the last value. */
static long long s_sql_wait(coord_fx_t *fx, const char *sql, long long want)
{
    long long v = -1;
    for (int i = 0; i < 30 && (v = coord_fx_sql(fx, sql)) != want; i++)
        usleep(100 * 1000);
    return v;
}

static long long s_task_active(coord_fx_t *fx, int64_t task_id, long long want)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM tasks WHERE id = %lld AND status = 'active'",
             (long long) task_id);
    return s_sql_wait(fx, sql, want);
}

/* Issue 16: a restarted worker plays none of its old games. Its HELLO lists
 * what it holds; every other pair of its leases goes back at once (the
 * lease is an hour, the default), spooled pairs wait for the resend, and
 * later HEARTBEATs are taken as the truth, but never against a TASK that
 * may still be on its way. */
static void a_worker_that_no_longer_plays_a_task_gives_its_pairs_back_at_once(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_holding", extra) == 0);
    s_submit(&fx, SPRT_DOC(64));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 8, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->pair_count, 8);   /* 0..7 */
    CHECK_EQ_INT(t->lease_seconds, 3600);
    int64_t zero[1] = { 0 };
    s_deliver(c, t, zero, 1, NULL, 0, false, 1);
    /* w1 restarts: no tasks, pairs 1 and 2 in its spool. */
    coord_client_destroy(&c);
    c = coord_client_new(fx.proc.endpoint);
    int64_t spooled[2] = { 2, 1 };
    proto_spooled_t sp = { t->task_id, spooled, 2 };
    proto_holding_t held = { .spooled = &sp, .spooled_count = 1, .listed = true };
    proto_msg_t m;
    CHECK(coord_client_hello_holding(c, fx.token, "w1", 4242, &held, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    CHECK_EQ_INT(s_task_active(&fx, t->task_id, 0), 0);
    /* Another worker gets 3.. at once (3..10: the pool hands out ranges),
     * never 1 or 2. */
    coord_client_t *d = s_client(&fx, "w2");
    proto_msg_t a;
    s_task(d, 8, &a);
    CHECK_EQ_INT(a.u.task.pair_count, 8);
    CHECK_EQ_INT(a.u.task.pairs[0].pair, 3);
    /* The resend of the spooled pairs is stored; another pair of the ended
     * lease is not w1's any more. */
    int64_t three[1] = { 3 };
    CHECK(coord_client_deliver(c, t, three, 1, NULL, 2, false, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_LEASE_EXPIRED);
    proto_msg_free(&m);
    s_deliver(c, t, spooled, 2, NULL, 1, false, 2);
    /* HEARTBEATs: a task listed stays; a TASK not yet confirmed stays
     * whatever the heartbeat says; one the worker stopped listing ends. */
    proto_msg_t u;
    s_task(c, 2, &u);   /* 11.. */
    CHECK_EQ_INT(u.u.task.pairs[0].pair, 11);
    proto_msg_t hb = { .type = PROTO_HEARTBEAT };
    hb.u.heartbeat = (proto_holding_t) { .tasks = &u.u.task.task_id, .task_count = 1,
                                         .listed = true };
    CHECK(coord_client_send(c, &hb) == 0);
    proto_msg_t req = { .type = PROTO_REQUEST, .u.request = { 2 } };
    proto_msg_t empty = { .type = PROTO_HEARTBEAT,
                          .u.heartbeat = { .listed = true } };
    CHECK(coord_client_send(c, &req) == 0);
    CHECK(coord_client_send(c, &empty) == 0);   /* sent before the TASK arrives */
    proto_msg_t v;
    CHECK(coord_client_recv(c, &v, 10000) == 0);
    CHECK_EQ_INT(v.type, PROTO_TASK);
    usleep(300 * 1000);
    CHECK_EQ_INT(s_task_active(&fx, v.u.task.task_id, 1), 1);
    /* u was listed before: the empty heartbeat ended it, 11.. are back. */
    CHECK_EQ_INT(s_task_active(&fx, u.u.task.task_id, 0), 0);
    proto_msg_t again;
    s_task(d, 2, &again);   /* the heartbeat may have been read before the REQUEST */
    CHECK(v.u.task.pairs[0].pair == 11 || again.u.task.pairs[0].pair == 11);
    /* Once the worker has REQUESTed again, v is judged too. */
    CHECK(coord_client_request(c, 1, &m) == 0);
    proto_msg_free(&m);
    CHECK(coord_client_send(c, &empty) == 0);
    CHECK_EQ_INT(s_task_active(&fx, v.u.task.task_id, 0), 0);
    /* An old worker's HELLO (no lists) leaves its leases alone. */
    proto_msg_t w;
    s_task(d, 1, &w);
    coord_client_t *d2 = s_client(&fx, "w2");
    CHECK_EQ_INT(s_task_active(&fx, w.u.task.task_id, 1), 1);
    coord_client_destroy(&d2);
    proto_msg_free(&w);
    proto_msg_free(&again);
    proto_msg_free(&v);
    proto_msg_free(&u);
    proto_msg_free(&a);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_client_destroy(&d);
    coord_fx_down(&fx);
}

/* Issue 16: a lease restored after a coordinator restart whose worker never
 * comes back (a wiped machine) ends after heartbeat x liveness, not after
 * the hour of the lease. */
static void a_restored_lease_whose_worker_never_returns_ends_after_the_liveness_window(void)
{
    static const char *const extra[] = { "--task-seconds", "1", "--heartbeat-ms", "500",
                                         "--liveness", "2", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_orphan", extra) == 0);
    s_submit(&fx, SPRT_DOC(6));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 6, &tm);
    CHECK_EQ_INT(tm.u.task.lease_seconds, 3600);
    int64_t zero[1] = { 0 };
    s_deliver(c, &tm.u.task, zero, 1, NULL, 0, false, 1);
    coord_client_destroy(&c);   /* gone for good */
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGKILL), 128 + SIGKILL);
    CHECK(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0);
    CHECK_EQ_INT(s_task_active(&fx, tm.u.task.task_id, 1), 1);   /* restored */
    sleep(2);   /* 1 s window, checked every second */
    CHECK_EQ_INT(s_task_active(&fx, tm.u.task.task_id, 0), 0);
    coord_client_t *d = s_client(&fx, "w2");
    proto_msg_t a;
    s_task(d, 6, &a);
    CHECK_EQ_INT(a.u.task.pair_count, 5);
    CHECK_EQ_INT(a.u.task.pairs[0].pair, 1);
    proto_msg_free(&a);
    proto_msg_free(&tm);
    coord_client_destroy(&d);
    coord_fx_down(&fx);
}

/* Issue 16: the flagged workers are read before anything is served. Here
 * their read fails at start (the column is renamed away for a moment): the
 * coordinator waits and retries, answering INTERNAL, instead of serving a
 * flagged worker as if nobody were flagged. */
static void a_flagged_worker_gets_no_task_even_if_the_flag_list_was_unreadable_at_start(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_flagread", extra) == 0);
    s_submit(&fx, SPRT_DOC(20));
    coord_client_t *liar = s_client(&fx, "w-flagged");
    coord_client_destroy(&liar);
    CHECK_EQ_INT(coord_fx_sql(&fx, "WITH u AS (UPDATE workers SET flagged = true, flag_reason = "
                                   "'test' WHERE id = 'w-flagged' RETURNING 1) "
                                   "SELECT count(*) FROM u"), 1);
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGKILL), 128 + SIGKILL);
    CHECK_EQ_INT(coord_fx_sql(&fx, "ALTER TABLE workers RENAME COLUMN flagged TO flagged_away; "
                                   "SELECT 1"), 1);
    CHECK(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0);
    /* Meanwhile: INTERNAL, not a WELCOME. */
    coord_client_t *c = coord_client_new(fx.proc.endpoint);
    proto_msg_t m;
    CHECK(coord_client_hello(c, fx.token, "w-flagged", 4242, &m) == 0);
    CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == PROTO_INTERNAL, "got %s %s",
              proto_type_name(m.type), m.type == PROTO_ERROR ? m.u.error.text : "");
    proto_msg_free(&m);
    CHECK_EQ_INT(coord_fx_sql(&fx, "ALTER TABLE workers RENAME COLUMN flagged_away TO flagged; "
                                   "SELECT 1"), 1);
    bool welcome = false;
    for (int i = 0; i < 100 && !welcome; i++) {
        CHECK(coord_client_hello(c, fx.token, "w-flagged", 4242, &m) == 0);
        welcome = m.type == PROTO_WELCOME;
        proto_msg_free(&m);
        if (!welcome)
            usleep(100 * 1000);
    }
    CHECK(welcome);
    CHECK(coord_client_request(c, 1, &m) == 0);
    CHECK_MSG(m.type == PROTO_NO_TASK && strstr(m.u.no_task.reason, "flagged"), "got %s",
              proto_type_name(m.type));
    proto_msg_free(&m);
    /* An honest worker is served. */
    coord_client_t *d = s_client(&fx, "w-honest");
    proto_msg_t tm;
    s_task(d, 1, &tm);
    proto_msg_free(&tm);
    coord_client_destroy(&d);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void a_killed_coordinator_restarts_without_losing_an_acknowledged_pair(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_kill", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(10));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 10, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->pair_count, 10);
    int64_t pairs[10];
    s_all_pairs(t, pairs);
    s_deliver(c, t, pairs, 4, NULL, 0, false, 4);
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGKILL), 128 + SIGKILL);
    CHECK(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0);
    /* The worker resends what it had not got an ACK for, plus a replay. */
    proto_result_t res;
    CHECK(coord_client_make_result(t, pairs + 2, 8, NULL, 1, true, &res) == 0);
    proto_msg_t m;
    CHECK(coord_client_result(c, &res, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_UNKNOWN_WORKER);
    proto_msg_free(&m);
    CHECK(coord_client_hello(c, fx.token, "w1", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    CHECK(coord_client_result(c, &res, &m) == 0);
    proto_result_free(&res);
    CHECK_MSG(m.type == PROTO_ACK, "got %s %s", proto_type_name(m.type),
              m.type == PROTO_ERROR ? m.u.error.text : "");
    CHECK_EQ_INT(m.u.ack.stored_count, 6);
    CHECK_EQ_INT(m.u.ack.duplicate_count, 2);
    proto_msg_free(&m);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 10);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND pair_no < 4",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 4);
    /* The run is complete: it finishes. */
    for (int i = 0; i < 50; i++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'finished'",
                 (long long) run);
        if (coord_fx_sql(&fx, sql) == 1)
            break;
        usleep(100 * 1000);
    }
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void hostile_messages_get_the_documented_errors_and_the_coordinator_keeps_serving(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_hostile", extra) == 0);
    s_submit(&fx, SPRT_DOC(1000));
    coord_client_t *good = s_client(&fx, "good");
    coord_client_t *evil = s_client(&fx, "evil");
    proto_msg_t gt, et;
    s_task(good, 4, &gt);
    s_task(evil, 4, &et);
    struct {
        const char *what;
        const char *json;
        proto_code_t code;
    } cases[] = {
        { "not JSON", "{\"v\":1,\"type\":", PROTO_BAD_JSON },
        { "an array", "[1,2,3]", PROTO_BAD_JSON },
        { "slots as text", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":\"four\"}", PROTO_BAD_SCHEMA },
        { "slots out of range", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1e9}", PROTO_BAD_SCHEMA },
        { "duplicate key", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1,\"slots\":2}", PROTO_BAD_SCHEMA },
        { "version 2", "{\"v\":2,\"type\":\"REQUEST\",\"slots\":1}", PROTO_BAD_VERSION },
        { "unknown type", "{\"v\":1,\"type\":\"GIMME\"}", PROTO_UNKNOWN_TYPE },
        { "a TASK from a worker", "{\"v\":1,\"type\":\"WELCOME\",\"session\":\"x\",\"heartbeat_ms\":1000,"
                                  "\"liveness\":3,\"bench\":1}", PROTO_UNKNOWN_TYPE },
        { "unknown lease", "{\"v\":1,\"type\":\"RESULT\",\"task_id\":999999,\"lease_id\":999999,"
          "\"batch\":0,\"cpu_seconds\":1,\"last\":true,\"pairs\":[{\"pair\":0,\"score\":0.5,"
          "\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":9},"
          "{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":9}]}]}",
          PROTO_LEASE_UNKNOWN },
        { "score disagreeing with its games", "{\"v\":1,\"type\":\"RESULT\",\"task_id\":1,\"lease_id\":1,"
          "\"batch\":0,\"cpu_seconds\":1,\"last\":true,\"pairs\":[{\"pair\":0,\"score\":1,"
          "\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":9},"
          "{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":9}]}]}",
          PROTO_INCONSISTENT_RESULT },
        { "a draw ended by checkmate", "{\"v\":1,\"type\":\"RESULT\",\"task_id\":1,\"lease_id\":1,"
          "\"batch\":0,\"cpu_seconds\":1,\"last\":true,\"pairs\":[{\"pair\":0,\"score\":0.5,"
          "\"games\":[{\"result\":\"1/2-1/2\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":9},"
          "{\"result\":\"1/2-1/2\",\"white\":\"B\",\"end\":\"repetition\",\"plies\":9}]}]}",
          PROTO_INCONSISTENT_RESULT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(coord_client_send_raw(evil, cases[i].json, strlen(cases[i].json)) == 0);
        proto_msg_t m;
        CHECK_MSG(coord_client_recv(evil, &m, 10000) == 0, "%s: no reply", cases[i].what);
        CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == cases[i].code, "%s: got %s %s",
                  cases[i].what, proto_type_name(m.type),
                  m.type == PROTO_ERROR ? proto_code_name(m.u.error.code) : "");
        proto_msg_free(&m);
        /* The well-behaved worker is still served. */
        proto_msg_t hb = { .type = PROTO_HEARTBEAT };
        CHECK(coord_client_send(good, &hb) == 0);
    }
    /* Two frames. */
    const void *frames[2] = { "{}", "{}" };
    size_t lens[2] = { 2, 2 };
    CHECK(coord_client_send_frames(evil, frames, lens, 2) == 0);
    s_expect_error(evil, PROTO_BAD_SCHEMA);
    /* A frame just over 1 MiB. */
    size_t big = PROTO_FRAME_MAX + 100;
    char *buf = malloc(big);
    CHECK(buf != NULL);
    memset(buf, ' ', big);
    memcpy(buf, "{\"v\":1,\"type\":\"HEARTBEAT\"}", 26);
    CHECK(coord_client_send_raw(evil, buf, big) == 0);
    free(buf);
    s_expect_error(evil, PROTO_TOO_BIG);
    /* Results for another worker's lease, and for pairs outside the lease. */
    int64_t gp[1] = { gt.u.task.pairs[0].pair };
    proto_msg_t m;
    CHECK(coord_client_deliver(evil, &gt.u.task, gp, 1, NULL, 0, false, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_LEASE_NOT_YOURS);
    proto_msg_free(&m);
    CHECK(coord_client_deliver(evil, &et.u.task, gp, 1, NULL, 0, false, &m) == 0);
    CHECK(m.type == PROTO_ERROR && m.u.error.code == PROTO_PAIR_OUTSIDE_LEASE);
    proto_msg_free(&m);
    /* Nothing of those was stored. */
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs"), 0);
    /* An SQL-injection-looking name is stored verbatim. */
    coord_client_t *x = coord_client_new(fx.proc.endpoint);
    proto_msg_t hm = { .type = PROTO_HELLO };
    snprintf(hm.u.hello.token, sizeof hm.u.hello.token, "%s", fx.token);
    snprintf(hm.u.hello.worker_id, sizeof hm.u.hello.worker_id, "inj");
    snprintf(hm.u.hello.name, sizeof hm.u.hello.name, "x'); DROP TABLE pairs; --");
    hm.u.hello.cores = hm.u.hello.concurrency = 1;
    snprintf(hm.u.hello.engine_version, sizeof hm.u.hello.engine_version, "capa-engine test");
    hm.u.hello.bench = 4242;
    hm.u.hello.nps = 1000;
    CHECK(coord_client_send(x, &hm) == 0);
    CHECK(coord_client_recv(x, &m, 10000) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    char *name = coord_fx_sql_text(&fx, "SELECT name FROM workers WHERE id = 'inj'");
    CHECK(name != NULL);
    CHECK_EQ_STR(name, "x'); DROP TABLE pairs; --");
    free(name);
    /* A frame beyond ZeroMQ's limit drops that connection only. */
    big = 3u << 20;
    buf = calloc(1, big);
    CHECK(buf != NULL);
    coord_client_send_raw(x, buf, big);
    free(buf);
    coord_client_destroy(&x);
    /* The good worker delivers and is acknowledged. */
    int64_t all[PROTO_PAIRS_MAX];
    s_all_pairs(&gt.u.task, all);
    /* Its heartbeats got no replies; drain nothing, then deliver. */
    s_deliver(good, &gt.u.task, all, gt.u.task.pair_count, NULL, 0, true, gt.u.task.pair_count);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM pairs"), gt.u.task.pair_count);
    CHECK(fx.proc.pid > 0 && kill(fx.proc.pid, 0) == 0);
    proto_msg_free(&gt);
    proto_msg_free(&et);
    coord_client_destroy(&good);
    coord_client_destroy(&evil);
    coord_fx_down(&fx);
}

static void an_sprt_run_stops_itself_when_the_llr_crosses_a_bound(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_sprt", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(2000));
    coord_client_t *c = s_client(&fx, "w1");
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'finished'",
             (long long) run);
    static const int pattern[8] = { 4, 3, 4, 2, 4, 3, 4, 1 };
    int finished = 0;
    proto_msg_t last_task = { 0 };
    for (int round = 0; round < 100 && !finished; round++) {
        proto_msg_t tm;
        CHECK(coord_client_request(c, 8, &tm) == 0);
        if (tm.type != PROTO_TASK) {
            proto_msg_free(&tm);
            usleep(100 * 1000);
            finished = coord_fx_sql(&fx, sql) == 1;
            continue;
        }
        int64_t pairs[PROTO_PAIRS_MAX];
        int scores[PROTO_PAIRS_MAX];
        s_all_pairs(&tm.u.task, pairs);
        for (size_t i = 0; i < tm.u.task.pair_count; i++)
            scores[i] = pattern[pairs[i] % 8];
        s_deliver(c, &tm.u.task, pairs, tm.u.task.pair_count, scores, 0, true,
                  tm.u.task.pair_count);
        usleep(60 * 1000);   /* the stop check runs in cron */
        finished = coord_fx_sql(&fx, sql) == 1;
        proto_msg_free(&last_task);
        last_task = tm;
    }
    CHECK(finished);
    snprintf(sql, sizeof sql, "SELECT result->>'verdict' FROM runs WHERE id = %lld", (long long) run);
    char *verdict = coord_fx_sql_text(&fx, sql);
    CHECK(verdict != NULL);
    CHECK_EQ_STR(verdict, "H1");
    free(verdict);
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    long long done = coord_fx_sql(&fx, sql);
    CHECK(done > 0 && done < 2000);
    /* No more work for it. */
    proto_msg_t m;
    CHECK(coord_client_request(c, 8, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_NO_TASK);
    proto_msg_free(&m);
    proto_msg_free(&last_task);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void a_stopped_run_gets_no_more_tasks_and_late_results_are_kept(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_stop", extra) == 0);
    int64_t run = s_submit(&fx, SPRT_DOC(1000));
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 4, &tm);
    char err[256];
    CHECK(admin_run_stop(fx.st, run, err, sizeof err) == 0);
    usleep(600 * 1000);   /* refresh period 200 ms */
    proto_msg_t m;
    CHECK(coord_client_request(c, 4, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_NO_TASK);
    proto_msg_free(&m);
    int64_t pairs[PROTO_PAIRS_MAX];
    s_all_pairs(&tm.u.task, pairs);
    s_deliver(c, &tm.u.task, pairs, tm.u.task.pair_count, NULL, 0, true, tm.u.task.pair_count);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'stopped'",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void a_values_study_completes_with_every_pair_stored_once(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_values", extra) == 0);
    int64_t run = s_submit(&fx,
        "{\"kind\":\"values\",\"name\":\"v\",\"seed\":3,\"variant\":\"caparandom\","
        "\"positions\":{\"source\":\"crc\"},\"game\":{\"nodes\":1000},"
        "\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":4},"
        "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\",\"pairs\":6}]}");
    coord_client_t *c = s_client(&fx, "w1");
    int got = 0;
    for (int i = 0; i < 20 && got < 10; i++) {
        proto_msg_t tm;
        s_task(c, 3, &tm);
        proto_task_t *t = &tm.u.task;
        CHECK_EQ_INT(t->kind, PROTO_KIND_VALUES);
        for (size_t k = 0; k < t->pair_count; k++) {
            CHECK(t->pairs[k].imbalance[0] != 0);
            CHECK(t->pairs[k].fen2[0] != 0);
            CHECK(strcmp(t->pairs[k].fen, t->pairs[k].fen2) != 0);
        }
        int64_t pairs[PROTO_PAIRS_MAX];
        int scores[PROTO_PAIRS_MAX];
        s_all_pairs(t, pairs);
        for (size_t k = 0; k < t->pair_count; k++)
            scores[k] = (int) (pairs[k] % 5);
        s_deliver(c, t, pairs, t->pair_count, scores, 0, true, t->pair_count);
        got += (int) t->pair_count;
        proto_msg_free(&tm);
    }
    CHECK_EQ_INT(got, 10);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'finished'",
             (long long) run);
    for (int i = 0; i < 50 && coord_fx_sql(&fx, sql) != 1; i++)
        usleep(100 * 1000);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT pair_no) FROM pairs WHERE run_id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 10);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pairs WHERE run_id = %lld AND imbalance = 'pawn odds'",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 6);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM estimates WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    proto_msg_t m;
    CHECK(coord_client_request(c, 3, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_NO_TASK);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void an_spsa_run_moves_theta_and_keeps_its_history(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_spsa", extra) == 0);
    int64_t run = s_submit(&fx,
        "{\"kind\":\"spsa\",\"name\":\"s\",\"seed\":5,\"variant\":\"caparandom\","
        "\"game\":{\"nodes\":1000},\"params\":{\"ArchbishopValueMg\":{\"start\":825,\"min\":600,"
        "\"max\":1100,\"c_end\":20,\"r_end\":0.002}},\"iterations\":40}");
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t tm;
    s_task(c, 4, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->kind, PROTO_KIND_SPSA);
    CHECK_EQ_INT(t->a.count, 1);
    CHECK_EQ_INT(t->b.count, 1);
    CHECK_EQ_STR(t->a.items[0].name, "ArchbishopValueMg");
    double minus = t->a.items[0].value, plus = t->b.items[0].value;
    CHECK(minus != plus);
    CHECK_NEAR((minus + plus) / 2, 825, 1e-9);
    int64_t pairs[PROTO_PAIRS_MAX];
    int scores[PROTO_PAIRS_MAX];
    s_all_pairs(t, pairs);
    for (size_t k = 0; k < t->pair_count; k++)
        scores[k] = 4;   /* plus wins everything: theta moves toward plus */
    s_deliver(c, t, pairs, t->pair_count, scores, 0, true, t->pair_count);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM spsa_history WHERE run_id = %lld", (long long) run);
    CHECK(coord_fx_sql(&fx, sql) >= 1);
    snprintf(sql, sizeof sql,
             "SELECT (theta->>'ArchbishopValueMg')::float8 * 1000 FROM spsa_history "
             "WHERE run_id = %lld ORDER BY iteration DESC LIMIT 1", (long long) run);
    long long theta1000 = coord_fx_sql(&fx, sql);
    CHECK(theta1000 != 825000);
    CHECK((theta1000 > 825000) == (plus > minus));
    /* The next task starts from the new theta. */
    proto_msg_t tm2;
    s_task(c, 4, &tm2);
    double mid = (tm2.u.task.a.items[0].value + tm2.u.task.b.items[0].value) / 2;
    CHECK_NEAR(mid * 1000, (double) theta1000, 2.0);
    proto_msg_free(&tm2);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void an_spsa_run_continues_after_a_restart(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_spsa_restart", extra) == 0);
    int64_t run = s_submit(&fx,
        "{\"kind\":\"spsa\",\"name\":\"s\",\"seed\":5,\"variant\":\"caparandom\","
        "\"game\":{\"nodes\":1000},\"params\":{\"ArchbishopValueMg\":{\"start\":825,\"min\":600,"
        "\"max\":1100,\"c_end\":20,\"r_end\":0.002}},\"iterations\":40}");
    coord_client_t *c = s_client(&fx, "w1");
    proto_msg_t t1, t2;
    s_task(c, 2, &t1);
    s_task(c, 2, &t2);   /* two open perturbations */
    int64_t pairs[PROTO_PAIRS_MAX];
    int scores[PROTO_PAIRS_MAX];
    s_all_pairs(&t1.u.task, pairs);
    for (size_t k = 0; k < t1.u.task.pair_count; k++)
        scores[k] = 4;
    s_deliver(c, &t1.u.task, pairs, t1.u.task.pair_count, scores, 0, true, t1.u.task.pair_count);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM spsa_history WHERE run_id = %lld", (long long) run);
    long long before = coord_fx_sql(&fx, sql);
    CHECK(before >= 1);
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGKILL), 128 + SIGKILL);
    CHECK(coord_proc_restart(&fx.proc, fx.ci, extra, fx.name) == 0);
    proto_msg_t m;
    CHECK(coord_client_hello(c, fx.token, "w1", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    /* The second task's perturbation survived the restart: its pairs move theta. */
    s_all_pairs(&t2.u.task, pairs);
    for (size_t k = 0; k < t2.u.task.pair_count; k++)
        scores[k] = 0;
    s_deliver(c, &t2.u.task, pairs, t2.u.task.pair_count, scores, 0, true, t2.u.task.pair_count);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), before + 1);
    /* The next task starts from the latest theta. */
    snprintf(sql, sizeof sql,
             "SELECT round((theta->>'ArchbishopValueMg')::numeric * 1000) FROM spsa_history "
             "WHERE run_id = %lld ORDER BY iteration DESC LIMIT 1", (long long) run);
    long long theta1000 = coord_fx_sql(&fx, sql);
    proto_msg_t t3;
    s_task(c, 2, &t3);
    double mid = (t3.u.task.a.items[0].value + t3.u.task.b.items[0].value) / 2;
    CHECK_NEAR(mid * 1000, (double) theta1000, 2.0);
    proto_msg_free(&t1);
    proto_msg_free(&t2);
    proto_msg_free(&t3);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void sigterm_says_bye_to_workers_and_exits_zero(void)
{
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_term", NULL) == 0);
    coord_client_t *c = s_client(&fx, "w1");
    CHECK_EQ_INT(coord_proc_stop(&fx.proc, SIGTERM), 0);
    proto_msg_t m;
    CHECK(coord_client_recv(c, &m, 5000) == 0);
    CHECK_EQ_INT(m.type, PROTO_BYE);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static void curve_encryption_admits_only_clients_that_know_the_server_key(void)
{
    /* The launcher's readiness probe must speak CURVE too. */
    static coord_fx_t fx;
    CHECK(coord_fx_up_curve(&fx, "coord_curve") == 0);
    const char *pub = fx.server_public;
    coord_client_t *c = coord_client_new_curve(fx.proc.endpoint, pub);
    CHECK(c != NULL);
    proto_msg_t m;
    CHECK(coord_client_hello(c, fx.token, "w1", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    /* A plain client gets nothing back. */
    coord_client_t *plain = coord_client_new(fx.proc.endpoint);
    proto_msg_t hm = { .type = PROTO_REQUEST };
    hm.u.request.slots = 1;
    CHECK(coord_client_send(plain, &hm) == 0);
    CHECK(coord_client_recv(plain, &m, 1500) < 0);
    coord_client_destroy(&plain);
    /* Nor does a client with the wrong server key. */
    char pub2[TOKEN_Z85_KEY_MAX], sec2[TOKEN_Z85_KEY_MAX];
    CHECK(token_curve_keypair(pub2, sec2) == 0);
    coord_client_t *wrong = coord_client_new_curve(fx.proc.endpoint, pub2);
    CHECK(coord_client_send(wrong, &hm) == 0);
    CHECK(coord_client_recv(wrong, &m, 1500) < 0);
    coord_client_destroy(&wrong);
    coord_fx_down(&fx);
}

/* Runs capa-coordinator with args (a shell-quoted string); output into out. */
static int s_admin(coord_fx_t *fx, const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/capa-coordinator' --db '%s' --log-level error %s 2>&1",
             CAPA_BINARY_DIR, fx->ci, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void admin_subcommands_show_a_token_once_and_refuse_bad_documents(void)
{
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_admin", NULL) == 0);
    char out[8192];
    CHECK_EQ_INT(s_admin(&fx, "contributor add dora --admin", out, sizeof out), 0);
    char *tok = strstr(out, "capa_");
    CHECK(tok != NULL);
    tok[strcspn(tok, "\n")] = 0;
    /* Only the hash is kept; the token itself works for HELLO. */
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM contributors WHERE token_hash = '%s'", tok);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 0);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM contributors WHERE name = 'dora' "
                                   "AND is_admin"), 1);
    coord_client_t *c = coord_client_new(fx.proc.endpoint);
    proto_msg_t m;
    CHECK(coord_client_hello(c, tok, "wd", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    CHECK(s_admin(&fx, "contributor add dora", out, sizeof out) != 0);
    CHECK(strstr(out, "exists") != NULL);
    CHECK_EQ_INT(s_admin(&fx, "contributor list", out, sizeof out), 0);
    CHECK(strstr(out, "dora") != NULL && strstr(out, "alice") != NULL);
    CHECK_EQ_INT(s_admin(&fx, "contributor revoke dora", out, sizeof out), 0);
    CHECK(s_admin(&fx, "contributor revoke nobody", out, sizeof out) != 0);
    /* Runs: a good document gets an id; a bad one an error naming the field. */
    CHECK_EQ_INT(s_admin(&fx, "run submit '" CAPA_SOURCE_DIR "/configs/run-sprt.json'", out,
                         sizeof out), 0);
    CHECK(atoi(out) >= 1);
    char path[600];
    snprintf(path, sizeof path, "%s/tests/coord_admin_bad.json", CAPA_BINARY_DIR);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\"kind\":\"values\",\"name\":\"x\",\"imbalances\":[{\"name\":\"bad\","
          "\"side\":\"X\",\"other\":\"\"}]}", f);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args, "run submit '%s'", path);
    CHECK_EQ_INT(s_admin(&fx, args, out, sizeof out), 1);
    CHECK_MSG(strstr(out, "imbalances[0]") != NULL, "%.300s", out);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM runs"), 1);
    CHECK_EQ_INT(s_admin(&fx, "run list", out, sizeof out), 0);
    CHECK(strstr(out, "archbishop-875") != NULL);
    CHECK_EQ_INT(s_admin(&fx, "run show 1", out, sizeof out), 0);
    CHECK(strstr(out, "LLR") != NULL && strstr(out, "verdict") != NULL);
    CHECK_EQ_INT(s_admin(&fx, "run show 1 --json", out, sizeof out), 0);
    CHECK(strstr(out, "\"sprt\"") != NULL);
    CHECK(s_admin(&fx, "run show 99", out, sizeof out) != 0);
    CHECK_EQ_INT(s_admin(&fx, "run stop 1", out, sizeof out), 0);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM runs WHERE status = 'stopped'"), 1);
    CHECK_EQ_INT(s_admin(&fx, "run resume 1", out, sizeof out), 0);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM runs WHERE status = 'running'"), 1);
    CHECK_EQ_INT(s_admin(&fx, "run resume 1", out, sizeof out), 1);   /* not stopped */
    CHECK(strstr(out, "only a stopped run") != NULL);
    CHECK(s_admin(&fx, "run resume 99", out, sizeof out) == 1);
    CHECK_EQ_INT(s_admin(&fx, "run stop 1", out, sizeof out), 0);
    /* run refit: a values run's estimate fitted again now; refused for an
     * SPRT run, a run without pairs and a run that does not exist */
    CHECK_EQ_INT(s_admin(&fx, "run refit 1", out, sizeof out), 1);
    CHECK(strstr(out, "not a values run") != NULL);
    CHECK_EQ_INT(s_admin(&fx, "run submit '" CAPA_SOURCE_DIR "/configs/quickstart-values.json'", out,
                         sizeof out), 0);
    CHECK_EQ_INT(atoi(out), 2);
    CHECK_EQ_INT(s_admin(&fx, "run stop 2", out, sizeof out), 0);
    CHECK_EQ_INT(s_admin(&fx, "run refit 2", out, sizeof out), 1);
    CHECK(strstr(out, "no pairs yet") != NULL);
    CHECK(s_admin(&fx, "run refit 99", out, sizeof out) != 0);
    /* six pairs of its first round (A vs C .. C vs R+B, then R vs B+P): B wins
     * as White and draws as Black in each */
    CHECK_EQ_INT(coord_fx_sql(&fx,
                              "WITH i AS (INSERT INTO pairs (run_id, pair_no, fen, imbalance, result1, result2,"
                              " b_white1, b_white2, end1, end2, plies1, plies2, score)"
                              " SELECT 2, k, 'rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1',"
                              " (ARRAY['A vs C','A vs Q','C vs Q','A vs R+N','C vs R+B','R vs B+P'])[k + 1],"
                              " 2, 1, true, false, 'checkmate', 'adjudication_draw', 80, 80, 3"
                              " FROM generate_series(0, 5) k RETURNING 1),"
                              " u AS (UPDATE runs SET pairs_done = 6 WHERE id = 2 RETURNING 1)"
                              " SELECT (SELECT count(*) FROM i) + (SELECT count(*) FROM u)"),
                 7);
    CHECK_EQ_INT(s_admin(&fx, "run refit 2", out, sizeof out), 0);
    CHECK_MSG(strstr(out, "run 2: refitted over 6 pairs") != NULL, "%.300s", out);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM estimates WHERE run_id = 2 AND pairs_used = 6"), 1);
    CHECK(s_admin(&fx, "run frobnicate", out, sizeof out) == 2);
    /* Settings may follow the subcommand too. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/capa-coordinator' contributor list --db '%s' 2>&1",
             CAPA_BINARY_DIR, fx.ci);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    CHECK_EQ_INT(pclose(p), 0);
    CHECK(strstr(out, "dora") != NULL);
    coord_fx_down(&fx);
}

/* ---- end to end with real capa-worker processes ---------------------------- */

/* Real workers: one game at a time, batches of 2 pairs or 2 s. */
static const char *const WORKER_ARGS[] = { "--batch-seconds", "2", "--ack-wait-ms", "500", NULL };

static int s_worker_start(coord_fx_t *fx, int i)
{
    return coord_fx_worker_start(fx, i, fx->proc.endpoint, true, WORKER_ARGS);
}

/* Plays doc on a coordinator (no bench, 2-second tasks) with two real
 * workers until the run finishes, up to 50 s, then stops the workers; the
 * run id goes to *run. True if it finished. */
static bool s_play(coord_fx_t *fx, const char *name, const char *doc, int64_t *run)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "2", NULL };
    CHECK(coord_fx_up(fx, name, extra) == 0);
    *run = s_submit(fx, doc);
    CHECK(s_worker_start(fx, 1) == 0 && s_worker_start(fx, 2) == 0);
    bool done = coord_fx_wait_status(fx, *run, "finished", 50);
    coord_fx_worker_stop(fx, 1, SIGTERM);
    coord_fx_worker_stop(fx, 2, SIGTERM);
    return done;
}

static void an_sprt_run_played_by_real_workers_decides(void)
{
    static coord_fx_t fx;
    int64_t run;
    /* A plays with its queens and chancellors valued as pawns: B is far stronger. */
    bool done = s_play(&fx, "coord_e2e_sprt",
        "{\"kind\":\"sprt\",\"name\":\"e2e\",\"seed\":11,\"variant\":\"caparandom\","
        "\"game\":{\"nodes\":400,\"max_plies\":300},"
        "\"a\":{\"QueenValueMg\":100,\"QueenValueEg\":100,\"ChancellorValueMg\":100,"
        "\"ChancellorValueEg\":100,\"ArchbishopValueMg\":100,\"ArchbishopValueEg\":100},"
        "\"b\":{},\"elo0\":0,\"elo1\":10,\"max_pairs\":400}", &run);
    CHECK_MSG(done, "the run did not finish within 50 s (see %s/tests/coord_e2e_sprt*.log)",
              CAPA_BINARY_DIR);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT result->>'verdict' FROM runs WHERE id = %lld", (long long) run);
    char *verdict = coord_fx_sql_text(&fx, sql);
    CHECK(verdict != NULL);
    CHECK_EQ_STR(verdict, "H1");
    free(verdict);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND moves1 IS NOT NULL",
             (long long) run);
    CHECK(coord_fx_sql(&fx, sql) > 0);
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT worker_id) FROM pairs WHERE run_id = %lld",
             (long long) run);
    CHECK(coord_fx_sql(&fx, sql) >= 1);
    coord_fx_down(&fx);
}

static void a_values_study_played_by_real_workers_stores_every_pair_once(void)
{
    static coord_fx_t fx;
    int64_t run;
    bool done = s_play(&fx, "coord_e2e_values",
        "{\"kind\":\"values\",\"name\":\"e2e\",\"seed\":5,\"variant\":\"caparandom\","
        "\"positions\":{\"source\":\"crc\"},\"game\":{\"nodes\":300,\"max_plies\":200},"
        "\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":4},"
        "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\",\"pairs\":4}]}", &run);
    CHECK_MSG(done, "the study did not finish within 50 s");
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*), count(DISTINCT pair_no) FROM pairs WHERE run_id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 8);
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 8);
    snprintf(sql, sizeof sql, "SELECT min(pair_no) * 100 + max(pair_no) FROM pairs WHERE run_id = %lld",
             (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 7);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM estimates WHERE run_id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND fen2 IS NOT NULL "
             "AND imbalance IS NOT NULL", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 8);
    coord_fx_down(&fx);
}

/* A values run document of seed 5 with 4 pairs of A vs C; extra: more
 * top-level fields (a leading comma) or "". */
#define SIDES_DOC(extra)                                                                     \
    "{\"kind\":\"values\",\"name\":\"sides\",\"seed\":5,\"variant\":\"caparandom\","            \
    "\"game\":{\"nodes\":300,\"max_plies\":160},"                                             \
    "\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":4}]" extra "}"

/* Per-side params: the same study twice on one coordinator, once with both
 * sides on the engine's table and once with the side under test (B) on a
 * nonsensical one (Q, C and A worth a pawn). Same seed, same starts; B's
 * moves differ in the game where B has White (game 1) and in the one where
 * it has Black (game 2). Every stored pair is replayed on the other worker
 * (verify_rate 1): the replays, built from the same run, agree, and nobody
 * is flagged. */
static void per_side_params_reach_the_side_under_test_and_replays_agree(void)
{
    static const char *const extra[] = { "--bench", "0", "--task-seconds", "2",
                                         "--verify-rate", "1", NULL };
    static coord_fx_t fx;
    CHECK(coord_fx_up(&fx, "coord_e2e_sides", extra) == 0);
    int64_t both = s_submit(&fx, SIDES_DOC(""));
    int64_t side = s_submit(&fx, SIDES_DOC(
        ",\"params_side\":{\"QueenValueMg\":100,\"QueenValueEg\":100,\"ChancellorValueMg\":100,"
        "\"ChancellorValueEg\":100,\"ArchbishopValueMg\":100,\"ArchbishopValueEg\":100}"));
    CHECK(s_worker_start(&fx, 1) == 0 && s_worker_start(&fx, 2) == 0);
    CHECK_MSG(coord_fx_wait_status(&fx, both, "finished", 60) &&
              coord_fx_wait_status(&fx, side, "finished", 60),
              "the runs did not finish within 60 s (see %s/tests/coord_e2e_sides*.log)",
              CAPA_BINARY_DIR);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs WHERE run_id = %lld AND verified "
             "IS NOT NULL", (long long) side);
    for (int i = 0; i < 100 && coord_fx_sql(&fx, sql) < 4; i++)
        usleep(200 * 1000);
    coord_fx_worker_stop(&fx, 1, SIGTERM);
    coord_fx_worker_stop(&fx, 2, SIGTERM);
    /* the starts agree pair by pair; the moves of B's side do not */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pairs x JOIN pairs y ON y.pair_no = x.pair_no "
             "AND y.run_id = %lld WHERE x.run_id = %lld AND x.fen = y.fen AND x.fen2 = y.fen2 "
             "AND x.b_white1 AND y.b_white1", (long long) side, (long long) both);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 4);
    snprintf(sql, sizeof sql, "SELECT count(*) FILTER (WHERE x.moves1 <> y.moves1) * 10 + "
             "count(*) FILTER (WHERE x.moves2 <> y.moves2) FROM pairs x JOIN pairs y "
             "ON y.pair_no = x.pair_no AND y.run_id = %lld WHERE x.run_id = %lld",
             (long long) side, (long long) both);
    long long differ = coord_fx_sql(&fx, sql);
    CHECK_MSG(differ / 10 >= 1 && differ % 10 >= 1,
              "B's nonsense table changed %lld game-1 and %lld game-2 move lists of 4",
              differ / 10, differ % 10);
    /* the fixed-node replays of the per-side run agree with what was stored */
    snprintf(sql, sizeof sql, "SELECT count(*) FILTER (WHERE verified) * 10 + "
             "count(*) FILTER (WHERE NOT verified) FROM pairs WHERE run_id = %lld", (long long) side);
    long long ver = coord_fx_sql(&fx, sql);
    CHECK_MSG(ver / 10 >= 1 && ver % 10 == 0, "replays: %lld agreed, %lld disagreed", ver / 10,
              ver % 10);
    CHECK_EQ_INT(coord_fx_sql(&fx, "SELECT count(*) FROM workers WHERE flagged"), 0);
    snprintf(sql, sizeof sql, "SELECT doc->'params_side'->>'QueenValueMg' FROM runs "
             "WHERE id = %lld", (long long) side);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 100);
    coord_fx_down(&fx);
}

static void a_database_outage_gives_internal_and_loses_nothing_acknowledged(void)
{
    static const char *const extra[] = { "--task-seconds", "1", NULL };
    static coord_fx_t fx;
    coord_fx_begin(&fx, "coord_pgdown");
    snprintf(fx.own_cluster, sizeof fx.own_cluster, "%s/coord_pgdown", CAPA_BINARY_DIR);
    char ci[512];
    CHECK(coord_fx_cluster("start", fx.own_cluster, ci, sizeof ci) == 0);
    snprintf(fx.ci, sizeof fx.ci, "%s", ci);
    /* Started while the database is down: it waits and then serves. */
    CHECK(coord_fx_cluster("stop", fx.own_cluster, NULL, 0) == 0);
    char line[1024];
    snprintf(line, sizeof line, "(sleep 3; '%s' start '%s' >/dev/null 2>&1) &", CAPA_PGTMP,
             fx.own_cluster);
    CHECK(system(line) == 0);
    CHECK_MSG(coord_proc_start(&fx.proc, fx.ci, extra, fx.name) == 0, "start with the database down");
    /* The cluster may hold contributors of earlier runs: a fresh name. */
    char name[32];
    snprintf(name, sizeof name, "alice%ld", (long) getpid());
    CHECK(coord_fx_contributor(&fx, name) == 0);
    PGconn *pg = PQconnectdb(fx.ci);
    CHECK(PQstatus(pg) == CONNECTION_OK);
    int64_t run = s_submit(&fx, SPRT_DOC(10));
    char wid[32];
    snprintf(wid, sizeof wid, "w-%ld", (long) getpid());
    coord_client_t *c = s_client(&fx, wid);
    proto_msg_t tm;
    s_task(c, 10, &tm);
    proto_task_t *t = &tm.u.task;
    CHECK_EQ_INT(t->pair_count, 10);
    int64_t pairs[10];
    s_all_pairs(t, pairs);
    s_deliver(c, t, pairs, 4, NULL, 0, false, 4);
    /* The database goes away: the coordinator answers INTERNAL and lives. */
    PQfinish(pg);
    CHECK(coord_fx_cluster("stop", fx.own_cluster, NULL, 0) == 0);
    proto_result_t res;
    CHECK(coord_client_make_result(t, pairs + 4, 6, NULL, 1, true, &res) == 0);
    proto_msg_t m;
    CHECK(coord_client_result(c, &res, &m) == 0);
    CHECK_MSG(m.type == PROTO_ERROR && m.u.error.code == PROTO_INTERNAL, "got %s",
              proto_type_name(m.type));
    proto_msg_free(&m);
    CHECK(kill(fx.proc.pid, 0) == 0);
    /* It comes back: the resent batch is stored once. */
    CHECK(coord_fx_cluster("start", fx.own_cluster, ci, sizeof ci) == 0);
    CHECK(coord_client_result(c, &res, &m) == 0);
    CHECK_MSG(m.type == PROTO_ACK, "got %s %s", proto_type_name(m.type),
              m.type == PROTO_ERROR ? m.u.error.text : "");
    CHECK_EQ_INT(m.u.ack.stored_count, 6);
    proto_msg_free(&m);
    CHECK(coord_client_result(c, &res, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_ACK);
    CHECK_EQ_INT(m.u.ack.duplicate_count, 6);
    proto_msg_free(&m);
    proto_result_free(&res);
    pg = PQconnectdb(fx.ci);
    CHECK(PQstatus(pg) == CONNECTION_OK);
    PQfinish(pg);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT pairs_done FROM runs WHERE id = %lld", (long long) run);
    CHECK_EQ_INT(coord_fx_sql(&fx, sql), 10);
    proto_msg_free(&tm);
    coord_client_destroy(&c);
    coord_fx_down(&fx);
}

static const check_case_t CASES[] = {
    CASE(registration_checks_token_and_bench_signature),
    CASE(a_revoked_worker_is_refused_at_its_next_message),
    CASE(a_time_control_is_scaled_to_the_worker_speed),
    CASE(a_result_is_committed_before_its_ack),
    CASE(tasks_go_out_while_a_result_waits_for_its_commit),
    CASE(a_replayed_result_is_acknowledged_again_and_counted_once),
    CASE(lease_expiry_returns_exactly_the_unplayed_pairs),
    CASE(a_silent_worker_is_declared_dead_and_its_pairs_return),
    CASE(a_worker_that_no_longer_plays_a_task_gives_its_pairs_back_at_once),
    CASE(a_restored_lease_whose_worker_never_returns_ends_after_the_liveness_window),
    CASE(a_flagged_worker_gets_no_task_even_if_the_flag_list_was_unreadable_at_start),
    CASE(a_killed_coordinator_restarts_without_losing_an_acknowledged_pair),
    CASE(hostile_messages_get_the_documented_errors_and_the_coordinator_keeps_serving),
    CASE(an_sprt_run_stops_itself_when_the_llr_crosses_a_bound),
    CASE(a_stopped_run_gets_no_more_tasks_and_late_results_are_kept),
    CASE(a_values_study_completes_with_every_pair_stored_once),
    CASE(an_spsa_run_moves_theta_and_keeps_its_history),
    CASE(sigterm_says_bye_to_workers_and_exits_zero),
    CASE(an_spsa_run_continues_after_a_restart),
    CASE(curve_encryption_admits_only_clients_that_know_the_server_key),
    CASE(admin_subcommands_show_a_token_once_and_refuse_bad_documents),
    CASE(a_database_outage_gives_internal_and_loses_nothing_acknowledged),
    CASE(an_sprt_run_played_by_real_workers_decides),
    CASE(a_values_study_played_by_real_workers_stores_every_pair_once),
    CASE(per_side_params_reach_the_side_under_test_and_replays_agree),
    { 0 },
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, CASES);
}
