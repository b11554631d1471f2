/* coord_msg.c - sending messages and handling HELLO, HEARTBEAT and BYE
 * (a turn's REQUESTs are in coord_request.c, its RESULTs in coord_result.c,
 * the turn itself in coord_turn.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zmq.h>

#include "coord_int.h"
#include "err.h"
#include "log.h"
#include "protocol_json.h"
#include "store.h"
#include "token.h"

static void s_hex_rid(const uint8_t *rid, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 3 < cap; i++)
        o += (size_t) snprintf(out + o, cap - o, "%02x", rid[i]);
    out[o] = 0;
}

int coord_send(coord_t *self, const uint8_t *rid, size_t rid_len, bool req_style,
               const proto_msg_t *msg)
{
    char *frame = NULL, err[256];
    size_t len = 0;
    int rc = proto_encode(msg, &frame, &len, err, sizeof err);
    if (rc < 0) {
        LOG(LOG_ERROR, "cannot encode %s: %s", proto_type_name(msg->type), err);
        return rc;
    }
    rc = 0;
    if (zmq_send(self->router, rid, rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
        (req_style && zmq_send(self->router, "", 0, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) ||
        zmq_send(self->router, frame, len, ZMQ_DONTWAIT) < 0) {
        LOG(LOG_WARN, "cannot send %s: %s", proto_type_name(msg->type), zmq_strerror(zmq_errno()));
        rc = CAPA_EIO;
    }
    free(frame);
    coord_session_t *s = coord_session_find(self, rid, rid_len);
    if (s)
        s->last_sent_ms = coord_now_ms();
    return rc;
}

void coord_send_error(coord_t *self, const uint8_t *rid, size_t rid_len, bool req_style,
                      proto_code_t code, proto_type_t about, int64_t task_id, int64_t batch,
                      const char *fmt, ...)
{
    proto_msg_t m = { .type = PROTO_ERROR };
    proto_error_t *e = &m.u.error;
    e->code = code;
    e->about = about;
    e->task_id = task_id;
    e->batch = batch;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    coord_session_t *s = coord_session_find(self, rid, rid_len);
    char peer[24];
    s_hex_rid(rid, rid_len, peer, sizeof peer);
    self->msgs_bad++;
    LOG(LOG_WARN, "peer %s session %s worker %s: %s %s: %s", peer, s ? s->session : "-",
        s ? s->worker_id : "-", proto_type_name(about) ? proto_type_name(about) : "?",
        proto_code_name(code), e->text);
    /* The text must be printable ASCII for the encoder: it replaces the rest. */
    coord_send(self, rid, rid_len, req_style, &m);
}

/* Token and bench of one HELLO; fills it->contributor and it->worker. */
static void s_hello_check(coord_t *self, coord_item_t *it)
{
    const proto_hello_t *h = &it->msg.u.hello;
    const uint8_t *rid = it->rid;
    size_t rid_len = it->rid_len;
    bool req_style = it->req_style;
    char hash[TOKEN_HASH_MAX];
    it->dropped = true;
    if (token_hash(h->token, hash, sizeof hash) < 0) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_INTERNAL, PROTO_HELLO, -1, -1,
                         "cannot hash the token");
        return;
    }
    store_contributor_t *c = &it->contributor;
    int rc = store_contributor_by_token(self->store, hash, c);
    if (rc == CAPA_ENOTFOUND) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_AUTH_FAILED, PROTO_HELLO, -1, -1,
                         "unknown token");
        return;
    }
    if (rc == CAPA_EAUTH) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_TOKEN_REVOKED, PROTO_HELLO, -1, -1,
                         "the token of contributor %s was revoked", c->name);
        return;
    }
    if (rc < 0) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_INTERNAL, PROTO_HELLO, -1, -1,
                         "database unavailable");
        return;
    }
    if (h->bench != self->bench) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_SIGNATURE_MISMATCH, PROTO_HELLO, -1,
                         -1, "bench signature %lld, expected %lld", (long long) h->bench,
                         (long long) self->bench);
        return;
    }
    store_worker_t *w = &it->worker;
    snprintf(w->id, sizeof w->id, "%s", h->worker_id);
    w->contributor_id = c->id;
    snprintf(w->name, sizeof w->name, "%s", h->name);
    cJSON *host = cJSON_CreateObject();
    if (host) {
        if (h->host_os[0])
            cJSON_AddStringToObject(host, "os", h->host_os);
        if (h->host_cpu[0])
            cJSON_AddStringToObject(host, "cpu", h->host_cpu);
        if (h->host_memory_mb > 0)
            cJSON_AddNumberToObject(host, "memory_mb", (double) h->host_memory_mb);
        w->host_info = cJSON_PrintUnformatted(host);
        cJSON_Delete(host);
    }
    w->cores = h->cores;
    w->concurrency = h->concurrency;
    snprintf(w->engine_version, sizeof w->engine_version, "%s", h->engine_version);
    w->bench_signature = h->bench;
    w->nps = h->nps;
    it->dropped = false;
}

static void s_upsert_error(coord_t *self, coord_item_t *it, int rc)
{
    if (rc == CAPA_EAUTH)
        coord_send_error(self, it->rid, it->rid_len, it->req_style, PROTO_AUTH_FAILED,
                         PROTO_HELLO, -1, -1, "worker id %s belongs to another contributor",
                         it->msg.u.hello.worker_id);
    else
        coord_send_error(self, it->rid, it->rid_len, it->req_style, PROTO_INTERNAL, PROTO_HELLO,
                         -1, -1, "database unavailable");
    it->dropped = true;
}

static void s_welcome(coord_t *self, coord_item_t *it)
{
    const proto_hello_t *h = &it->msg.u.hello;
    const uint8_t *rid = it->rid;
    size_t rid_len = it->rid_len;
    /* A worker id that still has a session elsewhere: end that session
     * (its leases follow the new HELLO's lists, or stay valid without). */
    coord_session_t *old = coord_session_by_worker(self, h->worker_id);
    if (old && !(old->rid_len == rid_len && memcmp(old->rid, rid, rid_len) == 0)) {
        LOG(LOG_INFO, "worker %s: new connection ends session %s", h->worker_id, old->session);
        coord_session_remove(self, old);
    }
    coord_session_t *s = coord_session_add(self, rid, rid_len);
    if (!s) {
        coord_send_error(self, rid, rid_len, it->req_style, PROTO_INTERNAL, PROTO_HELLO, -1, -1,
                         "out of memory");
        return;
    }
    s->req_style = it->req_style;
    s->revoked = false;
    snprintf(s->worker_id, sizeof s->worker_id, "%s", h->worker_id);
    snprintf(s->session, sizeof s->session, "s-%llx-%llx",
             (unsigned long long) (coord_wall_ms() & 0xffffffffffULL),
             (unsigned long long) ++self->session_serial);
    s->contributor_id = it->contributor.id;
    s->nps = h->nps;
    s->concurrency = h->concurrency;
    s->last_recv_ms = coord_now_ms();
    s->lists = h->holding.listed;
    if (s->lists)   /* a new process or connection: what it does not list is not played */
        coord_lease_judge(self, s, &h->holding, true);
    proto_msg_t m = { .type = PROTO_WELCOME };
    snprintf(m.u.welcome.session, sizeof m.u.welcome.session, "%s", s->session);
    m.u.welcome.heartbeat_ms = self->cfg.heartbeat_ms;
    m.u.welcome.liveness = self->cfg.liveness;
    m.u.welcome.bench = self->bench;
    snprintf(m.u.welcome.engine_version, sizeof m.u.welcome.engine_version, "%s",
             self->engine_version);
    /* the contributor's name when it is protocol text (a worker refuses a
     * WELCOME with control characters or broken UTF-8) */
    const char *cn = it->contributor.name;
    bool clean = pjson_utf8_valid(cn, strlen(cn));
    for (const char *p = cn; clean && *p; p++)
        clean = (unsigned char) *p >= 0x20 && *p != 0x7f;
    if (clean)
        snprintf(m.u.welcome.contributor, sizeof m.u.welcome.contributor, "%s", cn);
    LOG(LOG_INFO, "worker %s (%s, contributor %s, %d threads, %.0f nps) joined: session %s",
        h->worker_id, h->name, it->contributor.name, h->concurrency, h->nps, s->session);
    coord_send(self, rid, rid_len, it->req_style, &m);
}

void coord_turn_hellos(coord_t *self, coord_turn_t *turn)
{
    size_t n = 0;
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->msg.type != PROTO_HELLO || it->dropped)
            continue;
        s_hello_check(self, it);
        n += !it->dropped;
    }
    if (n == 0)
        return;
    /* All upserts in one transaction (one commit); if anything goes wrong
     * inside it, each on its own. */
    bool grouped = n > 1 && store_begin(self->store) == 0;
    int rc = 0;
    for (size_t i = 0; grouped && rc == 0 && i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->msg.type == PROTO_HELLO && !it->dropped) {
            rc = store_worker_upsert(self->store, &it->worker);
            if (rc == CAPA_EAUTH) {
                s_upsert_error(self, it, rc);
                rc = 0;
            }
        }
    }
    if (grouped && rc == 0)
        rc = store_commit(self->store);
    if (grouped && rc < 0) {
        store_rollback(self->store);
        grouped = false;
    }
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->msg.type != PROTO_HELLO || it->dropped)
            continue;
        if (!grouped && (rc = store_worker_upsert(self->store, &it->worker)) < 0) {
            s_upsert_error(self, it, rc);
            continue;
        }
        s_welcome(self, it);
    }
}

void coord_handle(coord_t *self, coord_turn_t *turn, const uint8_t *rid, size_t rid_len, bool req_style,
                  const void *frame, size_t len)
{
    self->msgs_in++;
    proto_msg_t msg;
    char err[512];
    if (proto_decode(frame, len, &msg, err, sizeof err) < 0) {
        coord_send_error(self, rid, rid_len, req_style, msg.fault, msg.type, -1, -1, "%s", err);
        proto_msg_free(&msg);
        return;
    }
    if (!self->ready) {   /* still starting: the database steps are not done */
        coord_send_error(self, rid, rid_len, req_style, PROTO_INTERNAL, msg.type,
                         msg.type == PROTO_RESULT ? msg.u.result.task_id : -1,
                         msg.type == PROTO_RESULT ? msg.u.result.batch : -1,
                         "the coordinator is starting (waiting for the database); try again");
        proto_msg_free(&msg);
        return;
    }
    if (msg.type == PROTO_HELLO) {
        if (coord_turn_add(turn, rid, rid_len, req_style, NULL, &msg) < 0)
            coord_send_error(self, rid, rid_len, req_style, PROTO_INTERNAL, PROTO_HELLO, -1, -1,
                             "out of memory");
        proto_msg_free(&msg);
        return;
    }
    coord_session_t *s = coord_session_find(self, rid, rid_len);
    if (!s) {
        int64_t task = msg.type == PROTO_RESULT ? msg.u.result.task_id : -1;
        int64_t batch = msg.type == PROTO_RESULT ? msg.u.result.batch : -1;
        coord_send_error(self, rid, rid_len, req_style, PROTO_UNKNOWN_WORKER, msg.type, task,
                         batch, "no session for this connection: send HELLO");
        proto_msg_free(&msg);
        return;
    }
    s->last_recv_ms = coord_now_ms();
    if (s->revoked) {
        coord_send_error(self, rid, rid_len, req_style, PROTO_TOKEN_REVOKED, msg.type, -1, -1,
                         "the token of this worker's contributor was revoked");
        coord_session_remove(self, s);
        proto_msg_free(&msg);
        return;
    }
    if (msg.type == PROTO_REQUEST)   /* proves the TASKs sent before it arrived */
        s->request_seq = ++self->seq;
    switch (msg.type) {
    case PROTO_REQUEST:
    case PROTO_RESULT:
        if (coord_turn_add(turn, rid, rid_len, req_style, s, &msg) < 0)
            coord_send_error(self, rid, rid_len, req_style, PROTO_INTERNAL, msg.type, -1, -1,
                             "out of memory");
        break;
    case PROTO_HEARTBEAT:   /* proof of life (last_recv_ms above), and maybe its lists */
        if (s->lists && msg.u.heartbeat.listed)
            coord_lease_judge(self, s, &msg.u.heartbeat, false);
        break;
    case PROTO_BYE: {
        char worker[PROTO_ID_MAX];
        snprintf(worker, sizeof worker, "%s", s->worker_id);
        LOG(LOG_INFO, "worker %s said BYE (%s): session %s ends", worker, msg.u.bye.reason,
            s->session);
        coord_session_remove(self, s);
        coord_lease_expire_worker(self, worker);
        break;
    }
    case PROTO_ERROR:
        LOG(LOG_WARN, "worker %s reports %s about %s (task %lld): %s", s->worker_id,
            proto_code_name(msg.u.error.code), proto_type_name(msg.u.error.about) ?
            proto_type_name(msg.u.error.about) : "?", (long long) msg.u.error.task_id,
            msg.u.error.text);
        break;
    default:
        coord_send_error(self, rid, rid_len, req_style, PROTO_UNKNOWN_TYPE, msg.type, -1, -1,
                         "a worker does not send %s", proto_type_name(msg.type));
        break;
    }
    proto_msg_free(&msg);
}
