/* pool.h - the worker's game threads.
 *
 * N pthreads, each with its own player (two engines and boards), take jobs
 * (one game each) from a FIFO queue and put them, played, on a done list.
 * A pipe becomes readable whenever the done list is not empty, so the
 * worker's single poll loop (zmq_poll on that fd) learns of finished games
 * without polling the threads.
 *
 *   pool_t *pool; pool_new(4, 16, &pool, err, sizeof err);
 *   pool_submit(pool, job);                    the pool holds job until done
 *   ... poll pool_fd(pool) ...
 *   while ((job = pool_take(pool))) { ... job->game ... ; owner frees job }
 *   pool_destroy(&pool, true);                 waits for running games
 *
 * Jobs and everything they point to (task, params) belong to the caller
 * and must stay valid until the job comes back from pool_take.
 */
#ifndef CAPA_WORKER_POOL_H
#define CAPA_WORKER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "player.h"
#include "protocol.h"

typedef struct pool_job_s {
    /* input */
    void *owner;                 /* the caller's task record */
    const proto_task_t *task;
    const params_t *a, *b;
    size_t pair_index;
    int g;                       /* 0 or 1 */
    bool want_pgn;
    /* output */
    bool cancelled;              /* removed from the queue unplayed */
    int rc;                      /* 0 or the error of player_play */
    char err[256];
    player_game_t game;
    struct pool_job_s *next;     /* queue link (the pool's) */
} pool_job_t;

typedef struct pool_s pool_t;

/* Starts threads game threads with hash_mb per engine. */
int pool_new(int threads, size_t hash_mb, pool_t **out, char *err, size_t errlen);
/* wait: join the threads after their current game; !wait: leave running
 * games to the process exit (abandon) and free nothing they use. */
void pool_destroy(pool_t **self_p, bool wait);

void pool_submit(pool_t *p, pool_job_t *job);
/* A finished (or cancelled) job, or NULL when none is waiting. */
pool_job_t *pool_take(pool_t *p);
/* Readable while finished jobs wait (level-triggered: pool_take drains it). */
int pool_fd(const pool_t *p);

/* Moves every queued job of owner (NULL: all) to the done list, marked
 * cancelled. Returns how many. */
size_t pool_cancel(pool_t *p, const void *owner);

int pool_threads(const pool_t *p);
/* Jobs waiting in the queue, and games being played now. */
size_t pool_queued(pool_t *p);
int pool_running(pool_t *p);
/* CPU seconds the threads spent inside games, summed over finished games. */
double pool_game_cpu(pool_t *p);

#endif
