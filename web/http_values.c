/* http_values.c - GET /api/values: the current best piece-value estimate
 * per variant and engine version, with its provenance, and the values runs
 * it was chosen from (docs/api.md; the rule in values_best.h). Everything
 * comes from stored estimates: nothing is fitted per request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "http_int.h"
#include "json.h"
#include "store_values.h"
#include "values_best.h"

/* The keys of a stored fit that an estimate hands on, in this order: the
 * contrasts lead. */
static const char *const FIT_KEYS[] = { "contrasts", "unit", "logit_per_pawn", "elo_per_pawn",
                                        "white_score", "values", "values_elo", "interval",
                                        "clusters", "not_separated", "scaled", "note",
                                        "lack_of_fit", "pair_clustered", "unprotected_pawns", "king_shelter" };

/* One values run, parsed. */
typedef struct {
    const store_values_run_t *row;
    cJSON *fit;          /* owned, NULL without one */
    cJSON *engines;      /* owned array */
    double bench;        /* the engine of most of its pairs (0 = not told) */
    const char *version;
    bool determined;     /* the fit determines at least one contrast */
    bool best;
} s_run_t;

static const char *s_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static bool s_determines(const cJSON *fit)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(fit, "contrasts"))
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")))
            return true;
    return false;
}

static values_candidate_t s_candidate(const store_values_run_t *r)
{
    return (values_candidate_t) { .run_id = r->id, .nodes = r->nodes, .tc_base_ms = r->tc_base_ms,
                                  .tc_inc_ms = r->tc_inc_ms, .pairs_used = r->pairs_used,
                                  .computed_at_ms = r->computed_at_ms };
}

static void s_engine(cJSON *o, double bench, const char *version)
{
    cJSON *e = cJSON_AddObjectToObject(o, "engine");
    cJSON_AddNumberToObject(e, "bench", bench);
    cJSON_AddStringToObject(e, "version", version);
}

/* "nodes" per move, or null and the clock. */
static void s_search(cJSON *o, const store_values_run_t *r)
{
    if (r->nodes > 0) {
        cJSON_AddNumberToObject(o, "nodes", (double) r->nodes);
        return;
    }
    cJSON_AddNullToObject(o, "nodes");
    cJSON_AddNumberToObject(o, "tc_base_ms", (double) r->tc_base_ms);
    cJSON_AddNumberToObject(o, "tc_inc_ms", (double) r->tc_inc_ms);
}

/* The best run of a group as an estimate: what it is, where it came from,
 * then its fit (contrasts first). Takes the run's fit apart. */
static cJSON *s_estimate(s_run_t *b)
{
    const store_values_run_t *r = b->row;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "variant", r->variant);
    s_engine(e, b->bench, b->version);
    cJSON *p = cJSON_AddObjectToObject(e, "provenance");
    cJSON *ids = cJSON_AddArrayToObject(p, "runs");
    cJSON_AddItemToArray(ids, cJSON_CreateNumber((double) r->id));
    cJSON_AddStringToObject(p, "name", r->name ? r->name : "");
    cJSON_AddStringToObject(p, "status", store_run_status_name(r->status));
    cJSON_AddNumberToObject(p, "pairs", (double) r->pairs_used);
    const cJSON *games = cJSON_GetObjectItemCaseSensitive(b->fit, "games");
    cJSON_AddNumberToObject(p, "games", cJSON_IsNumber(games) ? games->valuedouble : 0);
    s_search(p, r);
    cJSON_AddNumberToObject(p, "fitted_at_ms", (double) r->computed_at_ms);
    cJSON_AddItemToObject(p, "engines", cJSON_Duplicate(b->engines, true));
    for (size_t k = 0; k < sizeof FIT_KEYS / sizeof FIT_KEYS[0]; k++) {
        cJSON *item = cJSON_DetachItemFromObjectCaseSensitive(b->fit, FIT_KEYS[k]);
        if (item)
            cJSON_AddItemToObject(e, FIT_KEYS[k], item);
    }
    return e;
}

/* A contrast of a fit by name (NULL if the fit has none of that name). */
static const cJSON *s_contrast(const cJSON *fit, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(fit, "contrasts"))
        if (strcmp(s_str(c, "name"), name) == 0)
            return c;
    return NULL;
}

static cJSON *s_run_entry(const s_run_t *x)
{
    const store_values_run_t *r = x->row;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "run", (double) r->id);
    cJSON_AddStringToObject(o, "name", r->name ? r->name : "");
    cJSON_AddStringToObject(o, "status", store_run_status_name(r->status));
    cJSON_AddStringToObject(o, "variant", r->variant);
    s_engine(o, x->bench, x->version);
    s_search(o, r);
    cJSON_AddNumberToObject(o, "pairs", (double) r->pairs_done);
    cJSON_AddNumberToObject(o, "pairs_planned", (double) r->pairs_planned);
    cJSON_AddNumberToObject(o, "pairs_used", (double) r->pairs_used);
    cJSON_AddNumberToObject(o, "fitted_at_ms", (double) r->computed_at_ms);
    cJSON_AddBoolToObject(o, "determined", x->determined);
    cJSON_AddBoolToObject(o, "params_changed", x->row->params_changed);
    cJSON_AddBoolToObject(o, "best", x->best);
    const cJSON *ac = s_contrast(x->fit, "A-C");
    if (ac)
        cJSON_AddItemToObject(o, "A-C", cJSON_Duplicate(ac, true));
    else
        cJSON_AddNullToObject(o, "A-C");
    if (!x->fit)
        cJSON_AddStringToObject(o, "error", r->error ? r->error : "no estimate yet");
    return o;
}

cJSON *http_api_values_json(http_req_t *req, int *rc)
{
    const char *variant = http_arg(req, "variant");
    if (variant && !proto_variant_known(variant)) {
        *rc = http_reply_error(req, 400, "bad_request", "variant: \"%s\" is not one of "
                               "capablanca, caparandom, gothic, embassy, janus", variant);
        return NULL;
    }
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return NULL;
    }
    store_values_run_t *rows = NULL;
    size_t n = 0;
    int r = store_values_runs(st, 0, &rows, &n);
    if (r < 0) {
        if (r == CAPA_EDB)
            http_db_failed(req);
        *rc = r == CAPA_EDB ? http_reply_db_down(req)
                            : http_reply_error(req, 500, "internal", "%s", store_last_error(st));
        return NULL;
    }
    s_run_t *runs = calloc(n ? n : 1, sizeof *runs);
    if (!runs) {
        store_values_runs_free(&rows, n);
        *rc = http_reply_error(req, 500, "internal", "out of memory");
        return NULL;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (variant && strcmp(rows[i].variant, variant) != 0)
            continue;
        s_run_t *x = &runs[m++];
        x->row = &rows[i];
        x->fit = rows[i].fit ? json_parse(rows[i].fit) : NULL;
        x->engines = rows[i].engines ? json_parse(rows[i].engines) : NULL;
        if (!cJSON_IsArray(x->engines)) {
            cJSON_Delete(x->engines);
            x->engines = cJSON_CreateArray();
        }
        const cJSON *top = cJSON_GetArrayItem(x->engines, 0);
        const cJSON *bench = cJSON_GetObjectItemCaseSensitive(top, "bench");
        x->bench = cJSON_IsNumber(bench) ? bench->valuedouble : 0;
        x->version = s_str(top, "version");
        x->determined = x->fit && s_determines(x->fit);
    }
    /* The best of each (variant, engine) among the runs played with the
     * engine's own parameters: runs come newest first. */
    for (size_t i = 0; i < m; i++) {
        if (!runs[i].determined || runs[i].row->params_changed)
            continue;
        bool best = true;
        for (size_t j = 0; j < m && best; j++)
            if (j != i && runs[j].determined && !runs[j].row->params_changed && runs[j].bench == runs[i].bench &&
                strcmp(runs[j].row->variant, runs[i].row->variant) == 0) {
                values_candidate_t a = s_candidate(runs[i].row), b = s_candidate(runs[j].row);
                best = values_best_cmp(&a, &b) > 0;
            }
        runs[i].best = best;
    }
    bool any = false;
    cJSON *list = cJSON_CreateArray();   /* before the estimates take the fits apart */
    for (size_t i = 0; i < m; i++) {
        any = any || runs[i].best;
        cJSON_AddItemToArray(list, s_run_entry(&runs[i]));
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rule", VALUES_BEST_RULE);
    if (variant)
        cJSON_AddStringToObject(o, "variant", variant);
    else
        cJSON_AddNullToObject(o, "variant");
    if (!any)
        cJSON_AddStringToObject(o, "message", m == 0 ? "no values runs yet"
                                                     : "no values run determines a contrast yet");
    cJSON *est = cJSON_AddArrayToObject(o, "estimates");
    for (size_t i = 0; i < m; i++)
        if (runs[i].best)
            cJSON_AddItemToArray(est, s_estimate(&runs[i]));
    cJSON_AddItemToObject(o, "runs", list);
    for (size_t i = 0; i < m; i++) {
        cJSON_Delete(runs[i].fit);
        cJSON_Delete(runs[i].engines);
    }
    free(runs);
    store_values_runs_free(&rows, n);
    return o;
}

int http_api_values(http_req_t *req)
{
    int rc = MHD_NO;
    cJSON *o = http_api_values_json(req, &rc);
    return o ? http_reply_json(req, 200, o) : rc;
}
