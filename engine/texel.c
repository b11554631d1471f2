/* texel.c - labelled positions from games and the logistic fit of the
 * evaluation's parameters (texel.h). */
#include "texel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "see.h"

/* Central-difference step of the linearisation, in centipawns. */
#define TEXEL_H 20

void texel_set_init(texel_set_t *s)
{
    memset(s, 0, sizeof *s);
}

void texel_set_free(texel_set_t *s)
{
    free(s->pos);
    memset(s, 0, sizeof *s);
}

void texel_sample_default(texel_sample_t *o)
{
    o->skip_plies = 8;
    o->per_game = 10;
    o->seed = 1;
}

/* Room for one more position: the array grows by half again (at least 1024). */
static int s_reserve(texel_set_t *s)
{
    if (s->n < s->cap)
        return CAPA_OK;
    size_t want = s->cap + s->cap / 2 + 1024;
    texel_pos_t *moved = realloc(s->pos, want * sizeof *moved);
    if (moved == NULL)
        return CAPA_ENOMEM;
    s->pos = moved;
    s->cap = want;
    return CAPA_OK;
}

static int s_push(texel_set_t *s, const char *fen, variant_t v, double result)
{
    int rc = s_reserve(s);
    if (rc < 0)
        return rc;
    texel_pos_t *p = &s->pos[s->n++];
    snprintf(p->fen, sizeof p->fen, "%s", fen);
    p->variant = (uint8_t) v;
    p->result = (float) result;
    return CAPA_OK;
}

/* A heap board set to start_fen ("" or NULL = the variant's start). */
static int s_board_at(board_t **bp, const char *start_fen, variant_t v, char *err,
                      size_t errlen)
{
    *bp = malloc(sizeof **bp);
    if (!*bp)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (start_fen && *start_fen)
        return board_set_fen(*bp, start_fen, v, err, errlen);
    return board_set_startpos(*bp, v);
}

int texel_add_position(texel_set_t *s, const char *fen, variant_t v, double result, char *err,
                       size_t errlen)
{
    if (!(result >= 0.0 && result <= 1.0))
        return capa_fail(err, errlen, CAPA_EINVAL, "result %g is outside [0, 1]", result);
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = board_set_fen(b, fen, v, err, errlen);
    char norm[FEN_MAX];
    if (rc == CAPA_OK)
        board_get_fen(b, norm, sizeof norm);
    free(b);
    if (rc < 0)
        return rc;
    rc = s_push(s, norm, v, result);
    return rc < 0 ? capa_fail(err, errlen, rc, "out of memory") : CAPA_OK;
}

bool texel_is_quiet(const board_t *b)
{
    if (board_in_check(b))
        return false;
    move_list_t list;
    movegen_noisy(b, &list);
    for (int i = 0; i < list.count; i++) {
        move_t m = list.moves[i];
        if (move_is_promotion(m) || see_ge(b, m, 1))
            return false;
    }
    return true;
}

static uint64_t s_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static double s_label(game_result_t r)
{
    return r == RESULT_WHITE_WINS ? 1.0 : r == RESULT_BLACK_WINS ? 0.0 : 0.5;
}

int texel_add_game(texel_set_t *s, const texel_sample_t *o, variant_t v, const char *start_fen,
                   const move_t *moves, int plies, game_result_t result, char *err,
                   size_t errlen)
{
    s->games++;
    if (result == RESULT_ONGOING) {
        s->unfinished++;
        return CAPA_OK;
    }
    board_t *b = NULL;
    char (*cand)[FEN_MAX] = malloc((size_t) (plies + 1) * sizeof *cand);
    int rc = s_board_at(&b, start_fen, v, err, errlen);
    if (rc == CAPA_OK && !cand)
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (rc < 0)
        goto out;
    int n = 0;
    size_t opening = 0, in_check = 0, noisy = 0;
    for (int i = 0; i <= plies; i++) {
        if (i < o->skip_plies)
            opening++;
        else if (board_in_check(b))
            in_check++;
        else if (!texel_is_quiet(b))
            noisy++;
        else
            board_get_fen(b, cand[n++], FEN_MAX);
        if (i == plies)
            break;
        if (!movegen_is_legal(b, moves[i])) {
            char uci[UCI_MOVE_MAX];
            move_to_uci(b, moves[i], false, uci);
            rc = capa_fail(err, errlen, CAPA_EILLEGAL, "ply %d: %s is not a legal move", i + 1,
                           uci);
            goto out;
        }
        board_make(b, moves[i]);
    }
    /* A partial Fisher-Yates draw of k candidates, seeded by the game's number
     * (the candidates in game order when all are kept). */
    int k = o->per_game > 0 && o->per_game < n ? o->per_game : n;
    uint64_t state = s_mix(o->seed ^ s_mix((uint64_t) s->games));
    for (int i = 0; i < k; i++) {
        state = s_mix(state);
        int j = k == n ? i : i + (int) (state % (uint64_t) (n - i));   /* all: in game order */
        if (j != i) {
            char tmp[FEN_MAX];
            memcpy(tmp, cand[i], FEN_MAX);
            memcpy(cand[i], cand[j], FEN_MAX);
            memcpy(cand[j], tmp, FEN_MAX);
        }
        rc = s_push(s, cand[i], v, s_label(result));
        if (rc < 0) {
            rc = capa_fail(err, errlen, rc, "out of memory");
            goto out;
        }
    }
    s->plies += (size_t) plies + 1;
    s->opening += opening;
    s->in_check += in_check;
    s->noisy += noisy;
out:
    free(cand);
    free(b);
    return rc;
}

int texel_add_game_uci(texel_set_t *s, const texel_sample_t *o, variant_t v,
                       const char *start_fen, const char *uci_moves, game_result_t result,
                       char *err, size_t errlen)
{
    board_t *b = NULL;
    move_t *moves = malloc(TEXEL_MAX_PLIES * sizeof *moves);
    int plies = 0;
    int rc = s_board_at(&b, start_fen, v, err, errlen);
    if (rc == CAPA_OK && !moves)
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (rc < 0)
        goto out;
    const char *p = uci_moves ? uci_moves : "";
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char tok[UCI_MOVE_MAX + 1];
        size_t n = strcspn(p, " ");
        if (n > UCI_MOVE_MAX - 1) {
            rc = capa_fail(err, errlen, CAPA_EINVAL, "ply %d: \"%.*s\" is not a UCI move",
                           plies + 1, (int) (n > 16 ? 16 : n), p);
            goto out;
        }
        memcpy(tok, p, n);
        tok[n] = 0;
        p += n;
        if (plies >= TEXEL_MAX_PLIES) {
            rc = capa_fail(err, errlen, CAPA_ERANGE, "more than %d plies", TEXEL_MAX_PLIES);
            goto out;
        }
        move_t m;
        rc = move_from_uci(b, tok, &m);
        if (rc < 0) {
            rc = capa_fail(err, errlen, rc, "ply %d: %s is %s", plies + 1, tok,
                           rc == CAPA_EILLEGAL ? "not a legal move" : "not a UCI move");
            goto out;
        }
        moves[plies++] = m;
        board_make(b, m);
    }
    rc = texel_add_game(s, o, v, start_fen, moves, plies, result, err, errlen);
out:
    free(moves);
    free(b);
    return rc;
}

int texel_eval_white(const board_t *b, const params_t *p)
{
    int e = eval_evaluate(b, p);
    return board_side(b) == WHITE ? e : -e;
}

/* sigmoid(K * e / 400) with base 10, and its derivative's factor. */
static double s_sigmoid(double k, double e)
{
    return 1.0 / (1.0 + pow(10.0, -k * e / 400.0));
}

/* Every position's White-view evaluation under p (one board, reused). */
static int s_evals(const texel_set_t *s, const params_t *p, double *out)
{
    board_t *b = malloc(sizeof *b);
    if (!b)
        return CAPA_ENOMEM;
    for (size_t i = 0; i < s->n; i++) {
        board_set_fen(b, s->pos[i].fen, (variant_t) s->pos[i].variant, NULL, 0);
        out[i] = texel_eval_white(b, p);
    }
    free(b);
    return CAPA_OK;
}

static double s_mse(const texel_set_t *s, const double *evals, double k)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        double d = s->pos[i].result - s_sigmoid(k, evals[i]);
        sum += d * d;
    }
    return s->n ? sum / (double) s->n : 0.0;
}

double texel_error(const texel_set_t *s, const params_t *p, double k)
{
    double *ev = malloc((s->n ? s->n : 1) * sizeof *ev);
    if (!ev || s_evals(s, p, ev) < 0) {
        free(ev);
        return NAN;
    }
    double e = s_mse(s, ev, k);
    free(ev);
    return e;
}

double texel_fit_k(const texel_set_t *s, const params_t *p)
{
    double *ev = malloc((s->n ? s->n : 1) * sizeof *ev);
    if (!ev || s_evals(s, p, ev) < 0) {
        free(ev);
        return NAN;
    }
    /* Golden-section search on log K over [0.01, 10]. */
    const double g = (sqrt(5.0) - 1.0) / 2.0;
    double a = log(0.01), b = log(10.0);
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = s_mse(s, ev, exp(x1)), f2 = s_mse(s, ev, exp(x2));
    for (int i = 0; i < 60; i++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = s_mse(s, ev, exp(x1));
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = s_mse(s, ev, exp(x2));
        }
    }
    free(ev);
    return exp((a + b) / 2.0);
}

void texel_fit_default(texel_fit_opts_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < PARAM_NB; i++)
        o->tune[i] = true;
    o->iterations = 10;
    o->steps = 300;
    o->rate = 1.0;
}

/* The linear model around p0: base[i] and coef[i * t + j] for the t tuned
 * parameters idx[0..t). */
static int s_linearise(const texel_set_t *s, const params_t *p0, const int *idx, int t,
                       double *base, float *coef)
{
    board_t *b = malloc(sizeof *b);
    if (!b)
        return CAPA_ENOMEM;
    params_t q = *p0;
    for (size_t i = 0; i < s->n; i++) {
        board_set_fen(b, s->pos[i].fen, (variant_t) s->pos[i].variant, NULL, 0);
        base[i] = texel_eval_white(b, p0);
        for (int j = 0; j < t; j++) {
            int pi = idx[j];
            q.value[pi] = p0->value[pi] + TEXEL_H;
            int up = texel_eval_white(b, &q);
            q.value[pi] = p0->value[pi] - TEXEL_H;
            int down = texel_eval_white(b, &q);
            q.value[pi] = p0->value[pi];
            coef[i * (size_t) t + (size_t) j] = (float) (up - down) / (2.0f * TEXEL_H);
        }
    }
    free(b);
    return CAPA_OK;
}

/* Adam on the linear model from x = x0 (the linearisation point), with the
 * ridge term l2 x |x - anchor|^2. */
static void s_adam(const texel_set_t *s, const double *base, const float *coef, int t,
                   double k, const double *x0, const double *lo, const double *hi,
                   const texel_fit_opts_t *o, const double *anchor, double rate, double *x,
                   double *grad, double *m1, double *m2)
{
    const int steps = o->steps;
    const double b1 = 0.9, b2 = 0.999, eps = 1e-12;
    const double c = k * log(10.0) / 400.0;
    memcpy(x, x0, (size_t) t * sizeof *x);
    memset(m1, 0, (size_t) t * sizeof *m1);
    memset(m2, 0, (size_t) t * sizeof *m2);
    for (int step = 1; step <= steps; step++) {
        memset(grad, 0, (size_t) t * sizeof *grad);
        for (size_t i = 0; i < s->n; i++) {
            const float *ci = coef + i * (size_t) t;
            double e = base[i];
            for (int j = 0; j < t; j++)
                e += ci[j] * (x[j] - x0[j]);
            double sg = s_sigmoid(k, e);
            double w = (sg - s->pos[i].result) * sg * (1.0 - sg) * c;
            for (int j = 0; j < t; j++)
                grad[j] += w * ci[j];
        }
        double corr1 = 1.0 - pow(b1, step), corr2 = 1.0 - pow(b2, step);
        for (int j = 0; j < t; j++) {
            double gj = 2.0 * grad[j] / (double) s->n + 2.0 * o->l2 * (x[j] - anchor[j]);
            m1[j] = b1 * m1[j] + (1 - b1) * gj;
            m2[j] = b2 * m2[j] + (1 - b2) * gj * gj;
            x[j] -= rate * (m1[j] / corr1) / (sqrt(m2[j] / corr2) + eps);
            if (x[j] < lo[j])
                x[j] = lo[j];
            if (x[j] > hi[j])
                x[j] = hi[j];
        }
    }
}

int texel_fit(const texel_set_t *s, const params_t *start, double k, const texel_fit_opts_t *o,
              texel_fit_result_t *out, char *err, size_t errlen)
{
    if (s->n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "no positions to fit");
    int idx[PARAM_NB], t = 0;
    for (int i = 0; i < PARAM_NB; i++)
        if (o->tune[i])
            idx[t++] = i;
    if (t == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "no parameter to tune");
    double *base = malloc(s->n * sizeof *base);
    float *coef = malloc(s->n * (size_t) t * sizeof *coef);
    double *work = malloc(8 * (size_t) t * sizeof *work);
    double *ev = malloc(s->n * sizeof *ev);
    int rc = CAPA_OK;
    if (!base || !coef || !work || !ev) {
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory for %zu positions x %d parameters",
                       s->n, t);
        goto out;
    }
    double *x0 = work, *x = work + t, *grad = work + 2 * t, *m1 = work + 3 * t,
           *m2 = work + 4 * t, *lo = work + 5 * t, *hi = work + 6 * t, *anchor = work + 7 * t;
    for (int j = 0; j < t; j++) {
        const param_info_t *info = params_info(idx[j]);
        lo[j] = info->min;
        hi[j] = info->max;
        anchor[j] = start->value[idx[j]];
    }
    params_t best = *start;
    if (s_evals(s, &best, ev) < 0) {
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        goto out;
    }
    double best_err = s_mse(s, ev, k), best_obj = best_err;
    out->error_start = best_err;
    out->iterations = 0;
    double rate = o->rate;
    bool stale = true;   /* the linear model is not around best */
    for (int it = 1; it <= o->iterations && rate >= 0.05; it++) {
        if (stale && (rc = s_linearise(s, &best, idx, t, base, coef)) < 0) {
            rc = capa_fail(err, errlen, rc, "out of memory");
            goto out;
        }
        stale = false;
        for (int j = 0; j < t; j++)
            x0[j] = best.value[idx[j]];
        s_adam(s, base, coef, t, k, x0, lo, hi, o, anchor, rate, x, grad, m1, m2);
        double model = 0;
        for (size_t i = 0; i < s->n; i++) {
            double e = base[i];
            for (int j = 0; j < t; j++)
                e += coef[i * (size_t) t + (size_t) j] * (x[j] - x0[j]);
            double d = s->pos[i].result - s_sigmoid(k, e);
            model += d * d;
        }
        model /= (double) s->n;
        params_t cand = best;
        int changed = 0;
        double ridge = 0;
        for (int j = 0; j < t; j++) {
            int32_t v = (int32_t) floor(x[j] + 0.5);
            changed += v != best.value[idx[j]];
            cand.value[idx[j]] = v;
            ridge += o->l2 * (v - anchor[j]) * (v - anchor[j]);
        }
        if (s_evals(s, &cand, ev) < 0) {
            rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
            goto out;
        }
        double e = s_mse(s, ev, k);
        out->iterations = it;
        bool kept = changed > 0 && e + ridge < best_obj;
        if (o->log)
            fprintf(o->log,
                    "iteration %d: error %.6f (linear model %.6f, l2 term %.6f), %d "
                    "parameter%s changed, step %.3g cp: %s\n",
                    it, e, model, ridge, changed, changed == 1 ? "" : "s", rate,
                    kept ? "kept" : "not better, step halved");
        if (kept) {
            best = cand;
            best_err = e;
            best_obj = e + ridge;
            stale = true;
        } else {
            rate /= 2;
        }
    }
    out->best = best;
    out->error_end = best_err;
out:
    free(base);
    free(coef);
    free(work);
    free(ev);
    return rc;
}
