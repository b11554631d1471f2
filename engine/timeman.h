/* timeman.h - how long one move may think, from the UCI limits.
 *
 * A soft limit (do not start another iteration after it) and a hard limit
 * (abort the iteration), both in milliseconds from the start of the search;
 * negative when there is no time limit. */
#ifndef CAPA_ENGINE_TIMEMAN_H
#define CAPA_ENGINE_TIMEMAN_H

#include <stdint.h>

#include "types.h"

/* Milliseconds kept in reserve for process and pipe latency. */
#define TIMEMAN_OVERHEAD_MS 30

typedef struct {
    int64_t soft_ms;
    int64_t hard_ms;
} timeman_t;

/* movetime_ms > 0 wins; else time_ms >= 0 (our clock) with inc_ms and
 * movestogo (0 = sudden death); else no limit. */
void timeman_init(timeman_t *tm, int64_t movetime_ms, int64_t time_ms, int64_t inc_ms,
                  int movestogo);
/* Monotonic milliseconds. */
int64_t timeman_now_ms(void);

#endif
