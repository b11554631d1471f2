/* config.c - defaults, JSON file, environment and flags into a program's config struct. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "protocol_json.h"

#define CONFIG_FILE_MAX (1u << 20)
#define KEY_MAX 64

static const char *s_type_name(config_type_t t)
{
    switch (t) {
    case CONFIG_T_INT:
    case CONFIG_T_INT64: return "INT";
    case CONFIG_T_DOUBLE: return "NUM";
    case CONFIG_T_BOOL: return "";
    case CONFIG_T_STRING: return "TEXT";
    case CONFIG_T_PATH: return "PATH";
    }
    return "?";
}

/* Keys compare with '-' and '_' as the same character. */
static const config_item_t *s_find(const config_spec_t *spec, const char *key, size_t len)
{
    for (const config_item_t *it = spec->items; it->key; it++) {
        if (strlen(it->key) != len)
            continue;
        size_t i = 0;
        for (; i < len; i++) {
            char c = key[i] == '-' ? '_' : key[i];
            if (c != it->key[i])
                break;
        }
        if (i == len)
            return it;
    }
    return NULL;
}

static int s_parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = { "true", "1", "yes", "on" };
    static const char *const no[] = { "false", "0", "no", "off" };
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return CAPA_EINVAL;
}

/* Stores text into the item's field; base_dir (or NULL) anchors relative paths. */
static int s_store_text(const config_item_t *it, void *cfg, const char *v, const char *source,
                        const char *base_dir, char *err, size_t errlen)
{
    char *field = (char *) cfg + it->offset;
    switch (it->type) {
    case CONFIG_T_INT:
    case CONFIG_T_INT64: {
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (!*v || isspace((unsigned char) *v) || *end)
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: \"%s\" is not an integer", source, v);
        if (errno == ERANGE || (double) n < it->min || (double) n > it->max)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: %s is outside %.0f..%.0f", source, v,
                             it->min, it->max);
        if (it->type == CONFIG_T_INT)
            *(int *) field = (int) n;
        else
            *(int64_t *) field = (int64_t) n;
        return 0;
    }
    case CONFIG_T_DOUBLE: {
        char *end;
        double d = strtod(v, &end);
        if (!*v || isspace((unsigned char) *v) || *end || !isfinite(d))
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: \"%s\" is not a finite number", source, v);
        if (d < it->min || d > it->max)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: %s is outside %g..%g", source, v,
                             it->min, it->max);
        *(double *) field = d;
        return 0;
    }
    case CONFIG_T_BOOL:
        if (s_parse_bool(v, (bool *) field) != 0)
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "%s: \"%s\" is not a boolean (true/false, yes/no, on/off, 1/0)",
                             source, v);
        return 0;
    case CONFIG_T_STRING:
    case CONFIG_T_PATH: {
        char joined[4096];
        if (it->type == CONFIG_T_PATH && base_dir && *v && *v != '/') {
            if ((size_t) snprintf(joined, sizeof joined, "%s/%s", base_dir, v) >= sizeof joined)
                return capa_fail(err, errlen, CAPA_ERANGE, "%s: path too long", source);
            v = joined;
        }
        int rc = pjson_check_text(v, source, 0, it->size, NULL, err, errlen);
        if (rc)
            return rc;
        memcpy(field, v, strlen(v) + 1);
        return 0;
    }
    }
    return capa_fail(err, errlen, CAPA_EINVAL, "%s: bad table entry", source);
}

int config_defaults(const config_spec_t *spec, void *cfg, char *err, size_t errlen)
{
    for (const config_item_t *it = spec->items; it->key; it++) {
        char source[KEY_MAX + 16];
        snprintf(source, sizeof source, "default of %s", it->key);
        int rc = s_store_text(it, cfg, it->def ? it->def : (it->type <= CONFIG_T_DOUBLE ? "0" :
                              it->type == CONFIG_T_BOOL ? "false" : ""), source, NULL, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int config_set(const config_spec_t *spec, void *cfg, const char *key, const char *value,
               const char *source, char *err, size_t errlen)
{
    const config_item_t *it = s_find(spec, key, strlen(key));
    if (!it)
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown key \"%s\"", source, key);
    return s_store_text(it, cfg, value, source, NULL, err, errlen);
}

static int s_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "config file %s: %s", path, strerror(errno));
    char *buf = malloc(CONFIG_FILE_MAX + 1);
    if (!buf) {
        fclose(f);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > CONFIG_FILE_MAX) {
        free(buf);
        return capa_fail(err, errlen, bad ? CAPA_EIO : CAPA_ERANGE, "config file %s: %s", path,
                         bad ? "read error" : "larger than 1 MiB");
    }
    *text = buf;
    *len = n;
    return 0;
}

int config_load_file(const config_spec_t *spec, void *cfg, const char *path, char *err,
                     size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = s_read_file(path, &text, &len, err, errlen);
    if (rc)
        return rc;
    char why[256];
    cJSON *root = pjson_parse(text, len, 8, why, sizeof why);
    free(text);
    if (!root)
        return capa_fail(err, errlen, CAPA_EINVAL, "config file %s: %s", path, why);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return capa_fail(err, errlen, CAPA_EINVAL, "config file %s: expected a JSON object", path);
    }
    rc = pjson_no_duplicates(root, "", why, sizeof why);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    for (const cJSON *c = root->child; c && rc == 0; c = c->next) {
        const config_item_t *it = s_find(spec, c->string, strlen(c->string));
        if (!it) {
            snprintf(why, sizeof why, "%.60s: unknown key", c->string);
            for (char *p = why; *p; p++)
                if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
                    *p = '?';
            rc = CAPA_EINVAL;
            break;
        }
        char *field = (char *) cfg + it->offset;
        switch (it->type) {
        case CONFIG_T_INT:
        case CONFIG_T_INT64: {
            int64_t n = 0;
            rc = pjson_int(root, "", c->string, true, (int64_t) fmax(it->min, -PJSON_INT_MAX),
                           (int64_t) fmin(it->max, PJSON_INT_MAX), &n, why, sizeof why);
            if (rc == 0 && it->type == CONFIG_T_INT)
                *(int *) field = (int) n;
            else if (rc == 0)
                *(int64_t *) field = n;
            break;
        }
        case CONFIG_T_DOUBLE:
            rc = pjson_double(root, "", c->string, true, it->min, it->max, (double *) field, why,
                              sizeof why);
            break;
        case CONFIG_T_BOOL:
            rc = pjson_bool(root, "", c->string, true, (bool *) field, why, sizeof why);
            break;
        case CONFIG_T_STRING:
        case CONFIG_T_PATH:
            if (!cJSON_IsString(c)) {
                snprintf(why, sizeof why, "%s: expected a string", c->string);
                rc = CAPA_EINVAL;
            } else {
                rc = s_store_text(it, cfg, c->valuestring, c->string, dir, why, sizeof why);
            }
            break;
        }
    }
    cJSON_Delete(root);
    if (rc)
        return capa_fail(err, errlen, rc, "config file %s: %s", path, why);
    return 0;
}

static void s_env_name(const char *key, char *buf, size_t cap)
{
    size_t n = (size_t) snprintf(buf, cap, "CAPA_%s", key);
    for (size_t i = 5; i < n && i < cap; i++)
        buf[i] = buf[i] == '-' ? '_' : (char) toupper((unsigned char) buf[i]);
}

int config_load_env(const config_spec_t *spec, void *cfg, char *err, size_t errlen)
{
    for (const config_item_t *it = spec->items; it->key; it++) {
        char name[KEY_MAX + 8], source[KEY_MAX + 24];
        s_env_name(it->key, name, sizeof name);
        const char *v = getenv(name);
        if (!v)
            continue;
        snprintf(source, sizeof source, "environment %s", name);
        int rc = s_store_text(it, cfg, v, source, NULL, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* Finds --help and --config among the flags (before the first positional). */
static int s_prescan(int argc, char **argv, const char **file, bool *help, char *err, size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0 || strncmp(a, "--", 2) != 0)
            break;
        if (strcmp(a, "--help") == 0)
            *help = true;
        else if (strcmp(a, "--config") == 0) {
            if (i + 1 >= argc)
                return capa_fail(err, errlen, CAPA_EINVAL, "flag --config: needs a file name");
            *file = argv[++i];
        } else if (strncmp(a, "--config=", 9) == 0)
            *file = a + 9;
    }
    return 0;
}

int config_load(const config_spec_t *spec, void *cfg, int argc, char **argv, int *first_arg,
                bool *help, char *err, size_t errlen)
{
    const char *file = getenv("CAPA_CONFIG");
    *help = false;
    int rc = s_prescan(argc, argv, &file, help, err, errlen);
    if (rc)
        return rc;
    if (*help) {
        config_help(spec, stdout);
        return 0;
    }
    if ((rc = config_defaults(spec, cfg, err, errlen)) != 0)
        return rc;
    if (file && *file && (rc = config_load_file(spec, cfg, file, err, errlen)) != 0)
        return rc;
    if ((rc = config_load_env(spec, cfg, err, errlen)) != 0)
        return rc;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strncmp(a, "--", 2) != 0)
            break;
        if (strcmp(a, "--config") == 0) {
            i++;
            continue;
        }
        if (strncmp(a, "--config=", 9) == 0)
            continue;
        const char *key = a + 2, *eq = strchr(key, '=');
        size_t klen = eq ? (size_t) (eq - key) : strlen(key);
        char source[KEY_MAX + 16];
        snprintf(source, sizeof source, "flag --%.*s", (int) (klen < KEY_MAX ? klen : KEY_MAX), key);
        const config_item_t *it = s_find(spec, key, klen);
        if (!it && !eq && strncmp(key, "no-", 3) == 0) {
            it = s_find(spec, key + 3, klen - 3);
            if (it && it->type == CONFIG_T_BOOL) {
                *(bool *) ((char *) cfg + it->offset) = false;
                continue;
            }
            it = NULL;
        }
        if (!it)
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown option (see --help)", source);
        const char *value;
        if (eq)
            value = eq + 1;
        else if (it->type == CONFIG_T_BOOL)
            value = "true";
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: needs a value", source);
        if ((rc = s_store_text(it, cfg, value, source, NULL, err, errlen)) != 0)
            return rc;
    }
    if (first_arg)
        *first_arg = i;
    else if (i < argc)
        return capa_fail(err, errlen, CAPA_EINVAL, "unexpected argument \"%.80s\" (see --help)",
                         argv[i]);
    return 0;
}

void config_format(const config_item_t *it, const void *cfg, char *buf, size_t cap)
{
    if (!buf || cap == 0) /* also tells gcc -O3 with sanitizers that buf is not NULL */
        return;
    const char *field = (const char *) cfg + it->offset;
    switch (it->type) {
    case CONFIG_T_INT: snprintf(buf, cap, "%d", *(const int *) field); break;
    case CONFIG_T_INT64: snprintf(buf, cap, "%lld", (long long) *(const int64_t *) field); break;
    case CONFIG_T_DOUBLE:
        for (int d = 6; d <= 17; d++) {
            snprintf(buf, cap, "%.*g", d, *(const double *) field);
            if (strtod(buf, NULL) == *(const double *) field)
                break;
        }
        break;
    case CONFIG_T_BOOL: snprintf(buf, cap, "%s", *(const bool *) field ? "true" : "false"); break;
    case CONFIG_T_STRING:
    case CONFIG_T_PATH: snprintf(buf, cap, "%s", field); break;
    }
}

void config_help(const config_spec_t *spec, FILE *out)
{
    fprintf(out, "usage: %s %s\n\n", spec->program ? spec->program : "program",
            spec->usage ? spec->usage : "[options]");
    fprintf(out, "Settings come from defaults, then a JSON file (--config FILE or CAPA_CONFIG),\n"
                 "then the environment (CAPA_<KEY>), then these flags; later ones win.\n\n");
    fprintf(out, "  --%-24s %s\n", "config FILE", "read settings from a JSON object {\"key\": value}");
    fprintf(out, "  --%-24s %s\n", "help", "print this and exit");
    for (const config_item_t *it = spec->items; it->key; it++) {
        char flag[KEY_MAX + 16], env[KEY_MAX + 8];
        snprintf(flag, sizeof flag, "%s%s%s", it->key, it->type == CONFIG_T_BOOL ? "" : " ",
                 s_type_name(it->type));
        s_env_name(it->key, env, sizeof env);
        fprintf(out, "  --%-24s %s\n", flag, it->help ? it->help : "");
        fprintf(out, "  %-26s default: %s", "", it->def && *it->def ? it->def : "(empty)");
        if (it->type == CONFIG_T_INT || it->type == CONFIG_T_INT64)
            fprintf(out, ", %.0f..%.0f", it->min, it->max);
        else if (it->type == CONFIG_T_DOUBLE)
            fprintf(out, ", %g..%g", it->min, it->max);
        fprintf(out, ", env %s%s\n", env, it->flags & CONFIG_F_SECRET ? " (secret)" : "");
    }
}

void config_log(const config_spec_t *spec, const void *cfg)
{
    for (const config_item_t *it = spec->items; it->key; it++) {
        char value[1024];
        config_format(it, cfg, value, sizeof value);
        if ((it->flags & CONFIG_F_SECRET) && *value)
            snprintf(value, sizeof value, "****");
        LOG(LOG_INFO, "config %s = %s", it->key, value);
    }
}
