/* stats_elo.h - Elo scales, normal-distribution helpers and the estimates a
 * report shows (score, logistic Elo, normalized Elo, LOS, draw and pairs
 * ratios) with 95% intervals. Formulas: docs/methods.md, "Elo".
 */
#ifndef CAPA_STATS_ELO_H
#define CAPA_STATS_ELO_H

#include <stddef.h>

#include "stats_counts.h"

/* Elo values are kept within +-STATS_ELO_LIMIT: a score of exactly 0 or 1
 * (all losses, all wins) maps to the limit instead of an infinity. */
#define STATS_ELO_LIMIT 2400.0
/* nElo per unit of t = (score - 1/2) / sd(game score): 800 / ln 10. */
#define STATS_NELO_PER_T 347.43558552260146

/* Logistic Elo of an expected score: -400 log10(1/s - 1), clamped. */
double stats_elo_from_score(double s);

/* Expected score of a logistic Elo difference: 1 / (1 + 10^(-elo/400)). */
double stats_score_from_elo(double elo);

/* Standard normal distribution function, its logarithm (accurate far into
 * the lower tail, finite for every finite x), and its inverse (accurate to
 * about 1e-15; p <= 0 or p >= 1 give -40 or +40). */
double stats_normal_cdf(double x);
double stats_normal_log_cdf(double x);
double stats_normal_quantile(double p);

typedef struct {
    int pentanomial;         /* 1: from pair counts; 0: from W/D/L */
    double n;                /* pairs or games */
    double score;            /* mean score per game of the side under test */
    double score_lo, score_hi;
    double elo, elo_lo, elo_hi;       /* logistic Elo */
    double nelo, nelo_lo, nelo_hi;    /* normalized Elo */
    double los;              /* likelihood of superiority: P(true score > 1/2) */
    double draw_ratio;       /* drawn games / games; -1 when W/D/L are unknown */
    double pair_draw_ratio;  /* pairs scoring 1/2 / pairs; -1 without pairs */
    double pairs_ratio;      /* (n3 + n4) / (n0 + n1) as fishtest shows it;
                                INFINITY when n0 + n1 = 0 < n3 + n4, 1 when
                                both are 0; -1 without pairs */
} stats_estimate_t;

/* Estimates from counts: from the pentanomial counts when there are any
 * (pairs are the independent units), otherwise from W/D/L. Zero counts give
 * a neutral estimate (score 1/2, Elo 0, the widest intervals). `z` is the
 * two-sided interval's normal quantile (1.959964 for 95%); use 0 for the
 * default. Returns 0 or the error of stats_counts_check. */
int stats_estimate(const stats_counts_t *c, double z, stats_estimate_t *out,
                   char *err, size_t errlen);

#endif
