/* pages_values.c - what the pages show of piece-value studies: the values
 * section of a values run's page (/runs/{id}) and the /values page. Both read
 * stored estimates (the coordinator fits a run once per change of its data);
 * nothing here fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_buf.h"
#include "pages_int.h"
#include "pages_svg.h"
#include "stats_values.h"

#define PAGES_FITS_MAX 200       /* points of the piece-value convergence chart */
#define PAGES_VALUE_MIN -2.0     /* pawns: the convergence chart's plausible range */
#define PAGES_VALUE_MAX 25.0

/* The run's stored fits as games arrived (estimate_history: one fit per
 * change of the run's data, thinned to PAGES_FITS_MAX points): no fit here. */
static void s_values_convergence(http_buf_t *b, store_t *st, int64_t id)
{
    store_fit_t *fits = NULL;
    size_t nf = 0;
    if (store_estimate_history(st, id, PAGES_FITS_MAX, &fits, &nf) < 0) {
        http_buf_puts(b, "<p class=\"muted\">the estimates so far cannot be read now</p>");
        return;
    }
    double *x = calloc(nf ? nf : 1, sizeof *x);
    double *v = calloc((nf ? nf : 1) * 3 * STATS_PIECE_NB, sizeof *v);
    if (!x || !v)
        goto out;
    double *lo = v + nf * STATS_PIECE_NB, *hi = lo + nf * STATS_PIECE_NB;
    bool seen[STATS_PIECE_NB] = { false };
    for (size_t k = 0; k < nf; k++) {
        x[k] = (double) fits[k].pairs_used;
        for (int p = 0; p < STATS_PIECE_NB; p++)
            v[p * nf + k] = lo[p * nf + k] = hi[p * nf + k] = NAN;
        cJSON *fit = cJSON_Parse(fits[k].fit ? fits[k].fit : "");
        const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(fit, "values");
        /* Early fits on a few games can be wild: keep what is plausible for
         * a chess piece and clip the bands, so the chart stays readable
         * while the values settle. */
        for (int p = 1; p < STATS_PIECE_NB && cJSON_IsObject(pieces); p++) {
            char key[2] = { stats_piece_letter(p), 0 };
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(pieces, key);
            double val, l, h;
            if (!cJSON_IsObject(o))
                continue;
            pages_interval(o, &val, &l, &h);
            if (!(val > PAGES_VALUE_MIN && val < PAGES_VALUE_MAX))
                continue;
            seen[p] = true;
            v[p * nf + k] = val;
            lo[p * nf + k] = isfinite(l) ? fmax(l, PAGES_VALUE_MIN) : NAN;
            hi[p * nf + k] = isfinite(h) ? fmin(h, PAGES_VALUE_MAX) : NAN;
        }
        cJSON_Delete(fit);
    }
    pages_series_t series[STATS_PIECE_NB];
    size_t ns = 0;
    for (int p = 1; p < STATS_PIECE_NB; p++)
        if (seen[p]) {
            series[ns] = (pages_series_t) { .x = x, .y = v + p * nf, .lo = lo + p * nf,
                                            .hi = hi + p * nf, .n = nf,
                                            .label = pages_piece_name[p],
                                            .color = pages_piece_color[p] };
            ns++;
        }
    pages_chart_t ch = { .title = "Piece values as games arrive (pawns, 95% bands)",
                         .xlabel = "pairs", .ylabel = "pawns", .series = series,
                         .n_series = ns };
    pages_svg_chart(b, &ch);
out:
    free(x);
    free(v);
    store_estimate_history_free(&fits, nf);
}

/* One row of a contrast table: its name, pawns and Elo with their intervals
 * ("not determined" when the design cannot estimate it). */
void pages_contrast_row(http_buf_t *b, const cJSON *c)
{
    http_buf_puts(b, "<tr><td>");
    http_buf_html(b, pages_str(c, "name"));
    http_buf_puts(b, "</td>");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable"))) {
        http_buf_puts(b, "<td class=\"n muted\" colspan=\"2\">not determined</td></tr>");
        return;
    }
    http_buf_puts(b, "<td class=\"n\">");
    pages_interval_text(b, cJSON_GetObjectItemCaseSensitive(c, "pawns"), "%+.2f");
    http_buf_puts(b, "</td><td class=\"n\">");
    pages_interval_text(b, cJSON_GetObjectItemCaseSensitive(c, "elo"), "%+.0f");
    http_buf_puts(b, "</td></tr>");
}

void pages_contrasts(http_buf_t *b, const cJSON *vals)
{
    http_buf_puts(b, "<table><tr><th>contrast (first piece minus second)</th>"
                     "<th class=\"n\">pawns [95%]</th><th class=\"n\">Elo [95%]</th></tr>");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(vals, "contrasts"))
        pages_contrast_row(b, c);
    http_buf_puts(b, "</table>");
}

void pages_unit(http_buf_t *b, const cJSON *vals)
{
    http_buf_puts(b, "<p><b>Unit:</b> ");
    http_buf_html(b, pages_str(vals, "unit"));
    http_buf_printf(b, ". <span class=\"muted\">%.4f logit per pawn (%.1f Elo); White scores "
                       "%.1f%% when material is level.</span></p>",
                    pages_num(vals, "logit_per_pawn"), pages_num(vals, "elo_per_pawn"),
                    100.0 * pages_num(vals, "white_score"));
    const cJSON *note;
    cJSON_ArrayForEach(note, cJSON_GetObjectItemCaseSensitive(vals, "not_separated"))
        if (cJSON_IsString(note)) {
            http_buf_puts(b, "<p class=\"muted\">Not separated: ");
            http_buf_html(b, note->valuestring);
            http_buf_puts(b, "</p>");
        }
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(vals, "scaled"))) {
        http_buf_puts(b, "<p class=\"muted\">");
        http_buf_html(b, pages_str(vals, "note"));
        http_buf_puts(b, "</p>");
    }
}

/* The values in pawns (chart and table, with each value in Elo against
 * nothing where the piece alone is determined). */
static void s_values_table(http_buf_t *b, const cJSON *vals)
{
    const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(vals, "values");
    const cJSON *elo = cJSON_GetObjectItemCaseSensitive(vals, "values_elo");
    const char *labels[STATS_PIECE_NB], *colors[STATS_PIECE_NB];
    double v[STATS_PIECE_NB], lo[STATS_PIECE_NB], hi[STATS_PIECE_NB];
    size_t n = 0;
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        char key[2] = { stats_piece_letter(p), 0 };
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(pieces, key);
        if (!cJSON_IsObject(o))
            continue;
        labels[n] = pages_piece_name[p];
        colors[n] = pages_piece_color[p];
        pages_interval(o, &v[n], &lo[n], &hi[n]);
        n++;
    }
    if (n)
        pages_svg_intervals(b, "Values in pawns (95% intervals)", labels, v, lo, hi, colors, n);
    http_buf_puts(b, "<table><tr><th>piece</th><th class=\"n\">pawns [95%, Fieller]</th>"
                     "<th class=\"n\">Elo against nothing [95%]</th></tr>");
    for (int p = 0; p < STATS_PIECE_NB; p++) {
        char key[2] = { stats_piece_letter(p), 0 };
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(pieces, key);
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(elo, key);
        if (!cJSON_IsObject(pv) && !cJSON_IsObject(pe))
            continue;
        http_buf_printf(b, "<tr><td>%s</td><td class=\"n\">", pages_piece_name[p]);
        pages_interval_text(b, pv, "%.2f");
        http_buf_puts(b, "</td><td class=\"n\">");
        pages_interval_text(b, pe, "%.0f");
        http_buf_puts(b, "</td></tr>");
    }
    http_buf_puts(b, "</table>");
}

void pages_lack_of_fit(http_buf_t *b, const cJSON *vals)
{
    const cJSON *lof = cJSON_GetObjectItemCaseSensitive(vals, "lack_of_fit");
    if (cJSON_IsObject(lof))
        http_buf_printf(b, "<p>Lack of fit over the imbalances: chi<sup>2</sup> %.2f on %.0f df, "
                           "p %.3g.</p>", pages_num(lof, "chi2"), pages_num(lof, "df"),
                        pages_num(lof, "p"));
    else
        http_buf_puts(b, "<p class=\"muted\">Lack of fit: not testable (no more imbalance rows "
                         "than fitted effects).</p>");
}

static void s_endings(http_buf_t *b, const cJSON *rep)
{
    const cJSON *ends = cJSON_GetObjectItemCaseSensitive(rep, "endings");
    if (cJSON_GetArraySize(ends) == 0)
        return;
    http_buf_puts(b, "<h2>Games ended by</h2><div class=\"card\"><table><tr><th>ending</th>"
                     "<th class=\"n\">games</th><th class=\"n\">share</th></tr>");
    const cJSON *e;
    cJSON_ArrayForEach(e, ends) {
        http_buf_puts(b, "<tr><td>");
        http_buf_html(b, pages_str(e, "end"));
        http_buf_printf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.1f%%</td></tr>",
                        pages_num(e, "games"), 100.0 * pages_num(e, "share"));
    }
    http_buf_puts(b, "</table></div>");
}

void pages_run_values(http_buf_t *b, store_t *st, int64_t id, const cJSON *rep)
{
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(rep, "values");
    bool fitted = cJSON_IsObject(vals);
    /* What the study determines well leads: the contrasts and the unit. */
    http_buf_puts(b, "<h2>Contrasts</h2><div class=\"card\">");
    if (fitted) {
        pages_contrasts(b, vals);
        http_buf_printf(b, "<p class=\"muted\">%.0f games in %.0f pairs.</p>",
                        pages_num(vals, "games"), pages_num(vals, "pairs"));
        pages_unit(b, vals);
    } else {
        http_buf_puts(b, "<p class=\"muted\">no estimate yet: ");
        http_buf_html(b, pages_str(rep, "values_error"));
        http_buf_puts(b, "</p>");
    }
    http_buf_puts(b, "</div><h2>Piece values</h2><div class=\"card\">");
    if (fitted) {
        s_values_table(b, vals);
        pages_lack_of_fit(b, vals);
    }
    s_values_convergence(b, st, id);
    http_buf_puts(b, "</div>");
    s_endings(b, rep);
    http_buf_puts(b, "<h2>Imbalances</h2><div class=\"card\"><table><tr><th>imbalance"
                     "</th><th>B has</th><th>A has</th><th class=\"n\">games</th>"
                     "<th class=\"n\">W / D / L</th><th class=\"n\">score</th></tr>");
    const cJSON *im;
    cJSON_ArrayForEach(im, cJSON_GetObjectItemCaseSensitive(rep, "imbalances")) {
        http_buf_puts(b, "<tr><td>");
        http_buf_html(b, pages_str(im, "name"));
        http_buf_puts(b, "</td><td>");
        http_buf_html(b, pages_str(im, "side"));
        http_buf_puts(b, "</td><td>");
        http_buf_html(b, pages_str(im, "other"));
        http_buf_printf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f / %.0f / %.0f</td>",
                        pages_num(im, "games"), pages_num(im, "wins"), pages_num(im, "draws"),
                        pages_num(im, "losses"));
        double sc = pages_num(im, "score");
        if (isfinite(sc))
            http_buf_printf(b, "<td class=\"n\">%.1f%%</td></tr>", sc * 100);
        else
            http_buf_puts(b, "<td class=\"n\">-</td></tr>");
    }
    http_buf_puts(b, "</table></div>");
}

/* ---- /values ------------------------------------------------------------------------ */

/* "20000 nodes per move" or the clock. */
static void s_search(http_buf_t *b, const cJSON *o)
{
    double nodes = pages_num(o, "nodes");
    if (nodes > 0)
        http_buf_printf(b, "%.0f nodes per move", nodes);
    else
        http_buf_printf(b, "%.1f s + %.2f s a move", pages_num(o, "tc_base_ms") / 1000,
                        pages_num(o, "tc_inc_ms") / 1000);
}

static void s_engine(http_buf_t *b, const cJSON *o)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "engine");
    double bench = pages_num(e, "bench");
    if (!(bench > 0)) {
        http_buf_puts(b, "engine unknown (pairs stored without a worker)");
        return;
    }
    http_buf_printf(b, "engine bench %.0f", bench);
    if (*pages_str(e, "version")) {
        http_buf_puts(b, " (");
        http_buf_html(b, pages_str(e, "version"));
        http_buf_puts(b, ")");
    }
}

static void s_best(http_buf_t *b, const cJSON *e)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "provenance");
    http_buf_puts(b, "<h2>");
    http_buf_html(b, pages_str(e, "variant"));
    http_buf_puts(b, " &middot; ");
    s_engine(b, e);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "runs"), 0);
    double run = cJSON_IsNumber(first) ? first->valuedouble : 0;
    http_buf_printf(b, "</h2><div class=\"card\"><p>From <a href=\"/runs/%.0f\">run %.0f: ", run,
                    run);
    http_buf_html(b, pages_str(p, "name"));
    http_buf_puts(b, "</a> ");
    pages_tag(b, pages_str(p, "status"), pages_str(p, "status"));
    http_buf_puts(b, ", ");
    s_search(b, p);
    http_buf_printf(b, ", %.0f pairs (%.0f games), fitted ", pages_num(p, "pairs"),
                    pages_num(p, "games"));
    pages_time(b, pages_num(p, "fitted_at_ms"));
    http_buf_puts(b, " UTC.</p>");
    pages_contrasts(b, e);
    pages_unit(b, e);
    s_values_table(b, e);
    pages_lack_of_fit(b, e);
    http_buf_puts(b, "</div>");
}

int pages_values(http_req_t *req)
{
    int rc = MHD_NO;
    cJSON *o = http_api_values_json(req, &rc);
    if (!o)
        return rc;   /* the builder queued its error reply */
    http_buf_t b = { 0 };
    pages_open(&b, "Piece values", PAGES_REFRESH_SECONDS);
    http_buf_puts(&b, "<h1>Piece values</h1><p class=\"muted\">The current best estimate, ");
    http_buf_html(&b, pages_str(o, "rule"));
    http_buf_puts(&b, ". Contrasts first: what a study determines best.</p>");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
    if (cJSON_IsString(msg)) {
        http_buf_puts(&b, "<div class=\"card\"><p class=\"muted\">");
        http_buf_html(&b, msg->valuestring);
        http_buf_puts(&b, "</p></div>");
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "estimates"))
        s_best(&b, e);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(o, "runs");
    if (cJSON_GetArraySize(runs) > 0) {
        http_buf_puts(&b, "<h2>Values runs</h2><div class=\"card\"><table><tr><th class=\"n\">run"
                          "</th><th>name</th><th>status</th><th>variant</th><th>engine</th>"
                          "<th>search</th><th class=\"n\">pairs fitted</th><th class=\"n\">A-C, "
                          "pawns [95%]</th><th>fitted (UTC)</th><th></th></tr>");
        const cJSON *r;
        cJSON_ArrayForEach(r, runs) {
            double id = pages_num(r, "run");
            http_buf_printf(&b, "<tr><td class=\"n\"><a href=\"/runs/%.0f\">%.0f</a></td><td>",
                            id, id);
            http_buf_html(&b, pages_str(r, "name"));
            http_buf_puts(&b, "</td><td>");
            pages_tag(&b, pages_str(r, "status"), pages_str(r, "status"));
            http_buf_puts(&b, "</td><td>");
            http_buf_html(&b, pages_str(r, "variant"));
            http_buf_puts(&b, "</td><td>");
            s_engine(&b, r);
            http_buf_puts(&b, "</td><td>");
            s_search(&b, r);
            http_buf_printf(&b, "</td><td class=\"n\">%.0f</td><td class=\"n\">",
                            pages_num(r, "pairs_used"));
            const cJSON *ac = cJSON_GetObjectItemCaseSensitive(r, "A-C");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ac, "estimable")))
                pages_interval_text(&b, cJSON_GetObjectItemCaseSensitive(ac, "pawns"), "%+.2f");
            else
                http_buf_puts(&b, "-");
            http_buf_puts(&b, "</td><td>");
            pages_time(&b, pages_num(r, "fitted_at_ms"));
            http_buf_puts(&b, "</td><td>");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "best")))
                pages_tag(&b, "finished", "best");
            else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "params_changed")))
                http_buf_puts(&b, "<span class=\"muted\">plays changed parameters</span>");
            else if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "determined"))) {
                http_buf_puts(&b, "<span class=\"muted\">");
                http_buf_html(&b, cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "error"))
                                      ? pages_str(r, "error") : "determines no contrast");
                http_buf_puts(&b, "</span>");
            }
            http_buf_puts(&b, "</td></tr>");
        }
        http_buf_puts(&b, "</table></div>");
    }
    cJSON_Delete(o);
    return pages_close(req, &b);
}
