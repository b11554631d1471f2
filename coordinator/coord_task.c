/* coord_task.c - REQUEST (hand out a task) and RESULT (check, commit, ACK),
 * in the order of docs/protocol.md section 3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "runstate.h"
#include "sched.h"

static void s_no_task(coord_t *self, coord_session_t *s, int retry_ms, const char *reason)
{
    proto_msg_t m = { .type = PROTO_NO_TASK };
    m.u.no_task.retry_ms = retry_ms;
    snprintf(m.u.no_task.reason, sizeof m.u.no_task.reason, "%s", reason);
    coord_send(self, s->rid, s->rid_len, s->req_style, &m);
}

/* Refuses a session whose contributor was revoked; true if it was. */
static bool s_revoked(coord_t *self, coord_session_t *s, proto_type_t about)
{
    store_contributor_t c;
    memset(&c, 0, sizeof c);
    int rc = store_contributor_get(self->store, s->contributor_id, &c);
    if (rc < 0 || c.revoked_at_ms == 0)
        return false;   /* valid, or database trouble the handler will meet itself */
    coord_send_error(self, s->rid, s->rid_len, s->req_style, PROTO_TOKEN_REVOKED, about, -1, -1,
                     "the token of contributor %s was revoked", c.name);
    coord_session_remove(self, s);
    return true;
}

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

static int s_send_task(coord_t *self, coord_session_t *s, coord_run_t *run, int64_t task_id,
                       pool_range_t r, const stats_spsa_step_t *step)
{
    proto_msg_t m = { .type = PROTO_TASK };
    proto_task_t *t = &m.u.task;
    t->task_id = task_id;
    t->run_id = run->id;
    t->lease_id = task_id;
    t->lease_seconds = self->cfg.lease_seconds;
    t->kind = (proto_kind_t) run->info->kind;
    t->game = run->info->game;
    size_t n = (size_t) (r.hi - r.lo + 1);
    t->pairs = calloc(n, sizeof *t->pairs);
    int rc = t->pairs ? 0 : CAPA_ENOMEM;
    if (rc == 0)
        rc = s_params_copy(&t->a, &run->info->a);
    if (rc == 0)
        rc = s_params_copy(&t->b, &run->info->b);
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
        snprintf(p->fen, sizeof p->fen, "%s", sp.fen);
        snprintf(p->fen2, sizeof p->fen2, "%s", sp.fen2);
        snprintf(p->imbalance, sizeof p->imbalance, "%s", sp.imbalance);
    }
    t->pair_count = n;
    if (rc == 0)
        rc = coord_send(self, s->rid, s->rid_len, s->req_style, &m);
    else
        LOG(LOG_ERROR, "run %lld: cannot build task %lld: %s", (long long) run->id,
            (long long) task_id, err[0] ? err : capa_err_name(rc));
    proto_task_free(t);
    return rc;
}

void coord_handle_request(coord_t *self, coord_session_t *s, const proto_request_t *req)
{
    if (s_revoked(self, s, PROTO_REQUEST))
        return;
    size_t nruns = 0;
    for (coord_run_t *r = self->runs; r; r = r->next)
        nruns++;
    sched_run_t *cand = nruns ? calloc(nruns, sizeof *cand) : NULL;
    coord_run_t **map = nruns ? calloc(nruns, sizeof *map) : NULL;
    if (nruns && (!cand || !map)) {
        free(cand);
        free(map);
        s_no_task(self, s, self->cfg.no_task_retry_ms, "coordinator out of memory");
        return;
    }
    size_t i = 0;
    for (coord_run_t *r = self->runs; r; r = r->next, i++) {
        map[i] = r;
        cand[i].priority = r->priority;
        cand[i].weight = 1.0;
        cand[i].available = r->active ? pool_size(r->pool) : 0;
        cand[i].in_flight = r->in_flight;
    }
    for (;;) {
        int k = sched_pick_run(cand, nruns);
        if (k < 0) {
            s_no_task(self, s, self->cfg.no_task_retry_ms, "no work: no active run has pairs left");
            break;
        }
        coord_run_t *run = map[k];
        sched_size_in_t in = { .nps = s->nps, .concurrency = s->concurrency, .slots = req->slots,
                               .nodes = run->info->game.nodes,
                               .tc_base_ms = run->info->game.tc_base_ms,
                               .tc_inc_ms = run->info->game.tc_inc_ms,
                               .target_seconds = self->cfg.task_seconds };
        pool_range_t r;
        if (pool_take(run->pool, sched_task_pairs(&in), &r) < 0) {
            cand[k].available = 0;
            continue;
        }
        int64_t task_id = 0;
        int rc = store_task_create(self->store, run->id, s->worker_id, r.lo, r.hi,
                                   (int64_t) self->cfg.lease_seconds * 1000, &task_id);
        if (rc == CAPA_ESTATE || rc == CAPA_ERANGE || rc == CAPA_ENOTFOUND) {
            LOG(LOG_WARN, "run %lld: no lease on %lld..%lld (%s); run paused until the next refresh",
                (long long) run->id, (long long) r.lo, (long long) r.hi,
                store_last_error(self->store));
            run->active = false;
            cand[k].available = 0;
            continue;
        }
        if (rc == CAPA_EDUP) {
            LOG(LOG_WARN, "run %lld: pairs %lld..%lld are already leased; pool rebuilt at refresh",
                (long long) run->id, (long long) r.lo, (long long) r.hi);
            run->active = false;
            cand[k].available = 0;
            continue;
        }
        if (rc < 0) {
            pool_add(run->pool, r.lo, r.hi);
            LOG(LOG_WARN, "cannot create a task: %s", store_last_error(self->store));
            s_no_task(self, s, 1000, "coordinator database unavailable");
            break;
        }
        if (run->status == STORE_RUN_PENDING) {
            if (store_run_set_status(self->store, run->id, STORE_RUN_RUNNING) == 0)
                run->status = STORE_RUN_RUNNING;
        }
        coord_lease_t l = { .task_id = task_id, .run_id = run->id, .first = r.lo, .last = r.hi,
                            .expires_ms = coord_wall_ms() + (int64_t) self->cfg.lease_seconds * 1000 };
        snprintf(l.worker_id, sizeof l.worker_id, "%s", s->worker_id);
        if (run->spsa) {
            l.step = coord_spsa_propose(self, run, task_id);
            if (!l.step) {
                LOG(LOG_ERROR, "run %lld: cannot make an SPSA perturbation", (long long) run->id);
                store_range_t *ranges = NULL;
                size_t nr = 0;
                if (store_task_expire(self->store, task_id, &ranges, &nr) == 0)
                    pool_add(run->pool, r.lo, r.hi);
                free(ranges);
                s_no_task(self, s, 1000, "coordinator error");
                break;
            }
        }
        coord_lease_add(self, &l);
        run->in_flight += r.hi - r.lo + 1;
        if (run->spsa)
            coord_spsa_save(self, run);
        LOG(LOG_DEBUG, "task %lld: run %lld pairs %lld..%lld to worker %s", (long long) task_id,
            (long long) run->id, (long long) r.lo, (long long) r.hi, s->worker_id);
        s_send_task(self, s, run, task_id, r, l.step);
        break;
    }
    free(cand);
    free(map);
}

static int s_result_code(proto_res_t r)
{
    return r == PROTO_RES_WHITE ? STORE_WHITE_WINS : r == PROTO_RES_BLACK ? STORE_BLACK_WINS
                                                                         : STORE_DRAW;
}

/* B's half points in one game. */
static int s_b_points(const proto_game_result_t *g)
{
    int white = s_result_code(g->result);
    return g->white == PROTO_SIDE_B ? white : 2 - white;
}

void coord_handle_result(coord_t *self, coord_session_t *s, const proto_result_t *res)
{
    const uint8_t *rid = s->rid;
    size_t rid_len = s->rid_len;
    bool rs = s->req_style;
    int64_t tid = res->task_id, batch = res->batch;
    /* Lease known / owned / unexpired. */
    coord_lease_t *l = coord_lease_find(self, tid);
    coord_lease_t dbl = { 0 };
    if (!l) {
        store_task_t t;
        int rc = store_task_get(self->store, tid, &t);
        if (rc == CAPA_ENOTFOUND) {
            coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_UNKNOWN, PROTO_RESULT, tid, batch,
                             "task %lld is unknown", (long long) tid);
            return;
        }
        if (rc < 0) {
            coord_send_error(self, rid, rid_len, rs, PROTO_INTERNAL, PROTO_RESULT, tid, batch,
                             "database unavailable");
            return;
        }
        if (strcmp(t.worker_id, s->worker_id) != 0) {
            coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_NOT_YOURS, PROTO_RESULT, tid,
                             batch, "task %lld belongs to another worker", (long long) tid);
            return;
        }
        if (t.status == STORE_TASK_EXPIRED || t.status == STORE_TASK_ACTIVE) {
            /* ACTIVE but not in memory cannot happen after start-up; treat
             * it like an expired lease rather than trust it. */
            coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_EXPIRED, PROTO_RESULT, tid, batch,
                             "lease %lld expired; its pairs went back to the pool", (long long) tid);
            return;
        }
        /* done (a resent batch) or cancelled (the run ended): store, count once. */
        dbl.task_id = t.id;
        dbl.run_id = t.run_id;
        snprintf(dbl.worker_id, sizeof dbl.worker_id, "%s", t.worker_id);
        dbl.first = t.first_pair;
        dbl.last = t.last_pair;
        dbl.cancelled = true;
        l = &dbl;
    }
    if (res->lease_id != l->task_id) {
        coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_UNKNOWN, PROTO_RESULT, tid, batch,
                         "lease %lld is not the lease of task %lld", (long long) res->lease_id,
                         (long long) tid);
        return;
    }
    if (strcmp(l->worker_id, s->worker_id) != 0) {
        coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_NOT_YOURS, PROTO_RESULT, tid, batch,
                         "task %lld belongs to another worker", (long long) tid);
        return;
    }
    if (!l->cancelled && coord_wall_ms() > l->expires_ms) {
        store_range_t *ranges = NULL;
        size_t n = 0;
        if (store_task_expire(self->store, tid, &ranges, &n) == 0)
            coord_lease_return(self, ranges, n);
        free(ranges);
        coord_lease_remove(self, tid);
        coord_send_error(self, rid, rid_len, rs, PROTO_LEASE_EXPIRED, PROTO_RESULT, tid, batch,
                         "lease %lld expired; its pairs went back to the pool", (long long) tid);
        return;
    }
    /* Every pair number inside the lease. */
    for (size_t i = 0; i < res->pair_count; i++) {
        int64_t p = res->pairs[i].pair;
        if (p < l->first || p > l->last) {
            coord_send_error(self, rid, rid_len, rs, PROTO_PAIR_OUTSIDE_LEASE, PROTO_RESULT, tid,
                             batch, "pair %lld is outside lease %lld (%lld..%lld)", (long long) p,
                             (long long) tid, (long long) l->first, (long long) l->last);
            return;
        }
    }
    coord_run_t *run = NULL;
    if (coord_run_get(self, l->run_id, &run) < 0) {
        coord_send_error(self, rid, rid_len, rs, PROTO_INTERNAL, PROTO_RESULT, tid, batch,
                         "run %lld cannot be read", (long long) l->run_id);
        return;
    }
    size_t n = res->pair_count;
    store_pair_t *pairs = calloc(n, sizeof *pairs);
    startpos_t *starts = calloc(n, sizeof *starts);
    bool *fresh = calloc(n, sizeof *fresh);
    if (!pairs || !starts || !fresh) {
        free(pairs);
        free(starts);
        free(fresh);
        coord_send_error(self, rid, rid_len, rs, PROTO_INTERNAL, PROTO_RESULT, tid, batch,
                         "out of memory");
        return;
    }
    int64_t cpu_ms = (int64_t) llround(res->cpu_seconds * 1000.0);
    char err[256];
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const proto_pair_result_t *pr = &res->pairs[i];
        rc = runinfo_start(run->info, pr->pair, &starts[i], err, sizeof err);
        store_pair_t *sp = &pairs[i];
        sp->pair_no = pr->pair;
        sp->task_id = tid;
        sp->worker_id = s->worker_id;
        sp->fen = starts[i].fen;
        sp->fen2 = starts[i].fen2[0] ? starts[i].fen2 : NULL;
        sp->imbalance = starts[i].imbalance[0] ? starts[i].imbalance : NULL;
        for (int g = 0; g < 2; g++) {
            sp->result[g] = s_result_code(pr->games[g].result);
            sp->b_white[g] = pr->games[g].white == PROTO_SIDE_B;
            sp->end[g] = proto_end_name(pr->games[g].end);
            sp->plies[g] = pr->games[g].plies;
            sp->moves[g] = pr->games[g].moves;
        }
        sp->score = (int) lround(pr->score * 4.0);
        sp->cpu_ms = cpu_ms / (int64_t) n + ((int64_t) i < cpu_ms % (int64_t) n ? 1 : 0);
    }
    size_t n_new = 0;
    if (rc == 0)
        rc = store_insert_pairs(self->store, run->id, pairs, n, fresh, &n_new);
    if (rc == CAPA_EINVAL || rc == CAPA_ERANGE) {
        coord_send_error(self, rid, rid_len, rs, PROTO_INCONSISTENT_RESULT, PROTO_RESULT, tid,
                         batch, "refused by the store: %s", store_last_error(self->store));
        goto out;
    }
    if (rc < 0) {
        coord_send_error(self, rid, rid_len, rs, PROTO_INTERNAL, PROTO_RESULT, tid, batch,
                         "cannot store the batch now (%s); resend it later", capa_err_name(rc));
        goto out;
    }
    /* Committed: count what is new, then acknowledge. */
    int64_t wins = 0, losses = 0;
    for (size_t i = 0; i < n; i++) {
        if (!fresh[i])
            continue;
        int p1 = s_b_points(&res->pairs[i].games[0]), p2 = s_b_points(&res->pairs[i].games[1]);
        run->totals.pairs++;
        run->totals.penta[pairs[i].score]++;
        run->totals.wins += (p1 == 2) + (p2 == 2);
        run->totals.draws += (p1 == 1) + (p2 == 1);
        run->totals.losses += (p1 == 0) + (p2 == 0);
        wins += (p1 == 2) + (p2 == 2);
        losses += (p1 == 0) + (p2 == 0);
    }
    run->totals.cpu_ms += cpu_ms;
    if (run->spsa && l->step && n_new > 0 && !l->cancelled)
        coord_spsa_apply(self, run, l, (int64_t) n_new, wins, losses);
    proto_msg_t m = { .type = PROTO_ACK };
    m.u.ack.task_id = tid;
    m.u.ack.batch = batch;
    m.u.ack.stored = malloc((n_new ? n_new : 1) * sizeof(int64_t));
    m.u.ack.duplicate = malloc((n - n_new ? n - n_new : 1) * sizeof(int64_t));
    if (m.u.ack.stored && m.u.ack.duplicate) {
        for (size_t i = 0; i < n; i++) {
            if (fresh[i])
                m.u.ack.stored[m.u.ack.stored_count++] = res->pairs[i].pair;
            else
                m.u.ack.duplicate[m.u.ack.duplicate_count++] = res->pairs[i].pair;
        }
        coord_send(self, rid, rid_len, rs, &m);
    }
    proto_ack_free(&m.u.ack);
    if (res->last && l != &dbl) {
        /* The worker holds no more pairs of this task: whatever it did not
         * deliver goes back to the pool, and the lease closes. */
        store_range_t *ranges = NULL;
        size_t nr = 0;
        if (!l->cancelled && store_task_unstored(self->store, tid, &ranges, &nr) == 0) {
            for (size_t i = 0; i < nr; i++)
                if (run->active)
                    pool_add(run->pool, ranges[i].first, ranges[i].last);
        }
        free(ranges);
        if (!l->cancelled)
            store_task_done(self->store, tid);
        coord_lease_remove(self, tid);
        if (run->spsa)
            coord_spsa_save(self, run);
    }
out:
    free(pairs);
    free(starts);
    free(fresh);
}
