/* stats_spsa.c - SPSA state, gains, batch updates, history and JSON. */
#include "stats_spsa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

struct stats_spsa {
    int n;
    stats_spsa_param_t param[STATS_SPSA_MAX_PARAMS];
    double theta[STATS_SPSA_MAX_PARAMS];
    double c[STATS_SPSA_MAX_PARAMS]; /* c_i: c_k = c_i / k^gamma */
    double a[STATS_SPSA_MAX_PARAMS]; /* a_i: a_k = a_i / (A + k)^alpha */
    int64_t iterations, iter;
    double A_ratio, A, alpha, gamma;
    /* history: hist_n entries of (iteration, n thetas) */
    int hist_n, hist_cap;
    int64_t *hist_iter;
    double *hist_theta;
};

#define S_JSON_VERSION 1

static int s_check_config(const stats_spsa_config_t *cfg, char *err, size_t errlen)
{
    if (cfg->n_params < 1 || cfg->n_params > STATS_SPSA_MAX_PARAMS || !cfg->params)
        return capa_fail(err, errlen, CAPA_ERANGE, "an SPSA run needs 1..%d parameters, not %d",
                         STATS_SPSA_MAX_PARAMS, cfg->n_params);
    if (cfg->iterations < 1 || cfg->iterations > ((int64_t) 1 << 50))
        return capa_fail(err, errlen, CAPA_ERANGE, "planned iterations (%lld) must be 1..2^50",
                         (long long) cfg->iterations);
    if (!isfinite(cfg->A_ratio) || cfg->A_ratio > 1e6)
        return capa_fail(err, errlen, CAPA_ERANGE, "A ratio %g out of range", cfg->A_ratio);
    if (!(cfg->alpha >= 0.0 && cfg->alpha <= 2.0) || !(cfg->gamma >= 0.0 && cfg->gamma <= 2.0))
        return capa_fail(err, errlen, CAPA_ERANGE, "alpha (%g) and gamma (%g) must lie in [0, 2]",
                         cfg->alpha, cfg->gamma);
    for (int i = 0; i < cfg->n_params; i++) {
        const stats_spsa_param_t *p = &cfg->params[i];
        size_t len = strnlen(p->name, STATS_SPSA_NAME_MAX);
        if (len == 0 || len == STATS_SPSA_NAME_MAX)
            return capa_fail(err, errlen, CAPA_EINVAL, "parameter %d needs a name of 1..%d characters",
                             i + 1, STATS_SPSA_NAME_MAX - 1);
        for (int j = 0; j < i; j++)
            if (strcmp(cfg->params[j].name, p->name) == 0)
                return capa_fail(err, errlen, CAPA_EINVAL, "parameter %s appears twice", p->name);
        if (!isfinite(p->min) || !isfinite(p->max) || !(p->min < p->max))
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: min (%g) must be below max (%g)", p->name,
                             p->min, p->max);
        if (!(p->start >= p->min && p->start <= p->max))
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: start %g lies outside [%g, %g]", p->name,
                             p->start, p->min, p->max);
        if (!(p->c_end > 0.0) || !isfinite(p->c_end) || !(p->r_end > 0.0) || !isfinite(p->r_end))
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: c_end (%g) and r_end (%g) must be positive",
                             p->name, p->c_end, p->r_end);
    }
    return 0;
}

static int s_history_push(stats_spsa_t *s)
{
    if (s->hist_n == s->hist_cap) {
        int cap = s->hist_cap ? 2 * s->hist_cap : 16;
        int64_t *it = realloc(s->hist_iter, (size_t) cap * sizeof *it);
        if (!it)
            return CAPA_ENOMEM;
        s->hist_iter = it;
        double *th = realloc(s->hist_theta, (size_t) cap * (size_t) s->n * sizeof *th);
        if (!th)
            return CAPA_ENOMEM;
        s->hist_theta = th;
        s->hist_cap = cap;
    }
    s->hist_iter[s->hist_n] = s->iter;
    memcpy(s->hist_theta + (size_t) s->hist_n * (size_t) s->n, s->theta, (size_t) s->n * sizeof(double));
    s->hist_n++;
    return 0;
}

/* Fills everything but theta, iter and history from a checked config. */
static stats_spsa_t *s_create(const stats_spsa_config_t *cfg)
{
    stats_spsa_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = cfg->n_params;
    s->iterations = cfg->iterations;
    s->A_ratio = cfg->A_ratio < 0.0 ? 0.1 : cfg->A_ratio;
    s->alpha = cfg->alpha > 0.0 ? cfg->alpha : 0.602;
    s->gamma = cfg->gamma > 0.0 ? cfg->gamma : 0.101;
    s->A = s->A_ratio * (double) s->iterations;
    double N = (double) s->iterations;
    for (int i = 0; i < s->n; i++) {
        s->param[i] = cfg->params[i];
        s->theta[i] = cfg->params[i].start;
        s->c[i] = s->param[i].c_end * pow(N, s->gamma);
        s->a[i] = s->param[i].r_end * s->param[i].c_end * s->param[i].c_end * pow(s->A + N, s->alpha);
    }
    return s;
}

stats_spsa_t *stats_spsa_new(const stats_spsa_config_t *cfg, char *err, size_t errlen)
{
    if (!cfg || s_check_config(cfg, err, errlen))
        return NULL;
    stats_spsa_t *s = s_create(cfg);
    if (!s || s_history_push(s)) {
        stats_spsa_destroy(&s);
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    return s;
}

void stats_spsa_destroy(stats_spsa_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->hist_iter);
    free((*self_p)->hist_theta);
    free(*self_p);
    *self_p = NULL;
}

int stats_spsa_size(const stats_spsa_t *self) { return self->n; }
const stats_spsa_param_t *stats_spsa_param(const stats_spsa_t *self, int i) { return &self->param[i]; }
double stats_spsa_theta(const stats_spsa_t *self, int i) { return self->theta[i]; }
int64_t stats_spsa_iter(const stats_spsa_t *self) { return self->iter; }
double stats_spsa_A(const stats_spsa_t *self) { return self->A; }

double stats_spsa_c_k(const stats_spsa_t *self, int i, int64_t k)
{
    return self->c[i] / pow((double) (k < 1 ? 1 : k), self->gamma);
}

double stats_spsa_a_k(const stats_spsa_t *self, int i, int64_t k)
{
    return self->a[i] / pow(self->A + (double) (k < 1 ? 1 : k), self->alpha);
}

static double s_clip(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

int stats_spsa_propose(const stats_spsa_t *self, const int8_t *signs, stats_spsa_step_t *step,
                       char *err, size_t errlen)
{
    memset(step, 0, sizeof *step);
    step->iter = self->iter;
    step->n = self->n;
    for (int i = 0; i < self->n; i++) {
        if (signs[i] != 1 && signs[i] != -1)
            return capa_fail(err, errlen, CAPA_EINVAL, "sign %d of the perturbation is %d, not +-1",
                             i + 1, signs[i]);
        const stats_spsa_param_t *p = &self->param[i];
        step->sign[i] = signs[i];
        step->c[i] = stats_spsa_c_k(self, i, self->iter + 1);
        step->plus[i] = s_clip(self->theta[i] + step->c[i] * signs[i], p->min, p->max);
        step->minus[i] = s_clip(self->theta[i] - step->c[i] * signs[i], p->min, p->max);
    }
    return 0;
}

/* sum_{j=1..n} (A + k0 + j)^-alpha: exact up to 1e5 terms, beyond that the
 * midpoint integral (relative error below 1e-10 for such n). */
static double s_gain_sum(double A, double alpha, int64_t k0, int64_t n)
{
    if (n <= 100000) {
        double s = 0.0;
        for (int64_t j = 1; j <= n; j++)
            s += pow(A + (double) (k0 + j), -alpha);
        return s;
    }
    double lo = A + (double) k0 + 0.5, hi = A + (double) (k0 + n) + 0.5;
    if (fabs(alpha - 1.0) < 1e-12)
        return log(hi / lo);
    return (pow(hi, 1.0 - alpha) - pow(lo, 1.0 - alpha)) / (1.0 - alpha);
}

int stats_spsa_update(stats_spsa_t *self, const stats_spsa_step_t *step, int64_t pairs,
                      int64_t wins, int64_t losses, char *err, size_t errlen)
{
    if (step->n != self->n)
        return capa_fail(err, errlen, CAPA_EINVAL, "the step has %d parameters, the run %d", step->n,
                         self->n);
    if (pairs < 1 || pairs > ((int64_t) 1 << 40))
        return capa_fail(err, errlen, CAPA_ERANGE, "a batch needs 1..2^40 pairs, not %lld",
                         (long long) pairs);
    if (wins < 0 || losses < 0 || wins + losses > 2 * pairs)
        return capa_fail(err, errlen, CAPA_ERANGE, "%lld wins and %lld losses do not fit in %lld pairs",
                         (long long) wins, (long long) losses, (long long) pairs);
    for (int i = 0; i < self->n; i++)
        if ((step->sign[i] != 1 && step->sign[i] != -1) || !(step->c[i] > 0.0) || !isfinite(step->c[i]))
            return capa_fail(err, errlen, CAPA_EINVAL, "the step's perturbation %d is invalid", i + 1);
    double result = (double) (wins - losses);
    /* one gain sum serves all parameters: a_i,k = a_i (A + k)^-alpha */
    double g = s_gain_sum(self->A, self->alpha, self->iter, pairs);
    for (int i = 0; i < self->n; i++) {
        const stats_spsa_param_t *p = &self->param[i];
        double delta = step->sign[i] * result * self->a[i] * g / ((double) pairs * step->c[i]);
        self->theta[i] = s_clip(self->theta[i] + delta, p->min, p->max);
    }
    self->iter += pairs;
    if (s_history_push(self))
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory for the SPSA history");
    return 0;
}

int stats_spsa_history_size(const stats_spsa_t *self) { return self->hist_n; }
int64_t stats_spsa_history_iter(const stats_spsa_t *self, int h) { return self->hist_iter[h]; }
double stats_spsa_history_theta(const stats_spsa_t *self, int h, int i)
{
    return self->hist_theta[(size_t) h * (size_t) self->n + (size_t) i];
}

/* cJSON prints a double with 15 digits when that reads back within an
 * epsilon, which can lose the last bit; 17 digits always read back exactly,
 * so numbers go in as raw text (still a JSON number). */
static cJSON *s_exact(double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return cJSON_CreateRaw(buf);
}

static int s_add_exact(cJSON *o, const char *key, double v)
{
    cJSON *n = s_exact(v);
    return n != NULL && cJSON_AddItemToObject(o, key, n);
}

cJSON *stats_spsa_to_json(const stats_spsa_t *self)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int ok = s_add_exact(o, "version", S_JSON_VERSION);
    ok &= s_add_exact(o, "iterations", (double) self->iterations);
    ok &= s_add_exact(o, "iter", (double) self->iter);
    ok &= s_add_exact(o, "A_ratio", self->A_ratio);
    ok &= s_add_exact(o, "alpha", self->alpha);
    ok &= s_add_exact(o, "gamma", self->gamma);
    cJSON *params = cJSON_AddArrayToObject(o, "params");
    ok &= params != NULL;
    for (int i = 0; ok && i < self->n; i++) {
        const stats_spsa_param_t *p = &self->param[i];
        cJSON *q = cJSON_CreateObject();
        ok &= q != NULL && cJSON_AddItemToArray(params, q);
        if (!ok)
            break;
        ok &= cJSON_AddStringToObject(q, "name", p->name) != NULL;
        ok &= s_add_exact(q, "start", p->start);
        ok &= s_add_exact(q, "min", p->min);
        ok &= s_add_exact(q, "max", p->max);
        ok &= s_add_exact(q, "c_end", p->c_end);
        ok &= s_add_exact(q, "r_end", p->r_end);
        ok &= s_add_exact(q, "theta", self->theta[i]);
    }
    cJSON *hist = ok ? cJSON_AddArrayToObject(o, "history") : NULL;
    ok &= hist != NULL;
    for (int h = 0; ok && h < self->hist_n; h++) {
        cJSON *e = cJSON_CreateObject();
        ok &= e != NULL && cJSON_AddItemToArray(hist, e);
        if (!ok)
            break;
        ok &= s_add_exact(e, "iter", (double) self->hist_iter[h]);
        cJSON *th = cJSON_AddArrayToObject(e, "theta");
        ok &= th != NULL;
        for (int i = 0; ok && i < self->n; i++) {
            cJSON *v = s_exact(stats_spsa_history_theta(self, h, i));
            ok &= v != NULL && cJSON_AddItemToArray(th, v);
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A finite number field; fails with a message naming it. */
/* A number item's value; raw items (our own unprinted output) are read
 * from their text. Returns 0 or -1. */
static int s_value(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
    } else if (cJSON_IsRaw(v) && v->valuestring) {
        char *end;
        *out = strtod(v->valuestring, &end);
        if (end == v->valuestring || *end != '\0')
            return -1;
    } else {
        return -1;
    }
    return isfinite(*out) ? 0 : -1;
}

static int s_num(const cJSON *o, const char *key, double *out, char *err, size_t errlen)
{
    if (s_value(cJSON_GetObjectItemCaseSensitive(o, key), out))
        return capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: \"%s\" is missing or not a number", key);
    return 0;
}

static int s_int(const cJSON *o, const char *key, int64_t *out, char *err, size_t errlen)
{
    double d = 0.0;
    int rc = s_num(o, key, &d, err, errlen);
    if (rc)
        return rc;
    if (d < 0.0 || d > 9007199254740992.0 || d != floor(d))
        return capa_fail(err, errlen, CAPA_ERANGE, "SPSA state: \"%s\" is not a count", key);
    *out = (int64_t) d;
    return 0;
}

stats_spsa_t *stats_spsa_from_json(const cJSON *json, char *err, size_t errlen)
{
    if (!cJSON_IsObject(json)) {
        capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: not a JSON object");
        return NULL;
    }
    double version = 0.0;
    stats_spsa_config_t cfg = { 0 };
    int64_t iter;
    stats_spsa_param_t *ps = NULL;
    stats_spsa_t *s = NULL;
    double thetas[STATS_SPSA_MAX_PARAMS];
    if (s_num(json, "version", &version, err, errlen))
        return NULL;
    if (version != S_JSON_VERSION) {
        capa_fail(err, errlen, CAPA_EPROTO, "SPSA state: version %g, expected %d", version, S_JSON_VERSION);
        return NULL;
    }
    if (s_int(json, "iterations", &cfg.iterations, err, errlen) || s_int(json, "iter", &iter, err, errlen) ||
        s_num(json, "A_ratio", &cfg.A_ratio, err, errlen) || s_num(json, "alpha", &cfg.alpha, err, errlen) ||
        s_num(json, "gamma", &cfg.gamma, err, errlen))
        return NULL;
    if (!(cfg.alpha > 0.0) || !(cfg.gamma > 0.0) || cfg.A_ratio < 0.0) {
        capa_fail(err, errlen, CAPA_ERANGE, "SPSA state: alpha, gamma must be positive, A_ratio not negative");
        return NULL;
    }
    const cJSON *jp = cJSON_GetObjectItemCaseSensitive(json, "params");
    int n = cJSON_IsArray(jp) ? cJSON_GetArraySize(jp) : -1;
    if (n < 1 || n > STATS_SPSA_MAX_PARAMS) {
        capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: \"params\" must be an array of 1..%d parameters",
                  STATS_SPSA_MAX_PARAMS);
        return NULL;
    }
    ps = calloc((size_t) n, sizeof *ps);
    if (!ps) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    int i = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, jp)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(q, "name");
        if (!cJSON_IsString(name) || strlen(name->valuestring) >= STATS_SPSA_NAME_MAX) {
            capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: parameter %d has no valid name", i + 1);
            goto fail;
        }
        strcpy(ps[i].name, name->valuestring);
        if (s_num(q, "start", &ps[i].start, err, errlen) || s_num(q, "min", &ps[i].min, err, errlen) ||
            s_num(q, "max", &ps[i].max, err, errlen) || s_num(q, "c_end", &ps[i].c_end, err, errlen) ||
            s_num(q, "r_end", &ps[i].r_end, err, errlen) || s_num(q, "theta", &thetas[i], err, errlen))
            goto fail;
        i++;
    }
    cfg.n_params = n;
    cfg.params = ps;
    if (s_check_config(&cfg, err, errlen))
        goto fail;
    s = s_create(&cfg);
    if (!s) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < n; i++) {
        if (!(thetas[i] >= ps[i].min && thetas[i] <= ps[i].max)) {
            capa_fail(err, errlen, CAPA_ERANGE, "SPSA state: theta of %s lies outside its bounds", ps[i].name);
            goto fail;
        }
        s->theta[i] = thetas[i];
    }
    s->iter = iter;
    const cJSON *jh = cJSON_GetObjectItemCaseSensitive(json, "history");
    if (!cJSON_IsArray(jh)) {
        capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: \"history\" is missing");
        goto fail;
    }
    /* history entries are replayed through theta so that the push logic and
     * its bounds hold; the current theta is restored afterwards */
    int64_t last = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, jh)
    {
        int64_t hit;
        const cJSON *th = cJSON_GetObjectItemCaseSensitive(e, "theta");
        if (s_int(e, "iter", &hit, err, errlen))
            goto fail;
        if (hit < last || hit > iter) {
            capa_fail(err, errlen, CAPA_ERANGE, "SPSA state: history iterations must rise up to iter");
            goto fail;
        }
        last = hit;
        if (!cJSON_IsArray(th) || cJSON_GetArraySize(th) != n) {
            capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: a history entry needs %d thetas", n);
            goto fail;
        }
        int64_t save_iter = s->iter;
        double save[STATS_SPSA_MAX_PARAMS];
        memcpy(save, s->theta, sizeof save);
        s->iter = hit;
        int j = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, th)
        {
            if (s_value(v, &s->theta[j++])) {
                capa_fail(err, errlen, CAPA_EINVAL, "SPSA state: a history theta is not a number");
                goto fail;
            }
        }
        int rc = s_history_push(s);
        s->iter = save_iter;
        memcpy(s->theta, save, sizeof save);
        if (rc) {
            capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
            goto fail;
        }
    }
    free(ps);
    return s;
fail:
    free(ps);
    stats_spsa_destroy(&s);
    return NULL;
}
