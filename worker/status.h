/* status.h - what the worker tells its owner: the facts of the status line,
 * their one-line form, and <state_dir>/status.json, which `capa-worker
 * status` reads without joining the coordinator.
 *
 *   worker_status_t s = { ... };                 filled by the worker's loop
 *   char line[512]; status_format(&s, time(NULL), line, sizeof line);
 *   status_save(dir, &s, err, sizeof err);       atomic (temp + rename)
 *   status_load(dir, &s, err, sizeof err);       CAPA_ENOTFOUND if never written
 *
 * Plain values; no allocation.
 */
#ifndef CAPA_WORKER_STATUS_H
#define CAPA_WORKER_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define STATUS_FILE "status.json"

typedef struct {
    int64_t pid;
    int64_t started;            /* wall clock, seconds since the epoch */
    int64_t updated;
    char state[24];             /* connecting, ready, idle, draining, stopping, stopped */
    char coordinator[256];
    char token_hint[24];        /* "capa_Ab3d..." : enough to tell tokens apart */
    char contributor[128];      /* as the coordinator's WELCOME names it; "" = not yet */
    char worker_id[128];
    char name[256];
    int threads, cores;
    char engine_version[128];
    int64_t bench;
    uint64_t games, pairs;      /* this session */
    int64_t run_id;             /* of the newest task being played; -1 = none */
    char kind[16];
    double pairs_per_min;       /* this session's finished pairs / minutes since start */
    double cpu_share;           /* process CPU / (wall x cores) over the last period, 0..1 */
    int64_t last_ack;           /* wall clock of the last ACK; 0 = none yet */
    uint64_t acked_pairs;       /* pairs the coordinator acknowledged this session */
    size_t spool_batches, spool_pairs;
    char note[128];             /* why idle or stopping ("stop_at 18:00 reached", ...) */
    int exit_status;            /* when state is "stopped" */
} worker_status_t;

/* "games 12 | run 7 sprt | 3.1 pairs/min | CPU 96% | last ACK 4 s ago | spool 0 pairs | ready" */
void status_format(const worker_status_t *s, int64_t now, char *out, size_t cap);
/* Writes <dir>/status.json atomically. 0 or a negative capa_err_t. */
int status_save(const char *dir, const worker_status_t *s, char *err, size_t errlen);
/* Reads it back; CAPA_ENOTFOUND if missing, CAPA_EINVAL if malformed. */
int status_load(const char *dir, worker_status_t *s, char *err, size_t errlen);
/* A token shortened for display: the first 9 characters and "...". */
void status_token_hint(const char *token, char *out, size_t cap);

#endif
