/* runworkers.h - a run's per-worker breakdown (after fishtest's table of the
 * workers of a test): each worker's pairs, pentanomial counts, W/D/L from
 * B's side and score, and a chi-squared test of its pair scores against the
 * rest of the run (verify_outlier.h), so that a bad machine stands out.
 *
 * The test depends on which pairs are alike:
 *   RUNWORKERS_POOLED        sprt: every pair plays the same two sets from
 *                            random starts. One 2 x 5 table per worker: the
 *                            coordinator's own outlier test (coord_outlier.c).
 *   RUNWORKERS_BY_IMBALANCE  values: pairs of one imbalance are alike, pairs
 *                            of different imbalances are not, and a worker's
 *                            pair ranges need not hold the run's mix of
 *                            imbalances. One table per imbalance; the
 *                            statistics and degrees of freedom are summed.
 *   RUNWORKERS_NONE          spsa: theta moves, early and late pairs differ.
 * A worker is tested in a table where it and the rest have at least
 * min_pairs pairs. The most extreme worker with p < p_max is an outlier: it
 * keeps those figures and is set aside, and the others are tested again
 * without it (verify_outliers' rule), until none is left.
 *
 *   store_worker_row_t *in; size_t n;
 *   store_run_worker_rows(store, run_id, &in, &n);
 *   runworkers_t *w; size_t nw;
 *   runworkers_build(in, n, RUNWORKERS_POOLED, VERIFY_OUTLIER_MIN_PAIRS, 1e-6, &w, &nw);
 *   ... w[0] has the most pairs ...
 *   free(w); free(in);
 */
#ifndef CAPA_RUNWORKERS_H
#define CAPA_RUNWORKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "store_byworker.h"

typedef enum {
    RUNWORKERS_NONE = 0,
    RUNWORKERS_POOLED = 1,
    RUNWORKERS_BY_IMBALANCE = 2
} runworkers_test_t;

typedef struct {
    char worker_id[STORE_ID_MAX];
    char contributor[STORE_TEXT_MAX];
    bool flagged;               /* flagged in the store (failed replay or outlier test) */
    int64_t pairs;              /* non-excluded pairs */
    int64_t excluded;           /* excluded pairs */
    int64_t penta[5];           /* non-excluded pairs by B's score in quarter points */
    int64_t wins, draws, losses;   /* their games, from B's side */
    double score;               /* B's share of the points; NAN without pairs */
    bool tested;                /* chi2, df and p hold (else 0, 0, 1) */
    double chi2;
    int df;
    double p;                   /* upper tail probability of chi2 */
    bool outlier;               /* p < p_max, set aside */
} runworkers_t;

/* The test a run of this kind gets. */
runworkers_test_t runworkers_test_of(proto_kind_t kind);
/* "none", "pooled", "by_imbalance". */
const char *runworkers_test_name(runworkers_test_t test);

/* One entry per worker among rows (any order; a worker may have one row per
 * imbalance), sorted by pairs, most first, then by worker id. *out_p is a heap
 * array (free()), NULL when n_rows is 0. 0 or CAPA_ENOMEM. */
int runworkers_build(const store_worker_row_t *rows, size_t n_rows, runworkers_test_t test,
                     int64_t min_pairs, double p_max, runworkers_t **out_p, size_t *n_out);

#endif
