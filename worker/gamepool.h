/* gamepool.h - the worker's game threads.
 *
 * N pthreads, each with its own player (two engines and boards), take jobs
 * (one game each) from a FIFO queue and put them, played, on a done list.
 * A pipe becomes readable whenever the done list is not empty, so the
 * worker's single poll loop (zmq_poll on that fd) learns of finished games
 * without polling the threads.
 *
 *   gamepool_t *pool; gamepool_new(4, 16, &pool, err, sizeof err);
 *   gamepool_submit(pool, job);                    the pool holds job until done
 *   ... poll gamepool_fd(pool) ...
 *   while ((job = gamepool_take(pool))) { ... job->game ... ; owner frees job }
 *   gamepool_destroy(&pool, true);                 waits for running games
 *
 * Jobs and everything they point to (task, params) belong to the caller
 * and must stay valid until the job comes back from gamepool_take.
 */
#ifndef CAPA_WORKER_GAMEPOOL_H
#define CAPA_WORKER_GAMEPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "player.h"
#include "protocol.h"

typedef struct gamepool_job_s {
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
    struct gamepool_job_s *next;     /* queue link (the pool's) */
} gamepool_job_t;

typedef struct gamepool_s gamepool_t;

/* Starts threads game threads with hash_mb per engine. */
int gamepool_new(int threads, size_t hash_mb, gamepool_t **out, char *err, size_t errlen);
/* wait: join the threads after their current game; !wait: leave running
 * games to the process exit (abandon) and free nothing they use. */
void gamepool_destroy(gamepool_t **self_p, bool wait);

void gamepool_submit(gamepool_t *p, gamepool_job_t *job);
/* A finished (or cancelled) job, or NULL when none is waiting. */
gamepool_job_t *gamepool_take(gamepool_t *p);
/* Readable while finished jobs wait (level-triggered: gamepool_take drains it). */
int gamepool_fd(const gamepool_t *p);

/* Moves every queued job of owner (NULL: all) to the done list, marked
 * cancelled. Returns how many. */
size_t gamepool_cancel(gamepool_t *p, const void *owner);

int gamepool_threads(const gamepool_t *p);
/* Jobs waiting in the queue, and games being played now. */
size_t gamepool_queued(gamepool_t *p);
int gamepool_running(gamepool_t *p);
/* CPU seconds the threads spent inside games, summed over finished games. */
double gamepool_game_cpu(gamepool_t *p);

#endif
