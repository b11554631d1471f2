/* coord_client.c - test client and coordinator launcher (see coord_client.h). */
#include "coord_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

struct coord_client {
    void *ctx;
    void *sock;
};

static coord_client_t *s_new(const char *endpoint, const char *server_public)
{
    coord_client_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = zmq_ctx_new();
    c->sock = c->ctx ? zmq_socket(c->ctx, ZMQ_DEALER) : NULL;
    int linger = 0;
    if (c->sock && server_public) {
        char pub[41], sec[41];
        if (zmq_curve_keypair(pub, sec) < 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_SERVERKEY, server_public, 40) < 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_PUBLICKEY, pub, 40) < 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_SECRETKEY, sec, 40) < 0) {
            fprintf(stderr, "coord_client: CURVE: %s\n", zmq_strerror(zmq_errno()));
            coord_client_destroy(&c);
            return NULL;
        }
    }
    if (!c->sock || zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger) < 0 ||
        zmq_connect(c->sock, endpoint) < 0) {
        fprintf(stderr, "coord_client: cannot connect %s: %s\n", endpoint,
                zmq_strerror(zmq_errno()));
        coord_client_destroy(&c);
        return NULL;
    }
    return c;
}

coord_client_t *coord_client_new(const char *endpoint)
{
    return s_new(endpoint, NULL);
}

coord_client_t *coord_client_new_curve(const char *endpoint, const char *server_public)
{
    return s_new(endpoint, server_public);
}

void coord_client_destroy(coord_client_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    if ((*self_p)->sock)
        zmq_close((*self_p)->sock);
    if ((*self_p)->ctx)
        zmq_ctx_term((*self_p)->ctx);
    free(*self_p);
    *self_p = NULL;
}

int coord_client_send_frames(coord_client_t *self, const void *const *frames, const size_t *lens,
                             int n)
{
    for (int i = 0; i < n; i++)
        if (zmq_send(self->sock, frames[i], lens[i], i + 1 < n ? ZMQ_SNDMORE : 0) < 0) {
            fprintf(stderr, "coord_client: send: %s\n", zmq_strerror(zmq_errno()));
            return -1;
        }
    return 0;
}

int coord_client_send_raw(coord_client_t *self, const void *data, size_t len)
{
    return coord_client_send_frames(self, &data, &len, 1);
}

int coord_client_send(coord_client_t *self, const proto_msg_t *msg)
{
    char *frame = NULL, err[256];
    size_t len = 0;
    if (proto_encode(msg, &frame, &len, err, sizeof err) < 0) {
        fprintf(stderr, "coord_client: encode %s: %s\n", proto_type_name(msg->type), err);
        return -1;
    }
    int rc = coord_client_send_raw(self, frame, len);
    free(frame);
    return rc;
}

int coord_client_recv(coord_client_t *self, proto_msg_t *out, int timeout_ms)
{
    memset(out, 0, sizeof *out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long left = timeout_ms - ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        if (left < 0)
            left = 0;
        zmq_pollitem_t it = { self->sock, 0, ZMQ_POLLIN, 0 };
        int rc = zmq_poll(&it, 1, left);
        if (rc < 0 && zmq_errno() == EINTR)
            continue;
        if (rc <= 0)
            return -1;
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, self->sock, 0) < 0) {
            zmq_msg_close(&m);
            return -1;
        }
        char err[256];
        rc = proto_decode(zmq_msg_data(&m), zmq_msg_size(&m), out, err, sizeof err);
        zmq_msg_close(&m);
        if (rc < 0) {
            fprintf(stderr, "coord_client: undecodable reply: %s\n", err);
            proto_msg_free(out);
            return -1;
        }
        if (out->type != PROTO_HEARTBEAT)
            return 0;
        proto_msg_free(out);
    }
}

int coord_client_hello(coord_client_t *self, const char *token, const char *worker_id,
                       int64_t bench, proto_msg_t *reply)
{
    return coord_client_hello_holding(self, token, worker_id, bench, NULL, reply);
}

int coord_client_hello_holding(coord_client_t *self, const char *token, const char *worker_id,
                               int64_t bench, const proto_holding_t *holding, proto_msg_t *reply)
{
    proto_msg_t m = { .type = PROTO_HELLO };
    proto_hello_t *h = &m.u.hello;
    snprintf(h->token, sizeof h->token, "%s", token);
    snprintf(h->worker_id, sizeof h->worker_id, "%s", worker_id);
    snprintf(h->name, sizeof h->name, "test %s", worker_id);
    snprintf(h->host_os, sizeof h->host_os, "test");
    h->cores = 2;
    h->concurrency = 2;
    snprintf(h->engine_version, sizeof h->engine_version, "capa-engine test");
    h->bench = bench;
    h->nps = 1e6;
    if (holding)
        h->holding = *holding;   /* borrowed: m is not freed */
    if (coord_client_send(self, &m) < 0)
        return -1;
    return coord_client_recv(self, reply, 10000);
}

int coord_client_request(coord_client_t *self, int slots, proto_msg_t *reply)
{
    proto_msg_t m = { .type = PROTO_REQUEST };
    m.u.request.slots = slots;
    if (coord_client_send(self, &m) < 0)
        return -1;
    return coord_client_recv(self, reply, 10000);
}

/* Two games whose B score in quarter points is q (0..4). Game 1: A White;
 * game 2: B White. */
static void s_games(int q, proto_pair_result_t *p)
{
    /* B's half points per game (g1, g2) adding up to q. */
    static const int SPLIT[5][2] = { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 1, 2 }, { 2, 2 } };
    for (int g = 0; g < 2; g++) {
        proto_game_result_t *gr = &p->games[g];
        gr->white = g == 0 ? PROTO_SIDE_A : PROTO_SIDE_B;
        int b = SPLIT[q][g];
        int white = gr->white == PROTO_SIDE_B ? b : 2 - b;
        gr->result = white == 2 ? PROTO_RES_WHITE : white == 0 ? PROTO_RES_BLACK : PROTO_RES_DRAW;
        gr->end = white == 1 ? PROTO_END_REPETITION : PROTO_END_CHECKMATE;
        gr->plies = 40 + 3 * g;
        gr->moves = NULL;
    }
    p->score = q / 4.0;
}

int coord_client_make_result(const proto_task_t *task, const int64_t *pairs, size_t n,
                             const int *scores, int64_t batch, bool last, proto_result_t *res)
{
    memset(res, 0, sizeof *res);
    res->task_id = task->task_id;
    res->lease_id = task->lease_id;
    res->batch = batch;
    res->last = last;
    res->cpu_seconds = 0.5 * (double) n;
    res->pairs = calloc(n ? n : 1, sizeof *res->pairs);
    if (!res->pairs)
        return -1;
    for (size_t i = 0; i < n; i++) {
        res->pairs[i].pair = pairs[i];
        s_games(scores ? scores[i] : 2, &res->pairs[i]);
    }
    res->pair_count = n;
    return 0;
}

int coord_client_result(coord_client_t *self, const proto_result_t *res, proto_msg_t *reply)
{
    proto_msg_t m = { .type = PROTO_RESULT };
    m.u.result = *res;
    if (coord_client_send(self, &m) < 0)
        return -1;
    return coord_client_recv(self, reply, 15000);
}

int coord_client_deliver(coord_client_t *self, const proto_task_t *task, const int64_t *pairs,
                         size_t n, const int *scores, int64_t batch, bool last,
                         proto_msg_t *reply)
{
    int64_t all[PROTO_PAIRS_MAX];
    if (!pairs) {
        if (n > task->pair_count || n > PROTO_PAIRS_MAX)
            return -1;
        for (size_t i = 0; i < n; i++)
            all[i] = task->pairs[i].pair;
        pairs = all;
    }
    proto_result_t res;
    if (coord_client_make_result(task, pairs, n, scores, batch, last, &res) < 0)
        return -1;
    int rc = coord_client_result(self, &res, reply);
    proto_result_free(&res);
    return rc;
}

coord_client_t *coord_client_join(const char *endpoint, const char *token, const char *worker_id,
                                  int64_t bench)
{
    coord_client_t *c = coord_client_new(endpoint);
    proto_msg_t m;
    if (!c || coord_client_hello(c, token, worker_id, bench, &m) < 0) {
        fprintf(stderr, "coord_client: %s: no answer to HELLO\n", worker_id);
        coord_client_destroy(&c);
        return NULL;
    }
    if (m.type != PROTO_WELCOME) {
        fprintf(stderr, "coord_client: %s: HELLO answered %s %s\n", worker_id,
                proto_type_name(m.type), m.type == PROTO_ERROR ? m.u.error.text : "");
        coord_client_destroy(&c);
    }
    proto_msg_free(&m);
    return c;
}

int coord_client_task(coord_client_t *self, int slots, proto_msg_t *task)
{
    for (int i = 0; i < 50; i++) {
        if (coord_client_request(self, slots, task) < 0) {
            fprintf(stderr, "coord_client: no answer to REQUEST\n");
            return -1;
        }
        if (task->type == PROTO_TASK)
            return 0;
        if (task->type != PROTO_NO_TASK) {
            fprintf(stderr, "coord_client: REQUEST answered %s %s\n", proto_type_name(task->type),
                    task->type == PROTO_ERROR ? task->u.error.text : "");
            proto_msg_free(task);
            return -1;
        }
        proto_msg_free(task);
        usleep(100 * 1000);
    }
    fprintf(stderr, "coord_client: no TASK within 5 s\n");
    return -1;
}

int coord_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *) &a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *) &a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

pid_t coord_spawn(const char *const *argv, const char *log_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], (char *const *) argv);
        _exit(127);
    }
    return pid;
}

static int s_spawn(coord_proc_t *p, const char *conninfo, const char *const *extra,
                   const char *name, const char *server_public)
{
    snprintf(p->endpoint, sizeof p->endpoint, "tcp://127.0.0.1:%d", p->port);
    snprintf(p->log_path, sizeof p->log_path, "%s/tests/%s.log", CAPA_BINARY_DIR, name);
    const char *argv[64];
    int n = 0;
    static char exe[512];
    snprintf(exe, sizeof exe, "%s/capa-coordinator", CAPA_BINARY_DIR);
    argv[n++] = exe;
    argv[n++] = "--db";
    argv[n++] = conninfo;
    argv[n++] = "--bind";
    argv[n++] = p->endpoint;
    argv[n++] = "--bench";
    argv[n++] = "4242";
    argv[n++] = "--cron-ms";
    argv[n++] = "50";
    argv[n++] = "--refresh-ms";
    argv[n++] = "200";
    argv[n++] = "--no-task-retry-ms";
    argv[n++] = "100";
    argv[n++] = "--sql-dir";
    argv[n++] = CAPA_SOURCE_DIR "/sql";
    argv[n++] = "--db-wait-seconds";
    argv[n++] = "30";
    argv[n++] = "--http";   /* no HTTP server: tests run side by side */
    argv[n++] = "";
    argv[n++] = "--verify-rate";   /* no replays unless a test asks (extra args win) */
    argv[n++] = "0";
    argv[n++] = "--outlier-p";     /* test clients report made-up scores */
    argv[n++] = "0";
    for (int i = 0; extra && extra[i] && n < 62; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t pid = coord_spawn(argv, p->log_path);
    if (pid < 0)
        return -1;
    p->pid = pid;
    /* Ready when it answers: an unknown peer's REQUEST gets UNKNOWN_WORKER. */
    for (int i = 0; i < 300; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "coordinator exited early (status %d); see %s\n", status, p->log_path);
            p->pid = 0;
            return -1;
        }
        coord_client_t *c = s_new(p->endpoint, server_public);
        proto_msg_t m;
        int rc = c ? coord_client_request(c, 1, &m) : -1;
        if (rc == 0)
            proto_msg_free(&m);
        coord_client_destroy(&c);
        if (rc == 0)
            return 0;
        usleep(100 * 1000);
    }
    fprintf(stderr, "coordinator did not answer within 30 s; see %s\n", p->log_path);
    return -1;
}

int coord_proc_start(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                     const char *name)
{
    return coord_proc_start_curve(p, conninfo, extra_args, name, NULL);
}

int coord_proc_start_curve(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                           const char *name, const char *server_public)
{
    memset(p, 0, sizeof *p);
    p->port = coord_free_port();
    if (p->port < 0)
        return -1;
    return s_spawn(p, conninfo, extra_args, name, server_public);
}

int coord_proc_restart(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                       const char *name)
{
    return s_spawn(p, conninfo, extra_args, name, NULL);
}

int coord_kill_wait(pid_t pid, int sig, int timeout_ms)
{
    kill(pid, sig);
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(100 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

int coord_proc_stop(coord_proc_t *p, int sig)
{
    if (p->pid <= 0)
        return -1;
    int rc = coord_kill_wait(p->pid, sig, 20000);
    p->pid = 0;
    return rc;
}
