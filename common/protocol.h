/* protocol.h - the coordinator/worker wire protocol, version 1 (docs/protocol.md).
 *
 * Each message is one JSON object in one ZeroMQ frame, {"v": 1, "type": ...}.
 * Every message type has a plain C struct, one encode and one decode function:
 *
 *   char *frame; size_t len;
 *   proto_encode_request(&(proto_request_t){ .slots = 4 }, &frame, &len, err, sizeof err);
 *   zmq_send(sock, frame, len, 0); free(frame);              caller frees the frame
 *
 *   proto_msg_t msg;
 *   if (proto_decode(buf, n, &msg, err, sizeof err) < 0)
 *       reply ERROR with msg.fault, err and proto_type_name(msg.type);
 *   else { switch (msg.type) { case PROTO_RESULT: ... msg.u.result ... } }
 *   proto_msg_free(&msg);                                     always, success or not
 *
 * Decoded structs own their arrays (freed by the matching *_free or by
 * proto_msg_free); fixed-size strings are always NUL-terminated. Decoders
 * check everything a single message can show on its own: size, JSON, types,
 * ranges, characters, and that each pair's games and score agree. Checks
 * that need state (token, lease, pair ranges) are the coordinator's.
 *
 * Encoders check the struct by the same rules (an encoder never produces a
 * frame its peer would refuse) and return CAPA_EINVAL with a message if the
 * struct breaks one.
 */
#ifndef CAPA_PROTOCOL_H
#define CAPA_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION 1
#define PROTO_FRAME_MAX (1u << 20)   /* bytes per frame; larger is TOO_BIG */
#define PROTO_DEPTH_MAX 16           /* JSON nesting; deeper is BAD_JSON */

/* String capacities include the NUL: at most CAP-1 bytes. */
#define PROTO_ID_MAX 64       /* worker id, session id: [A-Za-z0-9._:-]+ */
#define PROTO_TOKEN_MAX 128   /* contributor token: [A-Za-z0-9_-]+ */
#define PROTO_TEXT_MAX 128    /* free UTF-8 text without control characters */
#define PROTO_LONGTEXT_MAX 512 /* ERROR text */
#define PROTO_NAME_MAX 48     /* parameter names [A-Za-z0-9_.]+, imbalance labels (text) */
#define PROTO_FEN_MAX 128     /* FEN: [A-Za-z0-9/ -]+ */
#define PROTO_VARIANT_MAX 16
#define PROTO_MOVES_MAX 65536 /* a game's UCI move list, space-separated */
#define PROTO_PARAMS_MAX 512  /* parameters per set */
#define PROTO_PAIRS_MAX 1024  /* pairs per TASK or RESULT, pair numbers per ACK */
#define PROTO_TASKS_MAX 256   /* task ids (and spooled tasks) in a HELLO/HEARTBEAT */
#define PROTO_SPOOLED_PAIRS_MAX 8192 /* spooled pair numbers in one HELLO/HEARTBEAT */
#define PROTO_SLOTS_MAX 4096  /* cores, concurrency, slots */
#define PROTO_PLIES_MAX 100000
#define PROTO_HASH_MB_DEFAULT 16       /* TASK game.hash_mb when absent */
#define PROTO_HASH_MB_MAX 4096
#define PROTO_ID_NUM_MAX INT64_C(9007199254740991) /* ids, pair numbers: 0..2^53-1 */
#define PROTO_NODES_MAX INT64_C(1000000000000)     /* game.nodes: nodes per move */
#define PROTO_TC_BASE_MS_MAX INT64_C(86400000)      /* game.tc_base_ms */
#define PROTO_TC_INC_MS_MAX INT64_C(3600000)        /* game.tc_inc_ms */

typedef enum {
    PROTO_NONE = 0,   /* unknown or not yet known */
    PROTO_HELLO,
    PROTO_WELCOME,
    PROTO_REQUEST,
    PROTO_TASK,
    PROTO_NO_TASK,
    PROTO_RESULT,
    PROTO_ACK,
    PROTO_HEARTBEAT,
    PROTO_BYE,
    PROTO_ERROR,
    PROTO_TYPE_COUNT
} proto_type_t;

/* ERROR codes (docs/protocol.md "Errors" says what each makes a worker do). */
typedef enum {
    PROTO_OK = 0,
    PROTO_BAD_JSON,            /* not UTF-8 JSON, nested too deep, not an object */
    PROTO_BAD_SCHEMA,          /* a field missing, of the wrong type, out of range */
    PROTO_TOO_BIG,             /* frame larger than PROTO_FRAME_MAX */
    PROTO_UNKNOWN_TYPE,
    PROTO_BAD_VERSION,
    PROTO_AUTH_FAILED,
    PROTO_TOKEN_REVOKED,
    PROTO_UNKNOWN_WORKER,      /* no session for this connection: send HELLO again */
    PROTO_SIGNATURE_MISMATCH,  /* engine bench signature differs from the coordinator's */
    PROTO_LEASE_UNKNOWN,
    PROTO_LEASE_NOT_YOURS,
    PROTO_LEASE_EXPIRED,
    PROTO_PAIR_OUTSIDE_LEASE,
    PROTO_INCONSISTENT_RESULT, /* games, score or pair numbers of a RESULT disagree */
    PROTO_INTERNAL,            /* the coordinator's fault (database down): retry later */
    PROTO_CODE_COUNT
} proto_code_t;

typedef enum { PROTO_KIND_SPRT = 0, PROTO_KIND_VALUES, PROTO_KIND_SPSA } proto_kind_t;

/* A game's result from White's point of view. */
typedef enum { PROTO_RES_WHITE = 0, PROTO_RES_BLACK, PROTO_RES_DRAW } proto_res_t;

/* Which parameter set played a side: A (sprt base, spsa minus, values: the
 * side without the imbalance's `side` pieces) or B (sprt test, spsa plus,
 * values: the side holding them). B is always the side under test. */
typedef enum { PROTO_SIDE_A = 0, PROTO_SIDE_B } proto_side_t;

typedef enum {
    PROTO_END_CHECKMATE = 0,
    PROTO_END_STALEMATE,
    PROTO_END_REPETITION,
    PROTO_END_FIFTY_MOVES,
    PROTO_END_INSUFFICIENT,
    PROTO_END_ADJ_RESIGN,
    PROTO_END_ADJ_DRAW,
    PROTO_END_MOVE_CAP,
    PROTO_END_TIME_FORFEIT,
    PROTO_END_ILLEGAL_MOVE,
    PROTO_END_COUNT
} proto_end_t;

/* Finished pairs of one task waiting in a worker's spool. */
typedef struct {
    int64_t task_id;
    int64_t *pairs;                    /* owned, 1..PROTO_PAIRS_MAX, unique */
    size_t pair_count;
} proto_spooled_t;

/* What a worker holds (HELLO, HEARTBEAT): the tasks it still plays and the
 * pairs in its spool. `listed` = "spooled" was sent: the lists are complete
 * and the coordinator takes them as the truth (docs/protocol.md). */
typedef struct {
    int64_t *tasks;                    /* owned, 0..PROTO_TASKS_MAX, unique */
    size_t task_count;
    proto_spooled_t *spooled;          /* owned, 0..PROTO_TASKS_MAX, task ids unique */
    size_t spooled_count;
    bool listed;
} proto_holding_t;

typedef struct {
    char token[PROTO_TOKEN_MAX];
    char worker_id[PROTO_ID_MAX];      /* chosen by the worker, kept across restarts */
    char name[PROTO_TEXT_MAX];         /* shown to people */
    char host_os[PROTO_TEXT_MAX];      /* contributor-visible host info */
    char host_cpu[PROTO_TEXT_MAX];
    int64_t host_memory_mb;            /* 0 = not told */
    int cores;                         /* 1..PROTO_SLOTS_MAX */
    int concurrency;                   /* game threads, 1..PROTO_SLOTS_MAX */
    char engine_version[PROTO_TEXT_MAX];
    int64_t bench;                     /* bench signature: `capa-engine bench` nodes */
    double nps;                        /* measured nodes per second, > 0 */
    proto_holding_t holding;           /* optional lists (holding.listed) */
} proto_hello_t;

typedef struct {
    char session[PROTO_ID_MAX];
    int heartbeat_ms;                  /* 100..600000 */
    int liveness;                      /* 1..100 missed heartbeats = dead */
    int64_t bench;                     /* the coordinator's expected bench signature */
    char engine_version[PROTO_TEXT_MAX];
    char contributor[PROTO_TEXT_MAX];  /* optional: the token's contributor, "" = not said */
} proto_welcome_t;

typedef struct {
    int slots;                         /* free game slots, 1..PROTO_SLOTS_MAX */
} proto_request_t;

typedef struct {
    char name[PROTO_NAME_MAX];
    double value;                      /* finite, |value| <= 1e9 */
} proto_param_t;

typedef struct {
    proto_param_t *items;              /* owned */
    size_t count;                      /* 0..PROTO_PARAMS_MAX, names unique */
} proto_params_t;

typedef struct {
    int64_t pair;                      /* pair number in the run, >= 0 */
    char fen[PROTO_FEN_MAX];           /* start of the pair's first game */
    char fen2[PROTO_FEN_MAX];          /* start of the second game; "" = same as fen */
    char imbalance[PROTO_NAME_MAX];    /* values runs: the imbalance's name; else "" */
} proto_pair_t;

typedef struct {
    char variant[PROTO_VARIANT_MAX];   /* capablanca, caparandom, gothic, embassy, janus */
    bool chess960;                     /* castling as king-takes-rook */
    int64_t nodes;                     /* nodes per move; 0 = play the time control */
    int64_t tc_base_ms;                /* with nodes == 0: base time and increment */
    int64_t tc_inc_ms;
    int resign_cp;                     /* resign adjudication: 0 = off */
    int resign_moves;                  /* ... after this many moves in a row */
    int draw_cp;                       /* draw adjudication: |score| <= draw_cp */
    int draw_moves;                    /* ... for this many moves (0 = off) */
    int draw_min_ply;                  /* ... not before this ply */
    int max_plies;                     /* move cap: a draw after this many plies (0 = none) */
    int hash_mb;                       /* engine hash per game, 1..PROTO_HASH_MB_MAX (0 = the
                                          default, 16): fixed-node games replay identically
                                          only with the same size */
} proto_game_t;

typedef struct {
    int64_t task_id;
    int64_t run_id;
    int64_t lease_id;
    int lease_seconds;                 /* deliver the last batch within this time */
    proto_kind_t kind;
    proto_pair_t *pairs;               /* owned, 1..PROTO_PAIRS_MAX, numbers unique */
    size_t pair_count;
    proto_params_t a;                  /* parameter set A (base / minus) */
    proto_params_t b;                  /* parameter set B (test / plus), under test */
    proto_game_t game;
} proto_task_t;

typedef struct {
    int retry_ms;                      /* ask again after this, 0..3600000 */
    char reason[PROTO_TEXT_MAX];
} proto_no_task_t;

typedef struct {
    proto_res_t result;
    proto_side_t white;                /* the set that had White */
    proto_end_t end;
    int plies;
    char *moves;                       /* owned, optional (NULL): UCI moves, space-separated */
} proto_game_result_t;

typedef struct {
    int64_t pair;
    proto_game_result_t games[2];      /* one with A as White, one with B as White */
    double score;                      /* B's pair score: 0, .25, .5, .75 or 1 */
} proto_pair_result_t;

typedef struct {
    int64_t task_id;
    int64_t lease_id;
    int64_t batch;                     /* batch sequence number within the task, from 0 */
    proto_pair_result_t *pairs;        /* owned, 1..PROTO_PAIRS_MAX, numbers unique */
    size_t pair_count;
    double cpu_seconds;                /* CPU time the batch cost */
    bool last;                         /* the task's last batch */
} proto_result_t;

typedef struct {
    int64_t task_id;
    int64_t batch;
    int64_t *stored;                   /* owned: pair numbers newly stored */
    size_t stored_count;
    int64_t *duplicate;                /* owned: pair numbers that were already stored */
    size_t duplicate_count;
} proto_ack_t;

/* worker -> coordinator: what it holds; coordinator -> worker: empty. */
typedef proto_holding_t proto_heartbeat_t;

typedef struct {
    char reason[PROTO_TEXT_MAX];
} proto_bye_t;

typedef struct {
    proto_code_t code;
    char text[PROTO_LONGTEXT_MAX];
    proto_type_t about;                /* the offending message's type, PROTO_NONE if unknown */
    int64_t task_id;                   /* -1 when not about a task */
    int64_t batch;                     /* -1 when not about a batch */
} proto_error_t;

typedef struct {
    proto_type_t type;                 /* on failure: the offending type if it was readable */
    proto_code_t fault;                /* on failure: the code for the ERROR reply */
    union {
        proto_hello_t hello;
        proto_welcome_t welcome;
        proto_request_t request;
        proto_task_t task;
        proto_no_task_t no_task;
        proto_result_t result;
        proto_ack_t ack;
        proto_heartbeat_t heartbeat;
        proto_bye_t bye;
        proto_error_t error;
    } u;
} proto_msg_t;

/* Names: "HELLO", "BAD_JSON", "sprt", "1-0", "A", "checkmate"; NULL if out of range. */
const char *proto_type_name(proto_type_t type);
const char *proto_code_name(proto_code_t code);
const char *proto_kind_name(proto_kind_t kind);
const char *proto_res_name(proto_res_t res);
const char *proto_side_name(proto_side_t side);
const char *proto_end_name(proto_end_t end);
/* Reverse look-ups: 0 and *out, or CAPA_ENOTFOUND. */
int proto_type_parse(const char *name, proto_type_t *out);
int proto_code_parse(const char *name, proto_code_t *out);
int proto_kind_parse(const char *name, proto_kind_t *out);
int proto_end_parse(const char *name, proto_end_t *out);
/* True for the five variant names. */
bool proto_variant_known(const char *name);
/* True for terminations that can only end in a draw. */
bool proto_end_is_draw(proto_end_t end);

/* B's score in the pair (0, 0.25, 0.5, 0.75, 1) from its two games. */
double proto_pair_score(const proto_pair_result_t *pair);

/* Generic decode: dispatches on "type". Returns 0 or a negative capa_err_t;
 * on failure msg->fault, msg->type and err tell what to answer. Always call
 * proto_msg_free afterwards. */
int proto_decode(const void *frame, size_t len, proto_msg_t *msg, char *err, size_t errlen);
void proto_msg_free(proto_msg_t *msg);
/* Encodes msg->u per msg->type. */
int proto_encode(const proto_msg_t *msg, char **frame, size_t *len, char *err, size_t errlen);

/* Per type: encode into a malloc'ed frame (*frame, caller frees with free(),
 * no terminating NUL counted in *len); decode fills *out and *code. A decode
 * of a frame whose "type" is another type fails with PROTO_UNKNOWN_TYPE. */
#define PROTO_DECLARE(name, type_t)                                                          \
    int proto_encode_##name(const type_t *m, char **frame, size_t *len, char *err,           \
                            size_t errlen);                                                  \
    int proto_decode_##name(const void *frame, size_t len, type_t *out, proto_code_t *code,  \
                            char *err, size_t errlen);
PROTO_DECLARE(hello, proto_hello_t)
PROTO_DECLARE(welcome, proto_welcome_t)
PROTO_DECLARE(request, proto_request_t)
PROTO_DECLARE(task, proto_task_t)
PROTO_DECLARE(no_task, proto_no_task_t)
PROTO_DECLARE(result, proto_result_t)
PROTO_DECLARE(ack, proto_ack_t)
PROTO_DECLARE(heartbeat, proto_heartbeat_t)
PROTO_DECLARE(bye, proto_bye_t)
PROTO_DECLARE(error, proto_error_t)
#undef PROTO_DECLARE

/* Frees the owned arrays and zeroes the struct; NULL is fine. */
void proto_task_free(proto_task_t *task);
void proto_result_free(proto_result_t *result);
void proto_ack_free(proto_ack_t *ack);
void proto_heartbeat_free(proto_heartbeat_t *hb);
void proto_holding_free(proto_holding_t *h);
void proto_hello_free(proto_hello_t *hello);
void proto_params_free(proto_params_t *params);

/* Parameter sets as JSON objects name -> number, shared with run documents.
 * from_json: `where` names the object in messages; names must match
 * [A-Za-z0-9_.]{1,47}, values finite with |v| <= 1e9, at most
 * PROTO_PARAMS_MAX. Caller frees with proto_params_free. */
struct cJSON;
/* Reads a `game` object's limits and adjudication fields into *g and checks
 * them: the one validator of a run document's "game" (common/rundoc.h;
 * required = false: absent fields keep *g's defaults, and a time control
 * replaces the default node count) and of a TASK's (required = true for
 * nodes and the adjudication fields). where names the object in messages.
 * nodes 0..PROTO_NODES_MAX, either nodes > 0 or tc_base_ms > 0 and never
 * both, resign_cp > 0 needs resign_moves > 0, hash_mb 1..PROTO_HASH_MB_MAX
 * (absent: 16). variant and chess960 are the caller's. 0 or CAPA_EINVAL /
 * CAPA_ERANGE with a message. */
int proto_game_read(const struct cJSON *obj, const char *where, bool required, proto_game_t *g,
                    char *err, size_t errlen);
int proto_params_from_json(const struct cJSON *obj, const char *where, proto_params_t *out,
                           char *err, size_t errlen);
/* Returns a new cJSON object (caller deletes) or NULL on ENOMEM/bad value. */
struct cJSON *proto_params_to_json(const proto_params_t *params);

#endif
