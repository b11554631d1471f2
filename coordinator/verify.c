/* verify.c - result verification by replay (see verify.h). */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "stats_rng.h"

#define JOBS_MAX 4096
#define DISAGREE_MAX 8192

typedef struct {
    char a[PROTO_ID_MAX], b[PROTO_ID_MAX];
} s_disagree_t;

struct verify_s {
    double rate;
    stats_rng_t rng;
    verify_job_t *jobs;
    size_t njobs;
    int64_t next_task;
    verify_flagged_fn is_flagged;     /* the coordinator's list (see verify_new) */
    void *flagged_ctx;
    s_disagree_t *dis;
    size_t ndis;
    verify_stats_t st;
};

static int64_t s_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool s_flagged(const verify_t *self, const char *worker_id)
{
    return self->is_flagged && self->is_flagged(self->flagged_ctx, worker_id);
}

verify_t *verify_new(double rate, uint64_t seed, verify_flagged_fn is_flagged, void *ctx)
{
    verify_t *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->rate = rate < 0 ? 0 : rate > 1 ? 1 : rate;
    stats_rng_seed(&v->rng, seed);
    v->jobs = calloc(JOBS_MAX, sizeof *v->jobs);
    v->is_flagged = is_flagged;
    v->flagged_ctx = ctx;
    v->dis = calloc(DISAGREE_MAX, sizeof *v->dis);
    if (!v->jobs || !v->dis) {
        verify_destroy(&v);
        return NULL;
    }
    /* Ids of this process's life differ from an earlier one's (restarts). */
    v->next_task = VERIFY_TASK_BASE + (s_wall_ms() % (INT64_C(1) << 40)) * 16;
    return v;
}

static void s_result_free(proto_pair_result_t *r)
{
    for (int g = 0; g < 2; g++) {
        free(r->games[g].moves);
        r->games[g].moves = NULL;
    }
}

void verify_destroy(verify_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    verify_t *v = *self_p;
    for (size_t i = 0; v->jobs && i < v->njobs; i++)
        s_result_free(&v->jobs[i].original);
    free(v->jobs);
    free(v->dis);
    free(v);
    *self_p = NULL;
}

bool verify_is_task(int64_t task_id) { return task_id >= VERIFY_TASK_BASE; }

int verify_offer(verify_t *self, int64_t run_id, int64_t pair_no, const char *worker_id,
                 const proto_pair_result_t *result)
{
    self->st.offered++;
    if (self->rate <= 0 || stats_rng_uniform(&self->rng) >= self->rate)
        return 0;
    if (self->njobs == JOBS_MAX) {
        self->st.dropped++;
        return 0;
    }
    verify_job_t *j = &self->jobs[self->njobs];
    memset(j, 0, sizeof *j);
    j->run_id = run_id;
    j->pair_no = pair_no;
    snprintf(j->worker_id, sizeof j->worker_id, "%s", worker_id);
    j->original = *result;
    for (int g = 0; g < 2; g++) {
        j->original.games[g].moves = NULL;
        if (result->games[g].moves && !(j->original.games[g].moves = strdup(result->games[g].moves))) {
            s_result_free(&j->original);
            return CAPA_ENOMEM;
        }
    }
    self->njobs++;
    self->st.sampled++;
    return 0;
}

int verify_take(verify_t *self, const char *worker_id, verify_job_t *out)
{
    if (s_flagged(self, worker_id))
        return CAPA_ENOTFOUND;
    for (size_t i = 0; i < self->njobs; i++) {
        verify_job_t *j = &self->jobs[i];
        if (j->task_id != 0 || strcmp(j->worker_id, worker_id) == 0)
            continue;
        j->task_id = self->next_task++;
        snprintf(j->verifier, sizeof j->verifier, "%s", worker_id);
        j->handed_ms = s_wall_ms();
        self->st.handed++;
        *out = *j;
        return 0;
    }
    return CAPA_ENOTFOUND;
}

verify_job_t *verify_find(verify_t *self, int64_t task_id)
{
    for (size_t i = 0; i < self->njobs; i++)
        if (self->jobs[i].task_id == task_id)
            return &self->jobs[i];
    return NULL;
}

void verify_forget(verify_t *self, int64_t task_id)
{
    for (size_t i = 0; i < self->njobs; i++) {
        if (self->jobs[i].task_id != task_id)
            continue;
        s_result_free(&self->jobs[i].original);
        memmove(&self->jobs[i], &self->jobs[i + 1], (self->njobs - i - 1) * sizeof *self->jobs);
        self->njobs--;
        return;
    }
}

void verify_expire(verify_t *self, int64_t now_ms, int64_t max_age_ms)
{
    for (size_t i = 0; i < self->njobs; i++) {
        verify_job_t *j = &self->jobs[i];
        if (j->task_id != 0 && now_ms - j->handed_ms > max_age_ms) {
            j->task_id = 0;
            j->verifier[0] = 0;
        }
    }
}

void verify_drop_worker(verify_t *self, const char *worker_id)
{
    self->st.flagged++;
    /* Its pairs waiting for a replay no longer matter (they are excluded). */
    for (size_t i = self->njobs; i-- > 0;) {
        if (strcmp(self->jobs[i].worker_id, worker_id) != 0 || self->jobs[i].task_id != 0)
            continue;
        s_result_free(&self->jobs[i].original);
        memmove(&self->jobs[i], &self->jobs[i + 1], (self->njobs - i - 1) * sizeof *self->jobs);
        self->njobs--;
    }
}


bool verify_same(const proto_pair_result_t *a, const proto_pair_result_t *b, char *why,
                 size_t whylen)
{
    static const char *const res[] = { "1-0", "0-1", "1/2-1/2" };
    if (a->pair != b->pair) {
        snprintf(why, whylen, "pair %lld vs %lld", (long long) a->pair, (long long) b->pair);
        return false;
    }
    for (int g = 0; g < 2; g++) {
        const proto_game_result_t *x = &a->games[g], *y = &b->games[g];
        if (x->result != y->result || x->white != y->white) {
            snprintf(why, whylen, "pair %lld game %d: %s with %s white vs %s with %s white",
                     (long long) a->pair, g + 1, (unsigned) x->result < 3 ? res[x->result] : "?",
                     x->white == PROTO_SIDE_B ? "B" : "A",
                     (unsigned) y->result < 3 ? res[y->result] : "?",
                     y->white == PROTO_SIDE_B ? "B" : "A");
            return false;
        }
        if (x->end != y->end || x->plies != y->plies) {
            snprintf(why, whylen, "pair %lld game %d: %s after %d plies vs %s after %d plies",
                     (long long) a->pair, g + 1, proto_end_name(x->end), x->plies,
                     proto_end_name(y->end), y->plies);
            return false;
        }
        if (x->moves && y->moves && strcmp(x->moves, y->moves) != 0) {
            snprintf(why, whylen, "pair %lld game %d: the moves differ", (long long) a->pair, g + 1);
            return false;
        }
    }
    return true;
}

/* Distinct unflagged workers that disagree with id. */
static int s_partners(const verify_t *v, const char *id)
{
    const char *seen[VERIFY_QUORUM];
    int n = 0;
    for (size_t i = 0; i < v->ndis && n < VERIFY_QUORUM; i++) {
        const char *other = strcmp(v->dis[i].a, id) == 0   ? v->dis[i].b
                            : strcmp(v->dis[i].b, id) == 0 ? v->dis[i].a
                                                           : NULL;
        if (!other || s_flagged(v, other))
            continue;
        bool dup = false;
        for (int k = 0; k < n; k++)
            dup |= strcmp(seen[k], other) == 0;
        if (!dup)
            seen[n++] = other;
    }
    return n;
}

bool verify_judge(verify_t *self, const verify_job_t *job, const proto_pair_result_t *replay,
                  char *why, size_t whylen, char *guilty, size_t guiltylen)
{
    if (guilty && guiltylen)
        guilty[0] = 0;
    if (verify_same(&job->original, replay, why, whylen)) {
        self->st.reproduced++;
        return true;
    }
    self->st.mismatched++;
    if (self->ndis < DISAGREE_MAX) {
        s_disagree_t *d = &self->dis[self->ndis++];
        snprintf(d->a, sizeof d->a, "%s", job->worker_id);
        snprintf(d->b, sizeof d->b, "%s", job->verifier);
    }
    const char *who[2] = { job->worker_id, job->verifier };
    for (int i = 0; i < 2 && guilty; i++)
        if (!s_flagged(self, who[i]) && s_partners(self, who[i]) >= VERIFY_QUORUM) {
            snprintf(guilty, guiltylen, "%s", who[i]);
            break;
        }
    return false;
}

void verify_stats(const verify_t *self, verify_stats_t *out) { *out = self->st; }
