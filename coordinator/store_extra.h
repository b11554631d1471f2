/* store_extra.h - set-at-a-time store operations the coordinator's loop
 * needs so that everything that arrived in one turn shares one commit
 * (a commit costs a disk flush: several ms). Same conventions as store.h;
 * written by the coordinator's helper on top of store_int.h.
 */
#ifndef CAPA_STORE_EXTRA_H
#define CAPA_STORE_EXTRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct {
    int64_t run_id;
    const char *worker_id;      /* borrowed */
    int64_t first, last;
    int64_t task_id;            /* out: the new task, 0 if refused */
} store_extra_task_t;

/* Creates active tasks for all entries in one statement (one commit), each
 * expiring ttl_ms from now (database clock). An entry whose run is not
 * pending/running, whose range reaches pairs_planned or whose worker does
 * not exist is refused (task_id 0); the others get their id. */
int store_extra_tasks_create(store_t *store, store_extra_task_t *tasks, size_t n, int64_t ttl_ms);

/* Marks the active tasks among ids done (one statement) and returns the
 * pair ranges of those tasks that have no stored pair (heap array, free()),
 * ordered by run and pair number. */
int store_extra_tasks_finish(store_t *store, const int64_t *ids, size_t n,
                             store_range_t **ranges_p, size_t *n_out);

/* Which of the contributor ids are revoked: *revoked_p gets a heap array
 * (free()) of those ids. */
int store_extra_revoked(store_t *store, const int64_t *ids, size_t n, int64_t **revoked_p,
                        size_t *n_out);

/* A run's non-excluded pairs per worker by score (0..4 quarter points),
 * for the outlier test (coordinator/verify_outlier.h): heap array, free(). */
typedef struct {
    char worker_id[STORE_ID_MAX];
    int64_t penta[5];
} store_extra_penta_t;
int store_extra_worker_penta(store_t *store, int64_t run_id, store_extra_penta_t **rows_p,
                             size_t *n_out);

/* A run's pairs by worker and imbalance, for the per-worker breakdown
 * (coordinator/runworkers.h). Pairs stored without a worker are left out. */
typedef struct {
    char worker_id[STORE_ID_MAX];
    char imbalance[STORE_TEXT_MAX];     /* "" in runs without imbalances */
    char contributor[STORE_TEXT_MAX];   /* the worker's owner */
    bool flagged;                       /* the worker is flagged */
    int64_t penta[5];                   /* non-excluded pairs by B's score */
    int64_t wins, draws, losses;        /* their games, from B's side */
    int64_t excluded;                   /* excluded pairs */
} store_extra_worker_row_t;
/* Heap array ordered by worker, then imbalance; free(). */
int store_extra_run_worker_rows(store_t *store, int64_t run_id,
                                store_extra_worker_row_t **rows_p, size_t *n_out);

/* A transaction around several single-statement store calls (e.g. the
 * store_worker_upsert of every HELLO of a turn), so that they share one
 * commit. After a failed call inside it, roll back and redo the calls one by
 * one. */
int store_extra_begin(store_t *store);
/* BEGIN with synchronous_commit off: the commit returns before the WAL is
 * flushed (a crash may lose this transaction, never corrupts). */
int store_extra_begin_async(store_t *store);
int store_extra_commit(store_t *store);
void store_extra_rollback(store_t *store);

#endif
