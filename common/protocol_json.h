/* protocol_json.h - checked readers of cJSON fields, with error texts that
 * name the field ("pairs[3].fen: expected a string").
 *
 * The protocol codec, the run-document parser and the config loader read
 * untrusted JSON through these. Every reader takes the object, a location
 * prefix for messages (`where`, "" or NULL at the top level), the key, and
 * whether the field is required. An absent optional field leaves *out
 * untouched and returns 0, so callers store the default first.
 *
 * Return values: 0, CAPA_EINVAL (missing, wrong type, bad characters) or
 * CAPA_ERANGE (a number or length outside its bounds); err gets the text.
 */
#ifndef CAPA_PROTOCOL_JSON_H
#define CAPA_PROTOCOL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The largest integer a JSON number carries exactly (2^53 - 1). */
#define PJSON_INT_MAX INT64_C(9007199254740991)

/* Writes "<where>.<key>" (or "<key>" when where is empty) into buf. */
void pjson_path(char *buf, size_t cap, const char *where, const char *key);

/* Integers: a JSON number that is finite and integral, lo <= v <= hi. */
int pjson_int(const cJSON *obj, const char *where, const char *key, bool required,
              int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen);
/* The same for an int field. */
int pjson_int32(const cJSON *obj, const char *where, const char *key, bool required,
                int lo, int hi, int *out, char *err, size_t errlen);
/* Finite doubles, lo <= v <= hi. */
int pjson_double(const cJSON *obj, const char *where, const char *key, bool required,
                 double lo, double hi, double *out, char *err, size_t errlen);
int pjson_bool(const cJSON *obj, const char *where, const char *key, bool required,
               bool *out, char *err, size_t errlen);

/* Strings copied into out (capacity cap, so at most cap-1 bytes; min_len
 * bytes at least). With allowed == NULL the string must be valid UTF-8
 * without control characters; otherwise every byte must be in allowed. */
int pjson_string(const cJSON *obj, const char *where, const char *key, bool required,
                 size_t min_len, char *out, size_t cap, const char *allowed,
                 char *err, size_t errlen);

/* Checks a string value already in hand with the same rules; `path` names it. */
int pjson_check_text(const char *s, const char *path, size_t min_len, size_t cap,
                     const char *allowed, char *err, size_t errlen);

/* Returns the array/object at key (or NULL when absent and not required);
 * *rc gets 0 or the error. Arrays longer than max_count are CAPA_ERANGE. */
const cJSON *pjson_array(const cJSON *obj, const char *where, const char *key, bool required,
                         size_t max_count, int *rc, char *err, size_t errlen);
const cJSON *pjson_object(const cJSON *obj, const char *where, const char *key, bool required,
                          int *rc, char *err, size_t errlen);

/* Rejects keys of obj that are not in the NULL-terminated list `known`
 * (run documents and config files are strict; protocol messages are not). */
int pjson_only_keys(const cJSON *obj, const char *where, const char *const *known,
                    char *err, size_t errlen);

/* Rejects objects with the same key twice, at any depth. */
int pjson_no_duplicates(const cJSON *item, const char *where, char *err, size_t errlen);

/* True when s[0..len) is valid UTF-8 (no overlong forms, surrogates or code
 * points above U+10FFFF) and has no NUL byte. */
bool pjson_utf8_valid(const char *s, size_t len);

/* Parses untrusted JSON text of len bytes (not necessarily NUL-terminated):
 * checks UTF-8, raw control characters inside strings, "\u0000" escapes and
 * a nesting depth of at most max_depth before handing the text to cJSON, and
 * refuses trailing garbage. Returns the tree (caller frees with cJSON_Delete)
 * or NULL with err filled. */
cJSON *pjson_parse(const char *text, size_t len, int max_depth, char *err, size_t errlen);

/* Numbers that print exactly (cJSON's own printing drops the last digits
 * of integers above ~1e15); NULL for NaN, infinities or ENOMEM. The item is
 * a cJSON raw item: fine for printing, not for reading back from the tree. */
cJSON *pjson_number(double v);
cJSON *pjson_add_number(cJSON *obj, const char *key, double v);

/* For the readers above: returns a call's non-zero code at once. */
#define TRY(expr)                                                                            \
    do {                                                                                     \
        int rc_ = (expr);                                                                    \
        if (rc_)                                                                             \
            return rc_;                                                                      \
    } while (0)

#endif
