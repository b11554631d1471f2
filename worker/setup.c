/* setup.c - `capa-worker setup` (writes the config file) and `capa-worker
 * status` (reads <state_dir>/status.json): the two commands a contributor
 * runs besides the worker itself. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "config.h"
#include "err.h"
#include "json.h"
#include "status.h"
#include "worker.h"
#include "worker_internal.h"

#define SETUP_FILE_MAX (1u << 20)

/* mkdir -p of path's folder (mode 0755; the file itself holds the secret). */
static int s_mkparent(const char *path, char *err, size_t errlen)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return capa_fail(err, errlen, CAPA_EIO, "cannot create folder %s: %s", buf,
                             strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST)
        return capa_fail(err, errlen, CAPA_EIO, "cannot create folder %s: %s", buf,
                         strerror(errno));
    return 0;
}

/* Replaces path with text: a temp file in the same folder with the old
 * file's mode and owner (0600 for a new one), fsync, rename, fsync of the
 * folder. Nothing is left behind on failure. */
static int s_write_config(const char *path, const char *text, char *err, size_t errlen)
{
    int rc = s_mkparent(path, err, errlen);
    if (rc < 0)
        return rc;
    struct stat old;
    bool had = stat(path, &old) == 0;
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return capa_fail(err, errlen, errno == ENOSPC ? CAPA_EFULL : CAPA_EIO,
                         "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = n < 0 ? errno : (size_t) n != len ? ENOSPC : 0;
    if (!e && fchmod(fd, had ? (old.st_mode & 07777) : 0600) < 0)
        e = errno;
    if (!e && had && geteuid() == 0 && fchown(fd, old.st_uid, old.st_gid) < 0)
        e = errno;
    if (!e && fsync(fd) < 0)
        e = errno;
    if (close(fd) < 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) < 0)
        e = errno;
    if (e) {
        unlink(tmp);
        return capa_fail(err, errlen, e == ENOSPC ? CAPA_EFULL : CAPA_EIO, "cannot write %s: %s",
                         path, strerror(e));
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* The existing file as a JSON object (a new empty one if there is none). */
static int s_read_object(const char *path, cJSON **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT)
            return capa_fail(err, errlen, CAPA_EIO, "cannot read %s: %s", path, strerror(errno));
        *out = cJSON_CreateObject();
        return *out ? 0 : capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    char *buf = malloc(SETUP_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, SETUP_FILE_MAX, f) : 0;
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return capa_fail(err, errlen, CAPA_EIO, "cannot read %s", path);
    }
    buf[n] = '\0';
    *out = json_parse(buf);
    free(buf);
    if (!cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return capa_fail(err, errlen, CAPA_EINVAL, "%s is not a JSON object", path);
    }
    return 0;
}

static const config_item_t *s_item(const char *key)
{
    for (const config_item_t *it = worker_config_spec()->items; it->key; it++)
        if (strcmp(it->key, key) == 0)
            return it;
    return NULL;
}

/* key as the table spells it: dashes become underscores. */
static void s_key(const char *flag, char *out, size_t cap)
{
    snprintf(out, cap, "%s", flag);
    for (char *p = out; *p; p++)
        if (*p == '-')
            *p = '_';
}

static void s_setup_usage(FILE *out)
{
    fprintf(out,
            "usage: capa-worker setup --coordinator tcp://HOST:PORT --token TOKEN [--config FILE]\n"
            "                         [--KEY VALUE ...]\n\n"
            "Writes the worker's config file (default: /etc/capalab/worker.json as root, else\n"
            "~/.config/capalab/worker.json), keeping the keys it already holds. Any key of\n"
            "`capa-worker --help` may be given (--token-file instead of --token). Every value is\n"
            "checked first; on any error nothing is written.\n");
}

int worker_setup_main(int argc, char **argv)
{
    char path[PATH_MAX] = "", err[512];
    const char *cfg_env = getenv("CAPA_CONFIG");
    if (cfg_env && cfg_env[0])
        snprintf(path, sizeof path, "%s", cfg_env);
    else
        worker_default_config_path(path, sizeof path);
    /* flags: --key value or --key=value */
    const char *keys[64], *vals[64];
    int nk = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            s_setup_usage(stdout);
            return WORKER_EXIT_OK;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "capa-worker setup: unexpected argument \"%s\"\n", a);
            return WORKER_EXIT_USAGE;
        }
        const char *eq = strchr(a, '=');
        char key[64];
        const char *val;
        if (eq) {
            snprintf(key, sizeof key, "%.*s", (int) (eq - a - 2), a + 2);
            val = eq + 1;
        } else {
            snprintf(key, sizeof key, "%s", a + 2);
            if (i + 1 >= argc) {
                fprintf(stderr, "capa-worker setup: --%s needs a value\n", key);
                return WORKER_EXIT_USAGE;
            }
            val = argv[++i];
        }
        char k[64];
        s_key(key, k, sizeof k);
        if (strcmp(k, "config") == 0) {
            snprintf(path, sizeof path, "%s", val);
            continue;
        }
        if (!s_item(k)) {
            fprintf(stderr, "capa-worker setup: --%s: unknown key (see capa-worker --help)\n", key);
            return WORKER_EXIT_USAGE;
        }
        if (nk == 64) {
            fprintf(stderr, "capa-worker setup: too many settings\n");
            return WORKER_EXIT_USAGE;
        }
        keys[nk] = s_item(k)->key;
        vals[nk++] = val;
    }
    bool has_coord = false, has_token = false;
    for (int i = 0; i < nk; i++) {
        has_coord |= strcmp(keys[i], "coordinator") == 0;
        has_token |= strcmp(keys[i], "token") == 0 || strcmp(keys[i], "token_file") == 0;
    }
    if (!has_coord || !has_token) {
        fprintf(stderr, "capa-worker setup: give --coordinator and --token (or --token-file)\n");
        return WORKER_EXIT_USAGE;
    }
    /* check: the old file through the table, then every new value, then the whole */
    const config_spec_t *spec = worker_config_spec();
    worker_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    int rc = config_defaults(spec, &cfg, err, sizeof err);
    if (rc == 0 && access(path, F_OK) == 0)
        rc = config_load_file(spec, &cfg, path, err, sizeof err);
    for (int i = 0; rc == 0 && i < nk; i++) {
        char src[96];
        snprintf(src, sizeof src, "flag --%s", keys[i]);
        rc = config_set(spec, &cfg, keys[i], vals[i], src, err, sizeof err);
    }
    if (rc == 0)
        rc = worker_config_check(&cfg, err, sizeof err);
    if (rc == 0 && cfg.token[0]) {
        char why[256];
        if (token_check_format(cfg.token, why, sizeof why) < 0)
            rc = capa_fail(err, sizeof err, CAPA_EINVAL, "token: %s", why);
    }
    if (rc == 0 && !cfg.token[0] && cfg.token_file[0]) {
        char tok[PROTO_TOKEN_MAX];
        rc = worker_read_line(cfg.token_file, tok, sizeof tok, err, sizeof err);
    }
    if (rc < 0) {
        fprintf(stderr, "capa-worker setup: %s\n", err);
        return WORKER_EXIT_USAGE;
    }
    /* write: the old object with the new keys */
    cJSON *o = NULL;
    rc = s_read_object(path, &o, err, sizeof err);
    for (int i = 0; rc == 0 && i < nk; i++) {
        const config_item_t *it = s_item(keys[i]);
        char text[4096];
        config_format(it, &cfg, text, sizeof text);
        cJSON *v;
        switch (it->type) {
        case CONFIG_T_INT:
        case CONFIG_T_INT64:
        case CONFIG_T_DOUBLE: v = cJSON_CreateNumber(strtod(text, NULL)); break;
        case CONFIG_T_BOOL: v = cJSON_CreateBool(strcmp(text, "true") == 0); break;
        default: v = cJSON_CreateString(text); break;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(o, it->key);
        cJSON_AddItemToObject(o, it->key, v);
    }
    char *text = rc == 0 ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (rc == 0 && !text)
        rc = capa_fail(err, sizeof err, CAPA_ENOMEM, "out of memory");
    if (rc == 0) {
        size_t n = strlen(text);
        char *withnl = realloc(text, n + 2);
        if (withnl) {
            text = withnl;
            text[n] = '\n';
            text[n + 1] = '\0';
        }
        rc = s_write_config(path, text, err, sizeof err);
    }
    free(text);
    if (rc < 0) {
        fprintf(stderr, "capa-worker setup: %s\n", err);
        return WORKER_EXIT_FAILURE;
    }
    char hint[24];
    status_token_hint(cfg.token[0] ? cfg.token : "(token file)", hint, sizeof hint);
    printf("wrote %s: coordinator %s, token %s\n", path, cfg.coordinator,
           cfg.token[0] ? hint : cfg.token_file);
    if (strcmp(path, "/etc/capalab/worker.json") == 0)
        printf("start it: systemctl enable --now capalab-worker\n");
    else
        printf("start it: capa-worker --config %s\n", path);
    return WORKER_EXIT_OK;
}

int worker_status_main(int argc, char **argv)
{
    worker_config_t cfg;
    bool help = false;
    char err[512];
    if (worker_config_load(&cfg, argc, argv, &help, err, sizeof err) < 0) {
        fprintf(stderr, "capa-worker status: %s\n", err);
        return WORKER_EXIT_USAGE;
    }
    if (help)
        return WORKER_EXIT_OK;
    char dir[PATH_MAX];
    if (worker_state_path(cfg.state_dir, dir, sizeof dir, err, sizeof err) < 0) {
        fprintf(stderr, "capa-worker status: %s\n", err);
        return WORKER_EXIT_USAGE;
    }
    worker_status_t s;
    int rc = status_load(dir, &s, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "capa-worker status: %s\n", err);
        return WORKER_EXIT_FAILURE;
    }
    int64_t now = (int64_t) time(NULL);
    bool alive = strcmp(s.state, "stopped") != 0 && s.pid > 0 &&
                 (kill((pid_t) s.pid, 0) == 0 || errno == EPERM);
    char when[32];
    time_t t = (time_t) (alive ? s.started : s.updated);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    if (alive)
        printf("capa-worker pid %" PRId64 ": running since %s (status %" PRId64 " s old)\n", s.pid,
               when, now - s.updated);
    else if (strcmp(s.state, "stopped") == 0)
        printf("capa-worker: not running; stopped at %s with exit status %d\n", when,
               s.exit_status);
    else
        printf("capa-worker: not running; pid %" PRId64 " gone without a clean stop, last seen %s\n",
               s.pid, when);
    printf("  coordinator  %s, token %s%s%s\n", s.coordinator, s.token_hint,
           s.contributor[0] ? " of contributor " : "", s.contributor);
    printf("  worker       %s, named \"%s\"\n", s.worker_id, s.name);
    printf("  cores        %d game thread(s) of %d core(s)\n", s.threads, s.cores);
    printf("  engine       %s, bench signature %" PRId64 "\n", s.engine_version, s.bench);
    printf("  spool        %s: %zu batch(es), %zu pair(s) waiting\n", dir, s.spool_batches,
           s.spool_pairs);
    char line[512];
    status_format(&s, now, line, sizeof line);
    printf("  status       %s\n", line);
    return alive ? WORKER_EXIT_OK : WORKER_EXIT_FAILURE;
}
