/* stats_values.c - the piece-value fit: logistic model of White's score on
 * the material difference over a basis of the design's columns,
 * Newton-Raphson, pair-clustered sandwich errors, contrasts, Fieller ratios
 * and a lack-of-fit test. */
#include "stats_values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "stats_chi2.h"
#include "textbuf.h"
#include "stats_elo.h"

#define S_DIM STATS_COEF_NB /* White's edge + pieces */
#define S_Z95 1.959963984540054
#define S_LETTER(p) stats_piece_letter(p)

/* log(1 + e^x) without overflow. */
static double s_softplus(double x)
{
    return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static double s_logistic(double x)
{
    return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

typedef stats_design_t s_design_t;

static const char *const S_COV_KEY[STATS_COV_NB] = { "unprotected_pawns", "king_shelter" };
static const char *const S_COV_NAME[STATS_COV_NB] = { "unprotected pawn",
                                                         "shelter pawn lost (beyond an average pawn)" };
static const char *const S_COV_TITLE[STATS_COV_NB] = { "Unprotected pawns", "King's shelter" };
static const char *const S_COV_EFFECT[STATS_COV_NB] = { "unprotected pawn", "shelter pawn" }; /* <= 23 bytes */

const char *stats_covariate_key(int k)
{
    return k >= 0 && k < STATS_COV_NB ? S_COV_KEY[k] : NULL;
}

const char *stats_covariate_name(int k)
{
    return k >= 0 && k < STATS_COV_NB ? S_COV_NAME[k] : NULL;
}

/* The side under test's value of full column f >= 1: a piece's difference
 * or a covariate. */
static double s_coord(const int8_t *diff, const double *cov, int f)
{
    return f >= STATS_COEF_COV ? cov[f - STATS_COEF_COV] : (double) diff[f - 1];
}

/* Column values of game g (White's view). */
static void s_row(const s_design_t *d, const stats_game_t *g, double *z, double *y)
{
    double sign = g->test_white ? 1.0 : -1.0;
    z[0] = 1.0;
    for (int c = 1; c < d->m; c++)
        z[c] = sign * s_coord(g->diff, g->cov, d->full[c]);
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
    int8_t stratum;
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
    if (!c)
        c = (a->stratum > b->stratum) - (a->stratum < b->stratum);
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
        if (g->stratum < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "game %zu has stratum %d", i, g->stratum);
        for (int k = 0; k < STATS_COV_NB; k++)
            if (!(fabs(g->cov[k]) <= STATS_DIFF_MAX))
                return capa_fail(err, errlen, CAPA_ERANGE, "game %zu: a difference of %g in %s is beyond %d", i,
                                 g->cov[k], S_COV_KEY[k], STATS_DIFF_MAX);
        for (int p = 0; p < STATS_PIECE_NB; p++)
            if (g->diff[p] > STATS_DIFF_MAX || g->diff[p] < -STATS_DIFF_MAX)
                return capa_fail(err, errlen, CAPA_ERANGE, "game %zu: a difference of %d %c is beyond %d", i,
                                 g->diff[p], S_LETTER(p), STATS_DIFF_MAX);
    }
    return 0;
}

static int s_check_rounds(const stats_rounds_t *rd, char *err, size_t errlen)
{
    if (!rd)
        return 0;
    if (rd->rounds < 1 || !rd->classes || !rd->moments || rd->n_moments == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "rounds: %lld rounds, %zu moments; expected at least one",
                         (long long) rd->rounds, rd->n_moments);
    for (size_t i = 0; i < rd->n_moments; i++) {
        const stats_moment_t *mo = &rd->moments[i];
        if (mo->j < 0 || mo->l < 0 || (size_t) mo->j >= rd->n_classes || (size_t) mo->l >= rd->n_classes)
            return capa_fail(err, errlen, CAPA_EINVAL, "rounds: moment %zu names class %d or %d of %zu", i,
                             mo->j, mo->l, rd->n_classes);
        for (int x = 0; x < STATS_MOM_NB; x++)
            for (int y = 0; y < STATS_MOM_NB; y++)
                if (!isfinite(mo->m[x][y]))
                    return capa_fail(err, errlen, CAPA_EINVAL, "rounds: moment %zu is not finite", i);
    }
    for (size_t c = 0; c < rd->n_classes; c++) {
        for (int k = 0; k < STATS_COV_NB; k++)
            if (!(fabs(rd->classes[c].cov[k]) <= STATS_DIFF_MAX))
                return capa_fail(err, errlen, CAPA_ERANGE, "rounds: class %zu has a difference of %g in %s", c,
                                 rd->classes[c].cov[k], S_COV_KEY[k]);
        for (int p = 0; p < STATS_PIECE_NB; p++)
            if (rd->classes[c].diff[p] > STATS_DIFF_MAX || rd->classes[c].diff[p] < -STATS_DIFF_MAX)
                return capa_fail(err, errlen, CAPA_ERANGE, "rounds: class %zu has a difference of %d %c", c,
                                 rd->classes[c].diff[p], S_LETTER(p));
    }
    return 0;
}

static int s_design(const stats_game_t *games, size_t n, s_design_t *d, char *err, size_t errlen)
{
    double g[S_DIM][S_DIM] = { { 0 } };
    for (size_t i = 0; i < n; i++)
        stats_design_add(g, games[i].diff, games[i].cov, games[i].test_white, s_count(&games[i]));
    return stats_design_analyse(g, d, err, errlen);
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
        if (stats_cholesky(h, d->m, l))
            break; /* information collapsed: fitted probabilities at 0 or 1 */
        stats_chol_solve(l, d->m, grad, step);
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

/* The meat from pair-summed scores: B = sum over pairs s_c s_c'. */
static void s_meat_pairs(const s_design_t *d, const stats_game_t *games, size_t n, const s_key_t *keys,
                         const double *beta, double b[S_DIM][S_DIM], int64_t *pairs)
{
    double z[S_DIM], y;
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
}

/* The meat from round moments: class j's round sum is A u + S v_j - N c_j
 * with u the column of White's edge, v_j the class's material (White's view
 * when the side under test is White) and c_j = (p_w + p_b) u + (1 + p_w -
 * p_b) v_j, p_w and p_b the fitted scores of White in its two games (side
 * under test White, Black): the expected A and S - N per pair. */
static void s_meat_rounds(const s_design_t *d, const stats_rounds_t *rd, const double *beta,
                          double b[S_DIM][S_DIM])
{
    for (size_t i = 0; i < rd->n_moments; i++) {
        const stats_moment_t *mo = &rd->moments[i];
        double vec[2][STATS_MOM_NB][S_DIM];
        for (int side = 0; side < 2; side++) {
            const stats_class_t *cl = &rd->classes[side ? mo->l : mo->j];
            double zw[S_DIM], zb[S_DIM];
            zw[0] = zb[0] = 1.0;
            for (int c = 1; c < d->m; c++) {
                zw[c] = s_coord(cl->diff, cl->cov, d->full[c]);
                zb[c] = -zw[c];
            }
            double pw = s_logistic(s_eta(d, beta, zw)), pb = s_logistic(s_eta(d, beta, zb));
            for (int c = 0; c < d->m; c++) {
                double u = c == 0 ? 1.0 : 0.0, v = c == 0 ? 0.0 : zw[c];
                vec[side][STATS_MOM_A][c] = u;
                vec[side][STATS_MOM_S][c] = v;
                vec[side][STATS_MOM_N][c] = -((pw + pb) * u + (1.0 + pw - pb) * v);
            }
        }
        for (int x = 0; x < STATS_MOM_NB; x++)
            for (int y = 0; y < STATS_MOM_NB; y++) {
                double w = mo->m[x][y];
                if (w == 0.0)
                    continue;
                for (int a = 0; a < d->m; a++)
                    for (int c = 0; c < d->m; c++)
                        b[a][c] += w * vec[0][x][a] * vec[1][y][c];
            }
    }
    /* the moments of (j, l) and (l, j) mirror each other: symmetric up to rounding */
    for (int a = 0; a < d->m; a++)
        for (int c = 0; c < a; c++)
            b[a][c] = b[c][a] = 0.5 * (b[a][c] + b[c][a]);
}

/* Sandwich covariances H^-1 B H^-1 G/(G-1): vp with pairs as clusters and,
 * with rounds, vr with rounds as clusters. */
static int s_covariance(const s_design_t *d, const stats_game_t *games, size_t n, const s_key_t *keys,
                        const double *beta, const stats_rounds_t *rd, double vp[S_DIM][S_DIM],
                        double vr[S_DIM][S_DIM], int64_t *pairs)
{
    double grad[S_DIM], h[S_DIM][S_DIM];
    s_derivatives(d, games, n, beta, grad, h);
    double b[S_DIM][S_DIM] = { { 0 } };
    s_meat_pairs(d, games, n, keys, beta, b, pairs);
    double f = *pairs > 1 ? (double) *pairs / (double) (*pairs - 1) : 1.0;
    if (stats_sandwich(h, b, d->m, f, vp))
        return CAPA_EINVAL;
    if (!rd)
        return 0;
    memset(b, 0, sizeof b);
    s_meat_rounds(d, rd, beta, b);
    f = rd->rounds > 1 ? (double) rd->rounds / (double) (rd->rounds - 1) : 1.0;
    return stats_sandwich(h, b, d->m, f, vr) ? CAPA_EINVAL : 0;
}

static int s_imbalances(const s_design_t *d, const stats_game_t *games, size_t n, s_key_t *keys,
                        const double *beta, stats_values_t *r)
{
    for (size_t i = 0; i < n; i++) {
        keys[i].diff = games[keys[i].idx].diff;
        keys[i].stratum = games[keys[i].idx].stratum;
    }
    qsort(keys, n, sizeof *keys, s_by_imbalance);
#define S_SAME_ROW(i, j) \
    (memcmp(keys[i].diff, keys[j].diff, STATS_PIECE_NB) == 0 && keys[i].stratum == keys[j].stratum)
    int groups = 0;
    for (size_t i = 0; i < n; i++)
        groups += i == 0 || !S_SAME_ROW(i, i - 1);
    r->imbalances = calloc((size_t) groups, sizeof *r->imbalances);
    if (!r->imbalances)
        return CAPA_ENOMEM;
    r->n_imbalances = groups;
    int gi = 0;
    double z[S_DIM], y;
    for (size_t i = 0; i < n; gi++) {
        size_t j = i;
        while (j < n && S_SAME_ROW(j, i))
            j++;
        stats_imbalance_t *im = &r->imbalances[gi];
        memcpy(im->diff, keys[i].diff, STATS_PIECE_NB);
        im->stratum = keys[i].stratum;
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
            im->residual_z = se > 0.0 ? (mean - im->predicted) / se : 0.0;
        } else {
            im->score_lo = 0.0;
            im->score_hi = 1.0;
        }
        im->elo = stats_elo_from_score(im->score);
        im->elo_lo = stats_elo_from_score(im->score_lo);
        im->elo_hi = stats_elo_from_score(im->score_hi);
        i = j;
    }
#undef S_SAME_ROW
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

/* Pearson-type lack of fit over the imbalance rows: the sum of squared
 * standardised residuals (pair-robust standard errors), on rows minus the
 * rank of the piece columns degrees of freedom. Rows whose score has no
 * spread (one pair, or every pair alike) carry no information and are left
 * out. */
static void s_lack_of_fit(const s_design_t *d, stats_values_t *r)
{
    int rows = 0;
    double chi2 = 0.0;
    for (int i = 0; i < r->n_imbalances; i++) {
        const stats_imbalance_t *im = &r->imbalances[i];
        if (im->pairs > 1 && im->score_hi > im->score_lo && im->residual_z != 0.0) {
            chi2 += im->residual_z * im->residual_z;
            rows++;
        }
    }
    r->lof_df = rows - (d->m - 1);
    if (r->lof_df < 1) {
        r->lof_df = 0;
        r->lof_chi2 = 0.0;
        r->lof_p = 1.0;
        return;
    }
    r->lof_chi2 = chi2;
    r->lof_p = stats_chi2_upper(chi2, r->lof_df);
}

/* c'b and c'Vc over full coordinates. */
static void s_linear(const double *c, const double *b, const double v[S_DIM][S_DIM], double *est,
                     double *var)
{
    double e = 0.0, s = 0.0;
    for (int i = 0; i < S_DIM; i++) {
        e += c[i] * b[i];
        for (int j = 0; j < S_DIM; j++)
            s += c[i] * v[i][j] * c[j];
    }
    *est = e;
    *var = fmax(s, 0.0);
}

#define S_ELO (400.0 / M_LN10)

/* The combination c'b (full coordinates) in logit and Elo with its Wald
 * interval and, when scaled, as a ratio to the pawn with Fieller's. */
static void s_combination(const double *c, const double *b, const double v[S_DIM][S_DIM], int scaled,
                          stats_contrast_t *ct)
{
    const int fp = 1 + STATS_P;
    double est, var, vab = 0.0;
    s_linear(c, b, v, &est, &var);
    double h = S_Z95 * sqrt(var);
    ct->logit = est;
    ct->logit_lo = est - h;
    ct->logit_hi = est + h;
    ct->elo = est * S_ELO;
    ct->elo_lo = ct->logit_lo * S_ELO;
    ct->elo_hi = ct->logit_hi * S_ELO;
    if (!scaled)
        return;
    for (int j = 0; j < S_DIM; j++)
        vab += c[j] * v[j][fp];
    ct->in_pawns = 1;
    ct->pawns = est / b[fp];
    stats_fieller(est, b[fp], var, vab, v[fp][fp], S_Z95, &ct->pawns_lo, &ct->pawns_hi);
}

/* Values, contrasts and the scale from the coefficients b and their
 * covariance v (full coordinates). */
static void s_summaries(const s_design_t *d, const double *b, const double v[S_DIM][S_DIM],
                        stats_values_t *r)
{
    const int fp = 1 + STATS_P;
    double ep[S_DIM] = { 0 };
    ep[fp] = 1.0;
    r->pawn_identified = stats_design_estimable(d, ep);
    double kp = b[fp], vpp = v[fp][fp];
    if (r->pawn_identified) {
        r->scale = kp;
        r->scale_se = sqrt(fmax(vpp, 0.0));
        /* Values are ratios to the pawn's coefficient: while its interval
         * still reaches zero every ratio is unbounded, so the values in pawns
         * wait; contrasts in Elo and the raw scores are reported. */
        r->scaled = kp - S_Z95 * r->scale_se > 0.0;
        r->elo_per_pawn = kp * S_ELO;
    }
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        stats_piece_value_t *pv = &r->piece[p];
        if (p == STATS_P)
            pv->value = pv->lo = pv->hi = 1.0; /* the unit */
        double c[S_DIM] = { 0 }, est, var;
        c[1 + p] = 1.0;
        if (!d->active[p] || !stats_design_estimable(d, c))
            continue;
        s_linear(c, b, v, &est, &var);
        pv->identified = 1;
        pv->elo = est * S_ELO;
        pv->elo_lo = (est - S_Z95 * sqrt(var)) * S_ELO;
        pv->elo_hi = (est + S_Z95 * sqrt(var)) * S_ELO;
        if (p == STATS_P || !r->scaled)
            continue;
        double val = est / kp, vab = v[1 + p][fp];
        pv->estimated = 1;
        pv->value = val;
        pv->se = sqrt(fmax((var - 2.0 * val * vab + val * val * vpp) / (kp * kp), 0.0));
        stats_fieller(est, kp, var, vab, vpp, S_Z95, &pv->lo, &pv->hi);
    }
    stats_contrast_def_t defs[STATS_CONTRAST_MAX];
    r->n_contrasts = stats_design_contrasts(d, defs, STATS_CONTRAST_MAX);
    for (int i = 0; i < r->n_contrasts; i++) {
        stats_contrast_t *ct = &r->contrasts[i];
        memset(ct, 0, sizeof *ct);
        memcpy(ct->name, defs[i].name, sizeof ct->name); /* both 24 bytes, NUL-terminated */
        ct->name[sizeof ct->name - 1] = '\0';
        ct->estimable = defs[i].estimable;
        if (ct->estimable)
            s_combination(defs[i].coef, b, v, r->scaled, ct);
    }
    r->n_notes = stats_design_explain(d, r->notes, STATS_PIECE_NB);
    for (int k = 0; k < STATS_COV_NB; k++) {
        stats_covariate_t *u = &r->cov[k];
        u->fitted = d->covariate[k];
        u->confounded = d->covariate_confounded[k];
        memset(&u->effect, 0, sizeof u->effect);
        if (!u->fitted)
            continue;
        double c[S_DIM] = { 0 };
        c[STATS_COEF_COV + k] = 1.0;
        snprintf(u->effect.name, sizeof u->effect.name, "%s", S_COV_EFFECT[k]);
        u->effect.estimable = 1;
        s_combination(c, b, v, r->scaled, &u->effect);
    }
}

static int s_fit(const stats_game_t *games, size_t n, const stats_rounds_t *rounds, int unadjusted,
                 stats_values_t **out, char *err, size_t errlen);

int stats_values_fit(const stats_game_t *games, size_t n, stats_values_t **out, char *err, size_t errlen)
{
    return s_fit(games, n, NULL, 1, out, err, errlen);
}

int stats_values_fit_rounds(const stats_game_t *games, size_t n, const stats_rounds_t *rounds,
                            stats_values_t **out, char *err, size_t errlen)
{
    return s_fit(games, n, rounds, 1, out, err, errlen);
}

/* Full coordinates of a covariance over the kept columns. */
static void s_full(const s_design_t *d, const double v[S_DIM][S_DIM], double vf[S_DIM][S_DIM])
{
    memset(vf, 0, sizeof(double) * S_DIM * S_DIM);
    for (int a = 0; a < d->m; a++)
        for (int c = 0; c < d->m; c++)
            vf[d->full[a]][d->full[c]] = v[a][c];
}

/* The fit (no unadjusted ones) of the games and round classes with the
 * covariates whose bit is set in mask at 0. 0, CAPA_ENOMEM, or the fit's
 * error with its reason in err. */
static int s_fit_zeroed(const stats_game_t *games, size_t n, const stats_rounds_t *rounds, unsigned mask,
                        stats_values_t **out, char *err, size_t errlen)
{
    stats_game_t *g = malloc(n * sizeof *g);
    stats_class_t *cl = rounds ? malloc((rounds->n_classes + 1) * sizeof *cl) : NULL;
    if (!g || (rounds && !cl)) {
        free(g);
        free(cl);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    memcpy(g, games, n * sizeof *g);
    stats_rounds_t rd;
    if (rounds) {
        rd = *rounds;
        memcpy(cl, rounds->classes, rounds->n_classes * sizeof *cl);
        rd.classes = cl;
    }
    for (int k = 0; k < STATS_COV_NB; k++) {
        if (!(mask & (1u << k)))
            continue;
        for (size_t i = 0; i < n; i++)
            g[i].cov[k] = 0.0;
        for (size_t i = 0; rounds && i < rounds->n_classes; i++)
            cl[i].cov[k] = 0.0;
    }
    int rc = s_fit(g, n, rounds ? &rd : NULL, 0, out, err, errlen);
    free(g);
    free(cl);
    return rc;
}

/* The same fit without covariate k (the others kept), into r->cov[k]'s
 * unadjusted figures: what adjusting for it changes. 0 or CAPA_ENOMEM (a
 * fit that fails without the covariate leaves them at zero). */
static int s_unadjusted(const stats_game_t *games, size_t n, const stats_rounds_t *rounds, int k,
                        stats_values_t *r)
{
    stats_values_t *plain = NULL;
    char err[256];
    int rc = s_fit_zeroed(games, n, rounds, 1u << k, &plain, err, sizeof err);
    if (rc == 0) {
        memcpy(r->cov[k].unadj_contrasts, plain->contrasts, sizeof r->cov[k].unadj_contrasts);
        memcpy(r->cov[k].unadj_piece, plain->piece, sizeof r->cov[k].unadj_piece);
    }
    stats_values_destroy(&plain);
    return rc == CAPA_ENOMEM ? rc : 0;
}

/* Each covariate's mean over the games (side under test), into r. */
static void s_cov_means(const stats_game_t *games, size_t n, stats_values_t *r)
{
    for (int k = 0; k < STATS_COV_NB; k++) {
        double usum = 0.0;
        for (size_t i = 0; i < n; i++)
            usum += s_count(&games[i]) * games[i].cov[k];
        r->cov[k].mean = usum / (double) r->games;
    }
}

/* The fit failed (rc, reason in err) with covariates in the model: a small
 * study can be separated by a covariate that the material alone does not
 * separate. Refits without any covariate; when that converges it is the
 * answer, each covariate marked dropped with the reason, else rc stands. */
static int s_fit_without_covariates(const stats_game_t *games, size_t n, const stats_rounds_t *rounds,
                                    const s_design_t *d, int rc, stats_values_t **out, char *err, size_t errlen)
{
    int kept = 0;
    for (int k = 0; k < STATS_COV_NB; k++)
        kept |= d->covariate[k];
    if (!kept)
        return rc;
    stats_values_t *plain = NULL;
    char why[160];
    int rc2 = s_fit_zeroed(games, n, rounds, (1u << STATS_COV_NB) - 1, &plain, why, sizeof why);
    if (rc2 != 0)
        return rc2 == CAPA_ENOMEM ? capa_fail(err, errlen, CAPA_ENOMEM, "out of memory") : rc;
    s_cov_means(games, n, plain);
    for (int k = 0; k < STATS_COV_NB; k++) {
        if (!d->covariate[k])
            continue;
        plain->cov[k].dropped = 1;
        snprintf(plain->cov[k].why, sizeof plain->cov[k].why, "%s", err);
    }
    *out = plain;
    return 0;
}

/* The fit; with unadjusted, also the fit without each fitted covariate. */
static int s_fit(const stats_game_t *games, size_t n, const stats_rounds_t *rounds, int unadjusted,
                 stats_values_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = s_check_games(games, n, err, errlen);
    if (rc == 0)
        rc = s_check_rounds(rounds, err, errlen);
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
        return unadjusted ? s_fit_without_covariates(games, n, rounds, &d, rc, out, err, errlen) : rc;
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
        keys[i].stratum = games[i].stratum;
    }
    qsort(keys, n, sizeof *keys, s_by_pair);
    double vp[S_DIM][S_DIM], vr[S_DIM][S_DIM];
    if (s_covariance(&d, games, n, keys, beta, rounds, vp, vr, &r->pairs)) {
        free(keys);
        free(r);
        return capa_fail(err, errlen, CAPA_EINVAL, "the fitted information matrix is singular");
    }
    /* The coefficients of the columns left out are 0: one solution among
     * many, but every estimable combination has the same value in all. */
    double bf[S_DIM] = { 0 }, vf[S_DIM][S_DIM];
    for (int a = 0; a < d.m; a++)
        bf[d.full[a]] = beta[a];
    s_full(&d, rounds ? vr : vp, vf);
    r->by_round = rounds != NULL;
    r->clusters = rounds ? rounds->rounds : r->pairs;
    if (rounds) {
        /* the pair-clustered figures beside, from a second summary */
        stats_values_t *alt = calloc(1, sizeof *alt);
        if (!alt) {
            free(keys);
            free(r);
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        }
        double vpf[S_DIM][S_DIM];
        s_full(&d, vp, vpf);
        s_summaries(&d, bf, vpf, alt);
        memcpy(r->pair_contrasts, alt->contrasts, sizeof r->pair_contrasts);
        memcpy(r->pair_piece, alt->piece, sizeof r->pair_piece);
        r->pair_scale_se = alt->scale_se;
        free(alt);
    }
    for (size_t i = 0; i < n; i++)
        r->games += (int64_t) s_count(&games[i]);
    r->iterations = iters;
    r->loglik = ll;
    r->white = bf[0];
    double wse = sqrt(fmax(vf[0][0], 0.0));
    r->white_lo = bf[0] - S_Z95 * wse;
    r->white_hi = bf[0] + S_Z95 * wse;
    r->white_score = s_logistic(bf[0]);
    s_summaries(&d, bf, vf, r);
    rc = s_imbalances(&d, games, n, keys, beta, r);
    free(keys);
    if (rc) {
        stats_values_destroy(&r);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    s_lack_of_fit(&d, r);
    s_cov_means(games, n, r);
    for (int k = 0; k < STATS_COV_NB; k++) {
        if (unadjusted && r->cov[k].fitted && s_unadjusted(games, n, rounds, k, r) != 0) {
            stats_values_destroy(&r);
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        }
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

/* "A-C", "A-R-N", "-P", "-P@c": the side under test's extra material, then
 * the other side's, each piece repeated by its count; "@" and the file of a
 * stratum. */
static void s_imbalance_name(const int8_t *diff, int stratum, char *buf, size_t len)
{
    size_t u = 0;
    for (int side = 1; side >= -1; side -= 2) {
        if (side < 0 && u + 1 < len)
            buf[u++] = '-';
        for (int p = STATS_PIECE_NB - 1; p >= 0; p--)
            for (int k = 0; k < diff[p] * side && u + 1 < len; k++)
                buf[u++] = S_LETTER(p);
    }
    if (stratum > 0 && u + 3 < len) {
        buf[u++] = '@';
        buf[u++] = stratum <= 26 ? (char) ('a' + stratum - 1) : '?';
    }
    buf[u] = '\0';
}

void stats_values_note(const stats_values_t *v, char *buf, size_t len)
{
    if (v->scaled)
        snprintf(buf, len, "values in pawns, scaled by %.4f +- %.4f logit per pawn", v->scale,
                 S_Z95 * v->scale_se);
    else if (!v->pawn_identified)
        snprintf(buf, len,
                 "no values in pawns: no pawn-odds imbalance determines the pawn's effect; "
                 "contrasts are given in Elo");
    else
        snprintf(buf, len,
                 "no values in pawns yet: the pawn's effect is not decisive (%.4f +- %.4f logit "
                 "per pawn, the 95%% interval reaches 0); more pairs or more nodes per move needed",
                 v->scale, S_Z95 * v->scale_se);
}

void stats_values_unit(const stats_values_t *v, char *buf, size_t len)
{
    textbuf_t o = textbuf_make(buf, len);
    if (!v->pawn_identified) {
        textbuf_put(&o, "no pawn unit: the study has no pawn-odds games");
        return;
    }
    int64_t files[11] = { 0 }, any = 0;
    for (int i = 0; i < v->n_imbalances; i++)
        if (v->imbalances[i].stratum > 0 && v->imbalances[i].stratum <= 10) {
            files[v->imbalances[i].stratum] += v->imbalances[i].games;
            any += v->imbalances[i].games;
        }
    textbuf_put(&o, "the pawn: the logit effect of one start pawn, one coefficient for every imbalance with pawns");
    if (v->cov[STATS_COV_SHELTER].fitted)
        textbuf_put(&o, " (the average over the files played; adjusted for which pawns came off the king's "
                        "shelter)");
    if (!any)
        return;
    textbuf_put(&o, "; pawn odds by the missing pawn's file (games):");
    for (int f = 1; f <= 10; f++)
        textbuf_put(&o, " %c %lld", 'a' + f - 1, (long long) files[f]);
}

int stats_values_format(const stats_values_t *v, char *buf, size_t len)
{
    textbuf_t o = textbuf_make(buf, len);
    if (v->by_round)
        textbuf_put(&o, "Piece values (95%% intervals, rounds as clusters: %lld rounds, one start array "
                        "each): %lld games, %lld pairs\n",
                    (long long) v->clusters, (long long) v->games, (long long) v->pairs);
    else
        textbuf_put(&o, "Piece values (95%% intervals, pairs as clusters): %lld games, %lld pairs\n",
                    (long long) v->games, (long long) v->pairs);
    char unit[STATS_UNIT_MAX];
    stats_values_unit(v, unit, sizeof unit);
    textbuf_put(&o, "Unit: %s\n", unit);
    if (!v->scaled) {
        char note[256];
        stats_values_note(v, note, sizeof note);
        textbuf_put(&o, "  %s\n", note);
    }
    textbuf_put(&o, "Contrasts (first piece minus second):\n");
    for (int i = 0; i < v->n_contrasts; i++) {
        const stats_contrast_t *c = &v->contrasts[i];
        if (!c->estimable) {
            textbuf_put(&o, "  %-4s not determined by this design\n", c->name);
            continue;
        }
        if (c->in_pawns)
            textbuf_put(&o, "  %-4s %+.3f pawns [%+.3f, %+.3f]  ", c->name, c->pawns, c->pawns_lo,
                        c->pawns_hi);
        else
            textbuf_put(&o, "  %-4s ", c->name);
        textbuf_put(&o, "%+.0f Elo [%+.0f, %+.0f]", c->elo, c->elo_lo, c->elo_hi);
        const stats_contrast_t *pc = &v->pair_contrasts[i];
        if (v->by_round && pc->in_pawns)
            textbuf_put(&o, "  (pairs as clusters: [%+.3f, %+.3f] pawns)", pc->pawns_lo, pc->pawns_hi);
        else if (v->by_round)
            textbuf_put(&o, "  (pairs as clusters: [%+.0f, %+.0f] Elo)", pc->elo_lo, pc->elo_hi);
        textbuf_put(&o, "\n");
    }
    textbuf_put(&o, "Values (pawns: Fieller intervals; Elo: the piece against nothing):\n");
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        const stats_piece_value_t *pv = &v->piece[p];
        if (p == STATS_P && v->pawn_identified)
            textbuf_put(&o, "  P  1 (unit)  %.0f Elo [%.0f, %.0f]\n", pv->elo, pv->elo_lo, pv->elo_hi);
        else if (pv->estimated)
            textbuf_put(&o, "  %c  %.3f [%.3f, %.3f]  %.0f Elo [%.0f, %.0f]\n", S_LETTER(p), pv->value,
                        pv->lo, pv->hi, pv->elo, pv->elo_lo, pv->elo_hi);
        else if (pv->identified)
            textbuf_put(&o, "  %c  %.0f Elo [%.0f, %.0f]\n", S_LETTER(p), pv->elo, pv->elo_lo, pv->elo_hi);
        else
            textbuf_put(&o, "  %c  not estimated (%s)\n", S_LETTER(p),
                        p == STATS_P ? "no pawn-odds games" : "not separated: see below");
    }
    for (int i = 0; i < v->n_notes; i++)
        textbuf_put(&o, "Not separated: %s\n", v->notes[i]);
    for (int k = 0; k < STATS_COV_NB; k++) {
        const stats_covariate_t *u = &v->cov[k];
        if (u->fitted) {
            textbuf_put(&o, "%s (adjusted for; side under test %+.2f on average): %+.3f logit per %s "
                            "[%+.3f, %+.3f]", S_COV_TITLE[k], u->mean, u->effect.logit, S_COV_NAME[k],
                        u->effect.logit_lo, u->effect.logit_hi);
            if (u->effect.in_pawns)
                textbuf_put(&o, " = %+.3f pawns [%+.3f, %+.3f]", u->effect.pawns, u->effect.pawns_lo,
                            u->effect.pawns_hi);
            const stats_contrast_t *c0 = &u->unadj_contrasts[0];
            if (v->n_contrasts > 0 && c0->in_pawns)
                textbuf_put(&o, "; unadjusted %s %+.3f pawns [%+.3f, %+.3f]", c0->name, c0->pawns, c0->pawns_lo,
                            c0->pawns_hi);
            else if (v->n_contrasts > 0 && c0->estimable)
                textbuf_put(&o, "; unadjusted %s %+.0f Elo [%+.0f, %+.0f]", c0->name, c0->elo, c0->elo_lo,
                            c0->elo_hi);
            textbuf_put(&o, "\n");
        } else if (u->confounded) {
            textbuf_put(&o, "%s: not separable from the material in this design; not adjusted for\n",
                        S_COV_TITLE[k]);
        } else if (u->dropped) {
            textbuf_put(&o, "%s: not adjusted for: with the covariates in it %s\n", S_COV_TITLE[k], u->why);
        }
    }
    if (v->pawn_identified)
        textbuf_put(&o, "Scale: %.4f logit per pawn (%.1f Elo); ", v->scale, v->elo_per_pawn);
    textbuf_put(&o, "White's edge %.4f logit [%.4f, %.4f] = %.1f%%\n", v->white, v->white_lo, v->white_hi,
                100.0 * v->white_score);
    if (v->lof_df > 0)
        textbuf_put(&o, "Lack of fit over the imbalances: chi2 %.2f on %d df, p %.3g\n", v->lof_chi2,
                    v->lof_df, v->lof_p);
    else
        textbuf_put(&o, "Lack of fit: no test (no more imbalance rows than fitted effects)\n");
    textbuf_put(&o, "Imbalances (side under test first; score of that side):\n");
    for (int i = 0; i < v->n_imbalances; i++) {
        const stats_imbalance_t *im = &v->imbalances[i];
        char name[64];
        s_imbalance_name(im->diff, im->stratum, name, sizeof name);
        textbuf_put(&o, "  %-12s %6lld games  %.1f%% [%.1f%%, %.1f%%]  Elo %.0f [%.0f, %.0f]  model %.1f%%\n",
                    name, (long long) im->games, 100.0 * im->score, 100.0 * im->score_lo,
                    100.0 * im->score_hi, im->elo, im->elo_lo, im->elo_hi, 100.0 * im->predicted);
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

static cJSON *s_contrasts_json(const stats_contrast_t *cs, int n)
{
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; list && i < n; i++) {
        const stats_contrast_t *c = &cs[i];
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(list, e)) {
            cJSON_Delete(e);
            cJSON_Delete(list);
            return NULL;
        }
        cJSON_AddStringToObject(e, "name", c->name);
        cJSON_AddBoolToObject(e, "estimable", c->estimable);
        if (!c->estimable)
            continue;
        cJSON_AddItemToObject(e, "logit", s_interval(c->logit, c->logit_lo, c->logit_hi));
        cJSON_AddItemToObject(e, "elo", s_interval(c->elo, c->elo_lo, c->elo_hi));
        if (c->in_pawns)
            cJSON_AddItemToObject(e, "pawns", s_interval(c->pawns, c->pawns_lo, c->pawns_hi));
        else
            cJSON_AddNullToObject(e, "pawns");
    }
    return list;
}

/* "values" (pawns) and "values_elo" of pieces pv into o; 0 or -1 (ENOMEM). */
static int s_values_json(cJSON *o, const stats_piece_value_t *piece, int pawn_identified)
{
    cJSON *pieces = cJSON_AddObjectToObject(o, "values");
    cJSON *elo = cJSON_AddObjectToObject(o, "values_elo");
    for (int p = 0; pieces && elo && p < STATS_PIECE_NB; p++) {
        const stats_piece_value_t *pv = &piece[p];
        char key[2] = { S_LETTER(p), '\0' };
        if ((p == STATS_P && pawn_identified) || pv->estimated)
            cJSON_AddItemToObject(pieces, key, s_interval(pv->value, pv->lo, pv->hi));
        else
            cJSON_AddNullToObject(pieces, key);
        if (pv->identified)
            cJSON_AddItemToObject(elo, key, s_interval(pv->elo, pv->elo_lo, pv->elo_hi));
        else
            cJSON_AddNullToObject(elo, key);
    }
    return pieces && elo ? 0 : -1;
}

/* "clusters" {by, count} and, by round, "pair_clustered" {contrasts,
 * values, values_elo, logit_per_pawn_se}: the same fit's figures with pairs
 * as clusters. */
static int s_clusters_json(cJSON *o, const stats_values_t *v)
{
    cJSON *cl = cJSON_AddObjectToObject(o, "clusters");
    if (!cl)
        return -1;
    cJSON_AddStringToObject(cl, "by", v->by_round ? "round" : "pair");
    cJSON_AddNumberToObject(cl, "count", (double) v->clusters);
    if (!v->by_round)
        return 0;
    cJSON *pc = cJSON_AddObjectToObject(o, "pair_clustered");
    cJSON *list = pc ? s_contrasts_json(v->pair_contrasts, v->n_contrasts) : NULL;
    if (!list)
        return -1;
    cJSON_AddItemToObject(pc, "contrasts", list);
    if (s_values_json(pc, v->pair_piece, v->pawn_identified))
        return -1;
    cJSON_AddNumberToObject(pc, "logit_per_pawn_se", v->pair_scale_se);
    return 0;
}

/* Covariate k under its key ("unprotected_pawns", "king_shelter"): null
 * when no game has any; {fitted: false, note} when the material explains
 * it; else the effect of one (logit, elo, pawns), the mean difference and
 * the contrasts and values without it. */
static int s_covariate_json(cJSON *o, const stats_values_t *v, int k)
{
    const stats_covariate_t *u = &v->cov[k];
    if (!u->fitted && !u->confounded && !u->dropped)
        return cJSON_AddNullToObject(o, S_COV_KEY[k]) ? 0 : -1;
    cJSON *e = cJSON_AddObjectToObject(o, S_COV_KEY[k]);
    if (!e)
        return -1;
    cJSON_AddBoolToObject(e, "fitted", u->fitted);
    cJSON_AddNumberToObject(e, "mean", u->mean);
    if (!u->fitted) {
        char note[256];
        if (u->dropped)
            snprintf(note, sizeof note, "not adjusted for: with the covariates in it %s", u->why);
        else
            snprintf(note, sizeof note, "the %s difference always goes with the same material in this design: "
                     "not separable, the values are not adjusted for it", S_COV_KEY[k]);
        cJSON_AddStringToObject(e, "note", note);
        return 0;
    }
    const stats_contrast_t *x = &u->effect;
    cJSON_AddItemToObject(e, "logit", s_interval(x->logit, x->logit_lo, x->logit_hi));
    cJSON_AddItemToObject(e, "elo", s_interval(x->elo, x->elo_lo, x->elo_hi));
    if (x->in_pawns)
        cJSON_AddItemToObject(e, "pawns", s_interval(x->pawns, x->pawns_lo, x->pawns_hi));
    else
        cJSON_AddNullToObject(e, "pawns");
    cJSON *un = cJSON_AddObjectToObject(e, "unadjusted");
    cJSON *list = un ? s_contrasts_json(u->unadj_contrasts, v->n_contrasts) : NULL;
    if (!list)
        return -1;
    cJSON_AddItemToObject(un, "contrasts", list);
    return s_values_json(un, u->unadj_piece, v->pawn_identified);
}

cJSON *stats_values_to_json(const stats_values_t *v)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "games", (double) v->games);
    cJSON_AddNumberToObject(o, "pairs", (double) v->pairs);
    int bad = s_clusters_json(o, v);
    cJSON *contrasts = s_contrasts_json(v->contrasts, v->n_contrasts);
    if (contrasts)
        cJSON_AddItemToObject(o, "contrasts", contrasts);
    bad |= s_values_json(o, v->piece, v->pawn_identified);
    for (int k = 0; k < STATS_COV_NB; k++)
        bad |= s_covariate_json(o, v, k);
    cJSON_AddStringToObject(o, "interval", "fieller");
    char unit[STATS_UNIT_MAX];
    stats_values_unit(v, unit, sizeof unit);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON *notes = cJSON_AddArrayToObject(o, "not_separated");
    for (int i = 0; notes && i < v->n_notes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(v->notes[i]));
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
    if (v->lof_df > 0) {
        cJSON *lof = cJSON_AddObjectToObject(o, "lack_of_fit");
        if (lof) {
            cJSON_AddNumberToObject(lof, "chi2", v->lof_chi2);
            cJSON_AddNumberToObject(lof, "df", v->lof_df);
            cJSON_AddNumberToObject(lof, "p", v->lof_p);
        }
    } else {
        cJSON_AddNullToObject(o, "lack_of_fit");
    }
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
        s_imbalance_name(im->diff, im->stratum, name, sizeof name);
        cJSON_AddStringToObject(e, "name", name);
        cJSON *diff = cJSON_AddObjectToObject(e, "diff");
        for (int p = 0; diff && p < STATS_PIECE_NB; p++) {
            char key[2] = { S_LETTER(p), '\0' };
            if (im->diff[p])
                cJSON_AddNumberToObject(diff, key, im->diff[p]);
        }
        if (im->stratum)
            cJSON_AddNumberToObject(e, "stratum", im->stratum);
        cJSON_AddNumberToObject(e, "games", (double) im->games);
        cJSON_AddNumberToObject(e, "pairs", (double) im->pairs);
        cJSON_AddItemToObject(e, "score", s_interval(im->score, im->score_lo, im->score_hi));
        cJSON_AddItemToObject(e, "elo", s_interval(im->elo, im->elo_lo, im->elo_hi));
        cJSON_AddNumberToObject(e, "model_score", im->predicted);
        cJSON_AddNumberToObject(e, "residual_z", im->residual_z);
    }
    if (bad || !contrasts || !notes || !list ||
        !cJSON_GetObjectItemCaseSensitive(o, "white_score")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
