/* sched.h - the scheduler's pure decisions: how many pairs a task gets and
 * which run a worker's REQUEST serves.
 *
 * Task size: about `target_seconds` of the worker's work. A game is
 * estimated at SCHED_PLIES_PER_GAME plies; with a node limit a ply costs
 * nodes / nps seconds of one thread, with a time control base/plies + inc per
 * side's move. A worker with `concurrency` threads plays that many games at
 * once. The size is at least the free slots (every thread busy), at least 1,
 * at most PROTO_PAIRS_MAX and at most max_pairs.
 *
 * Run choice: the runs that have pairs to hand out are served by priority
 * (higher first); among equal priorities, the run with the least work in
 * flight per unit of share (pairs under lease / weight) is chosen, so equal
 * runs share workers evenly and a run twice the weight gets twice the
 * workers. Ties go to the older run (the lower index).
 */
#ifndef CAPA_COORD_SCHED_H
#define CAPA_COORD_SCHED_H

#include <stddef.h>
#include <stdint.h>

#define SCHED_PLIES_PER_GAME 160
#define SCHED_NPS_FALLBACK 100000.0   /* when a worker reports nps 0 */

typedef struct {
    double nps;              /* worker's nodes per second per thread */
    int concurrency;         /* worker's game threads */
    int slots;               /* free slots the REQUEST names */
    int64_t nodes;           /* run's nodes per move (0 = time control) */
    int64_t tc_base_ms, tc_inc_ms;
    double target_seconds;   /* wanted task duration */
    int64_t max_pairs;       /* 0 = no limit besides PROTO_PAIRS_MAX */
} sched_size_in_t;

/* Estimated seconds one thread needs for one pair (two games). */
double sched_pair_seconds(int64_t nodes, int64_t tc_base_ms, int64_t tc_inc_ms, double nps);
/* Pairs for one task (1..PROTO_PAIRS_MAX). */
int64_t sched_task_pairs(const sched_size_in_t *in);

/* Time-control scaling, as fishtest does: a run's clock is meant for a
 * thread of reference_nps nodes per second, so a worker whose thread does
 * nps gets ms * reference_nps / nps and searches about as many nodes per
 * move as the reference would (contributors' machines differ by 2-3x).
 * reference_nps <= 0, or nps unknown (<= 0): ms unchanged. The result is at
 * least 1 when ms > 0, and at most max_ms. */
int64_t sched_scale_ms(int64_t ms, double nps, double reference_nps, int64_t max_ms);

typedef struct {
    int priority;
    double weight;           /* share among equal priorities (> 0; <= 0 counts as 1) */
    int64_t available;       /* pairs that could be handed out now */
    int64_t in_flight;       /* pairs under active lease */
} sched_run_t;

/* Index of the run to serve, or -1 if none has available pairs. */
int sched_pick_run(const sched_run_t *runs, size_t n);

#endif
