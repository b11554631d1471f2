/* test_http_fixture.c - the fixture of the HTTP, CLI and page tests (see
 * test_http_fixture.h). */
#include <arpa/inet.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "client.h"
#include "coord_client.h"
#include "err.h"
#include "pgtest.h"
#include "report.h"
#include "store.h"
#include "token.h"
#include "test_http_fixture.h"

fx_t g_fx;

/* ---- fixture ------------------------------------------------------------------ */

static void s_atexit(void)
{
    if (g_fx.proc.pid > 0)
        coord_proc_stop(&g_fx.proc, SIGKILL);
    store_destroy(&g_fx.st);
}

int fx_up(const char *name)
{
    memset(&g_fx, 0, sizeof g_fx);
    atexit(s_atexit);
    if (pgtest_create_db(name, g_fx.ci, sizeof g_fx.ci) < 0)
        return -1;
    g_fx.http_port = coord_free_port();
    snprintf(g_fx.base, sizeof g_fx.base, "http://127.0.0.1:%d", g_fx.http_port);
    snprintf(g_fx.pgn_dir, sizeof g_fx.pgn_dir, "%s/tests/%s-pgn", CAPA_BINARY_DIR, name);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_fx.pgn_dir);
    if (system(cmd) != 0)
        return -1;
    static char http_arg[64];
    snprintf(http_arg, sizeof http_arg, "127.0.0.1:%d", g_fx.http_port);
    snprintf(g_fx.cfg_admin, sizeof g_fx.cfg_admin, "configured-admin-secret-%d", (int) getpid());
    /* The outlier test on (coord_client turns it off): /api/runs/{id}/workers
     * marks outliers by its threshold. Only pairs with a worker are tested. */
    const char *extra[] = { "--http", http_arg, "--pgn-dir", g_fx.pgn_dir, "--admin-token",
                            g_fx.cfg_admin, "--estimate-seconds", "1", "--outlier-p", "1e-6",
                            NULL };
    if (coord_proc_start(&g_fx.proc, g_fx.ci, extra, name) < 0)
        return -1;
    char err[512];
    if (store_open(g_fx.ci, &g_fx.st, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    if (admin_contributor_add(g_fx.st, "root", true, g_fx.admin, sizeof g_fx.admin, NULL, err,
                              sizeof err) < 0 ||
        admin_contributor_add(g_fx.st, "alice", false, g_fx.alice, sizeof g_fx.alice,
                              &g_fx.alice_id, err, sizeof err) < 0 ||
        admin_contributor_add(g_fx.st, "mallory", false, g_fx.mallory, sizeof g_fx.mallory,
                              NULL, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    /* The HTTP server answers once the coordinator is up (coord_proc_start
     * waited for the ROUTER); give its threads a moment anyway. */
    for (int i = 0; i < 50; i++) {
        http_res_t r;
        if (fx_http("GET", "/health", NULL, NULL, &r) == 0 && r.status == 200) {
            fx_res_free(&r);
            return 0;
        }
        fx_res_free(&r);
        usleep(100 * 1000);
    }
    fprintf(stderr, "no /health answer on %s\n", g_fx.base);
    return -1;
}

int fx_http(const char *method, const char *path, const char *token, const char *body,
            http_res_t *out)
{
    memset(out, 0, sizeof *out);
    client_response_t r;
    char err[512];
    int rc = client_request(g_fx.base, token ? token : "", method, path, body,
                            body ? strlen(body) : 0, 30, &r, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "  %s %s: %s\n", method, path, err);
        return rc;
    }
    out->status = r.status;
    out->body = r.body;
    out->len = r.len;
    out->json = cJSON_ParseWithLength(r.body, r.len);
    return 0;
}

void fx_res_free(http_res_t *r)
{
    free(r->body);
    cJSON_Delete(r->json);
    memset(r, 0, sizeof *r);
}

const char *fx_code(const http_res_t *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(r->json, "code");
    return cJSON_IsString(c) ? c->valuestring : "";
}

int64_t fx_submit(const char *doc)
{
    http_res_t r;
    if (fx_http("POST", "/api/runs", g_fx.admin, doc, &r) < 0 || r.status != 201) {
        fprintf(stderr, "  submit: %ld %s\n", r.status, r.body ? r.body : "");
        fx_res_free(&r);
        return -1;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(r.json, "id");
    int64_t v = cJSON_IsNumber(id) ? (int64_t) id->valuedouble : -1;
    fx_res_free(&r);
    return v;
}

/* ---- synthetic games -------------------------------------------------------------- */

static uint64_t s_rng = 0x9e3779b97f4a7c15ULL;

static double s_uniform(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return (double) (s_rng >> 11) / 9007199254740992.0;
}

/* B's half points (0, 1, 2) for an expected score p, draws about 20%. */
static int s_game(double p)
{
    double r = fmin(0.2, fmin(2 * p, 2 * (1 - p)));
    double u = s_uniform();
    return u < p - r / 2 ? 2 : u < p + r / 2 ? 1 : 0;
}

static const double VALUE[128] = { ['P'] = 1, ['N'] = 3, ['B'] = 3.2, ['R'] = 5,
                                   ['A'] = 8, ['C'] = 9, ['Q'] = 9.5 };

/* Inserts and frees the pairs of fx_fill and fx_fill_penta. */
static int s_store(int64_t run, store_pair_t *pairs, int64_t n)
{
    int rc = store_insert_pairs(g_fx.st, run, pairs, (size_t) n, NULL, NULL);
    if (rc < 0)
        fprintf(stderr, "  insert pairs: %s\n", store_last_error(g_fx.st));
    free(pairs);
    return rc;
}

int fx_fill(int64_t run, int64_t from, int64_t n, const char *const *imb_names,
            const char *const *sides, const char *const *others, int n_imb, double elo)
{
    store_pair_t *pairs = calloc((size_t) n, sizeof *pairs);
    if (!pairs)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        store_pair_t *p = &pairs[i];
        double prob[2];
        if (n_imb > 0) {
            int k = (int) ((from + i) % n_imb);
            double d = 0;
            for (const char *c = sides[k]; *c; c++)
                d += VALUE[(unsigned char) *c];
            for (const char *c = others[k]; *c; c++)
                d -= VALUE[(unsigned char) *c];
            p->imbalance = imb_names[k];
            for (int g = 0; g < 2; g++) {
                double x = 0.45 * d + (g == 0 ? 0.1 : -0.1);   /* B white in game 1 */
                prob[g] = 1 / (1 + exp(-x));
            }
        } else {
            prob[0] = prob[1] = 1 / (1 + pow(10, -elo / 400));
        }
        p->pair_no = from + i;
        p->fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
        p->b_white[0] = true;
        p->b_white[1] = false;
        int score = 0;
        for (int g = 0; g < 2; g++) {
            int b = s_game(prob[g]);
            score += b;
            p->result[g] = p->b_white[g] ? b : 2 - b;
            p->end[g] = "adjudication";
            p->plies[g] = 80 + (int) (s_uniform() * 60);
        }
        p->score = score;
        p->cpu_ms = 900;
    }
    int rc = s_store(run, pairs, n);
    return rc;
}

int64_t fx_fill_penta(int64_t run, int64_t from, const char *worker, const int64_t penta[5])
{
    store_worker_t w;
    memset(&w, 0, sizeof w);
    snprintf(w.id, sizeof w.id, "%s", worker);
    w.contributor_id = g_fx.alice_id;
    w.cores = w.concurrency = 1;
    if (store_worker_upsert(g_fx.st, &w) < 0) {
        fprintf(stderr, "  worker %s: %s\n", worker, store_last_error(g_fx.st));
        return -1;
    }
    int64_t n = penta[0] + penta[1] + penta[2] + penta[3] + penta[4];
    store_pair_t *pairs = calloc((size_t) (n ? n : 1), sizeof *pairs);
    if (!pairs)
        return -1;
    /* B's half points in game 1 and 2 for each pair score. */
    static const int HALF[5][2] = { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 }, { 2, 2 } };
    int64_t i = 0;
    for (int s = 0; s < 5; s++)
        for (int64_t k = 0; k < penta[s]; k++, i++) {
            store_pair_t *p = &pairs[i];
            p->pair_no = from + i;
            p->worker_id = worker;
            p->fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
            p->b_white[0] = true;
            p->b_white[1] = false;
            for (int g = 0; g < 2; g++) {
                int b = HALF[s][g];
                p->result[g] = p->b_white[g] ? b : 2 - b;
                p->end[g] = "adjudication";
                p->plies[g] = 100;
            }
            p->score = s;
            p->cpu_ms = 900;
        }
    int rc = s_store(run, pairs, n);
    return rc < 0 ? -1 : from + n;
}

int fx_estimate(int64_t run)
{
    char err[512];
    cJSON *rep = NULL;
    if (report_build(g_fx.st, run, REPORT_FIT, &rep, err, sizeof err) < 0) {
        fprintf(stderr, "  estimate of run %lld: %s\n", (long long) run, err);
        return -1;
    }
    char *text = cJSON_PrintUnformatted(rep);
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    int64_t pairs = (int64_t) cJSON_GetObjectItemCaseSensitive(tot, "pairs")->valuedouble;
    int rc = store_estimate_put(g_fx.st, run, pairs, text);
    free(text);
    cJSON_Delete(rep);
    return rc;
}

int fx_finish(int64_t run)
{
    /* The coordinator may have finished it already (all pairs stored). */
    for (int i = 0; i < 50; i++) {
        store_run_t r;
        memset(&r, 0, sizeof r);
        if (store_run_get(g_fx.st, run, &r) == 0 && r.status != STORE_RUN_PENDING) {
            store_run_clear(&r);
            break;
        }
        store_run_clear(&r);
        usleep(100 * 1000);
    }
    int rc = store_run_finish(g_fx.st, run, STORE_RUN_FINISHED, "{\"verdict\":\"complete\"}");
    if (rc < 0 && rc != CAPA_ESTATE)
        return rc;
    return fx_estimate(run);
}

int fx_raw(const char *request, size_t len, char *reply, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) g_fx.http_port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = { 10, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    size_t sent = 0;
    while (sent < len) {
        ssize_t w = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
        if (w <= 0)
            break;   /* the server may close early (413): read what it said */
        sent += (size_t) w;
    }
    shutdown(fd, SHUT_WR);
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t r = recv(fd, reply + got, cap - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t) r;
    }
    reply[got] = 0;
    close(fd);
    return (int) got;
}

int fx_capa(const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "CAPA_SERVER='%s' CAPA_TOKEN= '%s/capa' %s 2>'%s/tests/http_capa.err'",
             g_fx.base, CAPA_BINARY_DIR, args, CAPA_BINARY_DIR);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
