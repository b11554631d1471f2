/* coord_writer.c - the writer thread. The pairs of a RESULT must be
 * committed (fsync'd) before its ACK, and that commit is the slowest thing
 * the coordinator does; done on the loop's thread it held every REQUEST
 * behind it. Here one thread with its own database connection stores one
 * job at a time while the loop goes on handing out tasks and gathering the
 * next RESULTs, which become the next job (group commit).
 *
 * Hand-over: the loop submits a job and does not touch it until collect
 * returns it; the thread signals a finished job through a pipe the loop
 * polls, so the loop never waits unless it asks to (drain). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"

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
