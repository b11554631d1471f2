/* store.c - the store's connection (with reconnect), statement helpers and
 * the migration runner. */
#include "store_int.h"

#include "err.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* pg_advisory_lock key pair for migrations: 'capa', 1. */
#define STORE_MIGRATE_LOCK_A "1667330145"
#define STORE_MIGRATE_LOCK_B "1"
#define STORE_MIGRATION_MAX_BYTES (16 * 1024 * 1024)
#define STORE_MIGRATIONS_MAX 1000

/* ---- errors --------------------------------------------------------------- */

int store_fail(store_t *store, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(store->errmsg, sizeof store->errmsg, fmt, ap);
    va_end(ap);
    /* libpq messages span lines and end with a newline: make them one line. */
    size_t len = strlen(store->errmsg);
    while (len > 0 && (store->errmsg[len - 1] == '\n' || store->errmsg[len - 1] == ' '))
        store->errmsg[--len] = '\0';
    for (char *c = store->errmsg; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
    /* The database failing is worth a warning; a missing row or a refused
     * value is the caller's business to report. */
    bool serious = code == CAPA_EDB || code == CAPA_ENOMEM || code == CAPA_EIO
                   || code == CAPA_ESTATE;
    LOG(serious ? LOG_WARN : LOG_DEBUG, "store: %s", store->errmsg);
    return code;
}

const char *store_last_error(const store_t *store)
{
    return store ? store->errmsg : "no store";
}

/* ---- connection ------------------------------------------------------------ */

static void s_notice(void *arg, const char *message)
{
    (void) arg;
    LOG(LOG_DEBUG, "store: postgres: %.*s", (int) strcspn(message, "\n"), message);
}

static int s_connect(store_t *store)
{
    if (store->conn) {
        PQfinish(store->conn);
        store->conn = NULL;
    }
    PGconn *conn = PQconnectdb(store->conninfo);
    if (!conn)
        return store_fail(store, CAPA_ENOMEM, "cannot allocate a database connection");
    if (PQstatus(conn) != CONNECTION_OK) {
        int rc = store_fail(store, CAPA_EDB, "cannot connect to the database: %s",
                            PQerrorMessage(conn));
        PQfinish(conn);
        return rc;
    }
    PQsetNoticeProcessor(conn, s_notice, NULL);
    store->conn = conn;
    store->n_prepared = 0;
    /* Times are read as epoch ms, but keep text timestamps readable too. */
    PGresult *res = PQexec(conn, "SET TIME ZONE 'UTC'");
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return store_fail(store, CAPA_EDB, "cannot configure the session: %s",
                          PQerrorMessage(conn));
    return 0;
}

/* Reads whatever the server sent while we were idle. A server that shut
 * down sent an error and closed the socket: the first read takes the message,
 * the second sees the end of the stream and marks the connection bad. */
static bool s_alive(PGconn *conn)
{
    for (int i = 0; i < 2; i++)
        if (PQstatus(conn) != CONNECTION_OK || !PQconsumeInput(conn))
            return false;
    return PQstatus(conn) == CONNECTION_OK;
}

/* Makes sure the connection is usable, reconnecting if the server went away
 * (noticed without a round trip, see s_alive). */
static int s_ensure(store_t *store)
{
    PGconn *conn = store->conn;
    if (conn && s_alive(conn)) {
        PGnotify *n;
        while ((n = PQnotifies(conn)) != NULL)
            PQfreemem(n);
        if (PQtransactionStatus(conn) == PQTRANS_IDLE)
            return 0;
        if (PQtransactionStatus(conn) == PQTRANS_INTRANS
            || PQtransactionStatus(conn) == PQTRANS_INERROR) {
            /* A transaction left open by a failed call: end it. */
            PGresult *res = PQexec(conn, "ROLLBACK");
            PQclear(res);
            if (PQtransactionStatus(conn) == PQTRANS_IDLE)
                return 0;
        }
    }
    if (conn)
        LOG(LOG_INFO, "store: reconnecting to the database");
    return s_connect(store);
}

int store_open(const char *conninfo, store_t **store_p, char *err, size_t errlen)
{
    *store_p = NULL;
    if (!conninfo)
        return capa_fail(err, errlen, CAPA_EINVAL, "no database conninfo");
    store_t *store = calloc(1, sizeof *store);
    if (!store)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    store->conninfo = strdup(conninfo);
    if (!store->conninfo) {
        free(store);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    int rc = s_connect(store);
    if (rc < 0) {
        capa_fail(err, errlen, rc, "%s", store->errmsg);
        store_destroy(&store);
        return rc;
    }
    *store_p = store;
    return 0;
}

void store_destroy(store_t **store_p)
{
    if (!store_p || !*store_p)
        return;
    store_t *store = *store_p;
    if (store->conn)
        PQfinish(store->conn);
    free(store->conninfo);
    free(store);
    *store_p = NULL;
}

/* ---- statements ------------------------------------------------------------ */

static int s_code_of(const char *sqlstate)
{
    if (!sqlstate || strlen(sqlstate) != 5)
        return CAPA_EDB;
    if (strcmp(sqlstate, "23505") == 0)
        return CAPA_EDUP;
    if (strcmp(sqlstate, "23503") == 0)
        return CAPA_ENOTFOUND;
    if (strcmp(sqlstate, "23514") == 0 || strcmp(sqlstate, "23502") == 0)
        return CAPA_EINVAL;
    if (strcmp(sqlstate, "22003") == 0)
        return CAPA_ERANGE;
    if (strncmp(sqlstate, "22", 2) == 0)
        return CAPA_EINVAL;
    return CAPA_EDB;
}

int store_result(store_t *store, const char *what, PGresult *res, PGresult **res_p)
{
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
        if (res_p)
            *res_p = res;
        else
            PQclear(res);
        return 0;
    }
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    int code = PQstatus(store->conn) == CONNECTION_OK ? s_code_of(state) : CAPA_EDB;
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg)
        msg = PQerrorMessage(store->conn);
    store_fail(store, code, "%s: %s%s%s", what, msg, state ? " SQLSTATE " : "",
               state ? state : "");
    PQclear(res);
    return code;
}

/* Outside a transaction, checks (and repairs) the connection first. */
static int s_before(store_t *store)
{
    if (PQtransactionStatus(store->conn) == PQTRANS_INTRANS
        && PQstatus(store->conn) == CONNECTION_OK)
        return 0;
    return s_ensure(store);
}

int store_exec(store_t *store, const char *what, const char *sql, int n,
               const char *const *params, PGresult **res_p)
{
    if (res_p)
        *res_p = NULL;
    int rc = s_before(store);
    if (rc < 0)
        return rc;
    PGresult *res = PQexecParams(store->conn, sql, n, NULL, params, NULL, NULL, 0);
    return store_result(store, what, res, res_p);
}

int store_prepare(store_t *store, const char *name, const char *sql, int n)
{
    int rc = s_before(store);
    if (rc < 0)
        return rc;
    bool have = false;
    for (int i = 0; i < store->n_prepared; i++)
        have |= strcmp(store->prepared[i], name) == 0;
    if (!have) {
        if (store->n_prepared == (int) (sizeof store->prepared / sizeof store->prepared[0]))
            return store_fail(store, CAPA_EFULL, "too many prepared statements");
        rc = store_result(store, name, PQprepare(store->conn, name, sql, n, NULL), NULL);
        if (rc < 0)
            return rc;
        store->prepared[store->n_prepared++] = name;
    }
    return 0;
}

int store_exec_prepared(store_t *store, const char *what, const char *name, const char *sql,
                        int n, const char *const *params, PGresult **res_p)
{
    if (res_p)
        *res_p = NULL;
    int rc = store_prepare(store, name, sql, n);
    if (rc < 0)
        return rc;
    PGresult *res = PQexecPrepared(store->conn, name, n, params, NULL, NULL, 0);
    return store_result(store, what, res, res_p);
}

int store_begin(store_t *store)
{
    return store_exec(store, "begin", "BEGIN", 0, NULL, NULL);
}

int store_commit(store_t *store)
{
    return store_exec(store, "commit", "COMMIT", 0, NULL, NULL);
}

int store_begin_async(store_t *store)
{
    int rc = store_begin(store);
    if (rc == 0 && (rc = store_exec(store, "begin", "SET LOCAL synchronous_commit TO OFF", 0,
                                    NULL, NULL)) < 0)
        store_rollback(store);
    return rc;
}

void store_rollback(store_t *store)
{
    if (store->conn && PQstatus(store->conn) == CONNECTION_OK
        && PQtransactionStatus(store->conn) != PQTRANS_IDLE) {
        PGresult *res = PQexec(store->conn, "ROLLBACK");
        PQclear(res);
    }
}

int store_ping(store_t *store)
{
    return store_exec(store, "ping", "SELECT 1", 0, NULL, NULL);
}

/* ---- result accessors ------------------------------------------------------ */

int64_t store_get_i64(const PGresult *res, int row, int col)
{
    if (PQgetisnull(res, row, col))
        return 0;
    return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

int store_get_int(const PGresult *res, int row, int col)
{
    return (int) store_get_i64(res, row, col);
}

double store_get_double(const PGresult *res, int row, int col)
{
    if (PQgetisnull(res, row, col))
        return 0.0;
    return strtod(PQgetvalue(res, row, col), NULL);
}

bool store_get_bool(const PGresult *res, int row, int col)
{
    return !PQgetisnull(res, row, col) && PQgetvalue(res, row, col)[0] == 't';
}

void store_get_text(const PGresult *res, int row, int col, char *buf, size_t len)
{
    if (len == 0)
        return;
    const char *v = PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col);
    snprintf(buf, len, "%s", v);
}

char *store_get_dup(const PGresult *res, int row, int col, bool *oom)
{
    if (PQgetisnull(res, row, col))
        return NULL;
    char *s = strdup(PQgetvalue(res, row, col));
    if (!s)
        *oom = true;
    return s;
}

const char *store_i64(char *buf, int64_t v)
{
    snprintf(buf, 24, "%" PRId64, v);
    return buf;
}

int store_ranges_from(store_t *store, PGresult *res, store_range_t **ranges_p, size_t *n_out)
{
    int rows = PQntuples(res);
    *ranges_p = NULL;
    *n_out = 0;
    if (rows == 0)
        return 0;
    store_range_t *r = calloc((size_t) rows, sizeof *r);
    if (!r)
        return store_fail(store, CAPA_ENOMEM, "out of memory for %d ranges", rows);
    for (int i = 0; i < rows; i++) {
        r[i].task_id = store_get_i64(res, i, 0);
        r[i].run_id = store_get_i64(res, i, 1);
        r[i].first = store_get_i64(res, i, 2);
        r[i].last = store_get_i64(res, i, 3);
    }
    *ranges_p = r;
    *n_out = (size_t) rows;
    return 0;
}

/* ---- migrations ------------------------------------------------------------ */

typedef struct {
    int version;
    char name[256];    /* file name */
    char *sql;         /* heap */
    char checksum[crypto_hash_sha256_BYTES * 2 + 1];
} s_migration_t;

static void s_migrations_free(s_migration_t *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(m[i].sql);
    free(m);
}

static int s_cmp_migration(const void *a, const void *b)
{
    const s_migration_t *x = a, *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

/* NNN_name.sql: digits, an underscore, at least one more character. */
static int s_parse_name(const char *name)
{
    size_t len = strlen(name);
    if (len < 6 || strcmp(name + len - 4, ".sql") != 0)
        return -1;
    size_t d = strspn(name, "0123456789");
    if (d == 0 || d > 6 || name[d] != '_' || d + 1 >= len - 4)
        return -1;
    return atoi(name);
}

static int s_read_file(store_t *store, const char *path, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return store_fail(store, CAPA_EIO, "cannot open migration %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            char *nb = realloc(buf, cap);
            if (!nb) {
                rc = store_fail(store, CAPA_ENOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (len > STORE_MIGRATION_MAX_BYTES) {
            rc = store_fail(store, CAPA_ERANGE, "migration %s is larger than %d bytes", path,
                            STORE_MIGRATION_MAX_BYTES);
            break;
        }
        if (got == 0) {
            if (ferror(f))
                rc = store_fail(store, CAPA_EIO, "cannot read migration %s", path);
            break;
        }
    }
    fclose(f);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        return store_fail(store, CAPA_EINVAL, "migration %s contains a NUL byte", path);
    }
    *out = buf;
    return 0;
}

static int s_load_migrations(store_t *store, const char *dir, s_migration_t **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d)
        return store_fail(store, CAPA_EIO, "cannot open the migrations folder %s: %s", dir,
                          strerror(errno));
    s_migration_t *m = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int version = s_parse_name(e->d_name);
        if (version < 0)
            continue;
        if (strlen(e->d_name) >= sizeof m->name) {
            rc = store_fail(store, CAPA_EINVAL, "migration file name too long: %s", e->d_name);
            break;
        }
        if (n == cap) {
            if (cap >= STORE_MIGRATIONS_MAX) {
                rc = store_fail(store, CAPA_ERANGE, "more than %d migrations in %s",
                                STORE_MIGRATIONS_MAX, dir);
                break;
            }
            cap = cap ? cap * 2 : 16;
            s_migration_t *nm = realloc(m, cap * sizeof *m);
            if (!nm) {
                rc = store_fail(store, CAPA_ENOMEM, "out of memory");
                break;
            }
            m = nm;
        }
        s_migration_t *cur = &m[n];
        memset(cur, 0, sizeof *cur);
        cur->version = version;
        snprintf(cur->name, sizeof cur->name, "%s", e->d_name);
        char path[4096];
        if ((size_t) snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) {
            rc = store_fail(store, CAPA_EINVAL, "migration path too long in %s", dir);
            break;
        }
        rc = s_read_file(store, path, &cur->sql);
        if (rc < 0)
            break;
        n++;
        unsigned char digest[crypto_hash_sha256_BYTES];
        crypto_hash_sha256(digest, (const unsigned char *) cur->sql, strlen(cur->sql));
        sodium_bin2hex(cur->checksum, sizeof cur->checksum, digest, sizeof digest);
    }
    closedir(d);
    if (rc == 0) {
        qsort(m, n, sizeof *m, s_cmp_migration);
        for (size_t i = 1; i < n; i++)
            if (m[i].version == m[i - 1].version) {
                rc = store_fail(store, CAPA_ESTATE, "migrations %s and %s share number %d",
                                m[i - 1].name, m[i].name, m[i].version);
                break;
            }
    }
    if (rc == 0 && n == 0)
        rc = store_fail(store, CAPA_ENOTFOUND, "no migrations (NNN_name.sql) in %s", dir);
    if (rc < 0) {
        s_migrations_free(m, n);
        return rc;
    }
    *out = m;
    *n_out = n;
    return 0;
}

/* Checks the applied migrations against the files and applies the rest. Runs
 * with the advisory lock held. */
static int s_apply(store_t *store, s_migration_t *m, size_t n, int *applied)
{
    int rc = store_exec(store, "create schema_migrations",
                        "CREATE TABLE IF NOT EXISTS schema_migrations ("
                        " version integer PRIMARY KEY,"
                        " name text NOT NULL,"
                        " checksum text NOT NULL,"
                        " applied_at timestamptz NOT NULL DEFAULT now())",
                        0, NULL, NULL);
    if (rc < 0)
        return rc;
    PGresult *res;
    rc = store_exec(store, "read schema_migrations",
                    "SELECT version, name, checksum FROM schema_migrations ORDER BY version", 0,
                    NULL, &res);
    if (rc < 0)
        return rc;
    int rows = PQntuples(res);
    bool *done = calloc(n, sizeof *done);
    if (!done) {
        PQclear(res);
        return store_fail(store, CAPA_ENOMEM, "out of memory");
    }
    for (int i = 0; i < rows && rc == 0; i++) {
        int version = store_get_int(res, i, 0);
        const char *name = PQgetvalue(res, i, 1);
        const char *sum = PQgetvalue(res, i, 2);
        size_t k = 0;
        while (k < n && m[k].version != version)
            k++;
        if (k == n)
            rc = store_fail(store, CAPA_ESTATE,
                            "the database has migration %d (%s) that is not in the migrations "
                            "folder: refusing to run against a newer schema",
                            version, name);
        else if (strcmp(m[k].checksum, sum) != 0)
            rc = store_fail(store, CAPA_ESTATE,
                            "migration %s changed after it was applied (checksum %.12s... in the "
                            "database, %.12s... on disk): write a new migration instead",
                            m[k].name, sum, m[k].checksum);
        else
            done[k] = true;
    }
    PQclear(res);
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (done[k])
            continue;
        rc = store_begin(store);
        if (rc < 0)
            break;
        PGresult *r = PQexec(store->conn, m[k].sql);
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            rc = store_fail(store, CAPA_EDB, "migration %s failed: %s", m[k].name,
                            PQresultErrorMessage(r));
            PQclear(r);
            store_rollback(store);
            break;
        }
        PQclear(r);
        char vbuf[24];
        snprintf(vbuf, sizeof vbuf, "%d", m[k].version);
        const char *params[] = { vbuf, m[k].name, m[k].checksum };
        rc = store_exec(store, "record migration",
                        "INSERT INTO schema_migrations (version, name, checksum)"
                        " VALUES ($1::int, $2, $3)",
                        3, params, NULL);
        if (rc == 0)
            rc = store_commit(store);
        if (rc < 0) {
            store_rollback(store);
            break;
        }
        LOG(LOG_INFO, "store: applied migration %s", m[k].name);
        (*applied)++;
    }
    free(done);
    return rc;
}

int store_migrate(store_t *store, const char *sql_dir, int *applied_out)
{
    int applied = 0;
    if (applied_out)
        *applied_out = 0;
    if (sodium_init() < 0)
        return store_fail(store, CAPA_EIO, "libsodium failed to initialise");
    s_migration_t *m;
    size_t n;
    int rc = s_load_migrations(store, sql_dir, &m, &n);
    if (rc < 0)
        return rc;
    const char *key[] = { STORE_MIGRATE_LOCK_A, STORE_MIGRATE_LOCK_B };
    rc = store_exec(store, "migration lock", "SELECT pg_advisory_lock($1::int, $2::int)", 2, key,
                    NULL);
    if (rc == 0) {
        rc = s_apply(store, m, n, &applied);
        if (store->conn && PQstatus(store->conn) == CONNECTION_OK) {
            /* Keep the error message of a failed migration. */
            char saved[sizeof store->errmsg];
            memcpy(saved, store->errmsg, sizeof saved);
            store_exec(store, "migration unlock", "SELECT pg_advisory_unlock($1::int, $2::int)",
                       2, key, NULL);
            memcpy(store->errmsg, saved, sizeof saved);
        }
    }
    s_migrations_free(m, n);
    if (applied_out)
        *applied_out = applied;
    return rc;
}
