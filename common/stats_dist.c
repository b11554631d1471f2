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

/* The tilt q[i] = p[i] / (1 + lambda u[i]) (normalised) with lambda the root
 * of sum_i p[i] u[i] / (1 + lambda u[i]) = 0 on the interval where every
 * 1 + lambda u[i] > 0 (needs some u > 0 and some u < 0). The left side falls
 * strictly in lambda from +inf to -inf over that interval, so the root exists
 * and is unique; Newton steps that would leave the shrinking bracket are
 * replaced by bisection, which bounds the work. When the root lies next to
 * a pole (an outcome with a tiny empirical share that the constraint needs,
 * e.g. a regularised zero count), 1 + lambda u[k] loses its digits in lambda;
 * the root is then found again in delta = 1 + lambda u[k], on a log scale. */
static int s_tilt(const double *p, const double *u, int n, double *q)
{
    double umax = 0.0, umin = 0.0;
    int kmax = -1, kmin = -1;
    for (int i = 0; i < n; i++) {
        if (p[i] <= 0.0)
            continue;
        if (u[i] > umax)
            umax = u[i], kmax = i;
        if (u[i] < umin)
            umin = u[i], kmin = i;
    }
    if (kmax < 0 || kmin < 0)
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
    double total = 0.0;
    double dmax = 1.0 + x * umax, dmin = 1.0 + x * umin;
    int k = dmax < dmin ? kmax : kmin;
    double dk = fmin(dmax, dmin);
    if (dk > 1e-6) {
        for (int i = 0; i < n; i++)
            total += q[i] = p[i] / (1.0 + x * u[i]);
    } else {
        /* 1 + lambda u[i] = (1 - r[i]) + delta r[i] with r = u / u[k]; the
         * sum has the sign of u[k] as delta -> 0 and changes it once before
         * delta = 1e-5 (the root is that close to the pole). */
        double r[STATS_DIST_MAX], llo = log(1e-300), lhi = log(1e-5), delta = dk;
        for (int i = 0; i < n; i++)
            r[i] = u[i] / u[k];
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (llo + lhi);
            delta = exp(mid);
            double g = 0.0;
            for (int i = 0; i < n; i++)
                g += p[i] * u[i] / (i == k ? delta : (1.0 - r[i]) + delta * r[i]);
            if ((g > 0.0) == (u[k] > 0.0))
                llo = mid;
            else
                lhi = mid;
        }
        for (int i = 0; i < n; i++)
            total += q[i] = p[i] / (i == k ? delta : fmax((1.0 - r[i]) + delta * r[i], 1e-300));
    }
    for (int i = 0; i < n; i++)
        q[i] /= total;
    return 0;
}

int stats_dist_fit_mean(const stats_dist_t *d, double s, stats_dist_t *q)
{
    if (!(s > d->x[0] && s < d->x[d->n - 1]))
        return CAPA_ERANGE;
    double u[STATS_DIST_MAX];
    for (int i = 0; i < d->n; i++)
        u[i] = d->x[i] - s;
    stats_dist_t r = *d;
    int rc = s_tilt(d->p, u, d->n, r.p);
    if (rc)
        return rc;
    *q = r;
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
        double u[STATS_DIST_MAX];
        for (int i = 0; i < d->n; i++) {
            double z = (d->x[i] - mu) / sigma;
            u[i] = d->x[i] - ref - 0.5 * t * sigma * (1.0 + z * z);
        }
        stats_dist_t next = *d;
        if (s_tilt(d->p, u, d->n, next.p))
            return CAPA_ERANGE;
        double change = 0.0;
        for (int i = 0; i < d->n; i++) {
            /* after the first rounds damp the step: the plain iteration can
             * cycle for extreme t, a damped one settles. */
            if (it >= 50)
                next.p[i] = 0.5 * (next.p[i] + cur.p[i]);
            change = fmax(change, fabs(next.p[i] - cur.p[i]));
        }
        cur = next;
        if (change < 1e-13) /* the noise floor near a pole is about 1e-14 */
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
