/* test_http_fixture.h - one capa-coordinator with HTTP on a free loopback
 * port and its own database (tests/pgtest.h), for test_http, test_cli and
 * test_http_browser.
 *
 *   if (fx_up("http") < 0) return 1;         coordinator, contributors root
 *                                            (admin), alice, mallory
 *   http_res_t r; fx_http("GET", "/api/runs", NULL, NULL, &r); ...; fx_res_free(&r);
 *
 * Runs get games from synthetic pairs stored straight into the database
 * (fx_fill): a known model, so reports and charts have something to show.
 */
#ifndef CAPA_TEST_HTTP_FIXTURE_H
#define CAPA_TEST_HTTP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "coord_client.h"
#include "store.h"
#include "token.h"

typedef struct {
    char ci[512];
    coord_proc_t proc;
    int http_port;
    char base[64];                 /* http://127.0.0.1:PORT */
    char pgn_dir[512];
    store_t *st;
    char admin[TOKEN_TEXT_MAX];    /* admin contributor "root" */
    char alice[TOKEN_TEXT_MAX];    /* plain contributor */
    char mallory[TOKEN_TEXT_MAX];  /* another plain contributor */
    int64_t alice_id;
    char cfg_admin[64];            /* the coordinator's configured admin token */
} fx_t;

extern fx_t g_fx;

typedef struct {
    long status;
    char *body;
    size_t len;
    cJSON *json;                   /* parsed body or NULL */
} http_res_t;

/* Creates the database t_<name>_<pid>, starts the coordinator, adds the
 * contributors, waits for /health. 0 or -1 (with a message). */
int fx_up(const char *name);
/* One request; 0 when an answer came. */
int fx_http(const char *method, const char *path, const char *token, const char *body,
            http_res_t *out);
void fx_res_free(http_res_t *r);
/* The "code" of a JSON error body, "" if none. */
const char *fx_code(const http_res_t *r);
/* Submits a run document as admin; its id or -1. */
int64_t fx_submit(const char *doc);
/* Stores n synthetic pairs from pair number `from`: for a values run pair k
 * plays imbalance k % n_imb (B's pieces sides[k], A's others[k]) under a
 * logistic model of known piece values; for an sprt run (n_imb 0) B is elo
 * stronger. 0 or a negative capa_err_t. */
int fx_fill(int64_t run, int64_t from, int64_t n, const char *const *imb_names,
            const char *const *sides, const char *const *others, int n_imb, double elo);
/* Stores pairs of a run from pair number `from` as played by worker (added
 * for alice if it is new): exactly penta[s] pairs in which B scored s
 * quarter points, in that order (s = 1: a loss and a draw; 2: two draws; 3:
 * a win and a draw). The next pair number, or -1. */
int64_t fx_fill_penta(int64_t run, int64_t from, const char *worker, const int64_t penta[5]);
/* Fits the run's games now and stores the estimate, and its fit in the
 * run's history, as the coordinator does when a run's data changed. */
int fx_estimate(int64_t run);
/* Marks the run finished and stores its estimate (fx_estimate). */
int fx_finish(int64_t run);
/* Sends raw bytes to the HTTP port and reads the answer into reply
 * (NUL-terminated); bytes read or -1. */
int fx_raw(const char *request, size_t len, char *reply, size_t cap);
/* Runs `capa ARGS` against the coordinator (CAPA_SERVER set, CAPA_TOKEN
 * empty); stdout into out; stderr into <build>/tests/http_capa.err. Its exit
 * status, or -1. */
int fx_capa(const char *args, char *out, size_t cap);

#endif
