/* test_worker_protocol.c - the real capa-worker process against a scripted
 * ROUTER in this test (real ZeroMQ sockets on loopback): registration,
 * heartbeats, a task played and reported, reconnect with backoff and spool
 * resend, SIGKILL and restart, SIGTERM, and what each ERROR code does. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>
#include <zmq.h>

#include "check.h"
#include "protocol.h"

#define WORKER_BIN CAPA_BINARY_DIR "/capa-worker"
#define START_FEN "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"

typedef struct {
    void *ctx, *router;
    char endpoint[128];
    char dir[256];
    pid_t pid;
    char id[256];        /* routing id of the last message */
    size_t id_len;
    bool silent;         /* do not answer HEARTBEATs (a dead coordinator) */
    bool pending_request; /* a REQUEST seen but not answered (skipped while collecting) */
} s_env_t;

static s_env_t E;

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_teardown(void);
static void s_send(proto_msg_t *msg);

/* The scripted coordinator's ROUTER on a free loopback port; with
 * curve_secret (Z85), a CURVE server. */
static void s_bind(const char *curve_secret)
{
    E.router = zmq_socket(E.ctx, ZMQ_ROUTER);
    int one = 1, linger = 0;
    zmq_setsockopt(E.router, ZMQ_LINGER, &linger, sizeof linger);
    if (curve_secret) {
        zmq_setsockopt(E.router, ZMQ_CURVE_SERVER, &one, sizeof one);
        zmq_setsockopt(E.router, ZMQ_CURVE_SECRETKEY, curve_secret, 41);
    }
    CHECK_EQ_INT(zmq_bind(E.router, "tcp://127.0.0.1:*"), 0);
    size_t n = sizeof E.endpoint;
    CHECK_EQ_INT(zmq_getsockopt(E.router, ZMQ_LAST_ENDPOINT, E.endpoint, &n), 0);
}

static void s_setup(void)
{
    if (E.pid > 0 || E.router)
        s_teardown();  /* a failed case left them */
    memset(&E, 0, sizeof E);
    E.pid = -1;
    snprintf(E.dir, sizeof E.dir, "/tmp/capa-worker-it-%d-XXXXXX", (int) getpid());
    CHECK(mkdtemp(E.dir) != NULL);
    E.ctx = zmq_ctx_new();
    s_bind(NULL);
}

/* Starts capa-worker with the test's endpoint and state folder; stderr goes
 * to <dir>/worker.log (appended, so restarts keep one log). */
static void s_start(const char *const *extra)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char log[300];
        snprintf(log, sizeof log, "%s/worker.log", E.dir);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 2);
            dup2(fd, 1);
        }
        const char *argv[40] = { WORKER_BIN,       "--coordinator", E.endpoint, "--state-dir",
                                 E.dir,            "--token",       "capa_test_token",
                                 "--concurrency",  "2",             "--heartbeat-ms", "300",
                                 "--liveness",     "3",             "--log-level", "debug",
                                 "--batch-seconds", "1",            "--ack-wait-ms", "1500" };
        int n = 19;
        for (int i = 0; extra && extra[i] && n < 38; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv(WORKER_BIN, (char *const *) argv);
        _exit(127);
    }
    E.pid = pid;
}

/* Waits for the worker to exit; returns its status or -1 on timeout. */
static int s_wait_exit(int timeout_ms)
{
    int64_t end = s_now_ms() + timeout_ms;
    while (s_now_ms() < end) {
        int st;
        pid_t r = waitpid(E.pid, &st, WNOHANG);
        if (r == E.pid) {
            E.pid = -1;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        usleep(20000);
    }
    return -1;
}

static void s_teardown(void)
{
    if (E.pid > 0) {
        kill(E.pid, SIGKILL);
        waitpid(E.pid, NULL, 0);
        E.pid = -1;
    }
    if (E.router)
        zmq_close(E.router);
    if (E.ctx)
        zmq_ctx_term(E.ctx);
    E.router = E.ctx = NULL;
    if (E.dir[0])
        umount2(E.dir, MNT_DETACH);  /* the full-disk case mounts a tmpfs there */
    if (getenv("CAPA_KEEP_TEST_DIRS") == NULL && E.dir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", E.dir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", E.dir);
    }
}

/* Receives one message within timeout_ms; its type, or PROTO_NONE on
 * timeout. *msg must be freed with proto_msg_free. */
static proto_type_t s_recv(int timeout_ms, proto_msg_t *msg)
{
    memset(msg, 0, sizeof *msg);
    zmq_pollitem_t it = { .socket = E.router, .events = ZMQ_POLLIN };
    if (zmq_poll(&it, 1, timeout_ms) <= 0)
        return PROTO_NONE;
    zmq_msg_t part;
    zmq_msg_init(&part);
    int n = zmq_msg_recv(&part, E.router, 0);
    if (n < 0)
        return PROTO_NONE;
    E.id_len = zmq_msg_size(&part) < sizeof E.id ? zmq_msg_size(&part) : sizeof E.id;
    memcpy(E.id, zmq_msg_data(&part), E.id_len);
    int more = zmq_msg_more(&part);
    zmq_msg_close(&part);
    CHECK_MSG(more, "a worker message without a JSON frame");
    zmq_msg_init(&part);
    n = zmq_msg_recv(&part, E.router, 0);
    CHECK(n >= 0);
    CHECK_MSG(!zmq_msg_more(&part), "the worker sent more than one JSON frame");
    char err[256];
    int rc = proto_decode(zmq_msg_data(&part), zmq_msg_size(&part), msg, err, sizeof err);
    zmq_msg_close(&part);
    CHECK_MSG(rc == 0, "the worker sent a message the codec refuses: %s", err);
    if (msg->type == PROTO_HELLO)
        E.pending_request = false;  /* a new session: a new REQUEST will come */
    if (msg->type == PROTO_HEARTBEAT && !E.silent) {
        /* a live coordinator answers with its own heartbeats */
        proto_msg_t hb = { .type = PROTO_HEARTBEAT };
        s_send(&hb);
    }
    return msg->type;
}

/* Receives until a message of `want` arrives, skipping HEARTBEATs (and
 * REQUESTs unless wanted, if skip_requests). Fails the case on timeout or
 * on any other type. */
static void s_expect(proto_type_t want, int timeout_ms, proto_msg_t *msg)
{
    int64_t end = s_now_ms() + timeout_ms;
    for (;;) {
        int left = (int) (end - s_now_ms());
        proto_type_t t = s_recv(left > 0 ? left : 0, msg);
        if (t == want)
            return;
        /* heartbeats anywhere; a REQUEST is no surprise before BYE or HELLO */
        if (t == PROTO_HEARTBEAT ||
            (t == PROTO_REQUEST && (want == PROTO_BYE || want == PROTO_HELLO))) {
            proto_msg_free(msg);
            continue;
        }
        CHECK_MSG(t != PROTO_NONE, "timed out waiting for %s (log: %s/worker.log)",
                  proto_type_name(want), E.dir);
        CHECK_MSG(0, "expected %s, got %s", proto_type_name(want), proto_type_name(t));
    }
}

static void s_send(proto_msg_t *msg)
{
    char *frame;
    size_t len;
    char err[256];
    CHECK_EQ_INT(proto_encode(msg, &frame, &len, err, sizeof err), 0);
    CHECK(zmq_send(E.router, E.id, E.id_len, ZMQ_SNDMORE) >= 0);
    CHECK(zmq_send(E.router, frame, len, 0) >= 0);
    free(frame);
}

static void s_welcome(int heartbeat_ms, int liveness)
{
    proto_msg_t m = { .type = PROTO_WELCOME };
    snprintf(m.u.welcome.session, sizeof m.u.welcome.session, "s-test");
    m.u.welcome.heartbeat_ms = heartbeat_ms;
    m.u.welcome.liveness = liveness;
    m.u.welcome.bench = 1;
    snprintf(m.u.welcome.contributor, sizeof m.u.welcome.contributor, "tester");
    s_send(&m);
}

static void s_error(proto_code_t code, proto_type_t about, int64_t task, int64_t batch)
{
    proto_msg_t m = { .type = PROTO_ERROR };
    m.u.error.code = code;
    m.u.error.about = about;
    m.u.error.task_id = task;
    m.u.error.batch = batch;
    snprintf(m.u.error.text, sizeof m.u.error.text, "scripted %s", proto_code_name(code));
    s_send(&m);
}

/* A small, fast task: `pairs` pairs from the capablanca start, 300 nodes
 * per move, a 40-ply cap. */
static void s_task_nodes(int64_t task_id, int pairs, proto_kind_t kind, int64_t nodes)
{
    proto_msg_t m = { .type = PROTO_TASK };
    proto_task_t *t = &m.u.task;
    t->task_id = task_id;
    t->run_id = 7;
    t->lease_id = 1000 + task_id;
    t->lease_seconds = 600;
    t->kind = kind;
    t->pair_count = (size_t) pairs;
    t->pairs = calloc((size_t) pairs, sizeof *t->pairs);
    for (int i = 0; i < pairs; i++) {
        t->pairs[i].pair = 100 + i;
        snprintf(t->pairs[i].fen, sizeof t->pairs[i].fen, "%s", START_FEN);
    }
    t->b.count = 1;
    t->b.items = calloc(1, sizeof *t->b.items);
    snprintf(t->b.items[0].name, sizeof t->b.items[0].name, "ArchbishopValueMg");
    t->b.items[0].value = 875;
    snprintf(t->game.variant, sizeof t->game.variant, "capablanca");
    t->game.nodes = nodes;
    t->game.resign_cp = 700;
    t->game.resign_moves = 3;
    t->game.draw_cp = 10;
    t->game.draw_moves = 8;
    t->game.draw_min_ply = 30;
    t->game.max_plies = 40;
    s_send(&m);
    free(t->pairs);
    free(t->b.items);
}

static void s_task(int64_t task_id, int pairs, proto_kind_t kind)
{
    s_task_nodes(task_id, pairs, kind, 300);
}

static void s_ack(const proto_result_t *r)
{
    proto_msg_t m = { .type = PROTO_ACK };
    m.u.ack.task_id = r->task_id;
    m.u.ack.batch = r->batch;
    int64_t stored[PROTO_PAIRS_MAX];
    for (size_t i = 0; i < r->pair_count; i++)
        stored[i] = r->pairs[i].pair;
    m.u.ack.stored = stored;
    m.u.ack.stored_count = r->pair_count;
    s_send(&m);
}

/* The next RESULT of a task being played (REQUESTs may come first). */
static void s_expect_result(int timeout_ms, proto_msg_t *m)
{
    int64_t end = s_now_ms() + timeout_ms;
    for (;;) {
        int left = (int) (end - s_now_ms());
        proto_type_t t = s_recv(left > 0 ? left : 0, m);
        if (t == PROTO_RESULT)
            return;
        CHECK_MSG(t == PROTO_HEARTBEAT || (t == PROTO_REQUEST && !E.pending_request),
                  "expected RESULT, got %s (log: %s/worker.log)",
                  t == PROTO_NONE ? "nothing" : proto_type_name(t), E.dir);
        if (t == PROTO_REQUEST)
            E.pending_request = true;
        proto_msg_free(m);
    }
}

/* The worker's next REQUEST (one may already wait unanswered). */
static void s_next_request(void)
{
    if (E.pending_request) {
        E.pending_request = false;
        return;
    }
    proto_msg_t m;
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
}

/* Registration: HELLO fields, then WELCOME -> REQUEST. */
static void s_register(proto_msg_t *hello)
{
    s_expect(PROTO_HELLO, 20000, hello);
    s_welcome(300, 3);
}

/* Starts the worker and takes it through registration to its first
 * REQUEST, which stays unanswered. */
static void s_start_session(const char *const *extra)
{
    proto_msg_t m;
    s_start(extra);
    s_register(&m);
    proto_msg_free(&m);
    s_next_request();
}

/* Starts the worker again on its state folder and registers it; what it
 * sends after WELCOME is the caller's. */
static void s_restart(void)
{
    proto_msg_t m;
    s_start(NULL);
    s_register(&m);
    proto_msg_free(&m);
}

static void s_sigkill(void)
{
    kill(E.pid, SIGKILL);
    CHECK(s_wait_exit(5000) >= 128);
}

/* SIGTERM: BYE and exit 0. */
static void s_sigterm_bye(void)
{
    proto_msg_t m;
    kill(E.pid, SIGTERM);
    s_expect(PROTO_BYE, 5000, &m);
    proto_msg_free(&m);
    CHECK_EQ_INT(s_wait_exit(5000), 0);
}

/* Starts the worker and answers its HELLO with ERROR code; returns its
 * exit status (-1 if it did not exit within 5 s). */
static int s_refused_at_hello(proto_code_t code)
{
    proto_msg_t m;
    s_start(NULL);
    s_expect(PROTO_HELLO, 20000, &m);
    proto_msg_free(&m);
    s_error(code, PROTO_HELLO, -1, -1);
    return s_wait_exit(5000);
}

/* A file in the worker's state folder (the buffer is reused by the next call). */
static const char *s_state_path(const char *name)
{
    static char path[300];
    snprintf(path, sizeof path, "%s/%s", E.dir, name);
    return path;
}

static void hello_carries_identity_and_work_is_requested_after_welcome(void)
{
    s_setup();
    s_start(NULL);
    proto_msg_t m;
    s_expect(PROTO_HELLO, 20000, &m);
    CHECK_EQ_STR(m.u.hello.token, "capa_test_token");
    CHECK(strlen(m.u.hello.worker_id) == 36);
    CHECK_EQ_INT(m.u.hello.concurrency, 2);
    CHECK(m.u.hello.cores >= 1);
    CHECK(m.u.hello.bench > 0);
    CHECK(m.u.hello.nps > 0);
    char first_id[PROTO_ID_MAX];
    snprintf(first_id, sizeof first_id, "%s", m.u.hello.worker_id);
    proto_msg_free(&m);
    s_welcome(300, 3);
    s_expect(PROTO_REQUEST, 5000, &m);
    CHECK_EQ_INT(m.u.request.slots, 2);
    proto_msg_free(&m);
    /* NO_TASK: the next REQUEST waits retry_ms */
    proto_msg_t nt = { .type = PROTO_NO_TASK };
    nt.u.no_task.retry_ms = 700;
    int64_t t0 = s_now_ms();
    s_send(&nt);
    s_expect(PROTO_REQUEST, 5000, &m);
    int64_t waited = s_now_ms() - t0;
    CHECK_MSG(waited >= 650, "REQUEST after NO_TASK came after %lld ms", (long long) waited);
    proto_msg_free(&m);
    /* silence: heartbeats every ~300 ms, and only one REQUEST outstanding */
    int beats = 0, requests = 0;
    int64_t end = s_now_ms() + 1500;
    while (s_now_ms() < end) {
        proto_type_t t = s_recv((int) (end - s_now_ms()), &m);
        beats += t == PROTO_HEARTBEAT;
        requests += t == PROTO_REQUEST;
        proto_msg_free(&m);
    }
    CHECK_MSG(beats >= 3 && beats <= 7, "%d heartbeats in 1.5 s at 300 ms", beats);
    CHECK_EQ_INT(requests, 0);
    s_sigterm_bye();
    /* the worker id persists across restarts */
    s_start(NULL);
    s_expect(PROTO_HELLO, 20000, &m);
    CHECK_EQ_STR(m.u.hello.worker_id, first_id);
    proto_msg_free(&m);
    s_teardown();
}

/* Checks one RESULT pair's structure for a kind. */
static void s_check_pair(const proto_pair_result_t *p, proto_kind_t kind)
{
    proto_side_t first_white = kind == PROTO_KIND_VALUES ? PROTO_SIDE_B : PROTO_SIDE_A;
    CHECK_EQ_INT(p->games[0].white, first_white);
    CHECK_EQ_INT(p->games[1].white, 1 - first_white);
    for (int g = 0; g < 2; g++) {
        CHECK(p->games[g].plies > 0 && p->games[g].plies <= 40);
        CHECK(p->games[g].moves != NULL);
        /* the move list has one move per ply */
        int words = 1;
        for (const char *c = p->games[g].moves; *c; c++)
            words += *c == ' ';
        CHECK_EQ_INT(words, p->games[g].plies);
    }
    CHECK_NEAR(p->score, proto_pair_score(p), 1e-12);
}

/* Collects RESULTs of a task until its last batch; ACKs each if ack. */
static int s_collect(int64_t task_id, int pairs, proto_kind_t kind, bool ack, int timeout_ms,
                     proto_result_t *first_out)
{
    bool seen[64] = { false };
    int got = 0;
    int64_t next_batch = 0;
    bool last = false;
    while (!last) {
        proto_msg_t m;
        s_expect_result(timeout_ms, &m);  /* REQUESTs may come in between */
        proto_result_t *r = &m.u.result;
        CHECK_EQ_INT(r->task_id, task_id);
        CHECK_EQ_INT(r->lease_id, 1000 + task_id);
        CHECK_EQ_INT(r->batch, next_batch);
        next_batch++;
        CHECK(r->cpu_seconds > 0);
        for (size_t i = 0; i < r->pair_count; i++) {
            int64_t k = r->pairs[i].pair - 100;
            CHECK(k >= 0 && k < pairs && !seen[k]);
            seen[k] = true;
            got++;
            s_check_pair(&r->pairs[i], kind);
        }
        last = r->last;
        if (ack)
            s_ack(r);
        if (first_out && r->batch == 0) {
            *first_out = *r;
            memset(r, 0, sizeof *r);
        }
        proto_msg_free(&m);
    }
    CHECK_EQ_INT(got, pairs);
    return got;
}

static void a_task_is_played_and_reported_with_the_right_pair_structure(void)
{
    s_setup();
    s_start_session(NULL);
    s_task(812, 3, PROTO_KIND_SPRT);
    s_collect(812, 3, PROTO_KIND_SPRT, true, 60000, NULL);
    s_next_request();
    s_task(813, 2, PROTO_KIND_VALUES);
    s_collect(813, 2, PROTO_KIND_VALUES, true, 60000, NULL);
    s_sigterm_bye();
    /* everything was acknowledged: the spool is empty */
    struct stat st;
    CHECK(stat(s_state_path("spool.dat"), &st) == 0);
    CHECK_EQ_INT(st.st_size, 0);
    s_teardown();
}

static void a_silent_coordinator_causes_reconnects_with_backoff_and_a_spool_resend(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    s_task(900, 1, PROTO_KIND_SPRT);
    proto_result_t first;
    memset(&first, 0, sizeof first);
    s_collect(900, 1, PROTO_KIND_SPRT, false, 60000, &first);
    E.silent = true;
    char old_id[256];
    size_t old_len = E.id_len;
    memcpy(old_id, E.id, E.id_len);
    /* now silent: after 300 ms x 3 the worker gives up, then HELLOs come
     * 1 s, 2 s, 4 s apart (each on a new connection) */
    int64_t times[4];
    for (int i = 0; i < 4; i++) {
        for (;;) {
            proto_type_t t = s_recv(12000, &m);
            CHECK_MSG(t != PROTO_NONE, "no HELLO %d", i);
            proto_msg_free(&m);
            if (t == PROTO_HELLO)
                break;
        }
        times[i] = s_now_ms();
    }
    CHECK(E.id_len != old_len || memcmp(E.id, old_id, old_len) != 0);
    /* gap = liveness timeout (900 ms) + backoff */
    int64_t g1 = times[1] - times[0], g2 = times[2] - times[1], g3 = times[3] - times[2];
    CHECK_MSG(g1 >= 2700 && g1 <= 3600, "gap 1: %lld ms", (long long) g1);
    CHECK_MSG(g2 >= 4700 && g2 <= 5600, "gap 2: %lld ms", (long long) g2);
    CHECK_MSG(g3 >= 8700 && g3 <= 9600, "gap 3: %lld ms", (long long) g3);
    /* WELCOME: the unacknowledged RESULT comes again, same numbers, before REQUEST */
    E.silent = false;
    s_welcome(300, 3);
    s_expect(PROTO_RESULT, 5000, &m);
    CHECK_EQ_INT(m.u.result.task_id, 900);
    CHECK_EQ_INT(m.u.result.batch, first.batch);
    CHECK_EQ_INT(m.u.result.pair_count, first.pair_count);
    CHECK_EQ_INT(m.u.result.pairs[0].pair, first.pairs[0].pair);
    CHECK_EQ_INT(m.u.result.pairs[0].games[0].plies, first.pairs[0].games[0].plies);
    CHECK_EQ_STR(m.u.result.pairs[0].games[1].moves, first.pairs[0].games[1].moves);
    /* acknowledged as a duplicate: gone from the spool */
    proto_msg_t ack = { .type = PROTO_ACK };
    int64_t dup = first.pairs[0].pair;
    ack.u.ack.task_id = 900;
    ack.u.ack.batch = first.batch;
    ack.u.ack.duplicate = &dup;
    ack.u.ack.duplicate_count = 1;
    s_send(&ack);
    proto_msg_free(&m);
    proto_result_free(&first);
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    s_sigterm_bye();
    struct stat st;
    CHECK(stat(s_state_path("spool.dat"), &st) == 0 && st.st_size == 0);
    s_teardown();
}

static void a_killed_worker_resends_its_spool_with_the_original_numbers(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    /* 3 pairs with batches of one pair: batches 0, 1, 2 */
    s_task(700, 3, PROTO_KIND_SPRT);
    proto_result_t first;
    memset(&first, 0, sizeof first);
    s_collect(700, 3, PROTO_KIND_SPRT, false, 60000, &first);
    s_sigkill();
    /* The new process's HELLO says what it holds: no task, task 700's three
     * pairs in the spool (the coordinator returns nothing else of it). */
    s_start(NULL);
    s_expect(PROTO_HELLO, 20000, &m);
    CHECK(m.u.hello.holding.listed);
    CHECK_EQ_INT(m.u.hello.holding.task_count, 0);
    CHECK_EQ_INT(m.u.hello.holding.spooled_count, 1);
    CHECK_EQ_INT(m.u.hello.holding.spooled[0].task_id, 700);
    CHECK_EQ_INT(m.u.hello.holding.spooled[0].pair_count, 3);
    proto_msg_free(&m);
    s_welcome(300, 3);
    /* the unacknowledged batches in their original order, before any REQUEST */
    int64_t pairs_seen = 0, expect_batch = 0;
    bool last = false;
    while (!last) {
        s_expect(PROTO_RESULT, 5000, &m);
        CHECK_EQ_INT(m.u.result.task_id, 700);
        CHECK_EQ_INT(m.u.result.lease_id, 1700);
        CHECK_EQ_INT(m.u.result.batch, expect_batch);
        if (m.u.result.batch == 0) {
            CHECK_EQ_INT(m.u.result.pair_count, first.pair_count);
            CHECK_EQ_INT(m.u.result.pairs[0].pair, first.pairs[0].pair);
            CHECK_EQ_INT(m.u.result.pairs[0].games[0].result, first.pairs[0].games[0].result);
        }
        expect_batch++;
        pairs_seen += (int64_t) m.u.result.pair_count;
        last = m.u.result.last;
        s_ack(&m.u.result);
        proto_msg_free(&m);
    }
    CHECK_EQ_INT(pairs_seen, 3);
    proto_result_free(&first);
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    s_sigterm_bye();
    /* all acknowledged: after the next WELCOME the first message is a REQUEST */
    s_restart();
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    s_teardown();
}

static void sigterm_lets_running_games_finish_and_sends_their_results_before_bye(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    /* 1 pair on 2 threads: both games run at once; 20 more pairs queued */
    s_task_nodes(600, 21, PROTO_KIND_SPRT, 3000);
    usleep(300000);
    kill(E.pid, SIGTERM);
    int pairs = 0;
    for (;;) {
        proto_type_t t = s_recv(30000, &m);
        CHECK_MSG(t != PROTO_NONE, "no BYE after SIGTERM");
        if (t == PROTO_RESULT) {
            CHECK_EQ_INT(m.u.result.task_id, 600);
            CHECK(!m.u.result.last);  /* not every pair was played */
            pairs += (int) m.u.result.pair_count;
            s_ack(&m.u.result);
        }
        CHECK(t != PROTO_REQUEST);
        proto_msg_free(&m);
        if (t == PROTO_BYE)
            break;
    }
    CHECK(pairs >= 1 && pairs < 21);
    CHECK_EQ_INT(s_wait_exit(5000), 0);
    /* no half-played pair: a pair's second game was played too */
    char line[1024];
    FILE *f = fopen(s_state_path("worker.log"), "r");
    CHECK(f != NULL);
    long long st_pairs = -1, st_games = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "stats: ");
        if (p)
            sscanf(p, "stats: %*d task(s) done, %lld pair(s), %lld game(s)", &st_pairs, &st_games);
    }
    fclose(f);
    CHECK_EQ_INT(st_pairs, pairs);
    CHECK_EQ_INT(st_games, 2 * pairs);
    s_teardown();
}

static void auth_failure_exits_with_status_three(void)
{
    s_setup();
    CHECK_EQ_INT(s_refused_at_hello(PROTO_AUTH_FAILED), 3);
    CHECK_EQ_INT(s_refused_at_hello(PROTO_TOKEN_REVOKED), 3);
    s_teardown();
}

static void a_signature_mismatch_exits_with_status_four(void)
{
    s_setup();
    CHECK_EQ_INT(s_refused_at_hello(PROTO_SIGNATURE_MISMATCH), 4);
    s_teardown();
}

static void unknown_worker_makes_it_say_hello_again_on_the_same_socket(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    char id[256];
    size_t len = E.id_len;
    memcpy(id, E.id, len);
    s_error(PROTO_UNKNOWN_WORKER, PROTO_REQUEST, -1, -1);
    s_expect(PROTO_HELLO, 2000, &m);
    proto_msg_free(&m);
    CHECK(E.id_len == len && memcmp(E.id, id, len) == 0);
    s_welcome(300, 3);
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    s_teardown();
}

static void an_expired_lease_drops_the_batch_and_internal_resends_after_backoff(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    s_task(500, 1, PROTO_KIND_SPRT);
    s_expect_result(60000, &m);
    int64_t batch = m.u.result.batch;
    proto_msg_free(&m);
    /* INTERNAL: the spool comes again after the first backoff step (1 s) */
    s_error(PROTO_INTERNAL, PROTO_RESULT, 500, batch);
    int64_t t0 = s_now_ms();
    for (;;) {
        proto_type_t t = s_recv(5000, &m);
        CHECK(t != PROTO_NONE);
        bool res = t == PROTO_RESULT;
        if (res)
            CHECK_EQ_INT(m.u.result.batch, batch);
        proto_msg_free(&m);
        if (res)
            break;
    }
    int64_t waited = s_now_ms() - t0;
    CHECK_MSG(waited >= 900 && waited < 3000, "resent after %lld ms", (long long) waited);
    /* LEASE_EXPIRED: dropped from the spool, never resent */
    s_error(PROTO_LEASE_EXPIRED, PROTO_RESULT, 500, batch);
    usleep(300000);
    s_sigkill();
    s_restart();
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    s_teardown();
}

static void a_malformed_result_verdict_quarantines_the_batch(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    s_task(400, 1, PROTO_KIND_SPRT);
    s_expect_result(60000, &m);
    int64_t batch = m.u.result.batch;
    proto_msg_free(&m);
    s_error(PROTO_INCONSISTENT_RESULT, PROTO_RESULT, 400, batch);
    usleep(300000);
    s_sigkill();
    struct stat st;
    CHECK(stat(s_state_path("spool.bad"), &st) == 0 && st.st_size > 0);
    s_restart();
    s_expect(PROTO_REQUEST, 5000, &m);  /* not resent */
    proto_msg_free(&m);
    s_teardown();
}


static void too_big_splits_the_batch_into_new_numbers_and_drops_the_old(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    s_task(300, 4, PROTO_KIND_SPRT);
    /* the first batch; ask for a split */
    s_expect_result(60000, &m);
    int64_t old = m.u.result.batch;
    size_t old_pairs = m.u.result.pair_count;
    int64_t want[PROTO_PAIRS_MAX];
    bool seen[PROTO_PAIRS_MAX] = { false };
    for (size_t i = 0; i < old_pairs; i++)
        want[i] = m.u.result.pairs[i].pair;
    proto_msg_free(&m);
    s_error(PROTO_TOO_BIG, PROTO_RESULT, 300, old);
    /* every pair of it comes back under a new batch number: in two halves,
     * or (a lone pair) without its moves */
    size_t found = 0;
    while (found < old_pairs) {
        s_expect_result(10000, &m);
        CHECK(m.u.result.batch > old);
        for (size_t i = 0; i < m.u.result.pair_count; i++)
            for (size_t k = 0; k < old_pairs; k++)
                if (m.u.result.pairs[i].pair == want[k] && !seen[k]) {
                    seen[k] = true;
                    found++;
                    if (old_pairs == 1)
                        CHECK(m.u.result.pairs[i].games[0].moves == NULL);
                    else
                        CHECK(m.u.result.pair_count < old_pairs);
                }
        s_ack(&m.u.result);
        proto_msg_free(&m);
    }
    /* after a SIGKILL and restart the refused batch is not resent */
    usleep(300000);
    s_sigkill();
    s_restart();
    for (;;) {
        proto_type_t t = s_recv(3000, &m);
        if (t == PROTO_NONE || t == PROTO_REQUEST) {
            proto_msg_free(&m);
            break;
        }
        if (t == PROTO_RESULT)
            CHECK_MSG(m.u.result.batch != old, "batch %lld refused as TOO_BIG came back",
                      (long long) old);
        proto_msg_free(&m);
    }
    s_teardown();
}

static void a_bye_from_the_coordinator_is_a_lost_connection(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    char id[256];
    size_t len = E.id_len;
    memcpy(id, E.id, len);
    proto_msg_t bye = { .type = PROTO_BYE };
    snprintf(bye.u.bye.reason, sizeof bye.u.bye.reason, "coordinator shutting down");
    int64_t t0 = s_now_ms();
    s_send(&bye);
    s_expect(PROTO_HELLO, 5000, &m);
    proto_msg_free(&m);
    int64_t waited = s_now_ms() - t0;
    /* a new connection after the first backoff step */
    CHECK_MSG(waited >= 900 && waited < 2500, "HELLO %lld ms after BYE", (long long) waited);
    CHECK(E.id_len != len || memcmp(E.id, id, len) != 0);
    s_welcome(300, 3);
    s_next_request();
    s_teardown();
}

static void curve_encryption_carries_the_session_when_a_server_key_is_given(void)
{
    s_setup();
    /* a CURVE server ROUTER in place of the plain one */
    zmq_close(E.router);
    char pub[41], sec[41];
    CHECK_EQ_INT(zmq_curve_keypair(pub, sec), 0);
    s_bind(sec);
    const char *extra[] = { "--server-key", pub, NULL };
    s_start(extra);
    proto_msg_t m;
    s_register(&m);
    CHECK_EQ_STR(m.u.hello.token, "capa_test_token");
    proto_msg_free(&m);
    s_next_request();
    /* the worker's own key pair was made once, private to its owner */
    struct stat st;
    CHECK(stat(s_state_path("curve.key"), &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    s_sigterm_bye();
    /* with a wrong server key no HELLO gets through */
    char pub2[41], sec2[41];
    zmq_curve_keypair(pub2, sec2);
    const char *wrong[] = { "--server-key", pub2, NULL };
    s_start(wrong);
    CHECK_EQ_INT(s_recv(4000, &m), PROTO_NONE);
    s_teardown();
}

static void pgn_of_a_finished_task_waits_in_the_state_folder_while_the_server_is_away(void)
{
    s_setup();
    const char *extra[] = { "--http-base", "http://127.0.0.1:9", NULL };
    s_start_session(extra);
    s_task(210, 2, PROTO_KIND_SPRT);
    s_collect(210, 2, PROTO_KIND_SPRT, true, 60000, NULL);
    const char *path = s_state_path("pgn/task-210.pgn.gz");
    struct stat st;
    bool there = false;
    for (int i = 0; i < 100 && !there; i++) {
        there = stat(path, &st) == 0;
        if (!there)
            usleep(50000);
    }
    CHECK_MSG(there, "no %s", path);
    gzFile gz = gzopen(path, "rb");
    CHECK(gz != NULL);
    static char text[1 << 20];
    int n = gzread(gz, text, sizeof text - 1);
    gzclose(gz);
    CHECK(n > 0);
    text[n] = '\0';
    int games = 0;
    for (const char *p = text; (p = strstr(p, "[Event ")); p++)
        games++;
    CHECK_EQ_INT(games, 4);
    CHECK(strstr(text, "[Round \"100.1\"]") != NULL);
    CHECK(strstr(text, "[Round \"101.2\"]") != NULL);
    s_teardown();
}

/* The state folder on a 256 KiB tmpfs that a filler file fills up: the
 * finished pairs cannot be spooled, so nothing is sent; once there is room
 * again the RESULT is spooled and sent. Needs CAP_SYS_ADMIN for the mount. */
static void nothing_is_sent_that_could_not_be_spooled(void)
{
    s_setup();
    if (mount("tmpfs", E.dir, "tmpfs", 0, "size=256k") != 0) {
        printf("  (cannot mount a tmpfs: %s; case not run)\n", strerror(errno));
        s_teardown();
        return;
    }
    s_start_session(NULL);
    proto_msg_t m;
    /* fill the disk (the worker has its files open already) */
    char filler[300];
    snprintf(filler, sizeof filler, "%s", s_state_path("filler"));
    FILE *f = fopen(filler, "wb");
    CHECK(f != NULL);
    static char block[4096];
    memset(block, 'x', sizeof block);
    while (fwrite(block, 1, sizeof block, f) == sizeof block)
        ;
    fclose(f);
    s_task(220, 1, PROTO_KIND_SPRT);
    int64_t end = s_now_ms() + 3000;
    while (s_now_ms() < end) {
        proto_type_t t = s_recv((int) (end - s_now_ms()), &m);
        CHECK_MSG(t != PROTO_RESULT, "a RESULT was sent that could not be spooled");
        proto_msg_free(&m);
    }
    unlink(filler);
    s_expect_result(10000, &m);
    CHECK_EQ_INT(m.u.result.task_id, 220);
    proto_msg_free(&m);
    struct stat st;
    CHECK(stat(s_state_path("spool.dat"), &st) == 0 && st.st_size > 0);
    kill(E.pid, SIGKILL);
    s_wait_exit(5000);
    s_teardown();
}

static void a_second_signal_abandons_running_games_at_once(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    /* long games: 50000 nodes a move, 40 plies: seconds per game */
    s_task_nodes(230, 4, PROTO_KIND_SPRT, 50000);
    /* while it plays, its heartbeats name the task */
    for (;;) {
        proto_type_t t = s_recv(3000, &m);
        CHECK_MSG(t == PROTO_HEARTBEAT || t == PROTO_REQUEST, "got %s",
                  t == PROTO_NONE ? "nothing" : proto_type_name(t));
        bool hb = t == PROTO_HEARTBEAT;
        if (hb) {
            CHECK_EQ_INT(m.u.heartbeat.task_count, 1);
            CHECK_EQ_INT(m.u.heartbeat.tasks[0], 230);
            CHECK(m.u.heartbeat.listed);   /* the lists are complete: nothing spooled */
            CHECK_EQ_INT(m.u.heartbeat.spooled_count, 0);
        }
        proto_msg_free(&m);
        if (hb)
            break;
    }
    kill(E.pid, SIGTERM);
    usleep(300000);
    int64_t t0 = s_now_ms();
    kill(E.pid, SIGINT);
    s_expect(PROTO_BYE, 5000, &m);
    proto_msg_free(&m);
    int64_t waited = s_now_ms() - t0;
    CHECK_MSG(waited < 1500, "BYE %lld ms after the second signal", (long long) waited);
    CHECK_EQ_INT(s_wait_exit(5000), 0);
    s_teardown();
}

static void a_task_the_engine_cannot_play_is_refused_and_the_next_request_waits(void)
{
    s_setup();
    s_start_session(NULL);
    proto_msg_t m;
    proto_msg_t tm = { .type = PROTO_TASK };
    proto_task_t *t = &tm.u.task;
    t->task_id = 240;
    t->run_id = 7;
    t->lease_id = 1240;
    t->lease_seconds = 600;
    t->kind = PROTO_KIND_SPRT;
    proto_pair_t pair = { .pair = 5, .fen = START_FEN };
    t->pairs = &pair;
    t->pair_count = 1;
    proto_param_t bad = { .name = "NoSuchParameter", .value = 3 };
    t->b.items = &bad;
    t->b.count = 1;
    snprintf(t->game.variant, sizeof t->game.variant, "capablanca");
    t->game.nodes = 300;
    int64_t t0 = s_now_ms();
    s_send(&tm);
    s_expect(PROTO_ERROR, 5000, &m);
    CHECK_EQ_INT(m.u.error.code, PROTO_BAD_SCHEMA);
    CHECK_EQ_INT(m.u.error.about, PROTO_TASK);
    CHECK_EQ_INT(m.u.error.task_id, 240);
    CHECK(strstr(m.u.error.text, "NoSuchParameter") != NULL);
    proto_msg_free(&m);
    /* no tight TASK/ERROR loop: the next REQUEST comes after the backoff */
    s_expect(PROTO_REQUEST, 5000, &m);
    proto_msg_free(&m);
    int64_t waited = s_now_ms() - t0;
    CHECK_MSG(waited >= 900, "REQUEST %lld ms after a refused TASK", (long long) waited);
    s_teardown();
}

static void a_protocol_version_mismatch_exits_with_status_five(void)
{
    s_setup();
    CHECK_EQ_INT(s_refused_at_hello(PROTO_BAD_VERSION), 5);
    s_teardown();
}

/* The worker's log as one string (caller frees). */
static char *s_log_text(void)
{
    FILE *f = fopen(s_state_path("worker.log"), "r");
    CHECK(f != NULL);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

/* Runs `capa-worker status --state-dir DIR` into out; its exit status. */
static int s_status_cmd(char *out, size_t cap)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' status --state-dir '%s' 2>&1", WORKER_BIN, E.dir);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void the_start_block_and_status_lines_tell_the_owner_what_it_is_doing(void)
{
    s_setup();
    const char *extra[] = { "--status-seconds", "1", NULL };
    s_start_session(extra);
    s_task(300, 2, PROTO_KIND_SPRT);
    s_collect(300, 2, PROTO_KIND_SPRT, true, 60000, NULL);
    /* the next status line and status.json carry the games and the ACK */
    proto_msg_t hb;
    int64_t until = s_now_ms() + 2500;
    while (s_now_ms() < until) {
        proto_type_t t = s_recv((int) (until - s_now_ms()), &hb);
        if (t == PROTO_REQUEST)
            E.pending_request = true;
        proto_msg_free(&hb);
    }
    char *log = s_log_text();
    CHECK(strstr(log, "  coordinator  tcp://127.0.0.1:") != NULL);
    CHECK(strstr(log, "  contributor  token capa_test...") != NULL);
    CHECK(strstr(log, "WELCOME: session s-test, heartbeat 300 ms x 3, contributor tester") != NULL);
    CHECK(strstr(log, "  cores        2 game thread(s) of ") != NULL);
    CHECK(strstr(log, "  engine       ") != NULL && strstr(log, ", bench signature ") != NULL);
    CHECK(strstr(log, "  spool        ") != NULL &&
          strstr(log, ": 0 batch(es), 0 pair(s) waiting") != NULL);
    CHECK(strstr(log, "SIGTERM: stopped within 123 s") != NULL); /* 120 s grace + 1.5 s ACKs (up) + 1 */
    CHECK_MSG(strstr(log, "status: games 4 | ") != NULL && strstr(log, "last ACK ") != NULL &&
                  strstr(log, "pairs/min | CPU ") != NULL,
              "no status line with 4 games (log: %s/worker.log)", E.dir);
    free(log);
    char out[4096];
    CHECK_EQ_INT(s_status_cmd(out, sizeof out), 0);
    CHECK_MSG(strstr(out, ": running since ") != NULL, "status said: %.900s", out);
    CHECK(strstr(out, "games 4 | ") != NULL);
    CHECK(strstr(out, "last ACK ") != NULL && strstr(out, "last ACK none") == NULL);
    CHECK(strstr(out, "coordinator  tcp://127.0.0.1:") != NULL);
    CHECK_MSG(strstr(out, "token capa_test... of contributor tester") != NULL,
              "status without the contributor: %.900s", out);
    s_sigterm_bye();
    CHECK_EQ_INT(s_status_cmd(out, sizeof out), 1);
    CHECK_MSG(strstr(out, "not running; stopped at ") != NULL && strstr(out, "exit status 0"),
              "status after exit said: %.900s", out);
    s_teardown();
}

static void a_permanent_refusal_says_why_and_what_to_do_and_is_not_retried(void)
{
    s_setup();
    proto_msg_t m;
    s_start(NULL);
    s_expect(PROTO_HELLO, 20000, &m);
    proto_msg_free(&m);
    proto_msg_t e = { .type = PROTO_ERROR };
    e.u.error.code = PROTO_SIGNATURE_MISMATCH;
    e.u.error.about = PROTO_HELLO;
    e.u.error.task_id = e.u.error.batch = -1;
    snprintf(e.u.error.text, sizeof e.u.error.text, "bench signature 1, expected 4242");
    s_send(&e);
    CHECK_EQ_INT(s_wait_exit(5000), 4);
    /* no second HELLO: exited, not retrying */
    CHECK_EQ_INT(s_recv(500, &m), PROTO_NONE);
    char *log = s_log_text();
    CHECK_MSG(strstr(log, "bench signature is 4242") != NULL &&
                  strstr(log, "this worker is a source build") != NULL &&
                  strstr(log, "Exit status 4.") != NULL,
              "no clear refusal (log: %s/worker.log)", E.dir);
    free(log);
    CHECK_EQ_INT(s_refused_at_hello(PROTO_TOKEN_REVOKED), 3);
    log = s_log_text();
    CHECK(strstr(log, "revoked this token") != NULL &&
          strstr(log, "capa-worker setup --coordinator tcp://127.0.0.1:") != NULL);
    free(log);
    s_teardown();
}

static void max_hours_stops_taking_tasks_and_exits_once_its_pairs_are_acknowledged(void)
{
    s_setup();
    /* 0.0008 h = 2.9 s; a task of 1 pair first */
    const char *extra[] = { "--max-hours", "0.0008", NULL };
    int64_t t0 = s_now_ms();
    s_start_session(extra);
    s_task(310, 1, PROTO_KIND_SPRT);
    s_collect(310, 1, PROTO_KIND_SPRT, true, 60000, NULL);
    /* after the limit: no REQUEST, a BYE, exit 0 */
    proto_msg_t m;
    for (;;) {
        proto_type_t t = s_recv(8000, &m);
        CHECK_MSG(t != PROTO_NONE, "no BYE after max_hours (log: %s/worker.log)", E.dir);
        if (t == PROTO_REQUEST) {
            /* nothing to do until the limit */
            proto_msg_t nt = { .type = PROTO_NO_TASK };
            nt.u.no_task.retry_ms = 100;
            s_send(&nt);
        }
        bool bye = t == PROTO_BYE;
        proto_msg_free(&m);
        if (bye)
            break;
    }
    CHECK_MSG(s_now_ms() - t0 >= 2800, "BYE before max_hours");
    CHECK_EQ_INT(s_wait_exit(5000), 0);
    char *log = s_log_text();
    CHECK(strstr(log, "max_hours 0.0008 reached: taking no new tasks") != NULL);
    free(log);
    s_teardown();
}

static void max_memory_lowers_the_game_threads_to_fit(void)
{
    s_setup();
    /* 2 x 16 MB per thread: 70 MB holds 2 of the 4 asked for */
    const char *extra[] = { "--concurrency", "4", "--max-memory-mb", "70", NULL };
    proto_msg_t m;
    s_start(extra);
    s_expect(PROTO_HELLO, 20000, &m);
    CHECK_EQ_INT(m.u.hello.concurrency, 2);
    proto_msg_free(&m);
    s_welcome(300, 3);
    s_expect(PROTO_REQUEST, 5000, &m);
    CHECK_EQ_INT(m.u.request.slots, 2);
    proto_msg_free(&m);
    s_sigterm_bye();
    s_teardown();
}

static const check_case_t CASES[] = {
    CASE(hello_carries_identity_and_work_is_requested_after_welcome),
    CASE(a_task_is_played_and_reported_with_the_right_pair_structure),
    CASE(a_silent_coordinator_causes_reconnects_with_backoff_and_a_spool_resend),
    CASE(a_killed_worker_resends_its_spool_with_the_original_numbers),
    CASE(sigterm_lets_running_games_finish_and_sends_their_results_before_bye),
    CASE(auth_failure_exits_with_status_three),
    CASE(a_signature_mismatch_exits_with_status_four),
    CASE(a_protocol_version_mismatch_exits_with_status_five),
    CASE(unknown_worker_makes_it_say_hello_again_on_the_same_socket),
    CASE(an_expired_lease_drops_the_batch_and_internal_resends_after_backoff),
    CASE(a_malformed_result_verdict_quarantines_the_batch),
    CASE(too_big_splits_the_batch_into_new_numbers_and_drops_the_old),
    CASE(a_bye_from_the_coordinator_is_a_lost_connection),
    CASE(curve_encryption_carries_the_session_when_a_server_key_is_given),
    CASE(pgn_of_a_finished_task_waits_in_the_state_folder_while_the_server_is_away),
    CASE(nothing_is_sent_that_could_not_be_spooled),
    CASE(a_second_signal_abandons_running_games_at_once),
    CASE(a_task_the_engine_cannot_play_is_refused_and_the_next_request_waits),
    CASE(the_start_block_and_status_lines_tell_the_owner_what_it_is_doing),
    CASE(a_permanent_refusal_says_why_and_what_to_do_and_is_not_retried),
    CASE(max_hours_stops_taking_tasks_and_exits_once_its_pairs_are_acknowledged),
    CASE(max_memory_lowers_the_game_threads_to_fit),
    { 0 },
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    int rc = check_main(argc, argv, CASES);
    if (E.pid > 0 || E.router)
        s_teardown();
    return rc;
}
