/* pages_svg.h - charts as inline SVG for the report pages, drawn on the
 * server (no JavaScript). Pure functions over numbers; every label is
 * HTML-escaped. Non-finite points are left out.
 *
 *   pages_series_t s = { .x = xs, .y = llr, .n = n, .label = "LLR", .color = "#2563eb" };
 *   pages_hline_t h[2] = { { lower, "H0", "#dc2626" }, { upper, "H1", "#16a34a" } };
 *   pages_chart_t c = { .title = "LLR", .xlabel = "pairs", .series = &s, .n_series = 1,
 *                       .hlines = h, .n_hlines = 2 };
 *   pages_svg_chart(&buf, &c);
 */
#ifndef CAPA_COORD_PAGES_SVG_H
#define CAPA_COORD_PAGES_SVG_H

#include <stddef.h>

#include "http_buf.h"

typedef struct {
    const double *x, *y;      /* n points */
    const double *lo, *hi;    /* optional band (both or neither) */
    size_t n;
    const char *label;        /* legend; NULL = none */
    const char *color;        /* CSS colour; NULL = a palette colour */
} pages_series_t;

typedef struct {
    double y;
    const char *label;
    const char *color;
    int label_left;           /* 1: label at the left end (else the right) */
} pages_hline_t;

typedef struct {
    const char *title, *xlabel, *ylabel;
    int width, height;        /* 0 = 640 x 280 */
    const pages_series_t *series;
    size_t n_series;
    const pages_hline_t *hlines;
    size_t n_hlines;
} pages_chart_t;

/* Appends <svg class="chart">...</svg>: axes with ticks, bands, lines, the
 * horizontal reference lines and a legend. A chart without any finite
 * point says "no data yet" instead. */
void pages_svg_chart(http_buf_t *b, const pages_chart_t *c);

/* Appends a horizontal interval chart: one row per label with a dot at
 * value[i] and a bar from lo[i] to hi[i], and the figures as text; colors
 * may be NULL (the palette). */
void pages_svg_intervals(http_buf_t *b, const char *title, const char *const *labels,
                         const double *value, const double *lo, const double *hi,
                         const char *const *colors, size_t n);

/* A palette colour (i modulo its size). */
const char *pages_svg_color(size_t i);

/* "Nice" axis ticks covering [lo, hi]: first tick, step and count (at most
 * max). For lo == hi a unit range around the value is used. */
void pages_svg_ticks(double lo, double hi, int max, double *first, double *step, int *count);

#endif
