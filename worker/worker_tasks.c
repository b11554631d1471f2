/* worker_tasks.c - TASKs into game-thread jobs, finished games into pairs,
 * pairs into RESULT batches that are spooled (fsync) before they are sent. */
#include "worker_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "player.h"

/* Spools (fsync) then sends every waiting frame, in order; stops at the
 * first that cannot be spooled and retries it later. */
void worker_flush_unspooled(worker_t *w)
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
            w->spool_retry_at = worker_now_ms() + delay;
            break;
        }
        backoff_reset(&w->spool_backoff);
        w->spool_retry_at = INT64_MAX;
        if (w->state == WORKER_READY)
            worker_send(w, f->frame, f->len);
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

void worker_emit(worker_t *w, batch_frames_t *frames)
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
    worker_flush_unspooled(w);
}

/* ------------------------------------------------------------------ tasks */

worker_task_t *worker_task_find(worker_t *w, int64_t task_id)
{
    for (worker_task_t *t = w->tasks; t; t = t->next)
        if (t->task.task_id == task_id)
            return t;
    return NULL;
}

static void s_task_pgn(worker_task_t *t, const char *pgn)
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

void worker_task_abandon(worker_t *w, worker_task_t *t, const char *why)
{
    if (t->abandoned)
        return;
    t->abandoned = true;
    size_t n = gamepool_cancel(w->pool, t);
    LOG(LOG_WARN, "abandoning task %" PRId64 " (%s): %zu game(s) not started", t->task.task_id, why,
        n);
}

void worker_task_free(worker_t *w, worker_task_t *t)
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
void worker_tasks_cron(worker_t *w, bool force)
{
    int64_t now = worker_now_ms();
    char err[256];
    for (worker_task_t **link = &w->tasks; *link;) {
        worker_task_t *t = *link;
        if (!t->abandoned && batch_pending(&t->batch) &&
            (force || batch_due(&t->batch, &w->policy, now))) {
            batch_frames_t frames = { 0 };
            if (batch_take(&t->batch, &frames, err, sizeof err) < 0) {
                /* never expected: the pairs go back through the lease */
                LOG(LOG_ERROR, "task %" PRId64 ": cannot encode a RESULT: %s", t->task.task_id,
                    err);
                worker_task_abandon(w, t, "its RESULT cannot be encoded");
            }
            worker_emit(w, &frames);
        }
        bool finished = t->outstanding == 0 &&
                        (t->abandoned || batch_complete(&t->batch) ||
                         (w->flushed && batch_pending(&t->batch) == 0));
        if (finished) {
            if (batch_complete(&t->batch))
                w->n_tasks++;
            *link = t->next;
            worker_task_free(w, t);
        } else {
            link = &t->next;
        }
    }
}

void worker_on_task(worker_t *w, proto_task_t *task)
{
    char err[256];
    w->request_out = false;
    if (w->stopping) {
        LOG(LOG_INFO, "TASK %" PRId64 " arrived while stopping: not started (BYE returns it)",
            task->task_id);
        proto_task_free(task);
        return;
    }
    if (worker_task_find(w, task->task_id)) {
        LOG(LOG_WARN, "TASK %" PRId64 " again: already playing it; ignored", task->task_id);
        proto_task_free(task);
        return;
    }
    worker_task_t *t = calloc(1, sizeof *t);
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
        worker_send_error(w, PROTO_BAD_SCHEMA, PROTO_TASK, task->task_id, err);
        w->request_at = worker_now_ms() + delay;
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
static void s_resubmit(worker_t *w, worker_task_t *t, gamepool_job_t *job)
{
    t->pairs[job->pair_index].cancelled &= ~(1u << job->g);
    job->cancelled = false;
    t->outstanding++;
    gamepool_submit(w->pool, job);
}

void worker_on_job(worker_t *w, gamepool_job_t *job)
{
    worker_task_t *t = job->owner;
    t->outstanding--;
    if (job->cancelled && !t->abandoned) {
        /* Stopping: a pair whose other game is done is still finished;
         * one whose other game still runs is finished when that ends. */
        worker_pair_t *p = &t->pairs[job->pair_index];
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
            worker_emit(w, &frames);
        worker_task_abandon(w, t, "a game could not be played");
        return;
    }
    w->n_games++;
    worker_pair_t *p = &t->pairs[job->pair_index];
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
        if (batch_add(&t->batch, &p->res, p->cpu, worker_now_ms()) < 0) {
            LOG(LOG_ERROR, "task %" PRId64 ": cannot queue pair %" PRId64, t->task.task_id,
                p->res.pair);
            worker_task_abandon(w, t, "out of memory");
        }
    }
}
