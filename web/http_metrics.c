/* http_metrics.c - /health and the Prometheus /metrics page, and the
 * figures both read from the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "http_buf.h"
#include "http_int.h"
#include "store.h"

static double s_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static int64_t s_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int http_metrics_gather(http_server_t *srv, store_t *st, http_figures_t *out)
{
    memset(out, 0, sizeof *out);
    double t0 = s_now_s();
    store_figures_t fig;
    int rc = store_figures(st, HTTP_LIVE_SECONDS, &fig);
    out->db_seconds = s_now_s() - t0;
    if (rc < 0)
        return rc;
    for (int i = 0; i < 5; i++)
        out->runs[i] = fig.runs[i];
    out->pairs_remaining = fig.pairs_remaining;
    out->pairs_total = fig.pairs_total;
    out->cpu_ms_total = fig.cpu_ms_total;
    out->workers = fig.workers;
    out->workers_live = fig.workers_live;
    out->contributors = fig.contributors;

    /* Rate: against a sample 30..90 s old when there is one. */
    int64_t now = s_wall_ms();
    pthread_mutex_lock(&srv->mu);
    if (!srv->rate_t0_ms) {
        srv->rate_t0_ms = srv->rate_t1_ms = now;
        srv->rate_pairs0 = srv->rate_pairs1 = out->pairs_total;
    }
    if (now - srv->rate_t1_ms >= 30000) {
        srv->rate_t0_ms = srv->rate_t1_ms;
        srv->rate_pairs0 = srv->rate_pairs1;
        srv->rate_t1_ms = now;
        srv->rate_pairs1 = out->pairs_total;
    }
    double dt = (now - srv->rate_t0_ms) / 1000.0;
    int64_t dp = out->pairs_total - srv->rate_pairs0;
    out->pairs_per_second = dt >= 1.0 && dp > 0 ? dp / dt : 0.0;
    if (srv->live.at_ms && now - srv->live.at_ms < 60000)
        out->pairs_per_second = srv->live.pairs_per_second;
    pthread_mutex_unlock(&srv->mu);
    return 0;
}

int http_metrics_health(http_req_t *req)
{
    store_t *st = http_db(req);
    double t0 = s_now_s();
    int rc = st ? store_ping(st) : CAPA_EDB;
    double ms = (s_now_s() - t0) * 1000.0;
    char body[160];
    if (rc < 0) {
        if (st)
            http_db_failed(req);
        snprintf(body, sizeof body,
                 "{\"status\":\"unavailable\",\"error\":\"the database does not answer\","
                 "\"code\":\"db_unavailable\"}\n");
        return http_reply(req, 503, "application/json", strdup(body), strlen(body));
    }
    snprintf(body, sizeof body, "{\"status\":\"ok\",\"db_ms\":%.3f}\n", ms);
    return http_reply(req, 200, "application/json", strdup(body), strlen(body));
}

static void s_metric(http_buf_t *b, const char *name, const char *type, const char *help)
{
    http_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int http_metrics_text(http_req_t *req)
{
    store_t *st = http_db(req);
    http_figures_t fig;
    bool up = st && http_metrics_gather(req->srv, st, &fig) == 0;
    if (st && !up)
        http_db_failed(req);
    http_live_t live;
    uint64_t requests, errors, uploads;
    pthread_mutex_lock(&req->srv->mu);
    live = req->srv->live;
    requests = req->srv->requests;
    errors = req->srv->errors;
    uploads = req->srv->pgn_uploads;
    pthread_mutex_unlock(&req->srv->mu);

    http_buf_t b = { 0 };
    s_metric(&b, "capa_up", "gauge", "1 when the database answered this scrape");
    http_buf_printf(&b, "capa_up %d\n", up ? 1 : 0);
    if (up) {
        s_metric(&b, "capa_db_latency_seconds", "gauge", "time the figures query took");
        http_buf_printf(&b, "capa_db_latency_seconds %.6f\n", fig.db_seconds);
        s_metric(&b, "capa_runs", "gauge", "runs by status");
        for (int s = STORE_RUN_PENDING; s <= STORE_RUN_FAILED; s++)
            http_buf_printf(&b, "capa_runs{status=\"%s\"} %lld\n",
                            store_run_status_name((store_run_status_t) s),
                            (long long) fig.runs[s]);
        s_metric(&b, "capa_queue_pairs", "gauge",
                 "pairs still to play in pending and running runs");
        http_buf_printf(&b, "capa_queue_pairs %lld\n", (long long) fig.pairs_remaining);
        s_metric(&b, "capa_pairs_per_second", "gauge", "pairs stored per second (recent)");
        http_buf_printf(&b, "capa_pairs_per_second %.4f\n", fig.pairs_per_second);
        s_metric(&b, "capa_pairs_total", "counter", "pairs stored over all runs");
        http_buf_printf(&b, "capa_pairs_total %lld\n", (long long) fig.pairs_total);
        s_metric(&b, "capa_cpu_seconds_total", "counter", "CPU time spent in games");
        http_buf_printf(&b, "capa_cpu_seconds_total %.3f\n", fig.cpu_ms_total / 1000.0);
        s_metric(&b, "capa_workers", "gauge", "workers known to the database");
        http_buf_printf(&b, "capa_workers %lld\n", (long long) fig.workers);
        s_metric(&b, "capa_workers_live", "gauge", "workers seen in the last 90 seconds");
        http_buf_printf(&b, "capa_workers_live %lld\n", (long long) fig.workers_live);
        s_metric(&b, "capa_contributors", "gauge", "contributors");
        http_buf_printf(&b, "capa_contributors %lld\n", (long long) fig.contributors);
    }
    if (live.at_ms) {
        s_metric(&b, "capa_workers_connected", "gauge", "workers connected to the coordinator");
        http_buf_printf(&b, "capa_workers_connected %d\n", live.workers_connected);
        s_metric(&b, "capa_pairs_leased", "gauge", "pair numbers out on active leases");
        http_buf_printf(&b, "capa_pairs_leased %lld\n", (long long) live.pairs_leased);
        s_metric(&b, "capa_pairs_queued", "gauge", "pair numbers waiting in the pools");
        http_buf_printf(&b, "capa_pairs_queued %lld\n", (long long) live.pairs_queued);
    }
    s_metric(&b, "capa_http_requests_total", "counter", "HTTP requests answered");
    http_buf_printf(&b, "capa_http_requests_total %llu\n", (unsigned long long) requests);
    s_metric(&b, "capa_http_errors_total", "counter", "HTTP requests answered with 4xx or 5xx");
    http_buf_printf(&b, "capa_http_errors_total %llu\n", (unsigned long long) errors);
    s_metric(&b, "capa_pgn_uploads_total", "counter", "PGN files accepted from workers");
    http_buf_printf(&b, "capa_pgn_uploads_total %llu\n", (unsigned long long) uploads);
    size_t len = 0;
    char *text = http_buf_take(&b, &len);
    if (!text)
        return http_reply_error(req, 500, "internal", "out of memory");
    return http_reply(req, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}
