/* http_api.c - the JSON endpoints: runs, reports, workers, contributors,
 * status (docs/api.md; piece values in http_values.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "json.h"
#include "admin.h"
#include "err.h"
#include "http_int.h"
#include "log.h"
#include "report.h"
#include "token.h"

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Maps a store/admin error to a reply. */
static int s_fail(http_req_t *req, int rc, const char *msg)
{
    switch (rc) {
    case CAPA_EDB:
        http_db_failed(req);
        return http_reply_error(req, 503, "db_unavailable", "database: %s", msg);
    case CAPA_ENOTFOUND:
        return http_reply_error(req, 404, "not_found", "%s", msg);
    case CAPA_EINVAL:
    case CAPA_ERANGE:
        return http_reply_error(req, 400, "invalid", "%s", msg);
    case CAPA_ESTATE:
    case CAPA_EDUP:
        return http_reply_error(req, 409, "conflict", "%s", msg);
    default:
        return http_reply_error(req, 500, "internal", "%s", msg);
    }
}

static cJSON *s_parse_or_null(const char *text)
{
    cJSON *j = text ? json_parse(text) : NULL;
    return j ? j : cJSON_CreateNull();
}

/* ---- runs ---------------------------------------------------------------------- */

static int s_mask(const char *arg, int (*parse)(const char *), unsigned *mask)
{
    *mask = 0;
    if (!arg || !*arg)
        return 0;
    char buf[128];
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int v = parse(t);
        if (v < 0)
            return -1;
        *mask |= 1u << v;
    }
    return 0;
}

static int s_kind_parse(const char *name)
{
    proto_kind_t kind;
    return proto_kind_parse(name, &kind) < 0 ? -1 : (int) kind;
}

static int s_uint_arg(http_req_t *req, const char *name, long lo, long hi, long def, long *out)
{
    const char *a = http_arg(req, name);
    *out = def;
    if (!a)
        return 0;
    char *end;
    long v = strtol(a, &end, 10);
    if (!*a || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static cJSON *s_run_json(const store_run_t *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double) r->id);
    cJSON_AddStringToObject(o, "name", r->name ? r->name : "");
    cJSON_AddStringToObject(o, "kind", proto_kind_name(r->kind));
    cJSON_AddStringToObject(o, "status", store_run_status_name(r->status));
    cJSON_AddNumberToObject(o, "priority", r->priority);
    cJSON_AddNumberToObject(o, "pairs", (double) r->totals.pairs);
    cJSON_AddNumberToObject(o, "pairs_planned", (double) r->pairs_planned);
    cJSON *p = cJSON_AddArrayToObject(o, "penta");
    for (int i = 0; i < 5; i++)
        cJSON_AddItemToArray(p, cJSON_CreateNumber((double) r->totals.penta[i]));
    cJSON_AddNumberToObject(o, "wins", (double) r->totals.wins);
    cJSON_AddNumberToObject(o, "draws", (double) r->totals.draws);
    cJSON_AddNumberToObject(o, "losses", (double) r->totals.losses);
    cJSON_AddNumberToObject(o, "cpu_hours", r->totals.cpu_ms / 3.6e6);
    cJSON_AddNumberToObject(o, "created_at_ms", (double) r->created_at_ms);
    cJSON_AddNumberToObject(o, "started_at_ms", (double) r->started_at_ms);
    cJSON_AddNumberToObject(o, "finished_at_ms", (double) r->finished_at_ms);
    if (r->result)
        cJSON_AddItemToObject(o, "result", s_parse_or_null(r->result));
    else
        cJSON_AddNullToObject(o, "result");
    return o;
}

/* Replies 200 with what build made, or passes on the reply build already gave. */
static int s_reply_built(http_req_t *req, cJSON *(*build)(http_req_t *, int *))
{
    int rc = MHD_NO;
    cJSON *o = build(req, &rc);
    return o ? http_reply_json(req, 200, o) : rc;
}

cJSON *http_api_runs_json(http_req_t *req, int *rc)
{
    store_run_filter_t f;
    memset(&f, 0, sizeof f);
    long limit, offset;
    if (s_mask(http_arg(req, "status"), store_run_status_parse, &f.status_mask) < 0 ||
        s_mask(http_arg(req, "kind"), s_kind_parse, &f.kind_mask) < 0 ||
        s_uint_arg(req, "limit", 1, 1000, 100, &limit) < 0 ||
        s_uint_arg(req, "offset", 0, 100000000, 0, &offset) < 0) {
        *rc = http_reply_error(req, 400, "bad_request",
                               "status, kind, limit (1..1000) or offset is not valid");
        return NULL;
    }
    f.limit = (size_t) limit;
    f.offset = (size_t) offset;
    f.with_doc = true;   /* for the result (verdict) */
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return NULL;
    }
    store_run_t *runs = NULL;
    size_t n = 0;
    int r = store_run_list(st, &f, &runs, &n);
    if (r < 0) {
        *rc = s_fail(req, r, store_last_error(st));
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(o, "runs");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(list, s_run_json(&runs[i]));
    store_run_list_free(&runs, n);
    return o;
}

int http_api_runs_list(http_req_t *req)
{
    return s_reply_built(req, http_api_runs_json);
}

int http_api_runs_submit(http_req_t *req)
{
    int rc = MHD_NO;
    http_who_t who;
    if (!http_authorize(req, HTTP_NEED_ADMIN, &who, &rc))
        return rc;
    if (!req->body || req->body_len == 0)
        return http_reply_error(req, 400, "bad_request", "the body must be a run document (JSON)");
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    char err[1024];
    int64_t id = 0, series = 0;
    cJSON *warnings = NULL;
    int r = admin_submit(st, req->body, req->body_len, who.contributor_id, &id, &series, &warnings,
                         err, sizeof err);
    if (r < 0)
        cJSON_Delete(warnings);
    if (r == CAPA_EDB)
        return s_fail(req, r, err);
    if (r < 0)
        return http_reply_error(req, 400, "invalid_run", "%s", err);
    LOG(LOG_INFO, "http: run %lld submitted by %s", (long long) id, who.name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double) id);
    cJSON_AddStringToObject(o, "status", "pending");
    if (series > 0)   /* a study series: id is its first run */
        cJSON_AddNumberToObject(o, "series", (double) series);
    /* what a values study will not determine: said now, not after its games */
    if (o && warnings)
        cJSON_AddItemToObject(o, "warnings", warnings);
    else
        cJSON_Delete(warnings);
    return http_reply_json(req, 201, o);
}

int http_api_run_show(http_req_t *req, int64_t id, bool report_only)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    char err[1024];
    cJSON *rep = NULL;
    int r = report_build(st, id, 0, &rep, err, sizeof err);
    if (r < 0)
        return s_fail(req, r, err);
    if (!report_only) {
        store_run_t run;
        memset(&run, 0, sizeof run);
        if (store_run_get(st, id, &run) == 0) {
            cJSON_AddItemToObject(rep, "doc", s_parse_or_null(run.doc));
            cJSON_AddItemToObject(rep, "state", s_parse_or_null(run.state));
            store_run_clear(&run);
        }
    }
    return http_reply_json(req, 200, rep);
}

/* Stop (resume false) or resume a run: the same admin check and reply. */
static int s_run_set(http_req_t *req, int64_t id, bool resume)
{
    int rc = MHD_NO;
    http_who_t who;
    if (!http_authorize(req, HTTP_NEED_ADMIN, &who, &rc))
        return rc;
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    char err[512];
    int r = resume ? admin_run_resume(st, id, err, sizeof err) : admin_run_stop(st, id, err, sizeof err);
    if (r < 0)
        return s_fail(req, r, err);
    const char *status = resume ? "running" : "stopped";
    LOG(LOG_INFO, "http: run %lld %s by %s", (long long) id, resume ? "resumed" : "stopped", who.name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double) id);
    cJSON_AddStringToObject(o, "status", status);
    return http_reply_json(req, 200, o);
}

int http_api_run_stop(http_req_t *req, int64_t id)
{
    return s_run_set(req, id, false);
}

int http_api_run_resume(http_req_t *req, int64_t id)
{
    return s_run_set(req, id, true);
}

/* ---- workers and contributors -------------------------------------------------------- */

cJSON *http_api_workers_json(http_req_t *req, int *rc)
{
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return NULL;
    }
    store_worker_t *ws = NULL;
    size_t n = 0;
    store_contributor_t *cs = NULL;
    size_t nc = 0;
    int r = store_worker_list(st, 0, &ws, &n);
    if (r == 0)
        r = store_contributor_list(st, &cs, &nc);
    if (r < 0) {
        store_worker_list_free(&ws, n);
        *rc = s_fail(req, r, store_last_error(st));
        return NULL;
    }
    int64_t now = s_now_ms();
    cJSON *o = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(o, "workers");
    int live = 0;
    for (size_t i = 0; i < n; i++) {
        const store_worker_t *w = &ws[i];
        const char *who = "";
        for (size_t k = 0; k < nc; k++)
            if (cs[k].id == w->contributor_id)
                who = cs[k].name;
        bool is_live = now - w->last_seen_ms <= HTTP_LIVE_SECONDS * 1000;
        live += is_live;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "id", w->id);
        cJSON_AddStringToObject(e, "name", w->name);
        cJSON_AddStringToObject(e, "contributor", who);
        cJSON_AddBoolToObject(e, "live", is_live);
        cJSON_AddNumberToObject(e, "cores", w->cores);
        cJSON_AddNumberToObject(e, "concurrency", w->concurrency);
        cJSON_AddStringToObject(e, "engine_version", w->engine_version);
        cJSON_AddNumberToObject(e, "nps", w->nps);
        cJSON_AddNumberToObject(e, "pairs", (double) w->pairs);
        cJSON_AddNumberToObject(e, "games", (double) w->games);
        cJSON_AddNumberToObject(e, "cpu_hours", w->cpu_ms / 3.6e6);
        cJSON_AddNumberToObject(e, "first_seen_ms", (double) w->first_seen_ms);
        cJSON_AddNumberToObject(e, "last_seen_ms", (double) w->last_seen_ms);
        cJSON_AddBoolToObject(e, "flagged", w->flagged);
        if (w->flagged)
            cJSON_AddStringToObject(e, "flag_reason", w->flag_reason);
        cJSON_AddItemToArray(list, e);
    }
    cJSON_AddNumberToObject(o, "live", live);
    store_worker_list_free(&ws, n);
    free(cs);
    return o;
}

int http_api_workers(http_req_t *req)
{
    return s_reply_built(req, http_api_workers_json);
}

cJSON *http_api_contributors_json(http_req_t *req, int *rc)
{
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return NULL;
    }
    store_contributor_stats_t *cs = NULL;
    size_t n = 0;
    int r = store_contributor_stats(st, HTTP_LIVE_SECONDS, HTTP_RECENT_DAYS, &cs, &n);
    if (r < 0) {
        *rc = s_fail(req, r, store_last_error(st));
        return NULL;
    }
    /* shares: of the CPU time of all contributors, all time and recent */
    double cpu = 0, recent_cpu = 0;
    int64_t active = 0;
    for (size_t i = 0; i < n; i++) {
        cpu += (double) cs[i].cpu_ms;
        recent_cpu += (double) cs[i].recent_cpu_ms;
        active += cs[i].active_workers;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "recent_days", HTTP_RECENT_DAYS);
    cJSON_AddNumberToObject(o, "live_seconds", HTTP_LIVE_SECONDS);
    cJSON *tot = cJSON_AddObjectToObject(o, "total");
    cJSON_AddNumberToObject(tot, "cpu_hours", cpu / 3.6e6);
    cJSON_AddNumberToObject(tot, "cpu_hours_recent", recent_cpu / 3.6e6);
    cJSON_AddNumberToObject(tot, "active_workers", (double) active);
    cJSON *list = cJSON_AddArrayToObject(o, "contributors");
    for (size_t i = 0; i < n; i++) {
        const store_contributor_stats_t *c = &cs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "id", (double) c->id);
        cJSON_AddStringToObject(e, "name", c->name);
        cJSON_AddBoolToObject(e, "admin", c->is_admin);
        cJSON_AddBoolToObject(e, "revoked", c->revoked);
        cJSON_AddNumberToObject(e, "workers", (double) c->workers);
        cJSON_AddNumberToObject(e, "active_workers", (double) c->active_workers);
        cJSON_AddNumberToObject(e, "last_seen_ms", (double) c->last_seen_ms);
        cJSON_AddNumberToObject(e, "created_at_ms", (double) c->created_at_ms);
        cJSON_AddNumberToObject(e, "pairs", (double) c->pairs);
        cJSON_AddNumberToObject(e, "games", (double) c->games);
        cJSON_AddNumberToObject(e, "cpu_hours", (double) c->cpu_ms / 3.6e6);
        cJSON_AddNumberToObject(e, "share", cpu > 0 ? (double) c->cpu_ms / cpu : 0.0);
        cJSON_AddNumberToObject(e, "pairs_recent", (double) c->recent_pairs);
        cJSON_AddNumberToObject(e, "games_recent", (double) c->recent_games);
        cJSON_AddNumberToObject(e, "cpu_hours_recent", (double) c->recent_cpu_ms / 3.6e6);
        cJSON_AddNumberToObject(e, "share_recent",
                                recent_cpu > 0 ? (double) c->recent_cpu_ms / recent_cpu : 0.0);
        cJSON_AddItemToArray(list, e);
    }
    free(cs);
    return o;
}

int http_api_contributors(http_req_t *req)
{
    return s_reply_built(req, http_api_contributors_json);
}

int http_api_contributor_add(http_req_t *req)
{
    int rc = MHD_NO;
    http_who_t who;
    if (!http_authorize(req, HTTP_NEED_ADMIN, &who, &rc))
        return rc;
    cJSON *in = req->body ? json_parse_len(req->body, req->body_len) : NULL;
    if (!cJSON_IsObject(in)) {
        cJSON_Delete(in);
        return http_reply_error(req, 400, "bad_json", "the body must be a JSON object {\"name\": ...}");
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(in, "name");
    const cJSON *adm = cJSON_GetObjectItemCaseSensitive(in, "admin");
    if (!cJSON_IsString(name) || (adm && !cJSON_IsBool(adm))) {
        cJSON_Delete(in);
        return http_reply_error(req, 400, "invalid",
                                "name must be a string and admin (optional) a boolean");
    }
    for (const cJSON *f = in->child; f; f = f->next)
        if (strcmp(f->string, "name") != 0 && strcmp(f->string, "admin") != 0) {
            char key[64];
            snprintf(key, sizeof key, "%s", f->string);
            cJSON_Delete(in);
            return http_reply_error(req, 400, "invalid", "unknown field \"%s\"", key);
        }
    store_t *st = http_db(req);
    if (!st) {
        cJSON_Delete(in);
        return http_reply_db_down(req);
    }
    char token[TOKEN_TEXT_MAX], err[512];
    int64_t id = 0;
    bool is_admin = cJSON_IsTrue(adm);
    int r = admin_contributor_add(st, name->valuestring, is_admin, token, sizeof token, &id, err,
                                  sizeof err);
    if (r < 0) {
        cJSON_Delete(in);
        return s_fail(req, r, err);
    }
    LOG(LOG_INFO, "http: contributor %lld added by %s", (long long) id, who.name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double) id);
    cJSON_AddStringToObject(o, "name", name->valuestring);
    cJSON_AddBoolToObject(o, "admin", is_admin);
    cJSON_AddStringToObject(o, "token", token);
    sodium_memzero(token, sizeof token);
    cJSON_Delete(in);
    return http_reply_json(req, 201, o);
}

/* ---- status ------------------------------------------------------------------- */

int http_api_status(http_req_t *req)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    http_figures_t fig;
    int r = http_metrics_gather(req->srv, st, &fig);
    if (r < 0)
        return s_fail(req, r, store_last_error(st));
    cJSON *o = cJSON_CreateObject();
    cJSON *runs = cJSON_AddObjectToObject(o, "runs");
    for (int s = STORE_RUN_PENDING; s <= STORE_RUN_FAILED; s++)
        cJSON_AddNumberToObject(runs, store_run_status_name((store_run_status_t) s),
                                (double) fig.runs[s]);
    cJSON_AddNumberToObject(o, "pairs_remaining", (double) fig.pairs_remaining);
    cJSON_AddNumberToObject(o, "pairs_per_second", fig.pairs_per_second);
    cJSON_AddNumberToObject(o, "pairs_total", (double) fig.pairs_total);
    cJSON_AddNumberToObject(o, "cpu_hours_total", fig.cpu_ms_total / 3.6e6);
    cJSON_AddNumberToObject(o, "workers", (double) fig.workers);
    cJSON_AddNumberToObject(o, "workers_live", (double) fig.workers_live);
    cJSON_AddNumberToObject(o, "contributors", (double) fig.contributors);
    http_live_t live;
    pthread_mutex_lock(&req->srv->mu);
    live = req->srv->live;
    pthread_mutex_unlock(&req->srv->mu);
    if (live.at_ms) {
        cJSON *l = cJSON_AddObjectToObject(o, "live");
        cJSON_AddNumberToObject(l, "at_ms", (double) live.at_ms);
        cJSON_AddNumberToObject(l, "workers_connected", live.workers_connected);
        cJSON_AddNumberToObject(l, "pairs_leased", (double) live.pairs_leased);
        cJSON_AddNumberToObject(l, "pairs_queued", (double) live.pairs_queued);
        cJSON_AddNumberToObject(l, "pairs_per_second", live.pairs_per_second);
    } else {
        cJSON_AddNullToObject(o, "live");
    }
    return http_reply_json(req, 200, o);
}
