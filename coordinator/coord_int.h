/* coord_int.h - the coordinator's internal state, shared by coord*.c only. */
#ifndef CAPA_COORD_INT_H
#define CAPA_COORD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord.h"
#include "pool.h"
#include "protocol.h"
#include "runinfo.h"
#include "startpos.h"
#include "stats_spsa.h"
#include "store.h"
#include "verify.h"

#define COORD_RID_MAX 256     /* ZeroMQ routing ids are at most 255 bytes */

/* Where a loop turn and a writer job spend their time: the slots of
 * coord_t.st_ns (nanoseconds since the last stats line). */
typedef enum {
    COORD_NS_HELLO,        /* a turn's HELLOs (coord_turn_hellos) */
    COORD_NS_REVOKED,      /* the turn's revocation check */
    COORD_NS_REQUESTS,     /* the turn's REQUESTs (coord_turn_requests) */
    COORD_NS_CHECKS,       /* RESULT checks before a job goes to the writer */
    COORD_NS_INSERT,       /* the writer: storing the job's pairs */
    COORD_NS_CLOSE,        /* the writer: closing finished leases */
    COORD_NS_ACK,          /* applying a finished job: counts, SPSA, ACKs */
    COORD_NS_NB
} coord_ns_t;

/* A connected worker: one DEALER connection after a good HELLO. */
typedef struct {
    bool used;
    uint8_t rid[COORD_RID_MAX];
    size_t rid_len;
    bool req_style;                 /* [rid][empty][json] peer */
    char worker_id[PROTO_ID_MAX];
    char session[PROTO_ID_MAX];
    int64_t contributor_id;
    double nps;
    int concurrency;
    int64_t last_recv_ms;           /* monotonic */
    int64_t last_sent_ms;
    bool revoked;                   /* the token was revoked: refuse the next message */
    bool lists;                     /* its HELLO listed what it holds: so do its HEARTBEATs */
    uint64_t request_seq;           /* self->seq at its last REQUEST */
} coord_session_t;

/* A lease the coordinator knows (active, or cancelled by a run's end). */
typedef struct coord_lease {
    int64_t task_id;
    int64_t run_id;
    char worker_id[PROTO_ID_MAX];
    int64_t first, last;
    int64_t expires_ms;             /* wall clock */
    bool cancelled;                 /* the run ended: results still stored */
    bool ended;                     /* ended in the store (the worker no longer plays it):
                                       only held[] waits for the worker's resend */
    int64_t *held;                  /* ended: spooled pair numbers, sorted (owned) */
    size_t nheld;
    bool confirmed;                 /* the worker has shown it received the TASK */
    uint64_t issued_seq;            /* self->seq when the TASK was made */
    int64_t orphan_ms;              /* monotonic: since when its worker has no session */
    stats_spsa_step_t *step;        /* spsa runs: the task's perturbation (owned) */
    struct coord_lease *next;       /* hash chain */
} coord_lease_t;

/* A run the coordinator knows. */
typedef struct coord_run {
    int64_t id;
    store_run_status_t status;
    int priority;
    int64_t pairs_planned;
    runinfo_t *info;                /* parsed document (owned) */
    pool_t *pool;                   /* pairs to hand out (active runs) */
    int64_t in_flight;              /* pairs under active lease */
    store_totals_t totals;          /* counters (kept in step with our inserts) */
    int64_t last_estimate_pairs;
    int64_t last_estimate_ms;
    bool active;                    /* handing out work */
    stats_spsa_t *spsa;             /* spsa runs: theta and gains (owned) */
    struct coord_run *next;
} coord_run_t;

/* One REQUEST or RESULT waiting for the end of the loop's turn, with a copy
 * of its sender (sessions may move or end during the turn). */
typedef struct {
    uint8_t rid[COORD_RID_MAX];
    size_t rid_len;
    bool req_style;
    char worker_id[PROTO_ID_MAX];
    int64_t contributor_id;
    double nps;
    int concurrency;
    proto_msg_t msg;                /* owned */
    bool dropped;                   /* answered already (an ERROR) */
    /* HELLO */
    store_contributor_t contributor;
    store_worker_t worker;
    /* RESULT */
    coord_run_t *run;
    coord_lease_t lease;            /* copy; .step is a copy or NULL */
    stats_spsa_step_t step;
    bool has_step;
    bool held_resend;               /* the held pairs of an ended lease, its run active */
    store_pair_t *pairs;
    startpos_t *starts;
    bool *fresh;
    size_t n_new;
    int64_t cpu_ms;
    /* REQUEST */
    pool_range_t range;
    bool has_range;
    /* RESULT, set by the writer thread */
    int store_rc;
    char store_err[256];
} coord_item_t;

typedef struct {
    coord_item_t *items;
    size_t n, cap;
} coord_turn_t;

/* A verification outcome to record (pairs.verified); the writer thread stores it. */
typedef struct {
    int64_t run_id, pair_no;
    bool reproduced;
    char verifier[PROTO_ID_MAX];
} coord_verified_t;

/* The database work of the RESULTs gathered while the writer was busy: the
 * loop checks them (coord_results_submit), the writer thread stores them
 * (coord_job_store, own connection, one commit for the pairs), the loop
 * counts and ACKs them (coord_results_apply). While a job is in flight the
 * loop touches nothing in it. */
typedef struct {
    coord_turn_t turn;              /* the RESULT items (owned) */
    coord_verified_t *ver;          /* replays judged in this job */
    size_t nver, ver_cap;
    /* writer's outcome */
    int64_t *done;                  /* leases closed (their last batch stored) */
    size_t ndone;
    store_range_t *ranges;          /* their pairs not stored: back to the pool */
    size_t nranges;
    int finish_rc;
    char finish_err[256];
    int64_t ns_insert, ns_close;
} coord_job_t;

typedef struct coord_writer coord_writer_t;

struct coord_s {
    coord_config_t cfg;
    store_t *store;
    void *zctx;
    void *router;
    char endpoint[256];
    int64_t bench;
    char engine_version[PROTO_TEXT_MAX];
    /* sessions: open addressing on the routing id */
    coord_session_t *sessions;
    size_t session_cap, session_count;
    uint64_t session_serial;
    uint64_t seq;                   /* orders REQUESTs and the leases made for them */
    /* start-up steps that need the database (coord.c): until ready, every
     * message is answered INTERNAL */
    int start_step;
    int start_delay_ms;
    int start_healthy_fails;
    int64_t start_retry_ms;
    bool ready;
    int64_t next_orphan_ms;
    /* leases: chained hash on task id */
    coord_lease_t **leases;
    size_t lease_buckets, lease_count;
    coord_run_t *runs;              /* list, oldest first */
    verify_t *verify;               /* replays of sampled pairs (NULL = off) */
    char (*flagged)[PROTO_ID_MAX];  /* flagged workers (get no tasks), as in the store */
    size_t nflagged, flagged_cap;
    int64_t next_cron_ms, next_refresh_ms, next_seen_ms, next_outlier_ms;
    uint64_t msgs_in, msgs_bad;
    /* turn statistics since the last stats line */
    uint64_t st_turns, st_items, st_jobs, st_ns[COORD_NS_NB];   /* st_ns: coord_ns_t */
    int64_t next_stats_ms;
    /* live figures for coord_set_publish */
    coord_publish_fn publish;
    void *publish_ctx;
    int64_t next_publish_ms;
    int64_t stored_total;           /* pairs newly stored since start */
    int64_t rate_pairs, rate_ms;    /* stored_total and time at the rate window's start */
    double rate;
    /* the writer thread (coord_writer.c) and the RESULTs waiting for it */
    coord_writer_t *writer;
    coord_turn_t results_wait;
};


int64_t coord_now_ms(void);         /* monotonic */
/* How often the connected workers' last_seen is written: half of heartbeat
 * x liveness, 1..30 s (restored leases are judged by it after a restart). */
int64_t coord_seen_period_ms(const coord_t *self);
int64_t coord_wall_ms(void);        /* Unix epoch */

/* coord_session.c */
coord_session_t *coord_session_find(coord_t *self, const uint8_t *rid, size_t len);
coord_session_t *coord_session_add(coord_t *self, const uint8_t *rid, size_t len);
void coord_session_remove(coord_t *self, coord_session_t *s);
coord_session_t *coord_session_by_worker(coord_t *self, const char *worker_id);

/* coord_lease.c */
coord_lease_t *coord_lease_find(coord_t *self, int64_t task_id);
int coord_lease_add(coord_t *self, const coord_lease_t *l);
void coord_lease_remove(coord_t *self, int64_t task_id);
/* Puts ranges back into their runs' pools and forgets their leases. */
void coord_lease_return(coord_t *self, const store_range_t *ranges, size_t n);
/* Ends every lease of a worker (store and memory): unplayed pairs and the
 * pairs held for its resend go back to the pool. */
int coord_lease_expire_worker(coord_t *self, const char *worker_id);
/* Pairs the lease accounts for in its run's in_flight. */
int64_t coord_lease_size(const coord_lease_t *l);
/* Gives an ended lease's held pairs back to the pool and forgets it. */
void coord_lease_release(coord_t *self, int64_t task_id);
/* True when pair p of an ended lease waits for the worker's resend. */
bool coord_lease_holds(const coord_lease_t *l, int64_t p);
/* The batch's pairs of an ended lease were stored: no longer held. */
void coord_lease_unhold(coord_t *self, int64_t task_id, const proto_result_t *res);
/* What a worker says it holds (docs/protocol.md, "What a worker holds"):
 * leases neither played nor spooled end, their unstored pairs back to the
 * pool; spooled ones end with their spooled pairs held for the resend.
 * hello: judge every lease of the worker, else only those it has shown it
 * received. */
void coord_lease_judge(coord_t *self, coord_session_t *s, const proto_holding_t *h, bool hello);
/* Leases whose worker has had no session for heartbeat x liveness end. */
void coord_lease_orphans(coord_t *self, int64_t now);

/* coord_runs.c */
coord_run_t *coord_run_find(coord_t *self, int64_t id);
/* Loads (or returns) a run known to the database; CAPA_ENOTFOUND. */
int coord_run_get(coord_t *self, int64_t id, coord_run_t **out);
/* Reads pending/running runs from the database, notices stopped ones. */
int coord_runs_refresh(coord_t *self);
/* SPRT stop, completion and estimates for one run. */
int coord_run_check(coord_t *self, coord_run_t *run, bool final_estimate);
/* Rebuilds every active run's pool from the store and the leases (after a
 * flag freed the numbers of excluded pairs). Finished runs stay finished. */
void coord_runs_repool(coord_t *self);
void coord_runs_free(coord_t *self);

/* coord_msg.c: sending */
int coord_send(coord_t *self, const uint8_t *rid, size_t rid_len, bool req_style,
               const proto_msg_t *msg);
void coord_send_error(coord_t *self, const uint8_t *rid, size_t rid_len, bool req_style,
                      proto_code_t code, proto_type_t about, int64_t task_id, int64_t batch,
                      const char *fmt, ...) __attribute__((format(printf, 9, 10)));
/* Handles one frame from a peer: HELLO, HEARTBEAT, BYE at once, REQUEST
 * and RESULT queued in turn. */
void coord_handle(coord_t *self, coord_turn_t *turn, const uint8_t *rid, size_t rid_len, bool req_style,
                  const void *frame, size_t len);

/* coord_outlier.c: the per-worker outlier test of every active sprt run
 * (verify_outlier.h); flags outliers like a failed replay does. */
void coord_outliers_check(coord_t *self);
/* "Flagged" has one source of truth: workers.flagged in the store. The
 * coordinator's list (self->flagged) is its copy in memory, read at start
 * (coord_flagged_load) and grown only by coord_worker_flag after the store
 * has the flag; verification asks this list (coord_flagged_cb). */
/* Flags a worker (store, then the list), rereads every run's counters and
 * rebuilds the active runs' pools: its excluded pairs are played again. */
int coord_worker_flag(coord_t *self, const char *worker_id, const char *reason);
/* Reads the workers flagged before this start (they get no tasks, verify
 * nothing and do not count as witnesses). */
int coord_flagged_load(coord_t *self);
bool coord_worker_is_flagged(const coord_t *self, const char *worker_id);
/* coord_worker_is_flagged as a verify_flagged_fn (ctx: the coord_t). */
bool coord_flagged_cb(void *ctx, const char *worker_id);

/* coord_spsa.c */
/* A fresh perturbation for a new task of an spsa run (owned by the caller). */
stats_spsa_step_t *coord_spsa_propose(coord_t *self, coord_run_t *run, int64_t task_id);
/* Applies a batch's newly stored pairs and persists theta, history and the
 * open steps. */
void coord_spsa_apply(coord_t *self, coord_run_t *run, const coord_lease_t *lease,
                      int64_t pairs, int64_t wins, int64_t losses);
/* Writes the run's state (theta and the open tasks' perturbations). */
int coord_spsa_save(coord_t *self, coord_run_t *run);
/* Restores theta and the open steps of active leases after a restart. */
int coord_spsa_load(coord_t *self, coord_run_t *run, const char *state_json);

/* Answers an item with ERROR (about its type, task and batch) and drops it. */
#define ITEM_ERROR(self, it, code, ...)                                                      \
    do {                                                                                     \
        coord_send_error((self), (it)->rid, (it)->rid_len, (it)->req_style, (code),           \
                         (it)->msg.type,                                                      \
                         (it)->msg.type == PROTO_RESULT ? (it)->msg.u.result.task_id : -1,    \
                         (it)->msg.type == PROTO_RESULT ? (it)->msg.u.result.batch : -1,      \
                         __VA_ARGS__);                                                        \
        (it)->dropped = true;                                                                 \
    } while (0)

int64_t coord_now_ns(void);        /* monotonic, for statistics */

/* coord_result.c: the RESULTs wait in self->results_wait while the writer
 * is busy. Submit checks them and hands them to the writer as one job (or
 * answers them at once when nothing is to be stored); apply counts, closes
 * leases and ACKs a job the writer finished. */
void coord_results_submit(coord_t *self);
void coord_results_apply(coord_t *self, coord_job_t *job);
/* Runs on the writer thread with its own connection: the job's pairs in one
 * statement (one commit), finished leases closed, verifications recorded. */
void coord_job_store(store_t *store, coord_job_t *job);
void coord_job_free(coord_job_t *job);

/* coord_writer.c: one thread, one job in flight at a time. */
int coord_writer_new(const char *conninfo, coord_writer_t **out, char *err, size_t errlen);
void coord_writer_destroy(coord_writer_t **w);
/* A descriptor that turns readable when the job in flight is done. */
int coord_writer_fd(const coord_writer_t *w);
bool coord_writer_busy(const coord_writer_t *w);
void coord_writer_submit(coord_writer_t *w, coord_job_t *job);
/* Applies the finished job (coord_results_apply), if any; wait blocks until
 * the job in flight is done. */
void coord_writer_apply(coord_t *self, bool wait);
/* Waits for the job in flight, if any, and applies it: for the loop's code
 * that rereads what the job changes. */
void coord_writer_drain(coord_t *self);
/* coord_request.c: every REQUEST of the turn (one commit for the leases). */
void coord_turn_requests(coord_t *self, coord_turn_t *turn);

/* coord_turn.c: the end of a turn: HELLOs (one commit), revocations, every
 * REQUEST (one statement for the leases, TASKs sent), then the RESULTs move
 * to self->results_wait for the writer. Frees the other items. */
void coord_turn_finish(coord_t *self, coord_turn_t *turn);
void coord_item_free(coord_item_t *it);
void coord_turn_free(coord_turn_t *turn);
/* Queues a HELLO (s NULL), REQUEST or RESULT from a peer (takes msg). */
int coord_turn_add(coord_turn_t *turn, const uint8_t *rid, size_t rid_len, bool req_style,
                   const coord_session_t *s, proto_msg_t *msg);
/* coord_msg.c: every HELLO of the turn (one commit for the workers table). */
void coord_turn_hellos(coord_t *self, coord_turn_t *turn);

#endif
