/* worker.c - capa-worker's life cycle and its one poll loop: timers
 * (heartbeats, liveness, reconnects, REQUESTs, batch ages), signals and
 * shutdown, accounting. The link is in worker_link.c, tasks in
 * worker_tasks.c. */
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

#include "bench.h"
#include "err.h"
#include "log.h"
#include "version.h"
#include "worker_internal.h"

int64_t worker_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double s_tv(struct timeval tv) { return (double) tv.tv_sec + (double) tv.tv_usec * 1e-6; }

/* ------------------------------------------------------------------- cron */

static int s_free_slots(worker_t *w)
{
    int busy = gamepool_running(w->pool) + (int) gamepool_queued(w->pool);
    return w->threads > busy ? w->threads - busy : 0;
}

static void s_heartbeat(worker_t *w)
{
    proto_msg_t m = { .type = PROTO_HEARTBEAT };
    worker_holding(w, &m.u.heartbeat);
    worker_send_msg(w, &m);
    proto_heartbeat_free(&m.u.heartbeat);
}

static void s_begin_stop(worker_t *w)
{
    int64_t now = worker_now_ms();
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
    int64_t now = worker_now_ms();
    int64_t next = now + 1000;
#define S_NEXT(t) do { if ((t) < next) next = (t); } while (0)

    if (!w->stopping && !w->draining && w->limit_at != INT64_MAX) {
        if (now >= w->limit_at) {
            w->draining = true;
            LOG(LOG_INFO, "%s reached: taking no new tasks; exiting once the %d running game(s) "
                          "are reported",
                w->limit_what, gamepool_running(w->pool) + (int) gamepool_queued(w->pool));
        } else {
            S_NEXT(w->limit_at);
        }
    }
    if (w->draining && !w->stopping && !w->tasks && !w->unspooled.count &&
        gamepool_running(w->pool) + (int) gamepool_queued(w->pool) == 0)
        s_begin_stop(w);

    if (w->stopping && !w->flushed) {
        /* queued too: the second games of half-played pairs */
        int running = gamepool_running(w->pool) + (int) gamepool_queued(w->pool);
        if (running == 0 || now >= w->grace_until) {
            if (running > 0)
                LOG(LOG_WARN, "grace period over: abandoning %d game(s)", running);
            w->flushed = true;
            worker_tasks_cron(w, true);
            /* Tasks whose games still run stay allocated (the threads use
             * them) but send nothing more. */
            for (worker_task_t *t = w->tasks; t; t = t->next)
                t->abandoned = true;
            w->ack_until = now + w->cfg.ack_wait_ms;
        } else {
            S_NEXT(w->grace_until);
        }
    }
    worker_tasks_cron(w, w->flushed);

    if (w->unspooled.count && now >= w->spool_retry_at)
        worker_flush_unspooled(w);
    if (w->unspooled.count)
        S_NEXT(w->spool_retry_at);

    if (w->flushed) {
        bool waiting = w->state == WORKER_READY && (spool_count(w->spool) || w->unspooled.count) &&
                       now < w->ack_until;
        if (!waiting) {
            if (w->state == WORKER_READY) {
                proto_msg_t m = { .type = PROTO_BYE };
                snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "shutdown");
                worker_send_msg(w, &m);
            }
            w->done = true;
            return 0;
        }
        S_NEXT(w->ack_until);
    }

    if (w->state == WORKER_DISCONNECTED) {
        if (!w->stopping && now >= w->reconnect_at && worker_connect(w) < 0)
            worker_disconnect(w, "connect failed");
        if (w->state == WORKER_DISCONNECTED)
            S_NEXT(w->reconnect_at);
    }
    if (w->state != WORKER_DISCONNECTED) {
        int64_t dead_at = w->last_recv_ms + (int64_t) w->hb_ms * w->liveness;
        if (now >= dead_at) {
            worker_disconnect(w, "coordinator silent");
            S_NEXT(w->reconnect_at);
        } else {
            S_NEXT(dead_at);
        }
    }
    if (w->state == WORKER_HELLO) {   /* the HELLO was answered INTERNAL: again */
        if (now >= w->resend_at) {
            w->resend_at = INT64_MAX;
            worker_send_hello(w);
        }
        S_NEXT(w->resend_at);
    }
    if (w->state == WORKER_READY) {
        if (now >= w->resend_at) {
            w->resend_at = INT64_MAX;
            worker_resend_spool(w);
        }
        S_NEXT(w->resend_at);
        if (!w->stopping && !w->draining && !w->request_out && w->resend_at == INT64_MAX) {
            int slots = s_free_slots(w);
            if (slots > 0 && now >= w->request_at) {
                proto_msg_t m = { .type = PROTO_REQUEST };
                m.u.request.slots = slots;
                worker_send_msg(w, &m);
                w->request_out = true;
            } else if (slots > 0) {
                S_NEXT(w->request_at);
            }
        }
        if (now - w->last_send_ms >= w->hb_ms)
            s_heartbeat(w);
        S_NEXT(w->last_send_ms + w->hb_ms);
    }
    for (worker_task_t *t = w->tasks; t; t = t->next)
        if (!t->abandoned)
            S_NEXT(batch_deadline(&t->batch, &w->policy));
#undef S_NEXT
    now = worker_now_ms();
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

/* Pairs waiting in the spool (each RESULT frame decoded). */
static size_t s_spool_pairs(const worker_t *w)
{
    size_t pairs = 0;
    char err[128];
    for (size_t i = 0; i < spool_count(w->spool); i++) {
        const spool_entry_t *e = spool_entry(w->spool, i);
        proto_msg_t m;
        if (proto_decode(e->frame, e->len, &m, err, sizeof err) == 0 && m.type == PROTO_RESULT)
            pairs += m.u.result.pair_count;
        proto_msg_free(&m);
    }
    return pairs;
}

static double s_cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return s_tv(ru.ru_utime) + s_tv(ru.ru_stime);
}

/* The facts of the status line as of now. */
static void s_status_fill(worker_t *w, worker_status_t *s)
{
    int64_t now = worker_now_ms();
    memset(s, 0, sizeof *s);
    s->pid = (int64_t) getpid();
    s->updated = (int64_t) time(NULL);
    s->started = s->updated - (now - w->started_ms) / 1000;
    const char *state = w->stopping                    ? "stopping"
                        : w->draining                  ? "draining"
                        : w->state == WORKER_READY     ? (w->tasks ? "playing" : "idle")
                        : w->state == WORKER_HELLO     ? "registering"
                                                       : "connecting";
    snprintf(s->state, sizeof s->state, "%s", state);
    if (w->draining)
        snprintf(s->note, sizeof s->note, "%s reached", w->limit_what);
    snprintf(s->coordinator, sizeof s->coordinator, "%s", w->cfg.coordinator);
    status_token_hint(w->hello.token, s->token_hint, sizeof s->token_hint);
    snprintf(s->contributor, sizeof s->contributor, "%s", w->contributor);
    snprintf(s->worker_id, sizeof s->worker_id, "%s", w->hello.worker_id);
    snprintf(s->name, sizeof s->name, "%s", w->hello.name);
    s->threads = w->threads;
    s->cores = w->hello.cores;
    snprintf(s->engine_version, sizeof s->engine_version, "%s", w->hello.engine_version);
    s->bench = w->hello.bench;
    s->games = w->n_games;
    s->pairs = w->n_pairs;
    s->run_id = -1;
    for (const worker_task_t *t = w->tasks; t; t = t->next)
        if (!t->abandoned) {
            s->run_id = t->task.run_id;
            snprintf(s->kind, sizeof s->kind, "%s", proto_kind_name(t->task.kind));
        }
    double minutes = (double) (now - w->started_ms) / 60000.0;
    s->pairs_per_min = minutes > 0 ? (double) w->n_pairs / minutes : 0.0;
    s->cpu_share = w->cpu_share;
    s->last_ack = w->last_ack_wall;
    s->acked_pairs = w->acked_pairs;
    s->spool_batches = spool_count(w->spool);
    s->spool_pairs = s_spool_pairs(w);
    s->exit_status = w->exit_status;
}

/* The status line (a live one on a terminal, else a log line) and, every
 * 10 s, status.json. */
static void s_status_tick(worker_t *w, bool final)
{
    int64_t now = worker_now_ms();
    double cpu = s_cpu_now();
    if (now > w->cpu_prev_ms) {
        double share = (cpu - w->cpu_prev) * 1000.0 / (double) (now - w->cpu_prev_ms) /
                       (double) (w->hello.cores > 0 ? w->hello.cores : 1);
        w->cpu_share = share < 0 ? 0 : share > 1 ? 1 : share;
    }
    w->cpu_prev = cpu;
    w->cpu_prev_ms = now;
    worker_status_t s;
    s_status_fill(w, &s);
    if (final)
        snprintf(s.state, sizeof s.state, "stopped");
    char line[512];
    status_format(&s, s.updated, line, sizeof line);
    if (w->tty && !final) {
        char buf[600];
        int n = snprintf(buf, sizeof buf, "\r\033[K%s", line);
        ssize_t wr = write(STDERR_FILENO, buf, n > 0 && (size_t) n < sizeof buf ? (size_t) n : 0);
        (void) wr;
    } else if (!w->tty) {
        LOG(LOG_INFO, "status: %s", line);
    }
    if (final || !w->tty || now >= w->status_file_at) {
        char err[256];
        if (status_save(w->state_dir, &s, err, sizeof err) < 0)
            LOG(LOG_WARN, "%s", err);
        w->status_file_at = now + 10000;
    }
}

/* The start block: who, where, what, and what waits in the spool. */
static void s_start_block(worker_t *w)
{
    const proto_hello_t *h = &w->hello;
    char hint[24];
    status_token_hint(h->token, hint, sizeof hint);
    size_t batches = spool_count(w->spool), pairs = s_spool_pairs(w);
    LOG(LOG_INFO, "capa-worker %s starting", CAPA_ENGINE_VERSION);
    LOG(LOG_INFO, "  coordinator  %s%s", w->cfg.coordinator,
        w->curve ? " (CURVE encrypted)" : " (not encrypted)");
    LOG(LOG_INFO, "  contributor  token %s%s%s", hint,
        w->cfg.token_file[0] ? " from " : "", w->cfg.token_file);
    LOG(LOG_INFO, "  worker       %s, named \"%s\"", h->worker_id, h->name);
    LOG(LOG_INFO, "  cores        %d game thread(s) of %d core(s), nice %d, hash %d MB x 2 "
                  "engines x %d = %d MB",
        w->threads, h->cores, getpriority(PRIO_PROCESS, 0), w->cfg.hash_mb, w->threads,
        2 * w->cfg.hash_mb * w->threads);
    LOG(LOG_INFO, "  engine       %s, bench signature %" PRId64 ", %.0f nodes/s",
        h->engine_version, h->bench, h->nps);
    LOG(LOG_INFO, "  spool        %s: %zu batch(es), %zu pair(s) waiting", w->state_dir, batches,
        pairs);
    char lim[160] = "";
    if (w->cfg.stop_at[0])
        snprintf(lim, sizeof lim, "no new tasks after %s local time; ", w->cfg.stop_at);
    if (w->cfg.max_hours > 0)
        snprintf(lim + strlen(lim), sizeof lim - strlen(lim), "no new tasks after %g h; ",
                 w->cfg.max_hours);
    LOG(LOG_INFO, "  limits       %sSIGTERM: stopped within %d s (games finish or go back)", lim,
        WORKER_STOP_BOUND_S(&w->cfg));
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
    w->reconnect_at = worker_now_ms();
    w->stats_at = worker_now_ms() + WORKER_STATS_MS;
    w->started_ms = worker_now_ms();
    w->cpu_prev = s_cpu_now();
    w->cpu_prev_ms = w->started_ms;
    w->status_at = w->started_ms + (w->tty ? 1000 : (int64_t) w->cfg.status_seconds * 1000);
    w->status_file_at = 0;
    /* the limits count from here, after the bench */
    const worker_config_t *cfg = &w->cfg;
    w->limit_at = INT64_MAX;
    if (cfg->stop_at[0]) {
        w->limit_at = worker_now_ms() + (int64_t) worker_seconds_until(cfg->stop_at) * 1000;
        snprintf(w->limit_what, sizeof w->limit_what, "stop_at %s", cfg->stop_at);
    }
    if (cfg->max_hours > 0) {
        int64_t at = worker_now_ms() + (int64_t) (cfg->max_hours * 3600.0 * 1000.0);
        if (at < w->limit_at) {
            w->limit_at = at;
            snprintf(w->limit_what, sizeof w->limit_what, "max_hours %g", cfg->max_hours);
        }
    }
    s_start_block(w);
    capa_log_set_status_line(w->tty);
    while (!w->done) {
        long timeout = s_cron(w);
        if (w->done)
            break;
        int64_t now = worker_now_ms();
        if (now >= w->status_at || now >= w->status_file_at) {
            bool line = now >= w->status_at;
            if (line)
                s_status_tick(w, false);
            else {
                char err[256];
                worker_status_t s;
                s_status_fill(w, &s);
                if (status_save(w->state_dir, &s, err, sizeof err) < 0)
                    LOG(LOG_WARN, "%s", err);
                w->status_file_at = now + 10000;
            }
            if (line)
                w->status_at = now + (w->tty ? 1000 : (int64_t) w->cfg.status_seconds * 1000);
        }
        int64_t due = w->status_at < w->status_file_at ? w->status_at : w->status_file_at;
        if (due - now < timeout)
            timeout = due > now ? (long) (due - now) : 0;
        if (worker_now_ms() >= w->stats_at) {
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
            worker_on_job(w, job);
        if (w->sock)
            worker_receive(w);
    }
    capa_log_set_status_line(false);
    if (w->tty) {
        ssize_t wr = write(STDERR_FILENO, "\r\033[K", 4);
        (void) wr;
    }
    s_status_tick(w, true);
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
        memcpy(w->curve_server, k, 41); /* 40 Z85 characters and the NUL, checked above */
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
        rc = worker_state_probe(w->state_dir, err, errlen);
    /* settings: CAPA_EINVAL (WORKER_NEW_EUSAGE) whatever went wrong */
    if (rc == 0 && (rc = s_setup_token(w, err, errlen)) < 0)
        rc = CAPA_EINVAL;
    if (rc == 0 && (rc = worker_id_load(w->state_dir, w->hello.worker_id,
                                        sizeof w->hello.worker_id, err, errlen)) < 0)
        rc = rc == CAPA_EINVAL ? CAPA_EINVAL : CAPA_EIO;
    if (rc == 0 && (rc = s_setup_curve(w, err, errlen)) < 0)
        rc = CAPA_EINVAL;
    if (rc == 0 && (rc = spool_open(w->state_dir, &w->spool, err, errlen)) < 0)
        rc = rc == CAPA_EINVAL ? CAPA_EIO : rc;
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
    if (cfg->max_memory_mb > 0) {
        int fit = cfg->max_memory_mb / (2 * cfg->hash_mb);  /* >= 1: checked with the config */
        if (fit < w->threads) {
            LOG(LOG_INFO, "max_memory_mb %d: %d game thread(s) instead of %d (2 x %d MB hash each)",
                cfg->max_memory_mb, fit, w->threads, cfg->hash_mb);
            w->threads = fit;
        }
    }
    h->concurrency = w->threads;
    if (cfg->nice > 0 && setpriority(PRIO_PROCESS, 0, cfg->nice) < 0)
        LOG(LOG_WARN, "cannot set nice level %d: %s", cfg->nice, strerror(errno));
    w->tty = isatty(STDERR_FILENO) == 1;
    snprintf(h->engine_version, sizeof h->engine_version, "%s", CAPA_ENGINE_VERSION);

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
        return capa_fail(err, errlen, CAPA_EIO, "engine bench failed: %s", why);
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
        return rc == CAPA_EINVAL ? CAPA_EIO : rc;
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
        worker_task_t *t = w->tasks;
        w->tasks = t->next;
        worker_task_free(w, t);
    }
    upload_destroy(&w->upload);
    spool_destroy(&w->spool);
    batch_frames_free(&w->unspooled);
    if (w->sigfd >= 0)
        close(w->sigfd);
    free(w);
}
