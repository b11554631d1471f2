/* backoff.h - the reconnect delay: 1 s, doubling on each failed attempt up
 * to 32 s, back to 1 s after a success (docs/protocol.md section 4).
 *
 *   backoff_t b; backoff_init(&b, 1000, 32000);
 *   int ms = backoff_next(&b);      1000, 2000, 4000, ... 32000, 32000
 *   backoff_reset(&b);              after a WELCOME
 *
 * A plain value; no allocation.
 */
#ifndef CAPA_WORKER_BACKOFF_H
#define CAPA_WORKER_BACKOFF_H

typedef struct {
    int first_ms;   /* the first delay */
    int max_ms;     /* the cap */
    int next_ms;    /* what backoff_next returns next */
} backoff_t;

#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 32000

/* first_ms >= 1 and max_ms >= first_ms (else clamped to them). */
void backoff_init(backoff_t *b, int first_ms, int max_ms);
/* The delay to wait now; the following call returns twice as much (capped). */
int backoff_next(backoff_t *b);
/* The delay backoff_next would return, without advancing. */
int backoff_peek(const backoff_t *b);
void backoff_reset(backoff_t *b);

#endif
