/* test_worker_batch.c - RESULT batching and the reconnect backoff. */
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "batch.h"
#include "check.h"
#include "err.h"
#include "protocol.h"

/* A finished pair: A wins as White, the other game a draw (B scores 1/4). */
static proto_pair_result_t s_pair(int64_t n, size_t moves_len)
{
    proto_pair_result_t p = { .pair = n };
    p.games[0] = (proto_game_result_t){ .result = PROTO_RES_WHITE, .white = PROTO_SIDE_A,
                                        .end = PROTO_END_CHECKMATE, .plies = 77 };
    p.games[1] = (proto_game_result_t){ .result = PROTO_RES_DRAW, .white = PROTO_SIDE_B,
                                        .end = PROTO_END_REPETITION, .plies = 120 };
    if (moves_len) {
        char *m = malloc(moves_len + 1);
        for (size_t i = 0; i < moves_len; i++)
            m[i] = (i % 5 == 4) ? ' ' : "e2e4"[i % 5];
        m[moves_len] = '\0';
        if (m[moves_len - 1] == ' ')
            m[moves_len - 1] = 'e';
        p.games[0].moves = m;
    }
    p.score = proto_pair_score(&p);
    return p;
}

static void s_decode(const batch_frame_t *f, proto_result_t *r)
{
    proto_code_t code;
    char err[256];
    CHECK_EQ_INT(proto_decode_result(f->frame, f->len, r, &code, err, sizeof err), 0);
}

static void a_batch_is_due_after_the_policy_count_or_age(void)
{
    batch_policy_t pol = { .pairs = 3, .ms = 1000 };
    batch_t b;
    batch_init(&b, 812, 9051, 10, 0);
    CHECK(!batch_due(&b, &pol, 0));
    CHECK_EQ_INT(batch_deadline(&b, &pol), INT64_MAX);
    for (int i = 0; i < 2; i++) {
        proto_pair_result_t p = s_pair(120 + i, 0);
        CHECK_EQ_INT(batch_add(&b, &p, 1.5, 100 + i), 0);
    }
    CHECK(!batch_due(&b, &pol, 500));
    CHECK_EQ_INT(batch_deadline(&b, &pol), 1100);
    CHECK(batch_due(&b, &pol, 1100));
    proto_pair_result_t p = s_pair(122, 0);
    CHECK_EQ_INT(batch_add(&b, &p, 1.0, 200), 0);
    CHECK(batch_due(&b, &pol, 200));
    batch_frames_t frames = { 0 };
    char err[256];
    CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);
    CHECK_EQ_INT(frames.count, 1);
    CHECK_EQ_INT(frames.items[0].batch, 0);
    CHECK(!frames.items[0].last);
    proto_result_t r;
    s_decode(&frames.items[0], &r);
    CHECK_EQ_INT(r.task_id, 812);
    CHECK_EQ_INT(r.lease_id, 9051);
    CHECK_EQ_INT(r.pair_count, 3);
    CHECK_EQ_INT(r.pairs[2].pair, 122);
    CHECK_NEAR(r.cpu_seconds, 4.0, 1e-9);
    CHECK_NEAR(r.pairs[0].score, 0.25, 1e-12);
    CHECK(!r.last);
    proto_result_free(&r);
    batch_frames_free(&frames);
    CHECK_EQ_INT(batch_pending(&b), 0);
    CHECK(!batch_due(&b, &pol, 100000));
    batch_free(&b);
}

static void the_last_pair_of_a_task_makes_a_last_batch_at_once(void)
{
    batch_policy_t pol = { .pairs = 8, .ms = 60000 };
    batch_t b;
    batch_init(&b, 1, 2, 3, 5);
    char err[256];
    batch_frames_t frames = { 0 };
    for (int i = 0; i < 3; i++) {
        proto_pair_result_t p = s_pair(i, 0);
        CHECK_EQ_INT(batch_add(&b, &p, 0.5, 0), 0);
        if (i == 1) {
            CHECK(!batch_due(&b, &pol, 10));
            CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);  /* e.g. at shutdown */
        }
    }
    CHECK(batch_due(&b, &pol, 10));
    proto_pair_result_t extra = s_pair(9, 0);
    CHECK_EQ_INT(batch_add(&b, &extra, 0.5, 0), CAPA_ERANGE);
    CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);
    CHECK_EQ_INT(frames.count, 2);
    CHECK_EQ_INT(frames.items[0].batch, 5);
    CHECK(!frames.items[0].last);
    CHECK_EQ_INT(frames.items[1].batch, 6);
    CHECK(frames.items[1].last);
    CHECK(batch_complete(&b));
    proto_result_t r;
    s_decode(&frames.items[1], &r);
    CHECK(r.last);
    CHECK_EQ_INT(r.batch, 6);
    CHECK_EQ_INT(r.pair_count, 1);
    proto_result_free(&r);
    batch_frames_free(&frames);
    batch_free(&b);
}

static void a_batch_too_big_for_one_frame_is_split_in_numbered_frames(void)
{
    batch_policy_t pol = { .pairs = 4, .ms = 60000 };
    batch_t b;
    batch_init(&b, 3, 4, 4, 0);
    b.frame_limit = 6000;
    for (int i = 0; i < 4; i++) {
        proto_pair_result_t p = s_pair(i, 2000);
        CHECK_EQ_INT(batch_add(&b, &p, 1.0, 0), 0);
    }
    CHECK(batch_due(&b, &pol, 0));
    batch_frames_t frames = { 0 };
    char err[256];
    CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);
    CHECK(frames.count >= 2);
    double cpu = 0;
    int64_t want_pair = 0;
    for (size_t i = 0; i < frames.count; i++) {
        CHECK(frames.items[i].len <= 6000);
        CHECK_EQ_INT(frames.items[i].batch, (int64_t) i);
        CHECK_EQ_INT(frames.items[i].last, i + 1 == frames.count);
        proto_result_t r;
        s_decode(&frames.items[i], &r);
        for (size_t k = 0; k < r.pair_count; k++) {
            CHECK_EQ_INT(r.pairs[k].pair, want_pair++);
            CHECK(r.pairs[k].games[0].moves != NULL);
        }
        cpu += r.cpu_seconds;
        proto_result_free(&r);
    }
    CHECK_EQ_INT(want_pair, 4);
    CHECK_NEAR(cpu, 4.0, 1e-9);
    batch_frames_free(&frames);
    batch_free(&b);
}

static void a_single_pair_too_big_is_sent_without_moves(void)
{
    batch_t b;
    batch_init(&b, 3, 4, 1, 0);
    b.frame_limit = 1000;
    proto_pair_result_t p = s_pair(7, 3000);
    CHECK_EQ_INT(batch_add(&b, &p, 1.0, 0), 0);
    batch_frames_t frames = { 0 };
    char err[256];
    CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);
    CHECK_EQ_INT(frames.count, 1);
    proto_result_t r;
    s_decode(&frames.items[0], &r);
    CHECK(r.pairs[0].games[0].moves == NULL);
    CHECK_EQ_INT(r.pairs[0].games[0].plies, 77);
    CHECK(r.last);
    proto_result_free(&r);
    batch_frames_free(&frames);
    batch_free(&b);
}

static void a_frame_refused_as_too_big_splits_into_two_new_batches(void)
{
    batch_t b;
    batch_init(&b, 11, 12, 5, 0);
    for (int i = 0; i < 5; i++) {
        proto_pair_result_t p = s_pair(100 + i, 50);
        CHECK_EQ_INT(batch_add(&b, &p, 2.0, 0), 0);
    }
    batch_frames_t frames = { 0 };
    char err[256];
    CHECK_EQ_INT(batch_take(&b, &frames, err, sizeof err), 0);
    CHECK_EQ_INT(frames.count, 1);
    int64_t next = b.next_batch;
    CHECK_EQ_INT(next, 1);
    batch_frames_t halves = { 0 };
    CHECK_EQ_INT(batch_split(frames.items[0].frame, frames.items[0].len, &next, &halves, err,
                             sizeof err), 0);
    CHECK_EQ_INT(halves.count, 2);
    CHECK_EQ_INT(next, 3);
    proto_result_t r0, r1;
    s_decode(&halves.items[0], &r0);
    s_decode(&halves.items[1], &r1);
    CHECK_EQ_INT(r0.batch, 1);
    CHECK_EQ_INT(r1.batch, 2);
    CHECK_EQ_INT(r0.pair_count + r1.pair_count, 5);
    CHECK(!r0.last);
    CHECK(r1.last);
    CHECK_NEAR(r0.cpu_seconds + r1.cpu_seconds, 10.0, 1e-9);
    proto_result_free(&r0);
    proto_result_free(&r1);
    /* a one-pair frame: the same pair again, without moves, as a new batch */
    batch_frames_t one = { 0 };
    batch_t b1;
    batch_init(&b1, 11, 12, 1, 0);
    proto_pair_result_t p = s_pair(5, 50);
    CHECK_EQ_INT(batch_add(&b1, &p, 2.0, 0), 0);
    CHECK_EQ_INT(batch_take(&b1, &one, err, sizeof err), 0);
    int64_t n1 = 1;
    batch_frames_t stripped = { 0 };
    CHECK_EQ_INT(batch_split(one.items[0].frame, one.items[0].len, &n1, &stripped, err,
                             sizeof err), 0);
    CHECK_EQ_INT(stripped.count, 1);
    CHECK_EQ_INT(stripped.items[0].batch, 1);
    CHECK(stripped.items[0].len < one.items[0].len);
    s_decode(&stripped.items[0], &r0);
    CHECK(r0.pairs[0].games[0].moves == NULL);
    proto_result_free(&r0);
    CHECK_EQ_INT(batch_split("{\"v\":1}", 7, &n1, &stripped, err, sizeof err) < 0, 1);
    batch_frames_free(&stripped);
    batch_frames_free(&one);
    batch_free(&b1);
    batch_frames_free(&halves);
    batch_frames_free(&frames);
    batch_free(&b);
}

static void backoff_doubles_from_one_second_to_thirty_two_and_resets(void)
{
    backoff_t b;
    backoff_init(&b, BACKOFF_FIRST_MS, BACKOFF_MAX_MS);
    const int want[] = { 1000, 2000, 4000, 8000, 16000, 32000, 32000, 32000 };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_EQ_INT(backoff_next(&b), want[i]);
    backoff_reset(&b);
    CHECK_EQ_INT(backoff_peek(&b), 1000);
    CHECK_EQ_INT(backoff_next(&b), 1000);
    CHECK_EQ_INT(backoff_next(&b), 2000);
    backoff_init(&b, 300, 1000);
    CHECK_EQ_INT(backoff_next(&b), 300);
    CHECK_EQ_INT(backoff_next(&b), 600);
    CHECK_EQ_INT(backoff_next(&b), 1000);
    backoff_init(&b, 0, -5);
    CHECK_EQ_INT(backoff_next(&b), 1);
    CHECK_EQ_INT(backoff_next(&b), 1);
}

static const check_case_t CASES[] = {
    CASE(a_batch_is_due_after_the_policy_count_or_age),
    CASE(the_last_pair_of_a_task_makes_a_last_batch_at_once),
    CASE(a_batch_too_big_for_one_frame_is_split_in_numbered_frames),
    CASE(a_single_pair_too_big_is_sent_without_moves),
    CASE(a_frame_refused_as_too_big_splits_into_two_new_batches),
    CASE(backoff_doubles_from_one_second_to_thirty_two_and_resets),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
