/* batch.h - groups a task's finished pairs into RESULT frames.
 *
 * A batch_t collects the pairs of one task as they finish and says when a
 * RESULT is due: every `pairs` finished pairs, when the oldest unsent pair
 * has waited `ms`, or when the task's last pair is done. batch_take encodes
 * the waiting pairs into one or more frames below the frame limit, each
 * with the next batch number (a frame that would be too big is split in
 * halves; a single pair that is still too big is sent without its moves).
 * The last frame of a complete task carries last = true.
 *
 *   batch_t b; batch_init(&b, task_id, lease_id, pair_count, 0);
 *   batch_add(&b, &pair, cpu, now_ms);               takes pair.games[i].moves
 *   if (batch_due(&b, &policy, now_ms)) batch_take(&b, false, &frames, err, sizeof err);
 *   ... spool and send frames.items[i] ... batch_frames_free(&frames);
 *   batch_free(&b);
 *
 * batch_split splits a frame the coordinator refused as TOO_BIG.
 */
#ifndef CAPA_WORKER_BATCH_H
#define CAPA_WORKER_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

/* Frames are kept a little below PROTO_FRAME_MAX. */
#define BATCH_FRAME_LIMIT (PROTO_FRAME_MAX - 1024)

typedef struct {
    int pairs;          /* send after this many finished pairs (>= 1) */
    int64_t ms;         /* ... or when the oldest unsent pair is this old */
} batch_policy_t;

typedef struct {
    int64_t task_id;
    int64_t lease_id;
    size_t pairs_total;         /* pairs in the task */
    size_t pairs_sent;          /* pairs already put into frames */
    int64_t next_batch;         /* the number of the next frame */
    proto_pair_result_t *pending;  /* owned, with the games' moves */
    size_t pending_count, pending_cap;
    double pending_cpu;         /* CPU seconds of the pending pairs */
    int64_t first_pending_ms;   /* when the oldest pending pair finished */
    size_t frame_limit;         /* BATCH_FRAME_LIMIT unless a test lowers it */
} batch_t;

typedef struct {
    int64_t task_id;
    int64_t batch;
    bool last;
    size_t pairs;
    char *frame;        /* owned (malloc) */
    size_t len;
} batch_frame_t;

typedef struct {
    batch_frame_t *items;   /* owned */
    size_t count;
} batch_frames_t;

void batch_init(batch_t *b, int64_t task_id, int64_t lease_id, size_t pairs_total,
                int64_t first_batch);
void batch_free(batch_t *b);

/* Adds a finished pair; the batch takes ownership of the games' moves
 * strings (set to NULL in *pair). 0 or CAPA_ENOMEM / CAPA_ERANGE (more
 * pairs than the task has). */
int batch_add(batch_t *b, proto_pair_result_t *pair, double cpu_seconds, int64_t now_ms);

/* Pairs waiting to be sent. */
size_t batch_pending(const batch_t *b);
/* Whether every pair of the task has been put into frames. */
bool batch_complete(const batch_t *b);
/* Whether a RESULT should be sent now. */
bool batch_due(const batch_t *b, const batch_policy_t *policy, int64_t now_ms);
/* When it will be due by age (INT64_MAX when nothing waits). */
int64_t batch_deadline(const batch_t *b, const batch_policy_t *policy);

/* Encodes all pending pairs into frames (appended to *out, which starts
 * zeroed). last is set on the final frame when the task is then complete.
 * On error nothing is taken. */
int batch_take(batch_t *b, batch_frames_t *out, char *err, size_t errlen);

/* Splits a RESULT frame in two (new batch numbers from *next_batch, which
 * advances; `last` stays on the second half). A one-pair frame is
 * re-encoded without moves instead, also under a new batch number (the
 * caller spools the new frames before it removes the old one). */
int batch_split(const char *frame, size_t len, int64_t *next_batch, batch_frames_t *out,
                char *err, size_t errlen);

void batch_frames_free(batch_frames_t *frames);

#endif
