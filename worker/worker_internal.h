/* worker_internal.h - what the worker's files share (worker.c, worker_link.c,
 * worker_tasks.c, worker_config.c) and their tests use; not part of the
 * worker's public interface. */
#ifndef CAPA_WORKER_INTERNAL_H
#define CAPA_WORKER_INTERNAL_H

#include <stddef.h>

#include "config.h"
#include "protocol.h"
#include "worker.h"

/* The state folder: configured, else $XDG_STATE_HOME/capalab/worker, else
 * ~/.capalab/worker; created (mode 0700) if missing. */
int worker_state_dir(const char *configured, char *out, size_t cap, char *err, size_t errlen);
/* The same name, nothing created. */
int worker_state_path(const char *configured, char *out, size_t cap, char *err, size_t errlen);
/* The worker's config table, and the checks across keys that follow loading. */
const config_spec_t *worker_config_spec(void);
int worker_config_check(const worker_config_t *cfg, char *err, size_t errlen);
/* The first line of a small file, blanks trimmed. CAPA_ENOTFOUND if the
 * file does not exist. */
int worker_read_line(const char *path, char *out, size_t cap, char *err, size_t errlen);
/* Writes and removes a 4 KiB probe file with fsync: a full or read-only
 * state folder is refused at start, before anything else is written. */
int worker_state_probe(const char *dir, char *err, size_t errlen);
/* How to update this install (the .deb, Docker or a source build): one
 * command line for the refusal messages. */
void worker_update_hint(char *out, size_t cap);
/* OS, CPU model and memory for HELLO's host object. */
void worker_host_info(proto_hello_t *h);
/* The host name as protocol text. */
void worker_default_name(char *out, size_t cap);

/* ---- the worker object, shared by worker.c, worker_link.c, worker_tasks.c ---- */

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <sys/resource.h>

#include "backoff.h"
#include "batch.h"
#include "gamepool.h"
#include "params.h"
#include "spool.h"
#include "status.h"
#include "token.h"
#include "upload.h"
#include "worker.h"

/* A pair of a task as its games finish. */
typedef struct {
    proto_pair_result_t res;     /* games filled as they finish */
    int games;                   /* 0, 1, 2 */
    unsigned cancelled;          /* bit g: game g was taken off the queue unplayed */
    double cpu;
} worker_pair_t;

/* A TASK being played: owns the decoded task, its jobs and its batch. */
typedef struct worker_task_s {
    proto_task_t task;           /* owned */
    params_t a, b;
    batch_t batch;
    worker_pair_t *pairs;             /* one per task pair */
    gamepool_job_t *jobs;            /* two per task pair */
    size_t outstanding;          /* jobs queued or running */
    bool abandoned;              /* no more RESULTs for it */
    char *pgn;                   /* the finished games' PGN */
    size_t pgn_len, pgn_cap;
    struct worker_task_s *next;
} worker_task_t;

typedef enum { WORKER_DISCONNECTED = 0, WORKER_HELLO, WORKER_READY } worker_state_t;

#define WORKER_STATS_MS (10 * 60 * 1000) /* a progress line every 10 minutes */

struct worker_s {
    worker_config_t cfg;
    char state_dir[PATH_MAX];
    int threads;
    proto_hello_t hello;
    bool curve;
    char curve_server[TOKEN_Z85_KEY_MAX], curve_public[TOKEN_Z85_KEY_MAX],
        curve_secret[TOKEN_Z85_KEY_MAX];
    double bench_cpu;

    void *zctx;
    void *sock;
    worker_state_t state;
    char session[PROTO_ID_MAX];
    int hb_ms, liveness;
    int64_t last_recv_ms, last_send_ms, reconnect_at;
    backoff_t backoff;           /* reconnects */
    backoff_t internal_backoff;  /* resends after INTERNAL */
    backoff_t refuse_backoff;    /* REQUEST delay after refusing a TASK */
    int64_t resend_at;
    bool request_out;
    int64_t request_at;

    spool_t *spool;
    batch_frames_t unspooled;    /* frames waiting for room in the spool */
    backoff_t spool_backoff;
    int64_t spool_retry_at;

    gamepool_t *pool;
    upload_t *upload;
    worker_task_t *tasks;
    batch_policy_t policy;

    int sigfd;
    bool stopping, flushed;
    int64_t grace_until, ack_until;
    bool done;
    int exit_status;

    struct rusage ru_start;
    int64_t stats_at;            /* next progress line */
    uint64_t n_tasks, n_pairs, n_games, n_batches;

    /* what the owner sees (status.h) */
    bool tty;                    /* stderr is a terminal: a live status line */
    int64_t status_at;           /* next status line */
    int64_t status_file_at;      /* next status.json */
    int64_t started_ms;
    int64_t limit_at;            /* stop_at / max_hours as CLOCK_MONOTONIC ms; INT64_MAX = none */
    char contributor[PROTO_TEXT_MAX]; /* from WELCOME; "" = not said */
    char limit_what[64];         /* "stop_at 18:00" or "max_hours 4" */
    bool draining;               /* the limit passed: no new tasks, exit when done */
    int64_t last_ack_wall;       /* time(NULL) of the last ACK; 0 = none */
    uint64_t acked_pairs;
    double cpu_prev;             /* process CPU seconds at the last status line */
    int64_t cpu_prev_ms;
    double cpu_share;
};

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t worker_now_ms(void);

/* worker_link.c: the DEALER socket and the messages on it. */
int worker_connect(worker_t *w);
void worker_disconnect(worker_t *w, const char *why);
void worker_send(worker_t *w, const char *frame, size_t len);
void worker_send_msg(worker_t *w, const proto_msg_t *msg);
void worker_send_hello(worker_t *w);
/* What this process holds, for HELLO and HEARTBEAT: the tasks it plays and
 * the pairs in its spool (listed = complete). Free with proto_holding_free. */
void worker_holding(worker_t *w, proto_holding_t *h);
void worker_send_error(worker_t *w, proto_code_t code, proto_type_t about, int64_t task_id,
                       const char *text);
void worker_resend_spool(worker_t *w);
/* The refusal message of a permanent ERROR at HELLO (AUTH_FAILED,
 * TOKEN_REVOKED, SIGNATURE_MISMATCH, BAD_VERSION): why, and what to do. */
void worker_refused(worker_t *w, const proto_error_t *e);
/* Reads and handles every waiting message. */
void worker_receive(worker_t *w);

/* worker_tasks.c: tasks to game threads, finished pairs to spooled RESULTs. */
void worker_on_task(worker_t *w, proto_task_t *task);
void worker_on_job(worker_t *w, gamepool_job_t *job);
worker_task_t *worker_task_find(worker_t *w, int64_t task_id);
void worker_task_abandon(worker_t *w, worker_task_t *t, const char *why);
void worker_task_free(worker_t *w, worker_task_t *t);
/* Sends due batches (all with force) and frees finished tasks. */
void worker_tasks_cron(worker_t *w, bool force);
/* Queues frames (taking them) to be spooled, then sent. */
void worker_emit(worker_t *w, batch_frames_t *frames);
void worker_flush_unspooled(worker_t *w);

#endif
