/* verify_outlier.h - the per-worker outlier test on results (after
 * fishtest's check of each worker against the run): a chi-squared test of
 * one worker's pentanomial counts (pair scores 0..4 quarter points) against
 * the shares of the same run's other workers. A worker reporting fabricated
 * or broken results stands out long before a replay samples it.
 *
 * Only for runs whose pairs are exchangeable (sprt: every pair plays the
 * same two sets from random starts). A values run mixes imbalances whose
 * pairs score very differently, and workers get contiguous pair ranges, so
 * it would flag honest workers.
 *
 *   verify_outlier_t w[n] = { {"w1", {p0..p4}}, ... };
 *   int k = verify_outliers(w, n, 30, 1e-6);    w[i].chi2, .p, .outlier set
 *   store_run_worker_penta(store, run_id, &rows, &n)   the counts
 */
#ifndef CAPA_VERIFY_OUTLIER_H
#define CAPA_VERIFY_OUTLIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

/* Pairs a worker, and the rest of its run, need before it is tested: the
 * coordinator's outlier check (coord_outlier.c) and the per-worker breakdown
 * of the HTTP API (runworkers.h) both use it. */
#define VERIFY_OUTLIER_MIN_PAIRS 30

typedef struct {
    char worker_id[PROTO_ID_MAX];
    int64_t penta[5];         /* in: the worker's non-excluded pairs by score */
    double chi2;              /* out: 0 when not tested */
    int df;                   /* out: degrees of freedom (<= 4), 0 when not tested */
    double p;                 /* out: upper tail probability, 1 when not tested */
    bool outlier;             /* out: p < p_max */
} verify_outlier_t;

/* Tests every worker with at least min_pairs pairs against the other such
 * workers (at least min_pairs pairs among them; workers with fewer pairs
 * are neither tested nor part of the reference): chi-squared of the 2 x 5
 * table (the worker, the others) x score, scores nobody had left out (df =
 * used bins - 1). The most extreme outlier is set aside and the others
 * tested again without it (one liar would otherwise make the honest workers
 * look unlike "the others" too), until no p < p_max is left or fewer than
 * three workers are: two that differ are mirror images, neither is singled
 * out. Returns how many are outliers, or CAPA_ENOMEM. An outlier keeps the figures of the pass that
 * set it aside. */
int verify_outliers(verify_outlier_t *w, size_t n, int64_t min_pairs, double p_max);

#endif
