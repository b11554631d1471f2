/* protocol_json.c - checked readers of untrusted JSON fields. */
#include "json.h"
#include "protocol_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

void pjson_path(char *buf, size_t cap, const char *where, const char *key)
{
    if (where && *where)
        snprintf(buf, cap, "%s.%s", where, key);
    else
        snprintf(buf, cap, "%s", key);
}

/* Formats "<where>.<key>: <message>" into err and returns code; the path is
 * only built when there is an error to report. */
static int s_fail_at(char *err, size_t errlen, int code, const char *where, const char *key,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int s_fail_at(char *err, size_t errlen, int code, const char *where, const char *key,
                     const char *fmt, ...)
{
    if (err && errlen) {
        char path[160];
        pjson_path(path, sizeof path, where, key);
        int n = snprintf(err, errlen, "%s: ", path);
        if (n >= 0 && (size_t) n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t) n, fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

/* Finds key; reports "missing" for a required absent field. *item is NULL
 * when the field is absent (rc 0 if optional). */
static int s_find(const cJSON *obj, const char *where, const char *key, bool required,
                  const cJSON **item, char *err, size_t errlen)
{
    *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*item && required)
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "missing");
    return 0;
}

static const char *s_kind(const cJSON *item)
{
    if (cJSON_IsNumber(item)) return "a number";
    if (cJSON_IsString(item)) return "a string";
    if (cJSON_IsBool(item)) return "a boolean";
    if (cJSON_IsNull(item)) return "null";
    if (cJSON_IsArray(item)) return "an array";
    if (cJSON_IsObject(item)) return "an object";
    return "something else";
}

int pjson_int(const cJSON *obj, const char *where, const char *key, bool required,
              int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen)
{
    const cJSON *item;
    int rc = s_find(obj, where, key, required, &item, err, errlen);
    if (rc || !item)
        return rc;
    if (!cJSON_IsNumber(item))
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected an integer, got %s",
                         s_kind(item));
    double v = item->valuedouble;
    if (!isfinite(v))
        return s_fail_at(err, errlen, CAPA_ERANGE, where, key, "not a finite number");
    if (v != floor(v))
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected an integer, got %g", v);
    if (v < (double) lo || v > (double) hi)
        return s_fail_at(err, errlen, CAPA_ERANGE, where, key, "%.17g is outside %lld..%lld", v,
                         (long long) lo, (long long) hi);
    *out = (int64_t) v;
    return 0;
}

int pjson_int32(const cJSON *obj, const char *where, const char *key, bool required,
                int lo, int hi, int *out, char *err, size_t errlen)
{
    int64_t v = 0;
    int rc = pjson_int(obj, where, key, required, lo, hi, &v, err, errlen);
    if (rc == 0 && cJSON_GetObjectItemCaseSensitive(obj, key))
        *out = (int) v;
    return rc;
}

int pjson_double(const cJSON *obj, const char *where, const char *key, bool required,
                 double lo, double hi, double *out, char *err, size_t errlen)
{
    const cJSON *item;
    int rc = s_find(obj, where, key, required, &item, err, errlen);
    if (rc || !item)
        return rc;
    if (!cJSON_IsNumber(item))
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected a number, got %s",
                         s_kind(item));
    double v = item->valuedouble;
    if (!isfinite(v))
        return s_fail_at(err, errlen, CAPA_ERANGE, where, key, "not a finite number");
    if (v < lo || v > hi)
        return s_fail_at(err, errlen, CAPA_ERANGE, where, key, "%g is outside %g..%g", v, lo, hi);
    *out = v;
    return 0;
}

int pjson_bool(const cJSON *obj, const char *where, const char *key, bool required,
               bool *out, char *err, size_t errlen)
{
    const cJSON *item;
    int rc = s_find(obj, where, key, required, &item, err, errlen);
    if (rc || !item)
        return rc;
    if (!cJSON_IsBool(item))
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected true or false, got %s",
                         s_kind(item));
    *out = cJSON_IsTrue(item);
    return 0;
}

bool pjson_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *) str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c == 0)
            return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned cp;
        if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; }
        else return false;
        if (len - i <= n)
            return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

int pjson_check_text(const char *s, const char *path, size_t min_len, size_t cap,
                     const char *allowed, char *err, size_t errlen)
{
    size_t len = strlen(s);
    if (len >= cap)
        return capa_fail(err, errlen, CAPA_ERANGE, "%s: longer than %zu bytes", path, cap - 1);
    if (len < min_len)
        return capa_fail(err, errlen, CAPA_ERANGE,
                         min_len == 1 ? "%s: must not be empty" : "%s: shorter than %zu bytes",
                         path, min_len);
    if (allowed) {
        bool ok[256] = { false };
        for (const char *a = allowed; *a; a++)
            ok[(unsigned char) *a] = true;
        for (size_t i = 0; i < len; i++)
            if (!ok[(unsigned char) s[i]])
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 (unsigned char) s[i] >= 0x20 && (unsigned char) s[i] < 0x7f
                                     ? "%s: character '%c' is not allowed"
                                     : "%s: byte 0x%02x is not allowed",
                                 path, (unsigned char) s[i] >= 0x20 && (unsigned char) s[i] < 0x7f
                                           ? s[i] : (unsigned char) s[i]);
        return 0;
    }
    if (!pjson_utf8_valid(s, len))
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: not valid UTF-8", path);
    const unsigned char *u = (const unsigned char *) s;
    for (size_t i = 0; i < len; i++) {
        if (u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xC2 && i + 1 < len && u[i + 1] < 0xA0))
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: contains a control character", path);
    }
    return 0;
}

int pjson_string(const cJSON *obj, const char *where, const char *key, bool required,
                 size_t min_len, char *out, size_t cap, const char *allowed,
                 char *err, size_t errlen)
{
    const cJSON *item;
    int rc = s_find(obj, where, key, required, &item, err, errlen);
    if (rc || !item)
        return rc;
    if (!cJSON_IsString(item) || !item->valuestring)
        return s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected a string, got %s",
                         s_kind(item));
    rc = pjson_check_text(item->valuestring, NULL, min_len, cap, allowed, NULL, 0);
    if (rc) {
        /* Run the check again, now with the path, for the message. */
        char path[160];
        pjson_path(path, sizeof path, where, key);
        return pjson_check_text(item->valuestring, path, min_len, cap, allowed, err, errlen);
    }
    memcpy(out, item->valuestring, strlen(item->valuestring) + 1);
    return 0;
}

static const cJSON *s_container(const cJSON *obj, const char *where, const char *key,
                                bool required, bool array, size_t max_count, int *rc,
                                char *err, size_t errlen)
{
    const cJSON *item;
    *rc = s_find(obj, where, key, required, &item, err, errlen);
    if (*rc || !item)
        return NULL;
    if (array ? !cJSON_IsArray(item) : !cJSON_IsObject(item)) {
        *rc = s_fail_at(err, errlen, CAPA_EINVAL, where, key, "expected %s, got %s",
                        array ? "an array" : "an object", s_kind(item));
        return NULL;
    }
    if (array) {
        size_t n = 0;
        for (const cJSON *c = item->child; c; c = c->next)
            if (++n > max_count) {
                *rc = s_fail_at(err, errlen, CAPA_ERANGE, where, key, "more than %zu entries",
                                max_count);
                return NULL;
            }
    }
    return item;
}

const cJSON *pjson_array(const cJSON *obj, const char *where, const char *key, bool required,
                         size_t max_count, int *rc, char *err, size_t errlen)
{
    return s_container(obj, where, key, required, true, max_count, rc, err, errlen);
}

const cJSON *pjson_object(const cJSON *obj, const char *where, const char *key, bool required,
                          int *rc, char *err, size_t errlen)
{
    return s_container(obj, where, key, required, false, 0, rc, err, errlen);
}

int pjson_only_keys(const cJSON *obj, const char *where, const char *const *known,
                    char *err, size_t errlen)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = c->string && strcmp(c->string, *k) == 0;
        if (!ok) {
            char path[160];
            char shown[48];
            snprintf(shown, sizeof shown, "%s", c->string ? c->string : "");
            for (char *p = shown; *p; p++)
                if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
                    *p = '?';
            pjson_path(path, sizeof path, where, shown);
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown field", path);
        }
    }
    return 0;
}

int pjson_no_duplicates(const cJSON *item, const char *where, char *err, size_t errlen)
{
    if (cJSON_IsObject(item)) {
        /* Objects in our documents are small; a quadratic check with an
         * early cap keeps a hostile object from costing more than ~1e6 steps. */
        size_t n = 0;
        for (const cJSON *a = item->child; a; a = a->next, n++) {
            if (n < 1024)
                for (const cJSON *b = a->next; b; b = b->next)
                    if (a->string && b->string && strcmp(a->string, b->string) == 0) {
                        char path[160], shown[48];
                        snprintf(shown, sizeof shown, "%s", a->string);
                        for (char *p = shown; *p; p++)
                            if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
                                *p = '?';
                        pjson_path(path, sizeof path, where, shown);
                        return capa_fail(err, errlen, CAPA_EINVAL, "%s: appears twice", path);
                    }
        }
        if (n > 1024)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: object with more than 1024 fields",
                             where && *where ? where : "message");
    }
    for (const cJSON *c = item->child; c; c = c->next) {
        int rc = pjson_no_duplicates(c, where, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

cJSON *pjson_parse(const char *text, size_t len, int max_depth, char *err, size_t errlen)
{
    if (!pjson_utf8_valid(text, len)) {
        capa_fail(err, errlen, CAPA_EINVAL, "not valid UTF-8 text (or contains a NUL byte)");
        return NULL;
    }
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) text[i];
        if (in_string) {
            if (c == '\\') {
                if (i + 5 < len && text[i + 1] == 'u' && memcmp(text + i + 2, "0000", 4) == 0) {
                    capa_fail(err, errlen, CAPA_EINVAL, "\\u0000 inside a string at byte %zu", i);
                    return NULL;
                }
                i++;
            } else if (c == '"') {
                in_string = false;
            } else if (c < 0x20) {
                capa_fail(err, errlen, CAPA_EINVAL, "raw control character inside a string at byte %zu", i);
                return NULL;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth) {
                capa_fail(err, errlen, CAPA_EINVAL, "nested deeper than %d levels", max_depth);
                return NULL;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *end = NULL;
    cJSON *root = json_parse_opts(copy, &end, 1);
    if (!root) {
        size_t at = end && end >= copy ? (size_t) (end - copy) : 0;
        capa_fail(err, errlen, CAPA_EINVAL, "invalid JSON near byte %zu", at);
    }
    free(copy);
    return root;
}

/* cJSON prints numbers with an approximate round-trip test that loses the
 * last digits of large integers and some doubles: print them ourselves, in
 * the shortest of %.15g/%.16g/%.17g that reads back exactly. */
cJSON *pjson_number(double v)
{
    if (!isfinite(v))
        return NULL;
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (v == 0)
        snprintf(buf, sizeof buf, "0");   /* also -0: JSON readers disagree on it */
    return cJSON_CreateRaw(buf);
}

cJSON *pjson_add_number(cJSON *obj, const char *key, double v)
{
    cJSON *item = pjson_number(v);
    if (item && !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}
