/* http_series.c - study series over HTTP: GET /api/series, GET
 * /api/series/ID (coordinator/series.h, docs/api.md "Study series") and the
 * page /series/ID: every step's contrasts and values with their intervals
 * against nodes per move (ladder) or round (iteration), and whether the
 * last two steps agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pages_int.h"
#include "pages_svg.h"
#include "series.h"

#define SERIES_FIGURES_MAX 48   /* rows of the figures table */

static int s_fail(http_req_t *req, int rc, const char *msg)
{
    if (rc == CAPA_ENOTFOUND)
        return http_reply_error(req, 404, "not_found", "%s", msg);
    if (rc == CAPA_EDB) {
        http_db_failed(req);
        return http_reply_error(req, 503, "db_unavailable", "database: %s", msg);
    }
    return http_reply_error(req, 500, "internal", "%s", msg);
}

int http_api_series_list(http_req_t *req)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    char err[512];
    cJSON *o = NULL;
    int r = series_list_build(st, &o, err, sizeof err);
    return r < 0 ? s_fail(req, r, err) : http_reply_json(req, 200, o);
}

/* The series report, or NULL after replying why not (*rc). */
static cJSON *s_series(http_req_t *req, int64_t id, int *rc)
{
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return NULL;
    }
    char err[512];
    cJSON *o = NULL;
    int r = series_report_build(st, id, &o, err, sizeof err);
    if (r < 0)
        *rc = s_fail(req, r, err);
    return o;
}

int http_api_series_show(http_req_t *req, int64_t id)
{
    int rc = MHD_NO;
    cJSON *o = s_series(req, id, &rc);
    return o ? http_reply_json(req, 200, o) : rc;
}

/* ---- the page ----------------------------------------------------------------- */

/* A figure of a step: a contrast (pawns, else Elo) or a value in pawns. */
typedef struct {
    char name[24];
    const char *unit;
} s_fig_t;

/* The figure's interval object in a step, or NULL. */
static const cJSON *s_find(const cJSON *step, const s_fig_t *f)
{
    if (strcmp(f->unit, "value") == 0) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(step, "values"),
                                                          f->name);
        return cJSON_IsObject(v) ? v : NULL;
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(step, "contrasts")) {
        if (strcmp(pages_str(c, "name"), f->name) != 0)
            continue;
        const cJSON *iv = cJSON_GetObjectItemCaseSensitive(c, f->unit);
        return cJSON_IsObject(iv) ? iv : NULL;
    }
    return NULL;
}

/* Every figure any step has, contrasts first (in pawns where given, else
 * in Elo), then values in pawns. */
static size_t s_figures(const cJSON *steps, s_fig_t *figs, size_t max)
{
    size_t n = 0;
    const cJSON *s, *c;
    for (int pass = 0; pass < 2; pass++)
        cJSON_ArrayForEach(s, steps) {
            if (pass == 0) {
                cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "contrasts")) {
                    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")))
                        continue;
                    s_fig_t f = { .unit = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "pawns"))
                                              ? "pawns" : "elo" };
                    snprintf(f.name, sizeof f.name, "%s", pages_str(c, "name"));
                    bool seen = false;
                    for (size_t i = 0; i < n && !seen; i++)
                        seen = strcmp(figs[i].name, f.name) == 0 && strcmp(figs[i].unit, f.unit) == 0;
                    if (!seen && n < max)
                        figs[n++] = f;
                }
            } else {
                cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "values")) {
                    if (!cJSON_IsObject(c) || strcmp(c->string, "P") == 0)
                        continue;
                    s_fig_t f = { .unit = "value" };
                    snprintf(f.name, sizeof f.name, "%s", c->string);
                    bool seen = false;
                    for (size_t i = 0; i < n && !seen; i++)
                        seen = strcmp(figs[i].name, f.name) == 0 && strcmp(figs[i].unit, f.unit) == 0;
                    if (!seen && n < max)
                        figs[n++] = f;
                }
            }
        }
    return n;
}

static void s_step_label(http_buf_t *b, const cJSON *step, bool ladder)
{
    if (ladder)
        http_buf_printf(b, "%.0f nodes", pages_num(step, "nodes"));
    else
        http_buf_printf(b, "round %.0f", pages_num(step, "step"));
}

static void s_steps_table(http_buf_t *b, const cJSON *steps, bool ladder)
{
    http_buf_printf(b, "<h2>%s</h2><div class=\"card\"><table><tr><th>%s</th><th class=\"n\">"
                       "nodes</th><th>run</th><th>status</th><th>pairs</th>%s<th>fit</th></tr>",
                    ladder ? "Rungs" : "Rounds", ladder ? "rung" : "round",
                    ladder ? "" : "<th>params played (Mg/Eg)</th>");
    const cJSON *s;
    cJSON_ArrayForEach(s, steps) {
        http_buf_printf(b, "<tr><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
                        pages_num(s, "step"), pages_num(s, "nodes"));
        double run = pages_num(s, "run_id");
        if (isfinite(run))
            http_buf_printf(b, "<a href=\"/runs/%.0f\">%.0f</a>", run, run);
        else
            http_buf_puts(b, "-");
        http_buf_puts(b, "</td><td>");
        pages_tag(b, pages_str(s, "status"), pages_str(s, "status"));
        http_buf_puts(b, "</td><td>");
        pages_bar(b, pages_num(s, "pairs"), pages_num(s, "pairs_planned"));
        http_buf_puts(b, "</td>");
        if (!ladder) {
            http_buf_puts(b, "<td>");
            const cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "params")) {
                http_buf_html(b, pages_str(x, "piece"));
                http_buf_printf(b, " %.0f/%.0f &nbsp;", pages_num(x, "mg"), pages_num(x, "eg"));
            }
            http_buf_puts(b, "</td>");
        }
        http_buf_puts(b, "<td>");
        if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "values")))
            http_buf_printf(b, "%.0f games", pages_num(s, "games"));
        else
            http_buf_html(b, *pages_str(s, "values_error") ? pages_str(s, "values_error") : "-");
        http_buf_puts(b, "</td></tr>");
    }
    http_buf_puts(b, "</table></div>");
}

static void s_figures_table(http_buf_t *b, const cJSON *steps, const s_fig_t *figs, size_t nf,
                            bool ladder)
{
    http_buf_printf(b, "<h2>Contrasts and values against %s</h2><div class=\"card\"><table><tr>"
                       "<th>figure (95%% interval)</th>", ladder ? "nodes per move" : "round");
    const cJSON *s;
    cJSON_ArrayForEach(s, steps) {
        http_buf_puts(b, "<th class=\"n\">");
        s_step_label(b, s, ladder);
        http_buf_puts(b, "</th>");
    }
    http_buf_puts(b, "</tr>");
    for (size_t i = 0; i < nf; i++) {
        http_buf_puts(b, "<tr><td>");
        http_buf_html(b, figs[i].name);
        http_buf_printf(b, " <span class=\"muted\">%s</span></td>",
                        strcmp(figs[i].unit, "elo") == 0 ? "Elo" : "pawns");
        cJSON_ArrayForEach(s, steps) {
            http_buf_puts(b, "<td class=\"n\">");
            const cJSON *iv = s_find(s, &figs[i]);
            if (iv)
                pages_interval_text(b, iv, strcmp(figs[i].unit, "elo") == 0 ? "%.0f" : "%.2f");
            else
                http_buf_puts(b, "-");
            http_buf_puts(b, "</td>");
        }
        http_buf_puts(b, "</tr>");
    }
    http_buf_puts(b, "</table></div>");
}

/* The figures in pawns against nodes (ladder) or round, with their bands. */
static void s_chart(http_buf_t *b, const cJSON *steps, const s_fig_t *figs, size_t nf,
                    bool ladder)
{
    size_t ns = (size_t) cJSON_GetArraySize(steps), k = 0;
    double *buf = calloc(4 * ns * nf + 1, sizeof *buf);
    pages_series_t *series = calloc(nf + 1, sizeof *series);
    if (!buf || !series) {
        free(buf);
        free(series);
        return;
    }
    for (size_t i = 0; i < nf; i++) {
        if (strcmp(figs[i].unit, "elo") == 0)
            continue;
        double *x = buf + 4 * ns * i, *y = x + ns, *lo = y + ns, *hi = lo + ns;
        size_t j = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, steps) {
            x[j] = ladder ? log10(pages_num(s, "nodes")) : pages_num(s, "step");
            pages_interval(s_find(s, &figs[i]), &y[j], &lo[j], &hi[j]);
            j++;
        }
        series[k] = (pages_series_t){ .x = x, .y = y, .lo = lo, .hi = hi, .n = ns,
                                      .label = figs[i].name, .color = pages_svg_color(k) };
        k++;
    }
    pages_chart_t c = { .title = "in pawns, 95% intervals",
                        .xlabel = ladder ? "log10 nodes per move" : "round",
                        .ylabel = "pawns", .series = series, .n_series = k };
    if (k)
        pages_svg_chart(b, &c);
    free(buf);
    free(series);
}

static void s_convergence(http_buf_t *b, const cJSON *rep)
{
    const cJSON *conv = cJSON_GetObjectItemCaseSensitive(rep, "convergence");
    http_buf_puts(b, "<h2>Convergence</h2><div class=\"card\">");
    if (!cJSON_IsObject(conv)) {
        http_buf_puts(b, "<p class=\"muted\">Two steps with a fit are needed.</p></div>");
        return;
    }
    bool yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(conv, "converged"));
    if (!(pages_num(conv, "compared") >= 1)) {
        http_buf_printf(b, "<p>Steps %.0f and %.0f: nothing to compare yet <span class=\"muted\">(no "
                           "figure in the same unit in both: a step whose pawn is not decisive gives its "
                           "contrasts in Elo only)</span></p></div>",
                        pages_num(conv, "from_step"), pages_num(conv, "to_step"));
        return;
    }
    http_buf_printf(b, "<p>Steps %.0f and %.0f: ", pages_num(conv, "from_step"),
                    pages_num(conv, "to_step"));
    pages_tag(b, yes ? "finished" : "stopped", yes ? "converged" : "not converged");
    http_buf_printf(b, " (%.0f of %.0f figures within). <span class=\"muted\">",
                    pages_num(conv, "within"), pages_num(conv, "compared"));
    http_buf_html(b, pages_str(rep, "rule"));
    http_buf_puts(b, "</span></p><table><tr><th>figure</th><th class=\"n\">before</th>"
                     "<th class=\"n\">after</th><th class=\"n\">shift</th><th class=\"n\">"
                     "half-width</th><th>within</th></tr>");
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(conv, "figures")) {
        bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "within"));
        const char *fmt = strcmp(pages_str(f, "unit"), "elo") == 0 ? "%.0f" : "%.2f";
        http_buf_printf(b, "<tr%s><td>", ok ? "" : " class=\"bad\"");
        http_buf_html(b, pages_str(f, "name"));
        http_buf_printf(b, " <span class=\"muted\">%s</span></td>", pages_str(f, "unit"));
        static const char *const keys[] = { "before", "after", "shift", "half_width" };
        for (int i = 0; i < 4; i++) {
            http_buf_puts(b, "<td class=\"n\">");
            http_buf_printf(b, fmt, pages_num(f, keys[i]));
            http_buf_puts(b, "</td>");
        }
        http_buf_printf(b, "<td>%s</td></tr>", ok ? "yes" : "no");
    }
    http_buf_puts(b, "</table></div>");
}

int pages_series(http_req_t *req, int64_t id)
{
    int rc = MHD_NO;
    cJSON *rep = s_series(req, id, &rc);
    if (!rep)
        return rc;
    bool ladder = strcmp(pages_str(rep, "kind"), "ladder") == 0;
    bool live = strcmp(pages_str(rep, "status"), "running") == 0;
    http_buf_t b = { 0 };
    char title[160];
    snprintf(title, sizeof title, "Series %lld: %s", (long long) id, pages_str(rep, "name"));
    pages_open(&b, title, live ? PAGES_REFRESH_SECONDS : 0);
    http_buf_puts(&b, "<h1>");
    http_buf_html(&b, title);
    http_buf_puts(&b, "</h1><div class=\"card kv\"><span>kind</span><span>");
    http_buf_puts(&b, ladder ? "node ladder (rungs one after another, cheapest first)"
                             : "self-consistent iteration");
    http_buf_puts(&b, "</span><span>status</span><span>");
    pages_tag(&b, pages_str(rep, "status"), pages_str(rep, "status"));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(rep, "result");
    if (cJSON_IsObject(res)) {
        http_buf_puts(&b, " ");
        http_buf_html(&b, pages_str(res, "why"));
    }
    http_buf_puts(&b, "</span>");
    if (!ladder) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(rep, "iterate");
        http_buf_puts(&b, "<span>iterated</span><span>");
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(it, "pieces"))
            if (cJSON_IsString(p)) {
                http_buf_html(&b, p->valuestring);
                http_buf_puts(&b, " ");
            }
        http_buf_printf(&b, "(at most %.0f rounds)</span><span>conversion</span><span>",
                        pages_num(it, "max_rounds"));
        http_buf_html(&b, pages_str(it, "conversion"));
        http_buf_puts(&b, "</span>");
    }
    http_buf_printf(&b, "<span>created</span><span>");
    pages_time(&b, pages_num(rep, "created_at_ms"));
    http_buf_printf(&b, "</span><span>API</span><span><a href=\"/api/series/%lld\">"
                        "/api/series/%lld</a></span></div>", (long long) id, (long long) id);
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(rep, "steps");
    s_steps_table(&b, steps, ladder);
    s_fig_t figs[SERIES_FIGURES_MAX];
    size_t nf = s_figures(steps, figs, SERIES_FIGURES_MAX);
    if (nf) {
        s_figures_table(&b, steps, figs, nf, ladder);
        s_chart(&b, steps, figs, nf, ladder);
    }
    s_convergence(&b, rep);
    cJSON_Delete(rep);
    return pages_close(req, &b);
}
