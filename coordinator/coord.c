/* coord.c - the coordinator object: start-up (database with retry,
 * migrations, bench signature, socket), the one poll loop, coord_cron and
 * shutdown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "bench.h"
#include "bootstrap.h"
#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "series.h"
#include "store_bulk.h"
#include "token.h"
#include "version.h"

#define COORD_DRAIN_MAX 2000   /* messages handled per wake-up before timers run */
#define COORD_WAIT_MAX 2000    /* RESULTs waiting for the writer before we stop reading */

int64_t coord_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t coord_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t coord_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *coord_endpoint(const coord_t *self)
{
    return self->endpoint;
}

/* Connects, retrying with backoff (0.25 s doubling to 8 s) for wait_s. */
static int s_connect(coord_t *self, char *err, size_t errlen)
{
    int64_t deadline = coord_now_ms() + (int64_t) self->cfg.db_wait_seconds * 1000;
    int delay_ms = 250;
    for (int attempt = 1;; attempt++) {
        int rc = store_open(self->cfg.db, &self->store, err, errlen);
        if (rc == 0)
            return 0;
        int64_t left = deadline - coord_now_ms();
        if (left <= 0)
            return capa_fail(err, errlen, CAPA_EDB, "database unreachable after %d attempts: %s",
                             attempt, err);
        LOG(LOG_WARN, "database unreachable (attempt %d): %s; retrying in %d ms", attempt, err,
            delay_ms);
        usleep((useconds_t) (delay_ms < left ? delay_ms : left) * 1000);
        if (delay_ms < 8000)
            delay_ms *= 2;
    }
}

static int s_bind(coord_t *self, char *err, size_t errlen)
{
    self->zctx = zmq_ctx_new();
    if (!self->zctx || !(self->router = zmq_socket(self->zctx, ZMQ_ROUTER)))
        return capa_fail(err, errlen, CAPA_EIO, "zmq: %s", zmq_strerror(zmq_errno()));
    int64_t maxsize = (int64_t) PROTO_FRAME_MAX + 1024;
    int hwm = 100000, linger = 1000;
    zmq_setsockopt(self->router, ZMQ_MAXMSGSIZE, &maxsize, sizeof maxsize);
    zmq_setsockopt(self->router, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(self->router, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt(self->router, ZMQ_LINGER, &linger, sizeof linger);
    if (self->cfg.curve_secret_file[0]) {
        char pub[TOKEN_Z85_KEY_MAX], sec[TOKEN_Z85_KEY_MAX];
        int rc = token_curve_load(self->cfg.curve_secret_file, pub, sec, err, errlen);
        if (rc < 0)
            return rc;
        if (!sec[0])
            return capa_fail(err, errlen, CAPA_EINVAL, "%s holds no secret key",
                             self->cfg.curve_secret_file);
        int one = 1;
        if (zmq_setsockopt(self->router, ZMQ_CURVE_SERVER, &one, sizeof one) < 0 ||
            zmq_setsockopt(self->router, ZMQ_CURVE_SECRETKEY, sec, 40) < 0)
            return capa_fail(err, errlen, CAPA_EIO, "CURVE: %s (libzmq built without CURVE?)",
                             zmq_strerror(zmq_errno()));
        LOG(LOG_INFO, "CURVE encryption on; server public key %s", pub);
    }
    if (zmq_bind(self->router, self->cfg.bind) < 0)
        return capa_fail(err, errlen, CAPA_EIO, "cannot bind %s: %s", self->cfg.bind,
                         zmq_strerror(zmq_errno()));
    size_t len = sizeof self->endpoint;
    if (zmq_getsockopt(self->router, ZMQ_LAST_ENDPOINT, self->endpoint, &len) < 0)
        snprintf(self->endpoint, sizeof self->endpoint, "%s", self->cfg.bind);
    return 0;
}

int64_t coord_seen_period_ms(const coord_t *self)
{
    int64_t half = (int64_t) self->cfg.heartbeat_ms * self->cfg.liveness / 2;
    return half < 30000 ? (half < 1000 ? 1000 : half) : 30000;
}

/* When a restored lease's worker counts as unheard from (monotonic): a
 * worker still alive says HELLO within a heartbeat or two of our start, so
 * it gets the whole window heartbeat x liveness from now; but one silent
 * since before the restart (by its last_seen, written every
 * coord_seen_period_ms while it was connected) has used up that part of the
 * window already, down to one heartbeat. Otherwise a coordinator restarted
 * more often than the window would keep a dead worker's leases for ever. */
static int64_t s_orphan_since(const coord_t *self, const store_worker_t *w, int64_t now)
{
    int64_t limit = (int64_t) self->cfg.heartbeat_ms * self->cfg.liveness;
    if (!w || w->last_seen_ms <= 0)
        return now;
    int64_t silent = coord_wall_ms() - w->last_seen_ms - coord_seen_period_ms(self);
    if (silent <= 0)
        return now;
    int64_t used = limit - self->cfg.heartbeat_ms;
    return now - (silent < used ? silent : used);
}

static int s_load_leases(coord_t *self, char *err, size_t errlen)
{
    store_task_t *tasks = NULL;
    size_t n = 0;
    if (store_task_list_active(self->store, &tasks, &n) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "cannot read active leases: %s",
                         store_last_error(self->store));
    store_worker_t *workers = NULL;
    size_t nw = 0;
    if (n && store_worker_list(self->store, 0, &workers, &nw) < 0) {
        free(tasks);
        return capa_fail(err, errlen, CAPA_EDB, "cannot read workers: %s",
                         store_last_error(self->store));
    }
    int64_t now = coord_now_ms();
    for (size_t i = 0; i < n; i++) {
        const store_worker_t *w = NULL;
        for (size_t k = 0; k < nw && !w; k++)
            if (strcmp(workers[k].id, tasks[i].worker_id) == 0)
                w = &workers[k];
        coord_lease_t l = { .task_id = tasks[i].id, .run_id = tasks[i].run_id,
                            .first = tasks[i].first_pair, .last = tasks[i].last_pair,
                            .expires_ms = tasks[i].expires_at_ms,
                            .orphan_ms = s_orphan_since(self, w, now) };
        snprintf(l.worker_id, sizeof l.worker_id, "%s", tasks[i].worker_id);
        coord_lease_add(self, &l);
    }
    store_worker_list_free(&workers, nw);
    free(tasks);
    if (n)
        LOG(LOG_INFO, "%zu active leases restored from the database", n);
    return 0;
}

/* The start-up steps that need the database, in order. Until the last is
 * done every message is answered INTERNAL: nothing is handed out or
 * verified before the flagged workers are known. */
enum { START_MIGRATE, START_FLAGGED, START_WRITER, START_LEASES, START_RUNS, START_DONE };
static const char *const s_start_names[] = { "migrations", "flagged workers",
                                             "writer connection", "active leases", "runs" };

static int s_start_step(coord_t *self, char *err, size_t errlen)
{
    int rc = 0;
    int applied = 0;
    switch (self->start_step) {
    case START_MIGRATE:
        if ((rc = store_migrate(self->store, self->cfg.sql_dir, &applied)) < 0) {
            capa_fail(err, errlen, rc, "migrations in %s: %s", self->cfg.sql_dir,
                      store_last_error(self->store));
            break;
        }
        if ((rc = bootstrap_from_config(self->store, &self->cfg, NULL, err, errlen)) < 0)
            break;
        LOG(LOG_INFO, "database ready (%d migrations applied from %s)", applied,
            self->cfg.sql_dir);
        break;
    case START_FLAGGED:
        if ((rc = coord_flagged_load(self)) < 0)
            capa_fail(err, errlen, rc, "cannot read flagged workers: %s",
                      store_last_error(self->store));
        break;
    case START_WRITER:
        rc = coord_writer_new(self->cfg.db, &self->writer, err, errlen);
        break;
    case START_LEASES:
        rc = s_load_leases(self, err, errlen);
        break;
    case START_RUNS:
        if ((rc = coord_runs_refresh(self)) < 0)
            capa_fail(err, errlen, rc, "cannot read runs: %s", store_last_error(self->store));
        break;
    default:
        break;
    }
    return rc;
}

/* Runs the start-up steps that are due. A step that fails because the
 * database is away is retried with backoff (0.25 s doubling to 8 s). The
 * migrations and bootstrap failing for another reason (a changed migration,
 * a bad bootstrap token file), or with a database error twice while the
 * database answers (a broken migration), is fatal: the error is returned. */
static int s_start(coord_t *self, char *err, size_t errlen)
{
    while (self->start_step < START_DONE) {
        if (coord_now_ms() < self->start_retry_ms)
            return 0;
        int rc = s_start_step(self, err, errlen);
        if (rc == 0) {
            self->start_step++;
            self->start_delay_ms = 0;
            continue;
        }
        /* Not a database error (a bad bootstrap token file, a changed
         * migration), or a database error twice with the database there:
         * not an outage. */
        if (self->start_step == START_MIGRATE &&
            (rc != CAPA_EDB || (store_ping(self->store) == 0 && self->start_healthy_fails++ > 0)))
            return rc;
        self->start_delay_ms = self->start_delay_ms ? self->start_delay_ms * 2 : 250;
        if (self->start_delay_ms > 8000)
            self->start_delay_ms = 8000;
        self->start_retry_ms = coord_now_ms() + self->start_delay_ms;
        LOG(LOG_WARN, "starting: waiting for the database (%s: %s); retrying in %d ms, "
            "workers get INTERNAL meanwhile", s_start_names[self->start_step], err,
            self->start_delay_ms);
        return 0;
    }
    if (!self->ready) {
        self->ready = true;
        int64_t now = coord_now_ms();
        self->next_cron_ms = now;
        self->next_refresh_ms = now + self->cfg.refresh_ms;
        self->next_seen_ms = now;
        self->next_outlier_ms = now + (int64_t) self->cfg.outlier_seconds * 1000;
        LOG(LOG_INFO, "ready: serving workers on %s", self->endpoint);
    }
    return 0;
}

int coord_new(const coord_config_t *cfg, coord_t **self_p, char *err, size_t errlen)
{
    *self_p = NULL;
    coord_t *self = calloc(1, sizeof *self);
    if (!self)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    self->cfg = *cfg;
    /* One descriptor per connected worker: take what the system allows. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    snprintf(self->engine_version, sizeof self->engine_version, "%s", CAPA_ENGINE_VERSION);
    int rc = coord_config_find_sql(&self->cfg, err, errlen);
    if (rc == 0 && !self->cfg.db[0])
        rc = capa_fail(err, errlen, CAPA_EINVAL, "no database: give --db CONNINFO or CAPA_DB");
    /* The first connection waits db_wait_seconds (a wrong address shows);
     * after it, the database may come and go at any moment. */
    if (rc == 0)
        rc = s_connect(self, err, errlen);
    if (rc == 0)
        rc = s_bind(self, err, errlen);
    if (rc == 0) {
        self->bench = cfg->bench;
        if (self->bench == 0) {
            uint64_t nodes = 0;
            int64_t ms = 0;
            rc = bench_run(BENCH_DEFAULT_DEPTH, BENCH_DEFAULT_HASH_MB, &nodes, &ms, err, errlen);
            if (rc == 0) {
                self->bench = (int64_t) nodes;
                LOG(LOG_INFO, "bench signature %lld (own bench, %lld ms)", (long long) nodes,
                    (long long) ms);
            }
        } else {
            LOG(LOG_INFO, "bench signature %lld (configured)", (long long) self->bench);
        }
    }
    if (rc == 0 && self->cfg.verify_rate > 0) {
        self->verify = verify_new(self->cfg.verify_rate,
                                  (uint64_t) coord_wall_ms() ^ ((uint64_t) getpid() << 32),
                                  coord_flagged_cb, self);
        if (!self->verify)
            rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory for verification");
        else
            LOG(LOG_INFO, "verifying %.3g of the stored pairs by replay on another worker",
                self->cfg.verify_rate);
    }
    if (rc == 0)
        rc = s_start(self, err, errlen);   /* usually all done here; else in coord_serve */
    if (rc < 0) {
        coord_destroy(&self);
        return rc;
    }
    LOG(LOG_INFO, "listening on %s (heartbeat %d ms x %d, lease %d s)", self->endpoint,
        self->cfg.heartbeat_ms, self->cfg.liveness, self->cfg.lease_seconds);
    *self_p = self;
    return 0;
}

void coord_destroy(coord_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    coord_t *self = *self_p;
    if (self->router && self->writer)
        coord_writer_drain(self);   /* its ACKs go out before the BYEs */
    coord_writer_destroy(&self->writer);
    coord_turn_free(&self->results_wait);
    if (self->router) {
        proto_msg_t bye = { .type = PROTO_BYE };
        snprintf(bye.u.bye.reason, sizeof bye.u.bye.reason, "coordinator shutting down");
        for (size_t i = 0; i < self->session_cap; i++)
            if (self->sessions[i].used)
                coord_send(self, self->sessions[i].rid, self->sessions[i].rid_len,
                           self->sessions[i].req_style, &bye);
        zmq_close(self->router);
    }
    if (self->zctx)
        zmq_ctx_term(self->zctx);
    coord_runs_free(self);
    for (size_t b = 0; b < self->lease_buckets; b++) {
        coord_lease_t *l = self->leases[b];
        while (l) {
            coord_lease_t *next = l->next;
            free(l->step);
            free(l);
            l = next;
        }
    }
    free(self->leases);
    free(self->sessions);
    verify_destroy(&self->verify);
    free(self->flagged);
    store_destroy(&self->store);
    free(self);
    *self_p = NULL;
}

/* Marks sessions whose contributor was revoked (refused at their next message). */
static void s_revocations(coord_t *self)
{
    if (self->session_count == 0)
        return;
    int64_t *ids = malloc(self->session_count * sizeof *ids);
    if (!ids)
        return;
    size_t n = 0;
    for (size_t i = 0; i < self->session_cap && n < self->session_count; i++)
        if (self->sessions[i].used)
            ids[n++] = self->sessions[i].contributor_id;
    int64_t *rev = NULL;
    size_t nrev = 0;
    if (store_bulk_revoked(self->store, ids, n, &rev, &nrev) == 0) {
        for (size_t i = 0; i < self->session_cap; i++) {
            coord_session_t *s = &self->sessions[i];
            for (size_t j = 0; s->used && j < nrev; j++)
                if (rev[j] == s->contributor_id)
                    s->revoked = true;
        }
    }
    free(rev);
    free(ids);
}

static void s_dead_workers(coord_t *self, int64_t now)
{
    int64_t limit = (int64_t) self->cfg.heartbeat_ms * self->cfg.liveness;
    for (;;) {
        coord_session_t *dead = NULL;
        for (size_t i = 0; i < self->session_cap && !dead; i++)
            if (self->sessions[i].used && now - self->sessions[i].last_recv_ms > limit)
                dead = &self->sessions[i];
        if (!dead)
            return;
        char worker[PROTO_ID_MAX];
        snprintf(worker, sizeof worker, "%s", dead->worker_id);
        LOG(LOG_WARN, "worker %s silent for over %lld ms: dead, session %s ends", worker,
            (long long) limit, dead->session);
        coord_session_remove(self, dead);
        coord_lease_expire_worker(self, worker);
    }
}

void coord_set_publish(coord_t *self, coord_publish_fn fn, void *ctx)
{
    self->publish = fn;
    self->publish_ctx = ctx;
}

/* Once a second: the figures only memory has. The rate is taken over a
 * window that restarts every minute, so it follows changes within one. */
static void s_publish(coord_t *self, int64_t now)
{
    if (!self->publish || now < self->next_publish_ms)
        return;
    self->next_publish_ms = now + 1000;
    if (self->rate_ms == 0 || now - self->rate_ms >= 60000) {
        if (self->rate_ms && now > self->rate_ms)
            self->rate = (double) (self->stored_total - self->rate_pairs) * 1000.0 /
                         (double) (now - self->rate_ms);
        self->rate_pairs = self->stored_total;
        self->rate_ms = now;
    } else if (now - self->rate_ms >= 5000) {
        self->rate = (double) (self->stored_total - self->rate_pairs) * 1000.0 /
                     (double) (now - self->rate_ms);
    }
    coord_live_t live = { .workers_connected = (int) self->session_count,
                          .pairs_per_second = self->rate };
    for (coord_run_t *r = self->runs; r; r = r->next) {
        if (!r->active)
            continue;
        live.runs_active++;
        live.pairs_leased += r->in_flight;
        if (r->pool)
            live.pairs_queued += pool_size(r->pool);
    }
    self->publish(&live, self->publish_ctx);
}

int coord_cron(coord_t *self)
{
    int64_t now = coord_now_ms();
    s_publish(self, now);
    if (now >= self->next_refresh_ms) {
        self->next_refresh_ms = now + self->cfg.refresh_ms;
        /* Study series whose run has ended get their next run (series.c),
         * which the refresh below picks up at once. */
        if (series_advance_due(self->store) < 0)
            LOG(LOG_WARN, "cannot move study series on: %s", store_last_error(self->store));
        if (coord_runs_refresh(self) < 0)
            LOG(LOG_WARN, "cannot refresh runs: %s", store_last_error(self->store));
        s_revocations(self);
    }
    s_dead_workers(self, now);
    if (now >= self->next_orphan_ms) {
        self->next_orphan_ms = now + 1000;
        coord_lease_orphans(self, now);
    }
    if (self->cfg.outlier_p > 0 && now >= self->next_outlier_ms) {
        self->next_outlier_ms = now + (int64_t) self->cfg.outlier_seconds * 1000;
        coord_outliers_check(self);
    }
    if (self->verify)   /* replays not delivered within a lease go to someone else */
        verify_expire(self->verify, coord_wall_ms(), (int64_t) self->cfg.lease_seconds * 1000);
    /* Heartbeats to workers we have been silent to. */
    proto_msg_t hb = { .type = PROTO_HEARTBEAT };
    for (size_t i = 0; i < self->session_cap; i++) {
        coord_session_t *s = &self->sessions[i];
        if (s->used && now - s->last_sent_ms >= self->cfg.heartbeat_ms)
            coord_send(self, s->rid, s->rid_len, s->req_style, &hb);
    }
    /* Leases past their time: exactly their unplayed pairs go back. */
    store_range_t *ranges = NULL;
    size_t n = 0;
    if (store_task_expire_due(self->store, &ranges, &n) == 0) {
        for (size_t i = 0; i < n; i++)
            LOG(LOG_INFO, "lease %lld expired: run %lld pairs %lld..%lld back to the pool",
                (long long) ranges[i].task_id, (long long) ranges[i].run_id,
                (long long) ranges[i].first, (long long) ranges[i].last);
        coord_lease_return(self, ranges, n);
        free(ranges);
        /* Expired leases whose pairs were all stored return no range. */
        int64_t wall = coord_wall_ms();
        for (size_t b = 0; b < self->lease_buckets; b++) {
            coord_lease_t *l = self->leases[b];
            while (l) {
                coord_lease_t *next = l->next;
                if (!l->cancelled && l->ended && l->expires_ms < wall) {
                    coord_lease_release(self, l->task_id);   /* no resend within the lease */
                } else if (!l->cancelled && l->expires_ms + 2000 < wall) {
                    store_task_t t;
                    if (store_task_get(self->store, l->task_id, &t) == 0 &&
                        t.status != STORE_TASK_ACTIVE)
                        coord_lease_remove(self, l->task_id);
                }
                l = next;
            }
        }
    }
    for (coord_run_t *r = self->runs; r; r = r->next)
        coord_run_check(self, r, false);
    if (now >= self->next_seen_ms) {
        /* last_seen of every connected worker, in one statement. */
        self->next_seen_ms = now + coord_seen_period_ms(self);
        const char **ids = self->session_count ? malloc(self->session_count * sizeof *ids) : NULL;
        size_t nids = 0;
        for (size_t i = 0; ids && i < self->session_cap && nids < self->session_count; i++)
            if (self->sessions[i].used)
                ids[nids++] = self->sessions[i].worker_id;
        if (nids && store_bulk_workers_seen(self->store, ids, nids) < 0)
            LOG(LOG_WARN, "cannot update last_seen of %zu workers: %s", nids,
                store_last_error(self->store));
        free(ids);
    }
    if (now >= self->next_stats_ms) {
        if (self->st_turns) {
            double jobs = self->st_jobs ? (double) self->st_jobs : 1.0;
            LOG(LOG_INFO, "%llu turns, %.1f messages each; ms per turn: hello %.2f, revoked %.2f, "
                "requests %.2f; %llu writer jobs, ms per job: checks %.2f, insert %.2f, "
                "close %.2f, ack %.2f; %zu sessions, %zu leases",
                (unsigned long long) self->st_turns, (double) self->st_items / self->st_turns,
                self->st_ns[COORD_NS_HELLO] / 1e6 / self->st_turns,
                self->st_ns[COORD_NS_REVOKED] / 1e6 / self->st_turns,
                self->st_ns[COORD_NS_REQUESTS] / 1e6 / self->st_turns,
                (unsigned long long) self->st_jobs, self->st_ns[COORD_NS_CHECKS] / 1e6 / jobs,
                self->st_ns[COORD_NS_INSERT] / 1e6 / jobs, self->st_ns[COORD_NS_CLOSE] / 1e6 / jobs,
                self->st_ns[COORD_NS_ACK] / 1e6 / jobs, self->session_count,
                self->lease_count);
        }
        self->st_turns = self->st_items = self->st_jobs = 0;
        memset(self->st_ns, 0, sizeof self->st_ns);
        self->next_stats_ms = now + 10000;
    }
    self->next_cron_ms = now + self->cfg.cron_ms;
    return 0;
}

/* Reads one multipart message; returns false when none is waiting. */
static bool s_recv_one(coord_t *self, coord_turn_t *turn)
{
    zmq_msg_t parts[3];
    int n = 0;
    bool more = true;
    int extra = 0;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, self->router, n == 0 && extra == 0 ? ZMQ_DONTWAIT : 0) < 0) {
            zmq_msg_close(&m);
            for (int i = 0; i < n; i++)
                zmq_msg_close(&parts[i]);
            return false;
        }
        more = zmq_msg_more(&m);
        if (n < 3)
            parts[n++] = m;
        else {
            zmq_msg_close(&m);
            extra++;
        }
    }
    const uint8_t *rid = zmq_msg_data(&parts[0]);
    size_t rid_len = zmq_msg_size(&parts[0]);
    if (n == 2 && extra == 0) {
        coord_handle(self, turn, rid, rid_len, false, zmq_msg_data(&parts[1]),
                     zmq_msg_size(&parts[1]));
    } else if (n == 3 && extra == 0 && zmq_msg_size(&parts[1]) == 0) {
        coord_handle(self, turn, rid, rid_len, true, zmq_msg_data(&parts[2]),
                     zmq_msg_size(&parts[2]));
    } else {
        coord_send_error(self, rid, rid_len, false, PROTO_BAD_SCHEMA, PROTO_NONE, -1, -1,
                         "expected one JSON frame, got %d", n - 1 + extra);
    }
    for (int i = 0; i < n; i++)
        zmq_msg_close(&parts[i]);
    return true;
}

static bool s_idle(const coord_t *self)
{
    for (const coord_run_t *r = self->runs; r; r = r->next)
        if (r->active)
            return false;
    return true;
}

/* Applies the writer's finished job, if any, and hands it the RESULTs
 * that gathered meanwhile. */
static void s_writer_turn(coord_t *self, bool wait)
{
    coord_writer_apply(self, wait);
    if (!coord_writer_busy(self->writer) && self->results_wait.n) {
        int64_t t0 = coord_now_ns();
        coord_results_submit(self);
        self->st_ns[COORD_NS_CHECKS] += (uint64_t) (coord_now_ns() - t0);
    }
}

/* While starting: every message gets INTERNAL (the worker resends later). */
static void s_starting(coord_t *self, volatile sig_atomic_t *stop)
{
    for (int i = 0; i < COORD_DRAIN_MAX && !*stop; i++) {
        coord_turn_t turn = { 0 };
        if (!s_recv_one(self, &turn))
            break;
        coord_turn_free(&turn);
    }
}

int coord_serve(coord_t *self, volatile sig_atomic_t *stop)
{
    while (!*stop) {
        int64_t now = coord_now_ms();
        if (!self->ready) {
            char err[1024];
            if (s_start(self, err, sizeof err) < 0) {
                LOG(LOG_ERROR, "%s", err);
                return CAPA_EDB;
            }
            if (!self->ready) {
                zmq_pollitem_t item = { self->router, 0, ZMQ_POLLIN, 0 };
                long wait = (long) (self->start_retry_ms - coord_now_ms());
                if (zmq_poll(&item, 1, wait < 0 ? 0 : wait) > 0)
                    s_starting(self, stop);
                continue;
            }
        }
        long timeout = (long) (self->next_cron_ms - now);
        if (timeout < 0)
            timeout = 0;
        /* While the writer is behind, RESULTs stay in the socket's queue. */
        bool room = self->results_wait.n < COORD_WAIT_MAX;
        zmq_pollitem_t items[2] = { { NULL, coord_writer_fd(self->writer), ZMQ_POLLIN, 0 },
                                    { self->router, 0, ZMQ_POLLIN, 0 } };
        int rc = zmq_poll(items, room ? 2 : 1, timeout);
        if (rc < 0) {
            if (zmq_errno() == EINTR)
                continue;
            LOG(LOG_ERROR, "zmq_poll: %s", zmq_strerror(zmq_errno()));
            return CAPA_EIO;
        }
        if (items[0].revents & ZMQ_POLLIN)
            s_writer_turn(self, false);
        if (room && (items[1].revents & ZMQ_POLLIN)) {
            /* One turn: everything waiting (up to a bound), then the
             * database work of the whole turn grouped by kind. */
            coord_turn_t turn = { 0 };
            for (int i = 0; i < COORD_DRAIN_MAX && !*stop && s_recv_one(self, &turn); i++)
                ;
            coord_turn_finish(self, &turn);
            s_writer_turn(self, false);
        }
        if (coord_now_ms() >= self->next_cron_ms) {
            coord_cron(self);
            if (self->cfg.exit_when_idle && s_idle(self) && !coord_writer_busy(self->writer) &&
                self->results_wait.n == 0) {
                LOG(LOG_INFO, "no run is pending or running: exiting (exit_when_idle)");
                break;
            }
        }
    }
    /* Flush: what was accepted is stored and ACKed before we go. */
    while (self->writer && (coord_writer_busy(self->writer) || self->results_wait.n))
        s_writer_turn(self, true);
    LOG(LOG_INFO, "stopping: %llu messages handled, %llu refused",
        (unsigned long long) self->msgs_in, (unsigned long long) self->msgs_bad);
    return 0;
}
