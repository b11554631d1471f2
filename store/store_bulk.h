/* store_bulk.h - set-at-a-time store operations: one statement for many
 * rows, so that everything the coordinator's loop gathered in one turn
 * shares one commit (a commit costs a disk flush: several ms). Same
 * conventions as store.h.
 */
#ifndef CAPA_STORE_BULK_H
#define CAPA_STORE_BULK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct {
    int64_t run_id;
    const char *worker_id;      /* borrowed */
    int64_t first, last;
    int64_t task_id;            /* out: the new task, 0 if refused */
} store_bulk_task_t;

/* Creates active tasks for all entries in one statement (one commit), each
 * expiring ttl_ms from now (database clock). An entry whose run is not
 * pending/running, whose range reaches pairs_planned or whose worker does
 * not exist is refused (task_id 0); the others get their id. */
int store_bulk_tasks_create(store_t *store, store_bulk_task_t *tasks, size_t n, int64_t ttl_ms);

/* Marks the active tasks among ids done (one statement) and returns the
 * pair ranges of those tasks that have no stored pair (heap array, free()),
 * ordered by run and pair number. */
int store_bulk_tasks_finish(store_t *store, const int64_t *ids, size_t n,
                            store_range_t **ranges_p, size_t *n_out);

/* Sets last_seen = now() for the workers ids[0..n) (one statement, one
 * commit that does not wait for the disk flush: a lost update only makes a
 * worker look silent a little longer). Ids unknown to the table are skipped. */
int store_bulk_workers_seen(store_t *store, const char *const *ids, size_t n);

/* Which of the contributor ids are revoked: *revoked_p gets a heap array
 * (free()) of those ids. */
int store_bulk_revoked(store_t *store, const int64_t *ids, size_t n, int64_t **revoked_p,
                       size_t *n_out);

#endif
