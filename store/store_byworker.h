/* store_byworker.h - a run's pairs counted per worker: the input of the
 * outlier test and of the per-worker breakdown. Same conventions as store.h.
 */
#ifndef CAPA_STORE_BYWORKER_H
#define CAPA_STORE_BYWORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* A run's non-excluded pairs per worker by score (0..4 quarter points),
 * for the outlier test (coordinator/verify_outlier.h): heap array, free(). */
typedef struct {
    char worker_id[STORE_ID_MAX];
    int64_t penta[5];
} store_worker_penta_t;
int store_run_worker_penta(store_t *store, int64_t run_id, store_worker_penta_t **rows_p,
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
} store_worker_row_t;
/* Heap array ordered by worker, then imbalance; free(). */
int store_run_worker_rows(store_t *store, int64_t run_id, store_worker_row_t **rows_p,
                          size_t *n_out);

#endif
