/* store_values.h - the values runs with their stored estimates, for the
 * current best piece values (/api/values, /values, capa values). Same
 * conventions as store.h.
 */
#ifndef CAPA_STORE_VALUES_H
#define CAPA_STORE_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* One values run as the values page needs it: what it is (from its run
 * document), its stored estimate (the fit is the report's "values", kept
 * once per change of the run's data; nothing is fitted here) and the
 * engines that played its pairs. */
typedef struct {
    int64_t id;
    char *name;                    /* heap */
    store_run_status_t status;
    char variant[32];              /* the document's variant */
    int64_t nodes;                 /* per move; 0 = the time control below */
    int64_t tc_base_ms, tc_inc_ms; /* the run's clock (for the reference machine) */
    int64_t pairs_done, pairs_planned;
    int64_t created_at_ms, finished_at_ms;
    int64_t pairs_used;            /* pairs of the stored estimate; 0 without one */
    int64_t computed_at_ms;        /* when it was made; 0 without one */
    char *fit;                     /* heap or NULL: the estimate's fit (JSON object text) */
    char *error;                   /* heap or NULL: why the estimate has no fit */
    /* heap: a JSON array [{"bench", "version", "pairs"}], most pairs first:
     * the bench signature and engine version that the run's counted pairs
     * were played with (what their worker reported when it stored them,
     * sql/007; bench 0 and version "" for pairs stored without a worker);
     * "[]" without pairs */
    char *engines;
    bool params_changed;           /* its document sets params, params_side or
                                    * params_other: not the engine's own beliefs */
} store_values_run_t;

/* Every values run that is running, finished or stopped, or pending with a
 * stored estimate (a stopped run that was resumed; a pending run has
 * usually played nothing), newest first, at most limit (0 = 500); failed
 * runs are left out. Free with store_values_runs_free. */
int store_values_runs(store_t *store, size_t limit, store_values_run_t **runs_p, size_t *n_out);
void store_values_runs_free(store_values_run_t **runs_p, size_t n);

#endif
