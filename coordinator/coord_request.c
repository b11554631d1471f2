/* coord_request.c - the REQUESTs of one loop turn: a run chosen by
 * priority and work in flight, a range of pairs taken from its pool and
 * sized to the worker, all the turn's leases created in one statement, then
 * each TASK sent (for SPSA runs with a fresh perturbation). A flagged worker
 * gets NO_TASK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "sched.h"
#include "store_bulk.h"

static void s_no_task(coord_t *self, coord_item_t *it, int retry_ms, const char *reason)
{
    proto_msg_t m = { .type = PROTO_NO_TASK };
    m.u.no_task.retry_ms = retry_ms;
    snprintf(m.u.no_task.reason, sizeof m.u.no_task.reason, "%s", reason);
    coord_send(self, it->rid, it->rid_len, it->req_style, &m);
}

/* Refuses the senders whose contributor was revoked (one query per turn). */
static int s_params_copy(proto_params_t *dst, const proto_params_t *src)
{
    dst->count = 0;
    dst->items = NULL;
    if (src->count == 0)
        return 0;
    dst->items = malloc(src->count * sizeof *dst->items);
    if (!dst->items)
        return CAPA_ENOMEM;
    memcpy(dst->items, src->items, src->count * sizeof *dst->items);
    dst->count = src->count;
    return 0;
}

/* Sets A = theta - c delta and B = theta + c delta on top of the run's sets. */
static int s_spsa_sets(const coord_run_t *run, const stats_spsa_step_t *step, proto_task_t *t)
{
    int n = stats_spsa_size(run->spsa);
    proto_params_t *sets[2] = { &t->a, &t->b };
    for (int side = 0; side < 2; side++) {
        proto_params_t *p = sets[side];
        proto_param_t *items = realloc(p->items, (p->count + (size_t) n) * sizeof *items);
        if (!items)
            return CAPA_ENOMEM;
        p->items = items;
        for (int i = 0; i < n; i++) {
            const char *name = stats_spsa_param(run->spsa, i)->name;
            double v = side == 0 ? step->minus[i] : step->plus[i];
            size_t j = 0;
            while (j < p->count && strcmp(p->items[j].name, name) != 0)
                j++;
            if (j == p->count) {
                size_t len = strnlen(name, sizeof p->items[j].name - 1);
                memcpy(p->items[j].name, name, len);
                p->items[j].name[len] = 0;
                p->count++;
            }
            p->items[j].value = v;
        }
    }
    return 0;
}

static int s_send_task(coord_t *self, coord_item_t *it, coord_run_t *run, int64_t task_id,
                       pool_range_t r, const stats_spsa_step_t *step)
{
    proto_msg_t m = { .type = PROTO_TASK };
    proto_task_t *t = &m.u.task;
    t->task_id = task_id;
    t->run_id = run->id;
    t->lease_id = task_id;
    t->lease_seconds = self->cfg.lease_seconds;
    t->kind = run->info->doc->kind;
    t->game = run->info->doc->game;
    /* A clock is the run's for the reference machine, scaled to this worker
     * (docs/protocol.md, TASK game). */
    t->game.tc_base_ms = sched_scale_ms(t->game.tc_base_ms, it->nps, self->cfg.reference_nps,
                                        PROTO_TC_BASE_MS_MAX);
    t->game.tc_inc_ms = sched_scale_ms(t->game.tc_inc_ms, it->nps, self->cfg.reference_nps,
                                       PROTO_TC_INC_MS_MAX);
    size_t n = (size_t) (r.hi - r.lo + 1);
    t->pairs = calloc(n, sizeof *t->pairs);
    int rc = t->pairs ? 0 : CAPA_ENOMEM;
    if (rc == 0)
        rc = s_params_copy(&t->a, run->info->a);
    if (rc == 0)
        rc = s_params_copy(&t->b, run->info->b);
    if (rc == 0 && step)
        rc = s_spsa_sets(run, step, t);
    char err[256] = "";
    for (size_t i = 0; rc == 0 && i < n; i++) {
        startpos_t sp;
        rc = runinfo_start(run->info, r.lo + (int64_t) i, &sp, err, sizeof err);
        if (rc < 0)
            break;
        proto_pair_t *p = &t->pairs[i];
        p->pair = r.lo + (int64_t) i;
        memcpy(p->fen, sp.fen, sizeof p->fen);
        memcpy(p->fen2, sp.fen2, sizeof p->fen2);
        memcpy(p->imbalance, sp.imbalance, sizeof p->imbalance);
    }
    t->pair_count = n;
    if (rc == 0)
        rc = coord_send(self, it->rid, it->rid_len, it->req_style, &m);
    else
        LOG(LOG_ERROR, "run %lld: cannot build task %lld: %s", (long long) run->id,
            (long long) task_id, err[0] ? err : capa_err_name(rc));
    proto_task_free(t);
    return rc;
}

/* Answers a REQUEST with a one-pair verify task if one waits for this worker
 * (see verify.h); true if it did. */
static bool s_verify_task(coord_t *self, coord_item_t *it)
{
    verify_job_t job;
    while (verify_take(self->verify, it->worker_id, &job) == 0) {
        coord_run_t *run = coord_run_find(self, job.run_id);
        if (!run || !run->info) {
            verify_forget(self->verify, job.task_id);
            continue;
        }
        LOG(LOG_DEBUG, "verify task %lld: run %lld pair %lld of worker %s replayed by %s",
            (long long) job.task_id, (long long) run->id, (long long) job.pair_no, job.worker_id,
            it->worker_id);
        pool_range_t r = { .lo = job.pair_no, .hi = job.pair_no };
        if (s_send_task(self, it, run, job.task_id, r, NULL) < 0) {
            verify_forget(self->verify, job.task_id);
            return false;
        }
        return true;
    }
    return false;
}

/* Chooses a run and takes a range from its pool (in memory) for one REQUEST. */
static void s_request_pick(coord_t *self, coord_item_t *it)
{
    size_t nruns = 0;
    for (coord_run_t *r = self->runs; r; r = r->next)
        nruns++;
    if (nruns == 0)
        return;
    sched_run_t *cand = calloc(nruns, sizeof *cand);
    coord_run_t **map = calloc(nruns, sizeof *map);
    if (cand && map) {
        size_t i = 0;
        for (coord_run_t *r = self->runs; r; r = r->next, i++) {
            map[i] = r;
            cand[i].priority = r->priority;
            cand[i].weight = 1.0;
            cand[i].available = r->active ? pool_size(r->pool) : 0;
            cand[i].in_flight = r->in_flight;
        }
        int k = sched_pick_run(cand, nruns);
        if (k >= 0) {
            coord_run_t *run = map[k];
            const proto_game_t *g = &run->info->doc->game;
            double ref = self->cfg.reference_nps;
            sched_size_in_t in = { .nps = it->nps, .concurrency = it->concurrency,
                                   .slots = it->msg.u.request.slots,
                                   .nodes = g->nodes,
                                   .tc_base_ms = sched_scale_ms(g->tc_base_ms, it->nps, ref,
                                                                PROTO_TC_BASE_MS_MAX),
                                   .tc_inc_ms = sched_scale_ms(g->tc_inc_ms, it->nps, ref,
                                                               PROTO_TC_INC_MS_MAX),
                                   .target_seconds = self->cfg.task_seconds };
            if (pool_take(run->pool, sched_task_pairs(&in), &it->range) == 0) {
                it->run = run;
                it->has_range = true;
                /* Counted in flight now so the next REQUEST of the turn sees it. */
                run->in_flight += it->range.hi - it->range.lo + 1;
            }
        }
    }
    free(cand);
    free(map);
}

void coord_turn_requests(coord_t *self, coord_turn_t *turn)
{
    size_t nt = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->dropped || it->msg.type != PROTO_REQUEST)
            continue;
        if (coord_worker_is_flagged(self, it->worker_id)) {
            /* Its results would be excluded: its pairs are others' to play. */
            s_no_task(self, it, self->cfg.no_task_retry_ms,
                      "this worker is flagged: its results are not counted");
            it->dropped = true;   /* answered */
            continue;
        }
        if (self->verify && s_verify_task(self, it)) {
            it->dropped = true;   /* answered */
            continue;
        }
        s_request_pick(self, it);
        if (it->has_range)
            nt++;
    }
    store_bulk_task_t *tasks = nt ? calloc(nt, sizeof *tasks) : NULL;
    int rc = 0;
    if (nt) {
        if (!tasks)
            rc = CAPA_ENOMEM;
        size_t k = 0;
        for (size_t i = 0; tasks && i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (!it->dropped && it->has_range)
                tasks[k++] = (store_bulk_task_t) { .run_id = it->run->id,
                                                    .worker_id = it->worker_id,
                                                    .first = it->range.lo,
                                                    .last = it->range.hi };
        }
        if (rc == 0)
            rc = store_bulk_tasks_create(self->store, tasks, nt,
                                          (int64_t) self->cfg.lease_seconds * 1000);
        if (rc < 0)
            LOG(LOG_WARN, "cannot create %zu tasks now: %s", nt, store_last_error(self->store));
    }
    size_t k = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->dropped || it->msg.type != PROTO_REQUEST)
            continue;
        if (!it->has_range) {
            s_no_task(self, it, self->cfg.no_task_retry_ms, "no work: no active run has pairs left");
            continue;
        }
        coord_run_t *run = it->run;
        int64_t task_id = rc == 0 ? tasks[k].task_id : 0;
        k++;
        if (task_id == 0) {
            run->in_flight -= it->range.hi - it->range.lo + 1;
            if (rc < 0) {
                pool_add(run->pool, it->range.lo, it->range.hi);
                s_no_task(self, it, 1000, "coordinator database unavailable");
            } else {
                /* The run ended or the worker vanished meanwhile. */
                LOG(LOG_INFO, "run %lld: lease on %lld..%lld refused; rereading the run",
                    (long long) run->id, (long long) it->range.lo, (long long) it->range.hi);
                run->active = false;
                pool_clear(run->pool);
                s_no_task(self, it, self->cfg.no_task_retry_ms, "run no longer active");
            }
            continue;
        }
        if (run->status == STORE_RUN_PENDING &&
            store_run_set_status(self->store, run->id, STORE_RUN_RUNNING) == 0)
            run->status = STORE_RUN_RUNNING;
        coord_lease_t l = { .task_id = task_id, .run_id = run->id, .first = it->range.lo,
                            .last = it->range.hi,
                            .expires_ms = coord_wall_ms() + (int64_t) self->cfg.lease_seconds * 1000,
                            .issued_seq = ++self->seq };
        snprintf(l.worker_id, sizeof l.worker_id, "%s", it->worker_id);
        if (run->spsa && !(l.step = coord_spsa_propose(self, run, task_id)))
            LOG(LOG_ERROR, "run %lld: cannot make an SPSA perturbation", (long long) run->id);
        /* The range stays counted in run->in_flight (since pool_take); a
         * lease the coordinator cannot keep no longer is in flight. */
        if (coord_lease_add(self, &l) < 0) {
            run->in_flight -= it->range.hi - it->range.lo + 1;
            free(l.step);
            s_no_task(self, it, 1000, "coordinator out of memory");
            continue;
        }
        if (run->spsa)
            coord_spsa_save(self, run);
        LOG(LOG_DEBUG, "task %lld: run %lld pairs %lld..%lld to worker %s", (long long) task_id,
            (long long) run->id, (long long) it->range.lo, (long long) it->range.hi,
            it->worker_id);
        s_send_task(self, it, run, task_id, it->range, l.step);
    }
    free(tasks);
}

