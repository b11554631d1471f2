/* cli.c - what the capa commands share: options, errors, JSON requests and
 * the printing of their answers (see cli.h). */
#include "json.h"
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "err.h"
#include "timefmt.h"

const char *cli_opt(const cli_args_t *a, const char *key)
{
    for (int i = a->nopts; i-- > 0;)
        if (strcmp(a->keys[i], key) == 0)
            return a->vals[i];
    return NULL;
}

int cli_check_args(const cli_args_t *a, const char *const *allowed, int npos, const char *usage)
{
    for (int i = 0; i < a->nopts; i++) {
        bool ok = false;
        for (size_t k = 0; allowed && allowed[k]; k++)
            ok = ok || strcmp(allowed[k], a->keys[i]) == 0;
        if (!ok) {
            cli_error("unknown option --%s; usage: capa %s", a->keys[i], usage);
            return CLI_USAGE;
        }
    }
    if (npos >= 0 && a->argc != npos) {
        cli_error("usage: capa %s", usage);
        return CLI_USAGE;
    }
    return CLI_OK;
}

int64_t cli_parse_id(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 1 || v > (1LL << 53)) {
        cli_error("\"%s\" is not a run id (a positive number)", s);
        return -1;
    }
    return v;
}

int cli_run_args(const cli_args_t *a, const char *const *allowed, const char *usage,
                 const char *suffix, int64_t *id, char *path, size_t cap)
{
    int rc = cli_check_args(a, allowed, 1, usage);
    if (rc)
        return rc;
    *id = cli_parse_id(a->argv[0]);
    if (*id < 0)
        return CLI_USAGE;
    snprintf(path, cap, "/api/runs/%lld%s", (long long) *id, suffix);
    return CLI_OK;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("capa: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_fetch(const cli_opts_t *o, const char *method, const char *path, const char *body,
              size_t len, client_response_t *out)
{
    client_response_t r;
    char err[512];
    memset(out, 0, sizeof *out);
    int rc = client_request(o->server, o->token, method, path, body, len, o->timeout_s, &r, err,
                            sizeof err);
    if (rc == CAPA_EINVAL) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (rc < 0) {
        cli_error("%s (is the coordinator running? set --server or CAPA_SERVER)", err);
        return CLI_UNREACHABLE;
    }
    if (r.status < 200 || r.status > 299) {
        char msg[600];
        client_error_text(&r, msg, sizeof msg);
        cJSON *j = json_parse_len(r.body, r.len);
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
        cli_error("%s %s: %s %ld%s%s: %s", method, path,
                  r.status >= 500 ? "server error" : "refused", r.status,
                  cJSON_IsString(code) ? " " : "", cJSON_IsString(code) ? code->valuestring : "",
                  msg[0] ? msg : "(no message)");
        cJSON_Delete(j);
        long st = r.status;
        client_response_free(&r);
        return st >= 400 && st < 500 ? CLI_REFUSED : CLI_SERVER;
    }
    *out = r;
    return CLI_OK;
}

static int s_json(const cli_opts_t *o, const char *method, const char *path, const char *body,
                  size_t len, cJSON **out)
{
    *out = NULL;
    client_response_t r;
    int rc = cli_fetch(o, method, path, body, len, &r);
    if (rc != CLI_OK)
        return rc;
    *out = json_parse_len(r.body, r.len);
    client_response_free(&r);
    if (!*out) {
        cli_error("%s %s: the answer is not JSON", method, path);
        return CLI_SERVER;
    }
    return CLI_OK;
}

int cli_get_json(const cli_opts_t *o, const char *path, cJSON **out)
{
    return s_json(o, "GET", path, NULL, 0, out);
}

int cli_get_or_print(const cli_opts_t *o, const char *path, cJSON **out)
{
    int rc = cli_get_json(o, path, out);
    if (rc == CLI_OK && o->json) {
        cli_print_json(*out);
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

int cli_post_json(const cli_opts_t *o, const char *path, const char *body, size_t len,
                  cJSON **out)
{
    return s_json(o, "POST", path, body ? body : "", body ? len : 0, out);
}

void cli_print_json(const cJSON *j)
{
    char *text = cJSON_Print(j);
    if (text) {
        puts(text);
        free(text);
    }
}

double cli_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *cli_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

void cli_time_utc(double ms, char *buf, size_t cap)
{
    timefmt_utc_minutes(ms > 0 ? (int64_t) ms : 0, buf, cap);
}

int cli_print_table(table_t *t)
{
    char *text = t ? table_format(t) : NULL;
    table_destroy(&t);
    if (!text) {
        cli_error("out of memory");
        return CLI_SERVER;
    }
    fputs(text, stdout);
    free(text);
    return CLI_OK;
}

int cli_double(const cli_args_t *a, const char *key, double def, double *out)
{
    const char *v = cli_opt(a, key);
    *out = def;
    if (!v)
        return 0;
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end || !isfinite(d)) {
        cli_error("--%s \"%s\" is not a number", key, v);
        return -1;
    }
    *out = d;
    return 0;
}
