/* coord_spsa.c - SPSA runs: each task is one batch played with a fresh
 * perturbation (A = theta - c delta, B = theta + c delta); theta moves as the
 * batch's pairs arrive. The state (theta, history, the open tasks'
 * perturbations) lives in runs.state so a restarted coordinator continues,
 * and every update appends a row to spsa_history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "stats_rng.h"

stats_spsa_step_t *coord_spsa_propose(coord_t *self, coord_run_t *run, int64_t task_id)
{
    (void) self;
    int n = stats_spsa_size(run->spsa);
    int8_t signs[STATS_SPSA_MAX_PARAMS];
    stats_rng_t rng;
    stats_rng_seed(&rng, (uint64_t) run->info->doc->seed ^ ((uint64_t) task_id * UINT64_C(0x9E3779B97F4A7C15)));
    for (int i = 0; i < n; i++)
        signs[i] = (int8_t) stats_rng_sign(&rng);
    stats_spsa_step_t *step = malloc(sizeof *step);
    char err[256];
    if (!step || stats_spsa_propose(run->spsa, signs, step, err, sizeof err) < 0) {
        free(step);
        return NULL;
    }
    return step;
}

static cJSON *s_array(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *s_step_json(const stats_spsa_step_t *st)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "iter", (double) st->iter);
    cJSON *sg = cJSON_AddArrayToObject(o, "sign");
    for (int i = 0; sg && i < st->n; i++)
        cJSON_AddItemToArray(sg, cJSON_CreateNumber(st->sign[i]));
    cJSON_AddItemToObject(o, "c", s_array(st->c, st->n));
    cJSON_AddItemToObject(o, "plus", s_array(st->plus, st->n));
    cJSON_AddItemToObject(o, "minus", s_array(st->minus, st->n));
    return o;
}

static int s_step_read(const cJSON *o, int n, stats_spsa_step_t *st)
{
    memset(st, 0, sizeof *st);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "iter");
    const cJSON *sg = cJSON_GetObjectItemCaseSensitive(o, "sign");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "c");
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(o, "plus");
    const cJSON *mi = cJSON_GetObjectItemCaseSensitive(o, "minus");
    if (!cJSON_IsNumber(it) || !cJSON_IsArray(sg) || !cJSON_IsArray(c) || !cJSON_IsArray(pl) ||
        !cJSON_IsArray(mi) || cJSON_GetArraySize(sg) != n || cJSON_GetArraySize(c) != n ||
        cJSON_GetArraySize(pl) != n || cJSON_GetArraySize(mi) != n)
        return CAPA_EINVAL;
    st->iter = (int64_t) it->valuedouble;
    st->n = n;
    for (int i = 0; i < n; i++) {
        st->sign[i] = (int8_t) cJSON_GetArrayItem(sg, i)->valuedouble;
        st->c[i] = cJSON_GetArrayItem(c, i)->valuedouble;
        st->plus[i] = cJSON_GetArrayItem(pl, i)->valuedouble;
        st->minus[i] = cJSON_GetArrayItem(mi, i)->valuedouble;
    }
    return 0;
}

int coord_spsa_save(coord_t *self, coord_run_t *run)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *sp = stats_spsa_to_json(run->spsa);
    cJSON *open = cJSON_CreateObject();
    if (!root || !sp || !open) {
        cJSON_Delete(root);
        cJSON_Delete(sp);
        cJSON_Delete(open);
        return CAPA_ENOMEM;
    }
    cJSON_AddItemToObject(root, "spsa", sp);
    cJSON_AddItemToObject(root, "open", open);
    for (size_t b = 0; b < self->lease_buckets; b++)
        for (coord_lease_t *l = self->leases[b]; l; l = l->next)
            if (l->run_id == run->id && l->step && !l->cancelled) {
                char key[32];
                snprintf(key, sizeof key, "%lld", (long long) l->task_id);
                cJSON_AddItemToObject(open, key, s_step_json(l->step));
            }
    char *txt = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    int rc = txt ? store_run_set_state(self->store, run->id, txt) : CAPA_ENOMEM;
    free(txt);
    if (rc < 0)
        LOG(LOG_WARN, "run %lld: cannot save the SPSA state: %s", (long long) run->id,
            store_last_error(self->store));
    return rc;
}

int coord_spsa_load(coord_t *self, coord_run_t *run, const char *state_json)
{
    char err[256];
    cJSON *root = state_json ? json_parse(state_json) : NULL;
    const cJSON *sp = root ? cJSON_GetObjectItemCaseSensitive(root, "spsa") : NULL;
    if (sp)
        run->spsa = stats_spsa_from_json(sp, err, sizeof err);
    else
        run->spsa = stats_spsa_new(&run->info->spsa, err, sizeof err);
    if (!run->spsa) {
        LOG(LOG_ERROR, "run %lld: SPSA: %s", (long long) run->id, err);
        cJSON_Delete(root);
        return CAPA_EINVAL;
    }
    const cJSON *open = root ? cJSON_GetObjectItemCaseSensitive(root, "open") : NULL;
    const cJSON *o;
    cJSON_ArrayForEach(o, open) {
        int64_t tid = strtoll(o->string, NULL, 10);
        coord_lease_t *l = coord_lease_find(self, tid);
        if (!l || l->step)
            continue;
        stats_spsa_step_t *st = malloc(sizeof *st);
        if (st && s_step_read(o, stats_spsa_size(run->spsa), st) == 0)
            l->step = st;
        else
            free(st);
    }
    cJSON_Delete(root);
    return 0;
}

void coord_spsa_apply(coord_t *self, coord_run_t *run, const coord_lease_t *lease,
                      int64_t pairs, int64_t wins, int64_t losses)
{
    char err[256];
    if (stats_spsa_update(run->spsa, lease->step, pairs, wins, losses, err, sizeof err) < 0) {
        LOG(LOG_WARN, "run %lld: SPSA update refused: %s", (long long) run->id, err);
        return;
    }
    cJSON *theta = cJSON_CreateObject();
    int n = stats_spsa_size(run->spsa);
    for (int i = 0; theta && i < n; i++)
        cJSON_AddNumberToObject(theta, stats_spsa_param(run->spsa, i)->name,
                                stats_spsa_theta(run->spsa, i));
    cJSON *info = cJSON_CreateObject();
    if (info) {
        cJSON_AddNumberToObject(info, "task_id", (double) lease->task_id);
        cJSON_AddNumberToObject(info, "pairs", (double) pairs);
        cJSON_AddNumberToObject(info, "wins", (double) wins);
        cJSON_AddNumberToObject(info, "losses", (double) losses);
        cJSON_AddItemToObject(info, "step", s_step_json(lease->step));
    }
    char *tt = theta ? cJSON_PrintUnformatted(theta) : NULL;
    char *it = info ? cJSON_PrintUnformatted(info) : NULL;
    if (tt && store_spsa_append(self->store, run->id, stats_spsa_iter(run->spsa), tt, it) < 0)
        LOG(LOG_WARN, "run %lld: cannot append SPSA history: %s", (long long) run->id,
            store_last_error(self->store));
    free(tt);
    free(it);
    cJSON_Delete(theta);
    cJSON_Delete(info);
    coord_spsa_save(self, run);
}
