/* timeman.c - time allocation per move. */
#include "timeman.h"

#include <time.h>

int64_t timeman_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void timeman_init(timeman_t *tm, int64_t movetime_ms, int64_t time_ms, int64_t inc_ms,
                  int movestogo, int64_t overhead_ms)
{
    if (overhead_ms <= 0)
        overhead_ms = TIMEMAN_OVERHEAD_MS;
    tm->soft_ms = tm->hard_ms = -1;
    tm->fixed = movetime_ms > 0;
    if (movetime_ms > 0) {
        int64_t t = movetime_ms - overhead_ms;
        if (t < movetime_ms / 2)
            t = movetime_ms / 2;
        tm->soft_ms = tm->hard_ms = t > 0 ? t : 1;
        return;
    }
    if (time_ms < 0)
        return;
    if (inc_ms < 0)
        inc_ms = 0;
    int mtg = movestogo > 0 ? (movestogo < 40 ? movestogo : 40) : 35;
    int64_t left = time_ms - overhead_ms;
    if (left < 1)
        left = 1;
    int64_t base = left / mtg + inc_ms * 3 / 4;
    int64_t hard = base * 4;
    int64_t cap = mtg == 1 ? left * 3 / 4 : left / 4;
    if (hard > cap)
        hard = cap;
    if (base > hard)
        base = hard;
    tm->soft_ms = base * 9 / 10 > 0 ? base * 9 / 10 : 1;
    tm->hard_ms = hard > 0 ? hard : 1;
}

int64_t timeman_soft_scaled(const timeman_t *tm, double scale)
{
    if (tm->soft_ms < 0 || tm->fixed)
        return tm->soft_ms;
    if (!(scale >= TIMEMAN_SCALE_MIN))
        scale = TIMEMAN_SCALE_MIN;
    if (scale > TIMEMAN_SCALE_MAX)
        scale = TIMEMAN_SCALE_MAX;
    int64_t t = (int64_t) ((double) tm->soft_ms * scale);
    if (t > tm->hard_ms)
        t = tm->hard_ms;
    return t > 0 ? t : 1;
}

double timeman_scale(int stable, int drop)
{
    /* a new best move: its score is the least tested; one that has held for
     * four iterations rarely changes in the next */
    static const double by_stable[] = { 1.4, 1.1, 0.95, 0.85, 0.75 };
    int n = (int) (sizeof by_stable / sizeof by_stable[0]);
    double scale = by_stable[stable < 0 ? 0 : stable >= n ? n - 1 : stable];
    if (drop > 60)
        scale *= 1.4;
    else if (drop > 20)
        scale *= 1.2;
    return scale;
}
