/* worker_link.c - the worker's link to the coordinator: connecting, sending,
 * receiving and acting on each message (docs/protocol.md sections 3-4). */
#include "worker_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#include "err.h"
#include "log.h"

/* ---------------------------------------------------------------- sending */

void worker_send(worker_t *w, const char *frame, size_t len)
{
    if (!w->sock)
        return;
    if (zmq_send(w->sock, frame, len, ZMQ_DONTWAIT) < 0)
        LOG(LOG_DEBUG, "send failed (%s); the spool keeps results", zmq_strerror(errno));
    w->last_send_ms = worker_now_ms();
}

void worker_send_msg(worker_t *w, const proto_msg_t *msg)
{
    char *frame;
    size_t len;
    char err[256];
    if (proto_encode(msg, &frame, &len, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "cannot encode %s: %s", proto_type_name(msg->type), err);
        return;
    }
    worker_send(w, frame, len);
    free(frame);
}

/* Adds a spool entry's pairs to its task's entry in h->spooled; false when
 * the message limits would be passed. */
static bool s_holding_add(proto_holding_t *h, const spool_entry_t *e, size_t *total)
{
    proto_spooled_t *sp = NULL;
    for (size_t i = 0; i < h->spooled_count && !sp; i++)
        if (h->spooled[i].task_id == e->task_id)
            sp = &h->spooled[i];
    if (!sp) {
        if (h->spooled_count == PROTO_TASKS_MAX)
            return false;
        sp = &h->spooled[h->spooled_count++];
        *sp = (proto_spooled_t) { .task_id = e->task_id };
    }
    if (*total + e->pair_count > PROTO_SPOOLED_PAIRS_MAX ||
        sp->pair_count + e->pair_count > PROTO_PAIRS_MAX)
        return false;
    int64_t *p = realloc(sp->pairs, (sp->pair_count + e->pair_count + 1) * sizeof *p);
    if (!p)
        return false;
    sp->pairs = p;
    /* A batch split after TOO_BIG can sit beside its old copy for a moment:
     * each number once. */
    for (size_t i = 0; i < e->pair_count; i++) {
        bool seen = false;
        for (size_t k = 0; k < sp->pair_count && !seen; k++)
            seen = sp->pairs[k] == e->pairs[i];
        if (!seen) {
            sp->pairs[sp->pair_count++] = e->pairs[i];
            (*total)++;
        }
    }
    if (sp->pair_count == 0) {   /* a frame without readable pairs: refused when resent */
        free(sp->pairs);
        h->spooled_count--;
    }
    return true;
}

void worker_holding(worker_t *w, proto_holding_t *h)
{
    memset(h, 0, sizeof *h);
    size_t ntasks = 0;
    for (worker_task_t *t = w->tasks; t; t = t->next)
        ntasks += !t->abandoned;
    h->tasks = calloc(ntasks < PROTO_TASKS_MAX ? ntasks + 1 : PROTO_TASKS_MAX, sizeof *h->tasks);
    h->spooled = calloc(PROTO_TASKS_MAX, sizeof *h->spooled);
    if (!h->tasks || !h->spooled) {
        proto_holding_free(h);
        return;
    }
    for (worker_task_t *t = w->tasks; t && h->task_count < PROTO_TASKS_MAX; t = t->next)
        if (!t->abandoned)
            h->tasks[h->task_count++] = t->task.task_id;
    /* Complete lists only: frames not yet in the spool, or more than the
     * limits, leave "spooled" out (then the message is a sign of life). */
    bool complete = ntasks <= PROTO_TASKS_MAX && w->unspooled.count == 0;
    size_t total = 0;
    for (size_t i = 0; complete && i < spool_count(w->spool); i++)
        complete = s_holding_add(h, spool_entry(w->spool, i), &total);
    h->listed = complete;
}

void worker_send_hello(worker_t *w)
{
    proto_msg_t m = { .type = PROTO_HELLO };
    m.u.hello = w->hello;
    worker_holding(w, &m.u.hello.holding);
    worker_send_msg(w, &m);
    proto_holding_free(&m.u.hello.holding);
    w->state = WORKER_HELLO;
}

void worker_resend_spool(worker_t *w)
{
    size_t n = spool_count(w->spool);
    if (n)
        LOG(LOG_INFO, "resending %zu spooled batch(es)", n);
    for (size_t i = 0; i < n; i++) {
        const spool_entry_t *e = spool_entry(w->spool, i);
        worker_send(w, e->frame, e->len);
    }
}

/* ------------------------------------------------------------- connection */

int worker_connect(worker_t *w)
{
    w->sock = zmq_socket(w->zctx, ZMQ_DEALER);
    if (!w->sock) {
        LOG(LOG_ERROR, "zmq_socket: %s", zmq_strerror(errno));
        return CAPA_EIO;
    }
    int linger = 0;
    int64_t maxmsg = PROTO_FRAME_MAX + 1024;
    zmq_setsockopt(w->sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(w->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    if (w->curve) {
        zmq_setsockopt(w->sock, ZMQ_CURVE_SERVERKEY, w->curve_server, 41);
        zmq_setsockopt(w->sock, ZMQ_CURVE_PUBLICKEY, w->curve_public, 41);
        zmq_setsockopt(w->sock, ZMQ_CURVE_SECRETKEY, w->curve_secret, 41);
    }
    if (zmq_connect(w->sock, w->cfg.coordinator) < 0) {
        LOG(LOG_ERROR, "cannot connect to %s: %s", w->cfg.coordinator, zmq_strerror(errno));
        zmq_close(w->sock);
        w->sock = NULL;
        return CAPA_EIO;
    }
    w->last_recv_ms = worker_now_ms();
    w->request_out = false;
    w->hb_ms = w->cfg.heartbeat_ms;
    w->liveness = w->cfg.liveness;
    LOG(LOG_INFO, "connecting to %s", w->cfg.coordinator);
    worker_send_hello(w);
    return 0;
}

void worker_disconnect(worker_t *w, const char *why)
{
    if (w->sock) {
        zmq_close(w->sock);
        w->sock = NULL;
    }
    w->state = WORKER_DISCONNECTED;
    w->session[0] = '\0';
    w->request_out = false;
    int delay = backoff_next(&w->backoff);
    w->reconnect_at = worker_now_ms() + delay;
    LOG(LOG_WARN, "%s; reconnecting in %d ms", why, delay);
}

void worker_send_error(worker_t *w, proto_code_t code, proto_type_t about, int64_t task_id,
                         const char *text)
{
    proto_msg_t m = { .type = PROTO_ERROR };
    m.u.error.code = code;
    m.u.error.about = about;
    m.u.error.task_id = task_id;
    m.u.error.batch = -1;
    snprintf(m.u.error.text, sizeof m.u.error.text, "%s", text);
    worker_send_msg(w, &m);
}


/* ------------------------------------------------------------- messages */

void worker_refused(worker_t *w, const proto_error_t *e)
{
    char how[512];
    worker_update_hint(how, sizeof how);
    const char *c = w->cfg.coordinator;
    switch (e->code) {
    case PROTO_AUTH_FAILED:
        LOG(LOG_ERROR, "refused: the coordinator at %s does not know this token (%s: %s). Ask "
                       "its admin for a token (capa contributor add NAME), then run "
                       "`capa-worker setup --coordinator %s --token NEW_TOKEN` and start again. "
                       "Exit status %d.",
            c, proto_code_name(e->code), e->text, c, WORKER_EXIT_AUTH);
        break;
    case PROTO_TOKEN_REVOKED:
        LOG(LOG_ERROR, "refused: the coordinator at %s revoked this token (%s: %s). Ask its "
                       "admin for a new token, then run `capa-worker setup --coordinator %s "
                       "--token NEW_TOKEN` and start again. Exit status %d.",
            c, proto_code_name(e->code), e->text, c, WORKER_EXIT_AUTH);
        break;
    case PROTO_SIGNATURE_MISMATCH: {
        long long want = -1;
        const char *p = strstr(e->text, "expected ");
        if (p)
            sscanf(p + 9, "%lld", &want);
        char wanted[64];
        if (want >= 0)
            snprintf(wanted, sizeof wanted, "%lld", want);
        else
            snprintf(wanted, sizeof wanted, "another one");
        LOG(LOG_ERROR, "refused: the coordinator at %s plays with an engine whose bench "
                       "signature is %s; this worker's engine %s has %" PRId64 " (%s). Update "
                       "this install to the coordinator's version: %s. Exit status %d.",
            c, wanted, w->hello.engine_version, w->hello.bench, e->text, how,
            WORKER_EXIT_SIGNATURE);
        break;
    }
    case PROTO_BAD_VERSION:
        LOG(LOG_ERROR, "refused: the coordinator at %s speaks another protocol version than "
                       "this worker's %d (%s). Update this install to the coordinator's "
                       "version: %s. Exit status %d.",
            c, PROTO_VERSION, e->text, how, WORKER_EXIT_VERSION);
        break;
    default:
        break;
    }
}

static void s_on_error(worker_t *w, const proto_error_t *e)
{
    const char *code = proto_code_name(e->code);
    const char *about = e->about == PROTO_NONE ? "?" : proto_type_name(e->about);
    LOG(LOG_WARN, "ERROR %s about %s (task %" PRId64 ", batch %" PRId64 "): %s", code, about,
        e->task_id, e->batch, e->text);
    bool on_result = e->about == PROTO_RESULT && e->task_id >= 0 && e->batch >= 0;
    const spool_entry_t *entry = on_result ? spool_find(w->spool, e->task_id, e->batch) : NULL;
    worker_task_t *t = e->task_id >= 0 ? worker_task_find(w, e->task_id) : NULL;
    char err[256];
    if (e->about == PROTO_REQUEST)
        w->request_out = false;
    switch (e->code) {
    case PROTO_AUTH_FAILED:
    case PROTO_TOKEN_REVOKED:
        worker_refused(w, e);
        w->exit_status = WORKER_EXIT_AUTH;
        w->done = true;
        return;
    case PROTO_SIGNATURE_MISMATCH:
        worker_refused(w, e);
        w->exit_status = WORKER_EXIT_SIGNATURE;
        w->done = true;
        return;
    case PROTO_BAD_VERSION:
        worker_refused(w, e);
        w->exit_status = WORKER_EXIT_VERSION;
        w->done = true;
        return;
    case PROTO_UNKNOWN_WORKER:
        LOG(LOG_INFO, "the coordinator does not know this connection: HELLO again");
        w->request_out = false;
        worker_send_hello(w);
        return;
    case PROTO_TOO_BIG:
        if (entry) {
            int64_t next = spool_max_batch(w->spool, e->task_id) + 1;
            if (t && t->batch.next_batch > next)
                next = t->batch.next_batch;
            batch_frames_t frames = { 0 };
            int rc = batch_split(entry->frame, entry->len, &next, &frames, err, sizeof err);
            if (rc < 0) {
                LOG(LOG_ERROR, "cannot split batch %" PRId64 ": %s", e->batch, err);
                return;
            }
            if (t)
                t->batch.next_batch = next;
            int64_t old = e->batch;
            worker_emit(w, &frames);
            if (w->unspooled.count == 0)
                spool_remove(w->spool, e->task_id, old, err, sizeof err);
        }
        return;
    case PROTO_BAD_JSON:
    case PROTO_BAD_SCHEMA:
    case PROTO_INCONSISTENT_RESULT:
    case PROTO_PAIR_OUTSIDE_LEASE:
        if (entry) {
            LOG(LOG_ERROR, "BUG: the coordinator refused RESULT task %" PRId64 " batch %" PRId64
                           " (%s): kept in %s/" SPOOL_BAD_FILE " for inspection, not resent",
                e->task_id, e->batch, code, w->state_dir);
            if (spool_quarantine(w->spool, e->task_id, e->batch, err, sizeof err) < 0)
                LOG(LOG_ERROR, "%s", err);
        } else if (e->about == PROTO_HELLO) {
            LOG(LOG_ERROR, "the coordinator refused HELLO (%s): %s", code, e->text);
            w->exit_status = WORKER_EXIT_FAILURE;
            w->done = true;
        }
        if (e->code == PROTO_PAIR_OUTSIDE_LEASE && t)
            worker_task_abandon(w, t, code);
        return;
    case PROTO_LEASE_UNKNOWN:
    case PROTO_LEASE_NOT_YOURS:
    case PROTO_LEASE_EXPIRED:
        if (entry && spool_remove(w->spool, e->task_id, e->batch, err, sizeof err) < 0)
            LOG(LOG_WARN, "%s", err);
        if (t)
            worker_task_abandon(w, t, code);
        return;
    case PROTO_INTERNAL: {
        int delay = backoff_next(&w->internal_backoff);
        if (w->resend_at == INT64_MAX || w->resend_at > worker_now_ms() + delay)
            w->resend_at = worker_now_ms() + delay;
        if (e->about == PROTO_REQUEST)
            w->request_at = worker_now_ms() + delay;
        LOG(LOG_INFO, "coordinator trouble: %s in %d ms",
            w->state == WORKER_HELLO ? "HELLO again" : "resending the spool", delay);
        return;
    }
    default:
        return; /* UNKNOWN_TYPE and anything new: logged above, dropped */
    }
}

/* " 120 121 119" (stored, then duplicate) for the debug log, so a test can
 * collect every acknowledged pair; "..." ends a list that does not fit. */
static void s_pair_list(const proto_ack_t *a, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    size_t total = a->stored_count + a->duplicate_count;
    for (size_t i = 0; i < total; i++) {
        int64_t p = i < a->stored_count ? a->stored[i] : a->duplicate[i - a->stored_count];
        int n = snprintf(out + len, cap - len, " %" PRId64, p);
        if (n < 0 || (size_t) n >= cap - len - 4) {
            snprintf(out + len, cap - len, " ...");
            return;
        }
        len += (size_t) n;
    }
}

static void s_on_message(worker_t *w, const char *frame, size_t len)
{
    proto_msg_t msg;
    char err[256];
    if (proto_decode(frame, len, &msg, err, sizeof err) < 0) {
        LOG(LOG_WARN, "dropping a bad message from the coordinator (%s): %s",
            proto_code_name(msg.fault), err);
        proto_msg_free(&msg);
        return;
    }
    switch (msg.type) {
    case PROTO_WELCOME: {
        const proto_welcome_t *wm = &msg.u.welcome;
        snprintf(w->session, sizeof w->session, "%s", wm->session);
        w->hb_ms = wm->heartbeat_ms;
        w->liveness = wm->liveness;
        w->state = WORKER_READY;
        w->resend_at = INT64_MAX;   /* the spool goes out now */
        backoff_reset(&w->backoff);
        snprintf(w->contributor, sizeof w->contributor, "%s", wm->contributor);
        LOG(LOG_INFO, "WELCOME: session %s, heartbeat %d ms x %d%s%s", w->session, w->hb_ms,
            w->liveness, wm->contributor[0] ? ", contributor " : "", wm->contributor);
        if (wm->bench != w->hello.bench)
            LOG(LOG_WARN, "the coordinator expects bench %" PRId64 ", this engine has %" PRId64,
                wm->bench, w->hello.bench);
        worker_resend_spool(w);
        /* frames that could not be spooled yet go out once they are */
        break;
    }
    case PROTO_TASK:
        worker_on_task(w, &msg.u.task);
        break;
    case PROTO_NO_TASK:
        w->request_out = false;
        w->request_at = worker_now_ms() + msg.u.no_task.retry_ms;
        LOG(LOG_DEBUG, "NO_TASK (%s): asking again in %d ms", msg.u.no_task.reason,
            msg.u.no_task.retry_ms);
        break;
    case PROTO_ACK: {
        const proto_ack_t *a = &msg.u.ack;
        int rc = spool_remove(w->spool, a->task_id, a->batch, err, sizeof err);
        if (rc < 0 && rc != CAPA_ENOTFOUND)
            LOG(LOG_WARN, "ACK task %" PRId64 " batch %" PRId64 ": %s", a->task_id, a->batch, err);
        backoff_reset(&w->internal_backoff);
        w->last_ack_wall = (int64_t) time(NULL);
        w->acked_pairs += a->stored_count + a->duplicate_count;
        if (capa_log_level() >= LOG_DEBUG) {
            char list[512];
            s_pair_list(a, list, sizeof list);
            LOG(LOG_DEBUG, "ACK task %" PRId64 " batch %" PRId64 ": %zu stored, %zu duplicate; pairs%s",
                a->task_id, a->batch, a->stored_count, a->duplicate_count, list);
        }
        break;
    }
    case PROTO_HEARTBEAT:
        break;
    case PROTO_BYE:
        LOG(LOG_INFO, "the coordinator says BYE (%s)", msg.u.bye.reason);
        backoff_reset(&w->backoff);
        worker_disconnect(w, "coordinator went away");
        break;
    case PROTO_ERROR:
        s_on_error(w, &msg.u.error);
        break;
    default:
        LOG(LOG_WARN, "unexpected %s from the coordinator; ignored", proto_type_name(msg.type));
        break;
    }
    proto_msg_free(&msg);
}

void worker_receive(worker_t *w)
{
    while (w->sock && !w->done) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, w->sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return;
        }
        w->last_recv_ms = worker_now_ms();
        bool more = zmq_msg_more(&m);
        if (more) {
            LOG(LOG_WARN, "dropping a multi-frame message (expected one JSON frame)");
            while (more) {
                zmq_msg_close(&m);
                zmq_msg_init(&m);
                if (zmq_msg_recv(&m, w->sock, ZMQ_DONTWAIT) < 0)
                    break;
                more = zmq_msg_more(&m);
            }
            zmq_msg_close(&m);
            continue;
        }
        s_on_message(w, zmq_msg_data(&m), zmq_msg_size(&m));
        zmq_msg_close(&m);
    }
}
