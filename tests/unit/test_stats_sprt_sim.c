/* Simulation tests of the SPRT: many complete tests on synthetic pairs
 * with a known truth check the error rates against alpha and beta, and the
 * bias of the estimates reported after a stop. Seeded, so deterministic;
 * sized to run in a few seconds. */
#include <math.h>

#include "check.h"
#include "err.h"
#include "stats_dist.h"
#include "stats_elo.h"
#include "stats_rng.h"
#include "stats_sprt.h"

/* Pentanomial pair distribution with the given true value in the test's
 * unit: a 50%-draw game model tilted to the value. */
static void s_truth(const stats_sprt_params_t *p, double elo, stats_dist_t *truth)
{
    stats_dist_t shape;
    stats_dist_from_draw_model(0.0, 0.5, 1, &shape);
    if (p->model == STATS_MODEL_LOGISTIC)
        stats_dist_fit_mean(&shape, stats_score_from_elo(elo), truth);
    else
        stats_dist_fit_t(&shape, 0.5, elo / STATS_NELO_PER_T * M_SQRT2, truth);
}

/* One SPRT, the LLR looked at every `batch` pairs (as a coordinator does
 * when results arrive in batches). Fills the final report. */
static stats_verdict_t s_play(const stats_sprt_params_t *p, const stats_dist_t *truth, int batch,
                              stats_rng_t *rng, stats_sprt_report_t *r)
{
    stats_counts_t c = { { 0 }, 0, 0, 0 };
    double lo, hi, llr = 0.0;
    char err[200];
    stats_sprt_bounds(p->alpha, p->beta, &lo, &hi);
    for (int64_t n = 1; n <= 10000000; n++) {
        c.penta[stats_rng_pick(rng, truth->p, 5)]++;
        if (n % batch)
            continue;
        if (stats_sprt_llr(p, &c, &llr, err, sizeof err))
            return STATS_SPRT_CONTINUE;
        if (llr >= hi || llr <= lo)
            break;
    }
    if (r && stats_sprt_report(p, &c, r, err, sizeof err))
        return STATS_SPRT_CONTINUE;
    return llr >= hi ? STATS_SPRT_ACCEPT_H1 : llr <= lo ? STATS_SPRT_ACCEPT_H0 : STATS_SPRT_CONTINUE;
}

/* Runs `runs` tests at the truth; returns the share that passed. */
static double s_pass_rate(const stats_sprt_params_t *p, double elo, int runs, int batch, uint64_t seed)
{
    stats_dist_t truth;
    s_truth(p, elo, &truth);
    stats_rng_t rng;
    stats_rng_seed(&rng, seed);
    int pass = 0;
    for (int i = 0; i < runs; i++) {
        stats_verdict_t v = s_play(p, &truth, batch, &rng, NULL);
        CHECK(v != STATS_SPRT_CONTINUE);
        pass += v == STATS_SPRT_ACCEPT_H1;
    }
    return (double) pass / runs;
}

static void normalized_sprt_keeps_its_error_rates(void)
{
    /* nElo [0, 10], alpha 0.05, beta 0.10; 1000 tests at each hypothesis
     * give a standard error of 0.007 on alpha and 0.009 on beta. A GSPRT
     * looked at in batches overshoots the bounds, which can only lower the
     * error rates, so the lower limits are looser than the upper ones. */
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.elo1 = 10.0;
    p.beta = 0.10;
    double a = s_pass_rate(&p, p.elo0, 1000, 4, 101);
    double b = 1.0 - s_pass_rate(&p, p.elo1, 1000, 4, 202);
    printf("  nElo: alpha %.3f (0.05), beta %.3f (0.10)\n", a, b);
    CHECK_MSG(a >= 0.025 && a <= 0.071, "alpha observed %.3f", a);
    CHECK_MSG(b >= 0.060 && b <= 0.129, "beta observed %.3f", b);
}

static void logistic_sprt_keeps_its_error_rates(void)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.model = STATS_MODEL_LOGISTIC;
    p.elo0 = -2.0;
    p.elo1 = 6.0;
    p.alpha = 0.10;
    p.beta = 0.05;
    double a = s_pass_rate(&p, p.elo0, 1000, 4, 303);
    double b = 1.0 - s_pass_rate(&p, p.elo1, 1000, 4, 404);
    printf("  Elo: alpha %.3f (0.10), beta %.3f (0.05)\n", a, b);
    CHECK_MSG(a >= 0.060 && a <= 0.129, "alpha observed %.3f", a);
    CHECK_MSG(b >= 0.025 && b <= 0.071, "beta observed %.3f", b);
}

static void stopped_tests_get_a_less_biased_estimate(void)
{
    /* The MLE after a sequential stop is biased: tests that pass early are
     * the lucky ones, tests that fail early the unlucky ones. Over many
     * stopped tests at a known truth the median-unbiased estimate must lie
     * below the truth about half of the time (the plain MLE clearly not),
     * its mean bias must be clearly smaller than the MLE's (by more than
     * three standard errors of the paired difference and by 40% at least),
     * and its 95% interval must cover the truth. Whitehead's bias-adjusted
     * estimate must at least halve the MLE's mean bias. */
    const struct {
        stats_elo_model_t model;
        double truth;
        uint64_t seed;
    } cases[2] = { { STATS_MODEL_NORMALIZED, 10.0, 505 }, { STATS_MODEL_LOGISTIC, 2.0, 606 } };
    for (int t = 0; t < 2; t++) {
        stats_sprt_params_t p;
        stats_sprt_params_default(&p);
        p.model = cases[t].model;
        p.elo1 = 10.0;
        double truth_elo = cases[t].truth;
        stats_dist_t truth;
        s_truth(&p, truth_elo, &truth);
        stats_rng_t rng;
        stats_rng_seed(&rng, cases[t].seed);
        int runs = 300, cover = 0, below = 0, plain_below = 0;
        double plain = 0.0, seq = 0.0, diff2 = 0.0, adj = 0.0;
        for (int i = 0; i < runs; i++) {
            stats_sprt_report_t r;
            CHECK(s_play(&p, &truth, 1, &rng, &r) != STATS_SPRT_CONTINUE);
            plain += r.plain_elo - truth_elo;
            seq += r.seq_elo - truth_elo;
            adj += r.mean_elo - truth_elo;
            diff2 += (r.plain_elo - r.seq_elo) * (r.plain_elo - r.seq_elo);
            below += r.seq_elo < truth_elo;
            plain_below += r.plain_elo < truth_elo;
            cover += r.seq_elo_lo <= truth_elo && truth_elo <= r.seq_elo_hi;
        }
        plain /= runs, seq /= runs, adj /= runs;
        double gap = plain - seq, se_gap = sqrt((diff2 / runs - gap * gap) / runs);
        double half = (double) below / runs, plain_half = (double) plain_below / runs;
        printf("  %s, truth %.0f: mean bias MLE %+.3f, median-unbiased %+.3f (se of gap %.3f), "
               "bias-adjusted %+.3f; below truth %.3f vs MLE %.3f; coverage %.3f\n",
               stats_model_name(p.model), truth_elo, plain, seq, se_gap, adj, half, plain_half,
               (double) cover / runs);
        CHECK_MSG(fabs(half - 0.5) < 0.075, "median-unbiased below truth in %.3f", half);
        CHECK_MSG(fabs(plain_half - 0.5) > 0.1, "the MLE is median-unbiased here (%.3f)", plain_half);
        CHECK_MSG(fabs(seq) < 0.6 * fabs(plain), "bias %.3f vs MLE %.3f", seq, plain);
        CHECK_MSG(fabs(plain) - fabs(seq) > 3.0 * se_gap, "gap %.3f, se %.3f", fabs(plain) - fabs(seq), se_gap);
        CHECK_MSG((double) cover / runs > 0.91, "coverage %.3f", (double) cover / runs);
        /* Whitehead's adjustment aims at the mean itself */
        CHECK_MSG(fabs(adj) < 0.5 * fabs(plain), "adjusted bias %.3f vs MLE %.3f", adj, plain);
    }
}

static const check_case_t CASES[] = {
    CASE(normalized_sprt_keeps_its_error_rates),
    CASE(logistic_sprt_keeps_its_error_rates),
    CASE(stopped_tests_get_a_less_biased_estimate),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
