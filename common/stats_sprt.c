/* stats_sprt.c - GSPRT on pentanomial or trinomial counts, reports, and the
 * SPRT calculator. */
#include "stats_sprt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "textbuf.h"
#include "stats_brownian.h"

void stats_sprt_params_default(stats_sprt_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->elo0 = 0.0;
    p->elo1 = 5.0;
    p->alpha = 0.05;
    p->beta = 0.05;
    p->model = STATS_MODEL_NORMALIZED;
}

int stats_sprt_params_check(const stats_sprt_params_t *p, char *err, size_t errlen)
{
    if (!isfinite(p->elo0) || !isfinite(p->elo1) || !(p->elo0 < p->elo1))
        return capa_fail(err, errlen, CAPA_ERANGE, "elo0 (%g) must be below elo1 (%g)", p->elo0, p->elo1);
    if (fabs(p->elo0) > 1000.0 || fabs(p->elo1) > 1000.0)
        return capa_fail(err, errlen, CAPA_ERANGE, "elo0 and elo1 must lie within +-1000");
    if (!(p->alpha > 0.0 && p->alpha <= 0.5) || !(p->beta > 0.0 && p->beta <= 0.5))
        return capa_fail(err, errlen, CAPA_ERANGE, "alpha (%g) and beta (%g) must lie in (0, 0.5]",
                         p->alpha, p->beta);
    if (p->model != STATS_MODEL_NORMALIZED && p->model != STATS_MODEL_LOGISTIC)
        return capa_fail(err, errlen, CAPA_ERANGE, "unknown Elo model %d", (int) p->model);
    return 0;
}

void stats_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
}

int stats_model_parse(const char *name)
{
    if (!name)
        return -1;
    if (!strcasecmp(name, "normalized") || !strcasecmp(name, "nelo"))
        return STATS_MODEL_NORMALIZED;
    if (!strcasecmp(name, "logistic") || !strcasecmp(name, "elo"))
        return STATS_MODEL_LOGISTIC;
    return -1;
}

const char *stats_model_name(stats_elo_model_t model)
{
    return model == STATS_MODEL_LOGISTIC ? "logistic" : "normalized";
}

const char *stats_verdict_name(stats_verdict_t verdict)
{
    switch (verdict) {
    case STATS_SPRT_ACCEPT_H0: return "H0 accepted";
    case STATS_SPRT_ACCEPT_H1: return "H1 accepted";
    default: return "continue";
    }
}

/* The distribution closest to d whose Elo (in the test's unit) is elo. */
static int s_fit(const stats_sprt_params_t *p, const stats_dist_t *d, double elo, stats_dist_t *q)
{
    if (p->model == STATS_MODEL_LOGISTIC)
        return stats_dist_fit_mean(d, stats_score_from_elo(elo), q);
    /* nElo is per game; a pair's sd is the game's / sqrt 2 */
    double t = elo / STATS_NELO_PER_T * (d->n == 5 ? M_SQRT2 : 1.0);
    return stats_dist_fit_t(d, 0.5, t, q);
}

/* Which data the test uses, as a regularised distribution, and its size. */
static void s_data(const stats_sprt_params_t *p, const stats_counts_t *c, stats_dist_t *d,
                   double *n, int *penta)
{
    *penta = !p->trinomial && stats_counts_pairs(c) > 0;
    if (*penta)
        *n = stats_dist_from_penta(c->penta, d);
    else
        *n = stats_dist_from_games(c->wins, c->draws, c->losses, d);
}

static int s_hypotheses(const stats_sprt_params_t *p, const stats_dist_t *d, stats_dist_t *q0,
                        stats_dist_t *q1, char *err, size_t errlen)
{
    if (s_fit(p, d, p->elo0, q0) || s_fit(p, d, p->elo1, q1))
        return capa_fail(err, errlen, CAPA_ERANGE,
                         "cannot fit the hypotheses %g and %g %s to these results",
                         p->elo0, p->elo1, p->model == STATS_MODEL_LOGISTIC ? "Elo" : "nElo");
    return 0;
}

int stats_sprt_llr(const stats_sprt_params_t *p, const stats_counts_t *c, double *llr,
                   char *err, size_t errlen)
{
    int rc = stats_sprt_params_check(p, err, errlen);
    if (!rc)
        rc = stats_counts_check(c, err, errlen);
    if (rc)
        return rc;
    stats_dist_t d, q0, q1;
    double n;
    int penta;
    s_data(p, c, &d, &n, &penta);
    *llr = 0.0;
    if (n == 0.0)
        return 0;
    rc = s_hypotheses(p, &d, &q0, &q1, err, errlen);
    if (rc)
        return rc;
    *llr = n * stats_dist_expected_log_ratio(&d, &q1, &q0);
    return 0;
}

/* Drift and sd of the LLR increment log(q1/q0) when outcomes follow q. */
static void s_increment(const stats_dist_t *q, const stats_dist_t *q0, const stats_dist_t *q1,
                        double *mean, double *sd)
{
    double m = 0.0, m2 = 0.0;
    for (int i = 0; i < q->n; i++) {
        double l = log(q1->p[i] / q0->p[i]);
        m += q->p[i] * l;
        m2 += q->p[i] * l * l;
    }
    *mean = m;
    *sd = sqrt(fmax(m2 - m * m, 0.0));
}

typedef struct {
    const stats_sprt_params_t *p;
    const stats_dist_t *d, *q0, *q1;
    double n, llr, lower, upper;
} s_seq_t;

/* Probability of an outcome worse than the observed one if the truth is elo;
 * -1 when elo cannot be fitted. Falls as elo rises. */
static double s_worse(const s_seq_t *s, double elo)
{
    stats_dist_t q;
    if (s_fit(s->p, s->d, elo, &q))
        return -1.0;
    double mu, sd;
    s_increment(&q, s->q0, s->q1, &mu, &sd);
    if (!(sd > 0.0))
        return -1.0;
    return stats_brownian_outcome_cdf(mu, sd, s->lower, s->upper, s->n, s->llr);
}

/* Whether a distribution with value elo can be fitted to the data: the
 * ratio of mean to spread that a tilt of the data can reach is bounded, so
 * for strong data much of the search range (+-30 hypothesis widths) lies
 * outside. */
static int s_fittable(const s_seq_t *s, double elo)
{
    stats_dist_t q;
    return s_fit(s->p, s->d, elo, &q) == 0;
}

/* The end of the fittable range between good (fittable) and bad (not), by
 * bisection: the fittable values form an interval. */
static double s_fittable_edge(const s_seq_t *s, double good, double bad)
{
    for (int i = 0; i < 60 && fabs(bad - good) > 1e-6; i++) {
        double mid = 0.5 * (good + bad);
        if (s_fittable(s, mid))
            good = mid;
        else
            bad = mid;
    }
    return good;
}

/* The elo at which s_worse = target, by bisection within [lo, hi] (both
 * fittable); the nearer end when the root lies outside. */
static double s_solve(const s_seq_t *s, double target, double lo, double hi)
{
    double flo = s_worse(s, lo), fhi = s_worse(s, hi);
    if (flo >= 0.0 && flo <= target)
        return lo;
    if (fhi >= 0.0 && fhi >= target)
        return hi;
    for (int i = 0; i < 60 && hi - lo > 1e-6; i++) {
        double mid = 0.5 * (lo + hi), f = s_worse(s, mid);
        if (f < 0.0) /* not between fittable ends; the best guess left */
            return mid;
        if (f > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The LLR drift per unit as a function of the truth, tabulated over the
 * search range (strictly increasing), to turn an average LLR back into an
 * estimate. */
#define S_TABLE 65
typedef struct {
    int n;
    double th[S_TABLE], mu[S_TABLE];
} s_drift_t;

static int s_drift_table(const s_seq_t *s, double lo, double hi, s_drift_t *t)
{
    t->n = 0;
    for (int i = 0; i < S_TABLE; i++) {
        double th = lo + (hi - lo) * i / (S_TABLE - 1), mu, sd;
        stats_dist_t q;
        if (s_fit(s->p, s->d, th, &q))
            continue;
        s_increment(&q, s->q0, s->q1, &mu, &sd);
        if (t->n > 0 && !(mu > t->mu[t->n - 1]))
            continue;
        t->th[t->n] = th;
        t->mu[t->n] = mu;
        t->n++;
    }
    return t->n >= 2 ? 0 : -1;
}

static double s_drift_inverse(const s_drift_t *t, double m)
{
    if (m <= t->mu[0])
        return t->th[0];
    if (m >= t->mu[t->n - 1])
        return t->th[t->n - 1];
    int lo = 0, hi = t->n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->mu[mid] <= m)
            lo = mid;
        else
            hi = mid;
    }
    return t->th[lo] + (m - t->mu[lo]) / (t->mu[hi] - t->mu[lo]) * (t->th[hi] - t->th[lo]);
}

/* E_e[the estimate when the test stops]: the estimate of a test stopping at
 * time t on bound c is the truth whose drift is c / t; the exit times come
 * from the Brownian model on a log-spaced grid up to the time after which
 * nothing survives. 0, or -1 when e cannot be fitted. */
static int s_expected_estimate(const s_seq_t *s, const s_drift_t *t, double e, double *out)
{
    stats_dist_t q;
    double mu, sd;
    if (s_fit(s->p, s->d, e, &q))
        return -1;
    s_increment(&q, s->q0, s->q1, &mu, &sd);
    if (!(sd > 0.0))
        return -1;
    double w = (s->upper - s->lower) / sd;
    /* after tmax fewer than 2e-11 of the paths survive */
    double tmin = 0.5, tmax = fmax(50.0 * w * w / (M_PI * M_PI), 2.0 * tmin);
    const int J = 48;
    double sum = 0.0, mass = 0.0, up0 = 0.0, down0 = 0.0, t0 = tmin;
    for (int j = 0; j <= J; j++) {
        double tj = tmin * pow(tmax / tmin, (double) j / J), up, down;
        stats_brownian_exits(mu, sd, s->lower, s->upper, tj, &up, &down);
        double tm = sqrt(tj * t0);
        sum += (up - up0) * s_drift_inverse(t, s->upper / tm) + (down - down0) * s_drift_inverse(t, s->lower / tm);
        mass += (up - up0) + (down - down0);
        up0 = up, down0 = down, t0 = tj;
    }
    *out = mass > 0.0 ? sum / mass : e;
    return 0;
}

/* Whitehead's adjustment: e in [lo, hi] with E_e[estimate] = observed. */
static double s_mean_adjusted(const s_seq_t *s, double lo, double hi, double plain)
{
    s_drift_t t;
    if (s_drift_table(s, lo, hi, &t))
        return plain;
    double observed = s_drift_inverse(&t, s->llr / s->n), f;
    if (s_expected_estimate(s, &t, lo, &f) == 0 && f >= observed)
        return lo;
    if (s_expected_estimate(s, &t, hi, &f) == 0 && f <= observed)
        return hi;
    for (int i = 0; i < 40 && hi - lo > 1e-3; i++) {
        double mid = 0.5 * (lo + hi);
        if (s_expected_estimate(s, &t, mid, &f))
            return plain;
        if (f < observed)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

int stats_sprt_report(const stats_sprt_params_t *p, const stats_counts_t *c,
                      stats_sprt_report_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int rc = stats_sprt_params_check(p, err, errlen);
    if (!rc)
        rc = stats_counts_check(c, err, errlen);
    if (rc)
        return rc;
    if (p->trinomial && stats_counts_games(c) == 0 && stats_counts_pairs(c) > 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "a trinomial test needs W/D/L counts, not only pairs");
    r->params = *p;
    r->counts = *c;
    stats_sprt_bounds(p->alpha, p->beta, &r->lower, &r->upper);
    stats_counts_t used = *c;
    if (p->trinomial)
        memset(used.penta, 0, sizeof used.penta);
    rc = stats_estimate(&used, 0.0, &r->est, err, errlen);
    if (rc)
        return rc;
    stats_dist_t d, q0, q1;
    s_data(p, c, &d, &r->n, &r->pentanomial);
    r->plain_elo = p->model == STATS_MODEL_LOGISTIC ? r->est.elo : r->est.nelo;
    r->seq_elo = r->mean_elo = r->plain_elo;
    r->seq_elo_lo = p->model == STATS_MODEL_LOGISTIC ? r->est.elo_lo : r->est.nelo_lo;
    r->seq_elo_hi = p->model == STATS_MODEL_LOGISTIC ? r->est.elo_hi : r->est.nelo_hi;
    r->verdict = STATS_SPRT_CONTINUE;
    if (r->n == 0.0)
        return 0;
    rc = s_hypotheses(p, &d, &q0, &q1, err, errlen);
    if (rc)
        return rc;
    r->llr = r->n * stats_dist_expected_log_ratio(&d, &q1, &q0);
    if (r->llr >= r->upper)
        r->verdict = STATS_SPRT_ACCEPT_H1;
    else if (r->llr <= r->lower)
        r->verdict = STATS_SPRT_ACCEPT_H0;
    /* Median-unbiased estimate and interval under the stopping rule. */
    double width = r->upper - r->lower;
    if (!(r->llr > r->lower - width && r->llr < r->upper + width))
        return 0;
    r->sequential = 1;
    s_seq_t s = { p, &d, &q0, &q1, r->n, r->llr, r->lower, r->upper };
    double mid = 0.5 * (p->elo0 + p->elo1), span = 30.0 * fmax(p->elo1 - p->elo0, 2.0);
    double lo = fmax(mid - span, -STATS_ELO_LIMIT), hi = fmin(mid + span, STATS_ELO_LIMIT);
    /* Both ends must be fittable: the bisections below would otherwise
     * return an unfittable end or midpoint as the estimate (a pass at
     * nElo 42 was reported as 310 [-290, 310]). elo0 and elo1 were fitted
     * for the LLR, so each is a fittable start. */
    if (!s_fittable(&s, lo))
        lo = s_fittable_edge(&s, p->elo0, lo);
    if (!s_fittable(&s, hi))
        hi = s_fittable_edge(&s, p->elo1, hi);
    r->seq_elo = s_solve(&s, 0.5, lo, hi);
    r->seq_elo_lo = s_solve(&s, 0.975, lo, hi);
    r->seq_elo_hi = s_solve(&s, 0.025, lo, hi);
    if (r->verdict != STATS_SPRT_CONTINUE)
        r->mean_elo = s_mean_adjusted(&s, lo, hi, r->plain_elo);
    return 0;
}

static void s_put_ratio(textbuf_t *o, const char *name, double v)
{
    if (v < 0.0)
        return;
    if (isinf(v))
        textbuf_put(o, "  %s inf", name);
    else
        textbuf_put(o, "  %s %.3f", name, v);
}

int stats_sprt_format(const stats_sprt_report_t *r, char *buf, size_t len)
{
    textbuf_t o = textbuf_make(buf, len);
    const char *unit = r->params.model == STATS_MODEL_LOGISTIC ? "Elo" : "nElo";
    const stats_estimate_t *e = &r->est;
    textbuf_put(&o, "SPRT: %s [%.2f, %.2f], alpha %.3f, beta %.3f, %s\n", unit, r->params.elo0,
          r->params.elo1, r->params.alpha, r->params.beta,
          r->pentanomial ? "pentanomial" : "trinomial");
    textbuf_put(&o, "LLR: %.3f (%.3f, %.3f) %s\n", r->llr, r->lower, r->upper,
          stats_verdict_name(r->verdict));
    textbuf_put(&o, "Pairs: %lld  Games: %lld  W: %lld  D: %lld  L: %lld\n",
          (long long) stats_counts_pairs(&r->counts), (long long) stats_counts_games(&r->counts),
          (long long) r->counts.wins, (long long) r->counts.draws, (long long) r->counts.losses);
    if (stats_counts_pairs(&r->counts) > 0)
        textbuf_put(&o, "Ptnml(0-2): %lld, %lld, %lld, %lld, %lld\n", (long long) r->counts.penta[0],
              (long long) r->counts.penta[1], (long long) r->counts.penta[2],
              (long long) r->counts.penta[3], (long long) r->counts.penta[4]);
    textbuf_put(&o, "Score: %.2f%% [%.2f%%, %.2f%%]\n", 100.0 * e->score, 100.0 * e->score_lo,
          100.0 * e->score_hi);
    textbuf_put(&o, "Elo: %.2f [%.2f, %.2f]  nElo: %.2f [%.2f, %.2f] (95%%)\n", e->elo, e->elo_lo,
          e->elo_hi, e->nelo, e->nelo_lo, e->nelo_hi);
    textbuf_put(&o, "LOS: %.1f%%", 100.0 * e->los);
    s_put_ratio(&o, "DrawRatio", e->draw_ratio);
    s_put_ratio(&o, "PairDrawRatio", e->pair_draw_ratio);
    s_put_ratio(&o, "PairsRatio", e->pairs_ratio);
    textbuf_put(&o, "\n");
    if (r->sequential) {
        textbuf_put(&o, "%s after the stopping rule (median-unbiased): %.2f [%.2f, %.2f]\n", unit,
              r->seq_elo, r->seq_elo_lo, r->seq_elo_hi);
        if (r->verdict != STATS_SPRT_CONTINUE)
            textbuf_put(&o, "%s bias-adjusted for the stop (mean): %.2f\n", unit, r->mean_elo);
    } else if (r->n > 0.0) {
        textbuf_put(&o, "%s not adjusted for the stopping rule: the LLR lies far beyond its bounds\n", unit);
    }
    return o.full ? CAPA_EFULL : 0;
}

static cJSON *s_num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *s_interval(double v, double lo, double hi)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddItemToObject(o, "value", s_num(v));
    cJSON *ci = cJSON_CreateArray();
    cJSON_AddItemToArray(ci, s_num(lo));
    cJSON_AddItemToArray(ci, s_num(hi));
    cJSON_AddItemToObject(o, "ci95", ci);
    return o;
}

cJSON *stats_sprt_to_json(const stats_sprt_report_t *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const stats_estimate_t *e = &r->est;
    cJSON_AddStringToObject(o, "model", stats_model_name(r->params.model));
    cJSON_AddNumberToObject(o, "elo0", r->params.elo0);
    cJSON_AddNumberToObject(o, "elo1", r->params.elo1);
    cJSON_AddNumberToObject(o, "alpha", r->params.alpha);
    cJSON_AddNumberToObject(o, "beta", r->params.beta);
    cJSON_AddBoolToObject(o, "pentanomial", r->pentanomial);
    cJSON_AddNumberToObject(o, "pairs", (double) stats_counts_pairs(&r->counts));
    cJSON_AddNumberToObject(o, "games", (double) stats_counts_games(&r->counts));
    cJSON_AddNumberToObject(o, "wins", (double) r->counts.wins);
    cJSON_AddNumberToObject(o, "draws", (double) r->counts.draws);
    cJSON_AddNumberToObject(o, "losses", (double) r->counts.losses);
    cJSON *pt = cJSON_CreateArray();
    for (int i = 0; i < 5; i++)
        cJSON_AddItemToArray(pt, cJSON_CreateNumber((double) r->counts.penta[i]));
    cJSON_AddItemToObject(o, "penta", pt);
    cJSON_AddNumberToObject(o, "llr", r->llr);
    cJSON_AddNumberToObject(o, "lower_bound", r->lower);
    cJSON_AddNumberToObject(o, "upper_bound", r->upper);
    cJSON_AddStringToObject(o, "verdict", r->verdict == STATS_SPRT_ACCEPT_H1   ? "H1"
                                          : r->verdict == STATS_SPRT_ACCEPT_H0 ? "H0"
                                                                               : "continue");
    cJSON_AddItemToObject(o, "score", s_interval(e->score, e->score_lo, e->score_hi));
    cJSON_AddItemToObject(o, "elo", s_interval(e->elo, e->elo_lo, e->elo_hi));
    cJSON_AddItemToObject(o, "nelo", s_interval(e->nelo, e->nelo_lo, e->nelo_hi));
    cJSON_AddItemToObject(o, "sequential_elo", r->sequential ? s_interval(r->seq_elo, r->seq_elo_lo, r->seq_elo_hi)
                                                              : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "bias_adjusted_elo", r->sequential && r->verdict != STATS_SPRT_CONTINUE
                                                      ? s_num(r->mean_elo)
                                                      : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "los", e->los);
    cJSON_AddItemToObject(o, "draw_ratio", e->draw_ratio < 0 ? cJSON_CreateNull() : s_num(e->draw_ratio));
    cJSON_AddItemToObject(o, "pair_draw_ratio",
                          e->pair_draw_ratio < 0 ? cJSON_CreateNull() : s_num(e->pair_draw_ratio));
    cJSON_AddItemToObject(o, "pairs_ratio", e->pairs_ratio < 0 ? cJSON_CreateNull() : s_num(e->pairs_ratio));
    /* cJSON reports allocation failures only through missing items */
    if (!cJSON_GetObjectItemCaseSensitive(o, "pairs_ratio")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int stats_sprt_expect(const stats_sprt_params_t *p, const stats_dist_t *shape, double elo,
                      stats_sprt_expect_t *out, char *err, size_t errlen)
{
    int rc = stats_sprt_params_check(p, err, errlen);
    if (rc)
        return rc;
    if (!shape || (shape->n != 5 && shape->n != 3))
        return capa_fail(err, errlen, CAPA_EINVAL, "the outcome shape must have 5 or 3 outcomes");
    if (!isfinite(elo) || fabs(elo) > 1000.0)
        return capa_fail(err, errlen, CAPA_ERANGE, "the true value %g must lie within +-1000", elo);
    /* Every outcome keeps some probability, as with regularised counts. */
    stats_dist_t d = *shape;
    double total = 0.0;
    for (int i = 0; i < d.n; i++) {
        if (!(d.p[i] >= 0.0) || !isfinite(d.p[i]))
            return capa_fail(err, errlen, CAPA_EINVAL, "outcome probability %d is %g", i, d.p[i]);
        d.p[i] = fmax(d.p[i], 1e-6);
        total += d.p[i];
    }
    for (int i = 0; i < d.n; i++)
        d.p[i] /= total;
    stats_dist_t q0, q1, q;
    rc = s_hypotheses(p, &d, &q0, &q1, err, errlen);
    if (rc)
        return rc;
    if (s_fit(p, &d, elo, &q))
        return capa_fail(err, errlen, CAPA_ERANGE, "cannot fit the true value %g to the shape", elo);
    double lower, upper;
    stats_sprt_bounds(p->alpha, p->beta, &lower, &upper);
    s_increment(&q, &q0, &q1, &out->llr_mean, &out->llr_sd);
    if (!(out->llr_sd > 0.0))
        return capa_fail(err, errlen, CAPA_ERANGE, "the LLR does not vary under this shape");
    /* A discrete LLR overshoots the bound it crosses; Siegmund's correction
     * moves both bounds out by 0.583 sd of one step (docs/methods.md). */
    double shift = STATS_SPRT_OVERSHOOT * out->llr_sd;
    out->pass_probability = stats_brownian_pass(out->llr_mean, out->llr_sd, lower - shift, upper + shift);
    out->expected_n = stats_brownian_expected_time(out->llr_mean, out->llr_sd, lower - shift, upper + shift);
    return 0;
}
