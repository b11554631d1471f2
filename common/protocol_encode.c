/* protocol_encode.c - build the version 1 wire messages from their structs,
 * and the typed decode wrappers around proto_decode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "protocol.h"
#include "protocol_json.h"

/* Every helper below returns false on ENOMEM or a non-finite number. */
static bool s_str(cJSON *o, const char *key, const char *v)
{
    return cJSON_AddStringToObject(o, key, v) != NULL;
}

static bool s_num(cJSON *o, const char *key, double v)
{
    return pjson_add_number(o, key, v) != NULL;
}

static bool s_int(cJSON *o, const char *key, int64_t v)
{
    return pjson_add_number(o, key, (double) v) != NULL;
}

static bool s_add(cJSON *o, const char *key, cJSON *child)
{
    if (!child)
        return false;
    cJSON_AddItemToObject(o, key, child);
    return true;
}

static cJSON *s_ints(const int64_t *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *num = pjson_number((double) v[i]);
        if (!num) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, num);
    }
    return arr;
}

/* "tasks" always, "spooled" when the lists are complete (m->listed). */
static bool s_holding_to(cJSON *j, const proto_holding_t *m)
{
    if (!s_add(j, "tasks", s_ints(m->tasks, m->task_count)))
        return false;
    if (!m->listed)
        return true;
    cJSON *arr = cJSON_CreateArray();
    if (!s_add(j, "spooled", arr))
        return false;
    for (size_t i = 0; i < m->spooled_count; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return false;
        cJSON_AddItemToArray(arr, o);
        if (!s_int(o, "task_id", m->spooled[i].task_id) ||
            !s_add(o, "pairs", s_ints(m->spooled[i].pairs, m->spooled[i].pair_count)))
            return false;
    }
    return true;
}

static bool s_hello_to(cJSON *j, const proto_hello_t *m)
{
    cJSON *host = cJSON_CreateObject();
    bool ok = s_add(j, "host", host) && s_str(host, "os", m->host_os) &&
              s_str(host, "cpu", m->host_cpu) && s_int(host, "memory_mb", m->host_memory_mb);
    return ok && s_str(j, "token", m->token) && s_str(j, "worker", m->worker_id) &&
           s_str(j, "name", m->name) && s_int(j, "cores", m->cores) &&
           s_int(j, "concurrency", m->concurrency) && s_str(j, "engine", m->engine_version) &&
           s_int(j, "bench", m->bench) && s_num(j, "nps", m->nps) &&
           (!m->holding.listed || s_holding_to(j, &m->holding));
}

static bool s_welcome_to(cJSON *j, const proto_welcome_t *m)
{
    return s_str(j, "session", m->session) && s_int(j, "heartbeat_ms", m->heartbeat_ms) &&
           s_int(j, "liveness", m->liveness) && s_int(j, "bench", m->bench) &&
           s_str(j, "engine", m->engine_version) &&
           (!m->contributor[0] || s_str(j, "contributor", m->contributor));
}

static bool s_task_to(cJSON *j, const proto_task_t *m)
{
    const char *kind = proto_kind_name(m->kind);
    if (!kind || !s_int(j, "task_id", m->task_id) || !s_int(j, "run_id", m->run_id) ||
        !s_int(j, "lease_id", m->lease_id) || !s_int(j, "lease_seconds", m->lease_seconds) ||
        !s_str(j, "kind", kind))
        return false;
    cJSON *pairs = cJSON_CreateArray();
    if (!s_add(j, "pairs", pairs))
        return false;
    for (size_t i = 0; i < m->pair_count; i++) {
        const proto_pair_t *p = &m->pairs[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return false;
        cJSON_AddItemToArray(pairs, o);
        if (!s_int(o, "pair", p->pair) || !s_str(o, "fen", p->fen) ||
            (*p->fen2 && !s_str(o, "fen2", p->fen2)) ||
            (*p->imbalance && !s_str(o, "imbalance", p->imbalance)))
            return false;
    }
    if (!s_add(j, "a", proto_params_to_json(&m->a)) || !s_add(j, "b", proto_params_to_json(&m->b)))
        return false;
    const proto_game_t *g = &m->game;
    cJSON *game = cJSON_CreateObject();
    return s_add(j, "game", game) && s_str(game, "variant", g->variant) &&
           cJSON_AddBoolToObject(game, "chess960", g->chess960) && s_int(game, "nodes", g->nodes) &&
           s_int(game, "tc_base_ms", g->tc_base_ms) && s_int(game, "tc_inc_ms", g->tc_inc_ms) &&
           s_int(game, "resign_cp", g->resign_cp) && s_int(game, "resign_moves", g->resign_moves) &&
           s_int(game, "draw_cp", g->draw_cp) && s_int(game, "draw_moves", g->draw_moves) &&
           s_int(game, "draw_min_ply", g->draw_min_ply) && s_int(game, "max_plies", g->max_plies) &&
           s_int(game, "hash_mb", g->hash_mb > 0 ? g->hash_mb : PROTO_HASH_MB_DEFAULT);
}

static bool s_result_to(cJSON *j, const proto_result_t *m)
{
    if (!s_int(j, "task_id", m->task_id) || !s_int(j, "lease_id", m->lease_id) ||
        !s_int(j, "batch", m->batch) || !s_num(j, "cpu_seconds", m->cpu_seconds) ||
        !cJSON_AddBoolToObject(j, "last", m->last))
        return false;
    cJSON *pairs = cJSON_CreateArray();
    if (!s_add(j, "pairs", pairs))
        return false;
    for (size_t i = 0; i < m->pair_count; i++) {
        const proto_pair_result_t *p = &m->pairs[i];
        cJSON *o = cJSON_CreateObject(), *games = cJSON_CreateArray();
        if (!o) {
            cJSON_Delete(games);
            return false;
        }
        cJSON_AddItemToArray(pairs, o);
        if (!s_int(o, "pair", p->pair) || !s_add(o, "games", games))
            return false;
        for (int g = 0; g < 2; g++) {
            const proto_game_result_t *gr = &p->games[g];
            const char *res = proto_res_name(gr->result), *white = proto_side_name(gr->white),
                       *end = proto_end_name(gr->end);
            cJSON *go = cJSON_CreateObject();
            if (!go || !res || !white || !end) {
                cJSON_Delete(go);
                return false;
            }
            cJSON_AddItemToArray(games, go);
            if (!s_str(go, "result", res) || !s_str(go, "white", white) || !s_str(go, "end", end) ||
                !s_int(go, "plies", gr->plies) || (gr->moves && !s_str(go, "moves", gr->moves)))
                return false;
        }
        if (!s_num(o, "score", p->score))
            return false;
    }
    return true;
}

static bool s_error_to(cJSON *j, const proto_error_t *m)
{
    /* The text often quotes the offending input: replace anything the peer
     * would refuse (control characters, broken UTF-8) by '?'. */
    char text[PROTO_LONGTEXT_MAX];
    snprintf(text, sizeof text, "%s", m->text);
    size_t len = strlen(text);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) text[i];
        if (c < 0x20 || c >= 0x7f)
            text[i] = '?';
    }
    const char *code = proto_code_name(m->code), *about = proto_type_name(m->about);
    if (!code || m->code == PROTO_OK || !about)
        return false;
    return s_str(j, "code", code) && s_str(j, "text", text) && s_str(j, "about", about) &&
           s_int(j, "task_id", m->task_id) && s_int(j, "batch", m->batch);
}

int proto_encode(const proto_msg_t *msg, char **frame, size_t *len, char *err, size_t errlen)
{
    *frame = NULL;
    *len = 0;
    const char *type = proto_type_name(msg->type);
    if (!type || msg->type == PROTO_NONE)
        return capa_fail(err, errlen, CAPA_EINVAL, "cannot encode message type %d", (int) msg->type);
    cJSON *j = cJSON_CreateObject();
    bool ok = j && s_int(j, "v", PROTO_VERSION) && s_str(j, "type", type);
    if (ok) {
        const typeof(msg->u) *u = &msg->u;
        switch (msg->type) {
        case PROTO_HELLO: ok = s_hello_to(j, &u->hello); break;
        case PROTO_WELCOME: ok = s_welcome_to(j, &u->welcome); break;
        case PROTO_REQUEST: ok = s_int(j, "slots", u->request.slots); break;
        case PROTO_TASK: ok = s_task_to(j, &u->task); break;
        case PROTO_NO_TASK:
            ok = s_int(j, "retry_ms", u->no_task.retry_ms) && s_str(j, "reason", u->no_task.reason);
            break;
        case PROTO_RESULT: ok = s_result_to(j, &u->result); break;
        case PROTO_ACK:
            ok = s_int(j, "task_id", u->ack.task_id) && s_int(j, "batch", u->ack.batch) &&
                 s_add(j, "stored", s_ints(u->ack.stored, u->ack.stored_count)) &&
                 s_add(j, "duplicate", s_ints(u->ack.duplicate, u->ack.duplicate_count));
            break;
        case PROTO_HEARTBEAT:
            ok = s_holding_to(j, &u->heartbeat);
            break;
        case PROTO_BYE: ok = s_str(j, "reason", u->bye.reason); break;
        case PROTO_ERROR: ok = s_error_to(j, &u->error); break;
        default: ok = false; break;
        }
    }
    char *text = ok ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return capa_fail(err, errlen, ok ? CAPA_ENOMEM : CAPA_EINVAL,
                         "cannot encode %s: out of memory, a non-finite number or an enum out of range",
                         type);
    /* The peer will check everything: check it here first, by the same code. */
    size_t n = strlen(text);
    proto_msg_t check;
    char why[256];
    int rc = proto_decode(text, n, &check, why, sizeof why);
    proto_msg_free(&check);
    if (rc) {
        free(text);
        return capa_fail(err, errlen, rc == CAPA_ENOMEM ? CAPA_ENOMEM : CAPA_EINVAL,
                         "cannot encode %s: %s", type, why);
    }
    *frame = text;
    *len = n;
    return 0;
}

#define PROTO_DEFINE(name, type_t, TYPE)                                                     \
    int proto_encode_##name(const type_t *m, char **frame, size_t *len, char *err,           \
                            size_t errlen)                                                   \
    {                                                                                        \
        proto_msg_t msg = { .type = TYPE };                                                  \
        msg.u.name = *m;                                                                     \
        return proto_encode(&msg, frame, len, err, errlen);                                  \
    }                                                                                        \
    int proto_decode_##name(const void *frame, size_t len, type_t *out, proto_code_t *code,  \
                            char *err, size_t errlen)                                        \
    {                                                                                        \
        proto_msg_t msg;                                                                     \
        memset(out, 0, sizeof *out);                                                         \
        int rc = proto_decode(frame, len, &msg, err, errlen);                                \
        if (rc == 0 && msg.type != TYPE)                                                     \
            rc = capa_fail(err, errlen, CAPA_EPROTO, "expected %s, got %s",                  \
                           proto_type_name(TYPE), proto_type_name(msg.type));                \
        if (rc) {                                                                            \
            *code = msg.fault != PROTO_OK ? msg.fault : PROTO_UNKNOWN_TYPE;                  \
            proto_msg_free(&msg);                                                            \
            return rc;                                                                       \
        }                                                                                    \
        *code = PROTO_OK;                                                                    \
        *out = msg.u.name;                                                                   \
        return 0;                                                                            \
    }
PROTO_DEFINE(hello, proto_hello_t, PROTO_HELLO)
PROTO_DEFINE(welcome, proto_welcome_t, PROTO_WELCOME)
PROTO_DEFINE(request, proto_request_t, PROTO_REQUEST)
PROTO_DEFINE(task, proto_task_t, PROTO_TASK)
PROTO_DEFINE(no_task, proto_no_task_t, PROTO_NO_TASK)
PROTO_DEFINE(result, proto_result_t, PROTO_RESULT)
PROTO_DEFINE(ack, proto_ack_t, PROTO_ACK)
PROTO_DEFINE(heartbeat, proto_heartbeat_t, PROTO_HEARTBEAT)
PROTO_DEFINE(bye, proto_bye_t, PROTO_BYE)
PROTO_DEFINE(error, proto_error_t, PROTO_ERROR)
