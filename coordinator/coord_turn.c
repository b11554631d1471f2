/* coord_turn.c - a loop turn: the REQUESTs and RESULTs (and HELLOs) that
 * arrived in one wake-up are queued here and handled together at its end,
 * so that their database work is grouped: one commit for the HELLOs, one
 * statement for all the new leases (TASKs go out at once), and the RESULTs
 * wait for the writer thread (coord_result.c, coord_writer.c), which
 * stores all that arrived during its previous job with one commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord_int.h"
#include "err.h"
#include "store_bulk.h"

/* A new last item (not cleared), or NULL on out of memory. */
static coord_item_t *s_turn_push(coord_turn_t *turn)
{
    if (turn->n == turn->cap) {
        size_t cap = turn->cap ? 2 * turn->cap : 64;
        coord_item_t *items = realloc(turn->items, cap * sizeof *items);
        if (!items)
            return NULL;
        turn->items = items;
        turn->cap = cap;
    }
    return &turn->items[turn->n++];
}

int coord_turn_add(coord_turn_t *turn, const uint8_t *rid, size_t rid_len, bool req_style,
                   const coord_session_t *s, proto_msg_t *msg)
{
    coord_item_t *it = s_turn_push(turn);
    if (!it)
        return CAPA_ENOMEM;
    memset(it, 0, sizeof *it);
    memcpy(it->rid, rid, rid_len);
    it->rid_len = rid_len;
    it->req_style = req_style;
    if (s) {
        memcpy(it->worker_id, s->worker_id, sizeof it->worker_id);
        it->contributor_id = s->contributor_id;
        it->nps = s->nps;
        it->concurrency = s->concurrency;
    }
    it->msg = *msg;
    memset(msg, 0, sizeof *msg);   /* the item owns the arrays now */
    msg->type = PROTO_NONE;
    return 0;
}

static void s_revocations(coord_t *self, coord_turn_t *turn)
{
    if (turn->n == 0)
        return;
    int64_t *ids = malloc(turn->n * sizeof *ids);
    if (!ids)
        return;
    size_t n = 0;
    for (size_t i = 0; i < turn->n; i++) {
        if (turn->items[i].msg.type == PROTO_HELLO || turn->items[i].dropped)
            continue;
        int64_t id = turn->items[i].contributor_id;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = ids[k] == id;
        if (!seen)
            ids[n++] = id;
    }
    int64_t *rev = NULL;
    size_t nrev = 0;
    if (store_bulk_revoked(self->store, ids, n, &rev, &nrev) == 0) {
        for (size_t i = 0; i < turn->n; i++) {
            coord_item_t *it = &turn->items[i];
            if (it->msg.type == PROTO_HELLO || it->dropped)
                continue;
            for (size_t k = 0; k < nrev; k++)
                if (rev[k] == it->contributor_id) {
                    ITEM_ERROR(self, it, PROTO_TOKEN_REVOKED,
                               "the token of this worker's contributor was revoked");
                    coord_session_t *s = coord_session_find(self, it->rid, it->rid_len);
                    if (s)
                        coord_session_remove(self, s);
                    break;
                }
        }
    }
    free(rev);
    free(ids);
}

void coord_item_free(coord_item_t *it)
{
    proto_msg_free(&it->msg);
    free(it->worker.host_info);
    free(it->pairs);
    free(it->starts);
    free(it->fresh);
}

void coord_turn_free(coord_turn_t *turn)
{
    for (size_t i = 0; i < turn->n; i++)
        coord_item_free(&turn->items[i]);
    free(turn->items);
    turn->items = NULL;
    turn->n = turn->cap = 0;
}

/* Moves the turn's RESULTs to the writer's waiting list. */
static void s_results_wait(coord_t *self, coord_turn_t *turn)
{
    for (size_t i = 0; i < turn->n; i++) {
        coord_item_t *it = &turn->items[i];
        if (it->dropped || it->msg.type != PROTO_RESULT)
            continue;
        coord_item_t *to = s_turn_push(&self->results_wait);
        if (!to) {
            ITEM_ERROR(self, it, PROTO_INTERNAL, "out of memory; resend later");
            continue;
        }
        *to = *it;
        memset(it, 0, sizeof *it);   /* moved: nothing left to free */
        it->dropped = true;
    }
}

void coord_turn_finish(coord_t *self, coord_turn_t *turn)
{
    if (turn->n) {
        int64_t t0 = coord_now_ns();
        coord_turn_hellos(self, turn);
        int64_t t1 = coord_now_ns();
        s_revocations(self, turn);
        int64_t t2 = coord_now_ns();
        coord_turn_requests(self, turn);
        int64_t t3 = coord_now_ns();
        s_results_wait(self, turn);
        self->st_turns++;
        self->st_items += turn->n;
        self->st_ns[COORD_NS_HELLO] += (uint64_t) (t1 - t0);
        self->st_ns[COORD_NS_REVOKED] += (uint64_t) (t2 - t1);
        self->st_ns[COORD_NS_REQUESTS] += (uint64_t) (t3 - t2);
    }
    coord_turn_free(turn);
}
