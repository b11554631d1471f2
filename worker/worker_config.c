/* worker_config.c - capa-worker's config table, state folder and identity. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "config.h"
#include "err.h"
#include "log.h"
#include "spool.h"
#include "worker.h"
#include "worker_internal.h"

static const config_item_t s_items[] = {
    CONFIG_STRING(worker_config_t, coordinator, "tcp://127.0.0.1:5555",
                  "coordinator endpoint (ZeroMQ)"),
    CONFIG_SECRET(worker_config_t, token, "", "contributor token (or CAPA_TOKEN, or token_file)"),
    CONFIG_PATH(worker_config_t, token_file, "",
                "file holding the token (default <state_dir>/token if it exists)"),
    CONFIG_INT(worker_config_t, concurrency, "0", 0, PROTO_SLOTS_MAX,
               "game threads (0 = all cores)"),
    CONFIG_PATH(worker_config_t, state_dir, "",
                "spool, worker id, keys and PGN (default $XDG_STATE_HOME/capalab/worker or "
                "~/.capalab/worker)"),
    CONFIG_STRING(worker_config_t, name, "", "name shown on the workers page (default: host name)"),
    CONFIG_STRING(worker_config_t, server_key, "",
                  "coordinator's CURVE public key (40 Z85 characters) or a key file; empty = "
                  "no encryption"),
    CONFIG_INT(worker_config_t, heartbeat_ms, "2500", 100, 600000,
               "heartbeat interval until WELCOME sets it"),
    CONFIG_INT(worker_config_t, liveness, "4", 1, 100,
               "missed heartbeats before the coordinator is presumed dead"),
    CONFIG_STRING(worker_config_t, http_base, "",
                  "coordinator HTTP base URL for PGN uploads (empty = no PGN)"),
    CONFIG_STRING(worker_config_t, log_level, "info", "error, warn, info or debug"),
    CONFIG_INT(worker_config_t, hash_mb, "16", 1, 4096,
               "hash table per engine in MB (keep the default: games replay exactly)"),
    CONFIG_INT(worker_config_t, batch_pairs, "8", 1, PROTO_PAIRS_MAX,
               "send a RESULT after this many finished pairs"),
    CONFIG_INT(worker_config_t, batch_seconds, "60", 1, 86400,
               "... or when the oldest unsent pair is this old"),
    CONFIG_INT(worker_config_t, grace_seconds, "120", 0, 86400,
               "at shutdown, wait this long for running games to finish"),
    CONFIG_INT(worker_config_t, ack_wait_ms, "3000", 0, 600000,
               "at shutdown, wait this long for ACKs of the last RESULTs"),
    CONFIG_INT(worker_config_t, backoff_first_ms, "1000", 1, 600000, "first reconnect delay"),
    CONFIG_INT(worker_config_t, backoff_max_ms, "32000", 1, 3600000, "longest reconnect delay"),
    CONFIG_INT(worker_config_t, nice, "0", 0, 19, "nice level of the worker (19 = only idle CPU)"),
    CONFIG_INT(worker_config_t, max_memory_mb, "0", 0, 1048576,
               "most memory for hash tables (2 x hash_mb per game thread); fewer threads if "
               "needed; 0 = no limit"),
    CONFIG_STRING(worker_config_t, stop_at, "",
                  "HH:MM local time: take no new tasks after it, finish, exit 0 (empty = never)"),
    CONFIG_DOUBLE(worker_config_t, max_hours, "0", 0, 87600,
                  "the same after this many hours (0 = never)"),
    CONFIG_INT(worker_config_t, status_seconds, "60", 1, 86400,
               "status line period when stderr is not a terminal (a terminal: every second)"),
    { 0 },
};

static const config_spec_t s_spec = { "capa-worker", "[options]", s_items };

const config_spec_t *worker_config_spec(void) { return &s_spec; }

int worker_config_load(worker_config_t *cfg, int argc, char **argv, bool *help, char *err,
                       size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    int rc = config_load(&s_spec, cfg, argc, argv, NULL, help, err, errlen);
    if (rc < 0 || *help)
        return rc;
    return worker_config_check(cfg, err, errlen);
}

int worker_config_check(const worker_config_t *cfg, char *err, size_t errlen)
{
    if (capa_log_level_parse(cfg->log_level) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "log_level: \"%s\" is not error, warn, info or debug", cfg->log_level);
    if (cfg->backoff_max_ms < cfg->backoff_first_ms)
        return capa_fail(err, errlen, CAPA_ERANGE, "backoff_max_ms is below backoff_first_ms");
    if (cfg->max_memory_mb > 0 && cfg->max_memory_mb < 2 * cfg->hash_mb)
        return capa_fail(err, errlen, CAPA_ERANGE,
                         "max_memory_mb %d is below one game thread's hash tables (2 x %d MB)",
                         cfg->max_memory_mb, cfg->hash_mb);
    char why[256];
    if (worker_endpoint_check(cfg->coordinator, why, sizeof why) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "coordinator: %s", why);
    if (cfg->stop_at[0] && worker_seconds_until(cfg->stop_at) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "stop_at: \"%s\" is not HH:MM (00:00..23:59)",
                         cfg->stop_at);
    return 0;
}

int worker_endpoint_check(const char *e, char *err, size_t errlen)
{
    if (strncmp(e, "ipc://", 6) == 0) {
        if (!e[6])
            return capa_fail(err, errlen, CAPA_EINVAL, "\"%s\" names no socket path", e);
        return 0;
    }
    if (strncmp(e, "tcp://", 6) != 0)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "\"%s\" is not tcp://HOST:PORT (or ipc://PATH)", e);
    const char *host = e + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host)
        return capa_fail(err, errlen, CAPA_EINVAL, "\"%s\" has no host and port (tcp://HOST:PORT)",
                         e);
    for (const char *p = host; p < colon; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-' || *p == '_' || *p == '[' || *p == ']' || *p == ':' ||
              *p == '*'))
            return capa_fail(err, errlen, CAPA_EINVAL, "\"%s\": the host has a character '%c' "
                             "no host name has", e, *p);
    const char *port = colon + 1;
    char *end;
    long v = strtol(port, &end, 10);
    if (!*port || *end || v < 1 || v > 65535)
        return capa_fail(err, errlen, CAPA_EINVAL, "\"%s\": the port must be 1..65535", e);
    return 0;
}

long worker_seconds_until(const char *hhmm)
{
    int h, m;
    char tail;
    if (strlen(hhmm) != 5 || sscanf(hhmm, "%2d:%2d%c", &h, &m, &tail) != 2 || h < 0 || h > 23 ||
        m < 0 || m > 59 || hhmm[2] != ':')
        return -1;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    long cur = tm.tm_hour * 3600L + tm.tm_min * 60L + tm.tm_sec;
    long want = h * 3600L + m * 60L;
    long d = want - cur;
    return d > 0 ? d : d + 86400;
}

void worker_default_config_path(char *out, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (geteuid() == 0)
        snprintf(out, cap, "/etc/capalab/worker.json");
    else if (xdg && xdg[0] == '/')
        snprintf(out, cap, "%s/capalab/worker.json", xdg);
    else if (home && home[0])
        snprintf(out, cap, "%s/.config/capalab/worker.json", home);
    else
        snprintf(out, cap, "/etc/capalab/worker.json");
}

void worker_config_log(const worker_config_t *cfg) { config_log(&s_spec, cfg); }

/* mkdir -p with mode 0700 for the folders it creates. */
static int s_mkdirs(const char *path, char *err, size_t errlen)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
            return capa_fail(err, errlen, CAPA_EIO, "cannot create folder %s: %s", buf,
                             strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) < 0 && errno != EEXIST)
        return capa_fail(err, errlen, CAPA_EIO, "cannot create folder %s: %s", buf,
                         strerror(errno));
    return 0;
}

int worker_state_dir(const char *configured, char *out, size_t cap, char *err, size_t errlen)
{
    int rc = worker_state_path(configured, out, cap, err, errlen);
    return rc < 0 ? rc : s_mkdirs(out, err, errlen);
}

int worker_state_path(const char *configured, char *out, size_t cap, char *err, size_t errlen)
{
    int n;
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (configured && configured[0])
        n = snprintf(out, cap, "%s", configured);
    else if (xdg && xdg[0] == '/')
        n = snprintf(out, cap, "%s/capalab/worker", xdg);
    else if (home && home[0])
        n = snprintf(out, cap, "%s/.capalab/worker", home);
    else
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "no state folder: set state_dir, XDG_STATE_HOME or HOME");
    if (n < 0 || (size_t) n >= cap)
        return capa_fail(err, errlen, CAPA_ERANGE, "state folder name too long");
    return 0;
}

/* The first line of a small file, trimmed; 0, CAPA_ENOTFOUND or CAPA_EIO. */
int worker_read_line(const char *path, char *out, size_t cap, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return capa_fail(err, errlen, errno == ENOENT ? CAPA_ENOTFOUND : CAPA_EIO,
                         "cannot read %s: %s", path, strerror(errno));
    char line[1024];
    bool ok = fgets(line, sizeof line, f) != NULL;
    int e = ferror(f) ? errno : 0;
    fclose(f);
    if (!ok && e)
        return capa_fail(err, errlen, CAPA_EIO, "cannot read %s: %s", path, strerror(e));
    if (!ok)
        return capa_fail(err, errlen, CAPA_EINVAL, "%s is empty", path);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
                     line[n - 1] == '\t'))
        line[--n] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strlen(s) >= cap)
        return capa_fail(err, errlen, CAPA_ERANGE, "%s: line too long", path);
    snprintf(out, cap, "%s", s);
    return 0;
}

static bool s_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n < 1 || n >= PROTO_ID_MAX)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == ':' || *p == '-'))
            return false;
    return true;
}

int worker_id_load(const char *dir, char *out, size_t cap, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/worker-id", dir);
    char id[128];
    int rc = worker_read_line(path, id, sizeof id, err, errlen);
    if (rc == 0) {
        if (!s_id_ok(id))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "%s: \"%s\" is not a worker id (1..63 of A-Z a-z 0-9 . _ : -)", path,
                             id);
    } else if (rc == CAPA_ENOTFOUND) {
        if (sodium_init() < 0)
            return capa_fail(err, errlen, CAPA_EIO, "libsodium failed to initialise");
        unsigned char r[16];
        randombytes_buf(r, sizeof r);
        r[6] = (unsigned char) ((r[6] & 0x0f) | 0x40); /* version 4 */
        r[8] = (unsigned char) ((r[8] & 0x3f) | 0x80); /* variant 1 */
        snprintf(id, sizeof id,
                 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0],
                 r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                 r[13], r[14], r[15]);
        char line[64];
        int n = snprintf(line, sizeof line, "%s\n", id);
        rc = spool_write_atomic(path, line, (size_t) n, err, errlen);
        if (rc < 0)
            return rc;
        LOG(LOG_INFO, "new worker id %s (kept in %s)", id, path);
    } else {
        return rc;
    }
    if (strlen(id) >= cap)
        return capa_fail(err, errlen, CAPA_ERANGE, "worker id buffer too small");
    snprintf(out, cap, "%s", id);
    return 0;
}

/* Printable text for the protocol's text fields: control characters become
 * spaces, cut at a character boundary below cap. */
static void s_text(char *out, size_t cap, const char *in)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *) in; *p && n + 1 < cap; p++)
        out[n++] = (*p < 0x20 || *p == 0x7f || *p >= 0x80) ? ' ' : (char) *p;
    out[n] = '\0';
    while (n > 0 && out[n - 1] == ' ')
        out[--n] = '\0';
}

void worker_host_info(proto_hello_t *h)
{
    char line[512];
    FILE *f = fopen("/etc/os-release", "r");
    h->host_os[0] = h->host_cpu[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
            char *v = line + 12;
            if (*v == '"')
                v++;
            char *q = strchr(v, '"');
            if (q)
                *q = '\0';
            s_text(h->host_os, sizeof h->host_os, v);
        }
    }
    if (f)
        fclose(f);
    if (!h->host_os[0]) {
        struct utsname u;
        if (uname(&u) == 0) {
            snprintf(line, sizeof line, "%s %s", u.sysname, u.release);
            s_text(h->host_os, sizeof h->host_os, line);
        }
    }
    f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *v = strchr(line, ':');
            if (v) {
                v++;
                while (*v == ' ' || *v == '\t')
                    v++;
                s_text(h->host_cpu, sizeof h->host_cpu, v);
            }
            break;
        }
    }
    if (f)
        fclose(f);
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    h->host_memory_mb = (pages > 0 && size > 0) ? (int64_t) pages * size / (1024 * 1024) : 0;
}

void worker_default_name(char *out, size_t cap)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !host[0])
        snprintf(host, sizeof host, "capa-worker");
    s_text(out, cap, host);
    if (!out[0])
        snprintf(out, cap, "capa-worker");
}

int worker_state_probe(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/.write-test.%ld", dir, (long) getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return capa_fail(err, errlen, errno == ENOSPC ? CAPA_EFULL : CAPA_EIO,
                         "state folder %s is not writable: %s", dir, strerror(errno));
    static const char block[4096];
    ssize_t n = write(fd, block, sizeof block);
    int e = n < 0 ? errno : n != (ssize_t) sizeof block ? ENOSPC : 0;
    if (e == 0 && fsync(fd) < 0)
        e = errno;
    close(fd);
    unlink(path);
    if (e)
        return capa_fail(err, errlen, e == ENOSPC || e == EDQUOT ? CAPA_EFULL : CAPA_EIO,
                         "state folder %s is not writable: %s", dir, strerror(e));
    return 0;
}

void worker_update_hint(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *kind = getenv("CAPA_INSTALL"); /* "docker": set by docker/Dockerfile */
    if (kind && strcmp(kind, "docker") == 0)
        snprintf(out, cap,
                 "this worker runs in Docker: load the coordinator's capalab image and recreate "
                 "the container (docker service update --image IMAGE SERVICE, or docker compose "
                 "up -d)");
    else if (strcmp(exe, "/usr/bin/capa-worker") == 0 &&
             access("/usr/share/doc/capalab-worker/copyright", F_OK) == 0)
        snprintf(out, cap,
                 "this worker is the capalab-worker package: get the coordinator's "
                 "capalab-worker_VERSION.deb and run `sudo apt install "
                 "./capalab-worker_VERSION.deb`");
    else
        snprintf(out, cap,
                 "this worker is a source build (%s): `git pull`, then rebuild and reinstall "
                 "(cmake --build BUILD && cmake --install BUILD)",
                 exe[0] ? exe : "capa-worker");
}
