/* pages.c - the report pages: server-rendered HTML with a little inline CSS
 * and inline SVG charts (pages_svg.h). Everything that came from users (run
 * names, contributor and worker names, parameter names) is HTML-escaped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "err.h"
#include "http_buf.h"
#include "http_int.h"
#include "pages_int.h"
#include "pages_svg.h"
#include "report.h"
#include "rundoc.h"
#include "stats_elo.h"
#include "stats_sprt.h"
#include "stats_values.h"

#define PAGES_PAIRS_MAX 400000   /* pairs read back for the charts of one run */
#define PAGES_POINTS 120         /* points of the LLR and Elo paths */

/* One colour per piece type (P N B R A C Q), the same in every chart. */
const char *const pages_piece_color[STATS_PIECE_NB] = { "#6b7280", "#2563eb", "#0891b2",
                                                        "#dc2626", "#16a34a", "#9333ea",
                                                        "#ea580c" };
const char *const pages_piece_name[STATS_PIECE_NB] = { "Pawn", "Knight", "Bishop", "Rook",
                                                       "Archbishop", "Chancellor", "Queen" };

static const char CSS[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
    "color:#111827;background:#f9fafb}"
    "header{background:#1f2937;color:#fff;padding:10px 16px;display:flex;flex-wrap:wrap;"
    "gap:6px 18px;align-items:baseline}"
    "header b{font-size:17px;margin-right:10px}header a{color:#d1d5db;text-decoration:none}"
    "header a:hover{color:#fff}"
    "main{max-width:980px;margin:0 auto;padding:12px 14px 40px}"
    "h1{font-size:21px;margin:14px 0 6px}h2{font-size:17px;margin:22px 0 8px}"
    ".card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:10px 12px;"
    "margin:10px 0;overflow-x:auto}"
    "table{border-collapse:collapse;width:100%;font-size:14px}"
    "th,td{padding:5px 8px;border-bottom:1px solid #eef0f3;text-align:left;white-space:nowrap}"
    "th{color:#4b5563;font-weight:600;background:#f9fafb}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    "a{color:#1d4ed8}"
    ".bar{background:#e5e7eb;border-radius:4px;height:8px;min-width:80px;position:relative}"
    ".bar i{display:block;background:#2563eb;height:8px;border-radius:4px}"
    ".tag{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;"
    "background:#e5e7eb}"
    ".running{background:#dbeafe;color:#1e40af}.finished{background:#dcfce7;color:#166534}"
    ".stopped{background:#fef3c7;color:#92400e}.failed{background:#fee2e2;color:#991b1b}"
    ".H1{background:#dcfce7;color:#166534}.H0{background:#fee2e2;color:#991b1b}"
    ".kv{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;font-size:14px}"
    ".kv span:nth-child(odd){color:#4b5563}"
    ".muted{color:#6b7280}svg.chart{display:block;margin:6px 0}tr.bad td{background:#fef2f2}"
    "pre{font-size:12px;tab-size:2;white-space:pre-wrap;margin:0}";

/* refresh: seconds after which the browser reloads the page (0 = never), for
 * pages that follow live runs without any JavaScript. */
void pages_open(http_buf_t *b, const char *title, int refresh)
{
    http_buf_puts(b, "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    if (refresh > 0)
        http_buf_printf(b, "<meta http-equiv=\"refresh\" content=\"%d\">", refresh);
    http_buf_puts(b, "<title>");
    http_buf_html(b, title);
    http_buf_puts(b, " - capalab</title><style>");
    http_buf_puts(b, CSS);
    http_buf_puts(b, "</style></head><body><header><b>capalab</b><a href=\"/\">Runs</a>"
                     "<a href=\"/values\">Piece values</a><a href=\"/workers\">Workers</a>"
                     "<a href=\"/contributors\">Contributors</a></header><main>");
}

int pages_close(http_req_t *req, http_buf_t *b)
{
    http_buf_puts(b, "</main></body></html>\n");
    size_t len = 0;
    char *text = http_buf_take(b, &len);
    if (!text)
        return http_reply_error(req, 500, "internal", "out of memory");
    static const char *const headers[] = {
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'",
        NULL };
    return http_reply_headers(req, 200, "text/html; charset=utf-8", text, len, headers);
}

void pages_time(http_buf_t *b, double ms)
{
    if (ms <= 0) {
        http_buf_puts(b, "-");
        return;
    }
    time_t t = (time_t) (ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char s[32];
    strftime(s, sizeof s, "%Y-%m-%d %H:%M", &tm);
    http_buf_puts(b, s);
}

double pages_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *pages_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* {"value": v, "ci95": [lo, hi]} */
void pages_interval(const cJSON *o, double *v, double *lo, double *hi)
{
    *v = pages_num(o, "value");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(o, "ci95");
    *lo = *hi = NAN;
    if (cJSON_GetArraySize(ci) == 2) {
        const cJSON *a = cJSON_GetArrayItem(ci, 0), *z = cJSON_GetArrayItem(ci, 1);
        if (cJSON_IsNumber(a) && cJSON_IsNumber(z)) {
            *lo = a->valuedouble;
            *hi = z->valuedouble;
        }
    }
}

void pages_tag(http_buf_t *b, const char *cls, const char *text)
{
    http_buf_puts(b, "<span class=\"tag ");
    http_buf_html(b, cls);
    http_buf_puts(b, "\">");
    http_buf_html(b, text);
    http_buf_puts(b, "</span>");
}

void pages_bar(http_buf_t *b, double done, double planned)
{
    double f = planned > 0 ? done / planned : 0;
    if (!(f >= 0))
        f = 0;
    if (f > 1)
        f = 1;
    http_buf_printf(b, "<div class=\"bar\" title=\"%.0f of %.0f\"><i style=\"width:%.1f%%\"></i>"
                       "</div>", done, planned, f * 100);
}

/* ---- the run list ---------------------------------------------------------------- */

int pages_runs(http_req_t *req)
{
    int rc = MHD_NO;
    cJSON *o = http_api_runs_json(req, &rc);
    if (!o)
        return rc;   /* the builder queued its error reply */
    http_buf_t b = { 0 };
    pages_open(&b, "Runs", PAGES_REFRESH_SECONDS);
    http_buf_puts(&b, "<h1>Runs</h1><div class=\"card\"><table><tr><th class=\"n\">id</th>"
                      "<th>name</th><th>kind</th><th>status</th><th>progress</th>"
                      "<th class=\"n\">pairs</th><th>result</th><th>created (UTC)</th></tr>");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(o, "runs");
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        double id = pages_num(r, "id");
        http_buf_printf(&b, "<tr><td class=\"n\"><a href=\"/runs/%.0f\">%.0f</a></td><td>"
                            "<a href=\"/runs/%.0f\">", id, id, id);
        http_buf_html(&b, pages_str(r, "name"));
        http_buf_puts(&b, "</a></td><td>");
        http_buf_html(&b, pages_str(r, "kind"));
        http_buf_puts(&b, "</td><td>");
        pages_tag(&b, pages_str(r, "status"), pages_str(r, "status"));
        http_buf_puts(&b, "</td><td>");
        pages_bar(&b, pages_num(r, "pairs"), pages_num(r, "pairs_planned"));
        http_buf_printf(&b, "</td><td class=\"n\">%.0f / %.0f</td><td>", pages_num(r, "pairs"),
                        pages_num(r, "pairs_planned"));
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "result");
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(res, "verdict");
        if (cJSON_IsString(verdict))
            pages_tag(&b, verdict->valuestring, verdict->valuestring);
        http_buf_puts(&b, "</td><td>");
        pages_time(&b, pages_num(r, "created_at_ms"));
        http_buf_puts(&b, "</td></tr>");
    }
    if (cJSON_GetArraySize(runs) == 0)
        http_buf_puts(&b, "<tr><td colspan=\"8\" class=\"muted\">no runs yet</td></tr>");
    http_buf_puts(&b, "</table></div>");
    cJSON_Delete(o);
    return pages_close(req, &b);
}

/* ---- one run ---------------------------------------------------------------------- */

/* What the charts need of a stored pair (compact: runs can be large). */
typedef struct {
    int64_t pair_no;
    int8_t b_score[2];   /* B's half points in game 1 and 2 */
    int8_t b_white[2];
    int16_t imbalance;   /* index into the names given to s_pairs; -1 none */
} s_pair_t;

/* Every non-excluded stored pair of a run in pair order (at most
 * PAGES_PAIRS_MAX), imbalances mapped to their index among names[0..nn). */
static int s_pairs(store_t *st, int64_t run_id, const rundoc_imbalance_t *names, size_t nn,
                   s_pair_t **rows_p, size_t *n_out)
{
    *rows_p = NULL;
    *n_out = 0;
    s_pair_t *all = NULL;
    size_t n = 0, cap = 0;
    int64_t from = 0;
    while (n < PAGES_PAIRS_MAX) {
        store_pair_row_t *rows = NULL;
        size_t got = 0;
        int rc = store_pairs_list(st, run_id, from, 1000, &rows, &got);
        if (rc < 0) {
            free(all);
            return rc;
        }
        if (n + got > cap) {
            size_t nc = cap ? cap * 2 : 4096;
            while (nc < n + got)
                nc *= 2;
            s_pair_t *na = realloc(all, nc * sizeof *all);
            if (!na) {
                free(rows);
                free(all);
                return CAPA_ENOMEM;
            }
            all = na;
            cap = nc;
        }
        for (size_t i = 0; i < got && n < PAGES_PAIRS_MAX; i++) {
            const store_pair_row_t *r = &rows[i];
            if (r->excluded)
                continue;
            s_pair_t *p = &all[n++];
            p->pair_no = r->pair_no;
            for (int g = 0; g < 2; g++) {
                p->b_white[g] = r->b_white[g];
                p->b_score[g] = (int8_t) (r->b_white[g] ? r->result[g] : 2 - r->result[g]);
            }
            p->imbalance = -1;
            for (size_t k = 0; k < nn; k++)
                if (strcmp(names[k].name, r->imbalance) == 0)
                    p->imbalance = (int16_t) k;
        }
        if (got)
            from = rows[got - 1].pair_no + 1;
        free(rows);
        if (got < 1000)
            break;
    }
    *rows_p = all;
    *n_out = n;
    return 0;
}

static void s_sprt_charts(http_buf_t *b, const s_pair_t *rows, size_t n,
                          const cJSON *sprt)
{
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    p.elo0 = pages_num(sprt, "elo0");
    p.elo1 = pages_num(sprt, "elo1");
    p.alpha = pages_num(sprt, "alpha");
    p.beta = pages_num(sprt, "beta");
    p.model = strcmp(pages_str(sprt, "model"), "logistic") == 0 ? STATS_MODEL_LOGISTIC
                                                              : STATS_MODEL_NORMALIZED;
    size_t pts = n < PAGES_POINTS ? n : PAGES_POINTS;
    double *x = calloc(pts + 1, sizeof *x), *llr = calloc(pts + 1, sizeof *x);
    double *elo = calloc(pts + 1, sizeof *x), *lo = calloc(pts + 1, sizeof *x),
           *hi = calloc(pts + 1, sizeof *x);
    if (!x || !llr || !elo || !lo || !hi)
        goto out;
    stats_counts_t c;
    memset(&c, 0, sizeof c);
    size_t k = 0, next = 0;
    char err[256];
    bool logistic = p.model == STATS_MODEL_LOGISTIC;
    for (size_t i = 0; i < n && k < pts; i++) {
        stats_counts_add_pair(&c, rows[i].b_score[0], rows[i].b_score[1]);
        next = (k + 1) * n / pts;
        if (i + 1 < next)
            continue;
        x[k] = (double) (i + 1);
        if (stats_sprt_llr(&p, &c, &llr[k], err, sizeof err) < 0)
            llr[k] = NAN;
        stats_estimate_t e;
        /* The first few pairs say little: their intervals would swamp the chart. */
        bool early = i + 1 < 20 || i + 1 < n / 20;
        if (!early && stats_estimate(&c, 0, &e, err, sizeof err) == 0) {
            elo[k] = logistic ? e.elo : e.nelo;
            lo[k] = logistic ? e.elo_lo : e.nelo_lo;
            hi[k] = logistic ? e.elo_hi : e.nelo_hi;
        } else {
            elo[k] = lo[k] = hi[k] = NAN;
        }
        k++;
    }
    pages_series_t s = { .x = x, .y = llr, .n = k, .label = "LLR", .color = "#2563eb" };
    pages_hline_t h[2] = { { pages_num(sprt, "lower_bound"), "accept H0", "#dc2626", 0 },
                           { pages_num(sprt, "upper_bound"), "accept H1", "#16a34a", 0 } };
    pages_chart_t ch = { .title = "Log-likelihood ratio", .xlabel = "pairs", .ylabel = "LLR",
                         .series = &s, .n_series = 1, .hlines = h, .n_hlines = 2 };
    pages_svg_chart(b, &ch);
    pages_series_t se = { .x = x, .y = elo, .lo = lo, .hi = hi, .n = k,
                          .label = logistic ? "Elo, 95% interval" : "nElo, 95% interval",
                          .color = "#9333ea" };
    pages_hline_t he[2] = { { p.elo0, "elo0", "#dc2626", 1 }, { p.elo1, "elo1", "#16a34a", 0 } };
    pages_chart_t ce = { .title = logistic ? "Elo over pairs" : "Normalized Elo over pairs",
                         .xlabel = "pairs", .ylabel = logistic ? "Elo" : "nElo",
                         .series = &se, .n_series = 1, .hlines = he, .n_hlines = 2 };
    pages_svg_chart(b, &ce);
out:
    free(x);
    free(llr);
    free(elo);
    free(lo);
    free(hi);
}

void pages_interval_text(http_buf_t *b, const cJSON *o, const char *fmt)
{
    double v, lo, hi;
    pages_interval(o, &v, &lo, &hi);
    if (!isfinite(v)) {
        http_buf_puts(b, "-");
        return;
    }
    http_buf_printf(b, fmt, v);
    if (isfinite(lo) && isfinite(hi)) {
        http_buf_puts(b, " <span class=\"muted\">[");
        http_buf_printf(b, fmt, lo);
        http_buf_puts(b, ", ");
        http_buf_printf(b, fmt, hi);
        http_buf_puts(b, "]</span>");
    }
}

static void s_sprt_section(http_buf_t *b, store_t *st, int64_t id, const cJSON *rep)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "sprt");
    if (!cJSON_IsObject(s))
        return;
    http_buf_puts(b, "<h2>SPRT</h2><div class=\"card\"><div class=\"kv\">");
    http_buf_printf(b, "<span>hypotheses</span><span>%s [%g, %g], alpha %g, beta %g</span>",
                    strcmp(pages_str(s, "model"), "logistic") == 0 ? "Elo" : "nElo",
                    pages_num(s, "elo0"), pages_num(s, "elo1"), pages_num(s, "alpha"),
                    pages_num(s, "beta"));
    http_buf_printf(b, "<span>LLR</span><span>%.3f <span class=\"muted\">(%.3f, %.3f)</span> ",
                    pages_num(s, "llr"), pages_num(s, "lower_bound"), pages_num(s, "upper_bound"));
    const char *v = pages_str(s, "verdict");
    pages_tag(b, v, v);
    http_buf_puts(b, "</span><span>Elo</span><span>");
    pages_interval_text(b, cJSON_GetObjectItemCaseSensitive(s, "elo"), "%.2f");
    http_buf_puts(b, "</span><span>nElo</span><span>");
    pages_interval_text(b, cJSON_GetObjectItemCaseSensitive(s, "nelo"), "%.2f");
    http_buf_puts(b, "</span><span>score</span><span>");
    pages_interval_text(b, cJSON_GetObjectItemCaseSensitive(s, "score"), "%.4f");
    http_buf_printf(b, "</span><span>LOS</span><span>%.1f%%</span>", pages_num(s, "los") * 100);
    http_buf_printf(b, "<span>games W / D / L</span><span>%.0f / %.0f / %.0f</span>",
                    pages_num(s, "wins"), pages_num(s, "draws"), pages_num(s, "losses"));
    http_buf_puts(b, "<span>pentanomial</span><span>");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(s, "penta");
    const cJSON *e;
    bool first = true;
    cJSON_ArrayForEach(e, pt) {
        http_buf_printf(b, "%s%.0f", first ? "" : ", ", e->valuedouble);
        first = false;
    }
    http_buf_puts(b, "</span></div></div><div class=\"card\">");
    s_pair_t *rows = NULL;
    size_t n = 0;
    if (s_pairs(st, id, NULL, 0, &rows, &n) == 0)
        s_sprt_charts(b, rows, n, s);
    else
        http_buf_puts(b, "<p class=\"muted\">the pairs cannot be read now</p>");
    free(rows);
    http_buf_puts(b, "</div>");
}

static void s_spsa_section(http_buf_t *b, const cJSON *rep)
{
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(rep, "spsa");
    if (!cJSON_IsObject(sp))
        return;
    http_buf_printf(b, "<h2>SPSA</h2><div class=\"card\"><p>iteration %.0f of %.0f</p>"
                       "<table><tr><th>parameter</th><th class=\"n\">value</th></tr>",
                    pages_num(sp, "iteration"), pages_num(sp, "iterations"));
    const cJSON *theta = cJSON_GetObjectItemCaseSensitive(sp, "theta");
    const cJSON *t;
    cJSON_ArrayForEach(t, theta) {
        http_buf_puts(b, "<tr><td>");
        http_buf_html(b, t->string);
        http_buf_printf(b, "</td><td class=\"n\">%.2f</td></tr>", t->valuedouble);
    }
    http_buf_puts(b, "</table>");
    const cJSON *hist = cJSON_GetObjectItemCaseSensitive(sp, "history");
    int nh = cJSON_GetArraySize(hist);
    if (nh > 0) {
        double *x = calloc((size_t) nh, sizeof *x);
        cJSON_ArrayForEach(t, theta) {
            double *y = calloc((size_t) nh, sizeof *y);
            if (!x || !y) {
                free(y);
                break;
            }
            int i = 0;
            const cJSON *h;
            cJSON_ArrayForEach(h, hist) {
                x[i] = pages_num(h, "iteration");
                y[i] = pages_num(cJSON_GetObjectItemCaseSensitive(h, "theta"), t->string);
                i++;
            }
            pages_series_t s = { .x = x, .y = y, .n = (size_t) nh, .label = t->string };
            pages_chart_t ch = { .title = t->string, .xlabel = "iteration", .series = &s,
                                 .n_series = 1, .height = 200 };
            pages_svg_chart(b, &ch);
            free(y);
        }
        free(x);
    }
    http_buf_puts(b, "</div>");
}

int pages_run(http_req_t *req, int64_t id)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    char err[1024];
    cJSON *rep = NULL;
    int rc = report_build(st, id, 0, &rep, err, sizeof err);
    if (rc == CAPA_ENOTFOUND)
        return http_reply_error(req, 404, "not_found", "no run %lld", (long long) id);
    if (rc < 0) {
        http_db_failed(req);
        return http_reply_db_down(req);
    }
    store_run_t run;
    memset(&run, 0, sizeof run);
    store_run_get(st, id, &run);
    http_buf_t b = { 0 };
    char title[160];
    snprintf(title, sizeof title, "Run %lld: %s", (long long) id, pages_str(rep, "name"));
    const char *status = pages_str(rep, "status");
    bool live = strcmp(status, "running") == 0 || strcmp(status, "pending") == 0;
    pages_open(&b, title, live ? PAGES_REFRESH_SECONDS : 0);
    http_buf_printf(&b, "<h1>Run %lld: ", (long long) id);
    http_buf_html(&b, pages_str(rep, "name"));
    http_buf_puts(&b, "</h1><div class=\"card\"><div class=\"kv\"><span>kind</span><span>");
    http_buf_html(&b, pages_str(rep, "kind"));
    http_buf_puts(&b, "</span><span>status</span><span>");
    pages_tag(&b, pages_str(rep, "status"), pages_str(rep, "status"));
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    http_buf_printf(&b, "</span><span>pairs</span><span>%.0f of %.0f planned</span>"
                        "<span>progress</span><span>", pages_num(tot, "pairs"),
                    pages_num(rep, "pairs_planned"));
    pages_bar(&b, pages_num(tot, "pairs"), pages_num(rep, "pairs_planned"));
    http_buf_printf(&b, "</span><span>CPU</span><span>%.2f hours</span><span>created</span><span>",
                    pages_num(tot, "cpu_ms") / 3.6e6);
    pages_time(&b, pages_num(rep, "created_at_ms"));
    http_buf_puts(&b, "</span><span>finished</span><span>");
    pages_time(&b, pages_num(rep, "finished_at_ms"));
    http_buf_printf(&b, "</span><span>seed, priority</span><span>%.0f, %.0f</span></div>"
                        "<p><a href=\"/api/runs/%lld\">JSON</a> &middot; "
                        "<a href=\"/api/runs/%lld/pgn\">PGN</a></p></div>",
                    pages_num(rep, "seed"), pages_num(rep, "priority"), (long long) id,
                    (long long) id);
    const char *kind = pages_str(rep, "kind");
    if (strcmp(kind, "sprt") == 0)
        s_sprt_section(&b, st, id, rep);
    else if (strcmp(kind, "values") == 0)
        pages_run_values(&b, st, id, rep);
    else if (strcmp(kind, "spsa") == 0)
        s_spsa_section(&b, rep);
    pages_run_workers(req, &b, id);
    if (run.doc) {
        cJSON *doc = json_parse(run.doc);
        char *pretty = doc ? cJSON_Print(doc) : NULL;
        http_buf_puts(&b, "<h2>Run document</h2><div class=\"card\"><pre>");
        http_buf_html(&b, pretty ? pretty : run.doc);
        http_buf_puts(&b, "</pre></div>");
        free(pretty);
        cJSON_Delete(doc);
    }
    store_run_clear(&run);
    cJSON_Delete(rep);
    return pages_close(req, &b);
}

/* ---- workers and contributors ---------------------------------------------- */

int pages_workers(http_req_t *req)
{
    int rc = MHD_NO;
    cJSON *o = http_api_workers_json(req, &rc);
    if (!o)
        return rc;   /* the builder queued its error reply */
    http_buf_t b = { 0 };
    pages_open(&b, "Workers", PAGES_REFRESH_SECONDS);
    http_buf_printf(&b, "<h1>Workers</h1><p class=\"muted\">%.0f live (seen in the last %d s)</p>"
                        "<div class=\"card\"><table><tr><th>worker</th><th>contributor</th>"
                        "<th></th><th class=\"n\">cores</th><th class=\"n\">knps</th>"
                        "<th class=\"n\">pairs</th><th class=\"n\">CPU h</th><th>last seen (UTC)"
                        "</th></tr>", pages_num(o, "live"), HTTP_LIVE_SECONDS);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(o, "workers")) {
        http_buf_puts(&b, "<tr><td>");
        http_buf_html(&b, pages_str(w, "id"));
        const char *name = pages_str(w, "name");
        if (*name) {
            http_buf_puts(&b, " <span class=\"muted\">");
            http_buf_html(&b, name);
            http_buf_puts(&b, "</span>");
        }
        http_buf_puts(&b, "</td><td>");
        http_buf_html(&b, pages_str(w, "contributor"));
        http_buf_puts(&b, "</td><td>");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "flagged")))
            pages_tag(&b, "failed", "flagged");
        else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "live")))
            pages_tag(&b, "finished", "live");
        else
            pages_tag(&b, "", "away");
        http_buf_printf(&b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                            "<td class=\"n\">%.0f</td><td class=\"n\">%.2f</td><td>",
                        pages_num(w, "cores"), pages_num(w, "nps") / 1000, pages_num(w, "pairs"),
                        pages_num(w, "cpu_hours"));
        pages_time(&b, pages_num(w, "last_seen_ms"));
        http_buf_puts(&b, "</td></tr>");
    }
    http_buf_puts(&b, "</table></div>");
    cJSON_Delete(o);
    return pages_close(req, &b);
}

/* Contributors by CPU hours, most first (fishtest's users page). */
static int s_by_cpu(const void *x, const void *y)
{
    double a = pages_num(*(const cJSON *const *) x, "cpu_hours");
    double b = pages_num(*(const cJSON *const *) y, "cpu_hours");
    return a < b ? 1 : a > b ? -1 : 0;
}

static void s_share(http_buf_t *b, double share)
{
    http_buf_printf(b, "<td class=\"n\">%.1f%%", 100.0 * share);
    pages_bar(b, share * 1000.0, 1000.0);
    http_buf_puts(b, "</td>");
}

int pages_contributors(http_req_t *req)
{
    int rc = MHD_NO;
    cJSON *o = http_api_contributors_json(req, &rc);
    if (!o)
        return rc;   /* the builder queued its error reply */
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "contributors");
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(o, "total");
    int n = cJSON_GetArraySize(list);
    const cJSON **rows = calloc(n > 0 ? (size_t) n : 1, sizeof *rows);
    if (!rows) {
        cJSON_Delete(o);
        return http_reply_error(req, 500, "internal", "out of memory");
    }
    int k = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, list)
        rows[k++] = c;
    qsort(rows, (size_t) k, sizeof *rows, s_by_cpu);
    double days = pages_num(o, "recent_days");
    http_buf_t b = { 0 };
    pages_open(&b, "Contributors", PAGES_REFRESH_SECONDS);
    http_buf_printf(&b, "<h1>Contributors</h1><p class=\"muted\">%.2f CPU hours in all, %.2f in "
                        "the last %.0f days; %.0f worker(s) active (seen in the last %.0f s). "
                        "Workers: active / registered. Shares are of CPU hours.</p>",
                    pages_num(tot, "cpu_hours"), pages_num(tot, "cpu_hours_recent"), days,
                    pages_num(tot, "active_workers"), pages_num(o, "live_seconds"));
    http_buf_printf(&b, "<div class=\"card\"><table><tr><th colspan=\"3\"></th>"
                        "<th colspan=\"4\">all time</th><th colspan=\"4\">last %.0f days</th></tr>"
                        "<tr><th>contributor</th><th class=\"n\">workers</th>"
                        "<th>last seen (UTC)</th>"
                        "<th class=\"n\">CPU hours</th><th class=\"n\">games</th>"
                        "<th class=\"n\">pairs</th><th class=\"n\">share</th>"
                        "<th class=\"n\">CPU hours</th><th class=\"n\">games</th>"
                        "<th class=\"n\">pairs</th><th class=\"n\">share</th></tr>",
                    days);
    for (int i = 0; i < k; i++) {
        c = rows[i];
        http_buf_puts(&b, "<tr><td>");
        http_buf_html(&b, pages_str(c, "name"));
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "revoked"))) {
            http_buf_puts(&b, " ");
            pages_tag(&b, "stopped", "revoked");
        } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "admin"))) {
            http_buf_puts(&b, " ");
            pages_tag(&b, "running", "admin");
        }
        http_buf_printf(&b, "</td><td class=\"n\">%.0f / %.0f</td><td>",
                        pages_num(c, "active_workers"), pages_num(c, "workers"));
        pages_time(&b, pages_num(c, "last_seen_ms"));
        http_buf_printf(&b, "</td><td class=\"n\">%.2f</td><td class=\"n\">%.0f</td>"
                            "<td class=\"n\">%.0f</td>",
                        pages_num(c, "cpu_hours"), pages_num(c, "games"), pages_num(c, "pairs"));
        s_share(&b, pages_num(c, "share"));
        http_buf_printf(&b, "<td class=\"n\">%.2f</td><td class=\"n\">%.0f</td>"
                            "<td class=\"n\">%.0f</td>",
                        pages_num(c, "cpu_hours_recent"), pages_num(c, "games_recent"),
                        pages_num(c, "pairs_recent"));
        s_share(&b, pages_num(c, "share_recent"));
        http_buf_puts(&b, "</tr>");
    }
    if (k == 0)
        http_buf_puts(&b, "<tr><td colspan=\"11\" class=\"muted\">no contributors yet</td></tr>");
    http_buf_puts(&b, "</table></div>");
    free(rows);
    cJSON_Delete(o);
    return pages_close(req, &b);
}
