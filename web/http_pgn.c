/* http_pgn.c - PGN files: workers POST each task's games (gzip) and anyone
 * may download a run's games as one PGN. Files live in
 * <pgn_dir>/run-<run>/task-<task>.pgn.gz, written atomically (a repeated
 * upload of a task replaces its file). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "err.h"
#include "http_buf.h"
#include "http_int.h"
#include "log.h"

/* Appends the inflated text of gzip data (one or more members) to out; false
 * if it is not valid gzip, holds a NUL byte or grows beyond limit. */
static bool s_gunzip(const unsigned char *data, size_t len, http_buf_t *out, size_t limit)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return false;
    z.next_in = (unsigned char *) data;
    z.avail_in = (uInt) len;
    unsigned char chunk[16384];
    bool ok = len > 0;
    while (ok) {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        int rc = inflate(&z, Z_NO_FLUSH);
        size_t got = sizeof chunk - z.avail_out;
        if (memchr(chunk, 0, got) || out->len + got > limit) {
            ok = false;
            break;
        }
        http_buf_add(out, (const char *) chunk, got);
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0)
                break;
            if (inflateReset(&z) != Z_OK)
                ok = false;
            continue;
        }
        if (rc != Z_OK || (z.avail_in == 0 && got == 0))
            ok = false;
    }
    inflateEnd(&z);
    return ok && !out->oom;
}

/* gzip of data into a malloc'ed buffer; NULL on failure. */
static unsigned char *s_gzip(const void *data, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong) len) + 64;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (unsigned char *) data;
    z.avail_in = (uInt) len;
    z.next_out = buf;
    z.avail_out = (uInt) cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int s_mkdir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return -1;
}

static int s_mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            int rc = s_mkdir(path);
            *p = '/';
            if (rc < 0)
                return -1;
        }
    return s_mkdir(path);
}

static int s_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char tmp[1400], path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, name, (long) getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        left -= (size_t) w;
    }
    if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int http_pgn_upload(http_req_t *req, int64_t task_id)
{
    int rc = MHD_NO;
    http_who_t who;
    if (!http_authorize(req, HTTP_NEED_CONTRIBUTOR, &who, &rc))
        return rc;
    if (!req->body || req->body_len == 0)
        return http_reply_error(req, 400, "bad_request", "the body must be gzip-compressed PGN");
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    store_task_t task;
    int r = store_task_get(st, task_id, &task);
    if (r == CAPA_ENOTFOUND)
        return http_reply_error(req, 404, "not_found", "no task %lld", (long long) task_id);
    if (r < 0) {
        http_db_failed(req);
        return http_reply_db_down(req);
    }
    if (!who.is_admin) {
        store_worker_t w;
        memset(&w, 0, sizeof w);
        r = store_worker_get(st, task.worker_id, &w);
        free(w.host_info);
        if (r < 0 && r != CAPA_ENOTFOUND) {
            http_db_failed(req);
            return http_reply_db_down(req);
        }
        if (r == CAPA_ENOTFOUND || w.contributor_id != who.contributor_id)
            return http_reply_error(req, 403, "forbidden",
                                    "task %lld belongs to another contributor's worker",
                                    (long long) task_id);
    }
    /* Check the data: gzip of text (plain text is accepted and compressed). */
    const unsigned char *body = (const unsigned char *) req->body;
    unsigned char *packed = NULL;
    size_t packed_len = 0;
    http_buf_t text = { 0 };
    if (req->body_len >= 2 && body[0] == 0x1f && body[1] == 0x8b) {
        if (!s_gunzip(body, req->body_len, &text, HTTP_PGN_INFLATED_MAX)) {
            http_buf_free(&text);
            return http_reply_error(req, 400, "bad_gzip",
                                    "the body is not valid gzip of PGN text (or inflates beyond "
                                    "%u bytes)", HTTP_PGN_INFLATED_MAX);
        }
    } else {
        if (memchr(body, 0, req->body_len))
            return http_reply_error(req, 400, "bad_request", "PGN text holds no NUL bytes");
        packed = s_gzip(body, req->body_len, &packed_len);
        if (!packed)
            return http_reply_error(req, 500, "internal", "cannot compress");
        body = packed;
    }
    size_t text_len = text.len;
    http_buf_free(&text);
    char dir[1200], name[64];
    snprintf(dir, sizeof dir, "%s/run-%lld", req->srv->cfg.pgn_dir, (long long) task.run_id);
    snprintf(name, sizeof name, "task-%lld.pgn.gz", (long long) task_id);
    size_t len = packed ? packed_len : req->body_len;
    if (s_mkdirs(dir) < 0 || s_write_file(dir, name, body, len) < 0) {
        int e = errno;
        free(packed);
        LOG(LOG_ERROR, "http: cannot store %s/%s: %s", dir, name, strerror(e));
        return http_reply_error(req, 500, "storage", "cannot store the file");
    }
    free(packed);
    pthread_mutex_lock(&req->srv->mu);
    req->srv->pgn_uploads++;
    pthread_mutex_unlock(&req->srv->mu);
    LOG(LOG_DEBUG, "http: PGN of task %lld (run %lld) stored, %zu bytes", (long long) task_id,
        (long long) task.run_id, len);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "task", (double) task_id);
    cJSON_AddNumberToObject(o, "run", (double) task.run_id);
    cJSON_AddNumberToObject(o, "bytes", (double) len);
    if (text_len)
        cJSON_AddNumberToObject(o, "text_bytes", (double) text_len);
    return http_reply_json(req, 200, o);
}

static int s_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

static char *s_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    http_buf_t b = { 0 };
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        http_buf_add(&b, chunk, n);
    fclose(f);
    return http_buf_take(&b, len);
}

int http_pgn_download(http_req_t *req, int64_t run_id)
{
    store_t *st = http_db(req);
    if (!st)
        return http_reply_db_down(req);
    store_run_t run;
    memset(&run, 0, sizeof run);
    int r = store_run_get(st, run_id, &run);
    if (r == CAPA_ENOTFOUND)
        return http_reply_error(req, 404, "not_found", "no run %lld", (long long) run_id);
    if (r < 0) {
        http_db_failed(req);
        return http_reply_db_down(req);
    }
    store_run_clear(&run);
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/run-%lld", req->srv->cfg.pgn_dir, (long long) run_id);
    DIR *d = opendir(dir);
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            long long t;
            char tail[16];
            if (sscanf(e->d_name, "task-%lld.pgn.g%15s", &t, tail) != 2 || strcmp(tail, "z") != 0)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                int64_t *ni = realloc(ids, cap * sizeof *ids);
                if (!ni)
                    break;
                ids = ni;
            }
            ids[n++] = t;
        }
        closedir(d);
    }
    if (n == 0) {
        free(ids);
        return http_reply_error(req, 404, "no_pgn", "no PGN uploaded for run %lld yet",
                                (long long) run_id);
    }
    qsort(ids, n, sizeof *ids, s_cmp_i64);
    http_buf_t all = { 0 };
    for (size_t i = 0; i < n; i++) {
        char path[1300];
        snprintf(path, sizeof path, "%s/task-%lld.pgn.gz", dir, (long long) ids[i]);
        size_t len = 0;
        char *gz = s_read_all(path, &len);
        size_t before = all.len;
        if (!gz || !s_gunzip((const unsigned char *) gz, len, &all, HTTP_PGN_INFLATED_MAX)) {
            LOG(LOG_WARN, "http: %s is unreadable or not gzip; left out", path);
            all.len = before;
            if (all.data)
                all.data[before] = 0;
        } else if (all.len > before && all.data[all.len - 1] != '\n') {
            http_buf_puts(&all, "\n");
        }
        if (all.len > before)
            http_buf_puts(&all, "\n");
        free(gz);
    }
    free(ids);
    size_t len = 0;
    char *text = http_buf_take(&all, &len);
    if (!text)
        return http_reply_error(req, 500, "internal", "out of memory");
    char disp[96];
    snprintf(disp, sizeof disp, "attachment; filename=\"run-%lld.pgn\"", (long long) run_id);
    const char *ae = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_ACCEPT_ENCODING);
    if (ae && strstr(ae, "gzip")) {
        size_t zlen = 0;
        unsigned char *z = s_gzip(text, len, &zlen);
        if (z) {
            free(text);
            const char *const headers[] = { "Content-Encoding", "gzip", "Content-Disposition",
                                            disp, "Vary", "Accept-Encoding", NULL };
            return http_reply_headers(req, 200, "application/x-chess-pgn", (char *) z, zlen,
                                      headers);
        }
    }
    const char *const headers[] = { "Content-Disposition", disp, "Vary", "Accept-Encoding", NULL };
    return http_reply_headers(req, 200, "application/x-chess-pgn", text, len, headers);
}
