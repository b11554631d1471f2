/* pages_svg.c - inline SVG charts (see pages_svg.h). */
#include "pages_svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const PALETTE[] = { "#2563eb", "#dc2626", "#16a34a", "#9333ea",
                                       "#ea580c", "#0891b2", "#ca8a04", "#db2777" };

const char *pages_svg_color(size_t i)
{
    return PALETTE[i % (sizeof PALETTE / sizeof PALETTE[0])];
}

void pages_svg_ticks(double lo, double hi, int max, double *first, double *step, int *count)
{
    if (max < 2)
        max = 2;
    if (!(hi > lo)) {
        double c = isfinite(lo) ? lo : 0.0;
        lo = c - 1;
        hi = c + 1;
    }
    double raw = (hi - lo) / (max - 1);
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    *step = nice * mag;
    *first = ceil(lo / *step - 1e-9) * *step;
    int n = (int) floor((hi - *first) / *step + 1e-9) + 1;
    while (n > max) {   /* rounding pushed it over: widen the step */
        *step *= 2;
        *first = ceil(lo / *step - 1e-9) * *step;
        n = (int) floor((hi - *first) / *step + 1e-9) + 1;
    }
    *count = n < 1 ? 1 : n;
}

static void s_num(char *buf, size_t cap, double v, double step)
{
    if (fabs(v) < step * 1e-6)
        v = 0;
    int dec = step >= 1 ? 0 : (int) ceil(-log10(step) - 1e-9);
    if (dec > 6)
        dec = 6;
    if (fabs(v) >= 1e6)
        snprintf(buf, cap, "%.3g", v);
    else
        snprintf(buf, cap, "%.*f", dec, v);
}

typedef struct {
    double x0, x1, y0, y1;   /* data range */
    double left, right, top, bottom;
} s_frame_t;

static double s_px(const s_frame_t *f, double x)
{
    return f->left + (x - f->x0) / (f->x1 - f->x0) * (f->right - f->left);
}

static double s_py(const s_frame_t *f, double y)
{
    return f->bottom - (y - f->y0) / (f->y1 - f->y0) * (f->bottom - f->top);
}

static void s_extend(double v, double *lo, double *hi, bool *any)
{
    if (!isfinite(v))
        return;
    if (!*any || v < *lo)
        *lo = v;
    if (!*any || v > *hi)
        *hi = v;
    *any = true;
}

static void s_open(http_buf_t *b, int w, int h, const char *title)
{
    http_buf_printf(b, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
                       "xmlns=\"http://www.w3.org/2000/svg\" "
                       "style=\"width:100%%;max-width:%dpx;height:auto\">", w, h, w);
    if (title) {
        http_buf_puts(b, "<title>");
        http_buf_html(b, title);
        http_buf_puts(b, "</title>");
        http_buf_printf(b, "<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"600\" "
                           "fill=\"#111827\">");
        http_buf_html(b, title);
        http_buf_puts(b, "</text>");
    }
}

void pages_svg_chart(http_buf_t *b, const pages_chart_t *c)
{
    int w = c->width > 0 ? c->width : 640, h = c->height > 0 ? c->height : 280;
    s_open(b, w, h, c->title);
    double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
    bool anyx = false, anyy = false;
    for (size_t s = 0; s < c->n_series; s++) {
        const pages_series_t *se = &c->series[s];
        for (size_t i = 0; i < se->n; i++) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            s_extend(se->x[i], &xlo, &xhi, &anyx);
            s_extend(se->y[i], &ylo, &yhi, &anyy);
            if (se->lo && se->hi) {
                s_extend(se->lo[i], &ylo, &yhi, &anyy);
                s_extend(se->hi[i], &ylo, &yhi, &anyy);
            }
        }
    }
    if (!anyx) {
        http_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" "
                           "fill=\"#6b7280\">no data yet</text></svg>", w / 2, h / 2);
        return;
    }
    for (size_t i = 0; i < c->n_hlines; i++)
        s_extend(c->hlines[i].y, &ylo, &yhi, &anyy);
    double yspan = yhi - ylo;
    if (yspan <= 0)
        yspan = fabs(yhi) > 0 ? fabs(yhi) * 0.1 : 1;
    ylo -= yspan * 0.05;
    yhi += yspan * 0.05;
    double xfirst, xstep, yfirst, ystep;
    int xn, yn;
    if (!(xhi > xlo))
        xhi = xlo + 1;
    pages_svg_ticks(xlo, xhi, 6, &xfirst, &xstep, &xn);
    pages_svg_ticks(ylo, yhi, 6, &yfirst, &ystep, &yn);
    bool legend = false;
    for (size_t s = 0; s < c->n_series; s++)
        legend = legend || c->series[s].label;
    s_frame_t f = { xlo, xhi, ylo, yhi, 56, w - 28.0, legend ? 44 : 28, h - 34.0 };

    /* Grid and tick labels. */
    http_buf_puts(b, "<g font-size=\"11\" fill=\"#4b5563\">");
    for (int i = 0; i < yn; i++) {
        double v = yfirst + i * ystep;
        if (v < ylo || v > yhi)
            continue;
        char t[32];
        s_num(t, sizeof t, v, ystep);
        double y = s_py(&f, v);
        http_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#e5e7eb\"/>", f.left, y, f.right, y);
        http_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                        f.left - 4, y + 4, t);
    }
    for (int i = 0; i < xn; i++) {
        double v = xfirst + i * xstep;
        if (v < xlo || v > xhi)
            continue;
        char t[32];
        s_num(t, sizeof t, v, xstep);
        double x = s_px(&f, v);
        http_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#f3f4f6\"/>", x, f.top, x, f.bottom);
        http_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x,
                        f.bottom + 14, t);
    }
    http_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                       "fill=\"none\" stroke=\"#9ca3af\"/>", f.left, f.top, f.right - f.left,
                    f.bottom - f.top);
    if (c->xlabel) {
        http_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                        (f.left + f.right) / 2, h - 4);
        http_buf_html(b, c->xlabel);
        http_buf_puts(b, "</text>");
    }
    if (c->ylabel) {
        http_buf_printf(b, "<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
                           "transform=\"rotate(-90 12 %.1f)\">", (f.top + f.bottom) / 2,
                        (f.top + f.bottom) / 2);
        http_buf_html(b, c->ylabel);
        http_buf_puts(b, "</text>");
    }
    http_buf_puts(b, "</g>");

    /* Bands, then lines. */
    for (size_t s = 0; s < c->n_series; s++) {
        const pages_series_t *se = &c->series[s];
        if (!se->lo || !se->hi)
            continue;
        const char *col = se->color ? se->color : pages_svg_color(s);
        http_buf_printf(b, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.15\" "
                           "stroke=\"none\" points=\"", col);
        for (size_t i = 0; i < se->n; i++)
            if (isfinite(se->x[i]) && isfinite(se->lo[i]) && isfinite(se->hi[i]))
                http_buf_printf(b, "%.1f,%.1f ", s_px(&f, se->x[i]), s_py(&f, se->hi[i]));
        for (size_t i = se->n; i-- > 0;)
            if (isfinite(se->x[i]) && isfinite(se->lo[i]) && isfinite(se->hi[i]))
                http_buf_printf(b, "%.1f,%.1f ", s_px(&f, se->x[i]), s_py(&f, se->lo[i]));
        http_buf_puts(b, "\"/>");
    }
    for (size_t i = 0; i < c->n_hlines; i++) {
        const pages_hline_t *hl = &c->hlines[i];
        if (!isfinite(hl->y))
            continue;
        double y = s_py(&f, hl->y);
        const char *col = hl->color ? hl->color : "#6b7280";
        http_buf_printf(b, "<line class=\"bound\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\"/>",
                        f.left, y, f.right, y, col);
        if (hl->label) {
            http_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"11\" "
                               "fill=\"%s\">", hl->label_left ? f.left + 4 : f.right - 4, y - 4,
                            hl->label_left ? "start" : "end", col);
            http_buf_html(b, hl->label);
            http_buf_puts(b, "</text>");
        }
    }
    for (size_t s = 0; s < c->n_series; s++) {
        const pages_series_t *se = &c->series[s];
        const char *col = se->color ? se->color : pages_svg_color(s);
        size_t pts = 0;
        for (size_t i = 0; i < se->n; i++)
            pts += isfinite(se->x[i]) && isfinite(se->y[i]);
        if (pts == 1) {
            for (size_t i = 0; i < se->n; i++)
                if (isfinite(se->x[i]) && isfinite(se->y[i]))
                    http_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
                                    s_px(&f, se->x[i]), s_py(&f, se->y[i]), col);
            continue;
        }
        http_buf_printf(b, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
                           "stroke-width=\"2\" stroke-linejoin=\"round\" points=\"", col);
        for (size_t i = 0; i < se->n; i++)
            if (isfinite(se->x[i]) && isfinite(se->y[i]))
                http_buf_printf(b, "%.1f,%.1f ", s_px(&f, se->x[i]), s_py(&f, se->y[i]));
        http_buf_puts(b, "\"/>");
    }
    /* Legend: a row under the title. */
    double lx = f.left;
    for (size_t s = 0; s < c->n_series; s++) {
        const pages_series_t *se = &c->series[s];
        if (!se->label)
            continue;
        const char *col = se->color ? se->color : pages_svg_color(s);
        http_buf_printf(b, "<rect x=\"%.1f\" y=\"27\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                           "<text x=\"%.1f\" y=\"33\" font-size=\"11\" fill=\"#374151\">",
                        lx, col, lx + 18);
        http_buf_html(b, se->label);
        http_buf_puts(b, "</text>");
        lx += 6.5 * (double) strlen(se->label) + 32;
    }
    http_buf_puts(b, "</svg>");
}

void pages_svg_intervals(http_buf_t *b, const char *title, const char *const *labels,
                         const double *value, const double *lo, const double *hi,
                         const char *const *colors, size_t n)
{
    int row = 30, w = 640;
    int h = 40 + (int) n * row + 24;
    s_open(b, w, h, title);
    double a = 0, z = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        s_extend(value[i], &a, &z, &any);
        s_extend(lo[i], &a, &z, &any);
        s_extend(hi[i], &a, &z, &any);
    }
    if (!any) {
        http_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" "
                           "fill=\"#6b7280\">no estimate yet</text></svg>", w / 2, h / 2);
        return;
    }
    if (a > 0)
        a = 0;   /* values in pawns: show zero */
    double first, step;
    int cnt;
    pages_svg_ticks(a, z * 1.05 + 1e-9, 8, &first, &step, &cnt);
    double x1 = first + (cnt - 1) * step;
    if (x1 < z)
        x1 += step;
    s_frame_t f = { first < a ? first : a, x1, 0, 1, 110, 450, 34, 34.0 + (double) n * row };
    http_buf_puts(b, "<g font-size=\"11\" fill=\"#4b5563\">");
    for (int i = 0; i < cnt + 1; i++) {
        double v = first + i * step;
        if (v > f.x1 + 1e-9)
            break;
        double x = s_px(&f, v);
        char t[32];
        s_num(t, sizeof t, v, step);
        http_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#e5e7eb\"/><text x=\"%.1f\" y=\"%.1f\" "
                           "text-anchor=\"middle\">%s</text>", x, f.top, x, f.bottom, x,
                        f.bottom + 14, t);
    }
    http_buf_puts(b, "</g>");
    for (size_t i = 0; i < n; i++) {
        double y = f.top + row * (i + 0.5);
        const char *col = colors && colors[i] ? colors[i] : pages_svg_color(i);
        http_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"13\" "
                           "fill=\"#111827\">", f.left - 10, y + 4);
        http_buf_html(b, labels[i]);
        http_buf_puts(b, "</text>");
        if (isfinite(lo[i]) && isfinite(hi[i]))
            http_buf_printf(b, "<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"6\" "
                               "stroke-opacity=\"0.35\" stroke-linecap=\"round\"/>",
                            s_px(&f, lo[i]), y, s_px(&f, hi[i]), y, col);
        if (isfinite(value[i])) {
            http_buf_printf(b, "<circle class=\"estimate\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
                               "fill=\"%s\"/>", s_px(&f, value[i]), y, col);
            http_buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"#111827\">"
                               "%.2f", 462, y + 4, value[i]);
            if (isfinite(lo[i]) && isfinite(hi[i]))
                http_buf_printf(b, " [%.2f, %.2f]", lo[i], hi[i]);
            http_buf_puts(b, "</text>");
        } else {
            http_buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"#6b7280\">"
                               "not estimated</text>", 462, y + 4);
        }
    }
    http_buf_puts(b, "</svg>");
}
