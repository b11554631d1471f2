/* coord_writer.c - the writer thread. The pairs of a RESULT must be
 * committed (fsync'd) before its ACK, and that commit is the slowest thing
 * the coordinator does; done on the loop's thread it held every REQUEST
 * behind it. Here one thread with its own database connection stores one
 * job at a time while the loop goes on handing out tasks and gathering the
 * next RESULTs, which become the next job (group commit).
 *
 * Hand-over: the loop submits a job and does not touch it until collect
 * returns it; the thread signals a finished job through a pipe the loop
 * polls, so the loop never waits unless it asks to (drain). The job's body
 * (coord_job_store) is here too; coord_result.c checks RESULTs before and
 * applies the job after, on the loop. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "store_bulk.h"

/* ---- the writer thread's part: nothing of the loop's state is touched ---- */

/* Stores every RESULT of the job (merged per run, one statement, one
 * commit); sets each item's store_rc, store_err, n_new and fresh. */
static void s_store_pairs(store_t *store, coord_item_t **owner, size_t nres)
{
    store_batch_t *batches = calloc(nres, sizeof *batches);
    if (!batches) {
        for (size_t k = 0; k < nres; k++)
            owner[k]->store_rc = CAPA_ENOMEM;
        return;
    }
    /* The RESULTs of one run go into one batch (one statement) while their
     * pair numbers differ; each item keeps its slice of that batch. */
    size_t npairs = 0;
    for (size_t k = 0; k < nres; k++)
        npairs += owner[k]->msg.u.result.pair_count;
    store_pair_t *merged = malloc((npairs ? npairs : 1) * sizeof *merged);
    bool *merged_new = calloc(npairs ? npairs : 1, sizeof *merged_new);
    size_t *slice = calloc(nres, sizeof *slice);     /* item -> batch index */
    size_t *offset = calloc(nres, sizeof *offset);   /* item -> offset in its batch */
    size_t nb = 0, used = 0;
    bool merge_ok = merged && merged_new && slice && offset;
    if (merge_ok) {
        for (size_t k = 0; k < nres; k++) {
            coord_item_t *it = owner[k];
            size_t n = it->msg.u.result.pair_count;
            int64_t run_id = it->lease.run_id;
            /* Join the last batch of the same run unless a pair number repeats. */
            size_t b = nb;
            for (size_t j = nb; j-- > 0;)
                if (batches[j].run_id == run_id) {
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
                batches[nb++] = (store_batch_t) { .run_id = run_id, .pairs = merged + used,
                                                  .n = 0, .new_p = merged_new + used };
            memcpy(merged + used, it->pairs, n * sizeof *merged);
            slice[k] = b;
            offset[k] = batches[b].n;
            batches[b].n += n;
            used += n;
        }
        /* One statement, one commit, before any ACK. */
        store_insert_batches(store, batches, nb);
        for (size_t b = 0; b < nb; b++)
            merge_ok &= batches[b].rc != CAPA_EINVAL && batches[b].rc != CAPA_ERANGE;
        if (merge_ok) {
            for (size_t k = 0; k < nres; k++) {
                coord_item_t *it = owner[k];
                size_t n = it->msg.u.result.pair_count;
                memcpy(it->fresh, batches[slice[k]].new_p + offset[k], n * sizeof *it->fresh);
                it->store_rc = batches[slice[k]].rc;
                it->n_new = 0;
                for (size_t p = 0; p < n; p++)
                    it->n_new += it->fresh[p];
            }
        }
    }
    if (!merge_ok) {
        /* A merged batch was refused (or no memory to merge): item by item,
         * so that only the culprit is refused. */
        for (size_t k = 0; k < nres; k++) {
            coord_item_t *it = owner[k];
            batches[k] = (store_batch_t) { .run_id = it->lease.run_id, .pairs = it->pairs,
                                           .n = it->msg.u.result.pair_count, .new_p = it->fresh };
        }
        store_insert_batches(store, batches, nres);
        for (size_t k = 0; k < nres; k++) {
            owner[k]->store_rc = batches[k].rc;
            owner[k]->n_new = batches[k].n_new;
            if (batches[k].rc == CAPA_EINVAL || batches[k].rc == CAPA_ERANGE)
                snprintf(owner[k]->store_err, sizeof owner[k]->store_err, "%s",
                         store_last_error(store));
        }
    }
    free(merged);
    free(merged_new);
    free(slice);
    free(offset);
    free(batches);
}

void coord_job_store(store_t *store, coord_job_t *job)
{
    size_t nres = 0;
    for (size_t i = 0; i < job->turn.n; i++)
        nres += !job->turn.items[i].dropped;
    coord_item_t **owner = nres ? calloc(nres, sizeof *owner) : NULL;
    job->done = nres ? calloc(nres, sizeof *job->done) : NULL;
    if (nres && (!owner || !job->done)) {
        for (size_t i = 0; i < job->turn.n; i++)
            job->turn.items[i].store_rc = CAPA_ENOMEM;
        nres = 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < job->turn.n && k < nres; i++)
        if (!job->turn.items[i].dropped)
            owner[k++] = &job->turn.items[i];
    if (nres) {
        int64_t t0 = coord_now_ns();
        s_store_pairs(store, owner, nres);
        job->ns_insert = coord_now_ns() - t0;
    }
    /* Leases whose last batch is stored: closed, their undelivered pairs listed. */
    for (size_t i = 0; i < nres; i++) {
        coord_item_t *it = owner[i];
        if (it->store_rc == 0 && it->msg.u.result.last && !it->lease.cancelled)
            job->done[job->ndone++] = it->lease.task_id;
    }
    if (job->ndone) {
        int64_t t0 = coord_now_ns();
        job->finish_rc = store_bulk_tasks_finish(store, job->done, job->ndone, &job->ranges,
                                                  &job->nranges);
        job->ns_close = coord_now_ns() - t0;
        if (job->finish_rc < 0)
            snprintf(job->finish_err, sizeof job->finish_err, "%s", store_last_error(store));
    }
    /* Verdicts of replays: a lost one loses a sample, not a result, so
     * they are not worth an fsync of their own. */
    if (job->nver && store_begin_async(store) == 0) {
        for (size_t i = 0; i < job->nver; i++) {
            const coord_verified_t *v = &job->ver[i];
            if (store_pair_set_verified(store, v->run_id, v->pair_no, v->reproduced,
                                        v->verifier) < 0)
                LOG(LOG_WARN, "run %lld pair %lld: cannot record the verification: %s",
                    (long long) v->run_id, (long long) v->pair_no, store_last_error(store));
        }
        if (store_commit(store) < 0) {
            LOG(LOG_WARN, "cannot record %zu verifications: %s", job->nver,
                store_last_error(store));
            store_rollback(store);
        }
    } else if (job->nver) {
        LOG(LOG_WARN, "cannot record %zu verifications: %s", job->nver, store_last_error(store));
    }
    free(owner);
}

struct coord_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    coord_job_t *todo;          /* submitted, not yet taken by the thread */
    coord_job_t *finished;      /* stored, not yet collected */
    bool busy;                  /* a job is submitted and not collected */
    bool stop;
    int pipe[2];                /* thread -> loop: a byte per finished job */
    store_t *store;
};

static void *s_main(void *arg)
{
    coord_writer_t *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->todo && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->todo)
            break;
        coord_job_t *job = w->todo;
        w->todo = NULL;
        pthread_mutex_unlock(&w->mu);
        coord_job_store(w->store, job);
        pthread_mutex_lock(&w->mu);
        w->finished = job;
        pthread_cond_broadcast(&w->cv);
        char one = 1;
        while (write(w->pipe[1], &one, 1) < 0 && errno == EINTR)
            ;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int coord_writer_new(const char *conninfo, coord_writer_t **out, char *err, size_t errlen)
{
    *out = NULL;
    coord_writer_t *w = calloc(1, sizeof *w);
    if (!w)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    w->pipe[0] = w->pipe[1] = -1;
    int rc = store_open(conninfo, &w->store, err, errlen);
    if (rc < 0) {
        free(w);
        return rc;
    }
    if (pipe(w->pipe) < 0) {
        store_destroy(&w->store);
        free(w);
        return capa_fail(err, errlen, CAPA_EIO, "pipe: %s", strerror(errno));
    }
    fcntl(w->pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(w->pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(w->pipe[1], F_SETFD, FD_CLOEXEC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, s_main, w) != 0) {
        close(w->pipe[0]);
        close(w->pipe[1]);
        store_destroy(&w->store);
        free(w);
        return capa_fail(err, errlen, CAPA_EIO, "cannot start the writer thread");
    }
    *out = w;
    return 0;
}

void coord_writer_destroy(coord_writer_t **wp)
{
    if (!wp || !*wp)
        return;
    coord_writer_t *w = *wp;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    if (w->todo) {
        coord_job_free(w->todo);
        free(w->todo);
    }
    if (w->finished) {
        coord_job_free(w->finished);
        free(w->finished);
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    close(w->pipe[0]);
    close(w->pipe[1]);
    store_destroy(&w->store);
    free(w);
    *wp = NULL;
}

int coord_writer_fd(const coord_writer_t *w)
{
    return w->pipe[0];
}

bool coord_writer_busy(const coord_writer_t *w)
{
    return w->busy;     /* only the loop changes it */
}

void coord_writer_submit(coord_writer_t *w, coord_job_t *job)
{
    pthread_mutex_lock(&w->mu);
    w->todo = job;
    w->busy = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* The finished job (the caller owns it), or NULL if none; wait blocks until
 * the job in flight is done. */
static coord_job_t *s_collect(coord_writer_t *w, bool wait)
{
    char buf[16];
    pthread_mutex_lock(&w->mu);
    while (wait && w->busy && !w->finished)
        pthread_cond_wait(&w->cv, &w->mu);
    coord_job_t *job = w->finished;
    w->finished = NULL;
    if (job)
        w->busy = false;
    pthread_mutex_unlock(&w->mu);
    while (read(w->pipe[0], buf, sizeof buf) > 0)
        ;
    return job;
}

void coord_writer_apply(coord_t *self, bool wait)
{
    coord_job_t *job = s_collect(self->writer, wait);
    if (job) {
        coord_results_apply(self, job);
        coord_job_free(job);
        free(job);
        self->st_jobs++;
    }
}

void coord_writer_drain(coord_t *self)
{
    if (self->writer && coord_writer_busy(self->writer))
        coord_writer_apply(self, true);
}
