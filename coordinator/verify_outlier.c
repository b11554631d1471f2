/* verify_outlier.c - per-worker chi-squared outlier test (see verify_outlier.h). */
#include "verify_outlier.h"

#include <math.h>
#include <stdlib.h>

#include "err.h"
#include "stats_chi2.h"


/* One pass over the workers not yet removed; returns the index of the
 * smallest p below p_max, or -1. */
static long s_pass(verify_outlier_t *w, size_t n, const bool *removed, int64_t min_pairs,
                   double p_max)
{
    int64_t total[5] = { 0 };
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        left += !removed[i];
        for (int b = 0; b < 5 && !removed[i]; b++)
            total[b] += w[i].penta[b];
    }
    long worst = -1;
    for (size_t i = 0; i < n; i++) {
        if (removed[i])
            continue;
        verify_outlier_t *x = &w[i];
        x->chi2 = 0;
        x->df = 0;
        x->p = 1;
        int64_t mine = 0, rest = 0, other[5];
        for (int b = 0; b < 5; b++) {
            other[b] = total[b] - x->penta[b];
            mine += x->penta[b];
            rest += other[b];
        }
        if (mine < min_pairs || rest < min_pairs || mine == 0)
            continue;
        /* The 2 x 5 table (this worker, the others) x score: a test of
         * homogeneity, so the noise of the others' shares is accounted for. */
        double chi2 = 0, all = (double) (mine + rest);
        int bins = 0;
        for (int b = 0; b < 5; b++) {
            double col = (double) total[b];
            if (col == 0)
                continue;
            bins++;
            double e1 = (double) mine * col / all, e2 = (double) rest * col / all;
            double d1 = (double) x->penta[b] - e1, d2 = (double) other[b] - e2;
            chi2 += d1 * d1 / e1 + d2 * d2 / e2;
        }
        if (bins < 2)
            continue;
        x->chi2 = chi2;
        x->df = bins - 1;
        x->p = stats_chi2_upper(chi2, x->df);
        if (x->p < p_max && (worst < 0 || x->p < w[worst].p))
            worst = (long) i;
    }
    /* Two workers that differ are each other's mirror image (the same
     * table, the same p): the test cannot say which one is odd. */
    return left >= 3 ? worst : -1;
}

int verify_outliers(verify_outlier_t *w, size_t n, int64_t min_pairs, double p_max)
{
    /* One liar also makes every honest worker look unlike "the others"
     * (which include the liar): remove the most extreme outlier and test
     * the rest again, until none is left. */
    bool *removed = calloc(n ? n : 1, sizeof *removed);
    if (!removed)
        return CAPA_ENOMEM;
    /* Workers with fewer than min_pairs pairs are set aside from the start:
     * not tested, and no yardstick for the others either. Otherwise a liar's
     * first few lies make the honest workers "unlike the others" before the
     * liar has the pairs to be tested and set aside itself (seen in the
     * fault suite, where every honest pair had the same score). */
    for (size_t i = 0; i < n; i++) {
        int64_t mine = 0;
        for (int b = 0; b < 5; b++)
            mine += w[i].penta[b];
        removed[i] = mine < min_pairs;
        w[i].outlier = false;
        w[i].chi2 = 0;
        w[i].df = 0;
        w[i].p = 1;
    }
    int outliers = 0;
    for (;;) {
        long k = s_pass(w, n, removed, min_pairs, p_max);
        if (k < 0)
            break;
        removed[k] = true;
        w[k].outlier = true;
        outliers++;
    }
    free(removed);
    return outliers;
}
