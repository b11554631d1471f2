/* runworkers.c - a run's per-worker breakdown and outlier test (see
 * runworkers.h). */
#include "runworkers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "stats_chi2.h"
#include "verify_outlier.h"

runworkers_test_t runworkers_test_of(proto_kind_t kind)
{
    switch (kind) {
    case PROTO_KIND_SPRT:
        return RUNWORKERS_POOLED;
    case PROTO_KIND_VALUES:
        return RUNWORKERS_BY_IMBALANCE;
    default:
        return RUNWORKERS_NONE;
    }
}

const char *runworkers_test_name(runworkers_test_t test)
{
    switch (test) {
    case RUNWORKERS_POOLED:
        return "pooled";
    case RUNWORKERS_BY_IMBALANCE:
        return "by_imbalance";
    default:
        return "none";
    }
}

static int s_by_pairs(const void *a, const void *b)
{
    const runworkers_t *x = a, *y = b;
    if (x->pairs != y->pairs)
        return x->pairs > y->pairs ? -1 : 1;
    return strcmp(x->worker_id, y->worker_id);
}

/* Index of the worker among out[0..n), adding it if new. Rows usually come
 * grouped by worker: the last one is tried first. */
static size_t s_worker(runworkers_t *out, size_t *n, const store_worker_row_t *r)
{
    if (*n > 0 && strcmp(out[*n - 1].worker_id, r->worker_id) == 0)
        return *n - 1;
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i].worker_id, r->worker_id) == 0)
            return i;
    runworkers_t *w = &out[(*n)++];
    snprintf(w->worker_id, sizeof w->worker_id, "%s", r->worker_id);
    snprintf(w->contributor, sizeof w->contributor, "%s", r->contributor);
    w->flagged = r->flagged;
    return *n - 1;
}

/* The chi-squared test over the tables tab[s * nw .. s * nw + nw) (one per
 * stratum, worker i at index i); sets tested, chi2, df, p and outlier. */
static int s_test(verify_outlier_t *tab, size_t strata, runworkers_t *out, size_t nw,
                  int64_t min_pairs, double p_max)
{
    bool *removed = calloc(nw, sizeof *removed);
    if (!removed)
        return CAPA_ENOMEM;
    for (;;) {
        /* One pass per table (p_max 0: verify_outliers sets nobody aside;
         * that is decided below on the summed figures). */
        for (size_t s = 0; s < strata; s++)
            if (verify_outliers(&tab[s * nw], nw, min_pairs, 0.0) < 0) {
                free(removed);
                return CAPA_ENOMEM;
            }
        long worst = -1;
        size_t tested = 0;
        for (size_t i = 0; i < nw; i++) {
            if (removed[i])
                continue;
            runworkers_t *w = &out[i];
            w->chi2 = 0;
            w->df = 0;
            for (size_t s = 0; s < strata; s++)
                if (tab[s * nw + i].df > 0) {
                    w->chi2 += tab[s * nw + i].chi2;
                    w->df += tab[s * nw + i].df;
                }
            w->tested = w->df > 0;
            tested += w->tested;
            w->p = w->tested ? stats_chi2_upper(w->chi2, w->df) : 1.0;
            if (w->tested && w->p < p_max && (worst < 0 || w->p < out[worst].p))
                worst = (long) i;
        }
        if (worst < 0 || tested < 3)   /* two are mirror images (verify_outlier.h) */
            break;
        /* Set aside: it keeps the figures of this pass and no longer counts
         * among the others. */
        out[worst].outlier = true;
        removed[worst] = true;
        for (size_t s = 0; s < strata; s++)
            memset(tab[s * nw + (size_t) worst].penta, 0, sizeof tab->penta);
    }
    free(removed);
    return 0;
}

int runworkers_build(const store_worker_row_t *rows, size_t n_rows, runworkers_test_t test,
                     int64_t min_pairs, double p_max, runworkers_t **out_p, size_t *n_out)
{
    *out_p = NULL;
    *n_out = 0;
    if (n_rows == 0)
        return 0;
    runworkers_t *out = calloc(n_rows, sizeof *out);
    size_t *worker_of = calloc(n_rows, sizeof *worker_of);
    size_t *stratum_of = calloc(n_rows, sizeof *stratum_of);
    const char **names = calloc(n_rows, sizeof *names);
    verify_outlier_t *tab = NULL;
    int rc = CAPA_ENOMEM;
    if (!out || !worker_of || !stratum_of || !names)
        goto out;
    /* Pooled: every row in stratum 0. */
    size_t nw = 0, strata = test == RUNWORKERS_BY_IMBALANCE ? 0 : 1;
    for (size_t k = 0; k < n_rows; k++) {
        const store_worker_row_t *r = &rows[k];
        runworkers_t *w = &out[worker_of[k] = s_worker(out, &nw, r)];
        for (int b = 0; b < 5; b++) {
            w->penta[b] += r->penta[b];
            w->pairs += r->penta[b];
        }
        w->wins += r->wins;
        w->draws += r->draws;
        w->losses += r->losses;
        w->excluded += r->excluded;
        if (test != RUNWORKERS_BY_IMBALANCE)
            continue;
        /* One stratum per imbalance: names[s] is the first row's label. */
        size_t s = 0;
        while (s < strata && strcmp(names[s], r->imbalance) != 0)
            s++;
        if (s == strata)
            names[strata++] = r->imbalance;
        stratum_of[k] = s;
    }
    for (size_t i = 0; i < nw; i++) {
        runworkers_t *w = &out[i];
        int64_t quarters = w->penta[1] + 2 * w->penta[2] + 3 * w->penta[3] + 4 * w->penta[4];
        w->score = w->pairs > 0 ? (double) quarters / (4.0 * (double) w->pairs) : NAN;
        w->p = 1.0;
    }
    if (test != RUNWORKERS_NONE) {
        tab = calloc(strata * nw, sizeof *tab);
        if (!tab)
            goto out;
        for (size_t s = 0; s < strata; s++)
            for (size_t i = 0; i < nw; i++)
                snprintf(tab[s * nw + i].worker_id, sizeof tab->worker_id, "%s",
                         out[i].worker_id);
        for (size_t k = 0; k < n_rows; k++)
            for (int b = 0; b < 5; b++)
                tab[stratum_of[k] * nw + worker_of[k]].penta[b] += rows[k].penta[b];
        if ((rc = s_test(tab, strata, out, nw, min_pairs, p_max)) < 0)
            goto out;
    }
    qsort(out, nw, sizeof *out, s_by_pairs);
    *out_p = out;
    *n_out = nw;
    out = NULL;
    rc = 0;
out:
    free(out);
    free(worker_of);
    free(stratum_of);
    free(names);
    free(tab);
    return rc;
}
