/* upload.c - gzip'ed PGN files posted with libcurl from a background thread. */
#include "upload.h"

#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "err.h"
#include "log.h"
#include "spool.h"

struct upload_s {
    char dir[PATH_MAX];
    char base[512];
    char token[160];
    pthread_t tid;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool wake;
    _Atomic bool stop;
    int retry_first_ms, retry_max_ms;
    upload_stats_t stats;
};

int upload_gzip(const void *data, size_t len, unsigned char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return CAPA_ENOMEM;
    size_t cap = deflateBound(&zs, (uLong) len) + 32;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&zs);
        return CAPA_ENOMEM;
    }
    zs.next_in = (Bytef *) data;
    zs.avail_in = (uInt) len;
    zs.next_out = buf;
    zs.avail_out = (uInt) cap;
    int rc = deflate(&zs, Z_FINISH);
    size_t n = cap - zs.avail_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        free(buf);
        return CAPA_EIO;
    }
    *out = buf;
    *out_len = n;
    return 0;
}

static size_t s_discard(void *ptr, size_t size, size_t nmemb, void *ctx)
{
    (void) ptr;
    (void) ctx;
    return size * nmemb;
}

static int s_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void) dt;
    (void) dn;
    (void) ut;
    (void) un;
    const _Atomic bool *stop = ctx;
    return stop && *stop ? 1 : 0;
}

static int s_post(const char *url, const char *token, const void *body, size_t len,
                  long *status, _Atomic bool *stop, char *err, size_t errlen)
{
    *status = 0;
    CURL *c = curl_easy_init();
    if (!c)
        return capa_fail(err, errlen, CAPA_ENOMEM, "curl_easy_init failed");
    struct curl_slist *hdr = NULL;
    char auth[256];
    hdr = curl_slist_append(hdr, "Content-Type: application/x-chess-pgn");
    hdr = curl_slist_append(hdr, "Content-Encoding: gzip");
    hdr = curl_slist_append(hdr, "Expect:");
    if (token && token[0]) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        hdr = curl_slist_append(hdr, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) len);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 120000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, s_discard);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, s_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, stop);
    CURLcode cc = curl_easy_perform(c);
    int rc = 0;
    if (cc != CURLE_OK) {
        rc = capa_fail(err, errlen, CAPA_EIO, "POST %s: %s", url, curl_easy_strerror(cc));
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        if (*status < 200 || *status > 299)
            rc = capa_fail(err, errlen, CAPA_EIO, "POST %s: HTTP status %ld", url, *status);
    }
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    return rc;
}

int upload_post(const char *url, const char *token, const void *body, size_t len, long *status,
                char *err, size_t errlen)
{
    return s_post(url, token, body, len, status, NULL, err, errlen);
}

static int s_read_file(const char *path, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return CAPA_EIO;
    struct stat st;
    if (fstat(fileno(f), &st) < 0 || st.st_size < 0 || st.st_size > (1 << 30)) {
        fclose(f);
        return CAPA_EIO;
    }
    unsigned char *buf = malloc((size_t) st.st_size + 1);
    if (!buf) {
        fclose(f);
        return CAPA_ENOMEM;
    }
    size_t n = fread(buf, 1, (size_t) st.st_size, f);
    fclose(f);
    if (n != (size_t) st.st_size) {
        free(buf);
        return CAPA_EIO;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Sends every waiting file once; returns the number that failed. */
static int s_pass(upload_t *up)
{
    DIR *d = opendir(up->dir);
    if (!d)
        return 1;
    int failed = 0;
    uint64_t waiting = 0;
    struct dirent *de;
    while (!up->stop && (de = readdir(d))) {
        long long task;
        char tail[16];
        if (sscanf(de->d_name, "task-%lld.pgn.g%15s", &task, tail) != 2 || strcmp(tail, "z") != 0)
            continue;
        waiting++;
        if (failed)
            continue;  /* the server is not taking them: try again later */
        char path[PATH_MAX + 300], url[800], err[300];
        snprintf(path, sizeof path, "%s/%s", up->dir, de->d_name);
        snprintf(url, sizeof url, "%s/api/tasks/%lld/pgn", up->base, task);
        unsigned char *body;
        size_t len;
        if (s_read_file(path, &body, &len) < 0) {
            failed++;
            continue;
        }
        long status;
        int rc = s_post(url, up->token, body, len, &status, &up->stop, err, sizeof err);
        free(body);
        pthread_mutex_lock(&up->mu);
        if (rc == 0) {
            up->stats.sent++;
            waiting--;
        } else {
            up->stats.failed++;
        }
        pthread_mutex_unlock(&up->mu);
        if (rc == 0) {
            unlink(path);
            LOG(LOG_DEBUG, "uploaded PGN of task %lld (%zu bytes)", task, len);
        } else {
            LOG(LOG_INFO, "PGN upload of task %lld failed (kept, retried later): %s", task, err);
            failed++;
        }
    }
    closedir(d);
    pthread_mutex_lock(&up->mu);
    up->stats.waiting = waiting;
    pthread_mutex_unlock(&up->mu);
    return failed;
}

static void *s_thread_main(void *arg)
{
    upload_t *up = arg;
    int delay = 0;
    while (!up->stop) {
        int failed = s_pass(up);
        pthread_mutex_lock(&up->mu);
        if (failed)
            delay = delay ? (delay > up->retry_max_ms / 2 ? up->retry_max_ms : delay * 2)
                          : up->retry_first_ms;
        else
            delay = 0;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t wait_ms = failed ? delay : 3600000;
        until.tv_sec += wait_ms / 1000;
        until.tv_nsec += (wait_ms % 1000) * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        while (!up->wake && !up->stop)
            if (pthread_cond_timedwait(&up->cv, &up->mu, &until) == ETIMEDOUT)
                break;
        up->wake = false;
        pthread_mutex_unlock(&up->mu);
    }
    return NULL;
}

int upload_new(const char *dir, const char *base_url, const char *token, upload_t **out,
               char *err, size_t errlen)
{
    *out = NULL;
    upload_t *up = calloc(1, sizeof *up);
    if (!up)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    snprintf(up->dir, sizeof up->dir, "%s", dir);
    snprintf(up->base, sizeof up->base, "%s", base_url ? base_url : "");
    size_t bl = strlen(up->base);
    while (bl > 0 && up->base[bl - 1] == '/')
        up->base[--bl] = '\0';
    snprintf(up->token, sizeof up->token, "%s", token ? token : "");
    up->retry_first_ms = UPLOAD_RETRY_FIRST_MS;
    up->retry_max_ms = UPLOAD_RETRY_MAX_MS;
    pthread_mutex_init(&up->mu, NULL);
    pthread_cond_init(&up->cv, NULL);
    if (!up->base[0]) {
        *out = up;
        return 0;
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        int e = errno;
        upload_destroy(&up);
        return capa_fail(err, errlen, CAPA_EIO, "cannot create PGN folder %s: %s", dir,
                         strerror(e));
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = pthread_create(&up->tid, NULL, s_thread_main, up);
    if (rc != 0) {
        upload_destroy(&up);
        return capa_fail(err, errlen, CAPA_EIO, "cannot start the upload thread: %s",
                         strerror(rc));
    }
    up->started = true;
    *out = up;
    return 0;
}

void upload_destroy(upload_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    upload_t *up = *self_p;
    *self_p = NULL;
    if (up->started) {
        pthread_mutex_lock(&up->mu);
        up->stop = true;
        pthread_cond_broadcast(&up->cv);
        pthread_mutex_unlock(&up->mu);
        pthread_join(up->tid, NULL);
    }
    pthread_cond_destroy(&up->cv);
    pthread_mutex_destroy(&up->mu);
    free(up);
}

int upload_store(upload_t *up, int64_t task_id, const char *text, size_t len, char *err,
                 size_t errlen)
{
    if (!up->base[0] || len == 0)
        return 0;
    unsigned char *gz;
    size_t gzlen;
    int rc = upload_gzip(text, len, &gz, &gzlen);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "cannot compress the PGN of task %" PRId64, task_id);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/task-%" PRId64 ".pgn.gz", up->dir, task_id);
    rc = spool_write_atomic(path, gz, gzlen, err, errlen);
    free(gz);
    if (rc == 0)
        upload_kick(up);
    return rc;
}

void upload_kick(upload_t *up)
{
    pthread_mutex_lock(&up->mu);
    up->wake = true;
    pthread_cond_broadcast(&up->cv);
    pthread_mutex_unlock(&up->mu);
}

void upload_stats(upload_t *up, upload_stats_t *out)
{
    pthread_mutex_lock(&up->mu);
    *out = up->stats;
    pthread_mutex_unlock(&up->mu);
}

void upload_set_retry(upload_t *up, int first_ms, int max_ms)
{
    pthread_mutex_lock(&up->mu);
    up->retry_first_ms = first_ms < 1 ? 1 : first_ms;
    up->retry_max_ms = max_ms < up->retry_first_ms ? up->retry_first_ms : max_ms;
    pthread_mutex_unlock(&up->mu);
}
