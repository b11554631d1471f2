/* worker.c - capa-worker's poll loop: connection, tasks, results, shutdown. */
#include "worker.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "backoff.h"
#include "batch.h"
#include "bench.h"
#include "err.h"
#include "log.h"
#include "player.h"
#include "gamepool.h"
#include "spool.h"
#include "token.h"
#include "upload.h"
#include "worker_internal.h"

typedef struct {
    proto_pair_result_t res;     /* games filled as they finish */
    int games;                   /* 0, 1, 2 */
    unsigned cancelled;          /* bit g: game g was taken off the queue unplayed */
    double cpu;
} s_pair_t;

typedef struct s_task_s {
    proto_task_t task;           /* owned */
    params_t a, b;
    batch_t batch;
    s_pair_t *pairs;             /* one per task pair */
    gamepool_job_t *jobs;            /* two per task pair */
    size_t outstanding;          /* jobs queued or running */
    bool abandoned;              /* no more RESULTs for it */
    char *pgn;                   /* the finished games' PGN */
    size_t pgn_len, pgn_cap;
    struct s_task_s *next;
} s_task_t;

typedef enum { ST_DISCONNECTED = 0, ST_HELLO, ST_READY } s_state_t;

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
    s_state_t state;
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
    s_task_t *tasks;
    batch_policy_t policy;

    int sigfd;
    bool stopping, flushed;
    int64_t grace_until, ack_until;
    bool done;
    int exit_status;

    struct rusage ru_start;
    int64_t stats_at;            /* next progress line */
    uint64_t n_tasks, n_pairs, n_games, n_batches;
};

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double s_tv(struct timeval tv) { return (double) tv.tv_sec + (double) tv.tv_usec * 1e-6; }

/* ---------------------------------------------------------------- sending */

static void s_send(worker_t *w, const char *frame, size_t len)
{
    if (!w->sock)
        return;
    if (zmq_send(w->sock, frame, len, ZMQ_DONTWAIT) < 0)
        LOG(LOG_DEBUG, "send failed (%s); the spool keeps results", zmq_strerror(errno));
    w->last_send_ms = s_now_ms();
}

static void s_send_msg(worker_t *w, const proto_msg_t *msg)
{
    char *frame;
    size_t len;
    char err[256];
    if (proto_encode(msg, &frame, &len, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "cannot encode %s: %s", proto_type_name(msg->type), err);
        return;
    }
    s_send(w, frame, len);
    free(frame);
}

static void s_send_hello(worker_t *w)
{
    proto_msg_t m = { .type = PROTO_HELLO };
    m.u.hello = w->hello;
    s_send_msg(w, &m);
    w->state = ST_HELLO;
}

static void s_resend_spool(worker_t *w)
{
    size_t n = spool_count(w->spool);
    if (n)
        LOG(LOG_INFO, "resending %zu spooled batch(es)", n);
    for (size_t i = 0; i < n; i++) {
        const spool_entry_t *e = spool_entry(w->spool, i);
        s_send(w, e->frame, e->len);
    }
}

/* Spools (fsync) then sends every waiting frame, in order; stops at the
 * first that cannot be spooled and retries it later. */
static void s_flush_unspooled(worker_t *w)
{
    size_t i = 0;
    char err[256];
    for (; i < w->unspooled.count; i++) {
        batch_frame_t *f = &w->unspooled.items[i];
        int rc = spool_append(w->spool, f->task_id, f->batch, f->frame, f->len, err, sizeof err);
        if (rc < 0 && rc != CAPA_EDUP) {
            int delay = backoff_next(&w->spool_backoff);
            LOG(LOG_ERROR, "%s; %zu RESULT batch(es) wait unsent, next try in %d ms", err,
                w->unspooled.count - i, delay);
            w->spool_retry_at = s_now_ms() + delay;
            break;
        }
        backoff_reset(&w->spool_backoff);
        w->spool_retry_at = INT64_MAX;
        if (w->state == ST_READY)
            s_send(w, f->frame, f->len);
        w->n_batches++;
        LOG(LOG_DEBUG, "RESULT task %" PRId64 " batch %" PRId64 " (%zu pairs%s) spooled", f->task_id,
            f->batch, f->pairs, f->last ? ", last" : "");
        free(f->frame);
        f->frame = NULL;
    }
    if (i > 0) {
        memmove(w->unspooled.items, w->unspooled.items + i,
                (w->unspooled.count - i) * sizeof *w->unspooled.items);
        w->unspooled.count -= i;
    }
}

static void s_emit(worker_t *w, batch_frames_t *frames)
{
    for (size_t i = 0; i < frames->count; i++) {
        batch_frame_t *items =
            realloc(w->unspooled.items, (w->unspooled.count + 1) * sizeof *items);
        if (!items) {
            LOG(LOG_ERROR, "out of memory queueing a RESULT; its pairs are replayed by the lease");
            free(frames->items[i].frame);
            continue;
        }
        w->unspooled.items = items;
        w->unspooled.items[w->unspooled.count++] = frames->items[i];
    }
    free(frames->items);
    frames->items = NULL;
    frames->count = 0;
    s_flush_unspooled(w);
}

/* ------------------------------------------------------------- connection */

static int s_connect(worker_t *w)
{
    w->sock = zmq_socket(w->zctx, ZMQ_DEALER);
    if (!w->sock) {
        LOG(LOG_ERROR, "zmq_socket: %s", zmq_strerror(errno));
        return CAPA_EIO;
    }
    int linger = 0;
    int64_t maxmsg = PROTO_FRAME_MAX + 1024;
    zmq_setsockopt(w->sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(w->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    if (w->curve) {
        zmq_setsockopt(w->sock, ZMQ_CURVE_SERVERKEY, w->curve_server, 41);
        zmq_setsockopt(w->sock, ZMQ_CURVE_PUBLICKEY, w->curve_public, 41);
        zmq_setsockopt(w->sock, ZMQ_CURVE_SECRETKEY, w->curve_secret, 41);
    }
    if (zmq_connect(w->sock, w->cfg.coordinator) < 0) {
        LOG(LOG_ERROR, "cannot connect to %s: %s", w->cfg.coordinator, zmq_strerror(errno));
        zmq_close(w->sock);
        w->sock = NULL;
        return CAPA_EIO;
    }
    w->last_recv_ms = s_now_ms();
    w->request_out = false;
    w->hb_ms = w->cfg.heartbeat_ms;
    w->liveness = w->cfg.liveness;
    LOG(LOG_INFO, "connecting to %s", w->cfg.coordinator);
    s_send_hello(w);
    return 0;
}

static void s_disconnect(worker_t *w, const char *why)
{
    if (w->sock) {
        zmq_close(w->sock);
        w->sock = NULL;
    }
    w->state = ST_DISCONNECTED;
    w->session[0] = '\0';
    w->request_out = false;
    int delay = backoff_next(&w->backoff);
    w->reconnect_at = s_now_ms() + delay;
    LOG(LOG_WARN, "%s; reconnecting in %d ms", why, delay);
}

/* ------------------------------------------------------------------ tasks */

static s_task_t *s_task_find(worker_t *w, int64_t task_id)
{
    for (s_task_t *t = w->tasks; t; t = t->next)
        if (t->task.task_id == task_id)
            return t;
    return NULL;
}

static void s_task_pgn(s_task_t *t, const char *pgn)
{
    size_t n = strlen(pgn);
    if (t->pgn_len + n + 1 > t->pgn_cap) {
        size_t cap = (t->pgn_cap ? t->pgn_cap * 2 : 8192);
        while (cap < t->pgn_len + n + 1)
            cap *= 2;
        char *p = realloc(t->pgn, cap);
        if (!p)
            return;  /* PGN is best effort; the RESULT is what counts */
        t->pgn = p;
        t->pgn_cap = cap;
    }
    memcpy(t->pgn + t->pgn_len, pgn, n + 1);
    t->pgn_len += n;
}

static void s_task_abandon(worker_t *w, s_task_t *t, const char *why)
{
    if (t->abandoned)
        return;
    t->abandoned = true;
    size_t n = gamepool_cancel(w->pool, t);
    LOG(LOG_WARN, "abandoning task %" PRId64 " (%s): %zu game(s) not started", t->task.task_id, why,
        n);
}

static void s_task_free(worker_t *w, s_task_t *t)
{
    char err[256];
    if (w->upload && t->pgn_len &&
        upload_store(w->upload, t->task.task_id, t->pgn, t->pgn_len, err, sizeof err) < 0)
        LOG(LOG_WARN, "PGN of task %" PRId64 " not kept: %s", t->task.task_id, err);
    for (size_t i = 0; i < t->task.pair_count; i++)
        for (int g = 0; g < 2; g++)
            free(t->pairs[i].res.games[g].moves);
    batch_free(&t->batch);
    proto_task_free(&t->task);
    free(t->pairs);
    free(t->jobs);
    free(t->pgn);
    free(t);
}

/* Takes the waiting pairs of every task whose batch is due (or all, with
 * force) and frees tasks that are finished. */
static void s_tasks_cron(worker_t *w, bool force)
{
    int64_t now = s_now_ms();
    char err[256];
    for (s_task_t **link = &w->tasks; *link;) {
        s_task_t *t = *link;
        if (!t->abandoned && batch_pending(&t->batch) &&
            (force || batch_due(&t->batch, &w->policy, now))) {
            batch_frames_t frames = { 0 };
            if (batch_take(&t->batch, &frames, err, sizeof err) < 0) {
                /* never expected: the pairs go back through the lease */
                LOG(LOG_ERROR, "task %" PRId64 ": cannot encode a RESULT: %s", t->task.task_id,
                    err);
                s_task_abandon(w, t, "its RESULT cannot be encoded");
            }
            s_emit(w, &frames);
        }
        bool finished = t->outstanding == 0 &&
                        (t->abandoned || batch_complete(&t->batch) ||
                         (w->flushed && batch_pending(&t->batch) == 0));
        if (finished) {
            if (batch_complete(&t->batch))
                w->n_tasks++;
            *link = t->next;
            s_task_free(w, t);
        } else {
            link = &t->next;
        }
    }
}

static void s_send_error(worker_t *w, proto_code_t code, proto_type_t about, int64_t task_id,
                         const char *text)
{
    proto_msg_t m = { .type = PROTO_ERROR };
    m.u.error.code = code;
    m.u.error.about = about;
    m.u.error.task_id = task_id;
    m.u.error.batch = -1;
    snprintf(m.u.error.text, sizeof m.u.error.text, "%s", text);
    s_send_msg(w, &m);
}

static void s_on_task(worker_t *w, proto_task_t *task)
{
    char err[256];
    w->request_out = false;
    if (w->stopping) {
        LOG(LOG_INFO, "TASK %" PRId64 " arrived while stopping: not started (BYE returns it)",
            task->task_id);
        proto_task_free(task);
        return;
    }
    if (s_task_find(w, task->task_id)) {
        LOG(LOG_WARN, "TASK %" PRId64 " again: already playing it; ignored", task->task_id);
        proto_task_free(task);
        return;
    }
    s_task_t *t = calloc(1, sizeof *t);
    int rc = t ? 0 : CAPA_ENOMEM;
    if (rc == 0)
        rc = player_params(&task->a, &t->a, err, sizeof err);
    if (rc == 0)
        rc = player_params(&task->b, &t->b, err, sizeof err);
    if (rc == 0)
        rc = player_check_task(task, err, sizeof err);
    if (rc < 0) {
        if (rc == CAPA_ENOMEM)
            snprintf(err, sizeof err, "out of memory");
        int delay = backoff_next(&w->refuse_backoff);
        LOG(LOG_ERROR, "refusing TASK %" PRId64 ": %s; next REQUEST in %d ms", task->task_id,
            err, delay);
        s_send_error(w, PROTO_BAD_SCHEMA, PROTO_TASK, task->task_id, err);
        w->request_at = s_now_ms() + delay;
        free(t);
        proto_task_free(task);
        return;
    }
    t->task = *task;
    memset(task, 0, sizeof *task);
    size_t n = t->task.pair_count;
    t->pairs = calloc(n, sizeof *t->pairs);
    t->jobs = calloc(2 * n, sizeof *t->jobs);
    if (!t->pairs || !t->jobs) {
        LOG(LOG_ERROR, "out of memory for TASK %" PRId64, t->task.task_id);
        free(t->pairs);
        free(t->jobs);
        proto_task_free(&t->task);
        free(t);
        return;
    }
    backoff_reset(&w->refuse_backoff);
    int64_t first = spool_max_batch(w->spool, t->task.task_id) + 1;
    batch_init(&t->batch, t->task.task_id, t->task.lease_id, n, first);
    t->next = w->tasks;
    w->tasks = t;
    for (size_t i = 0; i < n; i++) {
        t->pairs[i].res.pair = t->task.pairs[i].pair;
        for (int g = 0; g < 2; g++) {
            gamepool_job_t *job = &t->jobs[2 * i + (size_t) g];
            *job = (gamepool_job_t){ .owner = t, .task = &t->task, .a = &t->a, .b = &t->b,
                                 .pair_index = i, .g = g, .want_pgn = w->cfg.http_base[0] != 0 };
            t->outstanding++;
            gamepool_submit(w->pool, job);
        }
    }
    LOG(LOG_INFO, "TASK %" PRId64 " (run %" PRId64 ", lease %" PRId64 ", %s, %zu pairs, %s)",
        t->task.task_id, t->task.run_id, t->task.lease_id, proto_kind_name(t->task.kind), n,
        t->task.game.variant);
}

/* Puts a pair's game back in the queue (at shutdown, to finish a pair
 * whose other game is played). */
static void s_resubmit(worker_t *w, s_task_t *t, gamepool_job_t *job)
{
    t->pairs[job->pair_index].cancelled &= ~(1u << job->g);
    job->cancelled = false;
    t->outstanding++;
    gamepool_submit(w->pool, job);
}

static void s_on_job(worker_t *w, gamepool_job_t *job)
{
    s_task_t *t = job->owner;
    t->outstanding--;
    if (job->cancelled && !t->abandoned) {
        /* Stopping: a pair whose other game is done is still finished;
         * one whose other game still runs is finished when that ends. */
        s_pair_t *p = &t->pairs[job->pair_index];
        p->cancelled |= 1u << job->g;
        if (w->stopping && p->games == 1)
            s_resubmit(w, t, job);
        return;
    }
    if (job->cancelled || t->abandoned) {
        player_game_free(&job->game);
        return;
    }
    if (job->rc < 0) {
        LOG(LOG_ERROR, "task %" PRId64 " pair %" PRId64 " game %d failed: %s", t->task.task_id,
            t->task.pairs[job->pair_index].pair, job->g + 1, job->err);
        player_game_free(&job->game);
        /* Keep what is done; the lease replays the rest elsewhere. */
        char err[256];
        batch_frames_t frames = { 0 };
        if (batch_take(&t->batch, &frames, err, sizeof err) == 0)
            s_emit(w, &frames);
        s_task_abandon(w, t, "a game could not be played");
        return;
    }
    w->n_games++;
    s_pair_t *p = &t->pairs[job->pair_index];
    p->res.games[job->g] = job->game.result;
    job->game.result.moves = NULL;
    p->cpu += job->game.cpu_seconds;
    if (job->game.pgn)
        s_task_pgn(t, job->game.pgn);
    player_game_free(&job->game);
    if (++p->games == 1 && w->stopping && (p->cancelled & (1u << (1 - job->g))))
        s_resubmit(w, t, &t->jobs[2 * job->pair_index + (size_t) (1 - job->g)]);
    if (p->games == 2) {
        p->res.score = proto_pair_score(&p->res);
        w->n_pairs++;
        if (batch_add(&t->batch, &p->res, p->cpu, s_now_ms()) < 0) {
            LOG(LOG_ERROR, "task %" PRId64 ": cannot queue pair %" PRId64, t->task.task_id,
                p->res.pair);
            s_task_abandon(w, t, "out of memory");
        }
    }
}

/* ------------------------------------------------------------- messages */

static void s_on_error(worker_t *w, const proto_error_t *e)
{
    const char *code = proto_code_name(e->code);
    const char *about = e->about == PROTO_NONE ? "?" : proto_type_name(e->about);
    LOG(LOG_WARN, "ERROR %s about %s (task %" PRId64 ", batch %" PRId64 "): %s", code, about,
        e->task_id, e->batch, e->text);
    bool on_result = e->about == PROTO_RESULT && e->task_id >= 0 && e->batch >= 0;
    const spool_entry_t *entry = on_result ? spool_find(w->spool, e->task_id, e->batch) : NULL;
    s_task_t *t = e->task_id >= 0 ? s_task_find(w, e->task_id) : NULL;
    char err[256];
    if (e->about == PROTO_REQUEST)
        w->request_out = false;
    switch (e->code) {
    case PROTO_AUTH_FAILED:
    case PROTO_TOKEN_REVOKED:
        LOG(LOG_ERROR, "the coordinator refuses the token (%s): fix the token and restart", code);
        w->exit_status = WORKER_EXIT_AUTH;
        w->done = true;
        return;
    case PROTO_SIGNATURE_MISMATCH:
        LOG(LOG_ERROR, "engine signature mismatch: this worker's bench is %" PRId64
                       "; the coordinator said: %s",
            w->hello.bench, e->text);
        w->exit_status = WORKER_EXIT_SIGNATURE;
        w->done = true;
        return;
    case PROTO_BAD_VERSION:
        LOG(LOG_ERROR, "the coordinator speaks another protocol version: update capa-worker");
        w->exit_status = WORKER_EXIT_VERSION;
        w->done = true;
        return;
    case PROTO_UNKNOWN_WORKER:
        LOG(LOG_INFO, "the coordinator does not know this connection: HELLO again");
        w->request_out = false;
        s_send_hello(w);
        return;
    case PROTO_TOO_BIG:
        if (entry) {
            int64_t next = spool_max_batch(w->spool, e->task_id) + 1;
            if (t && t->batch.next_batch > next)
                next = t->batch.next_batch;
            batch_frames_t frames = { 0 };
            int rc = batch_split(entry->frame, entry->len, &next, &frames, err, sizeof err);
            if (rc < 0) {
                LOG(LOG_ERROR, "cannot split batch %" PRId64 ": %s", e->batch, err);
                return;
            }
            if (t)
                t->batch.next_batch = next;
            int64_t old = e->batch;
            s_emit(w, &frames);
            if (w->unspooled.count == 0)
                spool_remove(w->spool, e->task_id, old, err, sizeof err);
        }
        return;
    case PROTO_BAD_JSON:
    case PROTO_BAD_SCHEMA:
    case PROTO_INCONSISTENT_RESULT:
    case PROTO_PAIR_OUTSIDE_LEASE:
        if (entry) {
            LOG(LOG_ERROR, "BUG: the coordinator refused RESULT task %" PRId64 " batch %" PRId64
                           " (%s): kept in %s/" SPOOL_BAD_FILE " for inspection, not resent",
                e->task_id, e->batch, code, w->state_dir);
            if (spool_quarantine(w->spool, e->task_id, e->batch, err, sizeof err) < 0)
                LOG(LOG_ERROR, "%s", err);
        } else if (e->about == PROTO_HELLO) {
            LOG(LOG_ERROR, "the coordinator refused HELLO (%s): %s", code, e->text);
            w->exit_status = WORKER_EXIT_FAILURE;
            w->done = true;
        }
        if (e->code == PROTO_PAIR_OUTSIDE_LEASE && t)
            s_task_abandon(w, t, code);
        return;
    case PROTO_LEASE_UNKNOWN:
    case PROTO_LEASE_NOT_YOURS:
    case PROTO_LEASE_EXPIRED:
        if (entry && spool_remove(w->spool, e->task_id, e->batch, err, sizeof err) < 0)
            LOG(LOG_WARN, "%s", err);
        if (t)
            s_task_abandon(w, t, code);
        return;
    case PROTO_INTERNAL: {
        int delay = backoff_next(&w->internal_backoff);
        if (w->resend_at == INT64_MAX || w->resend_at > s_now_ms() + delay)
            w->resend_at = s_now_ms() + delay;
        if (e->about == PROTO_REQUEST)
            w->request_at = s_now_ms() + delay;
        LOG(LOG_INFO, "coordinator trouble: resending the spool in %d ms", delay);
        return;
    }
    default:
        return; /* UNKNOWN_TYPE and anything new: logged above, dropped */
    }
}

static void s_on_message(worker_t *w, const char *frame, size_t len)
{
    proto_msg_t msg;
    char err[256];
    if (proto_decode(frame, len, &msg, err, sizeof err) < 0) {
        LOG(LOG_WARN, "dropping a bad message from the coordinator (%s): %s",
            proto_code_name(msg.fault), err);
        proto_msg_free(&msg);
        return;
    }
    switch (msg.type) {
    case PROTO_WELCOME: {
        const proto_welcome_t *wm = &msg.u.welcome;
        snprintf(w->session, sizeof w->session, "%s", wm->session);
        w->hb_ms = wm->heartbeat_ms;
        w->liveness = wm->liveness;
        w->state = ST_READY;
        backoff_reset(&w->backoff);
        LOG(LOG_INFO, "WELCOME: session %s, heartbeat %d ms x %d", w->session, w->hb_ms,
            w->liveness);
        if (wm->bench != w->hello.bench)
            LOG(LOG_WARN, "the coordinator expects bench %" PRId64 ", this engine has %" PRId64,
                wm->bench, w->hello.bench);
        s_resend_spool(w);
        /* frames that could not be spooled yet go out once they are */
        break;
    }
    case PROTO_TASK:
        s_on_task(w, &msg.u.task);
        break;
    case PROTO_NO_TASK:
        w->request_out = false;
        w->request_at = s_now_ms() + msg.u.no_task.retry_ms;
        LOG(LOG_DEBUG, "NO_TASK (%s): asking again in %d ms", msg.u.no_task.reason,
            msg.u.no_task.retry_ms);
        break;
    case PROTO_ACK: {
        const proto_ack_t *a = &msg.u.ack;
        int rc = spool_remove(w->spool, a->task_id, a->batch, err, sizeof err);
        if (rc < 0 && rc != CAPA_ENOTFOUND)
            LOG(LOG_WARN, "ACK task %" PRId64 " batch %" PRId64 ": %s", a->task_id, a->batch, err);
        backoff_reset(&w->internal_backoff);
        LOG(LOG_DEBUG, "ACK task %" PRId64 " batch %" PRId64 ": %zu stored, %zu duplicate",
            a->task_id, a->batch, a->stored_count, a->duplicate_count);
        break;
    }
    case PROTO_HEARTBEAT:
        break;
    case PROTO_BYE:
        LOG(LOG_INFO, "the coordinator says BYE (%s)", msg.u.bye.reason);
        backoff_reset(&w->backoff);
        s_disconnect(w, "coordinator went away");
        break;
    case PROTO_ERROR:
        s_on_error(w, &msg.u.error);
        break;
    default:
        LOG(LOG_WARN, "unexpected %s from the coordinator; ignored", proto_type_name(msg.type));
        break;
    }
    proto_msg_free(&msg);
}

static void s_receive(worker_t *w)
{
    while (w->sock && !w->done) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, w->sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return;
        }
        w->last_recv_ms = s_now_ms();
        bool more = zmq_msg_more(&m);
        if (more) {
            LOG(LOG_WARN, "dropping a multi-frame message (expected one JSON frame)");
            while (more) {
                zmq_msg_close(&m);
                zmq_msg_init(&m);
                if (zmq_msg_recv(&m, w->sock, ZMQ_DONTWAIT) < 0)
                    break;
                more = zmq_msg_more(&m);
            }
            zmq_msg_close(&m);
            continue;
        }
        s_on_message(w, zmq_msg_data(&m), zmq_msg_size(&m));
        zmq_msg_close(&m);
    }
}

/* ------------------------------------------------------------------- cron */

static int s_free_slots(worker_t *w)
{
    int busy = gamepool_running(w->pool) + (int) gamepool_queued(w->pool);
    return w->threads > busy ? w->threads - busy : 0;
}

static void s_heartbeat(worker_t *w)
{
    int64_t ids[PROTO_TASKS_MAX];
    size_t n = 0;
    for (s_task_t *t = w->tasks; t && n < PROTO_TASKS_MAX; t = t->next)
        if (!t->abandoned)
            ids[n++] = t->task.task_id;
    proto_msg_t m = { .type = PROTO_HEARTBEAT };
    m.u.heartbeat.tasks = ids;
    m.u.heartbeat.task_count = n;
    s_send_msg(w, &m);
}

static void s_begin_stop(worker_t *w)
{
    int64_t now = s_now_ms();
    if (w->stopping) {
        LOG(LOG_WARN, "second signal: abandoning running games now");
        w->grace_until = now;
        return;
    }
    w->stopping = true;
    w->grace_until = now + (int64_t) w->cfg.grace_seconds * 1000;
    size_t n = gamepool_cancel(w->pool, NULL);
    LOG(LOG_INFO, "stopping: %zu queued game(s) dropped, waiting up to %d s for %d running",
        n, w->cfg.grace_seconds, gamepool_running(w->pool));
}

/* One pass of housekeeping; returns the poll timeout in ms. */
static long s_cron(worker_t *w)
{
    int64_t now = s_now_ms();
    int64_t next = now + 1000;
#define S_NEXT(t) do { if ((t) < next) next = (t); } while (0)

    if (w->stopping && !w->flushed) {
        /* queued too: the second games of half-played pairs */
        int running = gamepool_running(w->pool) + (int) gamepool_queued(w->pool);
        if (running == 0 || now >= w->grace_until) {
            if (running > 0)
                LOG(LOG_WARN, "grace period over: abandoning %d game(s)", running);
            w->flushed = true;
            s_tasks_cron(w, true);
            /* Tasks whose games still run stay allocated (the threads use
             * them) but send nothing more. */
            for (s_task_t *t = w->tasks; t; t = t->next)
                t->abandoned = true;
            w->ack_until = now + w->cfg.ack_wait_ms;
        } else {
            S_NEXT(w->grace_until);
        }
    }
    s_tasks_cron(w, w->flushed);

    if (w->unspooled.count && now >= w->spool_retry_at)
        s_flush_unspooled(w);
    if (w->unspooled.count)
        S_NEXT(w->spool_retry_at);

    if (w->flushed) {
        bool waiting = w->state == ST_READY && (spool_count(w->spool) || w->unspooled.count) &&
                       now < w->ack_until;
        if (!waiting) {
            if (w->state == ST_READY) {
                proto_msg_t m = { .type = PROTO_BYE };
                snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "shutdown");
                s_send_msg(w, &m);
            }
            w->done = true;
            return 0;
        }
        S_NEXT(w->ack_until);
    }

    if (w->state == ST_DISCONNECTED) {
        if (!w->stopping && now >= w->reconnect_at && s_connect(w) < 0)
            s_disconnect(w, "connect failed");
        if (w->state == ST_DISCONNECTED)
            S_NEXT(w->reconnect_at);
    }
    if (w->state != ST_DISCONNECTED) {
        int64_t dead_at = w->last_recv_ms + (int64_t) w->hb_ms * w->liveness;
        if (now >= dead_at) {
            s_disconnect(w, "coordinator silent");
            S_NEXT(w->reconnect_at);
        } else {
            S_NEXT(dead_at);
        }
    }
    if (w->state == ST_READY) {
        if (now >= w->resend_at) {
            w->resend_at = INT64_MAX;
            s_resend_spool(w);
        }
        S_NEXT(w->resend_at);
        if (!w->stopping && !w->request_out && w->resend_at == INT64_MAX) {
            int slots = s_free_slots(w);
            if (slots > 0 && now >= w->request_at) {
                proto_msg_t m = { .type = PROTO_REQUEST };
                m.u.request.slots = slots;
                s_send_msg(w, &m);
                w->request_out = true;
            } else if (slots > 0) {
                S_NEXT(w->request_at);
            }
        }
        if (now - w->last_send_ms >= w->hb_ms)
            s_heartbeat(w);
        S_NEXT(w->last_send_ms + w->hb_ms);
    }
    for (s_task_t *t = w->tasks; t; t = t->next)
        if (!t->abandoned)
            S_NEXT(batch_deadline(&t->batch, &w->policy));
#undef S_NEXT
    now = s_now_ms();
    return next <= now ? 0 : (long) (next - now);
}

/* The accounting line: work done and the share of CPU spent in games
 * (finished games only, so mid-game figures are a little low). */
static void s_log_stats(worker_t *w, const char *what)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double total = s_tv(ru.ru_utime) + s_tv(ru.ru_stime) - s_tv(w->ru_start.ru_utime) -
                   s_tv(w->ru_start.ru_stime);
    double games = gamepool_game_cpu(w->pool);
    LOG(LOG_INFO,
        "%s: %" PRIu64 " task(s) done, %" PRIu64 " pair(s), %" PRIu64 " game(s), %" PRIu64
        " RESULT batch(es); CPU in games %.2f s of %.2f s process CPU since start = %.1f%% "
        "(start-up bench %.2f s not counted); %zu batch(es) in the spool",
        what, w->n_tasks, w->n_pairs, w->n_games, w->n_batches, games, total,
        total > 0 ? 100.0 * games / total : 0.0, w->bench_cpu, spool_count(w->spool));
}

static void s_signals(worker_t *w)
{
    struct signalfd_siginfo si;
    while (read(w->sigfd, &si, sizeof si) == (ssize_t) sizeof si) {
        LOG(LOG_INFO, "signal %s", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        s_begin_stop(w);
    }
}

int worker_run(worker_t *w)
{
    getrusage(RUSAGE_SELF, &w->ru_start);
    w->reconnect_at = s_now_ms();
    w->stats_at = s_now_ms() + WORKER_STATS_MS;
    while (!w->done) {
        long timeout = s_cron(w);
        if (w->done)
            break;
        if (s_now_ms() >= w->stats_at) {
            s_log_stats(w, "progress");
            w->stats_at += WORKER_STATS_MS;
        }
        zmq_pollitem_t items[3];
        int n = 0;
        items[n++] = (zmq_pollitem_t){ .fd = gamepool_fd(w->pool), .events = ZMQ_POLLIN };
        items[n++] = (zmq_pollitem_t){ .fd = w->sigfd, .events = ZMQ_POLLIN };
        if (w->sock)
            items[n++] = (zmq_pollitem_t){ .socket = w->sock, .events = ZMQ_POLLIN };
        if (zmq_poll(items, n, timeout) < 0 && errno != EINTR) {
            LOG(LOG_ERROR, "zmq_poll: %s", zmq_strerror(errno));
            w->exit_status = WORKER_EXIT_FAILURE;
            break;
        }
        if (items[1].revents & ZMQ_POLLIN)
            s_signals(w);
        gamepool_job_t *job;
        while ((job = gamepool_take(w->pool)))
            s_on_job(w, job);
        if (w->sock)
            s_receive(w);
    }
    s_log_stats(w, "stats");
    return w->exit_status;
}

/* ------------------------------------------------------------- lifecycle */

static bool s_token_ok(const char *t)
{
    size_t n = strlen(t);
    if (n < 1 || n >= PROTO_TOKEN_MAX)
        return false;
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
              *t == '_' || *t == '-'))
            return false;
    return true;
}

static int s_setup_token(worker_t *w, char *err, size_t errlen)
{
    char *tok = w->hello.token;
    if (w->cfg.token[0]) {
        snprintf(tok, PROTO_TOKEN_MAX, "%s", w->cfg.token);
    } else {
        char path[PATH_MAX + 16];
        if (w->cfg.token_file[0])
            snprintf(path, sizeof path, "%s", w->cfg.token_file);
        else
            snprintf(path, sizeof path, "%s/token", w->state_dir);
        int rc = worker_read_line(path, tok, PROTO_TOKEN_MAX, err, errlen);
        if (rc == CAPA_ENOTFOUND && !w->cfg.token_file[0])
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "no token: give --token, CAPA_TOKEN, --token-file or %s", path);
        if (rc < 0)
            return rc;
    }
    if (!s_token_ok(tok))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "the token must be 1..127 characters of A-Z a-z 0-9 _ -");
    return 0;
}

static int s_setup_curve(worker_t *w, char *err, size_t errlen)
{
    const char *k = w->cfg.server_key;
    if (!k[0])
        return 0;
    uint8_t raw[32];
    size_t rawlen;
    if (strlen(k) == 40 && token_z85_decode(k, raw, sizeof raw, &rawlen) == 0 && rawlen == 32) {
        snprintf(w->curve_server, sizeof w->curve_server, "%s", k);
    } else {
        int rc = token_curve_load(k, w->curve_server, NULL, err, errlen);
        if (rc < 0)
            return rc;
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/curve.key", w->state_dir);
    char why[256];
    if (access(path, F_OK) == 0) {
        int rc = token_curve_load(path, w->curve_public, w->curve_secret, err, errlen);
        if (rc < 0)
            return rc;
        if (!w->curve_secret[0])
            return capa_fail(err, errlen, CAPA_EINVAL, "%s holds no secret key", path);
    } else {
        int rc = token_curve_keypair(w->curve_public, w->curve_secret);
        if (rc == 0)
            rc = token_curve_save(path, w->curve_public, w->curve_secret, why, sizeof why);
        if (rc < 0)
            return capa_fail(err, errlen, rc, "cannot make the worker's CURVE keys: %s", why);
        LOG(LOG_INFO, "new CURVE key pair in %s (public %s)", path, w->curve_public);
    }
    w->curve = true;
    return 0;
}

int worker_new(const worker_config_t *cfg, worker_t **out, char *err, size_t errlen)
{
    *out = NULL;
    worker_t *w = calloc(1, sizeof *w);
    if (!w)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    w->cfg = *cfg;
    w->sigfd = -1;
    w->resend_at = INT64_MAX;
    w->spool_retry_at = INT64_MAX;
    backoff_init(&w->backoff, cfg->backoff_first_ms, cfg->backoff_max_ms);
    backoff_init(&w->internal_backoff, cfg->backoff_first_ms, cfg->backoff_max_ms);
    backoff_init(&w->spool_backoff, cfg->backoff_first_ms, cfg->backoff_max_ms);
    backoff_init(&w->refuse_backoff, cfg->backoff_first_ms, cfg->backoff_max_ms);
    w->policy = (batch_policy_t){ .pairs = cfg->batch_pairs,
                                  .ms = (int64_t) cfg->batch_seconds * 1000 };
    w->hb_ms = cfg->heartbeat_ms;
    w->liveness = cfg->liveness;
    int rc = worker_state_dir(cfg->state_dir, w->state_dir, sizeof w->state_dir, err, errlen);
    if (rc == 0)
        rc = s_setup_token(w, err, errlen);
    if (rc == 0)
        rc = worker_id_load(w->state_dir, w->hello.worker_id, sizeof w->hello.worker_id, err,
                            errlen);
    if (rc == 0)
        rc = s_setup_curve(w, err, errlen);
    if (rc == 0)
        rc = spool_open(w->state_dir, &w->spool, err, errlen);
    if (rc < 0) {
        worker_destroy(&w);
        return rc;
    }
    /* identity */
    proto_hello_t *h = &w->hello;
    if (cfg->name[0])
        snprintf(h->name, sizeof h->name, "%s", cfg->name);
    else
        worker_default_name(h->name, sizeof h->name);
    worker_host_info(h);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = cores < 1 ? 1 : cores > PROTO_SLOTS_MAX ? PROTO_SLOTS_MAX : (int) cores;
    w->threads = cfg->concurrency > 0 ? cfg->concurrency : h->cores;
    h->concurrency = w->threads;
    snprintf(h->engine_version, sizeof h->engine_version, "%s", WORKER_ENGINE_VERSION);

    /* the bench: signature and speed of one thread */
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    uint64_t nodes = 0;
    int64_t ms = 0;
    char why[256];
    rc = bench_run(BENCH_DEFAULT_DEPTH, BENCH_DEFAULT_HASH_MB, &nodes, &ms, why, sizeof why);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    if (rc < 0) {
        worker_destroy(&w);
        return capa_fail(err, errlen, rc, "engine bench failed: %s", why);
    }
    w->bench_cpu = (double) (c1.tv_sec - c0.tv_sec) + (double) (c1.tv_nsec - c0.tv_nsec) * 1e-9;
    h->bench = (int64_t) nodes;
    h->nps = ms > 0 ? (double) nodes * 1000.0 / (double) ms : (double) nodes * 1000.0;
    LOG(LOG_INFO, "worker %s (%s): bench %" PRIu64 " nodes, %.0f nodes/s, %d game thread(s) on "
                  "%d core(s)",
        h->worker_id, h->name, nodes, h->nps, w->threads, h->cores);

    /* signals arrive through a signalfd: block them before any thread starts */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    w->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (w->sigfd < 0) {
        int e = errno;
        worker_destroy(&w);
        return capa_fail(err, errlen, CAPA_EIO, "signalfd: %s", strerror(e));
    }
    rc = gamepool_new(w->threads, (size_t) cfg->hash_mb, &w->pool, err, errlen);
    if (rc == 0) {
        char pgn_dir[PATH_MAX + 8];
        snprintf(pgn_dir, sizeof pgn_dir, "%s/pgn", w->state_dir);
        rc = upload_new(pgn_dir, cfg->http_base, h->token, &w->upload, err, errlen);
    }
    if (rc == 0) {
        w->zctx = zmq_ctx_new();
        if (!w->zctx)
            rc = capa_fail(err, errlen, CAPA_EIO, "zmq_ctx_new: %s", zmq_strerror(errno));
    }
    if (rc < 0) {
        worker_destroy(&w);
        return rc;
    }
    *out = w;
    return 0;
}

void worker_destroy(worker_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    worker_t *w = *self_p;
    *self_p = NULL;
    if (w->sock)
        zmq_close(w->sock);
    if (w->zctx)
        zmq_ctx_term(w->zctx);
    /* Games still running now are abandoned (grace period over, or a fatal
     * ERROR): their threads keep using the tasks until the process exits. */
    bool running = w->pool && gamepool_running(w->pool) > 0;
    gamepool_destroy(&w->pool, !running);
    if (running)
        w->tasks = NULL;
    while (w->tasks) {
        s_task_t *t = w->tasks;
        w->tasks = t->next;
        s_task_free(w, t);
    }
    upload_destroy(&w->upload);
    spool_destroy(&w->spool);
    batch_frames_free(&w->unspooled);
    if (w->sigfd >= 0)
        close(w->sigfd);
    free(w);
}
