/* http.h - the coordinator's HTTP API and report pages (libmicrohttpd),
 * documented in docs/api.md.
 *
 *   http_config_t hc;  http_config_from_coord(&hc, &coord_cfg);
 *   http_server_t *srv = NULL;
 *   if (http_start(&hc, &srv, err, sizeof err) < 0) ...   (binds, opens nothing yet)
 *   ...                                                   (serves in its own threads)
 *   http_stop(&srv);
 *
 * Threads. libmicrohttpd runs one thread per connection (at most
 * HTTP_CONNECTIONS_MAX); a request borrows one of at most HTTP_DB_POOL
 * database connections of the server's own (a libpq connection is used by
 * one thread at a time), so the coordinator's ZeroMQ loop never waits for
 * HTTP. Writes (submit, stop, contributors) go to the database; the
 * coordinator picks new and stopped runs up from there in its refresh.
 *
 * Live figures. Workers, queue and speed are computed from the database
 * (workers seen in the last HTTP_LIVE_SECONDS, pairs stored in the last
 * minute). A coordinator that knows better may publish what its memory holds
 * with http_publish (any thread; copied under a mutex); /metrics and
 * /api/status then show those figures too.
 */
#ifndef CAPA_COORD_HTTP_H
#define CAPA_COORD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord.h"

#define HTTP_CONNECTIONS_MAX 64
#define HTTP_DB_POOL 4
#define HTTP_JSON_MAX (1u << 20)         /* request bodies of JSON endpoints */
#define HTTP_PGN_MAX (64u << 20)         /* a PGN upload (gzip) */
#define HTTP_PGN_INFLATED_MAX (512u << 20)
#define HTTP_LIVE_SECONDS 90             /* a worker seen this recently counts as live */
#define HTTP_RECENT_DAYS 7               /* the contributors page's recent window */
#define HTTP_TIMEOUT_SECONDS 30          /* idle connections are closed */

typedef struct {
    char db[1024];            /* libpq conninfo */
    char host[128];           /* bind address, e.g. "127.0.0.1", "0.0.0.0", "::" */
    int port;                 /* 0 = any free port (see http_port) */
    char pgn_dir[1024];       /* uploaded PGN files: <pgn_dir>/run-<id>/task-<id>.pgn.gz */
    char admin_token[128];    /* "" = only admin contributors may write */
    bool open_reads;          /* false: reads need a valid contributor token */
    double outlier_p;         /* the coordinator's outlier_p: marks outliers in run breakdowns */
} http_config_t;

/* Fills hc from the coordinator's config (cfg->http "host:port", "[v6]:port"
 * or ":port"). CAPA_EINVAL with err for a malformed address; CAPA_ENOTFOUND
 * when cfg->http is "" (HTTP turned off). */
int http_config_from_coord(http_config_t *hc, const coord_config_t *cfg, char *err,
                           size_t errlen);

typedef struct http_server_s http_server_t;

/* Starts serving. Database connections are opened on first use (a database
 * that is down makes /health answer 503, not the start fail). Caller owns
 * *srv_p (http_stop). CAPA_EIO with err if the address cannot be bound. */
int http_start(const http_config_t *cfg, http_server_t **srv_p, char *err, size_t errlen);
/* Stops the threads, closes the database connections, frees; NULL is fine. */
void http_stop(http_server_t **srv_p);
/* The port actually bound (useful with port 0). */
int http_port(const http_server_t *srv);

/* What the coordinator's memory knows; published by its loop (optional). */
typedef struct {
    int64_t at_ms;            /* when it was taken (0 = never published) */
    int workers_connected;
    int64_t pairs_leased;     /* pair numbers out on active leases */
    int64_t pairs_queued;     /* pair numbers waiting in the pools */
    double pairs_per_second;  /* recent rate of stored pairs */
    int runs_active;
} http_live_t;

void http_publish(http_server_t *srv, const http_live_t *live);

#endif
