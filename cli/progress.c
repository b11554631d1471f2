/* progress.c - text gauges (see progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROGRESS_WIDTH_MAX 200

void progress_bar(char *buf, size_t cap, int width, double done, double total)
{
    if (cap == 0)
        return;
    if (width < 1)
        width = 1;
    if (width > PROGRESS_WIDTH_MAX)
        width = PROGRESS_WIDTH_MAX;
    double f = total > 0 && isfinite(done) ? done / total : 0;
    if (!(f >= 0))
        f = 0;
    if (f > 1)
        f = 1;
    int full = (int) floor(f * width + 1e-9);
    char bar[PROGRESS_WIDTH_MAX + 1];
    memset(bar, '#', (size_t) full);
    memset(bar + full, '.', (size_t) (width - full));
    bar[width] = 0;
    snprintf(buf, cap, "[%s] %5.1f%%", bar, f * 100);
}

void progress_llr(char *buf, size_t cap, int width, double llr, double lower, double upper)
{
    if (cap == 0)
        return;
    if (width < 3)
        width = 3;
    if (width > PROGRESS_WIDTH_MAX)
        width = PROGRESS_WIDTH_MAX;
    char bar[PROGRESS_WIDTH_MAX + 1];
    memset(bar, '-', (size_t) width);
    bar[width] = 0;
    if (upper > lower && isfinite(llr)) {
        double f = (llr - lower) / (upper - lower);
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        int at = (int) lround(f * (width - 1));
        int zero = (int) lround(-lower / (upper - lower) * (width - 1));
        if (zero > 0 && zero < width - 1)
            bar[zero] = ':';
        bar[at] = '*';
    }
    snprintf(buf, cap, "H0 |%s| H1", bar);
}
