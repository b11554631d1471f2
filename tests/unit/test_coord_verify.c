/* coordinator/verify.c: sampling, hand-out to another worker, comparison of
 * replays, and who gets flagged when results disagree. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "err.h"
#include "verify.h"

/* A pair: game 1 B white wins by mate in 41 plies, game 2 a draw by repetition. */
/* The flagged list verify asks (the coordinator's, in the program). */
static char s_flagged[4][PROTO_ID_MAX];
static int s_nflagged;

static bool s_is_flagged(void *ctx, const char *worker_id)
{
    (void) ctx;
    for (int i = 0; i < s_nflagged; i++)
        if (strcmp(s_flagged[i], worker_id) == 0)
            return true;
    return false;
}

static void s_flag(const char *worker_id)
{
    snprintf(s_flagged[s_nflagged++], PROTO_ID_MAX, "%s", worker_id);
}

static proto_pair_result_t s_pair(int64_t no, const char *moves)
{
    proto_pair_result_t p;
    memset(&p, 0, sizeof p);
    p.pair = no;
    p.games[0] = (proto_game_result_t) { .result = PROTO_RES_WHITE, .white = PROTO_SIDE_B,
                                         .end = PROTO_END_CHECKMATE, .plies = 41,
                                         .moves = (char *) moves };
    p.games[1] = (proto_game_result_t) { .result = PROTO_RES_DRAW, .white = PROTO_SIDE_A,
                                         .end = PROTO_END_REPETITION, .plies = 60 };
    p.score = 0.75;
    return p;
}

static void identical_games_are_the_same_and_every_difference_is_named(void)
{
    char why[256];
    proto_pair_result_t a = s_pair(3, "e2e4 e7e5"), b = s_pair(3, "e2e4 e7e5");
    CHECK(verify_same(&a, &b, why, sizeof why));
    b.games[0].moves = NULL;   /* moves compared only when both have them */
    CHECK(verify_same(&a, &b, why, sizeof why));
    b = s_pair(3, "e2e4 e7e6");
    CHECK(!verify_same(&a, &b, why, sizeof why));
    CHECK(strstr(why, "moves differ") != NULL);
    b = s_pair(3, NULL);
    b.games[1].plies = 61;
    CHECK(!verify_same(&a, &b, why, sizeof why));
    CHECK(strstr(why, "game 2") != NULL);
    b = s_pair(3, NULL);
    b.games[0].result = PROTO_RES_BLACK;
    CHECK(!verify_same(&a, &b, why, sizeof why));
    CHECK(strstr(why, "1-0 with B white vs 0-1 with B white") != NULL);
    b = s_pair(3, NULL);
    b.games[1].end = PROTO_END_ADJ_DRAW;
    CHECK(!verify_same(&a, &b, why, sizeof why));
    b = s_pair(4, NULL);
    CHECK(!verify_same(&a, &b, why, sizeof why));
}

static void the_sample_rate_is_honoured_and_zero_samples_nothing(void)
{
    proto_pair_result_t p = s_pair(0, NULL);
    verify_t *none = verify_new(0, 1, s_is_flagged, NULL), *some = verify_new(0.25, 1, s_is_flagged, NULL);
    CHECK(none && some);
    for (int i = 0; i < 4000; i++) {
        p.pair = i;
        CHECK_EQ_INT(verify_offer(none, 1, i, "w1", &p), 0);
        CHECK_EQ_INT(verify_offer(some, 1, i, "w1", &p), 0);
    }
    verify_stats_t s0, s1;
    verify_stats(none, &s0);
    verify_stats(some, &s1);
    CHECK_EQ_INT(s0.sampled, 0);
    CHECK_EQ_INT(s1.offered, 4000);
    CHECK_NEAR(s1.sampled, 1000, 100);   /* binomial sd ~27 */
    verify_destroy(&none);
    verify_destroy(&some);
    CHECK(some == NULL);
}

static void a_pair_is_never_verified_by_the_worker_that_played_it(void)
{
    verify_t *v = verify_new(1, 2, s_is_flagged, NULL);
    proto_pair_result_t p = s_pair(7, "a2a3");
    CHECK_EQ_INT(verify_offer(v, 5, 7, "w1", &p), 0);
    verify_job_t job;
    CHECK_EQ_INT(verify_take(v, "w1", &job), CAPA_ENOTFOUND);
    CHECK_EQ_INT(verify_take(v, "w2", &job), 0);
    CHECK(verify_is_task(job.task_id));
    CHECK_EQ_INT(job.run_id, 5);
    CHECK_EQ_INT(job.pair_no, 7);
    CHECK_EQ_STR(job.verifier, "w2");
    /* Handed out once; the copy of the moves is the job's own. */
    CHECK_EQ_INT(verify_take(v, "w3", &job), CAPA_ENOTFOUND);
    verify_job_t *j = verify_find(v, job.task_id);
    CHECK(j != NULL && j->original.games[0].moves != p.games[0].moves);
    CHECK_EQ_STR(j->original.games[0].moves, "a2a3");
    /* Not delivered in time: another worker gets it. */
    verify_expire(v, job.handed_ms + 10, 5);
    CHECK(verify_find(v, job.task_id) == NULL);
    CHECK_EQ_INT(verify_take(v, "w3", &job), 0);
    verify_forget(v, job.task_id);
    CHECK_EQ_INT(verify_take(v, "w4", &job), CAPA_ENOTFOUND);
    verify_destroy(&v);
}

/* A liar L and honest H1, H2: L disagrees with both honest workers and is
 * flagged; the honest ones disagree only with L and are not. */
static void a_worker_is_flagged_only_when_two_unflagged_others_disagree_with_it(void)
{
    verify_t *v = verify_new(1, 3, s_is_flagged, NULL);
    proto_pair_result_t truth = s_pair(0, NULL), lie = s_pair(0, NULL);
    lie.games[1].result = PROTO_RES_WHITE;
    lie.games[1].end = PROTO_END_CHECKMATE;
    char why[256], guilty[PROTO_ID_MAX];
    verify_job_t job;
    /* L verifies a pair of H1: a mismatch, nobody guilty yet. */
    CHECK_EQ_INT(verify_offer(v, 1, 0, "H1", &truth), 0);
    CHECK_EQ_INT(verify_take(v, "L", &job), 0);
    CHECK(!verify_judge(v, verify_find(v, job.task_id), &lie, why, sizeof why, guilty, sizeof guilty));
    CHECK_EQ_STR(guilty, "");
    verify_forget(v, job.task_id);
    /* H2 verifies a pair of H1: the same games. */
    CHECK_EQ_INT(verify_offer(v, 1, 0, "H1", &truth), 0);
    CHECK_EQ_INT(verify_take(v, "H2", &job), 0);
    CHECK(verify_judge(v, verify_find(v, job.task_id), &truth, why, sizeof why, guilty, sizeof guilty));
    verify_forget(v, job.task_id);
    /* H2 verifies a pair of L: L now disagrees with H1 and H2. */
    CHECK_EQ_INT(verify_offer(v, 1, 0, "L", &lie), 0);
    CHECK_EQ_INT(verify_take(v, "H2", &job), 0);
    CHECK(!verify_judge(v, verify_find(v, job.task_id), &truth, why, sizeof why, guilty, sizeof guilty));
    CHECK_EQ_STR(guilty, "L");
    verify_forget(v, job.task_id);
    s_flag("L");
    verify_drop_worker(v, "L");
    /* A flagged worker verifies nothing more, and its disagreements no longer count. */
    CHECK_EQ_INT(verify_offer(v, 1, 0, "H1", &truth), 0);
    CHECK_EQ_INT(verify_take(v, "L", &job), CAPA_ENOTFOUND);
    verify_stats_t st;
    verify_stats(v, &st);
    CHECK_EQ_INT(st.reproduced, 1);
    CHECK_EQ_INT(st.mismatched, 2);
    CHECK_EQ_INT(st.flagged, 1);
    verify_destroy(&v);
}

static const check_case_t CASES[] = {
    CASE(identical_games_are_the_same_and_every_difference_is_named),
    CASE(the_sample_rate_is_honoured_and_zero_samples_nothing),
    CASE(a_pair_is_never_verified_by_the_worker_that_played_it),
    CASE(a_worker_is_flagged_only_when_two_unflagged_others_disagree_with_it),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
