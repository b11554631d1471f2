/* status.c - the worker's status line and status.json. */
#include "status.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "err.h"
#include "json.h"
#include "spool.h"

static void s_ago(int64_t then, int64_t now, char *out, size_t cap)
{
    if (then <= 0) {
        snprintf(out, cap, "none yet");
        return;
    }
    int64_t d = now - then;
    if (d < 0)
        d = 0;
    if (d < 120)
        snprintf(out, cap, "%" PRId64 " s ago", d);
    else if (d < 7200)
        snprintf(out, cap, "%" PRId64 " min ago", d / 60);
    else
        snprintf(out, cap, "%" PRId64 " h ago", d / 3600);
}

void status_format(const worker_status_t *s, int64_t now, char *out, size_t cap)
{
    char run[64], ack[32];
    if (s->run_id >= 0)
        snprintf(run, sizeof run, "run %" PRId64 " %s", s->run_id, s->kind);
    else
        snprintf(run, sizeof run, "no run");
    s_ago(s->last_ack, now, ack, sizeof ack);
    snprintf(out, cap,
             "games %" PRIu64 " | %s | %.1f pairs/min | CPU %.0f%% of %d core(s) | last ACK %s | "
             "spool %zu pair(s) | %s%s%s",
             s->games, run, s->pairs_per_min, 100.0 * s->cpu_share, s->cores, ack, s->spool_pairs,
             s->state, s->note[0] ? ": " : "", s->note);
}

void status_token_hint(const char *token, char *out, size_t cap)
{
    if (!token[0])
        snprintf(out, cap, "(none)");
    else
        snprintf(out, cap, "%.9s...", token);
}

int status_save(const char *dir, const worker_status_t *s, char *err, size_t errlen)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    cJSON_AddNumberToObject(o, "pid", (double) s->pid);
    cJSON_AddNumberToObject(o, "started", (double) s->started);
    cJSON_AddNumberToObject(o, "updated", (double) s->updated);
    cJSON_AddStringToObject(o, "state", s->state);
    cJSON_AddStringToObject(o, "coordinator", s->coordinator);
    cJSON_AddStringToObject(o, "token", s->token_hint);
    cJSON_AddStringToObject(o, "contributor", s->contributor);
    cJSON_AddStringToObject(o, "worker_id", s->worker_id);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddNumberToObject(o, "threads", s->threads);
    cJSON_AddNumberToObject(o, "cores", s->cores);
    cJSON_AddStringToObject(o, "engine_version", s->engine_version);
    cJSON_AddNumberToObject(o, "bench", (double) s->bench);
    cJSON_AddNumberToObject(o, "games", (double) s->games);
    cJSON_AddNumberToObject(o, "pairs", (double) s->pairs);
    cJSON_AddNumberToObject(o, "run_id", (double) s->run_id);
    cJSON_AddStringToObject(o, "kind", s->kind);
    cJSON_AddNumberToObject(o, "pairs_per_min", s->pairs_per_min);
    cJSON_AddNumberToObject(o, "cpu_share", s->cpu_share);
    cJSON_AddNumberToObject(o, "last_ack", (double) s->last_ack);
    cJSON_AddNumberToObject(o, "acked_pairs", (double) s->acked_pairs);
    cJSON_AddNumberToObject(o, "spool_batches", (double) s->spool_batches);
    cJSON_AddNumberToObject(o, "spool_pairs", (double) s->spool_pairs);
    cJSON_AddStringToObject(o, "note", s->note);
    cJSON_AddNumberToObject(o, "exit_status", s->exit_status);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/" STATUS_FILE, dir);
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL: written with its length */
    int rc = spool_write_atomic(path, text, len + 1, err, errlen);
    free(text);
    return rc;
}

static int64_t s_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (int64_t) v->valuedouble : 0;
}

static double s_dbl(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static void s_str(const cJSON *o, const char *key, char *out, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(out, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

int status_load(const char *dir, worker_status_t *s, char *err, size_t errlen)
{
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/" STATUS_FILE, dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "no %s: this worker has not run yet",
                         path);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *o = json_parse(buf);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return capa_fail(err, errlen, CAPA_EINVAL, "%s is not a status object", path);
    }
    memset(s, 0, sizeof *s);
    s->pid = s_num(o, "pid");
    s->started = s_num(o, "started");
    s->updated = s_num(o, "updated");
    s_str(o, "state", s->state, sizeof s->state);
    s_str(o, "coordinator", s->coordinator, sizeof s->coordinator);
    s_str(o, "token", s->token_hint, sizeof s->token_hint);
    s_str(o, "contributor", s->contributor, sizeof s->contributor);
    s_str(o, "worker_id", s->worker_id, sizeof s->worker_id);
    s_str(o, "name", s->name, sizeof s->name);
    s->threads = (int) s_num(o, "threads");
    s->cores = (int) s_num(o, "cores");
    s_str(o, "engine_version", s->engine_version, sizeof s->engine_version);
    s->bench = s_num(o, "bench");
    s->games = (uint64_t) s_num(o, "games");
    s->pairs = (uint64_t) s_num(o, "pairs");
    s->run_id = s_num(o, "run_id");
    s_str(o, "kind", s->kind, sizeof s->kind);
    s->pairs_per_min = s_dbl(o, "pairs_per_min");
    s->cpu_share = s_dbl(o, "cpu_share");
    s->last_ack = s_num(o, "last_ack");
    s->acked_pairs = (uint64_t) s_num(o, "acked_pairs");
    s->spool_batches = (size_t) s_num(o, "spool_batches");
    s->spool_pairs = (size_t) s_num(o, "spool_pairs");
    s_str(o, "note", s->note, sizeof s->note);
    s->exit_status = (int) s_num(o, "exit_status");
    cJSON_Delete(o);
    return 0;
}
