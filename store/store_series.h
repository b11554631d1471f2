/* store_series.h - study series (sql/004): an ordered list of values runs
 * made from one document, a node ladder or a self-consistent iteration
 * (coordinator/series.c). Same conventions as store.h.
 */
#ifndef CAPA_STORE_SERIES_H
#define CAPA_STORE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct {
    int64_t id;
    char kind[16];           /* "ladder" or "iterate" */
    char status[16];         /* "running", "finished" or "failed" */
    char *name;              /* heap */
    char *doc;               /* heap: the series document (JSON) */
    char *result;            /* heap or NULL: why it ended (JSON) */
    int steps_planned;
    int64_t submitted_by;    /* 0 = none */
    int64_t created_at_ms, finished_at_ms;
} store_series_t;

/* Frees the strings of one series and zeroes it; accepts NULL. */
void store_series_clear(store_series_t *s);
void store_series_list_free(store_series_t **list_p, size_t n);

/* In one statement: the series (reads kind, name, doc, steps_planned,
 * submitted_by) as running, its step 0 run (as store_run_insert) and their
 * link. */
int store_series_create(store_t *store, const store_series_t *s, const store_run_t *first,
                        int64_t *series_id, int64_t *run_id);
/* In one transaction: run as step `step` of a running series and the link.
 * CAPA_EDUP when the series has that step already (nothing inserted: made
 * once whoever tries), CAPA_ESTATE when the series is no longer running,
 * CAPA_ENOTFOUND when there is no such series. */
int store_series_add_step(store_t *store, int64_t series_id, int step, const store_run_t *run,
                          int64_t *run_id);
/* Ends a running series as "finished" or "failed" with result (JSON, may be
 * NULL). CAPA_ESTATE if it had ended already. */
int store_series_finish(store_t *store, int64_t id, const char *status, const char *result_json);

int store_series_get(store_t *store, int64_t id, store_series_t *out);
/* Newest first, at most limit (0 = 100); without documents. */
int store_series_list(store_t *store, size_t limit, store_series_t **list_p, size_t *n_out);

typedef struct {
    int step;
    int64_t run_id;
    store_run_status_t status;
} store_series_step_t;

/* The series' runs by step. Heap array, free(). */
int store_series_steps(store_t *store, int64_t id, store_series_step_t **steps_p, size_t *n_out);
/* The running series whose last run has finished or failed: the ones to
 * move on. Heap array of ids, free(). */
int store_series_due(store_t *store, int64_t **ids_p, size_t *n_out);
/* The series and step of a run; CAPA_ENOTFOUND if the run is in none. */
int store_series_of_run(store_t *store, int64_t run_id, int64_t *series_id, int *step);

#endif
