/* coord_client.h - a protocol-speaking test client and a coordinator
 * process launcher, for the integration, fault and load suites.
 *
 *   coord_proc_t p; coord_proc_start(&p, conninfo, extra_args, "name");
 *   coord_client_t *c = coord_client_new(p.endpoint);
 *   proto_msg_t m;
 *   coord_client_hello(c, token, "w1", 4242, &m);   m.type == PROTO_WELCOME
 *   ...; proto_msg_free(&m);
 *   coord_client_destroy(&c); coord_proc_stop(&p, SIGTERM);
 *
 * Everything here is for tests: failures print a line on stderr and return
 * a negative value; nothing exits the process.
 */
#ifndef CAPA_TEST_COORD_CLIENT_H
#define CAPA_TEST_COORD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

typedef struct coord_client coord_client_t;

/* A DEALER connected to endpoint (ZeroMQ context per client). */
coord_client_t *coord_client_new(const char *endpoint);
/* The same with CURVE: server_public is the coordinator's Z85 public key;
 * the client makes its own key pair. */
coord_client_t *coord_client_new_curve(const char *endpoint, const char *server_public);
void coord_client_destroy(coord_client_t **self_p);
/* Encodes and sends one message as one frame. 0 or -1. */
int coord_client_send(coord_client_t *self, const proto_msg_t *msg);
/* Sends raw frames (n >= 1) as one multipart message. */
int coord_client_send_frames(coord_client_t *self, const void *const *frames,
                             const size_t *lens, int n);
int coord_client_send_raw(coord_client_t *self, const void *data, size_t len);
/* Receives one message, skipping coordinator HEARTBEATs. 0, or -1 on a
 * timeout or an undecodable frame. Caller frees with proto_msg_free. */
int coord_client_recv(coord_client_t *self, proto_msg_t *out, int timeout_ms);
/* HELLO (cores/concurrency 2, nps 1e6) and its reply. */
int coord_client_hello(coord_client_t *self, const char *token, const char *worker_id,
                       int64_t bench, proto_msg_t *reply);
/* The same with the lists of what the worker holds (NULL = none: an old
 * worker's HELLO). */
int coord_client_hello_holding(coord_client_t *self, const char *token, const char *worker_id,
                               int64_t bench, const proto_holding_t *holding, proto_msg_t *reply);
/* REQUEST(slots) and its reply (TASK, NO_TASK or ERROR). */
int coord_client_request(coord_client_t *self, int slots, proto_msg_t *reply);

/* Fills res with a RESULT for pairs[0..n) of task: pair scores from
 * scores[i] in quarter points (0..4; NULL = all 2, i.e. 1-0 and 0-1). The
 * caller frees with proto_result_free. */
int coord_client_make_result(const proto_task_t *task, const int64_t *pairs, size_t n,
                             const int *scores, int64_t batch, bool last, proto_result_t *res);
/* Sends a RESULT and receives the reply (ACK or ERROR). */
int coord_client_result(coord_client_t *self, const proto_result_t *res, proto_msg_t *reply);
/* coord_client_make_result and coord_client_result in one: a RESULT for
 * pairs[0..n) of task (NULL = the task's first n pairs) and its reply. */
int coord_client_deliver(coord_client_t *self, const proto_task_t *task, const int64_t *pairs,
                         size_t n, const int *scores, int64_t batch, bool last,
                         proto_msg_t *reply);

/* A new client that said HELLO and was answered WELCOME; NULL (after a
 * line on stderr naming the answer) otherwise. */
coord_client_t *coord_client_join(const char *endpoint, const char *token, const char *worker_id,
                                  int64_t bench);
/* REQUEST(slots) every 100 ms while the answer is NO_TASK (a new run
 * appears within the coordinator's refresh), up to 50 times: 0 with the
 * TASK in *task (caller frees), or -1 after a line on stderr (no answer,
 * another answer, no TASK within 5 s). */
int coord_client_task(coord_client_t *self, int slots, proto_msg_t *task);

typedef struct {
    pid_t pid;
    int port;
    char endpoint[64];
    char log_path[512];
} coord_proc_t;

/* Starts argv[0] (argv NULL-terminated) with its stdout and stderr appended
 * to log_path: the child's pid, or -1. */
pid_t coord_spawn(const char *const *argv, const char *log_path);
/* A free TCP port on 127.0.0.1 (bound and released). */
int coord_free_port(void);
/* Starts build/.../capa-coordinator serve with --db conninfo, a fresh port,
 * --bench 4242, quick timers and extra_args (NULL-terminated, may be NULL);
 * its log goes to CAPA_BINARY_DIR/tests/<name>.log. Waits until it answers
 * a message (up to 30 s). 0 or -1. */
int coord_proc_start(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                     const char *name);
/* The same for a CURVE coordinator: the readiness probe uses server_public
 * (NULL = a plain coordinator). */
int coord_proc_start_curve(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                           const char *name, const char *server_public);
/* Same port as before (a restart). */
int coord_proc_restart(coord_proc_t *p, const char *conninfo, const char *const *extra_args,
                       const char *name);
/* Sends sig (SIGTERM, SIGKILL) and waits up to 20 s; returns the exit status
 * (128 + signal number if killed), or -1. */
int coord_proc_stop(coord_proc_t *p, int sig);
/* Sends sig to a child process and waits up to timeout_ms for it, then
 * SIGKILLs it: its exit status as above, or -1 if it had to be killed. */
int coord_kill_wait(pid_t pid, int sig, int timeout_ms);

#endif
