/* coord_result.c - the RESULTs gathered while the writer thread was busy,
 * checked in the order of docs/protocol.md section 3 (lease known / owned /
 * unexpired, pair numbers inside it), then all their pairs stored by the
 * writer in one statement (the RESULTs of one run merged), finished leases
 * closed, and back on the loop counted, applied to SPSA runs and only then
 * ACKed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "store_bulk.h"

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

/* ACKs a verify task's pair as a duplicate and forgets the task. */
static void s_verify_ack(coord_t *self, coord_item_t *it, const verify_job_t *job)
{
    const proto_result_t *res = &it->msg.u.result;
    proto_msg_t m = { .type = PROTO_ACK };
    int64_t dup[1] = { job->pair_no };
    m.u.ack.task_id = res->task_id;
    m.u.ack.batch = res->batch;
    m.u.ack.duplicate = dup;
    m.u.ack.duplicate_count = 1;
    coord_send(self, it->rid, it->rid_len, it->req_style, &m);
    verify_forget(self->verify, res->task_id);
    it->dropped = true;   /* answered */
}

/* The RESULT of a verify task (verify.h): compared with the pair's first
 * result, nothing stored but the verdict (by the writer, with wjob), ACKed
 * with the pair as a duplicate at once. A worker that
 * now disagrees with enough others is flagged: its pairs are excluded and
 * the runs' counters are read back from the database. */
static void s_verify_result(coord_t *self, coord_job_t *wjob, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    verify_job_t *job = self->verify ? verify_find(self->verify, res->task_id) : NULL;
    if (!job || res->lease_id != res->task_id) {
        ITEM_ERROR(self, it, PROTO_LEASE_UNKNOWN, "verify task %lld is unknown",
                   (long long) res->task_id);
        return;
    }
    if (strcmp(job->verifier, it->worker_id) != 0) {
        ITEM_ERROR(self, it, PROTO_LEASE_NOT_YOURS, "task %lld belongs to another worker",
                   (long long) res->task_id);
        return;
    }
    if (res->pair_count != 1 || res->pairs[0].pair != job->pair_no) {
        ITEM_ERROR(self, it, PROTO_PAIR_OUTSIDE_LEASE, "task %lld is pair %lld only",
                   (long long) res->task_id, (long long) job->pair_no);
        return;
    }
    if (coord_worker_is_flagged(self, job->worker_id)) {
        /* The pair judged is excluded and its number may be counted for
         * someone else by now: no verdict, which would land on that pair. */
        LOG(LOG_DEBUG, "run %lld pair %lld: replay by %s dropped, %s is flagged",
            (long long) job->run_id, (long long) job->pair_no, it->worker_id, job->worker_id);
        s_verify_ack(self, it, job);
        return;
    }
    char why[256] = "", guilty[PROTO_ID_MAX] = "";
    bool same = verify_judge(self->verify, job, &res->pairs[0], why, sizeof why, guilty,
                             sizeof guilty);
    if (wjob->nver == wjob->ver_cap) {
        size_t cap = wjob->ver_cap ? 2 * wjob->ver_cap : 16;
        coord_verified_t *v = realloc(wjob->ver, cap * sizeof *v);
        if (v) {
            wjob->ver = v;
            wjob->ver_cap = cap;
        }
    }
    if (wjob->nver < wjob->ver_cap) {   /* else the mark is lost, not the worker's result */
        coord_verified_t *v = &wjob->ver[wjob->nver++];
        *v = (coord_verified_t) { .run_id = job->run_id, .pair_no = job->pair_no,
                                  .reproduced = same };
        snprintf(v->verifier, sizeof v->verifier, "%s", it->worker_id);
    }
    if (same)
        LOG(LOG_DEBUG, "run %lld pair %lld of %s reproduced by %s", (long long) job->run_id,
            (long long) job->pair_no, job->worker_id, it->worker_id);
    else
        LOG(LOG_WARN, "run %lld pair %lld of %s NOT reproduced by %s: %s", (long long) job->run_id,
            (long long) job->pair_no, job->worker_id, it->worker_id, why);
    if (guilty[0]) {
        char reason[STORE_TEXT_MAX];
        int n = snprintf(reason, sizeof reason, "games not reproduced by %d other workers (last: "
                         "run %lld pair %lld: %s)", VERIFY_QUORUM, (long long) job->run_id,
                         (long long) job->pair_no, why);
        (void) n; /* a long `why` is cut: the reason is a summary */
        coord_worker_flag(self, guilty, reason);
    }
    s_verify_ack(self, it, job);
}

/* Lease known / owned / unexpired, pairs inside it; builds the rows. */
static void s_result_check(coord_t *self, coord_job_t *job, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    int64_t tid = res->task_id;
    if (verify_is_task(tid)) {
        s_verify_result(self, job, it);
        return;
    }
    coord_lease_t *l = coord_lease_find(self, tid);
    if (l) {
        l->confirmed = true;
        it->lease = *l;
        it->lease.step = NULL;
        it->lease.held = NULL;
        it->lease.next = NULL;
        if (l->ended) {
            /* The worker no longer plays it: only its spooled pairs, kept
             * aside for this resend, are still its own. */
            for (size_t i = 0; i < res->pair_count; i++)
                if (!coord_lease_holds(l, res->pairs[i].pair)) {
                    ITEM_ERROR(self, it, PROTO_LEASE_EXPIRED, "lease %lld ended; pair %lld went "
                               "back to the pool", (long long) tid,
                               (long long) res->pairs[i].pair);
                    return;
                }
            it->held_resend = !l->cancelled;   /* its run goes on: SPSA counts it */
            it->lease.cancelled = true;   /* stored and counted, nothing to close */
        }
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
    if (run->spsa && it->has_step && it->n_new > 0 &&
        (!it->lease.cancelled || it->held_resend)) {
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

void coord_results_submit(coord_t *self)
{
    if (self->results_wait.n == 0 || coord_writer_busy(self->writer))
        return;
    coord_job_t *job = calloc(1, sizeof *job);
    if (!job) {
        for (size_t i = 0; i < self->results_wait.n; i++) {
            coord_item_t *it = &self->results_wait.items[i];
            if (!it->dropped)
                ITEM_ERROR(self, it, PROTO_INTERNAL, "out of memory; resend later");
        }
        coord_turn_free(&self->results_wait);
        return;
    }
    job->turn = self->results_wait;
    memset(&self->results_wait, 0, sizeof self->results_wait);
    size_t nres = 0;
    for (size_t i = 0; i < job->turn.n; i++) {
        coord_item_t *it = &job->turn.items[i];
        if (it->dropped)
            continue;
        s_result_check(self, job, it);
        nres += !it->dropped;
    }
    if (nres == 0 && job->nver == 0) {
        coord_job_free(job);
        free(job);
        return;
    }
    coord_writer_submit(self->writer, job);
}

/* ---- back on the loop ----------------------------------------------------- */

void coord_results_apply(coord_t *self, coord_job_t *job)
{
    self->st_ns[COORD_NS_INSERT] += (uint64_t) job->ns_insert;
    self->st_ns[COORD_NS_CLOSE] += (uint64_t) job->ns_close;
    for (size_t i = 0; i < job->turn.n; i++) {
        coord_item_t *it = &job->turn.items[i];
        if (it->dropped)
            continue;
        int rc = it->store_rc;
        if (rc == CAPA_EINVAL || rc == CAPA_ERANGE) {
            ITEM_ERROR(self, it, PROTO_INCONSISTENT_RESULT, "refused by the store: %s",
                       it->store_err);
            continue;
        }
        if (rc < 0) {
            ITEM_ERROR(self, it, PROTO_INTERNAL, "cannot store the batch now (%s); resend it later",
                       capa_err_name(rc));
            continue;
        }
        self->stored_total += (int64_t) it->n_new;
        s_result_count(self, it);
        /* Replays need determinism: fixed-node games of sprt and values runs. */
        if (self->verify && it->n_new > 0 && it->run->info->doc->kind != PROTO_KIND_SPSA &&
            it->run->info->doc->game.nodes > 0 &&
            !coord_worker_is_flagged(self, it->worker_id))
            for (size_t p = 0; p < it->msg.u.result.pair_count; p++)
                if (it->fresh[p] &&
                    verify_offer(self->verify, it->run->id, it->msg.u.result.pairs[p].pair,
                                 it->worker_id, &it->msg.u.result.pairs[p]) < 0)
                    LOG(LOG_WARN, "out of memory sampling a pair for verification");
        if (it->lease.ended)
            coord_lease_unhold(self, it->lease.task_id, &it->msg.u.result);
        else if (it->msg.u.result.last && it->lease.cancelled)
            coord_lease_remove(self, it->lease.task_id);   /* the run ended: forget it */
    }
    if (job->ndone && job->finish_rc == 0) {
        for (size_t i = 0; i < job->nranges; i++) {
            coord_run_t *run = coord_run_find(self, job->ranges[i].run_id);
            if (run && run->active)
                pool_add(run->pool, job->ranges[i].first, job->ranges[i].last);
        }
        for (size_t i = 0; i < job->ndone; i++) {
            coord_lease_t *l = coord_lease_find(self, job->done[i]);
            coord_run_t *run = l ? coord_run_find(self, l->run_id) : NULL;
            if (l && l->ended)
                continue;   /* ended while stored: it waits for its resend */
            coord_lease_remove(self, job->done[i]);
            if (run && run->spsa)
                coord_spsa_save(self, run);
        }
    } else if (job->ndone) {
        LOG(LOG_WARN, "cannot close %zu finished leases now (%s); they will expire", job->ndone,
            job->finish_err);
    }
    int64_t ta = coord_now_ns();
    for (size_t i = 0; i < job->turn.n; i++)
        if (!job->turn.items[i].dropped)
            s_ack(self, &job->turn.items[i]);
    self->st_ns[COORD_NS_ACK] += (uint64_t) (coord_now_ns() - ta);
}

void coord_job_free(coord_job_t *job)
{
    coord_turn_free(&job->turn);
    free(job->ver);
    free(job->done);
    free(job->ranges);
    memset(job, 0, sizeof *job);
}
