/* report.c - run reports (see report.h). */
#include "json.h"
#include "report.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "rundoc.h"
#include "runinfo.h"
#include "stats_sprt.h"
#include "stats_plan.h"
#include "stats_values.h"
#include "store_series.h"

#define REPORT_SPSA_HISTORY 200

static cJSON *s_json_or_null(const char *text)
{
    cJSON *j = text ? json_parse(text) : NULL;
    return j ? j : cJSON_CreateNull();
}

static void s_counts(const store_totals_t *t, stats_counts_t *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 5; i++)
        c->penta[i] = t->penta[i];
    c->wins = t->wins;
    c->draws = t->draws;
    c->losses = t->losses;
}

static int s_sprt(const runinfo_t *ri, const store_totals_t *t, cJSON *rep, char *err,
                  size_t errlen)
{
    stats_counts_t c;
    s_counts(t, &c);
    stats_sprt_report_t r;
    int rc = stats_sprt_report(&ri->sprt, &c, &r, err, errlen);
    if (rc < 0)
        return rc;
    cJSON *j = stats_sprt_to_json(&r);
    if (!j)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    cJSON_AddItemToObject(rep, "sprt", j);
    return 0;
}

/* A covariate's difference as the fit takes it (at most STATS_DIFF_MAX
 * either way: a start array has ten pawns a side). */
static double s_clamp_cov(double v)
{
    return v > STATS_DIFF_MAX ? STATS_DIFF_MAX : v < -STATS_DIFF_MAX ? -STATS_DIFF_MAX : v;
}

/* 1 when diff is one pawn and nothing else (pawn odds): its games are
 * split by the file of the missing pawn. */
static int s_single_pawn(const int8_t *diff)
{
    int other = 0;
    for (int p = STATS_N; p < STATS_PIECE_NB; p++)
        other |= diff[p];
    return !other && (diff[STATS_P] == 1 || diff[STATS_P] == -1);
}

int report_values_games(store_t *store, int64_t run_id, const rundoc_t *doc, int buckets,
                        stats_game_t **games_p, int **bucket_p, size_t *n_out, char *err,
                        size_t errlen)
{
    *games_p = NULL;
    if (bucket_p)
        *bucket_p = NULL;
    *n_out = 0;
    store_pair_type_t *t = NULL;
    size_t nt = 0;
    if (store_pair_types(store, run_id, buckets, &t, &nt) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    stats_game_t *games = calloc(2 * nt + 1, sizeof *games);
    int *bucket = calloc(2 * nt + 1, sizeof *bucket);
    if (!games || !bucket) {
        free(t);
        free(games);
        free(bucket);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    size_t ng = 0;
    for (size_t i = 0; i < nt; i++) {
        const rundoc_imbalance_t *im = NULL;
        for (size_t k = 0; k < doc->imbalance_count && !im; k++)
            if (strcmp(doc->imbalances[k].name, t[i].imbalance) == 0)
                im = &doc->imbalances[k];
        if (!im)
            continue;
        int8_t diff[STATS_PIECE_NB];
        stats_plan_diff(im->side, im->other, diff); /* letters checked by rundoc */
        for (int gi = 0; gi < 2; gi++) {
            bucket[ng] = t[i].bucket;
            stats_game_t *g = &games[ng++];
            memcpy(g->diff, diff, sizeof diff);
            g->stratum = s_single_pawn(diff) ? (int8_t) t[i].stratum : 0;
            g->test_white = t[i].b_white[gi] ? 1 : 0;
            int white = t[i].result[gi];
            g->score = (t[i].b_white[gi] ? white : 2 - white) / 2.0;
            g->pair = (int64_t) i;
            g->count = t[i].count;
            g->cov[STATS_COV_UNPROT] = s_clamp_cov(t[i].unprot);
            g->cov[STATS_COV_SHELTER] = s_clamp_cov(t[i].shelter);
        }
    }
    free(t);
    *games_p = games;
    if (bucket_p)
        *bucket_p = bucket;
    else
        free(bucket);
    *n_out = ng;
    return 0;
}

/* What the run's pairs say without a fit: the raw scores per imbalance
 * from B's side ("imbalances"), how the games ended ("endings") and the
 * engines that played them ("engines"). */
static int s_imbalance_scores(store_t *store, int64_t run_id, const rundoc_t *doc, cJSON *rep,
                              char *err, size_t errlen)
{
    store_imbalance_t *rows = NULL;
    size_t nrows = 0;
    if (store_imbalance_games(store, run_id, &rows, &nrows) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    cJSON *list = cJSON_AddArrayToObject(rep, "imbalances");
    for (size_t i = 0; i < doc->imbalance_count; i++) {
        const rundoc_imbalance_t *im = &doc->imbalances[i];
        int64_t w = 0, d = 0, l = 0;
        for (size_t k = 0; k < nrows; k++)
            if (strcmp(rows[k].imbalance, im->name) == 0) {
                w += rows[k].wins;
                d += rows[k].draws;
                l += rows[k].losses;
            }
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", im->name);
        cJSON_AddStringToObject(e, "side", im->side);
        cJSON_AddStringToObject(e, "other", im->other);
        cJSON_AddNumberToObject(e, "games", (double) (w + d + l));
        cJSON_AddNumberToObject(e, "wins", (double) w);
        cJSON_AddNumberToObject(e, "draws", (double) d);
        cJSON_AddNumberToObject(e, "losses", (double) l);
        if (w + d + l > 0)
            cJSON_AddNumberToObject(e, "score", (w + 0.5 * d) / (double) (w + d + l));
        else
            cJSON_AddNullToObject(e, "score");
        cJSON_AddItemToArray(list, e);
    }
    free(rows);
    /* How the games ended: adjudication decides most values games, on the
     * engine's own evaluation, so its share is part of the answer. */
    store_ending_t *ends = NULL;
    size_t ne = 0;
    if (store_run_endings(store, run_id, &ends, &ne) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    int64_t all = 0;
    for (size_t i = 0; i < ne; i++)
        all += ends[i].games;
    cJSON *endings = cJSON_AddArrayToObject(rep, "endings");
    for (size_t i = 0; endings && i < ne; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "end", ends[i].end);
        cJSON_AddNumberToObject(e, "games", (double) ends[i].games);
        cJSON_AddNumberToObject(e, "share", (double) ends[i].games / (double) all);
        cJSON_AddItemToArray(endings, e);
    }
    free(ends);
    /* which engines played them: /values files an estimate under its engine */
    char *engines = NULL;
    if (store_run_engines(store, run_id, &engines) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    cJSON *played = cJSON_Parse(engines);
    free(engines);
    if (!played || !cJSON_AddItemToObject(rep, "engines", played)) {
        cJSON_Delete(played);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    return 0;
}

/* The class of (imbalance name, unprotected pawns, king's shelter) in
 * classes[0..*n), added when new; -1 for an imbalance the document does not
 * name. */
static int s_class_of(const rundoc_t *doc, const char *name, int unprot, double shelter, stats_class_t *classes,
                      int *imb, size_t *n)
{
    int k = -1;
    for (size_t i = 0; i < doc->imbalance_count && k < 0; i++)
        if (strcmp(doc->imbalances[i].name, name) == 0)
            k = (int) i;
    if (k < 0)
        return -1;
    double cov[STATS_COV_NB];
    cov[STATS_COV_UNPROT] = s_clamp_cov(unprot);
    cov[STATS_COV_SHELTER] = s_clamp_cov(shelter);
    for (size_t c = 0; c < *n; c++)
        if (imb[c] == k && memcmp(classes[c].cov, cov, sizeof cov) == 0)
            return (int) c;
    stats_plan_diff(doc->imbalances[k].side, doc->imbalances[k].other, classes[*n].diff);
    memcpy(classes[*n].cov, cov, sizeof cov);
    imb[*n] = k;
    return (int) (*n)++;
}

/* The run's round moments as the fit takes them (stats_rounds_t): one class
 * per imbalance of the document and its covariates' values. The caller
 * frees *classes_p and *moments_p. 0, CAPA_EDB, CAPA_ENOMEM, or CAPA_ERANGE
 * (no rounds). */
static int s_round_moments(store_t *store, int64_t run_id, const runinfo_t *ri, stats_rounds_t *rd,
                           stats_class_t **classes_p, stats_moment_t **moments_p, char *err,
                           size_t errlen)
{
    memset(rd, 0, sizeof *rd);
    *classes_p = NULL;
    *moments_p = NULL;
    int64_t k0[STARTPOS_IMB_MAX + 1], r0[STARTPOS_IMB_MAX + 1], w[STARTPOS_IMB_MAX + 1];
    int segs = startpos_round_segments(&ri->spec, k0, r0, w, STARTPOS_IMB_MAX + 1);
    if (segs < 1)
        return capa_fail(err, errlen, CAPA_ERANGE, "run %lld deals no rounds", (long long) run_id);
    store_round_moment_t *rows = NULL;
    size_t nr = 0;
    int64_t rounds = 0;
    if (store_round_moments(store, run_id, k0, r0, w, segs, &rows, &nr, &rounds) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    /* every class appears as the first of some row (with itself) */
    stats_class_t *classes = calloc(2 * nr + 1, sizeof *classes);
    int *imb = calloc(2 * nr + 1, sizeof *imb);
    stats_moment_t *moments = calloc(nr + 1, sizeof *moments);
    if (!classes || !imb || !moments) {
        free(rows);
        free(classes);
        free(imb);
        free(moments);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    size_t nm = 0, nc = 0;
    for (size_t i = 0; i < nr; i++) {
        int j = s_class_of(ri->doc, rows[i].cls[0], rows[i].unprot[0], rows[i].shelter[0], classes, imb, &nc);
        int l = j < 0 ? -1
                      : s_class_of(ri->doc, rows[i].cls[1], rows[i].unprot[1], rows[i].shelter[1], classes, imb,
                                   &nc);
        if (j < 0 || l < 0)
            continue; /* an imbalance the document does not name: not in the games either */
        stats_moment_t *mo = &moments[nm++];
        mo->j = j;
        mo->l = l;
        /* A and S come in half points */
        static const double SCALE[3] = { 1.0, 0.5, 0.5 };
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                mo->m[x][y] = (double) rows[i].m[x][y] * SCALE[x] * SCALE[y];
    }
    free(rows);
    free(imb);
    *rd = (stats_rounds_t) { .classes = classes, .n_classes = nc, .moments = moments, .n_moments = nm,
                             .rounds = rounds };
    *classes_p = classes;
    *moments_p = moments;
    return 0;
}

/* The raw scores and a new fit over every game, from the pairs summed up by
 * kind (exactly the same fit, one aggregate query), with the rounds (one
 * start array each) as clusters from a second aggregate query. */
static int s_values_fit(store_t *store, int64_t run_id, const runinfo_t *ri, cJSON *rep, char *err,
                        size_t errlen)
{
    const rundoc_t *doc = ri->doc;
    int rc = s_imbalance_scores(store, run_id, doc, rep, err, errlen);
    if (rc < 0)
        return rc;
    stats_game_t *games = NULL;
    size_t ng = 0;
    rc = report_values_games(store, run_id, doc, 1, &games, NULL, &ng, err, errlen);
    stats_rounds_t rd;
    stats_class_t *classes = NULL;
    stats_moment_t *moments = NULL;
    if (rc == 0 && ng > 0)
        rc = s_round_moments(store, run_id, ri, &rd, &classes, &moments, err, errlen);
    if (rc == 0 && ng > 0) {
        stats_values_t *v = NULL;
        char ferr[256];
        if (stats_values_fit_rounds(games, ng, rd.n_moments > 0 ? &rd : NULL, &v, ferr, sizeof ferr) == 0) {
            cJSON_AddItemToObject(rep, "values", stats_values_to_json(v));
            stats_values_destroy(&v);
        } else {
            cJSON_AddStringToObject(rep, "values_error", ferr);
        }
    } else if (rc == 0) {
        cJSON_AddStringToObject(rep, "values_error", "no games yet");
    }
    free(classes);
    free(moments);
    free(games);
    return rc;
}

/* The raw scores and the fit of the run's stored estimate (made by the
 * coordinator once per change of the run's data), with "estimate":
 * {pairs_used, computed_at_ms}; without an estimate yet, the raw scores now
 * and "values_error". */
static int s_values_stored(store_t *store, int64_t run_id, const rundoc_t *doc, cJSON *rep,
                           char *err, size_t errlen)
{
    char *text = NULL;
    int64_t used = 0, at = 0;
    int rc = store_estimate_get(store, run_id, &text, &used, &at);
    if (rc == CAPA_ENOTFOUND) {
        rc = s_imbalance_scores(store, run_id, doc, rep, err, errlen);
        if (rc == 0)
            cJSON_AddStringToObject(rep, "values_error", "no estimate yet");
        return rc;
    }
    if (rc < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    cJSON *stored = cJSON_Parse(text);
    free(text);
    if (!stored)
        return capa_fail(err, errlen, CAPA_EINVAL, "run %lld: the stored estimate is not JSON",
                         (long long) run_id);
    static const char *const keys[] = { "imbalances", "endings", "engines", "values", "values_error" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(stored, keys[i]);
        if (item)
            cJSON_AddItemToObject(rep, keys[i], item);
    }
    cJSON_Delete(stored);
    if (!cJSON_GetObjectItemCaseSensitive(rep, "imbalances"))
        rc = s_imbalance_scores(store, run_id, doc, rep, err, errlen);
    cJSON *e = cJSON_AddObjectToObject(rep, "estimate");
    cJSON_AddNumberToObject(e, "pairs_used", (double) used);
    cJSON_AddNumberToObject(e, "computed_at_ms", (double) at);
    return rc;
}

static int s_spsa(store_t *store, int64_t run_id, const rundoc_t *doc, const char *state,
                  cJSON *rep, char *err, size_t errlen)
{
    cJSON *o = cJSON_AddObjectToObject(rep, "spsa");
    cJSON_AddNumberToObject(o, "iterations", (double) doc->iterations);
    store_spsa_step_t *steps = NULL;
    size_t n = 0;
    if (store_spsa_list(store, run_id, &steps, &n) < 0)
        return capa_fail(err, errlen, CAPA_EDB, "%s", store_last_error(store));
    cJSON *theta = NULL;
    int64_t iter = 0;
    if (n > 0) {
        theta = json_parse(steps[n - 1].theta);
        iter = steps[n - 1].iteration;
    }
    if (!theta) {
        theta = cJSON_CreateObject();
        for (size_t i = 0; i < doc->spsa_count; i++)
            cJSON_AddNumberToObject(theta, doc->spsa[i].name, doc->spsa[i].start);
    }
    cJSON_AddNumberToObject(o, "iteration", (double) iter);
    cJSON_AddItemToObject(o, "theta", theta);
    cJSON *hist = cJSON_AddArrayToObject(o, "history");
    size_t first = n > REPORT_SPSA_HISTORY ? n - REPORT_SPSA_HISTORY : 0;
    for (size_t i = first; i < n; i++) {
        cJSON *h = cJSON_CreateObject();
        cJSON_AddNumberToObject(h, "iteration", (double) steps[i].iteration);
        cJSON_AddItemToObject(h, "theta", s_json_or_null(steps[i].theta));
        cJSON_AddItemToArray(hist, h);
    }
    store_spsa_list_free(&steps, n);
    (void) state;
    return 0;
}

/* A step of a study series (series.h): "series": {id, step (1-based)}. */
static void s_series_link(store_t *store, int64_t run_id, cJSON *rep)
{
    int64_t sid = 0;
    int step = 0;
    if (store_series_of_run(store, run_id, &sid, &step) < 0)
        return;
    cJSON *o = cJSON_AddObjectToObject(rep, "series");
    cJSON_AddNumberToObject(o, "id", (double) sid);
    cJSON_AddNumberToObject(o, "step", step + 1);
}

int report_build(store_t *store, int64_t run_id, unsigned flags, cJSON **out, char *err,
                 size_t errlen)
{
    *out = NULL;
    store_run_t run;
    memset(&run, 0, sizeof run);
    int rc = store_run_get(store, run_id, &run);
    if (rc == CAPA_ENOTFOUND)
        return capa_fail(err, errlen, rc, "no run %lld", (long long) run_id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    runinfo_t *ri = NULL;
    rc = runinfo_from_doc(run.doc ? run.doc : "", NULL, RUNINFO_READ_ONLY, &ri, err, errlen);
    const rundoc_t *doc = ri ? ri->doc : NULL;
    cJSON *rep = rc == 0 ? cJSON_CreateObject() : NULL;
    if (rc == 0 && !rep)
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (rc == 0) {
        cJSON_AddNumberToObject(rep, "id", (double) run.id);
        cJSON_AddStringToObject(rep, "name", run.name);
        cJSON_AddStringToObject(rep, "kind", proto_kind_name(run.kind));
        cJSON_AddStringToObject(rep, "status", store_run_status_name(run.status));
        cJSON_AddNumberToObject(rep, "priority", run.priority);
        cJSON_AddNumberToObject(rep, "seed", (double) run.seed);
        cJSON_AddNumberToObject(rep, "pairs_planned", (double) run.pairs_planned);
        cJSON_AddNumberToObject(rep, "created_at_ms", (double) run.created_at_ms);
        cJSON_AddNumberToObject(rep, "started_at_ms", (double) run.started_at_ms);
        cJSON_AddNumberToObject(rep, "finished_at_ms", (double) run.finished_at_ms);
        cJSON_AddItemToObject(rep, "result", s_json_or_null(run.result));
        cJSON *t = cJSON_AddObjectToObject(rep, "totals");
        cJSON_AddNumberToObject(t, "pairs", (double) run.totals.pairs);
        cJSON *pt = cJSON_AddArrayToObject(t, "penta");
        for (int i = 0; i < 5; i++)
            cJSON_AddItemToArray(pt, cJSON_CreateNumber((double) run.totals.penta[i]));
        cJSON_AddNumberToObject(t, "wins", (double) run.totals.wins);
        cJSON_AddNumberToObject(t, "draws", (double) run.totals.draws);
        cJSON_AddNumberToObject(t, "losses", (double) run.totals.losses);
        cJSON_AddNumberToObject(t, "cpu_ms", (double) run.totals.cpu_ms);
        switch (run.kind) {
        case PROTO_KIND_SPRT:
            rc = s_sprt(ri, &run.totals, rep, err, errlen);
            break;
        case PROTO_KIND_VALUES:
            rc = (flags & REPORT_FIT) ? s_values_fit(store, run_id, ri, rep, err, errlen)
                                      : s_values_stored(store, run_id, doc, rep, err, errlen);
            if (rc == 0 && !(flags & REPORT_FIT))
                s_series_link(store, run_id, rep);
            break;
        case PROTO_KIND_SPSA:
            rc = s_spsa(store, run_id, doc, run.state, rep, err, errlen);
            break;
        }
    }
    runinfo_destroy(&ri);
    store_run_clear(&run);
    if (rc < 0) {
        cJSON_Delete(rep);
        return rc;
    }
    *out = rep;
    return 0;
}

/* ---- text ---------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
    bool oom;
} s_text_t;

static void s_put(s_text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_put(s_text_t *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->oom = true;
            return;
        }
        if ((size_t) n < t->cap - t->len) {
            t->len += (size_t) n;
            return;
        }
        size_t cap = (t->cap + (size_t) n + 1) * 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->oom = true;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

static double s_num(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

static const char *s_str(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : "";
}

/* value [lo, hi] of an interval object {"value", "ci95": [lo, hi]} */
static void s_interval(s_text_t *t, const cJSON *o, const char *fmt_one)
{
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(o, "ci95");
    double v = s_num(o, "value");
    double lo = cJSON_IsArray(ci) && cJSON_GetArraySize(ci) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ci, 0))
                    ? cJSON_GetArrayItem(ci, 0)->valuedouble : NAN;
    double hi = cJSON_IsArray(ci) && cJSON_GetArraySize(ci) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ci, 1))
                    ? cJSON_GetArrayItem(ci, 1)->valuedouble : NAN;
    char f[64];
    snprintf(f, sizeof f, "%s [%s, %s]", fmt_one, fmt_one, fmt_one);
    s_put(t, f, v, lo, hi);
}

char *report_format(const cJSON *rep)
{
    s_text_t t = { 0 };
    s_put(&t, "run %.0f  %s  (%s, %s, priority %.0f)\n", s_num(rep, "id"), s_str(rep, "name"),
          s_str(rep, "kind"), s_str(rep, "status"), s_num(rep, "priority"));
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    s_put(&t, "pairs      %.0f of %.0f planned   CPU %.1f h\n", s_num(tot, "pairs"),
          s_num(rep, "pairs_planned"), s_num(tot, "cpu_ms") / 3.6e6);
    const cJSON *sprt = cJSON_GetObjectItemCaseSensitive(rep, "sprt");
    if (sprt) {
        s_put(&t, "games      W %.0f  D %.0f  L %.0f\n", s_num(sprt, "wins"), s_num(sprt, "draws"),
              s_num(sprt, "losses"));
        const cJSON *pt = cJSON_GetObjectItemCaseSensitive(sprt, "penta");
        s_put(&t, "penta      ");
        const cJSON *x;
        cJSON_ArrayForEach(x, pt)
            s_put(&t, "%.0f ", x->valuedouble);
        s_put(&t, " (pairs scoring 0, 1/4, 1/2, 3/4, 1)\n");
        s_put(&t, "Elo        ");
        s_interval(&t, cJSON_GetObjectItemCaseSensitive(sprt, "elo"), "%.1f");
        s_put(&t, "\nnElo       ");
        s_interval(&t, cJSON_GetObjectItemCaseSensitive(sprt, "nelo"), "%.1f");
        s_put(&t, "\nLOS        %.1f%%\n", 100.0 * s_num(sprt, "los"));
        s_put(&t, "LLR        %.3f  [%.3f, %.3f]  (%s [%g, %g], alpha %g, beta %g)\n",
              s_num(sprt, "llr"), s_num(sprt, "lower_bound"), s_num(sprt, "upper_bound"),
              s_str(sprt, "model"), s_num(sprt, "elo0"), s_num(sprt, "elo1"),
              s_num(sprt, "alpha"), s_num(sprt, "beta"));
        s_put(&t, "verdict    %s\n", s_str(sprt, "verdict"));
    }
    const cJSON *imbs = cJSON_GetObjectItemCaseSensitive(rep, "imbalances");
    if (imbs) {
        s_put(&t, "imbalance            games      W      D      L   score (side under test)\n");
        const cJSON *e;
        cJSON_ArrayForEach(e, imbs)
            s_put(&t, "%-18s %7.0f %6.0f %6.0f %6.0f   %.3f\n", s_str(e, "name"), s_num(e, "games"),
                  s_num(e, "wins"), s_num(e, "draws"), s_num(e, "losses"), s_num(e, "score"));
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(rep, "values");
        const cJSON *pv = vals ? cJSON_GetObjectItemCaseSensitive(vals, "values") : NULL;
        if (pv) {
            s_put(&t, "piece values (pawns, 95%% interval), %.0f games:\n", s_num(vals, "games"));
            const cJSON *p;
            cJSON_ArrayForEach(p, pv) {
                if (cJSON_IsNull(p))
                    continue;
                s_put(&t, "  %-2s ", p->string);
                s_interval(&t, p, "%.2f");
                s_put(&t, "\n");
            }
        } else {
            s_put(&t, "piece values: %s\n", s_str(rep, "values_error"));
        }
    }
    const cJSON *spsa = cJSON_GetObjectItemCaseSensitive(rep, "spsa");
    if (spsa) {
        s_put(&t, "iteration  %.0f of %.0f\ntheta\n", s_num(spsa, "iteration"),
              s_num(spsa, "iterations"));
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(spsa, "theta"))
            s_put(&t, "  %-24s %.2f\n", p->string, p->valuedouble);
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(rep, "result");
    if (res && !cJSON_IsNull(res)) {
        char *r = cJSON_PrintUnformatted(res);
        if (r && strlen(r) < 400)
            s_put(&t, "result     %s\n", r);
        else
            s_put(&t, "result     %s\n", s_str(res, "verdict"));
        free(r);
    }
    if (t.oom) {
        free(t.buf);
        return NULL;
    }
    if (!t.buf)
        t.buf = strdup("");
    return t.buf;
}
