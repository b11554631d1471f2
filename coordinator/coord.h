/* coord.h - capa-coordinator: the ZeroMQ ROUTER that hands out tasks, checks
 * and commits results, and drives each run to its end (docs/protocol.md).
 *
 *   coord_config_t cfg;  coord_config_load(&cfg, argc, argv, ...);
 *   coord_t *c = NULL;
 *   if (coord_new(&cfg, &c, err, sizeof err) < 0) die(err);  connects (retrying),
 *                                                            migrates, binds
 *   coord_serve(c, &stop_flag);          one poll loop until *stop_flag
 *   coord_destroy(&c);                   BYE to workers, closes the store
 *
 * One poll loop whose timeout is the nearest timer; all periodic
 * housekeeping in coord_cron (dead workers, lease expiry, SPRT stops, runs
 * submitted or stopped in the database, piece-value estimates).
 */
#ifndef CAPA_COORD_H
#define CAPA_COORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef struct {
    char db[1024];              /* libpq conninfo or URL */
    char bind[256];             /* ZeroMQ endpoint of the ROUTER */
    int heartbeat_ms;
    int liveness;
    int lease_seconds;
    int task_seconds;           /* wanted duration of one task */
    char sql_dir[1024];         /* migrations; "" = installed share dir or source tree */
    char curve_secret_file[1024];
    char admin_token[128];      /* for HTTP writes (besides admin contributors' tokens) */
    char admin_token_file[1024];/* or read it from this file's first line */
    char bootstrap_contributor[128];   /* registered at start from ...           */
    char bootstrap_token_file[1024];   /* ... this token file (bootstrap.h)        */
    char http[256];             /* HTTP API and pages: host:port ("" = none) */
    char pgn_dir[1024];         /* uploaded PGN files (HTTP API) */
    bool http_open_reads;       /* HTTP reads need no token */
    char log_level[16];
    int db_wait_seconds;        /* how long to retry an unreachable database at start */
    int64_t bench;              /* expected worker bench signature; 0 = run our own bench */
    int no_task_retry_ms;
    int cron_ms;                /* housekeeping period */
    int refresh_ms;             /* how often the run list is read from the database */
    int estimate_seconds;       /* values runs: estimate period */
    bool exit_when_idle;        /* serve: exit 0 once no run is pending or running */
    double verify_rate;         /* share of stored pairs replayed by another worker (0 = off) */
    double outlier_p;           /* flag a worker whose sprt results are this unlikely (0 = off) */
    int outlier_seconds;        /* how often the outlier test runs */
    double reference_nps;       /* a run's clock is for a thread this fast (0 = unscaled) */
} coord_config_t;

const config_spec_t *coord_config_spec(void);
/* Loads the config (defaults, file, CAPA_* environment, flags); see
 * config_load for first_arg and help. */
int coord_config_load(coord_config_t *cfg, int argc, char **argv, int *first_arg, bool *help,
                      char *err, size_t errlen);
/* Resolves cfg->sql_dir when empty: $exe/../share/capalab/sql, else a sql/
 * folder holding 001_*.sql in a parent of the executable's folder (a build
 * folder inside the source tree). 0 or CAPA_ENOTFOUND. */
int coord_config_find_sql(coord_config_t *cfg, char *err, size_t errlen);

typedef struct coord_s coord_t;

/* Connects to the database (retrying with backoff for cfg->db_wait_seconds),
 * applies migrations, works out the bench signature, binds the socket and
 * loads runs and leases from the database. Caller owns *self_p. */
int coord_new(const coord_config_t *cfg, coord_t **self_p, char *err, size_t errlen);
/* Sends BYE to connected workers, closes socket and store; NULL is fine. */
void coord_destroy(coord_t **self_p);
/* The poll loop; returns 0 when *stop becomes non-zero (or, with
 * exit_when_idle, when no run is left), a negative capa_err_t on a fatal
 * socket error. */
int coord_serve(coord_t *self, volatile sig_atomic_t *stop);
/* One round of housekeeping (called by coord_serve; public for tests). */
int coord_cron(coord_t *self);
/* The endpoint actually bound (resolves a "tcp://127.0.0.1:*" wildcard). */
const char *coord_endpoint(const coord_t *self);

/* What only the coordinator's memory knows, handed once a second from its
 * cron to whoever asked (the HTTP server's /metrics and /api/status). */
typedef struct {
    int workers_connected;      /* open sessions */
    int64_t pairs_leased;       /* pair numbers out on active leases */
    int64_t pairs_queued;       /* pair numbers waiting in the active runs' pools */
    double pairs_per_second;    /* pairs newly stored, over the last minute or so */
    int runs_active;            /* runs handing out work */
} coord_live_t;

typedef void (*coord_publish_fn)(const coord_live_t *live, void *ctx);
/* fn is called from the loop's thread; NULL turns publishing off. */
void coord_set_publish(coord_t *self, coord_publish_fn fn, void *ctx);

#endif
