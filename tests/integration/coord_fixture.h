/* coord_fixture.h - a capa-coordinator process on a fresh database with a
 * contributor, and capa-worker processes against it, for the coordinator's
 * integration and fault suites (tests/integration/test_coord.c,
 * tests/fault/test_fault.c). Builds on coord_client.h.
 *
 *   static coord_fx_t fx;
 *   CHECK(coord_fx_up(&fx, "coord_x", extra) == 0);   database t_coord_x_<pid>,
 *                                                      contributor "alice" (fx.token)
 *   int64_t run = coord_fx_submit(&fx, doc);
 *   coord_client_t *c = coord_client_join(fx.proc.endpoint, fx.token, "w1", 4242);
 *   ... coord_fx_sql(&fx, "SELECT count(*) FROM pairs") ...
 *   coord_fx_down(&fx);
 *
 * One fixture is live at a time: coord_fx_up (and coord_fx_begin) first
 * takes down the live one, which a failed CHECK leaves behind, and the last
 * one is taken down at exit. Failures print a line on stderr and return a
 * negative value; nothing here exits the process.
 */
#ifndef CAPA_TEST_COORD_FIXTURE_H
#define CAPA_TEST_COORD_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coord_client.h"
#include "store.h"
#include "token.h"

#define COORD_FX_WORKERS 4

typedef struct {
    char name[64];             /* names the database, the logs and the workers' folders */
    char ci[512];              /* conninfo of the coordinator's database */
    char own_cluster[600];     /* folder of a private cluster, "" = the ctest one */
    coord_proc_t proc;
    char token[TOKEN_TEXT_MAX];   /* the contributor's */
    store_t *st;               /* open on ci once a contributor is added */
    pid_t workers[COORD_FX_WORKERS];
    char server_public[TOKEN_Z85_KEY_MAX];   /* a CURVE coordinator's public key */
    char key_path[600];        /* its secret key file, removed by coord_fx_down */
} coord_fx_t;

/* Takes down the live fixture, clears fx and makes it the live one (with
 * only its name set): for a case that starts its coordinator its own way. */
void coord_fx_begin(coord_fx_t *fx, const char *name);
/* coord_fx_begin, a database t_<name>_<pid> on the ctest cluster, the
 * coordinator on it (extra_args as coord_proc_start; log
 * CAPA_BINARY_DIR/tests/<name>.log, emptied first) and a contributor
 * "alice". 0 or -1. */
int coord_fx_up(coord_fx_t *fx, const char *name, const char *const *extra_args);
/* The same on a private cluster in CAPA_BINARY_DIR/tests/<name>_pg (wiped
 * first, stopped by coord_fx_down), for a case that stops PostgreSQL. */
int coord_fx_up_own_cluster(coord_fx_t *fx, const char *name, const char *const *extra_args);
/* The same with CURVE and no other extra arguments: a fresh key pair, the
 * secret in CAPA_BINARY_DIR/tests/<name>.key, the public key in
 * fx->server_public. */
int coord_fx_up_curve(coord_fx_t *fx, const char *name);
/* Stops the workers and the coordinator (SIGKILL), closes the store, stops
 * a private cluster and removes a CURVE key file. Accepts NULL. */
void coord_fx_down(coord_fx_t *fx);

/* Adds contributor name on fx->ci (opening fx->st first if need be); its
 * token goes to fx->token. 0 or -1. */
int coord_fx_contributor(coord_fx_t *fx, const char *name);
/* scripts/pgtmp.sh cmd dir (start, stop, destroy); with conninfo, the
 * cluster's conninfo is read into it afterwards. 0 or -1. */
int coord_fx_cluster(const char *cmd, const char *dir, char *conninfo, size_t len);

/* Submits a run document through the store: the run id, or -1. */
int64_t coord_fx_submit(coord_fx_t *fx, const char *doc);
/* A one-row, one-column query on a connection of its own (so it works
 * across a database restart): the value as a number, or -1 (printed). */
long long coord_fx_sql(coord_fx_t *fx, const char *sql);
/* The same as text; NULL if there is no such value. Caller frees. */
char *coord_fx_sql_text(coord_fx_t *fx, const char *sql);
/* The run's status into buf ("" if unknown); returns buf. */
const char *coord_fx_run_status(coord_fx_t *fx, int64_t run, char *buf, size_t cap);
/* Polls every 200 ms until the run has status; false after seconds. */
bool coord_fx_wait_status(coord_fx_t *fx, int64_t run, const char *status, double seconds);

/* Starts capa-worker i (0 .. COORD_FX_WORKERS-1) against endpoint with
 * fx->token, --name w<i>, one game at a time, batches of 2 pairs, no grace
 * period, then extra_args (NULL-terminated, may be NULL). Its state folder
 * CAPA_BINARY_DIR/tests/<name>_w<i>_state and its log (appended to, so it
 * spans restarts) are kept; fresh = remove both first. 0 or -1. */
int coord_fx_worker_start(coord_fx_t *fx, int i, const char *endpoint, bool fresh,
                          const char *const *extra_args);
/* Sends sig to worker i and waits up to 10 s, then SIGKILL. */
void coord_fx_worker_stop(coord_fx_t *fx, int i, int sig);
/* Worker i's log path. */
void coord_fx_worker_log(const coord_fx_t *fx, int i, char *out, size_t cap);

#endif
