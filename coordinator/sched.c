/* sched.c - task sizing and run choice (see sched.h). */
#include "sched.h"

#include <math.h>

#include "protocol.h"

double sched_pair_seconds(int64_t nodes, int64_t tc_base_ms, int64_t tc_inc_ms, double nps)
{
    if (!(nps > 0) || !isfinite(nps))
        nps = SCHED_NPS_FALLBACK;
    double game;
    if (nodes > 0) {
        game = SCHED_PLIES_PER_GAME * (double) nodes / nps;
    } else {
        /* Each side spends at most its base plus one increment per move. */
        double moves_per_side = SCHED_PLIES_PER_GAME / 2.0;
        game = 2.0 * ((double) tc_base_ms + moves_per_side * (double) tc_inc_ms) / 1000.0;
    }
    if (!(game > 0.001))
        game = 0.001;
    return 2.0 * game;
}

int64_t sched_scale_ms(int64_t ms, double nps, double reference_nps, int64_t max_ms)
{
    if (ms <= 0 || !(reference_nps > 0) || !(nps > 0) || !isfinite(nps) || !isfinite(reference_nps))
        return ms;
    double scaled = round((double) ms * reference_nps / nps);
    if (scaled < 1)
        return 1;
    return scaled > (double) max_ms ? max_ms : (int64_t) scaled;
}

int64_t sched_task_pairs(const sched_size_in_t *in)
{
    double pair_s = sched_pair_seconds(in->nodes, in->tc_base_ms, in->tc_inc_ms, in->nps);
    int threads = in->concurrency > 0 ? in->concurrency : 1;
    /* Two games of a pair may run in parallel, so a thread finishes a pair
     * in pair_s on average whatever the split. */
    double want = in->target_seconds > 0 ? in->target_seconds * threads / pair_s : 1.0;
    int64_t n = want >= (double) PROTO_PAIRS_MAX ? PROTO_PAIRS_MAX : (int64_t) ceil(want - 1e-9);
    int64_t floor_n = in->slots > 0 ? in->slots : 1;
    if (n < floor_n)
        n = floor_n;
    if (n > PROTO_PAIRS_MAX)
        n = PROTO_PAIRS_MAX;
    if (in->max_pairs > 0 && n > in->max_pairs)
        n = in->max_pairs;
    return n < 1 ? 1 : n;
}

int sched_pick_run(const sched_run_t *runs, size_t n)
{
    int best = -1;
    double best_load = 0;
    for (size_t i = 0; i < n; i++) {
        const sched_run_t *r = &runs[i];
        if (r->available <= 0)
            continue;
        double w = r->weight > 0 ? r->weight : 1.0;
        double load = (double) r->in_flight / w;
        if (best < 0 || r->priority > runs[best].priority ||
            (r->priority == runs[best].priority && load < best_load)) {
            best = (int) i;
            best_load = load;
        }
    }
    return best;
}
