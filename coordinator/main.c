/* capa-coordinator: the daemon (serve, the default) and its admin
 * subcommands (migrate, contributor ..., run ...). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "admin.h"
#include "coord.h"
#include "err.h"
#include "http.h"
#include "log.h"

static volatile sig_atomic_t s_stop;

static void s_on_signal(int sig)
{
    (void) sig;
    s_stop = 1;
}

/* The loop's live figures to the HTTP server's /metrics and /api/status. */
static void s_publish(const coord_live_t *live, void *ctx)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    http_live_t h = { .at_ms = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                      .workers_connected = live->workers_connected,
                      .pairs_leased = live->pairs_leased, .pairs_queued = live->pairs_queued,
                      .pairs_per_second = live->pairs_per_second, .runs_active = live->runs_active };
    http_publish(ctx, &h);
}

int main(int argc, char **argv)
{
    capa_log_init("capa-coordinator");
    coord_config_t cfg;
    bool help = false;
    int first = argc;
    char err[1024];
    if (coord_config_load(&cfg, argc, argv, &first, &help, err, sizeof err) < 0) {
        fprintf(stderr, "capa-coordinator: %s\n", err);
        return 2;
    }
    if (help)
        return 0;
    capa_log_set_level((capa_log_level_t) capa_log_level_parse(cfg.log_level));
    if (first < argc && strcmp(argv[first], "serve") != 0)
        return admin_main(&cfg, argc - first, argv + first);
    if (first < argc && argc - first > 1) {
        fprintf(stderr, "capa-coordinator: serve takes no arguments\n");
        return 2;
    }
    config_log(coord_config_spec(), &cfg);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    coord_t *c = NULL;
    if (coord_new(&cfg, &c, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "%s", err);
        return 1;
    }
    /* HTTP API and pages (web/): own threads and database connections;
     * a port in use is logged and the coordinator serves workers without it. */
    http_server_t *http = NULL;
    http_config_t hc;
    if (http_config_from_coord(&hc, &cfg, err, sizeof err) == 0) {
        if (http_start(&hc, &http, err, sizeof err) < 0)
            LOG(LOG_ERROR, "%s", err);
    } else if (cfg.http[0]) {
        LOG(LOG_ERROR, "%s", err);
    }
    if (http)
        coord_set_publish(c, s_publish, http);
    int rc = coord_serve(c, &s_stop);
    http_stop(&http);
    coord_destroy(&c);
    LOG(LOG_INFO, "stopped");
    return rc < 0 ? 1 : 0;
}
