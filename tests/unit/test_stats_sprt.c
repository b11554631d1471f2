/* Unit tests for the SPRT side of the statistics module: Elo scales, counts
 * and their consistency checks, the GSPRT LLR, estimates, the Brownian exit
 * probabilities, reports and the SPRT calculator.
 *
 * Reference values marked "(python)" were computed independently during
 * development by a small pure-Python script: constrained MLEs by Newton's
 * method on the full Lagrange system (probabilities, two multipliers) with a
 * numerical Jacobian -- neither the secular equation nor the fixed-point
 * iteration used in common/stats_dist.c -- and estimates straight from the
 * formulas with Python's statistics.NormalDist. Values marked "(finite
 * differences)" come from an explicit finite-difference solution of the
 * backward Kolmogorov equation (dx = 0.005), accurate to about 1e-3.
 * docs/methods.md lists the formulas.
 */
#include <math.h>

#include "check.h"
#include "err.h"
#include "stats_brownian.h"
#include "stats_counts.h"
#include "stats_dist.h"
#include "stats_elo.h"
#include "stats_rng.h"
#include "stats_sprt.h"

static stats_counts_t s_penta(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e)
{
    stats_counts_t k = { { a, b, c, d, e }, 0, 0, 0 };
    return k;
}

static void logistic_elo_of_three_quarters_is_190_85(void)
{
    /* closed form: -400 log10(1/0.75 - 1) = 400 log10(3) */
    CHECK_NEAR(stats_elo_from_score(0.75), 190.848501887865, 1e-9);
    CHECK_NEAR(stats_elo_from_score(0.5), 0.0, 1e-12);
    CHECK_NEAR(stats_score_from_elo(190.848501887865), 0.75, 1e-12);
    for (double e = -800.0; e <= 800.0; e += 37.5)
        CHECK_NEAR(stats_elo_from_score(stats_score_from_elo(e)), e, 1e-8);
}

static void scores_of_zero_and_one_give_the_elo_limit_not_infinity(void)
{
    CHECK_NEAR(stats_elo_from_score(1.0), STATS_ELO_LIMIT, 0);
    CHECK_NEAR(stats_elo_from_score(0.0), -STATS_ELO_LIMIT, 0);
    CHECK_NEAR(stats_elo_from_score(NAN), -STATS_ELO_LIMIT, 0);
    CHECK(isfinite(stats_elo_from_score(1e-300)));
}

static void normal_quantile_inverts_the_distribution_function(void)
{
    /* (python) statistics.NormalDist().inv_cdf */
    CHECK_NEAR(stats_normal_quantile(0.975), 1.9599639845400536, 1e-12);
    CHECK_NEAR(stats_normal_quantile(1e-10), -6.361340902404056, 1e-9);
    CHECK_NEAR(stats_normal_quantile(0.3), -0.5244005127080407, 1e-12);
    CHECK_NEAR(stats_normal_quantile(0.5), 0.0, 1e-14);
    for (double x = -30.0; x <= 5.0; x += 0.7) {
        double back = stats_normal_quantile(stats_normal_cdf(x));
        CHECK_NEAR(back, x, 1e-9 * fmax(1.0, fabs(x)));
    }
    /* far tail: log cdf stays finite and matches the Mills-ratio form */
    CHECK(isfinite(stats_normal_log_cdf(-1e5)));
    CHECK_NEAR(stats_normal_log_cdf(-40.0), -800.0 - log(40.0) - 0.5 * log(2 * M_PI) + log1p(-1.0 / 1600 + 3.0 / 1600 / 1600), 1e-8);
    CHECK_NEAR(stats_normal_quantile(0.0), -40.0, 0);
    CHECK_NEAR(stats_normal_quantile(1.0), 40.0, 0);
}

static void sprt_bounds_follow_alpha_and_beta(void)
{
    double lo, hi;
    stats_sprt_bounds(0.05, 0.05, &lo, &hi);
    CHECK_NEAR(lo, -2.9444389791664403, 1e-12);
    CHECK_NEAR(hi, 2.9444389791664403, 1e-12);
    stats_sprt_bounds(0.05, 0.10, &lo, &hi);
    CHECK_NEAR(lo, -2.251291798606495, 1e-12);
    CHECK_NEAR(hi, 2.8903717578961645, 1e-12);
}

static double s_llr(double elo0, double elo1, stats_elo_model_t model, stats_counts_t c)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.elo0 = elo0;
    p.elo1 = elo1;
    p.model = model;
    double llr = NAN;
    char err[200];
    int rc = stats_sprt_llr(&p, &c, &llr, err, sizeof err);
    return rc ? NAN : llr;
}

static void pentanomial_llr_matches_independent_values(void)
{
    /* (python) Lagrange-Newton MLEs, LLR = sum n_i log(q1_i / q0_i) */
    stats_counts_t a = s_penta(100, 400, 900, 500, 150);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_NORMALIZED, a), 3.803569710288145, 1e-7);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_LOGISTIC, a), 5.302886790100953, 1e-7);
    CHECK_NEAR(s_llr(-3, 1, STATS_MODEL_NORMALIZED, a), 3.516156286452108, 1e-7);
    stats_counts_t b = s_penta(30, 200, 460, 250, 60);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_NORMALIZED, b), 2.2891972245956658, 1e-7);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_LOGISTIC, b), 3.4261218785259167, 1e-7);
    CHECK_NEAR(s_llr(-3, 1, STATS_MODEL_NORMALIZED, b), 2.0616791608557627, 1e-7);
}

static void zero_counts_are_regularised_as_fishtest_does(void)
{
    /* (python) zero counts replaced by 1e-3 before the fits */
    stats_counts_t c = s_penta(0, 0, 17, 40, 3);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_NORMALIZED, c), 0.7441703205402214, 1e-7);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_LOGISTIC, c), 0.8572259391889367, 1e-7);
}

static void trinomial_llr_matches_independent_values(void)
{
    /* (python) L, D, W = 1100, 2200, 1300 */
    stats_counts_t c = { { 0 }, 1300, 2200, 1100 };
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_NORMALIZED, c), 3.508736479209926, 1e-7);
    CHECK_NEAR(s_llr(0, 5, STATS_MODEL_LOGISTIC, c), 4.605778433165078, 1e-7);
}

/* The log-likelihood of data d under q. */
static double s_loglik(const stats_dist_t *d, const stats_dist_t *q)
{
    double s = 0.0;
    for (int i = 0; i < d->n; i++)
        s += d->p[i] * log(q->p[i]);
    return s;
}

static void constrained_fits_meet_the_constraint_and_beat_their_neighbours(void)
{
    const int64_t penta[5] = { 7, 31, 80, 41, 9 };
    stats_dist_t d, q;
    stats_dist_from_penta(penta, &d);
    stats_rng_t rng;
    stats_rng_seed(&rng, 11);
    for (int kind = 0; kind < 2; kind++) {
        for (double target = -0.6; target <= 0.6; target += 0.3) {
            double mu, var;
            if (kind == 0) {
                CHECK_EQ_INT(stats_dist_fit_mean(&d, 0.5 + target * 0.5, &q), 0);
                stats_dist_moments(&q, &mu, &var);
                CHECK_NEAR(mu, 0.5 + target * 0.5, 1e-12);
            } else {
                CHECK_EQ_INT(stats_dist_fit_t(&d, 0.5, target, &q), 0);
                stats_dist_moments(&q, &mu, &var);
                CHECK_NEAR((mu - 0.5) / sqrt(var), target, 1e-9);
            }
            double best = s_loglik(&d, &q);
            /* random feasible neighbours: perturb, then re-impose the mean
             * constraint along the direction that keeps the sum at one */
            for (int trial = 0; trial < 200; trial++) {
                stats_dist_t r = q;
                double total = 0.0;
                for (int i = 0; i < 5; i++) {
                    r.p[i] *= exp(0.01 * stats_rng_normal(&rng));
                    total += r.p[i];
                }
                for (int i = 0; i < 5; i++)
                    r.p[i] /= total;
                if (kind == 0) {
                    /* any feasible point: fitting r to the mean keeps it feasible,
                     * and r's own best is never better than q's */
                    stats_dist_t rr;
                    CHECK_EQ_INT(stats_dist_fit_mean(&r, 0.5 + target * 0.5, &rr), 0);
                    r = rr;
                } else {
                    stats_dist_t rr;
                    CHECK_EQ_INT(stats_dist_fit_t(&r, 0.5, target, &rr), 0);
                    r = rr;
                }
                CHECK(s_loglik(&d, &r) <= best + 1e-12);
            }
        }
    }
    CHECK_EQ_INT(stats_dist_fit_mean(&d, 1.0, &q), CAPA_ERANGE);
    CHECK_EQ_INT(stats_dist_fit_mean(&d, -0.1, &q), CAPA_ERANGE);
}

static void consistent_counts_pass_the_checks(void)
{
    stats_counts_t c = { { 0 }, 0, 0, 0 };
    char err[200] = "";
    CHECK_EQ_INT(stats_counts_check(&c, err, sizeof err), 0);
    /* pairs: WW, WL, DD, LD, DW, LL */
    const int g[6][2] = { { 2, 2 }, { 2, 0 }, { 1, 1 }, { 0, 1 }, { 1, 2 }, { 0, 0 } };
    for (int i = 0; i < 6; i++)
        CHECK_EQ_INT(stats_counts_add_pair(&c, g[i][0], g[i][1]), 0);
    CHECK_EQ_INT(stats_counts_check(&c, err, sizeof err), 0);
    CHECK_EQ_INT(c.wins, 4);
    CHECK_EQ_INT(c.draws, 4);
    CHECK_EQ_INT(c.losses, 4);
    CHECK_EQ_INT(c.penta[2], 2);
    CHECK_EQ_INT(stats_counts_add_pair(&c, 3, 0), CAPA_EINVAL);
}

static void inconsistent_counts_are_refused_with_a_reason(void)
{
    char err[200];
    stats_counts_t c = { { 1, 2, 3, 2, 1 }, 6, 6, 6 }; /* W-L 0, D in 4..10 */
    CHECK_EQ_INT(stats_counts_check(&c, err, sizeof err), 0);
    c.wins = 7;
    CHECK_EQ_INT(stats_counts_check(&c, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "W+D+L = 19") != NULL);
    c.wins = 7, c.losses = 5;
    CHECK_EQ_INT(stats_counts_check(&c, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "W-L = 2") != NULL);
    stats_counts_t d = { { 1, 2, 3, 2, 1 }, 8, 2, 8 }; /* D below n1 + n3 = 4 */
    CHECK_EQ_INT(stats_counts_check(&d, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "allow only 4..10 draws") != NULL);
    stats_counts_t e = { { 1, 2, 3, 2, 1 }, 1, 12, 1 }; /* D above 10 */
    CHECK_EQ_INT(stats_counts_check(&e, err, sizeof err), CAPA_EINVAL);
    stats_counts_t f = { { 1, 2, 3, 2, 1 }, 5, 5, 5 }; /* 15 games for 9 pairs */
    CHECK_EQ_INT(stats_counts_check(&f, err, sizeof err), CAPA_EINVAL);
    stats_counts_t h = { { 0, 1, 1, 0, 0 }, 0, 1, 3 }; /* WL + DL would be W 1, D 1, L 2 */
    CHECK_EQ_INT(stats_counts_check(&h, err, sizeof err), CAPA_EINVAL);
    stats_counts_t h2 = { { 0, 1, 1, 0, 0 }, 0, 3, 1 }; /* DD + DL: W 0, D 3, L 1 */
    CHECK_EQ_INT(stats_counts_check(&h2, err, sizeof err), 0);
    stats_counts_t n = { { 0, -1, 0, 0, 0 }, 0, 0, 0 };
    CHECK_EQ_INT(stats_counts_check(&n, err, sizeof err), CAPA_ERANGE);
    stats_counts_t big = { { STATS_COUNT_MAX + 1, 0, 0, 0, 0 }, 0, 0, 0 };
    CHECK_EQ_INT(stats_counts_check(&big, err, sizeof err), CAPA_ERANGE);
}

static void counts_parse_from_comma_separated_text(void)
{
    int64_t v[5];
    char err[200];
    CHECK_EQ_INT(stats_counts_parse("10,20, 30 ,20,10", 5, v, err, sizeof err), 0);
    CHECK_EQ_INT(v[2], 30);
    CHECK_EQ_INT(stats_counts_parse("10,20,30,20", 5, v, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_counts_parse("10,20,30,20,10,1", 5, v, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_counts_parse("10,-2,30,20,10", 5, v, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_counts_parse("1,2,x,4,5", 5, v, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_counts_parse("99999999999999999999,1,1,1,1", 5, v, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_INT(stats_counts_parse(NULL, 5, v, err, sizeof err), CAPA_EINVAL);
}

static void estimates_match_independent_values(void)
{
    /* (python) score, Elo from the score interval, nElo with the delta-
     * method interval, LOS = Phi((mu - 1/2) / se) */
    stats_counts_t c = s_penta(100, 400, 900, 500, 150);
    stats_estimate_t e;
    char err[200];
    CHECK_EQ_INT(stats_estimate(&c, 0, &e, err, sizeof err), 0);
    CHECK_EQ_INT(e.pentanomial, 1);
    CHECK_NEAR(e.score, 0.524390243902439, 1e-12);
    CHECK_NEAR(e.score_lo, 0.5140252392992944, 1e-9);
    CHECK_NEAR(e.score_hi, 0.5347552485055836, 1e-9);
    CHECK_NEAR(e.elo, 16.96153942123496, 1e-8);
    CHECK_NEAR(e.elo_lo, 9.748291740120742, 1e-6);
    CHECK_NEAR(e.elo_hi, 24.18942931580722, 1e-6);
    CHECK_NEAR(e.nelo, 25.025173949303703, 1e-8);
    CHECK_NEAR(e.nelo_lo, 14.350005720330742, 1e-6);
    CHECK_NEAR(e.nelo_hi, 35.70034217827666, 1e-6);
    CHECK_NEAR(e.los, 0.9999980064889231, 1e-9);
    CHECK_NEAR(e.pairs_ratio, 650.0 / 500.0, 1e-12);
    CHECK_NEAR(e.pair_draw_ratio, 900.0 / 2050.0, 1e-12);
    CHECK_NEAR(e.draw_ratio, -1.0, 0);
    stats_counts_t t = { { 0 }, 1300, 2200, 1100 };
    CHECK_EQ_INT(stats_estimate(&t, 0, &e, err, sizeof err), 0);
    CHECK_EQ_INT(e.pentanomial, 0);
    CHECK_NEAR(e.score, 0.5217391304347826, 1e-12);
    CHECK_NEAR(e.elo_lo, 7.868183041698323, 1e-6);
    CHECK_NEAR(e.elo_hi, 22.37583685881953, 1e-6);
    CHECK_NEAR(e.nelo, 20.951154109016414, 1e-8);
    CHECK_NEAR(e.nelo_lo, 10.887022350228225, 1e-6);
    CHECK_NEAR(e.nelo_hi, 31.015285867804607, 1e-6);
    CHECK_NEAR(e.los, 0.9999784219337953, 1e-9);
    CHECK_NEAR(e.draw_ratio, 2200.0 / 4600.0, 1e-12);
}

static void fixed_sample_intervals_cover_the_truth(void)
{
    /* 2000 samples of 400 pairs from a known pair distribution: the 95%
     * intervals of score, Elo and nElo must cover the true values in about
     * 95% of the samples (standard error 0.5%). */
    stats_dist_t shape, truth;
    stats_dist_from_draw_model(0.0, 0.55, 1, &shape);
    CHECK_EQ_INT(stats_dist_fit_mean(&shape, stats_score_from_elo(30.0), &truth), 0);
    double mu, var;
    stats_dist_moments(&truth, &mu, &var);
    double true_elo = stats_elo_from_score(mu);
    double true_nelo = STATS_NELO_PER_T * (mu - 0.5) / sqrt(2.0 * var);
    stats_rng_t rng;
    stats_rng_seed(&rng, 31);
    int cs = 0, ce = 0, cn = 0, samples = 2000;
    char err[200];
    for (int i = 0; i < samples; i++) {
        stats_counts_t c = { { 0 }, 0, 0, 0 };
        for (int k = 0; k < 400; k++)
            c.penta[stats_rng_pick(&rng, truth.p, 5)]++;
        stats_estimate_t e;
        CHECK_EQ_INT(stats_estimate(&c, 0, &e, err, sizeof err), 0);
        cs += e.score_lo <= mu && mu <= e.score_hi;
        ce += e.elo_lo <= true_elo && true_elo <= e.elo_hi;
        cn += e.nelo_lo <= true_nelo && true_nelo <= e.nelo_hi;
    }
    printf("  coverage: score %.3f, Elo %.3f, nElo %.3f\n", (double) cs / samples, (double) ce / samples,
           (double) cn / samples);
    CHECK_NEAR((double) cs / samples, 0.95, 0.02);
    CHECK_NEAR((double) ce / samples, 0.95, 0.02);
    CHECK_NEAR((double) cn / samples, 0.95, 0.02);
}

static int s_report_is_finite(const stats_sprt_report_t *r)
{
    const double v[] = { r->llr, r->lower, r->upper, r->est.score, r->est.score_lo, r->est.score_hi,
                         r->est.elo, r->est.elo_lo, r->est.elo_hi, r->est.nelo, r->est.nelo_lo,
                         r->est.nelo_hi, r->est.los, r->seq_elo, r->seq_elo_lo, r->seq_elo_hi,
                         r->plain_elo, r->est.draw_ratio, r->est.pair_draw_ratio };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]))
            return 0;
    return !isnan(r->est.pairs_ratio) && r->seq_elo_lo <= r->seq_elo + 1e-9 &&
           r->seq_elo <= r->seq_elo_hi + 1e-9;
}

static void extreme_results_give_finite_reports(void)
{
    const stats_counts_t cases[] = {
        s_penta(0, 0, 0, 0, 0),          /* nothing played yet */
        s_penta(0, 0, 0, 0, 1),          /* a single won pair */
        s_penta(1, 0, 0, 0, 0),          /* a single lost pair */
        s_penta(0, 0, 1, 0, 0),          /* a single drawn pair */
        s_penta(0, 0, 0, 0, 100000),     /* all wins */
        s_penta(100000, 0, 0, 0, 0),     /* all losses */
        s_penta(0, 0, 5000, 0, 0),       /* every pair 1/2 */
        s_penta(50000, 0, 0, 0, 50000),  /* only extremes */
        { { 0 }, 0, 0, 1 },              /* one lost game, no pairs */
        { { 0 }, 7, 0, 0 },              /* seven won games */
        { { 0 }, 0, 1000, 0 },           /* all draws */
        s_penta(STATS_COUNT_MAX, 0, 0, 0, STATS_COUNT_MAX),       /* the largest counts */
        s_penta(1, 1 << 30, (int64_t) 1 << 40, 1 << 30, 3),        /* huge and tiny mixed */
        s_penta(0, 1000000, 2000000, 1000000, 0),  /* a long test at exactly 0 */
    };
    char err[200], buf[2048];
    for (int model = 0; model < 2; model++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            stats_sprt_params_t p;
            stats_sprt_params_default(&p);
            p.model = (stats_elo_model_t) model;
            stats_sprt_report_t r;
            int rc = stats_sprt_report(&p, &cases[i], &r, err, sizeof err);
            CHECK_MSG(rc == 0, "case %zu model %d: %s", i, model, err);
            CHECK_MSG(s_report_is_finite(&r), "case %zu model %d not finite", i, model);
            CHECK_EQ_INT(stats_sprt_format(&r, buf, sizeof buf), 0);
            cJSON *j = stats_sprt_to_json(&r);
            CHECK(j != NULL);
            char *txt = cJSON_PrintUnformatted(j);
            CHECK(txt && !strstr(txt, "nan") && !strstr(txt, "inf"));
            free(txt);
            cJSON_Delete(j);
        }
    }
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    stats_sprt_report_t r;
    stats_counts_t wins = s_penta(0, 0, 0, 0, 100000);
    CHECK_EQ_INT(stats_sprt_report(&p, &wins, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H1);
    CHECK(isinf(r.est.pairs_ratio));
    stats_counts_t losses = s_penta(100000, 0, 0, 0, 0);
    CHECK_EQ_INT(stats_sprt_report(&p, &losses, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H0);
    /* counts far past a bound are not a stopped test: no adjustment */
    CHECK_EQ_INT(r.sequential, 0);
    CHECK_NEAR(r.seq_elo, r.plain_elo, 0);
    CHECK_EQ_INT(stats_sprt_format(&r, buf, sizeof buf), 0);
    CHECK(strstr(buf, "not adjusted") != NULL);
}

static void a_test_stopped_at_its_bound_gets_a_pulled_back_estimate(void)
{
    /* A pass just over the upper bound: the median-unbiased estimate lies
     * below the MLE (early passes are the lucky ones) and within its own
     * interval; a fail just under the lower bound is pulled up. */
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    char err[200];
    stats_sprt_report_t r;
    stats_counts_t pass = s_penta(100, 400, 900, 500, 150); /* LLR 3.80 > 2.94 */
    CHECK_EQ_INT(stats_sprt_report(&p, &pass, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.sequential, 1);
    CHECK(r.seq_elo < r.plain_elo);
    CHECK(r.mean_elo < r.plain_elo);
    CHECK(r.seq_elo_lo < r.seq_elo && r.seq_elo < r.seq_elo_hi);
    stats_counts_t fail = s_penta(150, 500, 900, 400, 100);
    CHECK_EQ_INT(stats_sprt_report(&p, &fail, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H0);
    CHECK_EQ_INT(r.sequential, 1);
    CHECK(r.seq_elo > r.plain_elo);
    CHECK(r.mean_elo > r.plain_elo);
    /* a running test has no mean adjustment */
    stats_counts_t running = s_penta(30, 200, 460, 250, 60); /* LLR 2.29 */
    CHECK_EQ_INT(stats_sprt_report(&p, &running, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_CONTINUE);
    CHECK_NEAR(r.mean_elo, r.plain_elo, 0);
    char buf[2048];
    CHECK_EQ_INT(stats_sprt_format(&r, buf, sizeof buf), 0);
    CHECK(strstr(buf, "median-unbiased") != NULL);
    CHECK(strstr(buf, "not adjusted") == NULL && strstr(buf, "bias-adjusted") == NULL);
    /* far from both bounds the stopping rule hardly matters: the interval
     * is the fixed-sample one */
    stats_counts_t early = s_penta(10, 20, 30, 20, 10);
    CHECK_EQ_INT(stats_sprt_report(&p, &early, &r, err, sizeof err), 0);
    CHECK_NEAR(r.seq_elo_lo, r.est.nelo_lo, 0.01);
    CHECK_NEAR(r.seq_elo_hi, r.est.nelo_hi, 0.01);
}

static void a_strong_pass_gets_an_estimate_inside_the_fittable_range(void)
{
    /* docs/strength.md, test 3: nElo [0, 20] passed at 281 pairs with an
     * MLE of 42 nElo. Values beyond about +-235 nElo cannot be fitted to
     * these counts, and the estimate once came out as an end of the search
     * range: 310 [-290, 310]. The median-unbiased estimate of a pass lies
     * below the MLE, inside the fixed-sample interval, and so do the
     * mean-adjusted one and the interval's ends (within the range). */
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.elo1 = 20.0;
    char err[200];
    stats_sprt_report_t r;
    stats_counts_t c = s_penta(40, 27, 110, 38, 66);
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H1);
    CHECK_EQ_INT(r.sequential, 1);
    CHECK_MSG(r.seq_elo < r.plain_elo && r.seq_elo > r.est.nelo_lo, "median %.2f, MLE %.2f [%.2f, %.2f]",
              r.seq_elo, r.plain_elo, r.est.nelo_lo, r.est.nelo_hi);
    CHECK_MSG(r.mean_elo < r.plain_elo && r.mean_elo > r.est.nelo_lo, "mean %.2f, MLE %.2f",
              r.mean_elo, r.plain_elo);
    CHECK_MSG(r.seq_elo_lo > -50.0 && r.seq_elo_lo < r.seq_elo && r.seq_elo < r.seq_elo_hi &&
              r.seq_elo_hi < 150.0, "interval [%.2f, %.2f]", r.seq_elo_lo, r.seq_elo_hi);
    /* the same for a fail at the wide bounds of a simplification test */
    p.elo0 = -20.0;
    p.elo1 = 0.0;
    stats_counts_t fail = s_penta(66, 38, 110, 27, 40);
    CHECK_EQ_INT(stats_sprt_report(&p, &fail, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H0);
    CHECK_EQ_INT(r.sequential, 1);
    CHECK_MSG(r.seq_elo > r.plain_elo && r.seq_elo < r.est.nelo_hi, "median %.2f, MLE %.2f [%.2f, %.2f]",
              r.seq_elo, r.plain_elo, r.est.nelo_lo, r.est.nelo_hi);
    CHECK_MSG(r.seq_elo_lo > -150.0 && r.seq_elo_hi < 50.0, "interval [%.2f, %.2f]", r.seq_elo_lo,
              r.seq_elo_hi);
}

static void random_counts_and_parameters_never_give_nan(void)
{
    stats_rng_t rng;
    stats_rng_seed(&rng, 99);
    char err[200], buf[2048];
    for (int i = 0; i < 1000; i++) {
        stats_counts_t c = { { 0 }, 0, 0, 0 };
        for (int k = 0; k < 5; k++) {
            /* magnitudes from 0 to 2^40, many zeros */
            double e = stats_rng_uniform(&rng) * 44.0 - 4.0;
            c.penta[k] = e < 0.0 ? 0 : (int64_t) exp2(e);
        }
        stats_sprt_params_t p;
        stats_sprt_params_default(&p);
        p.model = (stats_elo_model_t) (i & 1);
        p.elo0 = stats_rng_uniform(&rng) * 40.0 - 20.0;
        p.elo1 = p.elo0 + 0.5 + stats_rng_uniform(&rng) * 30.0;
        p.alpha = 0.001 + 0.3 * stats_rng_uniform(&rng);
        p.beta = 0.001 + 0.3 * stats_rng_uniform(&rng);
        p.trinomial = (i % 7) == 0;
        if (p.trinomial) { /* W/D/L consistent with the pairs: 1/2 pairs drawn */
            c.wins = 2 * c.penta[4] + c.penta[3];
            c.losses = 2 * c.penta[0] + c.penta[1];
            c.draws = c.penta[1] + c.penta[3] + 2 * c.penta[2];
        }
        stats_sprt_report_t r;
        int rc = stats_sprt_report(&p, &c, &r, err, sizeof err);
        CHECK_MSG(rc == 0, "case %d: %s", i, err);
        CHECK_MSG(s_report_is_finite(&r), "case %d not finite", i);
        CHECK_EQ_INT(stats_sprt_format(&r, buf, sizeof buf), 0);
    }
}

static void bad_parameters_are_refused_with_a_reason(void)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    stats_counts_t c = s_penta(1, 2, 3, 2, 1);
    stats_sprt_report_t r;
    char err[200];
    p.elo1 = p.elo0;
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), CAPA_ERANGE);
    CHECK(strstr(err, "elo0") != NULL);
    stats_sprt_params_default(&p);
    p.alpha = 0.0;
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), CAPA_ERANGE);
    p.alpha = NAN;
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), CAPA_ERANGE);
    stats_sprt_params_default(&p);
    p.elo1 = INFINITY;
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), CAPA_ERANGE);
    stats_sprt_params_default(&p);
    stats_counts_t bad = { { 1, 2, 3, 2, 1 }, 7, 6, 6 };
    CHECK_EQ_INT(stats_sprt_report(&p, &bad, &r, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_model_parse("nelo"), STATS_MODEL_NORMALIZED);
    CHECK_EQ_INT(stats_model_parse("Logistic"), STATS_MODEL_LOGISTIC);
    CHECK_EQ_INT(stats_model_parse("bayes"), -1);
}

static void report_text_and_json_carry_the_numbers(void)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    stats_counts_t c = { { 100, 400, 900, 500, 150 }, 1250, 1800, 1050 };
    char err[200], buf[2048];
    stats_sprt_report_t r;
    CHECK_MSG(stats_sprt_report(&p, &c, &r, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(r.verdict, STATS_SPRT_ACCEPT_H1); /* LLR 3.80 > 2.94 */
    CHECK_EQ_INT(stats_sprt_format(&r, buf, sizeof buf), 0);
    CHECK(strstr(buf, "LLR: 3.804 (-2.944, 2.944) H1 accepted") != NULL);
    CHECK(strstr(buf, "Ptnml(0-2): 100, 400, 900, 500, 150") != NULL);
    CHECK(strstr(buf, "nElo: 25.03 [14.35, 35.70]") != NULL);
    CHECK(strstr(buf, "median-unbiased") != NULL);
    CHECK(strstr(buf, "bias-adjusted") != NULL);
    cJSON *j = stats_sprt_to_json(&r);
    CHECK(j != NULL);
    CHECK_NEAR(cJSON_GetObjectItem(j, "llr")->valuedouble, 3.803569710288145, 1e-7);
    CHECK_EQ_STR(cJSON_GetObjectItem(j, "verdict")->valuestring, "H1");
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "penta")), 5);
    CHECK_NEAR(cJSON_GetObjectItem(j, "bias_adjusted_elo")->valuedouble, r.mean_elo, 1e-9);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "sequential_elo")));
    cJSON_Delete(j);
    char tiny[16];
    CHECK_EQ_INT(stats_sprt_format(&r, tiny, sizeof tiny), CAPA_EFULL);
    CHECK_EQ_INT(strlen(tiny), 15);
}

static void trinomial_option_uses_games_even_with_pairs(void)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.trinomial = 1;
    stats_counts_t c = { { 100, 400, 900, 500, 150 }, 1250, 1800, 1050 };
    stats_sprt_report_t r;
    char err[200];
    CHECK_EQ_INT(stats_sprt_report(&p, &c, &r, err, sizeof err), 0);
    CHECK_EQ_INT(r.pentanomial, 0);
    CHECK_NEAR(r.n, 4100.0, 0);
    CHECK_NEAR(r.est.n, 4100.0, 0);
    stats_counts_t only_pairs = s_penta(100, 400, 900, 500, 150);
    CHECK_EQ_INT(stats_sprt_report(&p, &only_pairs, &r, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "W/D/L") != NULL);
}

static void brownian_exit_probabilities_match_finite_differences(void)
{
    /* (finite differences) P(exit b by T), P(exit a by T), P(inside, X_T < y) */
    CHECK_NEAR(stats_brownian_exit_by(0.5, 1.0, -1.0, 1.5, 2.0, 1), 0.5115235549264668, 2e-3);
    CHECK_NEAR(stats_brownian_exit_by(0.5, 1.0, -1.0, 1.5, 2.0, 0), 0.2602970863156077, 2e-3);
    CHECK_NEAR(stats_brownian_survival(0.5, 1.0, -1.0, 1.5, 2.0, 0.3), 0.09582577875513178, 3e-3);
    CHECK_NEAR(stats_brownian_exit_by(-0.2, 0.7, -2.0, 1.0, 3.0, 1), 0.25733637568591766, 2e-3);
    CHECK_NEAR(stats_brownian_exit_by(-0.2, 0.7, -2.0, 1.0, 3.0, 0), 0.2040072139862052, 2e-3);
    CHECK_NEAR(stats_brownian_survival(-0.2, 0.7, -2.0, 1.0, 3.0, -0.5), 0.3048209327973701, 3e-3);
}

static void brownian_probabilities_add_up_and_tend_to_walds_values(void)
{
    const double mus[] = { -3.0, -0.4, -1e-9, 0.0, 0.01, 0.7, 5.0 };
    for (size_t i = 0; i < sizeof mus / sizeof mus[0]; i++) {
        double mu = mus[i], a = -2.9, b = 2.2;
        for (double T = 0.5; T < 500.0; T *= 3.0) {
            double up = stats_brownian_exit_by(mu, 1.3, a, b, T, 1);
            double lo = stats_brownian_exit_by(mu, 1.3, a, b, T, 0);
            double in = stats_brownian_survival(mu, 1.3, a, b, T, b);
            CHECK_NEAR(up + lo + in, 1.0, 1e-7);
            CHECK(up >= 0 && lo >= 0 && in >= 0);
        }
        double pass = stats_brownian_pass(mu, 1.3, a, b);
        CHECK_NEAR(stats_brownian_exit_by(mu, 1.3, a, b, 1e5, 1), pass, 1e-6);
    }
    /* no drift: the exit side is in proportion to the distances */
    CHECK_NEAR(stats_brownian_pass(0.0, 1.0, -1.0, 3.0), 0.25, 1e-12);
    CHECK_NEAR(stats_brownian_expected_time(0.0, 2.0, -1.0, 3.0), 0.75, 1e-12);
    /* symmetric: E[tau] = b/mu tanh(mu b / sigma^2) for barriers +-b */
    CHECK_NEAR(stats_brownian_expected_time(0.3, 1.0, -2.0, 2.0), 2.0 / 0.3 * tanh(0.6), 1e-9);
    CHECK_NEAR(stats_brownian_pass(1e3, 1e-3, -2.0, 2.0), 1.0, 0);
    CHECK_NEAR(stats_brownian_pass(-1e3, 1e-3, -2.0, 2.0), 0.0, 0);
}

static void sprt_calculator_gives_walds_error_rates_at_the_hypotheses(void)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.beta = 0.1;
    stats_dist_t shape;
    stats_dist_from_draw_model(0.0, 0.6, 1, &shape);
    stats_sprt_expect_t x0, x1, xm;
    char err[200];
    CHECK_EQ_INT(stats_sprt_expect(&p, &shape, p.elo0, &x0, err, sizeof err), 0);
    CHECK_EQ_INT(stats_sprt_expect(&p, &shape, p.elo1, &x1, err, sizeof err), 0);
    CHECK_EQ_INT(stats_sprt_expect(&p, &shape, 2.5, &xm, err, sizeof err), 0);
    /* Wald: at H0 P(pass) = alpha, at H1 = 1 - beta (Brownian limit) */
    CHECK_NEAR(x0.pass_probability, 0.05, 0.002);
    CHECK_NEAR(x1.pass_probability, 0.90, 0.002);
    CHECK(xm.pass_probability > x0.pass_probability && xm.pass_probability < x1.pass_probability);
    /* the test is longest between the hypotheses */
    CHECK(xm.expected_n > x0.expected_n && xm.expected_n > x1.expected_n);
    /* more draws, fewer pairs: nElo is defined against the real spread,
     * so the length in pairs hardly moves; in logistic Elo draws shorten it */
    p.model = STATS_MODEL_LOGISTIC;
    stats_dist_t drawish;
    stats_dist_from_draw_model(0.0, 0.8, 1, &drawish);
    stats_sprt_expect_t l6, l8;
    CHECK_EQ_INT(stats_sprt_expect(&p, &shape, 2.5, &l6, err, sizeof err), 0);
    CHECK_EQ_INT(stats_sprt_expect(&p, &drawish, 2.5, &l8, err, sizeof err), 0);
    CHECK(l8.expected_n < l6.expected_n);
    stats_dist_t bad = shape;
    bad.n = 4;
    CHECK_EQ_INT(stats_sprt_expect(&p, &bad, 0.0, &xm, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_sprt_expect(&p, &shape, NAN, &xm, err, sizeof err), CAPA_ERANGE);
}

/* Plays one SPRT on pairs drawn from truth, checking the LLR every `batch`
 * pairs; returns the verdict and the number of pairs. */
static stats_verdict_t s_play(const stats_sprt_params_t *p, const stats_dist_t *truth, int batch,
                              stats_rng_t *rng, int64_t *pairs, stats_sprt_report_t *last)
{
    stats_counts_t c = { { 0 }, 0, 0, 0 };
    char err[200];
    for (int64_t n = 1; n <= 2000000; n++) {
        c.penta[stats_rng_pick(rng, truth->p, 5)]++;
        if (n % batch)
            continue;
        double llr;
        if (stats_sprt_llr(p, &c, &llr, err, sizeof err))
            return STATS_SPRT_CONTINUE;
        double lo, hi;
        stats_sprt_bounds(p->alpha, p->beta, &lo, &hi);
        if (llr >= hi || llr <= lo) {
            *pairs = n;
            if (last)
                stats_sprt_report(p, &c, last, err, sizeof err);
            return llr >= hi ? STATS_SPRT_ACCEPT_H1 : STATS_SPRT_ACCEPT_H0;
        }
    }
    return STATS_SPRT_CONTINUE;
}

static void expected_length_matches_a_simulation(void)
{
    /* Logistic Elo [0, 20] with the truth midway, LLR checked after every
     * pair. The bounds are moved out by Siegmund's 0.583 sd for the
     * overshoot; 4000 runs leave a statistical error of about 1.2% on the
     * mean length and 0.008 on the pass rate. */
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.model = STATS_MODEL_LOGISTIC;
    p.elo0 = 0.0, p.elo1 = 20.0;
    stats_dist_t shape, truth;
    stats_dist_from_draw_model(0.0, 0.5, 1, &shape);
    CHECK_EQ_INT(stats_dist_fit_mean(&shape, stats_score_from_elo(10.0), &truth), 0);
    stats_sprt_expect_t x;
    char err[200];
    CHECK_EQ_INT(stats_sprt_expect(&p, &truth, 10.0, &x, err, sizeof err), 0);
    stats_rng_t rng;
    stats_rng_seed(&rng, 2026);
    double total = 0.0;
    int passes = 0, runs = 4000;
    for (int i = 0; i < runs; i++) {
        int64_t n = 0;
        passes += s_play(&p, &truth, 1, &rng, &n, NULL) == STATS_SPRT_ACCEPT_H1;
        total += (double) n;
    }
    CHECK_MSG(fabs(total / runs / x.expected_n - 1.0) < 0.05, "simulated %.0f, Wald %.0f",
              total / runs, x.expected_n);
    /* midway between the hypotheses the pass probability is near 1/2 */
    CHECK_NEAR(x.pass_probability, 0.5, 0.01);
    CHECK_NEAR((double) passes / runs, x.pass_probability, 0.03);
    /* and at elo1 + 10 the calculator and the simulation agree as well */
    stats_dist_t strong;
    CHECK_EQ_INT(stats_dist_fit_mean(&shape, stats_score_from_elo(30.0), &strong), 0);
    CHECK_EQ_INT(stats_sprt_expect(&p, &strong, 30.0, &x, err, sizeof err), 0);
    total = 0.0, passes = 0, runs = 2000;
    for (int i = 0; i < runs; i++) {
        int64_t n = 0;
        passes += s_play(&p, &strong, 1, &rng, &n, NULL) == STATS_SPRT_ACCEPT_H1;
        total += (double) n;
    }
    CHECK_MSG(fabs(total / runs / x.expected_n - 1.0) < 0.05, "simulated %.0f, Wald %.0f",
              total / runs, x.expected_n);
    CHECK_NEAR((double) passes / runs, x.pass_probability, 0.015);
}

static const check_case_t CASES[] = {
    CASE(logistic_elo_of_three_quarters_is_190_85),
    CASE(scores_of_zero_and_one_give_the_elo_limit_not_infinity),
    CASE(normal_quantile_inverts_the_distribution_function),
    CASE(sprt_bounds_follow_alpha_and_beta),
    CASE(pentanomial_llr_matches_independent_values),
    CASE(zero_counts_are_regularised_as_fishtest_does),
    CASE(trinomial_llr_matches_independent_values),
    CASE(constrained_fits_meet_the_constraint_and_beat_their_neighbours),
    CASE(consistent_counts_pass_the_checks),
    CASE(inconsistent_counts_are_refused_with_a_reason),
    CASE(counts_parse_from_comma_separated_text),
    CASE(estimates_match_independent_values),
    CASE(fixed_sample_intervals_cover_the_truth),
    CASE(extreme_results_give_finite_reports),
    CASE(a_test_stopped_at_its_bound_gets_a_pulled_back_estimate),
    CASE(a_strong_pass_gets_an_estimate_inside_the_fittable_range),
    CASE(random_counts_and_parameters_never_give_nan),
    CASE(bad_parameters_are_refused_with_a_reason),
    CASE(report_text_and_json_carry_the_numbers),
    CASE(trinomial_option_uses_games_even_with_pairs),
    CASE(brownian_exit_probabilities_match_finite_differences),
    CASE(brownian_probabilities_add_up_and_tend_to_walds_values),
    CASE(sprt_calculator_gives_walds_error_rates_at_the_hypotheses),
    CASE(expected_length_matches_a_simulation),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
