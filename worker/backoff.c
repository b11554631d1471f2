/* backoff.c - doubling reconnect delay with a cap. */
#include "backoff.h"

void backoff_init(backoff_t *b, int first_ms, int max_ms)
{
    b->first_ms = first_ms < 1 ? 1 : first_ms;
    b->max_ms = max_ms < b->first_ms ? b->first_ms : max_ms;
    b->next_ms = b->first_ms;
}

int backoff_next(backoff_t *b)
{
    int now = b->next_ms;
    b->next_ms = now > b->max_ms / 2 ? b->max_ms : now * 2;
    return now;
}

int backoff_peek(const backoff_t *b) { return b->next_ms; }

void backoff_reset(backoff_t *b) { b->next_ms = b->first_ms; }
