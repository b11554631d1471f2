/* series.c - study series: node ladders and self-consistent iterations
 * played as ordinary values runs one after another (see series.h). */
#include "series.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "json.h"
#include "log.h"
#include "params.h"
#include "report.h"
#include "runinfo.h"
#include "store_series.h"

#define QTY_MAX (STATS_CONTRAST_MAX + STATS_PIECE_NB)

/* One figure a step's fit gives: a contrast (in pawns where the fit is
 * scaled, else in Elo) or a piece's value in pawns, with its 95% interval. */
typedef struct {
    char name[24];
    char unit[8];                  /* "pawns" or "elo" */
    double v, lo, hi;
} s_qty_t;

/* ---- making a step's run ------------------------------------------------ */

/* The run of one step from its document: checked as the coordinator will
 * read it (runinfo, book file included). *ri keeps what run points into;
 * the caller destroys it. */
static int s_step_run(const char *step_json, int64_t submitted_by, store_run_t *run,
                      runinfo_t **ri, char *err, size_t errlen)
{
    int rc = runinfo_from_doc(step_json, NULL, 0, ri, err, errlen);
    if (rc < 0)
        return rc;
    memset(run, 0, sizeof *run);
    run->kind = (*ri)->doc->kind;
    run->name = (*ri)->doc->name;
    run->doc = (char *) step_json;
    run->priority = (*ri)->doc->priority;
    run->seed = (*ri)->doc->seed;
    run->pairs_planned = (*ri)->pairs_planned;
    run->submitted_by = submitted_by;
    return 0;
}

int series_submit(store_t *store, const rundoc_t *doc, const char *canon, int64_t submitted_by,
                  int64_t *run_id, int64_t *series_id, char *err, size_t errlen)
{
    char *step = rundoc_series_step_json(doc, 0, NULL, params_check_cb, NULL, err, errlen);
    if (!step)
        return CAPA_EINVAL;
    runinfo_t *ri = NULL;
    store_run_t run;
    int rc = s_step_run(step, submitted_by, &run, &ri, err, errlen);
    if (rc == 0) {
        store_series_t s;
        memset(&s, 0, sizeof s);
        snprintf(s.kind, sizeof s.kind, "%s", rundoc_series_name(doc->series));
        s.name = (char *) doc->name;
        s.doc = (char *) canon;
        s.steps_planned = rundoc_series_steps(doc);
        s.submitted_by = submitted_by;
        int64_t sid = 0, rid = 0;
        rc = store_series_create(store, &s, &run, &sid, &rid);
        if (rc < 0) {
            capa_fail(err, errlen, rc, "%s", store_last_error(store));
        } else {
            LOG(LOG_INFO, "series %lld (%s, %d steps): run %lld is step 1", (long long) sid,
                s.kind, s.steps_planned, (long long) rid);
            if (run_id)
                *run_id = rid;
            if (series_id)
                *series_id = sid;
        }
    }
    runinfo_destroy(&ri);
    free(step);
    return rc;
}

/* ---- reading a step's fit ------------------------------------------------- */

static bool s_iv(const cJSON *o, double *v, double *lo, double *hi)
{
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(o, "value");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(o, "ci95");
    if (!cJSON_IsNumber(val) || !cJSON_IsArray(ci) || cJSON_GetArraySize(ci) != 2 ||
        !cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(ci, 1)))
        return false;
    *v = val->valuedouble;
    *lo = cJSON_GetArrayItem(ci, 0)->valuedouble;
    *hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
    return isfinite(*v) && isfinite(*lo) && isfinite(*hi);
}

static void s_qty_add(s_qty_t *q, int *n, const char *name, const char *unit, const cJSON *iv)
{
    if (*n >= QTY_MAX || !iv || !s_iv(iv, &q[*n].v, &q[*n].lo, &q[*n].hi))
        return;
    snprintf(q[*n].name, sizeof q[*n].name, "%s", name);
    snprintf(q[*n].unit, sizeof q[*n].unit, "%s", unit);
    (*n)++;
}

/* The figures of a fit (the report's "values" object): with pieces NULL,
 * every estimable contrast and every value in pawns but the pawn's; else
 * the values of those pieces only. */
static int s_qtys(const cJSON *fit, const char *pieces, s_qty_t *q)
{
    int n = 0;
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(fit, "values");
    if (!pieces) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(fit, "contrasts")) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
            if (!cJSON_IsString(name) || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")))
                continue;
            const cJSON *pawns = cJSON_GetObjectItemCaseSensitive(c, "pawns");
            if (cJSON_IsObject(pawns))
                s_qty_add(q, &n, name->valuestring, "pawns", pawns);
            else
                s_qty_add(q, &n, name->valuestring, "elo", cJSON_GetObjectItemCaseSensitive(c, "elo"));
        }
        const cJSON *p;
        cJSON_ArrayForEach(p, vals)
            if (p->string && strcmp(p->string, "P") != 0 && cJSON_IsObject(p))
                s_qty_add(q, &n, p->string, "pawns", p);
        return n;
    }
    for (const char *c = pieces; *c; c++) {
        char key[2] = { *c, 0 };
        s_qty_add(q, &n, key, "pawns", cJSON_GetObjectItemCaseSensitive(vals, key));
    }
    return n;
}

/* A run's report with its fit. With refresh (the coordinator deciding on a
 * finished run), the stored estimate is brought up to the run's last pair
 * first, so that the decision and every later report read the same fit. */
static int s_run_report(store_t *store, int64_t run_id, bool refresh, cJSON **rep, char *err,
                        size_t errlen)
{
    int rc = report_build(store, run_id, 0, rep, err, errlen);
    if (rc < 0 || !refresh)
        return rc;
    const cJSON *est = cJSON_GetObjectItemCaseSensitive(*rep, "estimate");
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(*rep, "totals");
    double used = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(est, "pairs_used"));
    double pairs = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(tot, "pairs"));
    if (est && used == pairs)
        return 0;
    cJSON *fresh = NULL;
    rc = report_build(store, run_id, REPORT_FIT, &fresh, err, errlen);
    if (rc < 0)
        return rc;
    char *txt = cJSON_PrintUnformatted(fresh);
    cJSON_Delete(fresh);
    rc = txt ? store_estimate_put(store, run_id, (int64_t) pairs, txt) : CAPA_ENOMEM;
    free(txt);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    cJSON_Delete(*rep);
    *rep = NULL;
    return report_build(store, run_id, 0, rep, err, errlen);
}

/* The stop rule, for two consecutive steps' figures: each figure of the
 * later step that the earlier one has too moved by less than the half
 * length of the later step's 95% interval. need: figures that must be in
 * both (NULL: any). The verdict and every figure go to a new object. */
static cJSON *s_converge(const s_qty_t *a, int na, const s_qty_t *b, int nb, const char *need,
                         int step_a, int step_b, bool *converged)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "from_step", step_a);
    cJSON_AddNumberToObject(o, "to_step", step_b);
    cJSON *list = cJSON_AddArrayToObject(o, "figures");
    int compared = 0, within = 0;
    for (int j = 0; j < nb; j++) {
        const s_qty_t *prev = NULL;
        for (int i = 0; i < na && !prev; i++)
            if (strcmp(a[i].name, b[j].name) == 0 && strcmp(a[i].unit, b[j].unit) == 0)
                prev = &a[i];
        if (!prev)
            continue;
        double shift = b[j].v - prev->v, hw = (b[j].hi - b[j].lo) / 2;
        bool ok = fabs(shift) < hw;
        compared++;
        within += ok;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", b[j].name);
        cJSON_AddStringToObject(e, "unit", b[j].unit);
        cJSON_AddNumberToObject(e, "before", prev->v);
        cJSON_AddNumberToObject(e, "after", b[j].v);
        cJSON_AddNumberToObject(e, "shift", shift);
        cJSON_AddNumberToObject(e, "half_width", hw);
        cJSON_AddBoolToObject(e, "within", ok);
        cJSON_AddItemToArray(list, e);
    }
    *converged = compared > 0 && within == compared && (!need || compared == (int) strlen(need));
    cJSON_AddBoolToObject(o, "converged", *converged);
    cJSON_AddNumberToObject(o, "compared", compared);
    cJSON_AddNumberToObject(o, "within", within);
    return o;
}

/* The params a run played with, as the engine took them (its defaults
 * under the document's params). */
static int s_played(const cJSON *run_doc, params_t *p)
{
    params_default(p);
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(run_doc, "params");
    char err[256];
    return obj ? params_from_cjson(obj, p, err, sizeof err) : 0;
}

/* A run's document, parsed (caller deletes), or NULL. */
static cJSON *s_run_doc(store_t *store, int64_t run_id)
{
    store_run_t run;
    if (store_run_get(store, run_id, &run) < 0)
        return NULL;
    cJSON *j = run.doc ? json_parse(run.doc) : NULL;
    store_run_clear(&run);
    return j;
}

static int32_t s_param(const params_t *p, const char *name)
{
    int i = params_find(name);
    return i >= 0 ? p->value[i] : 0;
}

/* ---- moving a series on --------------------------------------------------- */

static int s_end(store_t *store, const store_series_t *s, const char *status, const char *stop,
                 int steps, cJSON *extra, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int s_end(store_t *store, const store_series_t *s, const char *status, const char *stop,
                 int steps, cJSON *extra, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "stop", stop);
    cJSON_AddStringToObject(res, "why", why);
    cJSON_AddNumberToObject(res, "steps", steps);
    if (extra)
        cJSON_AddItemToObject(res, "convergence", extra);
    char *txt = cJSON_PrintUnformatted(res);
    cJSON_Delete(res);
    int rc = txt ? store_series_finish(store, s->id, status, txt) : CAPA_ENOMEM;
    free(txt);
    if (rc == 0)
        LOG(LOG_INFO, "series %lld %s after %d steps: %s", (long long) s->id, status, steps, why);
    else if (rc != CAPA_ESTATE)
        LOG(LOG_WARN, "series %lld: cannot record its end now: %s", (long long) s->id,
            store_last_error(store));
    return rc == CAPA_ESTATE ? 0 : rc;
}

/* Makes step `step` from the series document and params (NULL: none). */
static int s_make_step(store_t *store, const store_series_t *s, const rundoc_t *doc, int step,
                       const proto_params_t *params)
{
    char err[512];
    char *json = rundoc_series_step_json(doc, step, params, params_check_cb, NULL, err, sizeof err);
    if (!json)
        return s_end(store, s, "failed", "bad_step", step, NULL, "step %d cannot be made: %s",
                     step + 1, err);
    runinfo_t *ri = NULL;
    store_run_t run;
    int rc = s_step_run(json, s->submitted_by, &run, &ri, err, sizeof err);
    if (rc < 0) {
        rc = s_end(store, s, "failed", "bad_step", step, NULL, "step %d cannot be made: %s",
                   step + 1, err);
    } else {
        int64_t rid = 0;
        rc = store_series_add_step(store, s->id, step, &run, &rid);
        if (rc == 0) {
            LOG(LOG_INFO, "series %lld: run %lld is step %d (%s)", (long long) s->id,
                (long long) rid, step + 1, run.name);
            rc = 1;
        } else if (rc == CAPA_EDUP || rc == CAPA_ESTATE) {
            rc = 0;   /* made by someone else, or the series has ended */
        }
    }
    runinfo_destroy(&ri);
    free(json);
    return rc;
}

/* The fit of a step's run as figures; false with why when it has none. */
static bool s_step_fit(store_t *store, int64_t run_id, const char *pieces, s_qty_t *q, int *n,
                       cJSON **rep, char *why, size_t whylen)
{
    *n = 0;
    if (s_run_report(store, run_id, true, rep, why, whylen) < 0)
        return false;
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(*rep, "values");
    if (!cJSON_IsObject(fit)) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(*rep, "values_error");
        snprintf(why, whylen, "run %lld has no fit: %s", (long long) run_id,
                 cJSON_IsString(e) ? e->valuestring : "unknown");
        return false;
    }
    *n = s_qtys(fit, pieces, q);
    for (const char *c = pieces; c && *c; c++) {
        bool found = false;
        for (int i = 0; i < *n && !found; i++)
            found = q[i].name[0] == *c;
        if (!found) {
            const cJSON *note = cJSON_GetObjectItemCaseSensitive(fit, "note");
            snprintf(why, whylen, "run %lld's fit gives no value in pawns for %c%s%s",
                     (long long) run_id, *c, cJSON_IsString(note) ? ": " : "",
                     cJSON_IsString(note) ? note->valuestring : "");
            return false;
        }
    }
    return true;
}

static int s_advance_ladder(store_t *store, const store_series_t *s, const rundoc_t *doc,
                            const store_series_step_t *steps, size_t n)
{
    if (n < doc->ladder_count)
        return s_make_step(store, s, doc, (int) n, NULL);
    /* Every rung played: say whether the last two agree. */
    s_qty_t a[QTY_MAX], b[QTY_MAX];
    int na = 0, nb = 0;
    cJSON *ra = NULL, *rb = NULL;
    char why[512] = "";
    cJSON *conv = NULL;
    bool converged = false;
    if (s_step_fit(store, steps[n - 2].run_id, NULL, a, &na, &ra, why, sizeof why) &&
        s_step_fit(store, steps[n - 1].run_id, NULL, b, &nb, &rb, why, sizeof why))
        conv = s_converge(a, na, b, nb, NULL, (int) n - 1, (int) n, &converged);
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    if (!conv)
        return s_end(store, s, "finished", "rungs", (int) n, NULL,
                     "every rung played; convergence not judged: %s", why);
    return s_end(store, s, "finished", "rungs", (int) n, conv,
                 "every rung played; the last two rungs (%lld and %lld nodes) %s",
                 (long long) doc->ladder[n - 2], (long long) doc->ladder[n - 1],
                 converged ? "agree within their intervals (converged)"
                           : "do not agree within their intervals (not converged)");
}

static int s_advance_iterate(store_t *store, const store_series_t *s, const rundoc_t *doc,
                             const store_series_step_t *steps, size_t n)
{
    s_qty_t a[QTY_MAX], b[QTY_MAX];
    int na = 0, nb = 0;
    cJSON *ra = NULL, *rb = NULL;
    char why[512] = "";
    int rc;
    if (!s_step_fit(store, steps[n - 1].run_id, doc->iterate, b, &nb, &rb, why, sizeof why)) {
        rc = s_end(store, s, "failed", "no_value", (int) n, NULL, "round %zu: %s", n, why);
        goto done;
    }
    if (n >= 2 && s_step_fit(store, steps[n - 2].run_id, doc->iterate, a, &na, &ra, why, sizeof why)) {
        bool converged = false;
        cJSON *conv = s_converge(a, na, b, nb, doc->iterate, (int) n - 1, (int) n, &converged);
        if (converged) {
            rc = s_end(store, s, "finished", "converged", (int) n, conv,
                       "round %zu: every iterated piece moved by less than its interval's "
                       "half-width since round %zu", n, n - 1);
            goto done;
        }
        if ((int) n >= doc->max_rounds) {
            rc = s_end(store, s, "finished", "max_rounds", (int) n, conv,
                       "max_rounds (%d) played without convergence", doc->max_rounds);
            goto done;
        }
        cJSON_Delete(conv);
    } else if ((int) n >= doc->max_rounds) {
        rc = s_end(store, s, "finished", "max_rounds", (int) n, NULL, "max_rounds (%d) played",
                   doc->max_rounds);
        goto done;
    }
    /* The next round: each measured value v (pawns) in the engine's
     * centipawns at the middle-game pawn this round played with; the
     * end-game value keeps the ratio of the piece's end-game to middle-game
     * value this round played, so the feedback moves the piece's level and
     * leaves its taper (fitted separately, test 67) alone. */
    params_t played;
    cJSON *rdoc = s_run_doc(store, steps[n - 1].run_id);
    if (!rdoc) {
        rc = CAPA_EDB;   /* the store failed: tried again at the next refresh */
        goto done;
    }
    int prc = s_played(rdoc, &played);
    cJSON_Delete(rdoc);
    if (prc < 0) {
        rc = s_end(store, s, "failed", "bad_step", (int) n, NULL,
                   "round %zu's params cannot be read back", n);
        goto done;
    }
    proto_param_t items[2 * RUNDOC_ITERATE_MAX];
    proto_params_t next = { .items = items, .count = 0 };
    for (int i = 0; i < nb; i++) {
        char piece = b[i].name[0];
        double mg = b[i].v * s_param(&played, rundoc_piece_param('P', 0));
        int32_t was_mg = s_param(&played, rundoc_piece_param(piece, 0));
        int32_t was_eg = s_param(&played, rundoc_piece_param(piece, 1));
        double cp[2] = { mg, was_mg > 0 ? mg * was_eg / was_mg
                                        : b[i].v * s_param(&played, rundoc_piece_param('P', 1)) };
        for (int k = 0; k < 2; k++) {
            proto_param_t *it = &items[next.count++];
            memset(it, 0, sizeof *it);
            snprintf(it->name, sizeof it->name, "%s", rundoc_piece_param(piece, k));
            it->value = round(cp[k]);
        }
    }
    rc = s_make_step(store, s, doc, (int) n, &next);
done:
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    return rc;
}

int series_advance(store_t *store, int64_t series_id)
{
    store_series_t s;
    int rc = store_series_get(store, series_id, &s);
    if (rc < 0)
        return rc;
    store_series_step_t *steps = NULL;
    size_t n = 0;
    rundoc_t *doc = NULL;
    char err[512];
    if (strcmp(s.status, "running") != 0) {
        rc = 0;
    } else if ((rc = store_series_steps(store, series_id, &steps, &n)) < 0) {
        /* tried again at the next refresh */
    } else if (rundoc_parse(s.doc, strlen(s.doc), params_check_cb, NULL, &doc, err, sizeof err) < 0 ||
               doc->series == RUNDOC_SERIES_NONE) {
        rc = s_end(store, &s, "failed", "bad_document", (int) n, NULL, "the series document: %s",
                   doc ? "is not a series" : err);
    } else if (n == 0) {
        rc = s_end(store, &s, "failed", "bad_document", 0, NULL, "the series has no first run");
    } else if (steps[n - 1].status == STORE_RUN_FAILED) {
        rc = s_end(store, &s, "failed", "run_failed", (int) n, NULL, "run %lld (step %zu) failed",
                   (long long) steps[n - 1].run_id, n);
    } else if (steps[n - 1].status != STORE_RUN_FINISHED) {
        rc = 0;   /* still playing, or stopped: the series waits */
    } else if (doc->series == RUNDOC_SERIES_LADDER) {
        rc = s_advance_ladder(store, &s, doc, steps, n);
    } else {
        rc = s_advance_iterate(store, &s, doc, steps, n);
    }
    rundoc_destroy(&doc);
    free(steps);
    store_series_clear(&s);
    return rc;
}

int series_advance_due(store_t *store)
{
    int64_t *ids = NULL;
    size_t n = 0;
    int rc = store_series_due(store, &ids, &n);
    if (rc < 0)
        return rc;
    int made = 0;
    for (size_t i = 0; i < n; i++) {
        int r = series_advance(store, ids[i]);
        if (r > 0)
            made += r;
        else if (r < 0)
            LOG(LOG_WARN, "series %lld: cannot move on now (%s); trying again",
                (long long) ids[i], store_last_error(store));
    }
    free(ids);
    return made;
}

/* ---- the report ------------------------------------------------------------ */

static cJSON *s_dup(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return j ? cJSON_Duplicate(j, true) : cJSON_CreateNull();
}

/* One step of the report from its run's report and document. */
static cJSON *s_step_json(int step, int64_t run_id, const cJSON *rep, const cJSON *rdoc,
                          const rundoc_t *doc)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "step", step + 1);
    cJSON_AddNumberToObject(e, "run_id", (double) run_id);
    cJSON_AddItemToObject(e, "name", s_dup(rep, "name"));
    cJSON_AddItemToObject(e, "status", s_dup(rep, "status"));
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(rdoc, "game");
    cJSON_AddItemToObject(e, "nodes", s_dup(game, "nodes"));
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    cJSON_AddItemToObject(e, "pairs", s_dup(tot, "pairs"));
    cJSON_AddItemToObject(e, "pairs_planned", s_dup(rep, "pairs_planned"));
    cJSON_AddItemToObject(e, "cpu_ms", s_dup(tot, "cpu_ms"));
    if (doc->series == RUNDOC_SERIES_ITERATE) {
        /* the pawn (the scale of the conversion) and the iterated pieces */
        char shown[RUNDOC_ITERATE_MAX + 2];
        snprintf(shown, sizeof shown, "P%s", doc->iterate);
        params_t p;
        cJSON *played = cJSON_AddArrayToObject(e, "params");
        for (const char *c = shown; s_played(rdoc, &p) == 0 && *c; c++) {
            char piece[2] = { *c, 0 };
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "piece", piece);
            cJSON_AddNumberToObject(o, "mg", s_param(&p, rundoc_piece_param(*c, 0)));
            cJSON_AddNumberToObject(o, "eg", s_param(&p, rundoc_piece_param(*c, 1)));
            cJSON_AddItemToArray(played, o);
        }
    }
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(rep, "values");
    if (cJSON_IsObject(fit)) {
        cJSON_AddItemToObject(e, "games", s_dup(fit, "games"));
        cJSON_AddItemToObject(e, "contrasts", s_dup(fit, "contrasts"));
        cJSON_AddItemToObject(e, "values", s_dup(fit, "values"));
        cJSON_AddItemToObject(e, "unit", s_dup(fit, "unit"));
    } else {
        cJSON_AddItemToObject(e, "values_error", s_dup(rep, "values_error"));
    }
    return e;
}

int series_report_build(store_t *store, int64_t series_id, cJSON **out, char *err,
                        size_t errlen)
{
    *out = NULL;
    store_series_t s;
    int rc = store_series_get(store, series_id, &s);
    if (rc == CAPA_ENOTFOUND)
        return capa_fail(err, errlen, rc, "no series %lld", (long long) series_id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    store_series_step_t *steps = NULL;
    size_t n = 0;
    rundoc_t *doc = NULL;
    rc = store_series_steps(store, series_id, &steps, &n);
    if (rc < 0)
        rc = capa_fail(err, errlen, rc, "%s", store_last_error(store));
    else
        rc = rundoc_parse(s.doc, strlen(s.doc), NULL, NULL, &doc, err, errlen);
    cJSON *o = rc == 0 ? cJSON_CreateObject() : NULL;
    if (rc == 0 && !o)
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (rc == 0) {
        cJSON_AddNumberToObject(o, "id", (double) s.id);
        cJSON_AddStringToObject(o, "name", s.name);
        cJSON_AddStringToObject(o, "kind", s.kind);
        cJSON_AddStringToObject(o, "status", s.status);
        cJSON_AddNumberToObject(o, "steps_planned", s.steps_planned);
        cJSON_AddNumberToObject(o, "created_at_ms", (double) s.created_at_ms);
        cJSON_AddNumberToObject(o, "finished_at_ms", (double) s.finished_at_ms);
        cJSON *res = s.result ? json_parse(s.result) : NULL;
        cJSON_AddItemToObject(o, "result", res ? res : cJSON_CreateNull());
        if (doc->series == RUNDOC_SERIES_LADDER) {
            cJSON *l = cJSON_AddObjectToObject(o, "ladder");
            cJSON *nodes = cJSON_AddArrayToObject(l, "nodes");
            for (size_t i = 0; i < doc->ladder_count; i++)
                cJSON_AddItemToArray(nodes, cJSON_CreateNumber((double) doc->ladder[i]));
        } else {
            cJSON *it = cJSON_AddObjectToObject(o, "iterate");
            cJSON *pieces = cJSON_AddArrayToObject(it, "pieces");
            for (const char *c = doc->iterate; *c; c++) {
                char k[2] = { *c, 0 };
                cJSON_AddItemToArray(pieces, cJSON_CreateString(k));
            }
            cJSON_AddNumberToObject(it, "max_rounds", doc->max_rounds);
            cJSON_AddStringToObject(it, "conversion",
                                    "Mg = measured pawns x the PawnValueMg the round played; "
                                    "Eg = that Mg x the piece's Eg / Mg the round played "
                                    "(measured pawns x PawnValueEg if its Mg was 0); rounded");
        }
        cJSON *list = cJSON_AddArrayToObject(o, "steps");
        s_qty_t q[2][QTY_MAX];
        int nq[2] = { 0, 0 }, have = 0, last_fit_step[2] = { 0, 0 };
        cJSON *prev_step = NULL;
        const char *pieces = doc->series == RUNDOC_SERIES_ITERATE ? doc->iterate : NULL;
        for (size_t i = 0; i < n; i++) {
            cJSON *rep = NULL;
            char why[256];
            if (report_build(store, steps[i].run_id, 0, &rep, why, sizeof why) < 0) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddNumberToObject(e, "step", (double) i + 1);
                cJSON_AddNumberToObject(e, "run_id", (double) steps[i].run_id);
                cJSON_AddStringToObject(e, "values_error", why);
                cJSON_AddItemToArray(list, e);
                prev_step = NULL;
                continue;
            }
            cJSON *rdoc = s_run_doc(store, steps[i].run_id);
            cJSON *e = s_step_json((int) i, steps[i].run_id, rep, rdoc, doc);
            cJSON_Delete(rdoc);
            cJSON_AddItemToArray(list, e);
            const cJSON *fit = cJSON_GetObjectItemCaseSensitive(rep, "values");
            if (cJSON_IsObject(fit)) {
                int k = have % 2;
                nq[k] = s_qtys(fit, pieces, q[k]);
                last_fit_step[k] = (int) i + 1;
                /* iterate: how far each piece moved since the round before */
                if (pieces && prev_step && have > 0 && last_fit_step[1 - k] == (int) i) {
                    bool conv;
                    cJSON_AddItemToObject(e, "moved", s_converge(q[1 - k], nq[1 - k], q[k], nq[k],
                                                                 pieces, (int) i, (int) i + 1, &conv));
                }
                have++;
                prev_step = e;
            } else {
                prev_step = NULL;
            }
            cJSON_Delete(rep);
        }
        /* Rungs not made yet. */
        for (size_t i = n; doc->series == RUNDOC_SERIES_LADDER && i < doc->ladder_count; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "step", (double) i + 1);
            cJSON_AddNullToObject(e, "run_id");
            cJSON_AddStringToObject(e, "status", "planned");
            cJSON_AddNumberToObject(e, "nodes", (double) doc->ladder[i]);
            cJSON_AddItemToArray(list, e);
        }
        if (have >= 2) {
            int k = (have - 1) % 2;
            bool conv;
            cJSON_AddItemToObject(o, "convergence",
                                  s_converge(q[1 - k], nq[1 - k], q[k], nq[k], pieces,
                                             last_fit_step[1 - k], last_fit_step[k], &conv));
        } else {
            cJSON_AddNullToObject(o, "convergence");
        }
        cJSON_AddStringToObject(o, "rule",
                                "converged: every figure of the later step moved by less than the "
                                "half length of its own 95% interval since the step before");
    }
    rundoc_destroy(&doc);
    free(steps);
    store_series_clear(&s);
    *out = o;
    return rc;
}

int series_list_build(store_t *store, cJSON **out, char *err, size_t errlen)
{
    *out = NULL;
    store_series_t *list = NULL;
    size_t n = 0;
    int rc = store_series_list(store, 100, &list, &n);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "series");
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "id", (double) list[i].id);
        cJSON_AddStringToObject(e, "name", list[i].name);
        cJSON_AddStringToObject(e, "kind", list[i].kind);
        cJSON_AddStringToObject(e, "status", list[i].status);
        cJSON_AddNumberToObject(e, "steps_planned", list[i].steps_planned);
        cJSON_AddNumberToObject(e, "created_at_ms", (double) list[i].created_at_ms);
        cJSON_AddNumberToObject(e, "finished_at_ms", (double) list[i].finished_at_ms);
        cJSON_AddItemToArray(arr, e);
    }
    store_series_list_free(&list, n);
    *out = o;
    return 0;
}
