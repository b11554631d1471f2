/* Tests of the bootstrap contributor (coordinator/bootstrap.h): the token
 * file a deployment hands to both the coordinator and its workers. Store
 * level against the ctest PostgreSQL cluster, and once through a real
 * coordinator process started with --bootstrap-contributor. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "admin.h"
#include "bootstrap.h"
#include "check.h"
#include "coord_client.h"
#include "err.h"
#include "pgtest.h"
#include "store.h"
#include "token.h"

typedef struct {
    char ci[512];
    store_t *st;
    PGconn *pg;
    char dir[512];
} fx_t;

static void s_up(fx_t *fx, const char *name)
{
    memset(fx, 0, sizeof *fx);
    CHECK(pgtest_create_db(name, fx->ci, sizeof fx->ci) == 0);
    char err[512];
    CHECK_MSG(store_open(fx->ci, &fx->st, err, sizeof err) == 0, "%s", err);
    int applied = 0;
    CHECK_MSG(store_migrate(fx->st, CAPA_SOURCE_DIR "/sql", &applied) == 0, "%s",
              store_last_error(fx->st));
    fx->pg = PQconnectdb(fx->ci);
    CHECK(PQstatus(fx->pg) == CONNECTION_OK);
    snprintf(fx->dir, sizeof fx->dir, "%s/tests/%s", CAPA_BINARY_DIR, name);
    mkdir(fx->dir, 0755);
}

static void s_down(fx_t *fx)
{
    store_destroy(&fx->st);
    if (fx->pg)
        PQfinish(fx->pg);
    fx->pg = NULL;
}

static long long s_sql(fx_t *fx, const char *sql)
{
    PGresult *r = PQexec(fx->pg, sql);
    long long v = -1;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
        v = atoll(PQgetvalue(r, 0, 0));
    else
        fprintf(stderr, "  sql %s: %s\n", sql, PQresultErrorMessage(r));
    PQclear(r);
    return v;
}

/* Writes text into <fx->dir>/<file>; the path goes to path (600 bytes). */
static void s_file(fx_t *fx, const char *file, const char *text, char *path)
{
    snprintf(path, 600, "%s/%s", fx->dir, file);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* A fresh token written to a file (with a trailing newline, as make-secrets
 * writes it); the token goes to token. */
static void s_token_file(fx_t *fx, const char *file, char *token, char *path)
{
    CHECK(token_generate(token, TOKEN_TEXT_MAX) == 0);
    char text[TOKEN_TEXT_MAX + 2];
    snprintf(text, sizeof text, "%s\n", token);
    s_file(fx, file, text, path);
}

static bool s_token_works(store_t *st, const char *token, const char *name)
{
    char hash[TOKEN_HASH_MAX];
    store_contributor_t c;
    return token_hash(token, hash, sizeof hash) == 0 && store_contributor_by_token(st, hash, &c) == 0 &&
           strcmp(c.name, name) == 0;
}

static void a_token_file_adds_the_contributor_once_and_stores_only_its_hash(void)
{
    static fx_t fx;
    s_up(&fx, "boot_add");
    char token[TOKEN_TEXT_MAX], path[600], err[512];
    s_token_file(&fx, "token", token, path);
    bootstrap_outcome_t out = BOOTSTRAP_NONE;
    CHECK_MSG(bootstrap_contributor(fx.st, "cluster", path, &out, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(out, BOOTSTRAP_ADDED);
    CHECK(s_token_works(fx.st, token, "cluster"));
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM contributors WHERE token_hash LIKE '%%%s%%'",
             token + 5);
    CHECK_EQ_INT(s_sql(&fx, sql), 0);
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors WHERE name = 'cluster' AND NOT is_admin"), 1);
    /* A restart with the same file changes nothing. */
    CHECK(bootstrap_contributor(fx.st, "cluster", path, &out, err, sizeof err) == 0);
    CHECK_EQ_INT(out, BOOTSTRAP_KEPT);
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors"), 1);
    s_down(&fx);
}

static void a_new_token_in_the_file_replaces_the_old_one(void)
{
    static fx_t fx;
    s_up(&fx, "boot_rotate");
    char old[TOKEN_TEXT_MAX], fresh[TOKEN_TEXT_MAX], path[600], err[512];
    s_token_file(&fx, "token", old, path);
    CHECK(bootstrap_contributor(fx.st, "cluster", path, NULL, err, sizeof err) == 0);
    s_token_file(&fx, "token", fresh, path);
    bootstrap_outcome_t out = BOOTSTRAP_NONE;
    CHECK_MSG(bootstrap_contributor(fx.st, "cluster", path, &out, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(out, BOOTSTRAP_ROTATED);
    CHECK(s_token_works(fx.st, fresh, "cluster"));
    CHECK(!s_token_works(fx.st, old, "cluster"));
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors"), 1);
    s_down(&fx);
}

static void a_revoked_contributor_stays_revoked(void)
{
    static fx_t fx;
    s_up(&fx, "boot_revoked");
    char token[TOKEN_TEXT_MAX], path[600], err[512];
    s_token_file(&fx, "token", token, path);
    CHECK(bootstrap_contributor(fx.st, "cluster", path, NULL, err, sizeof err) == 0);
    CHECK_MSG(admin_contributor_revoke(fx.st, "cluster", err, sizeof err) == 0, "%s", err);
    bootstrap_outcome_t out = BOOTSTRAP_NONE;
    CHECK(bootstrap_contributor(fx.st, "cluster", path, &out, err, sizeof err) == 0);
    CHECK_EQ_INT(out, BOOTSTRAP_REVOKED);
    CHECK(!s_token_works(fx.st, token, "cluster"));
    /* Not even a new token brings it back. */
    s_token_file(&fx, "token", token, path);
    CHECK(bootstrap_contributor(fx.st, "cluster", path, &out, err, sizeof err) == 0);
    CHECK_EQ_INT(out, BOOTSTRAP_REVOKED);
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors WHERE revoked_at IS NOT NULL"), 1);
    s_down(&fx);
}

static void a_token_of_another_contributor_is_refused(void)
{
    static fx_t fx;
    s_up(&fx, "boot_dup");
    char token[TOKEN_TEXT_MAX], err[512], path[600];
    CHECK(admin_contributor_add(fx.st, "alice", false, token, sizeof token, NULL, err, sizeof err) == 0);
    char text[TOKEN_TEXT_MAX + 2];
    snprintf(text, sizeof text, "%s\n", token);
    s_file(&fx, "alice-token", text, path);
    CHECK(bootstrap_contributor(fx.st, "cluster", path, NULL, err, sizeof err) == CAPA_EDUP);
    CHECK_MSG(strstr(err, "belongs to another contributor") != NULL, "%s", err);
    /* ... also as a rotation of an existing one. */
    char own[TOKEN_TEXT_MAX], own_path[600];
    s_token_file(&fx, "own", own, own_path);
    CHECK(bootstrap_contributor(fx.st, "cluster", own_path, NULL, err, sizeof err) == 0);
    CHECK(bootstrap_contributor(fx.st, "cluster", path, NULL, err, sizeof err) == CAPA_EDUP);
    CHECK(s_token_works(fx.st, own, "cluster"));
    CHECK(s_token_works(fx.st, token, "alice"));
    s_down(&fx);
}

static void bad_token_files_get_clear_errors_that_never_quote_the_file(void)
{
    static fx_t fx;
    s_up(&fx, "boot_bad");
    char path[600], err[512], token[TOKEN_TEXT_MAX];
    CHECK(bootstrap_read_token("/nonexistent/token", token, sizeof token, err, sizeof err) == CAPA_EIO);
    CHECK(strstr(err, "cannot open") != NULL);
    s_file(&fx, "empty", "", path);
    CHECK(bootstrap_read_token(path, token, sizeof token, err, sizeof err) == CAPA_EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    s_file(&fx, "blank", "\n", path);
    CHECK(bootstrap_read_token(path, token, sizeof token, err, sizeof err) == CAPA_EINVAL);
    s_file(&fx, "password", "hunter2-is-my-secret\n", path);
    CHECK(bootstrap_read_token(path, token, sizeof token, err, sizeof err) == CAPA_EINVAL);
    CHECK_MSG(strstr(err, "hunter2") == NULL && strstr(err, "capa_") != NULL, "%s", err);
    /* CRLF and trailing blanks are dropped. */
    char good[TOKEN_TEXT_MAX], text[TOKEN_TEXT_MAX + 32];
    CHECK(token_generate(good, sizeof good) == 0);
    snprintf(text, sizeof text, "%s \r\nsecond line\n", good);
    s_file(&fx, "crlf", text, path);
    CHECK_MSG(bootstrap_read_token(path, token, sizeof token, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_STR(token, good);
    /* Half a configuration is an error; none is nothing to do. */
    coord_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    bootstrap_outcome_t out = BOOTSTRAP_ADDED;
    CHECK(bootstrap_from_config(fx.st, &cfg, &out, err, sizeof err) == 0);
    CHECK_EQ_INT(out, BOOTSTRAP_NONE);
    snprintf(cfg.bootstrap_contributor, sizeof cfg.bootstrap_contributor, "cluster");
    CHECK(bootstrap_from_config(fx.st, &cfg, &out, err, sizeof err) == CAPA_EINVAL);
    CHECK(strstr(err, "bootstrap_token_file") != NULL);
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors"), 0);
    s_down(&fx);
}

static void a_coordinator_started_with_a_token_file_welcomes_workers_with_that_token(void)
{
    static fx_t fx;
    s_up(&fx, "boot_proc");
    char token[TOKEN_TEXT_MAX], path[600];
    s_token_file(&fx, "token", token, path);
    const char *extra[] = { "--bootstrap-contributor", "cluster", "--bootstrap-token-file", path, NULL };
    coord_proc_t p;
    CHECK(coord_proc_start(&p, fx.ci, extra, "boot_proc") == 0);
    coord_client_t *c = coord_client_new(p.endpoint);
    proto_msg_t m;
    CHECK(coord_client_hello(c, token, "wb", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    /* A restart with the same file: still one contributor, same token. */
    CHECK(coord_proc_stop(&p, SIGTERM) == 0);
    CHECK(coord_proc_restart(&p, fx.ci, extra, "boot_proc") == 0);
    c = coord_client_new(p.endpoint);
    CHECK(coord_client_hello(c, token, "wb", 4242, &m) == 0);
    CHECK_EQ_INT(m.type, PROTO_WELCOME);
    proto_msg_free(&m);
    coord_client_destroy(&c);
    coord_proc_stop(&p, SIGTERM);
    CHECK_EQ_INT(s_sql(&fx, "SELECT count(*) FROM contributors WHERE name = 'cluster'"), 1);
    /* A token file that does not exist: the coordinator refuses to start. */
    const char *bad[] = { "--bootstrap-contributor", "cluster", "--bootstrap-token-file",
                          "/nonexistent/token", NULL };
    CHECK(coord_proc_start(&p, fx.ci, bad, "boot_proc_bad") != 0);
    s_down(&fx);
}

static const check_case_t CASES[] = {
    CASE(a_token_file_adds_the_contributor_once_and_stores_only_its_hash),
    CASE(a_new_token_in_the_file_replaces_the_old_one),
    CASE(a_revoked_contributor_stays_revoked),
    CASE(a_token_of_another_contributor_is_refused),
    CASE(bad_token_files_get_clear_errors_that_never_quote_the_file),
    CASE(a_coordinator_started_with_a_token_file_welcomes_workers_with_that_token),
    { 0 },
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, CASES);
}
