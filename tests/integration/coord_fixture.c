/* coord_fixture.c - coordinator and worker processes on a fresh database
 * for the integration and fault suites (see coord_fixture.h). */
#include "coord_fixture.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "admin.h"
#include "pgtest.h"

static coord_fx_t *s_live;

static void s_atexit(void)
{
    coord_fx_down(s_live);
}

void coord_fx_begin(coord_fx_t *fx, const char *name)
{
    static bool registered;
    if (!registered) {
        atexit(s_atexit);
        registered = true;
    }
    coord_fx_down(s_live);
    memset(fx, 0, sizeof *fx);
    s_live = fx;
    snprintf(fx->name, sizeof fx->name, "%s", name);
}

void coord_fx_down(coord_fx_t *fx)
{
    if (!fx)
        return;
    for (int i = 0; i < COORD_FX_WORKERS; i++)
        coord_fx_worker_stop(fx, i, SIGKILL);
    if (fx->proc.pid > 0)
        coord_proc_stop(&fx->proc, SIGKILL);
    store_destroy(&fx->st);
    if (fx->own_cluster[0])
        coord_fx_cluster("stop", fx->own_cluster, NULL, 0);
    if (fx->key_path[0])
        unlink(fx->key_path);
    if (s_live == fx)
        s_live = NULL;
}

int coord_fx_cluster(const char *cmd, const char *dir, char *conninfo, size_t len)
{
    char line[1400];
    snprintf(line, sizeof line, "'%s' %s '%s' >/dev/null 2>&1", CAPA_PGTMP, cmd, dir);
    if (system(line) != 0)
        return -1;
    if (!conninfo)
        return 0;
    char path[700];
    snprintf(path, sizeof path, "%s/conninfo", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(conninfo, (int) len, f) != NULL;
    fclose(f);
    conninfo[strcspn(conninfo, "\n")] = 0;
    return ok ? 0 : -1;
}

int coord_fx_contributor(coord_fx_t *fx, const char *name)
{
    char err[512];
    if (!fx->st && store_open(fx->ci, &fx->st, err, sizeof err) < 0) {
        fprintf(stderr, "coord_fixture: store: %s\n", err);
        return -1;
    }
    if (admin_contributor_add(fx->st, name, false, fx->token, sizeof fx->token, NULL, err,
                              sizeof err) < 0) {
        fprintf(stderr, "coord_fixture: contributor %s: %s\n", name, err);
        return -1;
    }
    return 0;
}

/* A CURVE key pair: the secret saved to fx->key_path, the public key in
 * fx->server_public. */
static int s_curve_key(coord_fx_t *fx)
{
    char secret[TOKEN_Z85_KEY_MAX], err[256];
    if (token_curve_keypair(fx->server_public, secret) < 0)
        return -1;
    snprintf(fx->key_path, sizeof fx->key_path, "%s/tests/%s.key", CAPA_BINARY_DIR, fx->name);
    unlink(fx->key_path);
    if (token_curve_save(fx->key_path, fx->server_public, secret, err, sizeof err) < 0) {
        fprintf(stderr, "coord_fixture: %s\n", err);
        return -1;
    }
    return 0;
}

static int s_up(coord_fx_t *fx, const char *name, const char *const *extra, bool own_cluster,
                bool curve)
{
    coord_fx_begin(fx, name);
    const char *curve_args[] = { "--curve-secret-file", fx->key_path, NULL };
    if (curve) {
        if (s_curve_key(fx) < 0)
            return -1;
        extra = curve_args;
    }
    if (own_cluster) {
        snprintf(fx->own_cluster, sizeof fx->own_cluster, "%s/tests/%s_pg", CAPA_BINARY_DIR, name);
        coord_fx_cluster("destroy", fx->own_cluster, NULL, 0);
        if (coord_fx_cluster("start", fx->own_cluster, fx->ci, sizeof fx->ci) < 0) {
            fprintf(stderr, "coord_fixture: no private cluster in %s\n", fx->own_cluster);
            return -1;
        }
    } else if (pgtest_create_db(name, fx->ci, sizeof fx->ci) < 0) {
        return -1;
    }
    char log[600];
    snprintf(log, sizeof log, "%s/tests/%s.log", CAPA_BINARY_DIR, name);
    unlink(log);
    const char *server_public = curve ? fx->server_public : NULL;
    if (coord_proc_start_curve(&fx->proc, fx->ci, extra, name, server_public) < 0) {
        fprintf(stderr, "coord_fixture: the coordinator did not start; see %s\n", log);
        return -1;
    }
    return coord_fx_contributor(fx, "alice");
}

int coord_fx_up(coord_fx_t *fx, const char *name, const char *const *extra_args)
{
    return s_up(fx, name, extra_args, false, false);
}

int coord_fx_up_own_cluster(coord_fx_t *fx, const char *name, const char *const *extra_args)
{
    return s_up(fx, name, extra_args, true, false);
}

int coord_fx_up_curve(coord_fx_t *fx, const char *name)
{
    return s_up(fx, name, NULL, false, true);
}

int64_t coord_fx_submit(coord_fx_t *fx, const char *doc)
{
    int64_t id = 0;
    char err[512];
    if (!fx->st || admin_run_submit(fx->st, doc, strlen(doc), 0, &id, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "coord_fixture: submit: %s\n", fx->st ? err : "no store");
        return -1;
    }
    return id;
}

/* The first value of a one-row answer to sql, or NULL. Caller frees. */
static char *s_value(coord_fx_t *fx, const char *sql, bool complain)
{
    PGconn *pg = PQconnectdb(fx->ci);
    char *v = NULL;
    if (PQstatus(pg) != CONNECTION_OK) {
        if (complain)
            fprintf(stderr, "  sql %s: %s", sql, PQerrorMessage(pg));
        PQfinish(pg);
        return NULL;
    }
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
        v = strdup(PQgetvalue(r, 0, 0));
    else if (complain)
        fprintf(stderr, "  sql %s: %s\n", sql, PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(pg);
    return v;
}

long long coord_fx_sql(coord_fx_t *fx, const char *sql)
{
    char *v = s_value(fx, sql, true);
    long long n = v ? atoll(v) : -1;
    free(v);
    return n;
}

char *coord_fx_sql_text(coord_fx_t *fx, const char *sql)
{
    return s_value(fx, sql, false);
}

const char *coord_fx_run_status(coord_fx_t *fx, int64_t run, char *buf, size_t cap)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %lld", (long long) run);
    char *v = s_value(fx, sql, false);
    snprintf(buf, cap, "%s", v ? v : "");
    free(v);
    return buf;
}

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

bool coord_fx_wait_status(coord_fx_t *fx, int64_t run, const char *status, double seconds)
{
    char st[32];
    for (double end = s_now() + seconds; s_now() < end; usleep(200 * 1000))
        if (strcmp(coord_fx_run_status(fx, run, st, sizeof st), status) == 0)
            return true;
    return false;
}

void coord_fx_worker_log(const coord_fx_t *fx, int i, char *out, size_t cap)
{
    snprintf(out, cap, "%s/tests/%s_w%d.log", CAPA_BINARY_DIR, fx->name, i);
}

int coord_fx_worker_start(coord_fx_t *fx, int i, const char *endpoint, bool fresh,
                          const char *const *extra_args)
{
    if (i < 0 || i >= COORD_FX_WORKERS || fx->workers[i] > 0)
        return -1;
    char exe[600], state[600], log[600], name[16];
    snprintf(exe, sizeof exe, "%s/capa-worker", CAPA_BINARY_DIR);
    snprintf(state, sizeof state, "%s/tests/%s_w%d_state", CAPA_BINARY_DIR, fx->name, i);
    coord_fx_worker_log(fx, i, log, sizeof log);
    snprintf(name, sizeof name, "w%d", i);
    if (fresh) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", state);
        if (system(cmd) != 0)
            return -1;
        unlink(log);
    }
    const char *argv[64] = { exe,  "--coordinator", endpoint, "--token", fx->token,
                             "--state-dir", state, "--name", name, "--concurrency", "1",
                             "--batch-pairs", "2", "--grace-seconds", "0" };
    int n = 15;
    for (int k = 0; extra_args && extra_args[k] && n < 62; k++)
        argv[n++] = extra_args[k];
    argv[n] = NULL;
    pid_t pid = coord_spawn(argv, log);
    if (pid < 0)
        return -1;
    fx->workers[i] = pid;
    return 0;
}

void coord_fx_worker_stop(coord_fx_t *fx, int i, int sig)
{
    if (fx->workers[i] <= 0)
        return;
    coord_kill_wait(fx->workers[i], sig, 10000);
    fx->workers[i] = 0;
}
