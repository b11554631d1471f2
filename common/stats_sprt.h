/* stats_sprt.h - the generalised SPRT on game pairs (or single games) and the
 * SPRT calculator: LLR, stop bounds, verdict, estimates, the bias-aware
 * estimate after a sequential stop, and the expected length / pass
 * probability of a test. Methods: docs/methods.md, "The GSPRT".
 *
 *   stats_sprt_params_t p;
 *   stats_sprt_params_default(&p);                 nElo [0, 5], alpha = beta = 0.05
 *   stats_sprt_report_t r;
 *   if (stats_sprt_report(&p, &counts, &r, err, sizeof err) == 0)
 *       stats_sprt_format(&r, buf, sizeof buf);
 */
#ifndef CAPA_STATS_SPRT_H
#define CAPA_STATS_SPRT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "stats_counts.h"
#include "stats_dist.h"
#include "stats_elo.h"

typedef enum {
    STATS_MODEL_NORMALIZED = 0, /* hypotheses in normalized Elo (the default) */
    STATS_MODEL_LOGISTIC = 1    /* hypotheses in logistic Elo */
} stats_elo_model_t;

typedef enum {
    STATS_SPRT_CONTINUE = 0,
    STATS_SPRT_ACCEPT_H0 = 1, /* LLR <= lower bound: elo0 holds (fail) */
    STATS_SPRT_ACCEPT_H1 = 2  /* LLR >= upper bound: elo1 holds (pass) */
} stats_verdict_t;

typedef struct {
    double elo0, elo1;   /* H0 and H1 in the model's unit, elo0 < elo1 */
    double alpha, beta;  /* type I and II error rates, each in (0, 0.5] */
    stats_elo_model_t model;
    int trinomial;       /* 1: use W/D/L even when pair counts exist */
} stats_sprt_params_t;

/* nElo [0, 5], alpha = beta = 0.05, pentanomial when pairs are known. */
void stats_sprt_params_default(stats_sprt_params_t *p);

/* Checks ranges; returns 0 or CAPA_ERANGE with a message. */
int stats_sprt_params_check(const stats_sprt_params_t *p, char *err, size_t errlen);

/* Wald's stop bounds: lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha). */
void stats_sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* "normalized"/"nelo" or "logistic"/"elo" -> model; -1 for anything else. */
int stats_model_parse(const char *name);
const char *stats_model_name(stats_elo_model_t model);
const char *stats_verdict_name(stats_verdict_t verdict);

typedef struct {
    stats_sprt_params_t params;
    stats_counts_t counts;
    int pentanomial;        /* 1: the LLR used pair counts; 0: W/D/L */
    double n;               /* pairs (pentanomial) or games the LLR counts */
    double llr, lower, upper;
    stats_verdict_t verdict;
    stats_estimate_t est;   /* fixed-sample estimates (MLE) with 95% intervals */
    /* The estimate in the test's unit (Elo or nElo) that takes the
     * sequential stopping rule into account: the median-unbiased estimate
     * and its 95% interval from the Brownian approximation of the LLR. For a
     * test that has not stopped it is an estimate conditioned on the
     * stopping rule as well. */
    double plain_elo;       /* the MLE in the test's unit (est.nelo or est.elo) */
    double seq_elo, seq_elo_lo, seq_elo_hi;
    /* 1 when the estimate above was adjusted for the stopping rule; 0 when
     * there is no data or the LLR lies beyond a bound by more than the
     * bounds' distance (such counts did not come from a test stopped when it
     * first crossed a bound): then seq_* repeat the fixed-sample estimate. */
    int sequential;
    /* For a stopped test (sequential = 1 and a verdict): Whitehead's
     * bias-adjusted estimate, the value e whose expected MLE at the stop
     * equals the observed one (under the same Brownian model); it targets
     * the mean where seq_elo targets the median. Otherwise plain_elo. */
    double mean_elo;
} stats_sprt_report_t;

/* LLR of the counts (0 for no games). Returns 0 or an error with message. */
int stats_sprt_llr(const stats_sprt_params_t *p, const stats_counts_t *c, double *llr,
                   char *err, size_t errlen);

/* The whole report from counts and parameters: checks both, then fills r. */
int stats_sprt_report(const stats_sprt_params_t *p, const stats_counts_t *c,
                      stats_sprt_report_t *r, char *err, size_t errlen);

/* A human-readable multi-line report into buf (always NUL-terminated when
 * len > 0). Returns 0, or CAPA_EFULL if it did not fit. */
int stats_sprt_format(const stats_sprt_report_t *r, char *buf, size_t len);

/* The report as a JSON object; the caller owns it (cJSON_Delete). Infinite
 * ratios become null. NULL only when memory runs out. */
cJSON *stats_sprt_to_json(const stats_sprt_report_t *r);

/* Siegmund's overshoot constant: E[overshoot] ~ 0.583 sd of one LLR step. */
#define STATS_SPRT_OVERSHOOT 0.5826

typedef struct {
    double pass_probability; /* P(H1 accepted): the operating characteristic */
    double expected_n;       /* expected pairs (games for a trinomial test) */
    double llr_mean;         /* LLR increment per pair (or game): mean */
    double llr_sd;           /* and standard deviation */
} stats_sprt_expect_t;

/* What a test with parameters p will do when the true value is elo (in the
 * test's unit) and the outcomes look like shape (a pentanomial or trinomial
 * distribution, e.g. from stats_dist_from_draw_model or earlier counts): the
 * hypotheses and the truth are the maximum-likelihood tilts of shape to
 * elo0, elo1 and elo; Wald's approximations (Brownian motion of the LLR,
 * bounds moved out by the expected overshoot) give the pass probability and
 * the expected length. The kind of test
 * (pentanomial or not) follows shape->n. Returns 0 or an error. */
int stats_sprt_expect(const stats_sprt_params_t *p, const stats_dist_t *shape, double elo,
                      stats_sprt_expect_t *out, char *err, size_t errlen);

#endif
