/* stats_design.c - columns, estimable combinations and contrasts of a
 * piece-value design (see stats_design.h). */
#include "stats_design.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "textbuf.h"

#define S_EPS 1e-9

static const char S_LETTERS[STATS_PIECE_NB + 1] = "PNBRACQ";

char stats_piece_letter(int piece)
{
    return piece >= 0 && piece < STATS_PIECE_NB ? S_LETTERS[piece] : '?';
}

void stats_design_add(double g[STATS_COEF_NB][STATS_COEF_NB], const int8_t diff[STATS_PIECE_NB],
                      const double cov[STATS_COV_NB], int test_white, double weight)
{
    double z[STATS_COEF_NB], sign = test_white ? 1.0 : -1.0;
    z[0] = 1.0;
    for (int p = 0; p < STATS_PIECE_NB; p++)
        z[1 + p] = sign * diff[p];
    for (int k = 0; k < STATS_COV_NB; k++)
        z[STATS_COEF_COV + k] = cov ? sign * cov[k] : 0.0;
    for (int a = 0; a < STATS_COEF_NB; a++)
        for (int b = 0; b < STATS_COEF_NB; b++)
            g[a][b] += weight * z[a] * z[b];
}

int stats_cholesky(const double a[STATS_COEF_NB][STATS_COEF_NB], int m, double l[STATS_COEF_NB][STATS_COEF_NB])
{
    memset(l, 0, sizeof(double) * STATS_COEF_NB * STATS_COEF_NB);
    for (int j = 0; j < m; j++) {
        double d = a[j][j];
        for (int k = 0; k < j; k++)
            d -= l[j][k] * l[j][k];
        if (!(a[j][j] > 0.0) || !(d > S_EPS * a[j][j]))
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

void stats_chol_solve(const double l[STATS_COEF_NB][STATS_COEF_NB], int m, const double *b, double *x)
{
    double y[STATS_COEF_NB];
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

int stats_sandwich(const double h[STATS_COEF_NB][STATS_COEF_NB], const double b[STATS_COEF_NB][STATS_COEF_NB],
                   int m, double f, double v[STATS_COEF_NB][STATS_COEF_NB])
{
    double l[STATS_COEF_NB][STATS_COEF_NB], hinv[STATS_COEF_NB][STATS_COEF_NB];
    if (stats_cholesky(h, m, l))
        return -1;
    for (int c = 0; c < m; c++) {
        double e[STATS_COEF_NB] = { 0 }, x[STATS_COEF_NB];
        e[c] = 1.0;
        stats_chol_solve(l, m, e, x);
        for (int a = 0; a < m; a++)
            hinv[a][c] = x[a];
    }
    for (int a = 0; a < m; a++)
        for (int c = 0; c < m; c++) {
            double s = 0.0;
            for (int p = 0; p < m; p++)
                for (int q = 0; q < m; q++)
                    s += hinv[a][p] * b[p][q] * hinv[q][c];
            v[a][c] = f * s;
        }
    return 0;
}

/* The Cholesky factor of g's rows and columns idx[0..k). */
static int s_cholesky_of(const double g[STATS_COEF_NB][STATS_COEF_NB], const int *idx, int k,
                         double l[STATS_COEF_NB][STATS_COEF_NB])
{
    double sub[STATS_COEF_NB][STATS_COEF_NB];
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            sub[i][j] = g[idx[i]][idx[j]];
    return stats_cholesky(sub, k, l);
}

/* Keeps column f when it adds a direction to the kept ones: 1, or 0. */
static int s_keep(const double g[STATS_COEF_NB][STATS_COEF_NB], stats_design_t *d, int f)
{
    int idx[STATS_COEF_NB];
    memcpy(idx, d->full, sizeof(int) * (size_t) d->m);
    idx[d->m] = f;
    double l[STATS_COEF_NB][STATS_COEF_NB];
    if (s_cholesky_of(g, idx, d->m + 1, l) != 0)
        return 0;
    d->col[f] = d->m;
    d->full[d->m++] = f;
    return 1;
}

int stats_design_analyse(const double g[STATS_COEF_NB][STATS_COEF_NB], stats_design_t *d, char *err,
                         size_t errlen)
{
    memset(d, 0, sizeof *d);
    for (int f = 0; f < STATS_COEF_NB; f++)
        d->col[f] = -1;
    if (!(g[0][0] > 0.0))
        return capa_fail(err, errlen, CAPA_EINVAL, "no games to fit");
    int any = 0;
    for (int p = 0; p < STATS_PIECE_NB; p++)
        any |= d->active[p] = g[1 + p][1 + p] > 0.0;
    if (!any)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "no imbalance changes the material (every game starts level): the study "
                         "can estimate nothing");
    d->full[0] = 0;
    d->col[0] = 0;
    d->m = 1;
    for (int f = 1; f < STATS_COEF_NB; f++) {
        double *nv = d->null[d->n_null];
        if (f >= STATS_COEF_COV) {
            /* the covariates last: kept when they add a direction, else left out */
            int k = f - STATS_COEF_COV;
            if (!(g[f][f] > 0.0))
                continue;
            d->covariate[k] = s_keep(g, d, f);
            d->covariate_confounded[k] = !d->covariate[k];
            continue;
        }
        if (!d->active[f - 1]) {
            memset(nv, 0, sizeof(double) * STATS_COEF_NB);
            nv[f] = 1.0;
            d->n_null++;
            continue;
        }
        if (s_keep(g, d, f))
            continue;
        /* Column f is a combination of the kept ones: x_f = sum_s a_s x_s with
         * G_SS a = G_Sf; the direction e_f - sum_s a_s e_s changes nothing. */
        int idx[STATS_COEF_NB];
        memcpy(idx, d->full, sizeof(int) * (size_t) d->m);
        double l[STATS_COEF_NB][STATS_COEF_NB];
        s_cholesky_of(g, idx, d->m, l);
        double y[STATS_COEF_NB], a[STATS_COEF_NB];
        for (int i = 0; i < d->m; i++) {
            double s = g[idx[i]][f];
            for (int q = 0; q < i; q++)
                s -= l[i][q] * y[q];
            y[i] = s / l[i][i];
        }
        for (int i = d->m - 1; i >= 0; i--) {
            double s = y[i];
            for (int q = i + 1; q < d->m; q++)
                s -= l[q][i] * a[q];
            a[i] = s / l[i][i];
        }
        if (fabs(a[0]) > 1e-6)
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "the value of %c cannot be told from White's edge: the side under test "
                             "must play both colours",
                             S_LETTERS[f - 1]);
        memset(nv, 0, sizeof(double) * STATS_COEF_NB);
        nv[f] = 1.0;
        for (int i = 0; i < d->m; i++)
            nv[d->full[i]] = fabs(a[i]) < 1e-9 ? 0.0 : -a[i];
        d->n_null++;
    }
    return 0;
}

int stats_design_estimable(const stats_design_t *d, const double c[STATS_COEF_NB])
{
    double cn = 0.0;
    for (int f = 0; f < STATS_COEF_NB; f++)
        cn += c[f] * c[f];
    for (int k = 0; k < d->n_null; k++) {
        double dot = 0.0, nn = 0.0;
        for (int f = 0; f < STATS_COEF_NB; f++) {
            dot += c[f] * d->null[k][f];
            nn += d->null[k][f] * d->null[k][f];
        }
        if (fabs(dot) > 1e-7 * sqrt(cn * nn))
            return 0;
    }
    return cn > 0.0;
}

int stats_design_piece_estimable(const stats_design_t *d, int piece)
{
    double c[STATS_COEF_NB] = { 0 };
    c[1 + piece] = 1.0;
    return stats_design_estimable(d, c);
}

/* " + N", " - B", " + 2 P", " - 0.5 R" (first term without its plus). */
static void s_term(textbuf_t *o, double a, int piece, int first)
{
    double m = fabs(a);
    if (first)
        textbuf_put(o, a < 0 ? "-" : "");
    else
        textbuf_put(o, a < 0 ? " - " : " + ");
    if (fabs(m - 1.0) > 1e-9)
        textbuf_put(o, "%g ", m);
    textbuf_put(o, "%c", S_LETTERS[piece]);
}

int stats_design_explain(const stats_design_t *d, char notes[][STATS_NOTE_MAX], int max)
{
    int n = 0;
    for (int k = 0; k < d->n_null && n < max; k++) {
        const double *nv = d->null[k];
        int lead = -1, involved[STATS_PIECE_NB], ni = 0;
        for (int f = STATS_PIECE_NB; f >= 1; f--)
            if (fabs(nv[f]) > 1e-9) {
                if (lead < 0)
                    lead = f; /* the column found dependent: the highest index */
                involved[ni++] = f - 1;
            }
        if (lead < 0 || !d->active[lead - 1])
            continue; /* a piece in no imbalance: nothing to separate */
        textbuf_t o = textbuf_make(notes[n], STATS_NOTE_MAX);
        textbuf_put(&o, "in every imbalance %c =", S_LETTERS[lead - 1]);
        int first = 1;
        for (int f = 1; f < lead; f++)
            if (fabs(nv[f]) > 1e-9) {
                if (first)
                    textbuf_put(&o, " ");
                s_term(&o, -nv[f] / nv[lead], f - 1, first);
                first = 0;
            }
        textbuf_put(&o, ": ");
        /* involved[] runs from the strongest piece down */
        for (int i = 0; i < ni; i++)
            textbuf_put(&o, "%c%s", S_LETTERS[involved[i]], i == ni - 1 ? "" : i == ni - 2 ? " and " : ", ");
        textbuf_put(&o, " are not valued one by one, only together");
        int said = 0;
        for (int i = 0; i < ni && !said; i++)
            for (int j = i + 1; j < ni && !said; j++)
                for (int s = -1; s <= 1 && !said; s += 2) {
                    double c[STATS_COEF_NB] = { 0 };
                    c[1 + involved[i]] = 1.0;
                    c[1 + involved[j]] = s;
                    if (stats_design_estimable(d, c)) {
                        /* A - C, as the contrasts name it; else the stronger first */
                        int x = involved[i], y = involved[j];
                        if (s < 0 && x == STATS_C && y == STATS_A)
                            x = STATS_A, y = STATS_C;
                        textbuf_put(&o, " (such as %c %c %c)", S_LETTERS[x], s > 0 ? '+' : '-', S_LETTERS[y]);
                        said = 1;
                    }
                }
        n++;
    }
    return n;
}

static int s_contrast(const stats_design_t *d, int hi, int lo, int head, stats_contrast_def_t *out)
{
    if (!d->active[hi] || !d->active[lo])
        return 0;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%c-%c", S_LETTERS[hi], S_LETTERS[lo]);
    out->coef[1 + hi] = 1.0;
    out->coef[1 + lo] = -1.0;
    out->estimable = stats_design_estimable(d, out->coef);
    return head || out->estimable;
}

int stats_design_contrasts(const stats_design_t *d, stats_contrast_def_t *out, int max)
{
    static const int HEAD[3][2] = { { STATS_A, STATS_C }, { STATS_Q, STATS_A }, { STATS_Q, STATS_C } };
    int n = 0;
    for (int i = 0; i < 3 && n < max; i++)
        n += s_contrast(d, HEAD[i][0], HEAD[i][1], 1, &out[n]);
    for (int hi = STATS_Q; hi > STATS_P && n < max; hi--)
        for (int lo = hi - 1; lo > STATS_P && n < max; lo--) {
            int head = 0;
            for (int i = 0; i < 3; i++)
                head |= (HEAD[i][0] == hi && HEAD[i][1] == lo) || (HEAD[i][0] == lo && HEAD[i][1] == hi);
            if (!head)
                n += s_contrast(d, hi, lo, 0, &out[n]);
        }
    return n;
}

int stats_fieller(double a, double b, double vaa, double vab, double vbb, double z, double *lo,
                  double *hi)
{
    double z2 = z * z, qa = b * b - z2 * vbb;
    if (!(qa > 0.0))
        return -1;
    double qb = a * b - z2 * vab, qc = a * a - z2 * vaa;
    double disc = fmax(qb * qb - qa * qc, 0.0);
    *lo = (qb - sqrt(disc)) / qa;
    *hi = (qb + sqrt(disc)) / qa;
    return 0;
}
