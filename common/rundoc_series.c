/* rundoc_series.c - the study series of a values document: a node ladder
 * or a self-consistent iteration (rundoc.h, docs/api.md "Study series").
 * The coordinator plays a series as ordinary values runs, one after
 * another; this file reads and checks the settings and makes the document
 * of each step. */
#include "rundoc_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "protocol_json.h"
#include "stats_plan.h"

/* Piece letters that can be iterated (the pawn is the unit) and the engine
 * parameter names of every letter's value. */
#define ITERABLE "NBRACQ"
static const char *const s_letters = "PNBRACQ";
static const char *const s_param_names[7][2] = {
    { "PawnValueMg", "PawnValueEg" },         { "KnightValueMg", "KnightValueEg" },
    { "BishopValueMg", "BishopValueEg" },     { "RookValueMg", "RookValueEg" },
    { "ArchbishopValueMg", "ArchbishopValueEg" }, { "ChancellorValueMg", "ChancellorValueEg" },
    { "QueenValueMg", "QueenValueEg" },
};

const char *rundoc_piece_param(char piece, int eg)
{
    const char *at = piece ? strchr(s_letters, piece) : NULL;
    return at ? s_param_names[at - s_letters][eg ? 1 : 0] : NULL;
}

const char *rundoc_series_name(rundoc_series_t series)
{
    switch (series) {
    case RUNDOC_SERIES_LADDER: return "ladder";
    case RUNDOC_SERIES_ITERATE: return "iterate";
    case RUNDOC_SERIES_NONE: break;
    }
    return NULL;
}

int rundoc_series_parse(const char *name)
{
    if (name && strcmp(name, "ladder") == 0)
        return RUNDOC_SERIES_LADDER;
    if (name && strcmp(name, "iterate") == 0)
        return RUNDOC_SERIES_ITERATE;
    return -1;
}

int rundoc_series_steps(const rundoc_t *doc)
{
    if (doc->series == RUNDOC_SERIES_LADDER)
        return (int) doc->ladder_count;
    if (doc->series == RUNDOC_SERIES_ITERATE)
        return doc->max_rounds;
    return 0;
}

static int s_ladder(const cJSON *root, const cJSON *obj, rundoc_t *d, char *err, size_t errlen)
{
    static const char *const keys[] = { "nodes", NULL };
    TRY(pjson_only_keys(obj, "ladder", keys, err, errlen));
    int rc;
    const cJSON *arr = pjson_array(obj, "ladder", "nodes", true, RUNDOC_LADDER_MAX, &rc, err, errlen);
    if (rc == CAPA_ERANGE)
        return capa_fail(err, errlen, CAPA_ERANGE, "ladder.nodes: at most %d rungs",
                         RUNDOC_LADDER_MAX);
    TRY(rc);
    int n = cJSON_GetArraySize(arr);
    if (n < 2)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "ladder.nodes: name 2..%d node counts (a single one is game.nodes)",
                         RUNDOC_LADDER_MAX);
    int i = 0;
    for (const cJSON *c = arr->child; c; c = c->next, i++) {
        char where[32];
        snprintf(where, sizeof where, "ladder.nodes[%d]", i);
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble) || c->valuedouble != floor(c->valuedouble))
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: expected a whole number of nodes", where);
        if (c->valuedouble < 1 || c->valuedouble > (double) PROTO_NODES_MAX)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: %.0f is outside 1..%lld", where,
                             c->valuedouble, (long long) PROTO_NODES_MAX);
        int64_t v = (int64_t) c->valuedouble;
        if (i > 0 && v <= d->ladder[i - 1])
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "%s: %lld is not above the rung before (%lld): rungs go up strictly",
                             where, (long long) v, (long long) d->ladder[i - 1]);
        d->ladder[i] = v;
    }
    d->ladder_count = (size_t) n;
    /* The rungs set the nodes per move: a game.nodes or a time control
     * beside them would be silently overridden. */
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(root, "game");
    static const char *const clash[] = { "nodes", "tc_base_ms", "tc_inc_ms" };
    for (size_t k = 0; game && k < sizeof clash / sizeof *clash; k++)
        if (cJSON_GetObjectItemCaseSensitive(game, clash[k]))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "game.%s: a document with a ladder plays each rung at its own "
                             "nodes per move (ladder.nodes); remove game.%s",
                             clash[k], clash[k]);
    d->game.nodes = d->ladder[0];
    d->game.tc_base_ms = d->game.tc_inc_ms = 0;
    d->series = RUNDOC_SERIES_LADDER;
    return 0;
}

static int s_iterate(const cJSON *root, const cJSON *obj, rundoc_t *d, char *err, size_t errlen)
{
    static const char *const keys[] = { "pieces", "max_rounds", NULL };
    TRY(pjson_only_keys(obj, "iterate", keys, err, errlen));
    int rc;
    const cJSON *arr = pjson_array(obj, "iterate", "pieces", true, RUNDOC_ITERATE_MAX, &rc, err,
                                   errlen);
    if (rc == CAPA_ERANGE)
        return capa_fail(err, errlen, CAPA_ERANGE, "iterate.pieces: at most %d pieces (%s)",
                         RUNDOC_ITERATE_MAX, ITERABLE);
    TRY(rc);
    if (cJSON_GetArraySize(arr) < 1)
        return capa_fail(err, errlen, CAPA_EINVAL, "iterate.pieces: name at least one piece of %s",
                         ITERABLE);
    size_t n = 0;
    for (const cJSON *c = arr->child; c; c = c->next, n++) {
        if (!cJSON_IsString(c) || strlen(c->valuestring) != 1 || !strchr(ITERABLE, c->valuestring[0]))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "iterate.pieces[%zu]: expected one letter of %s (the pawn is the unit)",
                             n, ITERABLE);
        char p = c->valuestring[0];
        if (strchr(d->iterate, p))
            return capa_fail(err, errlen, CAPA_EINVAL, "iterate.pieces[%zu]: \"%c\" is named twice",
                             n, p);
        d->iterate[n] = p;
        d->iterate[n + 1] = 0;
    }
    d->max_rounds = 4;
    TRY(pjson_int32(obj, "iterate", "max_rounds", false, 2, RUNDOC_ROUNDS_MAX, &d->max_rounds, err,
                    errlen));
    /* Only what the fit determines can be fed back: each piece in pawns,
     * which needs the pawn's own effect (pawn odds in the design). */
    stats_plan_t plan;
    char why[512];
    if (rundoc_values_plan(d, NULL, 0.0, &plan, why, sizeof why) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "iterate: %s", why);
    if (!plan.pawn_identified)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "iterate: the imbalances do not determine the pawn, so no value comes "
                         "out in pawns to feed back; add pawn odds ({\"side\": \"\", \"other\": \"P\"})");
    for (size_t i = 0; i < n; i++) {
        char p = d->iterate[i];
        bool used = false;
        for (size_t k = 0; k < d->imbalance_count && !used; k++)
            used = strchr(d->imbalances[k].side, p) || strchr(d->imbalances[k].other, p);
        if (!used)
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "iterate.pieces[%zu]: %c takes part in no imbalance, so the fit "
                             "gives no value for it", i, p);
        const stats_plan_item_t *it = &plan.values[strchr(s_letters, p) - s_letters];
        if (!it->estimable || !it->in_pawns)
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "iterate.pieces[%zu]: the imbalances do not determine %c on its own "
                             "(%s)", i, p, plan.n_notes ? plan.notes[0] : "no imbalance pins it");
    }
    /* The iteration plays every iterated piece at its measured value on both
     * sides; a per-side set naming that value would silently win for one. */
    static const char *const sides[] = { "params_side", "params_other" };
    for (int s = 0; s < 2; s++) {
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, sides[s]);
        if (!cJSON_IsObject(set))
            continue;
        const cJSON *it;
        cJSON_ArrayForEach(it, set)
            for (size_t i = 0; i < n; i++)
                for (int eg = 0; eg < 2; eg++)
                    if (it->string && strcmp(it->string, rundoc_piece_param(d->iterate[i], eg)) == 0)
                        return capa_fail(err, errlen, CAPA_EINVAL,
                                         "%s.%s: the iteration sets %c's value for both sides every "
                                         "round; give round 1's value in params instead",
                                         sides[s], it->string, d->iterate[i]);
    }
    d->series = RUNDOC_SERIES_ITERATE;
    return 0;
}

int rundoc_series_read(const cJSON *root, rundoc_t *d, char *err, size_t errlen)
{
    int rc;
    const cJSON *ladder = pjson_object(root, "", "ladder", false, &rc, err, errlen);
    TRY(rc);
    const cJSON *iterate = pjson_object(root, "", "iterate", false, &rc, err, errlen);
    TRY(rc);
    if (ladder && iterate)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "iterate: a document is a ladder or an iteration, not both "
                         "(iterate at one node count, then submit the next)");
    if (ladder)
        return s_ladder(root, ladder, d, err, errlen);
    if (iterate)
        return s_iterate(root, iterate, d, err, errlen);
    return 0;
}

bool rundoc_series_to_json(cJSON *j, const rundoc_t *d)
{
    if (d->series == RUNDOC_SERIES_LADDER) {
        cJSON *o = cJSON_AddObjectToObject(j, "ladder");
        cJSON *arr = o ? cJSON_AddArrayToObject(o, "nodes") : NULL;
        for (size_t i = 0; arr && i < d->ladder_count; i++)
            if (!cJSON_AddItemToArray(arr, pjson_number((double) d->ladder[i])))
                return false;
        return arr != NULL;
    }
    if (d->series == RUNDOC_SERIES_ITERATE) {
        cJSON *o = cJSON_AddObjectToObject(j, "iterate");
        cJSON *arr = o ? cJSON_AddArrayToObject(o, "pieces") : NULL;
        for (size_t i = 0; arr && d->iterate[i]; i++) {
            char s[2] = { d->iterate[i], 0 };
            if (!cJSON_AddItemToArray(arr, cJSON_CreateString(s)))
                return false;
        }
        return arr && cJSON_AddNumberToObject(o, "max_rounds", d->max_rounds);
    }
    return true;
}

char *rundoc_series_step_json(const rundoc_t *series, int step, const proto_params_t *params,
                              rundoc_check_param_fn check_param, void *ctx, char *err,
                              size_t errlen)
{
    if (series->series == RUNDOC_SERIES_NONE || step < 0 || step >= rundoc_series_steps(series)) {
        capa_fail(err, errlen, CAPA_EINVAL, "step %d is not a step of this document", step);
        return NULL;
    }
    char *text = rundoc_to_json(series, false);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    text = NULL;
    if (!j) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(j, "ladder");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "iterate");
    char suffix[64];
    if (series->series == RUNDOC_SERIES_LADDER) {
        snprintf(suffix, sizeof suffix, " [rung %d: %lld nodes]", step + 1,
                 (long long) series->ladder[step]);
        cJSON *game = cJSON_GetObjectItemCaseSensitive(j, "game");
        if (game)
            cJSON_AddItemToObject(game, "nodes", pjson_number((double) series->ladder[step]));
    } else {
        snprintf(suffix, sizeof suffix, " [round %d]", step + 1);
        cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "params");
        for (size_t i = 0; p && params && i < params->count; i++) {
            cJSON_DeleteItemFromObjectCaseSensitive(p, params->items[i].name);
            cJSON_AddItemToObject(p, params->items[i].name, pjson_number(params->items[i].value));
        }
    }
    /* The name keeps its suffix whole: the base is shortened to fit, at a
     * UTF-8 character boundary. */
    char name[RUNDOC_TEXT_MAX];
    size_t room = sizeof name - 1 - strlen(suffix), len = strlen(series->name);
    if (len > room) {
        len = room;
        while (len > 0 && ((unsigned char) series->name[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(name, series->name, len);
    memcpy(name + len, suffix, strlen(suffix) + 1);
    cJSON_ReplaceItemInObjectCaseSensitive(j, "name", cJSON_CreateString(name));
    text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    rundoc_t *d = NULL;
    char why[512];
    if (!text) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    int rc = rundoc_parse(text, strlen(text), check_param, ctx, &d, why, sizeof why);
    free(text);
    if (rc < 0) {
        capa_fail(err, errlen, rc, "step %d: %s", step + 1, why);
        return NULL;
    }
    char *canon = rundoc_to_json(d, false);
    rundoc_destroy(&d);
    if (!canon)
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    return canon;
}
