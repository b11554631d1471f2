/* timeman.h - how long one move may think, from the UCI limits.
 *
 * A soft limit (do not start another iteration after it) and a hard limit
 * (abort the iteration), both in milliseconds from the start of the search;
 * negative when there is no time limit. On a clock the search scales the
 * soft limit by how settled its result is (timeman_soft_scaled): more time
 * when the best move has just changed or the score has fallen, less when
 * the same move has been best for several iterations. */
#ifndef CAPA_ENGINE_TIMEMAN_H
#define CAPA_ENGINE_TIMEMAN_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

/* Milliseconds kept in reserve for process and pipe latency, unless the
 * caller knows better (the UCI loop learns the latency from the clocks). */
#define TIMEMAN_OVERHEAD_MS 30

typedef struct {
    int64_t soft_ms;
    int64_t hard_ms;
    bool fixed;         /* movetime: the soft limit is not scaled */
} timeman_t;

/* movetime_ms > 0 wins; else time_ms >= 0 (our clock) with inc_ms and
 * movestogo (0 = sudden death); else no limit. overhead_ms (<= 0: the
 * default) is kept back from the clock and from movetime. */
void timeman_init(timeman_t *tm, int64_t movetime_ms, int64_t time_ms, int64_t inc_ms,
                  int movestogo, int64_t overhead_ms);
/* The soft limit times scale (clamped to [TIMEMAN_SCALE_MIN,
 * TIMEMAN_SCALE_MAX]), never beyond the hard limit; the plain soft limit for
 * movetime; negative without a limit. */
#define TIMEMAN_SCALE_MIN 0.5
#define TIMEMAN_SCALE_MAX 2.0
int64_t timeman_soft_scaled(const timeman_t *tm, double scale);
/* The scale for a search whose best move has been the same for stable
 * completed iterations (0: it changed in the last one) and whose score fell
 * by drop centipawns in the last iteration (<= 0: it did not). */
double timeman_scale(int stable, int drop);
/* Monotonic milliseconds. */
int64_t timeman_now_ms(void);

#endif
