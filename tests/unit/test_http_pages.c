/* Unit tests of the pure parts of the HTTP API and its pages: the text
 * buffer and HTML escaping, the SVG chart builders, axis ticks, address and
 * id parsing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "err.h"
#include "http.h"
#include "http_buf.h"
#include "http_int.h"
#include "pages_svg.h"
#include "values_best.h"

static size_t s_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void html_escaping_neutralises_markup_and_quotes(void)
{
    http_buf_t b = { 0 };
    http_buf_html(&b, "<script>alert('x')</script> & \"q\"");
    char *t = http_buf_take(&b, NULL);
    CHECK_EQ_STR(t, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
    free(t);
}

static void html_escaping_drops_control_characters_but_keeps_utf8(void)
{
    http_buf_t b = { 0 };
    http_buf_html(&b, "a\x01" "b\x1b[31m\tc\n\xc3\xa9");
    char *t = http_buf_take(&b, NULL);
    CHECK_EQ_STR(t, "ab[31m\tc\n\xc3\xa9");
    free(t);
}

static void the_buffer_grows_past_its_first_block_and_formats(void)
{
    http_buf_t b = { 0 };
    for (int i = 0; i < 1000; i++)
        http_buf_printf(&b, "%04d,", i);
    http_buf_printf(&b, "%s", "");
    size_t len = 0;
    char *t = http_buf_take(&b, &len);
    CHECK_EQ_INT(len, 5000);
    CHECK(strncmp(t, "0000,0001,", 10) == 0);
    CHECK(strcmp(t + len - 5, "0999,") == 0);
    free(t);
    /* A long single printf goes through the slow path. */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    http_buf_printf(&b, "[%s]", big);
    t = http_buf_take(&b, &len);
    CHECK_EQ_INT(len, 3001);
    CHECK(t[0] == '[' && t[3000] == ']');
    free(t);
    t = http_buf_take(&b, &len);   /* empty buffer gives "" */
    CHECK_EQ_STR(t, "");
    free(t);
}

static void ticks_are_round_numbers_covering_the_range(void)
{
    double first, step;
    int n;
    pages_svg_ticks(0, 2000, 6, &first, &step, &n);
    CHECK_NEAR(step, 500, 1e-9);
    CHECK_NEAR(first, 0, 1e-9);
    CHECK_EQ_INT(n, 5);
    pages_svg_ticks(-2.94, 2.94, 6, &first, &step, &n);
    CHECK_NEAR(step, 2, 1e-9);
    CHECK_NEAR(first, -2, 1e-9);
    CHECK(n <= 6);
    pages_svg_ticks(0.013, 0.087, 6, &first, &step, &n);
    CHECK_NEAR(step, 0.02, 1e-12);
    CHECK_NEAR(first, 0.02, 1e-12);
    pages_svg_ticks(5, 5, 6, &first, &step, &n);   /* a single value */
    CHECK(n >= 2 && first <= 5 && first + (n - 1) * step >= 5);
}

static void an_llr_chart_has_its_path_its_bounds_and_escaped_labels(void)
{
    double x[50], y[50];
    for (int i = 0; i < 50; i++) {
        x[i] = (i + 1) * 10;
        y[i] = 0.05 * i;
    }
    y[7] = NAN;   /* left out, not drawn as garbage */
    pages_series_t s = { .x = x, .y = y, .n = 50, .label = "LLR <b>", .color = "#2563eb" };
    pages_hline_t h[2] = { { -2.94, "H0", "#dc2626", 0 }, { 2.94, "H1", "#16a34a", 1 } };
    pages_chart_t c = { .title = "Run \"x\" & <y>", .xlabel = "pairs", .series = &s,
                        .n_series = 1, .hlines = h, .n_hlines = 2 };
    http_buf_t b = { 0 };
    pages_svg_chart(&b, &c);
    char *t = http_buf_take(&b, NULL);
    CHECK(strncmp(t, "<svg class=\"chart\"", 18) == 0);
    CHECK(strcmp(t + strlen(t) - 6, "</svg>") == 0);
    CHECK_EQ_INT(s_count(t, "<polyline class=\"series\""), 1);
    CHECK_EQ_INT(s_count(t, "class=\"bound\""), 2);
    CHECK(strstr(t, "Run &quot;x&quot; &amp; &lt;y&gt;") != NULL);
    CHECK(strstr(t, "LLR &lt;b&gt;") != NULL);
    CHECK(strstr(t, "<b>") == NULL);
    CHECK(strstr(t, "nan") == NULL && strstr(t, "inf") == NULL);
    /* The polyline has 49 points (one NaN dropped). */
    const char *pts = strstr(strstr(t, "<polyline"), "points=\"") + 8;
    int commas = 0;
    for (const char *p = pts; *p != '"'; p++)
        commas += *p == ',';
    CHECK_EQ_INT(commas, 49);
    free(t);
}

static void points_lie_inside_the_plot_area(void)
{
    double x[3] = { 0, 50, 100 }, y[3] = { -1, 0, 1 }, lo[3] = { -2, -1, 0 }, hi[3] = { 0, 1, 2 };
    pages_series_t s = { .x = x, .y = y, .lo = lo, .hi = hi, .n = 3 };
    pages_chart_t c = { .width = 400, .height = 200, .series = &s, .n_series = 1 };
    http_buf_t b = { 0 };
    pages_svg_chart(&b, &c);
    char *t = http_buf_take(&b, NULL);
    CHECK_EQ_INT(s_count(t, "class=\"band\""), 1);
    const char *pts = strstr(strstr(t, "<polyline"), "points=\"") + 8;
    for (int i = 0; i < 3; i++) {
        double px, py;
        int used = 0;
        CHECK(sscanf(pts, "%lf,%lf %n", &px, &py, &used) == 2);
        CHECK(px >= 0 && px <= 400 && py >= 0 && py <= 200);
        pts += used;
    }
    free(t);
}

static void a_chart_without_data_says_so(void)
{
    pages_series_t s = { .x = NULL, .y = NULL, .n = 0 };
    pages_chart_t c = { .title = "empty", .series = &s, .n_series = 1 };
    http_buf_t b = { 0 };
    pages_svg_chart(&b, &c);
    char *t = http_buf_take(&b, NULL);
    CHECK(strstr(t, "no data yet") != NULL);
    CHECK(strstr(t, "<polyline") == NULL);
    free(t);
}

static void an_interval_chart_draws_one_row_per_piece(void)
{
    const char *labels[3] = { "Archbishop", "Chancellor", "Q<ueen>" };
    double v[3] = { 7.9, 8.6, NAN }, lo[3] = { 7.2, 8.0, NAN }, hi[3] = { 8.6, 9.2, NAN };
    http_buf_t b = { 0 };
    pages_svg_intervals(&b, "values", labels, v, lo, hi, NULL, 3);
    char *t = http_buf_take(&b, NULL);
    CHECK_EQ_INT(s_count(t, "class=\"estimate\""), 2);
    CHECK_EQ_INT(s_count(t, "class=\"interval\""), 2);
    CHECK(strstr(t, "7.90 [7.20, 8.60]") != NULL);
    CHECK(strstr(t, "not estimated") != NULL);
    CHECK(strstr(t, "Q&lt;ueen&gt;") != NULL);
    free(t);
}

static void http_addresses_parse_with_and_without_host(void)
{
    coord_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    http_config_t hc;
    char err[256];
    snprintf(cfg.http, sizeof cfg.http, "127.0.0.1:8080");
    CHECK(http_config_from_coord(&hc, &cfg, err, sizeof err) == 0);
    CHECK_EQ_STR(hc.host, "127.0.0.1");
    CHECK_EQ_INT(hc.port, 8080);
    CHECK(strcmp(hc.pgn_dir, "pgn") == 0);
    snprintf(cfg.http, sizeof cfg.http, ":9000");
    CHECK(http_config_from_coord(&hc, &cfg, err, sizeof err) == 0);
    CHECK_EQ_STR(hc.host, "0.0.0.0");
    CHECK_EQ_INT(hc.port, 9000);
    snprintf(cfg.http, sizeof cfg.http, "[::1]:0");
    CHECK(http_config_from_coord(&hc, &cfg, err, sizeof err) == 0);
    CHECK_EQ_STR(hc.host, "::1");
    CHECK_EQ_INT(hc.port, 0);
    snprintf(cfg.http, sizeof cfg.http, "localhost");
    CHECK_EQ_INT(http_config_from_coord(&hc, &cfg, err, sizeof err), CAPA_EINVAL);
    snprintf(cfg.http, sizeof cfg.http, "h:70000");
    CHECK_EQ_INT(http_config_from_coord(&hc, &cfg, err, sizeof err), CAPA_EINVAL);
    snprintf(cfg.http, sizeof cfg.http, "h:80x");
    CHECK_EQ_INT(http_config_from_coord(&hc, &cfg, err, sizeof err), CAPA_EINVAL);
    cfg.http[0] = 0;
    CHECK_EQ_INT(http_config_from_coord(&hc, &cfg, err, sizeof err), CAPA_ENOTFOUND);
}

static void ids_in_paths_are_strict_positive_numbers(void)
{
    CHECK_EQ_INT(http_parse_id("42", 2), 42);
    CHECK_EQ_INT(http_parse_id("0", 1), -1);
    CHECK_EQ_INT(http_parse_id("-1", 2), -1);
    CHECK_EQ_INT(http_parse_id("1e3", 3), -1);
    CHECK_EQ_INT(http_parse_id("..", 2), -1);
    CHECK_EQ_INT(http_parse_id("12345678901234567", 17), -1);
    CHECK_EQ_INT(http_parse_id("", 0), -1);
    CHECK_EQ_INT(http_parse_id("7/", 1), 7);   /* only the given length counts */
}

static void the_best_values_run_is_the_deepest_then_the_largest_then_the_newest(void)
{
    values_candidate_t shallow = { .run_id = 1, .nodes = 2000, .pairs_used = 9000,
                                   .computed_at_ms = 50 };
    values_candidate_t deep = { .run_id = 2, .nodes = 20000, .pairs_used = 300,
                                .computed_at_ms = 10 };
    values_candidate_t deep_big = deep;
    deep_big.run_id = 3;
    deep_big.pairs_used = 301;
    values_candidate_t deep_new = deep;
    deep_new.run_id = 4;
    deep_new.computed_at_ms = 11;
    values_candidate_t clock = { .run_id = 5, .tc_base_ms = 60000, .tc_inc_ms = 600,
                                 .pairs_used = 100000, .computed_at_ms = 99 };
    values_candidate_t clock_long = clock;
    clock_long.run_id = 6;
    clock_long.tc_base_ms = 120000;
    clock_long.tc_inc_ms = 0;
    /* more nodes per move wins over more pairs */
    CHECK(values_best_cmp(&deep, &shallow) > 0 && values_best_cmp(&shallow, &deep) < 0);
    /* at the same nodes, more pairs; at the same pairs, the newer fit */
    CHECK(values_best_cmp(&deep_big, &deep) > 0);
    CHECK(values_best_cmp(&deep_new, &deep) > 0 && values_best_cmp(&deep, &deep_new) < 0);
    /* a fixed node count before any clock; clocks by base time, then increment */
    CHECK(values_best_cmp(&shallow, &clock) > 0 && values_best_cmp(&clock, &shallow) < 0);
    CHECK(values_best_cmp(&clock_long, &clock) > 0);
    CHECK_EQ_INT(values_best_cmp(&deep, &deep), 0);
}

static const check_case_t CASES[] = {
    CASE(html_escaping_neutralises_markup_and_quotes),
    CASE(html_escaping_drops_control_characters_but_keeps_utf8),
    CASE(the_buffer_grows_past_its_first_block_and_formats),
    CASE(ticks_are_round_numbers_covering_the_range),
    CASE(an_llr_chart_has_its_path_its_bounds_and_escaped_labels),
    CASE(points_lie_inside_the_plot_area),
    CASE(a_chart_without_data_says_so),
    CASE(an_interval_chart_draws_one_row_per_piece),
    CASE(http_addresses_parse_with_and_without_host),
    CASE(ids_in_paths_are_strict_positive_numbers),
    CASE(the_best_values_run_is_the_deepest_then_the_largest_then_the_newest),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
