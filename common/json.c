/* json.c - cJSON parsing under one lock (see json.h). */
#include <pthread.h>

#include "json.h"

static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;

cJSON *json_parse_opts(const char *text, const char **end, bool require_null_terminated)
{
    if (!text)
        return NULL;
    pthread_mutex_lock(&s_lock);
    cJSON *root = cJSON_ParseWithOpts(text, end, require_null_terminated);
    pthread_mutex_unlock(&s_lock);
    return root;
}

cJSON *json_parse(const char *text)
{
    return json_parse_opts(text, NULL, false);
}

cJSON *json_parse_len(const char *text, size_t len)
{
    if (!text)
        return NULL;
    pthread_mutex_lock(&s_lock);
    cJSON *root = cJSON_ParseWithLength(text, len);
    pthread_mutex_unlock(&s_lock);
    return root;
}
