/* stats_dist.h - the discrete score distribution of a pair or a game, and
 * its maximum-likelihood fits under a constraint (the heart of the GSPRT).
 *
 * Outcomes x[i] are scores in [0, 1] for the side under test: pentanomial
 * 0, 1/4, 1/2, 3/4, 1 (pair score divided by two) or trinomial 0, 1/2, 1.
 * The empirical distribution replaces a zero count by STATS_DIST_REG (as
 * fishtest does) so that every outcome keeps a positive probability and the
 * constrained fits below exist. See docs/methods.md, "The GSPRT".
 */
#ifndef CAPA_STATS_DIST_H
#define CAPA_STATS_DIST_H

#include <stdint.h>

#define STATS_DIST_MAX 5
#define STATS_DIST_REG 1e-3

typedef struct {
    int n;                      /* number of outcomes: 5 or 3 */
    double x[STATS_DIST_MAX];   /* outcome scores, increasing */
    double p[STATS_DIST_MAX];   /* probabilities, summing to 1 */
} stats_dist_t;

/* Regularised empirical distribution of pentanomial counts; returns the
 * regularised total (0 when every count is 0; then d is uniform). */
double stats_dist_from_penta(const int64_t penta[5], stats_dist_t *d);

/* The same for single games: losses, draws, wins -> outcomes 0, 1/2, 1. */
double stats_dist_from_games(int64_t wins, int64_t draws, int64_t losses, stats_dist_t *d);

/* Mean and variance of the outcome. */
void stats_dist_moments(const stats_dist_t *d, double *mean, double *var);

/* The distribution q closest to d in Kullback-Leibler sense (the maximum-
 * likelihood distribution for data distributed as d) among those with mean
 * score s: q[i] = p[i] / (1 + lambda (x[i] - s)), lambda found by a safeguarded
 * 1-D root search. Returns 0, or CAPA_ERANGE when s is not strictly inside
 * (x[0], x[n-1]). */
int stats_dist_fit_mean(const stats_dist_t *d, double s, stats_dist_t *q);

/* The same among the distributions with (mean - ref) / sd = t (normalized
 * score). Fixed-point iteration on the Lagrange condition, each step a
 * mean-type root search; returns 0, or CAPA_ERANGE if it cannot meet the
 * constraint within 1e-9. */
int stats_dist_fit_t(const stats_dist_t *d, double ref, double t, stats_dist_t *q);

/* E_d[log(q1 / q0)] = sum_i d.p[i] log(q1.p[i] / q0.p[i]): the mean
 * log-likelihood ratio per observation of q1 against q0 when outcomes are
 * distributed as d (all three over the same outcomes). */
double stats_dist_expected_log_ratio(const stats_dist_t *d, const stats_dist_t *q1,
                                     const stats_dist_t *q0);

/* A simple draw model: independent games, each a draw with probability
 * draw_ratio and otherwise won or lost so that the expected score is the
 * logistic score of elo (the draw ratio is lowered where it must be so that
 * no probability is negative). pentanomial != 0 gives the pair distribution
 * (two independent games), else the game distribution. */
void stats_dist_from_draw_model(double elo, double draw_ratio, int pentanomial, stats_dist_t *d);

#endif
