/* spool.h - the worker's durable queue of RESULT batches not yet acknowledged.
 *
 * Every RESULT frame is appended to <dir>/spool.dat and fsynced BEFORE it is
 * sent; it is removed when its ACK arrives: a small tombstone record is
 * appended and fsynced, and once the dead bytes pass 1 MiB and outweigh the
 * live ones the file is compacted (rewritten atomically: temp file, fsync,
 * rename, fsync of the folder); when nothing is left it is cut to zero
 * bytes (no copy needed, so this works on a full disk too). After a crash
 * spool_open reads the file back; a torn or corrupt record (each record has
 * a length and a CRC-32) ends the readable part: it and anything after it
 * are dropped with a log line (it was never sent, so its pairs are replayed
 * by the coordinator's lease mechanism).
 *
 * Record layout (little-endian):
 *   u32 magic "CSP1" | u32 payload length | i64 task_id | i64 batch |
 *   payload (the RESULT frame, JSON) | u32 CRC-32 over task_id..payload
 * A tombstone has magic "CSPT" and no payload. A torn tombstone brings its
 * batch back: it is resent and acknowledged again as a duplicate.
 *
 * A batch the coordinator refused as malformed (BAD_JSON, BAD_SCHEMA, ...)
 * is a bug: spool_quarantine moves it to <dir>/spool.bad (append-only, same
 * format) where it stays for inspection and is never resent.
 *
 * Failure to write (disk full, read-only folder, file size limit) returns
 * CAPA_EFULL or CAPA_EIO with a message; the spool is unchanged (a partly
 * written record is cut off again), so the caller may retry later.
 *
 *   spool_t *sp; spool_open(dir, &sp, err, sizeof err);
 *   spool_append(sp, task, batch, frame, len, err, sizeof err);   then send
 *   spool_remove(sp, task, batch, err, sizeof err);                on ACK
 *   for (size_t i = 0; i < spool_count(sp); i++) spool_entry(sp, i) ...  resend
 *   spool_destroy(&sp);
 *
 * Not thread-safe: one owner (the worker's main thread).
 */
#ifndef CAPA_WORKER_SPOOL_H
#define CAPA_WORKER_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPOOL_FILE "spool.dat"
#define SPOOL_BAD_FILE "spool.bad"
#define SPOOL_RECORD_MAX (2u << 20) /* payload bytes; a frame is at most 1 MiB */

typedef struct spool_s spool_t;

typedef struct {
    int64_t task_id;
    int64_t batch;
    const char *frame;  /* owned by the spool; valid until the entry is removed */
    size_t len;
    const int64_t *pairs; /* the batch's pair numbers, read from the frame (owned by the
                             spool; none if the frame does not read as a RESULT) */
    size_t pair_count;
} spool_entry_t;

/* Opens (creating the folder's spool file if needed) and loads the spool in
 * dir. A torn tail is dropped and the file cut back to its readable part.
 * 0 or a negative capa_err_t with a message; *out owned by the caller. */
int spool_open(const char *dir, spool_t **out, char *err, size_t errlen);
void spool_destroy(spool_t **self_p);

/* Appends a record and fsyncs it. CAPA_EFULL (no space, file too large),
 * CAPA_EIO (any other write error), CAPA_EDUP if (task_id, batch) is
 * already spooled, CAPA_ERANGE if len is 0 or above SPOOL_RECORD_MAX. */
int spool_append(spool_t *sp, int64_t task_id, int64_t batch, const void *frame, size_t len,
                 char *err, size_t errlen);

/* Removes a record (an ACK arrived, or the lease is gone): a tombstone, or
 * a compaction. CAPA_ENOTFOUND if not spooled. When the write fails the
 * record is gone from memory, the file keeps it (a resend after a restart
 * is answered as a duplicate) and a rewrite is retried by the next change
 * or spool_sync; the error is returned. */
int spool_remove(spool_t *sp, int64_t task_id, int64_t batch, char *err, size_t errlen);

/* Moves a record to spool.bad (kept for inspection, never resent). */
int spool_quarantine(spool_t *sp, int64_t task_id, int64_t batch, char *err, size_t errlen);

/* Rewrites the file from memory (compaction, or a retry after a failed
 * write); 0 when the file holds exactly the live records. */
int spool_sync(spool_t *sp, char *err, size_t errlen);

/* Records in append order. */
size_t spool_count(const spool_t *sp);
const spool_entry_t *spool_entry(const spool_t *sp, size_t i);
/* The entry for (task_id, batch), or NULL. */
const spool_entry_t *spool_find(const spool_t *sp, int64_t task_id, int64_t batch);
/* The highest batch number spooled for task_id, or -1. */
int64_t spool_max_batch(const spool_t *sp, int64_t task_id);
/* Total payload bytes held. */
size_t spool_bytes(const spool_t *sp);
/* True while the file holds removed records that no tombstone covers
 * (a write failed; the next change or spool_sync rewrites it). */
bool spool_dirty(const spool_t *sp);

/* Helpers shared with tests: CRC-32 (zlib's polynomial) and whole-file
 * atomic replacement (temp + fsync + rename + fsync of the folder). */
uint32_t spool_crc32(const void *data, size_t len);
int spool_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
