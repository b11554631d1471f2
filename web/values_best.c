/* values_best.c - the order of the candidate runs for the current best
 * piece values (see values_best.h). */
#include "values_best.h"

static int s_sign(int64_t a, int64_t b)
{
    return a > b ? 1 : a < b ? -1 : 0;
}

int values_best_cmp(const values_candidate_t *x, const values_candidate_t *y)
{
    /* deepest search first: a fixed node count before a clock */
    int c = s_sign(x->nodes > 0, y->nodes > 0);
    if (!c)
        c = s_sign(x->nodes, y->nodes);
    if (!c)
        c = s_sign(x->tc_base_ms, y->tc_base_ms);
    if (!c)
        c = s_sign(x->tc_inc_ms, y->tc_inc_ms);
    /* then the most data, then the newest fit, then the newer run */
    if (!c)
        c = s_sign(x->pairs_used, y->pairs_used);
    if (!c)
        c = s_sign(x->computed_at_ms, y->computed_at_ms);
    if (!c)
        c = s_sign(x->run_id, y->run_id);
    return c;
}
