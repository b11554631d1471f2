/* batch.c - a task's finished pairs into RESULT frames below the size limit. */
#include "batch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

void batch_init(batch_t *b, int64_t task_id, int64_t lease_id, size_t pairs_total,
                int64_t first_batch)
{
    memset(b, 0, sizeof *b);
    b->task_id = task_id;
    b->lease_id = lease_id;
    b->pairs_total = pairs_total;
    b->next_batch = first_batch;
    b->frame_limit = BATCH_FRAME_LIMIT;
}

static void s_pair_free(proto_pair_result_t *p)
{
    for (int g = 0; g < 2; g++) {
        free(p->games[g].moves);
        p->games[g].moves = NULL;
    }
}

void batch_free(batch_t *b)
{
    for (size_t i = 0; i < b->pending_count; i++)
        s_pair_free(&b->pending[i]);
    free(b->pending);
    b->pending = NULL;
    b->pending_count = b->pending_cap = 0;
}

int batch_add(batch_t *b, proto_pair_result_t *pair, double cpu_seconds, int64_t now_ms)
{
    if (b->pairs_sent + b->pending_count >= b->pairs_total)
        return CAPA_ERANGE;
    if (b->pending_count == b->pending_cap) {
        size_t cap = b->pending_cap ? b->pending_cap * 2 : 8;
        proto_pair_result_t *p = realloc(b->pending, cap * sizeof *p);
        if (!p)
            return CAPA_ENOMEM;
        b->pending = p;
        b->pending_cap = cap;
    }
    if (b->pending_count == 0)
        b->first_pending_ms = now_ms;
    b->pending[b->pending_count++] = *pair;
    pair->games[0].moves = pair->games[1].moves = NULL;
    b->pending_cpu += cpu_seconds > 0 ? cpu_seconds : 0;
    return 0;
}

size_t batch_pending(const batch_t *b) { return b->pending_count; }

bool batch_complete(const batch_t *b)
{
    return b->pending_count == 0 && b->pairs_sent == b->pairs_total;
}

bool batch_due(const batch_t *b, const batch_policy_t *policy, int64_t now_ms)
{
    if (b->pending_count == 0)
        return false;
    if (b->pairs_sent + b->pending_count == b->pairs_total)
        return true;
    if ((int64_t) b->pending_count >= (policy->pairs < 1 ? 1 : policy->pairs))
        return true;
    return now_ms >= batch_deadline(b, policy);
}

int64_t batch_deadline(const batch_t *b, const batch_policy_t *policy)
{
    if (b->pending_count == 0)
        return INT64_MAX;
    return b->first_pending_ms + policy->ms;
}

void batch_frames_free(batch_frames_t *frames)
{
    for (size_t i = 0; i < frames->count; i++)
        free(frames->items[i].frame);
    free(frames->items);
    frames->items = NULL;
    frames->count = 0;
}

static int s_frames_push(batch_frames_t *out, const batch_frame_t *f)
{
    batch_frame_t *items = realloc(out->items, (out->count + 1) * sizeof *items);
    if (!items)
        return CAPA_ENOMEM;
    out->items = items;
    out->items[out->count++] = *f;
    return 0;
}

/* Encodes pairs[0..n) as frames, halving while a frame is too big; a lone
 * pair that is still too big loses its moves (in a copy). */
static int s_encode(int64_t task_id, int64_t lease_id, proto_pair_result_t *pairs, size_t n,
                    double cpu, bool last, int64_t *next_batch, size_t limit,
                    batch_frames_t *out, char *err, size_t errlen)
{
    proto_result_t r = { .task_id = task_id, .lease_id = lease_id, .batch = *next_batch,
                         .pairs = pairs, .pair_count = n, .cpu_seconds = cpu, .last = last };
    char *frame = NULL;
    size_t len = 0;
    int rc = proto_encode_result(&r, &frame, &len, err, errlen);
    if (rc == 0 && len <= limit) {
        batch_frame_t f = { .task_id = task_id, .batch = *next_batch, .last = last, .pairs = n,
                            .frame = frame, .len = len };
        if (s_frames_push(out, &f) < 0) {
            free(frame);
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        }
        (*next_batch)++;
        return 0;
    }
    free(frame);
    if (rc == CAPA_ENOMEM)
        return rc;
    if (n > 1) {
        size_t h = n / 2;
        double cpu1 = cpu * (double) h / (double) n;
        rc = s_encode(task_id, lease_id, pairs, h, cpu1, false, next_batch, limit, out, err,
                      errlen);
        if (rc == 0)
            rc = s_encode(task_id, lease_id, pairs + h, n - h, cpu - cpu1, last, next_batch,
                          limit, out, err, errlen);
        return rc;
    }
    if (pairs[0].games[0].moves || pairs[0].games[1].moves) {
        proto_pair_result_t bare = pairs[0];
        bare.games[0].moves = bare.games[1].moves = NULL;
        return s_encode(task_id, lease_id, &bare, 1, cpu, last, next_batch, limit, out, err,
                        errlen);
    }
    if (rc == 0)
        return capa_fail(err, errlen, CAPA_ERANGE,
                         "one pair without moves is %zu bytes, above the %zu-byte limit", len,
                         limit);
    return rc;
}

int batch_take(batch_t *b, batch_frames_t *out, char *err, size_t errlen)
{
    if (b->pending_count == 0)
        return 0;
    bool last = b->pairs_sent + b->pending_count == b->pairs_total;
    int64_t next = b->next_batch;
    batch_frames_t made = { 0 };
    int rc = s_encode(b->task_id, b->lease_id, b->pending, b->pending_count, b->pending_cpu, last,
                      &next, b->frame_limit, &made, err, errlen);
    for (size_t i = 0; rc == 0 && i < made.count; i++) {
        rc = s_frames_push(out, &made.items[i]);
        if (rc == 0)
            made.items[i].frame = NULL;
        else
            capa_fail(err, errlen, rc, "out of memory");
    }
    batch_frames_free(&made);
    if (rc < 0)
        return rc;
    b->next_batch = next;
    b->pairs_sent += b->pending_count;
    for (size_t i = 0; i < b->pending_count; i++)
        s_pair_free(&b->pending[i]);
    b->pending_count = 0;
    b->pending_cpu = 0;
    return 0;
}

int batch_split(const char *frame, size_t len, int64_t *next_batch, batch_frames_t *out,
                char *err, size_t errlen)
{
    proto_result_t r;
    proto_code_t code;
    int rc = proto_decode_result(frame, len, &r, &code, err, errlen);
    if (rc < 0)
        return rc;
    batch_frames_t made = { 0 };
    int64_t next = *next_batch;
    size_t limit = len > 2 ? len - 1 : 1;  /* every new frame must be smaller */
    if (r.pair_count > 1) {
        size_t h = r.pair_count / 2;
        double cpu1 = r.cpu_seconds * (double) h / (double) r.pair_count;
        rc = s_encode(r.task_id, r.lease_id, r.pairs, h, cpu1, false, &next, limit, &made, err,
                      errlen);
        if (rc == 0)
            rc = s_encode(r.task_id, r.lease_id, r.pairs + h, r.pair_count - h,
                          r.cpu_seconds - cpu1, r.last, &next, limit, &made, err, errlen);
    } else {
        proto_pair_result_t bare = r.pairs[0];
        bare.games[0].moves = bare.games[1].moves = NULL;
        rc = s_encode(r.task_id, r.lease_id, &bare, 1, r.cpu_seconds, r.last, &next,
                      PROTO_FRAME_MAX, &made, err, errlen);
    }
    proto_result_free(&r);
    for (size_t i = 0; rc == 0 && i < made.count; i++) {
        rc = s_frames_push(out, &made.items[i]);
        if (rc == 0)
            made.items[i].frame = NULL;
        else
            capa_fail(err, errlen, rc, "out of memory");
    }
    batch_frames_free(&made);
    if (rc == 0)
        *next_batch = next;
    return rc;
}
