/* coord_task.c - the end of a loop turn: every REQUEST and RESULT that
 * arrived in the turn, checked one by one in the order of docs/protocol.md
 * section 3, with the database work of the turn grouped: one commit for all
 * the new leases, one for all the RESULTs' pairs (before any ACK), one for
 * closing finished leases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "runstate.h"
#include "sched.h"
#include "store_extra.h"

static int64_t s_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int coord_turn_add(coord_turn_t *turn, const uint8_t *rid, size_t rid_len, bool req_style,
                   const coord_session_t *s, proto_msg_t *msg)
{
    if (turn->n == turn->cap) {
        size_t cap = turn->cap ? 2 * turn->cap : 64;
        coord_item_t *items = realloc(turn->items, cap * sizeof *items);
        if (!items)
            return CAPA_ENOMEM;
        turn->items = items;
        turn->cap = cap;
    }
    coord_item_t *it = &turn->items[turn->n++];
    memset(it, 0, sizeof *it);
    memcpy(it->rid, rid, rid_len);
    it->rid_len = rid_len;
    it->req_style = req_style;
    if (s) {
        memcpy(it->worker_id, s->worker_id, sizeof it->worker_id);
        it->contributor_id = s->contributor_id;
        it->nps = s->nps;
        it->concurrency = s->concurrency;
    }
    it->msg = *msg;
    memset(msg, 0, sizeof *msg);   /* the item owns the arrays now */
    msg->type = PROTO_NONE;
    return 0;
}

#define ITEM_ERROR(self, it, code, ...)                                                      \
    do {                                                                                     \
        coord_send_error((self), (it)->rid, (it)->rid_len, (it)->req_style, (code),           \
                         (it)->msg.type,                                                      \
                         (it)->msg.type == PROTO_RESULT ? (it)->msg.u.result.task_id : -1,    \
                         (it)->msg.type == PROTO_RESULT ? (it)->msg.u.result.batch : -1,      \
                         __VA_ARGS__);                                                        \
        (it)->dropped = true;                                                                \
    } while (0)

static void s_no_task(coord_t *self, coord_item_t *it, int retry_ms, const char *reason)
{
    proto_msg_t m = { .type = PROTO_NO_TASK };
    m.u.no_task.retry_ms = retry_ms;
    snprintf(m.u.no_task.reason, sizeof m.u.no_task.reason, "%s", reason);
    coord_send(self, it->rid, it->rid_len, it->req_style, &m);
}

/* Refuses the senders whose contributor was revoked (one query per turn). */
static void s_revocations(coord_t *self, coord_turn_t *turn)
{
    if (turn->n == 0)
        return;
    int64_t *ids = malloc(turn->n * sizeof *ids);
    if (!ids)
        return;
    size_t n = 0;
    for (size_t i = 0; i < turn->n; i++) {
        if (turn->items[i].msg.type == PROTO_HELLO || turn->items[i].dropped)
            continue;
        int64_t id = turn->items[i].contributor_id;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = ids[k] == id;
        if (!seen)
            ids[n++] = id;
    }
    int64_t *rev = NULL;
    size_t nrev = 0;
    if (store_extra_revoked(self->store, ids, n, &rev, &nrev) == 0) {
        for (size_t i = 0; i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (it->msg.type == PROTO_HELLO || it->dropped)
                continue;
            for (size_t k = 0; k < nrev; k++)
                if (rev[k] == it->contributor_id) {
                    ITEM_ERROR(self, it, PROTO_TOKEN_REVOKED,
                               "the token of this worker's contributor was revoked");
                    coord_session_t *s = coord_session_find(self, it->rid, it->rid_len);
                    if (s)
                        coord_session_remove(self, s);
                    break;
                }
        }
    }
    free(rev);
    free(ids);
}

/* ---- RESULT --------------------------------------------------------------- */

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

/* Lease known / owned / unexpired, pairs inside it; builds the rows. */
static void s_result_check(coord_t *self, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    int64_t tid = res->task_id;
    coord_lease_t *l = coord_lease_find(self, tid);
    if (l) {
        it->lease = *l;
        it->lease.step = NULL;
        it->lease.next = NULL;
        if (l->step) {
            it->step = *l->step;
            it->has_step = true;
        }
    } else {
        store_task_t t;
        int rc = store_task_get(self->store, tid, &t);
        if (rc == CAPA_ENOTFOUND) {
            ITEM_ERROR(self, it, PROTO_LEASE_UNKNOWN, "task %lld is unknown", (long long) tid);
            return;
        }
        if (rc < 0) {
            ITEM_ERROR(self, it, PROTO_INTERNAL, "database unavailable; resend later");
            return;
        }
        if (strcmp(t.worker_id, it->worker_id) != 0) {
            ITEM_ERROR(self, it, PROTO_LEASE_NOT_YOURS, "task %lld belongs to another worker",
                       (long long) tid);
            return;
        }
        if (t.status == STORE_TASK_EXPIRED || t.status == STORE_TASK_ACTIVE) {
            ITEM_ERROR(self, it, PROTO_LEASE_EXPIRED,
                       "lease %lld expired; its pairs went back to the pool", (long long) tid);
            return;
        }
        /* done (a resent batch) or cancelled (the run ended): stored, counted once. */
        it->lease.task_id = t.id;
        it->lease.run_id = t.run_id;
        snprintf(it->lease.worker_id, sizeof it->lease.worker_id, "%s", t.worker_id);
        it->lease.first = t.first_pair;
        it->lease.last = t.last_pair;
        it->lease.cancelled = true;
    }
    const coord_lease_t *lp = &it->lease;
    if (res->lease_id != lp->task_id) {
        ITEM_ERROR(self, it, PROTO_LEASE_UNKNOWN, "lease %lld is not the lease of task %lld",
                   (long long) res->lease_id, (long long) tid);
        return;
    }
    if (strcmp(lp->worker_id, it->worker_id) != 0) {
        ITEM_ERROR(self, it, PROTO_LEASE_NOT_YOURS, "task %lld belongs to another worker",
                   (long long) tid);
        return;
    }
    if (!lp->cancelled && coord_wall_ms() > lp->expires_ms) {
        store_range_t *ranges = NULL;
        size_t n = 0;
        if (store_task_expire(self->store, tid, &ranges, &n) == 0)
            coord_lease_return(self, ranges, n);
        free(ranges);
        coord_lease_remove(self, tid);
        ITEM_ERROR(self, it, PROTO_LEASE_EXPIRED,
                   "lease %lld expired; its pairs went back to the pool", (long long) tid);
        return;
    }
    for (size_t i = 0; i < res->pair_count; i++) {
        int64_t p = res->pairs[i].pair;
        if (p < lp->first || p > lp->last) {
            ITEM_ERROR(self, it, PROTO_PAIR_OUTSIDE_LEASE,
                       "pair %lld is outside lease %lld (%lld..%lld)", (long long) p,
                       (long long) tid, (long long) lp->first, (long long) lp->last);
            return;
        }
    }
    if (coord_run_get(self, lp->run_id, &it->run) < 0) {
        ITEM_ERROR(self, it, PROTO_INTERNAL, "run %lld cannot be read now", (long long) lp->run_id);
        return;
    }
    size_t n = res->pair_count;
    it->pairs = calloc(n, sizeof *it->pairs);
    it->starts = calloc(n, sizeof *it->starts);
    it->fresh = calloc(n, sizeof *it->fresh);
    if (!it->pairs || !it->starts || !it->fresh) {
        ITEM_ERROR(self, it, PROTO_INTERNAL, "out of memory");
        return;
    }
    it->cpu_ms = (int64_t) llround(res->cpu_seconds * 1000.0);
    char err[256];
    for (size_t i = 0; i < n; i++) {
        const proto_pair_result_t *pr = &res->pairs[i];
        if (runinfo_start(it->run->info, pr->pair, &it->starts[i], err, sizeof err) < 0) {
            ITEM_ERROR(self, it, PROTO_INTERNAL, "pair %lld: %s", (long long) pr->pair, err);
            return;
        }
        store_pair_t *sp = &it->pairs[i];
        sp->pair_no = pr->pair;
        sp->task_id = tid;
        sp->worker_id = it->worker_id;
        sp->fen = it->starts[i].fen;
        sp->fen2 = it->starts[i].fen2[0] ? it->starts[i].fen2 : NULL;
        sp->imbalance = it->starts[i].imbalance[0] ? it->starts[i].imbalance : NULL;
        for (int g = 0; g < 2; g++) {
            sp->result[g] = s_result_code(pr->games[g].result);
            sp->b_white[g] = pr->games[g].white == PROTO_SIDE_B;
            sp->end[g] = proto_end_name(pr->games[g].end);
            sp->plies[g] = pr->games[g].plies;
            sp->moves[g] = pr->games[g].moves;
        }
        sp->score = (int) lround(pr->score * 4.0);
        sp->cpu_ms = it->cpu_ms / (int64_t) n + ((int64_t) i < it->cpu_ms % (int64_t) n ? 1 : 0);
    }
}

/* Counts a committed batch and applies it to an SPSA run. */
static void s_result_count(coord_t *self, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    coord_run_t *run = it->run;
    int64_t wins = 0, losses = 0;
    for (size_t i = 0; i < res->pair_count; i++) {
        if (!it->fresh[i])
            continue;
        int p1 = s_b_points(&res->pairs[i].games[0]), p2 = s_b_points(&res->pairs[i].games[1]);
        run->totals.pairs++;
        run->totals.penta[it->pairs[i].score]++;
        run->totals.wins += (p1 == 2) + (p2 == 2);
        run->totals.draws += (p1 == 1) + (p2 == 1);
        run->totals.losses += (p1 == 0) + (p2 == 0);
        wins += (p1 == 2) + (p2 == 2);
        losses += (p1 == 0) + (p2 == 0);
    }
    run->totals.cpu_ms += it->cpu_ms;
    if (run->spsa && it->has_step && it->n_new > 0 && !it->lease.cancelled) {
        it->lease.step = &it->step;
        coord_spsa_apply(self, run, &it->lease, (int64_t) it->n_new, wins, losses);
        it->lease.step = NULL;
    }
}

static void s_ack(coord_t *self, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    size_t n = res->pair_count;
    proto_msg_t m = { .type = PROTO_ACK };
    m.u.ack.task_id = res->task_id;
    m.u.ack.batch = res->batch;
    m.u.ack.stored = malloc((n ? n : 1) * sizeof(int64_t));
    m.u.ack.duplicate = malloc((n ? n : 1) * sizeof(int64_t));
    if (m.u.ack.stored && m.u.ack.duplicate) {
        for (size_t i = 0; i < n; i++) {
            if (it->fresh[i])
                m.u.ack.stored[m.u.ack.stored_count++] = res->pairs[i].pair;
            else
                m.u.ack.duplicate[m.u.ack.duplicate_count++] = res->pairs[i].pair;
        }
        coord_send(self, it->rid, it->rid_len, it->req_style, &m);
    }
    proto_ack_free(&m.u.ack);
}

static void s_results(coord_t *self, coord_turn_t *turn)
{
    size_t nres = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->dropped || it->msg.type != PROTO_RESULT)
            continue;
        s_result_check(self, it);
        if (!it->dropped)
            nres++;
    }
    if (nres == 0)
        return;
    store_batch_t *batches = calloc(nres, sizeof *batches);
    coord_item_t **owner = calloc(nres, sizeof *owner);
    if (!batches || !owner) {
        free(batches);
        free(owner);
        for (size_t i = 0; i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (!it->dropped && it->msg.type == PROTO_RESULT)
                ITEM_ERROR(self, it, PROTO_INTERNAL, "out of memory");
        }
        return;
    }
    /* The RESULTs of one run go into one batch (one statement) while their
     * pair numbers differ; each item keeps its slice of that batch. */
    size_t npairs = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (!it->dropped && it->msg.type == PROTO_RESULT)
            npairs += it->msg.u.result.pair_count;
    }
    store_pair_t *merged = malloc((npairs ? npairs : 1) * sizeof *merged);
    bool *merged_new = calloc(npairs ? npairs : 1, sizeof *merged_new);
    size_t *slice = calloc(nres, sizeof *slice);     /* item -> batch index */
    size_t *offset = calloc(nres, sizeof *offset);   /* item -> offset in its batch */
    size_t nb = 0, used = 0;
    bool merge_ok = merged && merged_new && slice && offset;
    if (merge_ok) {
        size_t k = 0;
        for (size_t i = 0; i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (it->dropped || it->msg.type != PROTO_RESULT)
                continue;
            size_t n = it->msg.u.result.pair_count;
            /* Join the last batch of the same run unless a pair number repeats. */
            size_t b = nb;
            for (size_t j = nb; j-- > 0;)
                if (batches[j].run_id == it->run->id) {
                    b = j;
                    break;
                }
            if (b < nb) {
                /* Pairs lie inside their lease, so pair numbers can only repeat
                 * between items whose lease ranges overlap. */
                bool clash = batches[b].pairs + batches[b].n != merged + used;
                for (size_t q = 0; !clash && q < k; q++)
                    clash = slice[q] == b && owner[q]->lease.first <= it->lease.last &&
                            it->lease.first <= owner[q]->lease.last;
                if (clash)
                    b = nb;
            }
            if (b == nb)
                batches[nb++] = (store_batch_t) { .run_id = it->run->id, .pairs = merged + used,
                                                  .n = 0, .new_p = merged_new + used };
            memcpy(merged + used, it->pairs, n * sizeof *merged);
            slice[k] = b;
            offset[k] = batches[b].n;
            batches[b].n += n;
            used += n;
            owner[k++] = it;
        }
        /* One transaction, one commit, before any ACK. */
        int64_t ti = s_ns();
        store_insert_batches(self->store, batches, nb);
        self->st_ns[4] += (uint64_t) (s_ns() - ti);
        bool redo = false;
        for (size_t b = 0; b < nb; b++)
            redo |= batches[b].rc == CAPA_EINVAL || batches[b].rc == CAPA_ERANGE;
        if (redo) {
            /* A merged batch was refused: find the culprit batch by batch. */
            merge_ok = false;
        } else {
            for (size_t j = 0; j < k; j++) {
                coord_item_t *it = owner[j];
                memcpy(it->fresh, merged_new + (batches[slice[j]].new_p - merged_new) + offset[j],
                       it->msg.u.result.pair_count * sizeof *it->fresh);
            }
            /* Per item outcome in batches[j] for the loop below. */
            store_batch_t *per = calloc(nres, sizeof *per);
            if (per) {
                for (size_t j = 0; j < k; j++) {
                    coord_item_t *it = owner[j];
                    per[j].rc = batches[slice[j]].rc;
                    for (size_t p = 0; p < it->msg.u.result.pair_count; p++)
                        per[j].n_new += it->fresh[p];
                }
                free(batches);
                batches = per;
            } else {
                merge_ok = false;
            }
        }
    }
    if (!merge_ok) {
        size_t k = 0;
        for (size_t i = 0; i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (it->dropped || it->msg.type != PROTO_RESULT)
                continue;
            batches[k] = (store_batch_t) { .run_id = it->run->id, .pairs = it->pairs,
                                           .n = it->msg.u.result.pair_count, .new_p = it->fresh };
            owner[k++] = it;
        }
        store_insert_batches(self->store, batches, nres);
    }
    free(merged);
    free(merged_new);
    free(slice);
    free(offset);
    int64_t *done = calloc(nres, sizeof *done);
    size_t ndone = 0;
    for (size_t b = 0; b < nres; b++) {
        coord_item_t *it = owner[b];
        int rc = batches[b].rc;
        if (rc == CAPA_EINVAL || rc == CAPA_ERANGE) {
            ITEM_ERROR(self, it, PROTO_INCONSISTENT_RESULT, "refused by the store: %s",
                       store_last_error(self->store));
            continue;
        }
        if (rc < 0) {
            ITEM_ERROR(self, it, PROTO_INTERNAL, "cannot store the batch now (%s); resend it later",
                       capa_err_name(rc));
            continue;
        }
        it->n_new = batches[b].n_new;
        s_result_count(self, it);
        if (it->msg.u.result.last && !it->lease.cancelled && done)
            done[ndone++] = it->lease.task_id;
        else if (it->msg.u.result.last && it->lease.cancelled)
            coord_lease_remove(self, it->lease.task_id);   /* the run ended: forget it */
    }
    /* Leases whose last batch arrived: closed, undelivered pairs back to the pool. */
    if (ndone) {
        store_range_t *ranges = NULL;
        size_t nr = 0;
        int64_t tf = s_ns();
        int frc = store_extra_tasks_finish(self->store, done, ndone, &ranges, &nr);
        self->st_ns[5] += (uint64_t) (s_ns() - tf);
        if (frc == 0) {
            for (size_t i = 0; i < nr; i++) {
                coord_run_t *run = coord_run_find(self, ranges[i].run_id);
                if (run && run->active)
                    pool_add(run->pool, ranges[i].first, ranges[i].last);
            }
            free(ranges);
            for (size_t i = 0; i < ndone; i++) {
                coord_lease_t *l = coord_lease_find(self, done[i]);
                coord_run_t *run = l ? coord_run_find(self, l->run_id) : NULL;
                coord_lease_remove(self, done[i]);
                if (run && run->spsa)
                    coord_spsa_save(self, run);
            }
        } else {
            LOG(LOG_WARN, "cannot close %zu finished leases now (%s); they will expire", ndone,
                store_last_error(self->store));
        }
    }
    free(done);
    int64_t ta = s_ns();
    for (size_t b = 0; b < nres; b++)
        if (!owner[b]->dropped)
            s_ack(self, owner[b]);
    self->st_ns[6] += (uint64_t) (s_ns() - ta);
    free(batches);
    free(owner);
}

/* ---- REQUEST -------------------------------------------------------------- */

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
            sched_size_in_t in = { .nps = it->nps, .concurrency = it->concurrency,
                                   .slots = it->msg.u.request.slots,
                                   .nodes = run->info->game.nodes,
                                   .tc_base_ms = run->info->game.tc_base_ms,
                                   .tc_inc_ms = run->info->game.tc_inc_ms,
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

static void s_requests(coord_t *self, coord_turn_t *turn)
{
    size_t nt = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->dropped || it->msg.type != PROTO_REQUEST)
            continue;
        s_request_pick(self, it);
        if (it->has_range)
            nt++;
    }
    store_extra_task_t *tasks = nt ? calloc(nt, sizeof *tasks) : NULL;
    int rc = 0;
    if (nt) {
        if (!tasks)
            rc = CAPA_ENOMEM;
        size_t k = 0;
        for (size_t i = 0; tasks && i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (!it->dropped && it->has_range)
                tasks[k++] = (store_extra_task_t) { .run_id = it->run->id,
                                                    .worker_id = it->worker_id,
                                                    .first = it->range.lo,
                                                    .last = it->range.hi };
        }
        if (rc == 0)
            rc = store_extra_tasks_create(self->store, tasks, nt,
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
                            .expires_ms = coord_wall_ms() + (int64_t) self->cfg.lease_seconds * 1000 };
        snprintf(l.worker_id, sizeof l.worker_id, "%s", it->worker_id);
        if (run->spsa && !(l.step = coord_spsa_propose(self, run, task_id)))
            LOG(LOG_ERROR, "run %lld: cannot make an SPSA perturbation", (long long) run->id);
        run->in_flight -= it->range.hi - it->range.lo + 1;   /* coord_lease_add counts it */
        if (coord_lease_add(self, &l) < 0) {
            free(l.step);
            s_no_task(self, it, 1000, "coordinator out of memory");
            continue;
        }
        run->in_flight += it->range.hi - it->range.lo + 1;
        if (run->spsa)
            coord_spsa_save(self, run);
        LOG(LOG_DEBUG, "task %lld: run %lld pairs %lld..%lld to worker %s", (long long) task_id,
            (long long) run->id, (long long) it->range.lo, (long long) it->range.hi,
            it->worker_id);
        s_send_task(self, it, run, task_id, it->range, l.step);
    }
    free(tasks);
}

static void s_item_free(coord_item_t *it)
{
    proto_msg_free(&it->msg);
    free(it->worker.host_info);
    free(it->pairs);
    free(it->starts);
    free(it->fresh);
}

void coord_turn_finish(coord_t *self, coord_turn_t *turn)
{
    if (turn->n) {
        /* REQUESTs first: a task's latency then holds one commit, not two. */
        int64_t t0 = s_ns();
        coord_turn_hellos(self, turn);
        int64_t t1 = s_ns();
        s_revocations(self, turn);
        int64_t t2 = s_ns();
        s_requests(self, turn);
        int64_t t3 = s_ns();
        s_results(self, turn);
        int64_t t4 = s_ns();
        self->st_turns++;
        self->st_items += turn->n;
        self->st_ns[0] += (uint64_t) (t1 - t0);
        self->st_ns[1] += (uint64_t) (t2 - t1);
        self->st_ns[2] += (uint64_t) (t3 - t2);
        self->st_ns[3] += (uint64_t) (t4 - t3);
    }
    for (size_t i = 0; i < turn->n; i++)
        s_item_free(&turn->items[i]);
    free(turn->items);
    turn->items = NULL;
    turn->n = turn->cap = 0;
}
