/* Unit tests for the wire protocol codec (common/protocol.h, docs/protocol.md). */
#include <glob.h>

#include "check.h"
#include "err.h"
#include "protocol.h"

/* Encodes msg, decodes the frame, and returns the decoded copy. */
static proto_msg_t s_round_trip(const proto_msg_t *msg)
{
    char *frame = NULL, err[256];
    size_t len = 0;
    int rc = proto_encode(msg, &frame, &len, err, sizeof err);
    CHECK_MSG(rc == 0, "encode %s: %s", proto_type_name(msg->type), err);
    CHECK(len == strlen(frame));
    proto_msg_t out;
    rc = proto_decode(frame, len, &out, err, sizeof err);
    free(frame);
    CHECK_MSG(rc == 0, "decode %s: %s", proto_type_name(msg->type), err);
    CHECK_EQ_INT(out.type, msg->type);
    return out;
}

static void hello_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_HELLO };
    proto_hello_t *h = &m.u.hello;
    strcpy(h->token, "capa_AbC-123_xyz");
    strcpy(h->worker_id, "3f2c9a1e-77b0-4c0e-9d6e-1a2b3c4d5e6f");
    strcpy(h->name, "Jörg's box");
    strcpy(h->host_os, "Debian 12");
    strcpy(h->host_cpu, "AMD Ryzen 9 7950X");
    h->host_memory_mb = 65536;
    h->cores = 32;
    h->concurrency = 30;
    strcpy(h->engine_version, "capa-engine 0.1.0");
    h->bench = 123456789;
    h->nps = 1234567.25;
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_STR(o.u.hello.token, h->token);
    CHECK_EQ_STR(o.u.hello.worker_id, h->worker_id);
    CHECK_EQ_STR(o.u.hello.name, "Jörg's box");
    CHECK_EQ_STR(o.u.hello.host_os, "Debian 12");
    CHECK_EQ_STR(o.u.hello.host_cpu, "AMD Ryzen 9 7950X");
    CHECK_EQ_STR(o.u.hello.engine_version, h->engine_version);
    CHECK_EQ_INT(o.u.hello.host_memory_mb, 65536);
    CHECK_EQ_INT(o.u.hello.cores, 32);
    CHECK_EQ_INT(o.u.hello.concurrency, 30);
    CHECK_EQ_INT(o.u.hello.bench, 123456789);
    CHECK(o.u.hello.nps == 1234567.25);
    CHECK(!o.u.hello.holding.listed);   /* an old worker's HELLO: no lists */
    CHECK_EQ_INT(o.u.hello.holding.task_count, 0);
    proto_msg_free(&o);
}

/* A restarted worker's HELLO: no tasks played, two tasks' pairs spooled. */
static void hello_with_its_holding_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_HELLO };
    proto_hello_t *h = &m.u.hello;
    strcpy(h->token, "capa_t");
    strcpy(h->worker_id, "w1");
    strcpy(h->name, "box");
    h->cores = h->concurrency = 2;
    strcpy(h->engine_version, "capa-engine 0.1.0");
    h->bench = 7;
    int64_t p1[] = { 96, 97, 99 }, p2[] = { 4 };
    proto_spooled_t sp[] = { { 811, p1, 3 }, { 812, p2, 1 } };
    h->holding = (proto_holding_t) { .spooled = sp, .spooled_count = 2, .listed = true };
    proto_msg_t o = s_round_trip(&m);
    const proto_holding_t *got = &o.u.hello.holding;
    CHECK(got->listed);
    CHECK_EQ_INT(got->task_count, 0);
    CHECK_EQ_INT(got->spooled_count, 2);
    CHECK_EQ_INT(got->spooled[0].task_id, 811);
    CHECK_EQ_INT(got->spooled[0].pair_count, 3);
    CHECK_EQ_INT(got->spooled[0].pairs[2], 99);
    CHECK_EQ_INT(got->spooled[1].task_id, 812);
    CHECK_EQ_INT(got->spooled[1].pairs[0], 4);
    proto_msg_free(&o);
    /* Listed and empty: "this process holds nothing" is not "not told". */
    h->holding = (proto_holding_t) { .listed = true };
    o = s_round_trip(&m);
    CHECK(o.u.hello.holding.listed);
    CHECK_EQ_INT(o.u.hello.holding.spooled_count, 0);
    proto_msg_free(&o);
}

static void welcome_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_WELCOME };
    strcpy(m.u.welcome.session, "s-42");
    m.u.welcome.heartbeat_ms = 2500;
    m.u.welcome.liveness = 4;
    m.u.welcome.bench = 987654;
    strcpy(m.u.welcome.engine_version, "capa-engine 0.1.0");
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_STR(o.u.welcome.session, "s-42");
    CHECK_EQ_INT(o.u.welcome.heartbeat_ms, 2500);
    CHECK_EQ_INT(o.u.welcome.liveness, 4);
    CHECK_EQ_INT(o.u.welcome.bench, 987654);
    CHECK_EQ_STR(o.u.welcome.engine_version, "capa-engine 0.1.0");
    CHECK_EQ_STR(o.u.welcome.contributor, "");
    proto_msg_free(&o);
    /* the contributor, when the coordinator names it */
    strcpy(m.u.welcome.contributor, "alice");
    o = s_round_trip(&m);
    CHECK_EQ_STR(o.u.welcome.contributor, "alice");
}

static void request_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_REQUEST, .u.request.slots = 7 };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.request.slots, 7);
}

static proto_param_t s_params_a[] = { { "archbishop_mg", 800 }, { "chancellor_eg", 912.5 } };
static proto_param_t s_params_b[] = { { "archbishop_mg", 875 }, { "chancellor_eg", -0.125 },
                                      { "tempo", 12 } };
static proto_pair_t s_pairs[] = {
    { 0, "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", "", "" },
    { 17, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQ1KABNR w KQkq - 0 1",
      "rnbq1kabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1", "A vs C" },
};

static proto_task_t s_task(void)
{
    proto_task_t t = {
        .task_id = 9007199254740991LL, .run_id = 3, .lease_id = 77, .lease_seconds = 3600,
        .kind = PROTO_KIND_VALUES, .pairs = s_pairs, .pair_count = 2,
        .a = { s_params_a, 2 }, .b = { s_params_b, 3 },
        .game = { .variant = "caparandom", .chess960 = true, .nodes = 10000, .resign_cp = 700,
                  .resign_moves = 4, .draw_cp = 10, .draw_moves = 8, .draw_min_ply = 80,
                  .max_plies = 400, .hash_mb = 16 },
    };
    return t;
}

static void task_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_TASK, .u.task = s_task() };
    proto_msg_t o = s_round_trip(&m);
    proto_task_t *t = &o.u.task, *w = &m.u.task;
    CHECK_EQ_U64(t->task_id, w->task_id);
    CHECK_EQ_INT(t->run_id, 3);
    CHECK_EQ_INT(t->lease_id, 77);
    CHECK_EQ_INT(t->lease_seconds, 3600);
    CHECK_EQ_INT(t->kind, PROTO_KIND_VALUES);
    CHECK_EQ_INT(t->pair_count, 2);
    for (size_t i = 0; i < 2; i++) {
        CHECK_EQ_INT(t->pairs[i].pair, w->pairs[i].pair);
        CHECK_EQ_STR(t->pairs[i].fen, w->pairs[i].fen);
        CHECK_EQ_STR(t->pairs[i].fen2, w->pairs[i].fen2);
        CHECK_EQ_STR(t->pairs[i].imbalance, w->pairs[i].imbalance);
    }
    CHECK_EQ_INT(t->a.count, 2);
    CHECK_EQ_INT(t->b.count, 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_STR(t->b.items[i].name, w->b.items[i].name);
        CHECK(t->b.items[i].value == w->b.items[i].value);
    }
    CHECK(memcmp(&t->game, &w->game, sizeof t->game) == 0);
    proto_msg_free(&o);
    CHECK(o.u.task.pairs == NULL);
}

/* game.hash_mb is optional (protocol v1 grew it): absent means 16, and a
 * size out of 1..4096 is a schema error. */
static void a_task_without_hash_mb_means_16_and_a_bad_size_is_refused(void)
{
    const char *head = "{\"v\":1,\"type\":\"TASK\",\"task_id\":1,\"run_id\":1,\"lease_id\":1,"
                       "\"lease_seconds\":60,\"kind\":\"sprt\",\"pairs\":[{\"pair\":0,\"fen\":"
                       "\"rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1\"}],"
                       "\"a\":{},\"b\":{},\"game\":{\"variant\":\"capablanca\",\"chess960\":false,"
                       "\"nodes\":100,\"resign_cp\":0,\"resign_moves\":0,\"draw_cp\":0,"
                       "\"draw_moves\":0,\"draw_min_ply\":0,\"max_plies\":0";
    const char *tails[] = { "}}", ",\"hash_mb\":64}}", ",\"hash_mb\":0}}", ",\"hash_mb\":5000}}" };
    const int want[] = { 16, 64, -1, -1 };
    for (int i = 0; i < 4; i++) {
        char frame[1024];
        snprintf(frame, sizeof frame, "%s%s", head, tails[i]);
        proto_msg_t m;
        char err[256];
        int rc = proto_decode(frame, strlen(frame), &m, err, sizeof err);
        if (want[i] < 0) {
            CHECK_MSG(rc < 0, "case %d decoded", i);
            continue;
        }
        CHECK_MSG(rc == 0, "case %d: %s", i, err);
        CHECK_EQ_INT(m.u.task.game.hash_mb, want[i]);
        proto_msg_free(&m);
    }
}

static void task_with_a_time_control_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_TASK, .u.task = s_task() };
    m.u.task.kind = PROTO_KIND_SPSA;
    m.u.task.game.nodes = 0;
    m.u.task.game.tc_base_ms = 10000;
    m.u.task.game.tc_inc_ms = 100;
    m.u.task.a.count = 0;
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.task.game.tc_base_ms, 10000);
    CHECK_EQ_INT(o.u.task.game.tc_inc_ms, 100);
    CHECK_EQ_INT(o.u.task.game.nodes, 0);
    CHECK_EQ_INT(o.u.task.a.count, 0);
    CHECK_EQ_INT(o.u.task.kind, PROTO_KIND_SPSA);
    proto_msg_free(&o);
}

static void no_task_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_NO_TASK, .u.no_task = { 30000, "no active run" } };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.no_task.retry_ms, 30000);
    CHECK_EQ_STR(o.u.no_task.reason, "no active run");
}

static proto_pair_result_t s_result_pairs[3];

static proto_result_t s_result(void)
{
    static char moves[] = "h1i3 e7e5 b7b8a";
    proto_pair_result_t p0 = { .pair = 4, .games = {
        { PROTO_RES_WHITE, PROTO_SIDE_A, PROTO_END_CHECKMATE, 77, moves },
        { PROTO_RES_DRAW, PROTO_SIDE_B, PROTO_END_REPETITION, 120, NULL } } };
    proto_pair_result_t p1 = { .pair = 5, .games = {
        { PROTO_RES_WHITE, PROTO_SIDE_B, PROTO_END_ADJ_RESIGN, 61, NULL },
        { PROTO_RES_BLACK, PROTO_SIDE_A, PROTO_END_TIME_FORFEIT, 90, NULL } } };
    proto_pair_result_t p2 = { .pair = 6, .games = {
        { PROTO_RES_DRAW, PROTO_SIDE_A, PROTO_END_MOVE_CAP, 400, NULL },
        { PROTO_RES_DRAW, PROTO_SIDE_B, PROTO_END_ADJ_DRAW, 88, NULL } } };
    s_result_pairs[0] = p0;
    s_result_pairs[1] = p1;
    s_result_pairs[2] = p2;
    for (int i = 0; i < 3; i++)
        s_result_pairs[i].score = proto_pair_score(&s_result_pairs[i]);
    proto_result_t r = { .task_id = 12, .lease_id = 77, .batch = 3, .pairs = s_result_pairs,
                         .pair_count = 3, .cpu_seconds = 12.75, .last = true };
    return r;
}

static void pair_scores_count_for_side_b(void)
{
    proto_result_t r = s_result();
    CHECK(r.pairs[0].score == 0.25);  /* B lost as Black, drew as White */
    CHECK(r.pairs[1].score == 1.0);   /* B won as White and as Black */
    CHECK(r.pairs[2].score == 0.5);
}

static void result_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_RESULT, .u.result = s_result() };
    proto_msg_t o = s_round_trip(&m);
    proto_result_t *r = &o.u.result, *w = &m.u.result;
    CHECK_EQ_INT(r->task_id, 12);
    CHECK_EQ_INT(r->lease_id, 77);
    CHECK_EQ_INT(r->batch, 3);
    CHECK(r->cpu_seconds == 12.75);
    CHECK(r->last);
    CHECK_EQ_INT(r->pair_count, 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(r->pairs[i].pair, w->pairs[i].pair);
        CHECK(r->pairs[i].score == w->pairs[i].score);
        for (int g = 0; g < 2; g++) {
            const proto_game_result_t *a = &r->pairs[i].games[g], *b = &w->pairs[i].games[g];
            CHECK_EQ_INT(a->result, b->result);
            CHECK_EQ_INT(a->white, b->white);
            CHECK_EQ_INT(a->end, b->end);
            CHECK_EQ_INT(a->plies, b->plies);
            CHECK((a->moves == NULL) == (b->moves == NULL));
            if (a->moves)
                CHECK_EQ_STR(a->moves, b->moves);
        }
    }
    proto_msg_free(&o);
}

static void ack_round_trips(void)
{
    int64_t stored[] = { 4, 6 }, dup[] = { 5 };
    proto_msg_t m = { .type = PROTO_ACK, .u.ack = { 12, 3, stored, 2, dup, 1 } };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.ack.task_id, 12);
    CHECK_EQ_INT(o.u.ack.batch, 3);
    CHECK_EQ_INT(o.u.ack.stored_count, 2);
    CHECK_EQ_INT(o.u.ack.stored[1], 6);
    CHECK_EQ_INT(o.u.ack.duplicate_count, 1);
    CHECK_EQ_INT(o.u.ack.duplicate[0], 5);
    proto_msg_free(&o);
    proto_msg_t empty = { .type = PROTO_ACK, .u.ack = { 1, 0, NULL, 0, NULL, 0 } };
    o = s_round_trip(&empty);
    CHECK_EQ_INT(o.u.ack.stored_count + o.u.ack.duplicate_count, 0);
    proto_msg_free(&o);
}

static void heartbeat_round_trips(void)
{
    int64_t tasks[] = { 12, 13, 99 };
    proto_msg_t m = { .type = PROTO_HEARTBEAT, .u.heartbeat = { .tasks = tasks, .task_count = 3 } };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.heartbeat.task_count, 3);
    CHECK_EQ_INT(o.u.heartbeat.tasks[2], 99);
    proto_msg_free(&o);
    CHECK(!o.u.heartbeat.listed);   /* no "spooled": only a sign of life */
    proto_msg_free(&o);
    proto_msg_t bare = { .type = PROTO_HEARTBEAT };
    o = s_round_trip(&bare);
    CHECK_EQ_INT(o.u.heartbeat.task_count, 0);
    proto_msg_free(&o);
    int64_t pairs[] = { 7, 5 };
    proto_spooled_t sp[] = { { 11, pairs, 2 } };
    proto_msg_t full = { .type = PROTO_HEARTBEAT,
                         .u.heartbeat = { tasks, 2, sp, 1, true } };
    o = s_round_trip(&full);
    CHECK(o.u.heartbeat.listed);
    CHECK_EQ_INT(o.u.heartbeat.task_count, 2);
    CHECK_EQ_INT(o.u.heartbeat.spooled_count, 1);
    CHECK_EQ_INT(o.u.heartbeat.spooled[0].task_id, 11);
    CHECK_EQ_INT(o.u.heartbeat.spooled[0].pairs[1], 5);
    proto_msg_free(&o);
}

static void bye_round_trips(void)
{
    proto_msg_t m = { .type = PROTO_BYE, .u.bye = { "SIGTERM" } };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_STR(o.u.bye.reason, "SIGTERM");
}

static void error_round_trips_and_sanitises_its_text(void)
{
    proto_msg_t m = { .type = PROTO_ERROR,
                      .u.error = { PROTO_LEASE_EXPIRED, "lease 77 expired\n at 12:00", PROTO_RESULT, 12, 3 } };
    proto_msg_t o = s_round_trip(&m);
    CHECK_EQ_INT(o.u.error.code, PROTO_LEASE_EXPIRED);
    CHECK_EQ_STR(o.u.error.text, "lease 77 expired? at 12:00");
    CHECK_EQ_INT(o.u.error.about, PROTO_RESULT);
    CHECK_EQ_INT(o.u.error.task_id, 12);
    CHECK_EQ_INT(o.u.error.batch, 3);
    proto_msg_t n = { .type = PROTO_ERROR, .u.error = { PROTO_BAD_JSON, "", PROTO_NONE, -1, -1 } };
    o = s_round_trip(&n);
    CHECK_EQ_INT(o.u.error.about, PROTO_NONE);
    CHECK_EQ_INT(o.u.error.task_id, -1);
}

static void typed_decoders_refuse_another_type(void)
{
    char *frame, err[256];
    size_t len;
    CHECK_EQ_INT(proto_encode_request(&(proto_request_t){ .slots = 2 }, &frame, &len, err, sizeof err), 0);
    proto_request_t req;
    proto_code_t code;
    CHECK_EQ_INT(proto_decode_request(frame, len, &req, &code, err, sizeof err), 0);
    CHECK_EQ_INT(code, PROTO_OK);
    CHECK_EQ_INT(req.slots, 2);
    proto_task_t task;
    CHECK(proto_decode_task(frame, len, &task, &code, err, sizeof err) < 0);
    CHECK_EQ_INT(code, PROTO_UNKNOWN_TYPE);
    CHECK(strstr(err, "expected TASK, got REQUEST") != NULL);
    free(frame);
}

static void encoders_refuse_structs_that_break_the_rules(void)
{
    char *frame = (char *) 1, err[256];
    size_t len;
    proto_request_t bad = { .slots = 0 };
    CHECK_EQ_INT(proto_encode_request(&bad, &frame, &len, err, sizeof err), CAPA_EINVAL);
    CHECK(frame == NULL);
    CHECK(strstr(err, "slots") != NULL);
    proto_result_t r = s_result();
    r.pairs[1].score = 0.5;
    CHECK_EQ_INT(proto_encode_result(&r, &frame, &len, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "pairs[1].score") != NULL);
    proto_task_t t = s_task();
    strcpy(t.game.variant, "chess");
    CHECK_EQ_INT(proto_encode_task(&t, &frame, &len, err, sizeof err), CAPA_EINVAL);
    t = s_task();
    t.pair_count = 0;
    CHECK_EQ_INT(proto_encode_task(&t, &frame, &len, err, sizeof err), CAPA_EINVAL);
}

/* ---- hostile input ------------------------------------------------------ */

#define RESULT_HEAD "{\"v\":1,\"type\":\"RESULT\",\"task_id\":1,\"lease_id\":2,\"batch\":0,\"cpu_seconds\":1,\"last\":false,"
#define GAMES_OK "\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10},{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":12}]"
#define HELLO_HEAD "{\"v\":1,\"type\":\"HELLO\",\"token\":\"capa_x\",\"worker\":\"w1\",\"cores\":4,\"concurrency\":4,\"engine\":\"e\",\"bench\":1,\"nps\":1,"

typedef struct {
    const char *what;
    const char *frame;
    proto_code_t code;
    const char *mention;   /* a word the error text must contain */
} hostile_t;

static const hostile_t s_hostile[] = {
    { "truncated JSON", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":", PROTO_BAD_JSON, "invalid JSON" },
    { "trailing garbage", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1} x", PROTO_BAD_JSON, "invalid JSON" },
    { "an array, not an object", "[1,2,3]", PROTO_BAD_JSON, "object" },
    { "a bare string", "\"HELLO\"", PROTO_BAD_JSON, "object" },
    { "empty frame", "", PROTO_BAD_JSON, "empty" },
    { "NaN literal", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":NaN}", PROTO_BAD_JSON, "invalid JSON" },
    { "Infinity literal", "{\"v\":1,\"type\":\"NO_TASK\",\"retry_ms\":Infinity}", PROTO_BAD_JSON, "invalid JSON" },
    { "overflowing number", "{\"v\":1,\"type\":\"NO_TASK\",\"retry_ms\":1e999}", PROTO_BAD_SCHEMA, "finite" },
    { "huge number", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1e300}", PROTO_BAD_SCHEMA, "slots" },
    { "fractional count", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1.5}", PROTO_BAD_SCHEMA, "integer" },
    { "slots as a string", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":\"4\"}", PROTO_BAD_SCHEMA, "slots: expected an integer" },
    { "missing slots", "{\"v\":1,\"type\":\"REQUEST\"}", PROTO_BAD_SCHEMA, "slots: missing" },
    { "missing type", "{\"v\":1,\"slots\":1}", PROTO_BAD_SCHEMA, "type: missing" },
    { "type as a number", "{\"v\":1,\"type\":5}", PROTO_BAD_SCHEMA, "type" },
    { "unknown type", "{\"v\":1,\"type\":\"GIMME\"}", PROTO_UNKNOWN_TYPE, "GIMME" },
    { "version 2", "{\"v\":2,\"type\":\"REQUEST\",\"slots\":1}", PROTO_BAD_VERSION, "version" },
    { "version 2 with a type of its own", "{\"v\":2,\"type\":\"STEAL\"}", PROTO_BAD_VERSION, "version 1" },
    { "version as a string", "{\"v\":\"1\",\"type\":\"REQUEST\",\"slots\":1}", PROTO_BAD_SCHEMA, "v: expected an integer" },
    { "missing version", "{\"type\":\"REQUEST\",\"slots\":1}", PROTO_BAD_SCHEMA, "v: missing" },
    { "duplicate key", "{\"v\":1,\"type\":\"REQUEST\",\"slots\":1,\"slots\":2}", PROTO_BAD_SCHEMA, "twice" },
    { "raw control character in a string", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"a\tb\"}", PROTO_BAD_JSON, "control" },
    { "escaped control character in a string", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"a\\u0007b\"}", PROTO_BAD_SCHEMA, "control" },
    { "escaped NUL in a string", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"a\\u0000b\"}", PROTO_BAD_JSON, "u0000" },
    { "invalid UTF-8", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"\xff\xfe\"}", PROTO_BAD_JSON, "UTF-8" },
    { "overlong UTF-8", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"\xc0\xaf\"}", PROTO_BAD_JSON, "UTF-8" },
    { "UTF-8 surrogate", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"\xed\xa0\x80\"}", PROTO_BAD_JSON, "UTF-8" },
    { "reason too long", "{\"v\":1,\"type\":\"BYE\",\"reason\":\"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789\"}", PROTO_BAD_SCHEMA, "longer" },
    { "token with a space", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"a b\",\"worker\":\"w\",\"name\":\"n\",\"cores\":1,\"concurrency\":1,\"engine\":\"e\",\"bench\":1,\"nps\":1}", PROTO_BAD_SCHEMA, "token: character ' '" },
    { "worker id with a slash", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"t\",\"worker\":\"../etc\",\"name\":\"n\",\"cores\":1,\"concurrency\":1,\"engine\":\"e\",\"bench\":1,\"nps\":1}", PROTO_BAD_SCHEMA, "worker: character '/'" },
    { "zero cores", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"t\",\"worker\":\"w\",\"name\":\"n\",\"cores\":0,\"concurrency\":1,\"engine\":\"e\",\"bench\":1,\"nps\":1}", PROTO_BAD_SCHEMA, "cores" },
    { "negative nps", "{\"v\":1,\"type\":\"HELLO\",\"token\":\"t\",\"worker\":\"w\",\"name\":\"n\",\"cores\":1,\"concurrency\":1,\"engine\":\"e\",\"bench\":1,\"nps\":-5}", PROTO_BAD_SCHEMA, "nps" },
    { "a key given twice", HELLO_HEAD "\"name\":\"n\",\"nps\":2}", PROTO_BAD_SCHEMA, "nps: appears twice" },
    { "hello without a name", HELLO_HEAD "\"host\":{}}", PROTO_BAD_SCHEMA, "name: missing" },
    { "hello with a task twice", HELLO_HEAD "\"name\":\"n\",\"tasks\":[3,3],\"spooled\":[]}", PROTO_BAD_SCHEMA, "task 3 appears twice" },
    { "hello with spooled not an array", HELLO_HEAD "\"name\":\"n\",\"spooled\":{}}", PROTO_BAD_SCHEMA, "spooled: expected an array" },
    { "heartbeat with an empty spooled entry", "{\"v\":1,\"type\":\"HEARTBEAT\",\"spooled\":[{\"task_id\":4,\"pairs\":[]}]}", PROTO_BAD_SCHEMA, "spooled[0].pairs: empty" },
    { "heartbeat with a spooled task twice", "{\"v\":1,\"type\":\"HEARTBEAT\",\"spooled\":[{\"task_id\":4,\"pairs\":[1]},{\"task_id\":4,\"pairs\":[2]}]}", PROTO_BAD_SCHEMA, "task 4 appears twice" },
    { "heartbeat with a spooled pair twice", "{\"v\":1,\"type\":\"HEARTBEAT\",\"spooled\":[{\"task_id\":4,\"pairs\":[1,1]}]}", PROTO_BAD_SCHEMA, "pair 1 appears twice" },
    { "heartbeat with a spooled entry without task", "{\"v\":1,\"type\":\"HEARTBEAT\",\"spooled\":[{\"pairs\":[1]}]}", PROTO_BAD_SCHEMA, "task_id: missing" },
    { "heartbeat with a negative spooled pair", "{\"v\":1,\"type\":\"HEARTBEAT\",\"spooled\":[{\"task_id\":4,\"pairs\":[-1]}]}", PROTO_BAD_SCHEMA, "pairs[0]" },
    { "host not an object", HELLO_HEAD "\"name\":\"n\",\"host\":[]}", PROTO_BAD_SCHEMA, "host: expected an object" },
    { "negative pair number", RESULT_HEAD "\"pairs\":[{\"pair\":-1," GAMES_OK ",\"score\":0.5}]}", PROTO_BAD_SCHEMA, "pairs[0].pair" },
    { "pair number beyond 2^53", RESULT_HEAD "\"pairs\":[{\"pair\":1e17," GAMES_OK ",\"score\":0.5}]}", PROTO_BAD_SCHEMA, "pairs[0].pair" },
    { "inconsistent pair score", RESULT_HEAD "\"pairs\":[{\"pair\":3," GAMES_OK ",\"score\":0.75}]}", PROTO_INCONSISTENT_RESULT, "pairs[0].score" },
    { "score not a quarter", RESULT_HEAD "\"pairs\":[{\"pair\":3," GAMES_OK ",\"score\":0.3}]}", PROTO_INCONSISTENT_RESULT, "score" },
    { "score out of range", RESULT_HEAD "\"pairs\":[{\"pair\":3," GAMES_OK ",\"score\":2}]}", PROTO_BAD_SCHEMA, "score" },
    { "same side White twice", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10},{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":12}],\"score\":0.5}]}", PROTO_INCONSISTENT_RESULT, "White in both" },
    { "checkmate ending in a draw", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"1/2-1/2\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10},{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":12}],\"score\":0.75}]}", PROTO_INCONSISTENT_RESULT, "checkmate" },
    { "stalemate with a winner", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"0-1\",\"white\":\"A\",\"end\":\"stalemate\",\"plies\":10},{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":12}],\"score\":1}]}", PROTO_INCONSISTENT_RESULT, "stalemate" },
    { "unknown result string", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"1-1\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10},{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":12}],\"score\":1}]}", PROTO_BAD_SCHEMA, "games[0].result" },
    { "one game only", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10}],\"score\":1}]}", PROTO_BAD_SCHEMA, "expected 2 games" },
    { "the same pair twice", RESULT_HEAD "\"pairs\":[{\"pair\":3," GAMES_OK ",\"score\":0.5},{\"pair\":3," GAMES_OK ",\"score\":0.5}]}", PROTO_INCONSISTENT_RESULT, "pair 3 appears twice" },
    { "no pairs", RESULT_HEAD "\"pairs\":[]}", PROTO_BAD_SCHEMA, "empty" },
    { "pairs not an array", RESULT_HEAD "\"pairs\":{}}", PROTO_BAD_SCHEMA, "pairs: expected an array" },
    { "moves with bad characters", RESULT_HEAD "\"pairs\":[{\"pair\":3,\"games\":[{\"result\":\"1-0\",\"white\":\"A\",\"end\":\"checkmate\",\"plies\":10,\"moves\":\"e2e4;rm -rf\"},{\"result\":\"1-0\",\"white\":\"B\",\"end\":\"checkmate\",\"plies\":12}],\"score\":0.5}]}", PROTO_BAD_SCHEMA, "moves" },
    { "last as a number", "{\"v\":1,\"type\":\"RESULT\",\"task_id\":1,\"lease_id\":2,\"batch\":0,\"cpu_seconds\":1,\"last\":1,\"pairs\":[]}", PROTO_BAD_SCHEMA, "last" },
    { "ack with a negative pair", "{\"v\":1,\"type\":\"ACK\",\"task_id\":1,\"batch\":0,\"stored\":[-4],\"duplicate\":[]}", PROTO_BAD_SCHEMA, "stored[0]" },
    { "task with a FEN holding a quote", "{\"v\":1,\"type\":\"TASK\",\"task_id\":1,\"run_id\":1,\"lease_id\":1,\"lease_seconds\":60,\"kind\":\"sprt\",\"pairs\":[{\"pair\":0,\"fen\":\"10/10 w\\\" - 0 1\"}],\"a\":{},\"b\":{},\"game\":{}}", PROTO_BAD_SCHEMA, "pairs[0].fen" },
    { "task with a bad parameter name", "{\"v\":1,\"type\":\"TASK\",\"task_id\":1,\"run_id\":1,\"lease_id\":1,\"lease_seconds\":60,\"kind\":\"sprt\",\"pairs\":[{\"pair\":0,\"fen\":\"x\"}],\"a\":{\"a b\":1},\"b\":{},\"game\":{}}", PROTO_BAD_SCHEMA, "a.a b" },
    { "task with a huge parameter", "{\"v\":1,\"type\":\"TASK\",\"task_id\":1,\"run_id\":1,\"lease_id\":1,\"lease_seconds\":60,\"kind\":\"sprt\",\"pairs\":[{\"pair\":0,\"fen\":\"x\"}],\"a\":{\"q\":1e10},\"b\":{},\"game\":{}}", PROTO_BAD_SCHEMA, "a.q" },
    { "task with an unknown kind", "{\"v\":1,\"type\":\"TASK\",\"task_id\":1,\"run_id\":1,\"lease_id\":1,\"lease_seconds\":60,\"kind\":\"gauntlet\"}", PROTO_BAD_SCHEMA, "kind" },
    { "error with an unknown code", "{\"v\":1,\"type\":\"ERROR\",\"code\":\"OOPS\",\"text\":\"\"}", PROTO_BAD_SCHEMA, "code" },
    { "error with code OK", "{\"v\":1,\"type\":\"ERROR\",\"code\":\"OK\",\"text\":\"\"}", PROTO_BAD_SCHEMA, "code" },
};

static void hostile_frames_get_the_documented_error_codes(void)
{
    for (size_t i = 0; i < sizeof s_hostile / sizeof s_hostile[0]; i++) {
        const hostile_t *h = &s_hostile[i];
        proto_msg_t msg;
        char err[256] = "";
        int rc = proto_decode(h->frame, strlen(h->frame), &msg, err, sizeof err);
        CHECK_MSG(rc < 0, "%s: accepted", h->what);
        CHECK_MSG(msg.fault == h->code, "%s: code %s, wanted %s (%s)", h->what,
                  proto_code_name(msg.fault), proto_code_name(h->code), err);
        CHECK_MSG(strstr(err, h->mention) != NULL, "%s: \"%s\" does not mention \"%s\"", h->what,
                  err, h->mention);
        proto_msg_free(&msg);
    }
}

static void the_offending_type_is_known_after_a_schema_error(void)
{
    const char *f = RESULT_HEAD "\"pairs\":[{\"pair\":3," GAMES_OK ",\"score\":0.75}]}";
    proto_msg_t msg;
    char err[256];
    CHECK(proto_decode(f, strlen(f), &msg, err, sizeof err) < 0);
    CHECK_EQ_INT(msg.type, PROTO_RESULT);
    proto_msg_free(&msg);
}

static void deeply_nested_json_is_refused_without_recursion(void)
{
    size_t depth = 100000;
    char *f = malloc(2 * depth + 64);
    size_t n = (size_t) sprintf(f, "{\"v\":1,\"type\":\"BYE\",\"x\":");
    memset(f + n, '[', depth);
    memset(f + n + depth, ']', depth);
    strcpy(f + n + 2 * depth, "}");
    proto_msg_t msg;
    char err[256];
    CHECK(proto_decode(f, strlen(f), &msg, err, sizeof err) < 0);
    CHECK_EQ_INT(msg.fault, PROTO_BAD_JSON);
    CHECK(strstr(err, "nested deeper") != NULL);
    free(f);
    /* 15 levels below the top are fine (unknown fields are ignored). */
    const char *ok = "{\"v\":1,\"type\":\"BYE\",\"x\":[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]}";
    CHECK_EQ_INT(proto_decode(ok, strlen(ok), &msg, err, sizeof err), 0);
    proto_msg_free(&msg);
}

static void frames_over_one_mebibyte_are_too_big(void)
{
    size_t n = 2u << 20;
    char *f = malloc(n);
    memset(f, ' ', n);
    memcpy(f, "{\"v\":1,\"type\":\"BYE\"}", 20);
    proto_msg_t msg;
    char err[256];
    CHECK(proto_decode(f, n, &msg, err, sizeof err) < 0);
    CHECK_EQ_INT(msg.fault, PROTO_TOO_BIG);
    CHECK(strstr(err, "exceeds") != NULL);
    /* Exactly the limit is still read. */
    CHECK_EQ_INT(proto_decode(f, PROTO_FRAME_MAX, &msg, err, sizeof err), 0);
    CHECK_EQ_INT(msg.type, PROTO_BYE);
    free(f);
}

static void objects_with_thousands_of_fields_are_refused(void)
{
    size_t cap = 2000 * 16 + 64;
    char *f = malloc(cap);
    size_t n = (size_t) sprintf(f, "{\"v\":1,\"type\":\"BYE\"");
    for (int i = 0; i < 2000; i++)
        n += (size_t) sprintf(f + n, ",\"k%d\":%d", i, i);
    strcpy(f + n, "}");
    proto_msg_t msg;
    char err[256];
    CHECK(proto_decode(f, strlen(f), &msg, err, sizeof err) < 0);
    CHECK_EQ_INT(msg.fault, PROTO_BAD_SCHEMA);
    CHECK(strstr(err, "more than 1024 fields") != NULL);
    free(f);
}

static void unknown_fields_are_ignored_for_forward_compatibility(void)
{
    const char *f = "{\"v\":1,\"type\":\"REQUEST\",\"slots\":3,\"hint\":\"later versions\"}";
    proto_msg_t msg;
    char err[256];
    CHECK_EQ_INT(proto_decode(f, strlen(f), &msg, err, sizeof err), 0);
    CHECK_EQ_INT(msg.u.request.slots, 3);
}

static void frames_need_no_terminating_nul(void)
{
    char f[] = "{\"v\":1,\"type\":\"REQUEST\",\"slots\":3}XXXX";
    proto_msg_t msg;
    char err[256];
    CHECK_EQ_INT(proto_decode(f, strlen(f) - 4, &msg, err, sizeof err), 0);
    CHECK_EQ_INT(msg.u.request.slots, 3);
}

static void names_and_codes_parse_back(void)
{
    for (int c = 1; c < PROTO_CODE_COUNT; c++) {
        proto_code_t back;
        CHECK_EQ_INT(proto_code_parse(proto_code_name(c), &back), 0);
        CHECK_EQ_INT(back, c);
    }
    for (int t = 1; t < PROTO_TYPE_COUNT; t++) {
        proto_type_t back;
        CHECK_EQ_INT(proto_type_parse(proto_type_name(t), &back), 0);
        CHECK_EQ_INT(back, t);
    }
    proto_end_t e;
    CHECK_EQ_INT(proto_end_parse("nonsense", &e), CAPA_ENOTFOUND);
    CHECK(proto_code_name(PROTO_CODE_COUNT) == NULL);
    CHECK(proto_variant_known("janus"));
    CHECK(!proto_variant_known("chess"));
}

static void every_fuzz_seed_decodes_and_re_encodes(void)
{
    glob_t g;
    CHECK_EQ_INT(glob(CAPA_SOURCE_DIR "/fuzz/corpus/protocol/*.json", 0, NULL, &g), 0);
    CHECK(g.gl_pathc >= 10);
    bool seen[PROTO_TYPE_COUNT] = { false };
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "rb");
        CHECK(f != NULL);
        char buf[8192];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        proto_msg_t msg;
        char err[256];
        CHECK_MSG(proto_decode(buf, n, &msg, err, sizeof err) == 0, "%s: %s", g.gl_pathv[i], err);
        seen[msg.type] = true;
        char *frame;
        size_t len;
        CHECK_MSG(proto_encode(&msg, &frame, &len, err, sizeof err) == 0, "%s: %s", g.gl_pathv[i], err);
        free(frame);
        proto_msg_free(&msg);
    }
    globfree(&g);
    for (int t = 1; t < PROTO_TYPE_COUNT; t++)
        CHECK_MSG(seen[t], "no seed for %s", proto_type_name(t));
}

static const check_case_t CASES[] = {
    CASE(every_fuzz_seed_decodes_and_re_encodes),
    CASE(hello_round_trips),
    CASE(hello_with_its_holding_round_trips),
    CASE(welcome_round_trips),
    CASE(request_round_trips),
    CASE(task_round_trips),
    CASE(a_task_without_hash_mb_means_16_and_a_bad_size_is_refused),
    CASE(task_with_a_time_control_round_trips),
    CASE(no_task_round_trips),
    CASE(pair_scores_count_for_side_b),
    CASE(result_round_trips),
    CASE(ack_round_trips),
    CASE(heartbeat_round_trips),
    CASE(bye_round_trips),
    CASE(error_round_trips_and_sanitises_its_text),
    CASE(typed_decoders_refuse_another_type),
    CASE(encoders_refuse_structs_that_break_the_rules),
    CASE(hostile_frames_get_the_documented_error_codes),
    CASE(the_offending_type_is_known_after_a_schema_error),
    CASE(deeply_nested_json_is_refused_without_recursion),
    CASE(frames_over_one_mebibyte_are_too_big),
    CASE(objects_with_thousands_of_fields_are_refused),
    CASE(unknown_fields_are_ignored_for_forward_compatibility),
    CASE(frames_need_no_terminating_nul),
    CASE(names_and_codes_parse_back),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
