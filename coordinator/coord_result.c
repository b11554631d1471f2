/* coord_result.c - the RESULTs of one loop turn, checked in the order of
 * docs/protocol.md section 3 (lease known / owned / unexpired, pair numbers
 * inside it), then all their pairs stored in one transaction (the RESULTs
 * of one run merged into one statement), counted, applied to SPSA runs,
 * finished leases closed, and only then ACKed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "store_extra.h"

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

/* The RESULT of a verify task (verify.h): compared with the pair's first
 * result, nothing stored, ACKed with the pair as a duplicate. A worker that
 * now disagrees with enough others is flagged: its pairs are excluded and
 * the runs' counters are read back from the database. */
static void s_verify_result(coord_t *self, coord_item_t *it)
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
    char why[256] = "", guilty[PROTO_ID_MAX] = "";
    bool same = verify_judge(self->verify, job, &res->pairs[0], why, sizeof why, guilty,
                             sizeof guilty);
    if (store_pair_set_verified(self->store, job->run_id, job->pair_no, same, it->worker_id) < 0) {
        /* Judged already: the sample is lost, not the worker's result. */
        LOG(LOG_WARN, "run %lld pair %lld: cannot record the verification: %s",
            (long long) job->run_id, (long long) job->pair_no, store_last_error(self->store));
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

/* Lease known / owned / unexpired, pairs inside it; builds the rows. */
static void s_result_check(coord_t *self, coord_item_t *it)
{
    const proto_result_t *res = &it->msg.u.result;
    int64_t tid = res->task_id;
    if (verify_is_task(tid)) {
        s_verify_result(self, it);
        return;
    }
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

void coord_turn_results(coord_t *self, coord_turn_t *turn)
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
        int64_t ti = coord_now_ns();
        store_insert_batches(self->store, batches, nb);
        self->st_ns[4] += (uint64_t) (coord_now_ns() - ti);
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
        self->stored_total += (int64_t) it->n_new;
        s_result_count(self, it);
        /* Replays need determinism: fixed-node games of sprt and values runs. */
        if (self->verify && it->n_new > 0 && it->run->info->kind != STORE_RUN_SPSA &&
            it->run->info->game.nodes > 0 &&
            !verify_is_flagged(self->verify, it->worker_id))
            for (size_t i = 0; i < it->msg.u.result.pair_count; i++)
                if (it->fresh[i] &&
                    verify_offer(self->verify, it->run->id, it->msg.u.result.pairs[i].pair,
                                 it->worker_id, &it->msg.u.result.pairs[i]) < 0)
                    LOG(LOG_WARN, "out of memory sampling a pair for verification");
        if (it->msg.u.result.last && !it->lease.cancelled && done)
            done[ndone++] = it->lease.task_id;
        else if (it->msg.u.result.last && it->lease.cancelled)
            coord_lease_remove(self, it->lease.task_id);   /* the run ended: forget it */
    }
    /* Leases whose last batch arrived: closed, undelivered pairs back to the pool. */
    if (ndone) {
        store_range_t *ranges = NULL;
        size_t nr = 0;
        int64_t tf = coord_now_ns();
        int frc = store_extra_tasks_finish(self->store, done, ndone, &ranges, &nr);
        self->st_ns[5] += (uint64_t) (coord_now_ns() - tf);
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
    int64_t ta = coord_now_ns();
    for (size_t b = 0; b < nres; b++)
        if (!owner[b]->dropped)
            s_ack(self, owner[b]);
    self->st_ns[6] += (uint64_t) (coord_now_ns() - ta);
    free(batches);
    free(owner);
}

