/* http_int.h - what the http*.c and pages*.c files share; not for other
 * modules. One http_req_t per request: its method, path, body, and the
 * database connection it borrowed from the server's pool (if any).
 *
 * Handlers answer with exactly one http_reply* call and return its result
 * (an MHD_Result); every reply helper takes ownership of the body it is
 * given.
 */
#ifndef CAPA_COORD_HTTP_INT_H
#define CAPA_COORD_HTTP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "http.h"
#include "http_buf.h"
#include "store.h"

struct http_server_s {
    struct MHD_Daemon *daemon;
    http_config_t cfg;
    int port;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    store_t *pool[HTTP_DB_POOL];   /* idle connections (NULL = none there) */
    int n_open;                    /* connections opened and not yet closed */
    http_live_t live;
    uint64_t requests, errors;     /* answered requests; 4xx/5xx among them */
    uint64_t pgn_uploads;
    int64_t rate_t0_ms, rate_pairs0;   /* the older sample for pairs per second */
    int64_t rate_t1_ms, rate_pairs1;   /* the newest sample */
};

typedef struct {
    http_server_t *srv;
    struct MHD_Connection *conn;
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* the URL path, unescaped by libmicrohttpd */
    char *body;               /* heap, NUL-terminated */
    size_t body_len, body_cap, body_limit;
    bool too_big;
    bool bad_uri;             /* a control byte in the raw path or query: 400 */
    bool replied;             /* a response is queued */
    store_t *st;              /* borrowed from the pool by http_db */
    bool db_failed;           /* the borrowed connection failed: close it */
} http_req_t;

typedef enum { HTTP_NEED_READ = 0, HTTP_NEED_CONTRIBUTOR = 1, HTTP_NEED_ADMIN = 2 } http_need_t;

/* Who asked: contributor id 0 = the configured admin token or nobody. */
typedef struct {
    bool known;
    bool is_admin;
    int64_t contributor_id;
    char name[STORE_TEXT_MAX];
} http_who_t;

/* ---- http.c ---- */

/* A database connection for this request (opened or borrowed; returned when
 * the request ends). NULL when the database cannot be reached: answer 503. */
store_t *http_db(http_req_t *req);
/* Marks the borrowed connection broken (it is closed instead of returned). */
void http_db_failed(http_req_t *req);

int http_reply(http_req_t *req, unsigned status, const char *content_type, char *body,
               size_t len);
/* Serialises j (and deletes it). */
int http_reply_json(http_req_t *req, unsigned status, cJSON *j);
/* {"error": message, "code": code}. */
int http_reply_error(http_req_t *req, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 503 {"code": "db_unavailable"}. */
int http_reply_db_down(http_req_t *req);
/* As http_reply, with extra headers (name, value pairs, NULL-terminated). */
int http_reply_headers(http_req_t *req, unsigned status, const char *content_type, char *body,
                       size_t len, const char *const *headers);

/* Checks the Authorization header for need. Returns true when allowed;
 * otherwise the 401/403/503 reply is queued into *rc and false returned. */
bool http_authorize(http_req_t *req, http_need_t need, http_who_t *who, int *rc);

/* Query argument (NULL if absent). */
const char *http_arg(http_req_t *req, const char *name);
/* Parses a positive decimal id (1..2^53); -1 if it is not one. */
int64_t http_parse_id(const char *s, size_t len);

/* ---- http_api.c ---- */
int http_api_runs_list(http_req_t *req);
int http_api_runs_submit(http_req_t *req);
int http_api_run_show(http_req_t *req, int64_t id, bool report_only);
int http_api_run_stop(http_req_t *req, int64_t id);
int http_api_run_resume(http_req_t *req, int64_t id);
int http_api_workers(http_req_t *req);
int http_api_contributors(http_req_t *req);
int http_api_contributor_add(http_req_t *req);
int http_api_status(http_req_t *req);
/* study series (http_series.c) */
int http_api_series_list(http_req_t *req);
int http_api_series_show(http_req_t *req, int64_t id);
int pages_series(http_req_t *req, int64_t id);
/* The JSON builders the pages share (caller deletes; NULL with a reply
 * queued into *rc on failure). */
cJSON *http_api_workers_json(http_req_t *req, int *rc);
cJSON *http_api_contributors_json(http_req_t *req, int *rc);
cJSON *http_api_runs_json(http_req_t *req, int *rc);

/* ---- http_values.c ---- */
/* GET /api/values[?variant=V]: the current best estimate per variant and
 * engine (values_best.h) and the values runs it was chosen from. */
int http_api_values(http_req_t *req);
/* Its JSON (caller deletes; NULL with a reply queued into *rc). */
cJSON *http_api_values_json(http_req_t *req, int *rc);

/* ---- http_runworkers.c ---- */
/* GET /api/runs/{id}/workers. */
int http_api_run_workers(http_req_t *req, int64_t id);
/* The run page's "Workers" section (a note in its place when the figures
 * cannot be read). */
void pages_run_workers(http_req_t *req, http_buf_t *b, int64_t id);

/* ---- http_pgn.c ---- */
int http_pgn_upload(http_req_t *req, int64_t task_id);
int http_pgn_download(http_req_t *req, int64_t run_id);

/* ---- http_metrics.c ---- */
int http_metrics_health(http_req_t *req);
int http_metrics_text(http_req_t *req);
/* Figures read from the database in one round of queries. */
typedef struct {
    int64_t runs[5];            /* by store_run_status_t */
    int64_t pairs_remaining;    /* planned minus stored, over pending and running runs */
    double pairs_per_second;    /* stored pairs per second over the last minute or so */
    int64_t pairs_total, cpu_ms_total;
    int64_t workers, workers_live, contributors;
    double db_seconds;          /* how long the queries took */
} http_figures_t;

/* 0 or a negative capa_err_t (the store's message says why). The rate comes
 * from the change of the stored pair total between calls (kept in srv). */
int http_metrics_gather(http_server_t *srv, store_t *st, http_figures_t *out);

/* ---- pages.c ---- */
int pages_runs(http_req_t *req);
int pages_run(http_req_t *req, int64_t id);
int pages_workers(http_req_t *req);
int pages_contributors(http_req_t *req);
int pages_values(http_req_t *req);

#endif
