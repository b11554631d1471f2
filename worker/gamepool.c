/* gamepool.c - game threads fed from a queue, reporting through a pipe. */
#define _GNU_SOURCE /* pipe2 */
#include "gamepool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "log.h"

typedef struct {
    gamepool_t *pool;
    player_t *player;
    pthread_t tid;
    bool started;
} s_thread_t;

struct gamepool_s {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gamepool_job_t *head, *tail;     /* queue */
    gamepool_job_t *done_head, *done_tail;
    size_t queued;
    int running;
    bool stop;
    double game_cpu;
    int pipe_rd, pipe_wr;
    bool signalled;              /* a byte sits in the pipe */
    int nthreads;
    s_thread_t *threads;
};

/* Caller holds mu. */
static void s_done_push(gamepool_t *p, gamepool_job_t *job)
{
    job->next = NULL;
    if (p->done_tail)
        p->done_tail->next = job;
    else
        p->done_head = job;
    p->done_tail = job;
    if (!p->signalled) {
        char c = 1;
        ssize_t w = write(p->pipe_wr, &c, 1);
        (void) w;  /* a full pipe is still readable */
        p->signalled = true;
    }
}

static void *s_thread_main(void *arg)
{
    s_thread_t *t = arg;
    gamepool_t *p = t->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->head)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop)
            break;
        gamepool_job_t *job = p->head;
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        p->queued--;
        p->running++;
        pthread_mutex_unlock(&p->mu);
        job->err[0] = '\0';
        job->rc = player_play(t->player, job->task, job->a, job->b, job->pair_index, job->g,
                              job->want_pgn, &job->game, job->err, sizeof job->err);
        pthread_mutex_lock(&p->mu);
        p->running--;
        p->game_cpu += job->game.cpu_seconds;
        s_done_push(p, job);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int gamepool_new(int threads, size_t hash_mb, gamepool_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (threads < 1)
        return capa_fail(err, errlen, CAPA_ERANGE, "at least one game thread");
    gamepool_t *p = calloc(1, sizeof *p);
    if (!p)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->pipe_rd = p->pipe_wr = -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
        int e = errno;
        gamepool_destroy(&p, true);
        return capa_fail(err, errlen, CAPA_EIO, "pipe: %s", strerror(e));
    }
    p->pipe_rd = fds[0];
    p->pipe_wr = fds[1];
    p->threads = calloc((size_t) threads, sizeof *p->threads);
    if (!p->threads) {
        gamepool_destroy(&p, true);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    p->nthreads = threads;
    for (int i = 0; i < threads; i++) {
        s_thread_t *t = &p->threads[i];
        t->pool = p;
        t->player = player_new(hash_mb);
        if (!t->player) {
            gamepool_destroy(&p, true);
            return capa_fail(err, errlen, CAPA_ENOMEM,
                             "out of memory for game thread %d (%zu MB hash per engine)", i,
                             hash_mb);
        }
        int rc = pthread_create(&t->tid, NULL, s_thread_main, t);
        if (rc != 0) {
            gamepool_destroy(&p, true);
            return capa_fail(err, errlen, CAPA_EIO, "cannot start game thread %d: %s", i,
                             strerror(rc));
        }
        t->started = true;
    }
    *out = p;
    return 0;
}

void gamepool_destroy(gamepool_t **self_p, bool wait)
{
    if (!self_p || !*self_p)
        return;
    gamepool_t *p = *self_p;
    *self_p = NULL;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    int running = p->running;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (!wait && running > 0) {
        /* Threads still play: they keep using their players and the
         * callers' jobs; the process exit ends them. */
        for (int i = 0; i < p->nthreads; i++)
            if (p->threads[i].started)
                pthread_detach(p->threads[i].tid);
        LOG(LOG_WARN, "abandoning %d game(s) in progress", running);
        return;
    }
    for (int i = 0; p->threads && i < p->nthreads; i++) {
        if (p->threads[i].started)
            pthread_join(p->threads[i].tid, NULL);
        player_destroy(&p->threads[i].player);
    }
    free(p->threads);
    if (p->pipe_rd >= 0)
        close(p->pipe_rd);
    if (p->pipe_wr >= 0)
        close(p->pipe_wr);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void gamepool_submit(gamepool_t *p, gamepool_job_t *job)
{
    job->next = NULL;
    job->cancelled = false;
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    p->queued++;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

gamepool_job_t *gamepool_take(gamepool_t *p)
{
    pthread_mutex_lock(&p->mu);
    gamepool_job_t *job = p->done_head;
    if (job) {
        p->done_head = job->next;
        if (!p->done_head)
            p->done_tail = NULL;
        job->next = NULL;
    }
    if (!p->done_head && p->signalled) {
        char buf[64];
        while (read(p->pipe_rd, buf, sizeof buf) > 0)
            ;
        p->signalled = false;
    }
    pthread_mutex_unlock(&p->mu);
    return job;
}

int gamepool_fd(const gamepool_t *p) { return p->pipe_rd; }

size_t gamepool_cancel(gamepool_t *p, const void *owner)
{
    size_t n = 0;
    pthread_mutex_lock(&p->mu);
    gamepool_job_t **link = &p->head;
    p->tail = NULL;
    while (*link) {
        gamepool_job_t *job = *link;
        if (!owner || job->owner == owner) {
            *link = job->next;
            p->queued--;
            job->cancelled = true;
            s_done_push(p, job);
            n++;
        } else {
            p->tail = job;
            link = &job->next;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return n;
}

int gamepool_threads(const gamepool_t *p) { return p->nthreads; }

size_t gamepool_queued(gamepool_t *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->queued;
    pthread_mutex_unlock(&p->mu);
    return n;
}

int gamepool_running(gamepool_t *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->running;
    pthread_mutex_unlock(&p->mu);
    return n;
}

double gamepool_game_cpu(gamepool_t *p)
{
    pthread_mutex_lock(&p->mu);
    double c = p->game_cpu;
    pthread_mutex_unlock(&p->mu);
    return c;
}
