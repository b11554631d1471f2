/* Unit tests for the coordinator's pure parts: the pair pool (ranges), task
 * sizing, run choice and run status transitions. */
#include "check.h"
#include "err.h"
#include "pool.h"
#include "protocol.h"
#include "runstate.h"
#include "sched.h"

static void s_expect(const pool_t *p, const int64_t *lohi, size_t n)
{
    CHECK_EQ_INT(pool_range_count(p), n);
    for (size_t i = 0; i < n; i++) {
        pool_range_t r = pool_range(p, i);
        CHECK_EQ_INT(r.lo, lohi[2 * i]);
        CHECK_EQ_INT(r.hi, lohi[2 * i + 1]);
    }
}

static void pool_add_merges_touching_and_overlapping_ranges(void)
{
    pool_t *p = pool_new();
    CHECK(pool_add(p, 10, 19) == 0);
    CHECK(pool_add(p, 30, 39) == 0);
    CHECK(pool_add(p, 0, 4) == 0);
    s_expect(p, (int64_t[]) { 0, 4, 10, 19, 30, 39 }, 3);
    CHECK(pool_add(p, 20, 29) == 0);   /* touches both neighbours */
    s_expect(p, (int64_t[]) { 0, 4, 10, 39 }, 2);
    CHECK(pool_add(p, 3, 12) == 0);    /* overlaps both */
    s_expect(p, (int64_t[]) { 0, 39 }, 1);
    CHECK_EQ_INT(pool_size(p), 40);
    CHECK_EQ_INT(pool_add(p, 5, 4), CAPA_EINVAL);
    CHECK_EQ_INT(pool_add(p, -1, 4), CAPA_EINVAL);
    pool_destroy(&p);
    CHECK(p == NULL);
    pool_destroy(&p);
}

static void pool_remove_splits_and_trims_ranges(void)
{
    pool_t *p = pool_new();
    CHECK(pool_add(p, 0, 99) == 0);
    CHECK(pool_remove(p, 10, 19) == 0);
    s_expect(p, (int64_t[]) { 0, 9, 20, 99 }, 2);
    CHECK(pool_remove(p, 5, 25) == 0);
    s_expect(p, (int64_t[]) { 0, 4, 26, 99 }, 2);
    CHECK(pool_remove(p, 0, 4) == 0);
    s_expect(p, (int64_t[]) { 26, 99 }, 1);
    CHECK(pool_remove(p, 200, 300) == 0);   /* nothing there */
    CHECK(pool_remove(p, 99, 99) == 0);
    s_expect(p, (int64_t[]) { 26, 98 }, 1);
    CHECK(!pool_contains(p, 25));
    CHECK(pool_contains(p, 26));
    CHECK(pool_contains(p, 98));
    CHECK(!pool_contains(p, 99));
    pool_destroy(&p);
}

static void pool_take_hands_out_the_lowest_contiguous_range_first(void)
{
    pool_t *p = pool_new();
    CHECK(pool_add(p, 100, 999) == 0);
    pool_range_t r;
    CHECK(pool_take(p, 50, &r) == 0);
    CHECK_EQ_INT(r.lo, 100);
    CHECK_EQ_INT(r.hi, 149);
    /* Pairs 120..124 come back (a lease expired): they go out next. */
    CHECK(pool_add(p, 120, 124) == 0);
    CHECK(pool_take(p, 50, &r) == 0);
    CHECK_EQ_INT(r.lo, 120);
    CHECK_EQ_INT(r.hi, 124);
    CHECK(pool_take(p, 50, &r) == 0);
    CHECK_EQ_INT(r.lo, 150);
    CHECK_EQ_INT(r.hi, 199);
    CHECK_EQ_INT(pool_size(p), 800);
    pool_clear(p);
    CHECK_EQ_INT(pool_take(p, 5, &r), CAPA_ENOTFOUND);
    pool_destroy(&p);
}

static void pool_of_a_run_is_planned_minus_stored_minus_leased(void)
{
    /* The rebuild after a restart: 0..199 planned, 0..49 and 60..61 stored,
     * 50..79 under lease (of which 60..61 already stored). */
    pool_t *p = pool_new();
    CHECK(pool_add(p, 0, 199) == 0);
    CHECK(pool_remove(p, 0, 49) == 0);
    CHECK(pool_remove(p, 60, 61) == 0);
    CHECK(pool_remove(p, 50, 79) == 0);
    s_expect(p, (int64_t[]) { 80, 199 }, 1);
    /* The lease expires: exactly its unstored pairs come back. */
    CHECK(pool_add(p, 50, 59) == 0);
    CHECK(pool_add(p, 62, 79) == 0);
    s_expect(p, (int64_t[]) { 50, 59, 62, 199 }, 2);
    CHECK_EQ_INT(pool_size(p), 10 + 138);
    pool_destroy(&p);
}

static void pool_matches_a_bitmap_under_random_operations(void)
{
    enum { N = 300 };
    unsigned char ref[N] = { 0 };
    pool_t *p = pool_new();
    uint64_t st = 12345;
    for (int step = 0; step < 5000; step++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t a = (int64_t) ((st >> 33) % N), b = (int64_t) ((st >> 13) % 12);
        int64_t lo = a, hi = a + b >= N ? N - 1 : a + b;
        int op = (int) ((st >> 50) % 3);
        if (op == 0) {
            CHECK(pool_add(p, lo, hi) == 0);
            for (int64_t i = lo; i <= hi; i++)
                ref[i] = 1;
        } else if (op == 1) {
            CHECK(pool_remove(p, lo, hi) == 0);
            for (int64_t i = lo; i <= hi; i++)
                ref[i] = 0;
        } else {
            pool_range_t r;
            int rc = pool_take(p, b + 1, &r);
            int64_t first = -1;
            for (int64_t i = 0; i < N; i++)
                if (ref[i]) {
                    first = i;
                    break;
                }
            if (first < 0) {
                CHECK_EQ_INT(rc, CAPA_ENOTFOUND);
            } else {
                CHECK_EQ_INT(rc, 0);
                CHECK_EQ_INT(r.lo, first);
                int64_t end = first;
                while (end + 1 < N && ref[end + 1] && end + 1 - first < b + 1)
                    end++;
                CHECK_EQ_INT(r.hi, end);
                for (int64_t i = r.lo; i <= r.hi; i++)
                    ref[i] = 0;
            }
        }
        int64_t count = 0;
        for (int64_t i = 0; i < N; i++) {
            count += ref[i];
            CHECK_EQ_INT(pool_contains(p, i), ref[i]);
        }
        CHECK_EQ_INT(pool_size(p), count);
        for (size_t i = 1; i < pool_range_count(p); i++)
            CHECK(pool_range(p, i).lo > pool_range(p, i - 1).hi + 1);
    }
    pool_destroy(&p);
}

static void task_size_follows_speed_and_node_limit(void)
{
    /* 1e6 nps, 10000 nodes/move: a game is 160 x 0.01 s = 1.6 s, a pair
     * 3.2 s; 4 threads for 160 s = 200 pairs. */
    sched_size_in_t in = { .nps = 1e6, .concurrency = 4, .slots = 4, .nodes = 10000,
                           .target_seconds = 160 };
    CHECK_EQ_INT(sched_task_pairs(&in), 200);
    in.nps = 2e6;   /* twice as fast: twice the pairs */
    CHECK_EQ_INT(sched_task_pairs(&in), 400);
    in.nodes = 1;   /* tiny games: capped at the protocol's maximum */
    CHECK_EQ_INT(sched_task_pairs(&in), PROTO_PAIRS_MAX);
    in.max_pairs = 30;   /* and by what the run has left */
    CHECK_EQ_INT(sched_task_pairs(&in), 30);
}

static void task_size_is_at_least_the_free_slots(void)
{
    sched_size_in_t in = { .nps = 1000, .concurrency = 32, .slots = 32, .nodes = 1000000,
                           .target_seconds = 60 };
    CHECK_EQ_INT(sched_task_pairs(&in), 32);
    in.slots = 0;
    in.concurrency = 1;
    CHECK_EQ_INT(sched_task_pairs(&in), 1);
    /* nps 0 (not measured) uses the fallback speed instead of dividing by 0. */
    in.nps = 0;
    in.nodes = 1000;
    CHECK(sched_task_pairs(&in) >= 1);
}

static void task_size_under_a_time_control_counts_base_and_increment(void)
{
    /* 10 s + 0.1 s: a side uses 10 + 80 x 0.1 = 18 s, a game 36 s, a pair
     * 72 s; 1 thread for 720 s = 10 pairs. */
    CHECK_NEAR(sched_pair_seconds(0, 10000, 100, 1e6), 72.0, 1e-9);
    sched_size_in_t in = { .nps = 1e6, .concurrency = 1, .slots = 1, .tc_base_ms = 10000,
                           .tc_inc_ms = 100, .target_seconds = 720 };
    CHECK_EQ_INT(sched_task_pairs(&in), 10);
}

static void a_clock_is_scaled_by_the_worker_speed_against_the_reference(void)
{
    /* A worker half as fast as the reference gets twice the time. */
    CHECK_EQ_INT(sched_scale_ms(10000, 5e5, 1e6, 86400000), 20000);
    CHECK_EQ_INT(sched_scale_ms(100, 5e5, 1e6, 3600000), 200);
    /* Three times as fast: a third, rounded. */
    CHECK_EQ_INT(sched_scale_ms(10000, 3e6, 1e6, 86400000), 3333);
    /* Off, unknown speed, no clock: unchanged. */
    CHECK_EQ_INT(sched_scale_ms(10000, 5e5, 0, 86400000), 10000);
    CHECK_EQ_INT(sched_scale_ms(10000, 0, 1e6, 86400000), 10000);
    CHECK_EQ_INT(sched_scale_ms(0, 5e5, 1e6, 86400000), 0);
    /* Bounded: never 0 for a clock, never beyond the protocol's limit. */
    CHECK_EQ_INT(sched_scale_ms(1, 1e9, 1e6, 86400000), 1);
    CHECK_EQ_INT(sched_scale_ms(80000000, 1e5, 1e6, 86400000), 86400000);
}

static void run_choice_prefers_priority_then_least_work_in_flight(void)
{
    sched_run_t runs[3] = {
        { .priority = 0, .weight = 1, .available = 100, .in_flight = 0 },
        { .priority = 5, .weight = 1, .available = 100, .in_flight = 500 },
        { .priority = 5, .weight = 1, .available = 100, .in_flight = 200 },
    };
    CHECK_EQ_INT(sched_pick_run(runs, 3), 2);
    runs[2].available = 0;   /* nothing left there */
    CHECK_EQ_INT(sched_pick_run(runs, 3), 1);
    runs[1].available = 0;
    CHECK_EQ_INT(sched_pick_run(runs, 3), 0);
    runs[0].available = 0;
    CHECK_EQ_INT(sched_pick_run(runs, 3), -1);
    /* Equal priority: weight 2 carries twice the load before yielding. */
    sched_run_t two[2] = { { .weight = 1, .available = 9, .in_flight = 100 },
                           { .weight = 2, .available = 9, .in_flight = 150 } };
    CHECK_EQ_INT(sched_pick_run(two, 2), 1);
    two[1].in_flight = 250;
    CHECK_EQ_INT(sched_pick_run(two, 2), 0);
    /* A tie goes to the older run. */
    two[1].in_flight = 200;
    CHECK_EQ_INT(sched_pick_run(two, 2), 0);
}

static void run_status_follows_its_life_cycle(void)
{
    store_run_status_t s;
    CHECK(runstate_next(STORE_RUN_PENDING, RUNSTATE_LEASE, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_RUNNING);
    CHECK(runstate_next(STORE_RUN_RUNNING, RUNSTATE_LEASE, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_RUNNING);
    CHECK(runstate_next(STORE_RUN_RUNNING, RUNSTATE_DECIDED, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_FINISHED);
    CHECK(runstate_next(STORE_RUN_RUNNING, RUNSTATE_COMPLETE, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_FINISHED);
    CHECK(runstate_next(STORE_RUN_RUNNING, RUNSTATE_STOP, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_STOPPED);
    CHECK(runstate_next(STORE_RUN_STOPPED, RUNSTATE_RESUME, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_PENDING);
    CHECK(runstate_next(STORE_RUN_PENDING, RUNSTATE_FAIL, &s) == 0);
    CHECK_EQ_INT(s, STORE_RUN_FAILED);
}

static void finished_and_failed_runs_never_change_and_stopped_runs_get_no_work(void)
{
    store_run_status_t s = STORE_RUN_PENDING;
    for (int ev = RUNSTATE_LEASE; ev <= RUNSTATE_FAIL; ev++) {
        CHECK_EQ_INT(runstate_next(STORE_RUN_FINISHED, (runstate_event_t) ev, &s), CAPA_ESTATE);
        CHECK_EQ_INT(runstate_next(STORE_RUN_FAILED, (runstate_event_t) ev, &s), CAPA_ESTATE);
    }
    CHECK_EQ_INT(runstate_next(STORE_RUN_STOPPED, RUNSTATE_LEASE, &s), CAPA_ESTATE);
    CHECK_EQ_INT(runstate_next(STORE_RUN_STOPPED, RUNSTATE_DECIDED, &s), CAPA_ESTATE);
    CHECK(runstate_is_active(STORE_RUN_PENDING));
    CHECK(runstate_is_active(STORE_RUN_RUNNING));
    CHECK(!runstate_is_active(STORE_RUN_STOPPED));
    CHECK(!runstate_is_active(STORE_RUN_FINISHED));
    CHECK(runstate_is_complete(100, 100));
    CHECK(!runstate_is_complete(99, 100));
}

static const check_case_t CASES[] = {
    CASE(pool_add_merges_touching_and_overlapping_ranges),
    CASE(pool_remove_splits_and_trims_ranges),
    CASE(pool_take_hands_out_the_lowest_contiguous_range_first),
    CASE(pool_of_a_run_is_planned_minus_stored_minus_leased),
    CASE(pool_matches_a_bitmap_under_random_operations),
    CASE(task_size_follows_speed_and_node_limit),
    CASE(task_size_is_at_least_the_free_slots),
    CASE(task_size_under_a_time_control_counts_base_and_increment),
    CASE(a_clock_is_scaled_by_the_worker_speed_against_the_reference),
    CASE(run_choice_prefers_priority_then_least_work_in_flight),
    CASE(run_status_follows_its_life_cycle),
    CASE(finished_and_failed_runs_never_change_and_stopped_runs_get_no_work),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
