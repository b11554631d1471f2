/* pgtest.h - private databases for integration tests on the ctest cluster.
 *
 * tests/pg.cmake starts ONE PostgreSQL cluster per ctest run (fixture "pg",
 * data in <build>/pgtest, started by scripts/pgtmp.sh) and compiles tests made
 * with capa_pg_executable() with CAPA_PGTEST_DIR and CAPA_PGTMP defined.
 * Each test gets its own database, so tests run in parallel (ctest -j):
 *
 *   char conninfo[512];
 *   if (pgtest_create_db("store", conninfo, sizeof conninfo) < 0) ... fail
 *   ... connect with conninfo ...
 *
 * pgtest_create_db creates t_<name>_<pid> (dropping first any t_<name>_<pid>
 * left by a test process that no longer runs) and drops it at exit.
 *
 * pgtest_restart / pgtest_stop / pgtest_start act on the shared cluster, so a
 * test that calls them must run alone: register it with
 * capa_pg_add_test(... SERIAL). Each returns 0 or -1.
 *
 * The environment variable CAPA_PGTEST_CONNINFO, if set, names another
 * cluster's maintenance database (restart/stop then do nothing useful).
 * Needs libpq (tests link ${CAPA_LIBS}, which brings it).
 */
#ifndef CAPA_PGTEST_H
#define CAPA_PGTEST_H

#include <errno.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#if !defined(CAPA_PGTEST_DIR) || !defined(CAPA_PGTMP)
#error "build this test with capa_pg_executable() from tests/pg.cmake"
#endif

#define PGTEST_MAX_DBS 32

static char pgtest_dbs_[PGTEST_MAX_DBS][64];
static int pgtest_ndbs_;

/* The conninfo of the cluster's "postgres" database. */
static inline int pgtest_conninfo(char *out, size_t len)
{
    const char *env = getenv("CAPA_PGTEST_CONNINFO");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 0;
    }
    FILE *f = fopen(CAPA_PGTEST_DIR "/conninfo", "r");
    if (!f) {
        fprintf(stderr, "pgtest: no %s/conninfo: is the ctest fixture \"pg\" running? (%s)\n",
                CAPA_PGTEST_DIR, strerror(errno));
        return -1;
    }
    int ok = fgets(out, (int) len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* Is pid a live process? A zombie (killed, never reaped) is not. */
static inline int pgtest_alive_(long pid)
{
    if (kill((pid_t) pid, 0) != 0)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;   /* no /proc: trust kill() */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

static inline PGconn *pgtest_admin_(void)
{
    char ci[512];
    if (pgtest_conninfo(ci, sizeof ci) < 0)
        return NULL;
    PGconn *c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pgtest: cannot connect to %s: %s", ci, PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Runs one statement on the admin connection; 0 or -1 (message on stderr). */
static inline int pgtest_exec_(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "pgtest: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    return ok ? 0 : -1;
}

static inline int pgtest_drop_(PGconn *c, const char *db)
{
    char *id = PQescapeIdentifier(c, db, strlen(db));
    if (!id)
        return -1;
    char sql[256];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", id);
    PQfreemem(id);
    return pgtest_exec_(c, sql);
}

static inline void pgtest_drop_all_(void)
{
    if (pgtest_ndbs_ == 0)
        return;
    PGconn *c = pgtest_admin_();
    if (!c)
        return;
    for (int i = 0; i < pgtest_ndbs_; i++)
        pgtest_drop_(c, pgtest_dbs_[i]);
    PQfinish(c);
    pgtest_ndbs_ = 0;
}

/* Creates the database t_<name>_<pid> (name: 1..30 of a-z 0-9 _) and writes
 * its conninfo to conninfo_out. Returns 0 or -1 (message on stderr). */
static inline int pgtest_create_db(const char *name, char *conninfo_out, size_t len)
{
    size_t nlen = strlen(name);
    if (nlen == 0 || nlen > 30 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != nlen
        || pgtest_ndbs_ == PGTEST_MAX_DBS) {
        fprintf(stderr, "pgtest: bad database name \"%s\" (or too many)\n", name);
        return -1;
    }
    PGconn *c = pgtest_admin_();
    if (!c)
        return -1;
    /* Databases of earlier runs of this test whose process is gone. */
    char pattern[64];
    snprintf(pattern, sizeof pattern, "t\\_%s\\_%%", name);
    const char *params[] = { pattern };
    PGresult *r = PQexecParams(c, "SELECT datname FROM pg_database WHERE datname LIKE $1", 1,
                               NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        for (int i = 0; i < PQntuples(r); i++) {
            const char *db = PQgetvalue(r, i, 0);
            const char *tail = db + 2 + nlen + 1;
            if (strspn(tail, "0123456789") != strlen(tail) || !*tail)
                continue;   /* another test's name that shares our prefix */
            long pid = strtol(tail, NULL, 10);
            if (pid == (long) getpid() || !pgtest_alive_(pid))
                pgtest_drop_(c, db);
        }
    }
    PQclear(r);
    char db[64];
    snprintf(db, sizeof db, "t_%s_%ld", name, (long) getpid());
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", db);   /* [a-z0-9_] only: no quoting needed */
    int rc = pgtest_exec_(c, sql);
    PQfinish(c);
    if (rc < 0)
        return -1;
    if (pgtest_ndbs_ == 0)
        atexit(pgtest_drop_all_);
    snprintf(pgtest_dbs_[pgtest_ndbs_++], sizeof pgtest_dbs_[0], "%s", db);
    char ci[512];
    if (pgtest_conninfo(ci, sizeof ci) < 0)
        return -1;
    /* A later keyword wins in a libpq conninfo string. */
    if ((size_t) snprintf(conninfo_out, len, "%s dbname=%s", ci, db) >= len) {
        fprintf(stderr, "pgtest: conninfo buffer too small\n");
        return -1;
    }
    return 0;
}

static inline int pgtest_cluster_(const char *cmd)
{
    char line[2048];
    snprintf(line, sizeof line, "'%s' %s '%s' >/dev/null", CAPA_PGTMP, cmd, CAPA_PGTEST_DIR);
    int rc = system(line);
    if (rc != 0) {
        fprintf(stderr, "pgtest: %s failed (%d)\n", line, rc);
        return -1;
    }
    return 0;
}

/* Restart (fast shutdown, then start) the shared cluster; SERIAL tests only. */
static inline int pgtest_restart(void) { return pgtest_cluster_("restart"); }
/* Stop the shared cluster; SERIAL tests only; start it again before exit. */
static inline int pgtest_stop(void) { return pgtest_cluster_("stop"); }
static inline int pgtest_start(void) { return pgtest_cluster_("start"); }

#endif
