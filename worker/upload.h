/* upload.h - each task's games as gzip-compressed PGN, POSTed to the
 * coordinator's HTTP API in the background.
 *
 * upload_store writes <dir>/task-<id>.pgn.gz atomically; a thread of its own
 * POSTs every such file to <base>/api/tasks/<id>/pgn (Content-Type
 * application/x-chess-pgn, Content-Encoding gzip, the contributor token as
 * "Authorization: Bearer ...") and deletes it after a 2xx answer. Any
 * failure (no server, no such API yet, 5xx) leaves the file where it is and
 * retries after a delay (5 s doubling to 10 min); files left from an earlier
 * run are sent too. Nothing here ever blocks the caller on the network.
 *
 *   upload_t *up; upload_new(dir, "http://host:8080", token, &up, err, sizeof err);
 *   upload_store(up, task_id, pgn_text, strlen(pgn_text), err, sizeof err);
 *   upload_destroy(&up);                       stops the thread (aborts a transfer)
 *
 * With an empty base URL nothing is stored or sent (upload_store returns 0).
 */
#ifndef CAPA_WORKER_UPLOAD_H
#define CAPA_WORKER_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UPLOAD_RETRY_FIRST_MS 5000
#define UPLOAD_RETRY_MAX_MS 600000

typedef struct upload_s upload_t;

typedef struct {
    uint64_t sent;       /* files accepted by the server */
    uint64_t failed;     /* attempts that failed */
    uint64_t waiting;    /* files in the folder at the last scan */
} upload_stats_t;

/* dir is created if missing. The thread starts at once. */
int upload_new(const char *dir, const char *base_url, const char *token, upload_t **out,
               char *err, size_t errlen);
void upload_destroy(upload_t **self_p);

/* Compresses text and writes it for task_id; wakes the thread. */
int upload_store(upload_t *up, int64_t task_id, const char *text, size_t len, char *err,
                 size_t errlen);
/* Asks the thread to try again now (e.g. after a reconnect). */
void upload_kick(upload_t *up);
void upload_stats(upload_t *up, upload_stats_t *out);
/* Sets the first retry delay (tests shorten it). */
void upload_set_retry(upload_t *up, int first_ms, int max_ms);

/* gzip (RFC 1952) of data into a malloc'ed buffer. */
int upload_gzip(const void *data, size_t len, unsigned char **out, size_t *out_len);
/* One POST; *status gets the HTTP status (0 if none). 0 for a 2xx answer,
 * CAPA_EIO otherwise, with a message. */
int upload_post(const char *url, const char *token, const void *body, size_t len, long *status,
                char *err, size_t errlen);

#endif
