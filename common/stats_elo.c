/* stats_elo.c - Elo scales and the estimates with their intervals. */
#include "stats_elo.h"

#include <math.h>

#include "err.h"
#include "stats_dist.h"

static double s_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

double stats_elo_from_score(double s)
{
    if (!(s > 0.0))
        return -STATS_ELO_LIMIT;
    if (!(s < 1.0))
        return STATS_ELO_LIMIT;
    return s_clamp(-400.0 * log10(1.0 / s - 1.0), -STATS_ELO_LIMIT, STATS_ELO_LIMIT);
}

double stats_score_from_elo(double elo)
{
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

double stats_normal_cdf(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

double stats_normal_log_cdf(double x)
{
    if (x > -35.0)
        return log(0.5 * erfc(-x / M_SQRT2));
    /* Mills-ratio expansion: Phi(x) = phi(x)/|x| (1 - 1/x^2 + 3/x^4 - 15/x^6 ...) */
    double r = 1.0 / (x * x);
    return -0.5 * x * x - log(-x) - 0.5 * log(2.0 * M_PI) + log1p(-r + 3.0 * r * r - 15.0 * r * r * r);
}

double stats_normal_quantile(double p)
{
    if (!(p > 0.0))
        return -40.0;
    if (!(p < 1.0))
        return 40.0;
    /* Bisection on the monotone cdf, then Newton steps (phi is the slope).
     * In the lower tail compare logarithms so that tiny p stay exact. */
    double lo = -40.0, hi = 40.0, lp = log(p);
    for (int i = 0; i < 80; i++) {
        double mid = 0.5 * (lo + hi);
        int below = p < 0.5 ? stats_normal_log_cdf(mid) < lp : stats_normal_cdf(mid) < p;
        if (below)
            lo = mid;
        else
            hi = mid;
    }
    double x = 0.5 * (lo + hi);
    for (int i = 0; i < 2; i++) {
        double dens = exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
        if (!(dens > 1e-300))
            break;
        /* Phi(x) - p, written with the upper tail when p is near 1 */
        double f = p < 0.5 ? stats_normal_cdf(x) - p : (1.0 - p) - 0.5 * erfc(x / M_SQRT2);
        double nx = x - f / dens;
        if (nx > lo - 1e-9 && nx < hi + 1e-9)
            x = nx;
    }
    return x;
}

static void s_neutral(stats_estimate_t *e)
{
    e->score = 0.5;
    e->score_lo = 0.0;
    e->score_hi = 1.0;
    e->elo = e->nelo = 0.0;
    e->elo_lo = e->nelo_lo = -STATS_ELO_LIMIT;
    e->elo_hi = e->nelo_hi = STATS_ELO_LIMIT;
    e->los = 0.5;
}

int stats_estimate(const stats_counts_t *c, double z, stats_estimate_t *out,
                   char *err, size_t errlen)
{
    int rc = stats_counts_check(c, err, errlen);
    if (rc)
        return rc;
    if (!(z > 0.0))
        z = stats_normal_quantile(0.975);
    stats_estimate_t e = { 0 };
    int64_t pairs = stats_counts_pairs(c), games = stats_counts_games(c);
    e.pentanomial = pairs > 0;
    e.draw_ratio = games > 0 ? (double) c->draws / (double) games : -1.0;
    e.pair_draw_ratio = pairs > 0 ? (double) c->penta[2] / (double) pairs : -1.0;
    if (pairs > 0) {
        int64_t bad = c->penta[0] + c->penta[1], good = c->penta[3] + c->penta[4];
        e.pairs_ratio = bad > 0 ? (double) good / (double) bad : good > 0 ? INFINITY : 1.0;
    } else {
        e.pairs_ratio = -1.0;
    }
    s_neutral(&e);
    if (pairs == 0 && games == 0) {
        *out = e;
        return 0;
    }
    /* Unregularised empirical moments of the per-observation score. */
    double x[5], cnt[5];
    int n;
    if (e.pentanomial) {
        n = 5;
        for (int i = 0; i < 5; i++) {
            x[i] = 0.25 * i;
            cnt[i] = (double) c->penta[i];
        }
        e.n = (double) pairs;
    } else {
        n = 3;
        x[0] = 0.0, x[1] = 0.5, x[2] = 1.0;
        cnt[0] = (double) c->losses, cnt[1] = (double) c->draws, cnt[2] = (double) c->wins;
        e.n = (double) games;
    }
    double mu = 0.0, m2 = 0.0, m3 = 0.0, m4 = 0.0;
    for (int i = 0; i < n; i++)
        mu += cnt[i] * x[i] / e.n;
    for (int i = 0; i < n; i++) {
        double d = x[i] - mu, w = cnt[i] / e.n;
        m2 += w * d * d;
        m3 += w * d * d * d;
        m4 += w * d * d * d * d;
    }
    double se = sqrt(m2 / e.n);
    e.score = mu;
    e.score_lo = s_clamp(mu - z * se, 0.0, 1.0);
    e.score_hi = s_clamp(mu + z * se, 0.0, 1.0);
    e.elo = stats_elo_from_score(mu);
    e.elo_lo = stats_elo_from_score(e.score_lo);
    e.elo_hi = stats_elo_from_score(e.score_hi);
    e.los = se > 0.0 ? stats_normal_cdf((mu - 0.5) / se) : mu > 0.5 ? 1.0 : mu < 0.5 ? 0.0 : 0.5;
    /* Normalized Elo: t = (mu - 1/2) / sd per observation; a pair's sd is
     * taken as sd(game) / sqrt 2, so per game t_game = t_pair / sqrt 2. */
    double per_t = STATS_NELO_PER_T / (e.pentanomial ? M_SQRT2 : 1.0);
    if (m2 > 0.0) {
        double sigma = sqrt(m2), t = (mu - 0.5) / sigma;
        double vt = (1.0 - t * m3 / (sigma * m2) + 0.25 * t * t * (m4 / (m2 * m2) - 1.0)) / e.n;
        double set = sqrt(fmax(vt, 0.0));
        e.nelo = s_clamp(per_t * t, -STATS_ELO_LIMIT, STATS_ELO_LIMIT);
        e.nelo_lo = s_clamp(per_t * (t - z * set), -STATS_ELO_LIMIT, STATS_ELO_LIMIT);
        e.nelo_hi = s_clamp(per_t * (t + z * set), -STATS_ELO_LIMIT, STATS_ELO_LIMIT);
    } else {
        double v = mu > 0.5 ? STATS_ELO_LIMIT : mu < 0.5 ? -STATS_ELO_LIMIT : 0.0;
        e.nelo = e.nelo_lo = e.nelo_hi = v;
    }
    *out = e;
    return 0;
}
