/* params.c - the evaluation parameter table, JSON in and out. */
#include "json.h"
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "err.h"

static const param_info_t s_info[PARAM_NB] = {
/* A piece value is a parameter named <Piece>Value{Mg,Eg}: "Value" ends 2 chars before the end.
 * (Written as a constant expression: strstr is not one, and clang refuses it here.) */
#define PARAMS_IS_VALUE_(name) \
    (sizeof #name > 8 && #name[sizeof #name > 8 ? sizeof #name - 8 : 0] == 'V' && \
     #name[sizeof #name > 8 ? sizeof #name - 4 : 0] == 'e')
/* A search parameter is named Search...; the rest weigh the evaluation. */
#define PARAMS_IS_SEARCH_(name) \
    (sizeof #name > 7 && #name[0] == 'S' && #name[1] == 'e' && #name[2] == 'a' && \
     #name[3] == 'r' && #name[4] == 'c' && #name[5] == 'h')
#define PARAMS_INFO_(name, def, lo, hi) \
    { #name, def, lo, hi, PARAMS_IS_VALUE_(name), PARAMS_IS_SEARCH_(name) },
    PARAMS_TABLE(PARAMS_INFO_)
#undef PARAMS_INFO_
};

int params_count(void)
{
    return PARAM_NB;
}

const param_info_t *params_info(int i)
{
    return i >= 0 && i < PARAM_NB ? &s_info[i] : NULL;
}

void params_default(params_t *p)
{
    for (int i = 0; i < PARAM_NB; i++)
        p->value[i] = s_info[i].def;
}

void params_material_only(params_t *p)
{
    for (int i = 0; i < PARAM_NB; i++)
        if (!s_info[i].material && !s_info[i].search)
            p->value[i] = 0;
}

int params_find(const char *name)
{
    if (!name)
        return CAPA_ENOTFOUND;
    for (int i = 0; i < PARAM_NB; i++)
        if (strcmp(s_info[i].name, name) == 0)
            return i;
    return CAPA_ENOTFOUND;
}

int params_check(const char *name, double value, char *err, size_t errlen)
{
    int i = params_find(name);
    if (i < 0)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "unknown parameter \"%s\"",
                         name ? name : "(null)");
    if (!isfinite(value))
        return capa_fail(err, errlen, CAPA_ERANGE, "parameter %s: value is not a finite number",
                         name);
    double r = floor(value + 0.5);
    if (r < s_info[i].min || r > s_info[i].max)
        return capa_fail(err, errlen, CAPA_ERANGE, "parameter %s: %g is outside [%d, %d]", name,
                         value, (int) s_info[i].min, (int) s_info[i].max);
    return CAPA_OK;
}

int params_check_cb(const char *name, double value, char *err, size_t errlen, void *ctx)
{
    (void) ctx;
    return params_check(name, value, err, errlen);
}

int params_set(params_t *p, const char *name, double value, char *err, size_t errlen)
{
    int rc = params_check(name, value, err, errlen);
    if (rc < 0)
        return rc;
    p->value[params_find(name)] = (int32_t) floor(value + 0.5);
    return CAPA_OK;
}

int params_from_cjson(const struct cJSON *obj, params_t *p, char *err, size_t errlen)
{
    if (!obj || !cJSON_IsObject(obj))
        return capa_fail(err, errlen, CAPA_EINVAL, "a parameter set must be a JSON object");
    params_t tmp = *p;
    for (const cJSON *it = obj->child; it; it = it->next) {
        if (!cJSON_IsNumber(it))
            return capa_fail(err, errlen, CAPA_EINVAL, "parameter %s: value must be a number",
                             it->string ? it->string : "(null)");
        int rc = params_set(&tmp, it->string, it->valuedouble, err, errlen);
        if (rc < 0)
            return rc;
    }
    *p = tmp;
    return CAPA_OK;
}

int params_from_json(const char *json, params_t *p, char *err, size_t errlen)
{
    if (!json)
        return capa_fail(err, errlen, CAPA_EINVAL, "no parameter set given");
    cJSON *obj = json_parse(json);
    if (!obj)
        return capa_fail(err, errlen, CAPA_EINVAL, "parameter set is not valid JSON");
    int rc = params_from_cjson(obj, p, err, errlen);
    cJSON_Delete(obj);
    return rc;
}

char *params_to_json(const params_t *p, bool only_changed)
{
    cJSON *obj = cJSON_CreateObject();
    if (!obj)
        return NULL;
    for (int i = 0; i < PARAM_NB; i++) {
        if (only_changed && p->value[i] == s_info[i].def)
            continue;
        if (!cJSON_AddNumberToObject(obj, s_info[i].name, p->value[i])) {
            cJSON_Delete(obj);
            return NULL;
        }
    }
    char *text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    return text;
}

bool params_equal(const params_t *a, const params_t *b)
{
    return memcmp(a->value, b->value, sizeof a->value) == 0;
}
