/* stats_brownian.h - Brownian motion with drift between two absorbing
 * barriers: the continuous model of an SPRT's log-likelihood ratio.
 *
 * X(t) = mu t + sigma W(t), X(0) = 0, stopped at the first exit tau from
 * (a, b), a < 0 < b. Used for the operating characteristic and expected
 * length of an SPRT (Wald's approximations) and for the bias-aware estimate
 * of a stopped or running test (docs/methods.md, "After the stop").
 * All functions return values in [0, 1] (or >= 0 for times), never NaN, for
 * finite inputs with sigma > 0 and a < 0 < b.
 */
#ifndef CAPA_STATS_BROWNIAN_H
#define CAPA_STATS_BROWNIAN_H

/* P(X leaves through b): the pass probability. */
double stats_brownian_pass(double mu, double sigma, double a, double b);

/* E[tau]: the expected stopping time. */
double stats_brownian_expected_time(double mu, double sigma, double a, double b);

/* P(tau > T and X(T) < y): still running at T, below y (y clamped to [a, b]). */
double stats_brownian_survival(double mu, double sigma, double a, double b, double T, double y);

/* P(tau <= T and X(tau) = b) (upper != 0) or = a (upper == 0). */
double stats_brownian_exit_by(double mu, double sigma, double a, double b, double T, int upper);

/* Both at once (cheaper): *up = P(tau <= T, X = b), *down = P(tau <= T, X = a). */
void stats_brownian_exits(double mu, double sigma, double a, double b, double T, double *up, double *down);

/* The probability of an outcome "worse" than (T, y): failing before T, or
 * still running at T below y. For a test that passed at T (y >= b) this is
 * 1 - P(pass by T); one that failed at T (y <= a): P(fail by T). Falls as
 * mu grows, which makes it usable for median-unbiased estimates. */
double stats_brownian_outcome_cdf(double mu, double sigma, double a, double b, double T, double y);

#endif
