/* coord_config.c - the coordinator's config table (see coord.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord.h"
#include "err.h"
#include "log.h"

static const config_item_t ITEMS[] = {
    CONFIG_SECRET(coord_config_t, db, "", "PostgreSQL conninfo or URL (e.g. host=/tmp/pg dbname=capa)"),
    CONFIG_STRING(coord_config_t, bind, "tcp://127.0.0.1:5555", "ZeroMQ endpoint the workers connect to"),
    CONFIG_INT(coord_config_t, heartbeat_ms, "2500", 100, 600000, "heartbeat interval (ms)"),
    CONFIG_INT(coord_config_t, liveness, "4", 1, 100, "missed heartbeats before a worker is dead"),
    CONFIG_INT(coord_config_t, lease_seconds, "3600", 1, 604800, "lease length of a task (s)"),
    CONFIG_INT(coord_config_t, task_seconds, "180", 1, 86400, "wanted duration of one task (s)"),
    CONFIG_PATH(coord_config_t, sql_dir, "", "migrations folder (default: installed or source tree)"),
    CONFIG_PATH(coord_config_t, curve_secret_file, "", "CURVE key file: enables encryption"),
    CONFIG_SECRET(coord_config_t, admin_token, "", "admin token for HTTP writes"),
    CONFIG_PATH(coord_config_t, admin_token_file, "", "file holding the admin token (first line)"),
    CONFIG_STRING(coord_config_t, bootstrap_contributor, "", "contributor registered at start with the token of bootstrap_token_file"),
    CONFIG_PATH(coord_config_t, bootstrap_token_file, "", "file holding that contributor's token (first line; only its hash is stored)"),
    CONFIG_STRING(coord_config_t, http, "127.0.0.1:8080", "HTTP API and pages host:port (\"\" = off)"),
    CONFIG_PATH(coord_config_t, pgn_dir, "pgn", "folder for the PGN files workers upload"),
    CONFIG_BOOL(coord_config_t, http_open_reads, "true", "HTTP reads need no token"),
    CONFIG_STRING(coord_config_t, log_level, "info", "error, warn, info or debug"),
    CONFIG_INT(coord_config_t, db_wait_seconds, "60", 0, 86400, "retry an unreachable database this long at start"),
    CONFIG_INT64(coord_config_t, bench, "0", 0, 9007199254740991.0, "bench signature workers must show (0 = run our bench)"),
    CONFIG_INT(coord_config_t, no_task_retry_ms, "10000", 0, 3600000, "NO_TASK retry_ms"),
    CONFIG_INT(coord_config_t, cron_ms, "250", 10, 60000, "housekeeping period (ms)"),
    CONFIG_INT(coord_config_t, refresh_ms, "1000", 10, 600000, "run list refresh period (ms)"),
    CONFIG_INT(coord_config_t, estimate_seconds, "30", 1, 86400, "piece-value estimate period (s)"),
    CONFIG_BOOL(coord_config_t, exit_when_idle, "false", "exit once no run is pending or running"),
    CONFIG_DOUBLE(coord_config_t, verify_rate, "0.02", 0, 1,
                  "share of stored pairs replayed by another worker to verify them (0 = off)"),
    CONFIG_DOUBLE(coord_config_t, outlier_p, "1e-6", 0, 0.5,
                  "flag a worker whose sprt results differ from the others' with p below this (0 = off)"),
    CONFIG_INT(coord_config_t, outlier_seconds, "60", 1, 86400, "period of the outlier test (s)"),
    CONFIG_DOUBLE(coord_config_t, reference_nps, "1000000", 0, 1e12,
                  "time controls are for a thread of this many nodes/s: a worker gets them scaled by this over its nps (0 = unscaled)"),
    { 0 },
};

static const config_spec_t SPEC = {
    "capa-coordinator",
    "[options] [serve | migrate | contributor add NAME [--admin] | contributor revoke NAME |\n"
    "          contributor list | run submit FILE.json | run list | run show ID | run refit ID | run stop ID | run resume ID]",
    ITEMS,
};

const config_spec_t *coord_config_spec(void)
{
    return &SPEC;
}

int coord_config_load(coord_config_t *cfg, int argc, char **argv, int *first_arg, bool *help,
                      char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    int rc = config_load(&SPEC, cfg, argc, argv, first_arg, help, err, errlen);
    if (rc < 0 || *help)
        return rc;
    if (cfg->admin_token_file[0] && !cfg->admin_token[0]) {
        FILE *f = fopen(cfg->admin_token_file, "r");
        if (!f)
            return capa_fail(err, errlen, CAPA_EIO, "admin_token_file %s: cannot open",
                             cfg->admin_token_file);
        if (!fgets(cfg->admin_token, sizeof cfg->admin_token, f))
            cfg->admin_token[0] = 0;
        fclose(f);
        cfg->admin_token[strcspn(cfg->admin_token, "\r\n")] = 0;
        if (!cfg->admin_token[0])
            return capa_fail(err, errlen, CAPA_EINVAL, "admin_token_file %s is empty",
                             cfg->admin_token_file);
    }
    if (capa_log_level_parse(cfg->log_level) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "log_level: \"%s\" is not error, warn, info or debug",
                         cfg->log_level);
    return 0;
}

static bool s_has_migrations(const char *dir)
{
    char path[PATH_MAX + 32];
    if (strlen(dir) + 16 >= sizeof path)
        return false;
    memcpy(path, dir, strlen(dir) + 1);
    strcat(path, "/001_init.sql");
    return access(path, R_OK) == 0;
}

static void s_set(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

int coord_config_find_sql(coord_config_t *cfg, char *err, size_t errlen)
{
    if (cfg->sql_dir[0])
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "cannot find the executable; set --sql-dir");
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char cand[PATH_MAX + 64];
    s_set(cand, sizeof cand - 32, exe);
    strcat(cand, "/../share/capalab/sql");
    if (s_has_migrations(cand)) {
        s_set(cfg->sql_dir, sizeof cfg->sql_dir, cand);
        return 0;
    }
    /* A build folder inside the source tree: walk up looking for sql/. */
    char dir[PATH_MAX];
    s_set(dir, sizeof dir, exe);
    for (int up = 0; up < 6; up++) {
        s_set(cand, sizeof cand - 8, dir);
        strcat(cand, "/sql");
        if (s_has_migrations(cand)) {
            char *real = realpath(cand, NULL);
            s_set(cfg->sql_dir, sizeof cfg->sql_dir, real ? real : cand);
            free(real);
            return 0;
        }
        char *s = strrchr(dir, '/');
        if (!s || s == dir)
            break;
        *s = 0;
    }
    return capa_fail(err, errlen, CAPA_ENOTFOUND,
                     "no migrations folder found next to %s; set --sql-dir", exe);
}
