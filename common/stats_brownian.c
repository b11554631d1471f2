/* stats_brownian.c - exit probabilities of Brownian motion with drift from an
 * interval, by the method of images (series of normal distribution values).
 *
 * With unit variance (divide mu, a, b, y by sigma) and width w = b - a, the
 * density of the paths that are still inside at time T is
 *   p(T, x) = exp(mu x - mu^2 T / 2) sum_k [phi_T(x - 2kw) - phi_T(x - 2b + 2kw)]
 * and exp(mu x - mu^2 T/2) phi_T(x - c) = exp(mu c) phi_T(x - c - mu T), so the
 * mass below y is a sum of terms exp(mu c) [Phi(z2) - Phi(z1)]. Each term is
 * at most the free (unabsorbed) mass, so no term overflows; they are formed
 * in logarithms. */
#include "stats_brownian.h"

#include <math.h>

#include "stats_elo.h"

static double s_clamp01(double p)
{
    return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
}

/* log(Phi(z2) - Phi(z1)) for z1 < z2; -inf when the difference is 0. */
static double s_log_phi_diff(double z1, double z2)
{
    if (!(z2 > z1))
        return -INFINITY;
    if (z1 >= 0.0) { /* mirror into the lower tail: Phi(-z1) - Phi(-z2) */
        double t = -z1;
        z1 = -z2;
        z2 = t;
    }
    if (z2 <= 0.0) {
        double l2 = stats_normal_log_cdf(z2), l1 = stats_normal_log_cdf(z1);
        double r = exp(l1 - l2);
        return r >= 1.0 ? -INFINITY : l2 + log1p(-r);
    }
    return log(stats_normal_cdf(z2) - stats_normal_cdf(z1));
}

/* Mass of exp(mu c) * N(c + mu T, T) on [a, y]. */
static double s_term(double mu, double c, double a, double y, double T)
{
    double st = sqrt(T), m = c + mu * T;
    double l = s_log_phi_diff((a - m) / st, (y - m) / st);
    if (l == -INFINITY)
        return 0.0;
    double e = mu * c + l;
    return e > 700.0 ? exp(700.0) : exp(e);
}

/* P(tau > T, X(T) < y) with unit variance. */
static double s_survival(double mu, double a, double b, double T, double y)
{
    if (y <= a)
        return 0.0;
    if (y > b)
        y = b;
    if (!(T > 0.0))
        return y >= 0.0 ? 1.0 : 0.0; /* at T = 0 the path sits at 0 */
    /* A term with image at c weighs at most exp(-|c| (|c| - 2B) / (2T)) with
     * B = max(|a|, |b|): beyond c = B + sqrt(B^2 + 80 T) all are below e^-40. */
    double w = b - a, B = fmax(fabs(a), fabs(b)), sum = 0.0;
    /* Long after the width's diffusion time nothing survives: the killed
     * mass is below (4/pi) exp(-pi^2 T / (2 w^2) + B^2 / (2 T)) for any drift,
     * under e^-59 here. This also keeps the image series short. */
    if (M_PI * M_PI * T / (2.0 * w * w) > 60.0)
        return 0.0;
    double kmax = ceil((B + sqrt(B * B + 80.0 * T)) / (2.0 * w)) + 1.0;
    if (kmax > 200000.0)
        kmax = 200000.0;
    for (int k = 0; k <= (int) kmax; k++) {
        for (int sgn = (k == 0 ? 1 : -1); sgn <= 1; sgn += 2) {
            double c = 2.0 * sgn * k * w;
            sum += s_term(mu, c, a, y, T) - s_term(mu, 2.0 * b - c, a, y, T);
        }
    }
    return s_clamp01(sum);
}

/* P(tau <= T, exit through b) with unit variance and mu > 0. */
static double s_upper_by_pos(double mu, double a, double b, double T)
{
    double w = b - a;
    double denom = -expm1(-2.0 * mu * w);
    double p_inf = -expm1(2.0 * mu * a) / denom;
    double inside = (s_survival(mu, a, b, T, b) - exp(2.0 * mu * a) * s_survival(-mu, a, b, T, b)) / denom;
    return s_clamp01(p_inf - inside);
}

static double s_exit_by(double mu, double a, double b, double T, int upper)
{
    /* at mu = 0 the formula is 0/0; a drift of 1e-7/w changes nothing visible */
    double w = b - a;
    if (fabs(mu) * w < 1e-7)
        mu = (mu < 0.0 ? -1e-7 : 1e-7) / w;
    if (!(T > 0.0))
        return 0.0;
    if (upper) {
        if (mu > 0.0)
            return s_upper_by_pos(mu, a, b, T);
        double lower = s_upper_by_pos(-mu, -b, -a, T);
        return s_clamp01(1.0 - s_survival(mu, a, b, T, b) - lower);
    }
    if (mu < 0.0)
        return s_upper_by_pos(-mu, -b, -a, T);
    return s_clamp01(1.0 - s_survival(mu, a, b, T, b) - s_upper_by_pos(mu, a, b, T));
}

void stats_brownian_exits(double mu, double sigma, double a, double b, double T, double *up, double *down)
{
    double m = mu / sigma, lo = a / sigma, hi = b / sigma;
    double w = hi - lo;
    if (fabs(m) * w < 1e-7)
        m = (m < 0.0 ? -1e-7 : 1e-7) / w;
    if (!(T > 0.0)) {
        *up = *down = 0.0;
        return;
    }
    double inside = s_survival(m, lo, hi, T, hi);
    if (m > 0.0) {
        *up = s_upper_by_pos(m, lo, hi, T);
        *down = s_clamp01(1.0 - inside - *up);
    } else {
        *down = s_upper_by_pos(-m, -hi, -lo, T);
        *up = s_clamp01(1.0 - inside - *down);
    }
}

double stats_brownian_pass(double mu, double sigma, double a, double b)
{
    double theta = 2.0 * mu / (sigma * sigma);
    if (!isfinite(theta))
        return mu > 0.0 ? 1.0 : 0.0;
    if (fabs(theta) * (b - a) < 1e-10)
        return -a / (b - a);
    /* scale function exp(-theta x): P = (1 - e^{-theta a}) / (e^{-theta b} - e^{-theta a}),
     * rewritten so that no exponential overflows */
    if (theta > 0.0)
        return s_clamp01(expm1(theta * a) / expm1(theta * (a - b)));
    return s_clamp01((exp(theta * b) - exp(theta * (b - a))) / -expm1(theta * (b - a)));
}

double stats_brownian_expected_time(double mu, double sigma, double a, double b)
{
    double v = sigma * sigma;
    if (fabs(2.0 * mu / v) * (b - a) < 1e-6)
        return -a * b / v;
    double p = stats_brownian_pass(mu, sigma, a, b);
    return fmax(0.0, (p * b + (1.0 - p) * a) / mu);
}

double stats_brownian_survival(double mu, double sigma, double a, double b, double T, double y)
{
    return s_survival(mu / sigma, a / sigma, b / sigma, T, y / sigma);
}

double stats_brownian_exit_by(double mu, double sigma, double a, double b, double T, int upper)
{
    return s_exit_by(mu / sigma, a / sigma, b / sigma, T, upper);
}

double stats_brownian_outcome_cdf(double mu, double sigma, double a, double b, double T, double y)
{
    double m = mu / sigma, lo = a / sigma, hi = b / sigma, yy = y / sigma;
    if (yy >= hi)
        return s_clamp01(1.0 - s_exit_by(m, lo, hi, T, 1));
    return s_clamp01(s_exit_by(m, lo, hi, T, 0) + s_survival(m, lo, hi, T, yy));
}
