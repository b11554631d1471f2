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
                  int movestogo)
{
    tm->soft_ms = tm->hard_ms = -1;
    if (movetime_ms > 0) {
        int64_t t = movetime_ms - TIMEMAN_OVERHEAD_MS;
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
    int64_t left = time_ms - TIMEMAN_OVERHEAD_MS;
    if (left < 1)
        left = 1;
    int64_t base = left / mtg + inc_ms * 3 / 4;
    int64_t hard = base * 4;
    int64_t cap = mtg == 1 ? left * 3 / 4 : left / 4;
    if (hard > cap)
        hard = cap;
    if (base > hard)
        base = hard;
    tm->soft_ms = base * 6 / 10 > 0 ? base * 6 / 10 : 1;
    tm->hard_ms = hard > 0 ? hard : 1;
}
