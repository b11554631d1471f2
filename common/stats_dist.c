/* stats_dist.c - empirical score distributions and their constrained MLEs. */
#include "stats_dist.h"

#include <math.h>

#include "err.h"
#include "stats_elo.h"

static double s_fill(stats_dist_t *d, int n, const double *x, const int64_t *count)
{
    double total = 0.0;
    d->n = n;
    for (int i = 0; i < n; i++) {
        d->x[i] = x[i];
        d->p[i] = count[i] > 0 ? (double) count[i] : STATS_DIST_REG;
        total += d->p[i];
    }
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= count[i] > 0;
    if (!any) {
        for (int i = 0; i < n; i++)
            d->p[i] = 1.0 / n;
        return 0.0;
    }
    for (int i = 0; i < n; i++)
        d->p[i] /= total;
    return total;
}

double stats_dist_from_penta(const int64_t penta[5], stats_dist_t *d)
{
    static const double X[5] = { 0.0, 0.25, 0.5, 0.75, 1.0 };
    return s_fill(d, 5, X, penta);
}

double stats_dist_from_games(int64_t wins, int64_t draws, int64_t losses, stats_dist_t *d)
{
    static const double X[3] = { 0.0, 0.5, 1.0 };
    const int64_t c[3] = { losses, draws, wins };
    return s_fill(d, 3, X, c);
}

void stats_dist_moments(const stats_dist_t *d, double *mean, double *var)
{
    double m = 0.0, v = 0.0;
    for (int i = 0; i < d->n; i++)
        m += d->p[i] * d->x[i];
    for (int i = 0; i < d->n; i++)
        v += d->p[i] * (d->x[i] - m) * (d->x[i] - m);
    if (mean)
        *mean = m;
    if (var)
        *var = v;
}

/* Solves sum_i p[i] u[i] / (1 + lambda u[i]) = 0 for lambda with every
 * 1 + lambda u[i] > 0 (needs some u > 0 and some u < 0). The left side falls
 * strictly in lambda and runs from +inf to -inf over that interval, so a
 * root exists and is unique; Newton steps that would leave the shrinking
 * bracket are replaced by bisection, which bounds the work. */
static int s_secular(const double *p, const double *u, int n, double *lambda)
{
    double umax = 0.0, umin = 0.0;
    for (int i = 0; i < n; i++) {
        if (p[i] <= 0.0)
            continue;
        if (u[i] > umax)
            umax = u[i];
        if (u[i] < umin)
            umin = u[i];
    }
    if (!(umax > 0.0) || !(umin < 0.0))
        return CAPA_ERANGE;
    double lo = -1.0 / umax, hi = -1.0 / umin, x = 0.0;
    for (int it = 0; it < 300; it++) {
        double g = 0.0, dg = 0.0;
        for (int i = 0; i < n; i++) {
            double den = 1.0 + x * u[i];
            g += p[i] * u[i] / den;
            dg -= p[i] * u[i] * u[i] / (den * den);
        }
        if (g == 0.0)
            break;
        if (g > 0.0)
            lo = x;
        else
            hi = x;
        double nx = dg < 0.0 ? x - g / dg : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (fabs(nx - x) <= 1e-15 * fmax(1.0, fabs(x)) || nx <= lo || nx >= hi) {
            x = nx > lo && nx < hi ? nx : x;
            break;
        }
        x = nx;
    }
    *lambda = x;
    return 0;
}

static void s_apply(const stats_dist_t *d, const double *u, double lambda, stats_dist_t *q)
{
    stats_dist_t r = *d;
    double total = 0.0;
    for (int i = 0; i < d->n; i++) {
        r.p[i] = d->p[i] / (1.0 + lambda * u[i]);
        total += r.p[i];
    }
    for (int i = 0; i < d->n; i++)
        r.p[i] /= total;
    *q = r;
}

int stats_dist_fit_mean(const stats_dist_t *d, double s, stats_dist_t *q)
{
    if (!(s > d->x[0] && s < d->x[d->n - 1]))
        return CAPA_ERANGE;
    double u[STATS_DIST_MAX], lambda;
    for (int i = 0; i < d->n; i++)
        u[i] = d->x[i] - s;
    int rc = s_secular(d->p, u, d->n, &lambda);
    if (rc)
        return rc;
    s_apply(d, u, lambda, q);
    return 0;
}

int stats_dist_fit_t(const stats_dist_t *d, double ref, double t, stats_dist_t *q)
{
    if (!isfinite(t) || !isfinite(ref))
        return CAPA_ERANGE;
    /* Start from the uniform distribution (as fishtest does): from the
     * empirical one, extreme data (all wins) would give a zero spread. */
    stats_dist_t cur = *d;
    for (int i = 0; i < d->n; i++)
        cur.p[i] = 1.0 / d->n;
    double mu, var;
    for (int it = 0; it < 1000; it++) {
        stats_dist_moments(&cur, &mu, &var);
        double sigma = sqrt(var);
        if (!(sigma > 0.0))
            return CAPA_ERANGE;
        double u[STATS_DIST_MAX], lambda;
        for (int i = 0; i < d->n; i++) {
            double z = (d->x[i] - mu) / sigma;
            u[i] = d->x[i] - ref - 0.5 * t * sigma * (1.0 + z * z);
        }
        if (s_secular(d->p, u, d->n, &lambda))
            return CAPA_ERANGE;
        stats_dist_t next;
        s_apply(d, u, lambda, &next);
        double change = 0.0;
        for (int i = 0; i < d->n; i++) {
            /* after the first rounds damp the step: the plain iteration can
             * cycle for extreme t, a damped one settles. */
            if (it >= 50)
                next.p[i] = 0.5 * (next.p[i] + cur.p[i]);
            change = fmax(change, fabs(next.p[i] - cur.p[i]));
        }
        cur = next;
        if (change < 1e-15)
            break;
    }
    /* With nearly all mass on one outcome (say all wins) lambda sits next to
     * a pole of the secular function and the constraint holds only to ~1e-8. */
    stats_dist_moments(&cur, &mu, &var);
    if (!(var > 0.0) || fabs((mu - ref) / sqrt(var) - t) > 1e-6 * fmax(1.0, fabs(t)))
        return CAPA_ERANGE;
    *q = cur;
    return 0;
}

double stats_dist_expected_log_ratio(const stats_dist_t *d, const stats_dist_t *q1,
                                     const stats_dist_t *q0)
{
    double s = 0.0;
    for (int i = 0; i < d->n; i++)
        s += d->p[i] * log(q1->p[i] / q0->p[i]);
    return s;
}

void stats_dist_from_draw_model(double elo, double draw_ratio, int pentanomial, stats_dist_t *d)
{
    double s = stats_score_from_elo(elo);
    double dr = draw_ratio < 0.0 ? 0.0 : draw_ratio;
    dr = fmin(dr, 2.0 * fmin(s, 1.0 - s));
    double g[3] = { 1.0 - s - 0.5 * dr, dr, s - 0.5 * dr }; /* L, D, W */
    for (int i = 0; i < 3; i++)
        g[i] = fmax(g[i], 0.0);
    if (!pentanomial) {
        d->n = 3;
        for (int i = 0; i < 3; i++) {
            d->x[i] = 0.5 * i;
            d->p[i] = g[i];
        }
        return;
    }
    d->n = 5;
    for (int i = 0; i < 5; i++) {
        d->x[i] = 0.25 * i;
        d->p[i] = 0.0;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d->p[i + j] += g[i] * g[j];
}
