/* protocol.c - encode and decode the version 1 wire messages (docs/protocol.md). */
#include "protocol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "protocol_json.h"

#define ID_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"
#define TOKEN_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
#define PARAM_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_."
#define FEN_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/ -"
#define MOVE_CHARS "abcdefghij0123456789qcarbnj "

static const char *const s_type_names[PROTO_TYPE_COUNT] = {
    [PROTO_NONE] = "", [PROTO_HELLO] = "HELLO", [PROTO_WELCOME] = "WELCOME",
    [PROTO_REQUEST] = "REQUEST", [PROTO_TASK] = "TASK", [PROTO_NO_TASK] = "NO_TASK",
    [PROTO_RESULT] = "RESULT", [PROTO_ACK] = "ACK", [PROTO_HEARTBEAT] = "HEARTBEAT",
    [PROTO_BYE] = "BYE", [PROTO_ERROR] = "ERROR",
};

static const char *const s_code_names[PROTO_CODE_COUNT] = {
    [PROTO_OK] = "OK", [PROTO_BAD_JSON] = "BAD_JSON", [PROTO_BAD_SCHEMA] = "BAD_SCHEMA",
    [PROTO_TOO_BIG] = "TOO_BIG", [PROTO_UNKNOWN_TYPE] = "UNKNOWN_TYPE",
    [PROTO_BAD_VERSION] = "BAD_VERSION", [PROTO_AUTH_FAILED] = "AUTH_FAILED",
    [PROTO_TOKEN_REVOKED] = "TOKEN_REVOKED", [PROTO_UNKNOWN_WORKER] = "UNKNOWN_WORKER",
    [PROTO_SIGNATURE_MISMATCH] = "SIGNATURE_MISMATCH", [PROTO_LEASE_UNKNOWN] = "LEASE_UNKNOWN",
    [PROTO_LEASE_NOT_YOURS] = "LEASE_NOT_YOURS", [PROTO_LEASE_EXPIRED] = "LEASE_EXPIRED",
    [PROTO_PAIR_OUTSIDE_LEASE] = "PAIR_OUTSIDE_LEASE",
    [PROTO_INCONSISTENT_RESULT] = "INCONSISTENT_RESULT", [PROTO_INTERNAL] = "INTERNAL",
};

static const char *const s_kind_names[] = { "sprt", "values", "spsa" };
static const char *const s_res_names[] = { "1-0", "0-1", "1/2-1/2" };
static const char *const s_side_names[] = { "A", "B" };
static const char *const s_end_names[PROTO_END_COUNT] = {
    [PROTO_END_CHECKMATE] = "checkmate", [PROTO_END_STALEMATE] = "stalemate",
    [PROTO_END_REPETITION] = "repetition", [PROTO_END_FIFTY_MOVES] = "fifty_moves",
    [PROTO_END_INSUFFICIENT] = "insufficient_material",
    [PROTO_END_ADJ_RESIGN] = "adjudication_resign", [PROTO_END_ADJ_DRAW] = "adjudication_draw",
    [PROTO_END_MOVE_CAP] = "move_cap", [PROTO_END_TIME_FORFEIT] = "time_forfeit",
    [PROTO_END_ILLEGAL_MOVE] = "illegal_move",
};
static const char *const s_variants[] = { "capablanca", "caparandom", "gothic", "embassy", "janus" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *s_name(const char *const *names, size_t n, int i)
{
    return i >= 0 && (size_t) i < n ? names[i] : NULL;
}

static int s_lookup(const char *const *names, size_t n, const char *name, int *out)
{
    for (size_t i = 0; name && i < n; i++)
        if (names[i] && *names[i] && strcmp(names[i], name) == 0) {
            *out = (int) i;
            return 0;
        }
    return CAPA_ENOTFOUND;
}

const char *proto_type_name(proto_type_t t) { return s_name(s_type_names, COUNT(s_type_names), t); }
const char *proto_code_name(proto_code_t c) { return s_name(s_code_names, COUNT(s_code_names), c); }
const char *proto_kind_name(proto_kind_t k) { return s_name(s_kind_names, COUNT(s_kind_names), k); }
const char *proto_res_name(proto_res_t r) { return s_name(s_res_names, COUNT(s_res_names), r); }
const char *proto_side_name(proto_side_t s) { return s_name(s_side_names, COUNT(s_side_names), s); }
const char *proto_end_name(proto_end_t e) { return s_name(s_end_names, COUNT(s_end_names), e); }

#define PARSE_FN(fn, type_t, names)                                                          \
    int fn(const char *name, type_t *out)                                                    \
    {                                                                                        \
        int i;                                                                               \
        int rc = s_lookup(names, COUNT(names), name, &i);                                    \
        if (rc == 0)                                                                         \
            *out = (type_t) i;                                                               \
        return rc;                                                                           \
    }
PARSE_FN(proto_type_parse, proto_type_t, s_type_names)
PARSE_FN(proto_code_parse, proto_code_t, s_code_names)
PARSE_FN(proto_kind_parse, proto_kind_t, s_kind_names)
PARSE_FN(proto_end_parse, proto_end_t, s_end_names)
#undef PARSE_FN

bool proto_variant_known(const char *name)
{
    int i;
    return s_lookup(s_variants, COUNT(s_variants), name, &i) == 0;
}

bool proto_end_is_draw(proto_end_t end)
{
    switch (end) {
    case PROTO_END_STALEMATE:
    case PROTO_END_REPETITION:
    case PROTO_END_FIFTY_MOVES:
    case PROTO_END_INSUFFICIENT:
    case PROTO_END_ADJ_DRAW:
    case PROTO_END_MOVE_CAP:
        return true;
    default:
        return false;
    }
}

/* Whether a termination can only be decisive. Time forfeits and illegal
 * moves may still be draws (e.g. the opponent cannot mate), so only these: */
static bool s_end_is_decisive(proto_end_t end)
{
    return end == PROTO_END_CHECKMATE || end == PROTO_END_ADJ_RESIGN;
}

double proto_pair_score(const proto_pair_result_t *pair)
{
    double points = 0;
    for (int g = 0; g < 2; g++) {
        const proto_game_result_t *game = &pair->games[g];
        if (game->result == PROTO_RES_DRAW)
            points += 0.5;
        else if ((game->result == PROTO_RES_WHITE) == (game->white == PROTO_SIDE_B))
            points += 1;
    }
    return points / 2;
}

/* ---- freeing ----------------------------------------------------------- */

void proto_params_free(proto_params_t *params)
{
    if (!params)
        return;
    free(params->items);
    params->items = NULL;
    params->count = 0;
}

void proto_task_free(proto_task_t *task)
{
    if (!task)
        return;
    free(task->pairs);
    proto_params_free(&task->a);
    proto_params_free(&task->b);
    memset(task, 0, sizeof *task);
}

void proto_result_free(proto_result_t *result)
{
    if (!result)
        return;
    for (size_t i = 0; result->pairs && i < result->pair_count; i++)
        for (int g = 0; g < 2; g++)
            free(result->pairs[i].games[g].moves);
    free(result->pairs);
    memset(result, 0, sizeof *result);
}

void proto_ack_free(proto_ack_t *ack)
{
    if (!ack)
        return;
    free(ack->stored);
    free(ack->duplicate);
    memset(ack, 0, sizeof *ack);
}

void proto_holding_free(proto_holding_t *h)
{
    if (!h)
        return;
    free(h->tasks);
    for (size_t i = 0; h->spooled && i < h->spooled_count; i++)
        free(h->spooled[i].pairs);
    free(h->spooled);
    memset(h, 0, sizeof *h);
}

void proto_heartbeat_free(proto_heartbeat_t *hb)
{
    proto_holding_free(hb);
}

void proto_hello_free(proto_hello_t *hello)
{
    if (hello)
        proto_holding_free(&hello->holding);
}

void proto_msg_free(proto_msg_t *msg)
{
    if (!msg)
        return;
    switch (msg->type) {
    case PROTO_TASK: proto_task_free(&msg->u.task); break;
    case PROTO_RESULT: proto_result_free(&msg->u.result); break;
    case PROTO_ACK: proto_ack_free(&msg->u.ack); break;
    case PROTO_HEARTBEAT: proto_heartbeat_free(&msg->u.heartbeat); break;
    case PROTO_HELLO: proto_hello_free(&msg->u.hello); break;
    default: break;
    }
    memset(&msg->u, 0, sizeof msg->u);
}

/* ---- shared pieces ----------------------------------------------------- */

int proto_params_from_json(const cJSON *obj, const char *where, proto_params_t *out,
                           char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(obj))
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object of name: number",
                         where);
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (++n > PROTO_PARAMS_MAX)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: more than %d parameters", where,
                             PROTO_PARAMS_MAX);
    if (n == 0)
        return 0;
    out->items = calloc(n, sizeof *out->items);
    if (!out->items)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = 0;
    for (const cJSON *c = obj->child; c && rc == 0; c = c->next) {
        char shown[PROTO_NAME_MAX];
        snprintf(shown, sizeof shown, "%s", c->string ? c->string : "");
        for (char *p = shown; *p; p++)
            if ((unsigned char) *p < 0x20 || (unsigned char) *p >= 0x7f)
                *p = '?';
        char path[160];
        pjson_path(path, sizeof path, where, shown);
        rc = pjson_check_text(c->string ? c->string : "", path, 1, PROTO_NAME_MAX, PARAM_CHARS,
                              err, errlen);
        double v = c->valuedouble;
        if (rc == 0 && !cJSON_IsNumber(c))
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: expected a number, got %s", path,
                           cJSON_IsString(c) ? "a string" : "another type");
        else if (rc == 0 && !(v >= -1e9 && v <= 1e9))
            rc = capa_fail(err, errlen, CAPA_ERANGE, "%s: %g is outside -1e+09..1e+09", path, v);
        out->items[out->count].value = v;
        if (rc == 0)
            memcpy(out->items[out->count++].name, c->string, strlen(c->string) + 1);
    }
    if (rc)
        proto_params_free(out);
    return rc;
}

cJSON *proto_params_to_json(const proto_params_t *params)
{
    cJSON *obj = cJSON_CreateObject();
    for (size_t i = 0; obj && i < params->count; i++)
        if (!pjson_add_number(obj, params->items[i].name, params->items[i].value)) {
            cJSON_Delete(obj);
            return NULL;
        }
    return obj;
}

/* Reads an array of pair numbers / ids (each 0..PROTO_ID_NUM_MAX). */
static int s_int_array(const cJSON *obj, const char *key, bool required, size_t max,
                       int64_t **out, size_t *count, char *err, size_t errlen)
{
    *out = NULL;
    *count = 0;
    int rc;
    const cJSON *arr = pjson_array(obj, "", key, required, max, &rc, err, errlen);
    if (rc || !arr)
        return rc;
    size_t n = (size_t) cJSON_GetArraySize(arr);
    if (n == 0)
        return 0;
    *out = calloc(n, sizeof **out);
    if (!*out)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    size_t i = 0;
    for (const cJSON *c = arr->child; c; c = c->next, i++) {
        double v = c->valuedouble;
        if (!cJSON_IsNumber(c) || !isfinite(v) || v != floor(v) || v < 0 ||
            v > (double) PROTO_ID_NUM_MAX) {
            free(*out);
            *out = NULL;
            return capa_fail(err, errlen, cJSON_IsNumber(c) ? CAPA_ERANGE : CAPA_EINVAL,
                             "%s[%zu]: expected an integer 0..2^53-1", key, i);
        }
        (*out)[i] = (int64_t) v;
    }
    *count = n;
    return 0;
}

static int s_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

/* Returns the first repeated number in v, or -1 when all are distinct. */
static int64_t s_first_repeat(const int64_t *v, size_t n)
{
    if (n < 2)
        return -1;
    int64_t *copy = malloc(n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, s_cmp_i64);
    int64_t dup = -1;
    for (size_t i = 1; i < n && dup < 0; i++)
        if (copy[i] == copy[i - 1])
            dup = copy[i];
    free(copy);
    return dup;
}

/* Reads a string naming one of `names` (by index into the table). */
static int s_enum(const cJSON *obj, const char *where, const char *key,
                  const char *const *names, size_t n, int *out, char *err, size_t errlen)
{
    char buf[32];
    int rc = pjson_string(obj, where, key, true, 1, buf, sizeof buf, NULL, err, errlen);
    if (rc == 0 && s_lookup(names, n, buf, out) != 0) {
        char path[160];
        pjson_path(path, sizeof path, where, key);
        rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown value \"%s\"", path, buf);
    }
    if (rc == CAPA_ERANGE) {
        char path[160];
        pjson_path(path, sizeof path, where, key);
        rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown value", path);
    }
    return rc;
}

/* ---- decoding, one function per type ---------------------------------- */

static int s_holding_from(const cJSON *j, proto_holding_t *m, char *err, size_t errlen);

static int s_hello_from(const cJSON *j, proto_hello_t *m, proto_code_t *fault, char *err,
                        size_t errlen)
{
    (void) fault;
    TRY(pjson_string(j, "", "token", true, 1, m->token, sizeof m->token, TOKEN_CHARS, err, errlen));
    TRY(pjson_string(j, "", "worker", true, 1, m->worker_id, sizeof m->worker_id, ID_CHARS, err, errlen));
    TRY(pjson_string(j, "", "name", true, 1, m->name, sizeof m->name, NULL, err, errlen));
    int rc;
    const cJSON *host = pjson_object(j, "", "host", false, &rc, err, errlen);
    TRY(rc);
    if (host) {
        TRY(pjson_string(host, "host", "os", false, 0, m->host_os, sizeof m->host_os, NULL, err, errlen));
        TRY(pjson_string(host, "host", "cpu", false, 0, m->host_cpu, sizeof m->host_cpu, NULL, err, errlen));
        TRY(pjson_int(host, "host", "memory_mb", false, 0, INT64_C(1) << 40, &m->host_memory_mb, err, errlen));
    }
    TRY(pjson_int32(j, "", "cores", true, 1, PROTO_SLOTS_MAX, &m->cores, err, errlen));
    TRY(pjson_int32(j, "", "concurrency", true, 1, PROTO_SLOTS_MAX, &m->concurrency, err, errlen));
    TRY(pjson_string(j, "", "engine", true, 1, m->engine_version, sizeof m->engine_version, NULL, err, errlen));
    TRY(pjson_int(j, "", "bench", true, 0, PROTO_ID_NUM_MAX, &m->bench, err, errlen));
    TRY(pjson_double(j, "", "nps", true, 0, 1e12, &m->nps, err, errlen));
    return s_holding_from(j, &m->holding, err, errlen);
}

static int s_welcome_from(const cJSON *j, proto_welcome_t *m, proto_code_t *fault, char *err,
                          size_t errlen)
{
    (void) fault;
    TRY(pjson_string(j, "", "session", true, 1, m->session, sizeof m->session, ID_CHARS, err, errlen));
    TRY(pjson_int32(j, "", "heartbeat_ms", true, 100, 600000, &m->heartbeat_ms, err, errlen));
    TRY(pjson_int32(j, "", "liveness", true, 1, 100, &m->liveness, err, errlen));
    TRY(pjson_int(j, "", "bench", true, 0, PROTO_ID_NUM_MAX, &m->bench, err, errlen));
    TRY(pjson_string(j, "", "engine", false, 0, m->engine_version, sizeof m->engine_version, NULL, err, errlen));
    TRY(pjson_string(j, "", "contributor", false, 0, m->contributor, sizeof m->contributor, NULL, err, errlen));
    return 0;
}

static int s_request_from(const cJSON *j, proto_request_t *m, proto_code_t *fault, char *err,
                          size_t errlen)
{
    (void) fault;
    return pjson_int32(j, "", "slots", true, 1, PROTO_SLOTS_MAX, &m->slots, err, errlen);
}

int proto_game_read(const cJSON *obj, const char *where, bool required, proto_game_t *g,
                    char *err, size_t errlen)
{
    const char *w = where;
    TRY(pjson_int(obj, w, "tc_base_ms", false, 0, PROTO_TC_BASE_MS_MAX, &g->tc_base_ms, err, errlen));
    TRY(pjson_int(obj, w, "tc_inc_ms", false, 0, PROTO_TC_INC_MS_MAX, &g->tc_inc_ms, err, errlen));
    if (!required && (g->tc_base_ms > 0 || g->tc_inc_ms > 0))
        g->nodes = 0;   /* a time control replaces the default node count */
    TRY(pjson_int(obj, w, "nodes", required, 0, PROTO_NODES_MAX, &g->nodes, err, errlen));
    if (g->nodes > 0 && (g->tc_base_ms > 0 || g->tc_inc_ms > 0))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "%s: give either nodes or a time control (tc_base_ms, tc_inc_ms), not both",
                         w);
    if (g->nodes == 0 && g->tc_base_ms == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: needs nodes > 0 or tc_base_ms > 0", w);
    TRY(pjson_int32(obj, w, "resign_cp", required, 0, 100000, &g->resign_cp, err, errlen));
    TRY(pjson_int32(obj, w, "resign_moves", required, 0, 1000, &g->resign_moves, err, errlen));
    TRY(pjson_int32(obj, w, "draw_cp", required, 0, 100000, &g->draw_cp, err, errlen));
    TRY(pjson_int32(obj, w, "draw_moves", required, 0, 1000, &g->draw_moves, err, errlen));
    TRY(pjson_int32(obj, w, "draw_min_ply", required, 0, PROTO_PLIES_MAX, &g->draw_min_ply, err,
                    errlen));
    TRY(pjson_int32(obj, w, "max_plies", required, 0, PROTO_PLIES_MAX, &g->max_plies, err, errlen));
    if (g->hash_mb == 0)
        g->hash_mb = PROTO_HASH_MB_DEFAULT;
    TRY(pjson_int32(obj, w, "hash_mb", false, 1, PROTO_HASH_MB_MAX, &g->hash_mb, err, errlen));
    if (g->resign_cp > 0 && g->resign_moves == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "%s.resign_moves: must be > 0 when resign_cp is set",
                         w);
    return 0;
}

static int s_game_from(const cJSON *g, proto_game_t *m, char *err, size_t errlen)
{
    const char *w = "game";
    TRY(pjson_string(g, w, "variant", true, 1, m->variant, sizeof m->variant, NULL, err, errlen));
    if (!proto_variant_known(m->variant))
        return capa_fail(err, errlen, CAPA_EINVAL, "game.variant: unknown variant \"%s\"", m->variant);
    TRY(pjson_bool(g, w, "chess960", true, &m->chess960, err, errlen));
    m->hash_mb = PROTO_HASH_MB_DEFAULT;
    return proto_game_read(g, w, true, m, err, errlen);
}

static int s_task_from(const cJSON *j, proto_task_t *m, proto_code_t *fault, char *err,
                       size_t errlen)
{
    (void) fault;
    TRY(pjson_int(j, "", "task_id", true, 0, PROTO_ID_NUM_MAX, &m->task_id, err, errlen));
    TRY(pjson_int(j, "", "run_id", true, 0, PROTO_ID_NUM_MAX, &m->run_id, err, errlen));
    TRY(pjson_int(j, "", "lease_id", true, 0, PROTO_ID_NUM_MAX, &m->lease_id, err, errlen));
    TRY(pjson_int32(j, "", "lease_seconds", true, 1, 7 * 86400, &m->lease_seconds, err, errlen));
    int kind;
    TRY(s_enum(j, "", "kind", s_kind_names, COUNT(s_kind_names), &kind, err, errlen));
    m->kind = (proto_kind_t) kind;
    int rc;
    const cJSON *pairs = pjson_array(j, "", "pairs", true, PROTO_PAIRS_MAX, &rc, err, errlen);
    TRY(rc);
    size_t n = (size_t) cJSON_GetArraySize(pairs);
    if (n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "pairs: must not be empty");
    m->pairs = calloc(n, sizeof *m->pairs);
    if (!m->pairs)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int64_t *numbers = calloc(n, sizeof *numbers);
    if (!numbers)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    for (const cJSON *c = pairs->child; c; c = c->next) {
        proto_pair_t *p = &m->pairs[m->pair_count];
        char w[32];
        snprintf(w, sizeof w, "pairs[%zu]", m->pair_count);
        if (!cJSON_IsObject(c))
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object", w);
        if (!rc)
            rc = pjson_int(c, w, "pair", true, 0, PROTO_ID_NUM_MAX, &p->pair, err, errlen);
        if (!rc)
            rc = pjson_string(c, w, "fen", true, 1, p->fen, sizeof p->fen, FEN_CHARS, err, errlen);
        if (!rc)
            rc = pjson_string(c, w, "fen2", false, 0, p->fen2, sizeof p->fen2, FEN_CHARS, err, errlen);
        if (!rc)
            rc = pjson_string(c, w, "imbalance", false, 0, p->imbalance, sizeof p->imbalance, NULL, err, errlen);
        if (rc)
            break;
        numbers[m->pair_count++] = p->pair;
    }
    int64_t dup = rc ? -1 : s_first_repeat(numbers, m->pair_count);
    free(numbers);
    TRY(rc);
    if (dup >= 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "pairs: pair %lld appears twice", (long long) dup);
    const cJSON *a = pjson_object(j, "", "a", true, &rc, err, errlen);
    TRY(rc);
    TRY(proto_params_from_json(a, "a", &m->a, err, errlen));
    const cJSON *b = pjson_object(j, "", "b", true, &rc, err, errlen);
    TRY(rc);
    TRY(proto_params_from_json(b, "b", &m->b, err, errlen));
    const cJSON *game = pjson_object(j, "", "game", true, &rc, err, errlen);
    TRY(rc);
    return s_game_from(game, &m->game, err, errlen);
}

static int s_no_task_from(const cJSON *j, proto_no_task_t *m, proto_code_t *fault, char *err,
                          size_t errlen)
{
    (void) fault;
    TRY(pjson_int32(j, "", "retry_ms", true, 0, 3600000, &m->retry_ms, err, errlen));
    return pjson_string(j, "", "reason", false, 0, m->reason, sizeof m->reason, NULL, err, errlen);
}

static int s_game_result_from(const cJSON *g, const char *w, proto_game_result_t *m,
                              proto_code_t *fault, char *err, size_t errlen)
{
    if (!cJSON_IsObject(g))
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object", w);
    int v;
    TRY(s_enum(g, w, "result", s_res_names, COUNT(s_res_names), &v, err, errlen));
    m->result = (proto_res_t) v;
    TRY(s_enum(g, w, "white", s_side_names, COUNT(s_side_names), &v, err, errlen));
    m->white = (proto_side_t) v;
    TRY(s_enum(g, w, "end", s_end_names, COUNT(s_end_names), &v, err, errlen));
    m->end = (proto_end_t) v;
    TRY(pjson_int32(g, w, "plies", true, 0, PROTO_PLIES_MAX, &m->plies, err, errlen));
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(g, "moves");
    if (moves) {
        char path[64];
        pjson_path(path, sizeof path, w, "moves");
        if (!cJSON_IsString(moves) || !moves->valuestring)
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: expected a string", path);
        TRY(pjson_check_text(moves->valuestring, path, 0, PROTO_MOVES_MAX, MOVE_CHARS, err, errlen));
        m->moves = strdup(moves->valuestring);
        if (!m->moves)
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    if (proto_end_is_draw(m->end) != (m->result == PROTO_RES_DRAW) &&
        (proto_end_is_draw(m->end) || s_end_is_decisive(m->end))) {
        *fault = PROTO_INCONSISTENT_RESULT;
        return capa_fail(err, errlen, CAPA_EINVAL, "%s: result %s cannot end by %s", w,
                         s_res_names[m->result], s_end_names[m->end]);
    }
    return 0;
}

static int s_result_from(const cJSON *j, proto_result_t *m, proto_code_t *fault, char *err,
                         size_t errlen)
{
    TRY(pjson_int(j, "", "task_id", true, 0, PROTO_ID_NUM_MAX, &m->task_id, err, errlen));
    TRY(pjson_int(j, "", "lease_id", true, 0, PROTO_ID_NUM_MAX, &m->lease_id, err, errlen));
    TRY(pjson_int(j, "", "batch", true, 0, PROTO_ID_NUM_MAX, &m->batch, err, errlen));
    TRY(pjson_double(j, "", "cpu_seconds", true, 0, 1e9, &m->cpu_seconds, err, errlen));
    TRY(pjson_bool(j, "", "last", true, &m->last, err, errlen));
    int rc;
    const cJSON *pairs = pjson_array(j, "", "pairs", true, PROTO_PAIRS_MAX, &rc, err, errlen);
    TRY(rc);
    size_t n = (size_t) cJSON_GetArraySize(pairs);
    if (n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "pairs: must not be empty");
    m->pairs = calloc(n, sizeof *m->pairs);
    int64_t *numbers = calloc(n, sizeof *numbers);
    if (!m->pairs || !numbers) {
        free(numbers);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    for (const cJSON *c = pairs->child; c && !rc; c = c->next) {
        proto_pair_result_t *p = &m->pairs[m->pair_count++];
        char w[32];
        snprintf(w, sizeof w, "pairs[%zu]", m->pair_count - 1);
        if (!cJSON_IsObject(c)) {
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object", w);
            break;
        }
        rc = pjson_int(c, w, "pair", true, 0, PROTO_ID_NUM_MAX, &p->pair, err, errlen);
        numbers[m->pair_count - 1] = p->pair;
        const cJSON *games = rc ? NULL : pjson_array(c, w, "games", true, 2, &rc, err, errlen);
        if (!rc && cJSON_GetArraySize(games) != 2)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s.games: expected 2 games", w);
        for (int g = 0; !rc && g < 2; g++) {
            char gw[64];
            snprintf(gw, sizeof gw, "%s.games[%d]", w, g);
            rc = s_game_result_from(cJSON_GetArrayItem(games, g), gw, &p->games[g], fault, err, errlen);
        }
        if (!rc)
            rc = pjson_double(c, w, "score", true, 0, 1, &p->score, err, errlen);
        if (!rc && p->games[0].white == p->games[1].white) {
            *fault = PROTO_INCONSISTENT_RESULT;
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: %s had White in both games", w,
                           s_side_names[p->games[0].white]);
        }
        if (!rc && p->score != proto_pair_score(p)) {
            *fault = PROTO_INCONSISTENT_RESULT;
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s.score: %g, but the games give B %g", w,
                           p->score, proto_pair_score(p));
        }
    }
    int64_t dup = rc ? -1 : s_first_repeat(numbers, m->pair_count);
    free(numbers);
    TRY(rc);
    if (dup >= 0) {
        *fault = PROTO_INCONSISTENT_RESULT;
        return capa_fail(err, errlen, CAPA_EINVAL, "pairs: pair %lld appears twice", (long long) dup);
    }
    return 0;
}

static int s_ack_from(const cJSON *j, proto_ack_t *m, proto_code_t *fault, char *err, size_t errlen)
{
    (void) fault;
    TRY(pjson_int(j, "", "task_id", true, 0, PROTO_ID_NUM_MAX, &m->task_id, err, errlen));
    TRY(pjson_int(j, "", "batch", true, 0, PROTO_ID_NUM_MAX, &m->batch, err, errlen));
    TRY(s_int_array(j, "stored", true, PROTO_PAIRS_MAX, &m->stored, &m->stored_count, err, errlen));
    return s_int_array(j, "duplicate", true, PROTO_PAIRS_MAX, &m->duplicate, &m->duplicate_count,
                       err, errlen);
}

/* "tasks" and "spooled" of a HELLO or HEARTBEAT (docs/protocol.md). */
static int s_holding_from(const cJSON *j, proto_holding_t *m, char *err, size_t errlen)
{
    TRY(s_int_array(j, "tasks", false, PROTO_TASKS_MAX, &m->tasks, &m->task_count, err, errlen));
    int64_t dup = s_first_repeat(m->tasks, m->task_count);
    if (dup >= 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "tasks: task %lld appears twice",
                         (long long) dup);
    int rc;
    const cJSON *arr = pjson_array(j, "", "spooled", false, PROTO_TASKS_MAX, &rc, err, errlen);
    if (rc || !arr)
        return rc;
    m->listed = true;
    size_t n = (size_t) cJSON_GetArraySize(arr);
    if (n == 0)
        return 0;
    if (!(m->spooled = calloc(n, sizeof *m->spooled)))
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int64_t *ids = calloc(n, sizeof *ids);
    if (!ids)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    size_t i = 0, total = 0;
    for (const cJSON *c = arr->child; c && rc == 0; c = c->next, i++) {
        proto_spooled_t *e = &m->spooled[i];
        m->spooled_count = i + 1;
        char where[32];
        snprintf(where, sizeof where, "spooled[%zu]", i);
        if (!cJSON_IsObject(c)) {
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object", where);
            break;
        }
        rc = pjson_int(c, where, "task_id", true, 0, PROTO_ID_NUM_MAX, &e->task_id, err, errlen);
        if (rc == 0)
            rc = s_int_array(c, "pairs", true, PROTO_PAIRS_MAX, &e->pairs, &e->pair_count, err,
                             errlen);
        if (rc == 0 && e->pair_count == 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s.pairs: empty", where);
        if (rc == 0 && (dup = s_first_repeat(e->pairs, e->pair_count)) >= 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "%s.pairs: pair %lld appears twice", where,
                           (long long) dup);
        total += e->pair_count;
        if (rc == 0 && total > PROTO_SPOOLED_PAIRS_MAX)
            rc = capa_fail(err, errlen, CAPA_ERANGE, "spooled: more than %d pair numbers",
                           PROTO_SPOOLED_PAIRS_MAX);
        ids[i] = e->task_id;
    }
    if (rc == 0 && (dup = s_first_repeat(ids, n)) >= 0)
        rc = capa_fail(err, errlen, CAPA_EINVAL, "spooled: task %lld appears twice",
                       (long long) dup);
    free(ids);
    return rc;
}

static int s_heartbeat_from(const cJSON *j, proto_heartbeat_t *m, proto_code_t *fault, char *err,
                            size_t errlen)
{
    (void) fault;
    return s_holding_from(j, m, err, errlen);
}

static int s_bye_from(const cJSON *j, proto_bye_t *m, proto_code_t *fault, char *err, size_t errlen)
{
    (void) fault;
    return pjson_string(j, "", "reason", false, 0, m->reason, sizeof m->reason, NULL, err, errlen);
}

static int s_error_from(const cJSON *j, proto_error_t *m, proto_code_t *fault, char *err,
                        size_t errlen)
{
    (void) fault;
    int v;
    TRY(s_enum(j, "", "code", s_code_names + 1, COUNT(s_code_names) - 1, &v, err, errlen));
    m->code = (proto_code_t) (v + 1);
    TRY(pjson_string(j, "", "text", true, 0, m->text, sizeof m->text, NULL, err, errlen));
    char about[32] = "";
    TRY(pjson_string(j, "", "about", false, 0, about, sizeof about, NULL, err, errlen));
    m->about = PROTO_NONE;
    if (*about && proto_type_parse(about, &m->about) != 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "about: unknown message type \"%s\"", about);
    m->task_id = m->batch = -1;
    TRY(pjson_int(j, "", "task_id", false, -1, PROTO_ID_NUM_MAX, &m->task_id, err, errlen));
    return pjson_int(j, "", "batch", false, -1, PROTO_ID_NUM_MAX, &m->batch, err, errlen);
}

/* ---- generic decode ---------------------------------------------------- */

static int s_fail(proto_msg_t *msg, proto_code_t code, int rc)
{
    msg->fault = code;
    return rc;
}

int proto_decode(const void *frame, size_t len, proto_msg_t *msg, char *err, size_t errlen)
{
    memset(msg, 0, sizeof *msg);
    if (len > PROTO_FRAME_MAX)
        return s_fail(msg, PROTO_TOO_BIG, capa_fail(err, errlen, CAPA_ERANGE,
                      "frame of %zu bytes exceeds the limit of %u", len, PROTO_FRAME_MAX));
    if (!frame || len == 0)
        return s_fail(msg, PROTO_BAD_JSON, capa_fail(err, errlen, CAPA_EINVAL, "empty frame"));
    cJSON *root = pjson_parse(frame, len, PROTO_DEPTH_MAX, err, errlen);
    if (!root)
        return s_fail(msg, PROTO_BAD_JSON, CAPA_EINVAL);
    int rc = 0;
    proto_code_t fault = PROTO_BAD_SCHEMA;
    if (!cJSON_IsObject(root)) {
        fault = PROTO_BAD_JSON;
        rc = capa_fail(err, errlen, CAPA_EINVAL, "a message must be a JSON object");
        goto done;
    }
    char type[32];
    rc = pjson_string(root, "", "type", true, 1, type, sizeof type, NULL, err, errlen);
    if (rc)
        goto done;
    /* The type is known before the version is judged (so an ERROR can name
     * it), but a message of another version may have types we do not know:
     * the version is checked first. */
    bool known = proto_type_parse(type, &msg->type) == 0;
    int64_t version = 0;
    rc = pjson_int(root, "", "v", true, 0, PJSON_INT_MAX, &version, err, errlen);
    if (rc == CAPA_ERANGE || (rc == 0 && version != PROTO_VERSION)) {
        fault = PROTO_BAD_VERSION;
        rc = capa_fail(err, errlen, CAPA_EPROTO, "v: this side speaks protocol version %d",
                       PROTO_VERSION);
    }
    if (rc)
        goto done;
    if (!known) {
        fault = PROTO_UNKNOWN_TYPE;
        rc = capa_fail(err, errlen, CAPA_EINVAL, "type: unknown message type \"%s\"", type);
        goto done;
    }
    rc = pjson_no_duplicates(root, "", err, errlen);
    if (rc)
        goto done;
    switch (msg->type) {
    case PROTO_HELLO: rc = s_hello_from(root, &msg->u.hello, &fault, err, errlen); break;
    case PROTO_WELCOME: rc = s_welcome_from(root, &msg->u.welcome, &fault, err, errlen); break;
    case PROTO_REQUEST: rc = s_request_from(root, &msg->u.request, &fault, err, errlen); break;
    case PROTO_TASK: rc = s_task_from(root, &msg->u.task, &fault, err, errlen); break;
    case PROTO_NO_TASK: rc = s_no_task_from(root, &msg->u.no_task, &fault, err, errlen); break;
    case PROTO_RESULT: rc = s_result_from(root, &msg->u.result, &fault, err, errlen); break;
    case PROTO_ACK: rc = s_ack_from(root, &msg->u.ack, &fault, err, errlen); break;
    case PROTO_HEARTBEAT: rc = s_heartbeat_from(root, &msg->u.heartbeat, &fault, err, errlen); break;
    case PROTO_BYE: rc = s_bye_from(root, &msg->u.bye, &fault, err, errlen); break;
    case PROTO_ERROR: rc = s_error_from(root, &msg->u.error, &fault, err, errlen); break;
    default: rc = capa_fail(err, errlen, CAPA_EINVAL, "type: not decodable"); break;
    }
    if (rc == CAPA_ENOMEM)
        fault = PROTO_INTERNAL;
done:
    cJSON_Delete(root);
    if (rc) {
        proto_msg_free(msg);
        msg->fault = fault;
        return rc;
    }
    return 0;
}
