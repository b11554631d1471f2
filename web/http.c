/* http.c - the HTTP server: libmicrohttpd daemon, request bodies, routing,
 * authorization, replies and the database connection pool (see http.h). */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "err.h"
#include "http_int.h"
#include "log.h"
#include "token.h"

#define HTTP_POOL_WAIT_MS 10000

/* ---- config ------------------------------------------------------------------ */

static int s_copy(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap)
        return -1;
    memcpy(dst, src, n);
    dst[n] = 0;
    return 0;
}

int http_config_from_coord(http_config_t *hc, const coord_config_t *cfg, char *err, size_t errlen)
{
    memset(hc, 0, sizeof *hc);
    if (!cfg->http[0])
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "HTTP is turned off (http = \"\")");
    const char *a = cfg->http;
    const char *colon;
    if (a[0] == '[') {
        const char *close = strchr(a, ']');
        if (!close || close[1] != ':')
            return capa_fail(err, errlen, CAPA_EINVAL, "http: \"%s\" is not [address]:port", a);
        if (s_copy(hc->host, sizeof hc->host, a + 1, (size_t) (close - a - 1)) < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "http: address too long");
        colon = close + 1;
    } else {
        colon = strrchr(a, ':');
        if (!colon)
            return capa_fail(err, errlen, CAPA_EINVAL, "http: \"%s\" is not host:port", a);
        if (s_copy(hc->host, sizeof hc->host, a, (size_t) (colon - a)) < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "http: address too long");
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || port < 0 || port > 65535)
        return capa_fail(err, errlen, CAPA_EINVAL, "http: \"%s\" has no port 0..65535", a);
    hc->port = (int) port;
    if (!hc->host[0])
        snprintf(hc->host, sizeof hc->host, "0.0.0.0");
    snprintf(hc->db, sizeof hc->db, "%s", cfg->db);
    snprintf(hc->pgn_dir, sizeof hc->pgn_dir, "%s", cfg->pgn_dir[0] ? cfg->pgn_dir : "pgn");
    snprintf(hc->admin_token, sizeof hc->admin_token, "%s", cfg->admin_token);
    hc->open_reads = cfg->http_open_reads;
    hc->outlier_p = cfg->outlier_p;
    return 0;
}

/* ---- database pool ------------------------------------------------------------ */

static void s_deadline(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long) (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

store_t *http_db(http_req_t *req)
{
    if (req->st)
        return req->st;
    http_server_t *srv = req->srv;
    struct timespec until;
    s_deadline(&until, HTTP_POOL_WAIT_MS);
    pthread_mutex_lock(&srv->mu);
    for (;;) {
        for (int i = 0; i < HTTP_DB_POOL; i++)
            if (srv->pool[i]) {
                req->st = srv->pool[i];
                srv->pool[i] = NULL;
                pthread_mutex_unlock(&srv->mu);
                return req->st;
            }
        if (srv->n_open < HTTP_DB_POOL)
            break;
        if (pthread_cond_timedwait(&srv->cv, &srv->mu, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&srv->mu);
            LOG(LOG_WARN, "http: every database connection is busy");
            return NULL;
        }
    }
    srv->n_open++;
    pthread_mutex_unlock(&srv->mu);
    char err[512];
    store_t *st = NULL;
    if (store_open(srv->cfg.db, &st, err, sizeof err) < 0) {
        LOG(LOG_WARN, "http: database: %s", err);
        pthread_mutex_lock(&srv->mu);
        srv->n_open--;
        pthread_cond_signal(&srv->cv);
        pthread_mutex_unlock(&srv->mu);
        return NULL;
    }
    req->st = st;
    return st;
}

void http_db_failed(http_req_t *req)
{
    req->db_failed = true;
}

static void s_db_release(http_req_t *req)
{
    if (!req->st)
        return;
    http_server_t *srv = req->srv;
    store_t *st = req->st;
    req->st = NULL;
    if (req->db_failed) {
        store_destroy(&st);
        pthread_mutex_lock(&srv->mu);
        srv->n_open--;
    } else {
        pthread_mutex_lock(&srv->mu);
        for (int i = 0; i < HTTP_DB_POOL; i++)
            if (!srv->pool[i]) {
                srv->pool[i] = st;
                st = NULL;
                break;
            }
        if (st) {   /* cannot happen: n_open bounds the borrowed ones */
            store_destroy(&st);
            srv->n_open--;
        }
    }
    pthread_cond_signal(&srv->cv);
    pthread_mutex_unlock(&srv->mu);
}

/* ---- replies ------------------------------------------------------------------ */

int http_reply_headers(http_req_t *req, unsigned status, const char *content_type, char *body,
                       size_t len, const char *const *headers)
{
    if (!body) {
        body = strdup("");
        len = 0;
        if (!body)
            return MHD_NO;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    for (size_t i = 0; headers && headers[i] && headers[i + 1]; i += 2)
        MHD_add_response_header(r, headers[i], headers[i + 1]);
    int rc = MHD_queue_response(req->conn, status, r);
    MHD_destroy_response(r);
    req->replied = true;
    pthread_mutex_lock(&req->srv->mu);
    req->srv->requests++;
    if (status >= 400)
        req->srv->errors++;
    pthread_mutex_unlock(&req->srv->mu);
    if (status >= 500)
        LOG(LOG_WARN, "http: %s %s -> %u", req->method, req->path, status);
    else
        LOG(LOG_DEBUG, "http: %s %s -> %u", req->method, req->path, status);
    return rc;
}

int http_reply(http_req_t *req, unsigned status, const char *content_type, char *body, size_t len)
{
    return http_reply_headers(req, status, content_type, body, len, NULL);
}

int http_reply_json(http_req_t *req, unsigned status, cJSON *j)
{
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return http_reply_error(req, 500, "internal", "out of memory");
    size_t n = strlen(text);
    char *t2 = realloc(text, n + 2);
    if (t2) {
        text = t2;
        text[n++] = '\n';
        text[n] = 0;
    }
    return http_reply(req, status, "application/json", text, n);
}

int http_reply_error(http_req_t *req, unsigned status, const char *code, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "error", msg);
    cJSON_AddStringToObject(j, "code", code);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!text)
        return MHD_NO;
    static const char *const bearer[] = { "WWW-Authenticate", "Bearer realm=\"capalab\"", NULL };
    return http_reply_headers(req, status, "application/json", text, strlen(text),
                              status == 401 ? bearer : NULL);
}

int http_reply_db_down(http_req_t *req)
{
    return http_reply_error(req, 503, "db_unavailable", "the database cannot be reached");
}

/* ---- helpers ------------------------------------------------------------------ */

const char *http_arg(http_req_t *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

int64_t http_parse_id(const char *s, size_t len)
{
    if (!s || len == 0 || len > 16)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v >= 1 && v <= (INT64_C(1) << 53) ? v : -1;
}

bool http_authorize(http_req_t *req, http_need_t need, http_who_t *who, int *rc)
{
    memset(who, 0, sizeof *who);
    if (need == HTTP_NEED_READ && req->srv->cfg.open_reads)
        return true;
    const char *h = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncasecmp(h, "Bearer ", 7) != 0) {
        *rc = http_reply_error(req, 401, "unauthorized",
                               "this needs a token: Authorization: Bearer <token>");
        return false;
    }
    const char *token = h + 7;
    while (*token == ' ')
        token++;
    char hash[TOKEN_HASH_MAX], want[TOKEN_HASH_MAX];
    if (strlen(token) > 512 || token_hash(token, hash, sizeof hash) < 0) {
        *rc = http_reply_error(req, 401, "unauthorized", "the token is not valid");
        return false;
    }
    const char *admin = req->srv->cfg.admin_token;
    if (admin[0] && token_hash(admin, want, sizeof want) == 0 && token_hash_equal(hash, want)) {
        who->known = true;
        who->is_admin = true;
        snprintf(who->name, sizeof who->name, "admin");
        return true;
    }
    char why[160];
    if (token_check_format(token, why, sizeof why) < 0) {
        *rc = http_reply_error(req, 401, "unauthorized", "the token is not valid: %s", why);
        return false;
    }
    store_t *st = http_db(req);
    if (!st) {
        *rc = http_reply_db_down(req);
        return false;
    }
    store_contributor_t c;
    int r = store_contributor_by_token(st, hash, &c);
    if (r == CAPA_ENOTFOUND || r == CAPA_EAUTH) {
        *rc = http_reply_error(req, 401, "unauthorized",
                               r == CAPA_EAUTH ? "the token was revoked" : "unknown token");
        return false;
    }
    if (r < 0) {
        *rc = http_reply_db_down(req);
        return false;
    }
    who->known = true;
    who->is_admin = c.is_admin;
    who->contributor_id = c.id;
    snprintf(who->name, sizeof who->name, "%s", c.name);
    if (need == HTTP_NEED_ADMIN && !c.is_admin) {
        *rc = http_reply_error(req, 403, "forbidden", "this needs an admin token");
        return false;
    }
    return true;
}

/* ---- routing ------------------------------------------------------------------ */

#define SEG_MAX 6

typedef struct {
    const char *s[SEG_MAX];
    size_t n[SEG_MAX];
    int count;
} s_segs_t;

/* Splits "/a/b/c" into segments; false for more than SEG_MAX or empty
 * inner segments ("//"). A trailing slash is allowed. */
static bool s_split(const char *path, s_segs_t *out)
{
    memset(out, 0, sizeof *out);
    if (path[0] != '/')
        return false;
    const char *p = path + 1;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t) (e - p) : strlen(p);
        if (n == 0)
            return false;
        if (out->count == SEG_MAX)
            return false;
        out->s[out->count] = p;
        out->n[out->count] = n;
        out->count++;
        if (!e)
            break;
        p = e + 1;
    }
    return true;
}

static bool s_is(const s_segs_t *sg, int i, const char *word)
{
    return i < sg->count && sg->n[i] == strlen(word) && memcmp(sg->s[i], word, sg->n[i]) == 0;
}

static int s_method_not_allowed(http_req_t *req, const char *allow)
{
    const char *const headers[] = { "Allow", allow, NULL };
    cJSON *j = cJSON_CreateObject();
    char msg[96];
    snprintf(msg, sizeof msg, "this method is not allowed here (allowed: %s)", allow);
    cJSON_AddStringToObject(j, "error", msg);
    cJSON_AddStringToObject(j, "code", "method_not_allowed");
    char *body = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return http_reply_headers(req, 405, "application/json", body, body ? strlen(body) : 0,
                              headers);
}

static int s_not_found(http_req_t *req)
{
    return http_reply_error(req, 404, "not_found", "no such resource");
}

static int s_route(http_req_t *req)
{
    bool get = strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0;
    bool post = strcmp(req->method, "POST") == 0;
    s_segs_t sg;
    if (!s_split(req->path, &sg))
        return s_not_found(req);
    if (req->too_big)
        return http_reply_error(req, 413, "too_large", "the request body is larger than %zu bytes",
                                req->body_limit);

    if (sg.count == 1 && s_is(&sg, 0, "health"))
        return get ? http_metrics_health(req) : s_method_not_allowed(req, "GET");

    /* Everything else that reads may be closed by config. */
    int rc = MHD_NO;
    http_who_t who;
    if (get && !http_authorize(req, HTTP_NEED_READ, &who, &rc))
        return rc;

    if (sg.count == 1 && s_is(&sg, 0, "metrics"))
        return get ? http_metrics_text(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 0)
        return get ? pages_runs(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 1 && s_is(&sg, 0, "workers"))
        return get ? pages_workers(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 1 && s_is(&sg, 0, "contributors"))
        return get ? pages_contributors(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 1 && s_is(&sg, 0, "values"))
        return get ? pages_values(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 2 && s_is(&sg, 0, "runs")) {
        int64_t id = http_parse_id(sg.s[1], sg.n[1]);
        if (id < 0)
            return s_not_found(req);
        return get ? pages_run(req, id) : s_method_not_allowed(req, "GET");
    }
    if (sg.count == 2 && s_is(&sg, 0, "series")) {
        int64_t id = http_parse_id(sg.s[1], sg.n[1]);
        if (id < 0)
            return s_not_found(req);
        return get ? pages_series(req, id) : s_method_not_allowed(req, "GET");
    }
    if (!s_is(&sg, 0, "api"))
        return s_not_found(req);

    if (sg.count == 2 && s_is(&sg, 1, "series"))
        return get ? http_api_series_list(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 3 && s_is(&sg, 1, "series")) {
        int64_t id = http_parse_id(sg.s[2], sg.n[2]);
        if (id < 0)
            return http_reply_error(req, 404, "not_found", "a series id is a positive number");
        return get ? http_api_series_show(req, id) : s_method_not_allowed(req, "GET");
    }

    if (sg.count == 2 && s_is(&sg, 1, "runs")) {
        if (get)
            return http_api_runs_list(req);
        return post ? http_api_runs_submit(req) : s_method_not_allowed(req, "GET, POST");
    }
    if (sg.count >= 3 && sg.count <= 4 && s_is(&sg, 1, "runs")) {
        int64_t id = http_parse_id(sg.s[2], sg.n[2]);
        if (id < 0)
            return http_reply_error(req, 404, "not_found", "a run id is a positive number");
        if (sg.count == 3)
            return get ? http_api_run_show(req, id, false) : s_method_not_allowed(req, "GET");
        if (s_is(&sg, 3, "report"))
            return get ? http_api_run_show(req, id, true) : s_method_not_allowed(req, "GET");
        if (s_is(&sg, 3, "pgn"))
            return get ? http_pgn_download(req, id) : s_method_not_allowed(req, "GET");
        if (s_is(&sg, 3, "workers"))
            return get ? http_api_run_workers(req, id) : s_method_not_allowed(req, "GET");
        if (s_is(&sg, 3, "stop"))
            return post ? http_api_run_stop(req, id) : s_method_not_allowed(req, "POST");
        if (s_is(&sg, 3, "resume"))
            return post ? http_api_run_resume(req, id) : s_method_not_allowed(req, "POST");
        return s_not_found(req);
    }
    if (sg.count == 4 && s_is(&sg, 1, "tasks") && s_is(&sg, 3, "pgn")) {
        int64_t id = http_parse_id(sg.s[2], sg.n[2]);
        if (id < 0)
            return http_reply_error(req, 404, "not_found", "a task id is a positive number");
        return post ? http_pgn_upload(req, id) : s_method_not_allowed(req, "POST");
    }
    if (sg.count == 2 && s_is(&sg, 1, "values"))
        return get ? http_api_values(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 2 && s_is(&sg, 1, "workers"))
        return get ? http_api_workers(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 2 && s_is(&sg, 1, "status"))
        return get ? http_api_status(req) : s_method_not_allowed(req, "GET");
    if (sg.count == 2 && s_is(&sg, 1, "contributors")) {
        if (get)
            return http_api_contributors(req);
        return post ? http_api_contributor_add(req) : s_method_not_allowed(req, "GET, POST");
    }
    return s_not_found(req);
}

/* ---- libmicrohttpd callbacks ---------------------------------------------------- */

static bool s_is_pgn_upload(const char *url)
{
    size_t n = strlen(url);
    return strncmp(url, "/api/tasks/", 11) == 0 && n > 4 && strcmp(url + n - 4, "/pgn") == 0;
}

static int s_hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* True when the raw request target holds a control byte (C0 or DEL), as is
 * or percent-encoded: libmicrohttpd would unescape %00 and cut the path or
 * the argument there (`/api/runs/1%00/../x` read as `/api/runs/1`). */
static bool s_uri_has_control(const char *uri)
{
    for (const char *p = uri; *p; p++) {
        unsigned char c = (unsigned char) *p;
        if (c == '%' && s_hex(p[1]) >= 0 && s_hex(p[2]) >= 0)
            c = (unsigned char) (s_hex(p[1]) * 16 + s_hex(p[2]));
        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

/* Sees the request target before it is unescaped: the request starts here. */
static void *s_uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void) conn;
    http_req_t *req = calloc(1, sizeof *req);
    if (req) {
        req->srv = cls;
        req->bad_uri = s_uri_has_control(uri);
    }
    return req;
}

static enum MHD_Result s_access(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version,
                                const char *upload_data, size_t *upload_data_size,
                                void **con_cls)
{
    (void) version;
    http_server_t *srv = cls;
    http_req_t *req = *con_cls;
    if (!req || !req->conn) {
        if (!req && !(req = calloc(1, sizeof *req)))
            return MHD_NO;
        req->srv = srv;
        req->conn = conn;
        req->method = method;
        req->path = url;
        req->body_limit = s_is_pgn_upload(url) ? HTTP_PGN_MAX : HTTP_JSON_MAX;
        *con_cls = req;
        if (req->bad_uri) {
            req->too_big = true;   /* its body, if any, is dropped */
            return (enum MHD_Result) http_reply_error(
                req, 400, "bad_request", "the path or a query argument holds a NUL or another "
                "control character");
        }
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(cl, &end, 10);
            if (errno || *end || v > req->body_limit) {
                req->too_big = true;
                /* Answer before the body arrives; the connection closes after. */
                return (enum MHD_Result) http_reply_error(
                    req, 413, "too_large", "the request body is larger than %zu bytes",
                    req->body_limit);
            }
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (req->too_big)
            return MHD_YES;
        if (req->body_len + n > req->body_limit) {
            req->too_big = true;
            free(req->body);
            req->body = NULL;
            req->body_len = req->body_cap = 0;
            return MHD_YES;
        }
        if (req->body_len + n + 1 > req->body_cap) {
            size_t cap = req->body_cap ? req->body_cap : 4096;
            while (cap < req->body_len + n + 1)
                cap *= 2;
            char *b = realloc(req->body, cap);
            if (!b)
                return MHD_NO;
            req->body = b;
            req->body_cap = cap;
        }
        memcpy(req->body + req->body_len, upload_data, n);
        req->body_len += n;
        req->body[req->body_len] = 0;
        return MHD_YES;
    }
    if (req->replied)
        return MHD_YES;   /* answered early (413 before the body) */
    return (enum MHD_Result) s_route(req);
}

static void s_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                        enum MHD_RequestTerminationCode toe)
{
    (void) cls;
    (void) conn;
    (void) toe;
    http_req_t *req = *con_cls;
    if (!req)
        return;
    s_db_release(req);
    free(req->body);
    free(req);
    *con_cls = NULL;
}

static void s_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void) cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    LOG(LOG_DEBUG, "http: libmicrohttpd: %s", msg);
}

int http_start(const http_config_t *cfg, http_server_t **srv_p, char *err, size_t errlen)
{
    *srv_p = NULL;
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port[16];
    snprintf(port, sizeof port, "%d", cfg->port);
    int gai = getaddrinfo(cfg->host, port, &hints, &ai);
    if (gai != 0 || !ai)
        return capa_fail(err, errlen, CAPA_EINVAL, "http: cannot resolve %s: %s", cfg->host,
                         gai_strerror(gai));
    http_server_t *srv = calloc(1, sizeof *srv);
    if (!srv) {
        freeaddrinfo(ai);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    srv->cfg = *cfg;
    pthread_mutex_init(&srv->mu, NULL);
    pthread_cond_init(&srv->cv, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    srv->daemon = MHD_start_daemon(flags, (uint16_t) cfg->port, NULL, NULL, s_access, srv,
                                   MHD_OPTION_NOTIFY_COMPLETED, s_completed, srv,
                                   MHD_OPTION_URI_LOG_CALLBACK, s_uri_log, srv,
                                   MHD_OPTION_CONNECTION_LIMIT, (unsigned) HTTP_CONNECTIONS_MAX,
                                   MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                   (unsigned) HTTP_CONNECTIONS_MAX / 2,
                                   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) HTTP_TIMEOUT_SECONDS,
                                   MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) 64 * 1024,
                                   MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                                   MHD_OPTION_EXTERNAL_LOGGER, s_mhd_log, NULL,
                                   MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!srv->daemon) {
        pthread_cond_destroy(&srv->cv);
        pthread_mutex_destroy(&srv->mu);
        free(srv);
        return capa_fail(err, errlen, CAPA_EIO, "http: cannot listen on %s:%d (in use?)",
                         cfg->host, cfg->port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon,
                                                           MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : cfg->port;
    LOG(LOG_INFO, "http: serving on %s port %d", cfg->host, srv->port);
    *srv_p = srv;
    return 0;
}

void http_stop(http_server_t **srv_p)
{
    http_server_t *srv = *srv_p;
    if (!srv)
        return;
    *srv_p = NULL;
    MHD_stop_daemon(srv->daemon);
    for (int i = 0; i < HTTP_DB_POOL; i++)
        store_destroy(&srv->pool[i]);
    pthread_cond_destroy(&srv->cv);
    pthread_mutex_destroy(&srv->mu);
    free(srv);
}

int http_port(const http_server_t *srv)
{
    return srv ? srv->port : 0;
}

void http_publish(http_server_t *srv, const http_live_t *live)
{
    if (!srv || !live)
        return;
    pthread_mutex_lock(&srv->mu);
    srv->live = *live;
    pthread_mutex_unlock(&srv->mu);
}
