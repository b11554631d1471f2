/* coordinator/verify_outlier.c: chi-squared tail and the per-worker test. */
#include <string.h>
#include <math.h>
#include <stdio.h>

#include "stats_chi2.h"
#include "check.h"
#include "stats_rng.h"
#include "verify_outlier.h"

static void the_chi_squared_tail_matches_known_quantiles(void)
{
    /* Table values: P(X >= q) for df 1, 2, 4, 10. */
    CHECK_NEAR(stats_chi2_upper(3.841458820694124, 1), 0.05, 1e-9);
    CHECK_NEAR(stats_chi2_upper(5.991464547107979, 2), 0.05, 1e-9);
    CHECK_NEAR(stats_chi2_upper(9.487729036781154, 4), 0.05, 1e-9);
    CHECK_NEAR(stats_chi2_upper(13.276704135987622, 4), 0.01, 1e-9);
    CHECK_NEAR(stats_chi2_upper(2.0, 2), exp(-1.0), 1e-12);   /* df 2: e^(-x/2) */
    CHECK_NEAR(stats_chi2_upper(18.307038053275146, 10), 0.05, 1e-9);
    CHECK_NEAR(stats_chi2_upper(0.0, 4), 1.0, 0);
    CHECK(stats_chi2_upper(200.0, 4) < 1e-40);
    CHECK(stats_chi2_upper(200.0, 4) > 0);
}

/* Draws n pairs from shares into penta. */
static void s_draw(stats_rng_t *rng, const double shares[5], int n, int64_t penta[5])
{
    memset(penta, 0, 5 * sizeof *penta);
    for (int i = 0; i < n; i++)
        penta[stats_rng_pick(rng, shares, 5)]++;
}

static void honest_workers_pass_and_a_worker_reporting_only_wins_is_an_outlier(void)
{
    static const double shares[5] = { 0.05, 0.2, 0.5, 0.2, 0.05 };
    stats_rng_t rng;
    stats_rng_seed(&rng, 42);
    verify_outlier_t w[6];
    memset(w, 0, sizeof w);
    for (int i = 0; i < 5; i++) {
        snprintf(w[i].worker_id, sizeof w[i].worker_id, "honest%d", i);
        s_draw(&rng, shares, 200, w[i].penta);
    }
    snprintf(w[5].worker_id, sizeof w[5].worker_id, "liar");
    w[5].penta[4] = 40;
    CHECK_EQ_INT(verify_outliers(w, 6, 30, 1e-6), 1);
    CHECK(w[5].outlier);
    CHECK_EQ_STR(w[5].worker_id, "liar");
    CHECK(w[5].p < 1e-20);
    for (int i = 0; i < 5; i++) {
        CHECK_MSG(!w[i].outlier, "%s p %g", w[i].worker_id, w[i].p);
        CHECK(w[i].p > 1e-4);
        CHECK_EQ_INT(w[i].df, 4);
    }
    /* Below min_pairs nobody is tested. */
    w[5].penta[4] = 10;
    CHECK_EQ_INT(verify_outliers(w, 6, 30, 1e-6), 0);
    CHECK_EQ_INT(w[5].df, 0);
    CHECK_NEAR(w[5].p, 1.0, 0);
}

/* With only two honest workers, a liar makes each of them unlike "the
 * others" too; only the liar is an outlier. */
static void one_liar_among_two_honest_workers_is_the_only_outlier(void)
{
    static const double shares[5] = { 0.05, 0.2, 0.5, 0.2, 0.05 };
    stats_rng_t rng;
    stats_rng_seed(&rng, 5);
    verify_outlier_t w[3];
    memset(w, 0, sizeof w);
    s_draw(&rng, shares, 60, w[0].penta);
    s_draw(&rng, shares, 60, w[1].penta);
    w[2].penta[4] = 40;
    CHECK_EQ_INT(verify_outliers(w, 3, 30, 1e-6), 1);
    CHECK(w[2].outlier && !w[0].outlier && !w[1].outlier);
    CHECK(w[0].p > 1e-4 && w[1].p > 1e-4);
}

/* The fault suite's early moments: two honest workers whose pairs all
 * scored the same, and a liar. While the liar has a few pairs it is no
 * yardstick for the others; while only it and one honest worker can be
 * tested, the two are mirror images and neither is singled out; with the
 * second honest worker in, only the liar is. */
static void a_newcomer_or_a_lone_pair_of_workers_flags_nobody(void)
{
    verify_outlier_t w[3];
    memset(w, 0, sizeof w);
    w[0].penta[2] = 46;
    w[1].penta[2] = 20;
    w[2].penta[4] = 12;
    CHECK_EQ_INT(verify_outliers(w, 3, 30, 1e-6), 0);
    CHECK_EQ_INT(w[2].df, 0);
    w[2].penta[4] = 63;
    CHECK_EQ_INT(verify_outliers(w, 3, 30, 1e-6), 0);
    CHECK(w[0].p < 1e-6 && w[2].p < 1e-6);   /* figures given, no verdict */
    w[1].penta[2] = 42;
    CHECK_EQ_INT(verify_outliers(w, 3, 30, 1e-6), 1);
    CHECK(w[2].outlier && !w[0].outlier && !w[1].outlier);
}

/* Many honest runs: the false alarm rate at p < 0.01 is near 1 %. */
static void the_false_alarm_rate_follows_the_threshold(void)
{
    static const double shares[5] = { 0.1, 0.2, 0.4, 0.2, 0.1 };
    stats_rng_t rng;
    stats_rng_seed(&rng, 7);
    int tested = 0, alarms = 0;
    for (int r = 0; r < 400; r++) {
        verify_outlier_t w[4];
        memset(w, 0, sizeof w);
        for (int i = 0; i < 4; i++)
            s_draw(&rng, shares, 300, w[i].penta);
        alarms += verify_outliers(w, 4, 30, 0.01);
        tested += 4;
    }
    CHECK_NEAR((double) alarms / tested, 0.01, 0.008);
}

static const check_case_t CASES[] = {
    CASE(the_chi_squared_tail_matches_known_quantiles),
    CASE(honest_workers_pass_and_a_worker_reporting_only_wins_is_an_outlier),
    CASE(one_liar_among_two_honest_workers_is_the_only_outlier),
    CASE(a_newcomer_or_a_lone_pair_of_workers_flags_nobody),
    CASE(the_false_alarm_rate_follows_the_threshold),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
