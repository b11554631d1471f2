/* http_runworkers.c - a run's workers: GET /api/runs/{id}/workers and the
 * Workers table of the run page, both from the same JSON (runworkers.h,
 * docs/api.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "http_buf.h"
#include "http_int.h"
#include "runworkers.h"
#include "store_byworker.h"
#include "verify_outlier.h"

/* p-values below these are highlighted on the page (red, amber). */
#define RUNWORKERS_P_RED 0.001
#define RUNWORKERS_P_AMBER 0.01

static cJSON *s_worker_json(const runworkers_t *w)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "id", w->worker_id);
    cJSON_AddStringToObject(e, "contributor", w->contributor);
    cJSON_AddNumberToObject(e, "pairs", (double) w->pairs);
    cJSON_AddNumberToObject(e, "excluded", (double) w->excluded);
    cJSON *p = cJSON_AddArrayToObject(e, "penta");
    for (int b = 0; b < 5; b++)
        cJSON_AddItemToArray(p, cJSON_CreateNumber((double) w->penta[b]));
    cJSON_AddNumberToObject(e, "wins", (double) w->wins);
    cJSON_AddNumberToObject(e, "draws", (double) w->draws);
    cJSON_AddNumberToObject(e, "losses", (double) w->losses);
    if (w->pairs > 0)
        cJSON_AddNumberToObject(e, "score", w->score);
    else
        cJSON_AddNullToObject(e, "score");
    cJSON_AddBoolToObject(e, "flagged", w->flagged);
    cJSON_AddBoolToObject(e, "outlier", w->outlier);
    if (w->tested) {
        cJSON_AddNumberToObject(e, "chi2", w->chi2);
        cJSON_AddNumberToObject(e, "df", w->df);
        cJSON_AddNumberToObject(e, "p", w->p);
    } else {
        cJSON_AddNullToObject(e, "chi2");
        cJSON_AddNullToObject(e, "df");
        cJSON_AddNullToObject(e, "p");
    }
    return e;
}

/* The breakdown of run id as JSON into *out (caller deletes). 0 or a
 * negative capa_err_t: CAPA_ENOTFOUND for no such run, CAPA_EDB when the
 * database failed (the store's message says why). */
static int s_build(http_req_t *req, store_t *st, int64_t id, cJSON **out)
{
    *out = NULL;
    store_run_t run;
    memset(&run, 0, sizeof run);
    int rc = store_run_get(st, id, &run);
    if (rc < 0)
        return rc;
    proto_kind_t kind = run.kind;
    store_run_clear(&run);
    store_worker_row_t *rows = NULL;
    size_t n_rows = 0;
    if ((rc = store_run_worker_rows(st, id, &rows, &n_rows)) < 0)
        return rc;
    runworkers_test_t test = runworkers_test_of(kind);
    double p_max = req->srv->cfg.outlier_p;
    runworkers_t *ws = NULL;
    size_t n = 0;
    rc = runworkers_build(rows, n_rows, test, VERIFY_OUTLIER_MIN_PAIRS, p_max, &ws, &n);
    free(rows);
    if (rc < 0)
        return rc;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "run", (double) id);
    cJSON_AddStringToObject(o, "kind", proto_kind_name(kind));
    cJSON_AddStringToObject(o, "test", runworkers_test_name(test));
    cJSON_AddNumberToObject(o, "min_pairs", VERIFY_OUTLIER_MIN_PAIRS);
    cJSON_AddNumberToObject(o, "outlier_p", p_max);
    cJSON *list = cJSON_AddArrayToObject(o, "workers");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(list, s_worker_json(&ws[i]));
    free(ws);
    *out = o;
    return 0;
}

int http_api_run_workers(http_req_t *req, int64_t id)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    cJSON *o = NULL;
    int rc = s_build(req, st, id, &o);
    if (rc == CAPA_ENOTFOUND)
        return http_reply_error(req, 404, "not_found", "no run %lld", (long long) id);
    if (rc == CAPA_EDB) {
        http_db_failed(req);
        return http_reply_error(req, 503, "db_unavailable", "database: %s", store_last_error(st));
    }
    if (rc < 0)
        return http_reply_error(req, 500, "internal", "%s",
                                rc == CAPA_ENOMEM ? "out of memory" : capa_err_name(rc));
    return http_reply_json(req, 200, o);
}

/* ---- the run page's table ---------------------------------------------------------- */

static double s_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool s_true(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void s_row(http_buf_t *b, const cJSON *w)
{
    bool flagged = s_true(w, "flagged"), outlier = s_true(w, "outlier");
    http_buf_puts(b, flagged || outlier ? "<tr class=\"bad\"><td>" : "<tr><td>");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(w, "id");
    const cJSON *who = cJSON_GetObjectItemCaseSensitive(w, "contributor");
    http_buf_html(b, cJSON_IsString(id) ? id->valuestring : "");
    http_buf_puts(b, "</td><td>");
    http_buf_html(b, cJSON_IsString(who) ? who->valuestring : "");
    const cJSON *pe = cJSON_GetObjectItemCaseSensitive(w, "penta");
    double p[5];
    for (int k = 0; k < 5; k++) {
        const cJSON *v = cJSON_GetArrayItem(pe, k);
        p[k] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    http_buf_printf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                       "<td class=\"n\">%.0f, %.0f, %.0f, %.0f, %.0f</td>"
                       "<td class=\"n\">%.0f / %.0f / %.0f</td>",
                    s_num(w, "pairs"), s_num(w, "excluded"), p[0], p[1], p[2], p[3], p[4],
                    s_num(w, "wins"), s_num(w, "draws"), s_num(w, "losses"));
    double score = s_num(w, "score"), chi2 = s_num(w, "chi2"), pv = s_num(w, "p");
    if (isfinite(score))
        http_buf_printf(b, "<td class=\"n\">%.1f%%</td>", score * 100);
    else
        http_buf_puts(b, "<td class=\"n\">-</td>");
    if (isfinite(chi2) && isfinite(pv)) {
        const char *cls = pv < RUNWORKERS_P_RED ? "failed" : pv < RUNWORKERS_P_AMBER ? "stopped"
                                                                                     : NULL;
        http_buf_printf(b, "<td class=\"n\">%.1f</td><td class=\"n\">%.0f</td><td class=\"n\">",
                        chi2, s_num(w, "df"));
        if (cls)
            http_buf_printf(b, "<span class=\"tag %s\">%.2g</span>", cls, pv);
        else
            http_buf_printf(b, "%.2g", pv);
        http_buf_puts(b, "</td>");
    } else {
        http_buf_puts(b, "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>");
    }
    http_buf_puts(b, "<td>");
    if (flagged)
        http_buf_puts(b, "<span class=\"tag failed\">flagged</span> ");
    if (outlier)
        http_buf_puts(b, "<span class=\"tag stopped\">outlier</span>");
    http_buf_puts(b, "</td></tr>");
}

void pages_run_workers(http_req_t *req, http_buf_t *b, int64_t id)
{
    http_buf_puts(b, "<h2 id=\"workers\">Workers</h2><div class=\"card\">");
    store_t *st = http_db(req);
    cJSON *o = NULL;
    int rc = st ? s_build(req, st, id, &o) : CAPA_EDB;
    if (rc < 0) {
        if (rc == CAPA_EDB)
            http_db_failed(req);
        http_buf_puts(b, "<p class=\"muted\">the workers' figures cannot be read now: ");
        http_buf_html(b, rc == CAPA_ENOMEM ? "out of memory"
                         : st             ? store_last_error(st)
                                          : "no database connection");
        http_buf_puts(b, "</p></div>");
        return;
    }
    http_buf_puts(b, "<table><tr><th>worker</th><th>contributor</th><th class=\"n\">pairs</th>"
                     "<th class=\"n\">excluded</th>"
                     "<th class=\"n\" title=\"pairs in which B scored 0, &frac12;, 1, "
                     "1&frac12;, 2 points\">pentanomial</th>"
                     "<th class=\"n\">W / D / L</th><th class=\"n\">score</th>"
                     "<th class=\"n\">&chi;&sup2;</th><th class=\"n\">df</th>"
                     "<th class=\"n\">p</th><th></th></tr>");
    const cJSON *w;
    int count = 0;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(o, "workers")) {
        s_row(b, w);
        count++;
    }
    if (!count)
        http_buf_puts(b, "<tr><td colspan=\"11\" class=\"muted\">no worker has stored a pair "
                         "of this run yet</td></tr>");
    http_buf_puts(b, "</table><p class=\"muted\">");
    const cJSON *test = cJSON_GetObjectItemCaseSensitive(o, "test");
    const char *t = cJSON_IsString(test) ? test->valuestring : "none";
    if (strcmp(t, "none") == 0) {
        http_buf_puts(b, "No outlier test for this kind of run: its pairs are not alike.");
    } else {
        http_buf_printf(b, "&chi;&sup2;: each worker's pairs by score against the rest of the "
                           "run's%s, with at least %.0f pairs on each side. ",
                        strcmp(t, "by_imbalance") == 0
                            ? " (one table per imbalance, summed)" : "",
                        s_num(o, "min_pairs"));
        double p_max = s_num(o, "outlier_p");
        if (p_max > 0)
            http_buf_printf(b, "An outlier (p &lt; %g) is set aside and the others are tested "
                               "again without it. ", p_max);
    }
    http_buf_printf(b, "Scores are B's. <a href=\"/api/runs/%lld/workers\">JSON</a></p></div>",
                    (long long) id);
    cJSON_Delete(o);
}
