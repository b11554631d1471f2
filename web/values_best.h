/* values_best.h - which values run gives the current best estimate of a
 * variant and engine version (docs/methods.md, "The current best
 * estimate"): the order of candidate runs, pure and testable.
 *
 * A candidate is a values run that has not failed whose stored fit
 * determines at least one contrast. Among the candidates of one variant
 * and engine, the best is the one searched deepest: a fixed node count
 * before a clock, more nodes per move (clocks: longer base time, then larger
 * increment); then the one with the most pairs in its fit; then the newest
 * fit; then the higher run id.
 */
#ifndef CAPA_WEB_VALUES_BEST_H
#define CAPA_WEB_VALUES_BEST_H

#include <stdint.h>

/* The one-sentence rule, as /api/values and the page state it. */
#define VALUES_BEST_RULE                                                                   \
    "per variant and engine (the bench signature most of a run's pairs were played with), " \
    "among the values runs that have not failed, play the engine's own parameters (no "   \
    "params, params_side or params_other: a sensitivity run or a later round of an "      \
    "iteration is listed, not chosen) and whose stored fit "                               \
    "determines at least one contrast: the run at the most nodes per move (a "             \
    "fixed node count before a clock; clocks by base time, then increment), then the one " \
    "with the most pairs in its fit, then the newest fit"

typedef struct {
    int64_t run_id;
    int64_t nodes;                  /* per move; 0 = played on a clock */
    int64_t tc_base_ms, tc_inc_ms;  /* the clock when nodes is 0 */
    int64_t pairs_used;             /* pairs of the stored fit */
    int64_t computed_at_ms;         /* when the fit was made */
} values_candidate_t;

/* > 0 when x is the better estimate, < 0 when y is, 0 for the same run. */
int values_best_cmp(const values_candidate_t *x, const values_candidate_t *y);

#endif
