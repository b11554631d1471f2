/* bench_stats - how long the statistics take: LLR, full SPRT report (with
 * the median-unbiased estimate), the SPRT calculator, a piece-value fit and
 * SPSA updates. Prints figures; asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats_rng.h"
#include "stats_spsa.h"
#include "stats_sprt.h"
#include "stats_values.h"

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* A study of 1,000,000 pairs over 20 imbalances, drawn from Muller's values
 * (k 0.3, 13% draws), fitted two ways: as the coordinator reads it (pairs
 * summed up by kind with counts, pawn odds split by file) and game by game
 * (2,000,000 records). */
static void s_million(stats_rng_t *rng)
{
    static const double V[STATS_PIECE_NB] = { 1.0, 3.0, 3.5, 5.0, 8.75, 9.0, 9.5 };
    static const int8_t study[20][STATS_PIECE_NB] = {
        { 0, 0, 0, 0, 1, -1, 0 },  { 0, 0, 0, 0, 1, 0, -1 },  { 0, 0, 0, 0, 0, 1, -1 },
        { 0, -1, 0, -1, 1, 0, 0 }, { 0, 0, -1, -1, 0, 1, 0 }, { 0, -1, 1, 0, 0, 0, 0 },
        { -1, 0, -1, 1, 0, 0, 0 }, { -3, 1, 0, 0, 0, 0, 0 },  { -1, 0, 0, 0, 0, 0, 0 },
        { -2, 0, 0, 0, 0, 0, 0 },  { 0, -1, -1, 0, 1, 0, 0 }, { 0, -1, -1, 0, 0, 1, 0 },
        { 0, 0, 0, -2, 0, 0, 1 },  { -1, -1, 0, -1, 0, 1, 0 }, { -1, -1, 0, -1, 1, 0, 0 },
        { 0, -2, -1, 0, 0, 0, 1 }, { -2, 0, 0, 1, 0, 0, 0 }, { -1, 0, 1, 0, 0, 0, 0 },
        { 0, 0, -1, -1, 0, 0, 1 }, { 0, 0, 0, -1, 1, 0, 0 },
    };
    const int pairs = 50000; /* each imbalance: 20 x 50,000 = 1,000,000 pairs */
    size_t ng = (size_t) 20 * pairs * 2, nk = 0, u = 0;
    stats_game_t *g = calloc(ng, sizeof *g);
    /* kinds: imbalance x stratum x colours of game 1 x both results */
    stats_game_t *kinds = calloc((size_t) 20 * 11 * 2 * 9 * 2, sizeof *kinds);
    static int64_t count[20][11][2][3][3];
    memset(count, 0, sizeof count);
    for (int s = 0; s < 20; s++) {
        double m = 0.0;
        for (int p = 0; p < STATS_PIECE_NB; p++)
            m += 0.3 * V[p] * study[s][p];
        int odds = s == 8;
        for (int k = 0; k < pairs; k++) {
            int res[2], stratum = odds ? 1 + k % 10 : 0, w1 = k & 1;
            for (int gi = 0; gi < 2; gi++, u++) {
                int white = gi == 0 ? w1 : !w1;
                double p = 1.0 / (1.0 + exp(-(m + (white ? 0.1 : -0.1))));
                double d = fmin(0.13, 2.0 * fmin(p, 1.0 - p));
                const double pr[3] = { 1.0 - p - d / 2.0, d, p - d / 2.0 };
                res[gi] = stats_rng_pick(rng, pr, 3);
                memcpy(g[u].diff, study[s], STATS_PIECE_NB);
                g[u].test_white = (int8_t) white;
                g[u].stratum = (int8_t) stratum;
                g[u].score = 0.5 * res[gi];
                g[u].pair = (int64_t) s * pairs + k;
            }
            count[s][stratum][w1][res[0]][res[1]]++;
        }
    }
    int64_t pair_id = 0;
    for (int s = 0; s < 20; s++)
        for (int st = 0; st < 11; st++)
            for (int w1 = 0; w1 < 2; w1++)
                for (int r0 = 0; r0 < 3; r0++)
                    for (int r1 = 0; r1 < 3; r1++) {
                        if (!count[s][st][w1][r0][r1])
                            continue;
                        for (int gi = 0; gi < 2; gi++) {
                            stats_game_t *x = &kinds[nk++];
                            memcpy(x->diff, study[s], STATS_PIECE_NB);
                            x->test_white = (int8_t) (gi == 0 ? w1 : !w1);
                            x->stratum = (int8_t) st;
                            x->score = 0.5 * (gi == 0 ? r0 : r1);
                            x->pair = pair_id;
                            x->count = count[s][st][w1][r0][r1];
                        }
                        pair_id++;
                    }
    char err[256];
    stats_values_t *v = NULL;
    double t0 = s_now();
    int rc = stats_values_fit(kinds, nk, &v, err, sizeof err);
    double t1 = s_now();
    printf("values     1,000,000 pairs over 20 imbalances as %zu pair kinds: fit %.2f ms (%s; A-C %+.3f pawns)\n",
           nk, (t1 - t0) * 1e3, rc ? err : "ok", v ? v->contrasts[0].pawns : 0.0);
    stats_values_destroy(&v);
    t0 = s_now();
    rc = stats_values_fit(g, ng, &v, err, sizeof err);
    t1 = s_now();
    printf("values     the same game by game (%zu records): fit %.0f ms (%s; A-C %+.3f pawns)\n", ng,
           (t1 - t0) * 1e3, rc ? err : "ok", v ? v->contrasts[0].pawns : 0.0);
    stats_values_destroy(&v);
    free(g);
    free(kinds);
}

int main(void)
{
    char err[256];
    double sink = 0.0;
    stats_counts_t c = { { 100, 400, 900, 500, 150 }, 0, 0, 0 };
    for (int model = 0; model < 2; model++) {
        stats_sprt_params_t p;
        stats_sprt_params_default(&p);
        p.model = (stats_elo_model_t) model;
        int n = 100000;
        double t0 = s_now(), llr;
        for (int i = 0; i < n; i++) {
            c.penta[2] = 900 + i % 101;
            stats_sprt_llr(&p, &c, &llr, err, sizeof err);
            sink += llr;
        }
        double t1 = s_now();
        stats_sprt_report_t r;
        int m = 500;
        for (int i = 0; i < m; i++) {
            c.penta[2] = 900 + i;
            stats_sprt_report(&p, &c, &r, err, sizeof err);
            sink += r.seq_elo;
        }
        double t2 = s_now();
        stats_dist_t shape;
        stats_dist_from_draw_model(0.0, 0.6, 1, &shape);
        stats_sprt_expect_t x;
        for (int i = 0; i < m; i++) {
            stats_sprt_expect(&p, &shape, 0.01 * i, &x, err, sizeof err);
            sink += x.expected_n;
        }
        double t3 = s_now();
        printf("%-10s LLR %.2f us, report %.1f us, calculator %.1f us\n", stats_model_name(p.model),
               (t1 - t0) / n * 1e6, (t2 - t1) / m * 1e6, (t3 - t2) / m * 1e6);
    }

    /* a values study: 9 imbalances x 2000 pairs = 36000 games */
    static const int8_t study[9][STATS_PIECE_NB] = {
        { 0, 0, 0, 0, 1, -1, 0 }, { 0, 0, 0, 0, 1, 0, -1 }, { 0, 0, 0, 0, 0, 1, -1 },
        { 0, -1, 0, -1, 1, 0, 0 }, { 0, 0, -1, -1, 0, 1, 0 }, { 0, -1, 1, 0, 0, 0, 0 },
        { -1, 0, -1, 1, 0, 0, 0 }, { -3, 1, 0, 0, 0, 0, 0 }, { -1, 0, 0, 0, 0, 0, 0 },
    };
    size_t n = 9 * 2000 * 2, u = 0;
    stats_game_t *g = calloc(n, sizeof *g);
    stats_rng_t rng;
    stats_rng_seed(&rng, 1);
    for (int s = 0; s < 9; s++)
        for (int k = 0; k < 2000; k++)
            for (int w = 0; w < 2; w++, u++) {
                memcpy(g[u].diff, study[s], STATS_PIECE_NB);
                g[u].test_white = (int8_t) w;
                g[u].pair = s * 2000 + k;
                double pr[3] = { 0.4, 0.15, 0.45 };
                g[u].score = 0.5 * stats_rng_pick(&rng, pr, 3);
                if (s == 8) /* pawn odds: the pawn-short side does worse */
                    g[u].score = 0.5 * stats_rng_pick(&rng, (const double[]) { 0.5, 0.15, 0.35 }, 3);
            }
    double t0 = s_now();
    stats_values_t *v = NULL;
    int rc = stats_values_fit(g, n, &v, err, sizeof err);
    double t1 = s_now();
    printf("values     fit of %zu games: %.1f ms (%s, %d Newton steps)\n", n, (t1 - t0) * 1e3,
           rc ? err : "ok", v ? v->iterations : 0);
    stats_values_destroy(&v);
    free(g);

    stats_spsa_param_t ps[32];
    for (int i = 0; i < 32; i++) {
        snprintf(ps[i].name, sizeof ps[i].name, "p%d", i);
        ps[i].start = 100, ps[i].min = 0, ps[i].max = 200, ps[i].c_end = 5, ps[i].r_end = 0.002;
    }
    stats_spsa_config_t cfg = { 32, ps, 100000, 0.1, 0.602, 0.101 };
    stats_spsa_t *sp = stats_spsa_new(&cfg, err, sizeof err);
    int m = 10000;
    t0 = s_now();
    for (int i = 0; i < m; i++) {
        int8_t sg[32];
        for (int j = 0; j < 32; j++)
            sg[j] = (int8_t) stats_rng_sign(&rng);
        stats_spsa_step_t st;
        stats_spsa_propose(sp, sg, &st, err, sizeof err);
        stats_spsa_update(sp, &st, 8, 5, 4, err, sizeof err);
    }
    t1 = s_now();
    cJSON *j = stats_spsa_to_json(sp);
    char *text = cJSON_PrintUnformatted(j);
    double t2 = s_now();
    printf("spsa       32 params: propose+update of 8 pairs %.2f us; JSON of %d history entries %zu kB in %.1f ms\n",
           (t1 - t0) / m * 1e6, stats_spsa_history_size(sp), strlen(text) / 1024, (t2 - t1) * 1e3);
    free(text);
    cJSON_Delete(j);
    stats_spsa_destroy(&sp);
    s_million(&rng);
    return sink == 12345.0;
}
