/* stats_plan.c - expected precision of a piece-value study (see
 * stats_plan.h). */
#include "stats_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "textbuf.h"

#define S_Z95 1.959963984540054
#define S_ELO (400.0 / M_LN10)
#define S_DIFF_MAX 16 /* as STATS_DIFF_MAX in stats_values.h */

void stats_plan_assume_default(stats_plan_assume_t *a)
{
    /* H. G. Muller's measured values (shared/reference/piece-values.md) */
    static const double MULLER[STATS_PIECE_NB] = { 1.0, 3.0, 3.5, 5.0, 8.75, 9.0, 9.5 };
    a->logit_per_pawn = 0.30;
    a->draw_ratio = 0.13;
    a->white = 0.10;
    memcpy(a->value, MULLER, sizeof a->value);
}

/* Pawn odds as this engine played them, values-run defaults (resign 1000 cp
 * for 4 moves), files a..j in turn: { nodes per move, logit per pawn }.
 * Each is a study of docs/methods.md ("Planning a study"). */
static const struct {
    double nodes, k;
} STATS_PLAN_K_POINTS[] = {
    /* engine 1113079, the ladder ac-ladder-1113079 and the study
     * ac-20k-1113079-s5 (one seed, 500 pairs of pawn odds + 500 A vs C at
     * each node count, the fit's k with both covariates) */
    { 2500.0, 0.330 },  /* the side a pawn up scored 0.583 */
    { 5000.0, 0.313 },  /* 0.578 (200 pairs of selfplay, seed 5005: 0.600) */
    { 10000.0, 0.370 }, /* 0.592 */
    { 20000.0, 0.407 }, /* 0.599 */
};

double stats_plan_logit_per_pawn_at(int64_t nodes)
{
    const size_t n = sizeof STATS_PLAN_K_POINTS / sizeof STATS_PLAN_K_POINTS[0];
    if (nodes <= 0) {
        stats_plan_assume_t def;
        stats_plan_assume_default(&def);
        return def.logit_per_pawn;
    }
    double x = (double) nodes;
    if (x <= STATS_PLAN_K_POINTS[0].nodes)
        return STATS_PLAN_K_POINTS[0].k;
    for (size_t i = 1; i < n; i++)
        if (x <= STATS_PLAN_K_POINTS[i].nodes) {
            double t = log(x / STATS_PLAN_K_POINTS[i - 1].nodes) /
                       log(STATS_PLAN_K_POINTS[i].nodes / STATS_PLAN_K_POINTS[i - 1].nodes);
            return STATS_PLAN_K_POINTS[i - 1].k + t * (STATS_PLAN_K_POINTS[i].k - STATS_PLAN_K_POINTS[i - 1].k);
        }
    return STATS_PLAN_K_POINTS[n - 1].k;
}

void stats_plan_assume_for_nodes(stats_plan_assume_t *a, int64_t nodes)
{
    stats_plan_assume_default(a);
    a->logit_per_pawn = stats_plan_logit_per_pawn_at(nodes);
}

int stats_plan_diff(const char *side, const char *other, int8_t diff[STATS_PIECE_NB])
{
    memset(diff, 0, STATS_PIECE_NB);
    for (int s = 0; s < 2; s++)
        for (const char *c = s ? other : side; c && *c; c++) {
            const char *at = strchr("PNBRACQ", *c);
            if (!at)
                return CAPA_EINVAL;
            diff[at - "PNBRACQ"] += s ? -1 : 1;
        }
    return 0;
}

static double s_logistic(double x)
{
    return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static int s_check(const stats_plan_row_t *rows, size_t n, const stats_plan_assume_t *a, char *err,
                   size_t errlen)
{
    if (!rows || n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "no imbalances to plan");
    if (!(a->logit_per_pawn > 0.0 && a->logit_per_pawn < 5.0))
        return capa_fail(err, errlen, CAPA_EINVAL, "logit per pawn %g: expected 0 < k < 5", a->logit_per_pawn);
    if (!(a->draw_ratio >= 0.0 && a->draw_ratio < 1.0))
        return capa_fail(err, errlen, CAPA_EINVAL, "draw ratio %g: expected 0 <= d < 1", a->draw_ratio);
    if (!isfinite(a->white) || fabs(a->white) > 2.0)
        return capa_fail(err, errlen, CAPA_EINVAL, "White's edge %g logit: expected |w| <= 2", a->white);
    for (int p = 0; p < STATS_PIECE_NB; p++)
        if (!isfinite(a->value[p]) || fabs(a->value[p]) > 100.0)
            return capa_fail(err, errlen, CAPA_EINVAL, "assumed value of %c: %g", stats_piece_letter(p),
                             a->value[p]);
    int64_t pairs = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].pairs < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "imbalance %zu plans %lld pairs", i,
                             (long long) rows[i].pairs);
        for (int p = 0; p < STATS_PIECE_NB; p++)
            if (rows[i].diff[p] > S_DIFF_MAX || rows[i].diff[p] < -S_DIFF_MAX)
                return capa_fail(err, errlen, CAPA_ERANGE, "imbalance %zu: a difference of %d %c", i,
                                 rows[i].diff[p], stats_piece_letter(p));
        pairs += rows[i].pairs;
    }
    if (pairs == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "the study plans no pairs");
    return 0;
}

/* Half the length of the Fieller interval for a / b with every variance
 * divided by scale (the study played scale times over); infinite when the
 * interval is unbounded. */
static double s_fieller_hw(double a, double b, double vaa, double vab, double vbb, double scale)
{
    double lo, hi;
    if (stats_fieller(a, b, vaa / scale, vab / scale, vbb / scale, S_Z95, &lo, &hi))
        return INFINITY;
    return (hi - lo) / 2.0;
}

/* The expected half-widths of c (full coordinates) under the covariance v. */
static void s_item(const stats_design_t *d, const double *c, const double *beta,
                   const double v[STATS_COEF_NB][STATS_COEF_NB], int pawn, int64_t pairs, double target,
                   stats_plan_item_t *it)
{
    it->estimable = stats_design_estimable(d, c);
    if (!it->estimable)
        return;
    const int fp = 1 + STATS_P;
    double est = 0.0, var = 0.0, vab = 0.0;
    for (int i = 0; i < STATS_COEF_NB; i++) {
        est += c[i] * beta[i];
        vab += c[i] * v[i][fp];
        for (int j = 0; j < STATS_COEF_NB; j++)
            var += c[i] * v[i][j] * c[j];
    }
    it->hw_logit = S_Z95 * sqrt(fmax(var, 0.0));
    it->hw_elo = it->hw_logit * S_ELO;
    if (!pawn)
        return;
    /* In pawns: half the length of the Fieller interval the fit would give
     * at the assumed values (the delta method understates a ratio whose
     * denominator is known to only 10-20%, as the pawn's often is). */
    double k = beta[fp], vbb = v[fp][fp];
    it->in_pawns = 1;
    it->hw_pawns = s_fieller_hw(est, k, var, vab, vbb, 1.0);
    if (target > 0.0 && isfinite(it->hw_pawns)) {
        /* pairs scale every variance by pairs / n: bisect on n */
        double lo = 1e-4, hi = 1e6;
        for (int i = 0; i < 200 && hi / lo > 1.0 + 1e-9; i++) {
            double mid = sqrt(lo * hi);
            if (s_fieller_hw(est, k, var, vab, vbb, mid) <= target)
                hi = mid;
            else
                lo = mid;
        }
        it->pairs_for_target = (int64_t) ceil((double) pairs * hi);
    }
}

int stats_plan_make(const stats_plan_row_t *rows, size_t n, const stats_plan_assume_t *a, double target,
                    stats_plan_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int rc = s_check(rows, n, a, err, errlen);
    if (rc)
        return rc;
    double beta[STATS_COEF_NB] = { a->white };
    for (int p = 0; p < STATS_PIECE_NB; p++)
        beta[1 + p] = a->logit_per_pawn * (p == STATS_P ? 1.0 : a->value[p]);
    /* Expected information H and score variance B, both colours per pair. */
    double g[STATS_COEF_NB][STATS_COEF_NB] = { { 0 } }, h[STATS_COEF_NB][STATS_COEF_NB] = { { 0 } },
           b[STATS_COEF_NB][STATS_COEF_NB] = { { 0 } };
    for (size_t i = 0; i < n; i++) {
        if (rows[i].pairs == 0)
            continue;
        out->pairs += rows[i].pairs;
        for (int white = 0; white < 2; white++) {
            double z[STATS_COEF_NB] = { 0 }, sign = white ? 1.0 : -1.0, eta = 0.0;
            z[0] = 1.0;
            for (int p = 0; p < STATS_PIECE_NB; p++)
                z[1 + p] = sign * rows[i].diff[p];
            for (int f = 0; f < STATS_COEF_NB; f++)
                eta += beta[f] * z[f];
            double p = s_logistic(eta), d = fmin(a->draw_ratio, 2.0 * fmin(p, 1.0 - p));
            double games = (double) rows[i].pairs, info = p * (1.0 - p), var = info - d / 4.0;
            stats_design_add(g, rows[i].diff, NULL, white, games);
            for (int x = 0; x < STATS_COEF_NB; x++)
                for (int y = 0; y < STATS_COEF_NB; y++) {
                    h[x][y] += games * info * z[x] * z[y];
                    b[x][y] += games * var * z[x] * z[y];
                }
        }
    }
    out->games = 2 * out->pairs;
    out->target = target;
    stats_design_t d;
    rc = stats_design_analyse(g, &d, err, errlen);
    if (rc)
        return rc;
    /* The covariance over the kept columns, then in full coordinates. */
    double hk[STATS_COEF_NB][STATS_COEF_NB], bk[STATS_COEF_NB][STATS_COEF_NB], vk[STATS_COEF_NB][STATS_COEF_NB];
    for (int x = 0; x < d.m; x++)
        for (int y = 0; y < d.m; y++) {
            hk[x][y] = h[d.full[x]][d.full[y]];
            bk[x][y] = b[d.full[x]][d.full[y]];
        }
    if (stats_sandwich(hk, bk, d.m, 1.0, vk))
        return capa_fail(err, errlen, CAPA_EINVAL, "the expected information is singular (a draw ratio "
                                                   "or values that make every game certain)");
    double v[STATS_COEF_NB][STATS_COEF_NB] = { { 0 } };
    for (int x = 0; x < d.m; x++)
        for (int y = 0; y < d.m; y++)
            v[d.full[x]][d.full[y]] = vk[x][y];
    out->pawn_identified = stats_design_piece_estimable(&d, STATS_P);
    stats_contrast_def_t defs[STATS_CONTRAST_MAX];
    out->n_contrasts = stats_design_contrasts(&d, defs, STATS_CONTRAST_MAX);
    for (int i = 0; i < out->n_contrasts; i++) {
        memcpy(out->contrasts[i].name, defs[i].name, sizeof defs[i].name);
        s_item(&d, defs[i].coef, beta, v, out->pawn_identified, out->pairs, target, &out->contrasts[i]);
    }
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        stats_plan_item_t *it = &out->values[p];
        snprintf(it->name, sizeof it->name, "%c", stats_piece_letter(p));
        if (!d.active[p])
            continue;
        double c[STATS_COEF_NB] = { 0 };
        c[1 + p] = 1.0;
        s_item(&d, c, beta, v, out->pawn_identified && p != STATS_P, out->pairs, target, it);
    }
    out->n_notes = stats_design_explain(&d, out->notes, STATS_PIECE_NB);
    return 0;
}

static void s_line(textbuf_t *o, const stats_plan_item_t *it, double target)
{
    if (!it->estimable) {
        textbuf_put(o, "  %-4s not determined by this design\n", it->name);
        return;
    }
    textbuf_put(o, "  %-4s +-%6.1f Elo", it->name, it->hw_elo);
    if (it->in_pawns) {
        textbuf_put(o, "  +-%.3f pawns", it->hw_pawns);
        if (target > 0.0)
            textbuf_put(o, "  %lld pairs for +-%.3f", (long long) it->pairs_for_target, target);
    }
    textbuf_put(o, "\n");
}

int stats_plan_format(const stats_plan_t *p, char *buf, size_t len)
{
    textbuf_t o = textbuf_make(buf, len);
    textbuf_put(&o, "Expected 95%% half-widths at %lld pairs (%lld games):\n", (long long) p->pairs,
                (long long) p->games);
    textbuf_put(&o, "Contrasts:\n");
    for (int i = 0; i < p->n_contrasts; i++)
        s_line(&o, &p->contrasts[i], p->target);
    textbuf_put(&o, "Values (Elo: the piece against nothing; pawns: ratio to the pawn):\n");
    for (int i = 0; i < STATS_PIECE_NB; i++)
        if (p->values[i].estimable)
            s_line(&o, &p->values[i], p->target);
    for (int i = 0; i < p->n_notes; i++)
        textbuf_put(&o, "Not separated: %s\n", p->notes[i]);
    if (!p->pawn_identified)
        textbuf_put(&o, "No values in pawns: no pawn-odds imbalance determines the pawn's effect.\n");
    return o.full ? CAPA_EFULL : 0;
}

static cJSON *s_item_json(const stats_plan_item_t *it)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return NULL;
    cJSON_AddStringToObject(e, "name", it->name);
    cJSON_AddBoolToObject(e, "estimable", it->estimable);
    if (!it->estimable)
        return e;
    cJSON_AddNumberToObject(e, "half_width_logit", it->hw_logit);
    cJSON_AddNumberToObject(e, "half_width_elo", it->hw_elo);
    if (it->in_pawns) {
        cJSON_AddNumberToObject(e, "half_width_pawns", it->hw_pawns);
        if (it->pairs_for_target > 0)
            cJSON_AddNumberToObject(e, "pairs_for_target", (double) it->pairs_for_target);
    } else {
        cJSON_AddNullToObject(e, "half_width_pawns");
    }
    return e;
}

cJSON *stats_plan_to_json(const stats_plan_t *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *contrasts = cJSON_AddArrayToObject(o, "contrasts");
    cJSON *values = cJSON_AddArrayToObject(o, "values");
    cJSON *notes = cJSON_AddArrayToObject(o, "not_separated");
    if (!o || !contrasts || !values || !notes) {
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddNumberToObject(o, "pairs", (double) p->pairs);
    cJSON_AddNumberToObject(o, "games", (double) p->games);
    if (p->target > 0.0)
        cJSON_AddNumberToObject(o, "target_pawns", p->target);
    cJSON_AddBoolToObject(o, "pawn_identified", p->pawn_identified);
    int ok = 1;
    for (int i = 0; i < p->n_contrasts; i++)
        ok &= cJSON_AddItemToArray(contrasts, s_item_json(&p->contrasts[i]));
    for (int i = 0; i < STATS_PIECE_NB; i++)
        if (p->values[i].estimable)
            ok &= cJSON_AddItemToArray(values, s_item_json(&p->values[i]));
    for (int i = 0; i < p->n_notes; i++)
        ok &= cJSON_AddItemToArray(notes, cJSON_CreateString(p->notes[i]));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
