/* worker.h - capa-worker: plays a coordinator's tasks on all cores.
 *
 * One poll loop in the calling thread owns the DEALER socket, the spool,
 * the tasks and every timer (heartbeats, liveness, reconnect backoff,
 * NO_TASK retry, batch ages, shutdown); N game threads (pool.h) play the
 * games; a background thread uploads PGN (upload.h). docs/protocol.md is
 * the contract: HELLO on every new socket, the spool resent after every
 * WELCOME before any REQUEST, one outstanding REQUEST at most, RESULTs
 * spooled and fsynced before they are sent, Paranoid-Pirate reconnects.
 *
 *   worker_config_t cfg; bool help;
 *   if (worker_config_load(&cfg, argc, argv, &help, err, sizeof err) < 0) ...
 *   worker_t *w; worker_new(&cfg, &w, err, sizeof err);
 *   int status = worker_run(w);           WORKER_EXIT_* (returns on SIGINT/SIGTERM)
 *   worker_destroy(&w);
 */
#ifndef CAPA_WORKER_WORKER_H
#define CAPA_WORKER_WORKER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "protocol.h"


/* Exit statuses of capa-worker. */
enum {
    WORKER_EXIT_OK = 0,         /* shut down by a signal, spool kept */
    WORKER_EXIT_FAILURE = 1,    /* could not start or keep going (spool, bench, memory) */
    WORKER_EXIT_USAGE = 2,      /* bad config */
    WORKER_EXIT_AUTH = 3,       /* AUTH_FAILED / TOKEN_REVOKED: fix the token */
    WORKER_EXIT_SIGNATURE = 4,  /* SIGNATURE_MISMATCH: wrong engine build */
    WORKER_EXIT_VERSION = 5     /* BAD_VERSION: the worker needs an update */
};

/* The longest SIGTERM can take: running games get grace_seconds, the last
 * RESULTs ack_wait_ms, then BYE hands the unplayed pairs back. */
#define WORKER_STOP_BOUND_S(cfg) ((cfg)->grace_seconds + ((cfg)->ack_wait_ms + 999) / 1000 + 1)

typedef struct {
    char coordinator[256];      /* ZeroMQ endpoint */
    char token[PROTO_TOKEN_MAX];
    char token_file[PATH_MAX];  /* read when token is empty */
    int concurrency;            /* game threads; 0 = all cores */
    char state_dir[PATH_MAX];   /* spool, worker id, keys, PGN; "" = default */
    char name[PROTO_TEXT_MAX];  /* "" = host name */
    char server_key[PATH_MAX];  /* coordinator's CURVE public key (Z85) or key file */
    int heartbeat_ms;           /* until WELCOME says otherwise */
    int liveness;
    char http_base[256];        /* PGN uploads; "" = off */
    char log_level[16];
    int hash_mb;                /* per engine; keep 16 so games replay everywhere */
    int batch_pairs;            /* RESULT after this many finished pairs ... */
    int batch_seconds;          /* ... or this age of the oldest */
    int grace_seconds;          /* at shutdown: wait this long for running games */
    int ack_wait_ms;            /* at shutdown: wait this long for ACKs */
    int backoff_first_ms;       /* reconnect delay: first ... */
    int backoff_max_ms;         /* ... and cap */
    int nice;                   /* nice level of the whole process, 0..19 */
    int max_memory_mb;          /* engines' hash tables at most this (2 x hash_mb per game thread); 0 = no limit */
    char stop_at[8];            /* "HH:MM" local time: no new tasks after it, then exit 0; "" = never */
    double max_hours;           /* the same after this many hours; 0 = never */
    int status_seconds;         /* status line period when stderr is not a terminal */
} worker_config_t;

typedef struct worker_s worker_t;

/* Defaults, JSON file (--config), CAPA_* environment, flags (common/config.h).
 * *help is set after --help has been printed. */
int worker_config_load(worker_config_t *cfg, int argc, char **argv, bool *help, char *err,
                       size_t errlen);
/* Checks a coordinator endpoint: tcp://HOST:PORT (PORT 1..65535) or
 * ipc://PATH. 0 or CAPA_EINVAL with the reason. */
int worker_endpoint_check(const char *endpoint, char *err, size_t errlen);
/* Seconds from now until the next local HH:MM (1..86400); -1 if malformed. */
long worker_seconds_until(const char *hhmm);
/* The default config file: /etc/capalab/worker.json for root, else
 * $XDG_CONFIG_HOME/capalab/worker.json or ~/.config/capalab/worker.json. */
void worker_default_config_path(char *out, size_t cap);
/* `capa-worker setup ...` and `capa-worker status ...` (setup.c); argv
 * starts at the subcommand. Return the process exit status. */
int worker_setup_main(int argc, char **argv);
int worker_status_main(int argc, char **argv);
/* Logs the effective config (token masked). */
void worker_config_log(const worker_config_t *cfg);

/* Resolves defaults (state folder, name, token file, concurrency), opens
 * the spool, loads or creates the worker id and CURVE keys, starts the
 * game threads and runs the engine bench. */
int worker_new(const worker_config_t *cfg, worker_t **out, char *err, size_t errlen);
/* worker_new's code for a bad setting (token, token file, worker id, server
 * key): exit WORKER_EXIT_USAGE; any other failure is WORKER_EXIT_FAILURE. */
#define WORKER_NEW_EUSAGE CAPA_EINVAL
void worker_destroy(worker_t **self_p);

/* Runs until SIGINT/SIGTERM (handled through a signalfd: call before any
 * other thread of the process starts... worker_new blocks them) or a fatal
 * ERROR; returns a WORKER_EXIT_* status. */
int worker_run(worker_t *w);

/* The persistent id in <dir>/worker-id, created on first use (uuid v4
 * text). 0 or a negative capa_err_t with a message. */
int worker_id_load(const char *dir, char *out, size_t cap, char *err, size_t errlen);

#endif
