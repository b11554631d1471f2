/* Unit tests for SPSA: fishtest's gain formulas, the batch update, bounds,
 * convergence on a simulated match, and the JSON round trip.
 *
 * Values marked "(python)" were computed during development straight from
 * the formulas in docs/methods.md with Python floats:
 *   c = c_end N^gamma, a = r_end c_end^2 (A + N)^alpha,
 *   c_k = c / k^gamma, a_k = a / (A + k)^alpha,
 *   batch: theta += sign (W - L) a sum_{j=1..n} (A + k0 + j)^-alpha / (n c_k).
 */
#include <math.h>

#include "check.h"
#include "err.h"
#include "stats_elo.h"
#include "stats_rng.h"
#include "stats_spsa.h"

static stats_spsa_t *s_run(int64_t iterations)
{
    static const stats_spsa_param_t P[2] = {
        { "ArchbishopMg", 100.0, 0.0, 200.0, 4.0, 0.002 },
        { "ChancellorEg", 50.0, 40.0, 60.0, 1.0, 0.01 },
    };
    stats_spsa_config_t cfg = { 2, P, iterations, 0.1, 0.602, 0.101 };
    char err[200];
    stats_spsa_t *s = stats_spsa_new(&cfg, err, sizeof err);
    return s;
}

static void gains_follow_fishtest_formulas(void)
{
    stats_spsa_t *s = s_run(10000);
    CHECK(s != NULL);
    CHECK_NEAR(stats_spsa_A(s), 1000.0, 1e-12);
    /* (python) N = 10000, c_end = 4, r_end = 0.002, A = 1000 */
    CHECK_NEAR(stats_spsa_c_k(s, 0, 1), 10.140514521991632, 1e-12);
    CHECK_NEAR(stats_spsa_c_k(s, 0, 2), 9.454878705821454, 1e-12);
    CHECK_NEAR(stats_spsa_c_k(s, 0, 100), 6.368834908204681, 1e-12);
    CHECK_NEAR(stats_spsa_a_k(s, 0, 1), 0.13545874890223927, 1e-14);
    CHECK_NEAR(stats_spsa_a_k(s, 0, 100), 0.1279823199235512, 1e-14);
    /* at the planned end the gains are the user's c_end and r_end c_end^2 */
    CHECK_NEAR(stats_spsa_c_k(s, 0, 10000), 4.0, 1e-12);
    CHECK_NEAR(stats_spsa_a_k(s, 0, 10000), 0.002 * 16.0, 1e-14);
    CHECK_NEAR(stats_spsa_c_k(s, 1, 10000), 1.0, 1e-12);
    CHECK_NEAR(stats_spsa_a_k(s, 1, 10000), 0.01, 1e-14);
    stats_spsa_destroy(&s);
    CHECK(s == NULL);
    stats_spsa_destroy(&s); /* NULL is fine */
}

static void one_pair_moves_theta_as_fishtest_does(void)
{
    stats_spsa_t *s = s_run(10000);
    const int8_t signs[2] = { -1, 1 };
    stats_spsa_step_t st;
    char err[200];
    CHECK_EQ_INT(stats_spsa_propose(s, signs, &st, err, sizeof err), 0);
    CHECK_NEAR(st.plus[0], 100.0 - 10.140514521991632, 1e-12);
    CHECK_NEAR(st.minus[0], 100.0 + 10.140514521991632, 1e-12);
    /* a pair won twice by the plus side: (python) R c result flip */
    CHECK_EQ_INT(stats_spsa_update(s, &st, 1, 2, 0, err, sizeof err), 0);
    CHECK_NEAR(stats_spsa_theta(s, 0), 99.97328365368277, 1e-11);
    CHECK_EQ_INT(stats_spsa_iter(s), 1);
    stats_spsa_destroy(&s);
}

static void a_batch_adds_the_gains_of_all_its_pairs(void)
{
    stats_spsa_t *s = s_run(10000);
    const int8_t up[2] = { 1, 1 };
    stats_spsa_step_t st;
    char err[200];
    /* 100 drawn pairs first: theta stays, the iteration count moves */
    CHECK_EQ_INT(stats_spsa_propose(s, up, &st, err, sizeof err), 0);
    CHECK_EQ_INT(stats_spsa_update(s, &st, 100, 0, 0, err, sizeof err), 0);
    CHECK_NEAR(stats_spsa_theta(s, 0), 100.0, 0);
    CHECK_EQ_INT(stats_spsa_iter(s), 100);
    CHECK_EQ_INT(stats_spsa_propose(s, up, &st, err, sizeof err), 0);
    CHECK_EQ_INT(st.iter, 100);
    CHECK_EQ_INT(stats_spsa_update(s, &st, 50, 40, 30, err, sizeof err), 0);
    /* (python) a sum_{j=1..50} (A + 100 + j)^-alpha * 10 / (50 c_101) */
    CHECK_NEAR(stats_spsa_theta(s, 0), 100.19841261722384, 1e-10);
    CHECK_EQ_INT(stats_spsa_history_size(s), 3);
    CHECK_EQ_INT(stats_spsa_history_iter(s, 2), 150);
    CHECK_NEAR(stats_spsa_history_theta(s, 2, 0), stats_spsa_theta(s, 0), 0);
    CHECK_NEAR(stats_spsa_history_theta(s, 0, 0), 100.0, 0);
    stats_spsa_destroy(&s);
}

static void huge_batches_use_the_integral_without_looping(void)
{
    stats_spsa_t *s = s_run(10000);
    const int8_t up[2] = { 1, 1 };
    stats_spsa_step_t st;
    char err[200];
    CHECK_EQ_INT(stats_spsa_propose(s, up, &st, err, sizeof err), 0);
    /* beyond 1e5 pairs the gain sum is the midpoint integral: compare with
     * the exact sum done here */
    const int64_t n = 300000;
    double sum = 0.0;
    for (int64_t j = 1; j <= n; j++)
        sum += pow(1000.0 + (double) j, -0.602);
    double a = stats_spsa_a_k(s, 0, 1) * pow(1001.0, 0.602);
    double want = 100.0 + 1000.0 * a * sum / ((double) n * st.c[0]);
    CHECK_EQ_INT(stats_spsa_update(s, &st, n, 1000, 0, err, sizeof err), 0);
    CHECK_NEAR(stats_spsa_theta(s, 0), want, 1e-9 * want);
    /* and a batch of 2^40 pairs returns at once */
    CHECK_EQ_INT(stats_spsa_update(s, &st, (int64_t) 1 << 40, 0, 0, err, sizeof err), 0);
    stats_spsa_destroy(&s);
}

static void theta_and_proposals_stay_within_bounds(void)
{
    const stats_spsa_param_t P[2] = {
        { "A", 100.0, 0.0, 200.0, 4.0, 1.0 },
        { "C", 50.0, 40.0, 60.0, 1.0, 1.0 },
    };
    stats_spsa_config_t cfg = { 2, P, 100, 0.1, 0.602, 0.101 };
    char err[200];
    stats_spsa_t *s = stats_spsa_new(&cfg, err, sizeof err);
    const int8_t up[2] = { 1, 1 };
    stats_spsa_step_t st;
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_INT(stats_spsa_propose(s, up, &st, err, sizeof err), 0);
        CHECK(st.plus[1] <= 60.0 && st.minus[1] >= 40.0);
        CHECK_EQ_INT(stats_spsa_update(s, &st, 10, 20, 0, err, sizeof err), 0);
    }
    CHECK_NEAR(stats_spsa_theta(s, 0), 200.0, 0);
    CHECK_NEAR(stats_spsa_theta(s, 1), 60.0, 0);
    stats_spsa_destroy(&s);
}

static void bad_configs_and_results_are_refused(void)
{
    stats_spsa_param_t p[2] = {
        { "A", 1.0, 0.0, 2.0, 0.1, 0.01 },
        { "A", 1.0, 0.0, 2.0, 0.1, 0.01 },
    };
    stats_spsa_config_t cfg = { 2, p, 1000, 0.1, 0.602, 0.101 };
    char err[200];
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    CHECK(strstr(err, "twice") != NULL);
    strcpy(p[1].name, "B");
    p[1].start = 3.0;
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    CHECK(strstr(err, "outside") != NULL);
    p[1].start = 1.0;
    p[1].c_end = 0.0;
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    p[1].c_end = 0.1;
    p[1].min = NAN;
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    p[1].min = 0.0;
    cfg.iterations = 0;
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    cfg.iterations = 1000;
    cfg.n_params = 0;
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    cfg.n_params = 2;
    p[0].name[0] = '\0';
    CHECK(stats_spsa_new(&cfg, err, sizeof err) == NULL);
    p[0].name[0] = 'A';
    stats_spsa_t *s = stats_spsa_new(&cfg, err, sizeof err);
    CHECK(s != NULL);
    stats_spsa_step_t st;
    const int8_t zero[2] = { 0, 1 }, up[2] = { 1, 1 };
    CHECK_EQ_INT(stats_spsa_propose(s, zero, &st, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_spsa_propose(s, up, &st, err, sizeof err), 0);
    CHECK_EQ_INT(stats_spsa_update(s, &st, 0, 0, 0, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_INT(stats_spsa_update(s, &st, 2, 3, 2, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_INT(stats_spsa_update(s, &st, 2, -1, 0, err, sizeof err), CAPA_ERANGE);
    st.n = 3;
    CHECK_EQ_INT(stats_spsa_update(s, &st, 1, 1, 0, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(stats_spsa_iter(s), 0);
    stats_spsa_destroy(&s);
}

/* Plays a pair between two parameter vectors whose strength is
 * -k sum (theta - opt)^2 Elo, scores as 2 independent games with draws. */
static void s_pair(stats_rng_t *rng, const double *plus, const double *minus, const double *opt,
                   int n, int64_t *w, int64_t *l)
{
    double ep = 0.0, em = 0.0;
    for (int i = 0; i < n; i++) {
        ep -= 0.02 * (plus[i] - opt[i]) * (plus[i] - opt[i]);
        em -= 0.02 * (minus[i] - opt[i]) * (minus[i] - opt[i]);
    }
    double s = stats_score_from_elo(ep - em), draw = 0.4;
    double pw = s - draw / 2.0 > 0 ? s - draw / 2.0 : 0.0, pl = 1.0 - draw - pw;
    const double p[3] = { pl, draw, pw };
    for (int g = 0; g < 2; g++) {
        int r = stats_rng_pick(rng, p, 3);
        *w += r == 2;
        *l += r == 0;
    }
}

static void spsa_finds_the_optimum_of_a_simulated_match(void)
{
    const stats_spsa_param_t P[2] = {
        { "A", 100.0, 0.0, 200.0, 5.0, 0.02 },
        { "C", 20.0, 0.0, 200.0, 5.0, 0.02 },
    };
    const double opt[2] = { 140.0, 80.0 };
    stats_spsa_config_t cfg = { 2, P, 40000, 0.1, 0.602, 0.101 };
    char err[200];
    stats_spsa_t *s = stats_spsa_new(&cfg, err, sizeof err);
    CHECK(s != NULL);
    stats_rng_t rng;
    stats_rng_seed(&rng, 77);
    while (stats_spsa_iter(s) < 40000) {
        int8_t sg[2] = { (int8_t) stats_rng_sign(&rng), (int8_t) stats_rng_sign(&rng) };
        stats_spsa_step_t st;
        CHECK_EQ_INT(stats_spsa_propose(s, sg, &st, err, sizeof err), 0);
        int64_t w = 0, l = 0;
        for (int k = 0; k < 4; k++)
            s_pair(&rng, st.plus, st.minus, opt, 2, &w, &l);
        CHECK_EQ_INT(stats_spsa_update(s, &st, 4, w, l, err, sizeof err), 0);
    }
    CHECK_MSG(fabs(stats_spsa_theta(s, 0) - opt[0]) < 10.0, "A ended at %.1f", stats_spsa_theta(s, 0));
    CHECK_MSG(fabs(stats_spsa_theta(s, 1) - opt[1]) < 10.0, "C ended at %.1f", stats_spsa_theta(s, 1));
    CHECK_EQ_INT(stats_spsa_history_size(s), 10001);
    stats_spsa_destroy(&s);
}

static void state_survives_a_json_round_trip_exactly(void)
{
    stats_spsa_t *s = s_run(5000);
    stats_rng_t rng;
    stats_rng_seed(&rng, 5);
    char err[200];
    stats_spsa_step_t st;
    for (int i = 0; i < 20; i++) {
        int8_t sg[2] = { (int8_t) stats_rng_sign(&rng), (int8_t) stats_rng_sign(&rng) };
        CHECK_EQ_INT(stats_spsa_propose(s, sg, &st, err, sizeof err), 0);
        CHECK_EQ_INT(stats_spsa_update(s, &st, 7, (int64_t) (stats_rng_uniform(&rng) * 8),
                                       (int64_t) (stats_rng_uniform(&rng) * 6), err, sizeof err), 0);
    }
    cJSON *j = stats_spsa_to_json(s);
    CHECK(j != NULL);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    cJSON *back = cJSON_Parse(text);
    free(text);
    stats_spsa_t *t = stats_spsa_from_json(back, err, sizeof err);
    cJSON_Delete(back);
    CHECK_MSG(t != NULL, "%s", err);
    CHECK_EQ_INT(stats_spsa_iter(t), stats_spsa_iter(s));
    CHECK_EQ_INT(stats_spsa_history_size(t), stats_spsa_history_size(s));
    for (int h = 0; h < stats_spsa_history_size(s); h++) {
        CHECK_EQ_INT(stats_spsa_history_iter(t, h), stats_spsa_history_iter(s, h));
        for (int i = 0; i < 2; i++)
            CHECK(stats_spsa_history_theta(t, h, i) == stats_spsa_history_theta(s, h, i));
    }
    CHECK_EQ_STR(stats_spsa_param(t, 1)->name, "ChancellorEg");
    /* the restored run continues exactly as the original would */
    const int8_t sg[2] = { 1, -1 };
    stats_spsa_step_t a, b;
    CHECK_EQ_INT(stats_spsa_propose(s, sg, &a, err, sizeof err), 0);
    CHECK_EQ_INT(stats_spsa_propose(t, sg, &b, err, sizeof err), 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK_EQ_INT(stats_spsa_update(s, &a, 3, 4, 1, err, sizeof err), 0);
    CHECK_EQ_INT(stats_spsa_update(t, &b, 3, 4, 1, err, sizeof err), 0);
    for (int i = 0; i < 2; i++)
        CHECK(stats_spsa_theta(s, i) == stats_spsa_theta(t, i));
    stats_spsa_destroy(&s);
    stats_spsa_destroy(&t);
}

static void broken_json_states_are_refused_with_a_reason(void)
{
    stats_spsa_t *s = s_run(5000);
    cJSON *j = stats_spsa_to_json(s);
    stats_spsa_destroy(&s);
    char *good = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char err[200];
    struct {
        const char *from, *to, *want;
    } edits[] = {
        { "\"version\":1", "\"version\":2", "version" },
        { "\"iter\":0", "\"iter\":-3", "iter" },
        { "\"iter\":0", "\"iter\":\"x\"", "iter" },
        { "\"theta\":100", "\"theta\":900", "outside" },
        { "\"name\":\"ChancellorEg\"", "\"name\":\"ArchbishopMg\"", "twice" },
        { "\"c_end\":4", "\"c_end\":-4", "positive" },
        { "\"history\":", "\"hist\":", "history" },
        { "\"alpha\":", "\"alpha\":null,\"x\":", "alpha" },
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const char *at = strstr(good, edits[i].from);
        CHECK_MSG(at != NULL, "edit %zu does not apply", i);
        char bad[8192];
        snprintf(bad, sizeof bad, "%.*s%s%s", (int) (at - good), good, edits[i].to,
                 at + strlen(edits[i].from));
        cJSON *b = cJSON_Parse(bad);
        CHECK(b != NULL);
        stats_spsa_t *t = stats_spsa_from_json(b, err, sizeof err);
        cJSON_Delete(b);
        CHECK_MSG(t == NULL, "edit %zu accepted", i);
        CHECK_MSG(strstr(err, edits[i].want) != NULL, "edit %zu: \"%s\"", i, err);
    }
    CHECK(stats_spsa_from_json(NULL, err, sizeof err) == NULL);
    free(good);
}

static const check_case_t CASES[] = {
    CASE(gains_follow_fishtest_formulas),
    CASE(one_pair_moves_theta_as_fishtest_does),
    CASE(a_batch_adds_the_gains_of_all_its_pairs),
    CASE(huge_batches_use_the_integral_without_looping),
    CASE(theta_and_proposals_stay_within_bounds),
    CASE(bad_configs_and_results_are_refused),
    CASE(spsa_finds_the_optimum_of_a_simulated_match),
    CASE(state_survives_a_json_round_trip_exactly),
    CASE(broken_json_states_are_refused_with_a_reason),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
