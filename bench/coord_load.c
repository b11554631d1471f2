/* bench_coord_load - many simulated workers against a real capa-coordinator.
 *
 *   bench_coord_load --db CONNINFO [--workers 1000] [--seconds 20] [--batch 8]
 *                    [--concurrency 8] [--think-ms T] [--coordinator PATH]
 *
 * Creates a contributor and a large values run in the database, starts
 * capa-coordinator on a free loopback port (its log: coord_load.log in the
 * current folder), then opens --workers DEALER sockets in this one process.
 * Each simulated worker says HELLO, then loops: REQUEST -> TASK, RESULTs of
 * --batch pairs each (waiting for every ACK), the last one marked last. It
 * prints, after a 3 s warm-up, pair results per second committed to PostgreSQL (pairs in ACKs'
 * "stored" lists) and the task-assignment latency (REQUEST sent -> TASK
 * received) as p50/p99/max. With --think-ms each simulated worker waits that
 * long (times 0.5..1.5, drawn) before each RESULT (it "plays"), so the offered load is about
 * workers x batch / think pairs per second; without it the workers send as
 * fast as they are answered (saturation: the latency is then queueing).
 * Figures only; nothing is asserted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "bench_util.h"
#include "admin.h"
#include "err.h"
#include "protocol.h"
#include "store.h"
#include "token.h"

typedef enum { W_HELLO, W_REQUEST, W_RESULT, W_WAIT, W_THINK } wstate_t;

typedef struct {
    void *sock;
    wstate_t state;
    int64_t sent_ns;           /* when the outstanding message went out */
    proto_task_t task;         /* the current task (owned) */
    size_t next;               /* next pair index to deliver */
    int64_t batch;
    int64_t retry_at_ns;       /* after NO_TASK */
} sim_t;

static int64_t s_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int s_send(void *sock, const proto_msg_t *m)
{
    char *frame = NULL, err[256];
    size_t len = 0;
    if (proto_encode(m, &frame, &len, err, sizeof err) < 0) {
        fprintf(stderr, "encode: %s\n", err);
        return -1;
    }
    int rc = zmq_send(sock, frame, len, ZMQ_DONTWAIT);
    free(frame);
    return rc < 0 ? -1 : 0;
}

static int s_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

/* One RESULT for pairs [from, from + n) of the task. */
static int s_send_result(sim_t *w, size_t n, bool last)
{
    proto_msg_t m = { .type = PROTO_RESULT };
    proto_result_t *r = &m.u.result;
    r->task_id = w->task.task_id;
    r->lease_id = w->task.lease_id;
    r->batch = w->batch;
    r->last = last;
    r->cpu_seconds = 0.3 * (double) n;
    proto_pair_result_t pairs[PROTO_PAIRS_MAX];
    memset(pairs, 0, n * sizeof pairs[0]);
    for (size_t i = 0; i < n; i++) {
        proto_pair_result_t *p = &pairs[i];
        p->pair = w->task.pairs[w->next + i].pair;
        int q = (int) (p->pair % 3);   /* 1-0 / 0-1 (score 1/2), or draws */
        for (int g = 0; g < 2; g++) {
            p->games[g].white = g == 0 ? PROTO_SIDE_A : PROTO_SIDE_B;
            p->games[g].result = q == 0 ? PROTO_RES_DRAW : PROTO_RES_WHITE;
            p->games[g].end = q == 0 ? PROTO_END_REPETITION : PROTO_END_CHECKMATE;
            p->games[g].plies = 60 + g;
        }
        p->score = 0.5;
    }
    r->pairs = pairs;
    r->pair_count = n;
    return s_send(w->sock, &m);
}

int main(int argc, char **argv)
{
    const char *db = getenv("CAPA_DB");
    const char *coord_path = NULL;
    int nworkers = 1000, seconds = 20, batch = 8, concurrency = 8, think_ms = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--db"))
            db = argv[i + 1];
        else if (!strcmp(argv[i], "--workers"))
            nworkers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds"))
            seconds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch"))
            batch = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--concurrency"))
            concurrency = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--think-ms"))
            think_ms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--coordinator"))
            coord_path = argv[i + 1];
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!db || nworkers < 1 || seconds < 1 || batch < 1 || batch > PROTO_PAIRS_MAX) {
        fprintf(stderr, "usage: bench_coord_load --db CONNINFO [--workers N] [--seconds S] "
                        "[--batch PAIRS] [--concurrency THREADS] [--think-ms T] [--coordinator PATH]\n");
        return 2;
    }
    char exe[4096] = "";
    if (!coord_path) {
        if (bench_build_program("capa-coordinator", exe, sizeof exe) < 0)
            return 1;
        coord_path = exe;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    /* Database: migrations by the coordinator; contributor and run here. */
    char err[1024];
    int port = bench_free_port();
    char endpoint[64], logpath[] = "coord_load.log";
    snprintf(endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(coord_path, coord_path, "--db", db, "--bind", endpoint, "--bench", "4242",
              "--task-seconds", "1", "--estimate-seconds", "86400", "--log-level", "info",
              "--sql-dir", CAPA_SOURCE_DIR "/sql", (char *) NULL);
        _exit(127);
    }
    store_t *st = NULL;
    for (int i = 0; i < 100 && !st; i++) {
        usleep(200 * 1000);
        store_open(db, &st, err, sizeof err);
    }
    if (!st) {
        fprintf(stderr, "database: %s\n", err);
        kill(pid, SIGKILL);
        return 1;
    }
    /* Wait until the coordinator has migrated (its bench is given: fast). */
    sleep(3);
    char token[TOKEN_TEXT_MAX], name[64];
    snprintf(name, sizeof name, "load-%ld-%ld", (long) getpid(), (long) time(NULL));
    if (admin_contributor_add(st, name, false, token, sizeof token, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "contributor: %s\n", err);
        kill(pid, SIGKILL);
        return 1;
    }
    const char *doc = "{\"kind\":\"values\",\"name\":\"load\",\"seed\":1,\"variant\":\"caparandom\","
                      "\"game\":{\"nodes\":1000},\"imbalances\":[{\"name\":\"pawn odds\","
                      "\"side\":\"\",\"other\":\"P\",\"pairs\":50000000}]}";
    int64_t run = 0;
    if (admin_run_submit(st, doc, strlen(doc), 0, &run, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "run: %s\n", err);
        kill(pid, SIGKILL);
        return 1;
    }
    sleep(2);   /* the coordinator picks the run up within its refresh period */

    void *ctx = zmq_ctx_new();
    zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, nworkers + 64);
    sim_t *w = calloc((size_t) nworkers, sizeof *w);
    zmq_pollitem_t *items = calloc((size_t) nworkers, sizeof *items);
    size_t lat_cap = 1 << 20, nlat = 0;
    int64_t *lat = malloc(lat_cap * sizeof *lat);
    if (!w || !items || !lat)
        return 1;
    for (int i = 0; i < nworkers; i++) {
        w[i].sock = zmq_socket(ctx, ZMQ_DEALER);
        int linger = 0;
        zmq_setsockopt(w[i].sock, ZMQ_LINGER, &linger, sizeof linger);
        zmq_connect(w[i].sock, endpoint);
        items[i] = (zmq_pollitem_t) { w[i].sock, 0, ZMQ_POLLIN, 0 };
        proto_msg_t m = { .type = PROTO_HELLO };
        snprintf(m.u.hello.token, sizeof m.u.hello.token, "%s", token);
        snprintf(m.u.hello.worker_id, sizeof m.u.hello.worker_id, "load-%d", i);
        snprintf(m.u.hello.name, sizeof m.u.hello.name, "load %d", i);
        snprintf(m.u.hello.engine_version, sizeof m.u.hello.engine_version, "bench");
        m.u.hello.cores = m.u.hello.concurrency = concurrency;
        m.u.hello.bench = 4242;
        m.u.hello.nps = 1e6;
        s_send(w[i].sock, &m);
        w[i].state = W_HELLO;
    }
    /* The clock starts once every worker is welcomed (or after 60 s). */
    int64_t t0 = s_now_ns(), measure_from = INT64_MAX, hello_ns = 0;
    int64_t end = INT64_MAX;
    int welcomed = 0;
    int64_t stored = 0, dups = 0, errors = 0, tasks = 0, no_tasks = 0;
    uint64_t jitter = 12345;
    while (s_now_ns() < end) {
        int64_t now = s_now_ns();
        if (hello_ns == 0 && (welcomed == nworkers || now - t0 > 60 * INT64_C(1000000000))) {
            /* Everyone is in: 3 s of warm-up (the first REQUESTs all come at
             * once), then the measured period. */
            hello_ns = now - t0;
            measure_from = now + 3 * INT64_C(1000000000);
            end = measure_from + (int64_t) seconds * 1000000000;
        }
            for (int i = 0; i < nworkers; i++)
            if (w[i].state == W_THINK && now >= w[i].retry_at_ns) {
                sim_t *s = &w[i];
                size_t n = s->task.pair_count - s->next;
                if (n > (size_t) batch)
                    n = (size_t) batch;
                bool last = s->next + n == s->task.pair_count;
                s_send_result(s, n, last);
                s->next += n;
                s->batch++;
                s->sent_ns = now;
                s->state = W_REQUEST;
            }
        for (int i = 0; i < nworkers; i++)
            if (w[i].state == W_WAIT && now >= w[i].retry_at_ns) {
                proto_msg_t m = { .type = PROTO_REQUEST };
                m.u.request.slots = concurrency;
                s_send(w[i].sock, &m);
                w[i].sent_ns = now;
                w[i].state = W_REQUEST;
            }
        if (zmq_poll(items, nworkers, 10) <= 0)
            continue;
        for (int i = 0; i < nworkers; i++) {
            if (!(items[i].revents & ZMQ_POLLIN))
                continue;
            zmq_msg_t zm;
            zmq_msg_init(&zm);
            if (zmq_msg_recv(&zm, w[i].sock, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&zm);
                continue;
            }
            proto_msg_t m;
            int rc = proto_decode(zmq_msg_data(&zm), zmq_msg_size(&zm), &m, err, sizeof err);
            zmq_msg_close(&zm);
            now = s_now_ns();
            if (rc < 0 || m.type == PROTO_HEARTBEAT) {
                proto_msg_free(&m);
                continue;
            }
            sim_t *s = &w[i];
            if (m.type == PROTO_ERROR) {
                errors++;
                if (errors < 5)
                    fprintf(stderr, "worker %d: ERROR %s: %s\n", i, proto_code_name(m.u.error.code),
                            m.u.error.text);
                s->state = W_WAIT;
                s->retry_at_ns = now + INT64_C(100000000);
            } else if (m.type == PROTO_WELCOME || m.type == PROTO_NO_TASK) {
                welcomed += m.type == PROTO_WELCOME;
                if (m.type == PROTO_NO_TASK)
                    no_tasks++;
                s->state = W_WAIT;
                s->retry_at_ns = m.type == PROTO_NO_TASK ? now + INT64_C(100000000) : now;
            } else if (m.type == PROTO_TASK) {
                if (now >= measure_from && nlat < lat_cap)
                    lat[nlat++] = now - s->sent_ns;
                tasks++;
                proto_task_free(&s->task);
                s->task = m.u.task;
                memset(&m.u.task, 0, sizeof m.u.task);
                s->next = 0;
                s->batch = 0;
                s->state = W_RESULT;
            } else if (m.type == PROTO_ACK) {
                if (now >= measure_from) {
                    stored += (int64_t) m.u.ack.stored_count;
                    dups += (int64_t) m.u.ack.duplicate_count;
                }
                s->state = s->next >= s->task.pair_count ? W_WAIT : W_RESULT;
                s->retry_at_ns = now;
            }
            proto_msg_free(&m);
            if (s->state == W_RESULT && think_ms > 0) {
                /* Playing the next batch takes a while. */
                /* Think times vary (0.5x..1.5x) as real games do, so the
                 * workers do not move in lockstep. */
                s->state = W_THINK;
                jitter = jitter * 6364136223846793005ULL + 1442695040888963407ULL;
                double f = 0.5 + (double) (jitter >> 11) / 9007199254740992.0;
                s->retry_at_ns = now + (int64_t) (think_ms * f * 1e6);
            }
            if (s->state == W_RESULT) {
                size_t n = s->task.pair_count - s->next;
                if (n > (size_t) batch)
                    n = (size_t) batch;
                bool last = s->next + n == s->task.pair_count;
                s_send_result(s, n, last);
                s->next += n;
                s->batch++;
                s->sent_ns = now;
                s->state = W_REQUEST;   /* waiting for the ACK (any reply) */
                if (!last)
                    s->state = W_REQUEST;
            }
        }
    }
    double secs = (double) (s_now_ns() - measure_from) / 1e9;
    qsort(lat, nlat, sizeof *lat, s_cmp);
    printf("coord_load: %d simulated workers (concurrency %d), RESULT batches of %d pairs, "
           "think %d ms per batch, %.1f s measured\n", nworkers, concurrency, batch, think_ms, secs);
    printf("  all %d HELLOs answered in %.2f s (%d welcomed)\n", nworkers, hello_ns / 1e9, welcomed);
    printf("  pair results stored: %lld (%.0f per second), duplicates %lld, errors %lld\n",
           (long long) stored, (double) stored / secs, (long long) dups, (long long) errors);
    printf("  tasks: %lld handed out, %lld NO_TASK\n", (long long) tasks, (long long) no_tasks);
    if (nlat)
        printf("  task-assignment latency (REQUEST -> TASK): p50 %.2f ms  p99 %.2f ms  max %.2f ms "
               "(%zu samples)\n", lat[nlat / 2] / 1e6, lat[(nlat * 99) / 100] / 1e6,
               lat[nlat - 1] / 1e6, nlat);
    for (int i = 0; i < nworkers; i++) {
        proto_task_free(&w[i].task);
        zmq_close(w[i].sock);
    }
    zmq_ctx_term(ctx);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    char sql_err[256];
    (void) sql_err;
    store_run_set_status(st, run, STORE_RUN_STOPPED);
    store_destroy(&st);
    free(w);
    free(items);
    free(lat);
    return 0;
}
