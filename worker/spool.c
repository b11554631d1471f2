/* spool.c - append-only, fsynced file of unacknowledged RESULT batches. */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "log.h"

#define SPOOL_MAGIC 0x31505343u /* "CSP1" read as little-endian u32: a batch */
#define SPOOL_TOMB 0x54505343u  /* "CSPT": a tombstone, the batch was acknowledged */
#define SPOOL_COMPACT_MIN (1u << 20) /* rewrite once this much is dead ... */
#define SPOOL_HEAD 24           /* magic, length, task_id, batch */
#define SPOOL_TAIL 4            /* crc */

typedef struct {
    spool_entry_t pub;
    char *frame;                /* owned copy */
    int64_t *pairs;             /* owned: the batch's pair numbers */
} s_entry_t;

struct spool_s {
    char path[PATH_MAX];
    char bad_path[PATH_MAX];
    char dir[PATH_MAX];
    int fd;                     /* append descriptor, -1 when closed */
    off_t size;                 /* bytes in the file */
    s_entry_t *items;
    size_t count, cap;
    size_t bytes;
    size_t dead;                /* file bytes of removed batches and tombstones */
    bool dirty;                 /* the file holds removed batches without tombstones */
};

uint32_t spool_crc32(const void *data, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const unsigned char *p = data;
    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt) len;
        c = crc32(c, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t) c;
}

static void s_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static void s_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static uint32_t s_get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t s_get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static int s_errno_code(int e)
{
    return (e == ENOSPC || e == EFBIG || e == EDQUOT) ? CAPA_EFULL : CAPA_EIO;
}

static int s_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t) w;
    }
    return 0;
}

static int s_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int spool_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 8];
    char dir[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return capa_fail(err, errlen, s_errno_code(errno), "cannot create %s: %s", tmp,
                         strerror(errno));
    if (s_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return capa_fail(err, errlen, s_errno_code(e), "cannot write %s: %s", tmp, strerror(e));
    }
    if (close(fd) < 0) {
        int e = errno;
        unlink(tmp);
        return capa_fail(err, errlen, s_errno_code(e), "cannot write %s: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return capa_fail(err, errlen, CAPA_EIO, "cannot rename %s: %s", tmp, strerror(e));
    }
    if (s_fsync_dir(dir) < 0)
        return capa_fail(err, errlen, CAPA_EIO, "cannot fsync folder %s: %s", dir,
                         strerror(errno));
    return 0;
}

/* Serialises one record into a malloc'ed buffer. */
static unsigned char *s_record_magic(uint32_t magic, int64_t task_id, int64_t batch,
                                     const void *frame, size_t len, size_t *out_len)
{
    size_t n = SPOOL_HEAD + len + SPOOL_TAIL;
    unsigned char *buf = malloc(n);
    if (!buf)
        return NULL;
    s_put32(buf, magic);
    s_put32(buf + 4, (uint32_t) len);
    s_put64(buf + 8, (uint64_t) task_id);
    s_put64(buf + 16, (uint64_t) batch);
    if (len)
        memcpy(buf + SPOOL_HEAD, frame, len);
    s_put32(buf + SPOOL_HEAD + len, spool_crc32(buf + 8, 16 + len));
    *out_len = n;
    return buf;
}

static unsigned char *s_record(int64_t task_id, int64_t batch, const void *frame, size_t len,
                               size_t *out_len)
{
    return s_record_magic(SPOOL_MAGIC, task_id, batch, frame, len, out_len);
}

static int s_open_append(spool_t *sp, char *err, size_t errlen)
{
    if (sp->fd >= 0)
        close(sp->fd);
    sp->fd = open(sp->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (sp->fd < 0)
        return capa_fail(err, errlen, s_errno_code(errno), "cannot open spool %s: %s", sp->path,
                         strerror(errno));
    struct stat st;
    if (fstat(sp->fd, &st) < 0)
        return capa_fail(err, errlen, CAPA_EIO, "cannot stat %s: %s", sp->path, strerror(errno));
    sp->size = st.st_size;
    return 0;
}

static ssize_t s_index(const spool_t *sp, int64_t task_id, int64_t batch)
{
    for (size_t i = 0; i < sp->count; i++)
        if (sp->items[i].pub.task_id == task_id && sp->items[i].pub.batch == batch)
            return (ssize_t) i;
    return -1;
}

/* The pair numbers of a RESULT frame ("pairs"[i]."pair"); none when the
 * frame does not read as one (the coordinator will refuse it). */
static int64_t *s_frame_pairs(const char *frame, size_t len, size_t *n_out)
{
    *n_out = 0;
    cJSON *root = cJSON_ParseWithLength(frame, len);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "pairs");
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    int64_t *out = n > 0 ? calloc((size_t) n, sizeof *out) : NULL;
    size_t k = 0;
    for (const cJSON *c = out ? arr->child : NULL; c; c = c->next) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "pair");
        if (cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble < 9007199254740992.0)
            out[k++] = (int64_t) p->valuedouble;
    }
    cJSON_Delete(root);
    *n_out = k;
    return out;
}

static int s_push(spool_t *sp, int64_t task_id, int64_t batch, const void *frame, size_t len)
{
    if (sp->count == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 16;
        s_entry_t *items = realloc(sp->items, cap * sizeof *items);
        if (!items)
            return CAPA_ENOMEM;
        sp->items = items;
        sp->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return CAPA_ENOMEM;
    memcpy(copy, frame, len);
    copy[len] = '\0';
    s_entry_t *e = &sp->items[sp->count++];
    e->frame = copy;
    size_t npairs;
    e->pairs = s_frame_pairs(copy, len, &npairs);
    e->pub = (spool_entry_t){ .task_id = task_id, .batch = batch, .frame = copy, .len = len,
                              .pairs = e->pairs, .pair_count = npairs };
    sp->bytes += len;
    return 0;
}

static void s_drop(spool_t *sp, size_t i)
{
    sp->bytes -= sp->items[i].pub.len;
    free(sp->items[i].frame);
    free(sp->items[i].pairs);
    memmove(&sp->items[i], &sp->items[i + 1], (sp->count - i - 1) * sizeof sp->items[0]);
    sp->count--;
}

/* Parses buf; returns the length of the readable prefix. */
static size_t s_load(spool_t *sp, const unsigned char *buf, size_t n, int *rc)
{
    size_t off = 0;
    *rc = 0;
    while (off < n) {
        const char *why = NULL;
        size_t len = 0;
        uint32_t magic = 0;
        if (n - off < SPOOL_HEAD + SPOOL_TAIL)
            why = "a torn record header";
        else if ((magic = s_get32(buf + off)) != SPOOL_MAGIC && magic != SPOOL_TOMB)
            why = "a bad record magic";
        else if ((len = s_get32(buf + off + 4)) > SPOOL_RECORD_MAX ||
                 (len == 0) != (magic == SPOOL_TOMB))
            why = "an impossible record length";
        else if (n - off < SPOOL_HEAD + len + SPOOL_TAIL)
            why = "a torn record (shorter than its length)";
        else if (spool_crc32(buf + off + 8, 16 + len) != s_get32(buf + off + SPOOL_HEAD + len))
            why = "a record with a bad checksum";
        if (why) {
            LOG(LOG_WARN, "spool %s: %s at offset %zu; dropping the last %zu bytes (never "
                          "sent; the coordinator replays those pairs)",
                sp->path, why, off, n - off);
            return off;
        }
        int64_t task_id = (int64_t) s_get64(buf + off + 8);
        int64_t batch = (int64_t) s_get64(buf + off + 16);
        size_t rec = SPOOL_HEAD + len + SPOOL_TAIL;
        ssize_t at = s_index(sp, task_id, batch);
        if (magic == SPOOL_TOMB) {
            if (at >= 0) {
                sp->dead += SPOOL_HEAD + sp->items[at].pub.len + SPOOL_TAIL;
                s_drop(sp, (size_t) at);
            }
            sp->dead += rec;
        } else if (at >= 0) {
            LOG(LOG_WARN, "spool %s: task %lld batch %lld twice; keeping the first", sp->path,
                (long long) task_id, (long long) batch);
            sp->dirty = true;
        } else if ((*rc = s_push(sp, task_id, batch, buf + off + SPOOL_HEAD, len)) < 0) {
            return off;
        }
        off += rec;
    }
    return off;
}

int spool_open(const char *dir, spool_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return capa_fail(err, errlen, s_errno_code(errno), "cannot create spool folder %s: %s",
                         dir, strerror(errno));
    spool_t *sp = calloc(1, sizeof *sp);
    if (!sp)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    sp->fd = -1;
    snprintf(sp->dir, sizeof sp->dir, "%s", dir);
    if (snprintf(sp->path, sizeof sp->path, "%s/%s", dir, SPOOL_FILE) >= (int) sizeof sp->path ||
        snprintf(sp->bad_path, sizeof sp->bad_path, "%s/%s", dir, SPOOL_BAD_FILE) >=
            (int) sizeof sp->bad_path) {
        free(sp);
        return capa_fail(err, errlen, CAPA_ERANGE, "spool folder name too long");
    }
    int rc = 0;
    FILE *f = fopen(sp->path, "rb");
    if (f) {
        unsigned char *buf = NULL;
        size_t n = 0, cap = 0;
        for (;;) {
            if (n == cap) {
                cap = cap ? cap * 2 : 65536;
                unsigned char *nb = realloc(buf, cap);
                if (!nb) {
                    rc = CAPA_ENOMEM;
                    break;
                }
                buf = nb;
            }
            size_t r = fread(buf + n, 1, cap - n, f);
            n += r;
            if (r == 0)
                break;
        }
        bool read_err = ferror(f);
        fclose(f);
        if (rc == 0 && read_err)
            rc = capa_fail(err, errlen, CAPA_EIO, "cannot read spool %s", sp->path);
        if (rc == 0) {
            size_t good = s_load(sp, buf, n, &rc);
            if (rc == 0 && good < n) {
                if (truncate(sp->path, (off_t) good) < 0)
                    sp->dirty = true;  /* rewritten by the next change */
            }
        }
        free(buf);
        if (rc == CAPA_ENOMEM)
            capa_fail(err, errlen, rc, "out of memory reading %s", sp->path);
    } else if (errno != ENOENT) {
        rc = capa_fail(err, errlen, CAPA_EIO, "cannot read spool %s: %s", sp->path,
                       strerror(errno));
    }
    if (rc == 0)
        rc = s_open_append(sp, err, errlen);
    if (rc == 0 && (sp->dirty || sp->dead))
        spool_sync(sp, NULL, 0);  /* best effort; stays dirty on failure */
    if (rc < 0) {
        spool_destroy(&sp);
        return rc;
    }
    if (sp->count)
        LOG(LOG_INFO, "spool %s: %zu unacknowledged batch(es), %zu bytes", sp->path, sp->count,
            sp->bytes);
    *out = sp;
    return 0;
}

void spool_destroy(spool_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    spool_t *sp = *self_p;
    for (size_t i = 0; i < sp->count; i++) {
        free(sp->items[i].frame);
        free(sp->items[i].pairs);
    }
    free(sp->items);
    if (sp->fd >= 0)
        close(sp->fd);
    free(sp);
    *self_p = NULL;
}

int spool_append(spool_t *sp, int64_t task_id, int64_t batch, const void *frame, size_t len,
                 char *err, size_t errlen)
{
    if (len == 0 || len > SPOOL_RECORD_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "spool record of %zu bytes", len);
    if (s_index(sp, task_id, batch) >= 0)
        return capa_fail(err, errlen, CAPA_EDUP, "task %lld batch %lld is already spooled",
                         (long long) task_id, (long long) batch);
    if (sp->dirty) {
        int rc = spool_sync(sp, err, errlen);
        if (rc < 0)
            return rc;
    }
    if (sp->fd < 0) {
        int rc = s_open_append(sp, err, errlen);
        if (rc < 0)
            return rc;
    }
    size_t n;
    unsigned char *rec = s_record(task_id, batch, frame, len, &n);
    if (!rec)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = 0;
    if (s_write_all(sp->fd, rec, n) < 0 || fsync(sp->fd) < 0) {
        int e = errno;
        rc = capa_fail(err, errlen, s_errno_code(e), "cannot write spool %s: %s", sp->path,
                       strerror(e));
        /* Cut a partly written record off again; if even that fails, the
         * torn tail is found by the checksum at the next start. */
        if (ftruncate(sp->fd, sp->size) < 0 || fsync(sp->fd) < 0)
            sp->dirty = true;
    }
    if (rc == 0) {
        rc = s_push(sp, task_id, batch, frame, len);
        if (rc < 0) {
            sp->dirty = true;
            capa_fail(err, errlen, rc, "out of memory");
        } else {
            sp->size += (off_t) n;
        }
    }
    free(rec);
    return rc;
}

int spool_sync(spool_t *sp, char *err, size_t errlen)
{
    if (sp->count == 0) {
        /* Nothing left: cutting the file needs no temp copy, so it works on
         * a full disk too (a crash midway leaves acknowledged batches that
         * are answered as duplicates). */
        int rc = sp->fd >= 0 ? 0 : s_open_append(sp, err, errlen);
        if (rc < 0)
            return rc;
        if (ftruncate(sp->fd, 0) < 0 || fsync(sp->fd) < 0)
            return capa_fail(err, errlen, s_errno_code(errno), "cannot truncate %s: %s",
                             sp->path, strerror(errno));
        sp->size = 0;
        sp->dead = 0;
        sp->dirty = false;
        return 0;
    }
    size_t total = 0;
    for (size_t i = 0; i < sp->count; i++)
        total += SPOOL_HEAD + sp->items[i].pub.len + SPOOL_TAIL;
    unsigned char *buf = malloc(total ? total : 1);
    if (!buf)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    size_t off = 0;
    for (size_t i = 0; i < sp->count; i++) {
        const spool_entry_t *e = &sp->items[i].pub;
        size_t n;
        unsigned char *rec = s_record(e->task_id, e->batch, e->frame, e->len, &n);
        if (!rec) {
            free(buf);
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        }
        memcpy(buf + off, rec, n);
        off += n;
        free(rec);
    }
    int rc = spool_write_atomic(sp->path, buf, total, err, errlen);
    free(buf);
    if (rc < 0) {
        sp->dirty = true;
        return rc;
    }
    sp->dirty = false;
    sp->dead = 0;
    return s_open_append(sp, err, errlen);
}

int spool_remove(spool_t *sp, int64_t task_id, int64_t batch, char *err, size_t errlen)
{
    ssize_t i = s_index(sp, task_id, batch);
    if (i < 0)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "task %lld batch %lld is not spooled",
                         (long long) task_id, (long long) batch);
    size_t gone = SPOOL_HEAD + sp->items[i].pub.len + SPOOL_TAIL;
    s_drop(sp, (size_t) i);
    /* Nothing left, a pending rewrite, or mostly dead bytes: rewrite (or
     * cut) the file. Otherwise a tombstone records the removal: one small
     * fsynced append instead of a copy of the whole spool per ACK. */
    if (sp->count == 0 || sp->dirty ||
        (sp->dead + gone > SPOOL_COMPACT_MIN && sp->dead + gone > sp->bytes)) {
        sp->dirty = true;
        return spool_sync(sp, err, errlen);
    }
    size_t n;
    unsigned char *tomb = s_record_magic(SPOOL_TOMB, task_id, batch, NULL, 0, &n);
    int rc = 0;
    if (!tomb)
        rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    else if (sp->fd < 0)
        rc = s_open_append(sp, err, errlen);
    if (rc == 0 && (s_write_all(sp->fd, tomb, n) < 0 || fsync(sp->fd) < 0)) {
        rc = capa_fail(err, errlen, s_errno_code(errno), "cannot write spool %s: %s", sp->path,
                       strerror(errno));
        if (ftruncate(sp->fd, sp->size) < 0 || fsync(sp->fd) < 0)
            LOG(LOG_WARN, "spool %s: cannot cut a torn tombstone", sp->path);
    }
    free(tomb);
    if (rc < 0) {
        sp->dirty = true;  /* the file still holds the batch: rewrite later */
        return rc;
    }
    sp->size += (off_t) n;
    sp->dead += gone + n;
    return 0;
}

int spool_quarantine(spool_t *sp, int64_t task_id, int64_t batch, char *err, size_t errlen)
{
    ssize_t i = s_index(sp, task_id, batch);
    if (i < 0)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "task %lld batch %lld is not spooled",
                         (long long) task_id, (long long) batch);
    const spool_entry_t *e = &sp->items[i].pub;
    size_t n;
    unsigned char *rec = s_record(e->task_id, e->batch, e->frame, e->len, &n);
    if (!rec)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int fd = open(sp->bad_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    int rc = 0;
    if (fd < 0 || s_write_all(fd, rec, n) < 0 || fsync(fd) < 0)
        rc = capa_fail(err, errlen, s_errno_code(errno), "cannot write %s: %s", sp->bad_path,
                       strerror(errno));
    if (fd >= 0)
        close(fd);
    free(rec);
    if (rc < 0)
        return rc;
    return spool_remove(sp, task_id, batch, err, errlen);
}

size_t spool_count(const spool_t *sp) { return sp->count; }

const spool_entry_t *spool_entry(const spool_t *sp, size_t i)
{
    return i < sp->count ? &sp->items[i].pub : NULL;
}

const spool_entry_t *spool_find(const spool_t *sp, int64_t task_id, int64_t batch)
{
    ssize_t i = s_index(sp, task_id, batch);
    return i < 0 ? NULL : &sp->items[i].pub;
}

int64_t spool_max_batch(const spool_t *sp, int64_t task_id)
{
    int64_t m = -1;
    for (size_t i = 0; i < sp->count; i++)
        if (sp->items[i].pub.task_id == task_id && sp->items[i].pub.batch > m)
            m = sp->items[i].pub.batch;
    return m;
}

size_t spool_bytes(const spool_t *sp) { return sp->bytes; }

bool spool_dirty(const spool_t *sp) { return sp->dirty; }
