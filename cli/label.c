/* label.c - labels for capa tune from a UCI engine's search (label.h). */
#include "label.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "uciproc.h"
#include "types.h"

void label_opts_default(label_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->nodes = 20000;
    o->weight = 1.0;
    o->threads = 1;
    o->timeout_ms = 60000;
}

double label_from_score(int cp, int mate, bool white_to_move)
{
    double p = mate > 0 ? 1.0 : mate < 0 ? 0.0 : 1.0 / (1.0 + pow(10.0, -cp / 400.0));
    return white_to_move ? p : 1.0 - p;
}

typedef struct {
    const texel_set_t *set;
    const label_opts_t *o;
    double *labels;
    int part;                  /* this thread labels positions part, part + threads, ... */
    atomic_size_t *done;
    int rc;
    char err[512];
} s_job_t;

/* Sets the engine up for variant v. 0, or < 0 with a message in j->err. */
static int s_variant(uciproc_t *p, variant_t v, s_job_t *j)
{
    const char *name = variant_name(v);
    if (!uciproc_has_variant(p, name))
        return capa_fail(j->err, sizeof j->err, CAPA_EINVAL, "engine %s does not offer UCI_Variant %s",
                         j->o->engine, name);
    uciproc_send(p, "setoption name UCI_Variant value %s", name);
    uciproc_send(p, "setoption name UCI_Chess960 value %s",
                 v == VARIANT_CAPARANDOM ? "true" : "false");
    return 0;
}

/* Searches one position; its label in *out. 0, or < 0 with a message in j->err. */
static int s_one(uciproc_t *p, const texel_pos_t *pos, s_job_t *j, double *out)
{
    char *err = j->err;
    size_t errlen = sizeof j->err;
    const char *fen = pos->fen;
    if (uciproc_send(p, "ucinewgame") < 0 || uciproc_send(p, "position fen %s", fen) < 0 ||
        uciproc_send(p, "go nodes %" PRIu64, j->o->nodes) < 0)
        return capa_fail(err, errlen, CAPA_EIO, "engine %s exited", j->o->engine);
    int64_t deadline = uciproc_now_ms() + j->o->timeout_ms;
    int cp = 0, mate = 0;
    bool scored = false;
    char line[4096];
    for (;;) {
        int64_t left = deadline - uciproc_now_ms();
        int r = left > 0 ? uciproc_readline(p, line, sizeof line, left) : 0;
        if (r <= 0)
            return capa_fail(err, errlen, r == 0 ? CAPA_ETIMEOUT : CAPA_EIO,
                             "engine %s %s on %s", j->o->engine,
                             r == 0 ? "gave no bestmove in time" : "exited", fen);
        if (strncmp(line, "bestmove", 8) == 0)
            break;
        uciproc_info_t info;
        if (!uciproc_parse_info(line, &info) || info.bound)
            continue;
        if (info.kind == UCIPROC_SCORE_CP)
            cp = info.value, mate = 0, scored = true;
        else if (info.kind == UCIPROC_SCORE_MATE && info.value != 0)
            mate = info.value, scored = true;
    }
    if (!scored)
        return capa_fail(err, errlen, CAPA_EINVAL, "engine %s gave no score for %s",
                         j->o->engine, fen);
    const char *side = strchr(fen, ' ');
    double engine = label_from_score(cp, mate, !side || side[1] != 'b');
    *out = j->o->weight * engine + (1.0 - j->o->weight) * pos->result;
    return 0;
}

static void *s_run(void *arg)
{
    s_job_t *j = arg;
    uciproc_t *p = uciproc_start(j->o->engine, 10000, j->err, sizeof j->err);
    if (!p) {
        j->rc = CAPA_EINVAL;
        return NULL;
    }
    int variant = -1;
    for (size_t i = (size_t) j->part; i < j->set->n; i += (size_t) j->o->threads) {
        const texel_pos_t *pos = &j->set->pos[i];
        if (pos->variant != variant) {
            if ((j->rc = s_variant(p, (variant_t) pos->variant, j)) < 0)
                break;
            variant = pos->variant;
        }
        if ((j->rc = s_one(p, pos, j, &j->labels[i])) < 0)
            break;
        size_t done = atomic_fetch_add(j->done, 1) + 1;
        if (j->o->progress && done % 1000 == 0)
            fprintf(stderr, "labelled %zu of %zu positions\n", done, j->set->n);
    }
    if (j->rc < 0)
        uciproc_kill(&p);
    else
        uciproc_stop(&p);
    return NULL;
}

int label_set(texel_set_t *set, const label_opts_t *o, char *err, size_t errlen)
{
    if (o->threads < 1 || o->threads > 256 || o->nodes == 0 || !(o->weight >= 0) ||
        o->weight > 1)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "labelling needs 1 to 256 threads, nodes > 0 and a weight in [0, 1]");
    double *labels = malloc((set->n ? set->n : 1) * sizeof *labels);
    s_job_t *jobs = calloc((size_t) o->threads, sizeof *jobs);
    pthread_t *tid = calloc((size_t) o->threads, sizeof *tid);
    if (!labels || !jobs || !tid) {
        free(labels);
        free(jobs);
        free(tid);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    atomic_size_t done;
    atomic_init(&done, 0);
    int started = 0, rc = 0;
    for (; started < o->threads; started++) {
        s_job_t *j = &jobs[started];
        *j = (s_job_t) { .set = set, .o = o, .labels = labels, .part = started, .done = &done };
        if (pthread_create(&tid[started], NULL, s_run, j) != 0) {
            rc = capa_fail(err, errlen, CAPA_ENOMEM, "cannot start a thread");
            break;
        }
    }
    for (int t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        if (rc == 0 && jobs[t].rc < 0)
            rc = capa_fail(err, errlen, jobs[t].rc, "%s", jobs[t].err);
    }
    if (rc == 0)
        for (size_t i = 0; i < set->n; i++)
            set->pos[i].result = (float) labels[i];
    free(labels);
    free(jobs);
    free(tid);
    return rc;
}
