/* timefmt.c - see timefmt.h. */
#include <stdio.h>
#include <time.h>

#include "timefmt.h"

void timefmt_utc_minutes(int64_t ms, char *buf, size_t cap)
{
    if (ms <= 0) {
        snprintf(buf, cap, "-");
        return;
    }
    time_t t = (time_t) (ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M", &tm);
}
