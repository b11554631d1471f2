/* bench/worker.c - how much of capa-worker's CPU time goes into games.
 *
 *   bench_worker [SECONDS [NODES [THREADS]]]     defaults 60, 10000, all cores
 *
 * Plays the coordinator with a ROUTER on loopback, runs the real capa-worker
 * (built next to this program: ../capa-worker, or $CAPA_WORKER_BIN) for
 * SECONDS, feeding it tasks of 8 pairs from the capablanca start at NODES
 * per move and acknowledging every RESULT, then stops it with SIGTERM.
 * Prints the games, pairs and RESULT batches it saw and the worker's own
 * stats line: CPU spent inside games / process CPU since start (the
 * start-up bench excluded). The goal is at least 97 %.
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "protocol.h"

#define START_FEN "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_reply(void *router, const void *id, size_t id_len, proto_msg_t *m)
{
    char *frame;
    size_t len;
    char err[256];
    if (proto_encode(m, &frame, &len, err, sizeof err) < 0) {
        fprintf(stderr, "encode: %s\n", err);
        exit(1);
    }
    zmq_send(router, id, id_len, ZMQ_SNDMORE);
    zmq_send(router, frame, len, 0);
    free(frame);
}

static void s_task(void *router, const void *id, size_t id_len, int64_t task_id, int64_t nodes,
                   int64_t *next_pair)
{
    proto_msg_t m = { .type = PROTO_TASK };
    proto_task_t *t = &m.u.task;
    t->task_id = task_id;
    t->run_id = 1;
    t->lease_id = task_id;
    t->lease_seconds = 3600;
    t->kind = PROTO_KIND_SPRT;
    t->pair_count = 8;
    proto_pair_t pairs[8];
    memset(pairs, 0, sizeof pairs);
    for (int i = 0; i < 8; i++) {
        pairs[i].pair = (*next_pair)++;
        snprintf(pairs[i].fen, sizeof pairs[i].fen, "%s", START_FEN);
    }
    t->pairs = pairs;
    proto_param_t b = { .name = "ArchbishopValueMg", .value = 875 };
    t->b.items = &b;
    t->b.count = 1;
    snprintf(t->game.variant, sizeof t->game.variant, "capablanca");
    t->game.nodes = nodes;
    t->game.resign_cp = 700;
    t->game.resign_moves = 4;
    t->game.draw_cp = 10;
    t->game.draw_moves = 8;
    t->game.draw_min_ply = 80;
    t->game.max_plies = 400;
    s_reply(router, id, id_len, &m);
}

int main(int argc, char **argv)
{
    int seconds = argc > 1 ? atoi(argv[1]) : 60;
    int64_t nodes = argc > 2 ? atoll(argv[2]) : 10000;
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    char bin[PATH_MAX];
    if (getenv("CAPA_WORKER_BIN")) {
        snprintf(bin, sizeof bin, "%s", getenv("CAPA_WORKER_BIN"));
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n < 0)
            return 1;
        self[n] = '\0';
        snprintf(bin, sizeof bin, "%s/../capa-worker", dirname(self));
    }
    if (access(bin, X_OK) != 0) {
        fprintf(stderr, "no capa-worker at %s (set CAPA_WORKER_BIN)\n", bin);
        return 1;
    }
    char dir[] = "/tmp/capa-bench-worker-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    int linger = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(router, "tcp://127.0.0.1:*") != 0)
        return 1;
    char endpoint[128];
    size_t elen = sizeof endpoint;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &elen);
    char conc[16], log[PATH_MAX];
    snprintf(conc, sizeof conc, "%d", threads);
    snprintf(log, sizeof log, "%s/worker.log", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        execl(bin, bin, "--coordinator", endpoint, "--state-dir", dir, "--token", "capa_bench",
              "--concurrency", conc, "--batch-pairs", "4", (char *) NULL);
        _exit(127);
    }
    int64_t task_id = 1, next_pair = 0, games = 0, pairs = 0, batches = 0;
    int64_t end = 0, t_start = 0;
    bool stopping = false, finished = false;
    while (!finished) {
        zmq_pollitem_t it = { .socket = router, .events = ZMQ_POLLIN };
        zmq_poll(&it, 1, 200);
        if (end && !stopping && s_now_ms() >= end) {
            kill(pid, SIGTERM);
            stopping = true;
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            finished = true;
        if (!(it.revents & ZMQ_POLLIN))
            continue;
        char id[256], buf[PROTO_FRAME_MAX + 1];
        int idn = zmq_recv(router, id, sizeof id, 0);
        int n = zmq_recv(router, buf, sizeof buf, 0);
        if (idn < 0 || n < 0)
            continue;
        proto_msg_t m;
        char err[256];
        if (proto_decode(buf, (size_t) n, &m, err, sizeof err) < 0) {
            fprintf(stderr, "bad message from the worker: %s\n", err);
            proto_msg_free(&m);
            continue;
        }
        proto_msg_t r = { .type = PROTO_NONE };
        switch (m.type) {
        case PROTO_HELLO:
            r.type = PROTO_WELCOME;
            snprintf(r.u.welcome.session, sizeof r.u.welcome.session, "bench");
            r.u.welcome.heartbeat_ms = 2500;
            r.u.welcome.liveness = 4;
            r.u.welcome.bench = m.u.hello.bench;
            printf("worker: %d thread(s), bench %lld nodes, %.0f nodes/s\n",
                   m.u.hello.concurrency, (long long) m.u.hello.bench, m.u.hello.nps);
            t_start = s_now_ms();
            end = t_start + (int64_t) seconds * 1000;
            break;
        case PROTO_REQUEST:
            if (!stopping)
                s_task(router, id, (size_t) idn, task_id++, nodes, &next_pair);
            break;
        case PROTO_RESULT:
            batches++;
            pairs += (int64_t) m.u.result.pair_count;
            games += 2 * (int64_t) m.u.result.pair_count;
            r.type = PROTO_ACK;
            r.u.ack.task_id = m.u.result.task_id;
            r.u.ack.batch = m.u.result.batch;
            int64_t stored[PROTO_PAIRS_MAX];
            for (size_t i = 0; i < m.u.result.pair_count; i++)
                stored[i] = m.u.result.pairs[i].pair;
            r.u.ack.stored = stored;
            r.u.ack.stored_count = m.u.result.pair_count;
            s_reply(router, id, (size_t) idn, &r);
            r.type = PROTO_NONE;
            break;
        case PROTO_HEARTBEAT:
            r.type = PROTO_HEARTBEAT;
            break;
        default:
            break;
        }
        if (r.type != PROTO_NONE)
            s_reply(router, id, (size_t) idn, &r);
        proto_msg_free(&m);
    }
    double wall = (double) (s_now_ms() - t_start) / 1000.0;
    printf("played %lld games (%lld pairs, %lld RESULT batches) in %.1f s at %lld nodes/move: "
           "%.1f games/min\n",
           (long long) games, (long long) pairs, (long long) batches, wall, (long long) nodes,
           wall > 0 ? (double) games * 60.0 / wall : 0.0);
    FILE *f = fopen(log, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "stats:"))
            printf("%s", strstr(line, "stats:"));
    if (f)
        fclose(f);
    zmq_close(router);
    zmq_ctx_term(ctx);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return 0;
}
