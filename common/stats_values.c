/* stats_values.c - the piece-value fit: logistic model of White's score on
 * the material difference, Newton-Raphson, pair-clustered sandwich errors. */
#include "stats_values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "textbuf.h"
#include "stats_elo.h"

#define S_DIM (STATS_PIECE_NB + 1) /* intercept + pieces */
#define S_Z95 1.959963984540054

static const char S_LETTERS[STATS_PIECE_NB + 1] = "PNBRACQ";

char stats_piece_letter(int piece)
{
    return piece >= 0 && piece < STATS_PIECE_NB ? S_LETTERS[piece] : '?';
}

/* log(1 + e^x) without overflow. */
static double s_softplus(double x)
{
    return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static double s_logistic(double x)
{
    return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

/* Cholesky factor L (lower) of the m x m matrix a; -(j + 1) when column j's
 * pivot is not clearly positive (relative to its diagonal), else 0. */
static int s_cholesky(const double a[S_DIM][S_DIM], int m, double l[S_DIM][S_DIM])
{
    memset(l, 0, sizeof(double) * S_DIM * S_DIM);
    for (int j = 0; j < m; j++) {
        double d = a[j][j];
        for (int k = 0; k < j; k++)
            d -= l[j][k] * l[j][k];
        if (!(d > 1e-10 * a[j][j]) || !(a[j][j] > 0.0))
            return -(j + 1);
        l[j][j] = sqrt(d);
        for (int i = j + 1; i < m; i++) {
            double s = a[i][j];
            for (int k = 0; k < j; k++)
                s -= l[i][k] * l[j][k];
            l[i][j] = s / l[j][j];
        }
    }
    return 0;
}

/* Solves L L^T x = b. */
static void s_chol_solve(const double l[S_DIM][S_DIM], int m, const double *b, double *x)
{
    double y[S_DIM];
    for (int i = 0; i < m; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= l[i][k] * y[k];
        y[i] = s / l[i][i];
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < m; k++)
            s -= l[k][i] * x[k];
        x[i] = s / l[i][i];
    }
}

typedef struct {
    int m;                    /* columns: intercept + active pieces */
    int piece[S_DIM];         /* column -> piece (column 0: -1) */
    int col[STATS_PIECE_NB];  /* piece -> column, -1 if inactive */
} s_design_t;

/* Column values of game g (White's view). */
static void s_row(const s_design_t *d, const stats_game_t *g, double *z, double *y)
{
    double sign = g->test_white ? 1.0 : -1.0;
    z[0] = 1.0;
    for (int c = 1; c < d->m; c++)
        z[c] = sign * g->diff[d->piece[c]];
    *y = g->test_white ? g->score : 1.0 - g->score;
}

/* How many identical games a record stands for. */
static double s_count(const stats_game_t *g)
{
    return g->count > 0 ? (double) g->count : 1.0;
}

static double s_eta(const s_design_t *d, const double *beta, const double *z)
{
    double e = 0.0;
    for (int c = 0; c < d->m; c++)
        e += beta[c] * z[c];
    return e;
}

static double s_loglik(const s_design_t *d, const stats_game_t *games, size_t n, const double *beta)
{
    double ll = 0.0, z[S_DIM], y;
    for (size_t i = 0; i < n; i++) {
        s_row(d, &games[i], z, &y);
        double e = s_eta(d, beta, z);
        ll -= s_count(&games[i]) * (y * s_softplus(-e) + (1.0 - y) * s_softplus(e));
    }
    return ll;
}

/* Gradient and information (Hessian of -loglik) at beta. */
static void s_derivatives(const s_design_t *d, const stats_game_t *games, size_t n, const double *beta,
                          double *grad, double h[S_DIM][S_DIM])
{
    memset(grad, 0, sizeof(double) * S_DIM);
    memset(h, 0, sizeof(double) * S_DIM * S_DIM);
    double z[S_DIM], y;
    for (size_t i = 0; i < n; i++) {
        s_row(d, &games[i], z, &y);
        double k = s_count(&games[i]);
        double p = s_logistic(s_eta(d, beta, z)), w = k * p * (1.0 - p);
        for (int a = 0; a < d->m; a++) {
            grad[a] += k * (y - p) * z[a];
            for (int b = 0; b <= a; b++)
                h[a][b] += w * z[a] * z[b];
        }
    }
    for (int a = 0; a < d->m; a++)
        for (int b = a + 1; b < d->m; b++)
            h[a][b] = h[b][a];
}

typedef struct {
    int64_t pair;
    size_t idx;
    const int8_t *diff;
} s_key_t;

static int s_by_pair(const void *x, const void *y)
{
    const s_key_t *a = x, *b = y;
    if (a->pair != b->pair)
        return a->pair < b->pair ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int s_by_imbalance(const void *x, const void *y)
{
    const s_key_t *a = x, *b = y;
    int c = memcmp(a->diff, b->diff, STATS_PIECE_NB);
    return c ? c : s_by_pair(x, y);
}

static int s_check_games(const stats_game_t *games, size_t n, char *err, size_t errlen)
{
    if (!games || n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "no games to fit");
    for (size_t i = 0; i < n; i++) {
        const stats_game_t *g = &games[i];
        if (g->score != 0.0 && g->score != 0.5 && g->score != 1.0)
            return capa_fail(err, errlen, CAPA_EINVAL, "game %zu has score %g; expected 0, 0.5 or 1", i,
                             g->score);
        if (g->count < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "game %zu has count %lld", i,
                             (long long) g->count);
        if (g->test_white != 0 && g->test_white != 1)
            return capa_fail(err, errlen, CAPA_EINVAL, "game %zu: test_white must be 0 or 1", i);
        for (int p = 0; p < STATS_PIECE_NB; p++)
            if (g->diff[p] > STATS_DIFF_MAX || g->diff[p] < -STATS_DIFF_MAX)
                return capa_fail(err, errlen, CAPA_ERANGE, "game %zu: a difference of %d %c is beyond %d", i,
                                 g->diff[p], S_LETTERS[p], STATS_DIFF_MAX);
    }
    return 0;
}

static int s_design(const stats_game_t *games, size_t n, s_design_t *d, char *err, size_t errlen)
{
    d->m = 1;
    d->piece[0] = -1;
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        d->col[p] = -1;
        for (size_t i = 0; i < n; i++)
            if (games[i].diff[p]) {
                d->col[p] = d->m;
                d->piece[d->m++] = p;
                break;
            }
    }
    if (d->col[STATS_P] < 0)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "no imbalance involves pawns: values in pawns need pawn-odds games "
                         "(e.g. one side a pawn short) for the scale");
    /* Identifiability: the Gram matrix of the columns must be of full rank. */
    double g[S_DIM][S_DIM] = { { 0 } }, l[S_DIM][S_DIM], z[S_DIM], y;
    for (size_t i = 0; i < n; i++) {
        s_row(d, &games[i], z, &y);
        for (int a = 0; a < d->m; a++)
            for (int b = 0; b < d->m; b++)
                g[a][b] += z[a] * z[b];
    }
    int rc = s_cholesky(g, d->m, l);
    if (rc) {
        int c = -rc - 1;
        if (c == 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "no games to fit");
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "the imbalances cannot separate the value of %c from the other pieces%s: "
                         "add imbalances that set it against other material",
                         S_LETTERS[d->piece[c]], " or from White's edge (play both colours)");
    }
    return 0;
}

/* Newton-Raphson with step halving; 0, or CAPA_EINVAL when it does not
 * converge within 100 steps or a coefficient runs away (separation). */
static int s_newton(const s_design_t *d, const stats_game_t *games, size_t n, double *beta, int *iters,
                    double *ll_out, char *err, size_t errlen)
{
    memset(beta, 0, sizeof(double) * S_DIM);
    double ll = s_loglik(d, games, n, beta);
    for (int it = 1; it <= 100; it++) {
        double grad[S_DIM], h[S_DIM][S_DIM], l[S_DIM][S_DIM], step[S_DIM];
        s_derivatives(d, games, n, beta, grad, h);
        if (s_cholesky(h, d->m, l))
            break; /* information collapsed: fitted probabilities at 0 or 1 */
        s_chol_solve(l, d->m, grad, step);
        double t = 1.0, next[S_DIM], nll = ll;
        for (int half = 0; half < 40; half++, t *= 0.5) {
            for (int c = 0; c < d->m; c++)
                next[c] = beta[c] + t * step[c];
            nll = s_loglik(d, games, n, next);
            if (nll >= ll - 1e-12 * fabs(ll))
                break;
        }
        double change = 0.0;
        for (int c = 0; c < d->m; c++) {
            change = fmax(change, fabs(next[c] - beta[c]));
            beta[c] = next[c];
        }
        ll = nll;
        for (int c = 0; c < d->m; c++)
            if (fabs(beta[c]) > 30.0)
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 "the fit does not converge: the %s grows without bound "
                                 "(an imbalance is won or lost in (nearly) every game)",
                                 c == 0 ? "white edge" : "effect of a piece");
        if (change < 1e-10) {
            *iters = it;
            *ll_out = ll;
            return 0;
        }
    }
    return capa_fail(err, errlen, CAPA_EINVAL,
                     "the fit does not converge in 100 steps (an imbalance won or lost in every "
                     "game separates the data)");
}

/* Sandwich covariance H^-1 B H^-1 G/(G-1), B from pair-summed scores. */
static int s_covariance(const s_design_t *d, const stats_game_t *games, size_t n, const s_key_t *keys,
                        const double *beta, double v[S_DIM][S_DIM], int64_t *pairs)
{
    double grad[S_DIM], h[S_DIM][S_DIM], l[S_DIM][S_DIM];
    s_derivatives(d, games, n, beta, grad, h);
    if (s_cholesky(h, d->m, l))
        return CAPA_EINVAL;
    double b[S_DIM][S_DIM] = { { 0 } }, z[S_DIM], y;
    int64_t clusters = 0;
    for (size_t i = 0; i < n;) {
        double s[S_DIM] = { 0 };
        size_t j = i;
        /* A record standing for k identical pairs adds k times its term. */
        double k = s_count(&games[keys[i].idx]);
        for (; j < n && keys[j].pair == keys[i].pair; j++) {
            const stats_game_t *g = &games[keys[j].idx];
            s_row(d, g, z, &y);
            double r = y - s_logistic(s_eta(d, beta, z));
            for (int a = 0; a < d->m; a++)
                s[a] += r * z[a];
        }
        for (int a = 0; a < d->m; a++)
            for (int c = 0; c < d->m; c++)
                b[a][c] += k * s[a] * s[c];
        clusters += (int64_t) k;
        i = j;
    }
    *pairs = clusters;
    double f = clusters > 1 ? (double) clusters / (double) (clusters - 1) : 1.0;
    /* hinv columns, then V = Hinv B Hinv */
    double hinv[S_DIM][S_DIM];
    for (int c = 0; c < d->m; c++) {
        double e[S_DIM] = { 0 }, x[S_DIM];
        e[c] = 1.0;
        s_chol_solve(l, d->m, e, x);
        for (int a = 0; a < d->m; a++)
            hinv[a][c] = x[a];
    }
    for (int a = 0; a < d->m; a++)
        for (int c = 0; c < d->m; c++) {
            double s = 0.0;
            for (int p = 0; p < d->m; p++)
                for (int q = 0; q < d->m; q++)
                    s += hinv[a][p] * b[p][q] * hinv[q][c];
            v[a][c] = f * s;
        }
    return 0;
}

static int s_imbalances(const s_design_t *d, const stats_game_t *games, size_t n, s_key_t *keys,
                        const double *beta, stats_values_t *r)
{
    for (size_t i = 0; i < n; i++)
        keys[i].diff = games[keys[i].idx].diff;
    qsort(keys, n, sizeof *keys, s_by_imbalance);
    int groups = 0;
    for (size_t i = 0; i < n; i++)
        groups += i == 0 || memcmp(keys[i].diff, keys[i - 1].diff, STATS_PIECE_NB) != 0;
    r->imbalances = calloc((size_t) groups, sizeof *r->imbalances);
    if (!r->imbalances)
        return CAPA_ENOMEM;
    r->n_imbalances = groups;
    int gi = 0;
    double z[S_DIM], y;
    for (size_t i = 0; i < n; gi++) {
        size_t j = i;
        while (j < n && memcmp(keys[j].diff, keys[i].diff, STATS_PIECE_NB) == 0)
            j++;
        stats_imbalance_t *im = &r->imbalances[gi];
        memcpy(im->diff, keys[i].diff, STATS_PIECE_NB);
        double sum = 0.0, pred = 0.0, games_in = 0.0;
        for (size_t k = i; k < j; k++) {
            const stats_game_t *g = &games[keys[k].idx];
            double cnt = s_count(g);
            sum += cnt * g->score;
            s_row(d, g, z, &y);
            double pw = s_logistic(s_eta(d, beta, z));
            pred += cnt * (g->test_white ? pw : 1.0 - pw);
            games_in += cnt;
        }
        im->games = (int64_t) games_in;
        double mean = sum / (double) im->games;
        im->score = mean;
        im->predicted = pred / (double) im->games;
        /* pair-clustered variance of the mean */
        double var = 0.0;
        int64_t clusters = 0;
        for (size_t k = i; k < j;) {
            size_t e = k;
            double s = 0.0, cnt = s_count(&games[keys[k].idx]);
            for (; e < j && keys[e].pair == keys[k].pair; e++)
                s += games[keys[e].idx].score - mean;
            var += cnt * s * s;
            clusters += (int64_t) cnt;
            k = e;
        }
        im->pairs = clusters;
        if (clusters > 1) {
            double se = sqrt(var * (double) clusters / (double) (clusters - 1)) / (double) im->games;
            im->score_lo = fmax(0.0, mean - S_Z95 * se);
            im->score_hi = fmin(1.0, mean + S_Z95 * se);
        } else {
            im->score_lo = 0.0;
            im->score_hi = 1.0;
        }
        im->elo = stats_elo_from_score(im->score);
        im->elo_lo = stats_elo_from_score(im->score_lo);
        im->elo_hi = stats_elo_from_score(im->score_hi);
        i = j;
    }
    /* most games first (stable for equal counts: by the sort above) */
    for (int a = 1; a < groups; a++) {
        stats_imbalance_t t = r->imbalances[a];
        int b = a - 1;
        while (b >= 0 && r->imbalances[b].games < t.games) {
            r->imbalances[b + 1] = r->imbalances[b];
            b--;
        }
        r->imbalances[b + 1] = t;
    }
    return 0;
}

int stats_values_fit(const stats_game_t *games, size_t n, stats_values_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = s_check_games(games, n, err, errlen);
    if (rc)
        return rc;
    s_design_t d;
    rc = s_design(games, n, &d, err, errlen);
    if (rc)
        return rc;
    double beta[S_DIM], ll = 0.0;
    int iters = 0;
    rc = s_newton(&d, games, n, beta, &iters, &ll, err, errlen);
    if (rc)
        return rc;
    double kp = beta[d.col[STATS_P]];
    s_key_t *keys = malloc(n * sizeof *keys);
    stats_values_t *r = calloc(1, sizeof *r);
    if (!keys || !r) {
        free(keys);
        free(r);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        keys[i].pair = games[i].pair;
        keys[i].idx = i;
        keys[i].diff = games[i].diff;
    }
    qsort(keys, n, sizeof *keys, s_by_pair);
    double v[S_DIM][S_DIM];
    if (s_covariance(&d, games, n, keys, beta, v, &r->pairs)) {
        free(keys);
        free(r);
        return capa_fail(err, errlen, CAPA_EINVAL, "the fitted information matrix is singular");
    }
    r->games = 0;
    for (size_t i = 0; i < n; i++)
        r->games += (int64_t) s_count(&games[i]);
    r->iterations = iters;
    r->loglik = ll;
    int cp = d.col[STATS_P];
    r->scale = kp;
    r->scale_se = sqrt(fmax(v[cp][cp], 0.0));
    /* Values are ratios to the pawn's coefficient: while its interval still
     * reaches zero every ratio (and its delta-method interval) is unbounded,
     * so the values in pawns wait; the imbalances' raw scores are reported. */
    r->scaled = kp - S_Z95 * r->scale_se > 0.0;
    r->elo_per_pawn = kp * 400.0 / M_LN10;
    r->white = beta[0];
    double wse = sqrt(fmax(v[0][0], 0.0));
    r->white_lo = beta[0] - S_Z95 * wse;
    r->white_hi = beta[0] + S_Z95 * wse;
    r->white_score = s_logistic(beta[0]);
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        stats_piece_value_t *pv = &r->piece[p];
        int c = d.col[p];
        if (p == STATS_P) {
            pv->value = pv->lo = pv->hi = 1.0; /* the unit */
            continue;
        }
        if (c < 0 || !r->scaled)
            continue;
        double val = beta[c] / kp;
        /* delta method for beta_c / beta_P */
        double var = (v[c][c] - 2.0 * val * v[c][cp] + val * val * v[cp][cp]) / (kp * kp);
        pv->estimated = 1;
        pv->value = val;
        pv->se = sqrt(fmax(var, 0.0));
        pv->lo = val - S_Z95 * pv->se;
        pv->hi = val + S_Z95 * pv->se;
    }
    rc = s_imbalances(&d, games, n, keys, beta, r);
    free(keys);
    if (rc) {
        stats_values_destroy(&r);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    *out = r;
    return 0;
}

void stats_values_destroy(stats_values_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->imbalances);
    free(*self_p);
    *self_p = NULL;
}

/* "A-C", "A-R-N", "-P": the side under test's extra material, then the
 * other side's, each piece repeated by its count. */
static void s_imbalance_name(const int8_t *diff, char *buf, size_t len)
{
    size_t u = 0;
    for (int side = 1; side >= -1; side -= 2) {
        if (side < 0 && u + 1 < len)
            buf[u++] = '-';
        for (int p = STATS_PIECE_NB - 1; p >= 0; p--)
            for (int k = 0; k < diff[p] * side && u + 1 < len; k++)
                buf[u++] = S_LETTERS[p];
    }
    buf[u] = '\0';
}

void stats_values_note(const stats_values_t *v, char *buf, size_t len)
{
    if (v->scaled)
        snprintf(buf, len, "values in pawns, scaled by %.4f +- %.4f logit per pawn", v->scale,
                 S_Z95 * v->scale_se);
    else
        snprintf(buf, len,
                 "no values in pawns yet: the pawn's effect is not decisive (%.4f +- %.4f logit "
                 "per pawn, the 95%% interval reaches 0); more pairs or more nodes per move needed",
                 v->scale, S_Z95 * v->scale_se);
}

int stats_values_format(const stats_values_t *v, char *buf, size_t len)
{
    textbuf_t o = textbuf_make(buf, len);
    textbuf_put(&o, "Piece values in pawns (95%% intervals, pairs as clusters): %lld games, %lld pairs\n",
          (long long) v->games, (long long) v->pairs);
    if (!v->scaled) {
        char note[256];
        stats_values_note(v, note, sizeof note);
        textbuf_put(&o, "  %s\n", note);
    }
    for (int p = 0; v->scaled && p < STATS_PIECE_NB; p++) {
        const stats_piece_value_t *pv = &v->piece[p];
        if (p == STATS_P)
            textbuf_put(&o, "  P  1 (unit)\n");
        else if (pv->estimated)
            textbuf_put(&o, "  %c  %.3f [%.3f, %.3f]\n", S_LETTERS[p], pv->value, pv->lo, pv->hi);
        else
            textbuf_put(&o, "  %c  not estimated (in no imbalance)\n", S_LETTERS[p]);
    }
    textbuf_put(&o, "Scale: %.4f logit per pawn (%.1f Elo); White's edge %.4f logit [%.4f, %.4f] = %.1f%%\n",
          v->scale, v->elo_per_pawn, v->white, v->white_lo, v->white_hi, 100.0 * v->white_score);
    textbuf_put(&o, "Imbalances (side under test first; score of that side):\n");
    for (int i = 0; i < v->n_imbalances; i++) {
        const stats_imbalance_t *im = &v->imbalances[i];
        char name[64];
        s_imbalance_name(im->diff, name, sizeof name);
        textbuf_put(&o, "  %-12s %6lld games  %.1f%% [%.1f%%, %.1f%%]  Elo %.0f [%.0f, %.0f]  model %.1f%%\n",
              name, (long long) im->games, 100.0 * im->score, 100.0 * im->score_lo, 100.0 * im->score_hi,
              im->elo, im->elo_lo, im->elo_hi, 100.0 * im->predicted);
    }
    return o.full ? CAPA_EFULL : 0;
}

static cJSON *s_interval(double value, double lo, double hi)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *ci = cJSON_CreateArray();
    if (!o || !ci) {
        cJSON_Delete(o);
        cJSON_Delete(ci);
        return NULL;
    }
    cJSON_AddNumberToObject(o, "value", value);
    cJSON_AddItemToArray(ci, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(ci, cJSON_CreateNumber(hi));
    cJSON_AddItemToObject(o, "ci95", ci);
    return o;
}

cJSON *stats_values_to_json(const stats_values_t *v)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "games", (double) v->games);
    cJSON_AddNumberToObject(o, "pairs", (double) v->pairs);
    cJSON *pieces = cJSON_AddObjectToObject(o, "values");
    for (int p = 0; pieces && p < STATS_PIECE_NB; p++) {
        const stats_piece_value_t *pv = &v->piece[p];
        char key[2] = { S_LETTERS[p], '\0' };
        if (p == STATS_P || pv->estimated)
            cJSON_AddItemToObject(pieces, key, s_interval(pv->value, pv->lo, pv->hi));
        else
            cJSON_AddNullToObject(pieces, key);
    }
    cJSON_AddBoolToObject(o, "scaled", v->scaled);
    if (!v->scaled) {
        char note[256];
        stats_values_note(v, note, sizeof note);
        cJSON_AddStringToObject(o, "note", note);
    }
    cJSON_AddNumberToObject(o, "logit_per_pawn", v->scale);
    cJSON_AddNumberToObject(o, "elo_per_pawn", v->elo_per_pawn);
    cJSON_AddItemToObject(o, "white_logit", s_interval(v->white, v->white_lo, v->white_hi));
    cJSON_AddNumberToObject(o, "white_score", v->white_score);
    cJSON *list = cJSON_AddArrayToObject(o, "imbalances");
    for (int i = 0; list && i < v->n_imbalances; i++) {
        const stats_imbalance_t *im = &v->imbalances[i];
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(list, e)) {
            cJSON_Delete(e);
            list = NULL;
            break;
        }
        char name[64];
        s_imbalance_name(im->diff, name, sizeof name);
        cJSON_AddStringToObject(e, "name", name);
        cJSON *diff = cJSON_AddObjectToObject(e, "diff");
        for (int p = 0; diff && p < STATS_PIECE_NB; p++) {
            char key[2] = { S_LETTERS[p], '\0' };
            if (im->diff[p])
                cJSON_AddNumberToObject(diff, key, im->diff[p]);
        }
        cJSON_AddNumberToObject(e, "games", (double) im->games);
        cJSON_AddNumberToObject(e, "pairs", (double) im->pairs);
        cJSON_AddItemToObject(e, "score", s_interval(im->score, im->score_lo, im->score_hi));
        cJSON_AddItemToObject(e, "elo", s_interval(im->elo, im->elo_lo, im->elo_hi));
        cJSON_AddNumberToObject(e, "model_score", im->predicted);
    }
    if (!pieces || !list || !cJSON_GetObjectItemCaseSensitive(o, "white_score")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
