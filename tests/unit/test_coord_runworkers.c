/* coordinator/runworkers.c: a run's per-worker breakdown and its outlier
 * test, pooled (sprt) and by imbalance (values). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runworkers.h"
#include "stats_rng.h"
#include "verify_outlier.h"

/* Draws n pairs from shares into penta. */
static void s_draw(stats_rng_t *rng, const double shares[5], int n, int64_t penta[5])
{
    memset(penta, 0, 5 * sizeof *penta);
    for (int i = 0; i < n; i++)
        penta[stats_rng_pick(rng, shares, 5)]++;
}

static void s_row(store_worker_row_t *r, const char *worker, const char *imbalance,
                  const int64_t penta[5])
{
    memset(r, 0, sizeof *r);
    snprintf(r->worker_id, sizeof r->worker_id, "%.63s", worker);
    snprintf(r->imbalance, sizeof r->imbalance, "%.127s", imbalance);
    memcpy(r->penta, penta, sizeof r->penta);
}

static const runworkers_t *s_find(const runworkers_t *w, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w[i].worker_id, id) == 0)
            return &w[i];
    return NULL;
}

static void pooled_figures_are_the_coordinators_outlier_test(void)
{
    static const double shares[5] = { 0.05, 0.2, 0.5, 0.2, 0.05 };
    stats_rng_t rng;
    stats_rng_seed(&rng, 11);
    verify_outlier_t v[5];
    store_worker_row_t rows[5];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 5; i++) {
        snprintf(v[i].worker_id, sizeof v[i].worker_id, "w%d", i);
        if (i < 3)
            s_draw(&rng, shares, 60 + 40 * i, v[i].penta);
    }
    v[3].penta[4] = 45;                        /* only wins */
    v[4].penta[3] = v[4].penta[4] = 20;        /* a milder liar */
    for (int i = 0; i < 5; i++)
        s_row(&rows[i], v[i].worker_id, "", v[i].penta);
    int k = verify_outliers(v, 5, VERIFY_OUTLIER_MIN_PAIRS, 1e-6);
    CHECK(k >= 1);
    runworkers_t *w = NULL;
    size_t n = 0;
    CHECK(runworkers_build(rows, 5, RUNWORKERS_POOLED, VERIFY_OUTLIER_MIN_PAIRS, 1e-6, &w,
                           &n) == 0);
    CHECK_EQ_INT(n, 5);
    int outliers = 0;
    for (int i = 0; i < 5; i++) {
        const runworkers_t *x = s_find(w, n, v[i].worker_id);
        CHECK(x != NULL);
        CHECK(x->tested == (v[i].df > 0));
        CHECK_EQ_INT(x->df, v[i].df);
        CHECK_NEAR(x->chi2, v[i].chi2, 1e-9 * (1 + v[i].chi2));
        CHECK_NEAR(x->p, v[i].p, 1e-12 + 1e-9 * v[i].p);
        CHECK(x->outlier == v[i].outlier);
        outliers += x->outlier;
    }
    CHECK_EQ_INT(outliers, k);
    CHECK(s_find(w, n, "w3")->outlier);
    free(w);
}

/* Two imbalances that score very differently: honest workers that played
 * them in different proportions look alike only within each imbalance. */
static void values_runs_are_tested_within_each_imbalance(void)
{
    static const double even[5] = { 0.1, 0.2, 0.4, 0.2, 0.1 };
    static const double lopsided[5] = { 0.01, 0.04, 0.15, 0.3, 0.5 };
    static const int mix[3][2] = { { 300, 40 }, { 40, 300 }, { 150, 150 } };
    stats_rng_t rng;
    stats_rng_seed(&rng, 3);
    store_worker_row_t rows[8];
    size_t nr = 0;
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "honest%d", i);
        int64_t p[5];
        s_draw(&rng, even, mix[i][0], p);
        s_row(&rows[nr++], id, "A vs C", p);
        s_draw(&rng, lopsided, mix[i][1], p);
        s_row(&rows[nr++], id, "Q vs R", p);
    }
    runworkers_t *w = NULL;
    size_t n = 0;
    /* Pooled, the mix alone makes honest workers outliers. */
    CHECK(runworkers_build(rows, nr, RUNWORKERS_POOLED, 30, 1e-6, &w, &n) == 0);
    CHECK(s_find(w, n, "honest0")->outlier || s_find(w, n, "honest1")->outlier);
    free(w);
    CHECK(runworkers_build(rows, nr, RUNWORKERS_BY_IMBALANCE, 30, 1e-6, &w, &n) == 0);
    CHECK_EQ_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(!w[i].outlier && w[i].p > 1e-4, "%s p %g", w[i].worker_id, w[i].p);
        CHECK_EQ_INT(w[i].df, 8);   /* two tables of 5 scores */
    }
    free(w);
    /* A worker whose B wins every pair of the even imbalance and plays the
     * other one honestly is an outlier; with 20 pairs of the other
     * imbalance it is tested on the first table only. */
    int64_t wins[5] = { 0, 0, 0, 0, 60 }, some[5];
    s_draw(&rng, lopsided, 20, some);
    s_row(&rows[nr++], "liar", "A vs C", wins);
    s_row(&rows[nr++], "liar", "Q vs R", some);
    CHECK(runworkers_build(rows, nr, RUNWORKERS_BY_IMBALANCE, 30, 1e-6, &w, &n) == 0);
    CHECK_EQ_INT(n, 4);
    const runworkers_t *liar = s_find(w, n, "liar");
    CHECK(liar->outlier && liar->p < 1e-12);
    CHECK_EQ_INT(liar->df, 4);
    CHECK_EQ_INT(liar->pairs, 80);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(w[i].outlier == (&w[i] == liar), "%s p %g", w[i].worker_id, w[i].p);
    free(w);
}

static void a_workers_rows_are_summed_and_workers_sorted_by_pairs(void)
{
    store_worker_row_t rows[4];
    s_row(&rows[0], "b", "x", (const int64_t[5]) { 1, 2, 3, 4, 5 });
    s_row(&rows[1], "a", "x", (const int64_t[5]) { 0, 0, 2, 0, 0 });
    s_row(&rows[2], "b", "y", (const int64_t[5]) { 5, 0, 0, 0, 0 });
    s_row(&rows[3], "c", "x", (const int64_t[5]) { 0, 0, 0, 0, 0 });
    rows[0].wins = 14;
    rows[0].draws = 8;
    rows[0].losses = 8;
    rows[2].losses = 10;
    rows[2].excluded = 7;
    rows[3].excluded = 3;
    rows[3].flagged = true;
    snprintf(rows[3].contributor, sizeof rows[3].contributor, "mallory");
    runworkers_t *w = NULL;
    size_t n = 0;
    CHECK(runworkers_build(rows, 4, RUNWORKERS_NONE, 30, 1e-6, &w, &n) == 0);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_STR(w[0].worker_id, "b");
    CHECK_EQ_STR(w[1].worker_id, "a");
    CHECK_EQ_STR(w[2].worker_id, "c");
    CHECK_EQ_INT(w[0].pairs, 20);
    CHECK_EQ_INT(w[0].penta[0], 6);
    CHECK_EQ_INT(w[0].losses, 18);
    CHECK_EQ_INT(w[0].wins, 14);
    CHECK_EQ_INT(w[0].excluded, 7);
    CHECK_NEAR(w[0].score, (2 + 6 + 12 + 20) / 80.0, 1e-15);
    CHECK_NEAR(w[1].score, 0.5, 0);
    CHECK(isnan(w[2].score) && w[2].flagged && w[2].excluded == 3);
    CHECK_EQ_STR(w[2].contributor, "mallory");
    for (size_t i = 0; i < n; i++)
        CHECK(!w[i].tested && !w[i].outlier && w[i].df == 0 && w[i].p == 1.0);
    free(w);
    /* Too few pairs: not tested either way. */
    CHECK(runworkers_build(rows, 4, RUNWORKERS_POOLED, 30, 1e-6, &w, &n) == 0);
    for (size_t i = 0; i < n; i++)
        CHECK(!w[i].tested);
    free(w);
    CHECK(runworkers_build(rows, 0, RUNWORKERS_POOLED, 30, 1e-6, &w, &n) == 0);
    CHECK(w == NULL && n == 0);
    CHECK_EQ_STR(runworkers_test_name(runworkers_test_of(PROTO_KIND_VALUES)), "by_imbalance");
    CHECK_EQ_STR(runworkers_test_name(runworkers_test_of(PROTO_KIND_SPRT)), "pooled");
    CHECK_EQ_STR(runworkers_test_name(runworkers_test_of(PROTO_KIND_SPSA)), "none");
}

static const check_case_t CASES[] = {
    CASE(pooled_figures_are_the_coordinators_outlier_test),
    CASE(values_runs_are_tested_within_each_imbalance),
    CASE(a_workers_rows_are_summed_and_workers_sorted_by_pairs),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
