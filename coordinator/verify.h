/* verify.h - result verification by replay. Fixed-node games are
 * deterministic (same pair, start, settings and hash size give the same
 * games), so the coordinator hands a sample of freshly stored pairs to a
 * different worker as a one-pair "verify" task and compares the two results
 * game by game (result, white side, termination, plies, and moves when both
 * sent them).
 *
 * Who lies when two results differ? Each mismatch is a disagreement between
 * two workers. A worker is flagged once its games disagree with at least
 * VERIFY_QUORUM different workers that are not flagged themselves: one liar
 * verifying honest workers' pairs cannot get an honest worker flagged alone.
 *
 *   verify_t *v = verify_new(0.05, seed, is_flagged, ctx);   rate 0 = off
 *   verify_offer(v, run, pair_no, "w1", &pair_result);    after a commit
 *   verify_job_t job;
 *   if (verify_take(v, "w2", &job) == 0) ... send job.pair_no as task job.task_id
 *   verify_job_t *j = verify_find(v, task_id);   on its RESULT
 *   verify_judge(v, j, &replay, why, sizeof why, &guilty) ... then verify_forget
 *
 * Jobs live in memory only: a coordinator restart loses the pending sample
 * (a verify task then gets LEASE_UNKNOWN; nothing is stored from it). Not
 * thread-safe: the coordinator's loop owns it.
 */
#ifndef CAPA_VERIFY_H
#define CAPA_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define VERIFY_QUORUM 2
/* Verify task ids start here (far above the database's task ids, below 2^53). */
#define VERIFY_TASK_BASE (INT64_C(1) << 52)

typedef struct verify_s verify_t;

typedef struct {
    int64_t task_id;                  /* 0 = not handed out yet */
    int64_t run_id;
    int64_t pair_no;
    char worker_id[PROTO_ID_MAX];     /* who played it first */
    char verifier[PROTO_ID_MAX];      /* who replays it ("" until handed out) */
    proto_pair_result_t original;     /* owned copy (moves included) */
    int64_t handed_ms;                /* wall clock of the hand-out */
} verify_job_t;

typedef struct {
    uint64_t offered, sampled, handed, reproduced, mismatched, flagged, dropped;
} verify_stats_t;

/* Whether a worker is flagged. verify keeps no list of its own: it asks the
 * coordinator's (coord_worker_is_flagged, loaded from the store). */
typedef bool (*verify_flagged_fn)(void *ctx, const char *worker_id);

/* rate: share of stored pairs replayed, 0..1. is_flagged (ctx passed back)
 * says who is flagged; NULL = nobody. NULL on out of memory. The caller owns
 * the result (verify_destroy). */
verify_t *verify_new(double rate, uint64_t seed, verify_flagged_fn is_flagged, void *ctx);
void verify_destroy(verify_t **self_p);

/* A freshly stored pair: queued for a replay with probability rate. At most
 * 4096 jobs wait; beyond that the offer is dropped. 0 or CAPA_ENOMEM. */
int verify_offer(verify_t *self, int64_t run_id, int64_t pair_no, const char *worker_id,
                 const proto_pair_result_t *result);
/* Hands the oldest waiting job not played by worker_id to worker_id, unless
 * worker_id is flagged. 0 and *out filled (a copy; its original is borrowed,
 * valid until verify_forget), or CAPA_ENOTFOUND. */
int verify_take(verify_t *self, const char *worker_id, verify_job_t *out);
/* The handed-out job of a task, or NULL (borrowed). */
verify_job_t *verify_find(verify_t *self, int64_t task_id);
/* True if task_id is in the verify range (even if no longer known). */
bool verify_is_task(int64_t task_id);
/* Compares replay with the job's original. True if identical; else why
 * says what differs and the disagreement is recorded; *guilty (may be NULL)
 * gets the worker that now disagrees with VERIFY_QUORUM unflagged others
 * ("" if none), which the caller flags (and then calls verify_drop_worker). */
bool verify_judge(verify_t *self, const verify_job_t *job, const proto_pair_result_t *replay,
                  char *why, size_t whylen, char *guilty, size_t guiltylen);
/* Forgets a job (after its RESULT, or when its run is gone). */
void verify_forget(verify_t *self, int64_t task_id);
/* Puts jobs handed out longer than max_age_ms ago back in the queue. */
void verify_expire(verify_t *self, int64_t now_ms, int64_t max_age_ms);
/* A worker was just flagged: its pairs waiting for a replay are dropped
 * (they are excluded) and the stats count one more flagged worker. */
void verify_drop_worker(verify_t *self, const char *worker_id);
/* Two pair results are the same games (moves compared when both have them). */
bool verify_same(const proto_pair_result_t *a, const proto_pair_result_t *b, char *why,
                 size_t whylen);
void verify_stats(const verify_t *self, verify_stats_t *out);

#endif
